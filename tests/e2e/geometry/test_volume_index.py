"""Index access to wp.Volume and the volume adjoints, against numpy and central differences:
volume_lookup_index ranks, volume_sample_index / volume_sample_grad_index (values, Jacobians and
adjoints into uvw, voxel_data and background), the second-order adjoint of volume_sample_grad_f,
vec4 Jacobians, the transposed-Jacobian error, index volumes and array.deleter."""

import ctypes
import gc

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

RNG = np.random.default_rng(7)
DATA = RNG.uniform(-1.0, 1.0, size=(12, 11, 10)).astype(np.float32)


def _volume():
    return wp.Volume.load_from_numpy(DATA, bg_value=0.0)


def _trilinear(uvw):
    """numpy reference of a LINEAR sample of DATA (zero outside)."""
    def at(i, j, k):
        inside = 0 <= i < DATA.shape[0] and 0 <= j < DATA.shape[1] and 0 <= k < DATA.shape[2]
        return float(DATA[i, j, k]) if inside else 0.0
    f = np.floor(uvw).astype(int)
    t = uvw - f
    out = 0.0
    for a in (0, 1):
        for b in (0, 1):
            for d in (0, 1):
                w = (t[0] if a else 1 - t[0]) * (t[1] if b else 1 - t[1]) * (t[2] if d else 1 - t[2])
                out += w * at(f[0] + a, f[1] + b, f[2] + d)
    return out


@wp.kernel
def sample_grad_f_objective(vol: wp.uint64, pts: wp.array(dtype=wp.vec3), w: wp.vec3, out: wp.array(dtype=float)):
    t = wp.tid()
    g = wp.vec3(0.0, 0.0, 0.0)
    v = wp.volume_sample_grad_f(vol, pts[t], wp.Volume.LINEAR, g)
    out[t] = v + wp.dot(g, w)


def test_sample_grad_f_adjoint_matches_central_differences():
    vol = _volume()
    pts_np = RNG.uniform(1.2, 8.8, size=(16, 3)).astype(np.float32)
    pts_np = np.floor(pts_np) + np.clip(pts_np - np.floor(pts_np), 0.2, 0.8)  # stay inside one cell
    w = wp.vec3(0.7, -1.3, 0.4)

    def run(p, grad=False):
        pts = wp.array(p, dtype=wp.vec3, requires_grad=grad)
        out = wp.zeros(len(p), requires_grad=grad)
        tape = wp.Tape()
        with tape:
            wp.launch(sample_grad_f_objective, len(p), inputs=[vol.id, pts, w, out])
        return tape, pts, out

    tape, pts, out = run(pts_np, True)
    # the value and gradient against numpy (the gradient by central differences of the interpolant)
    values_ref = [_trilinear(p.astype(np.float64)) for p in pts_np]
    g = np.zeros((len(pts_np), 3))
    for a in range(3):
        e = np.zeros(3)
        e[a] = 1e-3
        g[:, a] = [(_trilinear(p + e) - _trilinear(p - e)) / 2e-3 for p in pts_np.astype(np.float64)]
    np.testing.assert_allclose(out.numpy(), np.array(values_ref) + g @ np.array(w), rtol=1e-4, atol=1e-4)
    out.grad = wp.ones(len(pts_np))
    tape.backward()
    h = 1e-2
    fd = np.zeros((len(pts_np), 3))
    for a in range(3):
        plus, minus = pts_np.copy(), pts_np.copy()
        plus[:, a] += h
        minus[:, a] -= h
        fd[:, a] = (run(plus)[2].numpy() - run(minus)[2].numpy()) / (2 * h)
    np.testing.assert_allclose(pts.grad.numpy(), fd, rtol=1e-3, atol=1e-3)


@wp.kernel
def lookup_index(vol: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=int)):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_index(vol, c[0], c[1], c[2])


