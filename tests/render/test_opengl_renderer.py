"""warp_nb.render.OpenGLRenderer, the pyvista stand-in for Warp's OpenGL viewer, rendering off
screen (Mesa EGL, no display): frames are not blank and follow the geometry; where things land
on screen is checked against a numpy pinhole-camera projection (camera position, direction and
field of view), depth against the known distance; tiles, get_pixels, the run loop and the calls
example_render_opengl.py makes. Skipped without pyvista."""

import os

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.render

pytest.importorskip("pyvista", reason="OpenGLRenderer tests need pyvista (pip install 'warp_nb[viz]')")

W, H = 160, 120
BG = (0.53, 0.8, 0.92)


def make(**kw):
    opts = {"screen_width": W, "screen_height": H, "draw_grid": False, "draw_axis": False, "headless": True,
            "camera_pos": (0.0, 0.0, 10.0), "camera_front": (0.0, 0.0, -1.0), "camera_up": (0.0, 1.0, 0.0)}
    opts.update(kw)
    return wp.render.OpenGLRenderer(**opts)


def drawn(img, bg=BG):
    """Pixels that are not the background colour."""
    return np.abs(img.astype(np.float64) - np.asarray(bg) * 255).sum(-1) > 30


def centroid(mask):
    rows, cols = np.nonzero(mask)
    return cols.mean(), rows.mean()


def pinhole(point, cam=(0.0, 0.0, 10.0), fov=45.0, width=W, height=H):
    """Pixel (column, row) of a world point seen by a camera at `cam` looking down -Z, Y up."""
    x, y, z = np.asarray(point, np.float64) - np.asarray(cam)
    f = (height / 2) / np.tan(np.radians(fov) / 2)
    return width / 2 + f * x / -z, height / 2 - f * y / -z


@pytest.fixture
def renderer():
    r = make()
    yield r
    r.close()


def frame(r, draw, t=0.0):
    r.begin_frame(t)
    draw(r)
    r.end_frame()
    return r.image.copy()


def test_frames_not_blank_and_follow_the_geometry(renderer):
    a = frame(renderer, lambda r: r.render_sphere("ball", (0.0, 0.0, 0.0), None, 1.0, color=(1.0, 0.2, 0.2)))
    b = frame(renderer, lambda r: r.render_sphere("ball", (1.5, 0.0, 0.0), None, 1.0, color=(1.0, 0.2, 0.2)))
    assert a.shape == (H, W, 3) and a.dtype == np.uint8
    assert a.reshape(-1, 3).astype(float).var(0).sum() > 100  # not one flat colour
    assert drawn(a).sum() > 100
    assert np.abs(a.astype(int) - b).sum() > 1000  # the picture changed as the ball moved
    assert centroid(drawn(b))[0] > centroid(drawn(a))[0] + 10
    assert renderer.frame == 2


@pytest.mark.parametrize("pos", [(0.0, 0.0, 0.0), (2.0, 1.0, 0.0), (-1.5, -1.0, 2.0)])
def test_projection_matches_pinhole_camera(renderer, pos):
    img = frame(renderer, lambda r: r.render_sphere("ball", pos, None, 0.3, color=(1.0, 0.0, 0.0)))
    u, v = centroid(drawn(img))
    eu, ev = pinhole(pos)
    assert abs(u - eu) < 1.0 and abs(v - ev) < 1.0, ((u, v), (eu, ev))


def test_camera_moves_with_update_view_matrix(renderer):
    renderer.camera_pos = (2.0, 0.0, 10.0)
    renderer.update_view_matrix()
    img = frame(renderer, lambda r: r.render_sphere("ball", (0.0, 0.0, 0.0), None, 0.3, color=(1.0, 0.0, 0.0)))
    u, v = centroid(drawn(img))
    eu, ev = pinhole((0.0, 0.0, 0.0), cam=(2.0, 0.0, 10.0))
    assert abs(u - eu) < 1.0 and abs(v - ev) < 1.0


def test_up_axis_z_and_scaling():
    """up_axis='Z' shows world +Z as up on screen; scaling scales the scene about the origin."""
    r = make(up_axis="Z", scaling=2.0)
    try:
        img = frame(r, lambda r: r.render_sphere("ball", (1.0, 0.0, 0.75), None, 0.15, color=(1.0, 0.0, 0.0)))
        u, v = centroid(drawn(img))
        eu, ev = pinhole((2.0, 1.5, 0.0))  # world (x, y, z) -> view (x, z, -y), times 2
        assert abs(u - eu) < 1.0 and abs(v - ev) < 1.0, ((u, v), (eu, ev))
    finally:
        r.close()


