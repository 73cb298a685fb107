"""The hand-written cases of the registry-driven builtin tests (see builtin_cases.py): builtins
whose behaviour the generic instantiation cannot express (len, atomics on scalars, vectors and
matrices, contended and reduction atomics, the random-number generators against a Python
reference of the same algorithm, statistical checks of the samplers, special forms) and
documented edge cases. builtin_cases.all_cases merges them with the generic cases."""

from __future__ import annotations

import math

import numpy as np

import warp_nb as wp
from warp_nb.builtins import registry as R
from warp_nb.builtins.registry import BUILTINS

from tests.support.builtin_cases import Case, Param, _show, _stable, values_close
from tests.support.builtin_values import (
    N, c_div, elem, f32, f64, gen_value, i32, i64, inner_shape, kind, mat, np_dtype, quat, ref_draw,
    ref_rand_init, tname, u32, vec, wrap_int, xform,
)


def covers_of(name: str, arg_types) -> tuple:
    b = BUILTINS[name]
    res = R.resolve(b, list(arg_types))
    return ((name, b.overloads.index(res.overload)),) if res is not None else ()


def _as_ref_array(a, t):
    """A whole numpy array as reference values (object ints for integer types)."""
    return a.astype(object) if elem(t)._kind in ("int", "uint") else a.astype(np.float64)


ARRAY_SHAPES = {1: (16,), 2: (4, 4), 3: (2, 2, 4), 4: (2, 2, 2, 2)}


def _unravel(shape) -> str:
    """Index expressions for thread i of a 1-D launch over an array of `shape` (row-major)."""
    out, stride = [], 1
    for n in reversed(shape):
        out.append(f"(i // {stride}) % {n}" if stride > 1 else f"i % {n}")
        stride *= n
    out = list(reversed(out))
    out[0] = f"i // {stride // shape[0]}" if len(shape) > 1 else "i"
    return ", ".join(out)


def len_cases() -> list:
    cases = []
    rng = np.random.default_rng(7)
    for ndim, (t, shape) in {1: (f32, (5,)), 2: (vec(3, f32), (3, 4)), 3: (i32, (2, 3, 4)),
                             4: (f64, (6, 1, 1, 2))}.items():
        data = gen_value(t, rng, int(np.prod(shape))).reshape(shape + inner_shape(t))
        for form in ("call", "op"):
            def body(names, form=form):
                return f"{names['out']}[i] = {'wp.len' if form == 'call' else 'len'}({names['arr']})"

            def check(res, n=shape[0]):
                return [] if np.all(res["out"] == n) else [f"got {res['out']}, expected {n} everywhere"]
            cid = f"len(array(dtype={tname(t)}, ndim={ndim}))" + ("@op" if form == "op" else "")
            cases.append(Case(cid, "len", [Param("arr", t, data), Param("out", i32)], body, check,
                              covers=covers_of("len", [wp.array(dtype=t, ndim=ndim)])))
    return cases


ATOMIC_TYPES = {
    "atomic_add": [f32, f64, i32, u32, i64, vec(3, f32), vec(2, i32), mat((2, 2), f64)],
    "atomic_min": [f32, f64, i32, u32, i64, vec(3, f32), vec(2, i32)],
    "atomic_cas": [f32, f64, i32, u32, i64],
}
ATOMIC_TYPES["atomic_sub"] = ATOMIC_TYPES["atomic_add"]
ATOMIC_TYPES["atomic_max"] = ATOMIC_TYPES["atomic_min"]
ATOMIC_TYPES["atomic_exch"] = ATOMIC_TYPES["atomic_cas"]


def _atomic_apply(op, old, v, cmp=None):
    if op == "atomic_add":
        return old + v
    if op == "atomic_sub":
        return old - v
    if op == "atomic_min":
        return np.minimum(old, v) if old.dtype != object else np.where(old < v, old, v)
    if op == "atomic_max":
        return np.maximum(old, v) if old.dtype != object else np.where(old > v, old, v)
    if op == "atomic_exch":
        return v
    if op == "atomic_cas":
        return np.where(old == cmp, v, old)
    raise ValueError(op)


