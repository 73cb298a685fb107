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
from ..errors import KernelTypeError
from ..types.tiles import TileType
from .scope import Lit
from .typecheck_tile import TileForms


class TileParts(TileForms):
    # --- N-D selections ----------------------------------------------------------------------
    def padded_axes(self, axes: list, node) -> list:
        """A selection's (start, count, step) per axis with whole-axis entries in front: four axes,
        as native/tile_nd.h walks every tile."""
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
        return self.tile_call("tile_select_nd", "wpnb::tile_gather_nd<{E0}, {E1}, {E2}, {E3}, {N0}, {ST0}, {N1}, "
                              "{ST1}, {N2}, {ST2}, {N3}, {ST3}, {R}, {C}>", result, node,
                              (base, *(a[0] for a in axes)), **self.selection_params(t, axes, result))

    def tile_scatter_nd(self, base: ir.Var, axes: list, value: ir.Var, node) -> ir.Var:
        """A copy of a 3-D or 4-D tile with the part `axes` select replaced by the tile `value`."""
        t = base.type
        axes = self.padded_axes(axes[:t.ndim], node)
        return self.tile_call("tile_select_nd", "wpnb::tile_scatter_nd<{E0}, {E1}, {E2}, {E3}, {N0}, {ST0}, {N1}, "
                              "{ST1}, {N2}, {ST2}, {N3}, {ST3}>", t, node, (base, value, *(a[0] for a in axes)),
                              **self.selection_params(t, axes, None))

    # --- writes into an element's components ---------------------------------------------
    def tile_store_chain(self, name: str, chain: list, value, node) -> None:
        """t[i...]<steps> = value: the element (or part) t[i...] updated along the remaining steps,
        then written back into t."""
        self.env[name] = self.updated_part(self.env[name], chain, value, node)

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
