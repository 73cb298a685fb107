"""Tiles made from nothing but constants, values and streams, for `typecheck`: wp.tile_zeros /
tile_ones / tile_empty / tile_full, wp.tile(x) (the lanes' values gathered), wp.tile_astype,
random tiles (wp.tile_randi / tile_randf, native/tiles/tile_random.h), wp.tile_from_thread, and the
size limit of a shared tile. (wp.tile_arange plans its range in typecheck_tiles_arange.)
A mixin of FunctionTyper."""

from __future__ import annotations

import numpy as np

from . import ir
from .. import types as T
from ..builtins import registry
from ..errors import KernelTypeError, KernelValueError
from ..types.tiles import TileType
from .scope import Lit
from .typecheck_tiles import is_struct

#: Warp gives a CPU block a 256 KiB arena for its shared tiles; one tile larger than that cannot run
#: there (nor on a GPU, whose blocks have less shared memory)
SHARED_ARENA_BYTES = 256 * 1024


class TileConstruction:
    def form_tile_zeros(self, node):
        return self.filled_tile(node, None, "zeros")

    def form_tile_empty(self, node):
        """Warp leaves an empty tile's values unspecified; warp_nb zeroes them."""
        return self.filled_tile(node, None, "empty")

    def plain_tile_ones(self, node):
        return self.filled_tile(node, Lit(1, "int"), "ones", default_float=True)

    def form_tile_full(self, node):
        a = self.tile_args(node, ("shape", "value", "dtype", "storage"), 2)
        return self.filled_tile(node, self.expr(a["value"]), "full", a)

    def filled_tile(self, node, value, what: str, a: dict | None = None, default_float: bool = False):
        self.tile_name = f"tile_{what}"
        a = a or self.tile_args(node, ("shape", "dtype", "storage"))
        default = value.type if isinstance(value, ir.Var) else (T.float32 if value is None or default_float else registry.concrete(
            registry.Literal(value.kind, value.value)))  # tile_full(shape, 3): int32, as Warp infers it
        dtype = self.tile_dtype(a.get("dtype"), node, default)
        if what == "ones" and getattr(dtype, "_wp_struct_", False):
            self.error(KernelTypeError, f"tile_ones() does not support Warp struct data types ({T.type_name(dtype)}): "
                                        "a struct has no value one", node)
        result = TileType(dtype, self.const_shape(a["shape"], node), self.tile_storage(a, node))
        self.check_shared_arena(result, node)
        if value is None:
            fill = self.let(ir.Construct(dtype, ()), dtype, node.loc)
        else:
            fill = self.convert(value, dtype, node, "the fill value")
        return self.tile_call(f"tile_{what}", "wpnb::tile_full<{T}, {R}, {C}>", result, node, (fill,), T=dtype,
                              R=result.rows, C=result.cols)

    def form_tile(self, node):
        """wp.tile(x): the block's values of x, a tile of block_dim elements (one lane: one)."""
        self.tile_name = "tile"
        a = self.tile_args(node, ("x", "preserve_type"))
        x = self.expr(a["x"])
        x = self.materialize(x, None, node) if isinstance(x, Lit) else x
        if not isinstance(x, ir.Var) or not (T.is_scalar_type(x.type) or T.is_composite_type(x.type)):
            self.error(KernelTypeError, f"wp.tile takes a scalar, vector or matrix value, got {self.describe(x)}", node)
        preserve = self.expr(a["preserve_type"]) if "preserve_type" in a else Lit(False, "bool")
        if T.is_composite_type(x.type) and not (isinstance(preserve, Lit) and preserve.value):
            kind, shape = T.kind_of(x.type), tuple(x.type._shape_)
            if kind not in ("vector", "matrix"):
                self.error(KernelTypeError, f"wp.tile of a {kind} without preserve_type=True (a tile of its "
                                            "components) is not supported; pass preserve_type=True", node)
            # a tile of the components with the block's axis last: (n, B) or (m, n, B)
            lanes = self.context.block_dim
            result = TileType(x.type._wp_scalar_type_, shape + (lanes,))
            template = "wpnb::tile_from_vector" if kind == "vector" else "wpnb::tile_from_matrix"
            if lanes > 1:
                template = f"{template}_lanes<{lanes}>"
            return self.tile_call("tile", template, result, node, (x,))
        lanes = self.context.block_dim
        template = f"wpnb::tile_from_lanes<{lanes}>" if lanes > 1 else "wpnb::tile_from_value"
        return self.tile_call("tile", template, TileType(x.type, (lanes,)), node, (x,))

    def form_tile_astype(self, node):
        self.tile_name = "tile_astype"
        a = self.tile_args(node, ("t", "dtype"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        dtype = self.tile_dtype(a["dtype"], node)
        return self.tile_call("tile_astype", "wpnb::tile_astype<{U}>", TileType(dtype, t.type.shape), node, (t,),
                              U=dtype)

    def random_tile(self, node, name: str, dtype):
        """wp.tile_randi / tile_randf(shape, rng, min=None, max=None): each lane t of the block draws the
        elements t, t + L, ... from a copy of the stream rng + t, as Warp (one lane: row-major order
        from rng; native/tiles/tile_random.h); the caller's rng is not advanced."""
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
            values = [self.expr(a[k]) for k in ("min", "max")]
            if all(isinstance(v, Lit) for v in values):
                self.check_random_range(name, dtype, [v.value for v in values], node)
            bounds = tuple(self.convert(v, dtype, node, k) for v, k in zip(values, ("min", "max")))
        return self.tile_call(name, f"wpnb::{name}<{{R}}, {{C}}>", result, node, (rng, *bounds), R=result.rows,
                              C=result.cols)

    def check_random_range(self, name: str, dtype, bounds: list, node) -> None:
        """Refuse constant bounds that leave nothing to draw once they are values of `dtype` (as Warp:
        min=1.00000001, max=1.00000002 are one float32), or an int bound past int32."""
        if dtype is T.int32:
            if any(not -2 ** 31 <= int(b) < 2 ** 31 for b in bounds):
                self.error(KernelValueError, f"wp.{name}: min and max must be representable as int32, got "
                                             f"{bounds[0]} and {bounds[1]}", node)
            low, high = (int(b) for b in bounds)
        else:
            low, high = (float(np.float32(b)) for b in bounds)
        if not high > low:
            self.error(KernelValueError, f"wp.{name}: max must be greater than min (as {T.type_name(dtype)}: "
                                         f"min {low}, max {high})", node)

    def form_tile_randi(self, node):
        return self.random_tile(node, "tile_randi", T.int32)

    def form_tile_randf(self, node):
        return self.random_tile(node, "tile_randf", T.float32)

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

    def check_shared_arena(self, t: TileType, node) -> None:
        if t.storage != "shared":
            return
        size = t.size * T.type_size_in_bytes(t.dtype)
        if size > SHARED_ARENA_BYTES:
            self.error(KernelValueError, f"wp.{self.tile_name}: a shared tile of shape {t.shape} and dtype "
                                         f"{T.type_name(t.dtype)} needs {size} bytes, which exceeds the 256 KiB arena "
                                         "of a block's shared memory on the CPU; use a smaller tile or "
                                         "storage='register'", node)

    def form_tile_ones(self, node):

        self.tile_name = "tile_ones"
        a = self.tile_args(node, ("shape", "dtype", "storage"))
        if "dtype" in a and is_struct(self.tile_dtype(a["dtype"], node)):
            self.error(KernelTypeError, "wp.tile_ones does not support Warp struct dtypes (a struct has no value "
                                        "one); use wp.tile_zeros or wp.tile_full with a struct value", node)
        return self.plain_tile_ones(node)