def atomic_cases(op: str) -> list:
    """Each thread updates its own element (old value and result exact), for 1- to 4-D arrays,
    plus 16 threads contending for 4 elements (final values; the old values must chain)."""
    cases = []
    rng = np.random.default_rng(_stable(op))
    for t in ATOMIC_TYPES[op]:
        for ndim in ((1, 2, 3, 4) if t in (f32, i32) else (1, 3)):  # every ndim for two types
            shape = ARRAY_SHAPES[ndim]
            init = gen_value(t, rng).reshape(shape + inner_shape(t))
            val = gen_value(t, rng)
            params = [Param("arr", t, init), Param("val", t, val), Param("old", t)]
            cmp = None
            if op == "atomic_cas":
                cmp = init.reshape((N,) + inner_shape(t)).copy()
                cmp[1::2] = cmp[1::2] + 1  # odd threads compare with a different value: no store
                params.insert(2, Param("cmp", t, cmp))
            idx = _unravel(shape)
            arg_types = [wp.array(dtype=t, ndim=ndim)] + [i32] * ndim + [t] * (2 if op == "atomic_cas" else 1)
            forms = ["call"] + (["op"] if op in ("atomic_add", "atomic_sub") else [])
            for form in forms:
                def body(names, idx=idx, form=form):
                    if form == "op":
                        return f"{names['arr']}[{idx}] {'+' if op == 'atomic_add' else '-'}= {names['val']}[i]"
                    args = f"{names['cmp']}[i], {names['val']}[i]" if op == "atomic_cas" else f"{names['val']}[i]"
                    return f"{names['old']}[i] = wp.{op}({names['arr']}, {idx}, {args})"

                def check(res, t=t, init=init, val=val, cmp=cmp, form=form):
                    errors = []
                    flat_init = init.reshape((N,) + inner_shape(t))
                    if form == "call" and not np.array_equal(res["old"], flat_init, equal_nan=True):
                        errors.append(f"old values {res['old'].tolist()} != initial {flat_init.tolist()}")
                    exp = _atomic_apply(op, _as_ref_array(flat_init, t), _as_ref_array(val, t),
                                        None if cmp is None else _as_ref_array(cmp, t))
                    got = res["arr"].reshape((N,) + inner_shape(t))
                    bad = [i for i in range(N) if not values_close(got[i], exp[i], t)]
                    if bad:
                        errors.append("final values wrong at " + ", ".join(
                            f"{i}: got {_show(got[i])}, expected {_show(exp[i])}" for i in bad[:4]))
                    return errors
                cid = f"{op}(array(dtype={tname(t)}, ndim={ndim}))" + ("@op" if form == "op" else "")
                cases.append(Case(cid, op, [Param(p.key, p.type, None if p.data is None else p.data.copy(), p.shape)
                                             for p in params], body, check, covers=covers_of(op, arg_types)))
    cases += _contended_atomic_cases(op, rng)
    return cases


