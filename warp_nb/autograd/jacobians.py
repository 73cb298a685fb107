"""Jacobians of a kernel launch or of a Python function that launches kernels: from the adjoint
code (`jacobian`: one backward pass per output scalar) and from central differences
(`jacobian_fd`: two forward evaluations per input scalar).

The result is a dict {(input index, output index): wp.array of shape (output scalars, input
scalars)}, indices counted in `inputs` and in the outputs; only arrays with requires_grad=True
take part (vectors, matrices and quaternions count as their scalars). For a kernel, `inputs` and
`outputs` are its arguments in order; for a function, `inputs` are its arguments and the arrays
it returns (one or a list) are the outputs, its launches recorded on a tape of its own.

Every evaluation starts from the inputs as they were (restore_inputs=True), so functions that
change their inputs in place are differentiated at the original point; arrays are put back
afterwards, also after an error, with their gradients and read flags. Knows kernels, launches
and tapes; draws through plot.py."""

from __future__ import annotations

import contextlib

import numpy as np

from . import array_access
from ..runtime import recording
from .. import types as T
from ..arrays.array import array
from ..launch.launcher import launch
from .tape_records import LaunchRecord
from .metadata import FunctionMetadata, resolve_mask

_NO_BACKWARD = ("Kernel must have backward pass enabled to compute Jacobians: kernel `{key}` has enable_backward=False "
                "(set on the kernel, its module or wp.config); jacobian_fd() needs forward launches only")


def jacobian(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None, max_blocks=0,
             block_dim=None, max_outputs_per_var=-1, plot_jacobians=False, metadata=None,
             restore_inputs: bool = True) -> dict:
    """d(outputs) / d(inputs) from the adjoint code. Rows past `max_outputs_per_var` of each output
    are left NaN."""
    job = make_job(function, dim, inputs, outputs, device, max_blocks, block_dim, metadata)
    with job.restoring(restore_inputs):
        result = job.adjoint(input_output_mask, max_outputs_per_var)
    if plot_jacobians:
        from .plot import jacobian_plot
        jacobian_plot(result, job.metadata, inputs=job.inputs)
    return result


def jacobian_fd(function, dim=None, inputs=None, outputs=None, input_output_mask=None, device=None, max_blocks=0,
                block_dim=None, max_inputs_per_var=-1, eps: float = 1e-4, plot_jacobians=False, metadata=None,
                restore_inputs: bool = True) -> dict:
    """d(outputs) / d(inputs) by central differences with step `eps` (the step actually taken after
    rounding to the input's dtype). Columns past `max_inputs_per_var` of each input are left NaN."""
    job = make_job(function, dim, inputs, outputs, device, max_blocks, block_dim, metadata)
    with job.restoring(restore_inputs):
        result = job.finite_differences(input_output_mask, max_inputs_per_var, eps, restore_inputs)
    if plot_jacobians:
        from .plot import jacobian_plot
        jacobian_plot(result, job.metadata, inputs=job.inputs)
    return result


def make_job(function, dim, inputs, outputs, device, max_blocks, block_dim, metadata):
    if getattr(function, "_wp_kernel_", False):
        return _KernelJob(function, dim, inputs, outputs, device, max_blocks, block_dim, metadata)
    if callable(function):
        return _FunctionJob(function, inputs, outputs, device, metadata)
    raise TypeError(f"expected a kernel or a Python function that launches kernels, got {type(function).__name__}")


