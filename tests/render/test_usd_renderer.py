"""warp_nb.render.UsdRenderer: every kind of prim the Warp examples write, read back with Pixar's
USD library (the oracle), including time samples, poses and world-space bounds. Expected poses
come from an independent axis-angle (Rodrigues) formula in numpy. Skipped without usd-core."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.render

pytest.importorskip("pxr", reason="UsdRenderer tests need Pixar's usd-core (pip install 'warp_nb[usd]')")
from pxr import Gf, Usd, UsdGeom


def rodrigues(axis, angle):
    """3x3 rotation about a unit axis (column vectors), and the same as a quaternion (x, y, z, w)."""
    a = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    r = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)
    q = np.concatenate([a * np.sin(angle / 2), [np.cos(angle / 2)]])
    return r, q


def world_matrix(stage, path, code):
    """4x4 local-to-world matrix acting on column vectors (USD stores it for row vectors)."""
    m = UsdGeom.Xformable(stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode(code))
    return np.array(m, np.float64).T


def world_bound(stage, path, code):
    cache = UsdGeom.BBoxCache(Usd.TimeCode(code), [UsdGeom.Tokens.default_], useExtentsHint=False)
    box = cache.ComputeWorldBound(stage.GetPrimAtPath(path)).ComputeAlignedRange()
    return np.array(box.GetMin()), np.array(box.GetMax())


def reopen(path):
    return Usd.Stage.Open(str(path))


@pytest.mark.parametrize("kind", ["wp", "numpy", "list"])
def test_points_time_samples_widths_and_colors(tmp_path, kind):
    rng = np.random.default_rng(0)
    frames = [rng.random((20, 3)).astype(np.float32) for _ in range(3)]
    colors = rng.random((20, 3)).astype(np.float32)
    path = tmp_path / "points.usda"
    r = wp.render.UsdRenderer(str(path), fps=30)
    for k, f in enumerate(frames):
        pts = {"wp": lambda a: wp.array(a, dtype=wp.vec3), "numpy": lambda a: a, "list": lambda a: a.tolist()}[kind](f)
        r.begin_frame(k / 30.0)
        r.render_points("particles", pts, radius=0.05, colors=colors)
        r.end_frame()
    r.save()

    stage = reopen(path)
    assert stage.GetTimeCodesPerSecond() == 30 and UsdGeom.GetStageUpAxis(stage) == "Y"
    assert (stage.GetStartTimeCode(), stage.GetEndTimeCode()) == (0.0, 2.0)
    geom = UsdGeom.Points(stage.GetPrimAtPath("/root/particles"))
    assert geom.GetPointsAttr().GetTimeSamples() == [0.0, 1.0, 2.0]
    for k, f in enumerate(frames):
        np.testing.assert_allclose(np.array(geom.GetPointsAttr().Get(Usd.TimeCode(k))), f, rtol=1e-6)
    widths = np.array(geom.GetWidthsAttr().Get(Usd.TimeCode(1)))
    assert geom.GetWidthsInterpolation() == UsdGeom.Tokens.constant
    np.testing.assert_allclose(widths, [0.1])
    primvar = UsdGeom.PrimvarsAPI(geom).GetPrimvar("displayColor")
    assert primvar.GetInterpolation() == UsdGeom.Tokens.vertex
    np.testing.assert_allclose(np.array(primvar.Get(Usd.TimeCode(0))), colors, rtol=1e-6)


def test_points_per_point_radius_and_single_color(tmp_path):
    pts = np.zeros((4, 3), np.float32)
    radii = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    r = wp.render.UsdRenderer(str(tmp_path / "p.usda"))
    r.begin_frame(0.0)
    r.render_points("p", pts, radius=radii, colors=(0.8, 0.3, 0.2))
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "p.usda")  # kept: a prim is only valid while its stage lives
    geom = UsdGeom.Points(stage.GetPrimAtPath("/root/p"))
    assert geom.GetWidthsInterpolation() == UsdGeom.Tokens.vertex
    np.testing.assert_allclose(np.array(geom.GetWidthsAttr().Get(Usd.TimeCode(0))), 2 * radii)
    primvar = UsdGeom.PrimvarsAPI(geom).GetPrimvar("displayColor")
    assert primvar.GetInterpolation() == UsdGeom.Tokens.constant
    np.testing.assert_allclose(np.array(primvar.Get(Usd.TimeCode(0))), [[0.8, 0.3, 0.2]], rtol=1e-6)


def test_mesh_topology_written_once_points_every_frame(tmp_path):
    tris = np.array([[0, 1, 2], [0, 2, 3]], np.int32)
    quad = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    r = wp.render.UsdRenderer(str(tmp_path / "m.usda"), fps=60)
    for k in range(3):
        r.begin_frame(k / 60.0)
        r.render_mesh("surface", wp.array(quad + k, dtype=wp.vec3), wp.array(tris.ravel(), dtype=wp.int32),
                      colors=(0.35, 0.55, 0.9))
        r.end_frame()
    r.save()
    stage = reopen(tmp_path / "m.usda")
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/root/surface"))
    assert mesh.GetFaceVertexIndicesAttr().GetNumTimeSamples() == 0  # static topology
    np.testing.assert_array_equal(np.array(mesh.GetFaceVertexIndicesAttr().Get()), tris.ravel())
    np.testing.assert_array_equal(np.array(mesh.GetFaceVertexCountsAttr().Get()), [3, 3])
    for k in range(3):
        np.testing.assert_allclose(np.array(mesh.GetPointsAttr().Get(Usd.TimeCode(k))), quad + k)
    lo, hi = world_bound(stage, "/root/surface", 2)
    np.testing.assert_allclose(lo, quad.min(0) + 2)
    np.testing.assert_allclose(hi, quad.max(0) + 2)


def test_mesh_update_topology_is_time_sampled(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "iso.usda"), fps=10)
    meshes = [(np.eye(3, dtype=np.float32), [0, 1, 2]),
              (np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32), [[0, 1, 2], [0, 2, 3]])]
    for k, (pts, idx) in enumerate(meshes):
        r.begin_frame(k / 10.0)
        r.render_mesh("surface", pts, np.asarray(idx), update_topology=True)
        r.end_frame()
    r.save()
    stage = reopen(tmp_path / "iso.usda")
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/root/surface"))
    for k, (pts, idx) in enumerate(meshes):
        code = Usd.TimeCode(k)
        np.testing.assert_array_equal(np.array(mesh.GetFaceVertexIndicesAttr().Get(code)), np.ravel(idx))
        assert len(mesh.GetFaceVertexCountsAttr().Get(code)) == np.size(idx) // 3
        assert len(mesh.GetPointsAttr().Get(code)) == len(pts)


def test_mesh_rejects_bad_indices(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "bad.usda"))
    with pytest.raises(ValueError, match="indices reach vertex 5"):
        r.render_mesh("m", np.zeros((3, 3)), [0, 1, 5])
    with pytest.raises(ValueError, match="whole number of triangles"):
        r.render_mesh("m", np.zeros((3, 3)), [0, 1])


def test_shapes_poses_and_bounds(tmp_path):
    """Sphere, box, capsule, cylinder, cone: USD's own bounds of each prim at a frame against
    the analytic shape moved by a pose built with Rodrigues' formula."""
    rot, quat = rodrigues([0.3, 1.0, -0.2], 0.7)
    pos = np.array([1.0, 2.0, -3.0])
    r = wp.render.UsdRenderer(str(tmp_path / "shapes.usda"), fps=60)
    r.begin_frame(1.0)  # time code 60
    r.render_sphere("sphere", pos, wp.quat(*quat), 0.5, color=(1.0, 1.0, 1.0))
    r.render_box("box", wp.vec3(*pos), quat, extents=(0.1, 0.2, 0.3))
    r.render_capsule("capsule", pos, [0, 0, 0, 1], radius=0.5, half_height=0.8)
    r.render_cylinder("cylinder", pos, None, radius=0.5, half_height=0.8, up_axis=0)
    r.render_cone("cone", pos, np.array([0.0, 0.0, 0.0, 1.0]), radius=0.5, half_height=0.8, up_axis=2)
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "shapes.usda")

    m = world_matrix(stage, "/root/sphere", 60)
    np.testing.assert_allclose(m[:3, :3], rot, atol=1e-6)
    np.testing.assert_allclose(m[:3, 3], pos, atol=1e-6)
    assert UsdGeom.Sphere(stage.GetPrimAtPath("/root/sphere")).GetRadiusAttr().Get(Usd.TimeCode(60)) == 0.5
    lo, hi = world_bound(stage, "/root/sphere", 60)  # a rotated sphere's box is the rotated cube's box
    corners = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T * 0.5
    world = corners @ rot.T + pos
    np.testing.assert_allclose(lo, world.min(0), atol=1e-5)

    m = world_matrix(stage, "/root/box", 60)
    ext = np.array([0.1, 0.2, 0.3])
    box_corners = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T  # the Cube's own corners
    got = (m[:3, :3] @ box_corners.T).T + m[:3, 3]
    want = (rot @ (box_corners * ext).T).T + pos
    np.testing.assert_allclose(got, want, atol=1e-5)

    for name, radius, half, axis in (("capsule", 0.5, 0.8 + 0.5, 1), ("cylinder", 0.5, 0.8, 0), ("cone", 0.5, 0.8, 2)):
        lo, hi = world_bound(stage, f"/root/{name}", 60)
        size = np.full(3, radius)
        size[axis] = half
        np.testing.assert_allclose(lo, pos - size, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(hi, pos + size, atol=1e-5, err_msg=name)
    assert UsdGeom.Cone(stage.GetPrimAtPath("/root/cone")).GetAxisAttr().Get(Usd.TimeCode(60)) == "Z"
    assert UsdGeom.Capsule(stage.GetPrimAtPath("/root/capsule")).GetHeightAttr().Get(Usd.TimeCode(60)) == 1.6


def test_sphere_moves_between_frames(tmp_path):
    """example_wave's call: render_sphere(name, pos tuple, rot tuple, radius, color=) each frame."""
    r = wp.render.UsdRenderer(str(tmp_path / "wave.usda"), fps=60)
    for k in range(3):
        r.begin_frame(k / 60.0)
        r.render_sphere("sphere", (k * 1.0, 0.0, 2.0 * k), (0.0, 0.0, 0.0, 1.0), 10.0, color=(1.0, 1.0, 1.0))
        r.end_frame()
    r.save()
    stage = reopen(tmp_path / "wave.usda")
    for k in range(3):
        np.testing.assert_allclose(world_matrix(stage, "/root/sphere", k)[:3, 3], [k, 0.0, 2.0 * k])


def test_arrow_line_list_and_line_strip(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "lines.usda"))
    verts = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    seg = np.array([0, 1, 1, 2, 2, 3])
    seg_colors = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    r.begin_frame(0.0)
    r.render_arrow("arrow", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), base_radius=0.1, base_height=1.0,
                   cap_radius=0.2, cap_height=0.3, up_axis=2)
    r.render_line_list("streamlines", verts, seg, seg_colors, radius=0.02)
    r.render_line_strip("strip", wp.array(verts, dtype=wp.vec3), color=(0.0, 0.0, 1.0))
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "lines.usda")

    lo, hi = world_bound(stage, "/root/arrow", 0)
    np.testing.assert_allclose(lo, [-0.2, -0.2, 0.0], atol=1e-6)
    np.testing.assert_allclose(hi, [0.2, 0.2, 1.3], atol=1e-6)

    curves = UsdGeom.BasisCurves(stage.GetPrimAtPath("/root/streamlines"))
    assert curves.GetTypeAttr().Get() == UsdGeom.Tokens.linear
    np.testing.assert_array_equal(np.array(curves.GetCurveVertexCountsAttr().Get(Usd.TimeCode(0))), [2, 2, 2])
    np.testing.assert_allclose(np.array(curves.GetPointsAttr().Get(Usd.TimeCode(0))), verts[seg])
    np.testing.assert_allclose(np.array(curves.GetWidthsAttr().Get(Usd.TimeCode(0))), [0.04])
    primvar = UsdGeom.PrimvarsAPI(curves).GetPrimvar("displayColor")
    assert primvar.GetInterpolation() == UsdGeom.Tokens.uniform  # one colour per segment
    np.testing.assert_allclose(np.array(primvar.Get(Usd.TimeCode(0))), seg_colors)

    strip = UsdGeom.BasisCurves(stage.GetPrimAtPath("/root/strip"))
    np.testing.assert_array_equal(np.array(strip.GetCurveVertexCountsAttr().Get(Usd.TimeCode(0))), [4])
    np.testing.assert_allclose(np.array(strip.GetPointsAttr().Get(Usd.TimeCode(0))), verts)


