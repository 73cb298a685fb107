"""Calls whose typing is not one fixed signature, for `typecheck`: wp.tid, print and
wp.printf, Python's builtins (float, int, min, len ...), type constructors (vec3(...),
float32(x), MyStruct()), and the builtins whose arguments are compile-time constants
(identity(n, dtype), quat_identity ...); wp.static, calls of @wp.func functions and wp.grad(f).
A builtin typed by a rule names it in the registry (`form="tid"`: the method `form_tid`, here or in
typecheck_tiles*.py); `special_call` dispatches on that field. A mixin of FunctionTyper."""

from __future__ import annotations

import ast
import types
import builtins as py

from ..types import composite
from . import hints, ir
from ..builtins import registry
from . import syntax as S
from .. import types as T
from ..types.array_type import ArrayType
from ..types.tiles import TileType
from ..types.generic import is_generic, matches
from ..types.function_value import FUNCTION_PARAM, FunctionValue, is_function_object
from ..errors import KernelAttributeError, KernelSyntaxError, KernelTypeError, KernelUnsupportedError
from ..builtins.registry import BUILTINS, Overload, Resolved
from ..types.native_types import native_info
from ..types.scalars import canonical_scalar
from .scope import ConstValue, GradOf, Lit, PyObj, classify, grad
from .typecheck_expr import TupleValue, value_type

_PY_TO_BUILTIN = {py.min: "min", py.max: "max", py.abs: "abs", py.pow: "pow", py.round: "round"}


