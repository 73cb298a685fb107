"""The builtin registry. Each builtin is declared once (in `warp_nb/builtins/`, one module per
native header): its Python name, overloads (argument type patterns -> result type) or the name
of the typechecker's rule that types it (`form`), C++ symbol, header, whether and how it is
differentiated, how it runs in a block of several lanes (`lanes`, LANES), and its documentation.
Type checking, emission, the adjoint pass, docs and stubs all read these records (rather than
tables of builtin names of their own). Knows types; knows nothing about Python's ast or C++ text
beyond symbol names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .. import types as T
from ..types.array_type import ArrayType
from ..types.composite import Composite, kind_of
from ..types.tiles import TileType, tile_type

FLOAT = ("float",)
INT = ("int", "uint")
NUMERIC = ("float", "int", "uint")
BOOL = ("bool",)
ANY_SCALAR = ("float", "int", "uint", "bool")


@dataclass(frozen=True)
class Literal:
    """The type of a Python literal in kernel code: weakly typed, it takes the scalar type its
    overload asks for (an int literal may become any numeric type, a float literal any float type)."""

    kind: str  # "int" | "float" | "bool"
    value: Any

    def default(self):
        return {"int": T.int32, "float": T.float32, "bool": T.bool}[self.kind]

    def fits(self, t) -> bool:
        if not T.is_scalar_type(t):
            return False
        if self.kind == "bool":
            return t._kind == "bool"
        if self.kind == "float":
            return t._kind == "float"
        return t._kind in NUMERIC

    def type_name(self) -> str:
        return f"{self.kind} literal"


def concrete(t):
    """A literal's default type; other types unchanged."""
    return t.default() if isinstance(t, Literal) else t


# --- type patterns ---------------------------------------------------------------------------


class Pattern:
    def match(self, t, b: dict) -> bool:
        raise NotImplementedError

    def match_literal(self, lit: Literal, b: dict) -> bool:
        return False

    def build(self, b: dict):
        raise NotImplementedError


class Scalar(Pattern):
    """A scalar of one of `kinds`, bound to type variable `var` (same var = same type)."""

    def __init__(self, var: str = "T", kinds=NUMERIC):
        self.var, self.kinds = var, kinds

    def match(self, t, b):
        if not T.is_scalar_type(t) or t._kind not in self.kinds:
            return False
        bound = b.get(self.var)
        if bound is None:
            b[self.var] = t
            return True
        return bound is t

    def match_literal(self, lit, b):
        bound = b.get(self.var)
        if bound is not None:
            return lit.fits(bound) and bound._kind in self.kinds
        t = lit.default()
        if t._kind not in self.kinds:
            # an int literal where only floats are accepted becomes float32
            t = T.float32 if (lit.kind == "int" and "float" in self.kinds) else None
        if t is None:
            return False
        b[self.var] = t
        return True

    def build(self, b):
        return b[self.var]


class Exact(Pattern):
    def __init__(self, t):
        self.t = T.canonical_scalar(t)

    def match(self, t, b):
        return t is self.t or t == self.t

    def match_literal(self, lit, b):
        return lit.fits(self.t)

    def build(self, b):
        return self.t


class _Dim:
    """A length that is fixed (int) or a variable bound on first match (str)."""

    @staticmethod
    def match(dim, value, b) -> bool:
        if isinstance(dim, int):
            return dim == value
        bound = b.get(dim)
        if bound is None:
            b[dim] = value
            return True
        return bound == value

    @staticmethod
    def build(dim, b) -> int:
        return dim if isinstance(dim, int) else b[dim]


class Vec(Pattern):
    def __init__(self, n="n", elem: Pattern | None = None):
        self.n, self.elem = n, elem or Scalar("T", FLOAT)

    def match(self, t, b):
        return kind_of(t) == "vector" and _Dim.match(self.n, t._shape_[0], b) and self.elem.match(t._wp_scalar_type_, b)

    def build(self, b):
        return T.vector(_Dim.build(self.n, b), self.elem.build(b))


