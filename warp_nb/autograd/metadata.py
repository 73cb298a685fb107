"""What the gradient tools know about the function they differentiate: its name, the labels of
its inputs and outputs, and the dtypes and strides of those that are arrays (Warp's
`FunctionMetadata`, which `jacobian_plot` and the summaries read). Labels of a kernel are its
parameter names (inputs first, then outputs); of a Python function, its parameter names and
`output_0`, `output_1`, ... for the arrays it returns. Also resolves an `input_output_mask`
against the labels. Knows nothing about launching."""

from __future__ import annotations

import inspect

from .. import types as T


class FunctionMetadata:
    """Names, dtypes and strides of a differentiated function's inputs and outputs. An entry is
    None where the value is not an array (dtypes, strides) or has no name (labels)."""

    def __init__(self, key: str | None = None, input_labels: list | None = None, output_labels: list | None = None,
                 input_strides: list | None = None, output_strides: list | None = None,
                 input_dtypes: list | None = None, output_dtypes: list | None = None):
        self.key = key
        self.input_labels = input_labels
        self.output_labels = output_labels
        self.input_strides = input_strides
        self.output_strides = output_strides
        self.input_dtypes = input_dtypes
        self.output_dtypes = output_dtypes

    def __repr__(self):
        return f"FunctionMetadata(key={self.key!r}, inputs={self.input_labels}, outputs={self.output_labels})"

    def is_empty(self) -> bool:
        return not self.key and not self.input_labels and not self.output_labels

    def input_is_array(self, index: int) -> bool:
        return _entry(self.input_dtypes, index) is not None

    def output_is_array(self, index: int) -> bool:
        return _entry(self.output_dtypes, index) is not None

    def update_from_kernel(self, kernel, inputs) -> None:
        """Fill in from a kernel and the values passed as its inputs (its later parameters are
        the outputs)."""
        n = len(inputs)
        names, types_ = list(kernel.param_names), list(kernel.param_types)
        self.key = kernel.key
        self.input_labels, self.output_labels = names[:n], names[n:]
        dtypes = [getattr(t, "dtype", None) for t in types_]
        for k, v in enumerate(inputs):  # a generic kernel's dtypes come from the values
            if _is_array(v):
                dtypes[k] = v.dtype
        self.input_dtypes, self.output_dtypes = dtypes[:n], dtypes[n:]
        strides = [v.strides if _is_array(v) else None for v in inputs]
        self.input_strides, self.output_strides = strides, [None] * (len(names) - n)

    def update_from_function(self, function, inputs, outputs) -> None:
        """Fill in from a Python function, its inputs and the arrays it returned."""
        self.key = getattr(function, "__name__", None)
        try:
            params = [p.name for p in inspect.signature(function).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        self.input_labels = [params[k] if k < len(params) else f"input_{k}" for k in range(len(inputs))]
        self.output_labels = [f"output_{k}" for k in range(len(outputs))]
        self.input_dtypes = [v.dtype if _is_array(v) else None for v in inputs]
        self.output_dtypes = [v.dtype if _is_array(v) else None for v in outputs]
        self.input_strides = [v.strides if _is_array(v) else None for v in inputs]
        self.output_strides = [v.strides if _is_array(v) else None for v in outputs]


def resolve_mask(mask, metadata: FunctionMetadata, n_inputs: int, n_outputs: int) -> list | None:
    """The (input index, output index) pairs an input_output_mask names (by index or label), or
    None for every pair."""
    if mask is None:
        return None
    pairs = []
    for entry in mask:
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise ValueError(f"input_output_mask entries are (input, output) pairs, got {entry!r}")
        pairs.append((_index(entry[0], metadata.input_labels, n_inputs, "input"),
                      _index(entry[1], metadata.output_labels, n_outputs, "output")))
    return pairs


def component_count(dtype) -> int:
    """How many scalars one element of `dtype` holds."""
    try:
        return T.type_length(dtype)
    except (AttributeError, TypeError):
        raise ValueError(f"cannot tell the component count of dtype {T.type_name(dtype)}: give a concrete "
                         "scalar, vector or matrix type") from None


def _index(which, labels, count: int, kind: str) -> int:
    if isinstance(which, str):
        if labels is None or which not in labels:
            raise ValueError(f"input_output_mask names {kind} {which!r}, but the {kind}s are "
                             f"{', '.join(map(str, labels or [])) or 'unnamed'}")
        return labels.index(which)
    if isinstance(which, int) and 0 <= which < count:
        return which
    raise ValueError(f"input_output_mask: {kind} index {which!r} is out of range (there are {count} {kind}s)")


def _entry(values, index):
    return values[index] if values is not None and 0 <= index < len(values) else None


def _is_array(v) -> bool:
    return getattr(type(v), "_wp_array_", False)
