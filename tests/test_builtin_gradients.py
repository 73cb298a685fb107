"""Gradient checks for every differentiable builtin in the registry.

Every overload of every builtin with `differentiable=True` is instantiated with float types
(float32 and float64; vector lengths 2/3/4; matrix shapes from builtin_cases; quaternions and
transforms), called from a kernel built from source text (out[i] = wp.<name>(a0[i], a1[i], ...),
and the operator syntax for operators), and its adjoint is compared with central finite
differences over several random input points in a domain without kinks (builtin_cases supplies
the type instantiation and the kernel text; the domains are here).

The Jacobians are computed per thread: every thread reads its own element of each input and
writes its own element of each output, so one adjoint launch seeded with component e of every
output gives row e of every point's Jacobian at once, and one pair of forward launches with
input scalar m of every point moved by +-eps gives column m. Several cases share a kernel (they
are independent too). A test for warp_nb.autograd.gradcheck itself runs the same kind of
kernel through it, and contended atomics (threads sharing an output) go through gradcheck.

float64 (eps 1e-6, tight tolerances) is the main check: it catches wrong formulas. float32
(eps 1e-3, loose tolerances) is a smoke check of the float32 instantiations.

The subgradient tests at the end evaluate adjoints exactly at the non-smooth points listed in
docs/subgradients.md and compare with the table's values, written here by hand.

Cases that fail because of a bug in warp_nb are listed in KNOWN_BROKEN_GRADIENTS: they are left
out of the passing tests and run as strict expected failures (a fix shows as XPASS and fails
the run: then remove the entry)."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import autograd
from warp_nb import registry as R
from warp_nb.registry import BUILTINS

import builtin_cases as bc

f32, f64, i32, u32, boolean = bc.f32, bc.f64, bc.i32, bc.u32, bc.boolean
vec, mat, quat, xform = bc.vec, bc.mat, bc.quat, bc.xform
elem, tname = bc.elem, bc.tname

#: random input points per case (threads of the launch)
P = 8
#: cases per kernel
PER_KERNEL = 12

#: finite-difference step and tolerances by precision. An entry passes when
#: |adjoint - fd| <= tol * (atol * (1 + scale) + rtol * |fd|), scale = the case's largest |output|
#: (the finite differences' rounding error grows with it), tol = the case's multiplier.
PRECISION = {
    f64: dict(eps=1e-6, atol=1e-7, rtol=1e-6),
    f32: dict(eps=1e-3, atol=2e-3, rtol=2e-2),
}
#: tolerances for adjoints compared with the documented value at a kink (subgradient tests)
EXACT = {f64: 1e-12, f32: 1e-6, wp.float16: 1e-3}


# --- cases ---------------------------------------------------------------------------------------


@dataclass
class GradCase:
    """One kernel statement to differentiate. params: inputs (with data) then outputs (data is
    None for zero-initialised outputs, or their initial values); `diff` names the inputs whose
    gradients are checked, `outs` the outputs. With `expected` (points x output scalars x input
    scalars) the adjoint Jacobian is compared with it instead of with finite differences."""

    id: str
    builtin: str
    params: list
    body: Callable[[dict], str]
    diff: tuple
    outs: tuple
    scalar: object                 # f32 or f64: picks eps and tolerances
    covers: tuple = ()             # (builtin, overload index or None) pairs exercised
    tol: float = 1.0               # tolerance multiplier
    eps: float | None = None       # finite-difference step (default: PRECISION)
    constant: bool = False         # piecewise constant: the Jacobian is expected to be 0
    expected: np.ndarray | None = None
    source: str = field(default="", repr=False)

    def as_case(self) -> bc.Case:
        return bc.Case(self.id, self.builtin, self.params, self.body, lambda r: [], dim=P, covers=self.covers)

    def param(self, key) -> bc.Param:
        return next(p for p in self.params if p.key == key)


def _float_type(t) -> bool:
    return not isinstance(t, R.ArrayType) and elem(t)._kind == "float"


def _scalar_of(types):
    floats = [elem(t) for t in types if _float_type(t)]
    return f64 if f64 in floats else (f32 if f32 in floats else wp.float16)


def call_case(inst: bc.Instance, form: str, inputs: list, diff=None, **kw) -> GradCase:
    """out[i] = wp.<name>(a0[i], ...) (or the operator syntax) for one instantiation."""
    params = [bc.Param(f"a{k}", t, np.ascontiguousarray(v), (P,)) for k, (t, v) in
              enumerate(zip(inst.arg_types, inputs))]
    params.append(bc.Param("out", inst.result, None, (P,)))
    if diff is None:
        diff = tuple(f"a{k}" for k, t in enumerate(inst.arg_types) if _float_type(t))

    def body(names):
        args = [f"{names[f'a{k}']}[i]" for k in range(len(inst.arg_types))]
        return f"{names['out']}[i] = {bc.call_text(inst.name, args, form)}"

    case_id = inst.id + ("@op" if form == "op" else "")
    return GradCase(case_id, inst.name, params, body, tuple(diff), ("out",), _scalar_of(inst.arg_types),
                    covers=((inst.name, inst.overload),), **kw)


# --- input domains (away from kinks and singularities) -------------------------------------------


def uni(t, rng, lo=-2.0, hi=2.0):
    return bc.gen_value(t, rng, P, lo, hi)


def away0(t, rng, lo=0.2, hi=2.0):
    """Values (every component) with magnitude in [lo, hi] and a random sign."""
    shape = (P,) + bc.inner_shape(t)
    mag = rng.uniform(lo, hi, shape)
    return np.where(rng.integers(0, 2, shape) == 1, mag, -mag).astype(bc.np_dtype(t))


def off_grid(t, rng, lo=-3, hi=3):
    """Integers plus a fraction in [0.1, 0.4] or [0.6, 0.9]: away from integers and halves."""
    shape = (P,) + bc.inner_shape(t)
    f = rng.uniform(0.1, 0.4, shape) + np.where(rng.integers(0, 2, shape) == 1, 0.5, 0.0)
    return (rng.integers(lo, hi + 1, shape) + f).astype(bc.np_dtype(t))


def apart(a, rng, gap=0.1, spread=1.0):
    """Values that differ from `a` by at least `gap` in every component (no ties)."""
    mag = rng.uniform(gap, gap + spread, a.shape)
    return (a + np.where(rng.integers(0, 2, a.shape) == 1, mag, -mag)).astype(a.dtype)


def nonzero_norm(t, rng, lo=0.5, hi=2.0):
    """Vectors or quaternions with length in [lo, hi]."""
    shape = (P,) + bc.inner_shape(t)
    v = rng.normal(size=shape)
    v *= (rng.uniform(lo, hi, (P, 1)) / np.linalg.norm(v, axis=1, keepdims=True))
    return v.astype(bc.np_dtype(t))


def separated_components(t, rng):
    """Vectors whose components differ pairwise by at least 0.3 (min/max of one vector)."""
    n = t._shape_[0]
    v = np.array([rng.permutation(n) for _ in range(P)]) * 0.5 - 1.0 + rng.uniform(-0.1, 0.1, (P, n))
    return v.astype(bc.np_dtype(t))


def well_conditioned(t, rng):
    n = t._shape_[0]
    return (np.eye(n) * 2 + rng.uniform(-0.5, 0.5, (P, n, n))).astype(bc.np_dtype(t))


def _rotation_matrices(rng, margin=0.2):
    """Rotation matrices on which Shepperd's branch (native/quat.h: trace > 0, else the largest
    diagonal entry) is decided with a margin, so finite differences stay on one branch; half of
    them take the trace branch, the others the x, y and z branches."""
    out = []
    want = [3, 0, 1, 2, 3, 3, 0, 1]
    while len(out) < P:
        q = bc.unit_quats(rng, 1)[0]
        m = bc.rotation_matrix(q)
        d, tr = np.diag(m), np.trace(m)
        if abs(tr) < margin:
            continue
        branch = 3 if tr > 0 else int(np.argmax(d))
        if branch != 3 and np.sort(d)[-1] - np.sort(d)[-2] < margin:
            continue
        if branch == want[len(out)]:
            out.append(m)
    return np.array(out)


def dom_uniform(lo, hi):
    return lambda types, rng: [uni(t, rng, lo, hi) for t in types]


def dom_away0(types, rng):
    return [away0(t, rng) for t in types]


def dom_off_grid(types, rng):
    return [off_grid(t, rng) for t in types]


def dom_divide(types, rng):
    """The divisor is the second argument (a scalar, or every component of a vector/matrix)."""
    return [uni(types[0], rng), away0(types[1], rng, 0.25, 2.0)]


def dom_mod(types, rng):
    """a / b away from integers: a = b (k + f), f in [0.1, 0.9]."""
    b = away0(types[1], rng, 0.5, 2.0)
    k = rng.integers(-3, 4, P)
    a = b * (k + rng.uniform(0.1, 0.9, P) * np.sign(k + 0.5))
    return [a.astype(b.dtype), b]


def dom_atan2(types, rng):
    """Radius >= 0.3 and the angle away from the cut at +-pi."""
    r, th = rng.uniform(0.3, 2.0, P), rng.uniform(-math.pi + 0.2, math.pi - 0.2, P)
    return [(r * np.sin(th)).astype(bc.np_dtype(types[0])), (r * np.cos(th)).astype(bc.np_dtype(types[1]))]


def dom_smoothstep(types, rng):
    a, b = uni(types[0], rng, -2.0, -0.5), uni(types[1], rng, 0.5, 2.0)
    x = a + (b - a) * rng.uniform(0.05, 0.95, P)
    x[0], x[1] = a[0] - 0.5, b[1] + 0.5  # below a and above b: constant
    return [a, b, x.astype(a.dtype)]


def dom_minmax(types, rng):
    if len(types) == 1:
        return [separated_components(types[0], rng)]
    a = uni(types[0], rng)
    return [a, apart(a, rng)]


def dom_clamp(types, rng):
    lo, hi = uni(types[1], rng, -1.5, -0.5), uni(types[2], rng, 0.5, 1.5)
    region = np.arange(P) % 3  # below, inside, above
    x = np.where(region == 0, lo - rng.uniform(0.1, 1.0, P),
                 np.where(region == 1, lo + (hi - lo) * rng.uniform(0.1, 0.9, P), hi + rng.uniform(0.1, 1.0, P)))
    return [x.astype(lo.dtype), lo, hi]


def dom_lerp(types, rng):
    return [uni(types[0], rng), uni(types[1], rng), uni(types[2], rng, -0.5, 1.5)]


def dom_pow(types, rng):
    return [uni(types[0], rng, 0.2, 3.0), uni(types[1], rng, -2.0, 2.0)]


def dom_normalize(types, rng):
    return [nonzero_norm(types[0], rng)]


def dom_matrix(types, rng):
    return [well_conditioned(types[0], rng)]


def dom_quat_from_matrix(types, rng):
    m = _rotation_matrices(rng)
    if types[0]._shape_ == (4, 4):
        m4 = rng.uniform(-2, 2, (P, 4, 4))  # only the top-left block counts (gradient 0 elsewhere)
        m4[:, :3, :3] = m
        m = m4
    return [m.astype(bc.np_dtype(types[0]))]


def dom_slerp(types, rng):
    """Unit a; b at an angle of 0.3..1.2 rad from +-a (the sign flip and its normalisation
    exercised: half of the b are scaled off unit length); t inside (0, 1)."""
    a = bc.unit_quats(rng, P)
    b = np.empty_like(a)
    for p in range(P):
        axis = rng.normal(size=4)
        axis -= axis.dot(a[p]) * a[p]
        axis /= np.linalg.norm(axis)
        th = rng.uniform(0.3, 1.2)
        b[p] = math.cos(th) * a[p] + math.sin(th) * axis
    b[1::2] *= -1.0                            # dot(a, b) < 0: b is flipped
    b[::3] *= rng.uniform(0.5, 2.0, (len(b[::3]), 1))  # not unit: b is normalised
    t = rng.uniform(0.1, 0.9, P)
    dt = bc.np_dtype(types[0])
    return [a.astype(dt), b.astype(dt), t.astype(bc.np_dtype(types[2]))]


def dom_cond(types, rng):
    """where/select: half of the conditions zero; the condition is not differentiated."""
    c = bc.gen_value(types[0], rng, P)
    c[::2] = 0
    if elem(types[0])._kind != "bool":
        c[1::2] = np.array([1, 2, 3, 1])[: len(c[1::2])].astype(c.dtype)
    else:
        c[1::2] = True
    return [c, uni(types[1], rng), uni(types[2], rng)]


#: builtin -> domain(arg types, rng) -> list of P-row input arrays; default uniform in [-2, 2)
#: (unit quaternions, transforms with unit rotations)
DOMAINS: dict = {
    "sqrt": dom_uniform(0.2, 4.0), "cbrt": dom_away0, "exp": dom_uniform(-3.0, 3.0),
    "log": dom_uniform(0.1, 10.0), "log2": dom_uniform(0.1, 10.0), "log10": dom_uniform(0.1, 10.0),
    "sin": dom_uniform(-4.0, 4.0), "cos": dom_uniform(-4.0, 4.0), "tan": dom_uniform(-1.2, 1.2),
    "asin": dom_uniform(-0.9, 0.9), "acos": dom_uniform(-0.9, 0.9), "atan": dom_uniform(-5.0, 5.0),
    "sinh": dom_uniform(-3.0, 3.0), "cosh": dom_uniform(-3.0, 3.0), "tanh": dom_uniform(-3.0, 3.0),
    "erf": dom_uniform(-2.5, 2.5),
    **{n: dom_off_grid for n in ("floor", "ceil", "trunc", "round", "rint", "frac")},
    **{n: dom_away0 for n in ("step", "nonzero", "sign", "abs")},
    "atan2": dom_atan2, "smoothstep": dom_smoothstep, "min": dom_minmax, "max": dom_minmax, "clamp": dom_clamp,
    "lerp": dom_lerp, "pow": dom_pow, "div": dom_divide, "cw_div": dom_divide, "mod": dom_mod,
    "floordiv": dom_mod, "normalize": dom_normalize, "length": dom_normalize,
    "inverse": dom_matrix, "determinant": dom_matrix, "quat_from_matrix": dom_quat_from_matrix,
    "quat_slerp": dom_slerp, "where": dom_cond, "select": dom_cond,
    "quat_from_axis_angle": lambda types, rng: [uni(types[0], rng), uni(types[1], rng, -4.0, 4.0)],
    "quat_rpy": dom_uniform(-3.0, 3.0),
}

#: piecewise constant builtins: the Jacobian is 0 (and the finite differences too)
CONSTANT = {"floor", "ceil", "trunc", "round", "rint", "step", "nonzero", "sign", "floordiv"}

#: tolerance multipliers (conditioning, long formulas in float32)
TOL = {"inverse": 10.0, "determinant": 4.0, "quat_slerp": 10.0, "quat_from_matrix": 10.0}

#: where/select: value types, each with one condition type (cyclic)
COND_VALUE_TYPES = [f32, f64, vec(3, f32), vec(2, f64), mat((2, 2), f32), mat((3, 3), f64), quat(f32), quat(f64),
                    xform(f32), xform(f64)]
COND_TYPES = [boolean, i32, f32, f64, u32]


def float_instances(name: str) -> list:
    """The instantiations of builtin `name` with float arguments (the condition of where/select
    may be any scalar)."""
    b = BUILTINS[name]
    if name in ("where", "select"):
        out = []
        for k, vt in enumerate(COND_VALUE_TYPES):
            types = (COND_TYPES[k % len(COND_TYPES)], vt, vt)
            res = R.resolve(b, list(types))
            out.append(bc.Instance(name, b.overloads.index(res.overload), types, res.result))
        return out
    return [inst for inst in bc.instances(name)[0]
            if not inst.has_array and all(_float_type(t) for t in inst.arg_types)]


def _forms(name: str, inst) -> list:
    """Call syntax for every instantiation; the operator syntax for the float64 ones (and for all
    of them when the builtin has no wp.<name> call, as matmul)."""
    b = BUILTINS[name]
    has_op = name in bc.OPERATOR_FORMS and bc._op_applies(name, inst)
    if not b.export:
        return ["op"] if has_op else []
    return ["call"] + (["op"] if has_op and _scalar_of(inst.arg_types) is f64 else [])


# --- hand-written cases: builtins without a plain signature ----------------------------------------


def special_cases(name: str, rng) -> list:
    cases = []
    if name in ("matrix_from_rows", "matrix_from_cols"):
        for k, n, t in ((2, 3, f64), (3, 2, f32), (4, 4, f64), (3, 3, f32), (3, 4, f64)):
            vt = vec(n, t)
            params = [bc.Param(f"a{j}", vt, uni(vt, rng), (P,)) for j in range(k)]
            rtype = mat((k, n) if name.endswith("rows") else (n, k), t)
            params.append(bc.Param("out", rtype, None, (P,)))

            def body(names, k=k):
                return f"{names['out']}[i] = wp.{name}({', '.join(names[f'a{j}'] + '[i]' for j in range(k))})"
            cases.append(GradCase(f"{name}({', '.join([tname(vt)] * k)})", name, params, body,
                                  tuple(f"a{j}" for j in range(k)), ("out",), t, covers=((name, None),)))
    elif name in ("identity", "quat_identity", "transform_identity"):
        # constants: nothing to differentiate; checked inside a differentiated expression (the
        # backward code must compile around them and pass the other operand's gradient through)
        for t in (f32, f64):
            call, at = {"identity": (f"wp.identity(n=3, dtype=wp.{t.__name__})", mat((3, 3), t)),
                        "quat_identity": (f"wp.quat_identity(dtype=wp.{t.__name__})", quat(t)),
                        "transform_identity": (f"wp.transform_identity(dtype=wp.{t.__name__})", xform(t))}[name]
            op = "*" if name != "transform_identity" else "+"
            params = [bc.Param("a0", at, uni(at, rng), (P,)), bc.Param("out", at, None, (P,))]

            def body(names, call=call, op=op):
                return f"{names['out']}[i] = {names['a0']}[i] {op} {call}"
            cases.append(GradCase(f"{name}() {op} {tname(at)}", name, params, body, ("a0",), ("out",), t,
                                  covers=((name, None),)))
    return cases


#: atomic value types (add/sub accept composites, min/max scalars and vectors)
ATOMIC_VALUE_TYPES = {
    "atomic_add": [f32, f64, vec(3, f32), vec(2, f64), mat((2, 2), f64), mat((3, 3), f32)],
    "atomic_sub": [f32, f64, vec(3, f32), vec(2, f64), mat((2, 2), f64), mat((3, 3), f32)],
    "atomic_min": [f32, f64, vec(3, f32), vec(2, f64)],
    "atomic_max": [f32, f64, vec(3, f32), vec(2, f64)],
}


def atomic_cases(name: str, rng) -> list:
    """wp.<atomic>(out, i[, 0, ...], a[i]) into an output with initial values, one element per
    thread, for array ndim 1..4 (cycling through the value types). The syntax out[i] += a[i]
    (-=) reaches atomic_add (atomic_sub) too. min/max: the initial values are apart from the new
    ones, half of them win."""
    cases = []
    types = ATOMIC_VALUE_TYPES[name]
    combos = [(ndim, types[k % len(types)]) for k, ndim in enumerate((1, 2, 3, 4))]
    combos += [(1, t) for t in types if (1, t) not in combos]
    for ndim, t in combos:
        shape = (P,) + (1,) * (ndim - 1)
        a = uni(t, rng)
        init = apart(a, rng) if name in ("atomic_min", "atomic_max") else uni(t, rng)
        init = init.reshape(shape + bc.inner_shape(t))
        idx = ", ".join(["i"] + ["0"] * (ndim - 1))
        params = [bc.Param("a", t, a, (P,)), bc.Param("out", t, np.ascontiguousarray(init), shape)]
        arr_t = wp.array(dtype=t, ndim=ndim)
        res = R.resolve(BUILTINS[name], [arr_t] + [i32] * ndim + [t])
        covers = ((name, BUILTINS[name].overloads.index(res.overload)),)

        def body(names, idx=idx):
            return f"wp.{name}({names['out']}, {idx}, {names['a']}[i])"
        cid = f"{name}(array(dtype={tname(t)}, ndim={ndim}), {', '.join(['int32'] * ndim)}, {tname(t)})"
        cases.append(GradCase(cid, name, params, body, ("a",), ("out",), elem(t), covers=covers))
        if name in ("atomic_add", "atomic_sub") and ndim == 1:
            sym = "+=" if name == "atomic_add" else "-="

            def body_op(names, sym=sym):
                return f"{names['out']}[i] {sym} {names['a']}[i]"
            cases.append(GradCase(f"out[i] {sym} a[i] ({tname(t)})", name, [bc.Param(p.key, p.type, p.data.copy(),
                                  p.shape) for p in params], body_op, ("a",), ("out",), elem(t), covers=covers))
    return cases


# --- all cases -------------------------------------------------------------------------------------

SPECIAL_NAMES = {"matrix_from_rows", "matrix_from_cols", "identity", "quat_identity", "transform_identity"}
ATOMIC_NAMES = set(ATOMIC_VALUE_TYPES)
#: differentiable builtins: every one gets gradient cases (printf/tid/static are not differentiable)
#: geometry queries need a live wp.Mesh / wp.Volume handle: tests/geometry/test_gradients.py checks them
GRAD_NAMES = sorted(n for n, b in BUILTINS.items() if b.differentiable and b.category != "geometry")


def grad_cases(name: str) -> list:
    """Every gradient case of builtin `name` (deterministic: the inputs depend only on the name)."""
    rng = np.random.default_rng(12345 + bc._stable(name))
    if name in SPECIAL_NAMES:
        return special_cases(name, rng)
    if name in ATOMIC_NAMES:
        return atomic_cases(name, rng)
    domain = DOMAINS.get(name, lambda types, rng: [uni(t, rng) for t in types])
    cases = []
    for inst in float_instances(name):
        forms = _forms(name, inst)
        if not forms:
            continue
        inputs = domain(list(inst.arg_types), rng)
        for form in forms:
            diff = ("a1", "a2") if name in ("where", "select") else None
            cases.append(call_case(inst, form, inputs, diff, tol=TOL.get(name, 1.0), constant=name in CONSTANT))
    if name == "quat_slerp":
        cases.append(slerp_series_case(rng))
    return cases


def slerp_series_case(rng) -> GradCase:
    """quat_slerp's series branch (native/quat.h: 1 - dot(a, normalize(b)) < 1e-6): b at about
    4e-4 rad from +-a, so that x = 1 - dot ~ 1e-7, and a finite-difference step of 1e-9 that
    keeps every evaluation on the branch. float64 only (float32 cannot resolve x). The rounding
    error of the differences is ~1e-7: tolerances x20, still far below the O(0.1) terms (such as
    d kA / d dot = -t1 (1 - t1^2) / 3) that a wrong formula would miss."""
    a = bc.unit_quats(rng, P)
    b = np.empty_like(a)
    for p in range(P):
        w = rng.normal(size=4)
        w -= w.dot(a[p]) * a[p]
        th = rng.uniform(2e-4, 6e-4)
        b[p] = math.cos(th) * a[p] + math.sin(th) * w / np.linalg.norm(w)
    b[1::2] *= -1.0
    b[::3] *= rng.uniform(0.5, 2.0, (len(b[::3]), 1))
    t = rng.uniform(0.1, 0.9, P)
    inst = next(i for i in float_instances("quat_slerp") if elem(i.arg_types[0]) is f64)
    case = call_case(inst, "call", [a, b, t], tol=20.0, eps=1e-9)
    case.id += " series branch"
    return case


# --- the harness -------------------------------------------------------------------------------------


def _rows(a) -> np.ndarray:
    """The array's scalars as (points, scalars per point): a view (writes reach the array)."""
    return a.numpy().reshape(a.shape[0], -1)


