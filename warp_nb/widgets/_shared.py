"""What the widgets share: headless rendering set-up, numpy views of arrays, small HTML pieces
(tables, bars, SVG histograms) that render the same in JupyterLab, classic Notebook and a static
export, and the mixin that gives each widget a static fallback where widgets cannot render."""

from __future__ import annotations

import html
import io
import os

import numpy as np


def ensure_headless_vtk() -> None:
    """VTK renders off screen through Mesa's software EGL: no display, no GPU, and no X warnings
    written into cell outputs. Must run before pyvista creates its first render window."""
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    try:
        import pyvista
    except ImportError:
        return
    pyvista.OFF_SCREEN = True


def as_numpy(a) -> np.ndarray:
    """A numpy view (or copy) of a wp.array, numpy array or anything array-like."""
    if hasattr(a, "numpy") and callable(a.numpy):
        return a.numpy()
    return np.asarray(a)


def png_bytes(image: np.ndarray) -> bytes:
    """An RGB(A) uint8 image as PNG bytes."""
    try:
        from PIL import Image
        buf = io.BytesIO()
        Image.fromarray(image).save(buf, format="PNG")
        return buf.getvalue()
    except ImportError:  # matplotlib writes PNGs too
        import matplotlib.image
        buf = io.BytesIO()
        matplotlib.image.imsave(buf, image, format="png")
        return buf.getvalue()


def esc(x) -> str:
    return html.escape(str(x))


def html_table(columns: list[str], rows: list[list], css_class: str = "wpnb-table") -> str:
    """A small HTML table; cells are pre-escaped HTML strings or values (escaped here)."""
    head = "".join(f"<th style='text-align:right;padding:2px 8px'>{esc(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = "".join(f"<td style='text-align:right;padding:2px 8px;font-family:monospace'>{c}</td>"
                        if isinstance(c, Html) else
                        f"<td style='text-align:right;padding:2px 8px;font-family:monospace'>{esc(c)}</td>"
                        for c in row)
        body.append(f"<tr>{cells}</tr>")
    return f"<table class='{css_class}' style='border-collapse:collapse'><tr>{head}</tr>{''.join(body)}</table>"


class Html(str):
    """A string that html_table inserts as HTML (not escaped)."""


def bar(fraction: float, width_px: int = 120, color: str = "#4c78a8") -> Html:
    w = max(0, min(1, fraction)) * width_px
    return Html(f"<div style='width:{width_px}px;background:#eee;height:10px'>"
                f"<div style='width:{w:.0f}px;background:{color};height:10px'></div></div>")


def svg_histogram(values: np.ndarray, bins: int = 20, width: int = 160, height: int = 48,
                  color: str = "#4c78a8") -> Html:
    """A histogram of the finite values as inline SVG (no plotting library, renders anywhere)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        return Html(f"<svg width='{width}' height='{height}'><text x='4' y='{height // 2}' font-size='10'>"
                    "no finite values</text></svg>")
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    counts, _ = np.histogram(v, bins=bins, range=(lo, hi))
    top = max(int(counts.max()), 1)
    bw = width / bins
    rects = "".join(f"<rect x='{i * bw:.1f}' y='{height - 12 - c / top * (height - 14):.1f}' width='{bw - 1:.1f}' "
                    f"height='{c / top * (height - 14):.1f}' fill='{color}'/>" for i, c in enumerate(counts))
    labels = (f"<text x='0' y='{height - 1}' font-size='9'>{lo:.3g}</text>"
              f"<text x='{width}' y='{height - 1}' font-size='9' text-anchor='end'>{hi:.3g}</text>")
    return Html(f"<svg width='{width}' height='{height}' class='wpnb-hist'>{rects}{labels}</svg>")


def user_names(objects: list) -> dict:
    """id(object) -> the name it has in the notebook (for labelling arrays), where one is found."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is None:
        return {}
    wanted = {id(o) for o in objects}
    out = {}
    for name, value in shell.user_ns.items():
        if id(value) in wanted and not name.startswith("_"):
            out.setdefault(id(value), name)
    return out


class StaticFallback:
    """Mixin for ipywidgets containers: where widgets cannot render (nbval, an HTML export without
    widget state, a terminal), the output still carries `static_html()` (and a PNG when the
    widget has one), next to the live widget view that front-ends with widgets prefer."""

    def static_html(self) -> str:
        return ""

    def static_png(self) -> bytes | None:
        return None

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        data = dict(bundle)
        fallback = self.static_html()
        if fallback:
            data["text/html"] = fallback
        png = self.static_png()
        if png:
            import base64
            data["image/png"] = base64.b64encode(png).decode()
        return data
