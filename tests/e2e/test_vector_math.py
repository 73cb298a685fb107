"""Vectorised libm on the CPU (toolchain/vector_math.py): loops over sin, exp, ... call glibc's
libmvec where it is found; the results stay within libmvec's 4 ulp of the exact values, special
values are kept, the thread count does not change a bit, and wp.config.cpu_vector_math = False
(or a debug build) goes back to the scalar calls. Gradient loops vectorise too: their gradient
accesses keep the forward access's proof that an index is not negative, and a negative index
still wraps to the same element in both passes."""

from pathlib import Path

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.toolchain import vector_math

pytestmark = pytest.mark.needs_cxx
VECTOR = vector_math.level("g++") > 0 and wp.config.cpu_vector_math
needs_libmvec = pytest.mark.skipif(not VECTOR, reason="no libmvec here (x86-64 glibc) or vector math turned off")

# function -> (numpy reference, input range); ranges stay where float32 results are normal numbers
FUNCTIONS = {
    "sin": (np.sin, (-100.0, 100.0)), "cos": (np.cos, (-100.0, 100.0)), "exp": (np.exp, (-80.0, 80.0)),
    "log": (np.log, (1e-30, 1e30)), "tan": (np.tan, (-10.0, 10.0)), "asin": (np.arcsin, (-1.0, 1.0)),
    "acos": (np.arccos, (-1.0, 1.0)), "atan": (np.arctan, (-100.0, 100.0)), "sinh": (np.sinh, (-80.0, 80.0)),
    "cosh": (np.cosh, (-80.0, 80.0)), "tanh": (np.tanh, (-10.0, 10.0)), "cbrt": (np.cbrt, (-1e6, 1e6)),
    "log2": (np.log2, (1e-30, 1e30)), "log10": (np.log10, (1e-30, 1e30)),
}


def _kernel(name, dtype):
    fn = getattr(wp, name)

    @wp.kernel(module="unique")
    def apply(x: wp.array(dtype=dtype), y: wp.array(dtype=dtype)):
        i = wp.tid()
        y[i] = fn(x[i])

    return apply


def _inputs(name, n, dtype):
    lo, hi = FUNCTIONS[name][1]
    rng = np.random.default_rng(7)
    if lo > 0:  # (logarithms: every decade alike)
        return (10.0 ** rng.uniform(np.log10(lo), np.log10(hi), n)).astype(dtype)
    return rng.uniform(lo, hi, n).astype(dtype)


def _ulps(got, exact, dtype):
    rounded = exact.astype(dtype)
    return np.abs(got.astype(np.float64) - exact) / np.spacing(np.abs(rounded)).astype(np.float64)


def _run(kernel, xs, dtype):
    x = wp.array(xs, dtype=dtype)
    y = wp.zeros(len(xs), dtype=dtype)
    wp.launch(kernel, len(xs), inputs=[x, y])
    return y.numpy()


def _library_of(cache: Path) -> bytes:
    libs = sorted(cache.rglob("k_apply_*.so"), key=lambda p: p.stat().st_mtime)
    assert libs, f"no kernel library in {cache}"
    return libs[-1].read_bytes()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_results_within_four_ulp(name):
    """Every function of every level, against numpy in float64 (the scalar calls are within 1 ulp;
    libmvec promises 4)."""
    xs = _inputs(name, 100_003, np.float32)
    got = _run(_kernel(name, wp.float32), xs, np.float32)
    exact = FUNCTIONS[name][0](xs.astype(np.float64))
    assert _ulps(got, exact, np.float32).max() <= 4.0


@pytest.mark.parametrize("name", ["sin", "exp", "log", "atan", "cbrt"])
def test_float64_results_within_four_ulp(name):
    xs = _inputs(name, 20_001, np.float64)
    got = _run(_kernel(name, wp.float64), xs, np.float64)
    exact = FUNCTIONS[name][0](xs)  # (numpy's float64 functions are within 1 ulp themselves)
    assert _ulps(got, exact, np.float64).max() <= 5.0


def test_special_values_as_the_scalar_functions_give_them():
    """nan, infinities, signed zeros, subnormals and huge arguments (sin's slow range reduction),
    placed among ordinary values so that they go through the vector calls."""
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e30, 0.5],
                       dtype=np.float32)
    xs = np.resize(special, 160)
    for name, exact in (("sin", np.sin), ("cos", np.cos), ("exp", np.exp), ("log", np.log)):
        got = _run(_kernel(name, wp.float32), xs, np.float32)
        with np.errstate(all="ignore"):
            want = exact(xs.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)], err_msg=name)
        assert _ulps(got[finite], exact(xs[finite].astype(np.float64)), np.float32).max() <= 4.0, name
        zeros = xs == 0
        if name == "sin":  # the sign of zero is kept
            np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(xs[zeros]))


