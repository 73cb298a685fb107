"""Case generation and a small kernel harness for the registry-driven builtin tests
(tests/test_registry.py, tests/test_builtins_e2e.py).

Everything is driven by `warp_nb.builtins.registry.BUILTINS`: each overload's type patterns are
instantiated with concrete types (float32/float64 for float variables, int32 (and uint32,
int64 for bare scalars) for integer ones, lengths 2/3/4 for vector lengths, a few shapes for
matrices), inputs are drawn from a safe domain per builtin (builtin_specs.py), and the expected
values come from numpy reference formulas (REFS in builtin_values.py), independent of warp_nb.
The builtins' Python-scope implementations (`b.python`) are checked against the same references.
Builtins the generic instantiation cannot express have hand-written cases (builtin_hand_cases.py).

The harness writes kernel source text to `<dir>/mod_<name>.py`, imports it with importlib (so
`inspect` finds the source), launches every kernel and checks every case; a kernel that does
not compile is split into one kernel per case so that the report names the failing overload.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

import warp_nb as wp
from warp_nb.builtins import registry as R
from warp_nb import types as T
from warp_nb.builtins.registry import BUILTINS

from tests.support.builtin_values import (  # noqa: F401 (some are re-exported for the tests)
    N, REFS, boolean, c_div, elem, f32, f64, gen_value, i32, i64, inner_shape, kind, mat, np_dtype,
    quat, ref_for, rotation_matrix, tname, type_src, u32, unit_quats, vec, wrap_int, xform,
)
from tests.support.builtin_specs import spec_for

#: builtins typed by a rule of the typechecker (declared with form=, no overloads)
SPECIAL_FORMS = {name for name, b in BUILTINS.items() if b.form is not None}

#: builtins that the generic generator does not handle; they have hand-written cases
#: (test_builtins_e2e.py) that declare which overloads they cover
HAND_WRITTEN = {"atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_cas", "atomic_exch",
                "rand_init", "randi", "randu", "randf", "randn", "poisson", "sample_triangle",
                "sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface",
                "sample_unit_hemisphere", "sample_unit_square", "sample_unit_cube", "sample_unit_disk",
                "sample_unit_ring"} | SPECIAL_FORMS

#: the syntax that reaches each operator builtin (tested in addition to the wp.<name>(...) call)
OPERATOR_FORMS = {
    "add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}", "floordiv": "{0} // {1}",
    "mod": "{0} % {1}", "pow": "{0} ** {1}", "matmul": "{0} @ {1}", "neg": "-{0}", "pos": "+{0}",
    "lt": "{0} < {1}", "le": "{0} <= {1}", "gt": "{0} > {1}", "ge": "{0} >= {1}", "eq": "{0} == {1}",
    "ne": "{0} != {1}", "bit_and": "{0} & {1}", "bit_or": "{0} | {1}", "bit_xor": "{0} ^ {1}",
    "lshift": "{0} << {1}", "rshift": "{0} >> {1}", "invert": "~{0}", "logical_not": "not {0}",
    # Python builtins that kernels map to registry builtins
    "min": "min({0}, {1})", "max": "max({0}, {1})", "abs": "abs({0})", "round": "round({0})",
    "len": "len({0})",
}


# --- instantiating overloads --------------------------------------------------------------------

SCALAR_CHOICES = [f32, f64, i32, u32, i64, boolean]  # for a type variable used by bare scalars only
ELEMENT_CHOICES = [f32, f64, i32]                      # for one that is also a composite's element
DIM_PROFILES = {0: [()], 1: [(2,), (3,), (4,)], 2: [(2, 2), (3, 3), (4, 4), (2, 3), (4, 2)],
                3: [(2, 2, 2), (3, 3, 3), (4, 4, 4), (2, 3, 4), (4, 3, 2)]}
#: candidates for AnyType parameters (where/select values, eq/ne of composites)
ANY_CHOICES = [f32, f64, i32, boolean, vec(3, f32), vec(2, f64), vec(4, i32), mat((2, 2), f32), mat((3, 3), f64),
               quat(f32), quat(f64), xform(f32), xform(f64)]


def _collect(p, tvars: dict, dims: list, in_composite=False):
    if isinstance(p, R.Scalar):
        entry = tvars.setdefault(p.var, {"kinds": p.kinds, "elem": False})
        entry["elem"] = entry["elem"] or in_composite
    elif isinstance(p, R.Vec):
        _dim(p.n, dims)
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, R.Mat):
        _dim(p.r, dims)
        _dim(p.c, dims)
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, (R.Quat, R.Transform)):
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, R.AnyType):
        tvars.setdefault(p.var, {"any": p.accept})
    elif isinstance(p, R.Exact):
        pass
    elif isinstance(p, R.Tile):
        if isinstance(p.shape, str):
            tvars.setdefault(p.shape, {"choices": [(2,), (2, 3)]})
        else:
            for d in p.shape:
                _dim(d, dims)
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, R.Array):
        if isinstance(p.ndim, str):
            tvars.setdefault(p.ndim, {"choices": [1, 2, 3, 4]})
        _collect(p.elem, tvars, dims, True)
    else:
        raise NotImplementedError(f"pattern {type(p).__name__}")


def _dim(d, dims):
    if isinstance(d, str) and d not in dims:
        dims.append(d)


def _choices(var, info):
    if "choices" in info:
        return info["choices"]
    if "any" in info:
        accept = info["any"]
        return [t for t in ANY_CHOICES if accept is None or accept(t)]
    pool = ELEMENT_CHOICES if info["elem"] else SCALAR_CHOICES
    out = [t for t in pool if t._kind in info["kinds"]]
    return out or [t for t in SCALAR_CHOICES if t._kind in info["kinds"]][:1]


def _build(p, b):
    if isinstance(p, R.Scalar):
        return b[p.var]
    if isinstance(p, R.Tile):
        shape = b[p.shape] if isinstance(p.shape, str) else tuple(d if isinstance(d, int) else b[d] for d in p.shape)
        return T.tile_type(_build(p.elem, b), shape)
    if isinstance(p, R.Exact):
        return p.t
    if isinstance(p, R.Vec):
        return vec(p.n if isinstance(p.n, int) else b[p.n], _build(p.elem, b))
    if isinstance(p, R.Mat):
        shape = tuple(d if isinstance(d, int) else b[d] for d in (p.r, p.c))
        return mat(shape, _build(p.elem, b))
    if isinstance(p, R.Quat):
        return quat(_build(p.elem, b))
    if isinstance(p, R.Transform):
        return xform(_build(p.elem, b))
    if isinstance(p, R.AnyType):
        return b[p.var]
    if isinstance(p, R.Array):
        return wp.array(dtype=_build(p.elem, b), ndim=p.ndim if isinstance(p.ndim, int) else b[p.ndim])
    raise NotImplementedError(type(p).__name__)


def _combinations(lists):
    """Every combination of the type choices, or when that is more than 16, a cyclic cover in
    which every choice of every variable appears at least once."""
    if math.prod(len(x) for x in lists) <= 16:
        return list(itertools.product(*lists))
    m = max(len(x) for x in lists)
    return [tuple(x[k % len(x)] for x in lists) for k in range(m)]


@dataclass(frozen=True)
class Instance:
    name: str
    overload: int
    arg_types: tuple
    result: object

    @property
    def id(self) -> str:
        return f"{self.name}({', '.join(tname(t) for t in self.arg_types)})"

    @property
    def has_array(self) -> bool:
        """Array arguments: cases for these are hand-written (atomics, len)."""
        return any(isinstance(t, R.ArrayType) for t in self.arg_types)


def instances(name: str, tiles: bool = False) -> tuple[list, list]:
    """(instances, unreachable): concrete instantiations of every overload of builtin `name`.
    An instantiation that `registry.resolve` sends to another (earlier) overload is not
    reachable as this overload and goes to `unreachable` as (overload index, types)."""
    b = BUILTINS[name]
    out, unreachable, seen = [], [], set()
    for oi, o in enumerate(b.overloads):
        if not tiles and any(isinstance(p, R.Tile) for p in o.params):
            continue  # kernels take no tile arguments: tests/e2e/test_tiles.py checks these against numpy
        tvars, dims = {}, []
        for p in o.params:
            _collect(p, tvars, dims)
        names = list(tvars)
        for combo in _combinations([_choices(v, tvars[v]) for v in names]):
            for profile in DIM_PROFILES[len(dims)]:
                bind = dict(zip(names, combo))
                bind.update(zip(dims, profile))
                types = tuple(_build(p, bind) for p in o.params)
                if types in seen:
                    continue
                seen.add(types)
                res = R.resolve(b, list(types))
                if res is None or res.overload is not o:
                    unreachable.append((oi, types))
                    continue
                out.append(Instance(name, oi, types, res.result))
    return out, unreachable


# --- cases and the harness ------------------------------------------------------------------------


@dataclass
class Param:
    key: str
    type: object
    data: np.ndarray | None = None   # None: an output of `shape`, zero-filled
    shape: tuple = (N,)

    @property
    def ndim(self):
        return len(self.shape) if self.data is None else self.data.ndim - len(inner_shape(self.type))


@dataclass
class Case:
    id: str
    builtin: str
    params: list
    body: Callable[[dict], str]   # names (param key -> kernel argument name, "_" -> local prefix) -> statements
    check: Callable[[dict], list]  # results (param key -> numpy array after the launch) -> error strings
    dim: object = N
    covers: tuple = ()             # (builtin, overload index) pairs this case exercises
    source: str = field(default="", repr=False)  # the kernel text, filled by the harness


TOL = {f32: 4e-6, f64: 1e-12}


def values_close(got, exp, rtype, tol_mult=1.0, compare=None) -> bool:
    e = elem(rtype)
    got = np.asarray(got)
    if e._kind == "bool":
        return bool(np.array_equal(got.astype(bool), np.asarray(exp, dtype=bool)))
    if e._kind in ("int", "uint"):
        exp_i = np.asarray(exp, dtype=object).reshape(got.shape)
        bits = np_dtype(e).itemsize * 8
        wrap = np.vectorize(lambda v: wrap_int(int(v), bits, e._kind == "int"), otypes=[object])
        return bool(np.array_equal(wrap(got.astype(object)), wrap(exp_i)))
    exp_f = np.asarray(np.asarray(exp, dtype=object).astype(np.float64)).reshape(got.shape)
    got_f = got.astype(np.float64)
    tol = TOL.get(e, 1e-3) * tol_mult * (1 + np.max(np.abs(np.where(np.isfinite(exp_f), exp_f, 0))))
    if compare is not None:
        return bool(compare(got_f, exp_f, tol))
    same_special = (np.isnan(exp_f) & np.isnan(got_f)) | (np.isinf(exp_f) & (got_f == exp_f))
    ok = same_special | (np.abs(got_f - exp_f) <= tol)
    return bool(np.all(ok))


def to_ref_value(x, t):
    """An input element as the references take it: Python scalars, numpy arrays for composites."""
    if T.is_scalar_type(t):
        return x.item() if hasattr(x, "item") else x
    a = np.asarray(x)
    return a.astype(np.int64) if a.dtype.kind in "iu" else (a if a.dtype == bool else a.astype(np.float64))


def call_text(name: str, args: list, form: str) -> str:
    if form == "op":
        return OPERATOR_FORMS[name].format(*args)
    return f"wp.{name}({', '.join(args)})"


def generic_case(inst: Instance, form: str, rng) -> Case:
    spec = spec_for(inst.name)
    inputs = spec.gen(list(inst.arg_types), rng)
    params = [Param(f"a{k}", t, np.ascontiguousarray(v)) for k, (t, v) in enumerate(zip(inst.arg_types, inputs))]
    params.append(Param("out", inst.result, None, (N,)))
    ref = ref_for(inst.name, inst.arg_types)
    case_id = inst.id + ("@op" if form == "op" else "")

    def body(names):
        args = [f"{names[f'a{k}']}[i]" for k in range(len(inst.arg_types))]
        return f"{names['out']}[i] = {call_text(inst.name, args, form)}"

    def check(results):
        errors = []
        got = results["out"]
        for i in range(N):
            vals = [to_ref_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
            try:
                exp = ref(inst.arg_types, *vals)
            except (ValueError, ZeroDivisionError, OverflowError) as e:  # outside the reference's domain
                errors.append(f"element {i}: reference failed on {vals}: {e}")
                continue
            if not values_close(got[i], exp, inst.result, spec.tol, spec.compare):
                errors.append(f"element {i}: inputs {_show(vals)} -> got {_show(got[i])}, expected {_show(exp)}")
        return errors

    # Python's len(v) of a vector is folded to a constant by the typechecker: not the builtin
    folded = inst.name == "len" and form == "op" and kind(inst.arg_types[0]) != "scalar"
    return Case(case_id, inst.name, params, body, check, covers=() if folded else ((inst.name, inst.overload),))


def _show(v):
    if isinstance(v, list):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    a = np.asarray(v, dtype=object) if not isinstance(v, np.ndarray) else v
    if a.ndim == 0:
        return repr(a.item() if hasattr(a, "item") else a)
    return np.array2string(np.asarray(a, dtype=float) if a.dtype == object else a, precision=9, separator=", ")


def generic_cases(name: str, seed: int = 0) -> list:
    """Every instantiation of builtin `name`, called as wp.<name>(...) (when exported) and with
    its operator syntax (for operators)."""
    b = BUILTINS[name]
    insts = [inst for inst in instances(name)[0] if not inst.has_array]
    forms = (["call"] if b.export else []) + (["op"] if name in OPERATOR_FORMS else [])
    rng = np.random.default_rng(seed + _stable(name))
    return [generic_case(inst, form, rng) for inst in insts for form in forms
            if not (form == "op" and not _op_applies(name, inst))]


def _op_applies(name, inst) -> bool:
    # min/max/abs/round: Python's builtins map to the registry builtin with the same arguments
    return not (name in ("min", "max") and len(inst.arg_types) == 1)


def _stable(s: str) -> int:
    return sum((k + 1) * ord(c) for k, c in enumerate(s))


# --- module source, compile, launch -------------------------------------------------------------


class KernelModule:
    """Kernel source text for groups of cases; each group is one kernel."""

    def __init__(self, groups: list):
        self.groups = groups
        self.aliases: dict = {}
        self.kernel_sources: list = []

    def alias(self, t) -> str:
        src = type_src(t)
        if src.startswith("wp.") and "(" not in src:
            return src
        if src not in self.aliases:
            self.aliases[src] = f"_T{len(self.aliases)}"
        return self.aliases[src]

    def source(self) -> str:
        for g, cases in enumerate(self.groups):
            params, lines = [], []
            for c, case in enumerate(cases):
                names = {"_": f"c{c}_"}
                for p in case.params:
                    pname = f"c{c}_{p.key}"
                    names[p.key] = pname
                    nd = p.ndim
                    ndim = f", ndim={nd}" if nd > 1 else ""
                    params.append(f"{pname}: wp.array(dtype={self.alias(p.type)}{ndim})")
                body = case.body(names)
                lines.append(f"    # {case.id}")
                lines += ["    " + ln for ln in body.splitlines()]
            dims = {case.dim for case in cases}
            assert len(dims) == 1, "the cases of one kernel share the launch dimension"
            dim = dims.pop()
            tid = "i = wp.tid()" if not isinstance(dim, tuple) else f"{', '.join('ijkl'[:len(dim)])} = wp.tid()"
            text = ["@wp.kernel", f"def k{g}(", *[f"    {p}," for p in params], "):", f"    {tid}", *lines, ""]
            self.kernel_sources.append("\n".join(text))
        head = ["import warp_nb as wp", ""] + [f"{a} = {s}" for s, a in self.aliases.items()] + ["", ""]
        return "\n".join(head) + "\n\n".join(self.kernel_sources)


def import_source(path: Path, source: str):
    path.write_text(source)
    name = f"{path.stem}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_arrays(case: Case) -> list:
    arrays = []
    for p in case.params:
        if p.data is None:
            arrays.append(wp.zeros(p.shape, dtype=p.type))
        else:
            arrays.append(wp.array(p.data, dtype=p.type))
    return arrays


def run_cases(cases: list, directory: Path, name: str, per_kernel: int = 12) -> dict:
    """Compile and run `cases` (grouped `per_kernel` to a kernel, by launch dimension) from a
    module written to directory/mod_<name>.py. Returns {case id: list of error strings}
    (empty when the case passed). A kernel that fails to build is retried one case per kernel."""
    by_dim: dict = {}
    for c in cases:
        by_dim.setdefault(c.dim, []).append(c)
    groups = [g[k:k + per_kernel] for g in by_dim.values() for k in range(0, len(g), per_kernel)]
    results = _run_groups(groups, directory, name)
    retry = [g for g in groups if len(g) > 1 and any(_is_build_error(results[c.id]) for c in g)]
    if retry:
        singles = [[c] for g in retry for c in g]
        results.update(_run_groups(singles, directory, name + "_isolated"))
    return results


def _is_build_error(errors) -> bool:
    return bool(errors) and errors[0].startswith("BUILD ")


def _run_groups(groups, directory: Path, name: str) -> dict:
    module_text = KernelModule(groups)
    source = module_text.source()
    module = import_source(directory / f"mod_{name}.py", source)
    results = {}
    for g, cases in enumerate(groups):
        kernel = getattr(module, f"k{g}")
        for c in cases:
            c.source = module_text.kernel_sources[g]
        arrays = [a for c in cases for a in make_arrays(c)]
        try:
            wp.launch(kernel, dim=cases[0].dim, inputs=arrays)
        except wp.KernelError as e:
            for c in cases:
                results[c.id] = [f"BUILD {type(e).__name__}: {e}"]
            continue
        k = 0
        for c in cases:
            res = {}
            for p in c.params:
                res[p.key] = arrays[k].numpy().copy()
                k += 1
            try:
                results[c.id] = c.check(res)
            except Exception as e:  # a broken check is a failure of that case, not of the batch
                results[c.id] = [f"CHECK {type(e).__name__}: {e}"]
    return results


def compile_call(name: str, arg_types, directory: Path, form: str = "call"):
    """A compiled kernel, built from source text written to directory/mod_<name>.py, that computes
    out[i] = wp.<name>(a0[i], a1[i], ...) (or the operator syntax, form="op") for arrays of
    `arg_types`. Returns (kernel, result type, kernel source). The batch harness (run_cases) builds
    its kernels the same way, many cases to a kernel."""
    b = BUILTINS[name]
    res = R.resolve(b, list(arg_types))
    if res is None:
        raise TypeError(f"wp.{name} has no overload for ({', '.join(tname(t) for t in arg_types)})")
    inst = Instance(name, b.overloads.index(res.overload), tuple(arg_types), res.result)
    case = generic_case(inst, form, np.random.default_rng(0))
    module_text = KernelModule([[case]])
    module = import_source(directory / f"mod_{name}.py", module_text.source())
    wp.load_module(module.__name__)
    return module.k0, res.result, module_text.kernel_sources[0]


# --- Python-scope implementations ------------------------------------------------------------------


def to_python_value(x, t):
    """An input element as Python scope passes it to wp.<name>(): numbers, or wp vector/matrix/
    quaternion/transform instances."""
    if T.is_scalar_type(t):
        return x.item() if hasattr(x, "item") else x
    return t._from_numpy(np.asarray(x))


def from_python_value(v):
    if isinstance(v, wp.types.Composite):
        return np.asarray(v)
    if isinstance(v, wp.types.Scalar):
        return v.value
    return v


def python_scope_errors(inst: Instance, seed: int = 0) -> list:
    """Errors of the builtin's Python-scope implementation (b.python) against the reference, on
    the inputs the kernel case uses."""
    b = BUILTINS[inst.name]
    spec = spec_for(inst.name)
    inputs = spec.gen(list(inst.arg_types), np.random.default_rng(seed + _stable(inst.name)))
    ref = ref_for(inst.name, inst.arg_types)
    errors = []
    for i in range(N):
        vals = [to_ref_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
        args = [to_python_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
        exp = ref(inst.arg_types, *vals)
        try:
            got = from_python_value(b.python(*args))
        except Exception as e:
            errors.append(f"element {i}: wp.{inst.name}{_show(vals)} raised {type(e).__name__}: {e}")
            continue
        if np.shape(got) != np.shape(exp) or not values_close(np.asarray(got), exp, inst.result, spec.tol,
                                                              spec.compare):
            errors.append(f"element {i}: wp.{inst.name}{_show(vals)} -> {_show(got)}, expected {_show(exp)}")
    return errors


def all_cases(name: str) -> list:
    """Every case for builtin `name`: generic instantiations (when its overloads allow), its
    hand-written cases, and documented edge cases."""
    from tests.support.builtin_hand_cases import HAND_BUILDERS, extra_cases  # here: that module builds on this one
    out = []
    if name not in HAND_WRITTEN:
        out += generic_cases(name)
    if name in HAND_BUILDERS:
        out += HAND_BUILDERS[name]()
    out += extra_cases(name)
    return out


def find_case(case_id: str):
    name = case_id.split("(")[0].split(" ")[0]
    for c in all_cases(name):
        if c.id == case_id:
            return c
    raise KeyError(case_id)


# --- known bugs -----------------------------------------------------------------------------------

_VECS = [f"vec{n}{s}" for s in "fdi" for n in (2, 3, 4)]
_CRASH = "CRASH (SIGFPE kills the process; run in a subprocess): "

#: Cases that fail because of a bug in warp_nb or a native header. They are left out of the
#: passing tests and run as expected failures (xfail, not strict: a fix shows as XPASS), so they
#: stay visible. Keys are case ids (see Case.id); "python:<id>" is the Python-scope
#: implementation on the inputs of case <id>; "cpp:<name>[k]" is overload k of wp.<name> in the
#: static C++ declaration check. Remove an entry once its bug is fixed.
KNOWN_BROKEN: dict = {
    # every case that failed when these tests were written has since been fixed (the XPASS
    # check keeps this list honest): integer vector/matrix division by zero, wp.len and
    # wp.sign on vectors, wp.static, and the Python-scope min/max/transform_point/smoothstep
    "python:quat_rpy(float64, float64, float64)": "the harness passes plain Python floats, for which wp.quat_rpy "
                                                  "returns a quatf (as Warp does): float32 precision",
    "python:bit_count(int64)": "the harness passes a plain Python int, which wp.bit_count counts in 32 bits "
                               "(Warp's rule for Python ints); wp.bit_count(wp.int64(x)) counts 64",
}
