"""`wp.map(func, *inputs, out=None)`: a function applied to every element of its array inputs, as
Warp's `warp.map`. `func` is a @wp.func, a builtin (wp.add, wp.where ...) or a Python lambda or
function whose body a @wp.func could have; the other inputs may be single values. Arrays broadcast
as numpy's do (shapes aligned on the right, a dimension of 1 stretched); the outputs (one per result
of `func`) are new arrays of the broadcast shape, or the arrays given as `out`.

Written as users write warp_nb: the work is a generated kernel, one per function, input types and
broadcast pattern, made from source text (kept in linecache, as for any kernel) and cached here; the
result types come from typing a probe kernel (the front half of the pipeline, no C++ compiler)."""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import textwrap
from typing import Any

import numpy as np

import warp_nb as wp

from ..types.array_family import annotation_of, native_family
from ..types.array_type import IndexedArrayType
from ..builtins import registry
from ..builtins.registry import Builtin
from ..types.array_type import ArrayType
from ..compiler.function_source import extract_lambda_source

#: (function, input types, broadcast pattern, output types, ndim) -> generated kernel (Warp's `map_cache`)
map_cache: dict = {}
_KERNELS = map_cache
_WRAPPERS: dict = {}  # a Python function's text and captured values -> the @wp.func made from it
_RESULTS: dict = {}  # (function, input types, broadcast pattern, ndim) -> its result types
_COUNTER = itertools.count()


def map(func, *inputs, out=None, return_kernel: bool = False, block_dim: int | None = None, device=None):  # noqa: A001
    """Apply `func` elementwise to `inputs` (see the module docstring). Returns the output array, a
    list of them when `func` gives several results, or with return_kernel=True the kernel itself
    (parameters: the inputs, then the outputs), without launching it."""
    arrays = [a for a in inputs if _is_array(a)]
    if not arrays:
        raise ValueError("map requires at least one warp.array input")
    expected = _argument_count(func)
    if expected is not None and expected != len(inputs):
        raise TypeError(f"Number of input arguments ({len(inputs)}) does not match expected number of function "
                        f"arguments ({expected})")
    shape = _broadcast_shape([a.shape for a in arrays])
    device = wp.get_device(device) if device is not None else arrays[0].device
    in_types = tuple(_value_type(a) for a in inputs)
    pattern = tuple(_broadcast_pattern(a.shape, shape) if _is_array(a) else None for a in inputs)
    wrapper = _wrapper(func)
    results = _result_types(wrapper, func, in_types, pattern, len(shape), device)
    outputs = _outputs(out, results, shape, device, requires_grad=any(getattr(a, "requires_grad", False)
                                                                       for a in arrays))
    out_types = tuple(_value_type(o) for o in outputs)
    kernel = _map_kernel(wrapper, in_types, pattern, out_types, len(shape))
    if return_kernel:
        return kernel
    wp.launch(kernel, dim=shape, inputs=list(inputs), outputs=outputs, device=device, block_dim=block_dim)
    if out is not None:
        return out
    return outputs[0] if len(outputs) == 1 else outputs


# --- the function ---------------------------------------------------------------------------
def _is_array(a) -> bool:
    """An array of any family (through an application's subclasses); not a class."""
    return not isinstance(a, type) and native_family(a) is not None


def _argument_count(func) -> int | None:
    if isinstance(func, Builtin):
        return None  # overloads of several arities (wp.clamp, wp.where ...): typing says
    if getattr(func, "_wp_func_", False):
        fn = func.overloads[0].fn if getattr(func, "overloads", None) else func.func
        return fn.__code__.co_argcount
    if callable(func) and hasattr(func, "__code__"):
        return func.__code__.co_argcount
    raise TypeError(f"wp.map takes a @wp.func, a builtin or a Python function, got {type(func).__name__}")


def _name(func) -> str:
    fn = getattr(func, "func", func)
    qual = getattr(fn, "__qualname__", None) or getattr(func, "key", None) or getattr(func, "name", "func")
    return qual.replace(".<locals>.", "__locals__").replace("<lambda>", "lambda").replace(".", "__")


