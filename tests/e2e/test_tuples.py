"""End to end: tuple values in kernels: bound to a name, len() as a constant, passed to a
@wp.func with a `tuple[...]` annotation (or `tuple[int, ...]`, typed per call), and returned.
Values against Python; the gradient through a tuple parameter against finite differences. Also
the errors of return annotations and of unpacking array slices, and composites built from parts
(spatial vectors from two halves, transformations by keyword)."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import autograd

pytestmark = pytest.mark.needs_cxx


@wp.func
def weighted_length(values: tuple[wp.vec3d, wp.float64]) -> wp.float64:
    return wp.length(values[0]) * values[1]


@wp.func
def total(values: tuple[int, ...]):
    out = int(0)
    for i in range(wp.static(len(values))):
        out += values[i] * (i + 1)
    return out


@wp.func
def total_any(values: Any):
    out = int(0)
    for i in range(len(values)):
        out += values[i]
    return out


@wp.kernel
def tuple_kernel(x: wp.array(dtype=wp.vec3d), w: wp.array(dtype=wp.float64), n: wp.array(dtype=int),
                 y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    t = (x[i], w[i])
    y[i] = weighted_length(t) + weighted_length((x[i], wp.float64(2.0)))
    n[i] = total((1, 2, 3)) + total((i,)) * 100 + total_any((i, 4)) * 1000 + len(t) * 10000


def test_tuples_as_values_and_parameters():
    gen = np.random.default_rng(3)
    xv, wv = gen.normal(size=(4, 3)), gen.uniform(0.5, 2.0, 4)
    x = wp.array(xv, dtype=wp.vec3d, requires_grad=True)
    w = wp.array(wv, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(4, dtype=wp.float64, requires_grad=True)
    n = wp.zeros(4, dtype=int)
    wp.launch(tuple_kernel, 4, inputs=[x, w, n, y])
    lengths = np.linalg.norm(xv, axis=1)
    np.testing.assert_allclose(y.numpy(), lengths * wv + lengths * 2.0, rtol=1e-12)
    assert n.numpy().tolist() == [14 + 100 * i + 1000 * (i + 4) + 20000 for i in range(4)]
    assert autograd.gradcheck(tuple_kernel, 4, [x, w, n], [y], eps=1e-6, atol=1e-6, rtol=1e-5,
                              show_summary=False)


def test_return_annotations_are_checked_in_warps_words():
    @wp.func
    def two_for_one(x: int) -> int:
        return (x, x)

    @wp.func
    def wrong_item(x: int) -> tuple[int, int]:
        return (x, 1.5)

    @wp.func
    def widened(x: int) -> tuple[int, float]:
        return (x, 1)  # the literal takes the annotated type

    @wp.kernel
    def k1():
        a = two_for_one(1)

    @wp.kernel
    def k2():
        a, b = wrong_item(1)

    @wp.kernel
    def k3(out: wp.array(dtype=float)):
        a, b = widened(2)
        out[0] = float(a) + b

    @wp.kernel
    def returns_value(x: float) -> float:
        return x

    with pytest.raises(wp.KernelError, match=r"`two_for_one` has its return type annotated as `int` but the code "
                                             r"returns 2 values") as info:
        wp.launch(k1, 1)
    assert "test_tuples.py, line" in str(info.value)
    with pytest.raises(wp.KernelError, match=r"annotated as `tuple\[int, int\]` but the code returns a tuple with "
                                             r"types `\(int32, float32\)`"):
        wp.launch(k2, 1)
    out = wp.zeros(1)
    wp.launch(k3, 1, inputs=[out])
    assert out.numpy()[0] == 3.0
    with pytest.raises(wp.KernelError, match="Warp kernels cannot return values"):
        wp.launch(returns_value, 1, inputs=[1.0])


def test_unpacking_an_array_slice_needs_constant_increasing_bounds():
    @wp.kernel
    def no_stop(a: wp.array(dtype=int)):
        v = wp.vec3i(*a[0:])

    @wp.kernel
    def negative_step(a: wp.array(dtype=int)):
        v = wp.vec3i(*a[5:2:-1])

    @wp.kernel
    def dynamic(a: wp.array(dtype=int), n: int):
        v = wp.vec3i(*a[:n])

    @wp.kernel
    def not_a_sequence():
        x = 42
        v = wp.vec3i(*x)

    a = wp.zeros(10, dtype=int)
    for kernel, inputs, error, words in ((no_stop, [a], wp.KernelValueError, "requires explicit upper bound"),
                                         (negative_step, [a], wp.KernelValueError, "step cannot be negative"),
                                         (dynamic, [a, 3], wp.KernelValueError, "must be a compile-time constant"),
                                         (not_a_sequence, [], wp.KernelTypeError, "Starred expressions are only")):
        with pytest.raises(error, match=words) as info:
            wp.launch(kernel, 1, inputs=inputs)
        assert "test_tuples.py, line" in str(info.value)


def test_composites_built_from_parts_and_by_keyword():
    @wp.kernel
    def build(v: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), sv: wp.array(dtype=wp.spatial_vector),
              t: wp.array(dtype=wp.transform)):
        sv[0] = wp.spatial_vector(v[0], v[0] * 2.0)
        t[0] = wp.transformation(p=v[0], q=q[0])

    @wp.kernel
    def unknown_keyword(t: wp.array(dtype=wp.transform)):
        t[0] = wp.transformation(wp.vec3(), wp.quat_identity(), scale=2.0)

    v, q = np.array([[2.0, 3.0, 4.0]], np.float32), np.array([[0.0, 0.6, 0.0, 0.8]], np.float32)
    sv, t = wp.zeros(1, dtype=wp.spatial_vector), wp.zeros(1, dtype=wp.transform)
    wp.launch(build, 1, inputs=[wp.array(v, dtype=wp.vec3), wp.array(q, dtype=wp.quat), sv, t])
    np.testing.assert_allclose(sv.numpy()[0], np.concatenate([v[0], 2 * v[0]]))
    np.testing.assert_allclose(t.numpy()[0], np.concatenate([v[0], q[0]]))
    with pytest.raises(wp.KernelTypeError, match="has no argument `scale`"):
        wp.launch(unknown_keyword, 1, inputs=[t])


def test_a_store_through_a_row_view_and_its_gradient():
    @wp.kernel
    def rows(a: wp.array(dtype=float, ndim=2), c: wp.array(dtype=float, ndim=2)):
        i, j = wp.tid()
        c[i][j] = a[i][j] * a[i][j]  # a[i] is a view of row i

    @wp.kernel
    def too_many(m: wp.array(dtype=wp.mat22, ndim=2)):
        m[0][1, 1] = wp.mat22()  # m[0] is a 1-D view: [1, 1] indexes it twice

    av = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = wp.array(av, requires_grad=True)
    c = wp.zeros((2, 3), requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(rows, (2, 3), inputs=[a, c])
    np.testing.assert_allclose(c.numpy(), av * av)
    tape.backward(grads={c: wp.ones((2, 3))})
    np.testing.assert_allclose(a.grad.numpy(), 2 * av)
    with pytest.raises(wp.KernelTypeError, match="Incorrect number of indices specified for array indexing"):
        wp.launch(too_many, 1, inputs=[wp.zeros((1, 1), dtype=wp.mat22)])
