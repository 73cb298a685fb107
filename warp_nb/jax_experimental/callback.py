"""Warp kernels and launching functions as JAX operations on the CPU: `jax_kernel` and
`jax_callable`, with Warp's calling convention (inputs, then in-out arrays, then outputs; outputs
returned as a list; scalars static), run inside `jax.jit` through `jax.pure_callback`, and, for
`jax_kernel(..., enable_backward=True)`, a `jax.custom_vjp` whose backward launches the kernel's
adjoint.

Warp registers an XLA FFI target instead of a callback; a callback hands the host function
numpy buffers (outputs are copied once into JAX's), which is what a CPU-only build can do without
compiling against XLA's headers. What is missing next to Warp's FFI is written in docs/compat.md.

Knows JAX's public API and warp_nb's public surface; knows nothing of how kernels compile."""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..interop.jax import dtype_to_jax
from ..types.array_type import ArrayType

_TID_LIMIT = 2 ** 31 - 1  # a thread index is a 32-bit signed integer


class Parameter:
    """One parameter of the wrapped kernel or function: its name, type and role."""

    def __init__(self, name: str, t, role: str):
        self.name, self.type, self.role = name, t, role  # role: 'input', 'in_out', 'output'

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType)


def split_parameters(names, types_, num_outputs: int, in_out_argnames, what: str) -> list[Parameter]:
    """Parameters with their roles, checked as Warp checks them (the last `num_outputs` minus the
    in-out ones are outputs; in-out arrays come before them)."""
    in_out = list(in_out_argnames or ())
    if len(set(in_out)) != len(in_out):
        raise ValueError(f"in_out_argnames must not contain duplicate names, got {in_out}")
    unknown = [n for n in in_out if n not in names]
    if unknown:
        raise ValueError(f"in_out_argnames {unknown} did not match any function argument names of {what} "
                         f"(its parameters are {list(names)})")
    if num_outputs < 1:
        raise ValueError(f"{what} needs at least one output (num_outputs={num_outputs})")
    n_out = num_outputs - len(in_out)
    if n_out < 0 or n_out > len(names):
        raise ValueError(f"num_outputs={num_outputs} must count the in-out arguments ({len(in_out)}) and at most "
                         f"all {len(names)} parameters of {what}")
    first_output = len(names) - n_out
    if any(names.index(n) >= first_output for n in in_out):
        raise ValueError("in_out arguments should be placed before output-only arguments "
                         f"(the last {n_out} parameters of {what} are its outputs)")
    params = []
    for k, (name, t) in enumerate(zip(names, types_)):
        role = "output" if k >= first_output else "in_out" if name in in_out else "input"
        p = Parameter(name, t, role)
        if role != "input" and not p.is_array:
            raise TypeError(f"output `{name}` of {what} must be a wp.array, got {T.type_name(t)}")
        params.append(p)
    return params


def _jax_shape(p: Parameter, dims: tuple) -> tuple:
    return tuple(dims) + T.numpy_inner_shape(p.type.dtype)


def _dims(value) -> tuple:
    return (int(value),) if np.ndim(value) == 0 else tuple(int(d) for d in value)