def test_lookup_index_ranks_active_voxels_in_get_voxels_order():
    pts = np.array([[0, 0, 0], [1, 2, 3], [9, 0, 0], [-3, 4, 1], [1, 2, 4]], np.int32)
    vol = wp.Volume.allocate_by_voxels(wp.array(pts, dtype=wp.int32), voxel_size=1.0)
    assert vol.is_index and vol.get_voxel_count() == len(pts)
    voxels = vol.get_voxels().numpy()
    queries = np.concatenate([voxels, [[2, 2, 2], [500, 0, 0]]]).astype(np.int32)  # inactive, unallocated
    out = wp.zeros(len(queries), dtype=int)
    wp.launch(lookup_index, len(queries), inputs=[vol.id, wp.array(queries, dtype=wp.vec3i), out])
    np.testing.assert_array_equal(out.numpy(), list(range(len(voxels))) + [-1, -1])


@wp.kernel
def sample_index_objective(vol: wp.uint64, pts: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
                           bg: wp.array(dtype=float), w: wp.vec3, mode: int, out: wp.array(dtype=float)):
    t = wp.tid()
    g = wp.vec3(0.0, 0.0, 0.0)
    v = wp.volume_sample_grad_index(vol, pts[t], mode, data, bg[0], g)
    out[t] = wp.volume_sample_index(vol, pts[t], mode, data, bg[0]) + 0.5 * v + wp.dot(g, w)


def test_sample_index_values_and_adjoints():
    tiles = wp.array(np.array([[0, 0, 0], [8, 0, 0]], np.int32), dtype=wp.int32)
    vol = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=None)
    assert vol.is_index
    n = vol.get_voxel_count()
    data_np = RNG.uniform(-1, 1, n)
    voxels = vol.get_voxels().numpy()
    # points near the allocated block's edge, so that some corners read the background
    pts_np = np.array([[3.3, 4.6, 2.2], [14.4, 7.7, 1.5], [15.5, 3.2, 7.6], [-0.5, 2.3, 3.3]], np.float32)
    w = wp.vec3(0.3, -0.8, 1.1)
    bg_value = 0.25

    def dense(data):
        grid = {tuple(v): d for v, d in zip(voxels, data)}
        return lambda i, j, k: grid.get((i, j, k), bg_value)

    def reference(p, data):
        at = dense(data)
        f = np.floor(p).astype(int)
        t = p - f
        val, grad = 0.0, np.zeros(3)
        for a in (0, 1):
            for b in (0, 1):
                for d in (0, 1):
                    ws = [(t[0] if a else 1 - t[0]), (t[1] if b else 1 - t[1]), (t[2] if d else 1 - t[2])]
                    ss = [1 if a else -1, 1 if b else -1, 1 if d else -1]
                    c = at(f[0] + a, f[1] + b, f[2] + d)
                    val += ws[0] * ws[1] * ws[2] * c
                    grad += c * np.array([ss[0] * ws[1] * ws[2], ws[0] * ss[1] * ws[2], ws[0] * ws[1] * ss[2]])
        return 1.5 * val + grad @ np.array(w)

    def run(p, data, bg, grad=False):
        pts = wp.array(p, dtype=wp.vec3, requires_grad=grad)
        d = wp.array(data, dtype=float, requires_grad=grad)
        b = wp.array([bg], dtype=float, requires_grad=grad)
        out = wp.zeros(len(p), requires_grad=grad)
        tape = wp.Tape()
        with tape:
            wp.launch(sample_index_objective, len(p), inputs=[vol.id, pts, d, b, w, wp.Volume.LINEAR, out])
        return tape, pts, d, b, out

    tape, pts, d, b, out = run(pts_np, data_np, bg_value, True)
    ref = [reference(p.astype(np.float64), data_np) for p in pts_np]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    out.grad = wp.ones(len(pts_np))
    tape.backward()
    # uvw: central differences
    h = 1e-2
    for a in range(3):
        plus, minus = pts_np.copy(), pts_np.copy()
        plus[:, a] += h
        minus[:, a] -= h
        fd = (run(plus, data_np, bg_value)[4].numpy() - run(minus, data_np, bg_value)[4].numpy()) / (2 * h)
        np.testing.assert_allclose(pts.grad.numpy()[:, a], fd, rtol=1e-3, atol=1e-3)
    # voxel_data and background along a random direction (the objective is linear in both)
    direction = RNG.normal(size=n)
    e = 1e-2
    fd = (run(pts_np, data_np + e * direction, bg_value)[4].numpy().sum()
          - run(pts_np, data_np - e * direction, bg_value)[4].numpy().sum()) / (2 * e)
    assert d.grad.numpy() @ direction == pytest.approx(fd, rel=1e-3, abs=1e-4)
    fd = (run(pts_np, data_np, bg_value + e)[4].numpy().sum() - run(pts_np, data_np, bg_value - e)[4].numpy().sum()) \
        / (2 * e)
    assert b.grad.numpy()[0] == pytest.approx(fd, rel=1e-3, abs=1e-4)


