"""Static checks over the builtin registry (`warp_nb.builtins.registry.BUILTINS`) and the native headers,
plus the typing of literals (weak typing) in builtin calls.

The end-to-end checks (every overload compiled and run against numpy references) are in
test_builtins_e2e.py; the case generation they share with the reachability check here is in
builtin_cases.py."""

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.builtins import registry as R
from warp_nb import types as T
from warp_nb.builtins.registry import BUILTINS
from warp_nb.compiler.typecheck import FunctionTyper
from warp_nb.types.array_type import ArrayType

from tests.support import builtin_cases as bc

NATIVE = Path(wp.__file__).resolve().parent.parent / "native"
if not NATIVE.is_dir():  # installed layout: native/ is the package warp_nb.native
    NATIVE = Path(wp.__file__).resolve().parent / "native"

#: builtins that are no C++ function: the compiler emits them itself
NO_CPP_FUNCTION = {
    "tid": "emitted as the launch index variables wpnb_tid<k>",
    "printf": "emitted as a call of C's printf",
    "print": "emitted as a call of C's printf, with a format chosen by the value's type",
    "static": "evaluated in Python when the kernel is compiled",
    "address_of": "emitted as the address of an array element or a kept variable (ir.AddressOf)",
    "index": "typed and emitted as the subscript a[i] / a[i, j] it spells",
}

NAMES = sorted(BUILTINS)


def test_registry_is_populated():
    assert len(BUILTINS) > 100
    assert all(isinstance(b, R.Builtin) and b.name == name for name, b in BUILTINS.items())


@pytest.mark.parametrize("name", NAMES)
def test_builtin_record(name):
    """Doc string, an existing header, overloads (unless typed by name), parameter names."""
    b = BUILTINS[name]
    assert b.doc and b.doc.strip(), f"wp.{name} has no doc string"
    assert (NATIVE / b.header).is_file(), f"wp.{name}: header native/{b.header} does not exist"
    if b.form is not None:
        assert callable(getattr(FunctionTyper, f"form_{b.form}", None)), (
            f"wp.{name} is typed by form={b.form!r} but the typechecker has no method form_{b.form}")
    else:
        assert b.overloads, f"wp.{name} has no overloads and names no typing rule (form=)"
    for o in b.overloads:
        assert all(isinstance(p, R.Pattern) for p in o.params), f"wp.{name}: a parameter is not a type pattern"
        assert not o.names or len(o.names) == len(o.params), (
            f"wp.{name}: parameter names {o.names} do not match {len(o.params)} parameters")
        assert o.result is None or isinstance(o.result, (R.Pattern, R.OpaqueType)) or T.is_scalar_type(o.result) or \
            T.is_composite_type(o.result), f"wp.{name}: result {o.result!r} is not a type or pattern"
    for i in b.inout:
        assert all(i < len(o.params) for o in b.overloads), f"wp.{name}: inout position {i} out of range"
    assert R.describe_overloads(b) is not None


def test_special_forms_are_declared():
    """Every typing rule of the typechecker (a method form_<name>) is named by a builtin's `form`, and a
    builtin typed by a rule declares no overloads."""
    rules = {m.removeprefix("form_") for m in dir(FunctionTyper) if m.startswith("form_")}
    named = {b.form for b in BUILTINS.values() if b.form is not None}
    assert not rules - named, f"typing rules no builtin names with form=: {sorted(rules - named)}"
    with_overloads = [n for n, b in BUILTINS.items() if b.form is not None and b.overloads]
    assert not with_overloads, f"builtins typed by a rule should not declare overloads: {with_overloads}"


def test_lane_behaviour_is_declared():
    """Every tile builtin says how it runs in a block of several lanes; a checked element read is one
    lane's own element; only builtins with effects run on lane 0 (registry.LANES)."""
    for name, b in BUILTINS.items():
        assert b.lanes in R.LANES, f"wp.{name}: lanes={b.lanes!r}"
        if b.category == "tile":
            assert b.lanes is not None, f"wp.{name}: a tile builtin without lanes="
        if b.checked_read:
            assert b.lanes == "own_element", f"wp.{name}: a checked element read is a lane's own element"
        if b.lanes == "lead":
            assert b.side_effects, f"wp.{name}: lanes='lead' is for builtins with effects outside the block"
    with pytest.raises(ValueError, match="lanes"):
        R.Builtin("x", (), "prelude.h", lanes="sometimes")