def test_ground_before_first_frame_is_static(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "ground.usda"), up_axis="Z")
    r.render_ground(size=100.0)  # example_nvdb / example_dem: in the constructor, before any frame
    r.begin_frame(0.5)
    r.render_points("p", [[0.0, 0.0, 1.0]], 0.1)
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "ground.usda")
    assert UsdGeom.GetStageUpAxis(stage) == "Z"
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/root/ground"))
    assert mesh.GetPointsAttr().GetNumTimeSamples() == 0
    lo, hi = world_bound(stage, "/root/ground", 30)
    np.testing.assert_allclose(lo, [-100, -100, 0], atol=1e-4)  # a Z-up stage: the ground is the XY plane
    np.testing.assert_allclose(hi, [100, 100, 0], atol=1e-4)


def test_plane_and_ground_on_a_plane_equation(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "plane.usda"))
    r.render_plane("wall", (0.0, 0.0, 0.0), None, width=2.0, length=3.0)
    r.render_ground(size=5.0, plane=(1.0, 0.0, 0.0, -2.0))  # x = 2
    r.save()
    stage = reopen(tmp_path / "plane.usda")
    lo, hi = world_bound(stage, "/root/wall", 0)
    np.testing.assert_allclose([lo, hi], [[-2, 0, -3], [2, 0, 3]], atol=1e-6)
    lo, hi = world_bound(stage, "/root/ground", 0)
    np.testing.assert_allclose([lo, hi], [[2, -5, -5], [2, 5, 5]], atol=1e-5)


