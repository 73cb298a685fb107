"""A seeded generator of random, well-typed kernels and their float64 reference.

In: a seed and a count. Out: the Python source of one module holding that many `@wp.kernel`s, and
for each kernel the same program as reference.py statements, which evaluate it in numpy float64
over all threads with a running float32 error bound (see there).

What the kernels hold: float32 scalars and vec3, arithmetic, sin/cos/tanh/sqrt/log/exp/abs/min/max
/clamp, dot/cross/length and component access, if/elif/else with comparisons joined by and/or/not,
constant `for` loops (with steps, also negative), dynamic `for j in range(n)`, `while` loops over
a counter, `break` and `continue` under a condition, array reads and
writes at in-bounds indices, augmented assignments and vector component assignment, and calls of
@wp.func helpers, two of them with an early return, loops and a break (helper_calls.py). The generator
keeps away from ill-conditioned operations: a divisor is `1 + b*b`, sqrt and log see `|a| + c`, exp
sees a clamped argument, and a value whose static bound grows past a limit is squashed by tanh or
sin, so nothing overflows. No NaN is ever produced (min/max NaN semantics are not under test here).

It does not launch anything and knows nothing about warp_nb beyond the source text it writes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from tests.fuzz import helper_calls
from tests.fuzz.reference import (  # noqa: F401 (SLOTS is re-exported for the test)
    EPS,
    SLOTS,
    Env,
    Val,
    _addsub,
    _andor,
    _clamp,
    _comp,
    _compare,
    _cross,
    _div,
    _dot,
    _exp_clamped,
    _fn_lipschitz1,
    _length,
    _log_shifted,
    _make_vec,
    _minmax,
    _mul,
    _near_kink,
    _not,
    _scale,
    _select,
    _sqrt_shifted,
    _vdiv_squash,
    run_statements,
)

BOUND_LIMIT = 40.0        # static magnitude bound above which a value is squashed

# ---------------------------------------------------------------------------------------------
# expressions: each knows its source text, its static magnitude bound, and how to evaluate itself


@dataclass
class Expr:
    src: str
    bound: float
    is_vec: bool
    ev: object               # callable(env) -> Val


def _const(rng: random.Random) -> Expr:
    c = round(rng.uniform(-2.0, 2.0), rng.choice([1, 2, 3]))
    if c == 0.0:
        c = 0.5
    text = repr(float(c))
    c32 = float(np.float32(c))
    return Expr(text, abs(c), False, lambda env, c=c, c32=c32: Val(np.full(env.T, c), np.full(env.T, abs(c - c32) + 0.0)))


class Gen:
    """Builds one kernel: its statements as source lines and as a reference program."""

    def __init__(self, rng: random.Random, name: str):
        self.rng = rng
        self.name = name
        self.lines: list[str] = []
        self.program: list = []          # reference statements: callables(env)
        self.scalars: dict[str, float] = {}   # variable -> static bound
        self.vectors: dict[str, float] = {}
        self.loop_vars: list[str] = []
        self.loop_kinds: list[str] = []     # "for" or "while", innermost last
        self.counter = 0

    # -- expressions ---------------------------------------------------------------------------

    def scalar(self, depth: int) -> Expr:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self._scalar_leaf()
        kind = rng.choice(["add", "sub", "mul", "mul", "div", "neg", "fn", "fn", "minmax", "clamp",
                           "dot", "length", "comp", "sqrt", "log", "exp", "abs", "ternary", "fork"])
        if kind in ("dot", "length", "comp") and depth >= 1:
            return self._vec_to_scalar(kind, depth)
        if kind in ("add", "sub", "mul"):
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            op = {"add": "+", "sub": "-", "mul": "*"}[kind]
            if kind == "mul":
                bound = a.bound * b.bound
                if bound > BOUND_LIMIT:
                    return self._squash(Expr(f"({a.src} * {b.src})", bound, False, _mul(a, b)))
                return Expr(f"({a.src} * {b.src})", bound, False, _mul(a, b))
            sign = 1.0 if kind == "add" else -1.0
            return Expr(f"({a.src} {op} {b.src})", a.bound + b.bound, False, _addsub(a, b, sign))
        if kind == "div":  # a / (1 + b*b): the divisor is at least 1
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            if b.bound > 1e3:
                b = self._squash(b)
            return Expr(f"soft_div({a.src}, {b.src})", a.bound, False, _div(a, b))
        if kind == "neg":
            a = self.scalar(depth - 1)
            return Expr(f"(-{a.src})", a.bound, False, _negate(a))
        if kind == "fork":  # a @wp.func with an early return and a loop (helper_calls.py)
            a, b, g = self._x_read(), rng.randint(-6, 6) * 0.25, self.scalar(depth - 1)
            return Expr(f"fork({a.src}, {b!r}, {g.src})", helper_calls.fork_bound(a.bound, b), False,
                        helper_calls.fork(a, b, g))
        if kind == "fn":
            name = rng.choice(["sin", "cos", "tanh"])
            a = self.scalar(depth - 1)
            f = getattr(np, name)
            return Expr(f"wp.{name}({a.src})", 1.0, False, _fn_lipschitz1(a, f))
        if kind == "abs":
            a = self.scalar(depth - 1)
            return Expr(f"wp.abs({a.src})", a.bound, False, _absolute(a))
        if kind == "sqrt":
            a = self.scalar(depth - 1)
            return Expr(f"wp.sqrt(wp.abs({a.src}) + 0.5)", float(np.sqrt(a.bound + 0.5)), False, _sqrt_shifted(a))
        if kind == "log":
            a = self.scalar(depth - 1)
            return Expr(f"wp.log(wp.abs({a.src}) + 1.0)", float(np.log(a.bound + 1.0)), False, _log_shifted(a))
        if kind == "exp":
            a = self.scalar(depth - 1)
            return Expr(f"wp.exp(wp.clamp({a.src}, -3.0, 3.0))", float(np.exp(min(a.bound, 3.0))), False, _exp_clamped(a))
        if kind == "minmax":
            name = rng.choice(["min", "max"])
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            f = np.minimum if name == "min" else np.maximum
            return Expr(f"wp.{name}({a.src}, {b.src})", max(a.bound, b.bound), False, _minmax(a, b, f))
        if kind == "clamp":
            a = self.scalar(depth - 1)
            lo = round(rng.uniform(-1.5, 0.0), 2)
            hi = round(rng.uniform(0.1, 1.5), 2)
            return Expr(f"wp.clamp({a.src}, {lo!r}, {hi!r})", max(abs(lo), abs(hi)), False, _clamp(a, lo, hi))
        # ternary: cond ? a : b
        cond = self.condition(1)
        a, b = self.scalar(depth - 1), self.scalar(depth - 1)
        return Expr(f"({a.src} if {cond.src} else {b.src})", max(a.bound, b.bound), False, _select(cond, a, b))

    def _scalar_leaf(self) -> Expr:
        rng = self.rng
        choices = ["const", "xread"]
        if self.scalars:
            choices += ["var", "var", "var"]
        if self.loop_vars:
            choices.append("loopvar")
        kind = rng.choice(choices)
        if kind == "const":
            return _const(rng)
        if kind == "xread":
            return self._x_read()
        if kind == "loopvar":
            name = rng.choice(self.loop_vars)
            return Expr(f"float({name})", 4.0, False, lambda env, n=name: Val(np.full(env.T, float(env.ints[n])), np.zeros(env.T)))
        name = rng.choice(sorted(self.scalars))
        return Expr(name, self.scalars[name], False, lambda env, n=name: env.vars[n])

    def _x_read(self) -> Expr:
        slot = self.rng.randrange(SLOTS)
        return Expr(f"x[i * {SLOTS} + {slot}]", 2.0, False, lambda env, s=slot: Val(env.x[:, s].copy(), np.zeros(env.T)))

    def _squash(self, a: Expr) -> Expr:
        name = self.rng.choice(["tanh", "sin"])
        return Expr(f"wp.{name}({a.src})", 1.0, False, _fn_lipschitz1(a, getattr(np, name)))

    def vector(self, depth: int) -> Expr:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            if self.vectors and rng.random() < 0.6:
                name = rng.choice(sorted(self.vectors))
                return Expr(name, self.vectors[name], True, lambda env, n=name: env.vars[n])
            if rng.random() < 0.5:
                return Expr("v[i]", 2.0, True, lambda env: Val(env.v.copy(), np.zeros_like(env.v)))
            parts = [self.scalar(0) for _ in range(3)]
            return Expr(f"wp.vec3({', '.join(p.src for p in parts)})", max(p.bound for p in parts), True, _make_vec(parts))
        kind = rng.choice(["add", "sub", "scale", "rscale", "cross", "neg", "make", "spin"])
        if kind == "spin":  # a @wp.func with a dynamic loop that breaks (helper_calls.py)
            a, s = self.vector(depth - 1), self._x_read()  # (exact: the break is rarely too close to call)
            return Expr(f"spin({a.src}, {s.src}, n)", helper_calls.spin_bound(a.bound, s.bound), True,
                        helper_calls.spin(a, s))
        if kind in ("add", "sub"):
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            return Expr(f"({a.src} {'+' if kind == 'add' else '-'} {b.src})", a.bound + b.bound, True,
                        _addsub(a, b, 1.0 if kind == "add" else -1.0))
        if kind in ("scale", "rscale"):
            a, s = self.vector(depth - 1), self.scalar(depth - 1)
            if a.bound * s.bound > BOUND_LIMIT:
                s = self._squash(s)
            src = f"({a.src} * {s.src})" if kind == "scale" else f"({s.src} * {a.src})"
            return Expr(src, a.bound * s.bound, True, _scale(a, s))
        if kind == "cross":
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            if 2 * a.bound * b.bound > BOUND_LIMIT:
                a = self._vsquash(a)
                b = self._vsquash(b)
            return Expr(f"wp.cross({a.src}, {b.src})", 2 * a.bound * b.bound, True, _cross(a, b))
        if kind == "neg":
            a = self.vector(depth - 1)
            return Expr(f"(-{a.src})", a.bound, True, _negate(a))
        parts = [self.scalar(depth - 1) for _ in range(3)]
        return Expr(f"wp.vec3({', '.join(p.src for p in parts)})", max(p.bound for p in parts), True, _make_vec(parts))

    def _vsquash(self, a: Expr) -> Expr:
        # a * (1 / (1 + |a|^2))-like squash written with wp.normalize-free arithmetic: a / (1 + dot(a, a))
        return Expr(f"soft_vec({a.src})", 0.5, True, _vdiv_squash(a))

    def _vec_to_scalar(self, kind: str, depth: int) -> Expr:
        if kind == "dot":
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            bound = 3 * a.bound * b.bound
            e = Expr(f"wp.dot({a.src}, {b.src})", bound, False, _dot(a, b))
            return self._squash(e) if bound > BOUND_LIMIT else e
        if kind == "length":
            a = self.vector(depth - 1)
            return Expr(f"wp.length({a.src})", 1.75 * a.bound, False, _length(a))
        a = self.vector(depth - 1)
        c = self.rng.randrange(3)
        if not a.src.isidentifier() and a.src != "v[i]":
            # component of a temporary: Warp accepts it on a name; keep to names and array reads
            return Expr(f"{a.src}[{c}]", a.bound, False, _comp(a, c)) if self.rng.random() < 0.5 else self._scalar_leaf()
        return Expr(f"{a.src}[{c}]", a.bound, False, _comp(a, c))

    def condition(self, depth: int) -> Expr:
        rng = self.rng
        if depth > 0 and rng.random() < 0.3:
            kind = rng.choice(["and", "or", "not"])
            if kind == "not":
                a = self.condition(depth - 1)
                return Expr(f"(not {a.src})", 0, False, _not(a))
            a, b = self.condition(depth - 1), self.condition(depth - 1)
            return Expr(f"({a.src} {kind} {b.src})", 0, False, _andor(a, b, kind))
        a, b = self.scalar(2), self.scalar(1)
        op = rng.choice(["<", "<=", ">", ">="])
        return Expr(f"{a.src} {op} {b.src}", 0, False, _compare(a, b, op))

    # -- statements ----------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, indent: int, depth: int, count: int, in_loop: bool) -> list:
        return [self.statement(indent, depth, in_loop) for _ in range(count)]

    def statement(self, indent: int, depth: int, in_loop: bool):
        rng = self.rng
        kinds = ["assign", "assign", "augment", "vassign"]
        if self.vectors:
            kinds.append("vcomp")
        if depth > 0:
            kinds += ["if", "for_const", "for_dyn", "while"]
        if in_loop:
            kinds += ["scratch", "jump"]
        kind = rng.choice(kinds)
        if kind == "jump":  # `if cond: break` (or continue, in a for loop: a while loop would skip its step)
            word = "continue" if self.loop_kinds[-1] == "for" and rng.random() < 0.5 else "break"
            cond = self.condition(1)
            self.emit(indent, f"if {cond.src}:")
            self.emit(indent + 1, word)
            return ("if", [(cond, [(word,)])], None)
        if kind == "assign":
            # only existing names may be reassigned inside blocks (Warp needs a definition that dominates)
            if indent > 1 and self.scalars:
                name = rng.choice(sorted(self.scalars))
            else:
                name = self.fresh("f")
            e = self.scalar(3)
            if e.bound > BOUND_LIMIT:
                e = self._squash(e)
            if in_loop:  # keep loop-carried values bounded: blend with the old one
                if name in self.scalars:
                    old = Expr(name, self.scalars[name], False, lambda env, n=name: env.vars[n])
                    e = _blend(old, e, self._squash)
            self.emit(indent, f"{name} = {e.src}")
            bound = max(e.bound, self.scalars.get(name, 0.0))
            if indent <= 1:
                self.scalars[name] = e.bound
            else:
                self.scalars[name] = bound
            return ("assign", name, e)
        if kind == "augment":
            if not self.scalars:
                return self.statement(indent, 0, in_loop)
            name = rng.choice(sorted(self.scalars))
            e = self._squash(self.scalar(2))
            op = rng.choice(["+=", "-=", "*="])
            if op == "*=":
                # x *= c with |c| <= 1 keeps the bound
                c = round(rng.uniform(-1.0, 1.0), 2)
                self.emit(indent, f"{name} *= {c!r}")
                return ("scale", name, c)
            self.emit(indent, f"{name} {op} {e.src}")
            self.scalars[name] = self.scalars[name] + 1.0
            if in_loop or self.scalars[name] > BOUND_LIMIT:
                # squash on the next line so loops cannot grow it without bound
                self.emit(indent, f"{name} = wp.tanh({name})")
                self.scalars[name] = 1.0
                return ("augment_squash", name, op, e)
            return ("augment", name, op, e)
        if kind == "vassign":
            if indent > 1 and self.vectors:
                name = rng.choice(sorted(self.vectors))
            else:
                name = self.fresh("w")
            e = self.vector(2)
            if e.bound > BOUND_LIMIT or in_loop:
                e = self._vsquash(e)
            self.emit(indent, f"{name} = {e.src}")
            self.vectors[name] = max(e.bound, self.vectors.get(name, 0.0)) if indent > 1 else e.bound
            return ("assign", name, e)
        if kind == "vcomp":
            name = rng.choice(sorted(self.vectors))
            c = rng.randrange(3)
            e = self._squash(self.scalar(2))
            self.emit(indent, f"{name}[{c}] = {e.src}")
            self.vectors[name] = max(self.vectors[name], 1.0)
            return ("vcomp", name, c, e)
        if kind == "scratch":
            loop = self.loop_vars[-1]
            e = self._squash(self.scalar(2))
            self.emit(indent, f"scratch[i * {SLOTS} + {loop}] = {e.src}")
            return ("scratch", loop, e)
        if kind == "if":
            branches = []
            cond = self.condition(1)
            self.emit(indent, f"if {cond.src}:")
            body = self.block(indent + 1, depth - 1, rng.randint(1, 2), in_loop)
            branches.append((cond, body))
            if rng.random() < 0.3:
                cond2 = self.condition(0)
                self.emit(indent, f"elif {cond2.src}:")
                branches.append((cond2, self.block(indent + 1, depth - 1, 1, in_loop)))
            other = None
            if rng.random() < 0.6:
                self.emit(indent, "else:")
                other = self.block(indent + 1, depth - 1, rng.randint(1, 2), in_loop)
            return ("if", branches, other)
        # loops
        var = self.fresh("j")
        if kind == "while":  # a counter from 0 to a constant or to n, stepped at the end of the body
            stop = rng.choice(["n", "3", str(SLOTS)])
            self.emit(indent, f"{var} = int(0)")
            self.emit(indent, f"while {var} < {stop}:")
            bounds = ("dyn", None) if stop == "n" else ("const", range(int(stop)))
        elif kind == "for_const":
            start, stop, step = rng.choice([(0, 3, 1), (0, SLOTS, 1), (1, SLOTS, 2), (SLOTS - 1, -1, -1), (0, 2, 1)])
            args = f"{start}, {stop}" + (f", {step}" if step != 1 else "")
            if (start, step) == (0, 1) and rng.random() < 0.5:
                args = f"{stop}"
            self.emit(indent, f"for {var} in range({args}):")
            bounds = ("const", range(start, stop, step))
        else:
            self.emit(indent, f"for {var} in range(n):")
            bounds = ("dyn", None)
        self.loop_vars.append(var)
        self.loop_kinds.append("while" if kind == "while" else "for")
        body = self.block(indent + 1, depth - 1, rng.randint(1, 2), True)
        if rng.random() < 0.5 and self.scalars:  # read the loop's slot of x and of scratch
            name = rng.choice(sorted(self.scalars))
            self.emit(indent + 1, f"{name} = wp.tanh({name} + x[i * {SLOTS} + {var}] * 0.5 + scratch[i * {SLOTS} + {var}])")
            body.append(("accumulate", name, var))
        if kind == "while":
            self.emit(indent + 1, f"{var} += 1")
        self.loop_kinds.pop()
        self.loop_vars.pop()
        return ("for", var, bounds, body)


def _negate(a: Expr):
    def ev(env):
        x = a.ev(env)
        return Val(-x.v, x.e)
    return ev


def _absolute(a: Expr):
    def ev(env):
        x = a.ev(env)
        _near_kink(env, x.v, 0.0, x.e)
        return Val(np.abs(x.v), x.e)
    return ev


def _blend(old: Expr, new: Expr, squash) -> Expr:
    """old * 0.5 + new * 0.5: a loop-carried update that stays bounded."""
    half = Expr("0.5", 0.5, False, lambda env: Val(np.full(env.T, 0.5), np.zeros(env.T)))
    a = Expr(f"({old.src} * 0.5)", old.bound * 0.5, False, _mul(old, half))
    b = Expr(f"({new.src} * 0.5)", new.bound * 0.5, False, _mul(new, half))
    e = Expr(f"({a.src} + {b.src})", a.bound + b.bound, False, _addsub(a, b, 1.0))
    return squash(e) if e.bound > BOUND_LIMIT else e


# ---------------------------------------------------------------------------------------------
# whole kernels and modules


@dataclass
class FuzzKernel:
    name: str
    source: str
    body: list
    out_scalar: Expr
    out_vector: Expr

    def reference(self, x: np.ndarray, v: np.ndarray, n: int):
        """float64 results (out, outv), their error bounds, and the threads whose branches are
        too close to call."""
        s, w, env = self.reference_env(x, v, n)
        return s, w, env.unsure

    def reference_env(self, x: np.ndarray, v: np.ndarray, n: int):
        """The float64 results and the reference's environment after the run (its `unsure`
        threads, and its `kinks`: threads near a point where the gradient jumps)."""
        T = v.shape[0]
        env = Env(T, x.reshape(T, SLOTS).astype(np.float64), v.astype(np.float64), n)
        run_statements(env, self.body, np.ones(T, dtype=bool))
        env.active = np.ones(T, dtype=bool)
        return self.out_scalar.ev(env), self.out_vector.ev(env), env


def generate_kernel(rng: random.Random, name: str) -> FuzzKernel:
    g = Gen(rng, name)
    g.emit(1, "i = wp.tid()")
    g.emit(1, f"f0 = x[i * {SLOTS}]")
    g.scalars["f0"] = 2.0
    body = [("assign", "f0", Expr("x", 2.0, False, lambda env: Val(env.x[:, 0].copy(), np.zeros(env.T))))]
    g.emit(1, "w0 = v[i]")
    g.vectors["w0"] = 2.0
    body.append(("assign", "w0", Expr("v", 2.0, True, lambda env: Val(env.v.copy(), np.zeros_like(env.v)))))
    body += g.block(1, 2, rng.randint(3, 6), False)
    out = g.scalar(2)
    if out.bound > BOUND_LIMIT:
        out = g._squash(out)
    outv = g.vector(1)
    if outv.bound > BOUND_LIMIT:
        outv = g._vsquash(outv)
    g.emit(1, f"out[i] = {out.src}")
    g.emit(1, f"outv[i] = {outv.src}")
    header = (f"@wp.kernel\ndef {name}(x: wp.array(dtype=wp.float32), v: wp.array(dtype=wp.vec3), n: int,\n"
              f"        scratch: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32),\n"
              f"        outv: wp.array(dtype=wp.vec3)):\n")
    return FuzzKernel(name, header + "\n".join(g.lines) + "\n", body, out, outv)


#: @wp.func helpers the kernels call: the divisor 1 + b*b is at least 1, and a / (1 + |a|^2) is a
#: bounded, 1-Lipschitz squash of a vector
HELPERS = """@wp.func
def soft_div(a: float, b: float):
    return a / (1.0 + b * b)


@wp.func
def soft_vec(a: wp.vec3):
    return a / (1.0 + wp.dot(a, a))


""" + helper_calls.SOURCE


def generate_module(seed: int, count: int) -> tuple[str, list]:
    """The source of one module with `count` kernels (seeded), and the kernels' descriptions."""
    kernels = []
    for k in range(count):
        rng = random.Random(seed * 1_000_003 + k)  # each kernel from its own stream: a kernel can be regenerated alone
        kernels.append(generate_kernel(rng, f"fuzz_{seed}_{k:04d}"))
    source = "import warp_nb as wp\n\n\n" + HELPERS + "\n\n".join(k.source for k in kernels)
    return source, kernels


def inputs(seed: int, threads: int):
    """float32 inputs in [-2, 2] (a few exact small values to hit ties and zeros)."""
    rs = np.random.default_rng(seed)
    x = rs.uniform(-2.0, 2.0, threads * SLOTS).astype(np.float32)
    v = rs.uniform(-2.0, 2.0, (threads, 3)).astype(np.float32)
    x[::7] = np.float32(0.0)
    v[::5, 1] = np.float32(1.0)
    return x, v