def _make_arrays(case: GradCase) -> dict:
    out = {}
    for p in case.params:
        rg = _float_type(p.type)
        if p.data is None:
            out[p.key] = wp.zeros(p.shape, dtype=p.type, requires_grad=rg)
        else:
            out[p.key] = wp.array(p.data.reshape(p.shape + bc.inner_shape(p.type)), dtype=p.type, requires_grad=rg)
    return out


class _Batch:
    """The arrays of the cases of one kernel, and their Jacobians (per point)."""

    def __init__(self, kernel, cases: list):
        self.kernel, self.cases = kernel, cases
        self.arrays = [_make_arrays(c) for c in cases]
        self.flat = [arrs[p.key] for c, arrs in zip(cases, self.arrays) for p in c.params]
        self.initial = [{k: _rows(arrs[k]).copy() for k in c.outs} for c, arrs in zip(cases, self.arrays)]
        # (key, column) of every output scalar and every differentiated input scalar, per case
        self.out_index = [[(k, j) for k in c.outs for j in range(_rows(arrs[k]).shape[1])]
                          for c, arrs in zip(cases, self.arrays)]
        self.in_index = [[(k, j) for k in c.diff for j in range(_rows(arrs[k]).shape[1])]
                         for c, arrs in zip(cases, self.arrays)]

    def forward(self):
        for arrs, init in zip(self.arrays, self.initial):
            for k, v in init.items():
                _rows(arrs[k])[:] = v
        wp.launch(self.kernel, dim=P, inputs=self.flat)

    def outputs(self, ci) -> np.ndarray:
        c, arrs = self.cases[ci], self.arrays[ci]
        return np.concatenate([_rows(arrs[k]).astype(np.float64) for k in c.outs], axis=1)

    def adjoint_jacobians(self) -> list:
        """d outputs / d inputs per point from the backward code: (points, outputs, inputs)."""
        jac = [np.zeros((P, len(o), len(i))) for o, i in zip(self.out_index, self.in_index)]
        for e in range(max(len(o) for o in self.out_index)):
            self.forward()  # the backward code of atomic_min/max reads the stored result
            for a in self.flat:
                if a.grad is not None:
                    a.grad.zero_()
            for ci, arrs in enumerate(self.arrays):
                if e < len(self.out_index[ci]):
                    k, j = self.out_index[ci][e]
                    _rows(arrs[k].grad)[:, j] = 1.0
            wp.launch(self.kernel, dim=P, inputs=self.flat, adjoint=True)
            for ci, (c, arrs) in enumerate(zip(self.cases, self.arrays)):
                if e < len(self.out_index[ci]):
                    jac[ci][:, e, :] = np.concatenate([_rows(arrs[k].grad).astype(np.float64) for k in c.diff],
                                                      axis=1)
        return jac

    def fd_jacobians(self) -> list:
        """d outputs / d inputs per point by central differences, every point moved at once."""
        jac = [np.zeros((P, len(o), len(i))) for o, i in zip(self.out_index, self.in_index)]
        for m in range(max(len(i) for i in self.in_index)):
            moved = [ci for ci in range(len(self.cases)) if m < len(self.in_index[ci])]
            saved, step, values = {}, {}, {}
            for ci in moved:
                k, j = self.in_index[ci][m]
                col = _rows(self.arrays[ci][k])[:, j]
                saved[ci] = col.copy()
            for sign in (1.0, -1.0):
                for ci in moved:
                    k, j = self.in_index[ci][m]
                    x = _rows(self.arrays[ci][k])
                    x[:, j] = saved[ci] + sign * self._eps(ci)
                    step[ci] = step.get(ci, 0.0) + sign * (x[:, j].astype(np.float64) - saved[ci].astype(np.float64))
                self.forward()
                for ci in moved:
                    values[ci] = values.get(ci, 0.0) + sign * self.outputs(ci)
            for ci in moved:
                k, j = self.in_index[ci][m]
                _rows(self.arrays[ci][k])[:, j] = saved[ci]
                jac[ci][:, :, m] = values[ci] / step[ci][:, None]  # the step actually taken (rounded)
        return jac

    def _eps(self, ci) -> float:
        c = self.cases[ci]
        return c.eps if c.eps is not None else PRECISION[c.scalar]["eps"]