class Mat(Pattern):
    def __init__(self, r="r", c="c", elem: Pattern | None = None):
        self.r, self.c, self.elem = r, c, elem or Scalar("T", FLOAT)

    def match(self, t, b):
        return (kind_of(t) == "matrix" and _Dim.match(self.r, t._shape_[0], b) and _Dim.match(self.c, t._shape_[1], b)
                and self.elem.match(t._wp_scalar_type_, b))

    def build(self, b):
        return T.matrix((_Dim.build(self.r, b), _Dim.build(self.c, b)), self.elem.build(b))


class Quat(Pattern):
    def __init__(self, elem: Pattern | None = None):
        self.elem = elem or Scalar("T", FLOAT)

    def match(self, t, b):
        return kind_of(t) == "quaternion" and self.elem.match(t._wp_scalar_type_, b)

    def build(self, b):
        return T.quaternion(self.elem.build(b))


class Transform(Pattern):
    def __init__(self, elem: Pattern | None = None):
        self.elem = elem or Scalar("T", FLOAT)

    def match(self, t, b):
        return kind_of(t) == "transformation" and self.elem.match(t._wp_scalar_type_, b)

    def build(self, b):
        return T.transformation(self.elem.build(b))


class Array(Pattern):
    """An array with element type matching `elem` (any type bound to var "D" by default)."""

    def __init__(self, elem: Pattern | None = None, ndim="ndim"):
        self.elem, self.ndim = elem or AnyType("D"), ndim

    def match(self, t, b):
        return isinstance(t, ArrayType) and _Dim.match(self.ndim, t.ndim, b) and self.elem.match(t.dtype, b)

    def build(self, b):
        return ArrayType(self.elem.build(b), _Dim.build(self.ndim, b))


class Tile(Pattern):
    """A tile whose element type matches `elem`. `shape` is a variable bound to the whole shape (a
    tuple: any rank) or a tuple of _Dims (a fixed rank: ("r", "c") binds the two extents)."""

    def __init__(self, shape="S", elem: Pattern | None = None):
        self.shape, self.elem = shape, elem or AnyType("D")

    def match(self, t, b):
        if not isinstance(t, TileType) or t.shape is Any:
            return False
        if isinstance(self.shape, str):
            fits = _Dim.match(self.shape, tuple(t.shape), b)
        else:
            fits = len(self.shape) == t.ndim and all(_Dim.match(d, s, b) for d, s in zip(self.shape, t.shape))
        return fits and self.elem.match(t.dtype, b)

    def build(self, b):
        shape = b[self.shape] if isinstance(self.shape, str) else tuple(_Dim.build(d, b) for d in self.shape)
        return tile_type(self.elem.build(b), shape)


class AnyType(Pattern):
    """Any value type, bound to `var`."""

    def __init__(self, var: str = "A", accept=None):
        self.var, self.accept = var, accept

    def match(self, t, b):
        if isinstance(t, Literal) or (self.accept and not self.accept(t)):
            return False
        bound = b.get(self.var)
        if bound is None:
            b[self.var] = t
            return True
        return bound is t or bound == t

    def match_literal(self, lit, b):
        bound = b.get(self.var)
        if bound is not None:
            return lit.fits(bound)
        b[self.var] = lit.default()
        return True

    def build(self, b):
        return b[self.var]


class Result(Pattern):
    """A result type computed from the bindings by a function."""

    def __init__(self, fn: Callable[[dict], Any]):
        self.fn = fn

    def build(self, b):
        return self.fn(b)


def same(var: str) -> Pattern:
    """The result has the type bound to `var`."""
    return Result(lambda b: b[var])


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overload:
    """One signature of a builtin: parameter patterns, result and C++ call."""

    params: tuple  # Patterns
    result: Any  # Pattern, a type, or None (no value)
    names: tuple = ()  # parameter names (for keyword arguments and docs)
    template: str | None = None  # C++ call text with {bindings}, e.g. "wpnb::identity<{n}, {T}>"
    inout: tuple | None = None  # this overload's in-place arguments (out-parameters), if not the builtin's
    #: several results (Patterns), as Warp's decompositions: `U, s, V = wp.svd3(A)` (the result is a tuple)
    #: or the output-argument form `wp.svd3(A, U, s, V)`, which rebinds the variables U, s, V. The C++
    #: function writes them through reference arguments after the inputs; its adjoint takes the inputs,
    #: the outputs (scratch), the inputs' adjoints, then the outputs' adjoints.
    outputs: tuple = ()