class JaxOperation:
    """The callable `jax_kernel` / `jax_callable` return: call it with the JAX inputs (arrays and
    static scalars), get the list of outputs (in-out arrays first)."""

    def __init__(self, params: list[Parameter], run, what: str, launch_dims=None, output_dims=None,
                 vmap_method="broadcast_all", backward=None):
        self.params, self.run, self.what = params, run, what
        self.launch_dims, self.output_dims, self.vmap_method = launch_dims, output_dims, vmap_method
        self.backward = backward  # run(inputs, outputs, input grads, output grads) or None
        self.refusal = None  # why every call is refused (a CUDA-only option on the CPU), or None
        self.uses_thread_index = None  # () -> whether the compiled kernel reads wp.tid() (None: assume so)

    def __call__(self, *args, launch_dims=None, output_dims=None, vmap_method=None):
        import jax
        if self.backward is not None:  # the custom_vjp fixes them when the wrapper is made, as in Warp
            for name, value, why in (("launch_dims", launch_dims, "launch_dims cannot be overridden per-call"),
                                     ("output_dims", output_dims, "output_dims is not supported"),
                                     ("vmap_method", vmap_method, "vmap_method cannot be overridden per-call")):
                if value is not None:
                    raise TypeError(f"{self.what} was made with enable_backward=True: {why}; give {name} to "
                                    "jax_kernel(...) instead")
        if self.refusal is not None:
            raise RuntimeError(self.refusal)
        if not _public().is_cpu_available():
            raise RuntimeError(f"{self.what}: this warp_nb does not include CPU support (no C++ compiler was found); "
                               "install g++ or clang")
        inputs = [p for p in self.params if p.role != "output"]
        if len(args) != len(inputs):
            raise TypeError(f"{self.what} takes {len(inputs)} inputs ({', '.join(p.name for p in inputs)}), "
                            f"got {len(args)}")
        statics, traced = {}, []
        for p, value in zip(inputs, args):
            if p.is_array:
                traced.append(_checked_input(self.what, p, value))
            elif isinstance(value, jax.core.Tracer):
                raise TypeError(f"scalar argument `{p.name}` of {self.what} must be static: pass a Python value, "
                                f"or mark it static (jax.jit(..., static_argnames=['{p.name}']))")
            else:
                statics[p.name] = value
        dims = self._launch_dims(launch_dims, traced, inputs)
        shapes = self._output_shapes(dims, output_dims if output_dims is not None else self.output_dims, traced, inputs)
        method = "sequential"  # each vmapped slice is one launch (see docs/compat.md)
        del vmap_method
        if self.backward is None:
            return list(_forward(self, statics, dims, shapes, method)(*traced))
        return list(_differentiable(self, statics, dims, shapes, method)(*traced))

    # --- shapes ----------------------------------------------------------------------------
    def _launch_dims(self, given, traced, inputs) -> tuple:
        dims = given if given is not None else self.launch_dims
        if dims is None:
            arrays = [(p, x) for p, x in zip([p for p in inputs if p.is_array], traced)]
            if not arrays:
                raise ValueError(f"{self.what} has no array input to take its launch dimensions from: pass "
                                 "launch_dims=")
            p, x = arrays[0]
            inner = T.numpy_inner_shape(p.type.dtype)
            dims = tuple(x.shape[: len(x.shape) - len(inner)])
        dims = _dims(dims)
        for axis, extent in enumerate(dims):
            # only a kernel that reads wp.tid() needs 32-bit extents (asked only then: it compiles)
            if extent > _TID_LIMIT and (self.uses_thread_index is None or self.uses_thread_index()):
                raise ValueError(f"Warp cannot launch a kernel using wp.tid() with extent {extent} in dimension "
                                 f"{axis}: thread indices are 32-bit (at most {_TID_LIMIT})")
        return dims

    def _output_shapes(self, dims, output_dims, traced, inputs) -> list:
        import jax
        by_name = dict(zip([p.name for p in inputs if p.is_array], traced))
        shapes = []
        for p in (p for p in self.params if p.role == "in_out"):
            x = by_name[p.name]
            shapes.append(jax.ShapeDtypeStruct(x.shape, x.dtype))
        for p in (p for p in self.params if p.role == "output"):
            if isinstance(output_dims, dict):
                d = _dims(output_dims[p.name]) if p.name in output_dims else dims
            else:
                d = _dims(output_dims) if output_dims is not None else dims
            if len(d) > p.type.ndim:  # given with the element's own dimensions (a (n, 2) shape for n vec2)
                d = d[: p.type.ndim]
            if len(d) < p.type.ndim:  # e.g. a 3-d launch over 4-d arrays: the output is shaped as such an input
                like = [x.shape for q, x in by_name.items() if len(x.shape) - len(_inner(self, q)) == p.type.ndim]
                if not like:
                    raise ValueError(f"output `{p.name}` of {self.what} has {p.type.ndim} dimensions but the launch "
                                     f"has {len(d)} ({d}); pass output_dims={{'{p.name}': shape}}")
                d = like[0][: p.type.ndim]
            shapes.append(jax.ShapeDtypeStruct(_jax_shape(p, d), dtype_to_jax(T.scalar_type_of(p.type.dtype))))
        return shapes


def _public():
    import warp_nb  # Warp's tests replace wp.is_cpu_available with a mock: look it up at call time
    return warp_nb


def _checked_input(what: str, p: Parameter, x):
    """A JAX array argument checked against its parameter before it is traced: the kernel would
    read a float64 buffer as float32 without complaint."""
    import jax.numpy as jnp
    scalar = T.scalar_type_of(p.type.dtype)
    inner = T.numpy_inner_shape(p.type.dtype)
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):  # a list or a Python number: as JAX would see it
        x = jnp.asarray(x)
    shape, dtype = tuple(x.shape), jnp.dtype(x.dtype)
    if dtype != jnp.dtype(dtype_to_jax(scalar)):
        raise TypeError(f"argument `{p.name}` of {what} is a {p.type.type_name()}, got a JAX array of {dtype}; "
                        f"convert it (x.astype(jnp.{jnp.dtype(dtype_to_jax(scalar)).name}))")
    if len(shape) != p.type.ndim + len(inner) or shape[len(shape) - len(inner):] != inner:
        want = f"{p.type.ndim} dimension(s)" + (f" followed by {inner} for {T.type_name(p.type.dtype)}" if inner else "")
        raise TypeError(f"argument `{p.name}` of {what} is a {p.type.type_name()}: it needs {want}, got shape {shape}")
    return x


def _inner(op: JaxOperation, name: str) -> tuple:
    return T.numpy_inner_shape(next(p for p in op.params if p.name == name).type.dtype)


