"""Tiles of structs (field-wise + and -, sums, atomics) and the tile builtins wp.tile_randi /
tile_randf, tile_atomic_add_indexed, tile_scatter_add, tile_from_thread, tile_dot of vectors,
wp.tile of a vector (a tile of its components), len() of a tile in wp.static, on the CPU against
numpy, with gradients where Warp defines them."""

import numpy as np
import pytest

import warp_nb as wp

M = 8
rng = np.random.default_rng(5)


@wp.struct
class Pair:
    x: float
    v: wp.vec3
    flag: wp.int8


@wp.kernel
def struct_ops(a: wp.array(dtype=Pair), added: wp.array(dtype=Pair), total: wp.array(dtype=Pair),
               atomic: wp.array(dtype=Pair), elem: wp.array(dtype=Pair)):
    t = wp.tile_load(a, shape=M)
    wp.tile_store(added, (t + t) - t + t)
    wp.tile_store(total, wp.tile_sum(t))
    wp.tile_atomic_add(atomic, t)
    e = wp.tile_zeros(shape=1, dtype=Pair)
    e[0] += a[1]
    e[0] -= a[2]
    wp.tile_store(elem, e)


def make_pairs():
    xs = rng.standard_normal(M).astype(np.float32)
    vs = rng.standard_normal((M, 3)).astype(np.float32)
    out = []
    for k in range(M):
        p = Pair()
        p.x, p.v, p.flag = float(xs[k]), wp.vec3(*vs[k]), 3
        out.append(p)
    return out, xs, vs


def test_struct_tiles_field_by_field():
    pairs, xs, vs = make_pairs()
    a = wp.array(pairs, dtype=Pair)
    added, total = wp.zeros(M, dtype=Pair), wp.zeros(1, dtype=Pair)
    atomic, elem = wp.zeros(M, dtype=Pair), wp.zeros(1, dtype=Pair)
    wp.launch_tiled(struct_ops, dim=[1], inputs=[a, added, total, atomic, elem], block_dim=1)
    np.testing.assert_allclose(added.numpy()["x"], 2 * xs, rtol=1e-5)
    np.testing.assert_allclose(added.numpy()["v"], 2 * vs, rtol=1e-5)
    np.testing.assert_array_equal(added.numpy()["flag"], 3)  # carried, not summed
    np.testing.assert_allclose(total.numpy()["x"], [xs.sum()], rtol=1e-5)
    np.testing.assert_allclose(total.numpy()["v"], [vs.sum(axis=0)], rtol=1e-5)
    np.testing.assert_array_equal(total.numpy()["flag"], 3)
    np.testing.assert_allclose(atomic.numpy()["x"], xs, rtol=1e-6)
    np.testing.assert_array_equal(atomic.numpy()["flag"], 0)  # the destination's own
    np.testing.assert_allclose(elem.numpy()["x"], [xs[1] - xs[2]], rtol=1e-5)


@wp.kernel
def randoms(seed: int, ints: wp.array2d(dtype=int), floats: wp.array2d(dtype=float),
            bounded: wp.array2d(dtype=int)):
    rng = wp.rand_init(seed, 0)
    wp.tile_store(ints, wp.tile_randi(shape=(2, 2), rng=rng))
    wp.tile_store(floats, wp.tile_randf(shape=(2, 2), rng=rng, min=-5.0, max=5.0))
    wp.tile_store(bounded, wp.tile_randi(shape=(2, 2), rng=rng, min=-5, max=5))


def test_random_tiles_match_warps_cpu_streams():
    ints, floats, bounded = wp.zeros((2, 2), dtype=int), wp.zeros((2, 2)), wp.zeros((2, 2), dtype=int)
    wp.launch_tiled(randoms, dim=[1], inputs=[42, ints, floats, bounded], block_dim=1)
    # warp-lang 1.19's CPU values for seed 42, stream 0 (its test_tile_random_generators)
    np.testing.assert_array_equal(ints.numpy(), [[798497746, -1161279442], [-169969590, -744808085]])
    np.testing.assert_allclose(floats.numpy(), [[-3.140853, 2.2961855], [4.6042585, 3.2658587]], rtol=1e-6)
    np.testing.assert_array_equal(bounded.numpy(), [[1, -1], [1, -4]])


@wp.kernel(module="unique")
def randi_empty(out: wp.array2d(dtype=int)):
    wp.tile_store(out, wp.tile_randi(shape=(2, 2), rng=wp.uint32(0), min=1, max=1))