def ov(*params, ret=None, names=(), template=None, inout=None, outputs=()) -> Overload:
    if outputs:
        ret = Result(lambda b, outs=tuple(outputs): tuple(p.build(b) for p in outs))
    return Overload(tuple(params), ret, tuple(names), template, None if inout is None else tuple(inout), tuple(outputs))


#: What a builtin's call does in a kernel typed for blocks of several lanes (native/tiles/block.h), by the
#: value of `Builtin.lanes`. Every lane holds a whole tile, so most tile code runs unchanged on each.
LANES = {
    None: "its code does not depend on the lanes of a block",
    "uniform": "every lane computes the same result (the whole tile); the kernel is typed per lane count",
    "own_element": "reads one element with this lane's own indices: the tile's adjoint is summed over the block",
    "lane_query": "a tiled query's step: in a block of several lanes, typed as a tile of one result per lane",
    "once_per_block": "costly and pure: lane 0 computes it, forward and adjoint (block_once), every lane takes "
                      "lane 0's result",
    "lead": "effects outside the block (stores, atomics): lane 0 runs it and its adjoint (block_lead), and "
            "every lane takes lane 0's result",
    "lead_adjoint": "reads arrays: every lane runs it; its adjoint, which moves gradients into arrays, runs on "
                    "lane 0 (block_lead)",
}


