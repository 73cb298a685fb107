"""The random programs of values_against_warp, and how one side records what a program gives.

A program is a few lines of Python over `wp` (warp or warp_nb), `np`, `copy` and `pickle` that
leaves its result in `r`; it is drawn from a generator of its own, seeded by (seed, case number),
so both sides run the same text. Values are chosen so that exact operations stay exact (small
multiples of 1/4, small integers), with some edges mixed in: type limits and values past them,
-0.0, inf, nan, 0.1, values too large for float16 or float32."""

from __future__ import annotations

import math
import random

INT_RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "uint16": (0, 65535),
             "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-2**63, 2**63 - 1),
             "uint64": (0, 2**64 - 1)}
FLOATS = ("float16", "float32", "float64")
SCALARS = FLOATS + tuple(INT_RANGE)
SUFFIX = {"float16": "h", "float32": "f", "float64": "d", "int8": "b", "uint8": "ub", "int16": "s", "uint16": "us",
          "int32": "i", "uint32": "ui", "int64": "l", "uint64": "ul"}


class Spec:
    """A value type as a program names it: `expr` (Python text), kind, shape and scalar type name."""

    def __init__(self, expr, kind, shape, scalar):
        self.expr, self.kind, self.shape, self.scalar = expr, kind, tuple(shape), scalar

    @property
    def n(self) -> int:
        return self.shape[0] * (self.shape[1] if len(self.shape) == 2 else 1)

    @property
    def is_int(self) -> bool:
        return self.scalar in INT_RANGE


def vector_spec(rng, length=None, scalar=None) -> Spec:
    scalar = scalar or rng.choice(SCALARS)
    length = length or rng.choice((2, 3, 4, 2, 3, 4, 1, 5, 6))
    if length in (2, 3, 4) and rng.random() < 0.6:
        return Spec(f"wp.vec{length}{SUFFIX[scalar]}" if scalar != "float32" or rng.random() < 0.5
                    else f"wp.vec{length}", "vector", (length,), scalar)
    if length == 6 and scalar in FLOATS and rng.random() < 0.5:
        name = "spatial_vector" + ("" if scalar == "float32" else SUFFIX[scalar])
        return Spec(f"wp.{name}", "vector", (6,), scalar)
    return Spec(f"wp.types.vector(length={length}, dtype=wp.{scalar})", "vector", (length,), scalar)


def matrix_spec(rng, shape=None, scalar=None) -> Spec:
    # Warp names square float matrices only; integer ones come from wp.types.matrix
    scalar = scalar or rng.choice(FLOATS * 3 + SCALARS)
    shape = shape or rng.choice(((2, 2), (3, 3), (4, 4), (2, 3), (3, 2), (1, 4), (4, 1), (2, 4)))
    if shape[0] == shape[1] and shape[0] in (2, 3, 4) and scalar in FLOATS and rng.random() < 0.6:
        n = shape[0]
        return Spec(f"wp.mat{n}{n}{'' if scalar == 'float32' and rng.random() < 0.5 else SUFFIX[scalar]}",
                    "matrix", shape, scalar)
    if shape == (6, 6) and scalar in FLOATS:
        return Spec(f"wp.spatial_matrix{'' if scalar == 'float32' else SUFFIX[scalar]}", "matrix", shape, scalar)
    return Spec(f"wp.types.matrix(shape={shape}, dtype=wp.{scalar})", "matrix", shape, scalar)


def quat_spec(rng, scalar=None) -> Spec:
    scalar = scalar or rng.choice(FLOATS)
    name = "quat" if scalar == "float32" and rng.random() < 0.5 else f"quat{SUFFIX[scalar]}"
    return Spec(f"wp.{name}", "quaternion", (4,), scalar)


def transform_spec(rng, scalar=None) -> Spec:
    scalar = scalar or rng.choice(FLOATS)
    name = "transform" if scalar == "float32" and rng.random() < 0.5 else f"transform{SUFFIX[scalar]}"
    return Spec(f"wp.{name}", "transformation", (7,), scalar)


def any_spec(rng) -> Spec:
    r = rng.random()
    if r < 0.45:
        return vector_spec(rng)
    if r < 0.75:
        return matrix_spec(rng, shape=(6, 6) if rng.random() < 0.05 else None)
    return quat_spec(rng) if r < 0.88 else transform_spec(rng)


def like(rng, spec: Spec, scalar: str) -> Spec:
    """spec's kind and shape with another scalar type."""
    if spec.kind == "vector":
        return vector_spec(rng, spec.shape[0], scalar)
    if spec.kind == "matrix":
        return matrix_spec(rng, spec.shape, scalar)
    return (quat_spec if spec.kind == "quaternion" else transform_spec)(rng, scalar if scalar in FLOATS else "float64")


# --- numbers and their text -------------------------------------------------------------
def nice(rng, scalar: str, small=False):
    """A value that every type holds exactly (so sums and products stay exact)."""
    if scalar in INT_RANGE:
        lo, hi = INT_RANGE[scalar]
        return rng.randint(max(lo, -4 if small else -9), min(hi, 4 if small else 9))
    return rng.randint(-8 if small else -24, 8 if small else 24) / 4