def _contended_atomic_cases(op, rng) -> list:
    cases = []
    for t in ATOMIC_TYPES[op]:
        scalar = kind(t) == "scalar"
        init = gen_value(t, rng, 4)
        if scalar and t._kind != "float":
            # distinct powers of two: every partial sum is distinct, so the old values must chain
            val = np.array([1 << (i // 4) for i in range(N)], dtype=np_dtype(t))
            if op in ("atomic_exch", "atomic_cas"):
                val = np.arange(100, 100 + N).astype(np_dtype(t))
        else:
            val = gen_value(t, rng) if op not in ("atomic_exch", "atomic_cas") else \
                (0.5 + np.arange(N)).astype(np_dtype(t))
        params = [Param("arr", t, init.copy()), Param("val", t, val), Param("old", t)]
        if op == "atomic_cas":
            cmp = init[np.arange(N) % 4]
            params.insert(2, Param("cmp", t, cmp))

        def body(names):
            args = f"{names['cmp']}[i], {names['val']}[i]" if op == "atomic_cas" else f"{names['val']}[i]"
            return f"{names['old']}[i] = wp.{op}({names['arr']}, i % 4, {args})"

        def check(res, t=t, init=init, val=val):
            errors = []
            for s in range(4):
                threads = [i for i in range(N) if i % 4 == s]
                vs = [_as_ref_array(val[i], t) for i in threads]
                olds = [res["old"][i] for i in threads]
                final = res["arr"][s]
                start = _as_ref_array(init[s], t)
                if op in ("atomic_add", "atomic_sub", "atomic_min", "atomic_max"):
                    exp = start
                    for v in vs:
                        exp = _atomic_apply(op, np.asarray(exp), np.asarray(v))
                    if not values_close(final, exp, t, 4.0):
                        errors.append(f"slot {s}: final {_show(final)}, expected {_show(exp)}")
                if op in ("atomic_add", "atomic_sub") and scalar and t._kind in ("int", "uint"):
                    news = [_atomic_apply(op, np.asarray(o, dtype=object), np.asarray(v)) for o, v in zip(olds, vs)]
                    errors += _chain(s, start, threads, olds, news, final, t)
                if op == "atomic_exch":
                    errors += _chain(s, start, threads, olds, vs, final, t)
                if op == "atomic_cas":
                    winners = [k for k, o in enumerate(olds) if o == init[s]]
                    if len(winners) != 1:
                        errors.append(f"slot {s}: {len(winners)} threads saw the initial value (expected 1)")
                    elif final != val[threads[winners[0]]] or any(o != final for k, o in enumerate(olds)
                                                                  if k != winners[0]):
                        errors.append(f"slot {s}: final {final}, olds {olds}, values {vs}")
            return errors
        cid = f"{op}(array(dtype={tname(t)}, ndim=1)) contended"
        cases.append(Case(cid, op, params, body, check,
                          covers=covers_of(op, [wp.array(dtype=t)] + [i32] + [t] * (2 if op == "atomic_cas" else 1))))
    return cases


REDUCTION_TYPES = [f32, f64, i32, u32, i64, vec(3, f32), mat((2, 2), f64)]


def reduction_cases(op: str) -> list:
    """atomic_add/atomic_sub into constant elements with the result unused (`a[0] += x`): the
    CPU code privatises these (partial sums per chunk); 1-D launches of a size that is no
    multiple of the 16 lanes, a 2-D launch, and two reductions into one array."""
    rng = np.random.default_rng(_stable(op) + 1)
    sign = 1 if op == "atomic_add" else -1
    sym = "+" if op == "atomic_add" else "-"
    cases = []
    for t in REDUCTION_TYPES:
        for dim in (1001, (37, 5)):
            count = int(np.prod(dim))
            val = gen_value(t, rng, count)
            init = gen_value(t, rng, 6).reshape((2, 3) + inner_shape(t))
            two_d = isinstance(dim, tuple)
            forms = ("call", "op") if not two_d else ("op",)
            for form in forms:
                def body(names, form=form, two_d=two_d):
                    v = f"{names['val']}[i * 5 + j]" if two_d else f"{names['val']}[i]"
                    if form == "op":
                        return f"{names['arr']}[1, 2] {sym}= {v}\n{names['arr']}[0, 0] {sym}= {v}"
                    return f"wp.{op}({names['arr']}, 1, 2, {v})\nwp.{op}({names['arr']}, 0, 0, {v})"

                def check(res, t=t, init=init, val=val):
                    v = _as_ref_array(val, t)
                    total = v.sum(axis=0)
                    got = res["arr"]
                    errors = []
                    scale = np.abs(val.astype(np.float64)).sum(axis=0) if elem(t)._kind == "float" else 0
                    for (r, c) in ((1, 2), (0, 0)):
                        exp = _as_ref_array(init[r, c], t) + sign * total
                        tol = {f32: 2e-6, f64: 1e-14}.get(elem(t), 0) * (np.max(scale) + 1)
                        ok = values_close(got[r, c], exp, t) if not tol else \
                            bool(np.all(np.abs(got[r, c].astype(np.float64) - exp.astype(np.float64)) <= tol))
                        if not ok:
                            errors.append(f"element [{r}, {c}]: got {_show(got[r, c])}, expected {_show(exp)}")
                    untouched = [(r, c) for r in range(2) for c in range(3) if (r, c) not in ((1, 2), (0, 0))
                                 and not np.array_equal(got[r, c], init[r, c])]
                    if untouched:
                        errors.append(f"elements {untouched} changed")
                    return errors
                arr = Param("arr", t, init.copy())
                cid = (f"{op}(array(dtype={tname(t)}, ndim=2)) reduction into constants, dim={dim}"
                       + ("@op" if form == "op" else ""))
                cases.append(Case(cid, op, [arr, Param("val", t, val)], body, check, dim=dim,
                                  covers=covers_of(op, [wp.array(dtype=t, ndim=2), i32, i32, t])))
    return cases


def _chain(slot, start, threads, olds, news, final, t) -> list:
    """The old values seen by the threads of one slot must form one chain init -> ... -> final."""
    bits = np_dtype(t).itemsize * 8
    norm = (lambda v: wrap_int(int(v), bits, t._kind == "int")) if t._kind != "float" else float
    pending = list(range(len(threads)))
    cur = norm(start)
    for _ in range(len(threads)):
        nxt = [k for k in pending if norm(olds[k]) == cur]
        if not nxt:
            return [f"slot {slot}: the old values {[norm(o) for o in olds]} do not chain from {norm(start)}"]
        pending.remove(nxt[0])
        cur = norm(news[nxt[0]])
    return [] if cur == norm(final) else [f"slot {slot}: chain ends at {cur}, array holds {final}"]


def rand_init_cases() -> list:
    rng = np.random.default_rng(11)
    seeds = rng.integers(-2 ** 31, 2 ** 31, N).astype(np.int32)
    offsets = rng.integers(-1000, 1000, N).astype(np.int32)
    cases = []
    for nargs in (1, 2):
        def body(names, nargs=nargs):
            args = names["seed"] + "[i]" + (f", {names['off']}[i]" if nargs == 2 else "")
            return f"{names['out']}[i] = wp.rand_init({args})"

        def check(res, nargs=nargs):
            exp = [ref_rand_init(int(s), int(o) if nargs == 2 else None) for s, o in zip(seeds, offsets)]
            return [] if res["out"].tolist() == exp else [f"got {res['out'].tolist()}, expected {exp}"]
        params = [Param("seed", i32, seeds), Param("off", i32, offsets), Param("out", u32)]
        cases.append(Case(f"rand_init({', '.join(['int32'] * nargs)})", "rand_init", params, body, check,
                          covers=covers_of("rand_init", [i32] * nargs)))
    return cases


def draw_cases(name: str) -> list:
    """Two draws from a given state: values follow the documented algorithm and the state
    argument is advanced in place."""
    rng = np.random.default_rng(_stable(name))
    states = rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
    rtype = {"randu": u32, "randi": i32, "randf": f32, "randn": f32}[name]
    variants = [()]
    if name in ("randu", "randi", "randf"):
        if name == "randf":
            lo = rng.uniform(-3, 0, N).astype(np.float32)
            hi = rng.uniform(0.5, 3, N).astype(np.float32)
        elif name == "randi":
            lo = rng.integers(-100, 0, N).astype(np.int32)
            hi = rng.integers(-50, 100, N).astype(np.int32)   # some hi <= lo: returns lo
            hi[0], lo[1], hi[1] = lo[0], -2 ** 31, 2 ** 31 - 1
        else:
            lo = rng.integers(0, 100, N).astype(np.uint32)
            hi = rng.integers(50, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
            hi[0] = lo[0]
        variants.append((lo, hi))
    bound_t = {"randu": u32, "randi": i32, "randf": f32}.get(name)
    cases = []
    for bounds in variants:
        params = [Param("state", u32, states), Param("out1", rtype), Param("out2", rtype), Param("after", u32)]
        if bounds:
            params += [Param("lo", bound_t, bounds[0]), Param("hi", bound_t, bounds[1])]

        def body(names, bounds=bounds):
            extra = f", {names['lo']}[i], {names['hi']}[i]" if bounds else ""
            s = names["_"] + "s"
            return (f"{s} = {names['state']}[i]\n{names['out1']}[i] = wp.{name}({s}{extra})\n"
                    f"{names['out2']}[i] = wp.{name}({s}{extra})\n{names['after']}[i] = {s}")

        def check(res, bounds=bounds):
            errors = []
            for i in range(N):
                b = tuple(x[i].item() for x in bounds)
                st, v1 = ref_draw(name, int(states[i]), *b)
                st, v2 = ref_draw(name, st, *b)
                got = (res["out1"][i].item(), res["out2"][i].item(), int(res["after"][i]))
                if got[2] != st:
                    errors.append(f"element {i}: state after two draws {got[2]}, expected {st}")
                if not (values_close(got[0], v1, rtype, 3.0) and values_close(got[1], v2, rtype, 3.0)):
                    errors.append(f"element {i}: draws {got[:2]}, expected {(v1, v2)} (state {states[i]}, bounds {b})")
            return errors
        arg_types = [u32] + ([bound_t, bound_t] if bounds else [])
        cid = f"{name}({', '.join(tname(t) for t in arg_types)})"
        cases.append(Case(cid, name, params, body, check, covers=covers_of(name, arg_types)))
    return cases


STAT_N = 4096


def _stat_case(cid, name, arg_types, call, rtype, check, extra_params=()):
    params = [Param("out", rtype, None, (STAT_N,)), *extra_params]

    def body(names):
        s = names["_"] + "s"
        return f"{s} = wp.rand_init(1234, i)\n{names['out']}[i] = {call.format(s=s, **names)}"
    return Case(cid, name, params, body, check, dim=STAT_N, covers=covers_of(name, arg_types))


def _stats(cond_msgs):
    return [msg for ok, msg in cond_msgs if not ok]


def statistical_cases(name: str) -> list:
    """Distribution properties over 4096 threads (fixed seeds: deterministic)."""
    if name == "randf":
        def check(res):
            x = res["out"]
            return _stats([(x.min() >= 0 and x.max() < 1, f"range [{x.min()}, {x.max()}]"),
                           (abs(x.mean() - 0.5) < 0.02, f"mean {x.mean()}"),
                           (len(np.unique(x)) > STAT_N * 0.99, f"{len(np.unique(x))} distinct values")])
        return [_stat_case("randf(uint32) distribution", name, [u32], "wp.randf({s})", f32, check)]
    if name == "randn":
        def check(res):
            x = res["out"].astype(np.float64)
            return _stats([(abs(x.mean()) < 0.07, f"mean {x.mean()}"), (abs(x.std() - 1) < 0.06, f"std {x.std()}"),
                           (np.all(np.abs(x) <= 5.8), f"max |x| {np.abs(x).max()}")])
        return [_stat_case("randn(uint32) distribution", name, [u32], "wp.randn({s})", f32, check)]
    if name == "randi":
        def check(res):
            x = res["out"]
            return _stats([(x.min() >= -7 and x.max() < 9, f"range [{x.min()}, {x.max()}]"),
                           (set(np.unique(x).tolist()) == set(range(-7, 9)), "not every value drawn"),
                           (abs(x.mean() - 0.5) < 0.3, f"mean {x.mean()}")])
        return [_stat_case("randi(uint32, int32, int32) distribution", name, [u32, i32, i32], "wp.randi({s}, -7, 9)",
                           i32, check)]
    if name == "randu":
        def check(res):
            x = res["out"].astype(np.float64)
            return _stats([(abs(x.mean() / 2 ** 32 - 0.5) < 0.02, f"mean {x.mean() / 2 ** 32} of 2^32")])
        return [_stat_case("randu(uint32) distribution", name, [u32], "wp.randu({s})", u32, check)]
    if name == "poisson":
        cases = []
        for lam in (0.0, 3.5, 40.0):
            def check(res, lam=lam):
                x = res["out"].astype(np.float64)
                if lam == 0:
                    return [] if np.all(x == 0) else [f"lam 0 gave {np.unique(x)}"]
                return _stats([(abs(x.mean() - lam) < 5 * math.sqrt(lam / STAT_N), f"mean {x.mean()} (lam {lam})"),
                               (abs(x.var() / lam - 1) < 0.2, f"variance {x.var()} (lam {lam})")])
            lam_param = Param("lam", f32, np.full(STAT_N, lam, np.float32))
            cases.append(_stat_case(f"poisson(uint32, float32) lam={lam}", name, [u32, f32],
                                    "wp.poisson({s}, {lam}[i])", u32, check, [lam_param]))
        return cases
    return []


def _sampler_check(name):
    def check(res):
        p = res["out"].astype(np.float64)
        r = np.linalg.norm(p, axis=1)
        conds = []
        if name in ("sample_unit_sphere_surface", "sample_unit_hemisphere_surface", "sample_unit_ring"):
            conds.append((np.allclose(r, 1, atol=1e-5), f"|p| in [{r.min()}, {r.max()}]"))
        if name in ("sample_unit_sphere", "sample_unit_hemisphere", "sample_unit_disk"):
            conds.append((r.max() <= 1 + 1e-6, f"max |p| {r.max()}"))
            inner = np.mean(r < 0.5)
            expected = 0.25 if name == "sample_unit_disk" else 0.125
            conds.append((abs(inner - expected) < 0.03, f"fraction with |p| < 0.5 is {inner} (uniform: {expected})"))
        if "hemisphere" in name:
            conds.append((p[:, 2].min() >= 0, f"min z {p[:, 2].min()}"))
            conds.append((abs(p[:, 2].mean() - 0.5 * (1 if "surface" in name else 0.75)) < 0.03,
                          f"mean z {p[:, 2].mean()}"))
        if name in ("sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_ring", "sample_unit_disk"):
            conds.append((np.all(np.abs(p.mean(axis=0)) < 0.05), f"mean {p.mean(axis=0)}"))
        if name in ("sample_unit_square", "sample_unit_cube"):
            conds.append((p.min() >= -0.5 and p.max() < 0.5, f"range [{p.min()}, {p.max()}]"))
            conds.append((np.all(np.abs(p.mean(axis=0)) < 0.02), f"mean {p.mean(axis=0)}"))
            conds.append((np.all(np.abs(p.var(axis=0) - 1 / 12) < 0.01), f"variance {p.var(axis=0)}"))
        if name == "sample_triangle":
            conds.append((p.min() >= 0 and (p.sum(axis=1)).max() <= 1 + 1e-6, "outside the triangle"))
            conds.append((np.all(np.abs(p.mean(axis=0) - 1 / 3) < 0.02), f"mean {p.mean(axis=0)} (1/3 expected)"))
        conds.append((len(np.unique(p[:, 0])) > STAT_N * 0.95, "too few distinct samples"))
        return _stats(conds)
    return check


def sampler_cases(name: str) -> list:
    rtype = BUILTINS[name].overloads[0].result
    cases = [_stat_case(f"{name}(uint32) distribution", name, [u32], f"wp.{name}({{s}})", rtype, _sampler_check(name))]

    # the state is advanced: two samples in a row differ
    def body(names):
        s = names["_"] + "s"
        return (f"{s} = wp.rand_init(99, i)\n{names['a']}[i] = wp.{name}({s})\n{names['b']}[i] = wp.{name}({s})")

    def check(res):
        same = [i for i in range(N) if np.array_equal(res["a"][i], res["b"][i])]
        return [f"two samples in a row are equal at {same}: the state is not advanced"] if same else []
    cases.append(Case(f"{name}(uint32) advances the state", name, [Param("a", rtype), Param("b", rtype)], body, check,
                      covers=covers_of(name, [u32])))
    return cases


def special_form_cases(name: str) -> list:
    cases = []
    rng = np.random.default_rng(_stable(name))

    def const_case(cid, call, rtype, expected):
        def body(names):
            return f"{names['out']}[i] = {call}"

        def check(res):
            bad = [i for i in range(N) if not values_close(res["out"][i], expected, rtype, 0.0)]
            return [f"got {_show(res['out'][bad[0]])}, expected {_show(expected)}"] if bad else []
        return Case(cid, name, [Param("out", rtype)], body, check, covers=((name, None),))

    if name == "identity":
        for call, n, t in (("wp.identity(n=3, dtype=wp.float64)", 3, f64), ("wp.identity(2, wp.float32)", 2, f32),
                           ("wp.identity(4)", 4, f32), ("wp.identity(3, dtype=float)", 3, f32)):
            cases.append(const_case(call, call, mat((n, n), t), np.eye(n)))
    elif name in ("quat_identity", "transform_identity"):
        exp = [0, 0, 0, 1] if name == "quat_identity" else [0, 0, 0, 0, 0, 0, 1]
        factory = quat if name == "quat_identity" else xform
        for call, t in ((f"wp.{name}()", f32), (f"wp.{name}(dtype=wp.float64)", f64), (f"wp.{name}(wp.float64)", f64)):
            cases.append(const_case(call, call, factory(t), np.array(exp, float)))
    elif name in ("matrix_from_rows", "matrix_from_cols"):
        for k, n, t in ((2, 3, f32), (3, 2, f64), (4, 4, f32), (3, 3, f64)):
            vt = vec(n, t)
            inputs = [gen_value(vt, rng) for _ in range(k)]
            rtype = mat((k, n) if name.endswith("rows") else (n, k), t)

            def body(names, k=k):
                return f"{names['out']}[i] = wp.{name}({', '.join(names[f'a{j}'] + '[i]' for j in range(k))})"

            def check(res, inputs=inputs, rtype=rtype):
                errors = []
                for i in range(N):
                    m = np.stack([x[i] for x in inputs]).astype(np.float64)
                    exp = m if name.endswith("rows") else m.T
                    if not values_close(res["out"][i], exp, rtype, 0.0):
                        errors.append(f"element {i}: got {_show(res['out'][i])}, expected {_show(exp)}")
                return errors
            params = [Param(f"a{j}", vt, inputs[j]) for j in range(k)] + [Param("out", rtype)]
            cid = f"{name}({', '.join([tname(vt)] * k)})"
            cases.append(Case(cid, name, params, body, check, covers=((name, None),)))
    elif name == "tid":
        for dims in ((4, 4), (2, 2, 4), (2, 2, 2, 2)):
            names_ = "ijkl"[:len(dims)]

            def body(names, names_=names_):
                return f"{names['out']}[{', '.join(names_)}] = " + " + ".join(
                    f"{v} * {10 ** (len(names_) - 1 - k)}" for k, v in enumerate(names_))

            def check(res, dims=dims):
                idx = np.indices(dims)
                exp = sum(idx[k] * 10 ** (len(dims) - 1 - k) for k in range(len(dims)))
                return [] if np.array_equal(res["out"], exp) else [f"got {res['out'].tolist()}"]
            cases.append(Case(f"tid() {len(dims)}-D", "tid", [Param("out", i32, None, dims)], body, check, dim=dims,
                              covers=(("tid", None),)))
    elif name == "static":
        cases.append(const_case("static(2 * 3 + 1)", "wp.static(2 * 3 + 1)", i32, 7))
    return cases


def extra_cases(name: str) -> list:
    """Documented edge cases that the generic instantiation does not reach."""
    cases = []
    if name == "div":
        # integer division by zero gives 0 and MIN / -1 wraps to MIN (documented for div): also for
        # the componentwise vector and matrix overloads
        for cid, at, bt, a, b in (
                ("div(vec3i, int32) by zero", vec(3, i32), i32, np.full((N, 3), 7, np.int32), np.zeros(N, np.int32)),
                ("div(int32, vec2i) by zero", i32, vec(2, i32), np.full(N, 7, np.int32), np.zeros((N, 2), np.int32)),
                ("div(vec2i, int32) MIN / -1", vec(2, i32), i32, np.full((N, 2), -2 ** 31, np.int32),
                 np.full(N, -1, np.int32))):
            rt = at if kind(at) != "scalar" else bt

            def body(names):
                return f"{names['out']}[i] = wp.div({names['a']}[i], {names['b']}[i])"

            def check(res, a=a, b=b, rt=rt):
                exp = np.vectorize(lambda x, y: c_div(int(x), int(y)), otypes=[object])(
                    *np.broadcast_arrays(a if a.ndim == 2 else a[:, None], b if b.ndim == 2 else b[:, None]))
                ok = values_close(res["out"], exp, rt)
                return [] if ok else [f"got {res['out'][:2].tolist()}, expected {exp[:2].tolist()}"]
            cases.append(Case(cid, name, [Param("a", at, a), Param("b", bt, b), Param("out", rt)], body, check,
                              covers=covers_of(name, [at, bt])))
    return cases


HAND_BUILDERS: dict = {
    "len": len_cases, "rand_init": rand_init_cases,
    **{op: (lambda op=op: atomic_cases(op) + (reduction_cases(op) if op in ("atomic_add", "atomic_sub") else []))
       for op in ATOMIC_TYPES},
    **{n: (lambda n=n: draw_cases(n) + statistical_cases(n)) for n in ("randu", "randi", "randf", "randn")},
    "poisson": lambda: statistical_cases("poisson"),
    **{n: (lambda n=n: sampler_cases(n)) for n in (
        "sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface", "sample_unit_hemisphere",
        "sample_unit_square", "sample_unit_cube", "sample_unit_disk", "sample_unit_ring", "sample_triangle")},
    **{n: (lambda n=n: special_form_cases(n)) for n in (
        "identity", "quat_identity", "transform_identity", "matrix_from_rows", "matrix_from_cols", "tid", "static")},
}
