"""Tile builtins that make tiles from a random stream or scatter them atomically through indices
(wp.tile_randi / tile_randf, wp.tile_atomic_add_indexed), for `typecheck`. A mixin of
FunctionTyper over TileForms; the C++ is in native/tile_random.h and native/tile.h."""

from __future__ import annotations

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
        """wp.tile_atomic_add_indexed(a, indices, t, offset=0, axis=0): t added atomically into a with
        its entries along `axis` going to offset + indices[k]; the previous values as a tile."""
        statement = getattr(self, "call_is_statement", False)  # read first: typing the arguments resets it
        self.tile_name = "tile_atomic_add_indexed"
        a = self.tile_args(node, ("a", "indices", "t", "offset", "axis"), 3)
        arr = self.tile_array(a["a"], node)
        t = self.tile_value(a["t"], node, "t")
        if t.type.ndim != arr.type.ndim or arr.type.ndim > 2 or t.type.dtype != arr.type.dtype:
            self.error(KernelTypeError, f"wp.tile_atomic_add_indexed: a {T.type_name(t.type)} does not fit a "
                                        f"{arr.type.ndim}-D array of {T.type_name(arr.type.dtype)}", node)
        idx, axis, offsets = self.indexed_parts(a, arr, node)
        if t.type.shape[axis] != idx.type.shape[0]:
            self.error(KernelTypeError, f"wp.tile_atomic_add_indexed: the tile has {t.type.shape[axis]} entries "
                                        f"along axis {axis} but there are {idx.type.shape[0]} indices", node)
        result = None if statement else TileType(t.type.dtype, t.type.shape)
        return self.tile_call("tile_atomic_add_indexed", "wpnb::tile_atomic_add_indexed<{AX}>", result, node,
                              (arr, idx, t, *offsets), AX=axis)


#: The special forms typed here, by builtin name.
TILE_EXTRA_FORMS = {name: getattr(TileExtras, f"form_{name}") for name in (
    "tile_randi", "tile_randf", "tile_atomic_add_indexed")}