def edgy(rng, scalar: str):
    """Mostly nice, sometimes an edge of the type or a value past it."""
    r = rng.random()
    if r < 0.7:
        return nice(rng, scalar)
    if scalar in INT_RANGE:
        lo, hi = INT_RANGE[scalar]
        return rng.choice((lo, hi, lo - 1, hi + 1, hi + 3, -1, 0))
    return rng.choice((0.1, 1 / 3, -2.7, 1e-3, -0.0, 70000.0, 1e20, -1e39, float("inf"), float("nan"),
                       65504.0, 2.5e-8))


def lit(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if v in (float("inf"), float("-inf")):
            return f"float('{v}')"
    return repr(v)


def scalar_text(rng, scalar: str, v, forms=True) -> str:
    """v as a program writes it: a literal mostly, else wp.<type>(v), np.<type>(v), or the other
    kind of Python number."""
    r = rng.random() if forms else 0
    in_range = scalar not in INT_RANGE or INT_RANGE[scalar][0] <= v <= INT_RANGE[scalar][1]
    if r < 0.75 or not in_range:
        return lit(v)
    if r < 0.87:
        return f"wp.{scalar}({lit(v)})"
    if r < 0.95:
        return f"np.{scalar}({lit(v)})"
    return lit(float(v)) if isinstance(v, int) else (lit(int(v)) if not math.isnan(v) and abs(v) < 1e9 and v == int(v)
                                                      else lit(v))


def values(rng, spec: Spec, how=nice) -> list:
    vals = [how(rng, spec.scalar) for _ in range(spec.n)]
    if spec.kind == "quaternion" and how is nice and rng.random() < 0.3:
        vals = [0.0, 0.0, 0.0, 1.0]
    return vals


def ctor(rng, spec: Spec, vals=None) -> str:
    """Text that builds a value of spec from literal components."""
    vals = values(rng, spec) if vals is None else vals
    return f"{spec.expr}({', '.join(lit(v) for v in vals)})"


# --- what a side records ----------------------------------------------------------------
NP_DTYPES = {s: s for s in SCALARS}


def type_label(t) -> str:
    """A type by what it is, not by its class name (Warp names an anonymous vector class vec_t)."""
    kind = getattr(t, "_wp_generic_type_str_", None)
    shape = getattr(t, "_shape_", None)
    scalar = getattr(t, "_wp_scalar_type_", None)
    if kind and shape is not None and scalar is not None:
        return f"{kind}{tuple(shape)}{scalar.__name__}"
    return getattr(t, "__name__", repr(t))


def _num(v):
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, int):
        return ["i", str(v)]  # as text: JSON loses integers past 2**53 in some readers
    if isinstance(v, float):
        return ["f", repr(v)]
    return ["?", repr(v)[:60]]


def _is_warp_scalar(x) -> bool:
    return type(x).__name__ in SCALARS + ("bool",) and hasattr(x, "value") and not isinstance(x, type)


def _is_composite(x) -> bool:
    t = type(x)
    return hasattr(t, "_wp_generic_type_str_") and hasattr(t, "_shape_") and hasattr(t, "_wp_scalar_type_")


def describe(x, depth=0):
    """x as JSON-able data that says its kind, its type by name and its values exactly."""
    import numpy as np
    if depth > 6:
        return ["deep"]
    if x is None or isinstance(x, (bool, int, float)):
        return _num(x) if x is not None else ["none"]
    if isinstance(x, str):
        return ["str", _no_addresses(x)]
    if isinstance(x, bytes):
        return ["bytes", x.hex()]
    if isinstance(x, type):
        return ["type", type_label(x)]
    if isinstance(x, np.ndarray):
        flat = x.ravel().tolist() if x.dtype.kind in "biuf" else [repr(e) for e in x.ravel().tolist()]
        return ["ndarray", str(x.dtype), list(x.shape), [_num(v) for v in flat]]
    if isinstance(x, np.generic):
        return ["np", str(x.dtype), _num(x.item()) if x.dtype.kind in "biuf" else repr(x.item())]
    if _is_warp_scalar(x):  # Warp's float scalar keeps an int it was made from: its value as a float
        name = type(x).__name__
        return ["scalar", name, _num(float(x.value) if name in FLOATS else x.value)]
    if _is_composite(x):
        t = type(x)
        raw = np.frombuffer(bytes(x), dtype=t._wp_scalar_type_.__name__)  # the stored values, read past any API
        return ["comp", type_label(t), [_num(v) for v in raw.tolist()]]
    if isinstance(x, (list, tuple)):
        return [type(x).__name__, [describe(e, depth + 1) for e in x]]
    if isinstance(x, dict):
        return ["dict", sorted([repr(k), describe(v, depth + 1)] for k, v in x.items())]
    return ["obj", type(x).__name__]


def _no_addresses(text: str) -> str:
    import re
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


def case(seed: int, i: int) -> dict:
    """Program i of a seed: {"kind", "src", "approx", "tags"} (approx: a result summed in an order of
    the implementation's, compared within rounding; tags: what the known differences look for)."""
    from tests.fuzz import value_programs
    rng = random.Random(f"values-{seed}-{i}")
    kinds = value_programs.KINDS
    kind = rng.choices([k for k, _, _ in kinds], [w for _, w, _ in kinds])[0]
    src, approx, *tags = {k: f for k, _, f in kinds}[kind](rng)
    tags = list(tags[0]) if tags else []
    if "np." in src and "mat" in src:  # numpy may see a matrix in it (rows x cols in warp_nb, flat in Warp)
        tags.append("np_matrix")
    return {"kind": kind, "src": src, "approx": approx, "tags": tags}
