"""The notebook face of the pyvista-backed OpenGLRenderer: an ipywidgets picture of the last frame
(with frame number, time and draw time), updated by every end_frame(). It shares the widgets'
static fallback, so a saved notebook or nbval still shows the last frame as a PNG.

GeometryView (warp_nb.widgets) draws a fixed set of arrays it was given; a renderer's scene is
built by name, frame by frame, so the renderer draws its own frames and this view only shows them."""

from __future__ import annotations

import time

import ipywidgets as W

from ._shared import StaticFallback, png_bytes


class RendererView(StaticFallback, W.VBox):
    """The frames of an OpenGLRenderer in a notebook (at most `max_fps` picture updates a second)."""

    def __init__(self, renderer, max_fps: float = 30.0, **kwargs):
        self.renderer = renderer
        self.max_fps = max_fps
        self.png: bytes = b""
        self._last = 0.0
        self.picture = W.Image(format="png", layout=W.Layout(width=f"{min(renderer.screen_width, 800)}px"))
        self.status = W.HTML(f"<span class='wpnb-render-status'>{renderer.title}: no frame yet</span>")
        super().__init__([self.picture, self.status], **kwargs)
        self.add_class("wpnb-render-view")

    def update_frame(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and self.max_fps and now - self._last < 1.0 / self.max_fps:
            return
        self._last = now
        r = self.renderer
        if r.image is None:
            return
        self.png = png_bytes(r.image)
        self.picture.value = self.png
        self.status.value = (f"<span class='wpnb-render-status'>{r.title}: frame {r.frame} &middot; "
                             f"t = {r.time:.3f} &middot; {r.render_seconds * 1e3:.0f} ms (pyvista, off screen)</span>")

    def static_png(self) -> bytes | None:
        return self.png or None
