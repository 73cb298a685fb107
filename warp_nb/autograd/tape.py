"""`wp.Tape`: records kernel launches (and array copies) made inside `with tape:`, and
`tape.backward()` replays their adjoints in reverse order, so every array created with
requires_grad=True ends up holding the gradient of the loss.

As in Warp, the gradient of an array element that a launch stores is consumed (zeroed) once the
adjoint of the store has passed it on (retain_grad=True on the array keeps it); gradients of
arrays that are only read accumulate across backward passes until `tape.zero()`. Copies follow
the same rule (tape_copy.py). Named scopes (`record_scope_begin/end`) are kept in `tape.scopes`
for `tape.visualize()` (tape_graph.py); with `wp.config.verify_autograd_array_access`, recorded
launches mark the arrays they read and write (array_access.py)."""

from __future__ import annotations

from . import array_access
from .. import config
from ..runtime import recording
from ..runtime.devices import get_device
from .. import types as T
from ..arrays.array import array
from .tape_copy import copy_adjoint
from .tape_records import CopyRecord, FuncRecord, LaunchRecord, arrays_in
from ..types.structs import StructInstance


class Tape:
    """Records launches for reverse-mode differentiation (Warp's wp.Tape)."""

    def __init__(self):
        self.launches: list = []
        self.gradients: dict = {}
        #: scope markers: (launch index, name, metadata) where a scope begins, (launch index, None,
        #: None) where it ends
        self.scopes: list = []
        #: the recording whose backward units were last built together (_compile_backward_together)
        self._backward_compiled_for: tuple | None = None

    # --- recording ----------------------------------------------------------------------
    def __enter__(self):
        if recording.tape is not None:
            # as in Warp: an inner tape would silently take the launches the outer one needs
            raise RuntimeError("wp.Tape blocks cannot be nested: a tape is already recording; end it first, or "
                               "record everything on one tape")
        recording.tape = self
        return self

    def __exit__(self, *exc):
        recording.tape = None

    def record_launch(self, kernel, dim, inputs, outputs, device, *args, typed=None, block_dim=None, **kwargs) -> None:
        record = LaunchRecord(kernel, dim, tuple(inputs), tuple(outputs), device, typed, block_dim)
        self.launches.append(record)
        if config.verify_autograd_array_access:
            array_access.mark_launch(kernel, record.typed_ir(), record.inputs + record.outputs)

    def record_copy(self, dest, src, dest_offset=0, src_offset=0, count=0) -> None:
        if config.verify_autograd_array_access:
            array_access.mark_copy(dest, src)
        # recorded even without gradient buffers yet: backward(grads=...) may give them
        self.launches.append(CopyRecord(dest, src, dest_offset, src_offset, count or src.size - src_offset))

    def record_func(self, backward, arrays) -> None:
        """Record a Python step: `backward()` is called at its place in the reverse pass."""
        self.launches.append(FuncRecord(backward, tuple(arrays)))

    def record_scope_begin(self, scope_name: str, metadata: dict | None = None) -> None:
        """Open a named scope (shown as a cluster by visualize())."""
        self.scopes.append((len(self.launches), scope_name, metadata if metadata is not None else {}))

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """Close the innermost open scope; one that recorded nothing is dropped (by default)."""
        depth = sum(1 if name is not None else -1 for _index, name, _meta in self.scopes)
        if depth <= 0:
            raise RuntimeError("ended tape scope, but scope not present: record_scope_end() needs a matching "
                               "record_scope_begin()")
        last = self.scopes[-1]
        if remove_scope_if_empty and last[1] is not None and last[0] == len(self.launches):
            self.scopes.pop()
        else:
            self.scopes.append((len(self.launches), None, None))

    # --- backward -----------------------------------------------------------------------
    def backward(self, loss: array | None = None, grads: dict | None = None) -> None:
        """Propagate gradients back through every recorded launch, from `loss` (its gradient is
        seeded with ones), from `grads` ({array: seed gradient}; an array without a gradient
        buffer takes the seed as its gradient, as in Warp), or, with neither, from the gradients
        already set on the outputs (as in Warp). An empty tape does nothing. Afterwards the read
        flags of the tape's arrays are cleared (wp.config.verify_autograd_array_access)."""
        if loss is not None and not isinstance(loss, array):
            raise TypeError(f"tape.backward(loss) expects a wp.array of one element, got {type(loss).__name__}")
        if loss is not None and loss.size != 1:
            raise ValueError(f"tape.backward(loss) takes a single-element loss array, got shape {loss.shape}: sum it "
                             "into one element (wp.atomic_add) or pass per-element seeds with grads={array: seed}")
        if not self.launches:
            return
        if loss is not None:
            scalar = loss.dtype if T.is_scalar_type(loss.dtype) else getattr(loss.dtype, "_wp_scalar_type_", None)
            if getattr(scalar, "_kind", "float") != "float":
                # an integer result is a step function of the inputs: its gradient would be all zeros
                raise TypeError(f"the loss must be a float array to differentiate, got {T.type_name(loss.dtype)}: "
                                f"integer values have no gradient (compute the loss in float32 or float64)")
            if loss.grad is None:
                raise ValueError("the loss array has no gradient buffer: create it with requires_grad=True, "
                                 "e.g. wp.zeros(1, requires_grad=True)")
            loss.grad.fill_(1.0)
            self.gradients[loss] = loss.grad
        for a, seed in (grads or {}).items():
            if a.grad is None and isinstance(seed, array) and seed.shape == a.shape and seed.dtype == a.dtype:
                a.grad = seed
            elif a.grad is None:
                raise ValueError("an array in grads={...} has no gradient buffer, and its seed is not an array of "
                                 "its shape and dtype: create the array with requires_grad=True")
            else:
                a.grad.assign(seed.numpy() if isinstance(seed, array) else seed)
            self.gradients[a] = a.grad
        self._check_gradient_chain()
        # (once per recording: a tape replayed over and over does not scan its launches each time)
        seen = (len(self.launches), id(self.launches[-1]), config.epoch)
        if self._backward_compiled_for != seen:
            _compile_backward_together(self.launches)
            self._backward_compiled_for = seen
        from ..launch.launcher import launch
        for record in reversed(self.launches):
            if isinstance(record, LaunchRecord):
                args = record.inputs + record.outputs
                if not record.kernel.backward_enabled:
                    _warn_no_backward(record.kernel)
                    self.gradients.update({a: a.grad for a in args if isinstance(a, array) and a.grad is not None})
                    continue
                # the adjoint of a store consumes (zeroes) the stored element's gradient (native/arrays/adjoint.h),
                # so a second backward pass or an earlier launch that wrote the element does not count
                # it twice; an array made with retain_grad=True keeps its gradient, as in Warp
                retained = _retained(record, args)
                for a in args:
                    if isinstance(a, StructInstance):
                        _refresh_struct(a)
                launch(record.kernel, record.dim, inputs=record.inputs, outputs=record.outputs, device=record.device,
                       adjoint=True, record_tape=False, block_dim=record.block_dim)
                for a, before, also_read in retained:
                    if isinstance(before, array):  # in a graph capture: restored by a recorded copy
                        from ..arrays.create import copy
                        copy(a.grad, before)
                    elif also_read:
                        a.grad.assign(a.grad.numpy() + before)
                    else:
                        a.grad.assign(before)
                for a in args:
                    if isinstance(a, array) and a.grad is not None:
                        self.gradients[a] = a.grad
                    elif isinstance(a, StructInstance):
                        self.gradients[a] = _struct_gradients(a)
            elif isinstance(record, CopyRecord):
                copy_adjoint(record.dest, record.src, record.dest_offset, record.src_offset, record.count)
                for a in (record.dest, record.src):
                    if a.grad is not None:
                        self.gradients[a] = a.grad
            else:
                record.backward()
        array_access.clear(self._arrays())

    def _check_gradient_chain(self) -> None:
        """Refuse a backward pass that would silently lose gradients: an array that a recorded
        kernel writes from differentiable inputs, and that a later launch reads, must have a
        gradient buffer."""
        needs_grad: dict = {}  # id(array) -> (array, where it was written)
        for n, record in enumerate(self.launches):
            if not isinstance(record, LaunchRecord):
                continue
            args = record.inputs + record.outputs
            read, written = _usage(record)
            for k in read:
                a = args[k]
                where = needs_grad.get(id(a))
                if where is not None and a.grad is None:
                    raise ValueError(f"gradients cannot flow back through argument `{where[1]}` of kernel "
                                     f"`{where[0]}`: that array is written from inputs that require gradients and "
                                     f"read by kernel `{record.kernel.key}` later on the tape, but it has no "
                                     "gradient buffer; create it with requires_grad=True")
            differentiable_input = any(isinstance(args[k], array) and args[k].requires_grad for k in read)
            if differentiable_input:
                for k in written:
                    a = args[k]
                    if isinstance(a, array) and a.grad is None and _float_type(a.dtype):
                        needs_grad[id(a)] = (record.kernel.key, record.kernel.param_names[k])

    # --- housekeeping -------------------------------------------------------------------
    def zero(self) -> None:
        """Zero the gradients of every array the tape has seen."""
        for a in self._arrays():
            if a.grad is not None:
                a.grad.zero_()

    def reset(self) -> None:
        """Zero the gradients, forget the recorded launches and scopes, and clear the read flags
        of the tape's arrays. `tape.gradients` keeps its (now zero) entries."""
        self.zero()
        array_access.clear(self._arrays())
        self.launches = []
        self.scopes = []

    def get_adjoint(self, a: array):
        return a.grad

    def visualize(self, filename: str | None = None, simplify_graph: bool = True, hide_readonly_arrays: bool = False,
                  array_labels: dict | None = None, choose_longest_node_name: bool = True,
                  ignore_graph_scopes: bool = False, track_inputs: list | None = None,
                  track_outputs: list | None = None, track_input_names: list | None = None,
                  track_output_names: list | None = None, graph_direction: str = "LR") -> str:
        """The recorded launches as GraphViz dot text (written to `filename` too, if given)."""
        from .tape_graph import visualize
        return visualize(self, filename, simplify_graph, hide_readonly_arrays, array_labels, choose_longest_node_name,
                         ignore_graph_scopes, track_inputs, track_outputs, track_input_names, track_output_names,
                         graph_direction)

    def _arrays(self):
        seen = {}
        for record in self.launches:
            items = record.inputs + record.outputs if isinstance(record, LaunchRecord) else (
                (record.dest, record.src) if isinstance(record, CopyRecord) else record.arrays)
            for a in arrays_in(items):
                seen[id(a)] = a
        for a in arrays_in(self.gradients):
            seen[id(a)] = a
        return list(seen.values())


