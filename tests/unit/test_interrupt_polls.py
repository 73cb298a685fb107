"""Which loops of a CPU kernel test the interrupt flag (compiler/interrupt_polls.py): every while
loop, a for loop around a long loop (a while, a query, a counted loop of unknown or large count,
directly, under a branch or in a called function), never an innermost counted loop (GCC must be
free to vectorise it), in CPU blocks of several lanes as in one. Read from the emitted C++: the
test comes right after the loop's opening line."""

import textwrap

import warp_nb as wp
from warp_nb.compiler.adjoint import adjoint_unit
from warp_nb.compiler.emit import emit_kernel, for_target
from warp_nb.compiler.parse import parse_source
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel
from warp_nb.runtime.target import CpuTarget
from warp_nb.types.array_type import ArrayType

POLL = "if (WPNB_INTERRUPTED()) break;"


@wp.func
def _sum_to(a: wp.array(dtype=float), n: int) -> float:
    s = float(0.0)
    for j in range(n):
        s += a[j]
    return s


@wp.func
def _sum_three(a: wp.array(dtype=float)) -> float:
    s = float(0.0)
    for j in range(100):
        s += a[j]
    return s


def polled(src: str, backward: bool = False, block_dim: int = 1) -> dict:
    """{the user's loop line: whether the line after the loop's opening is the test}, for the
    kernel's own loops (a function's loops: under its name)."""
    fdef = parse_source(textwrap.dedent(src), "k.py")
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp, "_sum_to": _sum_to, "_sum_three": _sum_three}
    context = Context("release", backward=backward)
    context.block_dim = block_dim
    kernel = typecheck_kernel(fdef, [ArrayType(wp.float32, 1), wp.int32], scope, context)
    unit = for_target(emit_kernel(kernel, "release", adjoint_unit(kernel, True) if backward else None), CpuTarget())
    lines = [ln.strip() for ln in unit.source.splitlines()]
    out = {}
    for k, ln in enumerate(lines):
        if ln.startswith("for (") and "wpnb_begin" not in ln:  # (not the entry point's loop over threads)
            where = next((x for x in reversed(lines[:k]) if x.startswith("// @line")), "?")
            tests = POLL in lines[k + 1:k + 4] if ln == "for (;;) {" else lines[k + 1] == POLL
            out.setdefault(where.split(":")[0], []).append(tests)
    return out, unit.source


def test_the_innermost_counted_loop_is_free_and_the_loop_around_it_tests():
    found, source = polled("""
        def k(a: wp.array(dtype=float), n: int):
            s = float(0.0)
            for i in range(n):
                for j in range(n):
                    s += a[j]
            for i in range(n):
                for k in range(100):  # (a constant count up to 16 is unrolled)
                    s += a[k]
            a[0] = s
        """)
    assert found == {"// @line 4": [True], "// @line 5": [False], "// @line 7": [False], "// @line 8": [False]}, \
        source


def test_long_loops_in_a_branch_a_while_or_a_called_function_make_the_loop_around_them_test():
    found, source = polled("""
        def k(a: wp.array(dtype=float), n: int):
            s = float(0.0)
            for i in range(n):
                if a[i] > 0.0:
                    for j in range(100000):
                        s += a[j]
            for i in range(n):
                s += _sum_to(a, n)
            for i in range(n):
                s += _sum_three(a)
            for i in range(n):
                m = int(0)
                while m < i:
                    m += 1
            a[0] = s
        """)
    assert found["// @line 4"] == [True], source
    assert found["// @line 6"] == [False], source  # constant, but long: its loop tests, not it
    assert found["// @line 8"] == [True], source  # _sum_to's loop has no constant count
    assert found["// @line 10"] == [False], source  # _sum_three's loop is short
    assert found["// @line 12"] == [True], source
    assert found["// @line 14"] == [True], source  # the while loop tests in every iteration


def test_reverse_loops_and_the_loops_of_cpu_blocks_test():
    src = """
        def k(a: wp.array(dtype=float), n: int):
            s = float(0.0)
            for i in range(n):
                s = s * a[i]
            a[0] = s
        """
    found, source = polled(src, backward=True)
    # the forward loop is innermost; the backward pass replays it up to each iteration (two loops)
    assert found["// @line 4"][0] is False and True in found["// @line 4"][1:], source
    found, source = polled("""
        def k(a: wp.array(dtype=float), n: int):
            s = float(0.0)
            for i in range(n):
                while s < float(i):
                    s += 1.0
            t = wp.tile_ones(shape=8, dtype=float)
            a[0] = s + wp.tile_sum(t)[0]
        """, block_dim=8)
    # in CPU blocks too: the fiber scheduler resumes no lane once the flag is set (block_cpu.h)
    assert found["// @line 4"] == [True] and source.count(POLL) == 2, source