@dataclass(frozen=True, eq=False)
class Builtin:
    name: str
    overloads: tuple
    header: str  # native header holding the C++ (and its adjoint)
    doc: str = ""
    cpp: str | None = None  # C++ symbol, default wpnb::<name>
    differentiable: bool = True
    side_effects: bool = False  # must run even when the result is unused; not replayed by the adjoint
    inout: tuple = ()  # argument positions updated in place (random state)
    #: the adjoint takes the adjoints of the in-place arguments too (an out-parameter the call
    #: overwrites: the adjoint reads the output's adjoint and zeroes it); else such calls get none
    adjoint_inout: bool = False
    #: the argument position whose variable a call rebinds to its result (wp.tile_matmul(a, b, out),
    #: wp.tile_assign(dst, src)): a loop that calls it carries that variable
    rebinds: int | None = None
    python: Callable | None = None  # implementation for calls from Python scope
    export: bool = True  # exposed as wp.<name>
    category: str = ""
    iterator_next: str | None = None  # `for x in <this builtin>(...)`: the builtin that advances it
    #: its typing rule when overloads cannot say it (the thread index, printf, wp.static, builtins whose
    #: arguments are constants, shapes, dtypes or functions): the name of the typechecker's method
    #: `form_<form>` that types a call (compiler/typecheck*.py; tests/unit/test_registry checks both ways)
    form: str | None = None
    #: how a call runs in a kernel typed for blocks of several lanes: one of LANES, or None (its code
    #: does not depend on the lanes of a block). Typing, emit and the adjoint emitter read it.
    lanes: str | None = None
    #: an element read that checked code bounds-checks: emitted as its `_checked` variant, given the
    #: site an index outside the tile is reported from
    checked_read: bool = False
    #: how the lanes of a block split a statement that writes a block-uniform tile (emit/block_frame.py):
    #: the native/tiles/tile_coop.h function each lane calls for its part of the elements, or
    #: "elementwise" (an operator written per element for tiles), "coop_reduce" (a whole-tile
    #: reduction: each lane its partial, lane 0 combines them) or "coop_scan" (each lane a contiguous
    #: run, from the fold of the runs before it); None: one lane computes it
    split: str | None = None
    #: side effects that leave memory as they were when repeated (atomic min / max: min(min(a, v), v) is
    #: min(a, v)): the adjoint's replay may run the call again, as Warp does, so its result may be used in
    #: a differentiated kernel (the value it returns there is the array's value after the forward pass,
    #: Warp's too, which only matters to a gradient through that result)
    replayable: bool = False
    #: an atomic read-modify-write of an array element (arr, indices..., values...): its operation
    atomic: str | None = None
    #: Warp's `dtype=` keyword (wp.volume_lookup(..., dtype=wp.vec3)): the builtin each type stands for
    by_dtype: dict | None = None
    #: (argument types) -> a message or None: says precisely why no overload fits (a gradient
    #: matrix of the wrong shape) before the typechecker falls back to listing the overloads
    explain: Callable | None = None
    #: a check of the chosen overload's argument types beyond what overloads express: returns the
    #: message of a KernelUnsupportedError (Warp's RuntimeError, e.g. 8-bit atomics), or None
    check: Callable | None = None

    def __post_init__(self):
        if self.lanes not in LANES:
            raise ValueError(f"wp.{self.name}: lanes={self.lanes!r} is not one of {sorted(k for k in LANES if k)}")

    @property
    def symbol(self) -> str:
        return self.cpp or f"wpnb::{self.name}"

    @property
    def key(self) -> str:
        """Warp's name for a builtin's name (`wp.sin.key`)."""
        return self.name

    @property
    def special(self) -> bool:
        """Typed by a rule of the typechecker (`form`), not by overloads."""
        return self.form is not None

    def inout_for(self, overload: Overload) -> tuple:
        """The argument positions a call of `overload` updates in place."""
        return self.inout if overload.inout is None else overload.inout

    def inout_positions(self, nargs: int) -> set:
        """Positions updated in place by any overload taking nargs arguments (before one is chosen),
        including the variables an output-argument form rebinds."""
        if self.rebinds is not None:
            return {self.rebinds} if nargs > self.rebinds else set()
        found = {p for o in self.overloads if len(o.params) == nargs for p in self.inout_for(o)}
        for o in self.overloads:
            if o.outputs and len(o.params) + len(o.outputs) == nargs:
                found.update(range(len(o.params), nargs))
        return found

    def output_form_count(self, nargs: int) -> int:
        """How many trailing arguments are outputs when called with nargs arguments (0: not that form)."""
        return next((len(o.outputs) for o in self.overloads
                     if o.outputs and len(o.params) + len(o.outputs) == nargs), 0)

    def positional(self, args: tuple, kwargs: dict) -> tuple | None:
        """The arguments of a keyword call (wp.max(a=v), wp.transform_point(point=p, mat=m)) in the
        order of the first overload whose parameter names hold every keyword; None when none does.
        The types then choose the overload, as for a positional call."""
        for o in self.overloads:
            rest = o.names[len(args):]
            if len(o.names) >= len(args) + len(kwargs) and set(kwargs) <= set(rest):
                return tuple(args) + tuple(kwargs[n] for n in rest if n in kwargs)
        return None

    def __call__(self, *args, **kwargs):
        if kwargs and self.python is not None:
            ordered = self.positional(args, kwargs)  # else the Python implementation's own keywords (dtype=)
            if ordered is not None:
                args, kwargs = ordered, {}
        if self.overloads and args and not kwargs:
            # arguments no overload takes as Warp types them (vec3f with vec3d, int8 with a Python int):
            # numpy would broadcast or promote them; Warp refuses (a builtin typed by its own rule,
            # without overloads, checks its arguments itself)
            from .python_results import refuse_unmatched
            refuse_unmatched(self, args)
        if self.python is None:
            if python_scope_fallback is None:
                raise RuntimeError(f"wp.{self.name}() can only be called inside a kernel or @wp.func")
            return python_scope_fallback(self, args, kwargs)
        result = self.python(*args, **kwargs)
        if kwargs or isinstance(result, (tuple, Composite)):
            return result
        from .python_results import typed_result
        return typed_result(self, args, result)

    def __repr__(self):
        return f"<builtin wp.{self.name}>"


