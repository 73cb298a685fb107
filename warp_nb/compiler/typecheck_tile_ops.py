"""Tile builtins that compute with tiles' elements rather than move them, for `typecheck`:
operators between tiles of any element type (tile_vec3 * float ...), reductions (over all
elements or along an axis), matrix products, linear algebra, and tile subscripts (t[i, j], t[i],
t[a:b, ::2], and assignments into them). A mixin of FunctionTyper over TileForms."""

from __future__ import annotations

import math

from . import ir
from . import syntax as S
from .. import types as T
from ..builtins import registry
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError
from ..types.tiles import StackType, TileType, stack_type
from .scope import Lit, PyObj
from .typecheck_expr import TupleValue
from .typecheck_tile_extra import TileExtras
from .typecheck_tile_parts import TileParts
from .typecheck_tile_struct import TileStructs

_VERBS = {"mul": "multiply", "div": "divide"}
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "floordiv": "//", "pow": "**"}


class TileOpForms(TileParts, TileExtras, TileStructs):
    # --- operators ---------------------------------------------------------------------------
    def tile_elementwise(self, op: str, operands: list, node):
        """`a op b` where a tile's elements meet the other operand (a tile of the same shape, or one
        value for every element) and no tile overload of the operator fits: the scalar operator
        applied per element (tile<vec3> * float, float / tile<mat22> ...)."""
        tiles = [v for v in operands if _is_tile(v)]
        if len({t.type.shape for t in tiles}) > 1:
            self.error(KernelTypeError, f"tile {_SYMBOLS.get(op, op)} tile needs tiles of the same shape, got "
                                        f"{T.type_name(tiles[0].type)} and {T.type_name(tiles[1].type)}", node)
        fieldwise = self.struct_tile_op(op, operands, node)
        if fieldwise is not None:
            return fieldwise
        elements = [v.type.dtype if _is_tile(v) else (registry.Literal(v.kind, v.value) if isinstance(v, Lit)
                                                       else getattr(v, "type", None)) for v in operands]
        if op in _VERBS and len(operands) == 2 and not any(T.is_scalar_type(e) or isinstance(e, registry.Literal)
                                                           for e in elements):
            if all(_is_tile(v) for v in operands):
                self.error(KernelTypeError, f"tile {op}: the tiles' element type must be scalar (got "
                                            f"{T.type_name(elements[0])} and {T.type_name(elements[1])})", node)
            a, b = (f"tile<{T.type_name(e)}>" if _is_tile(v) else T.type_name(e) for v, e in zip(operands, elements))
            self.error(KernelTypeError, f"Cannot {_VERBS[op]} {a} by {b}: at least one operand must be a scalar type",
                       node)
        builtin = BUILTINS[op]
        resolved = registry.resolve(builtin, elements)
        if resolved is None:
            self.no_overload(builtin, operands, node)
        shape = tiles[0].type.shape
        spread = [v if _is_tile(v) else self.spread(v, t, shape, node) for v, t in zip(operands, resolved.arg_types)]
        return self.map_call(builtin.symbol, resolved.result, spread, node)

    def form_tile_reduce(self, node):
        self.tile_name = "tile_reduce"
        a = self.tile_args(node, ("op", "a", "axis"), 2)
        t = self.tile_value(a["a"], node, "the second argument")
        f = self.expr(a["op"])
        if isinstance(f, PyObj) and isinstance(f.obj, registry.Builtin) and getattr(t.type.dtype, "_wp_struct_", False) \
                and registry.resolve(f.obj, [t.type.dtype] * 2) is None:
            self.error(KernelTypeError, f"tile_reduce(): no overload of wp.{f.obj.name} accepts the Warp struct "
                                        f"{T.type_name(t.type.dtype)}", node)
        callee, ret = self.element_function(f, [t.type.dtype] * 2, node)
        if ret != t.type.dtype:
            self.error(KernelTypeError, f"wp.tile_reduce: f must return the tile element type "
                                        f"{T.type_name(t.type.dtype)}, got {T.type_name(ret)}", node)
        axis, shape = self.reduction_axis(t.type, a, node)
        fold = f"[](const auto& x, const auto& y) {{{{ return {callee}(x, y); }}}}"
        template = f"wpnb::reduce_with({fold})" if axis is None else f"wpnb::reduce_axis_with<{axis}>({fold})"
        return self.tile_call("tile_reduce", template, TileType(ret, shape), node, (t,))

    def reduction_axis(self, t: TileType, a: dict, node):
        """(the axis to reduce along, or None for all elements; the result's shape)."""
        if "axis" not in a or (isinstance(self.expr(a["axis"]), PyObj) and self.expr(a["axis"]).obj is None):
            return None, (1,)
        axis = self.const_int(a["axis"])
        if not -t.ndim <= axis < t.ndim:
            self.error(KernelTypeError, f"axis {axis} is out of range for a {t.ndim}-D tile", node)
        axis %= t.ndim
        self.only_2d(t, "reducing along an axis", node)
        if t.ndim == 1:
            return None, (1,)
        return axis, (t.shape[1 - axis],)

    def tile_reduction(self, node, name: str):
        """wp.tile_sum / tile_min / tile_max / tile_argmin / tile_argmax (a, axis=None)."""
        self.tile_name = name
        a = self.tile_args(node, ("a", "axis"), 1)
        t = self.tile_value(a["a"], node, "the argument")
        if name != "tile_sum":
            self.refuse_struct_tile(name, t.type.dtype, node, "its elements have no order")
        if name != "tile_sum" and not T.is_scalar_type(t.type.dtype):
            self.error(KernelTypeError, f"wp.{name} takes a tile of scalars, got {T.type_name(t.type)}", node)
        if name == "tile_sum" and t.type.ndim > 2 and "axis" in a:
            return self.sum_axis_nd(t, a, node)
        axis, shape = self.reduction_axis(t.type, a, node)
        dtype = T.int32 if name.startswith("tile_arg") else t.type.dtype
        template = f"wpnb::{name}" if axis is None else f"wpnb::{name}_axis<{axis}>"
        return self.tile_call(name, template, TileType(dtype, shape), node, (t,))

    def sum_axis_nd(self, t: ir.Var, a: dict, node):
        """wp.tile_sum(t, axis) of a 3-D or 4-D tile: the tile without that axis."""
        ndim = t.type.ndim
        axis = self.const_int(a["axis"])
        if not -ndim <= axis < ndim:
            self.error(KernelTypeError, f"axis {axis} is out of range for a {ndim}-D tile", node)
        axis %= ndim
        result = TileType(t.type.dtype, tuple(n for k, n in enumerate(t.type.shape) if k != axis))
        e = t.type.padded_shape
        return self.tile_call("tile_sum", "wpnb::tile_sum_axis_nd<{AX}, {E0}, {E1}, {E2}, {E3}, {R}, {C}>", result, node,
                              (t,), AX=axis + 4 - ndim, E0=e[0], E1=e[1], E2=e[2], E3=e[3], R=result.rows,
                              C=result.cols)

    def form_tile_sum(self, node):
        return self.tile_reduction(node, "tile_sum")

    def form_tile_min(self, node):
        return self.tile_reduction(node, "tile_min")

    def form_tile_max(self, node):
        return self.tile_reduction(node, "tile_max")

    def form_tile_argmin(self, node):
        return self.tile_reduction(node, "tile_argmin")

    def form_tile_argmax(self, node):
        return self.tile_reduction(node, "tile_argmax")

    def form_tile_dot(self, node):
        """wp.tile_dot(a, b): the sum of a * b's elements, as a tile of one element."""
        self.tile_name = "tile_dot"
        a = self.tile_args(node, ("a", "b"), 2)
        x, y = self.tile_value(a["a"], node, "a"), self.tile_value(a["b"], node, "b")
        kind = T.kind_of(x.type.dtype)
        if kind in ("vector", "quaternion", "matrix") and x.type.dtype == y.type.dtype and x.type.shape == y.type.shape:
            # a full contraction: each pair of elements' dot (ddot for matrices), summed
            fn = BUILTINS["ddot" if kind == "matrix" else "dot"]
            resolved = registry.resolve(fn, [x.type.dtype] * 2)
            product = self.map_call(fn.symbol, resolved.result, [x, y], node)
        else:
            product = self.binary("mul", x, y, node)
        return self.tile_call("tile_dot", "wpnb::tile_sum", TileType(product.type.dtype, (1,)), node, (product,))

    def form_tile_axpy(self, node):
        """wp.tile_axpy(alpha, src, dest): dest (a tile variable) rebound to dest + alpha * src."""
        self.tile_name = "tile_axpy"
        a = self.tile_args(node, ("alpha", "src", "dest"), 3)
        src, dest = self.tile_value(a["src"], node, "src"), self.tile_value(a["dest"], node, "dest")
        if src.type.shape != dest.type.shape:
            self.error(KernelTypeError, f"wp.tile_axpy: src {src.type.shape} and dest {dest.type.shape} differ in "
                                        "shape", node)
        scaled = self.binary("mul", src, self.expr(a["alpha"]), node)
        self.rebind(a["dest"], self.binary("add", dest, scaled, node), node)
        return None

    def tile_selection(self, t: TileType, index_nodes, node):
        """What t[...] selects (integers and constant slices): per source axis (start, count, step)
        with the starts as variables, and the result's shape (() for one element)."""
        if len(index_nodes) > t.ndim:
            self.error(KernelTypeError, f"a {t.ndim}-D tile takes at most {t.ndim} indices, got {len(index_nodes)}",
                       node)
        axes, shape = [], []
        for axis, extent in enumerate(t.shape):
            n = index_nodes[axis] if axis < len(index_nodes) else S.Slice(None, None, None, node.loc)
            if isinstance(n, S.Slice):
                bounds = [self.const_slice_part(part, node) for part in (n.lower, n.upper, n.step)]
                if bounds[2] == 0:
                    self.error(KernelTypeError, "a tile slice's step cannot be zero", node)
                picked = range(*slice(*bounds).indices(extent))
                if not picked:
                    self.error(KernelTypeError, f"this slice of a tile of shape {t.shape} is an empty tile; tiles "
                                                "have no zero-length axes", node)
                start = self.materialize(Lit(picked.start, "int"), T.int32, node)
                axes.append((start, len(picked), picked.step))
                shape.append(len(picked))
            else:
                v = self.expr(n)
                if isinstance(v, Lit) and v.kind == "int" and not -extent <= v.value < extent:
                    self.error(KernelTypeError, f"index {v.value} is out of bounds for a tile axis of extent {extent}",
                               node)
                axes.append((self.indices([n], node)[0], 1, 0))
        while len(axes) < 2:
            axes.append((self.materialize(Lit(0, "int"), T.int32, node), 1, 0))
        return axes, tuple(shape)

    # --- linear algebra -------------------------------------------------------------------------
    def fill_mode(self, a: dict, node) -> int:
        """1 for fill_mode='upper', 0 for 'lower' (the default)."""
        if "fill_mode" not in a:
            return 0
        v = self.expr(a["fill_mode"])
        if not (isinstance(v, PyObj) and v.obj in ("lower", "upper")):
            self.error(KernelTypeError, "fill_mode must be 'lower' or 'upper'", node)
        return int(v.obj == "upper")

    def square_float_tile(self, arg, node, what: str) -> ir.Var:
        t = self.tile_value(arg, node, what)
        if t.type.ndim != 2 or t.type.shape[0] != t.type.shape[1] or not T.is_float_type(t.type.dtype):
            self.error(KernelTypeError, f"wp.{self.tile_name}: {what} must be a square tile of floats, got "
                                        f"{T.type_name(t.type)}", node)
        return t

    def rebind(self, arg, value, node) -> None:
        if not isinstance(arg, S.Name):
            self.error(KernelTypeError, f"wp.{self.tile_name} updates its argument in place: pass a tile variable",
                       node)
        self.bind(arg.id, value, node)

    def form_tile_cholesky(self, node, inplace: bool = False):
        self.tile_name = "tile_cholesky_inplace" if inplace else "tile_cholesky"
        a = self.tile_args(node, ("A", "fill_mode"), 1)
        m = self.square_float_tile(a["A"], node, "A")
        result = self.tile_call(self.tile_name, "wpnb::tile_cholesky<{UP}>", TileType(m.type.dtype, m.type.shape),
                                node, (m,), UP=self.fill_mode(a, node))
        if not inplace:
            return result
        self.rebind(a["A"], result, node)
        return None

    def form_tile_cholesky_inplace(self, node):
        return self.form_tile_cholesky(node, inplace=True)

    def form_tile_cholesky_solve(self, node, inplace: bool = False):
        self.tile_name = "tile_cholesky_solve_inplace" if inplace else "tile_cholesky_solve"
        a = self.tile_args(node, ("L", "y", "fill_mode"), 2)
        f = self.square_float_tile(a["L"], node, "the factor")
        b = self.tile_value(a["y"], node, "the right-hand side")
        if b.type.shape[0] != f.type.shape[0] or b.type.ndim > 2 or b.type.dtype != f.type.dtype:
            self.error(KernelTypeError, f"wp.{self.tile_name}: a right-hand side of {T.type_name(b.type)} does not "
                                        f"fit a factor of {T.type_name(f.type)}", node)
        result = self.tile_call(self.tile_name, "wpnb::tile_cholesky_solve<{UP}>", TileType(b.type.dtype, b.type.shape),
                                node, (f, b), UP=self.fill_mode(a, node))
        if not inplace:
            return result
        self.rebind(a["y"], result, node)
        return None

    def form_tile_cholesky_solve_inplace(self, node):
        return self.form_tile_cholesky_solve(node, inplace=True)

    def triangular_inplace(self, node, name: str):
        self.tile_name = f"{name}_inplace"
        a = self.tile_args(node, ("L", "y"), 2)
        result = self.call_builtin(BUILTINS[name], [self.expr(a["L"]), self.expr(a["y"])], node)
        self.rebind(a["y"], result, node)
        return None

    def form_tile_lower_solve_inplace(self, node):
        return self.triangular_inplace(node, "tile_lower_solve")

    def form_tile_upper_solve_inplace(self, node):
        return self.triangular_inplace(node, "tile_upper_solve")

    def form_tile_fft(self, node, inverse: int = 0):
        """wp.tile_fft(t) / wp.tile_ifft(t): t rebound to its transform along the last axis."""
        self.tile_name = "tile_ifft" if inverse else "tile_fft"
        a = self.tile_args(node, ("inout",), 1)
        t = self.tile_value(a["inout"], node, "the argument")
        e = t.type.dtype
        if not (T.kind_of(e) == "vector" and e._shape_[0] == 2 and T.is_float_type(e._wp_scalar_type_)):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a tile of complex numbers stored as vec2 (vec2f "
                                        f"or vec2d), got {T.type_name(t.type)}", node)
        length = t.type.shape[-1]
        result = self.tile_call(self.tile_name, "wpnb::tile_fft_lines<{INV}, {LINES}, {L}>", t.type, node, (t,),
                                INV=inverse, LINES=t.type.size // length, L=length)
        self.rebind(a["inout"], result, node)
        return None

    def form_tile_ifft(self, node):
        return self.form_tile_fft(node, inverse=1)

    # --- stacks ------------------------------------------------------------------------------
    def stack_value(self, arg, node) -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, StackType)):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a wp.tile_stack, got {self.describe(v)}", node)
        return v

    def form_tile_stack(self, node):
        self.tile_name = "tile_stack"
        a = self.tile_args(node, ("capacity", "dtype"), 2)
        cap = self.expr(a["capacity"])
        if not (isinstance(cap, Lit) and cap.kind == "int"):
            self.error(KernelTypeError, "wp.tile_stack: no overload takes this capacity; it must be a positive "
                                        "integer constant", node)
        try:
            t = stack_type(int(cap.value), self.tile_dtype(a["dtype"], node))
        except (TypeError, ValueError) as e:
            self.error(KernelTypeError, str(e), node)
        return self.let(ir.Construct(t, ()), t, node.loc)

    def form_tile_stack_push(self, node):
        """wp.tile_stack_push(s, value, has_value=True): s rebound with value pushed; the slot, or -1."""
        self.tile_name = "tile_stack_push"
        a = self.tile_args(node, ("s", "value", "has_value"), 2)
        s = self.stack_value(a["s"], node)
        v, dtype = self.expr(a["value"]), s.type.dtype
        fits = registry.Literal(v.kind, v.value).fits(dtype) if isinstance(v, Lit) else \
            isinstance(v, ir.Var) and v.type == dtype
        if not fits:
            self.error(KernelTypeError, f"wp.tile_stack_push: the value's type {self.describe(v)} does not match the "
                                        f"stack's dtype {T.type_name(dtype)}", node)
        v = self.materialize(v, dtype, node)
        has = self.condition(a["has_value"]) if "has_value" in a else self.materialize(Lit(True, "bool"), T.bool, node)
        lanes = self.context.block_dim  # several lanes: every lane pushes its value (native/tile_block.h)
        each = f"_lanes<{lanes}>" if lanes > 1 else ""
        slot = self.tile_call("tile_stack_push", f"wpnb::tile_stack_push_slot{each}", T.int32, node, (s, has))
        self.rebind(a["s"], self.tile_call("tile_stack_push", f"wpnb::tile_stack_pushed{each}", s.type, node,
                                           (s, v, has)), node)
        return slot  # the slot pushed to, or -1

    def form_tile_stack_pop(self, node):
        """(value, slot) of the top, then the stack rebound without it."""
        self.tile_name = "tile_stack_pop"
        a = self.tile_args(node, ("s",), 1)
        s = self.stack_value(a["s"], node)
        lanes = self.context.block_dim  # several lanes: each pops one value
        each = f"_lanes<{lanes}>" if lanes > 1 else ""
        value = self.tile_call("tile_stack_pop", f"wpnb::tile_stack_top{each}", s.type.dtype, node, (s,))
        slot = self.tile_call("tile_stack_pop", f"wpnb::tile_stack_top_slot{each}", T.int32, node, (s,))
        self.rebind(a["s"], self.tile_call("tile_stack_pop", f"wpnb::tile_stack_popped{each}", s.type, node, (s,)),
                    node)
        return TupleValue((value, slot))

    def form_tile_stack_clear(self, node):
        self.tile_name = "tile_stack_clear"
        a = self.tile_args(node, ("s",), 1)
        s = self.stack_value(a["s"], node)
        self.rebind(a["s"], self.tile_call("tile_stack_clear", "wpnb::tile_stack_cleared", s.type, node, (s,)), node)
        return None

    def form_tile_stack_count(self, node):
        self.tile_name = "tile_stack_count"
        a = self.tile_args(node, ("s",), 1)
        return self.tile_call("tile_stack_count", "wpnb::tile_stack_count", T.int32, node,
                              (self.stack_value(a["s"], node),))

    def tile_subscript(self, base: ir.Var, index_nodes, node):
        """t[i, j]: one element (wp.tile_extract); t[i] of a 2-D tile or t[a:b, ...]: a tile (a copy)."""
        t = base.type
        taken = self.tile_take(base, index_nodes, node)
        if taken is not None:
            return taken
        if len(index_nodes) == t.ndim and not any(isinstance(n, S.Slice) for n in index_nodes):
            if t.ndim <= 2:
                return self.call_builtin(BUILTINS["tile_element"], [base, *self.indices(index_nodes, node)], node)
            indices = [self.convert(i, T.int32, node, "a tile index") for i in self.indices(index_nodes, node)]
            e = t.padded_shape
            template = "wpnb::tile_extract_nd<{E1}, {E2}, {E3}>" if t.ndim == 3 else \
                "wpnb::tile_extract_nd<{E0}, {E1}, {E2}, {E3}>"
            return self.tile_call("tile_extract", template, t.dtype, node, (base, *indices), E0=e[0], E1=e[1],
                                  E2=e[2], E3=e[3])
        axes, shape = self.tile_selection(t, index_nodes, node)
        if t.ndim > 2:
            part = self.tile_gather_nd(base, axes, shape, node)
        else:
            result = TileType(t.dtype, shape)
            (s0, n0, st0), (s1, n1, st1) = axes
            part = self.tile_call("tile_view", "wpnb::tile_gather<{N0}, {ST0}, {N1}, {ST1}, {R}, {C}>", result, node,
                                  (base, s0, s1), N0=n0, ST0=st0, N1=n1, ST1=st1, R=result.rows, C=result.cols)
        self.note_view_axes(getattr(node, "value", None), axes, part)  # a write into the part reaches t
        return part

    def tile_take(self, base: ir.Var, index_nodes, node):
        """t[idx, :], t[:, idx], t[idx] with a 1-D tile of integers (Warp's advanced indexing), or None."""
        values = [None if isinstance(n, S.Slice) else self.expr(n) for n in index_nodes]
        at = [k for k, v in enumerate(values) if _is_tile(v)]
        if not at:
            return None
        t, axis, idx = base.type, at[0], values[at[0]]
        if not (T.is_int_type(idx.type.dtype) and idx.type.ndim == 1):
            self.error(KernelTypeError, f"a tile index must be an integer index tile (a 1-D tile of integers), got "
                                        f"{T.type_name(idx.type)}",
                       node)
        full = all(n.lower is None and n.upper is None and n.step is None for k, n in enumerate(index_nodes)
                   if k != axis and isinstance(n, S.Slice))
        if len(at) > 1 or not full or any(v is not None for k, v in enumerate(values) if k != axis) or t.ndim > 2:
            self.error(KernelTypeError, "indexing a tile with an integer index tile requires ':' on all other axes "
                                        "(t[idx, :] or t[:, idx]) of a 1-D or 2-D tile", node)
        n = idx.type.shape[0]
        shape = (n,) if t.ndim == 1 else ((n, t.shape[1]) if axis == 0 else (t.shape[0], n))
        return self.tile_call("tile_view", f"wpnb::tile_take<{axis}>", TileType(t.dtype, shape), node, (base, idx))

    def tile_store_part(self, name: str, index_nodes, value, node) -> None:
        """t[...] = v: t rebound to a copy with the selected part replaced by the tile v (a scalar
        into one element)."""
        self.rebind_tile(name, self.tile_replaced(self.env[name], index_nodes, value, node), node)

    def tile_replaced(self, base: ir.Var, index_nodes, value, node) -> ir.Var:
        """A copy of the tile `base` with the part t[...] selects replaced by value."""
        t = base.type
        axes, shape = self.tile_selection(t, index_nodes, node)
        if not shape and self.context.block_dim > 1 and t.ndim <= 2:
            return self.lanes_element_update(base, axes, "set", value, node)
        if not shape:
            value = self.tile_call(
                "tile", "wpnb::tile_from_value", TileType(t.dtype, (1,)), node,
                (self.convert(value, t.dtype, node, "the stored value"),))
        elif not (isinstance(value, ir.Var) and isinstance(value.type, TileType)):
            self.error(KernelTypeError, f"assigning into a tile slice requires a tile of matching shape {shape}, got "
                                        f"{self.describe(value)}", node)
        elif math.prod(value.type.shape) != math.prod(shape) or value.type.dtype != t.dtype:
            self.error(KernelTypeError, f"tile slice assignment: shape mismatch, the slice is {shape} of "
                                        f"{T.type_name(t.dtype)} but the value is {T.type_name(value.type)}", node)
        if t.ndim > 2:
            return self.tile_scatter_nd(base, axes, value, node)
        (s0, n0, st0), (s1, n1, st1) = axes
        return self.tile_call("tile_assign", "wpnb::tile_scatter<{N0}, {ST0}, {N1}, {ST1}>", t, node,
                              (base, value, s0, s1), N0=n0, ST0=st0, N1=n1, ST1=st1)

    def lanes_tile_update(self, target, s) -> bool:
        """`t[i, j] op= v` on a tile variable in a kernel typed for blocks of several lanes: t rebound
        with every lane's update applied (Warp's lanes update a shared tile); False for any other
        target."""
        if not (isinstance(target, S.Subscript) and isinstance(target.value, S.Name)) or s.op not in _LANE_OPS:
            return False
        base = self.env.get(target.value.id)
        if not (isinstance(base, ir.Var) and isinstance(base.type, TileType)) or base.type.ndim > 2 or \
                len(target.indices) != base.type.ndim or any(isinstance(i, S.Slice) for i in target.indices):
            return False
        axes, shape = self.tile_selection(base.type, target.indices, s)
        if shape:
            return False
        new = self.lanes_element_update(base, axes, s.op, self.expr(s.value), s)
        self.rebind_tile(target.value.id, new, s)
        return True

    def lanes_element_update(self, base: ir.Var, axes, op: str, value, node) -> ir.Var:
        """t[i, j] = v (op "set") or t[i, j] op= v written by every lane of a block of several: the
        block's writes gathered and applied in lane order, so every lane keeps the same tile."""
        t = base.type
        (s0, _, _), (s1, _, _) = axes
        v = self.convert(value, t.dtype, node, "the stored value")
        return self.tile_call("tile_assign", f"wpnb::tile_lanes_update<{self.context.block_dim}, wpnb::lane_op_{op}>",
                              t, node, (base, v, s0, s1))

    def form_tile_assign(self, node):
        """wp.tile_assign(dst, src, offset=0): dst (a variable) rebound with src written at offset."""
        self.tile_name = "tile_assign"
        a = self.tile_args(node, ("dst", "src", "offset"), 2)
        if not isinstance(a["dst"], S.Name):
            self.error(KernelTypeError, "wp.tile_assign: warp_nb needs the destination tile as a variable (views "
                                        "of tiles are copies here)", node)
        dst = self.tile_value(a["dst"], node, "the destination")
        self.only_2d(dst.type, "wp.tile_assign", node)
        src = self.expr(a["src"])
        offsets = self.tile_offsets(a.get("offset"), dst.type.ndim, node)
        shape = src.type.shape if isinstance(src, ir.Var) and isinstance(src.type, TileType) else (1,) * dst.type.ndim
        if len(shape) != dst.type.ndim:
            self.error(KernelTypeError, f"wp.tile_assign: a {len(shape)}-D tile into a {dst.type.ndim}-D tile", node)
        counts = tuple(shape) + (1,) * (2 - len(shape))
        value = src if isinstance(src, ir.Var) and isinstance(src.type, TileType) else self.tile_call(
            "tile", "wpnb::tile_from_value", TileType(dst.type.dtype, (1,)), node,
            (self.convert(src, dst.type.dtype, node, "the assigned value"),))
        if value.type.dtype != dst.type.dtype and T.is_scalar_type(value.type.dtype) and \
                T.is_scalar_type(dst.type.dtype):  # scalars are converted, as Warp does
            value = self.tile_call("tile_astype", "wpnb::tile_astype<{U}>", TileType(dst.type.dtype, value.type.shape),
                                   node, (value,), U=dst.type.dtype)
        if value.type.dtype != dst.type.dtype:
            self.error(KernelTypeError, "wp.tile_assign: the tiles' dtypes differ; convert with wp.tile_astype", node)
        offsets += [self.materialize(Lit(0, "int"), T.int32, node) for _ in range(2 - len(offsets))]
        self.rebind_tile(a["dst"].id, self.tile_call(
            "tile_assign", "wpnb::tile_scatter<{N0}, 1, {N1}, 1>", dst.type, node, (dst, value, *offsets[:2]),
            N0=counts[0], N1=counts[1]), node)
        return None


#: the updates of one tile element that lanes can make together (native/tile_block.h lane_op_*)
_LANE_OPS = ("add", "sub", "mul", "div", "bit_and", "bit_or", "bit_xor", "min", "max")


def _is_tile(v) -> bool:
    return isinstance(v, ir.Var) and isinstance(v.type, TileType)

