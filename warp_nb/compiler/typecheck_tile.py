"""The tile builtins whose arguments are shapes, dtypes or functions (tile_zeros(shape, dtype),
tile_load(a, shape, offset), tile_map(f, t) ...), for `typecheck`: each is typed here into a call
of a native template (native/tile.h) whose shape parameters come from the constants. Shapes and
element types are checked here, so a mismatch is reported at the user's line before any C++ is
written. A mixin of FunctionTyper; the tile builtins with plain signatures are in builtins/tiles.py."""

from __future__ import annotations

import math

from . import ir
from .. import types as T
from ..builtins import registry
from ..builtins.registry import BUILTINS, Overload, Resolved
from ..errors import KernelTypeError
from ..types.array_type import ArrayType
from ..types.scalars import canonical_scalar
from ..types.tiles import TileType, tile_type
from .scope import Lit, PyObj
from .typecheck_construct import Constructors


class TileForms(Constructors):
    # --- helpers --------------------------------------------------------------------------
    def tile_call(self, name: str, template: str, result, node, args=(), **bindings):
        """A call of the native template `template` (with {R}, {C}, {T} ... filled from `bindings`);
        a result-less call is kept as a statement."""
        b = BUILTINS[name]
        resolved = Resolved(Overload((), result, (), template), tuple(a.type for a in args), result, bindings)
        call = ir.Call(b, tuple(args), resolved)
        if result is None:
            self.block.append(ir.Effect(call, node.loc))
            return None
        return self.let(call, result, node.loc)

    def tile_args(self, node, names, required=1):
        a = self._named(node, names, {})
        missing = [n for n in names[:required] if n not in a]
        if missing:
            self.error(KernelTypeError, f"wp.{self.tile_name} needs the argument `{missing[0]}`", node)
        return a

    def const_shape(self, arg, node) -> tuple:
        """A tile shape: an int constant or a tuple of int constants."""
        v = self.expr(arg)
        items = v if isinstance(v, tuple) else (v,)
        if not all(isinstance(x, Lit) and x.kind == "int" for x in items):
            self.error(KernelTypeError, "a tile shape must be an integer constant or a tuple of them, such as "
                                        "shape=(TILE_M, TILE_N) with TILE_M = wp.constant(16)", node)
        try:
            return tile_type(T.float32, tuple(int(x.value) for x in items)).shape
        except TypeError as e:
            self.error(KernelTypeError, str(e), node)

    def tile_dtype(self, arg, node, default=T.float32):
        if arg is None:
            return default
        v = self.expr(arg)
        t = canonical_scalar(v.obj) if isinstance(v, PyObj) else None
        if not (T.is_scalar_type(t) or T.is_composite_type(t)):
            self.error(KernelTypeError, "dtype must be a scalar, vector or matrix type such as float or wp.vec3", node)
        return t

    def tile_storage(self, a: dict, node) -> str:
        if "storage" not in a:
            return "register"
        v = self.expr(a["storage"])
        if not (isinstance(v, PyObj) and v.obj in ("register", "shared")):
            self.error(KernelTypeError, "storage must be 'register' or 'shared'", node)
        return v.obj

    def tile_value(self, arg, node, what: str = "this argument") -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, TileType)):
            self.error(KernelTypeError, f"{what} must be a tile, got {self.describe(v)}", node)
        return v

    def tile_offsets(self, arg, ndim: int, node) -> list:
        """The offset argument of a load or store: ndim integers (constants or variables), zeros if absent."""
        if arg is None:
            return [self.materialize(Lit(0, "int"), T.int32, node) for _ in range(ndim)]
        v = self.expr(arg)
        items = list(v) if isinstance(v, tuple) else [v]
        if len(items) != ndim:
            self.error(KernelTypeError, f"offset has {len(items)} entries but the tile has {ndim} dimensions", node)
        out = []
        for x in items:
            x = self.materialize(x, T.int32, node) if isinstance(x, Lit) else x
            if not (isinstance(x, ir.Var) and T.is_int_type(x.type)):
                self.error(KernelTypeError, f"tile offsets must be integers, got {self.describe(x)}", node)
            out.append(x)
        return out

    def tile_array(self, arg, node) -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, ArrayType) and v.type.kind == "array"):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a wp.array, got {self.describe(v)}", node)
        if v.type.ndim > 2:
            self.error(KernelTypeError, f"wp.{self.tile_name}: warp_nb's tiles have one or two dimensions; this "
                                        f"array has {v.type.ndim}", node)
        return v

    # --- construction ---------------------------------------------------------------------
    def form_tile_zeros(self, node):
        return self.filled_tile(node, None, "zeros")

    def form_tile_ones(self, node):
        return self.filled_tile(node, Lit(1, "int"), "ones")

    def form_tile_full(self, node):
        a = self.tile_args(node, ("shape", "value", "dtype", "storage"), 2)
        return self.filled_tile(node, self.expr(a["value"]), "full", a)

    def filled_tile(self, node, value, what: str, a: dict | None = None):
        self.tile_name = f"tile_{what}"
        a = a or self.tile_args(node, ("shape", "dtype", "storage"))
        dtype = self.tile_dtype(a.get("dtype"), node, T.float32)
        result = TileType(dtype, self.const_shape(a["shape"], node), self.tile_storage(a, node))
        if value is None:
            fill = self.let(ir.Construct(dtype, ()), dtype, node.loc)
        else:
            fill = self.convert(value, dtype, node, "the fill value")
        return self.tile_call(f"tile_{what}", "wpnb::tile_full<{T}, {R}, {C}>", result, node, (fill,), T=dtype,
                              R=result.rows, C=result.cols)

    def form_tile_arange(self, node):
        self.tile_name = "tile_arange"
        bounds = [self.expr(x) for x in node.args]
        kw = dict(node.kwargs)
        if not 1 <= len(bounds) <= 3 or not all(isinstance(x, Lit) and x.kind in ("int", "float") for x in bounds):
            self.error(KernelTypeError, "wp.tile_arange takes 1 to 3 constant bounds: (stop), (start, stop) or "
                                        "(start, stop, step); they fix the tile's length", node)
        values = [x.value for x in bounds]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
        if step == 0:
            self.error(KernelTypeError, "wp.tile_arange: step must not be zero", node)
        n = max(0, math.ceil((stop - start) / step))
        is_float = any(x.kind == "float" for x in bounds)
        dtype = self.tile_dtype(kw.get("dtype"), node, T.float32 if is_float else T.int32)
        result = TileType(dtype, self.const_shape_of((n,), node), self.tile_storage(kw, node))
        first = self.materialize(Lit(dtype._convert(start), dtype._kind), dtype, node)
        delta = self.materialize(Lit(dtype._convert(step), dtype._kind), dtype, node)
        return self.tile_call("tile_arange", "wpnb::tile_arange<{T}, {R}>", result, node, (first, delta), T=dtype,
                              R=n)

    def const_shape_of(self, shape: tuple, node) -> tuple:
        try:
            return tile_type(T.float32, shape).shape
        except TypeError as e:
            self.error(KernelTypeError, str(e), node)

    def form_tile(self, node):
        """wp.tile(x): the block's values of x; one thread per block here, so a 1-element tile."""
        self.tile_name = "tile"
        a = self.tile_args(node, ("x", "preserve_type"))
        x = self.expr(a["x"])
        x = self.materialize(x, None, node) if isinstance(x, Lit) else x
        if not isinstance(x, ir.Var) or not (T.is_scalar_type(x.type) or T.is_composite_type(x.type)):
            self.error(KernelTypeError, f"wp.tile takes a scalar, vector or matrix value, got {self.describe(x)}", node)
        preserve = self.expr(a["preserve_type"]) if "preserve_type" in a else Lit(False, "bool")
        if T.is_composite_type(x.type) and not (isinstance(preserve, Lit) and preserve.value):
            self.error(KernelTypeError, "wp.tile of a vector or matrix without preserve_type=True (a tile of its "
                                        "components) is not supported yet; pass preserve_type=True", node)
        return self.tile_call("tile", "wpnb::tile_from_value", TileType(x.type, (1,)), node, (x,))

    # --- memory ---------------------------------------------------------------------------
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
        template = "wpnb::tile_load<{T}, {R}>" if len(shape) == 1 else "wpnb::tile_load<{T}, {R}, {C}>"
        return self.tile_call("tile_load", template, result, node, (arr, *offsets), T=arr.type.dtype,
                              R=result.rows, C=result.cols)

    def form_tile_store(self, node):
        return self.store_like(node, "tile_store", None)

    def form_tile_atomic_add(self, node):
        return self.store_like(node, "tile_atomic_add", True)

    def store_like(self, node, name: str, returns):
        self.tile_name = name
        a = self.tile_args(node, ("a", "t", "offset", "bounds_check"), 2)
        arr = self.tile_array(a["a"], node)
        t = self.tile_value(a["t"], node, "the second argument")
        if t.type.ndim != arr.type.ndim:
            self.error(KernelTypeError, f"wp.{name}: a {t.type.ndim}-D tile into a {arr.type.ndim}-D array", node)
        if t.type.dtype != arr.type.dtype:
            self.error(KernelTypeError, f"wp.{name}: the tile holds {T.type_name(t.type.dtype)} but the array holds "
                                        f"{T.type_name(arr.type.dtype)}; convert with wp.tile_astype", node)
        offsets = self.tile_offsets(a.get("offset"), arr.type.ndim, node)
        result = TileType(t.type.dtype, t.type.shape) if returns else None
        return self.tile_call(name, f"wpnb::{name}", result, node, (arr, t, *offsets))

    # --- functions over elements ----------------------------------------------------------
    def element_function(self, f, dtypes: list, node) -> tuple:
        """(C++ callee, result type) of builtin or @wp.func `f` applied to elements of `dtypes`."""
        if isinstance(f, PyObj) and isinstance(f.obj, registry.Builtin) and not f.obj.special:
            resolved = registry.resolve(f.obj, list(dtypes))
            if resolved is None or resolved.overload.template is not None or resolved.result is None:
                got = ", ".join(T.type_name(t) for t in dtypes)
                self.error(KernelTypeError, f"wp.{f.obj.name} cannot be applied to tile elements ({got})", node)
            return f.obj.symbol, resolved.result
        if isinstance(f, PyObj) and getattr(f.obj, "_wp_func_", False):
            elements = [self.new_var(t, "element") for t in dtypes]
            inst, _ = self.function_instance(f.obj, elements, node)
            if inst.return_type is None:
                self.error(KernelTypeError, f"`{f.obj.key}` returns nothing; tile_map needs a value per element", node)
            return inst.symbol, inst.return_type
        self.error(KernelTypeError, f"the first argument must be a wp builtin or a @wp.func, got {self.describe(f)}",
                   node)

    def form_tile_map(self, node):
        self.tile_name = "tile_map"
        if len(node.args) not in (2, 3) or node.kwargs:
            self.error(KernelTypeError, "wp.tile_map(f, a) or wp.tile_map(f, a, b)", node)
        tiles = [self.tile_value(x, node, "each argument after the function") for x in node.args[1:]]
        if len(tiles) == 2 and tiles[0].type.shape != tiles[1].type.shape:
            self.error(KernelTypeError, f"wp.tile_map: tiles of shapes {tiles[0].type.shape} and "
                                        f"{tiles[1].type.shape}; they must have the same shape", node)
        callee, ret = self.element_function(self.expr(node.args[0]), [t.type.dtype for t in tiles], node)
        params = ", ".join(f"const auto& x{k}" for k in range(len(tiles)))
        call = ", ".join(f"x{k}" for k in range(len(tiles)))
        template = f"wpnb::map_with([]({params}) {{{{ return {callee}({call}); }}}})"
        return self.tile_call("tile_map", template, TileType(ret, tiles[0].type.shape), node, tuple(tiles))

    def form_tile_reduce(self, node):
        self.tile_name = "tile_reduce"
        if len(node.args) != 2 or node.kwargs:
            self.error(KernelTypeError, "wp.tile_reduce(f, a)", node)
        t = self.tile_value(node.args[1], node, "the second argument")
        callee, ret = self.element_function(self.expr(node.args[0]), [t.type.dtype] * 2, node)
        if ret != t.type.dtype:
            self.error(KernelTypeError, f"wp.tile_reduce: f must return the elements' type {T.type_name(t.type.dtype)}",
                       node)
        template = f"wpnb::reduce_with([](const auto& x, const auto& y) {{{{ return {callee}(x, y); }}}})"
        return self.tile_call("tile_reduce", template, TileType(ret, (1,)), node, (t,))

    # --- shapes ---------------------------------------------------------------------------
    def form_tile_view(self, node):
        self.tile_name = "tile_view"
        a = self.tile_args(node, ("t", "offset", "shape"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
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
        vr, vc = (view + (1,))[:2]
        return self.tile_call("tile_view", "wpnb::tile_view<{VR}, {VC}, {R}, {C}>", result, node, (t, *offsets[:2]),
                              VR=vr, VC=vc, R=result.rows, C=result.cols)

    def form_tile_broadcast(self, node):
        self.tile_name = "tile_broadcast"
        a = self.tile_args(node, ("t", "shape", "storage"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        shape = self.const_shape(a["shape"], node)
        if t.type.ndim > len(shape):
            self.error(KernelTypeError, f"wp.tile_broadcast: cannot broadcast shape {t.type.shape} to {shape}", node)
        source = (1,) * (len(shape) - t.type.ndim) + tuple(t.type.shape)  # numpy's rule: align on the right
        if any(s not in (1, n) for s, n in zip(source, shape)):
            self.error(KernelTypeError, f"wp.tile_broadcast: cannot broadcast shape {t.type.shape} to {shape} (each "
                                        "extent must match or be 1)", node)
        result = TileType(t.type.dtype, shape)
        sr, sc = (source + (1,))[:2]
        return self.tile_call("tile_broadcast", "wpnb::tile_broadcast<{R}, {C}, {SR}, {SC}>", result, node, (t,),
                              R=result.rows, C=result.cols, SR=sr, SC=sc)

    def form_tile_reshape(self, node):
        self.tile_name = "tile_reshape"
        a = self.tile_args(node, ("t", "shape", "storage"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        shape = self.const_shape(a["shape"], node)
        if math.prod(shape) != t.type.size:
            self.error(KernelTypeError, f"wp.tile_reshape: cannot reshape a tile of shape {t.type.shape} "
                                        f"({t.type.size} elements) to {shape}", node)
        result = TileType(t.type.dtype, shape)
        return self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", result, node, (t,), R=result.rows,
                              C=result.cols)

    def form_tile_astype(self, node):
        self.tile_name = "tile_astype"
        a = self.tile_args(node, ("t", "dtype"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        dtype = self.tile_dtype(a["dtype"], node)
        return self.tile_call("tile_astype", "wpnb::tile_astype<{U}>", TileType(dtype, t.type.shape), node, (t,),
                              U=dtype)

    def tile_subscript(self, base: ir.Var, index_nodes, node):
        """t[i] / t[i, j]: one element (wp.tile_extract)."""
        if len(index_nodes) != base.type.ndim:
            self.error(KernelTypeError, f"a {base.type.ndim}-D tile takes {base.type.ndim} indices, got "
                                        f"{len(index_nodes)}", node)
        return self.call_builtin(BUILTINS["tile_extract"], [base, *self.indices(index_nodes, node)], node)


#: The tile special forms, by builtin name (merged into typecheck_special.SPECIAL_FORMS).
TILE_FORMS = {name: getattr(TileForms, f"form_{name}") for name in (
    "tile", "tile_zeros", "tile_ones", "tile_full", "tile_arange", "tile_load", "tile_store", "tile_atomic_add",
    "tile_map", "tile_reduce", "tile_view", "tile_broadcast", "tile_reshape", "tile_astype")}
