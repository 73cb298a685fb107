"""Type constructors for `typecheck`: scalar conversions (float32(x)), vectors, matrices,
quaternions and transforms from scalars, parts or copies (vec3(...), wp.types.vector(v, dtype=...),
wp.transform(p=..., q=...)), structs (MyStruct(a, field=b)), with Warp's rules and messages for what
they refuse. A mixin of FunctionTyper; knows nothing about C++."""

from __future__ import annotations

import warnings

from .. import types as T
from ..errors import KernelRuntimeTypeError, KernelTypeError, source_label, warn
from ..types import composite
from ..types.native_types import native_info
from ..types.scalars import canonical_scalar
from . import ir
from .scope import Lit, PyObj


class Constructors:
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

    def construct_native(self, t, node):
        """A native value type (wp.build_experimental): default-constructed, or from all its fields in
        order when registered with initializer="aggregate" (C++ aggregate initialization)."""
        info = native_info(t)
        if node.kwargs:
            self.error(KernelTypeError, f"{t.__name__}() takes its fields by position, not by keyword", node)
        if not node.args:
            return self.let(ir.Construct(t, ()), t, node.loc)
        if info.initializer != "aggregate" or len(node.args) != len(info.fields):
            self.error(KernelTypeError, f"{t.__name__}() takes no arguments or, registered with "
                       f"initializer='aggregate', all its fields in order ({', '.join(n for n, _ in info.fields)})"
                       if info.initializer == "aggregate" else
                       f"{t.__name__}() takes no arguments (it is not registered with initializer='aggregate')", node)
        values = []
        for (name, ft), a in zip(info.fields, node.args):
            v = self.expr(a)
            if isinstance(v, Lit):
                v = self.materialize(v, ft, node)
            elif isinstance(v, PyObj) and native_info(type(v.obj)) is not None and native_info(ft) is not None:
                self.error(KernelTypeError, f"field `{name}` of {t.__name__}: a {type(v.obj).__name__} constant "
                           "cannot be used in a kernel; build it in the kernel", node)
            if isinstance(v, PyObj) or v.type is not ft and not (native_info(v.type) is not None
                                                                and native_info(v.type) == native_info(ft)):
                self.error(KernelTypeError, f"field `{name}` of {t.__name__} is {T.type_name(ft)}, got "
                           f"{self.describe(v)}", node)
            values.append(v)
        return self.let(ir.Construct(t, tuple(values)), t, node.loc)

    def convert_scalar(self, t, args, node):
        if not args:
            return self.materialize(Lit(0, "int"), t, node)
        if len(args) != 1:
            self.error(KernelTypeError, f"{T.type_name(t)}() takes one argument", node)
        v = args[0]
        if isinstance(v, ir.Var) and v.type is not t:
            v = self.bound_literal(v)  # wp.float64(x) after x = 0.1: exactly 0.1, as Warp (not 0.1 in float32)
        if isinstance(v, Lit):
            return self.let(ir.Const(t._convert(self.int32_literal(v, t, node)), t), t, node.loc, "c")
        if isinstance(v, PyObj) or not T.is_scalar_type(v.type):
            self.error(KernelTypeError, f"cannot convert {self.describe(v)} to {T.type_name(t)}", node)
        if v.type is t:  # a copy for a bound local, so wp.float64(wp.float32(x)) sees a float32, not x's number
            return self.let(ir.Copy(v), t, node.loc) if id(v) in self.bound_constants else v
        return self.let(ir.Construct(t, (v,)), t, node.loc)

    def int32_literal(self, v, t, node):
        """The number a scalar constructor converts. Warp types an int literal as int32, and only a
        64-bit constructor (int64, uint64, float64) takes it whole: wp.float32(0xFFFFFFFF) converts
        int32(-1), so it is -1.0 in Warp, and here. Said once per line when that changes the result."""
        if v.kind != "int" or -2 ** 31 <= v.value < 2 ** 31 or t in (T.int64, T.uint64, T.float64):
            return v.value
        wrapped = (v.value + 2 ** 31) % 2 ** 32 - 2 ** 31
        if t._kind == "float" or bool(wrapped) != bool(v.value):  # integers of 32 bits or fewer wrap the same
            warn(f"{source_label(node.loc.file)}:{node.loc.line}: the integer literal {v.value} does not fit in "
                 f"int32, the type of an integer literal in a kernel, so {T.type_name(t)}({v.value}) converts "
                 f"{wrapped} (as in Warp); write {v.value}.0 or wp.int64({v.value}) to keep the value", once=True)
        return wrapped

    def bound_literal(self, v):
        """The literal a local was bound to outside any loop (x = 0.1), else the variable itself."""
        value = self.bound_constants.get(id(v))
        if value is None or not T.is_scalar_type(v.type):
            return v
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
        return Lit(value, kind)

    def construct_composite(self, t, args, node):
        kind, elem = T.kind_of(t), t._wp_scalar_type_
        n = T.type_length(t)
        if not args:
            return self.let(ir.Construct(t, ()), t, node.loc)
        # a local still holding the number it was bound to (x = 0.1) converts like that literal, as in Warp;
        # the local itself keeps its own value and type
        args = [self.bound_literal(a) if isinstance(a, ir.Var) and a.type is not elem else a for a in args]
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
        if kind == "vector" and n == 6 and len(args) == 2 and all(
                isinstance(a, ir.Var) and T.kind_of(a.type) == "vector" and a.type._shape_ == (3,) for a in args):
            # wp.spatial_vector(w, v): a 6-vector from its angular and linear halves, as Warp
            halves = [self.convert(a, T.vector(3, elem), node, "each half") for a in args]
            parts = tuple(self.let(ir.Extract(h, (k,)), elem, node.loc) for h in halves for k in range(3))
            return self.let(ir.Construct(t, parts), t, node.loc)
        if kind == "matrix" and len(args) == t._shape_[1] and all(
                isinstance(a, ir.Var) and T.kind_of(a.type) == "vector" for a in args):
            warnings.warn(f"{T.type_name(t)}(v0, v1, ...) from vectors takes them as columns (as Warp does in "
                          "kernels, a deprecated form); write wp.matrix_from_cols(...) or wp.matrix_from_rows(...)",
                          DeprecationWarning, stacklevel=2)
            return self.matrix_from(args, node, "cols", t)
        self.error(KernelTypeError, f"{T.type_name(t)} takes 0, 1 or {n} scalar arguments"
                                    f"{' or (vec3, w)' if kind == 'quaternion' else ''}"
                                    f"{' or (p: vec3, q: quat)' if kind == 'transformation' else ''}"
                                    f"{' or (w: vec3, v: vec3)' if kind == 'vector' and n == 6 else ''}; "
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
        known = {composite.vector: ("dtype", "length"), composite.matrix: ("dtype", "shape"),
                 composite.quaternion: ("dtype",), composite.transformation: ("dtype", "p", "q")}[factory]
        unknown = sorted(set(kwargs) - set(known))
        if unknown:  # never dropped silently
            self.error(KernelTypeError, f"wp.{factory.__name__}() has no argument `{unknown[0]}` (it takes "
                                        f"{', '.join(known)} by name)", node)
        if factory is composite.transformation and ("p" in kwargs or "q" in kwargs):
            if args or not ("p" in kwargs and "q" in kwargs):
                self.error(KernelTypeError, "wp.transformation(p=..., q=...) takes both by name, or both by position",
                           node)
            args = [self.expr(kwargs["p"]), self.expr(kwargs["q"])]
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
