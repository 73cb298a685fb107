"""Tile computations element by element, for `typecheck`: operators between tiles (and tiles and
values) of any element type, wp.tile_map(f, a[, b]) with a builtin or @wp.func as a small generic
lambda around the callee, and tiles of @wp.struct values (`+` and `-` field by field as Warp
defines them, emit/struct_ops.py writing the C++; Warp's refusals of bitwise operators, ones and
orderings on structs). A mixin of FunctionTyper."""

from __future__ import annotations

from . import ir, syntax as S
from .. import types as T
from ..builtins import registry
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError
from ..types.tiles import TileType
from .scope import Lit, PyObj
from .typecheck_tiles import is_struct, is_tile

_VERBS = {"mul": "multiply", "div": "divide"}


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "floordiv": "//", "pow": "**"}


_BITWISE = {"bit_and": "&", "bit_or": "|", "bit_xor": "^"}


_FIELDWISE = {"add": "+", "sub": "-"}


class TileElementwise:
    def element_function(self, f, dtypes: list, node) -> tuple:
        """(C++ callee, result type) of builtin or @wp.func `f` applied to elements of `dtypes`."""
        if isinstance(f, PyObj) and isinstance(f.obj, registry.Builtin) and not f.obj.special:
            resolved = registry.resolve(f.obj, list(dtypes))
            if resolved is None or resolved.overload.template is not None or resolved.result is None:
                got = ", ".join(T.type_name(t) for t in dtypes)
                self.error(KernelTypeError, f"wp.{f.obj.name} cannot be applied to tile elements ({got})", node)
            return f.obj.symbol, resolved.result
        if isinstance(f, PyObj) and getattr(f.obj, "_wp_func_", False):
            elements = [self.new_var(t, "element") for t in dtypes]
            inst, _ = self.function_instance(f.obj, elements, node)
            if inst.return_type is None:
                self.error(KernelTypeError, f"`{f.obj.key}` returns nothing; tile_map needs a value per element", node)
            return inst.symbol, inst.return_type
        self.error(KernelTypeError, f"the first argument must be a wp builtin or a @wp.func, got {self.describe(f)}",
                   node)

    def form_tile_map(self, node):
        """wp.tile_map(f, a, ...): f per element of 1 to 8 tiles of one shape (Warp's limit); a value that
        is not a tile is used for every element."""
        self.tile_name = "tile_map"
        if not 2 <= len(node.args) <= 9 or node.kwargs:
            self.error(KernelTypeError, "wp.tile_map(f, a, ...) takes a function and 1 to 8 tiles or values", node)
        values = [self.expr(x) for x in node.args[1:]]
        tiles = [v for v in values if isinstance(v, ir.Var) and isinstance(v.type, TileType)]
        if not tiles:
            self.error(KernelTypeError, "wp.tile_map needs at least one tile after the function", node)
        shape = tiles[0].type.shape
        if any(t.type.shape != shape for t in tiles):
            self.error(KernelTypeError, f"wp.tile_map: tiles of shapes {[t.type.shape for t in tiles]}; they must "
                                        "have the same shape", node)
        spread = []
        for v in values:
            if isinstance(v, ir.Var) and isinstance(v.type, TileType):
                spread.append(v)
                continue
            x = self.materialize(v, None, node) if isinstance(v, Lit) else v
            if not isinstance(x, ir.Var):
                self.error(KernelTypeError, f"wp.tile_map cannot take {self.describe(v)}", node)
            spread.append(self.spread(x, x.type, shape, node))
        callee, ret = self.element_function(self.expr(node.args[0]), [t.type.dtype for t in spread], node)
        return self.map_call(callee, ret, spread, node)

    def spread(self, value, t, shape, node) -> ir.Var:
        """A value as a tile of `shape` holding it in every element (tile_full)."""
        x = self.materialize(value, t, node) if isinstance(value, Lit) else self.convert(value, t, node)
        result = TileType(x.type, shape)
        return self.tile_call("tile_full", "wpnb::tile_full<{T}, {R}, {C}>", result, node, (x,), T=x.type,
                              R=result.rows, C=result.cols)

    def map_call(self, callee: str, ret, tiles: list, node) -> ir.Var:
        """The C++ function `callee` per element of `tiles` (one shape), as a tile of `ret`; its adjoint
        calls adj_<callee> per element (x..., adj_x..., adj_ret), as every adjoint is called."""
        n = len(tiles)
        params = ", ".join(f"const auto& x{k}" for k in range(n))
        call = ", ".join(f"x{k}" for k in range(n))
        template = f"wpnb::map_with([]({params}) {{{{ return {callee}({call}); }}}})"
        ns, _, name = callee.rpartition("::")
        adj_callee = f"{ns}::adj_{name}" if ns else f"adj_{name}"
        adj_params = ", ".join([f"const auto& x{k}" for k in range(n)] + [f"auto& adj_x{k}" for k in range(n)])
        adj_args = ", ".join([f"x{k}" for k in range(n)] + [f"adj_x{k}" for k in range(n)] + ["adj_r"])
        adjoint = f"wpnb::adj_map_with([]({adj_params}, const auto& adj_r) {{{{ {adj_callee}({adj_args}); }}}})"
        return self.tile_call("tile_map", template, TileType(ret, tiles[0].type.shape), node, tuple(tiles),
                              adjoint=adjoint)

    def tile_elementwise(self, op: str, operands: list, node):
        """`a op b` where a tile's elements meet the other operand (a tile of the same shape, or one
        value for every element) and no tile overload of the operator fits: the scalar operator
        applied per element (tile<vec3> * float, float / tile<mat22> ...)."""
        tiles = [v for v in operands if is_tile(v)]
        if len({t.type.shape for t in tiles}) > 1:
            self.error(KernelTypeError, f"tile {_SYMBOLS.get(op, op)} tile needs tiles of the same shape, got "
                                        f"{T.type_name(tiles[0].type)} and {T.type_name(tiles[1].type)}", node)
        fieldwise = self.struct_tile_op(op, operands, node)
        if fieldwise is not None:
            return fieldwise
        elements = [v.type.dtype if is_tile(v) else (registry.Literal(v.kind, v.value) if isinstance(v, Lit)
                                                       else getattr(v, "type", None)) for v in operands]
        if op in _VERBS and len(operands) == 2 and not any(T.is_scalar_type(e) or isinstance(e, registry.Literal)
                                                           for e in elements):
            if all(is_tile(v) for v in operands):
                self.error(KernelTypeError, f"tile {op}: the tiles' element type must be scalar (got "
                                            f"{T.type_name(elements[0])} and {T.type_name(elements[1])})", node)
            a, b = (f"tile<{T.type_name(e)}>" if is_tile(v) else T.type_name(e) for v, e in zip(operands, elements))
            self.error(KernelTypeError, f"Cannot {_VERBS[op]} {a} by {b}: at least one operand must be a scalar type",
                       node)
        builtin = BUILTINS[op]
        resolved = registry.resolve(builtin, elements)
        if resolved is None:
            self.no_overload(builtin, operands, node)
        shape = tiles[0].type.shape
        spread = [v if is_tile(v) else self.spread(v, t, shape, node) for v, t in zip(operands, resolved.arg_types)]
        return self.map_call(builtin.symbol, resolved.result, spread, node)

    def struct_tile_op(self, op: str, operands: list, node):
        """`a op b` where a tile's elements are structs: add and sub field by field; None when no
        operand is a struct tile or struct value."""
        elements = [v.type.dtype if is_tile(v) else getattr(v, "type", None) for v in operands]
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
        shape = next(v.type.shape for v in operands if is_tile(v))
        spread = [v if is_tile(v) else self.spread(v, v.type, shape, node) for v in operands]
        return self.map_call(f"wpnb::{op}", structs[0], spread, node)

    def struct_element_update(self, op: str, target, current, value, node):
        """t[i] op= v on a tile of structs (a value, not an atomic): the updated element, or None
        when the target is not such an element."""
        if not (isinstance(target, S.Subscript) and isinstance(current, ir.Var) and is_struct(current.type)):
            return None
        base = self.expr(target.value)
        if not is_tile(base):
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
