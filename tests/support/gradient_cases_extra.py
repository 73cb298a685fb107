"""Hand-written gradient cases (see gradient_cases.py) for builtins the generic instantiation cannot
express: the builtins with several results (svd3, svd2, qr3, eig3, quat_to_axis_angle; both the tuple form and
the output-argument form) and the noise functions (their first argument is a uint32 state)."""

from __future__ import annotations

import numpy as np

from warp_nb.builtins import registry as R
from warp_nb.builtins.registry import BUILTINS

from tests.support import builtin_cases as bc
from tests.support.gradient_cases import P, GradCase, uni

f32, f64 = bc.f32, bc.f64


def _well_separated(t, rng, symmetric: bool):
    """Matrices 2 I + diag(0, 1, 2 ...) + noise: distinct, well separated singular values (and
    eigenvalues of the symmetric part), so that every result is a smooth function of the input."""
    n = t._shape_[0]
    m = np.eye(n) * 2 + np.diag(np.arange(n) * 1.5) + rng.uniform(-0.3, 0.3, (P, n, n))
    if symmetric:
        m = (m + np.transpose(m, (0, 2, 1))) / 2
    return m.astype(bc.np_dtype(t))


def decomposition_cases(name: str, rng) -> list:
    b = BUILTINS[name]
    cases = []
    for k, o in enumerate(b.overloads):
        for scalar in (f32, f64):
            binding = {"T": scalar}
            in_t = o.params[0].build(binding)
            out_ts = [p.build(binding) for p in o.outputs]
            if bc.kind(in_t) == "quaternion":  # quat_to_axis_angle: unit quaternions, both signs of w
                a = bc.unit_quats(rng, P).astype(bc.np_dtype(in_t))
            elif name == "transform_decompose":  # translation, rotation and scale (0.5 .. 2)
                from tests.support.builtin_values import _compose
                a = np.array([_compose(rng.uniform(-2, 2, 3), q, rng.uniform(0.5, 2.0, 3))
                              for q in bc.unit_quats(rng, P)]).astype(bc.np_dtype(in_t))
            else:
                a = _well_separated(in_t, rng, symmetric=name == "eig3")
            params = [bc.Param("a", in_t, a, (P,))] + [bc.Param(f"o{j}", t, None, (P,)) for j, t in enumerate(out_ts)]
            outs = tuple(f"o{j}" for j in range(len(out_ts)))
            for form in ("tuple", "output arguments"):
                def body(names, form=form, out_ts=out_ts):
                    vs = [f"r{j}" for j in range(len(out_ts))]
                    stores = "; ".join(f"{names[f'o{j}']}[i] = {v}" for j, v in enumerate(vs))
                    if form == "tuple":
                        return f"{', '.join(vs)} = wp.{name}({names['a']}[i]); {stores}"
                    decls = "; ".join(f"{v} = wp.{bc.tname(t)}()" for v, t in zip(vs, out_ts))
                    return f"{decls}; wp.{name}({names['a']}[i], {', '.join(vs)}); {stores}"
                cid = f"{name}({bc.tname(in_t)}) {form}"
                cases.append(GradCase(cid, name, [bc.Param(p.key, p.type, None if p.data is None else p.data.copy(),
                                                           p.shape) for p in params],
                                      body, ("a",), outs, scalar, covers=((name, k),), tol=10.0))
    return cases


def noise_cases(name: str, rng) -> list:
    """d noise / d x against finite differences, with a fixed state; periods, octaves, lacunarity and
    gain are constants of the kernel text (they get no gradient)."""
    b = BUILTINS[name]
    cases = []
    for k, o in enumerate(b.overloads):
        x_t = o.params[1].build({})
        extra = {2: "", 3: ", 3", 4: ", 3, 4", 5: ", 3, 4, 5", 6: ", 3, 4, 5, 6"}[len(o.params)] if name == "pnoise" \
            else (", wp.uint32(2), 2.0, 0.5" if len(o.params) == 5 else "")
        res = R.resolve(b, [p.build({}) for p in o.params])
        x = uni(x_t, rng, -3.0, 3.0)
        params = [bc.Param("x", x_t, x, (P,)), bc.Param("out", res.result, None, (P,))]

        def body(names, extra=extra):
            return f"{names['out']}[i] = wp.{name}(wp.uint32(7), {names['x']}[i]{extra})"
        cases.append(GradCase(f"{name}(uint32, {bc.tname(x_t)}{extra})", name, params, body, ("x",), ("out",), f32,
                              covers=((name, k),), tol=10.0))
    return cases


def euler_cases(name: str, rng) -> list:
    """quat_from_euler / quat_to_euler for every rotation sequence (constants of the kernel text), away
    from gimbal lock."""
    from tests.support.builtin_values import _euler_q
    cases = []
    for scalar in (f32, f64):
        v3, q = bc.vec(3, scalar), bc.quat(scalar)
        for seq in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
            e = rng.uniform(-2.5, 2.5, (P, 3))
            e[:, seq[1]] = rng.uniform(-1.2, 1.2, P)
            if name == "quat_from_euler":
                in_t, out_t, x = v3, q, e
            else:
                in_t, out_t, x = q, v3, np.array([_euler_q(row, *seq) for row in e])
            params = [bc.Param("x", in_t, x.astype(bc.np_dtype(in_t)), (P,)), bc.Param("out", out_t, None, (P,))]

            def body(names, seq=seq):
                return f"{names['out']}[i] = wp.{name}({names['x']}[i], {seq[0]}, {seq[1]}, {seq[2]})"
            cases.append(GradCase(f"{name}({bc.tname(in_t)}, {seq})", name, params, body, ("x",), ("out",), scalar,
                                  covers=((name, 0),), tol=10.0))
    return cases
