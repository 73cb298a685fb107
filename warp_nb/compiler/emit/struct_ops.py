"""Field-wise arithmetic on @wp.struct values, for tiles of structs: `add`, `sub` and
`atomic_elem_add` (t + u, tile_sum, tile_atomic_add on a struct tile), and the adjoints of add
and sub. Fields of a type that has no atomic add on CUDA (bool, 8- and 16-bit integers) and
array fields are carried from the first operand (the destination for atomics), never summed, as
Warp does. Knows C++; one section per struct so that units compiled together define each once."""

from __future__ import annotations

from ... import types as T
from .cpp import _local, field_name, struct_name

_SUMMED_INTS = (T.int32, T.uint32, T.int64, T.uint64)


def _summed(t) -> bool:
    """Whether a field of type t takes part in field-wise sums."""
    if getattr(t, "_wp_struct_", False):
        return True
    kind = T.kind_of(t)
    if kind in ("vector", "matrix", "quaternion", "transformation"):
        t = t._wp_scalar_type_
    elif kind:
        return False
    return T.is_scalar_type(t) and (T.is_float_type(t) or t in _SUMMED_INTS)


def struct_ops(s, atomics: bool) -> tuple:
    """(key, text) of the forward operations of struct s (atomic_elem_add when the unit has atomics)."""
    name = _local(struct_name(s))
    fields = [field_name(n) for n, t in s.fields.items() if _summed(t)]
    lines = []
    for op in ("add", "sub"):
        body = " ".join(f"r.{f} = {op}(a.{f}, b.{f});" for f in fields)
        lines.append(f"WPNB_FN {name} {op}(const {name}& a, const {name}& b) {{ {name} r = a; {body} return r; }}")
    if atomics:
        body = " ".join(f"atomic_elem_add(&p->{f}, v.{f});" for f in fields)
        lines.append(f"WPNB_FN {name} atomic_elem_add({name}* p, const {name}& v) {{ {name} old = *p; {body} "
                     "return old; }")
    return f"struct-ops:{struct_name(s)}:{int(atomics)}", "namespace wpnb {\n" + "\n".join(lines) + "\n}\n"


def struct_adjoint_ops(s) -> tuple:
    """(key, text) of adj_add / adj_sub of struct s, field by field (after its accumulate)."""
    name = _local(struct_name(s))
    fields = [field_name(n) for n, t in s.fields.items() if _summed(t)]
    lines = []
    for op in ("add", "sub"):
        body = " ".join(f"adj_{op}(a.{f}, b.{f}, adj_a.{f}, adj_b.{f}, adj_ret.{f});" for f in fields)
        lines.append(f"WPNB_FN void adj_{op}(const {name}& a, const {name}& b, {name}& adj_a, {name}& adj_b, "
                     f"const {name}& adj_ret) {{ {body} }}")
    return f"struct-adjoint-ops:{struct_name(s)}", "namespace wpnb {\n" + "\n".join(lines) + "\n}\n"