@wp.kernel(module="unique")
def randi_reversed(out: wp.array2d(dtype=int)):
    wp.tile_store(out, wp.tile_randi(shape=(2, 2), rng=wp.uint32(0), min=2, max=1))


@wp.kernel(module="unique")
def randi_past_int32(out: wp.array2d(dtype=int)):
    wp.tile_store(out, wp.tile_randi(shape=(2, 2), rng=wp.uint32(0), min=2147483647, max=2147483648))


@wp.kernel(module="unique")
def randf_one_float32(out: wp.array2d(dtype=float)):
    wp.tile_store(out, wp.tile_randf(shape=(2, 2), rng=wp.uint32(0), min=1.00000001, max=1.00000002))


def test_constant_random_ranges_with_nothing_to_draw_are_refused():
    # as Warp: the bounds compared as values of the tile's type (1.00000001 and 1.00000002 are one float32)
    for kernel, dtype, message in ((randi_empty, int, "max must be greater than min"),
                                   (randi_reversed, int, "max must be greater than min"),
                                   (randi_past_int32, int, "representable as int32"),
                                   (randf_one_float32, float, "max must be greater than min")):
        with pytest.raises(ValueError, match=message):
            wp.launch_tiled(kernel, dim=[1], inputs=[wp.zeros((2, 2), dtype=dtype)], block_dim=1)


@wp.kernel
def indexed_and_scatter(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), s: wp.array(dtype=float)):
    t = wp.tile_load(x, shape=(4, 3))
    rows = wp.tile_ones(4, dtype=int)
    wp.tile_atomic_add_indexed(y, indices=rows, t=t, axis=0)
    acc = wp.tile_zeros(shape=3, dtype=float)
    wp.tile_scatter_add(acc, 1, x[0, 0], True)
    wp.tile_scatter_add(acc, 1, x[1, 0], True)
    wp.tile_scatter_add(acc, 2, 100.0, False)
    wp.tile_store(s, acc)


def test_atomic_add_indexed_and_scatter_add():
    xn = rng.standard_normal((4, 3)).astype(np.float32)
    x = wp.array(xn, requires_grad=True)
    y, s = wp.zeros((4, 3), requires_grad=True), wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(indexed_and_scatter, dim=[1], inputs=[x, y, s], block_dim=1)
    expected = np.zeros((4, 3), np.float32)
    expected[1] = xn.sum(axis=0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(s.numpy(), [0.0, xn[0, 0] + xn[1, 0], 0.0], rtol=1e-6)
    y.grad = wp.ones_like(y)
    s.grad = wp.array(np.array([0.0, 3.0, 0.0], np.float32))
    tape.backward()
    g = np.ones((4, 3), np.float32)
    g[0, 0] += 3.0
    g[1, 0] += 3.0
    np.testing.assert_allclose(x.grad.numpy(), g, rtol=1e-6)


@wp.kernel
def small_builtins(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), dot: wp.array(dtype=float),
                   comps: wp.array2d(dtype=float), back: wp.array(dtype=wp.vec3), lens: wp.array(dtype=int),
                   filled: wp.array(dtype=float)):
    ta = wp.tile_load(a, shape=M)
    tb = wp.tile_load(b, shape=M)
    wp.tile_store(dot, wp.tile_dot(ta, tb))
    t = wp.tile(a[2])
    wp.tile_store(comps, t)
    back[0] = wp.untile(t)
    lens[0] = wp.static(len(ta))
    wp.tile_store(filled, wp.tile_from_thread(shape=4, value=a[1][0], thread_idx=0))


def test_dot_components_len_and_from_thread():
    an = rng.standard_normal((M, 3)).astype(np.float32)
    bn = rng.standard_normal((M, 3)).astype(np.float32)
    dot, comps, back = wp.zeros(1), wp.zeros((3, 1)), wp.zeros(1, dtype=wp.vec3)
    lens, filled = wp.zeros(1, dtype=int), wp.zeros(4)
    wp.launch_tiled(small_builtins, dim=[1], inputs=[wp.array(an, dtype=wp.vec3), wp.array(bn, dtype=wp.vec3), dot,
                                                     comps, back, lens, filled], block_dim=1)
    np.testing.assert_allclose(dot.numpy(), [np.sum(an * bn)], rtol=1e-5)
    np.testing.assert_array_equal(comps.numpy()[:, 0], an[2])
    np.testing.assert_array_equal(back.numpy()[0], an[2])
    assert lens.numpy()[0] == M
    np.testing.assert_array_equal(filled.numpy(), np.full(4, an[1, 0]))
