"""The work one side of arrays_against_warp does, for whichever module it is given as `wp` (warp or
warp_nb): a random array made one of the ways Python code makes them, then a random sequence of
Python-scope operations on it (views, reshapes, copies, fills, reads), each result recorded as plain
numpy arrays and strings under a key.

Every step draws its random numbers from a generator of its own, seeded by (seed, case, step), so
that a step that raises on one side does not shift what the next one draws. What a step draws
depends only on the current array's shape and dtype, which both sides agree on until a difference
is reported."""

from __future__ import annotations

import numpy as np

from tests.fuzz.two_sides import hash_str

SCALARS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
           "float64", "bool")
COMPOSITES = ("vec2f", "vec3f", "vec4f", "vec2d", "vec3d", "vec3h", "vec2i", "vec3i", "vec2ui", "vec4ub", "vec2s",
              "vec3ul", "mat22f", "mat33f", "mat22d", "mat33d", "mat22h", "quatf", "quatd", "transformf",
              "transformd")
NP_SCALAR = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
             "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "float16": np.float16,
             "float32": np.float32, "float64": np.float64, "bool": np.bool_}


class Recorder:
    """Results by key: an array as its numpy values and its properties, anything else as a string,
    an operation that raised as `key.err` (class and message start) and `key.errmro` (the builtin
    exception classes it is an instance of, so that a warp_nb error that is both a ValueError and a
    RuntimeError matches Warp's RuntimeError)."""

    def __init__(self, wp, seed: int):
        self.wp, self.seed, self.out = wp, seed, {}

    def rng(self, *path) -> np.random.Generator:
        return np.random.default_rng([self.seed, *[hash_str(p) for p in path]])

    def run(self, key: str, fn):
        """fn() under key; an exception is recorded, not raised. Returns fn's result or None."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - what raised is the result
            self.out[f"{key}.err"] = np.array(f"{type(e).__name__}: {str(e)[:120]}")
            self.out[f"{key}.errmro"] = np.array(",".join(c.__name__ for c in type(e).__mro__
                                                          if c.__module__ == "builtins"))
            return None

    def note(self, key: str, text: str) -> None:
        """What a step did, printed with its differences."""
        self.out[f"{key}.what"] = np.array(text)

    def value(self, key: str, x, values: bool = True) -> None:
        """x recorded under key: an array's properties (and its values unless `values` is False:
        memory Warp leaves uninitialized), a numpy array as itself, anything else described."""
        if isinstance(x, self.wp.array):
            self.run(key, lambda: self._array(key, x, values))
        elif isinstance(x, np.ndarray):
            self.out[key] = np.array(x, copy=True)
        else:
            self.out[key] = np.array(describe(x))

    def _array(self, key: str, a, values: bool) -> None:
        grad = a.grad
        props = (f"shape={a.shape} strides={a.strides} dtype={type_label(a.dtype)} ndim={a.ndim} size={a.size} "
                 f"capacity={a.capacity} contiguous={a.is_contiguous} requires_grad={a.requires_grad} "
                 f"grad={None if grad is None else grad.shape}")
        self.out[f"{key}.meta"] = np.array(props)
        if values:
            self.out[key] = np.array(a.numpy(), copy=True)


def describe(x) -> str:
    """A Python value as text both sides write alike: its type's name and its value."""
    if isinstance(x, (bool, int, float, str, type(None))):
        return f"{type(x).__name__}:{x!r}"
    if isinstance(x, np.generic):
        return f"np.{type(x).__name__}:{x!r}"
    if isinstance(x, (list, tuple)):
        return f"{type(x).__name__}[" + ", ".join(describe(v) for v in x) + "]"
    if hasattr(x, "_shape_"):  # a vector, matrix, quaternion or transform
        return f"{type_label(type(x))}:{components(x)}"
    return f"{type(x).__name__}"


def components(x) -> list:
    """A vector's or matrix's components, row by row, as Python numbers (through indexing: numpy reads
    Warp's matrices flat, and float16 composites' buffers as bits)."""
    shape = tuple(type(x)._shape_)
    if len(shape) == 1:
        values = [x[i] for i in range(shape[0])]
    else:
        values = [x[i][j] for i in range(shape[0]) for j in range(shape[1])]
    # (Warp gives its own scalar objects for components other than float32 and int32, warp_nb Python
    # numbers: vector behaviour, not the arrays', so compared as numbers)
    values = [getattr(v, "value", v) for v in values]
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def type_label(t) -> str:
    """A dtype by its structure: Warp names the vector and matrix types it makes on the fly vec_t and
    mat_t (wp.full(n, [1.0, 2.0]), wp.from_numpy), warp_nb by their shape and scalar (vec2d)."""
    if not hasattr(t, "_shape_"):
        return t.__name__
    category = next((c for c in ("quat", "transform", "spatial", "vec", "mat") if t.__name__.startswith(c)), "?")
    return f"{category}{tuple(t._shape_)}{t._wp_scalar_type_.__name__}"


# --- data -----------------------------------------------------------------------------------


class Kind:
    """A dtype by name on this side: its class, numpy scalar, inner shape and byte size."""

    def __init__(self, wp, name: str):
        self.name, self.t = name, getattr(wp, name)
        self.composite = name not in SCALARS
        scalar = self.t._wp_scalar_type_.__name__ if self.composite else name
        self.scalar, self.np = scalar, NP_SCALAR[scalar]
        self.inner = tuple(self.t._shape_) if self.composite else ()
        self.length = int(np.prod(self.inner)) if self.inner else 1
        self.nbytes = self.length * np.dtype(self.np).itemsize


