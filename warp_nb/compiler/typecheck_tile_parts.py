"""Parts of tiles, for `typecheck`: selections (t[i], t[a:b, ::2], tile_view) and writes into
them (t[...] = v) of 3-D and 4-D tiles, and writes into a component of a tile's element
(t[i][1] = v, t[i, j][1, 0] = x, t[i].field = x). Tiles are values here, so every write rebinds
the tile's variable to an updated copy (its adjoint sends the overwritten part's adjoint to the
new value only). A mixin of FunctionTyper over TileForms; 1-D and 2-D selections are in
typecheck_tile_ops."""

from __future__ import annotations

from . import ir
from . import syntax as S
from .. import types as T
from ..types.tiles import StackType, TileType
from .scope import Lit
from .typecheck_subscript import _Bound
from .typecheck_tile import TileForms


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

    def reference_args(self, inst, args: list, node) -> tuple:
        """(the arguments of a call of `inst` with a copy for each reference parameter, the (name,
        copy) pairs whose caller variable is rebound to the copy after the call)."""
        params = getattr(getattr(inst, "ir", None), "params", ())
        arg_nodes = getattr(node, "args", ())
        out, rebinds = list(args), []
        for k, p in enumerate(params):
            if p.mutable and k < len(out) and isinstance(out[k], ir.Var) and p.type == out[k].type:
                out[k] = self.let(ir.Copy(args[k]), args[k].type, node.loc, "ref")
                if k < len(arg_nodes) and isinstance(arg_nodes[k], S.Name) and self.env.get(arg_nodes[k].id) is args[k]:
                    rebinds.append((arg_nodes[k].id, out[k]))
        return out, rebinds


class TileParts(TileForms, TileReferences):
    # --- N-D selections ----------------------------------------------------------------------
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

    # --- writes into an element's components ---------------------------------------------
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

    # --- views: writes through a part reach the tile it was taken from ------------------------
    # Warp's t[i], t[a:b] and tile_view(t, ...) are views: wp.tile_assign(view, ...) changes t.
    # Here a part is a copy, so the typer remembers which variable each part came from (and how it
    # was selected) and, when the part's variable is rebound by a write, writes it back into the
    # source's variable too.
    def note_view(self, source_node, index_nodes, part: ir.Var, node) -> None:
        """Remember that `part` is source[index_nodes] when the source is a tile variable; integer
        indices are kept typed, so the write-back selects the same part."""
        if not (isinstance(source_node, S.Name) and _is_tile(self.env.get(source_node.id))):
            return
        bound = tuple(n if isinstance(n, S.Slice) else _Bound(self.expr(n), n.loc) for n in index_nodes)
        axes, _ = self.tile_selection(self.env[source_node.id].type, bound, node)
        self.note_view_axes(source_node, axes, part)

    def note_view_axes(self, source_node, axes: list, part: ir.Var) -> None:
        """Remember that `part` is the selection `axes` ((start, count, step) per axis) of a tile variable."""
        if isinstance(source_node, S.Name) and _is_tile(self.env.get(source_node.id)):
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
        if _is_tile(base) and base.type.dtype == new.type.dtype:
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
            if isinstance(src, S.Name) and _is_tile(self.env.get(src.id)):
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


def _is_tile(v) -> bool:
    return isinstance(v, ir.Var) and isinstance(v.type, TileType)



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