def _wrapper(func):
    """What the generated kernel calls: a @wp.func or builtin itself; for a Python function, a
    @wp.func made from its body, shared by functions of the same text and captured values (two
    lambdas written alike give one kernel)."""
    if isinstance(func, Builtin) or getattr(func, "_wp_func_", False):
        return func
    params = list(func.__code__.co_varnames[:func.__code__.co_argcount])
    captured = ()
    if func.__closure__:
        captured = tuple(zip(func.__code__.co_freevars, (c.cell_contents for c in func.__closure__)))
    body = _python_body(func)
    key = (body, tuple(params), _hashable(captured), id(func.__globals__))
    found = _WRAPPERS.get(key)
    if found is not None:
        return found
    namespace = dict(func.__globals__)
    namespace.update(captured)
    n = next(_COUNTER)
    name = f"wp_map_{n}_{_name(func)}"
    source = f"def {name}({', '.join(params)}):\n    return (\n{body}\n    )\n"
    filename = f"<wp.map of {_name(func)} #{n}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (a function's own source)
    found = _WRAPPERS[key] = wp.func(namespace[name])
    return found


def _hashable(items):
    try:
        hash(items)
        return items
    except TypeError:
        return tuple((k, repr(v)) for k, v in items)


def _builtin_arity(func) -> int:
    counts = {len(o.params) for o in func.overloads}
    return min(counts)


def _python_body(func) -> str:
    """The expression a lambda returns, or the one `return` of a plain function's body."""
    if func.__name__ == "<lambda>":
        text = extract_lambda_source(func, only_body=True)
        if text is None:
            raise TypeError("wp.map: cannot read the source of this lambda")
        return text
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    fdef = tree.body[0]
    if len(fdef.body) == 1 and isinstance(fdef.body[0], ast.Return) and fdef.body[0].value is not None:
        return ast.unparse(fdef.body[0].value)
    raise TypeError("wp.map takes a plain Python function whose body is one return statement; "
                    "decorate longer functions with @wp.func")


# --- types and shapes -----------------------------------------------------------------------
def _value_type(v):
    """The kernel parameter type of a map input or output."""
    if _is_array(v):  # its family's annotation: a subclass shares its parent's kernel
        return annotation_of(v)
    if isinstance(v, bool):
        return wp.bool
    if isinstance(v, int):
        return wp.int32
    if isinstance(v, float):
        return wp.float32
    if isinstance(v, np.generic):
        return wp.dtype_from_numpy(v.dtype)
    return type(v) if not hasattr(v, "_struct_type") else v._struct_type


def _broadcast_shape(shapes) -> tuple:
    out = ()
    for s in shapes:
        try:
            out = np.broadcast_shapes(out, tuple(s))
        except ValueError:
            raise ValueError(f"Shapes {tuple(out)} and {tuple(s)} are not broadcastable") from None
    return tuple(int(d) for d in out)


def _broadcast_pattern(shape, full) -> tuple:
    """For each dimension of an input: the index of the launch's dimension it follows, or None
    where the input has size 1 and the launch more (it is read at 0)."""
    offset = len(full) - len(shape)
    return tuple(None if s == 1 and full[offset + k] != 1 else offset + k for k, s in enumerate(shape))


def _index_text(name: str, pattern, ndim: int) -> str:
    if pattern is None:
        return name
    idx = ", ".join("0" if d is None else f"i{d}" for d in pattern)
    return f"{name}[{idx}]"