mat43f = wp.types.matrix(shape=(4, 3), dtype=wp.float32)
mat34f = wp.types.matrix(shape=(3, 4), dtype=wp.float32)


@wp.kernel
def sample_vec4_grad(vol: wp.uint64, pts: wp.array(dtype=wp.vec3), vals: wp.array(dtype=wp.vec4f),
                     grads: wp.array(dtype=mat43f)):
    t = wp.tid()
    g = mat43f()
    vals[t] = wp.volume_sample_grad(vol, pts[t], wp.Volume.LINEAR, g, dtype=wp.vec4f)
    grads[t] = g


def test_vec4_jacobian_of_a_linear_field():
    a = RNG.normal(size=(4, 3))
    vol = wp.Volume.allocate(min=[-8, -8, -8], max=[7, 7, 7], voxel_size=1.0, bg_value=wp.vec4f(0.0))
    ijk = vol.get_voxels().numpy()

    @wp.kernel
    def store(vol: wp.uint64, ijk: wp.array2d(dtype=wp.int32), v: wp.array(dtype=wp.vec4f)):
        t = wp.tid()
        wp.volume_store(vol, ijk[t, 0], ijk[t, 1], ijk[t, 2], v[t])

    wp.launch(store, len(ijk), inputs=[vol.id, vol.get_voxels(), wp.array(ijk @ a.T, dtype=wp.vec4f)])
    pts_np = RNG.uniform(-3, 3, size=(8, 3))
    vals, grads = wp.zeros(8, dtype=wp.vec4f), wp.zeros(8, dtype=mat43f)
    wp.launch(sample_vec4_grad, 8, inputs=[vol.id, wp.array(pts_np, dtype=wp.vec3), vals, grads])
    np.testing.assert_allclose(vals.numpy(), pts_np @ a.T, atol=1e-4)
    np.testing.assert_allclose(grads.numpy(), np.broadcast_to(a, (8, 4, 3)), atol=1e-4)


def test_transposed_jacobian_is_refused():
    @wp.kernel(module="unique")
    def wrong(vol: wp.uint64, out: wp.array(dtype=wp.vec4f)):
        g = mat34f()
        out[0] = wp.volume_sample_grad(vol, wp.vec3(0.0), wp.Volume.LINEAR, g, dtype=wp.vec4f)

    with pytest.raises(RuntimeError, match="Incompatible gradient type, expected mat43f, got mat34f"):
        wp.launch(wrong, 1, inputs=[wp.uint64(0), wp.zeros(1, dtype=wp.vec4f)])


