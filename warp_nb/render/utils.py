"""warp.render.utils for warp_nb: colour maps and a helper that gives a surface a thickness.

    bourke_color_map(low, high, v)   blue -> cyan -> green -> yellow -> red over [low, high]
    tab10_color_map(i)               matplotlib's ten "tab10" colours, cycled
    solidify_mesh(faces, vertices, thickness)   each triangle extruded into a closed prism
"""

from __future__ import annotations

import numpy as np

# matplotlib's "tab10" (Tableau 10) palette
_TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def bourke_color_map(low: float, high: float, v: float):
    """Paul Bourke's colour ramp: `v` clamped to [low, high] goes blue (low), cyan, green, yellow,
    red (high), changing one channel linearly per quarter. Returns [r, g, b] floats."""
    lo, hi = float(low), float(high)
    span = hi - lo
    if span <= 0.0:
        return [0.0, 0.0, 1.0]
    t = min(max((float(v) - lo) / span, 0.0), 1.0) * 4.0  # which quarter, and how far into it
    if t < 1.0:
        return [0.0, t, 1.0]  # blue -> cyan: green rises
    if t < 2.0:
        return [0.0, 1.0, 2.0 - t]  # cyan -> green: blue falls
    if t < 3.0:
        return [t - 2.0, 1.0, 0.0]  # green -> yellow: red rises
    return [1.0, 4.0 - t, 0.0]  # yellow -> red: green falls


def tab10_color_map(i: int):
    """Colour `i` (cycled) of matplotlib's tab10 palette as [r, g, b] floats in [0, 1]."""
    h = _TAB10[int(i) % len(_TAB10)]
    return [int(h[k:k + 2], 16) / 255.0 for k in (1, 3, 5)]


def solidify_mesh(faces, vertices, thickness):
    """A closed solid from a surface: every triangle becomes a prism between the triangle moved
    by -thickness and by +thickness along its normal (thickness: one value or one per vertex).
    Returns (faces (8m, 3) int32, vertices (6m, 3) float32), outward-facing."""
    from ._common import to_numpy
    f = np.asarray(to_numpy(faces), np.int64).reshape(-1, 3)
    v = np.asarray(to_numpy(vertices), np.float64).reshape(-1, 3)
    th = np.asarray(to_numpy(thickness), np.float64).reshape(-1)
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    n = np.cross(b - a, c - a)
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    t = th[f] if th.size > 1 else np.full(f.shape, th[0] if th.size else 0.0)  # per corner
    corners = np.stack([a, b, c], 1)  # (m, 3, 3)
    bottom = corners - n[:, None, :] * t[:, :, None]
    top = corners + n[:, None, :] * t[:, :, None]
    out_v = np.concatenate([bottom, top], 1).reshape(-1, 3)  # per prism: b0 b1 b2 t0 t1 t2
    local = np.array([
        [3, 4, 5], [0, 2, 1],  # top (along +n), bottom (along -n)
        [0, 1, 4], [0, 4, 3],  # side a-b
        [1, 2, 5], [1, 5, 4],  # side b-c
        [2, 0, 3], [2, 3, 5],  # side c-a
    ])
    out_f = (np.arange(len(f))[:, None, None] * 6 + local[None]).reshape(-1, 3)
    return out_f.astype(np.int32), out_v.astype(np.float32)
