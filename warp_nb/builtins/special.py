"""Builtins whose typing is not a fixed signature: each names the typechecker's rule that types it
(`form="tid"`: the method `form_tid` of compiler/typecheck_calls.py). Declared here like every other
builtin, for documentation, stubs and `wp.<name>`."""

from .registry import builtin


def _index_from_python(*args):
    """Warp's wp.index has no Python-scope form (index the value itself there: v[i], m[i][j])."""
    from .python_results import type_name_of
    raise RuntimeError(f"Couldn't find a function 'index' compatible with the arguments "
                       f"'{', '.join(type_name_of(a) for a in args)}'")


_s = dict(header="core/prelude.h", category="special")
builtin("tid", doc="The index of this thread: an int for 1-D launches; unpack `i, j = wp.tid()` for 2-D, up to 4-D.",
        differentiable=False, form="tid", **_s)
builtin("printf", doc='printf-style output from a kernel: wp.printf("%d %f\\n", i, x).', side_effects=True,
        differentiable=False, form="printf", **_s)
builtin("print", doc="Print a value from a kernel, as Python's print() there does: vectors as components each followed "
                       "by a space, matrices one row a line. A backward pass prints the value again, then "
                       "`adj: <its adjoint>`, as Warp's does (not for a print() in a dynamic loop).", side_effects=True,
        differentiable=False,
        python=lambda *values: print(*values), form="print", **_s)
builtin("static", doc="wp.static(expr): evaluate a Python expression once, when the kernel is compiled.",
        differentiable=False, python=lambda value: value, form="static", **_s)
builtin("cast", doc="wp.cast(a, dtype): the bits of `a` read as a value of type `dtype` (a scalar, vector, matrix or "
                      "struct type of the same size in bytes), e.g. wp.cast(wp.int32(0x3FA00000), wp.float32) == 1.25.",
        differentiable=False, cpp="wpnb::bit_cast", form="cast", **_s)
builtin("address_of", doc="wp.address_of(x): the address (a uint64) of x's storage, for a @wp.func_native snippet to "
                            "read or write through: x is a variable, an array element, a struct field or a component.",
        differentiable=False, form="address_of", **_s)
builtin("index", doc="wp.index(a, i) or wp.index(a, i, j): the component a[i] or a[i, j] of a vector, matrix, "
                       "quaternion or transformation, as a subscript reads it (differentiable the same way). Kernels "
                       "only, as in Warp: from Python, index the value itself.",
        python=_index_from_python, form="index", **_s)
