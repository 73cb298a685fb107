"""Tiles seen with another shape, for `typecheck`: wp.tile_view (with Warp's checks of its offsets
and explicit `slice(...)` offsets), wp.tile_broadcast (remembering the shared tile a broadcast
shares storage with), wp.tile_reshape and wp.tile_squeeze. A mixin of FunctionTyper."""

from __future__ import annotations

import math

from . import syntax as S
from .. import types as T
from ..errors import KernelTypeError, KernelValueError
from ..types.tiles import TileType
from .scope import Lit


def _is_slice_call(n) -> bool:
    return isinstance(n, S.Call) and isinstance(n.func, S.Name) and n.func.id == "slice"


def _constant_node(n) -> bool:
    """A node whose value is known without evaluating anything with effects."""
    if isinstance(n, S.UnaryOp) and n.op in ("neg", "pos"):
        return _constant_node(n.operand)
    return isinstance(n, (S.Constant, S.Name, S.Attribute))


class TileShapes:
    def plain_tile_view(self, node):
        self.tile_name = "tile_view"
        a = self.tile_args(node, ("t", "offset", "shape"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        slices = self.explicit_slices(a["offset"])
        if slices is not None:  # tile_view(t, offset=(slice(a, b, c), ...)): t[a:b:c, ...]
            return self.tile_subscript(t, slices, S.Subscript(a["t"], slices, node.loc))
        v = self.expr(a["offset"])
        count = len(v) if isinstance(v, tuple) else 1
        if count > t.type.ndim:
            self.error(KernelTypeError, f"wp.tile_view: {count} offsets for a {t.type.ndim}-D tile", node)
        offsets = self.tile_offsets(a["offset"], count, node)
        offsets += [self.materialize(Lit(0, "int"), T.int32, node) for _ in range(2 - count)]
        shape = self.const_shape(a["shape"], node) if "shape" in a else tuple(t.type.shape[count:])
        if not shape:
            self.error(KernelTypeError, "wp.tile_view: give `shape` (an offset for every axis leaves no shape)", node)
        view = (1,) * (len(t.type.shape) - len(shape)) + tuple(shape)  # the view in the source's axes
        if any(s > n for s, n in zip(view, t.type.shape)):
            self.error(KernelTypeError, f"wp.tile_view: a view of shape {shape} does not fit in a tile of shape "
                                        f"{t.type.shape}", node)
        result = TileType(t.type.dtype, shape)
        if t.type.ndim > 2:
            offsets = self.tile_offsets(a["offset"], count, node)
            offsets += [self.materialize(Lit(0, "int"), T.int32, node) for _ in range(t.type.ndim - count)]
            part, axes = self.tile_view_nd(t, offsets, view, shape, node)
            self.note_view_axes(a["t"], axes, part)
            return part
        vr, vc = (view + (1,))[:2]
        part = self.tile_call("tile_view", "wpnb::tile_view<{VR}, {VC}, {R}, {C}>", result, node, (t, *offsets[:2]),
                              VR=vr, VC=vc, R=result.rows, C=result.cols)
        axes = [(o, n, 1) for o, n in zip(offsets, view)]
        self.note_view_axes(a["t"], axes, part)
        return part

    def plain_tile_broadcast(self, node):
        self.tile_name = "tile_broadcast"
        a = self.tile_args(node, ("t", "shape", "storage"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        wanted = self.expr(a["shape"])
        if isinstance(wanted, tuple) and not 1 <= len(wanted) <= 4:
            self.error(KernelValueError, "tile_broadcast() output must have between one and four dimensions, got "
                                         f"{len(wanted)}", node)
        shape = self.const_shape(a["shape"], node)
        if t.type.ndim > len(shape):
            self.error(KernelTypeError, f"wp.tile_broadcast: cannot broadcast shape {t.type.shape} to {shape}", node)
        source = (1,) * (len(shape) - t.type.ndim) + tuple(t.type.shape)  # numpy's rule: align on the right
        if any(s not in (1, n) for s, n in zip(source, shape)):
            self.error(KernelTypeError, f"wp.tile_broadcast: cannot broadcast shape {t.type.shape} to {shape} (each "
                                        "extent must match or be 1)", node)
        result = TileType(t.type.dtype, shape)
        if len(shape) > 2:
            e, src = result.padded_shape, (1,) * (4 - len(source)) + source
            return self.tile_call("tile_broadcast", "wpnb::tile_broadcast_nd<{E0}, {E1}, {E2}, {E3}, {S0}, {S1}, {S2}, "
                                  "{S3}>", result, node, (t,), E0=e[0], E1=e[1], E2=e[2], E3=e[3], S0=src[0],
                                  S1=src[1], S2=src[2], S3=src[3])
        sr, sc = (source + (1,))[:2]
        return self.tile_call("tile_broadcast", "wpnb::tile_broadcast<{R}, {C}, {SR}, {SC}>", result, node, (t,),
                              R=result.rows, C=result.cols, SR=sr, SC=sc)

    def form_tile_reshape(self, node):
        self.tile_name = "tile_reshape"
        a = self.tile_args(node, ("t", "shape", "storage"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        shape = self.reshape_target(a["shape"], t.type, node)
        if math.prod(shape) != t.type.size:
            self.error(KernelTypeError, f"wp.tile_reshape: cannot reshape a tile of shape {t.type.shape} "
                                        f"({t.type.size} elements) to {shape}", node)
        result = TileType(t.type.dtype, shape)
        return self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", result, node, (t,), R=result.rows,
                              C=result.cols)

    def reshape_target(self, arg, t: TileType, node) -> tuple:
        """A reshape's shape, where one extent may be -1 (the rest of the size, as numpy's)."""
        v = self.expr(arg)
        items = v if isinstance(v, tuple) else (v,)
        if not all(isinstance(x, Lit) and x.kind == "int" for x in items):
            return self.const_shape(arg, node)  # says what is wrong
        dims = [int(x.value) for x in items]
        if dims.count(-1) == 1:
            known = math.prod(d for d in dims if d != -1)
            if known <= 0 or t.size % known:
                self.error(KernelTypeError, f"wp.tile_reshape: cannot reshape a tile of shape {t.shape} to "
                                            f"{tuple(dims)}", node)
            dims[dims.index(-1)] = t.size // known
        return self.const_shape_of(tuple(dims), node)

    def form_tile_squeeze(self, node):
        """wp.tile_squeeze(t, axis=None): t without its axes of extent 1 (all of them, or those named)."""
        self.tile_name = "tile_squeeze"
        a = self.tile_args(node, ("t", "axis"), 1)
        t = self.tile_value(a["t"], node, "the first argument")
        shape = t.type.shape
        if "axis" in a:
            v = self.expr(a["axis"])
            items = v if isinstance(v, tuple) else (v,)
            if not all(isinstance(x, Lit) and x.kind == "int" for x in items):
                self.error(KernelTypeError, "wp.tile_squeeze: axis must be an integer constant or a tuple of them", node)
            axes = set()
            for x in items:
                if not -len(shape) <= x.value < len(shape):
                    self.error(KernelValueError, f"tile_squeeze() axis {x.value} is out of bounds for tile with "
                                                 f"{len(shape)} dimensions (valid: {-len(shape)} to {len(shape) - 1})",
                               node)
                axis = x.value % len(shape)
                if shape[axis] != 1:
                    self.error(KernelTypeError, f"wp.tile_squeeze: axis {x.value} has extent {shape[axis]}, not 1",
                               node)
                axes.add(axis)
        else:
            axes = {k for k, n in enumerate(shape) if n == 1}
        kept = tuple(n for k, n in enumerate(shape) if k not in axes) or (1,)
        result = TileType(t.type.dtype, kept)
        return self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", result, node, (t,), R=result.rows,
                              C=result.cols)

    def form_tile_view(self, node):
        """wp.tile_view(t, offset, shape): Warp's checks of the offsets first; slice(...) offsets
        select as t[...] does."""

        self.tile_name = "tile_view"
        a = self.tile_args(node, ("t", "offset", "shape"), 2)
        items = a["offset"].elts if isinstance(a["offset"], S.Tuple) else (a["offset"],)
        if any(_is_slice_call(n) for n in items):
            if "shape" in a:
                self.error(KernelValueError, "wp.tile_view cannot take 'shape' together with a slice offset (the "
                                             "slices give the view's shape); drop one of them", node)
            t = self.tile_value(a["t"], node, "the first argument")
            return self.tile_subscript(t, tuple(self.slice_node(n) if _is_slice_call(n) else n for n in items), node)
        t = self.tile_value(a["t"], node, "the first argument")
        for axis, n in enumerate(items):
            if not _constant_node(n):
                continue
            v = self.expr(n)
            if isinstance(v, Lit) and v.kind not in ("int", "bool"):
                self.error(KernelTypeError, f"wp.tile_view: offsets must be integers or slices, got "
                                            f"{self.describe(v)}", node)
            extent = t.type.shape[axis] if axis < t.type.ndim else None
            if isinstance(v, Lit) and v.kind == "int" and extent is not None and not 0 <= v.value < extent:
                self.error(KernelValueError, f"wp.tile_view: offset {v.value} is out of bounds for axis {axis} of a "
                                             f"tile of shape {t.type.shape} (valid: 0 to {extent - 1})", node)
        return self.plain_tile_view(node)

    def slice_node(self, call) -> S.Slice:
        """slice(stop) / slice(start, stop[, step]) as the slice syntax t[start:stop:step]; its bounds
        must be constants (they give the view's shape)."""
        if call.kwargs or not 1 <= len(call.args) <= 3:
            self.error(KernelTypeError, "slice() takes 1 to 3 positional arguments", call)
        parts = (None, call.args[0], None) if len(call.args) == 1 else (tuple(call.args) + (None,))[:3]
        for name, p in zip(("start", "stop", "step"), parts):
            if p is None:
                continue
            v = self.expr(p)
            known = isinstance(v, Lit) and v.kind == "int" or isinstance(self.bound_constants.get(id(v)), int)
            if not known:
                self.error(KernelValueError, f"wp.tile_view: the slice's {name} must be a compile-time constant "
                                             "integer (the view's shape is part of its type), got "
                                             f"{self.describe(v)}", call)
        return S.Slice(parts[0], parts[1], parts[2], call.loc)

    @staticmethod
    def aligned_source(source: TileType, dest: TileType) -> tuple:
        s = (1,) * (dest.ndim - source.ndim) + tuple(source.shape)
        return (s + (1,))[:2]

    @property
    def broadcast_sources(self) -> dict:
        """id(tile) -> (tile, the shared tile it is a broadcast of) (wp.tile_broadcast of a shared tile)."""
        if not hasattr(self, "_broadcast_sources"):
            self._broadcast_sources = {}
        return self._broadcast_sources

    def form_tile_broadcast(self, node):

        self.tile_name = "tile_broadcast"
        shape = self.tile_args(node, ("t", "shape", "storage"), 2)["shape"]
        if isinstance(shape, S.Tuple) and not 1 <= len(shape.elts) <= 4:
            self.error(KernelValueError, "tile_broadcast() output must have between one and four dimensions, got "
                                         f"{len(shape.elts)}", node)
        result = self.plain_tile_broadcast(node)
        source = self.last_tile_argument
        if source.type.storage == "shared" and result.type.ndim <= 2:
            self.broadcast_sources[id(result)] = (result, source)
        return result
