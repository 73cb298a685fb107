"""`jacobian_plot`: the Jacobians of `jacobian()` / `jacobian_fd()` (or gradcheck's error
matrices) as one matplotlib figure: a grid with a column per input and a row per output that
appear in the dict, each cell sized by its scalar count, labelled with the input and output
names, thin lines between the elements of vector-valued arrays, one shared colour scale.
matplotlib is imported only when a plot is made; the figure is returned (and shown with
plt.show() when show_plot)."""

from __future__ import annotations

import numpy as np

from ..arrays.array import array
from .metadata import FunctionMetadata, component_count


def jacobian_plot(jacobians: dict, kernel, inputs=None, show_plot: bool = True, show_colorbar: bool = True,
                  scale_colors_per_submatrix: bool = False, title: str | None = None, colormap: str = "coolwarm",
                  log_scale: bool = False):
    """Plot {(input index, output index): Jacobian}; `kernel` is a kernel (then `inputs`, the values
    passed as its inputs, tell inputs from outputs) or a FunctionMetadata. Returns the figure, or
    None when there is nothing to plot."""
    metadata = _metadata(kernel, inputs)
    if not jacobians:
        return None
    ins = sorted({i for i, _ in jacobians})
    outs = sorted({o for _, o in jacobians})
    in_labels = [_label(metadata.input_labels, i, "input") for i in ins]
    in_components = [component_count(_input_dtype(metadata, i, label)) for i, label in zip(ins, in_labels)]
    out_labels = [_label(metadata.output_labels, o, "output") for o in outs]
    out_components = [_maybe_components(metadata.output_dtypes, o) for o in outs]

    import matplotlib.pyplot as plt

    matrices = {k: np.asarray(v.numpy() if isinstance(v, array) else v, dtype=np.float64) for k, v in jacobians.items()}
    widths = [next(m.shape[1] for (i, _), m in matrices.items() if i == c) for c in ins]
    heights = [next(m.shape[0] for (_, o), m in matrices.items() if o == r) for r in outs]
    fig, axes = plt.subplots(len(outs), len(ins), squeeze=False,
                             figsize=(min(4 + 0.25 * sum(widths), 16), min(3 + 0.25 * sum(heights), 12)),
                             gridspec_kw={"width_ratios": widths, "height_ratios": heights})
    shared = None if scale_colors_per_submatrix else _norm(list(matrices.values()), log_scale)
    image = None
    for r, o in enumerate(outs):
        for c, i in enumerate(ins):
            ax = axes[r][c]
            m = matrices.get((i, o))
            if m is None:
                ax.axis("off")
                continue
            norm = shared or _norm([m], log_scale)
            image = ax.imshow(np.abs(m) if log_scale else m, cmap=colormap, norm=norm, aspect="auto",
                              interpolation="nearest")
            ax.set_xlabel(in_labels[c])
            ax.set_ylabel(out_labels[r])
            for x in np.arange(in_components[c], m.shape[1], in_components[c]) - 0.5 if in_components[c] > 1 else ():
                ax.axvline(x, color="gray", linewidth=0.5)
            if out_components[r] and out_components[r] > 1:
                for y in np.arange(out_components[r], m.shape[0], out_components[r]) - 0.5:
                    ax.axhline(y, color="gray", linewidth=0.5)
            if scale_colors_per_submatrix and show_colorbar:
                fig.colorbar(image, ax=ax)
    if show_colorbar and not scale_colors_per_submatrix and image is not None:
        fig.colorbar(image, ax=[ax for row in axes for ax in row])
    fig.suptitle(title or f"{metadata.key or 'unknown'} kernel Jacobian")
    if show_plot:
        plt.show()
    return fig


def _metadata(kernel, inputs) -> FunctionMetadata:
    if isinstance(kernel, FunctionMetadata):
        return kernel
    if getattr(kernel, "_wp_kernel_", False):
        if inputs is None:
            raise ValueError(f"inputs must be provided to plot the Jacobians of kernel `{kernel.key}`: they tell its "
                             "input parameters from its outputs")
        metadata = FunctionMetadata()
        metadata.update_from_kernel(kernel, list(inputs))
        return metadata
    raise TypeError(f"jacobian_plot expects a kernel or a FunctionMetadata, got {type(kernel).__name__}")


def _label(labels, index: int, kind: str) -> str:
    if labels is None or not 0 <= index < len(labels):
        raise ValueError(f"Jacobian {kind} index {index} has no {kind} in the metadata "
                         f"({len(labels or [])} {kind} labels)")
    if labels[index] is None:
        raise ValueError(f"Jacobian {kind} index {index}: missing label")
    return labels[index]


def _input_dtype(metadata, index: int, label: str):
    dtypes = metadata.input_dtypes
    dtype = dtypes[index] if dtypes is not None and index < len(dtypes) else None
    if dtype is None:
        raise ValueError(f"Jacobian input index {index} ({label}): missing array dtype")
    return dtype


def _maybe_components(dtypes, index: int):
    try:
        return component_count(dtypes[index]) if dtypes is not None and index < len(dtypes) else None
    except ValueError:
        return None


def _norm(matrices, log_scale: bool):
    import matplotlib.colors as mcolors
    finite = np.concatenate([m[np.isfinite(m)].ravel() for m in matrices] + [np.zeros(0)])
    if log_scale:
        positive = np.abs(finite[finite != 0])
        low = float(positive.min()) if positive.size else 1e-12
        high = float(positive.max()) if positive.size else 1.0
        return mcolors.LogNorm(vmin=low, vmax=max(high, low * 10))
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    return mcolors.Normalize(vmin=-bound if finite.size and finite.min() < 0 else 0.0, vmax=bound or 1.0)
