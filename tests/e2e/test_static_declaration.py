"""wp.static(expr) evaluated when the kernel is declared (as Warp): each declaration bakes its own
value, and an expression that fails raises there, naming the expression and the line; a name not
defined yet waits for the compile."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _make(table):
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[wp.tid()] = wp.static(table["v"])

    return k


def test_each_declaration_bakes_its_own_value():
    outs = []
    for v in (5.0, -2.5):
        out = wp.zeros(2, dtype=float, device="cpu")
        wp.launch(_make({"v": v}), dim=2, inputs=[out], device="cpu")
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs, [[5.0, 5.0], [-2.5, -2.5]])


def test_a_failing_expression_raises_at_declaration():
    with pytest.raises(wp.WarpCodegenError, match=r"Error evaluating static expression: 'v'.*KeyError") as caught:
        _make({})
    assert "line" in str(caught.value) and 'wp.static(table["v"])' in str(caught.value)


def test_a_name_defined_after_the_kernel_is_read_at_compile_time():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = wp.static(LATER)  # noqa: F821 - bound below, before the launch

    # (left bound: the session's NVRTC check compiles this kernel again, reading LATER again)
    globals()["LATER"] = 3.0
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(k, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 3.0


def test_an_alias_of_wp_static_rebound_after_declaration_keeps_its_value():
    globals()["_static_alias"] = wp.static

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=wp.int32)):
        out[0] = _static_alias(7)  # noqa: F821 - a global bound above

    globals()["_static_alias"] = lambda value: value + 100  # no longer wp.static when the kernel compiles
    try:
        out = wp.zeros(1, dtype=wp.int32, device="cpu")
        wp.launch(k, dim=1, inputs=[out], device="cpu")
        assert out.numpy()[0] == 7
    finally:
        del globals()["_static_alias"]