def draw_values(rng, scalar: str, shape) -> np.ndarray:
    """Values of a scalar type that survive every conversion the cases make: small integers (in the
    type's range), multiples of 1/8 for floats (exact in float16), booleans."""
    if scalar == "bool":
        return rng.random(shape) < 0.5
    if scalar.startswith("float"):
        return (rng.integers(-80, 81, shape) / 8.0).astype(NP_SCALAR[scalar])
    lo = 0 if scalar.startswith("u") else -100
    return rng.integers(lo, 101, shape).astype(NP_SCALAR[scalar])


def draw_shape(rng) -> tuple:
    ndim = int(rng.integers(1, 5))
    dims = rng.integers(1, 5 if ndim > 2 else 7, ndim)
    if rng.random() < 0.12:
        dims[int(rng.integers(ndim))] = 0
    return tuple(int(d) for d in dims)


def one_value(wp, kind: Kind, rng, form: str | None = None):
    """One element's value: a Python scalar, or for a composite a vector object, list, tuple or numpy
    array of its components (`form`, drawn when None)."""
    v = draw_values(rng, kind.scalar, kind.inner or ())
    if not kind.composite:
        form = form or str(rng.choice(["py", "np", "wp"]))
        return v.item() if form == "py" else v[()] if form == "np" else kind.t(v.item())
    form = form or str(rng.choice(["object", "list", "tuple", "numpy", "flat"]))
    if form == "object":
        return kind.t(*v.reshape(-1).tolist())
    if form == "list":
        return v.tolist()
    if form == "tuple":
        return tuple(v.reshape(-1).tolist()) if v.ndim == 1 else tuple(tuple(r) for r in v.tolist())
    if form == "numpy":
        return v
    return v.reshape(-1).tolist()  # a matrix as its components in a flat list


def as_tuples(x):
    return tuple(as_tuples(v) for v in x) if isinstance(x, list) else x


def other_kind_name(rng, kind: Kind, same_size: bool | None = None) -> str:
    """Another dtype name: of the same byte size (when `same_size`), or any."""
    names = SCALARS + COMPOSITES
    if same_size:
        names = tuple(n for n in names if n != kind.name and _nbytes(n) == kind.nbytes) or names
    return str(rng.choice(names))


_SIZES = {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4, "uint32": 4,
          "float32": 4, "int64": 8, "uint64": 8, "float64": 8}


def _nbytes(name: str) -> int:
    if name in _SIZES:
        return _SIZES[name]
    suffix = {"f": 4, "d": 8, "h": 2, "i": 4, "ui": 4, "ub": 1, "s": 2, "ul": 8}
    for s in ("ui", "ub", "ul", "f", "d", "h", "i", "s"):
        if name.endswith(s):
            base = name[: -len(s)]
            n = {"vec2": 2, "vec3": 3, "vec4": 4, "mat22": 4, "mat33": 9, "quat": 4, "transform": 7}[base]
            return n * suffix[s]
    raise KeyError(name)


# --- a case ---------------------------------------------------------------------------------


class Ctx:
    """One case on this side: the module, the dtype, the array made first (`root`: views write into
    it) and the current one, which views and copies replace."""

    def __init__(self, rec: Recorder, kind: Kind):
        self.rec, self.wp, self.kind = rec, rec.wp, kind
        self.root = self.cur = None
        self.keep = []  # numpy memory that arrays made from pointers use

    def adopt(self, rng, result) -> None:
        """Make `result` (an array) the current array, one time in two."""
        if isinstance(result, self.wp.array) and rng.random() < 0.5:
            self.cur = result

    def data(self, rng, shape) -> np.ndarray:
        """Fresh values for an array of `shape`, in the dtype's numpy layout (components last)."""
        return draw_values(rng, self.kind.scalar, tuple(shape) + self.kind.inner)


def case(rec: Recorder, index: int, steps: int) -> None:
    """One dtype and shape: made one random way, then `steps` random operations."""
    from tests.fuzz import array_ops

    rng = rec.rng("case", index)
    names = SCALARS + COMPOSITES
    name = str(rng.choice(names))
    shape = draw_shape(rng)
    kind = Kind(rec.wp, name)
    ctx = Ctx(rec, kind)
    k = f"c{index:03d}"
    rec.out[f"{k}.about"] = np.array(f"{name} {shape}")
    made = array_ops.make(ctx, f"{k}.make", rec.rng("case", index, "make"), shape)
    if not isinstance(made, rec.wp.array):
        # (an error, or a kind of array the steps do not take): go on from plain data
        made = rec.run(f"{k}.make_plain", lambda: rec.wp.array(ctx.data(rng, shape), dtype=kind.t))
    if made is None:
        return
    ctx.root = ctx.cur = made
    for step in range(steps):
        srng = rec.rng("case", index, "step", step)
        op = str(srng.choice(array_ops.OP_NAMES, p=array_ops.OP_WEIGHTS))
        key = f"{k}.s{step:02d}.{op}"
        # (what a step does around the operation it checks, such as making its other array, is recorded too)
        rec.run(f"{key}.step", lambda op=op, key=key, srng=srng: array_ops.OPS[op](ctx, key, srng))
