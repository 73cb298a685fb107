"""Calls whose typing is not one fixed signature, for `typecheck`: wp.tid, print and
wp.printf, Python's builtins (float, int, min, len ...), type constructors (vec3(...),
float32(x), MyStruct()), and the builtins whose arguments are compile-time constants
(identity(n, dtype), quat_identity ...). A mixin of FunctionTyper."""

from __future__ import annotations

import ast
import builtins as py
import warnings

from ..types import composite
from . import ir
from ..builtins import registry
from . import syntax as S
from .. import types as T
from ..types.array_type import ArrayType
from ..errors import KernelRuntimeTypeError, KernelSyntaxError, KernelTypeError
from ..builtins.registry import BUILTINS, Overload, Resolved
from ..types.scalars import canonical_scalar
from .scope import ConstValue, Lit, PyObj, classify

_PY_TO_BUILTIN = {py.min: "min", py.max: "max", py.abs: "abs", py.pow: "pow", py.round: "round"}


class SpecialForms:
    def special_call(self, obj, node: S.Call, statement: bool):
        """The typed result of a special call, or NotImplemented for ordinary calls."""
        if obj is py.range:
            self.error(KernelSyntaxError, "range() can only be used as the iterable of a for loop", node)
        if obj is py.print:
            return self.print_call(node)
        if isinstance(obj, registry.Builtin):
            return SPECIAL_FORMS[obj.name](self, node) if obj.special else NotImplemented
        name = _PY_TO_BUILTIN.get(obj) if _hashable(obj) else None
        if name is not None:
            return self.call_builtin(BUILTINS[name], [self.expr(a) for a in node.args], node)
        if obj is py.len:
            return self.len_call(node)
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
        if self.tid_count and self.tid_count != count:
            self.error(KernelTypeError, f"wp.tid() is unpacked into {count} indices here but {self.tid_count} "
                                        "elsewhere in this kernel", node)
        self.tid_count = count
        return self.let(ir.Tid(index, count), T.int32, node.loc, "tid")

    # --- output -------------------------------------------------------------------------
    def print_call(self, node):
        items = []
        for a in node.args:
            v = self.expr(a)
            if isinstance(v, PyObj) and isinstance(v.obj, str):
                items.append(v.obj)
            elif isinstance(v, PyObj):
                self.error(KernelTypeError, f"print() cannot show {self.describe(v)}", a)
            else:
                items.append(self.materialize(v, None, a))
        self.block.append(ir.Print("", tuple(items), node.loc))

    def form_printf(self, node):
        if not node.args:
            self.error(KernelTypeError, 'wp.printf needs a format string: wp.printf("%d\\n", i)', node)
        fmt = self.expr(node.args[0])
        if not (isinstance(fmt, PyObj) and isinstance(fmt.obj, str)):
            self.error(KernelTypeError, "the first argument of wp.printf must be a string constant", node)
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
        try:
            value = eval(compile(source, loc.file, "eval"), namespace)  # noqa: S307 (the user's own code)
        except Exception as e:  # the user's expression failed: report it at its line
            self.error(KernelTypeError, f"Error evaluating static expression: {e} (in wp.static({source}), "
                                        f"{type(e).__name__})", node)
        return self.static_value(value, node)

    def static_value(self, value, node):
        """A Python value computed by wp.static as a kernel value: constants, composites, and struct
        instances (field by field)."""
        struct = getattr(value, "_struct", None)
        if struct is not None:
            out = self.let(ir.Construct(struct, ()), struct, node.loc)
            for name, ft in struct.fields.items():
                if isinstance(ft, ArrayType):
                    self.error(KernelTypeError, f"wp.static cannot make a constant of {struct.__name__}: its field "
                                                f"`{name}` is an array", node)
                field = self.convert(self.static_value(getattr(value, name), node), ft, node, f"field `{name}`")
                out = self.let(ir.Update(out, (name,), field), struct, node.loc)
            return out
        value = classify(value)
        if isinstance(value, ConstValue):
            return self.let(ir.Const(value.value, value.type), value.type, node.loc)
        return value

    # --- Python builtins ----------------------------------------------------------------
    def len_call(self, node):
        if len(node.args) != 1:
            self.error(KernelTypeError, "len() takes one argument", node)
        v = self.expr(node.args[0])
        if isinstance(v, ir.Var) and T.kind_of(v.type) in ("vector", "quaternion", "transformation", "matrix"):
            return Lit(v.type._shape_[0], "int")
        return self.call_builtin(BUILTINS["len"], [v], node)

    # --- constructors -------------------------------------------------------------------
    def construct(self, t, node):
        t = canonical_scalar(t)
        if getattr(t, "_wp_struct_", False):
            return self.construct_struct(t, node)
        if node.kwargs and T.kind_of(t) == "transformation":
            return self.construct_transform_by_keyword(t, node)
        if node.kwargs:
            self.check_type_keywords(t, node)
        args = [self.expr(a) for a in node.args]
        if T.is_scalar_type(t):
            return self.convert_scalar(t, args, node)
        return self.construct_composite(t, args, node)

    def convert_scalar(self, t, args, node):
        if not args:
            return self.materialize(Lit(0, "int"), t, node)
        if len(args) != 1:
            self.error(KernelTypeError, f"{T.type_name(t)}() takes one argument", node)
        v = args[0]
        if isinstance(v, Lit):
            return self.let(ir.Const(t._convert(v.value), t), t, node.loc, "c")
        if isinstance(v, PyObj) or not T.is_scalar_type(v.type):
            self.error(KernelTypeError, f"cannot convert {self.describe(v)} to {T.type_name(t)}", node)
        if v.type is t:
            return v
        return self.let(ir.Construct(t, (v,)), t, node.loc)

    def construct_composite(self, t, args, node):
        kind, elem = T.kind_of(t), t._wp_scalar_type_
        n = T.type_length(t)
        if not args:
            return self.let(ir.Construct(t, ()), t, node.loc)
        scalars = all(isinstance(a, Lit) or (isinstance(a, ir.Var) and T.is_scalar_type(a.type)) for a in args)
        if scalars:  # Warp's rule: variables must have the element type already (literals convert)
            for a in args:
                if isinstance(a, ir.Var) and a.type is not elem:
                    what = f"the value used to fill this {kind} is" if len(args) == 1 else \
                        f"all values used to initialize this {kind} are"
                    self.error(KernelRuntimeTypeError, f"{what} expected to be of the type `{T.type_name(elem)}`", node)
        if len(args) == 1:
            a = args[0]
            if scalars:
                return self.let(ir.Construct(t, (self.convert(a, elem, node, "the fill value"),)), t, node.loc)
            if isinstance(a, ir.Var) and T.kind_of(a.type) == kind == "transformation" and a.type is not t:
                self.error(KernelRuntimeTypeError, "copy constructing a transform requires matching source and "
                                                   f"target dtypes, got `{T.type_name(a.type._wp_scalar_type_)}` and "
                                                   f"`{T.type_name(elem)}`", node)
            if isinstance(a, ir.Var) and T.kind_of(a.type) == kind and a.type._shape_ == t._shape_:
                return a if a.type is t else self.let(ir.Construct(t, (a,)), t, node.loc)
            if kind == "transformation" and isinstance(a, ir.Var) and a.type is T.vector(3, elem):
                return self.let(ir.Construct(t, (a,)), t, node.loc)  # transform(p): the identity rotation
            if isinstance(a, ir.Var) and T.kind_of(a.type) == kind == "vector":
                self.error(KernelRuntimeTypeError, f"incompatible vector of length {n} given when copy constructing a "
                                                 f"vector of length {a.type._shape_[0]}", node)
            if isinstance(a, ir.Var) and T.kind_of(a.type) == kind == "matrix":
                self.error(KernelRuntimeTypeError, f"incompatible matrix of shape {t._shape_} given when copy "
                                                 f"constructing a matrix of shape {a.type._shape_}", node)
            self.error(KernelTypeError, f"cannot build {T.type_name(t)} from {self.describe(a)}", node)
        if scalars and kind == "transformation" and len(args) != n:
            self.error(KernelRuntimeTypeError, f"incompatible number of values given ({len(args)}) when constructing a "
                                               "transform; expected 0, 1, or 7", node)
        if kind == "vector" and n == 6 and len(args) == 2 and all(  # spatial_vector(w, v) from two vec3
                isinstance(a, ir.Var) and a.type is T.vector(3, elem) for a in args):
            parts = tuple(self.let(ir.Extract(a, (k,)), elem, node.loc) for a in args for k in range(3))
            return self.let(ir.Construct(t, parts), t, node.loc)
        if scalars and kind in ("vector", "matrix") and len(args) != n:
            what = f"vector of length {n}" if kind == "vector" else f"matrix of shape {t._shape_}"
            self.error(KernelRuntimeTypeError, f"incompatible number of values given ({len(args)}) when constructing a "
                                             f"{what}", node)
        if scalars and len(args) == n:
            parts = tuple(self.convert(a, elem, node, f"each component of {T.type_name(t)}") for a in args)
            return self.let(ir.Construct(t, parts), t, node.loc)
        if kind == "quaternion" and len(args) == 2:
            v = self.convert(args[0], T.vector(3, elem), node, "the imaginary part")
            w = self.convert(args[1], elem, node, "the real part")
            return self.let(ir.Construct(t, (v, w)), t, node.loc)
        if kind == "transformation" and len(args) == 2:
            p = self.convert(args[0], T.vector(3, elem), node, "the translation")
            q = self.convert(args[1], T.quaternion(elem), node, "the rotation")
            return self.let(ir.Construct(t, (p, q)), t, node.loc)
        if kind == "matrix" and len(args) == t._shape_[1] and all(
                isinstance(a, ir.Var) and T.kind_of(a.type) == "vector" for a in args):
            warnings.warn(f"{T.type_name(t)}(v0, v1, ...) from vectors takes them as columns (as Warp does in "
                          "kernels, a deprecated form); write wp.matrix_from_cols(...) or wp.matrix_from_rows(...)",
                          DeprecationWarning, stacklevel=2)
            return self.matrix_from(args, node, "cols", t)
        self.error(KernelTypeError, f"{T.type_name(t)} takes 0, 1 or {n} scalar arguments"
                                    f"{' or (vec3, w)' if kind == 'quaternion' else ''}"
                                    f"{' or (p: vec3, q: quat)' if kind == 'transformation' else ''}; "
                                    f"got {len(args)}", node)

    def check_type_keywords(self, t, node):
        """mat32d(m, shape=(3, 2)), vec3(v, length=3, dtype=float): Warp accepts the type's own shape,
        length and dtype as keywords; anything else, or a value that disagrees, is an error."""
        for key, value in node.kwargs:
            if key == "dtype" and T.is_composite_type(t):
                ok = self.const_type(value) is t._wp_scalar_type_
            elif key == "length" and T.kind_of(t) == "vector":
                ok = self.const_int(value) == t._shape_[0]
            elif key == "shape" and T.kind_of(t) == "matrix":
                shape = self.expr(value)
                ok = isinstance(shape, tuple) and tuple(getattr(x, "value", None) for x in shape) == t._shape_
            else:
                self.error(KernelTypeError, f"{T.type_name(t)}() takes positional arguments only", node)
            if not ok:
                self.error(KernelTypeError, f"the `{key}` given to {T.type_name(t)}() does not match the type", node)

    def construct_transform_by_keyword(self, t, node):
        """wp.transform(p=..., q=...), wp.transform(v, q=...): a part left out is the identity's."""
        parts = dict(zip(("p", "q"), node.args))
        for key, value in node.kwargs:
            if key not in ("p", "q"):
                self.error(KernelTypeError, f"{T.type_name(t)}() got an unexpected keyword argument '{key}'", node)
            if key in parts or len(node.args) > 2:
                self.error(KernelTypeError, f"{T.type_name(t)}() got multiple values for argument '{key}'", node)
            parts[key] = value
        elem = t._wp_scalar_type_
        if "p" in parts:
            p = self.convert(self.expr(parts["p"]), T.vector(3, elem), node, "the translation")
        else:
            p = self.let(ir.Construct(T.vector(3, elem), ()), T.vector(3, elem), node.loc)
        if "q" in parts:
            q = self.convert(self.expr(parts["q"]), T.quaternion(elem), node, "the rotation")
        else:
            q = self._template_call("quat_identity", "wpnb::quat_identity<{T}>", T.quaternion(elem), {"T": elem}, node)
        return self.let(ir.Construct(t, (p, q)), t, node.loc)

    def construct_struct(self, t, node):
        """MyStruct(a, b, field=c): fields in declaration order, then by name; the rest zero."""
        names = list(t.fields)
        if len(node.args) > len(names):
            self.error(KernelTypeError, f"{t.__name__}() takes at most {len(names)} positional arguments (its fields "
                                        f"{', '.join(names)}), got {len(node.args)}", node)
        value = self.let(ir.Construct(t, ()), t, node.loc)
        for name, arg in list(zip(names, node.args)) + list(node.kwargs):
            ft = t.fields.get(name)
            if ft is None:
                self.error(KernelTypeError, f"struct {t.__name__} has no field `{name}`", node)
            field_value = self.convert(self.expr(arg), ft, node, f"field `{name}`")
            value = self.let(ir.Update(value, (name,), field_value), t, node.loc)
        return value

    def generic_composite(self, factory, node):
        kwargs = {k: v for k, v in node.kwargs}
        args = [self.expr(a) for a in node.args]
        dtype = self.const_type(kwargs["dtype"]) if "dtype" in kwargs else None
        if dtype is None:
            var_types = {a.type for a in args if isinstance(a, ir.Var)}
            literal_kinds = {a.kind for a in args if isinstance(a, Lit)}
            if factory is composite.vector and (len(var_types) > 1 or (not var_types and len(literal_kinds) > 1)):
                self.error(KernelRuntimeTypeError, "all values given when constructing a vector must have the same "
                                                 "type", node)
            first = next((a for a in args if isinstance(a, ir.Var)), None)
            dtype = T.scalar_type_of(first.type) if first is not None else \
                T.bool if literal_kinds == {"bool"} else T.float32  # vector(True, False): a bool vector
        if factory is composite.vector:
            copied = args[0] if len(args) == 1 and isinstance(args[0], ir.Var) and \
                T.kind_of(args[0].type) == "vector" else None
            if "length" in kwargs:
                length = self.const_int(kwargs["length"])
            elif copied is not None:  # vector(v, dtype=...): a copy, converted to dtype
                length = copied.type._shape_[0]
            elif not args:
                self.error(KernelRuntimeTypeError, "the `length` argument must be specified when zero-initializing a "
                                                 "vector", node)
            else:
                length = len(args)
            t = T.vector(length, dtype)
        elif factory is composite.quaternion:  # wp.quaternion(x, y, z, w) or (v, w), dtype from the parts
            t = T.quaternion(dtype)
        elif factory is composite.transformation:  # wp.transformation(p, q)
            t = T.transformation(dtype)
        else:
            if "shape" in kwargs:
                shape = self.expr(kwargs["shape"])
                shape = tuple(x.value for x in shape) if isinstance(shape, tuple) else None
            else:
                shape = None
            copied = args[0] if len(args) == 1 and isinstance(args[0], ir.Var) and \
                T.kind_of(args[0].type) == "matrix" else None
            if shape is None and copied is not None:  # matrix(m, dtype=...): a copy, converted to dtype
                shape = copied.type._shape_
            if shape is None:
                self.error(KernelRuntimeTypeError, "the `shape` argument must be specified when initializing a matrix "
                                                 "by value", node)
            t = T.matrix(shape, dtype)
        return self.construct_composite(t, args, node)

    def const_int(self, node) -> int:
        v = self.expr(node)
        if not (isinstance(v, Lit) and v.kind == "int"):
            self.error(KernelTypeError, "this argument must be an integer constant", node)
        return int(v.value)

    def const_type(self, node):
        v = self.expr(node)
        t = canonical_scalar(v.obj) if isinstance(v, PyObj) else None
        if not T.is_scalar_type(t):
            self.error(KernelTypeError, "dtype must be a scalar type such as float or wp.float64", node)
        return t

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


#: The special forms, by the name of the builtin they type (every builtin declared with
#: special=True has one; tests/unit/test_registry checks both ways).
SPECIAL_FORMS = {
    "tid": SpecialForms.form_tid, "printf": SpecialForms.form_printf, "static": SpecialForms.form_static,
    "identity": SpecialForms.form_identity, "quat_identity": SpecialForms.form_quat_identity,
    "transform_identity": SpecialForms.form_transform_identity,
    "matrix_from_rows": SpecialForms.form_matrix_from_rows, "matrix_from_cols": SpecialForms.form_matrix_from_cols,
}
