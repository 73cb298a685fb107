"""Tiles of @wp.struct values, for `typecheck`: `+` and `-` between struct tiles (and between a
struct tile element and a struct value in `t[i] += v`), field by field as Warp defines them
(emit/struct_ops.py writes the C++), and Warp's refusals of what structs do not have (bitwise
operators, ones, orderings). A mixin of FunctionTyper over TileForms."""

from __future__ import annotations

from . import ir
from . import syntax as S
from .. import types as T
from ..errors import KernelTypeError
from ..types.tiles import TileType
from .typecheck_tile import TileForms

_BITWISE = {"bit_and": "&", "bit_or": "|", "bit_xor": "^"}
_FIELDWISE = {"add": "+", "sub": "-"}


def is_struct(t) -> bool:
    return getattr(t, "_wp_struct_", False)


class TileStructs(TileForms):
    def struct_tile_op(self, op: str, operands: list, node):
        """`a op b` where a tile's elements are structs: add and sub field by field; None when no
        operand is a struct tile or struct value."""
        elements = [v.type.dtype if _is_tile(v) else getattr(v, "type", None) for v in operands]
        structs = [e for e in elements if is_struct(e)]
        if not structs:
            return None
        name = T.type_name(structs[0])
        if op in _BITWISE:
            self.error(KernelTypeError, f"bitwise inplace operator {_BITWISE[op]}= is not supported on tiles of Warp "
                                        f"struct type {name} (a struct has no bitwise value)", node)
        if op not in _FIELDWISE or len(operands) != 2 or any(e != structs[0] for e in elements):
            got = ", ".join(T.type_name(e) for e in elements)
            self.error(KernelTypeError, f"tile {op}: a tile of Warp struct {name} supports only + and - with "
                                        f"another of the same struct, got ({got})", node)
        shape = next(v.type.shape for v in operands if _is_tile(v))
        spread = [v if _is_tile(v) else self.spread(v, v.type, shape, node) for v in operands]
        return self.map_call(f"wpnb::{op}", structs[0], spread, node)

    def struct_element_update(self, op: str, target, current, value, node):
        """t[i] op= v on a tile of structs (a value, not an atomic): the updated element, or None
        when the target is not such an element."""
        if not (isinstance(target, S.Subscript) and isinstance(current, ir.Var) and is_struct(current.type)):
            return None
        base = self.expr(target.value)
        if not _is_tile(base):
            return None
        name = T.type_name(current.type)
        if op in _BITWISE:
            self.error(KernelTypeError, f"bitwise inplace operator {_BITWISE[op]}= is not supported on elements "
                                        f"of a tile of Warp struct type {name}", node)
        if op not in _FIELDWISE or not (isinstance(value, ir.Var) and value.type == current.type):
            self.error(KernelTypeError, f"a tile element of Warp struct {name} supports only += and -= with a value "
                                        f"of the same struct, got {self.describe(value)}", node)
        return self.tile_call("tile_map", f"wpnb::{op}", current.type, node, (current, value))

    def refuse_struct_tile(self, name: str, dtype, node, why: str) -> None:
        """Warp's refusal of a tile builtin that has no meaning for struct elements."""
        if is_struct(dtype):
            self.error(KernelTypeError, f"{name}() does not support Warp struct data types ({T.type_name(dtype)}): "
                                        f"{why}", node)


def _is_tile(v) -> bool:
    return isinstance(v, ir.Var) and isinstance(v.type, TileType)