def _describe_point(case: GradCase, batch: _Batch, ci: int, p: int) -> str:
    """The inputs of point p (and the initial values of outputs that have them)."""
    parts = []
    for prm in case.params:
        if prm.key in case.outs:
            if prm.data is None:
                continue
            v, key = batch.initial[ci][prm.key][p], f"{prm.key} (initial)"
        else:
            v, key = _rows(batch.arrays[ci][prm.key])[p], prm.key
        parts.append(f"{key}={np.array2string(v, precision=10, separator=', ') if v.size > 1 else repr(v[0])}")
    return ", ".join(parts)


def reproducer(case: GradCase) -> str:
    """Standalone module text with a kernel of this case alone."""
    return bc.KernelModule([[case.as_case()]]).source()


def _compare(case: GradCase, batch: _Batch, ci: int, ad: np.ndarray, fd: np.ndarray | None) -> list:
    errors = []
    out_names = [f"{k}[{j}]" for k, j in batch.out_index[ci]]
    in_names = [f"{k}[{j}]" for k, j in batch.in_index[ci]]
    if fd is None:  # documented values
        ref = np.broadcast_to(case.expected, ad.shape)
        same_special = (np.isnan(ref) & np.isnan(ad)) | (np.isinf(ref) & (ad == ref))
        tol = EXACT[case.scalar] * (1 + np.abs(np.where(np.isfinite(ref), ref, 0)))
        with np.errstate(invalid="ignore"):
            ok = same_special | (np.abs(ad - ref) <= tol)
        label = "documented"
    else:
        ref = fd
        batch.forward()
        out = batch.outputs(ci)
        scale = float(np.max(np.abs(out[np.isfinite(out)]), initial=0.0))
        prec = PRECISION[case.scalar]
        tol = case.tol * (prec["atol"] * (1 + scale) + prec["rtol"] * np.abs(fd))
        with np.errstate(invalid="ignore"):
            ok = np.abs(ad - fd) <= tol
        label = "finite difference"
        if case.constant and np.any(fd != 0):
            errors.append("the finite differences are not 0 for a piecewise constant builtin: an input lies "
                          "on a jump (domain bug)")
        if not case.constant and not np.any(fd != 0):
            errors.append("the finite differences are all 0: the perturbed inputs do not reach the outputs "
                          "(harness bug)")
    if not ok.all():
        with np.errstate(invalid="ignore"):
            err = np.where(ok, 0.0, np.nan_to_num(np.abs(ad - ref), nan=np.inf, posinf=np.inf))
        worst = np.argsort(-err, axis=None)[:3]
        for flat in worst:
            p, o, i = np.unravel_index(flat, err.shape)
            if ok[p, o, i]:
                break
            errors.append(f"point {p}: d {out_names[o]} / d {in_names[i]}: adjoint {ad[p, o, i]:.10g}, "
                          f"{label} {ref[p, o, i]:.10g}   at {_describe_point(case, batch, ci, p)}")
        errors.insert(0, f"{int((~ok).sum())} of {ok.size} Jacobian entries differ")
    return errors


