"""Array builtins (array.h, atomic.h, select.h): atomics on array elements, len, and the
value selection builtins. Element reads and writes themselves are syntax (a[i]), emitted by
the compiler, not builtins."""

from .. import types as T
from .registry import ANY_SCALAR, INT, NUMERIC, AnyType, Array, Exact, Scalar, Vec, builtin, ov, same

D = AnyType("D")
IDX = Scalar("I", INT)


def _atomic_overloads(extra_values: int, value_pattern, names):
    out = []
    for ndim in (1, 2, 3, 4):
        idx = tuple(Scalar(f"I{k}", INT) for k in range(ndim))
        out.append(ov(Array(value_pattern, ndim), *idx, *([value_pattern] * extra_values), ret=same("D"),
                      names=("arr",) + tuple("ijkl"[:ndim]) + names))
    return out


_numeric = AnyType("D", accept=lambda t: T.is_scalar_type(t) and t._kind != "bool"
                   or (T.kind_of(t) in ("vector", "matrix", "quaternion", "transformation")
                       and t._wp_scalar_type_ is not T.bool))  # composites: componentwise, as Warp
_ordered = AnyType("D", accept=lambda t: (T.is_scalar_type(t) and t._kind != "bool")
                   or T.kind_of(t) in ("vector", "matrix"))
_a = dict(header="arrays/atomic.h", category="atomic")


def _atomic_scalar_check(name: str, allowed: tuple, allowed_text: str):
    """Warp refuses atomics on 8- and 16-bit integers (and min/max on float16), which have no
    hardware atomic on GPUs: the same refusal, with Warp's message, on every target."""
    def check(arg_types):
        dtype = arg_types[0].dtype
        scalar = T.scalar_type_of(dtype) or dtype
        if T.canonical_scalar(scalar) in allowed:
            return None
        return (f"{name}() operations only work on arrays with {allowed_text} as the underlying scalar types, "
                f"but got {T.type_repr(dtype)} (with scalar type {T.type_repr(scalar)})")
    return check


_WIDE = (T.int32, T.uint32, T.int64, T.uint64, T.bfloat16, T.float32, T.float64)
_SUMMABLE_TEXT = "[u]int32, [u]int64, float16, bfloat16, float32, or float64"
_ORDERED_TEXT = "[u]int32, [u]int64, bfloat16, float32, or float64"

builtin("atomic_add", *_atomic_overloads(1, _numeric, ("value",)),
        check=_atomic_scalar_check("atomic_add", _WIDE + (T.float16,), _SUMMABLE_TEXT), side_effects=True, atomic="add",
        doc="arr[i] += value atomically; returns the old value. `a[i] += x` in a kernel does this too.", **_a)
builtin("atomic_sub", *_atomic_overloads(1, _numeric, ("value",)),
        check=_atomic_scalar_check("atomic_sub", _WIDE + (T.float16,), _SUMMABLE_TEXT), side_effects=True, atomic="sub",
        doc="arr[i] -= value atomically; returns the old value. `a[i] -= x` in a kernel does this too.", **_a)
builtin("atomic_min", *_atomic_overloads(1, _ordered, ("value",)),
        check=_atomic_scalar_check("atomic_min", _WIDE, _ORDERED_TEXT), side_effects=True, atomic="min",
        replayable=True, doc="arr[i] = min(arr[i], value) atomically (componentwise for vectors); returns the old value. "
            "The gradient goes to the value that ends up stored.", **_a)
builtin("atomic_max", *_atomic_overloads(1, _ordered, ("value",)),
        check=_atomic_scalar_check("atomic_max", _WIDE, _ORDERED_TEXT), side_effects=True, atomic="max",
        replayable=True, doc="arr[i] = max(arr[i], value) atomically (componentwise for vectors); returns the old value.", **_a)
_integers = AnyType("D", accept=lambda t: T.is_int_type(T.scalar_type_of(t) or t)
                    and (T.is_scalar_type(t) or T.kind_of(t) in ("vector", "matrix")))
for _op, _sym in (("and", "&"), ("or", "|"), ("xor", "^")):
    builtin(f"atomic_{_op}", *_atomic_overloads(1, _integers, ("value",)), side_effects=True, differentiable=False,
            atomic=_op, doc=f"arr[i] = arr[i] {_sym} value atomically (componentwise for integer vectors and "
                            f"matrices); returns the old value. `a[i] {_sym}= x` in a kernel does this too.", **_a)
builtin("atomic_cas", *_atomic_overloads(2, AnyType("D", accept=T.is_scalar_type), ("compare", "value")),
        side_effects=True, differentiable=False, atomic="cas",
        doc="If arr[i] == compare, store value; atomically. Returns the old value.", **_a)
builtin("atomic_exch", *_atomic_overloads(1, AnyType("D", accept=T.is_scalar_type), ("value",)), side_effects=True,
        differentiable=False, atomic="exch", doc="Store value in arr[i] atomically and return the old value.", **_a)

builtin("len", ov(Array(D, "ndim"), ret=T.int32), ov(Vec("n", Scalar("T", ANY_SCALAR)), ret=T.int32),
        header="arrays/array.h", category="array", differentiable=False,
        doc="Length of the first dimension of an array, or the number of components of a vector.")

builtin("array_is_valid", ov(Array(D, "ndim"), ret=T.bool), header="arrays/array.h", category="array",
        differentiable=False, export=False,
        doc="Whether an array argument holds an array (False when None was passed): what "
            "`if a:` and `not a` test in a kernel.")

builtin("grad_view", ov(Array(D, "ndim"), ret=Array(D, "ndim")), header="arrays/array.h", category="array",
        differentiable=False, export=False,
        doc="The gradient of an array seen as an array of its own: wp.adjoint[a] for an array parameter `a` of a "
            "@wp.func_grad function (adding into it adds into a's gradient).")

C = Scalar("C", ANY_SCALAR)
builtin("where", ov(C, AnyType("A"), AnyType("A"), ret=same("A"), names=("cond", "value_if_true", "value_if_false")),
        header="core/select.h", category="control",
        doc="value_if_true if cond is nonzero, else value_if_false. Both are evaluated.")
builtin("select", ov(C, AnyType("A"), AnyType("A"), ret=same("A"), names=("cond", "value_if_false", "value_if_true")),
        header="core/select.h", category="control",
        doc="value_if_false if cond is zero, else value_if_true (Warp's older argument order).")


# array_search.h: binary search and CDF sampling
_S = Scalar("T", NUMERIC)
builtin("lower_bound", ov(Array(_S, 1), _S, ret=T.int32, names=("arr", "value")),
        ov(Array(_S, 1), Exact(T.int32), Exact(T.int32), _S, ret=T.int32, names=("arr", "arr_begin", "arr_end", "value")),
        header="arrays/array_search.h", category="array", differentiable=False,
        doc="The first index (in [arr_begin, arr_end), default the whole array) whose element is not less than "
            "value; the array must be sorted ascending. A value above every element gives the last index "
            "(arr_end - 1), as Warp.")
builtin("sample_cdf", ov(Exact(T.uint32), Array(Exact(T.float32), 1), ret=T.int32, names=("state", "cdf")),
        inout=(0,), header="arrays/array_search.h", category="random", differentiable=False,
        doc="An index drawn from the ascending CDF table: lower_bound(cdf, u) for a uniform u in [0, 1). "
            "Advances state.")

del NUMERIC, Exact, IDX