@pytest.mark.parametrize("name", NAMES)
def test_exported_builtin_is_reachable(name):
    b = BUILTINS[name]
    if not b.export:
        pytest.skip(f"wp.{name} is not exported (export=False)")
    assert getattr(wp, name, None) is b, f"wp.{name} is {getattr(wp, name, None)!r}, not the registry builtin"


@pytest.mark.parametrize("name", NAMES)
def test_every_overload_is_reachable(name):
    """Every overload accepts some concrete argument types that no earlier overload takes
    (registry.resolve picks the first match, so a shadowed overload is dead)."""
    b = BUILTINS[name]
    insts, unreachable = bc.instances(name, tiles=True)
    reached = {inst.overload for inst in insts}
    dead = [oi for oi in range(len(b.overloads)) if oi not in reached]
    assert not dead, (f"overloads {dead} of wp.{name} are never chosen by resolve; e.g. "
                      f"{[(oi, [bc.tname(t) for t in ts]) for oi, ts in unreachable if oi in dead][:3]}")
    for inst in insts:  # result types build to concrete types (a tuple of them: several results, as svd3)
        if b.overloads[inst.overload].outputs:
            assert isinstance(inst.result, tuple) and all(T.is_composite_type(t) or T.is_scalar_type(t)
                                                          for t in inst.result), inst.id
            continue
        assert inst.result is None or T.is_scalar_type(inst.result) or T.is_composite_type(inst.result) or \
            isinstance(inst.result, (R.OpaqueType, ArrayType, T.TileType)), inst.id  # OpaqueType: a native query or result struct
        # (ArrayType: grad_view, an array's gradient seen as an array)


# --- C++ symbols ------------------------------------------------------------------------------------

_KEYWORDS = {"return", "if", "while", "for", "switch", "sizeof", "else", "case", "new", "delete", "throw",
             "static_assert", "decltype", "alignof", "typedef", "using", "operator"}
_PREPROCESSED: dict = {}


def _cxx():
    return shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")