class _Job:
    """What both kinds of function share: inputs, restoring them, assembling Jacobians."""

    function = None
    inputs: list
    metadata: FunctionMetadata
    device = None

    @contextlib.contextmanager
    def restoring(self, restore_inputs: bool):
        """Put the inputs (with restore_inputs), the arrays the job itself changes, their gradients
        and their read flags back as they were, whatever happens inside."""
        arrays = _unique([a for a in self.inputs if isinstance(a, array)] + self.owned_arrays())
        values = _Snapshot(arrays if restore_inputs else self.owned_arrays())
        grads = _Snapshot([a.grad for a in arrays if a.grad is not None])
        flags = array_access.read_flags(arrays)
        self.values = values
        try:
            yield
        finally:
            values.restore()
            grads.restore()
            array_access.restore_read_flags(flags)

    def owned_arrays(self) -> list:
        return []

    def differentiable_output(self, a) -> bool:
        return _differentiable(a)

    def pairs(self, mask, outputs) -> list:
        ins = [k for k, a in enumerate(self.inputs) if _differentiable(a)]
        outs = [k for k, a in enumerate(outputs) if self.differentiable_output(a)]
        chosen = resolve_mask(mask, self.metadata, len(self.inputs), len(outputs))
        if chosen is None:
            chosen = [(i, o) for i in ins for o in outs]
        for i, o in chosen:
            if i not in ins or o not in outs:
                raise ValueError(f"input_output_mask pairs {self._label('input', i)} with "
                                 f"{self._label('output', o)}, but both must be float arrays with requires_grad=True")
        if not chosen:
            raise ValueError("nothing to differentiate: the inputs and the outputs each need a float array with "
                             "requires_grad=True")
        return chosen

    def _label(self, kind, k) -> str:
        labels = getattr(self.metadata, f"{kind}_labels") or []
        return f"{kind} `{labels[k]}`" if k < len(labels) else f"{kind} {k}"

    def empty_jacobians(self, pairs, outputs) -> dict:
        return {(i, o): np.full((_count(outputs[o]), _count(self.inputs[i])), np.nan) for i, o in pairs}

    def finish(self, jacobians: dict) -> dict:
        out = {}
        for (i, o), values in sorted(jacobians.items()):
            dtype = T.scalar_type_of(self.inputs[i].dtype)
            out[(i, o)] = array(values.astype(T.numpy_dtype(dtype)), dtype=dtype, device=self.device)
        return out

    def finite_differences(self, mask, max_inputs_per_var, eps, restore_inputs) -> dict:
        outputs = self.output_arrays()
        pairs = self.pairs(mask, outputs)
        result = self.empty_jacobians(pairs, outputs)
        for i in sorted({i for i, _ in pairs}):
            x = self.inputs[i]
            columns = _count(x) if max_inputs_per_var < 0 else min(_count(x), max_inputs_per_var)
            for e in range(columns):
                if restore_inputs:
                    self.values.restore()
                base = _get_scalar(x, e)
                plus = self.evaluate((x, e, base + eps))
                if restore_inputs:
                    self.values.restore()
                minus = self.evaluate((x, e, base - eps))
                _set_scalar(x, e, base)
                kind = x.numpy().dtype.type
                step = float(np.float64(kind(base + eps)) - np.float64(kind(base - eps)))
                for (pi, o) in pairs:
                    if pi == i:
                        result[(i, o)][:, e] = (_flat(plus[o]) - _flat(minus[o])) / step
        return self.finish(result)


class _KernelJob(_Job):
    def __init__(self, kernel, dim, inputs, outputs, device, max_blocks, block_dim, metadata):
        if dim is None:
            raise ValueError(f"differentiating kernel `{kernel.key}` needs dim=, the launch dimensions")
        self.function, self.dim = kernel, dim
        self.inputs, self.outputs = list(inputs or ()), list(outputs or ())
        if len(self.inputs) + len(self.outputs) != len(kernel.param_names):
            raise TypeError(f"kernel `{kernel.key}` takes {len(kernel.param_names)} arguments "
                            f"({', '.join(kernel.param_names)}); got {len(self.inputs)} inputs and "
                            f"{len(self.outputs)} outputs")
        self.device = device if device is not None else _device_of(self.inputs + self.outputs)
        self.launch_options = {"max_blocks": max_blocks, "block_dim": block_dim}
        if metadata is None or metadata.is_empty():
            metadata = metadata or FunctionMetadata()
            metadata.update_from_kernel(kernel, self.inputs)
        self.metadata = metadata

    def owned_arrays(self) -> list:
        return [a for a in self.outputs if isinstance(a, array)]

    def output_arrays(self) -> list:
        return self.outputs

    def run(self, args, adjoint=False) -> None:
        n = len(self.inputs)
        launch(self.function, self.dim, inputs=args[:n], outputs=args[n:], device=self.device, adjoint=adjoint,
               record_tape=False, **self.launch_options)

    def adjoint(self, mask, max_outputs_per_var) -> dict:
        kernel = self.function
        if not kernel.backward_enabled:
            raise ValueError(_NO_BACKWARD.format(key=kernel.key))
        pairs = self.pairs(mask, self.outputs)
        result = self.empty_jacobians(pairs, self.outputs)
        work = _with_private_grads(self.inputs + self.outputs)
        grads = [a.grad for a in work if isinstance(a, array) and a.grad is not None]
        self.run(work)
        n = len(self.inputs)
        for o in sorted({o for _, o in pairs}):
            seed = work[n + o].grad
            rows = _rows(self.outputs[o], max_outputs_per_var)
            for e in range(rows):
                for g in grads:
                    g.zero_()
                _set_scalar(seed, e, 1.0)
                self.run(work, adjoint=True)
                for (i, po) in pairs:
                    if po == o:
                        result[(i, o)][e] = _flat(work[i].grad)
        return self.finish(result)

    def evaluate(self, perturb=None) -> list:
        """The outputs after one forward launch from the outputs' original values (so kernels that
        accumulate into them see the same start each time)."""
        if perturb is not None:
            _set_scalar(*perturb)
        for a, values in self.values.items:
            if any(a is out for out in self.outputs):
                _set_values(a, values)
        self.run(self.inputs + self.outputs)
        return [_host(a) if isinstance(a, array) else a for a in self.outputs]