def test_depth_is_distance_along_the_view(renderer):
    frame(renderer, lambda r: r.render_box("wall", (0.0, 0.0, 0.0), None, (1.0, 1.0, 0.5)))
    depth = wp.zeros((H, W, 1), dtype=float)
    assert renderer.get_pixels(depth, split_up_tiles=False, mode="depth")
    d = depth.numpy()[..., 0]
    np.testing.assert_allclose(d[H // 2, W // 2], 10.0 - 0.5, atol=0.02)  # the box's front face, z = 0.5
    assert d[2, 2] == renderer.camera_far_plane  # nothing drawn there
    assert (d > 0).all() and (d <= renderer.camera_far_plane).all()


def test_get_pixels_rgb_targets(renderer):
    img = frame(renderer, lambda r: r.render_sphere("ball", (0.0, 0.0, 0.0), None, 1.0))
    as_float = wp.zeros((H, W, 3), dtype=float)
    with pytest.raises(RuntimeError, match=r"requires setup_tiled_rendering\(\) when split_up_tiles=True"):
        renderer.get_pixels(as_float)  # (split_up_tiles=True is the default, as in Warp: no tiles, nothing to split)
    renderer.get_pixels(as_float, split_up_tiles=False)
    np.testing.assert_allclose(as_float.numpy(), img / 255.0, atol=1e-6)
    as_uint8 = wp.zeros((H, W, 3), dtype=wp.uint8)
    renderer.get_pixels(as_uint8, split_up_tiles=False, use_uint8=True)
    np.testing.assert_array_equal(as_uint8.numpy(), img)
    host = np.zeros((H, W, 3), np.float32)
    renderer.get_pixels(host, split_up_tiles=False)
    np.testing.assert_allclose(host, img / 255.0, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        renderer.get_pixels(np.zeros((H, W + 1, 3), np.float32), split_up_tiles=False)
    with pytest.raises(ValueError, match="mode"):
        renderer.get_pixels(host, mode="normals")


def test_tiles_show_their_instances(renderer):
    red, blue = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)

    def scene(r):
        r.render_sphere("red", (-1.0, 0.0, 0.0), None, 0.8, color=red)  # instance 0
        r.render_sphere("blue", (1.0, 0.0, 0.0), None, 0.8, color=blue)  # instance 1

    frame(renderer, scene)
    renderer.setup_tiled_rendering([[0], [1]])
    assert (renderer.tile_width, renderer.tile_height, renderer.num_tiles) == (W // 2, H, 2)
    frame(renderer, scene)
    pixels = wp.zeros((2, H, W // 2, 3), dtype=float)
    renderer.get_pixels(pixels, split_up_tiles=True)
    tiles = pixels.numpy()

    def has(tile, rgb):
        c = np.asarray(rgb)
        return ((np.abs(tile - c) < 0.35).all(-1) & (tile.max(-1) > 0.3)).sum()

    assert has(tiles[0], red) > 20 and has(tiles[0], blue) == 0
    assert has(tiles[1], blue) > 20 and has(tiles[1], red) == 0
    whole = np.zeros((H, W, 3), np.float32)
    renderer.get_pixels(whole, split_up_tiles=False)
    np.testing.assert_allclose(whole[:, :W // 2], tiles[0], atol=1e-6)  # tile 0 on the left
    np.testing.assert_allclose(whole[:, W // 2:], tiles[1], atol=1e-6)
    renderer.update_tile(1, instances=[0])  # now both tiles show the red sphere
    frame(renderer, scene)
    renderer.get_pixels(pixels, split_up_tiles=True)
    tiles = pixels.numpy()
    assert has(tiles[1], red) > 20 and has(tiles[1], blue) == 0
    with pytest.raises(IndexError, match="tile_id 2 is out of bounds for 2 tiles"):
        renderer.update_tile(2)


@pytest.mark.parametrize("instances, error, words", [
    (([0],), TypeError, "instances must be a list of lists, got tuple"),
    ([], ValueError, r"instances must be non-empty, got \[\]"),
    ([[0], (1,)], TypeError, "instances elements must be lists, got tuple at index 1"),
])
def test_setup_tiled_rendering_checks_instances(renderer, instances, error, words):
    with pytest.raises(error, match=words):
        renderer.setup_tiled_rendering(instances)


@pytest.mark.parametrize("indices, bad", [((0, 1, -1), "-1"), ((0, 1, 3), "3"),
                                          (np.array((0, 1, 1 << 32), np.uint64), str(1 << 32)),
                                          ((0, 1, 1 << 70), str(1 << 70))])
def test_render_mesh_names_an_index_outside_the_points(renderer, indices, bad):
    tri = np.array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)], np.float32)
    with pytest.raises(ValueError, match=rf"index {bad} at position 2 is outside the valid range \[0, 3\)"):
        renderer.render_mesh("tri", tri, indices)
    assert "tri" not in renderer._items  # refused before anything was made


def test_render_mesh_accepts_a_mesh_without_faces(renderer):
    tri = np.array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)], np.float32)
    for smooth in (False, True):
        assert isinstance(renderer.render_mesh(f"empty{smooth}", tri, (), smooth_shading=smooth), int)
    frame(renderer, lambda r: None)


@pytest.mark.parametrize("kind", ["points", "points_colored", "mesh", "mesh_colored", "line_list", "line_strip",
                                  "box", "sphere", "capsule", "cylinder", "cone", "arrow", "plane", "ground"])
def test_every_primitive_draws_something(renderer, kind):
    rng = np.random.default_rng(0)
    pts = rng.uniform(-1.5, 1.5, (50, 3)).astype(np.float32)
    quad = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32)
    calls = {
        "points": lambda r: r.render_points("p", wp.array(pts, dtype=wp.vec3), radius=0.1),
        "points_colored": lambda r: r.render_points("p", pts, radius=rng.uniform(0.05, 0.15, 50),
                                                    colors=rng.random((50, 3))),
        "mesh": lambda r: r.render_mesh("m", quad, [0, 1, 2, 0, 2, 3], colors=(0.35, 0.55, 0.9)),
        "mesh_colored": lambda r: r.render_mesh("m", quad, np.array([[0, 1, 2], [0, 2, 3]]), colors=np.eye(4)[:, :3]),
        "line_list": lambda r: r.render_line_list("l", pts, np.arange(50), [(1.0, 0.0, 0.0)] * 25),
        "line_strip": lambda r: r.render_line_strip("s", pts, color=(0.0, 0.0, 0.0)),
        "box": lambda r: r.render_box("b", (0.0, 0.0, 0.0), wp.quat_identity(), extents=(0.5, 0.5, 0.5)),
        "sphere": lambda r: r.render_sphere("s", wp.vec3(0.0, 0.0, 0.0), wp.quat_identity(), 0.5),
        "capsule": lambda r: r.render_capsule("c", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], 0.5, 0.8),
        "cylinder": lambda r: r.render_cylinder("c", [0.0, 0.0, 0.0], None, 0.5, 0.8, up_axis=0),
        "cone": lambda r: r.render_cone("c", [0.0, 0.0, 0.0], None, 0.5, 0.8, up_axis=2),
        "arrow": lambda r: r.render_arrow("a", (0.0, 0.0, 0.0), None, 0.1, 1.0),
        "plane": lambda r: r.render_plane("p", (0.0, 0.0, 0.0), (0.7071068, 0.0, 0.0, 0.7071068), 1.0, 1.0,
                                          color=(1.0, 1.0, 1.0), color2=(0.0, 0.0, 0.0)),
        "ground": lambda r: r.render_ground(),
    }
    if kind == "ground":
        renderer.camera_pos = (0.0, 2.0, 10.0)  # Warp's default camera, above the ground (not edge-on)
    img = frame(renderer, calls[kind])
    assert drawn(img).sum() > 30, kind


def test_mesh_points_update_in_place(renderer):
    quad = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32)
    a = frame(renderer, lambda r: r.render_mesh("m", quad, [0, 1, 2, 0, 2, 3]))
    actor = renderer._items["m"].actor
    b = frame(renderer, lambda r: r.render_mesh("m", quad + [1.0, 0.0, 0.0], [0, 1, 2, 0, 2, 3]))
    assert renderer._items["m"].actor is actor  # same dataset, moved vertices
    assert centroid(drawn(b))[0] > centroid(drawn(a))[0] + 10
    c = frame(renderer, lambda r: r.render_mesh("m", quad[:3], [0, 1, 2], update_topology=True))
    assert drawn(c).sum() < drawn(b).sum()  # one triangle left


