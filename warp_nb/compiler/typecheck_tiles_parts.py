"""Parts of tiles, for `typecheck`: elements and selections (t[i, j], wp.tile_extract, t[i],
t[a:b, ::2]) read and written (t[...] = v, wp.tile_assign, wp.tile_scatter_add / _masked, writes
into a component of an element: t[i][1] = v, t[i].field = x), with Warp's refusals (a float
index, a compound assignment into a view). Tiles are values here, so every write rebinds the
tile's variable to an updated copy (its adjoint sends the overwritten part's adjoint to the new
value only); 3-D and 4-D tiles go through their 2-D flattening (native/tiles/tile_nd.h). In a block of
several lanes, per-lane writes are gathered and applied in lane order. A tile a @wp.func writes
into is passed by reference (TileReferences). A mixin of FunctionTyper."""

from __future__ import annotations

import math

from . import ir, syntax as S
from .. import types as T
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError, KernelValueError
from ..types.tiles import StackType, TileType
from .scope import Lit
from .typecheck_subscript import _Bound
from .typecheck_tiles import is_struct, is_tile

#: the updates of one tile element that lanes can make together (native/tiles/tile_block.h lane_op_*)
_LANE_OPS = ("add", "sub", "mul", "div", "bit_and", "bit_or", "bit_xor", "min", "max")


def _writes(stmts) -> tuple:
    """(names written in place: t += u, t[i] = v, t[i].x = v; names rebound: t = ..., loop targets)."""
    in_place, rebound = set(), set()
    for s in S.walk(tuple(stmts)):
        if isinstance(s, (S.Assign, S.AugAssign)):
            targets = s.target.elts if isinstance(s.target, S.Tuple) else (s.target,)
            for t in targets:
                if isinstance(t, S.Name):
                    (in_place if isinstance(s, S.AugAssign) else rebound).add(t.id)
                    continue
                while isinstance(t, (S.Subscript, S.Attribute)):
                    t = t.value
                if isinstance(t, S.Name):
                    in_place.add(t.id)
        elif isinstance(s, S.For) and isinstance(s.target, str):
            rebound.add(s.target)
    return in_place, rebound