def check_cases(cases: list, directory: Path, name: str, per_kernel: int = PER_KERNEL) -> dict:
    """{case id: error strings} (empty when the case passed). Cases share kernels, `per_kernel` to
    one; a kernel that fails to build or launch is retried one case per kernel, so that the
    report names the failing overload."""
    groups = [cases[k:k + per_kernel] for k in range(0, len(cases), per_kernel)]
    results = _run_groups(groups, directory, name)
    retry = [g for g in groups if len(g) > 1 and any(_is_build_error(results[c.id]) for c in g)]
    if retry:
        results.update(_run_groups([[c] for g in retry for c in g], directory, name + "_isolated"))
    return results


def _is_build_error(errors) -> bool:
    return bool(errors) and errors[0].startswith("BUILD ")


def _run_groups(groups, directory: Path, name: str) -> dict:
    text = bc.KernelModule([[c.as_case() for c in g] for g in groups])
    module = bc.import_source(directory / f"grad_{name}.py", text.source())
    results = {}
    for g, cases in enumerate(groups):
        for c in cases:
            c.source = text.kernel_sources[g]
        try:
            batch = _Batch(getattr(module, f"k{g}"), cases)
            ad = batch.adjoint_jacobians()
            fd = batch.fd_jacobians() if any(c.expected is None for c in cases) else [None] * len(cases)
        except Exception as e:  # build errors (forward or backward code) and launch errors
            for c in cases:
                results[c.id] = [f"BUILD {type(e).__name__}: {e}"]
            continue
        for ci, c in enumerate(cases):
            try:
                results[c.id] = _compare(c, batch, ci, ad[ci], None if c.expected is not None else fd[ci])
            except Exception as e:  # a broken comparison fails its case, not the batch
                results[c.id] = [f"CHECK {type(e).__name__}: {e}"]
    return results