def test_run_loop_ends_after_max_frames(monkeypatch):
    r = make(max_frames=3)
    n = 0
    while r.is_running():
        r.begin_frame(r.clock_time)
        r.render_sphere("s", (0.0, 0.0, 0.0), None, 0.5)
        r.end_frame()
        n += 1
    assert n == 3 and r.has_exit
    r.close()
    monkeypatch.setenv("WARP_NB_RENDER_MAX_FRAMES", "2")
    r = make()
    assert r.max_frames == 2
    r.close()
    assert r.has_exit and not r.is_running()


def test_clear_removes_everything(renderer):
    frame(renderer, lambda r: r.render_sphere("s", (0.0, 0.0, 0.0), None, 1.0))
    renderer.clear()
    img = frame(renderer, lambda r: None)
    assert drawn(img).sum() == 0


def test_ref_draws_the_meshes_of_a_usd_file(renderer, tmp_path):
    pytest.importorskip("pxr")
    from pxr import Gf, Usd, UsdGeom
    stage = Usd.Stage.CreateNew(str(tmp_path / "tri.usda"))
    mesh = UsdGeom.Mesh.Define(stage, "/tri")
    mesh.GetPointsAttr().Set([Gf.Vec3f(-1, -1, 0), Gf.Vec3f(1, -1, 0), Gf.Vec3f(0, 1, 0)])
    mesh.GetFaceVertexCountsAttr().Set([3])
    mesh.GetFaceVertexIndicesAttr().Set([0, 1, 2])
    stage.GetRootLayer().Save()
    img = frame(renderer, lambda r: r.render_ref("rock", str(tmp_path / "tri.usda"), wp.vec3(2.0, 0.0, 0.0),
                                                 wp.quat_identity(), wp.vec3(1.0, 1.0, 1.0), color=(1.0, 0.0, 0.0)))
    u, _ = centroid(drawn(img))
    assert abs(u - pinhole((2.0, -1 / 3, 0.0))[0]) < 1.5  # the triangle's centroid, moved by pos