def _wp_array(p: Parameter, value: np.ndarray, copy: bool) -> array:
    """A warp_nb view of a callback buffer (a writable copy for in-out arrays and for adjoints,
    which the kernel writes). A view, not wp.array(data): bfloat16 buffers must keep their bits."""
    data = np.array(value, copy=True) if copy else np.ascontiguousarray(value)
    inner = T.numpy_inner_shape(p.type.dtype)
    shape = data.shape[: data.ndim - len(inner)] or (1,)
    return array(ptr=data.ctypes.data, dtype=p.type.dtype, shape=shape, owner=data)


def _to_jax_buffer(a: array, like) -> np.ndarray:
    out = a.numpy().reshape(like.shape)
    if out.dtype != like.dtype and out.dtype.itemsize == np.dtype(like.dtype).itemsize and \
            T.scalar_type_of(a.dtype) is T.bfloat16:
        return out.view(like.dtype)  # warp_nb's numpy view of bfloat16 is its 16-bit patterns
    return out.astype(like.dtype, copy=False)


def _launch_args(op: JaxOperation, statics: dict, buffers, shapes) -> tuple[list, list]:
    buffers = list(buffers)
    args, outputs, k = [], [], 0
    for p in op.params:
        if p.role == "output":
            out = array(shape=shapes[len(outputs)].shape[: p.type.ndim], dtype=p.type.dtype)
            args.append(out)
            outputs.append(out)
        elif p.is_array:
            a = _wp_array(p, buffers[k], copy=p.role == "in_out")
            k += 1
            args.append(a)
            if p.role == "in_out":
                outputs.insert(sum(q.role == "in_out" for q in op.params[: op.params.index(p)]), a)
        else:
            args.append(statics[p.name])
    return args, outputs


def _forward(op: JaxOperation, statics, dims, shapes, method):
    import jax

    def host(*buffers):
        args, outputs = _launch_args(op, statics, buffers, shapes)
        op.run(args, dims)
        return tuple(_to_jax_buffer(o, s) for o, s in zip(outputs, shapes))

    def call(*traced):
        outs = jax.pure_callback(host, tuple(shapes), *traced, vmap_method=method)
        return _varying_like(outs, traced)

    return call


def _varying_like(outs, traced):
    """Inside shard_map, outputs vary over the mesh axes their inputs vary over (JAX's check_vma);
    a callback's results vary over none, so they are cast, as Warp's FFI outputs inherit them."""
    import jax
    axes: set = set()
    for x in traced:
        manual = getattr(jax.typeof(x), "manual_axis_type", None) if hasattr(jax, "typeof") else None
        axes |= set(getattr(manual, "varying", ()) or ())
    if not axes or not hasattr(jax.lax, "pcast"):
        return outs
    return tuple(jax.lax.pcast(o, tuple(sorted(axes)), to="varying") for o in outs)


def _differentiable(op: JaxOperation, statics, dims, shapes, method):
    """The forward call wrapped in a custom_vjp whose backward launches the kernel's adjoint: the
    input gradients start at zero and the output cotangents seed the output gradients."""
    import jax

    forward = _forward(op, statics, dims, shapes, method)
    array_inputs = [p for p in op.params if p.role == "input" and p.is_array]

    def grads_host(*buffers):
        n = len(array_inputs)
        inputs, outs, cotangents = buffers[:n], buffers[n: n + len(shapes)], buffers[n + len(shapes):]
        args, adj_args, grads, k, j = [], [], [], 0, 0
        for p in op.params:
            if p.role == "output":  # the forward's result, and its cotangent as the output's adjoint
                args.append(_wp_array(p, outs[j], copy=True))
                adj_args.append(_wp_array(p, cotangents[j], copy=True))
                j += 1
            elif p.is_array:
                args.append(_wp_array(p, inputs[k], copy=False))
                grads.append(array(shape=args[-1].shape, dtype=p.type.dtype))
                adj_args.append(grads[-1])
                k += 1
            else:
                args.append(statics[p.name])
                adj_args.append(None)
        op.backward(args, adj_args, dims)
        return tuple(_to_jax_buffer(g, x) for g, x in zip(grads, inputs))

    def grad_shapes(traced):
        return tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in traced)

    @jax.custom_vjp
    def call(*traced):
        return forward(*traced)

    def call_fwd(*traced):
        outs = forward(*traced)
        return outs, (traced, outs)

    def call_bwd(saved, cotangents):
        traced, outs = saved
        float_inputs = [jax.numpy.issubdtype(x.dtype, jax.numpy.floating) for x in traced]
        grads = jax.pure_callback(grads_host, grad_shapes(traced), *traced, *outs, *cotangents, vmap_method=method)
        grads = _varying_like(grads, traced)
        return tuple(g if is_float else None for g, is_float in zip(grads, float_inputs))

    call.defvjp(call_fwd, call_bwd)
    return call