def report(results: dict, cases: list) -> str:
    by_id = {c.id: c for c in cases}
    failing = [cid for cid, errs in results.items() if errs]
    lines = [f"{len(failing)} of {len(results)} gradient cases fail:"]
    for cid in failing:
        lines.append(f"- {cid}:")
        lines += ["    " + e.replace("\n", "\n    ") for e in results[cid][:4]]
    if failing:
        lines += ["", f"reproducer for {failing[0]} (arguments: inputs, then outputs):",
                  textwrap.indent(reproducer(by_id[failing[0]]), "    ")]
    return "\n".join(lines)


# --- known bugs ------------------------------------------------------------------------------------

#: Gradient cases that fail because of a bug in warp_nb or a native header (case id -> reason).
#: They are left out of test_gradients and run one by one as strict expected failures in
#: test_known_broken_gradient: when a fix makes one pass, the run fails with XPASS; then remove
#: its entry. Subgradient rows (SUBGRADIENT_ROWS ids) may be listed here too.
KNOWN_BROKEN_GRADIENTS: dict = {
    # empty: the atomic_min/atomic_max adjoints on 2-4-D arrays and on vector values (compared
    # componentwise, as the forward pass updates them) were fixed after these tests found them
}


# --- tests: finite differences ------------------------------------------------------------------------


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", GRAD_NAMES)
def test_gradients(name, tmp_path):
    """The adjoint of every float overload of wp.<name> matches central finite differences at
    P random points (float64: tight; float32: a smoke check)."""
    cases = [c for c in grad_cases(name) if c.id not in KNOWN_BROKEN_GRADIENTS]
    if not cases:
        pytest.skip(f"every gradient case of wp.{name} is in KNOWN_BROKEN_GRADIENTS")
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}"
    results = check_cases(cases, tmp_path, name)
    assert set(results) == set(ids)
    assert not any(results.values()), report(results, cases)


def _all_case_ids() -> dict:
    return {c.id: name for name in GRAD_NAMES for c in grad_cases(name)}


def test_every_differentiable_overload_is_checked():
    """Coverage: every overload of every differentiable builtin has a gradient case (builtins
    without overloads, typed by name, have hand-written ones)."""
    missing = []
    for name in GRAD_NAMES:
        covered = {cov for c in grad_cases(name) for cov in c.covers}
        b = BUILTINS[name]
        wanted = [(name, k) for k in range(len(b.overloads))] if b.overloads else [(name, None)]
        missing += [f"wp.{n} overload {k}" for n, k in wanted if (n, k) not in covered]
    assert not missing, "overloads without a gradient case: " + ", ".join(missing)


def test_known_broken_entries_exist():
    ids = set(_all_case_ids()) | {r.id for r in SUBGRADIENT_ROWS}
    stale = [cid for cid in KNOWN_BROKEN_GRADIENTS if cid not in ids]
    assert not stale, f"KNOWN_BROKEN_GRADIENTS names cases that do not exist: {stale}"


