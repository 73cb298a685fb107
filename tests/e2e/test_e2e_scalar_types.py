"""End to end: the 16-bit float types (bfloat16 next to float16) as array dtypes, kernel values,
struct fields and vector elements, and the nan rules of min / max / clamp (C fmin / fmax, as
Warp), checked against numpy."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import run

pytestmark = pytest.mark.needs_cxx


def bf16_round(x):
    """numpy oracle: float32 -> bfloat16 (round to nearest even) -> float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)


@wp.kernel
def k_bf16_ops(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), s: wp.bfloat16,
               out: wp.array2d(dtype=wp.float32), back: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    x, y = a[i], b[i]
    out[0, i] = wp.float32(x + y)
    out[1, i] = wp.float32(x * y)
    out[2, i] = wp.float32(x / y)
    out[3, i] = wp.float32(wp.sqrt(wp.abs(x)))
    out[4, i] = wp.float32(wp.min(x, s))
    out[5, i] = wp.float32(-x)
    back[i] = wp.bfloat16(wp.float32(x) * 3.0)


def test_bfloat16_arithmetic_rounds_like_numpy():
    a = np.array([1.0, -2.5, 3.140625, 100.0, 1e-3], dtype=np.float32)
    b = np.array([0.5, 3.0, -7.0, 0.3, 2.0], dtype=np.float32)
    aw, bw = wp.array(a, dtype=wp.bfloat16), wp.array(b, dtype=wp.bfloat16)
    # as in Warp: ml_dtypes' bfloat16 where ml_dtypes is installed, else the bits as uint16
    want = wp.types.scalars.ml_dtypes_bfloat16() or np.dtype(np.uint16)
    assert aw.numpy().dtype == want
    ab, bb = bf16_round(a), bf16_round(b)
    np.testing.assert_array_equal(aw.numpy().view(np.uint16).astype(np.uint32) << 16, ab.view(np.uint32))
    out, back = wp.zeros((6, 5), dtype=wp.float32), wp.zeros(5, dtype=wp.bfloat16)
    run(k_bf16_ops, 5, aw, bw, wp.bfloat16(0.75), out, back)
    expected = [ab + bb, ab * bb, ab / bb, np.sqrt(np.abs(ab)), np.minimum(ab, 0.75), -ab]
    np.testing.assert_array_equal(out.numpy(), bf16_round(np.array(expected, dtype=np.float32)))
    np.testing.assert_array_equal(np.array(back.list(), dtype=np.float32), bf16_round(ab * 3.0))


def test_bfloat16_conversion_keeps_nan_inf_and_signed_zero():
    snan = np.array([0x7F800001, 0x7FBFFFFF, 0xFFBFFFFF], dtype=np.uint32).view(np.float32)
    values = np.concatenate([snan, np.array([np.inf, -np.inf, -0.0, 65504.0], dtype=np.float32)])
    got = np.array(wp.array(values, dtype=wp.bfloat16).list(), dtype=np.float32)
    assert np.isnan(got[:3]).all()
    np.testing.assert_array_equal(got[3:], bf16_round(values[3:]))
    assert np.signbit(got[5])


@wp.struct
class Bf16Pair:
    h: wp.bfloat16
    v: wp.vector(3, dtype=wp.bfloat16)


@wp.kernel
def k_bf16_struct(p: Bf16Pair, out: wp.array(dtype=wp.float32), acc: wp.array(dtype=wp.bfloat16)):
    out[0] = wp.float32(p.h)
    out[1] = wp.float32(p.v[2])
    wp.atomic_add(acc, 0, wp.bfloat16(0.5))


def test_bfloat16_struct_vector_and_atomics():
    p = Bf16Pair()
    p.h = 3.3
    p.v = wp.vector(3, dtype=wp.bfloat16)(1.0, 2.0, 5.1)
    # the number assigned reads back as given, as in Warp; the struct stores it rounded
    assert p.h == 3.3 and float(wp.bfloat16(3.3)) == pytest.approx(float(bf16_round(3.3)))
    assert p.numpy_value()[0] == wp.types.scalars.float_to_bfloat16_bits(3.3)  # (numpy_value: the stored bits)
    out, acc = wp.zeros(2, dtype=wp.float32), wp.zeros(1, dtype=wp.bfloat16)
    run(k_bf16_struct, 8, p, out, acc)
    np.testing.assert_array_equal(out.numpy(), bf16_round([3.3, 5.1]))
    assert acc.list() == [4.0]