def _write_cube_file(path, default_prim: bool):
    stage = Usd.Stage.CreateNew(str(path))
    root = UsdGeom.Xform.Define(stage, "/asset")
    mesh = UsdGeom.Mesh.Define(stage, "/asset/cube")
    corners = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    mesh.GetPointsAttr().Set([Gf.Vec3f(*c) for c in corners])
    quads = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]
    mesh.GetFaceVertexCountsAttr().Set([4] * 6)
    mesh.GetFaceVertexIndicesAttr().Set([i for q in quads for i in q])
    if default_prim:
        stage.SetDefaultPrim(root.GetPrim())
    stage.GetRootLayer().Save()


@pytest.mark.parametrize("default_prim", [True, False])
def test_render_ref_references_a_file_and_poses_it(tmp_path, default_prim):
    asset = tmp_path / "cube.usda"
    _write_cube_file(asset, default_prim)
    rot, quat = rodrigues([0.0, 0.0, 1.0], np.pi / 4)
    r = wp.render.UsdRenderer(str(tmp_path / "scene.usda"))
    r.begin_frame(0.0)
    r.render_ref("rock", str(asset), pos=wp.vec3(8.0, 0.0, 0.0), rot=wp.quat(*quat), scale=wp.vec3(1.0, 2.0, 1.0),
                 color=(0.35, 0.55, 0.9))
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "scene.usda")
    assert stage.GetPrimAtPath("/root/rock/cube").IsA(UsdGeom.Mesh)
    lo, hi = world_bound(stage, "/root/rock", 0)
    corners = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)
    world = (rot @ (corners * [1.0, 2.0, 1.0]).T).T + [8.0, 0.0, 0.0]
    np.testing.assert_allclose(lo, world.min(0), atol=1e-5)
    np.testing.assert_allclose(hi, world.max(0), atol=1e-5)


