"""Refusals and Warp-specific readings of tile code, for `typecheck`: what Warp rejects at the
kernel's line (compound assignment into a view, reshaping a strided view, a float index, a
view offset out of bounds, a shared tile larger than a CPU block's arena), explicit
`slice(...)` offsets of wp.tile_view, the checked form of wp.tile_extract and tile_axpy into a
broadcast shared tile. Each message keeps Warp's key phrase (its tests match it) and says what
to write instead. A mixin of FunctionTyper that comes before TileOpForms, so its overrides of
tile_subscript and tile_value wrap theirs."""

from __future__ import annotations

from . import ir
from . import syntax as S
from .. import types as T
from ..errors import KernelTypeError, KernelUnsupportedError, KernelValueError
from ..types.tiles import TileType
from .scope import Lit
from .typecheck_tile_arange import ArangeForm
from .typecheck_tile_matmul import MatmulForm

#: Warp gives a CPU block a 256 KiB arena for its shared tiles; one tile larger than that cannot run
#: there (nor on a GPU, whose blocks have less shared memory)
SHARED_ARENA_BYTES = 256 * 1024
#: reductions that order the elements, which a struct has no order for
_ORDERING = ("tile_min", "tile_max", "tile_argmin", "tile_argmax")
#: element types without an atomic add on CUDA, which wp.tile_atomic_add refuses as Warp does
_NO_ATOMIC_ADD = (T.bool, T.int8, T.uint8, T.int16, T.uint16)


def _is_tile(v) -> bool:
    return isinstance(v, ir.Var) and isinstance(v.type, TileType)


def _is_struct(t) -> bool:
    return bool(getattr(t, "_wp_struct_", False))


def _is_slice_call(n) -> bool:
    return isinstance(n, S.Call) and isinstance(n.func, S.Name) and n.func.id == "slice"


def _constant_node(n) -> bool:
    """A node whose value is known without evaluating anything with effects."""
    if isinstance(n, S.UnaryOp) and n.op in ("neg", "pos"):
        return _constant_node(n.operand)
    return isinstance(n, (S.Constant, S.Name, S.Attribute))


