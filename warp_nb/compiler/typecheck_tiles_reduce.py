"""Tile reductions, for `typecheck`: wp.tile_reduce(f, t), wp.tile_sum / tile_min / tile_max /
tile_argmin / tile_argmax over all elements or along a constant axis, and wp.tile_dot.
A mixin of FunctionTyper."""

from __future__ import annotations

from . import ir
from .. import types as T
from ..builtins import registry
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError
from ..types.tiles import TileType
from .scope import PyObj


class TileReductions:
    def form_tile_reduce(self, node):
        self.tile_name = "tile_reduce"
        a = self.tile_args(node, ("op", "a", "axis"), 2)
        t = self.tile_value(a["a"], node, "the second argument")
        f = self.expr(a["op"])
        if isinstance(f, PyObj) and isinstance(f.obj, registry.Builtin) and getattr(t.type.dtype, "_wp_struct_", False) \
                and registry.resolve(f.obj, [t.type.dtype] * 2) is None:
            self.error(KernelTypeError, f"tile_reduce(): no overload of wp.{f.obj.name} accepts the Warp struct "
                                        f"{T.type_name(t.type.dtype)}", node)
        callee, ret = self.element_function(f, [t.type.dtype] * 2, node)
        if ret != t.type.dtype:
            self.error(KernelTypeError, f"wp.tile_reduce: f must return the tile element type "
                                        f"{T.type_name(t.type.dtype)}, got {T.type_name(ret)}", node)
        axis, shape = self.reduction_axis(t.type, a, node)
        fold = f"[](const auto& x, const auto& y) {{{{ return {callee}(x, y); }}}}"
        identity = _identity(f, t.type.dtype)  # what a line of no counted element (a partial block's) gives
        if identity is None and axis is not None:  # none: such a line is a failed check ({SITE}: emit's site)
            identity = "wpnb::no_identity({SITE})"
        fold += f", {identity}" if identity is not None else ""
        template = f"wpnb::reduce_with({fold})" if axis is None else f"wpnb::reduce_axis_with<{axis}>({fold})"
        return self.tile_call("tile_reduce", template, TileType(ret, shape), node, (t,))

    def reduction_axis(self, t: TileType, a: dict, node):
        """(the axis to reduce along, or None for all elements; the result's shape)."""
        if "axis" not in a or (isinstance(self.expr(a["axis"]), PyObj) and self.expr(a["axis"]).obj is None):
            return None, (1,)
        axis = self.const_int(a["axis"])
        if not -t.ndim <= axis < t.ndim:
            self.error(KernelTypeError, f"axis {axis} is out of range for a {t.ndim}-D tile", node)
        axis %= t.ndim
        self.only_2d(t, "reducing along an axis", node)
        if t.ndim == 1:
            return None, (1,)
        return axis, (t.shape[1 - axis],)

    def tile_reduction(self, node, name: str):
        """wp.tile_sum / tile_min / tile_max / tile_argmin / tile_argmax (a, axis=None)."""
        self.tile_name = name
        a = self.tile_args(node, ("a", "axis"), 1)
        t = self.tile_value(a["a"], node, "the argument")
        if name != "tile_sum":
            self.refuse_struct_tile(name, t.type.dtype, node, "its elements have no order")
        if name != "tile_sum" and not T.is_scalar_type(t.type.dtype):
            self.error(KernelTypeError, f"wp.{name} takes a tile of scalars, got {T.type_name(t.type)}", node)
        if name == "tile_sum" and t.type.ndim > 2 and "axis" in a:
            return self.sum_axis_nd(t, a, node)
        axis, shape = self.reduction_axis(t.type, a, node)
        dtype = T.int32 if name.startswith("tile_arg") else t.type.dtype
        template = f"wpnb::{name}" if axis is None else f"wpnb::{name}_axis<{axis}>"
        return self.tile_call(name, template, TileType(dtype, shape), node, (t,))

    def sum_axis_nd(self, t: ir.Var, a: dict, node):
        """wp.tile_sum(t, axis) of a 3-D or 4-D tile: the tile without that axis."""
        ndim = t.type.ndim
        axis = self.const_int(a["axis"])
        if not -ndim <= axis < ndim:
            self.error(KernelTypeError, f"axis {axis} is out of range for a {ndim}-D tile", node)
        axis %= ndim
        result = TileType(t.type.dtype, tuple(n for k, n in enumerate(t.type.shape) if k != axis))
        e = t.type.padded_shape
        return self.tile_call("tile_sum", "wpnb::tile_sum_axis_nd<{AX}, {E0}, {E1}, {E2}, {E3}, {R}, {C}>", result, node,
                              (t,), AX=axis + 4 - ndim, E0=e[0], E1=e[1], E2=e[2], E3=e[3], R=result.rows,
                              C=result.cols)

    def form_tile_sum(self, node):
        return self.tile_reduction(node, "tile_sum")

    def form_tile_min(self, node):
        return self.tile_reduction(node, "tile_min")

    def form_tile_max(self, node):
        return self.tile_reduction(node, "tile_max")

    def form_tile_argmin(self, node):
        return self.tile_reduction(node, "tile_argmin")

    def form_tile_argmax(self, node):
        return self.tile_reduction(node, "tile_argmax")

    def form_tile_dot(self, node):
        """wp.tile_dot(a, b): the sum of a * b's elements, as a tile of one element."""
        self.tile_name = "tile_dot"
        a = self.tile_args(node, ("a", "b"), 2)
        x, y = self.tile_value(a["a"], node, "a"), self.tile_value(a["b"], node, "b")
        kind = T.kind_of(x.type.dtype)
        if kind in ("vector", "quaternion", "matrix") and x.type.dtype == y.type.dtype and x.type.shape == y.type.shape:
            # a full contraction: each pair of elements' dot (ddot for matrices), summed
            fn = BUILTINS["ddot" if kind == "matrix" else "dot"]
            resolved = registry.resolve(fn, [x.type.dtype] * 2)
            product = self.map_call(fn.symbol, resolved.result, [x, y], node)
        else:
            product = self.binary("mul", x, y, node)
        return self.tile_call("tile_dot", "wpnb::tile_sum", TileType(product.type.dtype, (1,)), node, (product,))


def _identity(f, dtype) -> str | None:
    """The C++ identity of a builtin tile_reduce operator on scalars (wp.add, wp.mul, wp.min,
    wp.max); None for others (a @wp.func declares none)."""
    if not (isinstance(f, PyObj) and isinstance(f.obj, registry.Builtin) and T.is_scalar_type(dtype)):
        return None
    from .emit.cpp import cpp_type
    c = cpp_type(dtype)
    return {"add": f"{c}(0)", "mul": f"{c}(1)", "min": f"wpnb::tile_top<{c}>()",
            "max": f"wpnb::tile_bottom<{c}>()"}.get(f.obj.name)
