"""warp.render.OpenGLRenderer for warp_nb: Warp's real-time viewer interface, drawn with pyvista
off screen (VTK through Mesa's EGL: no window, no display, no GPU needed).

    renderer = wp.render.OpenGLRenderer(screen_width=640, screen_height=480)
    while renderer.is_running():
        renderer.begin_frame(t)
        renderer.render_points("particles", x, radius=0.05)
        renderer.render_mesh("surface", verts, tris, colors=(0.3, 0.5, 0.9))
        renderer.end_frame()                  # draws the frame off screen
    renderer.image                            # the last frame, (H, W, 3) uint8
    renderer.get_pixels(pixels)               # into a wp.array / numpy array, as Warp does

What differs from Warp's pyglet window: nothing opens. end_frame() renders the scene into an
off-screen pyvista plotter and keeps the picture (`image`, `get_pixels`, `save(path)`); in a
Jupyter kernel (unless headless=True) the frames also appear in a notebook widget that updates
as frames are drawn. There is no mouse or keyboard input, so `paused` is just a flag and a
loop `while renderer.is_running()` runs until close(), or until `max_frames` frames (an extra
keyword; by default the WARP_NB_RENDER_MAX_FRAMES environment variable, else unlimited).
Points are drawn as sphere splats of the given radius, lines as thin lines (their radius is not
drawn), projection_matrices of tiled rendering are not used (each tile uses the camera's
field of view)."""

from __future__ import annotations

import os
import time as _time

import numpy as np

from . import _common as C
from . import shapes as S
from .opengl_frames import FrameMixin, _rgb255


