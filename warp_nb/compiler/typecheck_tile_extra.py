"""Tile builtins that make tiles from a random stream or scatter them atomically through indices
(wp.tile_randi / tile_randf, wp.tile_atomic_add_indexed), or from
one thread's values (wp.tile_from_thread, wp.tile_scatter_add), for `typecheck`. A mixin of
FunctionTyper over TileForms; the C++ is in native/tile_random.h and native/tile.h."""

from __future__ import annotations

from . import syntax as S
from .. import types as T
from ..errors import KernelTypeError
from ..types.tiles import TileType
from .scope import Lit
from .typecheck_tile import TileForms


class TileExtras(TileForms):
    def random_tile(self, node, name: str, dtype):
        """wp.tile_randi / tile_randf(shape, rng, min=None, max=None): the elements drawn in row-major
        order from a copy of the stream `rng` (the caller's rng is not advanced)."""
        self.tile_name = name
        a = self.tile_args(node, ("shape", "rng", "min", "max", "storage"), 2)
        shape = self.const_shape(a["shape"], node)
        rng = self.expr(a["rng"])
        rng = self.materialize(rng, T.uint32, node) if isinstance(rng, Lit) else rng
        if not (hasattr(rng, "type") and T.is_int_type(rng.type)):
            self.error(KernelTypeError, f"wp.{name}: rng must be a random state from wp.rand_init, got "
                                        f"{self.describe(rng)}", node)
        rng = self.convert(rng, T.uint32, node, "rng")
        result = TileType(dtype, shape, self.tile_storage(a, node))
        if ("min" in a) != ("max" in a):
            self.error(KernelTypeError, f"wp.{name}: give both min and max, or neither", node)
        bounds = ()
        if "min" in a:
            bounds = tuple(self.convert(self.expr(a[k]), dtype, node, k) for k in ("min", "max"))
        return self.tile_call(name, f"wpnb::{name}<{{R}}, {{C}}>", result, node, (rng, *bounds), R=result.rows,
                              C=result.cols)

    def form_tile_randi(self, node):
        return self.random_tile(node, "tile_randi", T.int32)

    def form_tile_randf(self, node):
        return self.random_tile(node, "tile_randf", T.float32)

    def form_tile_atomic_add_indexed(self, node):
        return self.indexed_write("tile_atomic_add_indexed", node, returns_previous=True)

    def form_tile_from_thread(self, node):
        """wp.tile_from_thread(shape, value, thread_idx=0, storage): a tile filled with one thread's
        value (in a block of one lane, that lane's whatever thread_idx says, as on Warp's CPU)."""
        self.tile_name = "tile_from_thread"
        a = self.tile_args(node, ("shape", "value", "thread_idx", "storage"), 2)
        shape = self.const_shape(a["shape"], node)
        value = self.expr(a["value"])
        lane = None
        if "thread_idx" in a:
            lane = self.convert(self.expr(a["thread_idx"]), T.int32, node, "thread_idx")
        value = self.materialize(value, None, node) if isinstance(value, Lit) else value
        if not hasattr(value, "type"):
            self.error(KernelTypeError, f"wp.tile_from_thread: value must be a kernel value, got "
                                        f"{self.describe(value)}", node)
        result = TileType(value.type, shape, self.tile_storage(a, node))
        if self.context.block_dim > 1:  # several lanes: lane thread_idx's value, handed to every lane
            if lane is None:
                lane = self.materialize(Lit(0, "int"), T.int32, node)
            return self.tile_call("tile_from_thread", "wpnb::tile_full_from_lane<{T}, {R}, {C}>", result, node,
                                  (value, lane), T=value.type, R=result.rows, C=result.cols)
        return self.tile_call("tile_from_thread", "wpnb::tile_full<{T}, {R}, {C}>", result, node, (value,),
                              T=value.type, R=result.rows, C=result.cols)

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