class TileSubscripts:
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

    def plain_tile_subscript(self, base: ir.Var, index_nodes, node):
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
        at = [k for k, v in enumerate(values) if is_tile(v)]
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

    def form_tile_scatter_masked(self, node):
        """wp.tile_scatter_masked(t, i..., value, has_value): t (a variable) rebound with t[i...]
        set to value when has_value."""
        return self.form_tile_scatter_add(node, "tile_scatter_masked")

    def form_tile_scatter_add(self, node, name: str = "tile_scatter_add"):
        """wp.tile_scatter_add(t, i..., value, has_value, atomic=True): t (a variable) rebound with
        value added to t[i...] when has_value."""
        self.tile_name = name
        args, kw = list(node.args), dict(node.kwargs)
        if not args or not isinstance(args[0], S.Name):
            self.error(KernelTypeError, f"wp.{name} updates its first argument: pass a tile variable", node)
        t = self.tile_value(args[0], node, "the first argument")
        if "atomic" in kw:
            self.expr(kw["atomic"])  # lanes' additions are applied in lane order: atomic or not, the same
        ndim = t.type.ndim
        if len(args) != ndim + 3:
            self.error(KernelTypeError, f"wp.{name}(t, {ndim} indices, value, has_value) on a {ndim}-D tile "
                                        f"takes {ndim + 3} arguments, got {len(args)}", node)
        indices = [self.convert(i, T.int32, node, "a tile index") for i in self.indices(args[1:1 + ndim], node)]
        zero = self.materialize(Lit(0, "int"), T.int32, node)
        indices = [zero] * (4 - ndim) + indices
        value = self.convert(self.expr(args[1 + ndim]), t.type.dtype, node, "the added value")
        has = self.condition(args[2 + ndim])
        e = t.type.padded_shape
        lanes = self.context.block_dim  # several lanes: every lane's write, in lane order
        op = "add" if name == "tile_scatter_add" else "set"
        template = f"wpnb::tile_scatter_lanes<{lanes}, wpnb::lane_op_{op}, " if lanes > 1 else f"wpnb::tile_scatter_{op}<"
        new = self.tile_call(name, template + "{E0}, {E1}, {E2}, {E3}>", t.type, node,
                             (t, value, has, *indices), E0=e[0], E1=e[1], E2=e[2], E3=e[3])
        self.bind(args[0].id, new, node)
        return None

    def tile_subscript(self, base: ir.Var, index_nodes, node):
        """t[...] as plain_tile_subscript reads it, after Warp's checks of the indices; a view with a step other
        than 1 is remembered (wp.tile_reshape refuses it, as Warp does)."""
        for n in index_nodes:
            if isinstance(n, S.Slice):
                continue
            v = self.expr(n)
            bad = isinstance(v, Lit) and v.kind != "int" or isinstance(v, ir.Var) and not is_tile(v) and not \
                T.is_int_type(v.type)
            if bad:
                self.error(KernelTypeError, f"tile indices must be integers or slices, got {self.describe(v)}", node)
        result = self.plain_tile_subscript(base, index_nodes, node)
        steps = [self.const_slice_part(n.step, node) for n in index_nodes if isinstance(n, S.Slice)]
        if is_tile(result) and any(s not in (None, 1) for s in steps):
            self.strided_views[id(result)] = (result, True)
        return result

    def check_aug_target(self, target, node) -> None:
        """t[0:4, :] += v or t[0] += v: Warp refuses a compound assignment into a view of a tile; and
        t &= u on a tile of structs (or one of its elements)."""
        if node.op in ("bit_and", "bit_or", "bit_xor"):
            root = target.value if isinstance(target, S.Subscript) else target
            held = self.env.get(root.id) if isinstance(root, S.Name) else None
            t = getattr(held, "type", None)
            if is_struct(t.dtype if isinstance(t, TileType) else t):
                self.error(KernelTypeError, "bitwise inplace operators (&=, |=, ^=) do not support Warp struct "
                                            "values; apply them to the struct's integer fields", node)
        if not (isinstance(target, S.Subscript) and isinstance(target.value, S.Name)):
            return
        base = self.env.get(target.value.id)
        if not is_tile(base):
            return
        if len(target.indices) < base.type.ndim or any(isinstance(i, S.Slice) for i in target.indices):
            self.error(KernelValueError, "Compound assignment to a tile view (t[...] += v with a slice or fewer "
                                         "indices than the tile has axes) is not supported; write the sum out: "
                                         "t[...] = t[...] + v", node)

    def form_tile_extract(self, node):
        """wp.tile_extract(t, i[, j]): one element; with checks an index outside the tile stops the
        process with Warp's report naming the tile's storage, dimension and index."""
        self.tile_name = "tile_extract"
        if node.kwargs:
            a = self.tile_args(node, ("a", "i", "j"), 2)
            t_node, index_nodes = a["a"], tuple(a[k] for k in ("i", "j") if k in a)
        else:  # positional: as many indices as the tile has axes (up to four)
            t_node, index_nodes = (node.args[0] if node.args else None), tuple(node.args[1:])
        if t_node is None:
            self.error(KernelTypeError, "wp.tile_extract needs the argument `a`", node)
        t = self.tile_value(t_node, node, "the first argument")
        if len(index_nodes) != t.type.ndim:
            self.error(KernelTypeError, f"wp.tile_extract: a {t.type.ndim}-D tile takes {t.type.ndim} indices, got "
                                        f"{len(index_nodes)}", node)
        if t.type.ndim > 2:  # 3-D and 4-D tiles: t[i, j, k] reads them
            return self.tile_subscript(t, index_nodes, node)
        indices = [self.convert(i, T.int32, node, "a tile index") for i in self.indices(index_nodes, node)]
        return self.tile_call("tile_extract", "wpnb::tile_extract_in<{SH}>", t.type.dtype, node, (t, *indices),
                              SH=int(t.type.storage == "shared"))