def _retained(record: LaunchRecord, args) -> list:
    """(array, its gradient before the adjoint, whether the launch also reads it) for the
    retain_grad arrays the launch stores into."""
    from ..compiler.param_access import param_access, stored_params  # loaded by the compile that made `record`
    stored = stored_params(record.typed_ir())
    read = param_access(record.typed_ir())[0]
    kept = [(args[k], k in read) for k in sorted(stored)
            if isinstance(args[k], array) and args[k].grad is not None and args[k].retain_grad]
    if recording.capture is None:
        return [(a, a.grad.numpy().copy(), also_read) for a, also_read in kept]
    # in a graph capture the gradient is kept by a recorded copy (read when the graph runs, not now)
    from ..arrays.create import copy, empty_like
    out = []
    for a, also_read in kept:
        if also_read:
            raise NotImplementedError(f"a captured backward pass through a kernel that reads and stores the "
                                      f"retain_grad array {a!r} is not supported; capture it without retain_grad")
        saved = empty_like(a.grad)
        copy(saved, a.grad)
        out.append((a, saved, False))
    return out


def _usage(record: LaunchRecord):
    from ..compiler.ir import array_param_usage
    return array_param_usage(record.typed_ir())


def _float_type(t) -> bool:
    s = T.scalar_type_of(t)
    return s is not None and s._kind == "float" or getattr(t, "_wp_struct_", False)