@wp.kernel
def index_to_world_objective(vol: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.dot(wp.volume_index_to_world(vol, pts[t]), wp.vec3(1.0, 2.0, 3.0))


def test_index_to_world_adjoint_is_the_transpose():
    """A rotated volume: d/dp (c . (M p + t)) = M^T c (Warp's own test expects M c, which only
    agrees for symmetric M; see docs/compat.md)."""
    m = np.array([[0.1, 0.0, 0.0], [0.0, 0.0, 0.1], [0.0, -0.1, 0.0]])
    vol = wp.Volume.allocate_by_voxels(np.array([[0, 0, 0]], np.int32), transform=m, translation=(1.0, 2.0, 3.0))
    pts = wp.array(RNG.normal(size=(3, 3)), dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(index_to_world_objective, 3, inputs=[vol.id, pts, out])
    out.grad = wp.ones(3)
    tape.backward()
    np.testing.assert_allclose(pts.grad.numpy(), np.broadcast_to(m.T @ [1.0, 2.0, 3.0], (3, 3)), rtol=1e-6)


def test_array_deleter():
    assert wp.array(np.ones(3)).deleter is None
    buf = (ctypes.c_float * 4)()
    freed = []
    a = wp.array(ptr=ctypes.addressof(buf), shape=(4,), dtype=wp.float32, deleter=lambda p, s: freed.append((p, s)))
    assert a.deleter is not None
    del a
    gc.collect()
    assert freed == [(ctypes.addressof(buf), 16)]


@wp.kernel
def voxel_count(vol: wp.uint64, out: wp.array(dtype=int)):
    out[0] = wp.volume_voxel_count(vol)


def test_rebuildable_voxel_volume():
    status = wp.zeros(1, dtype=wp.uint32)
    vol = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, rebuildable=True,
                                       max_active_voxels=3, max_leaf_nodes=2, max_lower_nodes=1, max_upper_nodes=1,
                                       status=status)
    assert vol.is_rebuildable and status.numpy()[0] == wp.Volume.REBUILD_SUCCESS
    assert vol.get_rebuild_info() == wp.Volume.RebuildInfo("voxels", 3, 2, 1, 1)
    pts = np.array([[1, 2, 3], [9, 0, 0], [1, 2, 3], [5, 5, 5]], np.int32)
    vol.rebuild(wp.array(pts, dtype=wp.int32), status=status)
    assert status.numpy()[0] == wp.Volume.REBUILD_SUCCESS
    expected = np.unique(pts, axis=0)
    assert vol.get_active_stats() == wp.Volume.ActiveStats(3, 2, 1, 1)
    np.testing.assert_array_equal(np.unique(vol.get_voxels().numpy(), axis=0), expected)
    out = wp.zeros(1, dtype=int)
    wp.launch(voxel_count, 1, inputs=[vol.id, out])
    assert out.numpy()[0] == 3
    # one voxel too many: refused, the volume kept as it was
    more = np.concatenate([pts, [[2, 2, 2]]]).astype(np.int32)
    vol.rebuild(wp.array(more, dtype=wp.int32), status=status)
    assert status.numpy()[0] & wp.Volume.REBUILD_VOXEL_CAPACITY_EXCEEDED
    assert vol.get_active_stats().voxel_count == 3


def test_index_volume_nanovdb_round_trip(tmp_path):
    pts = np.array([[0, 0, 0], [1, 2, 3], [40, -8, 5], [-9, 3, 3]], np.int32)
    vol = wp.Volume.allocate_by_voxels(pts, voxel_size=0.5)
    path = tmp_path / "index.nvdb"
    vol.save_to_nvdb(str(path), codec="zip")
    back = wp.Volume.load_from_nvdb(str(path))
    assert back.is_index and back.get_grid_info().type_str == "OnIndex"
    np.testing.assert_array_equal(back.get_voxels().numpy(), vol.get_voxels().numpy())
    queries = np.concatenate([pts, [[2, 2, 2]]]).astype(np.int32)
    outs = []
    for v in (vol, back):
        out = wp.zeros(len(queries), dtype=int)
        wp.launch(lookup_index, len(queries), inputs=[v.id, wp.array(queries, dtype=wp.vec3i), out])
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    assert sorted(outs[0][:-1]) == [0, 1, 2, 3] and outs[0][-1] == -1