class TileReferences:
    """Tiles and tile stacks passed to a @wp.func are references in Warp: a function that writes
    into its tile parameter (t += u, wp.tile_assign(t, ...), wp.tile_stack_push(s, ...)) changes
    the caller's tile. Here such a parameter is a C++ reference that the function writes its final
    value to before each return, and the caller passes a copy that it rebinds its variable to."""

    def reference_params(self, fdef, params: list) -> None:
        """Mark the tile and stack parameters that the function's body writes (mutable: emitted as
        references)."""
        in_place, rebound = _writes(fdef.body)
        # `t = t * 2.0` rebinds the local name only (Warp's too): such a parameter stays a value
        written = (in_place | self.inout_names(fdef.body) | self.view_bases(fdef.body)) - rebound
        self.ref_params = []
        for k, (name, var) in enumerate(zip(fdef.params, params)):
            if name in written and isinstance(var.type, (TileType, StackType)):
                params[k] = ir.Var(var.name, var.type, mutable=True)
                self.env[name] = params[k]
                self.ref_params.append((name, params[k]))

    def write_back_params(self, loc) -> None:
        """Before a return: each written tile parameter gets its current value."""
        for name, param in getattr(self, "ref_params", ()):
            current = self.env.get(name)
            if isinstance(current, ir.Var) and current is not param and current.type == param.type:
                self.block.append(ir.Assign(param, current, loc))

    def reference_args(self, inst, args: list, node, arg_nodes=None) -> tuple:
        """(the arguments of a call of `inst` with a copy for each reference parameter, the (name,
        copy) pairs whose caller variable is rebound to the copy after the call, the (target, copy)
        pairs stored back after it: a wp.ref[T] argument that is an element, a field or a component)."""
        params = getattr(getattr(inst, "ir", None), "params", ())
        arg_nodes = getattr(node, "args", ()) if arg_nodes is None else arg_nodes
        out, rebinds, stores = list(args), [], []
        for k, p in enumerate(params):
            if p.mutable and k < len(out) and isinstance(out[k], ir.Var) and p.type == out[k].type:
                out[k] = self.let(ir.Copy(args[k]), args[k].type, node.loc, "ref")
                target = arg_nodes[k] if k < len(arg_nodes) else None
                if isinstance(target, S.Name) and self.env.get(target.id) is args[k]:
                    rebinds.append((target.id, out[k]))
                elif isinstance(target, (S.Subscript, S.Attribute)) and not isinstance(p.type, (TileType, StackType)):
                    stores.append((target, out[k]))
        return out, rebinds, stores


