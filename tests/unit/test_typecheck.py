"""typecheck: syntax tree -> typed IR. Checked on the IR text and with ir.verify; errors name
the user's line and never our module names."""

import textwrap

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.compiler import ir
from warp_nb.compiler.verify import verify
from warp_nb.types.array_type import ArrayType
from warp_nb.errors import KernelAttributeError, KernelNameError, KernelTypeError
from warp_nb.compiler.parse import parse_source
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel


def typed(src: str, params: list, names: dict | None = None):
    fdef = parse_source(textwrap.dedent(src), "k.py")
    fn = lambda: None  # noqa: E731  (a function whose globals provide the names)
    scope = Scope(fn)
    scope.globals = {"wp": wp, **(names or {})}
    result = typecheck_kernel(fdef, params, scope, Context("release"))
    verify(result)
    return result


F1 = ArrayType(wp.float32, 1)


def _python_helper(v):
    return v * 2.0


def test_saxpy_ir():
    fn = typed("""
        def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = a * x[i] + y[i]
        """, [wp.float32, F1, F1])
    text = ir.format_function(fn)
    assert "tid(0 of 1)" in text and "mul(" in text and "add(" in text and "store y_" in text
    assert fn.tid_count == 1 and fn.return_type is None


def test_literals_adapt_to_operand_types():
    fn = typed("""
        def k(x: wp.array(dtype=wp.float64)):
            i = wp.tid()
            x[i] = x[i] * 2 + 0.5
        """, [ArrayType(wp.float64, 1)])
    consts = [s.value for s in fn.body if isinstance(s, ir.Let) and isinstance(s.value, ir.Const)]
    assert {c.type for c in consts} == {wp.float64}


def test_if_joins_with_phi_and_loop_carries_state():
    fn = typed("""
        def k(x: wp.array(dtype=float), n: int):
            i = wp.tid()
            acc = float(0.0)
            for j in range(n):
                acc = acc + x[j]
            if acc > 1.0:
                acc = 1.0
            x[i] = acc
        """, [F1, wp.int32])
    loops = [s for s in fn.body if isinstance(s, ir.For)]
    ifs = [s for s in fn.body if isinstance(s, ir.If)]
    assert len(loops) == 1 and [c.name for c in loops[0].carried] == ["acc"]
    assert len(ifs) == 1 and len(ifs[0].phis) == 1
    assert ifs[0].phis[0].dst.mutable and loops[0].carried[0].state.mutable


def test_constant_range_is_unrolled_and_long_range_is_not():
    short = typed("""
        def k(x: wp.array(dtype=float)):
            s = float(0.0)
            for j in range(4):
                s = s + float(j)
            x[0] = s
        """, [F1])
    assert not any(isinstance(s, ir.For) for s in short.body)
    long = typed("""
        def k(x: wp.array(dtype=float)):
            s = float(0.0)
            for j in range(1000):
                s = s + float(j)
            x[0] = s
        """, [F1])
    assert any(isinstance(s, ir.For) for s in long.body)


def test_compile_time_if_only_types_taken_branch():
    fn = typed("""
        def k(x: wp.array(dtype=float)):
            if DEBUG:
                x[0] = undefined_name
            else:
                x[0] = 1.0
        """, [F1], {"DEBUG": False})
    assert not any(isinstance(s, ir.If) for s in fn.body)


@pytest.mark.parametrize("body, error, words", [
    ("y = nothing_here", KernelNameError, "Referencing undefined symbol: nothing_here"),
    ("y = x[0] * n", KernelTypeError, "float(i)"),
    ("y = 1.0\n    y = n", KernelTypeError, "keeps one type"),
    ("y = wp.cross(x[0], x[0])", KernelTypeError, "wp.cross does not accept"),
    ("y = wp.bit_count(x[0])", KernelTypeError, "Couldn't find function overload for 'bit_count': wp.bit_count does "
                                                "not accept (float32)"),
    ("v = wp.vec3()\n    v.y = v", KernelTypeError, "Composite slot assignment expects value of type float32, got vec3f"),
    ("y = L[0]", KernelTypeError, "kernels accept wp.array"),
    # an array bound on some paths only is an empty array on the others (tests/e2e/test_e2e_control_flow.py)
    ("if n > 0:\n        z = x\n    y = z[0]", None, None),
    ("y = x", None, None),
    ("return 1.0", KernelTypeError, "kernels cannot return values"),
    ("wp.launch(n)", KernelTypeError, "cannot be called inside a kernel"),
    # errors that teach: the closest name, the wp builtin for numpy's, @wp.func for a helper
    ("value = 1.0\n    y = valeu", KernelNameError, "Did you mean `value`?"),
    ("y = wp.sinn(x[0])", KernelAttributeError, "Did you mean `wp.sin`?"),
    ("y = np.fabs(x[0])", KernelTypeError, "wp has no builtin of that name"),  # np.sin is wp.sin (Warp)
    ("y = helper(x[0])", KernelTypeError, "decorate it with @wp.func"),
    ("y = n * 0.5", KernelTypeError, "float(i)"),
])
def test_type_errors_point_at_the_line(body, error, words):
    src = f"def k(x: wp.array(dtype=float), n: int):\n    {body}\n"
    if error is None:
        typed(src, [F1, wp.int32])
        return
    with pytest.raises(error) as info:
        typed(src, [F1, wp.int32], {"L": [1, 2, 3], "np": np, "helper": _python_helper})
    message = str(info.value)
    assert words in message, message
    assert "It accepts" not in message or "float(i)" not in words  # the conversion, not a dozen overloads
    assert "k.py, line" in message and "^" in message
    assert "warp_nb." not in message and "typecheck" not in message


def test_recursion_is_refused():
    @wp.func
    def fact(n: int) -> int:
        if n <= 1:
            return 1
        return n * fact(n - 1)

    with pytest.raises(wp.KernelError) as info:
        typed("def k(x: wp.array(dtype=int)):\n    x[0] = fact(3)\n", [ArrayType(wp.int32, 1)], {"fact": fact})
    assert "recursion" in str(info.value)


def test_func_instances_are_typed_per_argument_types():
    @wp.func
    def twice(v: wp.types.Any):
        return v + v

    fn = typed("""
        def k(x: wp.array(dtype=float), y: wp.array(dtype=wp.vec3)):
            x[0] = twice(x[0])
            y[0] = twice(y[0])
        """, [F1, ArrayType(wp.vec3, 1)], {"twice": twice})
    assert len(fn.funcs) == 2 and fn.funcs[0].symbol != fn.funcs[1].symbol

