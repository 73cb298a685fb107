"""Expression typing for `typecheck`: names, constants, attributes, subscripts, operators,
calls of builtins and user functions, and stores. A mixin of FunctionTyper (which owns the
environment and the statement list)."""

from __future__ import annotations

import dataclasses

from . import hints, ir, syntax as S
from .static_eval import static_key
from ..builtins import registry
from .. import types as T
from ..types.tiles import TileType
from ..types.array_type import ArrayType
from ..types.scalars import canonical_scalar
from ..errors import (
    KernelAttributeError, KernelFieldError, KernelNameError, KernelRuntimeTypeError, KernelSyntaxError, KernelTypeError,
    KernelUndefinedNameError, KernelUnsupportedError,
)
from ..builtins.registry import BUILTINS, Literal
from ..types.native_types import native_info
from .scope import MISSING, ConstValue, Lit, PyObj, classify
from .fold import fold
from .typecheck_subscript import _Bound, shape_beyond_ndim
from .lanes import for_lanes
from .typecheck_partial import PartialRead, partial_allowed


_NOT_STATIC = object()


class TupleValue(tuple):
    """A tuple expression (a, b) before it is stored anywhere: a Python tuple of values."""


def value_type(v):
    """The registry's view of a value's type (literals stay weakly typed)."""
    if isinstance(v, Lit):
        return Literal(v.kind, v.value)
    return v.type


