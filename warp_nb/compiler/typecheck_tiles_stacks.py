"""Tile stacks, for `typecheck`: wp.tile_stack(capacity, dtype) and its push, pop, clear and
count (native/tiles/tile_stack.h); every call that changes a stack rebinds its variable.
A mixin of FunctionTyper."""

from __future__ import annotations

from . import ir
from .. import types as T
from ..builtins import registry
from ..errors import KernelTypeError
from ..types.tiles import StackType, stack_type
from .scope import Lit
from .typecheck_expr import TupleValue


class TileStacks:
    def stack_value(self, arg, node) -> ir.Var:
        v = self.expr(arg)
        if not (isinstance(v, ir.Var) and isinstance(v.type, StackType)):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a wp.tile_stack, got {self.describe(v)}", node)
        return v

    def form_tile_stack(self, node):
        self.tile_name = "tile_stack"
        a = self.tile_args(node, ("capacity", "dtype"), 2)
        cap = self.expr(a["capacity"])
        if not (isinstance(cap, Lit) and cap.kind == "int"):
            self.error(KernelTypeError, "wp.tile_stack: no overload takes this capacity; it must be a positive "
                                        "integer constant", node)
        try:
            t = stack_type(int(cap.value), self.tile_dtype(a["dtype"], node))
        except (TypeError, ValueError) as e:
            self.error(KernelTypeError, str(e), node)
        return self.let(ir.Construct(t, ()), t, node.loc)

    def form_tile_stack_push(self, node):
        """wp.tile_stack_push(s, value, has_value=True): s rebound with value pushed; the slot, or -1."""
        self.tile_name = "tile_stack_push"
        a = self.tile_args(node, ("s", "value", "has_value"), 2)
        s = self.stack_value(a["s"], node)
        v, dtype = self.expr(a["value"]), s.type.dtype
        fits = registry.Literal(v.kind, v.value).fits(dtype) if isinstance(v, Lit) else \
            isinstance(v, ir.Var) and v.type == dtype
        if not fits:
            self.error(KernelTypeError, f"wp.tile_stack_push: the value's type {self.describe(v)} does not match the "
                                        f"stack's dtype {T.type_name(dtype)}", node)
        v = self.materialize(v, dtype, node)
        has = self.condition(a["has_value"]) if "has_value" in a else self.materialize(Lit(True, "bool"), T.bool, node)
        lanes = self.context.block_dim  # several lanes: every lane pushes its value (native/tiles/tile_block.h)
        each = f"_lanes<{lanes}>" if lanes > 1 else ""
        slot = self.tile_call("tile_stack_push", f"wpnb::tile_stack_push_slot{each}", T.int32, node, (s, has))
        self.rebind(a["s"], self.tile_call("tile_stack_push", f"wpnb::tile_stack_pushed{each}", s.type, node,
                                           (s, v, has)), node)
        return slot  # the slot pushed to, or -1

    def form_tile_stack_pop(self, node):
        """(value, slot) of the top, then the stack rebound without it."""
        self.tile_name = "tile_stack_pop"
        a = self.tile_args(node, ("s",), 1)
        s = self.stack_value(a["s"], node)
        lanes = self.context.block_dim  # several lanes: each pops one value
        each = f"_lanes<{lanes}>" if lanes > 1 else ""
        value = self.tile_call("tile_stack_pop", f"wpnb::tile_stack_top{each}", s.type.dtype, node, (s,))
        slot = self.tile_call("tile_stack_pop", f"wpnb::tile_stack_top_slot{each}", T.int32, node, (s,))
        self.rebind(a["s"], self.tile_call("tile_stack_pop", f"wpnb::tile_stack_popped{each}", s.type, node, (s,)),
                    node)
        return TupleValue((value, slot))

    def form_tile_stack_clear(self, node):
        self.tile_name = "tile_stack_clear"
        a = self.tile_args(node, ("s",), 1)
        s = self.stack_value(a["s"], node)
        self.rebind(a["s"], self.tile_call("tile_stack_clear", "wpnb::tile_stack_cleared", s.type, node, (s,)), node)
        return None

    def form_tile_stack_count(self, node):
        self.tile_name = "tile_stack_count"
        a = self.tile_args(node, ("s",), 1)
        return self.tile_call("tile_stack_count", "wpnb::tile_stack_count", T.int32, node,
                              (self.stack_value(a["s"], node),))