def _preprocess(header: str) -> str:
    """The header and everything it includes, macros expanded (what the compiler sees)."""
    if header not in _PREPROCESSED:
        out = subprocess.run([_cxx(), "-std=c++17", "-E", "-P", "-I", str(NATIVE), "-x", "c++", str(NATIVE / header)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, f"native/{header} does not preprocess:\n{out.stderr[:2000]}"
        _PREPROCESSED[header] = out.stdout
    return _PREPROCESSED[header]


def _block_end(text: str, open_brace: int) -> int:
    depth = 0
    for k in range(open_brace, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def _namespace_scope(text: str, ns: str = "wpnb") -> str:
    """The text directly inside `namespace wpnb { ... }` blocks, without nested namespaces
    (wpnb::libm, wpnb::la_detail are helpers, not builtins)."""
    parts = []
    for m in re.finditer(r"\bnamespace\s+" + ns + r"\s*\{", text):
        start = m.end() - 1
        body = text[start + 1:_block_end(text, start)]
        while True:
            inner = re.search(r"\bnamespace\s+\w+\s*\{", body)
            if not inner:
                break
            end = _block_end(body, inner.end() - 1)
            body = body[:inner.start()] + body[end + 1:]
        parts.append(body)
    return "\n".join(parts)


def declared_functions(header: str) -> set:
    """Names of the functions declared at namespace wpnb scope in `header` and its includes."""
    scope = _namespace_scope(_preprocess(header))
    names = set()
    for m in re.finditer(r"([\w>&*])\s+(~?\w+)\s*\(", scope):
        before = scope[max(0, m.start() - 40):m.start() + 1]
        word = re.search(r"(\w+)$", before)
        if word and word.group(1) in _KEYWORDS:
            continue
        names.add(m.group(2))
    return names


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", NAMES)
def test_cpp_symbol_is_declared(name):
    """wpnb::<name> (or the builtin's `cpp`) is declared in its header or a header it includes
    (catches registry/header drift: renamed or missing C++ functions)."""
    b = BUILTINS[name]
    if name in NO_CPP_FUNCTION:
        pytest.skip(NO_CPP_FUNCTION[name])
    symbol = b.symbol
    assert symbol.startswith("wpnb::"), f"wp.{name}: C++ symbol {symbol} is outside namespace wpnb"
    fn = symbol[len("wpnb::"):]
    assert fn in declared_functions(b.header), (
        f"wp.{name}: {symbol} is not declared in native/{b.header} or the headers it includes")


_FAMILY: dict = {}
_CPP_TYPE = {R.Vec: "vec_t", R.Mat: "mat_t", R.Quat: "quat_t", R.Transform: "transform_t", R.Array: "array_t"}


def declarations() -> dict:
    """name -> parameter lists (as text) of every function at namespace wpnb scope in all the
    headers the registry names (a kernel includes the headers of its argument types too)."""
    if not _FAMILY:
        # (not the user's headers of builtins a test registered at run time: wp.build_experimental)
        headers = sorted({b.header for b in BUILTINS.values() if b.category != "external"})
        src = "".join(f'#include "{h}"\n' for h in headers)
        out = subprocess.run([_cxx(), "-std=c++17", "-E", "-P", "-x", "c++", "-I", str(NATIVE), "-"], input=src,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr[:2000]
        scope = _namespace_scope(out.stdout)
        for m in re.finditer(r"([\w>&*])\s+(~?\w+)\s*\(", scope):
            word = re.search(r"(\w+)$", scope[max(0, m.start() - 40):m.start() + 1])
            if word and word.group(1) in _KEYWORDS:
                continue
            start = m.end() - 1
            end = _paren_end(scope, start)
            _FAMILY.setdefault(m.group(2), []).append(_split_params(scope[start + 1:end]))
    return _FAMILY


def _paren_end(text, k):
    depth = 0
    for j in range(k, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return len(text)


def _split_params(text) -> list:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + ([cur.strip()] if cur.strip() else [])


def _accepts(params: list, o: R.Overload) -> bool:
    patterns = o.params + o.outputs  # several results come back through reference parameters
    if len(params) != len(patterns):
        return False
    for text, p in zip(params, patterns):
        want = _CPP_TYPE.get(type(p))
        if want and want not in text:
            return False
        if isinstance(p, (R.Scalar, R.Exact)) and any(t in text for t in _CPP_TYPE.values()):
            return False
    return True


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", [n for n in NAMES if BUILTINS[n].overloads])
def test_cpp_overloads_are_declared(name):
    """For every overload a C++ function with as many parameters, composites of the same kind
    (vec_t, mat_t, quat_t, transform_t, array_t) in the same places, is declared."""
    b = BUILTINS[name]
    decls = declarations().get(b.symbol[len("wpnb::"):], [])
    missing = [oi for oi, o in enumerate(b.overloads) if not any(_accepts(d, o) for d in decls)
               and f"cpp:{name}[{oi}]" not in bc.KNOWN_BROKEN]
    assert not missing, (f"wp.{name}: no C++ declaration of {b.symbol} matches overloads {missing}:\n"
                         + "\n".join(R.describe_overloads(R.Builtin(name, tuple(b.overloads[k] for k in missing),
                                                                     b.header)).splitlines())
                         + f"\ndeclared: {[', '.join(d) for d in decls][:8]}")


@pytest.mark.needs_cxx
@pytest.mark.parametrize("entry", [pytest.param(k, marks=pytest.mark.xfail(reason=v, strict=False))
                                   for k, v in sorted(bc.KNOWN_BROKEN.items()) if k.startswith("cpp:")])
def test_known_missing_cpp_overloads(entry):
    """Overloads known to lack a C++ function (KNOWN_BROKEN in builtin_cases.py): expected to
    fail until fixed (then XPASS: remove the entry)."""
    name, oi = re.match(r"cpp:(\w+)\[(\d+)\]", entry).groups()
    b = BUILTINS[name]
    decls = declarations().get(b.symbol[len("wpnb::"):], [])
    assert any(_accepts(d, b.overloads[int(oi)]) for d in decls), f"no C++ declaration for overload {oi} of wp.{name}"


@pytest.mark.needs_cxx
def test_declared_functions_sanity():
    """The symbol scan sees macro-generated functions and ignores helpers in nested namespaces."""
    scalar = declared_functions("core/scalar.h")
    assert {"sqrt", "add", "lt", "bit_and", "isnan"} <= scalar  # generated by macros
    assert "fmod" not in scalar  # only wpnb::libm::fmod exists
    assert "atomic_add" in declared_functions("arrays/atomic.h")  # token-pasted name
    assert "matrix_from_rows" in declared_functions("core/mat.h")


# --- weak typing of literals ---------------------------------------------------------------------


def test_literals_resolve_to_the_overload_type():
    lit_int, lit_float = R.Literal("int", 2), R.Literal("float", 2.5)
    assert R.resolve(BUILTINS["mul"], [wp.float32, lit_int]).result is wp.float32
    assert R.resolve(BUILTINS["mul"], [wp.float64, lit_int]).result is wp.float64
    assert R.resolve(BUILTINS["mul"], [lit_float, wp.float64]).result is wp.float64
    assert R.resolve(BUILTINS["mul"], [wp.vec3d, lit_int]).result is wp.vec3d
    assert R.resolve(BUILTINS["sqrt"], [lit_int]).result is wp.float32
    assert R.resolve(BUILTINS["mul"], [wp.float32, wp.int32]) is None
    assert R.resolve(BUILTINS["mul"], [wp.int32, lit_float]) is None  # a float literal never becomes an int
    assert R.resolve(BUILTINS["add"], [lit_int, lit_int]).result is wp.int32


WEAK_SOURCE = '''
import warp_nb as wp


@wp.kernel
def times_int_literal(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = x[i] * 2


@wp.kernel
def literal_times_f64(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = 3 * x[i] + 0.5


@wp.kernel
def float_times_int(x: wp.array(dtype=wp.float32), n: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = x[i] * n[i]


@wp.kernel
def sqrt_of_literal(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = wp.sqrt(2) * x[i]


@wp.kernel
def sqrt_of_literal_f64(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.sqrt(2) * x[i]
'''


@pytest.fixture
def weak_module(tmp_path):
    return bc.import_source(tmp_path / "mod_weak_typing.py", WEAK_SOURCE)


@pytest.mark.needs_cxx
def test_int_literal_adapts_to_float32(weak_module):
    x = np.array([0.5, -1.25, 3.0], np.float32)
    out = wp.zeros(3, dtype=wp.float32)
    wp.launch(weak_module.times_int_literal, dim=3, inputs=[wp.array(x, dtype=wp.float32), out])
    np.testing.assert_array_equal(out.numpy(), x * 2)
    x64 = np.array([0.1, -2.0, 1e10])
    out64 = wp.zeros(3, dtype=wp.float64)
    wp.launch(weak_module.literal_times_f64, dim=3, inputs=[wp.array(x64, dtype=wp.float64), out64])
    np.testing.assert_array_equal(out64.numpy(), 3 * x64 + 0.5)  # float64 arithmetic, no float32 rounding


@pytest.mark.needs_cxx
def test_float_times_int_variable_is_an_error(weak_module):
    args = [wp.zeros(2, dtype=wp.float32), wp.zeros(2, dtype=wp.int32), wp.zeros(2, dtype=wp.float32)]
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(weak_module.float_times_int, dim=2, inputs=args)
    assert "float(" in str(e.value), str(e.value)


@pytest.mark.needs_cxx
def test_sqrt_of_int_literal_is_float32(weak_module):
    x = np.array([1.0, 2.0], np.float32)
    out = wp.zeros(2, dtype=wp.float32)
    wp.launch(weak_module.sqrt_of_literal, dim=2, inputs=[wp.array(x, dtype=wp.float32), out])
    np.testing.assert_allclose(out.numpy(), np.sqrt(np.float32(2)) * x, rtol=1e-7)
    # float32, not a weak value: it does not combine with float64
    with pytest.raises(wp.KernelTypeError):
        wp.launch(weak_module.sqrt_of_literal_f64, dim=2,
                  inputs=[wp.zeros(2, dtype=wp.float64), wp.zeros(2, dtype=wp.float64)])


LITERAL_ARGS_SOURCE = '''
import warp_nb as wp


@wp.kernel
def literal_args(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d),
                 n: wp.array(dtype=wp.int64), out32: wp.array(dtype=wp.float32, ndim=2),
                 out64: wp.array(dtype=wp.float64, ndim=2), outv: wp.array(dtype=wp.vec3d, ndim=2),
                 outn: wp.array(dtype=wp.int64, ndim=2)):
    i = wp.tid()
    out32[i, 0] = wp.min(x[i], 0)
    out32[i, 1] = wp.max(1, x[i])
    out32[i, 2] = wp.clamp(x[i], -0.5, 1)
    out32[i, 3] = wp.atan2(x[i], 2)
    out32[i, 4] = wp.pow(wp.abs(x[i]), 2)
    out32[i, 5] = wp.lerp(x[i], 3, 0.25)
    out32[i, 6] = 1 - x[i] / 4
    out64[i, 0] = wp.min(y[i], 0.1)
    out64[i, 1] = wp.smoothstep(0, 1, y[i])
    out64[i, 2] = y[i] ** 2
    out64[i, 3] = wp.where(y[i] > 0, y[i], 0)
    outv[i, 0] = v[i] * 2
    outv[i, 1] = 0.5 * v[i]
    outv[i, 2] = v[i] / 4
    outn[i, 0] = n[i] * 3 + 1
    outn[i, 1] = n[i] // 2
    outn[i, 2] = wp.max(n[i], 5)
'''


@pytest.mark.needs_cxx
def test_literal_arguments_take_the_other_arguments_type(tmp_path):
    """Int and float literals in builtin calls and operators adapt to float32, float64, vec3d
    and int64 operands (the results keep that type: float64 math is not rounded to float32)."""
    module = bc.import_source(tmp_path / "mod_literal_args.py", LITERAL_ARGS_SOURCE)
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, 8).astype(np.float32)
    y = rng.uniform(-2, 2, 8)
    v = rng.uniform(-2, 2, (8, 3))
    n = rng.integers(-10 ** 12, 10 ** 12, 8)
    outs = [wp.zeros((8, 7), dtype=wp.float32), wp.zeros((8, 4), dtype=wp.float64),
            wp.zeros((8, 3), dtype=wp.vec3d), wp.zeros((8, 3), dtype=wp.int64)]
    wp.launch(module.literal_args, dim=8, inputs=[wp.array(x, dtype=wp.float32), wp.array(y, dtype=wp.float64),
                                                  wp.array(v, dtype=wp.vec3d), wp.array(n, dtype=wp.int64), *outs])
    o32, o64, ov, on = (o.numpy() for o in outs)
    xd = x.astype(np.float64)
    exp32 = np.stack([np.minimum(xd, 0), np.maximum(1, xd), np.clip(xd, -0.5, 1), np.arctan2(xd, 2), np.abs(xd) ** 2,
                      xd * 0.75 + 3 * 0.25, 1 - xd / 4], axis=1)
    np.testing.assert_allclose(o32, exp32, rtol=1e-6, atol=1e-6)
    u = np.clip(y, 0, 1)
    exp64 = np.stack([np.minimum(y, 0.1), u * u * (3 - 2 * u), y ** 2, np.where(y > 0, y, 0)], axis=1)
    np.testing.assert_allclose(o64, exp64, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(ov, np.stack([v * 2, 0.5 * v, v / 4], axis=1), rtol=1e-15)
    np.testing.assert_array_equal(on, np.stack([n * 3 + 1, n // 2, np.maximum(n, 5)], axis=1))