def test_render_ref_takes_the_zero_quaternion_as_no_rotation(tmp_path):
    """rot=(0, 0, 0, 0) is accepted, as Warp's UsdRenderer accepts it: USD's orient op (the oracle,
    Gf.Matrix4d.SetRotate) reads the zero quaternion as the identity."""
    asset = tmp_path / "cube.usda"
    _write_cube_file(asset, True)
    r = wp.render.UsdRenderer(str(tmp_path / "scene.usda"))
    r.begin_frame(0.0)
    r.render_ref("rock", str(asset), pos=(1.0, 2.0, 3.0), rot=(0, 0, 0, 0), scale=(1.0, 1.0, 1.0))
    r.end_frame()
    r.save()
    usd_rotation = np.array(Gf.Matrix4d().SetRotate(Gf.Quatd(0.0, 0.0, 0.0, 0.0)), np.float64)[:3, :3]
    m = world_matrix(reopen(tmp_path / "scene.usda"), "/root/rock", 0)
    np.testing.assert_allclose(m[:3, :3], usd_rotation, atol=1e-6)
    np.testing.assert_allclose(m[:3, 3], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="finite"):
        r.render_ref("bad", str(asset), pos=(0.0, 0.0, 0.0), rot=(0, 0, float("nan"), 1), scale=(1.0, 1.0, 1.0))