def _refresh_struct(value: StructInstance) -> None:
    """Store each array field again, so the struct passes the array's current gradient buffer (it
    may have been set, as `a.grad = ...`, after the struct was filled)."""
    for name in value._struct.fields:
        field = getattr(value, name)
        if isinstance(field, array):
            setattr(value, name, field)
        elif isinstance(field, StructInstance):
            _refresh_struct(field)


def _struct_gradients(value: StructInstance) -> StructInstance:
    """A struct of the same type whose array fields are the gradients of `value`'s (Warp's
    tape.gradients[struct])."""
    out = value._struct()
    for name in value._struct.fields:
        field = getattr(value, name)
        if isinstance(field, array) and field.grad is not None:
            setattr(out, name, field.grad)
        elif isinstance(field, StructInstance):
            setattr(out, name, _struct_gradients(field))
    return out


def _warn_no_backward(kernel) -> None:
    """As Warp: a recorded kernel without a backward pass is skipped, with a warning naming where it
    was disabled (its gradients stay zero)."""
    from ..errors import warn

    if kernel.options.get("enable_backward") is False:
        warn(f"Running the tape backwards may produce incorrect gradients because recorded kernel {kernel.key} is "
             "configured with the option 'enable_backward=False'.")
    else:
        warn(f"Running the tape backwards may produce incorrect gradients because recorded kernel {kernel.key} is "
             "defined in a module with the option 'enable_backward=False' set.")


def _compile_backward_together(records) -> None:
    """The backward units of the tape's kernels, compiled before the first backward launch: those
    not compiled yet build together (program/module.py build_backward_together), where each backward
    launch would otherwise build its own in turn. Launches in blocks of several lanes are left to
    their launch, which builds for their lanes."""
    from ..launch.launcher import concrete_signature, lanes_per_block, launcher_key
    by_device: dict = {}
    for r in records:
        if not isinstance(r, LaunchRecord):
            continue
        k, device = r.kernel, get_device(r.device)
        made = k.launchers.get(launcher_key(device.alias, True, None, r.block_dim))  # (a generic kernel's: none)
        if made is not None and made.epoch == config.epoch:
            continue  # its backward launch is ready: the usual case after the first backward pass
        sig = tuple(concrete_signature(k, r.inputs + r.outputs)) if k.is_generic else None
        made = k.launchers.get(launcher_key(device.alias, True, sig, r.block_dim)) if sig is not None else None
        if (made is not None and made.epoch == config.epoch) or not k.backward_enabled or \
                lanes_per_block(device, r.block_dim) != 1:
            continue
        by_device.setdefault(device.alias, (device, {}))[1][(id(k), sig)] = (k, sig)
    from ..program.module import build_backward_together
    for device, pending in by_device.values():
        build_backward_together(list(pending.values()), device)
