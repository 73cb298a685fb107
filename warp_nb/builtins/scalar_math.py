"""Scalar math builtins (scalar.h), with the vector overloads of the componentwise ones
(vec.h). Each declaration carries a Python-scope implementation so `wp.sin(0.5)` also works
outside kernels."""

import math

import numpy as np

from ..types.composite import Composite
from .registry import ANY_SCALAR, FLOAT, NUMERIC, Mat, Quat, Scalar, Transform, Vec, builtin, ov, same
from .. import types as T

F = Scalar("T", FLOAT)
N = Scalar("T", NUMERIC)


def _py(fn_scalar, fn_array=None):
    """Python-scope implementation: scalars through `fn_scalar`, composites componentwise."""
    def impl(*args):
        if any(isinstance(a, Composite) for a in args):
            like = next(a for a in args if isinstance(a, Composite))
            # __array__() is the values (np.asarray of a float16 composite is its bits)
            out = (fn_array or np.vectorize(fn_scalar))(*[a.__array__() if isinstance(a, Composite) else a
                                                          for a in args])
            return type(like)._from_numpy(out) if np.ndim(out) else out.item()
        return fn_scalar(*[getattr(a, "value", a) for a in args])
    return impl


def _float_fn(name, doc, fn):
    builtin(name, ov(F, ret=same("T"), names=("x",)), header="core/scalar.h", category="math", doc=doc, python=_py(fn))


def _c(ufunc):
    """A scalar function with the kernels' IEEE results (nan outside the domain, inf on overflow)
    where Python's math module raises."""
    def fn(x):
        with np.errstate(all="ignore"):
            return float(ufunc(np.float64(x)))
    return fn


def _unit(ufunc):  # asin, acos: x clamped to [-1, 1] as in kernels (core/scalar.h); nan stays nan
    return _c(lambda x: ufunc(np.clip(x, -1.0, 1.0)))


_float_fn("sqrt", "Square root. Gradient at 0 chosen 0 (the true derivative is infinite).", _c(np.sqrt))
_float_fn("cbrt", "Cube root (real, odd). Gradient at 0 chosen 0.", _c(np.cbrt))
_float_fn("exp", "e ** x.", _c(np.exp))
_float_fn("log", "Natural logarithm.", _c(np.log))
_float_fn("log2", "Base-2 logarithm.", _c(np.log2))
_float_fn("log10", "Base-10 logarithm.", _c(np.log10))
_float_fn("sin", "Sine (radians).", _c(np.sin))
_float_fn("cos", "Cosine (radians).", _c(np.cos))
_float_fn("tan", "Tangent (radians).", _c(np.tan))
_float_fn("asin", "Arc sine of x clamped to [-1, 1] (as Warp's). Gradient at |x| >= 1 chosen 0.", _unit(np.arcsin))
_float_fn("acos", "Arc cosine of x clamped to [-1, 1] (as Warp's). Gradient at |x| >= 1 chosen 0.", _unit(np.arccos))
_float_fn("atan", "Arc tangent.", _c(np.arctan))
_float_fn("sinh", "Hyperbolic sine.", _c(np.sinh))
_float_fn("cosh", "Hyperbolic cosine.", _c(np.cosh))
_float_fn("tanh", "Hyperbolic tangent.", _c(np.tanh))
_float_fn("erf", "Error function.", math.erf)
_float_fn("degrees", "Radians to degrees.", _c(np.degrees))
_float_fn("radians", "Degrees to radians.", _c(np.radians))
_float_fn("floor", "Largest integer value not greater than x. Gradient 0.", _c(np.floor))
_float_fn("ceil", "Smallest integer value not less than x. Gradient 0.", _c(np.ceil))
_float_fn("trunc", "x rounded toward zero. Gradient 0.", _c(np.trunc))
_float_fn("round", "x rounded to the nearest integer, halfway cases away from zero. Gradient 0.",
          _c(lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)))
_float_fn("rint", "x rounded to the nearest integer, halfway cases to even. Gradient 0.", _c(np.rint))
_float_fn("frac", "x - trunc(x) (keeps the sign of x). Gradient 1.", _c(lambda x: x - np.trunc(x)))
builtin("step", ov(N, ret=same("T")), header="core/scalar.h", category="math",
        python=_py(lambda x: type(x)(1 if x < 0 else 0)), doc="1 if x < 0 else 0 (Warp's definition). Gradient 0.")
builtin("nonzero", ov(N, ret=same("T")), header="core/scalar.h", category="math",
        python=_py(lambda x: type(x)(x != 0)), doc="1 if x != 0 else 0. Gradient 0.")
builtin("atan2", ov(F, F, ret=same("T"), names=("y", "x")), header="core/scalar.h", category="math",
        python=_py(math.atan2),
        doc="Angle of the point (x, y) in [-pi, pi]. Gradient at (0, 0) chosen 0.")
builtin("smoothstep", ov(F, F, F, ret=same("T"), names=("a", "b", "x")), header="core/scalar.h", category="math",
        doc="Hermite interpolation: 0 below a, 1 above b, u^2 (3 - 2u) with u = (x - a) / (b - a) between.",
        python=_py(lambda a, b, x: (1.0 if x > a else 0.0) if a == b else
                   (lambda u: u * u * (3 - 2 * u))(min(max((x - a) / (b - a), 0.0), 1.0))))

_vF = Vec("n", F)
_vN = Vec("n", N)
builtin("abs", ov(N, ret=same("T")), ov(_vN, ret=Vec("n", N)), header="core/scalar.h", category="math", python=_py(abs),
        doc="|x| (componentwise for vectors). The gradient at 0 is +1, as in Warp.")
