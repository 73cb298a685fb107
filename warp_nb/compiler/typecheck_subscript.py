"""Subscripts that do more than read one element, for `typecheck`: constant slices of vectors and
matrices (`v[1:]`, `m[:, 0]`, `m[1:, :2]`) read and written, slices of arrays (views), and stores
into components, fields and array elements (`a[i].x = ...`, `v[0] = ...`). A mixin of FunctionTyper."""

from __future__ import annotations

from . import ir
from . import syntax as S
from .. import types as T
from ..errors import (
    KernelIndexError, KernelSliceValueError, KernelSyntaxError, KernelTypeError, KernelUnsupportedError,
    KernelValueError,
)
from ..types.scalars import canonical_scalar
from ..types.array_type import ArrayType, FixedArrayType
from ..types.tiles import TileType
from .scope import Lit, PyObj
from ..builtins.registry import BUILTINS

#: augmented assignments whose adjoint does not need the old value of their target (a[i].x += v)
_LINEAR_UPDATES = frozenset({"add", "sub"})


class Subscripts:
    # --- constant slices of vectors and matrices ------------------------------------------
    def slice_positions(self, t, index_nodes, node) -> tuple[list, object]:
        """v[1:3], m[:, 0], m[1:, :2] ... with constant bounds: the component paths the slice takes
        (in row-major order) and the type of the result (a vector, a matrix or a scalar)."""
        kind = T.kind_of(t)
        if kind in ("quaternion", "transformation"):  # sliced like a vector of their components
            t, kind = T.vector(t._shape_[0], t._wp_scalar_type_), "vector"
        if kind not in ("vector", "matrix"):
            self.error(KernelTypeError, f"only vectors and matrices can be sliced in kernels, not {T.type_name(t)} "
                                        "(index array elements one at a time)", node)
        shape = t._shape_
        if len(index_nodes) > len(shape):
            self.error(KernelTypeError, f"too many indices for {T.type_name(t)}", node)
        axes = []  # per axis: (list of positions, whether it was a slice)
        for axis, n in enumerate(tuple(index_nodes) + (S.Slice(None, None, None, node.loc),) * (
                len(shape) - len(index_nodes))):
            if isinstance(n, S.Slice):
                bounds = [self.const_slice_part(part, node) for part in (n.lower, n.upper, n.step)]
                if bounds[2] == 0:
                    self.error(KernelValueError, "Slice step cannot be zero", node)
                axes.append((list(range(*slice(*bounds).indices(shape[axis]))), True))
            else:
                path, _ = self.component_path(T.vector(shape[axis], t._wp_scalar_type_), (n,), node)
                axes.append((list(path), False))
        sizes = [len(ax) for ax, sliced in axes if sliced]
        elem = t._wp_scalar_type_
        if any(n == 0 for n in sizes):  # an empty slice: Warp's vec0, or mat00 for a matrix (no components)
            return [], T.vector(0, elem) if len(sizes) == 1 else T.matrix((0, 0), elem)
        result = T.vector(sizes[0], elem) if len(sizes) == 1 else T.matrix(tuple(sizes), elem) if sizes else elem
        positions = [(i,) for i in axes[0][0]] if len(axes) == 1 else \
            [(i, j) for i in axes[0][0] for j in axes[1][0]]
        return positions, result

    def const_slice_part(self, part, node):
        if part is None:
            return None
        v = self.expr(part)
        if isinstance(v, ir.Var) and isinstance(self.bound_constants.get(id(v)), int):
            v = Lit(self.bound_constants[id(v)], "int")  # n = 3 outside any loop: a constant, as in Warp
        if not (isinstance(v, Lit) and v.kind == "int"):
            self.error(KernelTypeError, "slice bounds in kernels must be integer constants (the result's length "
                                        "is part of its type)", node)
        return int(v.value)

    def component_path(self, t, index_nodes, node):
        """The path and result type of v[i], m[i, j], m[i], t[i], tuple[k]."""
        kind = T.kind_of(t)
        if isinstance(t, ir.TupleType):
            if len(index_nodes) != 1:
                self.error(KernelTypeError, "a tuple takes one index", node)
            k = self.expr(index_nodes[0])
            if not isinstance(k, Lit) or not 0 <= k.value < len(t.items):
                self.error(KernelTypeError, f"a tuple index must be a constant in 0..{len(t.items) - 1}", node)
            return (int(k.value),), t.items[k.value]
        if kind is None:
            self.error(KernelTypeError, f"{T.type_name(t)} cannot be indexed", node)
        shape = t._shape_
        if len(index_nodes) > len(shape):
            self.error(KernelTypeError, f"too many indices for {T.type_name(t)}", node)
        path = []
        for axis, n in enumerate(index_nodes):
            v = self.expr(n)
            if isinstance(v, Lit):
                if v.kind != "int":
                    self.error(KernelTypeError, "component indices must be integers", n)
                if not -shape[axis] <= v.value < shape[axis]:
                    self.error(KernelIndexError, f"index {v.value} is out of range for {T.type_name(t)} "
                                                f"(size {shape[axis]})", n)
                path.append(int(v.value) % shape[axis])
            elif isinstance(v, PyObj) or not T.is_int_type(v.type):
                self.error(KernelTypeError, f"component indices must be integers, got {self.describe(v)}", n)
            else:
                # any integer type indexes (uint8, int64, argmin's uint32 ...): cast, the value is small
                path.append(self.let(ir.Construct(T.int32, (v,)), T.int32, n.loc) if v.type is not T.int32 else v)
        if kind == "matrix" and len(path) == 1:
            return tuple(path), T.vector(shape[1], t._wp_scalar_type_)
        return tuple(path), t._wp_scalar_type_

    # --- slices of arrays ------------------------------------------------------------------
    def array_slice(self, base, node) -> ir.Var:
        """a[1:n:2, i], a[::-1]: a view over the same memory (and gradient). Indices drop their
        axis, slices keep it; bounds may be computed at run time, as in Warp."""
        t = base.type
        if not isinstance(t, ArrayType) or t.kind != "array":  # not indexed or fixed-size arrays
            self.error(KernelTypeError, f"{T.type_name(t)} cannot be sliced in kernels; slice a wp.array", node)
        if len(node.indices) > t.ndim:
            self.error(KernelTypeError, f"too many indices ({len(node.indices)}) for a {t.ndim}-D array", node)
        axes = []
        for n in node.indices:
            if not isinstance(n, S.Slice):
                axes.append(self.indices((n,), node)[0])
                continue
            parts = []
            for part in (n.lower, n.upper, n.step):
                v = None if part is None else self.expr(part)
                if isinstance(v, Lit) and v.kind == "int" and part is n.step and v.value == 0:
                    self.error(KernelValueError, "Slice step cannot be zero", node)
                if v is not None:
                    v = self.convert(v, T.int32, part, what="a slice bound")
                parts.append(v)
            axes.append(ir.AxisSlice(*parts))
        kept = sum(isinstance(a, ir.AxisSlice) for a in axes) + t.ndim - len(axes)
        return self.let(ir.SliceView(base, tuple(axes)), ArrayType(t.dtype, kept), node.loc)

    def slice_of(self, base, node) -> ir.Var:
        positions, result = self.slice_positions(base.type, node.indices, node)
        elem = base.type._wp_scalar_type_
        parts = tuple(self.let(ir.Extract(base, p), elem, node.loc) for p in positions)
        return parts[0] if result is elem else self.let(ir.Construct(result, parts), result, node.loc)

    # --- arrays made in kernels -----------------------------------------------------------
    def new_array(self, form: str, node) -> ir.Var:
        """wp.zeros(shape=..., dtype=...) (a local fixed-size array, zeroed; its shape must be constant)
        or wp.array(ptr=..., shape=..., dtype=...) (a view of memory at an address), as in Warp."""
        names = ("shape", "dtype") if form == "local_zeros" else ("data", "dtype", "shape", "strides", "ptr")
        given = dict(zip(names, node.args))
        given.update(dict(node.kwargs))
        dtype = canonical_scalar(self.expr(given["dtype"]).obj) if "dtype" in given else T.float32
        if dtype is None or not (T.is_scalar_type(dtype) or T.is_composite_type(dtype)
                                 or getattr(dtype, "_wp_struct_", False)):
            self.error(KernelTypeError, "arrays made in kernels need a dtype: a scalar, vector, matrix or struct type",
                       node)
        if "shape" not in given:
            self.error(KernelTypeError, "arrays made in kernels need a shape", node)
        dims = self.shape_parts(given["shape"])
        if form == "local_zeros":
            if not all(isinstance(d, Lit) and d.kind == "int" for d in dims):
                self.error(KernelUnsupportedError, "the `shape` argument must be specified as a constant when "
                                                   "zero-initializing an array", node)
            fixed = tuple(int(d.value) for d in dims)
            shape = tuple(self.materialize(d, T.int32, node) for d in dims)
            made = self.let(ir.NewArray(dtype, shape, None, fixed), ArrayType(dtype, len(dims)), node.loc)
            self.local_arrays = getattr(self, "local_arrays", frozenset()) | {id(made)}  # (checked by returns)
            self.local_array_types = getattr(self, "local_array_types", frozenset()) | {FixedArrayType(fixed, dtype)}
            return made
        if "ptr" not in given:
            self.error(KernelTypeError, "wp.array(...) in a kernel views existing memory: give ptr=, shape= and dtype=",
                       node)
        ptr = self.materialize(self.expr(given["ptr"]), T.uint64, node)
        for d in dims:
            if not (isinstance(d, Lit) and d.kind == "int" or isinstance(d, ir.Var) and T.is_int_type(d.type)):
                self.error(KernelTypeError, f"an array dimension must be an integer, not {self.describe(d)}", node)
        shape = tuple(self.materialize(d, T.int32, node) if isinstance(d, Lit) else d for d in dims)
        return self.let(ir.NewArray(dtype, shape, ptr), ArrayType(dtype, len(dims)), node.loc)

    def returned_fixed_array(self, returned: ir.Var, node) -> ir.Var:
        """A function's returned fixed-size array (a value) taken into a fixed-size array of the caller."""
        t = returned.type
        shape = tuple(self.materialize(Lit(d, "int"), T.int32, node) for d in t.shape)
        made = self.let(ir.NewArray(t.dtype, shape, None, t.shape, returned), ArrayType(t.dtype, t.ndim), node.loc)
        self.local_arrays = getattr(self, "local_arrays", frozenset()) | {id(made)}
        self.local_array_types = getattr(self, "local_array_types", frozenset()) | {t}
        return made

    def shape_parts(self, shape_node) -> list:
        """The dimensions of a shape= argument: an int, or a tuple of ints (constants or values)."""
        items = shape_node.elts if isinstance(shape_node, S.Tuple) else [shape_node]
        values = [self.expr(e) for e in items]
        if len(values) == 1 and isinstance(values[0], PyObj) and isinstance(values[0].obj, tuple):
            values = [Lit(int(v), "int") for v in values[0].obj]
        if not 1 <= len(values) <= 4:
            self.error(KernelTypeError, "arrays have 1 to 4 dimensions", shape_node)
        return values

    def evaluated_once(self, target):
        """A store target with its index expressions typed now (read and written with the same
        values): a[f(i)].x, m[g(), 0]. Names, attributes and slices stay as they are."""
        if isinstance(target, S.Subscript) and self.adjoint_target(target) is not None:
            return target  # wp.adjoint[x.f] names an adjoint variable; nothing in it is evaluated
        if isinstance(target, S.Subscript):
            indices = tuple(i if isinstance(i, (S.Slice, S.Constant, S.Name)) else _Bound(self.expr(i), i.loc)
                            for i in target.indices)
            return S.Subscript(self.evaluated_once(target.value), indices, target.loc)
        if isinstance(target, S.Attribute):
            return S.Attribute(self.evaluated_once(target.value), target.attr, target.loc)
        return target

    # --- *value in call arguments ----------------------------------------------------------
    def unpack_call_arguments(self, node: S.Call) -> S.Call:
        """f(1.0, *v, *a[0:2]) as f(1.0, v[0], v[1], ..., a[0], a[1]): the call with each starred
        argument replaced by its parts, already typed."""
        args = []
        for a in node.args:
            if not isinstance(a, S.Starred):
                args.append(a)
                continue
            parts = self.starred_parts(a.value, a)
            args += [_Bound(v, a.loc) for v in parts]
        return S.Call(node.func, tuple(args), node.kwargs, node.loc)

    def starred_parts(self, value_node, node) -> list:
        if isinstance(value_node, S.Subscript) and any(isinstance(i, S.Slice) for i in value_node.indices):
            base = self.expr(value_node.value)
            if isinstance(base, ir.Var) and isinstance(base.type, ArrayType):
                return self.array_slice_elements(base, value_node, node)
        v = self.expr(value_node)
        if isinstance(v, ir.Var) and isinstance(v.type, ir.TupleType):
            return [self.let(ir.Extract(v, (k,)), t, node.loc) for k, t in enumerate(v.type.items)]
        kind = T.kind_of(getattr(v, "type", None)) if isinstance(v, ir.Var) else None
        if kind is None:
            self.error(KernelTypeError, "Starred expressions are only supported for vectors, matrices, quaternions, "
                                        f"tuples and constant slices of arrays; cannot unpack {self.describe(v)}",
                       node)
        t = v.type
        if kind == "matrix":
            row = T.vector(t._shape_[1], t._wp_scalar_type_)
            return [self.let(ir.Extract(v, (k,)), row, node.loc) for k in range(t._shape_[0])]
        return [self.let(ir.Extract(v, (k,)), t._wp_scalar_type_, node.loc) for k in range(t._shape_[0])]

    def array_slice_elements(self, base, sub, node) -> list:
        """*a[0:4:2] of a 1-D array: the elements at the slice's positions (explicit constant bounds)."""
        if base.type.ndim != 1 or len(sub.indices) != 1:
            self.error(KernelTypeError, "only a 1-D array slice can be unpacked (*a[i:j])", node)
        sl = sub.indices[0]
        parts = [None if p is None else self.expr(p) for p in (sl.lower, sl.upper, sl.step)]
        if any(p is not None and not (isinstance(p, Lit) and p.kind == "int") for p in parts):
            self.error(KernelValueError, "Slice component must be a compile-time constant to unpack an array slice "
                                         "(*a[0:3]): the number of values is part of the call", node)
        lower, upper, step = (None if p is None else int(p.value) for p in parts)
        if upper is None:
            self.error(KernelValueError, "Unpacking an array slice requires explicit upper bound (*a[0:3]): the "
                                         "array's length is not known when the kernel is compiled", node)
        if (lower is not None and lower < 0) or upper < 0:
            self.error(KernelValueError, "Slice bounds cannot be negative for arrays when unpacking (*a[0:3]): the "
                                         "array's length is not known when the kernel is compiled", node)
        if step is not None and step < 0:
            self.error(KernelValueError, "Slice step cannot be negative for arrays when unpacking; write the bounds "
                                         "in increasing order", node)
        if step == 0:
            self.error(KernelValueError, "Slice step cannot be zero", node)
        out = []
        for k in range(lower or 0, upper, step or 1):
            index = self.materialize(Lit(k, "int"), T.int32, node)
            self.checks.append(sub.loc)
            out.append(self.let(ir.Load(base, (index,)), base.type.dtype, node.loc))
        return out

    def check_slice_value(self, value, result, node) -> None:
        """A variable that cannot fill a vector slice, refused with Warp's messages (a ValueError)."""
        if T.kind_of(result) != "vector" or not isinstance(value, ir.Var) or value.type is result:
            return
        n, elem = result._shape_[0], T.type_name(result._wp_scalar_type_)
        if T.kind_of(value.type) != "vector":
            self.error(KernelSliceValueError, f"The provided value is expected to be a vector of length {n}, with "
                                              f"dtype {elem}.", node)
        if value.type._shape_[0] != n:
            self.error(KernelSliceValueError, f"The length of the provided vector ({value.type._shape_[0]}) isn't "
                                              f"compatible with the given slice (expected {n}).", node)
        self.error(KernelSliceValueError, f"The provided vector is expected to be of length {n} with dtype {elem}.",
                   node)

    def store_slice(self, root, chain, value, node) -> None:
        """v[1:] = value (and m[:, 1] = value ...): one component update per position of the slice."""
        root_var = self.expr(root)
        prefix, t = self.store_path(root_var.type, chain[:-1], node)
        positions, result = self.slice_positions(t, chain[-1].indices, node)
        self.check_slice_value(value, result, node)
        value = self.convert(value, result, node, "the value assigned to the slice")
        elem = t._wp_scalar_type_
        cols = result._shape_[1] if T.kind_of(result) == "matrix" else None
        current = root_var
        for k, pos in enumerate(positions):
            if result is elem:
                part = value
            else:
                part = self.let(ir.Extract(value, (k,) if cols is None else (k // cols, k % cols)), elem, node.loc)
            current = self.let(ir.Update(current, prefix + pos, part), root_var.type, node.loc, root.id)
        self.env[root.id] = current

    # --- stores -------------------------------------------------------------------------
    def store(self, target, value, node) -> None:
        """target = value where target is a subscript or attribute chain."""
        chain = []
        root = target
        adjoint = None  # wp.adjoint[x...] at the root: x's adjoint variable is updated
        while isinstance(root, (S.Subscript, S.Attribute)):
            adjoint = self.adjoint_target(root)
            if adjoint is not None:
                break
            chain.append(root)
            root = root.value
        chain.reverse()
        if adjoint is not None:
            chain = adjoint[1] + chain  # wp.adjoint[x.f][i]: the steps .f, [i] into x's adjoint
            root = S.Name(adjoint[0], root.loc)
        elif not isinstance(root, S.Name):
            self.error(KernelSyntaxError, "cannot assign to this expression", node)
        base = self.expr(root)
        if isinstance(base, (Lit, PyObj)):
            self.error(KernelTypeError, f"cannot assign into {self.describe(base)}", node)
        if adjoint is None and isinstance(base.type, TileType) and len(chain) > 1 and isinstance(chain[0], S.Subscript):
            return self.tile_store_chain(root.id, chain, value, node)  # t[i][1] = v: into an element's component
        # walk until an array element is reached: from there on it is a store into memory
        for k, step in enumerate(chain):
            t = base.type
            if isinstance(t, ArrayType) and isinstance(step, S.Subscript) and k < len(chain) - 1 \
                    and any(isinstance(i, S.Slice) for i in step.indices):
                base = self.expr_step(base, step)  # a[lo:hi:st][i].x = v: a store into the view the slice gives
                continue
            if isinstance(t, ArrayType) and isinstance(step, S.Subscript) and not _reaches_array(t.dtype, chain[k + 1:]):
                # a write into part of an element (a[i].x = v) is what Warp calls a slot write
                what = "Array slot write indices" if k < len(chain) - 1 else "array indices"
                indices = self.indices(step.indices, step, what)
                if len(indices) < t.ndim and k < len(chain) - 1 and isinstance(chain[k + 1], S.Subscript):
                    # a[i][j] = v: the view a[i], then its element (the indices typed once)
                    bound = S.Subscript(step.value, tuple(_Bound(i, step.loc) for i in indices), step.loc)
                    base = self.expr_step(base, bound)
                    continue
                if len(indices) != t.ndim:
                    self.error(KernelTypeError, "Incorrect number of indices specified for array indexing: a store "
                                                f"into a {t.ndim}-D array needs {t.ndim} indices", step)
                path, elem_t = self.store_path(t.dtype, chain[k + 1:], node)
                self.checks.append(step.loc)
                self.check_slot_value(value, elem_t, path, node)
                rereads = isinstance(node, S.AugAssign) and node.op not in _LINEAR_UPDATES
                self.block.append(ir.Store(base, indices, self.convert(value, elem_t, node, "the stored value"),
                                           node.loc, path, rereads))
                return
            if k == len(chain) - 1:
                break
            base = self.expr_step(base, step)
        # no array on the way: a functional update of a local value, rebinding the root name
        if len(chain) == 1 and isinstance(chain[0], S.Subscript) and isinstance(base.type, TileType):
            return self.tile_store_part(root.id, chain[0].indices, value, node)
        if chain and isinstance(chain[-1], S.Subscript) and any(isinstance(i, S.Slice) for i in chain[-1].indices):
            return self.store_slice(root, chain, value, node)
        path, leaf_t = self.store_path(self.expr(root).type, chain, node)
        self.check_slot_value(value, leaf_t, path, node)
        new_root = self.let(ir.Update(self.expr(root), path, self.convert(value, leaf_t, node, "the value")),
                            self.expr(root).type, node.loc, root.id)
        self.env[root.id] = new_root

    def atomic_update(self, op: str, array_var, index_nodes, value_node, node) -> None:
        value = self.expr(value_node)
        indices = list(self.indices(index_nodes, node))
        self.checks.append(node.loc)
        # `a[i] += x` stays allowed on the narrow types wp.atomic_add refuses (the CPU has their atomics)
        self.call_builtin(BUILTINS[f"atomic_{op}"], [array_var] + indices + [value], node, statement=True,
                          checked=False)

    def check_slot_value(self, value, slot_t, path, node):
        """A value of another type stored into a component (`y[i].y = v3`): Warp's words first."""
        if path and isinstance(value, ir.Var) and not (value.type is slot_t or value.type == slot_t):
            self.error(KernelTypeError, f"Composite slot assignment expects value of type {T.type_name(slot_t)}, got "
                                        f"{T.type_name(value.type)}; convert explicitly, e.g. "
                                        f"{T.type_name(slot_t)}(...)", node)

    def expr_step(self, base, step):
        if isinstance(step, S.Attribute):
            return self.expr_Attribute(S.Attribute(_Bound(base), step.attr, step.loc))
        return self.expr_Subscript(S.Subscript(_Bound(base), step.indices, step.loc))

    def expr__Bound(self, node):
        return node.value

    def store_path(self, t, steps, node):
        """The component path and leaf type for a chain of .field / [i] steps into a value of type t."""
        path = []
        for step in steps:
            if isinstance(step, S.Attribute):
                kind = T.kind_of(t)
                if kind in ("vector", "quaternion") and step.attr in "xyzw" and len(step.attr) == 1:
                    path.append("xyzw".index(step.attr))
                    t = t._wp_scalar_type_
                elif kind == "transformation" and step.attr in ("p", "q"):
                    path.append(step.attr)
                    t = T.vector(3, t._wp_scalar_type_) if step.attr == "p" else T.quaternion(t._wp_scalar_type_)
                elif getattr(t, "_wp_struct_", False) and step.attr in t.fields:
                    path.append(step.attr)
                    t = t.fields[step.attr]
                else:
                    self.error(KernelTypeError, f"{T.type_name(t)} has no assignable attribute `{step.attr}`", step)
            else:
                if isinstance(t, ArrayType):
                    self.error(KernelTypeError, "cannot store into an array held inside another value's component "
                                                "in one statement; read the array into a variable first", step)
                sub, t = self.component_path(t, step.indices, step)
                path.extend(sub)
        return tuple(path), t


def _reaches_array(t, steps) -> bool:
    """Whether a chain of steps into a value of type t passes through an array held in a struct
    field (holders[i].values[j].x = v: the store goes into the inner array, whose descriptor is read
    from the outer element)."""
    for step in steps[:-1]:
        if not (isinstance(step, S.Attribute) and getattr(t, "_wp_struct_", False) and step.attr in t.fields):
            return False
        t = t.fields[step.attr]
        if isinstance(t, ArrayType):
            return True
    return False


class _Bound:
    """A syntax-tree stand-in for an already typed value (store chains, unpacked arguments)."""

    def __init__(self, value, loc=None):
        self.value = value
        self.loc = loc


def shape_beyond_ndim(node, t) -> bool:
    """a.shape[k] with a constant k >= a.ndim (`node` indexes the shape of a `t.ndim`-D array)."""
    value = node.value
    if not (isinstance(value, S.Attribute) and value.attr == "shape" and len(node.indices) == 1
            and isinstance(node.indices[0], S.Constant) and isinstance(node.indices[0].value, int)):
        return False
    ndim = t._shape_[0] if T.kind_of(t) == "vector" else None
    return ndim is not None and ndim <= node.indices[0].value < 4