def _find_case(case_id: str) -> GradCase:
    for r in SUBGRADIENT_ROWS:
        if r.id == case_id:
            return r
    name = _all_case_ids()[case_id]
    return next(c for c in grad_cases(name) if c.id == case_id)


@pytest.mark.needs_cxx
@pytest.mark.parametrize("case_id", [pytest.param(cid, marks=pytest.mark.xfail(reason=why, strict=True))
                                     for cid, why in KNOWN_BROKEN_GRADIENTS.items()])
def test_known_broken_gradient(case_id, tmp_path):
    case = _find_case(case_id)
    results = check_cases([case], tmp_path, "broken")
    assert not results[case_id], report(results, [case])


# --- tests: the harness and autograd.gradcheck -------------------------------------------------------


def test_comparison_can_fail():
    """The comparison is not vacuous: a 1e-4 relative error in one entry fails a float64 case."""
    case = grad_cases("sin")[1]
    assert case.scalar is f64

    class _Fake:
        out_index, in_index = [[("out", 0)]], [[("a0", 0)]]
        arrays = [{"a0": wp.array(np.ones(P), dtype=f64), "out": wp.zeros(P, dtype=f64)}]
        cases = [case]

        def forward(self):
            pass

        def outputs(self, ci):
            return np.ones((P, 1))

    fd = np.full((P, 1, 1), 0.5)
    assert _compare(case, _Fake(), 0, fd.copy(), fd) == []
    bad = fd.copy()
    bad[3, 0, 0] *= 1 + 1e-4
    errors = _compare(case, _Fake(), 0, bad, fd)
    assert errors and "point 3" in errors[1], errors


@pytest.mark.needs_cxx
def test_harness_catches_a_wrong_custom_gradient(tmp_path):
    """A @wp.func with a deliberately wrong custom adjoint (2x instead of 3x^2 for x^3, correct
    at x = +-2/3 only) fails the check; with the right adjoint it passes."""
    source = textwrap.dedent("""
        import warp_nb as wp

        @wp.func
        def cube(x: wp.float64):
            return x * x * x

        @wp.func_grad(cube)
        def adj_cube(x: wp.float64, adj_ret: wp.float64):
            wp.adjoint[x] += WRONG * adj_ret

        @wp.kernel
        def k0(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            out[i] = cube(a[i])
    """)
    rng = np.random.default_rng(0)
    for wrong, should_pass in (("2.0 * x", False), ("3.0 * x * x", True)):
        module = bc.import_source(tmp_path / f"cube_{should_pass}.py", source.replace("WRONG", wrong))
        params = [bc.Param("a0", f64, uni(f64, rng, 0.8, 2.0), (P,)), bc.Param("out", f64, None, (P,))]
        case = GradCase(f"cube {wrong}", "cube", params, lambda n: "", ("a0",), ("out",), f64)
        batch = _Batch(module.k0, [case])
        errors = _compare(case, batch, 0, batch.adjoint_jacobians()[0], batch.fd_jacobians()[0])
        assert (errors == []) == should_pass, errors


@pytest.mark.needs_cxx
def test_autograd_gradcheck_agrees(tmp_path):
    """warp_nb.autograd.gradcheck (full Jacobian over the launch, one adjoint launch per output
    scalar) on a few of the generated kernels: it passes on correct adjoints, and jacobian /
    jacobian_fd have the per-point blocks of this file's batched computation on the diagonal and
    nothing elsewhere."""
    picks = [("cross", "cross(vec3d, vec3d)"), ("inverse", "inverse(mat33d)"),
             ("quat_rotate", "quat_rotate(quatd, vec3d)")]
    for name, cid in picks:
        case = next(c for c in grad_cases(name) if c.id == cid)
        text = bc.KernelModule([[case.as_case()]])
        module = bc.import_source(tmp_path / f"gc_{name}.py", text.source())
        batch = _Batch(module.k0, [case])
        ins = [batch.arrays[0][p.key] for p in case.params if p.key not in case.outs]
        outs = [batch.arrays[0][k] for k in case.outs]
        rep = autograd.gradcheck(module.k0, P, ins, outs, eps=1e-6, atol=1e-7, rtol=1e-6, raise_exception=False)
        assert rep.passed, f"{cid}:\n{rep}"
        for full, mine, tol in ((autograd.jacobian(module.k0, P, ins, outs), batch.adjoint_jacobians()[0], 1e-12),
                                (autograd.jacobian_fd(module.k0, P, ins, outs, eps=1e-6), batch.fd_jacobians()[0],
                                 1e-8)):
            no, col = mine.shape[1], 0
            for k, p in enumerate(p for p in case.params if p.key not in case.outs):
                ni = int(np.prod(bc.inner_shape(p.type), dtype=int))
                blk = full[(k, len(ins))].copy()  # (P * outputs, P * inputs)
                for pt in range(P):
                    np.testing.assert_allclose(blk[pt * no:(pt + 1) * no, pt * ni:(pt + 1) * ni],
                                               mine[pt, :, col:col + ni], rtol=tol, atol=tol)
                    blk[pt * no:(pt + 1) * no, pt * ni:(pt + 1) * ni] = 0
                assert not blk.any(), f"{cid}: a thread's output depends on another thread's input"
                col += ni


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", ["atomic_add", "atomic_sub", "atomic_min", "atomic_max"])
def test_contended_atomics_gradcheck(name, tmp_path):
    """Several threads into one element (gradcheck over the whole launch): add/sub pass the
    element's gradient to every value; min/max only to the value that ends up stored."""
    source = textwrap.dedent(f"""
        import warp_nb as wp

        @wp.kernel
        def k(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            wp.{name}(out, i % 3, a[i] * a[i])
    """)
    module = bc.import_source(tmp_path / f"contended_{name}.py", source)
    rng = np.random.default_rng(3)
    a = wp.array(np.sort(rng.uniform(0.5, 2.0, 9)), dtype=f64)  # distinct squares: no ties
    init = {"atomic_min": 3.0, "atomic_max": 0.5}.get(name, 0.25)
    out = wp.array(np.full(3, init) + np.array([0.0, 10.0, -10.0]) * (name in ("atomic_min", "atomic_max")),
                   dtype=f64)
    rep = autograd.gradcheck(module.k, 9, [a], [out], eps=1e-6, atol=1e-7, rtol=1e-6, raise_exception=False)
    assert rep.passed, str(rep)
    jac = autograd.jacobian(module.k, 9, [a], [out])[(0, 1)]
    if name in ("atomic_min", "atomic_max"):
        # slot 1 starts at init + 10 (min: every value wins at first; max: the initial value
        # stays), slot 2 at init - 10 (the reverse): the winners get the gradient 2 a
        assert (np.count_nonzero(jac, axis=1) <= 1).all(), jac


# --- subgradients at the kinks (docs/subgradients.md) -------------------------------------------------