class ExprTyper:
    # --- entry --------------------------------------------------------------------------
    def expr(self, node, statement: bool = False):
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            self.error(KernelSyntaxError, f"unsupported expression {type(node).__name__}", node)
        if isinstance(node, S.Call):
            return method(node, statement)
        value = method(node)
        if isinstance(value, ConstValue):
            value = self.let(ir.Const(value.value, value.type), value.type, node.loc)
        return value

    def expr_Name(self, node: S.Name):
        local = self.env.get(node.id)
        if local is not None:
            return local
        # a local bound on some paths only is that local, even where a global or builtin has its name
        if node.id in self.maybe_undefined:
            line, keys, value = self.maybe_undefined[node.id]
            if partial_allowed(value):  # typed again, with the phis Warp's semantics give it
                raise PartialRead(keys)
            self.error(KernelNameError, f"`{node.id}` may be undefined here: it is only assigned on some paths "
                                        f"of the branch at line {line}; give it a value before the branch", node)
        obj = self.scope.lookup(node.id)
        if obj is MISSING:
            obj = _unqualified_builtin(node.id)  # Warp lets kernels name builtins and types without `wp.`
        if obj is MISSING:
            self.error(KernelUndefinedNameError, f"Referencing undefined symbol: {node.id} (`{node.id}` is not a "
                                                 "local variable, argument, global, wp builtin or Python builtin)."
                       + hints.did_you_mean(node.id, self.env), node)
        return classify(obj)

    def expr_Constant(self, node: S.Constant):
        v = node.value
        if isinstance(v, bool):
            return Lit(v, "bool")
        if isinstance(v, int):
            return Lit(v, "int")
        if isinstance(v, float):
            return Lit(v, "float")
        if v is None:
            self.error(KernelTypeError, "None is not a value in kernels", node)
        return PyObj(v)  # a string: only print/printf accept it

    def expr_Tuple(self, node: S.Tuple):
        return TupleValue(self.expr(e) for e in node.elts)

    def expr_Attribute(self, node: S.Attribute):
        base = self.expr(node.value)
        if isinstance(base, PyObj):
            try:
                obj = getattr(base.obj, node.attr)
            except AttributeError:
                obj = self.type_attribute(base.obj, node.attr)
                if obj is None:
                    wp_module = getattr(base.obj, "__name__", None) == "warp_nb"
                    self.error(KernelAttributeError, f"`{node.attr}` is not an attribute of {self.describe(base)}."
                               + (hints.did_you_mean(node.attr, hints.builtin_names(), "wp.") if wp_module else ""),
                               node)
            return classify(obj)
        if isinstance(base, Lit) and hasattr(base.value, "_value_") and node.attr == "value":
            return classify(base.value.value)  # MyIntEnum.B.value: the member's number
        if isinstance(base, Lit):
            self.error(KernelTypeError, f"a number has no attribute `{node.attr}`", node)
        t = base.type
        kind = T.kind_of(t)
        if kind in ("vector", "quaternion") and node.attr in "xyzw" and len(node.attr) == 1:
            index = "xyzw".index(node.attr)
            if index >= t._shape_[0]:
                self.error(KernelTypeError, f"{T.type_name(t)} has no component `{node.attr}`", node)
            return self.let(ir.Extract(base, (index,)), t._wp_scalar_type_, node.loc)
        if kind == "transformation" and node.attr in ("p", "q"):
            ft = T.vector(3, t._wp_scalar_type_) if node.attr == "p" else T.quaternion(t._wp_scalar_type_)
            return self.let(ir.Extract(base, (node.attr,)), ft, node.loc)
        if native_info(t) is not None and node.attr not in native_info(t).field_types:  # (wp.build_experimental)
            self.error(KernelFieldError, f"{t.__name__} has no field `{node.attr}` registered (its fields: "
                       f"{', '.join(native_info(t).field_types) or 'none, an opaque type'})", node)
        if native_info(t) is not None:  # a C++ type of the user's: the fields it was registered with
            return self.let(ir.Extract(base, (node.attr,)), native_info(t).field_types[node.attr], node.loc)
        if getattr(t, "_wp_struct_", False) or isinstance(t, registry.OpaqueType):
            ft = t.fields.get(node.attr)
            if ft is None:
                what = node.value.id if isinstance(node.value, S.Name) else T.type_name(t)
                self.error(KernelFieldError, f"the fields of {T.type_name(t)} are: {', '.join(t.fields)}\n"
                                             f"`{node.attr}` is not an attribute of '{what}' ({t.key if getattr(t, '_wp_struct_', False) else T.type_name(t)})",
                           node)
            self.note_type(ft)
            return self.let(ir.Extract(base, (node.attr,)), ft, node.loc)
        if isinstance(t, ArrayType) and node.attr == "dtype":  # a type: grads.dtype(), dtype=values.dtype
            return classify(t.dtype)
        if isinstance(t, ArrayType) and node.attr == "shape":
            return self.let(ir.Extract(base, ("shape",)), T.vector(t.ndim, T.int32), node.loc)
        if isinstance(t, ArrayType) and node.attr == "ndim":
            return Lit(t.ndim, "int")  # part of the array's type: a constant
        if isinstance(t, ArrayType) and node.attr == "ptr":
            return self.let(ir.Extract(base, ("ptr",)), T.uint64, node.loc)
        known = self.type_attribute(t, node.attr) if node.attr in ("dtype", "length") else None
        if known is not None:  # a.dtype, v.length: what the value's type says, known when compiling
            return classify(known)
        # (an AttributeError, as Warp's, naming the value as the kernel wrote it)
        what = f"'{node.value.id}' ({T.type_name(t)})" if isinstance(node.value, S.Name) else T.type_name(t)
        self.error(KernelAttributeError, f"`{node.attr}` is not an attribute of {what}", node)

    def adjoint_key(self, node) -> str | None:
        """`wp.adjoint[x]` in a @wp.func_grad function: the name of x's adjoint variable."""
        found = self.adjoint_target(node)
        return found[0] if found is not None and not found[1] else None

    def adjoint_target(self, node):
        """`wp.adjoint[x]` or `wp.adjoint[x.f.g]` (a field of a struct parameter's adjoint) in a
        @wp.func_grad function: (the name of x's adjoint variable, the S.Attribute steps f, g)."""
        if not (isinstance(node, S.Subscript) and len(node.indices) == 1):
            return None
        try:
            base = self.expr(node.value) if isinstance(node.value, (S.Name, S.Attribute)) else None
        except KernelNameError:
            return None
        if not (isinstance(base, PyObj) and getattr(base.obj, "_wp_adjoint_marker_", False)):
            return None
        index, fields = node.indices[0], []
        while isinstance(index, S.Attribute):
            fields.insert(0, index)
            index = index.value
        key = f"wp.adjoint[{getattr(index, 'id', '?')}]"
        if key not in self.env:
            params = ", ".join(n for n, _ in self.adjoint_params) or "none here"
            self.error(KernelNameError, "wp.adjoint[x] names a parameter of the function whose gradient this "
                                        f"@wp.func_grad function defines (parameters: {params})", node)
        return key, fields

    def expr_Subscript(self, node: S.Subscript):
        found = self.adjoint_target(node)
        if found is not None:
            value = self.env[found[0]]
            for step in found[1]:
                value = self.expr_Attribute(S.Attribute(_Bound(value), step.attr, step.loc))
            return value
        base = self.expr(node.value)
        if isinstance(base, (Lit, PyObj)):
            self.error(KernelTypeError, f"{self.describe(base)} cannot be indexed", node)
        t = base.type
        if shape_beyond_ndim(node, t):
            return Lit(0, "int")  # a.shape[k] past the array's dimensions is 0, as in Warp
        if isinstance(t, TileType):
            return self.tile_subscript(base, node.indices, node)
        if any(isinstance(i, S.Slice) for i in node.indices):
            return self.array_slice(base, node) if isinstance(t, ArrayType) else self.slice_of(base, node)
        if isinstance(t, ArrayType):
            indices = self.indices(node.indices, node)
            if len(indices) > t.ndim:
                self.error(KernelTypeError, f"too many indices ({len(indices)}) for a {t.ndim}-D array", node)
            self.checks.append(node.loc)
            if len(indices) == t.ndim:
                return self.let(ir.Load(base, indices), t.dtype, node.loc)
            return self.let(ir.View(base, indices), t.view_type(t.ndim - len(indices)), node.loc)
        path, result = self.component_path(t, node.indices, node)
        return self.let(ir.Extract(base, path), result, node.loc)

    def indices(self, nodes, where, what: str | None = None) -> tuple:
        what = what or getattr(self, "index_wording", None) or "array indices"
        out = []
        for n in nodes:
            v = self.expr(n)
            if isinstance(v, Lit) and v.kind == "int":
                v = self.materialize(v, T.int32, n)
            if isinstance(v, (Lit, PyObj)) or not T.is_int_type(v.type):
                self.error(KernelTypeError, f"{what} must be integers, got {self.describe(v)}", n)
            out.append(v)
        return tuple(out)

    def expr_BinOp(self, node: S.BinOp):
        return self.binary(node.op, self.expr(node.left), self.expr(node.right), node)

    def binary(self, op: str, a, b, node):
        if isinstance(a, Lit) and isinstance(b, Lit):
            return fold(op, a, b, node, self)
        if op in _COMPARISONS:
            a, b = self.comparable(a, b, node)
        if isinstance(a, PyObj) or isinstance(b, PyObj):  # a string or a Python object: the builtin says why not
            return self.call_builtin(BUILTINS[op], [a, b], node)
        user = self.user_operator(op, [a, b])
        if user is not None:
            return self.call_function(user, [a, b], node)
        if registry.resolve(BUILTINS[op], [value_type(a), value_type(b)]) is None:
            if any(isinstance(v, ir.Var) and isinstance(v.type, TileType) for v in (a, b)):
                return self.tile_elementwise(op, [a, b], node)  # tile<vec3> * float ...: per element
            user = self.scope.lookup(op)  # a @wp.func named after the operator (`def add(a: Complex, ...)`)
            if getattr(user, "_wp_func_", False) and user.select_overload([value_type(a), value_type(b)]) is not None:
                return self.call_function(user, [a, b], node)
        return self.call_builtin(BUILTINS[op], [a, b], node)

    def user_operator(self, op: str, args: list):
        """A @wp.func named after the operator with a concretely typed overload for these operands:
        as in Warp it wins over the builtin (x += y, v[0].x += y too), except inside its own body."""
        user = self.scope.lookup(op)
        types = [value_type(v) for v in args] if getattr(user, "_wp_func_", False) else None
        if types is None or not any(not o.is_generic and o.accepts(types) for o in user.overloads):
            return None
        return None if any(f is o.fdef for o in user.overloads for f in self.context.stack) else user

    def comparable(self, a, b, node):
        """A float compared with an integer: the integer is converted to the float's type first
        (as Warp does; arithmetic between them still needs an explicit conversion)."""
        ta, tb = (v.type if isinstance(v, ir.Var) else None for v in (a, b))
        if T.bool in (ta, tb) and all(t is T.bool or (isinstance(v, Lit) and v.kind == "bool")
                                      for v, t in ((a, ta), (b, tb))):
            # Python orders bools as 0 and 1: (x < y) < (z > 0)
            a, b = (self.convert_explicitly(self.materialize(v, T.bool, node), T.int32, node) for v in (a, b))
            return a, b
        if ta is not None and tb is not None and T.is_scalar_type(ta) and T.is_scalar_type(tb) and ta is not tb:
            if T.is_float_type(ta) and T.is_int_type(tb):
                return a, self.convert_explicitly(b, ta, node)
            if T.is_int_type(ta) and T.is_float_type(tb):
                return self.convert_explicitly(a, tb, node), b
        return a, b

    def convert_explicitly(self, v, t, node):
        return self.let(ir.Construct(t, (v,)), t, node.loc)

    def expr_UnaryOp(self, node: S.UnaryOp):
        v = self.expr(node.operand)
        if isinstance(v, Lit):
            if node.op == "neg":
                return Lit(-v.value, v.kind if v.kind != "bool" else "int")
            if node.op == "pos":
                return v
            if node.op == "logical_not":
                return Lit(not v.value, "bool")
            if node.op == "invert" and v.kind == "int":
                return Lit(~v.value, "int")
        if node.op == "logical_not" and isinstance(v, ir.Var) and isinstance(v.type, ArrayType):
            v = self.condition_value(v, node)  # `not a`: the array is None
        if isinstance(v, ir.Var) and isinstance(v.type, TileType) and registry.resolve(BUILTINS[node.op], [v.type]) is None:
            return self.tile_elementwise(node.op, [v], node)  # -tile<vec3>: per element
        return self.call_builtin(BUILTINS[node.op], [v], node)

    def expr_Compare(self, node: S.Compare):
        return self.binary(node.op, self.expr(node.left), self.expr(node.right), node)

    def expr_BoolOp(self, node: S.BoolOp):
        """Short-circuit `and` / `or`: later operands are only evaluated when needed."""
        first = self.expr(node.values[0])
        if isinstance(first, Lit):  # constant folding keeps compile-time conditions constant
            if (node.op == "and") != bool(first.value):
                return Lit(bool(first.value), "bool")
            rest = node.values[1:]
            return self.expr(rest[0]) if len(rest) == 1 else self.expr_BoolOp(S.BoolOp(node.op, rest, node.loc))
        cond = self.condition_value(first, node.values[0])
        rest = node.values[1:]
        rest_node = rest[0] if len(rest) == 1 else S.BoolOp(node.op, rest, node.loc)
        saved_env = dict(self.env)
        body, value = self.in_block(lambda: self.condition(rest_node))
        self.env = saved_env  # names bound while evaluating the operand do not escape
        if ir.cannot_fault(body):
            # nothing to protect: evaluate both sides and combine them without a branch, which
            # keeps loops branch-free and vectorisable (bounds tests such as i == 0 or j == n - 1)
            self.block.extend(body)
            return self.call_builtin(BUILTINS["bit_and" if node.op == "and" else "bit_or"], [cond, value], node)
        result = self.new_var(T.bool, "cond", mutable=True)
        self.block.append(ir.Assign(result, cond, node.loc))
        body = body + (ir.Assign(result, value, node.loc),)
        test = cond if node.op == "and" else self.call_builtin(BUILTINS["logical_not"], [cond], node)
        self.block.append(ir.If(test, body, (), node.loc))
        return self.let(ir.Copy(result), T.bool, node.loc, "cond")

    def expr_IfExp(self, node: S.IfExp):
        test = self.known_condition(self.expr(node.test))
        if isinstance(test, Lit):  # a compile-time condition: only the chosen value is compiled (as Warp)
            return self.expr(node.body if test.value else node.orelse)
        cond = self.condition_value(test, node.test)
        saved_env = dict(self.env)
        then_block, a = self.in_block(lambda: self.expr(node.body))
        else_block, b = self.in_block(lambda: self.expr(node.orelse))
        self.env = saved_env
        if isinstance(a, Lit) and not isinstance(b, Lit):
            a_block, a = self.in_block(lambda: self.materialize(a, b.type, node))
            then_block += a_block
        elif isinstance(b, Lit) and not isinstance(a, Lit):
            b_block, b = self.in_block(lambda: self.materialize(b, a.type, node))
            else_block += b_block
        elif isinstance(a, Lit) and isinstance(b, Lit):
            t = registry.concrete(Literal(a.kind, a.value)) if a.kind == b.kind else T.float32
            a_block, a = self.in_block(lambda: self.materialize(a, t, node))
            b_block, b = self.in_block(lambda: self.materialize(b, t, node))
            then_block += a_block
            else_block += b_block
        if not a.type == b.type and a.type is not b.type:
            self.error(KernelTypeError, f"the two values of this conditional expression have different types "
                                        f"({T.type_name(a.type)} and {T.type_name(b.type)})", node)
        result = self.new_var(a.type, "sel", mutable=True)
        then_block += (ir.Assign(result, a, node.loc),)
        else_block += (ir.Assign(result, b, node.loc),)
        self.block.append(ir.If(cond, then_block, else_block, node.loc))
        return self.let(ir.Copy(result), a.type, node.loc, "sel")

    def condition(self, node) -> ir.Var:
        return self.condition_value(self.expr(node), node)

    def condition_value(self, v, node) -> ir.Var:
        """A value used as a truth value, as a bool variable (nonzero scalars are true)."""
        if isinstance(v, Lit):
            return self.materialize(Lit(bool(v.value), "bool"), T.bool, node)
        if isinstance(v, ir.Var) and isinstance(v.type, ArrayType):  # an array is true unless None was passed
            return self.call_builtin(BUILTINS["array_is_valid"], [v], node)
        if isinstance(v, PyObj) or not T.is_scalar_type(v.type):
            self.error(KernelTypeError, f"{self.describe(v)} cannot be used as a condition; compare it explicitly", node)
        if v.type is T.bool:
            return v
        return self.call_builtin(BUILTINS["ne"], [v, Lit(0, "int")], node)

    # --- calls --------------------------------------------------------------------------
    def expr_Call(self, node: S.Call, statement: bool = False):
        if any(isinstance(a, S.Starred) for a in node.args):
            node = self.unpack_call_arguments(node)
        declared = self.scope.static_values.get(static_key(node), _NOT_STATIC)
        if declared is not _NOT_STATIC:  # a wp.static(...) evaluated when the function was declared
            return self.static_value(declared, node)
        self.check_function_path(node.func)
        fn = self.expr(node.func)
        if not isinstance(fn, PyObj):
            self.error(KernelTypeError, f"{self.describe(fn)} is not callable", node)
        special = self.special_call(fn.obj, node, statement)
        if special is not NotImplemented:
            return special
        obj = hints.math_builtin(fn.obj) or fn.obj  # math.sqrt, np.sin: the wp builtin of that name, as Warp
        if isinstance(obj, registry.Builtin) and obj.by_dtype is not None:
            obj, node = self.dtype_variant(obj, node)
        if isinstance(obj, registry.Builtin):
            args = [self.expr(a) for a in node.args]
            args = self.keyword_args(obj, args, node)
            return self.call_builtin(obj, args, node, statement)
        if getattr(obj, "_wp_func_", False):
            return self.call_function(obj, self.function_arguments(obj, node), node)
        if getattr(obj, "_wp_kernel_", False):
            self.error(KernelTypeError, f"kernel `{obj.key}` cannot be called from a kernel; make it a @wp.func", node)
        self.error(KernelTypeError, hints.uncallable(obj, self.describe(fn)), node)

    def dtype_variant(self, b: registry.Builtin, node: S.Call):
        """The builtin a `dtype=` keyword selects (Builtin.by_dtype), and the call without it."""
        dtype_node = next((v for k, v in node.kwargs if k == "dtype"), None)
        if dtype_node is None:
            return b, node
        v = self.expr(dtype_node)
        t = canonical_scalar(v.obj) if isinstance(v, PyObj) else None
        name = b.by_dtype.get(t)
        if name is None:
            self.error(KernelTypeError, f"wp.{b.name} does not take dtype={self.describe(v)}; it takes "
                                        f"{', '.join(T.type_name(x) for x in b.by_dtype)}", node)
        return BUILTINS[name], dataclasses.replace(node, kwargs=tuple((k, x) for k, x in node.kwargs if k != "dtype"))

    def function_arguments(self, func, node: S.Call) -> list:
        """A @wp.func call's arguments in parameter order: positional, then by keyword, then the
        defaults of the Python definition (constants)."""
        args = [self.expr(a) for a in node.args]
        if not node.kwargs and (len(args) >= len(func.overloads[-1].params)
                                or any(len(o.params) == len(args) for o in func.overloads)):
            # overloads of several arities (f(a, b) and f(a, b, c)): the count picks among them, unless
            # none of that arity takes these arguments and the last definition's defaults complete them
            if len(args) >= len(func.overloads[-1].params) or not all(isinstance(a, (Lit, ir.Var)) for a in args) \
                    or func.select_overload([value_type(a) for a in args]) is not None:
                return args
        import inspect
        by_name = {name: self.expr(value) for name, value in node.kwargs}
        last = func.overload_for_keywords(len(args), by_name)
        parameters = list(inspect.signature(last.fn).parameters.values())
        unknown = set(by_name) - {p.name for p in parameters}
        if unknown:
            self.error(KernelTypeError, f"`{func.key}` has no parameter `{sorted(unknown)[0]}`", node)
        for p in parameters[len(args):]:
            if p.name in by_name:
                args.append(by_name[p.name])
            elif p.name in last.defaults:  # Function.defaults, as the definition gives them or as changed since
                args.append(classify(last.defaults[p.name]))
            else:
                lead = "Couldn't find function overload for the " if len(func.overloads) > 1 else ""  # Warp's words
                self.error(KernelTypeError, f"{lead}call of `{func.key}` is missing the argument `{p.name}`", node)
        return args

    def keyword_args(self, b: registry.Builtin, args: list, node: S.Call) -> list:
        if not node.kwargs:
            return args
        names = next((o.names for o in b.overloads if len(o.names) >= len(args) + len(node.kwargs)), ())
        full = list(args) + [None] * (len(names) - len(args))
        for key, value in node.kwargs:
            if key not in names:
                self.error(KernelTypeError, f"wp.{b.name} has no argument named `{key}`", node)
            full[names.index(key)] = self.expr(value)
        if any(a is None for a in full):
            self.error(KernelTypeError, f"missing arguments in the call of wp.{b.name}", node)
        return full

    def call_builtin(self, b: registry.Builtin, args: list, node, statement: bool = False, checked: bool = True):
        for a in args:
            if isinstance(a, (PyObj, TupleValue)):
                self.error(KernelTypeError, f"wp.{b.name} cannot take {self.describe(a)} as an argument", node)
        n_out = b.output_form_count(len(args))
        if n_out:
            return self.call_output_form(b, args, n_out, node)
        resolved = registry.resolve(b, [value_type(a) for a in args])
        if resolved is None:
            self.no_overload(b, args, node)
        resolved = for_lanes(self.context, b, resolved)  # (tile kernels: typed per lane count)
        refusal = b.check(resolved.arg_types) if b.check and checked else None
        if refusal:
            self.error(KernelUnsupportedError, refusal, node)
        vars_ = []
        for a, t in zip(args, resolved.arg_types):
            vars_.append(self.materialize(a, t, node) if isinstance(a, Lit) else a)
        for pos in b.inout_for(resolved.overload):
            vars_[pos] = self.inout_arg(vars_[pos], node.args[pos] if hasattr(node, "args") else node, node)
        call = ir.Call(b, tuple(vars_), resolved)
        if resolved.overload.outputs:  # several results: a tuple (`U, s, V = wp.svd3(A)`)
            return self.let(call, ir.TupleType(tuple(resolved.result)), node.loc)
        if resolved.result is None or (statement and b.side_effects):
            self.block.append(ir.Effect(call, node.loc))  # a result nobody reads
            return None
        return self.let(call, resolved.result, node.loc)

    def call_output_form(self, b: registry.Builtin, args: list, n_out: int, node):
        """wp.svd3(A, U, s, V): the tuple form's results rebind the output variables (Warp's
        output-argument form); they must be variables of the result types."""
        out_nodes = node.args[len(args) - n_out:] if hasattr(node, "args") else ()
        if len(out_nodes) != n_out or not all(isinstance(n, S.Name) for n in out_nodes):
            self.error(KernelTypeError, f"the last {n_out} arguments of wp.{b.name} receive its results and must be "
                                        "variables (declare them first, e.g. U = wp.mat33())", node)
        result = self.call_builtin(b, args[:len(args) - n_out], node)
        for name_node, item in zip(out_nodes, self.unpack(result, n_out, node)):
            self.bind(name_node.id, item, node)
        return None

    def inout_arg(self, var: ir.Var, arg_node, node) -> ir.Var:
        """An argument the builtin updates in place (a random state). A variable is rebound to a new
        mutable copy that the call advances; any other expression (`wp.poisson(states[tid], lam)`)
        gives a temporary copy whose advance is dropped, as in Warp (the array element is not written)."""
        named = isinstance(arg_node, S.Name) and self.env.get(arg_node.id) is var
        state = self.new_var(var.type, arg_node.id if named else "state", mutable=True)
        self.block.append(ir.Assign(state, var, node.loc))
        if named:
            self.env[arg_node.id] = state
        return state

    def no_overload(self, b: registry.Builtin, args, node):
        why = b.explain([value_type(a) for a in args]) if b.explain else None
        if why:
            self.error(KernelTypeError, why, node)
        if b.name in ("expect_eq", "expect_neq") and len(args) == 2:  # Warp's message (a RuntimeError)
            self.error(KernelRuntimeTypeError, "Can't test equality for objects with different types", node)
        got = ", ".join(T.type_name(value_type(a)) if not isinstance(a, Lit) else f"{a.kind} literal" for a in args)
        hint = ""
        kinds = {a.kind if isinstance(a, Lit) else getattr(value_type(a), "_kind", None) for a in args}
        if {"float", "int"} <= kinds or {"float", "uint"} <= kinds:
            hint = " Mixed integer and float operands need an explicit conversion, e.g. float(i)."
        elif b.name in ("mul", "div") and all(T.kind_of(value_type(a)) == "vector" for a in args if not isinstance(a, Lit)):
            hint = " Vectors do not multiply with *: use wp.dot, wp.cw_mul (componentwise) or wp.outer."
        op = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "floordiv": "//", "pow": "**"}.get(b.name)
        what = f"operator {op}" if op else f"wp.{b.name}"
        if op and "Mixed integer and float" in hint:
            # the conversion is the whole answer: a list of a dozen overloads would bury it
            self.error(KernelTypeError, f"{what} does not accept ({got}).{hint}", node)
        # Warp's words lead for a named builtin (its tests match them); operators keep the plain form
        lead = "" if op else f"Couldn't find function overload for '{b.name}': "
        self.error(KernelTypeError, f"{lead}{what} does not accept ({got}).{hint}\nIt accepts:\n"
                                    f"{registry.describe_overloads(b)}", node)

    # --- values -------------------------------------------------------------------------
    def materialize(self, v, t, node) -> ir.Var:
        """A value as a variable of type `t` (literals take `t`; None keeps the default)."""
        if isinstance(v, Lit):
            lit = Literal(v.kind, v.value)
            t = lit.default() if t is None else t
            if T.is_scalar_type(t) and (lit.fits(t) or (v.kind == "int" and t._kind == "float")):
                value = t._convert(v.value)
                return self.let(ir.Const(value, t), t, node.loc, "c")
            if T.is_composite_type(t) and v.kind in ("int", "float"):
                return self.let(ir.Construct(t, (self.materialize(v, t._wp_scalar_type_, node),)), t, node.loc)
            self.error(KernelTypeError, f"a {v.kind} literal cannot be used as {T.type_name(t)}", node)
        if isinstance(v, TupleValue):
            return self.make_tuple(v, node)
        if isinstance(v, PyObj) or v is None:
            self.error(KernelTypeError, f"{self.describe(v)} is not a value", node)
        if t is not None and not (v.type is t or v.type == t):
            self.error(KernelTypeError, f"expected {T.type_name(t)}, got {T.type_name(v.type)}", node)
        return v

    def convert(self, v, t, node, what: str = "this value") -> ir.Var:
        """`v` as type `t`: literals adapt, variables must already have the type."""
        if isinstance(v, Lit) or isinstance(v, TupleValue):
            return self.materialize(v, t, node)
        if isinstance(v, PyObj) or v is None:
            self.error(KernelTypeError, f"{what} must be {T.type_name(t)}, got {self.describe(v)}", node)
        if v.type is t or v.type == t:
            return v
        self.error(KernelTypeError, f"{what} must be {T.type_name(t)}, got {T.type_name(v.type)}; convert "
                                    f"explicitly, e.g. {T.type_name(t)}(...)", node)

    def make_tuple(self, v, node) -> ir.Var:
        items = [self.materialize(x, None, node) for x in v]
        t = ir.TupleType(tuple(x.type for x in items))
        return self.let(ir.TupleOf(tuple(items)), t, node.loc)

    def unpack(self, value, n: int, node) -> list:
        if isinstance(value, TupleValue):
            items = list(value)
        elif isinstance(value, ir.Var) and isinstance(value.type, ir.TupleType):
            items = [self.let(ir.Extract(value, (k,)), t, node.loc) for k, t in enumerate(value.type.items)]
        elif isinstance(value, ir.Var) and T.kind_of(value.type) in ("vector", "quaternion"):
            items = [self.let(ir.Extract(value, (k,)), value.type._wp_scalar_type_, node.loc)
                     for k in range(value.type._shape_[0])]
        else:
            self.error(KernelTypeError, f"cannot unpack {self.describe(value)} into {n} names", node)
        if len(items) != n:
            self.error(KernelTypeError, f"cannot unpack {len(items)} values into {n} names", node)
        return items

    def describe(self, v) -> str:
        if isinstance(v, Lit):
            return f"the {v.kind} constant {v.value!r}"
        if isinstance(v, TupleValue):
            return "a tuple"
        if isinstance(v, PyObj):
            obj = v.obj
            if isinstance(obj, str):
                return "a string"
            if isinstance(obj, registry.Builtin):
                return f"wp.{obj.name}"
            name = getattr(obj, "__name__", None)
            kind = type(obj).__name__
            if isinstance(obj, (list, tuple, dict, set)):
                return (f"`{kind}` value {obj!r:.40}; kernels accept wp.array, vectors and scalars (pass "
                        "it as a wp.array argument or a wp.vec/wp.constant)")
            return f"`{name}`" if name else f"a {kind}"
        if v is None:
            return "a call without a result"
        return f"a {T.type_name(v.type)}"

    def annotation_type(self, node):
        v = self.expr(node)
        t = v.obj if isinstance(v, PyObj) else None
        from ..types.scalars import canonical_scalar
        t = canonical_scalar(t)
        if t is None or not (T.is_scalar_type(t) or T.is_composite_type(t) or getattr(t, "_wp_struct_", False)
                             or isinstance(t, ArrayType)):
            self.error(KernelTypeError, "this annotation is not a kernel type", node)
        return t


_COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")


def _unqualified_builtin(name: str):
    """A builtin or a type of the wp namespace named without `wp.` (vec3, expect_eq, mat22 ...)."""
    if name in BUILTINS and BUILTINS[name].export:
        return BUILTINS[name]
    t = getattr(T, name, None)
    if t is not None and (T.is_scalar_type(t) or T.is_composite_type(t)):
        return t
    return MISSING
