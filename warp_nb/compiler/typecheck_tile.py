"""The tile builtins whose arguments are shapes, dtypes or functions (tile_zeros(shape, dtype),
tile_load(a, shape, offset), tile_map(f, t) ...), for `typecheck`: each is typed here into a call
of a native template (native/tile.h) whose shape parameters come from the constants. Shapes and
element types are checked here, so a mismatch is reported at the user's line before any C++ is
written. A mixin of FunctionTyper; the tile builtins with plain signatures are in builtins/tiles.py."""

from __future__ import annotations

import math

from . import ir
from . import syntax as S
from .. import types as T
from ..builtins import registry
from ..builtins.registry import BUILTINS, Overload, Resolved
from ..errors import KernelTypeError, KernelValueError
from ..types.array_type import ArrayType
from ..types.scalars import canonical_scalar
from ..types.tiles import TileType, tile_type
from .scope import ConstValue, Lit, PyObj, classify
from .typecheck_construct import Constructors


class TileForms(Constructors):
    # --- helpers --------------------------------------------------------------------------
    def tile_call(self, name: str, template: str, result, node, args=(), **bindings):
        """A call of the native template `template` (with {R}, {C}, {T} ... filled from `bindings`);
        a result-less call is kept as a statement."""
        b = BUILTINS[name]
        self.context.uses_blocks = True  # compiled again for each lane count it is launched with
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
        # a local bound to an integer outside any loop (n = 3) is a constant, as in Warp
        items = tuple(Lit(self.bound_constants[id(x)], "int") if isinstance(x, ir.Var) and isinstance(
            self.bound_constants.get(id(x)), int) else x for x in (v if isinstance(v, tuple) else (v,)))
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
        if not (T.is_scalar_type(t) or T.is_composite_type(t) or getattr(t, "_wp_struct_", False)):
            self.error(KernelTypeError, "dtype must be a scalar, vector, matrix or @wp.struct type such as float or "
                                        "wp.vec3", node)
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
            if isinstance(x, Lit) and x.kind not in ("int", "bool"):
                self.error(KernelTypeError, f"tile offsets must be integers, got {self.describe(x)}", node)
            x = self.materialize(x, T.int32, node) if isinstance(x, Lit) else x
            if not (isinstance(x, ir.Var) and T.is_int_type(x.type)):
                self.error(KernelTypeError, f"tile offsets must be integers, got {self.describe(x)}", node)
            out.append(x)
        return out

    def tile_array(self, arg, node) -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, ArrayType) and v.type.kind == "array"):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a wp.array, got {self.describe(v)}", node)
        return v

    def only_2d(self, t: TileType, what: str, node) -> None:
        if t.ndim > 2:
            self.error(KernelTypeError, f"{what} of {t.ndim}-D tiles is not supported by warp_nb yet (1-D and 2-D "
                                        "tiles only); reshape to 2-D with wp.tile_reshape first", node)

    # --- construction ---------------------------------------------------------------------
    def form_tile_zeros(self, node):
        return self.filled_tile(node, None, "zeros")

    def form_tile_empty(self, node):
        """Warp leaves an empty tile's values unspecified; warp_nb zeroes them."""
        return self.filled_tile(node, None, "empty")

    def form_tile_ones(self, node):
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

    def const_number(self, arg):
        """A number known when the kernel is compiled (a literal, a wp.constant, a local bound to a
        number), or None."""
        if isinstance(arg, S.Name):
            local = self.env.get(arg.id)
            if isinstance(local, ir.Var):
                return self.bound_constants.get(id(local))
            if local is None:
                found = classify(self.scope.lookup(arg.id))
                if isinstance(found, ConstValue) and T.is_scalar_type(found.type) and found.type is not T.bool:
                    return found.value
        v = self.expr(arg)
        return v.value if isinstance(v, Lit) and v.kind in ("int", "float") else None

    def const_shape_of(self, shape: tuple, node) -> tuple:
        try:
            return tile_type(T.float32, shape).shape
        except TypeError as e:
            self.error(KernelTypeError, str(e), node)

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
        """wp.tile_map(f, a, ...): f per element of 1 to 4 tiles of one shape; a value that is not a tile
        is used for every element."""
        self.tile_name = "tile_map"
        if not 2 <= len(node.args) <= 5 or node.kwargs:
            self.error(KernelTypeError, "wp.tile_map(f, a, ...) takes a function and 1 to 4 tiles or values", node)
        values = [self.expr(x) for x in node.args[1:]]
        tiles = [v for v in values if isinstance(v, ir.Var) and isinstance(v.type, TileType)]
        if not tiles:
            self.error(KernelTypeError, "wp.tile_map needs at least one tile after the function", node)
        shape = tiles[0].type.shape
        if any(t.type.shape != shape for t in tiles):
            self.error(KernelTypeError, f"wp.tile_map: tiles of shapes {[t.type.shape for t in tiles]}; they must "
                                        "have the same shape", node)
        spread = []
        for v in values:
            if isinstance(v, ir.Var) and isinstance(v.type, TileType):
                spread.append(v)
                continue
            x = self.materialize(v, None, node) if isinstance(v, Lit) else v
            if not isinstance(x, ir.Var):
                self.error(KernelTypeError, f"wp.tile_map cannot take {self.describe(v)}", node)
            spread.append(self.spread(x, x.type, shape, node))
        callee, ret = self.element_function(self.expr(node.args[0]), [t.type.dtype for t in spread], node)
        return self.map_call(callee, ret, spread, node)

    def spread(self, value, t, shape, node) -> ir.Var:
        """A value as a tile of `shape` holding it in every element (tile_full)."""
        x = self.materialize(value, t, node) if isinstance(value, Lit) else self.convert(value, t, node)
        result = TileType(x.type, shape)
        return self.tile_call("tile_full", "wpnb::tile_full<{T}, {R}, {C}>", result, node, (x,), T=x.type,
                              R=result.rows, C=result.cols)

    def map_call(self, callee: str, ret, tiles: list, node) -> ir.Var:
        """The C++ function `callee` per element of `tiles` (one shape), as a tile of `ret`; its adjoint
        calls adj_<callee> per element (x..., adj_x..., adj_ret), as every adjoint is called."""
        n = len(tiles)
        params = ", ".join(f"const auto& x{k}" for k in range(n))
        call = ", ".join(f"x{k}" for k in range(n))
        template = f"wpnb::map_with([]({params}) {{{{ return {callee}({call}); }}}})"
        ns, _, name = callee.rpartition("::")
        adj_callee = f"{ns}::adj_{name}" if ns else f"adj_{name}"
        adj_params = ", ".join([f"const auto& x{k}" for k in range(n)] + [f"auto& adj_x{k}" for k in range(n)])
        adj_args = ", ".join([f"x{k}" for k in range(n)] + [f"adj_x{k}" for k in range(n)] + ["adj_r"])
        adjoint = f"wpnb::adj_map_with([]({adj_params}, const auto& adj_r) {{{{ {adj_callee}({adj_args}); }}}})"
        return self.tile_call("tile_map", template, TileType(ret, tiles[0].type.shape), node, tuple(tiles),
                              adjoint=adjoint)

    # --- shapes ---------------------------------------------------------------------------
    def form_tile_view(self, node):
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

    def form_tile_broadcast(self, node):
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

    def form_tile_astype(self, node):
        self.tile_name = "tile_astype"
        a = self.tile_args(node, ("t", "dtype"), 2)
        t = self.tile_value(a["t"], node, "the first argument")
        dtype = self.tile_dtype(a["dtype"], node)
        return self.tile_call("tile_astype", "wpnb::tile_astype<{U}>", TileType(dtype, t.type.shape), node, (t,),
                              U=dtype)
