"""End to end: tuple values in kernels: bound to a name, len() as a constant, passed to a
@wp.func with a `tuple[...]` annotation (or `tuple[int, ...]`, typed per call), and returned.
Values against Python; the gradient through a tuple parameter against finite differences."""

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
