"""What the gradient tests differentiate (tests/test_builtin_gradients.py, tests/test_subgradients.py):
every overload of every builtin with `differentiable=True`, instantiated with float types
(builtin_cases supplies the instantiation), each in a domain without kinks or singularities,
the builtins without a plain signature (matrix constructors, atomics) by hand, and the
precisions and tolerances the comparison uses. KNOWN_BROKEN_GRADIENTS lists the cases that fail
because of a bug in warp_nb (run as strict expected failures)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import warp_nb as wp
from warp_nb import types as T
from warp_nb.builtins import registry as R
from warp_nb.builtins.registry import BUILTINS

from tests.support import builtin_cases as bc

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
    """A float scalar, vector or matrix type (arrays, textures and other handles are not)."""
    if isinstance(t, R.ArrayType) or not (T.is_scalar_type(t) or hasattr(t, "_wp_scalar_type_")):
        return False
    return elem(t)._kind == "float"


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
    """Rotation matrices on which Shepperd's branch (native/core/quat.h: trace > 0, else the largest
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
    """a = b f with |f| in [0.1, 0.9]: a / b away from integers, and |a| < |b|, where the true d/db of
    mod (-trunc(a/b)) is 0 as Warp's chosen gradient is everywhere (docs/subgradients.md); scalars or
    vectors (componentwise)."""
    b = away0(types[1], rng, 0.5, 2.0)
    f = rng.uniform(0.1, 0.9, b.shape) * rng.choice([-1.0, 1.0], b.shape)
    return [(b * f).astype(b.dtype), b]


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


def _quats_w_positive(t, rng):
    """Unit quaternions with w > 0.2: away from the twist angle's jump (atan2's branch cut)."""
    q = bc.unit_quats(rng, P)
    q[:, 3] = np.maximum(np.abs(q[:, 3]), 0.2)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(bc.np_dtype(t))


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
    "lerp": dom_lerp, "pow": dom_pow, "div": dom_divide, "div_approx": dom_divide, "cw_div": dom_divide, "mod": dom_mod,
    "floordiv": dom_mod, "normalize": dom_normalize, "length": dom_normalize,
    "inverse": dom_matrix, "inverse_approx": dom_matrix, "determinant": dom_matrix, "quat_from_matrix": dom_quat_from_matrix,
    "quat_slerp": dom_slerp, "where": dom_cond, "select": dom_cond,
    "quat_from_axis_angle": lambda types, rng: [uni(types[0], rng), uni(types[1], rng, -4.0, 4.0)],
    "quat_rpy": dom_uniform(-3.0, 3.0),
    "quat_twist_angle": lambda types, rng: [uni(types[0], rng), _quats_w_positive(types[1], rng)],
    "quat_twist_angle_signed": lambda types, rng: [uni(types[0], rng), _quats_w_positive(types[1], rng)],
    "erfc": dom_uniform(-2.5, 2.5), "erfinv": dom_uniform(-0.9, 0.9), "erfcinv": dom_uniform(0.1, 1.9),
    "copysign": dom_away0, "norm_l1": dom_away0, "norm_l2": dom_normalize,
    **{n: (lambda types, rng: [uni(types[0], rng)] + [uni(t, rng, 0.5, 3.0) for t in types[1:]])
       for n in ("norm_huber", "norm_pseudo_huber", "smooth_normalize")},
}

#: piecewise constant builtins: the Jacobian is 0 (and the finite differences too)
CONSTANT = {"floor", "ceil", "trunc", "round", "rint", "step", "nonzero", "sign", "floordiv"}

#: tolerance multipliers (conditioning, long formulas in float32)
TOL = {"inverse": 10.0, "inverse_approx": 10.0, "determinant": 4.0, "quat_slerp": 10.0, "quat_from_matrix": 10.0}

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

#: builtins with several results (svd3 ...) and the noise functions (a uint32 state argument):
#: hand-written cases in gradient_cases_extra.py
MULTI_RESULT_NAMES = {n for n, b in BUILTINS.items() if any(o.outputs for o in b.overloads)}
NOISE_NAMES = {"noise", "pnoise", "curlnoise"}
SPECIAL_NAMES = {"matrix_from_rows", "matrix_from_cols", "identity", "quat_identity", "transform_identity"}
ATOMIC_NAMES = set(ATOMIC_VALUE_TYPES)
#: differentiable builtins: every one gets gradient cases (printf/tid/static are not differentiable)
#: geometry queries need a live wp.Mesh / wp.Volume handle: tests/geometry/test_gradients.py checks them
# geometry and tile builtins have their gradients checked against finite differences in their own
# files (tests/e2e/geometry, tests/e2e/test_tile*.py): their inputs are meshes, volumes and tiles
#: (geometry, tile and texture builtins take handles or tiles, not float values: their gradients are
#: checked against finite differences in their own tests, e.g. tests/e2e/textures)
# differentiable builtins whose gradients are checked by a dedicated test instead of a generated case
GRAD_ELSEWHERE = {
    "index": "tests/e2e/test_python_scope_builtins.py (wp.index of a matrix, a vector and a transform; "
             "its gradient against the read's coefficients)",
}
GRAD_NAMES = sorted(n for n, b in BUILTINS.items()
                    if b.differentiable and b.category not in ("geometry", "tile", "textures") and n not in GRAD_ELSEWHERE)


def grad_cases(name: str) -> list:
    """Every gradient case of builtin `name` (deterministic: the inputs depend only on the name)."""
    rng = np.random.default_rng(12345 + bc._stable(name))
    if name in SPECIAL_NAMES:
        return special_cases(name, rng)
    if name in ATOMIC_NAMES:
        return atomic_cases(name, rng)
    if name in MULTI_RESULT_NAMES or name in NOISE_NAMES or name in ("quat_from_euler", "quat_to_euler"):
        from tests.support import gradient_cases_extra as extra  # builds on this module
        if name in MULTI_RESULT_NAMES:
            return extra.decomposition_cases(name, rng)
        return extra.noise_cases(name, rng) if name in NOISE_NAMES else extra.euler_cases(name, rng)
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
    """quat_slerp's series branch (native/core/quat.h: 1 - dot(a, normalize(b)) < 1e-6): b at about
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


# --- known bugs ------------------------------------------------------------------------------------

#: Gradient cases that fail because of a bug in warp_nb or a native header (case id -> reason).
#: They are left out of test_gradients and run one by one as strict expected failures in
#: test_known_broken_gradient: when a fix makes one pass, the run fails with XPASS; then remove
#: its entry. Subgradient rows (SUBGRADIENT_ROWS ids) may be listed here too.
KNOWN_BROKEN_GRADIENTS: dict = {
    # empty: the atomic_min/atomic_max adjoints on 2-4-D arrays and on vector values (compared
    # componentwise, as the forward pass updates them) were fixed after these tests found them
}