def test_scaling_fps_and_in_memory_stage(tmp_path):
    stage = Usd.Stage.CreateInMemory()
    r = wp.render.UsdRenderer(stage, fps=24, scaling=2.0)
    assert r.stage is stage and r.fps == 24 and r.scaling == 2.0 and r.up_axis == "Y"
    r.begin_frame(0.5)  # time code 12
    r.render_sphere("s", (1.0, 0.0, 0.0), None, 1.0)
    r.end_frame()
    assert stage.GetEndTimeCode() == 12.0
    lo, hi = world_bound(stage, "/root/s", 12)
    np.testing.assert_allclose([lo, hi], [[0, -2, -2], [4, 2, 2]], atol=1e-6)


def test_visibility_per_frame(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "v.usda"))
    for k, visible in enumerate([True, False]):
        r.begin_frame(k / 60.0)
        r.render_box("b", (0, 0, 0), None, (1, 1, 1), visible=visible)
        r.end_frame()
    r.save()
    stage = reopen(tmp_path / "v.usda")
    img = UsdGeom.Imageable(stage.GetPrimAtPath("/root/b"))
    assert img.ComputeVisibility(Usd.TimeCode(0)) == UsdGeom.Tokens.inherited
    assert img.ComputeVisibility(Usd.TimeCode(1)) == UsdGeom.Tokens.invisible


def test_bodies_templates_and_instances(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "bodies.usda"))
    template = r.render_sphere("ball", (0, 0, 0), None, 0.25, is_template=True)
    body = r.register_body("body0")
    r.add_shape_instance("ball_0", template, body, pos=(1.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0))
    r.begin_frame(0.0)
    r.update_body_transforms(wp.array([wp.transform(wp.vec3(0.0, 3.0, 0.0), wp.quat_identity())],
                                      dtype=wp.transform))
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "bodies.usda")
    assert stage.GetPrimAtPath("/_templates/ball").IsAbstract()
    lo, hi = world_bound(stage, "/root/body0/ball_0", 0)
    np.testing.assert_allclose([lo, hi], [[0.75, 2.75, -0.25], [1.25, 3.25, 0.25]], atol=1e-6)


def test_same_path_twice_in_one_process(tmp_path):
    path = str(tmp_path / "again.usda")
    first = wp.render.UsdRenderer(path)
    first.render_sphere("old", (0, 0, 0), None, 1.0)
    second = wp.render.UsdRenderer(path)  # e.g. an example run twice in one notebook
    second.render_sphere("new", (0, 0, 0), None, 1.0)
    second.save()
    stage = reopen(path)
    assert stage.GetPrimAtPath("/root/new") and not stage.GetPrimAtPath("/root/old")


def test_empty_geometry_for_a_frame(tmp_path):
    r = wp.render.UsdRenderer(str(tmp_path / "empty.usda"))
    r.begin_frame(0.0)
    r.render_points("p", np.zeros((0, 3)), 0.1, colors=np.zeros((0, 3)))
    r.render_mesh("m", np.zeros((0, 3)), [], update_topology=True)
    r.end_frame()
    r.begin_frame(1 / 60)
    r.render_points("p", np.ones((2, 3)), 0.1)
    r.render_mesh("m", np.eye(3), [0, 1, 2], update_topology=True)
    r.end_frame()
    r.save()
    stage = reopen(tmp_path / "empty.usda")
    points = UsdGeom.Points(stage.GetPrimAtPath("/root/p")).GetPointsAttr()
    assert len(points.Get(Usd.TimeCode(0))) == 0 and len(points.Get(Usd.TimeCode(1))) == 2
    counts = UsdGeom.Mesh(stage.GetPrimAtPath("/root/m")).GetFaceVertexCountsAttr()
    assert len(counts.Get(Usd.TimeCode(0))) == 0 and list(counts.Get(Usd.TimeCode(1))) == [3]