class OpaqueType:
    """A value type defined by a native header (a query object, a query result): kernels hold it
    in variables, pass it to builtins and functions, and read its `fields` (name -> type) like a struct's."""

    _wp_opaque_ = True

    def __init__(self, name: str, cpp: str, header: str, fields: dict | None = None):
        self.name, self.cpp, self.header, self.fields = name, cpp, header, dict(fields or {})
        self.variants: dict = {}  # Warp's parameterised query types: HashGridQuery[wp.float16] -> a variant

    def __getitem__(self, key):
        """The variant of this type for `key` (an element type), as in `wp.HashGridQuery[wp.float64]`."""
        variant = self.variants.get(T.canonical_scalar(key))
        if variant is None:
            raise TypeError(f"{self.name}[{getattr(key, '__name__', key)!r}] is not a type warp_nb knows")
        return variant

    def type_name(self) -> str:
        return self.name

    def __repr__(self):
        return self.name


@dataclass(frozen=True)
class Resolved:
    """An overload chosen for concrete argument types."""

    overload: Overload
    arg_types: tuple  # concrete types (literals resolved)
    result: Any
    bindings: dict = field(default_factory=dict, hash=False, compare=False)


BUILTINS: dict[str, Builtin] = {}

#: fallback(builtin, args, kwargs) for Python-scope calls of builtins without a numpy implementation:
#: installed by the program layer (program/builtin_call.py), which sits above the registry
python_scope_fallback: Callable | None = None


def add(b: Builtin) -> Builtin:
    if b.name in BUILTINS:
        raise ValueError(f"builtin {b.name} is declared twice")
    BUILTINS[b.name] = b
    return b


def builtin(name, *overloads, header, **kw) -> Builtin:
    return add(Builtin(name, tuple(overloads), header, **kw))


def resolve(b: Builtin, arg_types: list) -> Resolved | None:
    """The first overload of `b` that accepts `arg_types` (literals adapt to it), or None."""
    for o in b.overloads:
        if len(o.params) != len(arg_types):
            continue
        bindings: dict = {}
        if not all(p.match(t, bindings) for p, t in zip(o.params, arg_types) if not isinstance(t, Literal)):
            continue
        if not all(p.match_literal(t, bindings) for p, t in zip(o.params, arg_types) if isinstance(t, Literal)):
            continue
        concrete_args = tuple(p.build(bindings) if isinstance(t, Literal) else t for p, t in zip(o.params, arg_types))
        result = o.result
        if isinstance(result, Pattern):
            result = result.build(bindings)
        return Resolved(o, concrete_args, result, bindings)
    return None


def describe_overloads(b: Builtin) -> str:
    """One line per overload, for error messages."""
    lines = []
    for o in b.overloads:
        names = o.names or tuple(f"arg{i}" for i in range(len(o.params)))
        params = ", ".join(f"{n}: {_pattern_name(p)}" for n, p in zip(names, o.params))
        lines.append(f"  wp.{b.name}({params})")
    return "\n".join(lines[:12]) + ("\n  ..." if len(lines) > 12 else "")


def _pattern_name(p) -> str:
    if isinstance(p, Scalar):
        return {FLOAT: "Float", INT: "Int", NUMERIC: "Scalar", BOOL: "bool"}.get(p.kinds, "Scalar")
    if isinstance(p, Exact):
        return T.type_name(p.t)
    if isinstance(p, Vec):
        return f"Vector[{p.n}, {_pattern_name(p.elem)}]"
    if isinstance(p, Mat):
        return f"Matrix[{p.r}, {p.c}, {_pattern_name(p.elem)}]"
    if isinstance(p, Quat):
        return "Quaternion"
    if isinstance(p, Transform):
        return "Transformation"
    if isinstance(p, Array):
        return f"array(ndim={p.ndim})"
    if isinstance(p, Tile):
        return f"tile(dtype={_pattern_name(p.elem)}, shape={p.shape if isinstance(p.shape, str) else p.shape})"
    return "Any"