def _row(rid: str, call: str, arg_types, points, expected, out_type=None, scalar=None) -> GradCase:
    """A case `out[i] = <call with {0}, {1}, ...>` at the given points (padded to P by repeating
    the last), whose adjoint must equal `expected`: per point, a list of d out / d arg for scalar
    outputs (one number per argument) or an array (outputs x input scalars)."""
    points = list(points) + [points[-1]] * (P - len(points))
    expected = list(expected) + [expected[-1]] * (P - len(expected))
    params = []
    for k, t in enumerate(arg_types):
        data = np.array([pt[k] for pt in points], dtype=bc.np_dtype(t)).reshape((P,) + bc.inner_shape(t))
        params.append(bc.Param(f"a{k}", t, data, (P,)))
    params.append(bc.Param("out", out_type or arg_types[0], None, (P,)))
    exp = np.array([np.asarray(e, dtype=np.float64).reshape(1, -1) if np.ndim(e) <= 1 else np.asarray(e, np.float64)
                    for e in expected])

    def body(names):
        return f"{names['out']}[i] = {call.format(*[names[f'a{k}'] + '[i]' for k in range(len(arg_types))])}"
    diff = tuple(f"a{k}" for k, t in enumerate(arg_types) if _float_type(t))
    return GradCase(rid, "subgradient", params, body, diff, ("out",), scalar or _scalar_of(arg_types), expected=exp)


INF, NAN = math.inf, math.nan


