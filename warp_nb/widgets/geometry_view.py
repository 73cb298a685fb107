"""GeometryView: points, triangle meshes and iso-surfaces drawn with pyvista, redrawn in place as
a simulation steps (step and play controls).

Geometry is given as arrays (numpy or wp.array: points (N, 3) or vec3, triangles (M, 3) or a flat
index array), as any object with `.points` and `.indices` (wp.Mesh; `mesh=` also takes a list of
them), or as a scalar field with an iso value: a 3-D array (drawn in index space) or a wp.Volume
(drawn in world space, so it lines up with meshes and points). The view keeps the arrays, not
copies: each frame re-reads them, so a simulation that writes its wp.arrays in place only calls
`view.step()` (or passes `step=` and presses play).

Backends: "static" (default) renders a PNG in the kernel with pyvista off screen (Mesa's software
EGL: no display, no GPU, the same picture every run); "html" (opt-in) is pyvista's interactive
view (rotate and zoom in the browser; the scene is exported again at every step) and needs
`trame-pyvista` and `anywidget` (`pip install "warp_nb[interactive]"`). Where pyvista cannot
render at all, matplotlib draws the frame. Where widgets cannot render (nbval, a static HTML
export), the output carries the PNG."""

from __future__ import annotations

import time

import ipywidgets as W
import numpy as np

from ._shared import StaticFallback, as_numpy, ensure_headless_vtk, png_bytes


def _points(a) -> np.ndarray:
    p = np.asarray(as_numpy(a), dtype=np.float32)
    return p.reshape(-1, 3)


def _triangles(a) -> np.ndarray:
    return np.asarray(as_numpy(a)).astype(np.int64).reshape(-1, 3)


class _Item:
    """One thing drawn: its kind, where its data comes from (read again every frame), its style."""

    def __init__(self, kind: str, source, color: str, iso: float | None = None, extra=None):
        self.kind, self.source, self.color, self.iso, self.extra = kind, source, color, iso, extra
        self.mesh = None  # the pyvista dataset, updated in place

    def points(self) -> np.ndarray:
        if self.kind == "mesh" and hasattr(self.source, "points"):
            return _points(self.source.points)
        return _points(self.source if self.kind == "points" else self.source[0])

    def triangles(self) -> np.ndarray:
        if hasattr(self.source, "indices"):
            return _triangles(self.source.indices)
        return _triangles(self.source[1])

    def field(self) -> np.ndarray:
        if hasattr(self.source, "to_dense"):  # a wp.Volume: its allocated region
            return self.source.to_dense()[0]
        return np.asarray(as_numpy(self.source), dtype=np.float32)

    def image_data(self, pv):
        """The field as pyvista image data: a wp.Volume in world space, an array in index space."""
        if hasattr(self.source, "to_dense"):
            from ..geometry.pyvista_bridge import volume_to_pyvista
            return volume_to_pyvista(self.source, name="f")
        field = self.field()
        grid = pv.ImageData(dimensions=field.shape)
        grid.point_data["f"] = field.ravel(order="F")
        return grid


def _is_mesh(m) -> bool:
    return hasattr(m, "points") or (isinstance(m, tuple) and len(m) == 2)


_MESH_COLORS = ("#bbbbbb", "#f58518", "#54a24b", "#b279a2")


def _require_interactive_extras() -> None:
    try:
        import anywidget  # noqa: F401
        import trame_pyvista  # noqa: F401
    except ImportError:
        raise ImportError("GeometryView(backend='html') needs the interactive extras: "
                          "pip install \"warp_nb[interactive]\" (trame-pyvista and anywidget); the default "
                          "backend='static' needs nothing more") from None


