"""wp.Bvh box and ray queries against numpy brute force, refit, and bad input."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def aabb_query(bvh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
               hits: wp.array2d(dtype=int)):
    i = wp.tid()
    for k in wp.bvh_query_aabb(bvh, lo[i], hi[i]):
        hits[i, k] = hits[i, k] + 1


@wp.kernel
def ray_query(bvh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), hits: wp.array2d(dtype=int)):
    i = wp.tid()
    q = wp.bvh_query_ray(bvh, o[i], d[i])
    k = int(0)
    while wp.bvh_query_next(q, k):  # the explicit form of the query loop
        hits[i, k] = hits[i, k] + 1


def _boxes(n, seed):
    rng = np.random.default_rng(seed)
    c = rng.uniform(-1, 1, (n, 3))
    h = rng.uniform(0.01, 0.15, (n, 3))
    return (c - h).astype(np.float32), (c + h).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("leaf_size", [1, 4])
def test_aabb_query_matches_brute_force(leaf_size):
    lo, hi = _boxes(700, 1)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=leaf_size)
    qlo, qhi = _boxes(50, 2)
    qhi += 0.2
    hits = wp.zeros((50, 700), dtype=int)
    wp.launch(aabb_query, 50, inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), hits])
    ref = ((lo[None] <= qhi[:, None]) & (hi[None] >= qlo[:, None])).all(-1)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(int))  # each item exactly once


def _ray_box(o, d, lo, hi):
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        t0, t1 = (lo[None] - o[:, None]) * inv[:, None], (hi[None] - o[:, None]) * inv[:, None]
    tmin = np.nanmax(np.minimum(t0, t1), axis=-1)
    tmax = np.nanmin(np.maximum(t0, t1), axis=-1)
    return (np.maximum(tmin, 0) <= tmax)


def test_ray_query_and_refit():
    lo, hi = _boxes(400, 3)
    LO, HI = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(LO, HI)
    rng = np.random.default_rng(4)
    o = rng.uniform(-2, 2, (40, 3)).astype(np.float32)
    d = (rng.uniform(-0.5, 0.5, (40, 3)) - o).astype(np.float32)
    for shift in (0.0, 0.3):
        if shift:
            LO.numpy()[:] += shift
            HI.numpy()[:] += shift
            bvh.refit()
        hits = wp.zeros((40, 400), dtype=int)
        wp.launch(ray_query, 40, inputs=[bvh.id, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3), hits])
        ref = _ray_box(o.astype(np.float64), d.astype(np.float64), lo + shift, hi + shift)
        got = hits.numpy()
        assert (got <= 1).all()
        assert (got.astype(bool) != ref).sum() <= 2  # touching boundaries may round either way
        assert ref.sum() > 50


def test_bvh_bad_input():
    lo, hi = _boxes(10, 5)
    with pytest.raises(ValueError, match="differ in length"):
        wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi[:5], dtype=wp.vec3))
    with pytest.raises(ValueError, match="lowers > uppers"):
        wp.Bvh(wp.array(hi, dtype=wp.vec3), wp.array(lo, dtype=wp.vec3))
    with pytest.raises(ValueError, match="empty"):
        wp.Bvh(wp.zeros(0, dtype=wp.vec3), wp.zeros(0, dtype=wp.vec3))
    lo[2, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