class Calls:
    def special_call(self, obj, node: S.Call, statement: bool):
        """The typed result of a special call, or NotImplemented for ordinary calls."""
        if obj is py.range:
            self.error(KernelSyntaxError, "range() can only be used as the iterable of a for loop", node)
        if obj is py.print:
            return self.form_print(node)
        if isinstance(obj, registry.Builtin):
            self.call_is_statement = statement  # a tile atomic whose result nobody reads is a statement
            return getattr(self, f"form_{obj.form}")(node) if obj.form else NotImplemented  # its declared rule
        form = getattr(obj, "_wp_kernel_form_", None) if _hashable(obj) or isinstance(obj, type) else None
        if form is not None:
            return self.new_array(form, node)
        name = _PY_TO_BUILTIN.get(obj) if _hashable(obj) else None
        if name is not None:
            return self.call_builtin(BUILTINS[name], [self.expr(a) for a in node.args], node)
        if obj is py.len:
            return self.len_call(node)
        if obj is grad:
            return self.grad_of(node)
        if isinstance(obj, GradOf):
            return self.grad_call(obj.func, node)
        if obj is py.type and len(node.args) == 1 and not node.kwargs:  # type(x): its kernel type, usable as a
            v = self.expr(node.args[0])                                 # constructor (generic code does this)
            if isinstance(v, ir.Var):
                return PyObj(v.type)
            if isinstance(v, Lit):
                return PyObj(registry.concrete(registry.Literal(v.kind, v.value)))
            self.error(KernelTypeError, f"type() of {self.describe(v)} is not a kernel type", node)
        if obj in (py.float, py.int, py.bool) and _hashable(obj):
            if len(node.args) != 1 or node.kwargs:
                self.error(KernelTypeError, f"{obj.__name__}() takes one argument", node)
            if obj is py.bool:
                return self.condition(node.args[0])
            return self.construct(canonical_scalar(obj), node)
        if obj in (composite.vector, composite.matrix, composite.quaternion, composite.transformation):
            return self.generic_composite(obj, node)
        if T.is_scalar_type(obj) or T.is_composite_type(obj) or getattr(obj, "_wp_struct_", False):
            return self.construct(obj, node)
        if native_info(obj) is not None:  # a C++ type of the user's (wp.build_experimental.add_native_type)
            return self.construct_native(obj, node)
        if isinstance(obj, ArrayType) or obj is T.Any:
            self.error(KernelTypeError, "arrays cannot be created inside kernels; pass them as arguments", node)
        return NotImplemented

    # --- thread index -------------------------------------------------------------------
    def is_tid_call(self, node: S.Call) -> bool:
        try:
            fn = self.expr(node.func)
        except Exception:
            return False
        return isinstance(fn, PyObj) and fn.obj is BUILTINS.get("tid")

    def form_tid(self, node):
        return self.tid(node, 1)

    def tid(self, node, count: int, index: int = 0):
        if not self.is_kernel:
            self.error(KernelTypeError, "wp.tid() can only be called in a kernel; pass the index to the function", node)
        if node.args or node.kwargs:
            self.error(KernelTypeError, "wp.tid() takes no arguments", node)
        if count > 4:
            self.error(KernelTypeError, "wp.tid() gives at most 4 indices", node)
        # calls unpacking different numbers of indices may mix (as Warp): the kernel takes the most,
        # and a scalar wp.tid() is the leading one
        self.tid_count = max(self.tid_count, count)
        return self.let(ir.Tid(index, count), T.int32, node.loc, "tid")

    # --- output -------------------------------------------------------------------------
    def form_print(self, node):
        items = []
        for a in node.args:
            v = self.expr(a)
            if isinstance(v, PyObj) and isinstance(v.obj, str):
                items.append(v.obj)
            elif isinstance(v, PyObj):
                self.error(KernelTypeError, f"print() cannot show {self.describe(v)}", a)
            else:
                items.append(self.materialize(v, None, a))
        if node.kwargs:
            self.error(KernelTypeError, "print() in a kernel takes no keyword arguments", node)
        self.block.append(ir.Print("", tuple(items), node.loc))

    def form_printf(self, node):
        if not node.args:
            self.error(KernelTypeError, 'wp.printf needs a format string: wp.printf("%d\\n", i)', node)
        fmt = self.expr(node.args[0])
        if not (isinstance(fmt, PyObj) and isinstance(fmt.obj, str)):
            self.error(KernelTypeError, "the first argument of wp.printf must be a string constant", node)
        if len(node.args) > 33:  # as Warp, which forwards at most 32 values to the device's printf
            self.error(KernelUnsupportedError, "the maximum number of variadic arguments that can be passed to "
                                               "`printf` is 32", node)
        args = []
        for a in node.args[1:]:
            v = self.materialize(self.expr(a), None, a)
            if not T.is_scalar_type(v.type):
                self.error(KernelTypeError, f"wp.printf prints scalars; got {T.type_name(v.type)} (use print())", a)
            args.append(v)
        self.block.append(ir.Print(fmt.obj, tuple(args), node.loc))

    def form_static(self, node):
        """wp.static(expr): evaluate the Python expression now, with the kernel's globals and closure."""
        loc = node.loc
        if len(node.args) != 1 or node.kwargs:
            self.error(KernelTypeError, "wp.static() takes one expression", node)
        text = node.source or (loc.text[loc.col:loc.end_col] if loc.text and loc.end_col is not None else "")
        try:
            call = ast.parse("(" + text.strip() + ")", mode="eval").body
            source = ast.unparse(call.args[0])
        except (SyntaxError, AttributeError, IndexError):
            self.error(KernelSyntaxError, "cannot read the expression inside wp.static(...)", node)
        namespace = dict(self.scope.globals)
        for name, cell in self.scope.cells.items():
            try:
                namespace[name] = cell.cell_contents
            except ValueError:
                pass
        # compile-time locals shadow globals: an unrolled loop's variable, a function held in a local
        # a local bound to a number (x = 3) is known too, and a composite local has a known len()
        for name, v in self.env.items():
            if isinstance(v, Lit):
                namespace[name] = v.value
            elif isinstance(v, PyObj):
                namespace[name] = v.obj
            elif isinstance(v, ir.Var) and id(v) in self.bound_constants:
                namespace[name] = self.bound_constants[id(v)]
            elif isinstance(v, ir.Var) and (T.is_composite_type(v.type) or isinstance(v.type, (ir.TupleType, TileType))):
                namespace[name] = _KnownLength(v.type)
        try:
            value = eval(compile(source, loc.file, "eval"), namespace)  # noqa: S307 (the user's own code)
        except NameError as e:  # a kernel variable whose value is only known when the kernel runs
            self.error(KernelTypeError, f"Error evaluating static expression: {e}. Make sure all variables used in "
                                        f"the static expression are constant. (in wp.static({source}))", node)
        except Exception as e:  # the user's expression failed: report it at its line
            self.error(KernelTypeError, f"Error evaluating static expression: {e} (in wp.static({source}), "
                                        f"{type(e).__name__})", node)
        return self.static_value(value, node)

    def static_value(self, value, node, path: str | None = None):
        """A Python value computed by wp.static as a kernel value: constants, composites, and struct
        instances (field by field; `path` names a nested one in errors)."""
        unsupported = "Static expression returns an unsupported value: "
        if getattr(type(value), "_wp_array_", False):
            self.error(KernelTypeError, unsupported + "a Warp array cannot be created inside Warp kernels (pass the "
                                                      "array as a kernel argument)", node)
        if value is None:
            self.error(KernelTypeError, unsupported + "None is returned", node)
        struct = getattr(value, "_struct", None)
        if struct is not None:
            path = path or struct.__name__
            out = self.let(ir.Construct(struct, ()), struct, node.loc)
            for name, ft in struct.fields.items():
                if isinstance(ft, ArrayType):
                    self.error(KernelTypeError, unsupported + "the returned Warp struct contains a data type that "
                                                              "cannot be constructed inside Warp kernels: a Warp array "
                                                              f"cannot be created inside Warp kernels at {path} "
                                                              f"(field `{name}`)", node)
                field = self.convert(self.static_value(getattr(value, name), node, f"{path}.{name}"), ft, node,
                                     f"field `{name}`")
                out = self.let(ir.Update(out, (name,), field), struct, node.loc)
            return out
        obj, value = value, classify(value)
        if isinstance(value, ConstValue):
            return self.let(ir.Const(value.value, value.type), value.type, node.loc)
        if isinstance(value, PyObj) and not (callable(obj) or isinstance(obj, (type, types.ModuleType, str, tuple, list,
                                                                                 dict, range))):
            self.error(KernelTypeError, unsupported + f"value of type {type(obj).__qualname__}; wp.static gives "
                                                      "numbers, strings, wp types and values, functions and structs",
                       node)
        return value

    # --- @wp.func calls ----------------------------------------------------------------
    def call_function(self, func, args: list, node):
        if any(fdef is self.fdef for fdef in self.context.stack) and func.overloads[0].fdef is self.fdef \
                and func.overloads[0].native is None:
            self.error(KernelSyntaxError, f"recursion is not supported in kernels: `{func.key}` calls itself", node)
        arg_nodes = list(getattr(node, "args", ()))[:len(args)]
        arg_nodes += [None] * (len(args) - len(arg_nodes))
        inst, vars_ = self.function_instance(func, args, node, arg_nodes)
        arg_nodes = [n for n, a in zip(arg_nodes, args) if not (isinstance(a, PyObj) and is_function_object(a.obj))]
        # tiles the function writes into and wp.ref[T] parameters: references to copies, copied back after
        vars_, rebinds, stores = self.reference_args(inst, vars_, node, arg_nodes)
        call = ir.CallFunc(inst, tuple(vars_))
        if inst.return_type is None:
            self.block.append(ir.Effect(call, node.loc))
            result = None
        elif getattr(inst.return_type, "kind", "") == "fixedarray":  # a returned fixed-size array: the caller's own
            result = self.returned_fixed_array(self.let(call, inst.return_type, node.loc), node)
        else:
            result = self.let(call, inst.return_type, node.loc)
        for name, value in rebinds:
            self.rebind_tile(name, value, node)
        for target, value in stores:  # a wp.ref[T] argument that is an array element, field or component
            self.store(target, value, node)
        return result

    def function_instance(self, func, args: list, node, arg_nodes=None):
        """(the typed instance of @wp.func `func` for these arguments, the arguments as variables)."""
        from .typecheck import native_instance, typecheck_function  # the statement typer (a cycle otherwise)

        args = [self.make_tuple(a, node) if isinstance(a, TupleValue) else a for a in args]  # f((a, b))
        for a in args:
            if isinstance(a, PyObj) and not is_function_object(a.obj):
                self.error(KernelTypeError, f"cannot pass {self.describe(a)} to {func.key}", node)
            if isinstance(a, PyObj) and isinstance(a.obj, registry.Builtin) and a.obj.special:
                # typed by rules of its own (printf's format string, tid's launch dims): not a plain function
                self.error(KernelTypeError, f"unsupported built-in function '{a.obj.name}' for a Function parameter of "
                                            f"{func.key}: only builtins typed by their overloads can be passed", node)
        arg_types = [FunctionValue(a.obj) if isinstance(a, PyObj) else value_type(a) for a in args]
        overload = func.select_overload(arg_types)
        if overload is None:
            got = ", ".join(T.type_name(t) for t in arg_types)
            self.error(KernelTypeError, f"Couldn't find function overload for '{func.key}': no overload of "
                                        f"{func.key} accepts ({got})", node)
        if (overload.custom_grad is not None or overload.custom_replay is not None) \
                and any(p is FUNCTION_PARAM for p in overload.params):
            # as Warp: the adjoint of a call through a function-valued parameter is generated per
            # target; a hand-written @wp.func_grad / @wp.func_replay could not follow the target
            self.error(KernelTypeError, f"{func.key}: functions with Function parameters (wp.Function) cannot have "
                                        "custom gradients or replay functions (@wp.func_grad, @wp.func_replay)", node)
        params = overload.resolve_params(arg_types)
        self.check_reference_args(func, overload, args, arg_nodes, node)
        vars_ = [self.materialize(a, t, node) if isinstance(a, Lit) else a for a, t in zip(args, params)]
        # a function passed to a wp.Function parameter is part of the callee's typing, not an argument
        param_types = [t if isinstance(t, FunctionValue) else v.type for v, t in zip(vars_, params)]
        vars_ = [v for v, t in zip(vars_, params) if not isinstance(t, FunctionValue)]
        if overload.native is not None:
            inst = native_instance(func, overload, param_types, self.context)
        else:
            if any(fdef is overload.fdef for fdef in self.context.stack):
                self.error(KernelSyntaxError, f"recursion is not supported in kernels: `{func.key}` is already being "
                                              "called on this path", node)
            declared = overload.return_type
            generic_return = declared is not None and is_generic(declared)  # `-> wp.Int`: any int the code returns
            inst = typecheck_function(func, overload.fdef, param_types, overload.scope, self.context,
                                      None if generic_return else declared, overload)
            if generic_return and not (inst.return_type is not None and matches(declared, inst.return_type)):
                self.error(KernelTypeError, f"The function `{func.key}` has its return type annotated as "
                                            f"`{T.type_name(declared)}` but the code returns a value of type "
                                            f"`{T.type_name(inst.return_type)}`.", node)
        if inst not in self.funcs:
            self.funcs.append(inst)
        return inst, vars_

    # --- Python builtins ----------------------------------------------------------------
    def grad_of(self, node):
        """wp.grad(f): f named directly, through a local, or through wp.static(...)."""
        if len(node.args) != 1 or node.kwargs:
            self.error(KernelTypeError, "wp.grad() takes one function: wp.grad(f)(x)", node)
        f = self.expr(node.args[0])
        if not (isinstance(f, PyObj) and (getattr(f.obj, "_wp_func_", False) or isinstance(f.obj, registry.Builtin))):
            self.error(KernelTypeError, f"wp.grad() takes a @wp.func or a wp builtin, not {self.describe(f)}", node)
        return PyObj(GradOf(f.obj))

    def grad_call(self, func, node):
        """wp.grad(f)(args): f's adjoint at args with the result's adjoint 1 (ir.GradCall)."""
        if node.kwargs:
            self.error(KernelTypeError, "wp.grad(f)(...) takes positional arguments", node)
        args = [self.expr(a) for a in node.args]
        name = getattr(func, "key", None) or f"wp.{func.name}"
        if isinstance(func, registry.Builtin):
            if not func.differentiable or func.special:
                self.error(KernelTypeError, f"wp.grad({name}): {name} has no gradient", node)
            resolved = registry.resolve(func, [value_type(a) for a in args])
            if resolved is None:
                self.no_overload(func, args, node)
            vars_ = [self.materialize(a, t, node) if isinstance(a, Lit) else a for a, t in zip(args, resolved.arg_types)]
            result = resolved.result
            call = ir.GradCall(func, tuple(vars_), resolved)
        else:
            inst, vars_ = self.function_instance(func, args, node)
            # the definition the instance was typed from (a function passed to a wp.Function parameter is
            # part of the instance's typing, not one of vars_)
            overload = inst.overload or func.select_overload([v.type for v in vars_])
            if overload is not None and overload.custom_grad is not None and inst.custom_grad is None:  # typed here even without backward
                from .typecheck import custom_grad_instance  # the statement typer (a cycle otherwise)
                inst.custom_grad = custom_grad_instance(func, overload, inst, self.context)
            result = inst.return_type
            call = ir.GradCall(inst, tuple(vars_))
        if not (T.is_scalar_type(result) and result._kind == "float"):
            self.error(KernelTypeError, f"wp.grad({name}) needs a function with one float result, not "
                                        f"{T.type_name(result) if result is not None else 'none'}", node)
        types_ = [v.type for v in vars_]
        t = types_[0] if len(types_) == 1 else ir.TupleType(tuple(types_))
        return self.let(call, t, node.loc, "grad")

    def check_function_path(self, func) -> None:
        """`wp.missing()` or `wp.types.tid()`: a module path that names no function, in Warp's words."""
        path, root = [], func
        while isinstance(root, S.Attribute):
            path.insert(0, root.attr)
            root = root.value
        if not path or not isinstance(root, S.Name) or root.id in self.env:
            return  # not a path through modules (a local's attribute is typed as usual)
        base = self.expr(func.value)
        if isinstance(base, PyObj) and isinstance(base.obj, types.ModuleType) and not hasattr(base.obj, func.attr):
            dotted = ".".join([root.id] + path)
            suggestion = hints.did_you_mean(func.attr, hints.builtin_names(), "wp.") \
                if getattr(base.obj, "__name__", None) == "warp_nb" else ""
            self.error(KernelAttributeError, f"Could not find function {dotted}." + suggestion, func)

    @staticmethod
    def type_attribute(t, attr: str):
        """What Warp's types answer for generic code: an array type's or a composite type's `dtype`
        (element or scalar type), a vector type's `length`; None for anything else."""
        if isinstance(t, ArrayType) and attr == "dtype":
            return t.dtype
        if isinstance(t, type) and T.is_composite_type(t):
            if attr == "dtype":
                return t._wp_scalar_type_
            if attr == "length" and T.kind_of(t) == "vector":
                return t._shape_[0]
        return None

    def len_call(self, node):
        if len(node.args) != 1:
            self.error(KernelTypeError, "len() takes one argument", node)
        v = self.expr(node.args[0])
        if isinstance(v, ir.Var) and T.kind_of(v.type) in ("vector", "quaternion", "transformation", "matrix"):
            return Lit(v.type._shape_[0], "int")
        if isinstance(v, ir.Var) and isinstance(v.type, ir.TupleType):
            return Lit(len(v.type.items), "int")
        if isinstance(v, tuple):  # a tuple expression
            return Lit(len(v), "int")
        return self.call_builtin(BUILTINS["len"], [v], node)

    # --- builtins with constant arguments -----------------------------------------------
    def _template_call(self, name: str, template: str, result, bindings: dict, node, args=()):
        b = BUILTINS[name]
        resolved = Resolved(Overload((), result, (), template), tuple(a.type for a in args), result, bindings)
        return self.let(ir.Call(b, tuple(args), resolved), result, node.loc)

    def _named(self, node, names, defaults):
        out = dict(defaults)
        for name, arg in zip(names, node.args):
            out[name] = arg
        for key, arg in node.kwargs:
            if key not in names:
                self.error(KernelTypeError, f"unexpected argument `{key}`", node)
            out[key] = arg
        return out

    def form_identity(self, node):
        a = self._named(node, ("n", "dtype"), {})
        if "n" not in a:
            self.error(KernelTypeError, "wp.identity(n, dtype) needs the size n", node)
        n = self.const_int(a["n"])
        dtype = self.const_type(a["dtype"]) if "dtype" in a else T.float32
        return self._template_call("identity", "wpnb::identity<{n}, {T}>", T.matrix((n, n), dtype),
                                   {"n": n, "T": dtype}, node)

    def form_quat_identity(self, node):
        a = self._named(node, ("dtype",), {})
        dtype = self.const_type(a["dtype"]) if "dtype" in a else T.float32
        return self._template_call("quat_identity", "wpnb::quat_identity<{T}>", T.quaternion(dtype), {"T": dtype}, node)

    def form_transform_identity(self, node):
        a = self._named(node, ("dtype",), {})
        dtype = self.const_type(a["dtype"]) if "dtype" in a else T.float32
        return self._template_call("transform_identity", "wpnb::transform_identity<{T}>", T.transformation(dtype),
                                   {"T": dtype}, node)

    def form_index(self, node):
        """wp.index(a, i) / wp.index(a, i, j): Warp's call spelling of the subscript a[i] / a[i, j]."""
        if node.kwargs or len(node.args) not in (2, 3):
            self.error(KernelTypeError, "wp.index(a, i) or wp.index(a, i, j) takes a vector, matrix, quaternion or "
                                        "transformation and one or two indices", node)
        base = self.expr(node.args[0])
        if not (isinstance(base, ir.Var) and T.kind_of(base.type) is not None):
            self.error(KernelTypeError, f"wp.index reads a component of a vector, matrix, quaternion or "
                                        f"transformation, not {self.describe(base)}", node)
        return self.expr(S.Subscript(node.args[0], tuple(node.args[1:]), node.loc))

    def form_unot(self, node):
        """wp.unot(a): Warp's call spelling of `not a` (a scalar, a bool, or an array: whether it is None)."""
        if node.kwargs or len(node.args) != 1:
            self.error(KernelTypeError, "wp.unot(a) takes one value", node)
        return self.expr(S.UnaryOp("logical_not", node.args[0], node.loc))

    def form_cast(self, node):
        a = self._named(node, ("a", "dtype"), {})
        if set(a) != {"a", "dtype"}:
            self.error(KernelTypeError, "wp.cast(a, dtype) takes a value and the type to read its bits as", node)
        value = self.expr(a["a"])
        if isinstance(value, Lit):
            value = self.materialize(value, None, node)
        if not isinstance(value, ir.Var) or isinstance(value.type, (ArrayType, ir.TupleType)):
            self.error(KernelTypeError, f"wp.cast reinterprets a scalar, vector, matrix or struct value, not "
                                        f"{self.describe(value)}", node)
        target = self.expr(a["dtype"])
        dtype = canonical_scalar(target.obj) if isinstance(target, PyObj) else None
        if not (T.is_scalar_type(dtype) or T.is_composite_type(dtype) or getattr(dtype, "_wp_struct_", False)):
            self.error(KernelTypeError, "wp.cast(a, dtype): dtype must be a scalar, vector, matrix or struct type", node)
        size_from, size_to = T.type_size_in_bytes(value.type), T.type_size_in_bytes(dtype)
        if size_from != size_to:
            self.error(KernelTypeError, f"wp.cast reads the bits of {T.type_name(value.type)} ({size_from} bytes) as "
                                        f"{T.type_name(dtype)} ({size_to} bytes): the sizes must be equal", node)
        return self._template_call("cast", "wpnb::bit_cast<{T}>", dtype, {"T": dtype}, node, (value,))

    def form_matrix_from_rows(self, node):
        return self.matrix_from([self.expr(a) for a in node.args], node, "rows")

    def form_matrix_from_cols(self, node):
        return self.matrix_from([self.expr(a) for a in node.args], node, "cols")

    def matrix_from(self, args, node, how: str, expected=None):
        if not args or not all(isinstance(a, ir.Var) and T.kind_of(a.type) == "vector" for a in args):
            self.error(KernelTypeError, f"wp.matrix_from_{how} takes vectors", node)
        vt = args[0].type
        if any(a.type is not vt for a in args):
            self.error(KernelTypeError, f"wp.matrix_from_{how} takes vectors of one type", node)
        k, n = len(args), vt._shape_[0]
        result = T.matrix((k, n) if how == "rows" else (n, k), vt._wp_scalar_type_)
        if expected is not None and result is not expected:
            self.error(KernelTypeError, f"cannot build {T.type_name(expected)} from {k} vectors of length {n}", node)
        return self._template_call(f"matrix_from_{how}", f"wpnb::matrix_from_{how}", result, {}, node, args)


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True



class _KnownLength:
    """A kernel vector, matrix, quaternion or transform as wp.static sees it: only its length is
    known when the kernel is compiled (wp.static(len(v)))."""

    def __init__(self, t):
        self.type = t

    def __len__(self) -> int:
        items = getattr(self.type, "items", None)  # a tuple
        if isinstance(self.type, TileType):
            return int(self.type.shape[0])  # a tile's first extent, as Warp's len(t)
        return len(items) if items is not None else int(self.type._shape_[0])