def test_example_render_opengl_calls():
    """The calls warp/examples/core/example_render_opengl.py makes, with --render-mode depth."""
    r = wp.render.OpenGLRenderer(vsync=False, screen_width=200, screen_height=150, headless=True)
    calls = []
    r.render_2d_callbacks.append(lambda: calls.append(r.frame))
    num_tiles = 4
    r.setup_tiled_rendering([[j for j in np.arange(13) if j != i + 2] for i in range(num_tiles)],
                            tile_positions=None, tile_sizes=None)
    r.render_ground()
    for _ in range(2):
        t = r.clock_time
        r.begin_frame(t)
        for i in range(10):
            r.render_capsule(f"capsule_{i}", [i - 5.0, np.sin(t + i * 0.2), -3.0], [0.0, 0.0, 0.0, 1.0],
                             radius=0.5, half_height=0.8)
        r.render_cylinder("cylinder", [3.2, 1.0, np.sin(t + 0.5)],
                          np.array(wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), wp.sin(t + 0.5))),
                          radius=0.5, half_height=0.8)
        r.render_cone("cone", [-1.2, 1.0, 0.0], np.array(wp.quat_from_axis_angle(wp.vec3(0.707, 0.707, 0.0), t)),
                      radius=0.5, half_height=0.8)
        r.end_frame()
        pixels = wp.zeros((num_tiles, r.tile_height, r.tile_width, 1), dtype=float)
        r.get_pixels(pixels, split_up_tiles=True, mode="depth")
        d = pixels.numpy()
        assert (d >= r.camera_near_plane).all() and (d <= r.camera_far_plane).all()
        assert (d < r.camera_far_plane).mean() > 0.3  # the ground and the shapes
    assert calls == [0, 1]
    tiles = [img.astype(int) for img in r.tile_images]
    for i in range(1, num_tiles):  # each tile hides a different capsule
        assert np.abs(tiles[i] - tiles[0]).sum() > 0
    r.clear()
    r.close()


def test_notebook_view_shows_the_last_frame(renderer):
    pytest.importorskip("ipywidgets")
    from warp_nb.widgets.renderer_view import RendererView
    view = RendererView(renderer)
    frame(renderer, lambda r: r.render_sphere("s", (0.0, 0.0, 0.0), None, 1.0))
    view.update_frame(force=True)
    assert view.picture.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "frame 1" in view.status.value
    assert "image/png" in view._repr_mimebundle_()
    view.close()