builtin("sign", ov(N, ret=same("T")), ov(_vN, ret=Vec("n", N)), header="core/scalar.h", category="math",
        python=_py(lambda x: type(x)(-1 if x < 0 else 1)), doc="-1 if x < 0 else 1 (so sign(0) = 1). Gradient 0.")


def _fmin(a, b):
    """C's fmin, as Warp's min: a NaN operand is missing (b on a tie)."""
    return a if (a < b or b != b) else b


def _fmax(a, b):
    return a if (a > b or b != b) else b


_AB = ("a", "b")  # Warp's parameter names (keyword calls: wp.max(a=v))
builtin("min", ov(N, N, ret=same("T"), names=_AB), ov(_vN, _vN, ret=Vec("n", N), names=_AB),
        ov(_vN, ret=same("T"), names=("a",)),
        header="core/scalar.h", category="math",
        python=_py(_fmin, lambda *a: np.fmin.reduce(a[0]) if len(a) == 1 else np.fmin(*a)),
        doc="The smaller of a and b (componentwise for vectors), or the smallest component of one vector. "
            "Floats follow C's fmin: a NaN operand is ignored (NaN only when both are). "
            "On a tie the gradient goes to b.")
builtin("max", ov(N, N, ret=same("T"), names=_AB), ov(_vN, _vN, ret=Vec("n", N), names=_AB),
        ov(_vN, ret=same("T"), names=("a",)),
        header="core/scalar.h", category="math",
        python=_py(_fmax, lambda *a: np.fmax.reduce(a[0]) if len(a) == 1 else np.fmax(*a)),
        doc="The larger of a and b (componentwise for vectors), or the largest component of one vector. "
            "Floats follow C's fmax: a NaN operand is ignored (NaN only when both are). "
            "On a tie the gradient goes to b.")
builtin("clamp", ov(N, N, N, ret=same("T"), names=("x", "low", "high")), header="core/scalar.h", category="math",
        python=_py(lambda x, lo, hi: _fmin(_fmax(lo, x), hi)),
        doc="min(max(low, x), high) with fmin/fmax, as Warp 1.19: a NaN x gives min(low, high), and low > high "
            "gives high. At x == low or x == high the gradient goes to x; otherwise to the operand returned.")
builtin("lerp", ov(F, F, F, ret=same("T"), names=("a", "b", "t")), ov(_vF, _vF, F, ret=Vec("n", F)),
        ov(Mat("r", "c", F), Mat("r", "c", F), F, ret=Mat("r", "c", F)),
        ov(Quat(), Quat(), F, ret=Quat()), ov(Transform(), Transform(), F, ret=Transform()),
        header="core/scalar.h", category="math",
        python=_py(lambda a, b, t: a * (1 - t) + b * t, lambda a, b, t: a * (1 - t) + b * t),
        doc="Linear interpolation a * (1 - t) + b * t.")
_S_ANY = Scalar("T", ANY_SCALAR)
for _name, _fn, _fold in (("isnan", math.isnan, any), ("isinf", math.isinf, any), ("isfinite", math.isfinite, all)):
    builtin(_name, ov(_S_ANY, ret=T.bool), ov(Vec("n", _S_ANY), ret=T.bool), ov(Mat("r", "c", _S_ANY), ret=T.bool),
            ov(Quat(), ret=T.bool), header="core/scalar.h", category="math", differentiable=False,
            python=(lambda fn, fold: lambda x: fold(fn(float(v)) for v in np.ravel(x.__array__()))
                    if isinstance(x, Composite) else fn(getattr(x, "value", x)))(_fn, _fold),
            doc=f"Whether x is {_name[2:]} (always False/True for integers); for a vector, matrix or quaternion, "
                f"whether {'every' if _fold is all else 'any'} component is.")

# special_math.h: the rest of the error-function family, copysign, bit_count


def _erfinv(y):
    """Inverse of math.erf by Newton's method from a rough start (Python scope only)."""
    if y <= -1 or y >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    x = 0.0
    for _ in range(60):
        step = (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-15 * max(1.0, abs(x)):
            break
    return x


_sm = dict(header="core/special_math.h", category="math")
builtin("erfc", ov(F, ret=same("T"), names=("x",)), python=_py(math.erfc), doc="1 - erf(x), accurate for large x.",
        **_sm)
builtin("erfinv", ov(F, ret=same("T"), names=("x",)), python=_py(_erfinv),
        doc="Inverse error function on (-1, 1); +-inf at +-1.", **_sm)
builtin("erfcinv", ov(F, ret=same("T"), names=("x",)), python=_py(lambda y: _erfinv(1 - y)),
        doc="Inverse of erfc on (0, 2): erfinv(1 - x).", **_sm)
builtin("copysign", ov(F, F, ret=same("T"), names=("x", "y")), python=_py(math.copysign),
        doc="|x| with the sign of y. Gradient +-1 for x, 0 for y.", **_sm)


def _bit_count(x):
    value = getattr(x, "value", x)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or (
            isinstance(x, T.Scalar) and type(x)._kind not in ("int", "uint")):
        raise RuntimeError(f"Couldn't find a function 'bit_count' compatible with the arguments '{type(x).__name__}'")
    bits = type(x)._np.itemsize * 8 if isinstance(x, T.Scalar) else 32
    return (int(value) & ((1 << bits) - 1)).bit_count()


builtin("bit_count", ov(Scalar("T", ("int", "uint")), ret=T.int32, names=("x",)), differentiable=False,
        python=_bit_count, doc="The number of set bits of x, in its own width (two's complement for signed).", **_sm)