class TileParts:
    def padded_axes(self, axes: list, node) -> list:
        """A selection's (start, count, step) per axis with whole-axis entries in front: four axes,
        as native/tiles/tile_nd.h walks every tile."""
        zero = self.materialize(Lit(0, "int"), T.int32, node)
        axes = [(self.convert(s, T.int32, node, "a tile index"), n, st) for s, n, st in axes]
        return [(zero, 1, 0)] * (4 - len(axes)) + axes

    def selection_params(self, t: TileType, axes: list, result: TileType | None) -> dict:
        e = t.padded_shape
        params = {f"E{k}": e[k] for k in range(4)}
        for k, (_, n, st) in enumerate(axes):
            params[f"N{k}"], params[f"ST{k}"] = n, st
        if result is not None:
            params.update(R=result.rows, C=result.cols)
        return params

    def tile_gather_nd(self, base: ir.Var, axes: list, shape: tuple, node) -> ir.Var:
        """The part of a 3-D or 4-D tile that `axes` (from tile_selection) select, as a tile of `shape`."""
        t = base.type
        axes = self.padded_axes(axes[:t.ndim], node)
        result = TileType(t.dtype, shape)
        return self.tile_call("tile_view", "wpnb::tile_gather_nd<{E0}, {E1}, {E2}, {E3}, {N0}, {ST0}, {N1}, "
                              "{ST1}, {N2}, {ST2}, {N3}, {ST3}, {R}, {C}>", result, node,
                              (base, *(a[0] for a in axes)), **self.selection_params(t, axes, result))

    def tile_scatter_nd(self, base: ir.Var, axes: list, value: ir.Var, node) -> ir.Var:
        """A copy of a 3-D or 4-D tile with the part `axes` select replaced by the tile `value`."""
        t = base.type
        axes = self.padded_axes(axes[:t.ndim], node)
        return self.tile_call("tile_assign", "wpnb::tile_scatter_nd<{E0}, {E1}, {E2}, {E3}, {N0}, {ST0}, {N1}, "
                              "{ST1}, {N2}, {ST2}, {N3}, {ST3}>", t, node, (base, value, *(a[0] for a in axes)),
                              **self.selection_params(t, axes, None))

    def tile_view_nd(self, t: ir.Var, offsets: list, view: tuple, shape: tuple, node) -> ir.Var:
        """wp.tile_view of a 3-D or 4-D tile: `view` is the part's extent along each source axis."""
        axes = [(o, n, 1) for o, n in zip(offsets, view)]
        return self.tile_gather_nd(t, axes, shape, node), axes

    def tile_store_chain(self, name: str, chain: list, value, node) -> None:
        """t[i...]<steps> = value: the element (or part) t[i...] updated along the remaining steps,
        then written back into t."""
        self.rebind_tile(name, self.updated_part(self.env[name], chain, value, node), node)

    def updated_part(self, base: ir.Var, steps: list, value, node) -> ir.Var:
        """A copy of `base` with the component that `steps` (.field / [i] steps) lead to replaced by value."""
        step = steps[0]
        if isinstance(base.type, TileType) and isinstance(step, S.Subscript):
            if len(steps) == 1:
                return self.tile_replaced(base, step.indices, value, node)
            part = self.expr_step(base, step)
            return self.tile_replaced(base, step.indices, self.updated_part(part, steps[1:], value, node), node)
        path, leaf_t = self.store_path(base.type, steps, node)
        self.check_slot_value(value, leaf_t, path, node)
        return self.let(ir.Update(base, path, self.convert(value, leaf_t, node, "the value")), base.type, node.loc)

    # Warp's t[i], t[a:b] and tile_view(t, ...) are views: wp.tile_assign(view, ...) changes t.
    # Here a part is a copy, so the typer remembers which variable each part came from (and how it
    # was selected) and, when the part's variable is rebound by a write, writes it back into the
    # source's variable too.
    def note_view(self, source_node, index_nodes, part: ir.Var, node) -> None:
        """Remember that `part` is source[index_nodes] when the source is a tile variable; integer
        indices are kept typed, so the write-back selects the same part."""
        if not (isinstance(source_node, S.Name) and is_tile(self.env.get(source_node.id))):
            return
        bound = tuple(n if isinstance(n, S.Slice) else _Bound(self.expr(n), n.loc) for n in index_nodes)
        axes, _ = self.tile_selection(self.env[source_node.id].type, bound, node)
        self.note_view_axes(source_node, axes, part)

    def note_view_axes(self, source_node, axes: list, part: ir.Var) -> None:
        """Remember that `part` is the selection `axes` ((start, count, step) per axis) of a tile variable."""
        if isinstance(source_node, S.Name) and is_tile(self.env.get(source_node.id)):
            self.tile_views()[id(part)] = (source_node.id, axes, part)

    def follow_view(self, value, var: ir.Var) -> None:
        """var = value (a copy): a view stays a view under another name."""
        record = self.tile_views().get(id(value))
        if record is not None and record[2] is value:
            self.tile_views()[id(var)] = (record[0], record[1], var)

    def scatter_axes(self, base: ir.Var, axes: list, value: ir.Var, node) -> ir.Var:
        """A copy of the tile `base` with the selection `axes` replaced by the tile `value`."""
        if base.type.ndim > 2:
            return self.tile_scatter_nd(base, axes, value, node)
        axes = list(axes[:base.type.ndim])
        axes += [(self.materialize(Lit(0, "int"), T.int32, node), 1, 0)] * (2 - len(axes))
        (s0, n0, st0), (s1, n1, st1) = axes
        return self.tile_call("tile_assign", "wpnb::tile_scatter<{N0}, {ST0}, {N1}, {ST1}>", base.type, node,
                              (base, value, s0, s1), N0=n0, ST0=st0, N1=n1, ST1=st1)

    def tile_views(self) -> dict:
        views = getattr(self, "_tile_views", None)
        if views is None:
            views = self._tile_views = {}
        return views

    def rebind_tile(self, name: str, new: ir.Var, node) -> None:
        """name = new after a write into the tile bound to `name`; when that tile is a view of
        another tile variable, the write goes on into it (and on up a chain of views)."""
        old = self.env.get(name)
        self.env[name] = new
        views = self.tile_views()
        record = views.get(id(old))
        if record is None or record[2] is not old or old is new:
            return
        source, axes, _ = record
        views[id(new)] = (source, axes, new)
        base = self.env.get(source)
        if is_tile(base) and base.type.dtype == new.type.dtype:
            self.rebind_tile(source, self.scatter_axes(base, axes, new, node), node)

    def view_bases(self, stmts) -> set:
        """Tile variables that parts are taken from in `stmts` (`row = t[i]`, tile_view(t, ...)):
        a loop that writes into such a part changes them, so it must carry them."""
        found = set()
        for s in S.walk(tuple(stmts)):
            if not isinstance(s, S.Assign):
                continue
            v = s.value
            view_call = isinstance(v, S.Call) and v.args and getattr(v.func, "attr", getattr(v.func, "id", "")) == "tile_view"
            src = v.value if isinstance(v, S.Subscript) else (v.args[0] if view_call else None)
            if isinstance(src, S.Name) and is_tile(self.env.get(src.id)):
                found.add(src.id)
        return found

    def explicit_slices(self, offset_node):
        """tile_view(t, offset=(slice(a, b, c), ...)): the offsets as subscript indices, or None
        when no slice(...) is written."""
        items = offset_node.elts if isinstance(offset_node, S.Tuple) else (offset_node,)
        out, found = [], False
        for n in items:
            if isinstance(n, S.Call) and isinstance(n.func, S.Name) and n.func.id == "slice" and not n.kwargs:
                parts = list(n.args) + [None] * (3 - len(n.args))
                if len(n.args) == 1:
                    parts = [None, n.args[0], None]
                out.append(S.Slice(*parts[:3], n.loc))
                found = True
            else:
                out.append(n)
        return tuple(out) if found else None
