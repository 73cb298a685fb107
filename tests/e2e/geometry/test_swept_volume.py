"""wp.geometry.swept_volume_field / _mesh / _bounds: a sphere swept along a line against the analytic
capsule, two static spheres against the minimum of their distances, every sign mode on a watertight
mesh, the unsigned field, the grid's sizing, and bad input."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _uv_sphere(r, n=24):
    """A closed, outward-facing UV sphere of radius r (poles plus rings), as (points, indices)."""
    th = np.linspace(0, np.pi, n + 1)[1:-1]
    ph = np.linspace(0, 2 * np.pi, 2 * n, endpoint=False)
    pts = [[0, 0, r]] + [[r * np.sin(t) * np.cos(p), r * np.sin(t) * np.sin(p), r * np.cos(t)] for t in th
                         for p in ph] + [[0, 0, -r]]
    m, rings, tris = 2 * n, len(th), []
    ring = lambda a, b: 1 + a * m + b % m
    for b in range(m):
        tris.append([0, ring(0, b), ring(0, b + 1)])
        tris.append([len(pts) - 1, ring(rings - 1, b + 1), ring(rings - 1, b)])
        for a in range(rings - 1):
            tris += [[ring(a, b), ring(a + 1, b), ring(a + 1, b + 1)], [ring(a, b), ring(a + 1, b + 1), ring(a, b + 1)]]
    return np.array(pts, np.float32), np.array(tris, np.int32).reshape(-1)


def _mesh(r=0.5):
    p, i = _uv_sphere(r)
    return wp.Mesh(wp.array(p, dtype=wp.vec3), wp.array(i, dtype=wp.int32), support_winding_number=True)


def _poses(offsets):
    tr = np.zeros((*np.shape(offsets)[:-1], 7), np.float32)
    tr[..., :3] = offsets
    tr[..., 6] = 1.0
    return tr


def _nodes(field, lower, upper):
    shape = np.array(field.shape)
    axes = [np.linspace(lower[a], upper[a], shape[a]) for a in range(3)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3), field.numpy().reshape(-1)


def test_swept_sphere_is_a_capsule():
    tr = _poses([[[x, 0.0, 0.0] for x in np.linspace(-1.0, 1.0, 11)]])
    field, lo, hi = wp.geometry.swept_volume_field([_mesh()], tr, voxel_size=0.1)
    p, d = _nodes(field, lo, hi)
    h = np.clip(p[:, 0], -1.0, 1.0)
    capsule = np.linalg.norm(p - np.stack([h, 0 * h, 0 * h], 1), axis=1) - 0.5
    band = np.abs(capsule) < 0.3
    # poses 0.2 apart: between two poses the union of spheres dips below the capsule by at most ~0.01
    np.testing.assert_allclose(d[band], capsule[band], atol=0.03)
    np.testing.assert_allclose((np.array(hi) - np.array(lo)) / (np.array(field.shape) - 1), 0.1, rtol=1e-5)


@pytest.mark.parametrize("mode", ["WINDING_NUMBER", "NORMAL", "PARITY"])
def test_two_spheres_every_sign_mode(mode):
    tr = _poses([[[-1.0, 0.0, 0.0]], [[1.0, 0.0, 0.0]]])
    field, lo, hi = wp.geometry.swept_volume_field([_mesh(0.4), _mesh(0.4)], tr, voxel_size=0.1,
                                                   sign_mode=getattr(wp.geometry.SweptVolumeSignMode, mode))
    p, d = _nodes(field, lo, hi)
    ref = np.minimum(np.linalg.norm(p - [-1, 0, 0], axis=1), np.linalg.norm(p - [1, 0, 0], axis=1)) - 0.4
    np.testing.assert_allclose(d, ref, atol=0.01)  # the UV sphere lies within 0.005 of the true one


def test_unsigned_field_and_mesh():
    tr = _poses([[[0.0, 0.0, 0.0]]])
    mode = wp.geometry.SweptVolumeSignMode.NO_SIGN
    field, _, _ = wp.geometry.swept_volume_field([_mesh()], tr, voxel_size=0.1, sign_mode=mode)
    assert field.numpy().min() >= 0.0
    v, _ = wp.geometry.swept_volume_mesh([_mesh()], tr, voxel_size=0.1, threshold=0.2, sign_mode=mode)
    r = np.linalg.norm(v.numpy(), axis=1)
    assert np.abs(r.max() - 0.7) < 0.02 and np.abs(r.min() - 0.3) < 0.02  # outer and inner offset shells


def test_bounds_and_bad_input():
    tr = _poses([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]])
    lo, hi = wp.geometry.swept_volume_bounds([_mesh()], tr, padding=0.1)
    np.testing.assert_allclose(lo, [-0.6, -0.6, -0.6], atol=1e-5)
    np.testing.assert_allclose(hi, [1.6, 0.6, 0.6], atol=1e-5)
    with pytest.raises(ValueError, match="meshes"):
        wp.geometry.swept_volume_field([], tr, voxel_size=0.1)
    with pytest.raises(ValueError, match="rows of poses"):
        wp.geometry.swept_volume_field([_mesh()], np.concatenate([tr, tr]), voxel_size=0.1)
    with pytest.raises(ValueError, match="voxel_size"):
        wp.geometry.swept_volume_field([_mesh()], tr, voxel_size=-1.0)
    with pytest.raises(ValueError, match="resolution"):
        wp.geometry.swept_volume_field([_mesh()], tr, resolution=(4, 4))
    with pytest.raises(ValueError, match="support_winding_number"):
        p, i = _uv_sphere(0.5)
        wp.geometry.swept_volume_field([wp.Mesh(wp.array(p, dtype=wp.vec3), wp.array(i))], tr, voxel_size=0.1)
    with pytest.raises(ValueError, match="threshold"):
        wp.geometry.swept_volume_mesh([_mesh()], tr, voxel_size=0.1, sign_mode=wp.geometry.SweptVolumeSignMode.NO_SIGN)


@wp.kernel
def _sdf_at(points: wp.array(dtype=wp.vec3), ids: wp.array(dtype=wp.uint64), tr: wp.array2d(dtype=wp.transform),
            out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.geometry.swept_volume_sdf(points[i], ids, tr, 100.0, 1)


def test_kernel_side_sdf_and_transform_arrays():
    """wp.geometry.swept_volume_sdf in a user's kernel gives the analytic distance to the moved spheres, and a
    wp.array2d of wp.transform (with a rotation) gives the field the equivalent (M, S, 7) array gives."""
    mesh = _mesh(0.3)
    q = np.array([0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)], np.float32)  # 90 degrees about z
    tr = np.array([[[1.0, 0.0, 0.0, 0, 0, 0, 1], [0.0, 0.0, 0.0, *q]]], np.float32)
    pts = np.random.default_rng(2).uniform(-1.5, 1.5, (64, 3)).astype(np.float32)
    out = wp.empty(64, dtype=float)
    wp.launch(_sdf_at, 64, inputs=[wp.array(pts, dtype=wp.vec3), wp.array([mesh.id], dtype=wp.uint64),
                                   wp.array(tr, dtype=wp.transform), out])
    ref = np.minimum(np.linalg.norm(pts - [1, 0, 0], axis=1), np.linalg.norm(pts, axis=1)) - 0.3
    np.testing.assert_allclose(out.numpy(), ref, atol=0.01)
    off = np.array([[[0.2, 0.0, 0.0, *q]]], np.float32)  # a rotated and moved off-centre sphere
    a, _, _ = wp.geometry.swept_volume_field([mesh], off, resolution=(9, 9, 9))
    b, _, _ = wp.geometry.swept_volume_field([mesh], wp.array(off[0], dtype=wp.transform).reshape((1, 1)),
                                             resolution=(9, 9, 9))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def _box(ext):
    c = np.array([[x, y, z] for x in (0, ext[0]) for y in (0, ext[1]) for z in (0, ext[2])], np.float32)
    f = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3]
    return wp.Mesh(wp.array(c, dtype=wp.vec3), wp.array(np.array(f, np.int32), dtype=wp.int32),
                   support_winding_number=True)


# (box extent, voxel size or node counts) -> (shape, lower, upper) as warp-lang 1.19 returns them: whole
# cells centred on the box (the odd cell count splits evenly), or with node counts two of the box's own
# cells of padding per axis. warp_nb anchored the grid at the box's lower corner minus two cells.
@pytest.mark.parametrize("ext, size, shape, lower, upper", [
    ((1.0, 0.52, 0.3), 0.1, (15, 11, 9), (-0.2, -0.24, -0.25), (1.2, 0.76, 0.55)),
    ((0.95, 0.5, 0.31), 0.1, (15, 10, 9), (-0.225, -0.2, -0.245), (1.175, 0.7, 0.555)),
    ((0.1, 0.1, 0.1), 0.3, (6, 6, 6), (-0.7, -0.7, -0.7), (0.8, 0.8, 0.8)),
    ((1.0, 0.5, 0.3), (8, 8, 8), (8, 8, 8), (-2 / 7, -1 / 7, -0.6 / 7), (1 + 2 / 7, 0.5 + 1 / 7, 0.3 + 0.6 / 7)),
    ((1.0, 1.0, 1.0), (3, 4, 30), (3, 4, 30), (-1.0, -2 / 3, -2 / 29), (2.0, 5 / 3, 1 + 2 / 29)),
])
def test_automatic_domain_is_warps(ext, size, shape, lower, upper):
    tr = _poses([[[0.0, 0.0, 0.0]]])
    kw = {"resolution": size} if isinstance(size, tuple) else {"voxel_size": size}
    field, lo, hi = wp.geometry.swept_volume_field([_box(ext)], tr, **kw)
    assert field.shape == shape
    np.testing.assert_allclose(np.array(lo), lower, atol=1e-6)
    np.testing.assert_allclose(np.array(hi), upper, atol=1e-6)


@pytest.mark.parametrize("threshold, verts, tris", [(0.05, 268, 532), (0.17, 460, 916), (0.3, 774, 1544)])
def test_mesh_domain_grows_by_the_threshold_as_warps(threshold, verts, tris):
    # warp-lang 1.19's vertex and triangle counts: its grid over the box grown by the threshold
    v, i = wp.geometry.swept_volume_mesh([_box((1.0, 0.52, 0.3))], _poses([[[0.0, 0.0, 0.0]]]), voxel_size=0.1,
                                         threshold=threshold)
    assert (len(v.numpy()), len(i.numpy()) // 3) == (verts, tris)