def _kernel_source(name, wrapper_name, n_in, pattern, n_out, ndim, in_names, out_names) -> str:
    params = ", ".join([f"a{k}: {t}" for k, t in enumerate(in_names)] + [f"out{k}: {t}" for k, t in
                                                                          enumerate(out_names)])
    tid = ", ".join(f"i{d}" for d in range(ndim))
    args = ", ".join(_index_text(f"a{k}", pattern[k], ndim) for k in range(n_in))
    lines = [f"def {name}({params}):", f"    {tid} = wp.tid()" if ndim > 1 else "    i0 = wp.tid()"]
    if n_out == 0:
        lines.append(f"    {wrapper_name}({args})")
    else:
        results = ", ".join(f"r{k}" for k in range(n_out))
        lines.append(f"    {results} = {wrapper_name}({args})")
        here = ", ".join(f"i{d}" for d in range(ndim))
        lines += [f"    out{k}[{here}] = r{k}" for k in range(n_out)]
    return "\n".join(lines) + "\n"


def _make_kernel(wrapper, in_types, pattern, out_types, ndim, what: str):
    n = next(_COUNTER)
    name = f"wp_map_{what}_{n}"
    namespace = {"wp": wp, "fn": wrapper, "Any": Any}
    namespace.update({f"T{k}": t for k, t in enumerate(in_types)})
    namespace.update({f"O{k}": t for k, t in enumerate(out_types)})
    source = _kernel_source(name, "fn", len(in_types), pattern, len(out_types), ndim,
                            [f"T{k}" for k in range(len(in_types))], [f"O{k}" for k in range(len(out_types))])
    filename = f"<wp.map kernel {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (text built above from types)
    return wp.Kernel(namespace[name], key=name, module="unique")


def _result_types(wrapper, func, in_types, pattern, ndim, device) -> tuple:
    """The types `func` returns for these inputs: a builtin's from the registry; a function's from
    typing a kernel that only calls it (the front half of the pipeline; no C++ compiler runs)."""
    key = (wrapper, in_types, pattern, ndim)
    found = _RESULTS.get(key)
    if found is not None:
        return found
    elem = [t.dtype if isinstance(t, (ArrayType, IndexedArrayType)) else t for t in in_types]
    unsupported = TypeError(f"Function {_name(func)} does not support the provided argument types "
                            f"{', '.join(wp.types.type_repr(t) for t in elem)}")
    if isinstance(wrapper, Builtin):
        resolved = registry.resolve(wrapper, elem)
        if resolved is None:
            raise unsupported
        result = resolved.result
    else:
        front = _make_kernel(wrapper, in_types, pattern, (), ndim, "probe").translate(device)
        if front is None:
            raise unsupported
        inst = next((f for f in front.typed.funcs if f.func is wrapper), None)
        result = None if inst is None else inst.return_type
    if result is None:
        raise TypeError("The provided function must return a value")
    items = getattr(result, "items", None)
    found = _RESULTS[key] = tuple(items) if items is not None else (result,)
    return found


def _outputs(out, results, shape, device, requires_grad) -> list:
    if out is None:
        return [wp.empty(shape, dtype=t, device=device, requires_grad=requires_grad) for t in results]
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(results) > 1 and len(outs) == 1 and _is_array(outs[0]):
        dtypes = ", ".join(wp.types.type_repr(t) for t in results)
        raise TypeError(f"Invalid output provided, expected {len(results)} Warp arrays with shape {shape} and "
                        f"dtypes ({dtypes})")
    if len(outs) != len(results):
        raise TypeError(f"Number of provided output arrays ({len(outs)}) does not match expected number of "
                        f"function outputs ({len(results)})")
    for k, (o, t) in enumerate(zip(outs, results)):
        which = f"Output array {k}" if len(outs) > 1 else "Output array"
        if tuple(o.shape) != shape:
            raise TypeError(f"{which} shape {tuple(o.shape)} does not match expected shape {shape}")
        if not wp.types.types_equal(o.dtype, t):
            raise TypeError(f"{which} dtype {wp.types.type_repr(o.dtype)} does not match expected dtype "
                            f"{wp.types.type_repr(t)}")
    return outs


def _map_kernel(wrapper, in_types, pattern, out_types, ndim):
    key = (wrapper, in_types, pattern, out_types, ndim)
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = _make_kernel(wrapper, in_types, pattern, out_types, ndim, "kernel")
    return found