def subgradient_rows() -> list:
    rows = []
    for t in (f64, f32):
        s = tname(t)
        t1, t2, t3 = (t,), (t, t), (t, t, t)
        # table row `abs(x)`, x = 0 (also -0): d/dx = +1
        rows.append(_row(f"abs at 0 ({s})", "wp.abs({0})", t1, [(0.0,), (-0.0,)], [[1.0], [1.0]]))
        # rows `sign`, `step`, `nonzero`: gradient 0 everywhere (0 and -0 included)
        for fn in ("sign", "step", "nonzero"):
            rows.append(_row(f"{fn} ({s})", f"wp.{fn}({{0}})", t1, [(0.0,), (-0.0,), (1.5,), (-2.0,)], [[0.0]]))
        # row `floor, ceil, trunc, round, rint`: 0 everywhere, integers and halves included
        for fn in ("floor", "ceil", "trunc", "round", "rint"):
            rows.append(_row(f"{fn} at integers and halves ({s})", f"wp.{fn}({{0}})", t1,
                             [(0.0,), (2.0,), (-3.0,), (0.5,), (-1.5,), (2.5,)], [[0.0]]))
        # row `frac(x) = x - trunc(x)`: 1 at integers (jumps ignored)
        rows.append(_row(f"frac at integers ({s})", "wp.frac({0})", t1, [(0.0,), (3.0,), (-2.0,)], [[1.0]]))
        # row `floordiv(a, b)` (float): 0, 0 everywhere (an exact quotient included)
        rows.append(_row(f"floordiv ({s})", "wp.floordiv({0}, {1})", t2, [(6.0, 2.0), (-7.5, 2.0), (1.3, 0.7)],
                         [[0.0, 0.0]]))
        # row `mod(a, b)` where a/b is an integer: d/da = 1, d/db = -trunc(a/b)
        rows.append(_row(f"mod at integer quotients ({s})", "wp.mod({0}, {1})", t2,
                         [(6.0, 2.0), (-6.0, 2.0), (7.5, -2.5), (0.0, 3.0)],
                         [[1.0, -3.0], [1.0, 3.0], [1.0, 3.0], [1.0, 0.0]]))
        # rows `min(a, b)`, `max(a, b)` at a tie: to b (d/da = 0, d/db = 1)
        for fn in ("min", "max"):
            rows.append(_row(f"{fn} tie ({s})", f"wp.{fn}({{0}}, {{1}})", t2, [(1.25, 1.25), (0.0, -0.0), (-2.0, -2.0)],
                             [[0.0, 1.0]]))
            # the vector overload follows the scalar one componentwise (vec.h)
            vt = vec(3, t)
            rows.append(_row(f"{fn} tie componentwise ({tname(vt)})", f"wp.{fn}({{0}}, {{1}})", (vt, vt),
                             [([1.0, 2.0, -1.0], [1.0, 0.5, -1.0])],
                             # component 1 is no tie: min returns b there, max returns a
                             [np.hstack([np.diag([0.0, 0.0 if fn == "min" else 1.0, 0.0]),
                                         np.diag([1.0, 1.0 if fn == "min" else 0.0, 1.0])])]))
        # Notes, NaN inputs: min/max route by the forward comparisons: a NaN argument gets the
        # gradient only when it is the one returned (a < b and a > b are false with a NaN: b)
        for fn in ("min", "max"):
            rows.append(_row(f"{fn} with nan ({s})", f"wp.{fn}({{0}}, {{1}})", t2, [(NAN, 1.0), (1.0, NAN)],
                             [[0.0, 1.0], [0.0, 1.0]]))
        # row `clamp(x, lo, hi)` at x == lo or x == hi: to x; x < lo to lo, x > hi to hi
        rows.append(_row(f"clamp at its bounds ({s})", "wp.clamp({0}, {1}, {2})", t3,
                         [(-1.0, -1.0, 2.0), (2.0, -1.0, 2.0), (-3.0, -1.0, 2.0), (3.0, -1.0, 2.0), (0.5, 0.5, 0.5)],
                         [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
        # Notes: clamp with a NaN x returns x (no comparison holds): the gradient goes to x
        rows.append(_row(f"clamp with nan ({s})", "wp.clamp({0}, {1}, {2})", t3, [(NAN, -1.0, 2.0)],
                         [[1.0, 0.0, 0.0]]))
        # row `sqrt(x)`, x = 0: 0 (not +inf); row `cbrt(x)`, x = 0: 0
        rows.append(_row(f"sqrt at 0 ({s})", "wp.sqrt({0})", t1, [(0.0,)], [[0.0]]))
        rows.append(_row(f"cbrt at 0 ({s})", "wp.cbrt({0})", t1, [(0.0,)], [[0.0]]))
        # row `pow(a, b)`, a = 0 and b < 1: d/da = 0 (d/db = 0 too: a <= 0, next row)
        rows.append(_row(f"pow at a = 0, b < 1 ({s})", "wp.pow({0}, {1})", t2, [(0.0, 0.5), (0.0, 0.0), (0.0, -1.0)],
                         [[0.0, 0.0]]))
        # row `pow(a, b)`, a <= 0: d/db = 0 (d/da keeps the formula b a^(b-1): -4 and 12 here)
        rows.append(_row(f"pow at a <= 0 ({s})", "wp.pow({0}, {1})", t2, [(-2.0, 2.0), (-2.0, 3.0), (0.0, 2.0)],
                         [[-4.0, 0.0], [12.0, 0.0], [0.0, 0.0]]))
        # rows `asin(x)`, `acos(x)`, |x| >= 1: 0
        for fn in ("asin", "acos"):
            rows.append(_row(f"{fn} at |x| >= 1 ({s})", f"wp.{fn}({{0}})", t1, [(1.0,), (-1.0,), (1.5,), (-3.0,)],
                             [[0.0]]))
        # row `atan2(y, x)` at (0, 0), zeros of either sign: 0, 0
        rows.append(_row(f"atan2 at the origin ({s})", "wp.atan2({0}, {1})", t2,
                         [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)], [[0.0, 0.0]]))
        # row `smoothstep(a, b, x)`, a == b: 0 for a, b and x (x below, at and above)
        rows.append(_row(f"smoothstep with a == b ({s})", "wp.smoothstep({0}, {1}, {2})", t3,
                         [(0.5, 0.5, 0.0), (0.5, 0.5, 0.5), (0.5, 0.5, 1.0)], [[0.0, 0.0, 0.0]]))
        # row `smoothstep(a, b, x)`, x at a or b: the formula, which is 0 there
        rows.append(_row(f"smoothstep at its ends ({s})", "wp.smoothstep({0}, {1}, {2})", t3,
                         [(-1.0, 2.0, -1.0), (-1.0, 2.0, 2.0)], [[0.0, 0.0, 0.0]]))
        # rows `log`, `log2`, `log10` at 0: the formula, +inf (IEEE, not a chosen value)
        for fn in ("log", "log2", "log10"):
            rows.append(_row(f"{fn} at 0 ({s})", f"wp.{fn}({{0}})", t1, [(0.0,)], [[INF]]))
        # row `div(a, b)` (float), b = 0: the formula: d/da = 1/b = +inf, d/db = -(a/b)/b = -inf (a = 1)
        rows.append(_row(f"div by zero ({s})", "wp.div({0}, {1})", t2, [(1.0, 0.0)], [[INF, -INF]]))

        # header note: integer-typed overloads never propagate gradients (no-op adjoints); in a
        # differentiated kernel they only scale the float gradient: d/dx = abs(k) + min(k, j) +
        # max(k, j) + clamp(k, j, 4)
        rows.append(_row(f"integer overloads in a differentiated kernel ({s})",
                         f"wp.{t.__name__}(wp.abs({{0}}) + wp.min({{0}}, {{1}}) + wp.max({{0}}, {{1}}) "
                         "+ wp.clamp({0}, {1}, 4)) * {2}", (i32, i32, t),
                         [(-3, 2, 1.5), (5, 1, -0.5), (0, 0, 2.0), (2, 2, 1.0)],
                         [[3 - 3 + 2 + 2], [5 + 1 + 5 + 4], [0.0], [2 + 2 + 2 + 2]], out_type=t))

        # registry docs (length, normalize), not the table: the gradient at the zero vector is 0
        for n in (2, 3, 4):
            vt = vec(n, t)
            rows.append(_row(f"length of the zero vector ({tname(vt)})", "wp.length({0})", (vt,), [([0.0] * n,)],
                             [np.zeros((1, n))], out_type=t))
            rows.append(_row(f"normalize of the zero vector ({tname(vt)})", "wp.normalize({0})", (vt,),
                             [([0.0] * n,)], [np.zeros((n, n))]))
        qt = quat(t)
        rows.append(_row(f"length of the zero quaternion ({tname(qt)})", "wp.length({0})", (qt,), [([0.0] * 4,)],
                         [np.zeros((1, 4))], out_type=t))
        rows.append(_row(f"normalize of the zero quaternion ({tname(qt)})", "wp.normalize({0})", (qt,),
                         [([0.0] * 4,)], [np.zeros((4, 4))]))
        # abs of a vector: componentwise, +1 at 0 components (table row `abs(x)`, via vec.h)
        vt = vec(3, t)
        rows.append(_row(f"abs at 0 componentwise ({tname(vt)})", "wp.abs({0})", (vt,), [([0.0, -0.0, -2.0],)],
                         [np.diag([1.0, 1.0, -1.0])]))
    # Notes: `half` overloads compute the adjoint in float32 and follow the same table
    h1, h2, h3 = (wp.float16,), (wp.float16,) * 2, (wp.float16,) * 3
    rows += [
        _row("abs at 0 (float16)", "wp.abs({0})", h1, [(0.0,), (-0.0,)], [[1.0]]),  # row `abs(x)`
        _row("min tie (float16)", "wp.min({0}, {1})", h2, [(1.25, 1.25)], [[0.0, 1.0]]),  # row `min(a, b)`
        _row("max tie (float16)", "wp.max({0}, {1})", h2, [(1.25, 1.25)], [[0.0, 1.0]]),  # row `max(a, b)`
        _row("clamp at its bounds (float16)", "wp.clamp({0}, {1}, {2})", h3,  # row `clamp`
             [(-1.0, -1.0, 2.0), (2.0, -1.0, 2.0)], [[1.0, 0.0, 0.0]]),
        _row("sqrt at 0 (float16)", "wp.sqrt({0})", h1, [(0.0,)], [[0.0]]),  # row `sqrt(x)`
        _row("asin at |x| >= 1 (float16)", "wp.asin({0})", h1, [(1.0,), (-1.0,), (1.5,)], [[0.0]]),  # row `asin`
        _row("atan2 at the origin (float16)", "wp.atan2({0}, {1})", h2, [(0.0, 0.0)], [[0.0, 0.0]]),  # `atan2`
        _row("frac at integers (float16)", "wp.frac({0})", h1, [(3.0,), (-2.0,)], [[1.0]]),  # row `frac`
    ]
    return rows


SUBGRADIENT_ROWS = subgradient_rows()


@pytest.fixture(scope="module")
def subgradient_results(tmp_path_factory):
    rows = [r for r in SUBGRADIENT_ROWS if r.id not in KNOWN_BROKEN_GRADIENTS]
    return check_cases(rows, tmp_path_factory.mktemp("subgradients"), "subgradients", per_kernel=40)


@pytest.mark.needs_cxx
@pytest.mark.parametrize("row_id", [r.id for r in SUBGRADIENT_ROWS if r.id not in KNOWN_BROKEN_GRADIENTS])
def test_subgradient(row_id, subgradient_results):
    """The adjoint at a kink or singular point is the value docs/subgradients.md documents."""
    errors = subgradient_results[row_id]
    case = next(r for r in SUBGRADIENT_ROWS if r.id == row_id)
    assert not errors, f"{row_id}:\n" + "\n".join(errors) + "\n\nreproducer:\n" + reproducer(case)


@pytest.mark.needs_cxx
def test_min_max_of_one_vector_at_a_tie(tmp_path):
    """min(v) / max(v) with tied components (not in the table): a valid subgradient sends the
    whole gradient to one component holding the extreme value (one-hot)."""
    rows = []
    for fn in ("min", "max"):
        for t in (f32, f64):
            vt = vec(4, t)
            ext = -1.0 if fn == "min" else 3.0
            rows.append(_row(f"{fn}(v) tie ({tname(vt)})", f"wp.{fn}({{0}})", (vt,),
                             [([ext, 0.5, ext, 1.0],), ([0.5, ext, 1.0, ext],), ([ext] * 4,)],
                             [np.zeros((1, 4))], out_type=t))
    results = {}
    text = bc.KernelModule([[r.as_case() for r in rows]])
    module = bc.import_source(tmp_path / "vec_ties.py", text.source())
    batch = _Batch(module.k0, rows)
    jac = batch.adjoint_jacobians()
    for ci, r in enumerate(rows):
        v = _rows(batch.arrays[ci]["a0"])
        for p in range(3):
            g = jac[ci][p, 0]
            ext = v[p].min() if r.id.startswith("min") else v[p].max()
            ok = np.count_nonzero(g) == 1 and g.sum() == 1.0 and v[p][np.argmax(g)] == ext
            if not ok:
                results[f"{r.id} point {p}"] = f"gradient {g} for v = {v[p]}"
    assert not results, results
