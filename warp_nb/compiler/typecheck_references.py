"""What a kernel may pass where Warp takes storage rather than a value: the arguments of wp.ref[T]
parameters, and wp.address_of(x). Both take something that can be written: a variable, an array
element, a struct field or a component, named from a variable (not a call's result or a temporary).

A wp.ref[T] argument is passed as a copy that the callee writes through a C++ reference and the
caller takes back after the call (typecheck_tiles_parts.reference_args); the adjoint of such a call
takes the adjoint of the value after it and gives that of the value before it (compiler/adjoint.py).
wp.address_of gives the real address: of the array's memory for an element, of a variable the
kernel keeps (mutable) for a local. A mixin of FunctionTyper; knows nothing about C++ text."""

from __future__ import annotations

from . import ir
from . import syntax as S
from .. import types as T
from ..types.array_type import ArrayType
from ..types.reference import Reference
from ..errors import KernelTypeError


class References:
    def check_reference_args(self, func, overload, args, arg_nodes, node) -> None:
        """Each wp.ref[T] argument names storage that can be written. As in Warp, a kernel whose
        backward pass is built may call such a function only when its adjoint is written by hand
        (@wp.func_grad, or a @wp.func_native with an adj_snippet). The adjoint pass could
        differentiate a user function's writes too (it does for tiles), but a kernel Warp refuses
        is refused here as well, with Warp's words."""
        refs = [k for k, p in enumerate(overload.params) if isinstance(p, Reference) and k < len(args)]
        if not refs:
            return
        if (self.context.backward or self.context.backward_enabled) and not _hand_written_adjoint(overload):
            self.error(KernelTypeError, f"Cannot call '{func.key}' with wp.ref[T] parameters from a backward-enabled "
                                        "kernel. Use enable_backward=False on the kernel, or switch to "
                                        "@wp.func_native with adj_snippet for a manually written adjoint.", node)
        for k in refs:
            p = overload.params[k]
            where = f"argument {k + 1} of `{func.key}` (a wp.ref[{T.type_name(p.dtype)}] parameter)"
            self.check_writable(args[k], arg_nodes[k] if arg_nodes and k < len(arg_nodes) else None,
                                f"{where} must be", node)

    def check_writable(self, value, target, what: str, node) -> None:
        """`value`, typed from the expression `target`, is storage a reference can be taken to."""
        root = target
        while isinstance(root, (S.Subscript, S.Attribute)):
            root = root.value
        rooted = self.env.get(root.id) if isinstance(root, S.Name) else None
        if isinstance(rooted, ir.Var):
            if id(rooted) in self.bound_constants:
                literal = self.bound_constants[id(rooted)]
                self.error(KernelTypeError, f"Error taking a mutable reference to constant local '{root.id}', use the "
                                            f"following syntax: {root.id} = wp.{T.type_name(rooted.type)}({literal!r})"
                                            " to declare a dynamic variable", node)
            if isinstance(value, ir.Var):
                return
        self.error(KernelTypeError, f"{what} a variable, an array element, a struct field or a component that can be "
                                    f"written, not {self.describe(value)}", node)

    # --- wp.address_of ------------------------------------------------------------------
    def form_address_of(self, node):
        """wp.address_of(x): the address of x's storage as a uint64, for a @wp.func_native snippet
        to read or write through."""
        if len(node.args) != 1 or node.kwargs:
            self.error(KernelTypeError, "wp.address_of() takes one argument: a variable, an array element, a "
                                        "struct field or a component", node)
        target = node.args[0]
        chain, root = [], target
        while isinstance(root, (S.Subscript, S.Attribute)):
            chain.append(root)
            root = root.value
        chain.reverse()
        value = self.expr(target)
        self.check_writable(value, target, "wp.address_of() takes", node)
        base = self.env[root.id]
        for k, step in enumerate(chain):  # up to an array element: an address in the array's memory
            if isinstance(base.type, ArrayType) and isinstance(step, S.Subscript):
                indices = self.indices(step.indices, step, "array indices")
                if len(indices) < base.type.ndim:  # a[i]: a view, then indexed further
                    base = self.expr_step(base, step)
                    continue
                path, _ = self.store_path(base.type.dtype, chain[k + 1:], node)
                self.checks.append(step.loc)
                return self.let(ir.AddressOf(base, tuple(indices), tuple(path)), T.uint64, node.loc, "addr")
            break
        if isinstance(base.type, ArrayType):
            self.error(KernelTypeError, "wp.address_of() takes an element of an array, not the array", node)
        # a local (or a part of one): the kernel keeps it in a variable of its own from here on
        if not base.mutable:
            kept = self.new_var(base.type, root.id, mutable=True)
            self.block.append(ir.Assign(kept, base, node.loc))
            self.env[root.id] = base = kept
        path, _ = self.store_path(base.type, chain, node)
        return self.let(ir.AddressOf(base, (), tuple(path)), T.uint64, node.loc, "addr")


def _hand_written_adjoint(overload) -> bool:
    if overload.custom_grad is not None:
        return True
    return overload.native is not None and overload.native[1] is not None
