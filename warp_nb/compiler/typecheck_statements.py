"""Statements, for `typecheck`: blocks, assignments (to names, tuples, elements, with Warp's
atomic augmented assignments to array elements), expression statements, `return` and `if` (its
branches joined through phis). A mixin of FunctionTyper, which owns the environment and the
statement list; loops are in typecheck_loops."""

from __future__ import annotations

import ast
import re
import textwrap

from . import ir
from . import syntax as S
from .. import types as T
from ..types.array_type import ArrayType
from ..errors import KernelSyntaxError, KernelTypeError, KernelUnsupportedError, source_label, warn
from .annotations import KERNEL_RETURN_ERROR
from .scope import GradOf, Lit, PyObj
from ..builtins import registry
from .typecheck_expr import TupleValue
from .typecheck_loops import _same_type
from .typecheck_partial import partial_allowed

#: augmented assignments to an array element that are atomic updates (as in Warp): operator -> atomic op
_ATOMIC_AUGMENTED = {"add": "add", "sub": "sub", "bit_and": "and", "bit_or": "or", "bit_xor": "xor"}


class Statements:
    def statements(self, stmts) -> bool:
        """Type a block; returns True when it always leaves (return/break/continue)."""
        for s in stmts:
            if self.statement(s):
                return True  # the rest of the block is unreachable
        return False

    def statement(self, s) -> bool:
        if isinstance(s, S.Assign):
            self.assign(s)
        elif isinstance(s, S.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, S.ExprStmt):
            self.expr_statement(s)
        elif isinstance(s, S.If):
            return self.if_statement(s)
        elif isinstance(s, S.For):
            self.for_statement(s)
        elif isinstance(s, S.While):
            self.while_statement(s)
        elif isinstance(s, (S.Break, S.Continue)):
            if not self.loops:
                self.error(KernelSyntaxError, f"`{type(s).__name__.lower()}` outside a loop", s)
            writes = self.loop_state_writes(self.loops[-1], s.loc)
            node = ir.Break if isinstance(s, S.Break) else ir.Continue
            self.block.append(node(s.loc, writes))
            return True
        elif isinstance(s, S.Return):
            self.return_statement(s)
            return True
        elif isinstance(s, S.Assert):
            cond = self.condition(s.test)
            self.block.append(ir.Check(cond, s.loc))
            self.checks.append(s.loc)
        else:
            self.error(KernelSyntaxError, f"unsupported statement {type(s).__name__}", s)
        return False

    def bind(self, name: str, value, node, annotation=None) -> None:
        """name = value: a new SSA value named after the user's variable."""
        if annotation is not None:
            t = self.annotation_type(annotation)
            value = self.convert(value, t, node)
        old = self.env.get(name)
        if isinstance(old, PyObj) and _is_function_value(old.obj) and value != old:
            # Warp has no function pointers: a local naming a function names it for good
            if isinstance(old.obj, GradOf):
                self.error(KernelTypeError, f"Cannot reassign local '{name}' that holds {old.obj!r} (a wp.grad "
                                            "function); give the new value another name", node)
            what = "another function" if isinstance(value, PyObj) and _is_function_value(value.obj) else \
                "a non-function value"
            self.error(KernelTypeError, f"rebinding function-valued local `{name}` to {what} is not supported; "
                                        "give the new value another name", node)
        if isinstance(value, PyObj) and _is_function_value(value.obj):
            self.env[name] = value  # a function as a value: the name stands for it when called
            return
        if isinstance(value, PyObj):
            self.error(KernelTypeError, f"`{name}` cannot hold {self.describe(value)}; kernel variables hold "
                                        "scalars, vectors, matrices, structs and arrays", node)
        if isinstance(value, TupleValue):  # t = (a, b): a tuple value, as Warp
            value = self.make_tuple(value, node)
        old = self.env.get(name)
        literal = value.value if isinstance(value, Lit) else None
        if isinstance(value, Lit):
            # a literal takes the scalar type of the variable it replaces (x = 0 for a float x); it is
            # not broadcast into a vector or matrix variable (v = 1.0 is a type change, refused below)
            want = old.type if isinstance(old, ir.Var) and T.is_scalar_type(old.type) else None
            value = self.materialize(value, want, node)
        elif isinstance(value, TupleValue):
            value = self.make_tuple(value, node)  # t = (1.0, 2) holds a tuple value
        # array views may be rebound to views of another rank (sub = a[:2]; sub = a[:2, 1]), as in
        # Warp; a join of the two (a branch, a loop) is still refused where it happens
        rebinds_view = isinstance(old, ir.Var) and isinstance(old.type, ArrayType) and isinstance(value.type, ArrayType)
        if isinstance(old, ir.Var) and not _same_type(old.type, value.type) and not rebinds_view:
            if isinstance(node, S.AugAssign) and name in getattr(self, "reference_names", ()):
                self.error(KernelTypeError, f"augmented assignment to ref parameter `{name}` ({T.type_name(old.type)}) "
                                            f"gives a {T.type_name(value.type)}; the value written through a "
                                            "wp.ref[T] parameter keeps its type T", node)
            self.error(KernelTypeError, f"`{name}` was {T.type_name(old.type)} and is assigned a "
                                        f"{T.type_name(value.type)} here; a kernel variable keeps one type "
                                        f"(convert explicitly, for example {T.type_name(old.type)}(...))", node)
        var = self.new_var(value.type, name)
        self.block.append(ir.Let(var, ir.Copy(value), node.loc))
        self.env[name] = var
        self.follow_view(value, var)  # row = t[i]: a write into row reaches t (typecheck_tiles_parts)
        if literal is not None and not self.loops:  # a loop may change it; then it is not a constant
            self.bound_constants[id(var)] = literal
        self.maybe_undefined.pop(name, None)

    def assign(self, s: S.Assign) -> None:
        target = s.target
        if isinstance(target, S.Name):
            if isinstance(s.value, S.Call) and self.is_tid_call(s.value):
                self.bind(target.id, self.tid(s.value, 1), s, s.annotation)
                return
            self.bind(target.id, self.expr(s.value), s, s.annotation)
        elif isinstance(target, S.Tuple):
            self.assign_tuple(target, s.value, s)
        elif self.adjoint_key(target) is not None:
            self.bind(self.adjoint_key(target), self.expr(s.value), s)
        else:
            self.store(target, self.expr(s.value), s)

    def assign_tuple(self, target: S.Tuple, value_node, s) -> None:
        names = [e.id for e in target.elts]
        if isinstance(value_node, S.Call) and self.is_tid_call(value_node):
            values = [self.tid(value_node, len(names), index=k) for k in range(len(names))]
        elif isinstance(value_node, S.Tuple):
            if len(value_node.elts) != len(names):
                self.error(KernelTypeError, f"cannot unpack {len(value_node.elts)} values into {len(names)} names", s)
            values = [self.expr(e) for e in value_node.elts]  # evaluate all before binding (a, b = b, a)
        else:
            value = self.expr(value_node)
            values = self.unpack(value, len(names), s)
        for name, v in zip(names, values):
            self.bind(name, v, s)

    def aug_assign(self, s: S.AugAssign) -> None:
        target = s.target
        if isinstance(target, S.Name) and isinstance(self.env.get(target.id), PyObj):
            self.bind(target.id, Lit(0, "int"), s)  # g += 1.0 on a function-valued local: the rebinding error
        # the target's index expressions first, once, as Python does: a[f(i)].x += v calls f once, before v
        target = self.evaluated_once(target)
        self.check_aug_target(target, s)  # t[0:4, :] += v: Warp refuses it
        if isinstance(target, S.Subscript) and s.op in _ATOMIC_AUGMENTED:
            base = self.expr(target.value)
            if isinstance(base, ir.Var) and isinstance(base.type, ArrayType) and len(target.indices) == base.type.ndim:
                # a[i] += x is an atomic add, as in Warp (a[i] &= x an atomic and, ...)
                self.atomic_update(_ATOMIC_AUGMENTED[s.op], base, target.indices, s.value, s)
                return
        if self.context.block_dim > 1 and self.lanes_tile_update(target, s):
            return  # t[i] |= v from every lane of a block: all the lanes' updates, in lane order
        # a[i].x += v reads and writes part of an element: what Warp calls a slot write
        self.index_wording = "Array slot write indices" if isinstance(target, S.Attribute) else None
        try:
            current = self.expr(target)
        finally:
            self.index_wording = None
        value = self.expr(s.value)
        new = self.struct_element_update(s.op, target, current, value, s)  # t[i] += v on a tile of structs
        new = self.binary(s.op, current, value, s) if new is None else new
        adjoint = self.adjoint_key(target)
        if adjoint is not None:
            self.bind(adjoint, new, s)
        elif isinstance(target, S.Name):
            self.bind(target.id, new, s)
        else:
            self.store(target, new, s)

    def expr_statement(self, s: S.ExprStmt) -> None:
        value = s.value
        if isinstance(value, S.Constant) and isinstance(value.value, str):
            return
        result = self.expr(value, statement=True)
        del result  # evaluated for its effects; unused values are dropped by the C++ compiler

    def return_statement(self, s: S.Return) -> None:
        if s.value is None:
            self.write_back_params(s.loc)
            self.block.append(ir.Return(None, s.loc))
            return
        if self.is_kernel:
            self.error(KernelTypeError, KERNEL_RETURN_ERROR, s)
        value = self.expr(s.value)
        # conservative: loops rebind the array's variable, so any array returned by a function that makes a
        # fixed-size array may be that one
        if getattr(self, "local_arrays", ()) and isinstance(getattr(value, "type", None), ArrayType):
            self.return_local_array(value, s)
            return
        declared = self.declared_return
        if isinstance(s.value, S.Tuple):
            items = list(value)
            if isinstance(declared, ir.TupleType):
                if len(items) != len(declared.items):
                    self.return_mismatch(s, f"a tuple of {len(declared.items)} elements", f"{len(items)} values")
                items = [self.materialize(x, t, s) if isinstance(x, Lit) and _fits(x, t) else x
                         for x, t in zip(items, declared.items)]
            elif declared is not None and (T.is_scalar_type(declared) or T.is_composite_type(declared)):
                self.return_mismatch(s, None, f"{len(items)} values")
            value = self.make_tuple(TupleValue(items), s)
            if isinstance(declared, ir.TupleType) and not _same_type(value.type, declared):
                shown = ", ".join(T.type_name(t) for t in value.type.items)
                self.return_mismatch(s, None, f"a tuple with types `({shown})`")
        if isinstance(value, Lit):
            if declared is None and self.return_type is not None and value.kind in ("int", "float") \
                    and T.is_scalar_type(self.return_type) and (value.kind == "float") != T.is_float_type(self.return_type):
                # `return 2` after `return 1.0` (or the reverse): Warp refuses the two types, as here
                self.error(KernelTypeError, f"this return gives {'a float' if value.kind == 'float' else 'an int'} "
                                            f"literal but an earlier one gave {T.type_name(self.return_type)}; all "
                                            f"returns must have one type (write {_as_literal(value, self.return_type)})",
                           s)
            value = self.materialize(value, self.return_type, s)
        elif self.return_type is not None and declared is not None:
            try:
                value = self.convert(value, self.return_type, s)
            except KernelTypeError:
                if not isinstance(value, ir.Var):
                    raise
                if isinstance(value.type, ir.TupleType):
                    shown = ", ".join(T.type_name(t) for t in value.type.items)
                    self.return_mismatch(s, None, f"a tuple with types `({shown})`")
                self.return_mismatch(s, None, f"a value of type `{T.type_name(value.type)}`")
        if isinstance(value, PyObj):
            self.error(KernelTypeError, f"cannot return {self.describe(value)} from a function", s)
        if self.return_type is None:
            self.return_type = value.type
        elif not _same_type(self.return_type, value.type):
            self.error(KernelTypeError, f"this return gives {T.type_name(value.type)} but an earlier one gave "
                                        f"{T.type_name(self.return_type)}; all returns must have one type", s)
        self.has_return_value = True
        self.write_back_params(s.loc)
        self.block.append(ir.Return(value, s.loc))

    def return_local_array(self, value, s) -> None:
        """`return arr` of a fixed-size array this function made: returned by value (its elements are
        copied into the caller's own fixed-size array), as Warp's fixedarray is. Loops rebind the
        variable, so the array is known by its shape: the function must make arrays of one shape."""
        made = {(fixed.dtype, fixed.shape) for fixed in self.local_array_types}
        declared = self.declared_return
        if isinstance(declared, ArrayType) and getattr(declared, "kind", "") != "fixedarray":
            self.error(KernelUnsupportedError, f"The function `{self.fdef.name}` returns a fixed-size array whereas it "
                                               f"has its return type annotated as "
                                               f"`Array[{T.type_repr(value.type.dtype)}]`.", s)
        if len(made) != 1:
            self.error(KernelUnsupportedError, "a function that makes fixed-size arrays of several shapes cannot "
                                               "return one; return from a function that makes one shape", s)
        fixed = next(iter(self.local_array_types))
        if (value.type.dtype, value.type.ndim) != (fixed.dtype, fixed.ndim) or (self.return_type is not None
                                                                                and self.return_type != fixed):
            self.error(KernelTypeError, f"this return gives {T.type_name(value.type)}, not the fixed-size array "
                                        f"{T.type_name(fixed)} the function makes", s)
        self.return_type = fixed
        self.has_return_value = True
        self.write_back_params(s.loc)
        self.block.append(ir.Return(value, s.loc))

    def return_mismatch(self, node, annotated: str | None, returned: str):
        """A return that does not fit the function's return annotation, in Warp's words."""
        if annotated is None:
            try:
                returns = ast.parse(textwrap.dedent(self.fdef.source)).body[0].returns
                annotated = "`" + re.sub(r"\b(?:wp|warp)\.", "", ast.unparse(returns)) + "`"
            except (SyntaxError, IndexError, AttributeError, TypeError):
                annotated = f"`{T.type_name(self.declared_return)}`"
        self.error(KernelTypeError, f"The function `{self.fdef.name}` has its return type annotated as {annotated} "
                                    f"but the code returns {returned}.", node)

    # --- branches -----------------------------------------------------------------------
    def if_statement(self, s: S.If) -> bool:
        test = self.known_condition(self.expr(s.test))
        if isinstance(test, Lit):  # a compile-time condition: only the taken branch is compiled
            self.note_dead_tid(s.orelse if test.value else s.body)
            return self.statements(s.body if test.value else s.orelse)
        cond = self.condition_value(test, s.test)
        before = dict(self.env)
        undefined_before = dict(self.maybe_undefined)  # (for join: the branches may clear entries)
        body, then_done = self.in_block(lambda: self.statements(s.body))
        then_env = self.env
        self.env = dict(before)
        orelse, else_done = self.in_block(lambda: self.statements(s.orelse))
        else_env = self.env
        phis, body, orelse = self.join(before, then_env, else_env, then_done, else_done, body, orelse, s,
                                       undefined_before)
        self.block.append(ir.If(cond, body, orelse, s.loc, tuple(phis)))
        return then_done and else_done

    def note_dead_tid(self, stmts) -> None:
        """Remember how many indices a wp.tid() in code folded away is unpacked into (ir.Function.tid_arity)."""
        for node in S.walk(stmts):
            if isinstance(node, S.Assign) and isinstance(node.target, S.Tuple) and isinstance(node.value, S.Call) \
                    and self.is_tid_call(node.value):
                self.dead_tid_arity = max(self.dead_tid_arity, len(node.target.elts))

    def known_condition(self, v):
        """`v`, or the bool it is known to be when it is a local bound to True or False outside any
        loop (disabled = False; if disabled: ...): Warp folds such a branch away, wp.tid() in it too."""
        if isinstance(v, ir.Var) and isinstance(self.bound_constants.get(id(v)), bool):
            return Lit(self.bound_constants[id(v)], "bool")
        return v

    def partial_phi(self, name, a, b, node):
        """The phi of a name first bound on one path of a branch and read after it. Warp reads the
        C++ variable the branch assigns, which holds its last value on the other path (zero the
        first time); a phi with no source on that path is the same (emit declares every variable
        zeroed at the top of the function)."""
        value = a if b is None else b
        if isinstance(value, Lit):
            value = self.materialize(value, None, node)
        dst = self.new_var(value.type, name, mutable=True)
        first = "an empty array at first: reading it is out of bounds" if isinstance(value.type, ArrayType) \
            else "zero at first"
        warn(f"{source_label(node.loc.file)}:{node.loc.line}: `{name}` is assigned on only some paths of this "
             f"branch; where it is not, it keeps the value it last had ({first}), as in Warp. Give it a "
             "value before the branch to say which.", once=True)
        return ir.Phi(dst, value, None) if b is None else ir.Phi(dst, None, value)

    def join(self, before, then_env, else_env, then_done, else_done, body, orelse, node, undefined_before):
        """Merge the environments of two branches: one phi per name whose value differs."""
        if then_done and else_done:
            self.env = before
            return [], body, orelse
        if then_done or else_done:
            self.env = else_env if then_done else then_env
            return [], body, orelse
        self.env = dict(before)
        phis, then_tail, else_tail = [], [], []
        for name in sorted(set(then_env) | set(else_env)):
            a, b = then_env.get(name), else_env.get(name)
            if a is b:
                if a is not None:
                    self.env[name] = a
                continue
            if a is None or b is None:
                key = (node.loc.line, node.loc.col, name)
                if key in self.partial_names and partial_allowed(a if b is None else b):  # read after it
                    phi = self.partial_phi(name, a, b, node)
                    phis.append(phi)
                    self.env[name] = phi.dst
                else:
                    self.env.pop(name, None)
                    # with the keys of the branches before or inside this one that bound it on some
                    # paths: a read after this branch needs their phis too (an if / elif chain
                    # without else; an earlier if that bound it, then this one)
                    earlier = undefined_before.get(name, (None, (), None))[1]
                    inner = self.maybe_undefined.get(name, (None, (), None))[1]
                    keys = tuple(dict.fromkeys((*earlier, *inner, key)))
                    self.maybe_undefined[name] = (node.loc.line, keys, a if b is None else b)
                continue
            if isinstance(a, Lit) or isinstance(b, Lit):  # an unrolled loop's leftover constant, reassigned
                # materialized before the If (join runs before it is appended), so it dominates the phi
                want = next((x.type for x in (a, b) if isinstance(x, ir.Var)), None)
                a, b = (self.materialize(x, want, node) if isinstance(x, Lit) else x for x in (a, b))
            if not _same_type(a.type, b.type):
                self.error(KernelTypeError, f"`{name}` is {T.type_name(a.type)} in one branch and "
                                            f"{T.type_name(b.type)} in the other; give it one type", node)
            dst = self.new_var(a.type, name, mutable=True)
            phis.append(ir.Phi(dst, a, b))
            then_tail.append(ir.Assign(dst, a, node.loc))
            else_tail.append(ir.Assign(dst, b, node.loc))
            self.env[name] = dst
        del then_tail, else_tail  # emit writes phi inputs from the Phi nodes
        return phis, body, orelse


def _is_function_value(obj) -> bool:
    """A @wp.func, a wp builtin or a wp.grad(f): what a local may name instead of holding a value."""
    return getattr(obj, "_wp_func_", False) or isinstance(obj, (registry.Builtin, GradOf))


def _fits(lit: Lit, t) -> bool:
    """Whether a literal can take type t without loss (1 as a float: yes; 1.23 as an int: no)."""
    if not T.is_scalar_type(t):
        return False
    return lit.kind != "float" or t._kind == "float"


def _as_literal(value, t) -> str:
    """`value` (a Lit) written as a literal of scalar type `t`: 2 -> 2.0 for a float, 2.0 -> 2 for an int."""
    return repr(float(value.value)) if T.is_float_type(t) else repr(int(value.value))