def test_takes_every_warp_constructor_keyword():
    r = wp.render.OpenGLRenderer(
        title="Warp", scaling=1.0, fps=60, up_axis="Y", screen_width=64, screen_height=48, near_plane=1.0,
        far_plane=100.0, camera_fov=45.0, camera_pos=(0.0, 2.0, 10.0), camera_front=(0.0, 0.0, -1.0),
        camera_up=(0.0, 1.0, 0.0), background_color=(0.53, 0.8, 0.92), draw_grid=True, draw_sky=True, draw_axis=True,
        show_info=True, render_wireframe=True, render_depth=True, axis_scale=1.0, vsync=False, headless=None,
        enable_backface_culling=True, enable_mouse_interaction=True, enable_keyboard_interaction=True, device=None,
        use_legacy_opengl=None)
    r.begin_frame(0.0)
    r.render_box("b", (0.0, 0.0, 0.0), None, (1.0, 1.0, 1.0))
    r.end_frame()
    assert r.image.shape == (48, 64, 3) and r.depth.shape == (48, 64)  # render_depth keeps depth every frame
    assert os.environ.get("VTK_DEFAULT_OPENGL_WINDOW") == "vtkEGLRenderWindow"
    r.close()


def test_empty_geometry_for_a_frame(renderer):
    """An iso-surface or a particle set can be empty for a frame (example_isosurface's first frames)."""
    empty = np.zeros((0, 3), np.float32)

    def nothing(r):
        r.render_points("p", empty, 0.1, colors=np.zeros((0, 3)))
        r.render_mesh("m", empty, np.zeros(0, np.int32), update_topology=True)
        r.render_line_list("l", empty, [])

    assert drawn(frame(renderer, nothing)).sum() == 0
    pts = np.array([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    img = frame(renderer, lambda r: (r.render_points("p", pts, 0.2, colors=np.eye(3)),
                                     r.render_mesh("m", pts, [0, 1, 2], update_topology=True)))
    assert drawn(img).sum() > 100


def test_in_a_notebook_frames_go_to_a_widget(monkeypatch):
    pytest.importorskip("ipywidgets")
    IPython_display = pytest.importorskip("IPython.display")
    from warp_nb.render import opengl
    shown = []
    monkeypatch.setattr(opengl, "_in_notebook", lambda: True)
    monkeypatch.setattr(IPython_display, "display", shown.append)
    r = make(headless=None)
    try:
        assert shown == [r.view]
        frame(r, lambda r: r.render_sphere("s", (0.0, 0.0, 0.0), None, 1.0))
        assert r.view.picture.value[:4] == b"\x89PNG"
    finally:
        r.view.close()
        r.close()
    r = make(headless=True)  # headless: no widget
    assert r.view is None
    r.close()


def test_example_streamlines_calls():
    """warp/examples/fem/example_streamlines.py: its camera arguments, the same line list drawn twice
    (plain, then with one colour per segment from a colour map), paused before end_frame."""
    r = wp.render.OpenGLRenderer(camera_pos=(2.0, 0.5, 3.0), camera_front=(-0.66, 0.0, -1.0), draw_axis=False,
                                 screen_width=W, screen_height=H, headless=True)
    n_lines, n_points = 5, 20
    s = np.linspace(0.0, 1.0, n_points)
    vertices = np.concatenate([np.stack([s, 0.1 * k + 0.0 * s, 0.3 * np.sin(3 * s + k)], 1) for k in range(n_lines)])
    offsets = np.arange(n_lines) * n_points
    beg = np.arange(n_points - 1)[None, :] + offsets[:, None]
    indices = np.vstack((beg.flatten(), beg.flatten() + 1)).T.flatten()
    colors = [wp.render.bourke_color_map(0.0, 3.0, c) for c in np.linspace(0.0, 3.0, len(indices) // 2)]
    r.begin_frame(0)
    r.render_line_list("streamlines", vertices, indices)
    r.render_line_list("streamlines", vertices, indices, colors)
    r.paused = True
    r.end_frame()
    img = r.image.astype(int)
    red = (img[..., 0] > 200) & (img[..., 1] < 80) & (img[..., 2] < 80)
    blue = (img[..., 2] > 200) & (img[..., 0] < 80) & (img[..., 1] < 80)
    assert red.sum() > 5 and blue.sum() > 5  # both ends of the colour map are on screen
    r.close()
