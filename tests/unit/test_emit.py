"""emit: typed IR -> C++ text. The text is checked for what it must contain and compiled with
`g++ -fsyntax-only` on its own (no build, no cache)."""

import subprocess
import textwrap

import pytest

import warp_nb as wp
from warp_nb.types.array_type import ArrayType
from warp_nb.toolchain.cxx import find_compiler
from warp_nb.compiler.adjoint import adjoint_unit
from warp_nb.compiler.emit import emit_kernel, for_target
from warp_nb.compiler.emit.cpp import cpp_type, literal
from warp_nb.compiler.parse import parse_source
from warp_nb.toolchain.headers import native_dir
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel
from warp_nb.runtime.target import CpuTarget


def emitted(src: str, params: list, mode: str = "release", names=None):
    fdef = parse_source(textwrap.dedent(src), "k.py")
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp, **(names or {})}
    return for_target(emit_kernel(typecheck_kernel(fdef, params, scope, Context(mode)), mode), CpuTarget())


def syntax_check(source: str):
    proc = subprocess.run([find_compiler(), "-std=c++17", "-fsyntax-only", "-Wall", f"-I{native_dir()}", "-x", "c++",
                           "-"], input=source, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:3000]


def test_cpp_type_names():
    assert cpp_type(wp.float32) == "wpnb::float32"
    assert cpp_type(wp.vec3d) == "wpnb::vec_t<3, wpnb::float64>"
    assert cpp_type(wp.mat22h) == "wpnb::mat_t<2, 2, wpnb::half>"
    assert cpp_type(ArrayType(wp.quat, 2)) == "wpnb::array_t<wpnb::quat_t<wpnb::float32>, 2>"


def test_literals():
    assert literal(1.5, wp.float32) == "1.5f"
    assert literal(float("inf"), wp.float32) == "wpnb::bits_float(0x7f800000u)"
    assert literal(-(2 ** 31), wp.int32) == "wpnb::int32(-2147483647 - 1)"
    assert literal(True, wp.bool) == "true"
    assert literal(wp.vec2(1.0, 2.0), wp.vec2) == "wpnb::vec_t<2, wpnb::float32>(1.0f, 2.0f)"


@wp.func(inline=False)
def _kept_out_of_line(x: float) -> float:
    return x * x


@wp.func(inline=True)
def _forced_inline(x: float) -> float:
    return x + 1.0


@wp.func
def _compiler_chooses(x: float) -> float:
    return x * 2.0


def test_inline_hints_qualify_the_function_and_its_adjoint():
    # Warp's @wp.func(inline=...): never inline, always inline, or the compiler's choice, forward and adjoint
    fdef = parse_source(textwrap.dedent("""
        def k(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = _kept_out_of_line(a[i]) + _forced_inline(a[i]) + _compiler_chooses(a[i])
        """), "k.py")
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp, "_kept_out_of_line": _kept_out_of_line, "_forced_inline": _forced_inline,
                     "_compiler_chooses": _compiler_chooses}
    kernel = typecheck_kernel(fdef, [ArrayType(wp.float32, 1)], scope, Context("release", backward=True))
    unit = for_target(emit_kernel(kernel, "release", adjoint_unit(kernel, True)), CpuTarget())
    lines = unit.source.splitlines()
    for name, qualifier in (("_kept_out_of_line", "WPNB_NOINLINE_FN"), ("_forced_inline", "WPNB_FORCEINLINE_FN"),
                            ("_compiler_chooses", "WPNB_FN")):
        definitions = [ln for ln in lines if f"f_{name}_" in ln and ln.rstrip().endswith("{")]
        assert len(definitions) == 2, definitions  # the function and its adjoint
        assert all(ln.startswith(qualifier + " ") for ln in definitions), definitions
    syntax_check(unit.source)


@pytest.mark.needs_cxx
def test_kernel_text_is_readable_and_compiles():
    unit = emitted("""
        def k(a: wp.array(dtype=wp.vec3), s: float, n: int):
            i = wp.tid()
            acc = wp.vec3()
            for j in range(n):
                acc = acc + a[j] * s
            if wp.length(acc) > 1.0:
                acc = wp.normalize(acc)
            a[i] = acc
        """, [ArrayType(wp.vec3, 1), wp.float32, wp.int32])
    src = unit.source
    assert '#include "core/vec.h"' in src and '#include "core/mat.h"' not in src  # only what the kernel uses
    assert "// @line 6:" in src  # the user's lines, for mapping compiler errors back
    assert "acc_" in src and unit.entry in src
    syntax_check(src)


@pytest.mark.needs_cxx
def test_debug_mode_checks_array_accesses():
    unit = emitted("""
        def k(a: wp.array2d(dtype=float)):
            i, j = wp.tid()
            a[i, j] = a[j, i] + 1.0
        """, [ArrayType(wp.float32, 2)], mode="debug")
    assert unit.source.count("wpnb::index_checked") == 2 and len(unit.debug_sites) == 2
    assert unit.debug_sites[0].what == "array `a`" and unit.debug_sites[0].loc.line == 4
    syntax_check(unit.source)


@pytest.mark.needs_cxx
def test_struct_and_tuple_definitions():
    @wp.struct
    class Body:
        x: wp.vec3
        m: float

    @wp.func
    def split(b: Body):
        return b.x, b.m

    unit = emitted("""
        def k(bodies: wp.array(dtype=Body), out: wp.array(dtype=float)):
            i = wp.tid()
            x, m = split(bodies[i])
            out[i] = x[0] * m
        """, [ArrayType(Body, 1), ArrayType(wp.float32, 1)], names={"Body": Body, "split": split})
    assert "struct s_Body_" in unit.source and "struct tuple_" in unit.source
    syntax_check(unit.source)


def test_a_comment_never_ends_in_a_backslash():
    from warp_nb.compiler.emit.cpp import comment_text
    assert comment_text("    a = x[i] * 2.0 + \\") == "a = x[i] * 2.0 + [continued]"
    assert comment_text("a = b \\\\") .endswith("[continued]")
    assert comment_text("a \\ b") == "a \\ b"  # a backslash inside the line is harmless
    assert "\n" not in comment_text("one\ntwo")