class _Item:
    """One named thing in the scene: its instance id (creation order), what it is (kind and the
    parameters its geometry was built from), the pyvista dataset and actor, its pose."""

    def __init__(self, iid: int, name: str):
        self.id, self.name = iid, name
        self.key = None
        self.poly = None
        self.indices = None
        self.segments = None
        self.actor = None
        self.local = np.eye(4)
        self.visible = True


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class OpenGLRenderer(FrameMixin):
    """Warp's OpenGLRenderer interface, rendered off screen with pyvista (see the module docstring).
    The constructor takes Warp's keywords; vsync, device, use_legacy_opengl, show_info,
    enable_*_interaction and draw_sky are accepted and have no effect here."""

    def __init__(self, title: str = "Warp", scaling: float = 1.0, fps: int = 60, up_axis: str = "Y",
                 screen_width: int = 1024, screen_height: int = 768, near_plane: float = 1.0,
                 far_plane: float = 100.0, camera_fov: float = 45.0, camera_pos=(0.0, 2.0, 10.0),
                 camera_front=(0.0, 0.0, -1.0), camera_up=(0.0, 1.0, 0.0), background_color=(0.53, 0.8, 0.92),
                 draw_grid: bool = True, draw_sky: bool = True, draw_axis: bool = True, show_info: bool = True,
                 render_wireframe: bool = False, render_depth: bool = False, axis_scale: float = 1.0,
                 vsync: bool = False, headless=None, enable_backface_culling: bool = True,
                 enable_mouse_interaction: bool = True, enable_keyboard_interaction: bool = True, device=None,
                 use_legacy_opengl=None, max_frames: int | None = None):
        self._pv = C.import_pyvista()
        self.title = title
        self.scaling = float(scaling)
        self.fps = fps
        self.up_axis = str(up_axis).upper()
        self._up = C.axis_index(self.up_axis)
        self.screen_width, self.screen_height = int(screen_width), int(screen_height)
        self.camera_near_plane, self.camera_far_plane = float(near_plane), float(far_plane)
        self.camera_fov = float(camera_fov)
        self.camera_pos = camera_pos
        self.camera_front = camera_front
        self.camera_up = camera_up
        self.background_color = tuple(background_color)
        self.draw_grid, self.draw_sky, self.draw_axis = draw_grid, draw_sky, draw_axis
        self.show_info, self.render_wireframe, self.render_depth = show_info, render_wireframe, render_depth
        self.axis_scale = float(axis_scale)
        self.vsync, self.device, self.use_legacy_opengl = vsync, device, use_legacy_opengl
        self.enable_backface_culling = enable_backface_culling
        self.enable_mouse_interaction = enable_mouse_interaction
        self.enable_keyboard_interaction = enable_keyboard_interaction
        self.headless = headless
        if max_frames is None and os.environ.get("WARP_NB_RENDER_MAX_FRAMES"):
            max_frames = int(os.environ["WARP_NB_RENDER_MAX_FRAMES"])
        self.max_frames = max_frames

        self.paused = False
        self.skip_rendering = False
        self.time = 0.0
        self.frame = 0  # frames drawn by end_frame()
        self.render_2d_callbacks: list = []
        self.window = None  # no pyglet window
        self.image: np.ndarray | None = None  # the last frame, (H, W, 3) uint8 (tiles composed)
        self.depth: np.ndarray | None = None  # its linear depth (H, W), when asked for
        self.tile_images: list[np.ndarray] = []
        self.tile_depths: list[np.ndarray] = []
        self.render_seconds = 0.0
        self._key_callbacks: list = []
        self._input_processors: list = []
        self._items: dict[str, _Item] = {}
        self._next_id = 0
        self._tiles = None
        self._tile_instances = None  # the instance ids of each tile, as setup_tiled_rendering / update_tile set them
        self._want_depth = bool(render_depth)
        self._exit = False
        self._start = _time.perf_counter()
        self._ref_cache: dict = {}
        self._model = np.eye(4)
        self._model[:3, :3] = C.up_to_y(self._up) * self.scaling

        theme = self._pv.themes.Theme()
        theme.load_theme(self._pv.global_theme)
        theme.allow_empty_mesh = True  # an iso-surface or a point set can be empty for a frame
        self._plotter = self._pv.Plotter(off_screen=True, window_size=[self.screen_width, self.screen_height],
                                         title=title, theme=theme)
        self._plotter.set_background(self.background_color)
        self._decorations = []
        self._add_decorations()
        self.view = None  # the notebook widget, when shown
        if headless is not True and _in_notebook():
            from IPython.display import display

            from ..widgets.renderer_view import RendererView  # its notebook face (test_architecture: UPWARD)
            self.view = RendererView(self)
            display(self.view)

    # --- scene building -------------------------------------------------------------------
    def _item(self, name: str) -> _Item:
        item = self._items.get(name)
        if item is None:
            item = _Item(self._next_id, name)
            self._next_id += 1
            self._items[name] = item
        return item

    def _show(self, item: _Item, key, build, local=None, visible: bool = True, **style):
        """(Re)build the item's dataset when `key` changed, else keep it; set pose and visibility."""
        if item.key != key or item.actor is None:
            if item.actor is not None:
                self._plotter.remove_actor(item.actor, render=False)
            poly, opts = build()
            opts = {**opts, **style}
            item.poly = poly
            item.actor = self._plotter.add_mesh(poly, reset_camera=False, render=False, **opts)
            item.key = key
        item.local = np.eye(4) if local is None else local
        item.visible = bool(visible)
        item.actor.user_matrix = self._model @ item.local
        return item

    def _surface_style(self, color, closed: bool) -> dict:
        opts = {"smooth_shading": True, "split_sharp_edges": True}
        if self.render_wireframe:
            opts["style"] = "wireframe"
        if closed and self.enable_backface_culling:
            opts["culling"] = "back"
        c = C.as_colors(color)
        opts["color"] = tuple(c) if c is not None and c.ndim == 1 else (0.7, 0.7, 0.7)
        return opts

    def _shape(self, name, kind, params, tessellate, pos, rot, scale=None, color=None, visible=True):
        item = self._item(name)
        c = C.as_colors(color)
        key = (kind, tuple(np.round(np.asarray(params, np.float64), 9)), None if c is None else tuple(c))
        pv = self._pv

        def build():
            pts, tris = tessellate()
            faces = np.hstack([np.full((len(tris), 1), 3), tris]).ravel()
            return pv.PolyData(np.asarray(pts, np.float32), faces), self._surface_style(color, True)

        self._show(item, key, build, C.pose_matrix(pos, rot, scale), visible)
        return item.id

    def render_sphere(self, name: str, pos, rot, radius: float, parent_body=None, is_template: bool = False,
                      color=None, visible: bool = True):
        return self._shape(name, "sphere", [radius], lambda: S.sphere(radius), pos, rot, color=color,
                           visible=visible)

    def render_box(self, name: str, pos, rot, extents, parent_body=None, is_template: bool = False, color=None,
                   visible: bool = True):
        e = C.as_vec3(extents, "extents")
        return self._shape(name, "box", e, lambda: S.box(e), pos, rot, color=color, visible=visible)

    def render_capsule(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                       is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True):
        a = C.axis_index(up_axis)
        return self._shape(name, "capsule", [radius, half_height, a], lambda: S.capsule(radius, half_height, a),
                           pos, rot, color=color, visible=visible)

    def render_cylinder(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                        is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True):
        a = C.axis_index(up_axis)
        return self._shape(name, "cylinder", [radius, half_height, a], lambda: S.cylinder(radius, half_height, a),
                           pos, rot, color=color, visible=visible)

    def render_cone(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                    is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True):
        a = C.axis_index(up_axis)
        return self._shape(name, "cone", [radius, half_height, a], lambda: S.cone(radius, half_height, a),
                           pos, rot, color=color, visible=visible)

    def render_arrow(self, name: str, pos, rot, base_radius: float, base_height: float, cap_radius: float | None = None,
                     cap_height: float | None = None, parent_body=None, is_template: bool = False, up_axis: int = 1,
                     color=(1.0, 0.0, 0.0), visible: bool = True):
        cap_radius = 2.0 * base_radius if cap_radius is None else cap_radius
        cap_height = 0.25 * base_height if cap_height is None else cap_height
        a = C.axis_index(up_axis)
        return self._shape(name, "arrow", [base_radius, base_height, cap_radius, cap_height, a],
                           lambda: S.arrow(base_radius, base_height, cap_radius, cap_height, a), pos, rot,
                           color=color, visible=visible)

    def render_plane(self, name: str, pos, rot, width: float, length: float, color=(1.0, 1.0, 1.0), color2=None,
                     parent_body=None, is_template: bool = False, u_scaling: float = 1.0, v_scaling: float = 1.0,
                     visible: bool = True):
        """A rectangle over [-width, width] x [-length, length] in its local XZ plane (normal +Y);
        with color2, a checkerboard of unit cells (times u_scaling, v_scaling)."""
        item = self._item(name)
        c1 = C.as_colors(color)
        c2 = C.as_colors(color2)
        nu = 1 if c2 is None else int(min(max(round(2 * width * u_scaling), 1), 200))
        nv = 1 if c2 is None else int(min(max(round(2 * length * v_scaling), 1), 200))
        key = ("plane", float(width), float(length), nu, nv, tuple(c1), None if c2 is None else tuple(c2))
        pv = self._pv

        def build():
            pts, tris, cells = S.plane(width, length, nu, nv)
            poly = pv.PolyData(pts, np.hstack([np.full((len(tris), 1), 3), tris]).ravel())
            opts = {"smooth_shading": False}
            if c2 is None:
                opts["color"] = tuple(c1)
            else:
                checker = (cells[:, 0] + cells[:, 1]) % 2 == 0
                poly.cell_data["rgb"] = np.where(checker[:, None], _rgb255(c1), _rgb255(c2))
                opts.update(scalars="rgb", rgb=True)
            return poly, opts

        self._show(item, key, build, C.pose_matrix(pos, rot), visible)
        return item.id

    def render_ground(self, size: float = 100.0, plane=None):
        """A checkered ground of half size `size` through the origin, normal along the up axis; or
        on `plane` = (a, b, c, d), the plane a*x + b*y + c*z + d = 0."""
        if plane is None:
            rot, pos = C.quat_y_to(np.eye(3)[self._up]), np.zeros(3)
        else:
            p = np.asarray(C.to_numpy(plane), np.float64).reshape(4)
            n = p[:3] / np.linalg.norm(p[:3])
            rot, pos = C.quat_y_to(n), -p[3] / np.linalg.norm(p[:3]) * n
        return self.render_plane("ground", pos, rot, size, size, color=(0.55, 0.55, 0.55),
                                 color2=(0.75, 0.75, 0.75), u_scaling=0.5, v_scaling=0.5)

    def render_mesh(self, name: str, points, indices, colors=None, pos=(0.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0),
                    scale=(1.0, 1.0, 1.0), update_topology: bool = False, parent_body=None, is_template: bool = False,
                    smooth_shading: bool = True, visible: bool = True):
        """A triangle mesh; the points are updated in place when the topology is unchanged."""
        pts = C.as_points(points)
        # checked before anything is drawn, on the indices as given (a wide index must not wrap to a valid int32)
        idx = C.as_mesh_indices(indices, len(pts))
        c = C.as_colors(colors, len(pts))
        per_vertex = c is not None and c.ndim == 2
        item = self._item(name)
        key = ("mesh", len(pts), idx.size, per_vertex, None if per_vertex or c is None else tuple(c),
               bool(smooth_shading))
        if item.poly is not None and item.key == key and np.array_equal(item.indices, idx):
            item.poly.points = pts  # same topology: move the vertices in place
            if per_vertex:
                item.poly.point_data["rgb"] = _rgb255(c)
            item.local = C.pose_matrix(pos, rot, scale)
            item.visible = bool(visible)
            return item.id
        pv = self._pv

        def build():
            tris = idx.reshape(-1, 3)
            poly = pv.PolyData(pts.copy(), np.hstack([np.full((len(tris), 1), 3), tris]).ravel())
            opts = self._surface_style(None if per_vertex else (c if c is not None else (0.7, 0.7, 0.7)), False)
            opts["smooth_shading"] = bool(smooth_shading)
            if per_vertex:
                poly.point_data["rgb"] = _rgb255(c)
                opts.pop("color", None)
                opts.update(scalars="rgb", rgb=True)
            return poly, opts

        item.key = None  # rebuild
        self._show(item, key, build, C.pose_matrix(pos, rot, scale), visible)
        item.indices = idx.copy()
        return item.id

    def render_points(self, name: str, points, radius, colors=None, as_spheres: bool = True, visible: bool = True):
        """Points drawn as sphere splats of `radius` (one value or one per point); colors: one RGB
        or one per point."""
        pts = C.as_points(points)
        r = np.asarray(C.to_numpy(radius), np.float32).reshape(-1)
        if r.size not in (1, len(pts)):
            raise ValueError(f"render_points: {r.size} radii for {len(pts)} points")
        c = C.as_colors(colors, len(pts))
        per_point = c is not None and c.ndim == 2
        item = self._item(name)
        key = ("points", len(pts), r.size == 1 and float(r[0]), per_point,
               None if per_point or c is None else tuple(c))
        if item.poly is not None and item.key == key:
            item.poly.points = pts
            if per_point:
                item.poly.point_data["rgb"] = _rgb255(c)
            if r.size > 1:
                item.poly.point_data["radius"] = r
            item.visible = bool(visible)
            return item.id
        pv = self._pv

        def build():
            poly = pv.PolyData(pts.copy())
            opts = {"style": "points_gaussian", "emissive": False, "render_points_as_spheres": bool(as_spheres)}
            if per_point:
                poly.point_data["rgb"] = _rgb255(c)
                opts.update(scalars="rgb", rgb=True)
            else:
                opts["color"] = tuple(c) if c is not None else (0.8, 0.6, 0.2)
            if r.size > 1:
                poly.point_data["radius"] = r
            return poly, opts

        self._show(item, key, build, None, visible)
        if len(pts):
            if r.size > 1:
                item.actor.mapper.scale_array = "radius"
            else:
                item.actor.mapper.scale_factor = float(r[0])
        return item.id

    def _lines(self, name, pts, segments, color, radius, visible):
        c = C.as_colors(color)
        n_seg = len(segments)
        mode = "one" if c is None or c.ndim == 1 else ("cell" if len(c) == n_seg else "point")
        if mode == "point" and len(c) != len(pts):
            raise ValueError(f"{len(c)} colours for {n_seg} segments and {len(pts)} vertices")
        item = self._item(name)
        key = ("lines", len(pts), n_seg, mode, tuple(c) if mode == "one" and c is not None else None)
        if item.poly is not None and item.key == key and np.array_equal(item.segments, segments):
            item.poly.points = pts
            if mode != "one":
                (item.poly.cell_data if mode == "cell" else item.poly.point_data)["rgb"] = _rgb255(c)
            item.visible = bool(visible)
            return item.id
        pv = self._pv

        def build():
            lines = np.hstack([np.full((n_seg, 1), 2), segments]).ravel()
            poly = pv.PolyData(pts.copy(), lines=lines)
            opts = {"line_width": 2.0}
            if mode == "one":
                opts["color"] = tuple(c) if c is not None else (0.1, 0.1, 0.1)
            else:
                (poly.cell_data if mode == "cell" else poly.point_data)["rgb"] = _rgb255(c)
                opts.update(scalars="rgb", rgb=True)
            return poly, opts

        item.key = None
        self._show(item, key, build, None, visible)
        item.segments = segments
        return item.id

    def render_line_list(self, name: str, vertices, indices, color=None, radius: float = 0.01, visible: bool = True):
        """Segments vertices[indices[2k]] - vertices[indices[2k+1]]; color: one RGB, one per segment
        or one per vertex."""
        v = C.as_points(vertices, "vertices")
        idx = C.as_indices(indices)
        if idx.size % 2:
            raise ValueError(f"render_line_list: {idx.size} indices is not a whole number of segments")
        return self._lines(name, v, idx.reshape(-1, 2), color, radius, visible)

    def render_line_strip(self, name: str, vertices, color=None, radius: float = 0.01, visible: bool = True):
        v = C.as_points(vertices, "vertices")
        k = np.arange(max(len(v) - 1, 0))
        return self._lines(name, v, np.stack([k, k + 1], 1).astype(np.int32), color, radius, visible)

    def render_ref(self, name: str, path: str, pos, rot, scale, color=None):
        """The meshes of the USD file `path` (in its world space; needs usd-core), posed."""
        path = os.fspath(path)
        if path not in self._ref_cache:
            self._ref_cache[path] = _read_usd_meshes(path)
        pts, tris = self._ref_cache[path]
        item = self._item(name)
        c = C.as_colors(color)
        key = ("ref", path, None if c is None else tuple(c))
        pv = self._pv

        def build():
            return (pv.PolyData(pts, np.hstack([np.full((len(tris), 1), 3), tris]).ravel()),
                    self._surface_style(c if c is not None else (0.7, 0.7, 0.7), False))

        self._show(item, key, build, C.pose_matrix(pos, rot, scale), True)
        return item.id

    # --- grid and axes ----------------------------------------------------------------------
    def _add_decorations(self) -> None:
        pv = self._pv
        if self.draw_grid:
            k = np.arange(-10, 11, dtype=np.float64)
            a, b = [ax for ax in range(3) if ax != self._up]
            starts, ends = [], []
            for v in k:
                for fixed, moving in ((a, b), (b, a)):
                    s = np.zeros(3)
                    e = np.zeros(3)
                    s[fixed] = e[fixed] = v
                    s[moving], e[moving] = -10.0, 10.0
                    starts.append(s)
                    ends.append(e)
            pts = np.concatenate([starts, ends])
            pts[:, self._up] = 1e-3  # just above a ground plane, not fighting it for depth
            pts = pts.astype(np.float32)
            n = len(starts)
            lines = np.hstack([np.full((n, 1), 2), np.stack([np.arange(n), np.arange(n) + n], 1)]).ravel()
            actor = self._plotter.add_mesh(pv.PolyData(pts, lines=lines), color=(0.4, 0.4, 0.4), line_width=1.0,
                                           opacity=0.5, reset_camera=False, render=False)
            actor.user_matrix = self._model
            self._decorations.append(actor)
        if self.draw_axis:
            for ax, col in enumerate(((1.0, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 1.0))):
                end = np.zeros(3)
                end[ax] = self.axis_scale
                actor = self._plotter.add_mesh(pv.Line((0.0, 0.0, 0.0), tuple(end)), color=col, line_width=3.0,
                                               reset_camera=False, render=False)
                actor.user_matrix = self._model
                self._decorations.append(actor)


def _read_usd_meshes(path: str):
    """All UsdGeom.Mesh prims of a USD file merged into one triangle mesh, in world space."""
    pxr = C.import_pxr()
    from ..geometry.usd import read_mesh
    stage = pxr.Usd.Stage.Open(path)
    if stage is None:
        raise FileNotFoundError(f"render_ref: cannot open the USD file {path}")
    all_pts, all_tris, offset = [], [], 0
    for prim in stage.Traverse():
        if prim.IsA(pxr.UsdGeom.Mesh):
            pts, tris, _ = read_mesh(path, str(prim.GetPath()))
            all_pts.append(pts)
            all_tris.append(tris.reshape(-1, 3) + offset)
            offset += len(pts)
    if not all_pts:
        raise ValueError(f"render_ref: {path} holds no mesh to draw")
    return np.concatenate(all_pts).astype(np.float32), np.concatenate(all_tris).astype(np.int64)
