"""Tiles and arrays, for `typecheck`: wp.tile_load / tile_store / tile_atomic_add and their
indexed forms (entries along an axis going to offset + indices[k]). Elements outside the array
read 0 and are not written, as in Warp; atomics refuse element types CUDA has no atomic add for.
In a block of several lanes, stores and atomics run on lane 0 (their registry `lanes`).
A mixin of FunctionTyper."""

from __future__ import annotations

from . import ir
from .. import types as T
from ..errors import KernelTypeError, KernelUnsupportedError
from ..types.tiles import TileType
from .scope import Lit

#: element types without an atomic add on CUDA, which wp.tile_atomic_add refuses as Warp does
_NO_ATOMIC_ADD = (T.bool, T.int8, T.uint8, T.int16, T.uint16)


class TileMemory:
    def form_tile_load(self, node):
        self.tile_name = "tile_load"
        a = self.tile_args(node, ("a", "shape", "offset", "storage", "bounds_check", "aligned"), 2)
        arr = self.tile_array(a["a"], node)
        shape = self.const_shape(a["shape"], node)
        if len(shape) != arr.type.ndim:
            self.error(KernelTypeError, f"wp.tile_load: a tile of shape {shape} from a {arr.type.ndim}-D array; the "
                                        "shape needs one extent per array dimension", node)
        offsets = self.tile_offsets(a.get("offset"), arr.type.ndim, node)
        result = TileType(arr.type.dtype, shape, self.tile_storage(a, node))
        self.check_shared_arena(result, node)
        if len(shape) > 2:
            e = result.padded_shape
            return self.tile_call("tile_load", "wpnb::tile_load_nd<{T}, {E0}, {E1}, {E2}, {E3}>", result, node,
                                  (arr, *offsets), T=arr.type.dtype, E0=e[0], E1=e[1], E2=e[2], E3=e[3])
        template = "wpnb::tile_load<{T}, {R}>" if len(shape) == 1 else "wpnb::tile_load<{T}, {R}, {C}>"
        return self.tile_call("tile_load", template, result, node, (arr, *offsets), T=arr.type.dtype,
                              R=result.rows, C=result.cols)

    def indexed_parts(self, a: dict, arr: ir.Var, node):
        """(index tile, axis, two int32 offsets) of tile_load_indexed / tile_store_indexed."""
        idx = self.tile_value(a["indices"], node, "indices")
        if idx.type.ndim != 1 or not T.is_int_type(idx.type.dtype):
            self.error(KernelTypeError, f"wp.{self.tile_name}: indices must be a 1-D tile of integers, got "
                                        f"{T.type_name(idx.type)}", node)
        axis = self.const_int(a["axis"]) if "axis" in a else 0
        if not 0 <= axis < arr.type.ndim:
            self.error(KernelTypeError, f"wp.{self.tile_name}: axis {axis} is out of range for a {arr.type.ndim}-D "
                                        "array", node)
        offsets = self.tile_offsets(a.get("offset"), arr.type.ndim, node)
        offsets = [self.convert(o, T.int32, node, "an offset") for o in offsets]
        offsets += [self.materialize(Lit(0, "int"), T.int32, node) for _ in range(2 - len(offsets))]
        return idx, axis, offsets

    def form_tile_load_indexed(self, node):
        self.tile_name = "tile_load_indexed"
        a = self.tile_args(node, ("a", "indices", "shape", "offset", "axis", "storage"), 3)
        arr = self.tile_array(a["a"], node)
        shape = self.const_shape(a["shape"], node)
        if len(shape) != arr.type.ndim or arr.type.ndim > 2:
            self.error(KernelTypeError, f"wp.tile_load_indexed: the shape {shape} needs one extent per dimension of "
                                        "a 1-D or 2-D array", node)
        idx, axis, offsets = self.indexed_parts(a, arr, node)
        if shape[axis] != idx.type.shape[0]:
            self.error(KernelTypeError, f"wp.tile_load_indexed: shape[{axis}] = {shape[axis]} but there are "
                                        f"{idx.type.shape[0]} indices", node)
        result = TileType(arr.type.dtype, shape, self.tile_storage(a, node))
        return self.tile_call("tile_load_indexed", "wpnb::tile_load_indexed<{AX}, {T}, {R}, {C}>", result, node,
                              (arr, idx, *offsets), AX=axis, T=arr.type.dtype, R=result.rows, C=result.cols)

    def form_tile_store_indexed(self, node):
        return self.indexed_write("tile_store_indexed", node)

    def indexed_write(self, name: str, node, returns_previous: bool = False):
        """wp.tile_store_indexed / wp.tile_atomic_add_indexed(a, indices, t, offset=0, axis=0): t written
        (or added atomically) to a, its entries along `axis` going to offset + indices[k]; the atomic
        form gives the previous values as a tile unless the call is a statement."""
        statement = getattr(self, "call_is_statement", False)  # read first: typing the arguments resets it
        self.tile_name = name
        a = self.tile_args(node, ("a", "indices", "t", "offset", "axis"), 3)
        arr = self.tile_array(a["a"], node)
        t = self.tile_value(a["t"], node, "t")
        if t.type.ndim != arr.type.ndim or arr.type.ndim > 2 or t.type.dtype != arr.type.dtype:
            self.error(KernelTypeError, f"wp.{name}: a {T.type_name(t.type)} does not fit a "
                                        f"{arr.type.ndim}-D array of {T.type_name(arr.type.dtype)}", node)
        idx, axis, offsets = self.indexed_parts(a, arr, node)
        if t.type.shape[axis] != idx.type.shape[0]:
            self.error(KernelTypeError, f"wp.{name}: the tile has {t.type.shape[axis]} entries along "
                                        f"axis {axis} but there are {idx.type.shape[0]} indices", node)
        result = TileType(t.type.dtype, t.type.shape) if returns_previous and not statement else None
        return self.tile_call(name, f"wpnb::{name}<{{AX}}>", result, node, (arr, idx, t, *offsets), AX=axis)

    def form_tile_store(self, node):
        return self.store_like(node, "tile_store", None)

    def form_tile_atomic_add(self, node):
        return self.store_like(node, "tile_atomic_add", True)

    def store_like(self, node, name: str, returns):
        statement = getattr(self, "call_is_statement", False)  # read first: typing the arguments resets it
        self.tile_name = name
        a = self.tile_args(node, ("a", "t", "offset", "bounds_check", "aligned"), 2)  # hints: ignored
        arr = self.tile_array(a["a"], node)
        t = self.tile_value(a["t"], node, "the second argument")
        if t.type.ndim != arr.type.ndim:
            self.error(KernelTypeError, f"wp.{name}: a {t.type.ndim}-D tile into a {arr.type.ndim}-D array", node)
        if t.type.dtype != arr.type.dtype:
            self.error(KernelTypeError, f"wp.{name}: the tile holds {T.type_name(t.type.dtype)} but the array holds "
                                        f"{T.type_name(arr.type.dtype)}; convert with wp.tile_astype", node)
        offsets = self.tile_offsets(a.get("offset"), arr.type.ndim, node)
        result = TileType(t.type.dtype, t.type.shape) if returns and not statement else None
        if t.type.ndim > 2:
            e = t.type.padded_shape
            return self.tile_call(name, f"wpnb::{name}_nd<{{E0}}, {{E1}}, {{E2}}, {{E3}}>", result, node,
                                  (arr, t, *offsets), E0=e[0], E1=e[1], E2=e[2], E3=e[3])
        return self.tile_call(name, f"wpnb::{name}", result, node, (arr, t, *offsets))

    def form_tile_atomic_add_indexed(self, node):
        return self.indexed_write("tile_atomic_add_indexed", node, returns_previous=True)

    def tile_array(self, arg, node) -> ir.Var:
        arr = self.plain_tile_array(arg, node)
        scalar = getattr(arr.type.dtype, "_wp_scalar_type_", arr.type.dtype)
        if self.tile_name.startswith("tile_atomic_add") and scalar in _NO_ATOMIC_ADD:
            self.error(KernelUnsupportedError, f"wp.{self.tile_name} only supports arrays of 32- and 64-bit integers "
                                               f"and of floats (and vectors and matrices of them), got an array of "
                                               f"{T.type_name(arr.type.dtype)}: CUDA has no atomic add for it; "
                                               "accumulate in a wider type", node)
        return arr