class GeometryView(StaticFallback, W.VBox):
    """Draw geometry and redraw it as a simulation steps.

        view = GeometryView(points=positions, step=advance)   # positions: wp.array(dtype=wp.vec3)
        view                # the picture with step / play controls
        view.step(10)       # advance ten steps, draw once
        view.image          # the current frame as PNG bytes
    """

    def __init__(self, points=None, mesh=None, volume=None, iso: float = 0.0, step=None, backend: str = "static",
                 window_size=(480, 360), point_size: float = 6.0, color: str = "#4c78a8", title: str | None = None,
                 camera_position=None, interval_ms: int = 100, max_frames: int = 1000, **kwargs):
        if backend not in ("static", "html"):
            raise ValueError(f"GeometryView backend must be 'static' (a PNG rendered in the kernel) or 'html' "
                             f"(interactive; needs trame-pyvista and anywidget), got {backend!r}")
        if backend == "html":
            _require_interactive_extras()
        self.items: list[_Item] = []
        if points is not None:
            self.items.append(_Item("points", points, color))
        if mesh is not None:
            if isinstance(mesh, list) and mesh and all(_is_mesh(m) for m in mesh):
                meshes = mesh  # several meshes, each drawn in its own colour
            elif _is_mesh(mesh) or (isinstance(mesh, list) and len(mesh) == 2):
                meshes = [tuple(mesh) if isinstance(mesh, list) else mesh]
            else:
                raise TypeError("mesh= takes (points, triangles) arrays, an object with .points and .indices "
                                "(such as wp.Mesh), or a list of these")
            for k, m in enumerate(meshes):  # the first in `color` unless points take it
                mesh_color = color if k == 0 and points is None else _MESH_COLORS[k % len(_MESH_COLORS)]
                self.items.append(_Item("mesh", m, mesh_color))
        if volume is not None:
            if not hasattr(volume, "to_dense") and np.asarray(as_numpy(volume)).ndim != 3:
                raise ValueError("volume= takes a wp.Volume or a 3-D array of scalars (its iso-surface at iso= "
                                 "is drawn)")
            self.items.append(_Item("iso", volume, "#e45756", iso))
        if not self.items:
            raise ValueError("GeometryView needs something to draw: points=, mesh=(points, triangles) or "
                             "volume= with iso=")
        self.step_fn = step
        self.backend = backend
        self.window_size = tuple(window_size)
        self.point_size = point_size
        self.camera_position = camera_position
        self.title = title
        self.frame = 0
        self.renderer = None  # "pyvista" or "matplotlib", once the first frame is drawn
        self.render_seconds = 0.0
        self.image: bytes = b""
        self._plotter = None
        self.viewer = None  # the interactive view (backend="html")
        self.picture = W.Image(format="png", layout=W.Layout(width=f"{self.window_size[0]}px"))
        self.picture.add_class("wpnb-geometry-image")
        self.step_button = W.Button(description="step", disabled=step is None, layout=W.Layout(width="70px"),
                                    tooltip="advance the simulation one step and draw it")
        # the Play control's icons (play, pause, stop, loop) carry no words of their own
        self.play = W.Play(value=0, min=0, max=max_frames, interval=interval_ms, disabled=step is None,
                           description="play", tooltip=f"play: step and draw every {interval_ms} ms; pause; stop "
                                                       f"(back to frame 0 of the play counter); loop: start over "
                                                       f"after {max_frames} frames")
        self.status = W.HTML()
        self.step_button.on_click(lambda _: self.step())
        self.play.observe(self._on_play, "value")
        super().__init__([self.picture, W.HBox([self.step_button, self.play, self.status])], **kwargs)
        self.add_class("wpnb-geometry-view")
        self.redraw()

    # --- stepping --------------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance the simulation `n` steps (calling `step=`), then draw one frame."""
        if self.step_fn is None:
            raise ValueError("this GeometryView has no step function: pass step=callable")
        for _ in range(n):
            self.step_fn()
            self.frame += 1
        self.redraw()

    def _on_play(self, change) -> None:
        if change["new"] > change["old"]:
            self.step()

    # --- drawing ---------------------------------------------------------------------------
    def redraw(self) -> bytes:
        """Read the arrays again and draw the current frame; returns the PNG."""
        t0 = time.perf_counter()
        if self.renderer != "matplotlib":
            try:
                image = self._draw_pyvista()
                self.renderer = "pyvista"
            except Exception as e:  # no pyvista, or no working OpenGL: a flat picture still helps
                self.renderer = "matplotlib"
                self._fallback_reason = f"{type(e).__name__}: {e}"
        if self.renderer == "matplotlib":
            image = self._draw_matplotlib()
        self.image = png_bytes(image)
        self.picture.value = self.image
        if self.backend == "html" and self.renderer == "pyvista":
            self._html_view()
        self.render_seconds = time.perf_counter() - t0
        n = sum(len(i.points()) for i in self.items if i.kind != "iso")
        self.status.value = (f"<span class='wpnb-geometry-status'>frame {self.frame} &middot; {n} points &middot; "
                             f"{self.render_seconds * 1e3:.0f} ms ({self.renderer})</span>")
        return self.image

    def _draw_pyvista(self) -> np.ndarray:
        ensure_headless_vtk()
        import pyvista as pv
        first = self._plotter is None
        if first:
            self._plotter = pv.Plotter(off_screen=True, window_size=list(self.window_size))
            self._plotter.set_background("white")
            if self.title:
                self._plotter.add_text(self.title, font_size=10, color="black")
        for item in self.items:
            self._update_item(pv, item)
        if first:
            if self.camera_position is not None:
                self._plotter.camera_position = self.camera_position
            else:
                self._plotter.reset_camera()
        self._plotter.render()
        return self._plotter.screenshot(return_img=True)

    def _update_item(self, pv, item: _Item) -> None:
        p = self._plotter
        if item.kind == "iso":
            surface = item.image_data(pv).contour([item.iso], scalars="f")
            if item.mesh is None:
                item.mesh = surface.copy()
                item.actor = p.add_mesh(item.mesh, color=item.color, smooth_shading=True)
            else:
                item.mesh.copy_from(surface)
            return
        pts = item.points()
        if item.mesh is not None and item.mesh.n_points == len(pts) and (
                item.kind == "points" or item.mesh.n_cells == len(item.triangles())):
            item.mesh.points[:] = pts  # in place: the actor redraws it
            item.mesh.Modified()
            return
        if item.kind == "points":
            mesh = pv.PolyData(pts.copy())
            kw = dict(point_size=self.point_size, render_points_as_spheres=True)
        else:
            tris = item.triangles()
            faces = np.hstack([np.full((len(tris), 1), 3), tris]).ravel()
            mesh = pv.PolyData(pts.copy(), faces)
            kw = dict(show_edges=True, edge_color="#666666")
        if item.mesh is not None:
            p.remove_actor(item.actor)
        item.mesh = mesh
        item.actor = p.add_mesh(mesh, color=item.color, **kw)

    def _draw_matplotlib(self) -> np.ndarray:
        import matplotlib
        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        w, h = self.window_size
        fig = Figure(figsize=(w / 100, h / 100), dpi=100)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot(projection="3d")
        for item in self.items:
            if item.kind == "points":
                p = item.points()
                ax.scatter(p[:, 0], p[:, 1], p[:, 2], s=self.point_size, color=item.color)
            elif item.kind == "mesh":
                p, t = item.points(), item.triangles()
                ax.plot_trisurf(p[:, 0], p[:, 1], p[:, 2], triangles=t, color=item.color, alpha=0.6)
            else:
                f = item.field()
                idx = np.argwhere(np.abs(f - item.iso) < (np.ptp(f) or 1.0) * 0.02)
                ax.scatter(idx[:, 0], idx[:, 1], idx[:, 2], s=1, color=item.color)
        if self.title:
            ax.set_title(self.title)
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].copy()

    def _html_view(self) -> None:
        """Export the current scene to pyvista's interactive html view (shown instead of the picture)."""
        from pyvista.jupyter.notebook import handle_plotter  # direct: show() ignores backends outside a kernel
        viewer = handle_plotter(self._plotter, backend="html")
        if self.viewer is not None and self.viewer.has_trait("scene") and viewer.has_trait("scene"):
            self.viewer.scene = viewer.scene  # the same widget, a new scene: the page keeps its place
            viewer.close()
            return
        if self.viewer is not None:
            self.viewer.close()
        self.viewer = viewer
        self.children = (viewer,) + tuple(self.children[1:])

    def static_png(self) -> bytes | None:
        return self.image or None

    def close(self) -> None:
        if getattr(self, "_plotter", None) is not None:  # also from __del__ of a half-made view
            self._plotter.close()
            self._plotter = None
        if getattr(self, "viewer", None) is not None:
            self.viewer.close()
            self.viewer = None
        super().close()