@wp.kernel
def k_bf16_grad(x: wp.array(dtype=wp.bfloat16), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    v = wp.float32(x[i])
    wp.atomic_add(loss, 0, v * v * v)


def test_bfloat16_gradient():
    x = wp.array([1.0, -2.0, 0.5], dtype=wp.bfloat16, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        run(k_bf16_grad, 3, x, loss)
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.list(), [3.0, 12.0, 0.75])


@wp.kernel
def k_nan_minmax(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array2d(dtype=float),
                 v: wp.array(dtype=wp.vec3), red: wp.array2d(dtype=float)):
    i = wp.tid()
    out[0, i] = wp.min(a[i], b[i])
    out[1, i] = wp.max(a[i], b[i])
    out[2, i] = wp.clamp(a[i], -1.0, 1.0)
    red[0, i] = wp.min(v[i])
    red[1, i] = wp.max(v[i])


def test_min_max_clamp_treat_nan_as_missing():
    nan = np.nan
    a = np.array([-1.0, nan, nan, 3.0], dtype=np.float32)
    b = np.array([nan, -1.0, nan, 2.0], dtype=np.float32)
    v = np.array([[nan, 2.0, -1.0], [1.0, nan, 5.0], [nan, nan, nan], [4.0, 4.0, nan]], dtype=np.float32)
    out, red = wp.zeros((3, 4), dtype=float), wp.zeros((2, 4), dtype=float)
    run(k_nan_minmax, 4, wp.array(a), wp.array(b), out, wp.array(v, dtype=wp.vec3), red)
    np.testing.assert_array_equal(out.numpy(), [np.fmin(a, b), np.fmax(a, b), np.fmin(np.fmax(a, -1.0), 1.0)])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(red.numpy(), [np.fmin.reduce(v, axis=1), np.fmax.reduce(v, axis=1)])


@wp.kernel
def k_clamp(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
            out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.clamp(x[i], lo[i], hi[i])


def test_clamp_gradient_goes_to_the_input_returned():
    nan = np.nan
    rows = np.array([[nan, -1.0, 1.0], [nan, 1.0, -1.0], [0.5, nan, 1.0], [2.0, nan, 1.0], [-2.0, -1.0, nan],
                     [0.5, -1.0, 1.0]], dtype=np.float32)
    x, lo, hi = (wp.array(rows[:, k], requires_grad=True) for k in range(3))
    out = wp.zeros(len(rows), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        run(k_clamp, len(rows), x, lo, hi, out)
    out.grad.fill_(1.0)
    tape.backward()
    forward = out.numpy()
    grads = np.stack([x.grad.numpy(), lo.grad.numpy(), hi.grad.numpy()], axis=1)
    # oracle: the gradient is 1 exactly at the input whose value the forward returned (x on ties)
    for r, f, g in zip(rows, forward, grads):
        picked = next(k for k in range(3) if r[k] == f)
        assert g.tolist() == [1.0 if k == picked else 0.0 for k in range(3)], (r, f, g)


@wp.kernel
def k_special_composites(v: wp.array(dtype=wp.vec4), out: wp.array2d(dtype=wp.bool)):
    i = wp.tid()
    x = v[i]
    m = wp.mat22(x[0], x[1], x[2], x[3])
    q = wp.quat(x[0], x[1], x[2], x[3])
    out[i, 0] = wp.isnan(x)
    out[i, 1] = wp.isinf(m)
    out[i, 2] = wp.isfinite(q)
    out[i, 3] = wp.isfinite(m)


def test_isnan_isinf_isfinite_of_vectors_matrices_quaternions():
    v = np.array([[0.0, 1.0, 2.0, 3.0], [np.nan, 1.0, 2.0, 3.0], [1.0, -np.inf, 2.0, 3.0]], dtype=np.float32)
    out = wp.zeros((3, 4), dtype=wp.bool)
    run(k_special_composites, 3, wp.array(v, dtype=wp.vec4), out)
    expected = np.stack([np.isnan(v).any(1), np.isinf(v).any(1), np.isfinite(v).all(1), np.isfinite(v).all(1)], 1)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert wp.isnan(wp.vec3(1.0, float("nan"), 0.0)) and wp.isfinite(wp.vec2(1.0, 2.0))


def test_int_literal_past_int32_wraps_in_32_bit_constructors_as_in_warp():
    """Warp types an int literal as int32: only the 64-bit constructors take it whole, so
    wp.float32(0xFFFFFFFF) converts int32(-1) (a numpy int32 view of the bits is the oracle).
    The kernel is its own module: the warning comes when it is typed, which a module's first
    launch does for all its kernels."""

    @wp.kernel(module="unique")
    def k_wide_int_literals(f32: wp.array(dtype=wp.float32), f64: wp.array(dtype=wp.float64),
                            i64: wp.array(dtype=wp.int64), u64: wp.array(dtype=wp.uint64), u32: wp.array(dtype=wp.uint32),
                            v: wp.array(dtype=wp.vec3)):
        x = 0xFFFFFFFF
        f32[0] = wp.float32(0xFFFFFFFF)
        f32[1] = wp.float32(3000000000)
        f32[2] = float(x)
        f32[3] = wp.float32(wp.float16(0xFFFFFFFF))
        f64[0] = wp.float64(0xFFFFFFFF)
        i64[0] = wp.int64(0x1FFFFFFFF)
        i64[1] = wp.int64(x)
        u64[0] = wp.uint64(0xFF51AFD7ED558CCD)
        u32[0] = wp.uint32(0xFFFFFFFF)
        u32[1] = wp.uint32(4294967301)
        v[0] = wp.vec3(0xFFFFFFFF, 1.0, 2.0)

    out = [wp.zeros(2, dtype=t) for t in (wp.float32, wp.float64, wp.int64, wp.uint64, wp.uint32)]
    f32 = wp.zeros(4, dtype=wp.float32)
    v = wp.zeros(1, dtype=wp.vec3)
    with pytest.warns(UserWarning, match=r"does not fit in int32") as seen:
        wp.launch(k_wide_int_literals, 1, inputs=[f32, *out[1:], v])
    as_int32 = np.array([0xFFFFFFFF, 3000000000], dtype=np.uint64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(f32.numpy(), np.float32([as_int32[0], as_int32[1], as_int32[0], as_int32[0]]))
    assert out[1].numpy()[0] == 4294967295.0
    assert out[2].numpy().tolist() == [0x1FFFFFFFF, 0xFFFFFFFF]
    assert int(out[3].numpy()[0]) == 0xFF51AFD7ED558CCD
    assert out[4].numpy().tolist() == [0xFFFFFFFF, 5]
    assert v.numpy()[0, 0] == np.float32(4294967295)  # a vector's literal takes the vector's type, as in Warp
    # one warning per line whose result changes; uint32(0xFFFFFFFF) wraps to the same bits and is not one
    lines = sorted({str(w.message).split(":")[1] for w in seen if "does not fit" in str(w.message)})
    assert len(lines) == 4, lines
