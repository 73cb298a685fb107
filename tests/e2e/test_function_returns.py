"""A @wp.func returns one type: returns that give different types are refused at the line of the
later one, literals included (`return 1.0` then `return 2`), as Warp refuses them."""

import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def float_then_int_literal(x: float):
    if x > 0.0:
        return 1.0
    return 2


@wp.func
def int_then_float_literal(n: int):
    if n > 0:
        return n
    return 1.5


@wp.func
def float_then_float_literal(x: float):
    if x > 0.0:
        return x
    return 0.0


@pytest.mark.parametrize("func, arg, said", [(float_then_int_literal, 1.0, "write 2.0"),
                                             (int_then_float_literal, 1, "write 1")])
def test_a_function_returns_one_type_literals_included(func, arg, said):
    """`return 1.0` on one path and `return 2` on another are two types, and Warp refuses them; the
    error names the literal to write instead, at the second return's line."""
    @wp.kernel(module="unique")
    def call(a: wp.array(dtype=float)):
        a[0] = float(func(arg))

    with pytest.raises(wp.KernelTypeError, match=f"all returns must have one type.*{said}"):
        wp.launch(call, dim=1, inputs=[wp.zeros(1)])


def test_a_float_literal_return_beside_a_float_value_is_one_type():
    @wp.kernel(module="unique")
    def call(a: wp.array(dtype=float)):
        a[0] = float_then_float_literal(-1.0) + float_then_float_literal(3.0)

    a = wp.zeros(1)
    wp.launch(call, dim=1, inputs=[a])
    assert a.numpy()[0] == 3.0