class _FunctionJob(_Job):
    def __init__(self, function, inputs, outputs, device, metadata):
        self.function = function
        self.inputs = list(inputs or ())
        self.given_outputs = list(outputs) if outputs else None
        self.device = device if device is not None else _device_of(self.inputs)
        self.metadata = metadata if metadata is not None else FunctionMetadata()

    def call(self):
        """Run the function with no tape recording; its output arrays."""
        outer, recording.tape = recording.tape, None
        try:
            result = self.function(*self.inputs)
        finally:
            recording.tape = outer
        return self.outputs_of(result)

    def outputs_of(self, result) -> list:
        if self.given_outputs is not None:
            outputs = self.given_outputs
        elif isinstance(result, array):
            outputs = [result]
        elif isinstance(result, (list, tuple)) and all(isinstance(a, array) for a in result) and result:
            outputs = list(result)
        else:
            raise ValueError(f"function `{getattr(self.function, '__name__', self.function)}` must return a wp.array "
                             f"or a list of them (its outputs), got {type(result).__name__}")
        if self.metadata.is_empty():
            self.metadata.update_from_function(self.function, self.inputs, outputs)
        return outputs

    def adjoint(self, mask, max_outputs_per_var) -> dict:
        from .tape import Tape
        tape = Tape()
        outer, recording.tape = recording.tape, None
        try:
            with tape:
                result = self.function(*self.inputs)
        finally:
            recording.tape = outer
        for record in tape.launches:
            if isinstance(record, LaunchRecord) and not record.kernel.backward_enabled:
                raise ValueError(_NO_BACKWARD.format(key=record.kernel.key))
        outputs = self.outputs_of(result)
        for out in outputs:
            if isinstance(out, array) and out.grad is None and _float(out):
                out.requires_grad = True
        pairs = self.pairs(mask, outputs)
        result = self.empty_jacobians(pairs, outputs)
        for o in sorted({o for _, o in pairs}):
            for e in range(_rows(outputs[o], max_outputs_per_var)):
                tape.zero()
                for i, _ in pairs:
                    self.inputs[i].grad.zero_()
                _set_scalar(outputs[o].grad, e, 1.0)
                tape.backward()
                for (i, po) in pairs:
                    if po == o:
                        result[(i, o)][e] = _flat(self.inputs[i].grad)
        tape.zero()
        return self.finish(result)

    def output_arrays(self) -> list:
        """The arrays one call returns (the call starts from the inputs as they were)."""
        outputs = self.call()
        self.values.restore()
        return outputs

    def evaluate(self, perturb=None) -> list:
        if perturb is not None:
            _set_scalar(*perturb)
        return [_host(a) for a in self.call()]

    def differentiable_output(self, a) -> bool:
        return _float(a)  # a function's outputs are fresh arrays: any float array it returns counts


# --- values -------------------------------------------------------------------------------------


class _Snapshot:
    """Host copies of arrays' values, to put back."""

    def __init__(self, arrays):
        self.items = [(a, np.array(a.numpy(), copy=True)) for a in _unique(arrays)]

    def restore(self) -> None:
        for a, values in self.items:
            _set_values(a, values)


def _set_values(a: array, values: np.ndarray) -> None:
    if a.storage.host_accessible:
        np.copyto(a.numpy(), values)
    else:
        a.assign(values)


def _host(a) -> np.ndarray:
    return np.array(a.numpy(), copy=True) if isinstance(a, array) else a


def _get_scalar(a: array, e: int):
    values = a.numpy()
    return values[np.unravel_index(e, values.shape)]


def _set_scalar(a: array, e: int, value) -> None:
    values = a.numpy()
    if a.storage.host_accessible:
        values[np.unravel_index(e, values.shape)] = value
    else:
        values = np.array(values, copy=True)
        values[np.unravel_index(e, values.shape)] = value
        a.assign(values)


def _flat(values) -> np.ndarray:
    values = values.numpy() if isinstance(values, array) else values
    return np.asarray(values, dtype=np.float64).reshape(-1)


def _count(a) -> int:
    return a.size * T.type_length(a.dtype)


def _rows(a, max_per_var: int) -> int:
    return _count(a) if max_per_var < 0 else min(_count(a), max_per_var)


def _float(a) -> bool:
    s = T.scalar_type_of(getattr(a, "dtype", None))
    return isinstance(a, array) and s is not None and s._kind == "float"


def _differentiable(a) -> bool:
    return isinstance(a, array) and _float(a) and a.requires_grad


def _with_private_grads(args) -> list:
    """The arguments with every float array replaced by a view with a fresh zero gradient, so the
    user's gradients are left alone."""
    out = []
    for a in args:
        if _float(a):
            view = array(ptr=a.ptr, dtype=a.dtype, shape=a.shape, strides=a.strides, device=a.device, owner=a)
            view.grad = array(shape=a.shape, dtype=a.dtype, device=a.device)
            out.append(view)
        else:
            out.append(a)
    return out


def _device_of(values):
    for v in values:
        if isinstance(v, array):
            return v.device
    return None


def _unique(arrays) -> list:
    seen = {}
    for a in arrays:
        seen.setdefault(id(a), a)
    return list(seen.values())