class TileChecks(ArangeForm, MatmulForm):
    def copied_from(self, v, table: dict):
        """table's entry for v, or for the value v is a named copy of (x = t[::2]: x is a Copy of
        the view), found by walking back the current block's copies."""
        while isinstance(v, ir.Var):
            entry = table.get(id(v))
            if entry is not None and entry[0] is v:  # the var itself is kept: its id is not reused
                return entry[1]
            v = next((s.value.src for s in reversed(self.block) if isinstance(s, ir.Let) and s.dst is v and
                      isinstance(s.value, ir.Copy)), None)
        return None

    # --- storage ----------------------------------------------------------------------------
    def check_shared_arena(self, t: TileType, node) -> None:
        if t.storage != "shared":
            return
        size = t.size * T.type_size_in_bytes(t.dtype)
        if size > SHARED_ARENA_BYTES:
            self.error(KernelValueError, f"wp.{self.tile_name}: a shared tile of shape {t.shape} and dtype "
                                         f"{T.type_name(t.dtype)} needs {size} bytes, which exceeds the 256 KiB arena "
                                         "of a block's shared memory on the CPU; use a smaller tile or "
                                         "storage='register'", node)

    # --- subscripts ---------------------------------------------------------------------------
    def tile_subscript(self, base: ir.Var, index_nodes, node):
        """t[...] as TileOpForms reads it, after Warp's checks of the indices; a view with a step other
        than 1 is remembered (wp.tile_reshape refuses it, as Warp does)."""
        for n in index_nodes:
            if isinstance(n, S.Slice):
                continue
            v = self.expr(n)
            bad = isinstance(v, Lit) and v.kind != "int" or isinstance(v, ir.Var) and not _is_tile(v) and not \
                T.is_int_type(v.type)
            if bad:
                self.error(KernelTypeError, f"tile indices must be integers or slices, got {self.describe(v)}", node)
        result = super().tile_subscript(base, index_nodes, node)
        steps = [self.const_slice_part(n.step, node) for n in index_nodes if isinstance(n, S.Slice)]
        if _is_tile(result) and any(s not in (None, 1) for s in steps):
            self.strided_views[id(result)] = (result, True)
        return result

    @property
    def strided_views(self) -> dict:
        """id(tile) -> (tile, True) for views with a step (t[::2]), which wp.tile_reshape refuses."""
        if not hasattr(self, "_strided_views"):
            self._strided_views = {}
        return self._strided_views

    def tile_value(self, arg, node, what: str = "this argument") -> ir.Var:
        v = super().tile_value(arg, node, what)
        self.last_tile_argument = v  # what wp.tile_broadcast broadcasts
        if self.tile_name in _ORDERING and _is_struct(v.type.dtype):
            self.error(KernelTypeError, f"wp.{self.tile_name} does not support Warp struct dtypes (a struct has no "
                                        f"order), got {T.type_name(v.type)}; reduce one of its fields", node)
        if self.tile_name == "tile_reshape" and self.copied_from(v, self.strided_views):
            self.error(KernelValueError, "wp.tile_reshape requires a contiguous tile, but this is a strided or "
                                         "reversed view (a slice with a step); copy it first, e.g. with "
                                         "wp.tile_astype(view, dtype), then reshape the copy", node)
        return v

    def check_aug_target(self, target, node) -> None:
        """t[0:4, :] += v or t[0] += v: Warp refuses a compound assignment into a view of a tile; and
        t &= u on a tile of structs (or one of its elements)."""
        if node.op in ("bit_and", "bit_or", "bit_xor"):
            root = target.value if isinstance(target, S.Subscript) else target
            held = self.env.get(root.id) if isinstance(root, S.Name) else None
            t = getattr(held, "type", None)
            if _is_struct(t.dtype if isinstance(t, TileType) else t):
                self.error(KernelTypeError, "bitwise inplace operators (&=, |=, ^=) do not support Warp struct "
                                            "values; apply them to the struct's integer fields", node)
        if not (isinstance(target, S.Subscript) and isinstance(target.value, S.Name)):
            return
        base = self.env.get(target.value.id)
        if not _is_tile(base):
            return
        if len(target.indices) < base.type.ndim or any(isinstance(i, S.Slice) for i in target.indices):
            self.error(KernelValueError, "Compound assignment to a tile view (t[...] += v with a slice or fewer "
                                         "indices than the tile has axes) is not supported; write the sum out: "
                                         "t[...] = t[...] + v", node)

    def tile_array(self, arg, node) -> ir.Var:
        arr = super().tile_array(arg, node)
        scalar = getattr(arr.type.dtype, "_wp_scalar_type_", arr.type.dtype)
        if self.tile_name.startswith("tile_atomic_add") and scalar in _NO_ATOMIC_ADD:
            self.error(KernelUnsupportedError, f"wp.{self.tile_name} only supports arrays of 32- and 64-bit integers "
                                               f"and of floats (and vectors and matrices of them), got an array of "
                                               f"{T.type_name(arr.type.dtype)}: CUDA has no atomic add for it; "
                                               "accumulate in a wider type", node)
        return arr

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

    def form_tile_ones(self, node):
        from .typecheck_tile import TileForms

        self.tile_name = "tile_ones"
        a = self.tile_args(node, ("shape", "dtype", "storage"))
        if "dtype" in a and _is_struct(self.tile_dtype(a["dtype"], node)):
            self.error(KernelTypeError, "wp.tile_ones does not support Warp struct dtypes (a struct has no value "
                                        "one); use wp.tile_zeros or wp.tile_full with a struct value", node)
        return TileForms.form_tile_ones(self, node)

    # --- wp.tile_view -------------------------------------------------------------------------
    def form_tile_view(self, node):
        """wp.tile_view(t, offset, shape): Warp's checks of the offsets first; slice(...) offsets
        select as t[...] does."""
        from .typecheck_tile import TileForms

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
        return TileForms.form_tile_view(self, node)

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

    # --- wp.tile_axpy -------------------------------------------------------------------------
    def form_tile_axpy(self, node):
        """wp.tile_axpy(alpha, src, dest): dest += alpha * src. When dest is a broadcast of a shared
        tile, its elements share the source's storage (Warp's non-unique layout), so every
        contribution lands in the one element it maps to: the source gains alpha * src summed
        over the broadcast axes, and dest is the broadcast of the result."""
        from .typecheck_tile_ops import TileOpForms

        self.tile_name = "tile_axpy"
        a = self.tile_args(node, ("alpha", "src", "dest"), 3)
        dest = self.expr(a["dest"])
        origin = self.copied_from(dest, self.broadcast_sources) if isinstance(a["dest"], S.Name) else None
        if origin is None:
            return TileOpForms.form_tile_axpy(self, node)
        src = self.tile_value(a["src"], node, "src")
        if src.type.shape != dest.type.shape:
            self.error(KernelTypeError, f"wp.tile_axpy: src {src.type.shape} and dest {dest.type.shape} differ in "
                                        "shape", node)
        scaled = self.binary("mul", src, self.expr(a["alpha"]), node)
        folded = self.fold_to(scaled, origin.type.shape, node)
        updated = self.binary("add", origin, folded, node)
        again = self.tile_call("tile_broadcast", "wpnb::tile_broadcast<{R}, {C}, {SR}, {SC}>", dest.type, node,
                               (updated,), R=dest.type.rows, C=dest.type.cols,
                               **dict(zip(("SR", "SC"), self.aligned_source(origin.type, dest.type))))
        self.broadcast_sources[id(again)] = (again, updated)
        self.rebind(a["dest"], again, node)
        return None

    def fold_to(self, t: ir.Var, shape: tuple, node) -> ir.Var:
        """The 2-D (or 1-D) tile t summed over the axes where `shape` (right-aligned) has extent 1."""
        source = (1,) * (t.type.ndim - len(shape)) + tuple(shape)
        for axis in (0, 1)[:t.type.ndim]:
            if source[axis] == 1 and t.type.shape[axis] != 1:
                kept = t.type.shape[1 - axis] if t.type.ndim == 2 else 1
                summed = self.tile_call("tile_sum", f"wpnb::tile_sum_axis<{axis}>", TileType(t.type.dtype, (kept,)),
                                        node, (t,)) if t.type.ndim == 2 else \
                    self.tile_call("tile_sum", "wpnb::tile_sum", TileType(t.type.dtype, (1,)), node, (t,))
                keep = (1, kept) if axis == 0 else (kept, 1)
                t = self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", TileType(t.type.dtype, keep), node,
                                   (summed,), R=keep[0], C=keep[1])
        target = TileType(t.type.dtype, tuple(shape))
        return self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", target, node, (t,), R=target.rows,
                              C=target.cols)

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
        from .typecheck_tile import TileForms

        self.tile_name = "tile_broadcast"
        shape = self.tile_args(node, ("t", "shape", "storage"), 2)["shape"]
        if isinstance(shape, S.Tuple) and not 1 <= len(shape.elts) <= 4:
            self.error(KernelValueError, "tile_broadcast() output must have between one and four dimensions, got "
                                         f"{len(shape.elts)}", node)
        result = TileForms.form_tile_broadcast(self, node)
        source = self.last_tile_argument
        if source.type.storage == "shared" and result.type.ndim <= 2:
            self.broadcast_sources[id(result)] = (result, source)
        return result