def test_the_thread_count_does_not_change_a_bit():
    """Which elements a vector call computes depends only on the launch's size (chunks start at
    multiples of 64 threads), so one thread and every thread give the same bits."""
    xs = _inputs("sin", 100_003, np.float32)
    kernel = _kernel("sin", wp.float32)
    old = wp.config.cpu_threads
    try:
        wp.config.cpu_threads = 1
        one = _run(kernel, xs, np.float32)
        wp.config.cpu_threads = 0
        every = _run(kernel, xs, np.float32)
    finally:
        wp.config.cpu_threads = old
    np.testing.assert_array_equal(one, every)


@needs_libmvec
def test_the_loop_calls_libmvec_and_the_switch_turns_it_off(fresh_cache):
    @wp.kernel(module="unique")
    def apply(x: wp.array(dtype=float), y: wp.array(dtype=float)):  # (a kernel no other test built)
        i = wp.tid()
        y[i] = wp.sin(x[i] * 1.0)

    xs = _inputs("sin", 4099, np.float32)
    vector = _run(apply, xs, np.float32)
    assert b"_ZGV" in _library_of(fresh_cache)  # e.g. _ZGVdN8v_sinf
    old = wp.config.cpu_vector_math
    try:
        wp.config.cpu_vector_math = False
        scalar = _run(apply, xs, np.float32)
    finally:
        wp.config.cpu_vector_math = old
    assert b"_ZGV" not in _library_of(fresh_cache)
    exact = np.sin(xs.astype(np.float64))
    assert _ulps(scalar, exact, np.float32).max() <= 1.0  # glibc's scalar sinf
    assert _ulps(vector, exact, np.float32).max() <= 4.0


def test_debug_builds_keep_the_scalar_calls():
    xs = _inputs("exp", 1000, np.float32)

    @wp.kernel(module="unique", module_options={"mode": "debug"})
    def apply(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = wp.exp(x[i])

    got = _run(apply, xs, np.float32)
    assert _ulps(got, np.exp(xs.astype(np.float64)), np.float32).max() <= 1.0


def test_every_level_lists_every_variant():
    """What the probe asks libmvec for: each function of a level in float and double, for each of
    the four x86-64 vector ISAs, unary and binary alike."""
    one = vector_math.symbols(1)
    assert "_ZGVdN8v_sinf" in one and "_ZGVeN8v_exp" in one and "_ZGVbN4vv_powf" in one
    assert "_ZGVdN8v_tanf" not in one
    two = vector_math.symbols(2)
    assert set(one) < set(two) and "_ZGVcN4vv_atan2" in two and "_ZGVeN16v_erff" in two
    assert len(two) == 8 * sum(len(u) + len(b) for _, u, b in vector_math.LEVELS)
    assert vector_math.level("clang version 17.0.6") == 0  # clang does not read GCC's simd attribute


# --- gradients ---------------------------------------------------------------------------------
def test_elementwise_gradient_matches_the_derivative():
    @wp.kernel(module="unique")
    def loss(x: wp.array(dtype=float), y: wp.array(dtype=float), total: wp.array(dtype=float)):
        i = wp.tid()
        v = wp.sin(x[i]) * wp.exp(0.1 * x[i])
        y[i] = v
        wp.atomic_add(total, 0, v)

    xs = _inputs("sin", 10_007, np.float32)
    x = wp.array(xs, requires_grad=True)
    y = wp.zeros(len(xs), requires_grad=True)
    total = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loss, len(xs), inputs=[x, y, total])
    tape.backward(total)
    xd = xs.astype(np.float64)
    want = (np.cos(xd) + 0.1 * np.sin(xd)) * np.exp(0.1 * xd)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=2e-5, atol=2e-5)


def test_gradients_of_negative_indices_reach_the_wrapped_element():
    """y[i] = x[i - 1] * (i + 1) reads x[-1] (the last element) at i = 0, and z[i - 1] = x[i] writes
    z[-1]: the gradient accesses wrap as the forward ones do (their indices may be negative)."""

    @wp.kernel(module="unique")
    def shift(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i - 1] * float(i + 1)
        z[i - 1] = x[i] * 3.0

    n = 37
    x = wp.array(np.arange(n, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, requires_grad=True)
    z = wp.zeros(n, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(shift, n, inputs=[x, y, z])
    np.testing.assert_array_equal(z.numpy(), np.roll(np.arange(n, dtype=np.float32) * 3.0, -1))
    tape.backward(grads={y: wp.array(np.ones(n, dtype=np.float32)),
                         z: wp.array(np.arange(n, dtype=np.float32) + 100.0)})
    want = np.roll(np.arange(n, dtype=np.float64) + 1.0, -1)  # x[j] feeds y[j + 1] (x[n-1] feeds y[0])
    want += 3.0 * (np.roll(np.arange(n, dtype=np.float64), 1) + 100.0)  # x[j] feeds z[j - 1]
    np.testing.assert_allclose(x.grad.numpy(), want)
    np.testing.assert_array_equal(z.grad.numpy(), np.zeros(n))  # consumed by the store's adjoint
