"""What every tile rule of the typer shares, for `typecheck`: reading a tile builtin's arguments
(keywords, constant shapes, dtypes, storage, offsets, tile and array operands, with Warp's
refusals of what a tile may not be there), the typed call of a native template (native/tile*.h)
that each rule ends in, and rebinding a variable a builtin updates. Each tile builtin names its
rule in the registry (`form=`: the method `form_<form>` of a mixin in typecheck_tiles_*.py).
A mixin of FunctionTyper; knows nothing about C++ beyond template names."""

from __future__ import annotations

from . import ir, syntax as S
from .. import types as T
from ..builtins.registry import BUILTINS, Overload, Resolved
from ..errors import KernelTypeError, KernelValueError
from ..types.array_type import ArrayType
from ..types.scalars import canonical_scalar
from ..types.tiles import TileType, tile_type
from .scope import ConstValue, Lit, PyObj, classify

#: reductions that order the elements, which a struct has no order for
_ORDERING = ("tile_min", "tile_max", "tile_argmin", "tile_argmax")


def is_tile(v) -> bool:
    """A typed value holding a tile."""
    return isinstance(v, ir.Var) and isinstance(v.type, TileType)


def is_struct(t) -> bool:
    """A @wp.struct type (tiles of structs have rules of their own)."""
    return bool(getattr(t, "_wp_struct_", False))


class TileArguments:
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

    def plain_tile_value(self, arg, node, what: str = "this argument") -> ir.Var:
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

    def plain_tile_array(self, arg, node) -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, ArrayType) and v.type.kind == "array"):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a wp.array, got {self.describe(v)}", node)
        return v

    def only_2d(self, t: TileType, what: str, node) -> None:
        if t.ndim > 2:
            self.error(KernelTypeError, f"{what} of {t.ndim}-D tiles is not supported by warp_nb yet (1-D and 2-D "
                                        "tiles only); reshape to 2-D with wp.tile_reshape first", node)

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

    def rebind(self, arg, value, node) -> None:
        if not isinstance(arg, S.Name):
            self.error(KernelTypeError, f"wp.{self.tile_name} updates its argument in place: pass a tile variable",
                       node)
        self.bind(arg.id, value, node)

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

    @property
    def strided_views(self) -> dict:
        """id(tile) -> (tile, True) for views with a step (t[::2]), which wp.tile_reshape refuses."""
        if not hasattr(self, "_strided_views"):
            self._strided_views = {}
        return self._strided_views

    def tile_value(self, arg, node, what: str = "this argument") -> ir.Var:
        v = self.plain_tile_value(arg, node, what)
        self.last_tile_argument = v  # what wp.tile_broadcast broadcasts
        if self.tile_name in _ORDERING and is_struct(v.type.dtype):
            self.error(KernelTypeError, f"wp.{self.tile_name} does not support Warp struct dtypes (a struct has no "
                                        f"order), got {T.type_name(v.type)}; reduce one of its fields", node)
        if self.tile_name == "tile_reshape" and self.copied_from(v, self.strided_views):
            self.error(KernelValueError, "wp.tile_reshape requires a contiguous tile, but this is a strided or "
                                         "reversed view (a slice with a step); copy it first, e.g. with "
                                         "wp.tile_astype(view, dtype), then reshape the copy", node)
        return v
