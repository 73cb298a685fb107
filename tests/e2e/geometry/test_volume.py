"""wp.Volume: sampling against numpy trilinear interpolation, gradients, transforms, sparse
allocation, NanoVDB files (a float grid written by NVIDIA Warp, uncompressed and zip) and bad files."""

import os

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.autograd import gradcheck
from warp_nb.geometry.nvdb import NanoVDBError

pytestmark = pytest.mark.needs_cxx
DATA = os.path.join(os.path.dirname(__file__), "data")


def trilinear(field, bg, uvw):
    """numpy oracle: trilinear interpolation with voxel centres at integer coordinates."""
    def at(i, j, k):
        inside = (i >= 0) & (j >= 0) & (k >= 0) & (i < field.shape[0]) & (j < field.shape[1]) & (k < field.shape[2])
        return np.where(inside, field[np.clip(i, 0, field.shape[0] - 1), np.clip(j, 0, field.shape[1] - 1),
                                      np.clip(k, 0, field.shape[2] - 1)], bg)
    f = np.floor(uvw)
    t = uvw - f
    i, j, k = f.astype(int).T
    out = 0.0
    for a in (0, 1):
        for b in (0, 1):
            for c in (0, 1):
                w = (t[:, 0] if a else 1 - t[:, 0]) * (t[:, 1] if b else 1 - t[:, 1]) * (t[:, 2] if c else 1 - t[:, 2])
                out = out + w * at(i + a, j + b, k + c)
    return out


@wp.kernel
def sample_kernel(vol: wp.uint64, xyz: wp.array(dtype=wp.vec3), lin: wp.array(dtype=float),
                  near: wp.array(dtype=float), grad: wp.array(dtype=wp.vec3), gval: wp.array(dtype=float)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(vol, xyz[i])
    lin[i] = wp.volume_sample_f(vol, uvw, wp.Volume.LINEAR)
    near[i] = wp.volume_sample_f(vol, uvw, wp.Volume.CLOSEST)
    g = wp.vec3(0.0, 0.0, 0.0)
    gval[i] = wp.volume_sample_grad_f(vol, uvw, wp.Volume.LINEAR, g)
    grad[i] = g


def _sample(vol, xyz):
    n = len(xyz)
    outs = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=float)]
    wp.launch(sample_kernel, n, inputs=[vol.id, wp.array(xyz.astype(np.float32), dtype=wp.vec3)] + outs)
    return [o.numpy() for o in outs]


@pytest.mark.slow
def test_sampling_matches_trilinear_interpolation():
    rng = np.random.default_rng(1)
    field = rng.normal(size=(21, 13, 30)).astype(np.float32)
    field[:, :, 17:] = 0.5  # a region equal to the background: its bricks are allocated all the same
    origin, vs = np.array([0.3, -1.0, 2.0]), 0.25
    vol = wp.Volume.load_from_numpy(field, min_world=origin, voxel_size=vs, bg_value=0.5)
    assert vol.get_tile_count() == 3 * 2 * 4  # warp-lang 1.19: 24 (and 12288 voxels)
    uvw = rng.uniform(-2, [23, 15, 32], (3000, 3))
    lin, near, grad, gval = _sample(vol, origin + vs * uvw)
    uvw32 = ((origin + vs * uvw).astype(np.float32) - origin.astype(np.float32)) / np.float32(vs)
    np.testing.assert_allclose(lin, trilinear(field, 0.5, uvw32.astype(np.float64)), atol=2e-4)
    np.testing.assert_allclose(gval, lin, atol=1e-6)
    r = np.floor(uvw32 + 0.5).astype(int)
    ref_near = trilinear(field, 0.5, r.astype(np.float64))
    ok = np.abs(uvw32 - np.round(uvw32) - 0.5).min(1) > 1e-3  # not on a rounding boundary
    np.testing.assert_allclose(near[ok], ref_near[ok], atol=1e-6)
    # gradient of the interpolant by central differences (index space)
    h = 1e-3
    for a in range(3):
        e = np.zeros(3)
        e[a] = h
        fd = (trilinear(field, 0.5, uvw32 + e) - trilinear(field, 0.5, uvw32 - e)) / (2 * h)
        inner = np.abs(uvw32 - np.round(uvw32)).min(1) > 2e-3
        np.testing.assert_allclose(grad[inner, a], fd[inner], atol=2e-3)


def test_linear_field_and_transforms():
    x = np.arange(16, dtype=np.float32)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    field = 2 * X - 3 * Y + 0.5 * Z + 1
    vol = wp.Volume.load_from_numpy(field, min_world=(1, 2, 3), voxel_size=(0.5, 1.0, 2.0), bg_value=0.0)
    assert vol.get_voxel_size() == (0.5, 1.0, 2.0)
    uvw = np.random.default_rng(2).uniform(1, 14, (200, 3))
    xyz = np.array([1, 2, 3]) + uvw * [0.5, 1.0, 2.0]
    lin, _, grad, _ = _sample(vol, xyz)
    np.testing.assert_allclose(lin, 2 * uvw[:, 0] - 3 * uvw[:, 1] + 0.5 * uvw[:, 2] + 1, atol=1e-3)
    np.testing.assert_allclose(grad, np.tile([2, -3, 0.5], (200, 1)), atol=1e-4)


@wp.kernel
def sample_world(vol: wp.uint64, xyz: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(vol, wp.volume_world_to_index(vol, xyz[i]), wp.Volume.LINEAR)


def test_sampling_gradient_check():
    rng = np.random.default_rng(3)
    field = rng.normal(size=(10, 10, 10))
    vol = wp.Volume.load_from_numpy(field, min_world=(-1, -1, -1), voxel_size=0.2)
    pts = rng.uniform(-0.7, 0.7, (6, 3)).astype(np.float32)
    x = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(6, dtype=float, requires_grad=True)
    gradcheck(sample_world, 6, [vol.id, x], [out], eps=1e-3, atol=5e-2, rtol=5e-2)


@wp.kernel
def store_kernel(vol: wp.uint64, ijk: wp.array(dtype=wp.vec3i), values: wp.array(dtype=float),
                 back: wp.array(dtype=float)):
    i = wp.tid()
    c = ijk[i]
    wp.volume_store_f(vol, c[0], c[1], c[2], values[i])


@wp.kernel
def lookup_kernel(vol: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    i = wp.tid()
    c = ijk[i]
    out[i] = wp.volume_lookup_f(vol, c[0], c[1], c[2])


def _lookup(vol, ijk):
    out = wp.zeros(len(ijk), dtype=float)
    wp.launch(lookup_kernel, len(ijk), inputs=[vol.id, wp.array(np.asarray(ijk, np.int32), dtype=wp.vec3i), out])
    return out.numpy()


def test_allocate_from_points_and_store():
    pts = np.array([[0.1, 0.1, 0.1], [5.0, 5.0, 5.0], [-3.0, 0.2, 9.9]], np.float32)
    vol = wp.Volume.allocate_by_tiles(wp.array(pts, dtype=wp.vec3), voxel_size=0.1, bg_value=-1.0)
    assert vol.get_tile_count() == 3 and vol.get_voxel_count() == 3 * 512
    ijk = np.array([[1, 1, 1], [50, 50, 50], [-30, 2, 99], [200, 0, 0]], np.int32)
    vals = wp.array(np.array([1.5, 2.5, 3.5, 4.5], np.float32))
    wp.launch(store_kernel, 4, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), vals, vals])
    np.testing.assert_array_equal(_lookup(vol, ijk), [1.5, 2.5, 3.5, -1.0])  # no brick at the last one
    np.testing.assert_array_equal(vol.lookup(ijk), [1.5, 2.5, 3.5, -1.0])
    box = wp.Volume.allocate((0, 0, 0), (20, 9, 3), voxel_size=1.0, bg_value=7.0)
    assert box.get_tile_count() == 3 * 2 * 1
    assert (_lookup(box, [[0, 0, 0], [20, 9, 3], [40, 0, 0]]) == 7.0).all()
    vox = wp.Volume.allocate_by_voxels(wp.array(np.array([[3, 4, 5], [100, 0, 0]], np.int32), dtype=wp.vec3i))
    np.testing.assert_array_equal(vox.get_tiles().numpy(), [[0, 0, 0], [96, 0, 0]])


def test_load_from_numpy_keeps_every_brick_of_the_array():
    # probed in warp-lang 1.19: every 8^3 brick covering the array is allocated, all its voxels active,
    # those holding only bg_value too; its doc example of wp.volume_store writes voxel (1, 2, 3) of
    # a 2x2x2 array of zeros (bg 0) and reads back 4.0
    vol = wp.Volume.load_from_numpy(np.zeros((2, 2, 2), np.float32), voxel_size=1.0, bg_value=0.0)
    assert vol.get_tiles().numpy().tolist() == [[0, 0, 0]] and vol.get_voxel_count() == 512
    vals = wp.array(np.array([4.0, 5.0], np.float32))
    ijk = np.array([[1, 2, 3], [8, 0, 0]], np.int32)
    wp.launch(store_kernel, 2, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), vals, vals])
    np.testing.assert_array_equal(_lookup(vol, ijk), [4.0, 0.0])  # no brick at (8, 0, 0)
    field = np.zeros((16, 16, 9), np.float32)
    field[15, 0, 8] = 1.0
    big = wp.Volume.load_from_numpy(field, bg_value=0.0)
    assert sorted(map(tuple, big.get_tiles().numpy().tolist())) == [
        (0, 0, 0), (0, 0, 8), (0, 8, 0), (0, 8, 8), (8, 0, 0), (8, 0, 8), (8, 8, 0), (8, 8, 8)]
    assert big.get_voxel_count() == 4096


def test_constant_regions():
    # a brick, an 8^3 constant region and a 128^3 one (as NanoVDB tiles give)
    parts = dict(origins=np.zeros((1, 3), np.int32), values=np.arange(512, dtype=np.float32).reshape(1, 512),
                 background=0.0, xform=np.eye(3), translation=np.zeros(3),
                 levels=[(np.array([[8, 0, 0]], np.int32), np.array([-2.0], np.float32)),
                         (np.array([[128, 0, 0]], np.int32), np.array([-5.0], np.float32)),
                         (np.zeros((0, 3), np.int32), np.zeros(0, np.float32))])
    vol = wp.Volume(_parts=parts)
    got = _lookup(vol, [[0, 0, 1], [9, 3, 3], [200, 100, 5], [300, 0, 0], [-1, 0, 0]])
    np.testing.assert_array_equal(got, [1.0, -2.0, -5.0, 0.0, 0.0])


@pytest.mark.parametrize("name", ["sphere_sdf.nvdb", "sphere_sdf_zip.nvdb"])
def test_load_nanovdb_written_by_warp(name):
    # written by warp-lang 1.19: Volume.load_from_numpy(f, min_world=(1, -2, 0.5), voxel_size=0.5, bg_value=3)
    # with f the clipped distance to a sphere of radius 6 around (9.5, 8, 10.2) on a 20^3 grid
    vol = wp.Volume.load_from_nvdb(os.path.join(DATA, name))
    x = np.arange(20, dtype=np.float32)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    f = np.clip(np.sqrt((X - 9.5) ** 2 + (Y - 8.0) ** 2 + (Z - 10.2) ** 2) - 6.0, -3, 3)
    assert vol.background == 3.0 and vol.get_voxel_size() == (0.5, 0.5, 0.5)
    np.testing.assert_allclose(vol.translation, [1, -2, 0.5])
    dense, _ = vol.to_dense((0, 0, 0), (19, 19, 19))
    np.testing.assert_allclose(dense, f, atol=1e-6)
    ijk = np.array([[9, 8, 10], [0, 0, 0], [25, 0, 0], [-5, 3, 3]], np.int32)
    np.testing.assert_allclose(_lookup(vol, ijk), [f[9, 8, 10], f[0, 0, 0], 3.0, 3.0], atol=1e-6)


def test_bad_nanovdb_files(tmp_path):
    data = open(os.path.join(DATA, "sphere_sdf.nvdb"), "rb").read()
    for cut in (10, 100, 2000, len(data) - 100):
        with pytest.raises(NanoVDBError, match="truncated"):
            wp.Volume.load_from_nvdb(data[:cut])
    wrong_type = bytearray(data)
    wrong_type[16 + 32] = 19  # the file record's grid type is not trusted (Warp ignores it too)...
    voxels = wp.Volume.load_from_nvdb(data).get_voxel_count()
    assert wp.Volume.load_from_nvdb(bytes(wrong_type)).get_voxel_count() == voxels
    grid_at = 16 + 176 + int.from_bytes(data[16 + 136:16 + 140], "little")
    wrong_type[grid_at + 636] = 19  # ... the grid's own type decides: Index
    with pytest.raises(ValueError, match="grid type Index is not one warp_nb reads"):
        wp.Volume.load_from_nvdb(bytes(wrong_type))
    with pytest.raises(ValueError, match="not a NanoVDB"):
        wp.Volume.load_from_nvdb(b"\0" * 64)
    zipped = bytearray(open(os.path.join(DATA, "sphere_sdf_zip.nvdb"), "rb").read())
    zipped[-50:] = b"\xff" * 50
    with pytest.raises(ValueError, match="corrupt"):
        wp.Volume.load_from_nvdb(bytes(zipped))
    path = tmp_path / "cut.nvdb"
    path.write_bytes(data[:5000])
    with pytest.raises(ValueError):
        wp.Volume.load_from_nvdb(str(path))


def test_bad_numpy_input():
    with pytest.raises(ValueError, match="3-D"):
        wp.Volume.load_from_numpy(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="non-finite"):
        wp.Volume.load_from_numpy(np.full((4, 4, 4), np.nan))
    with pytest.raises(ValueError, match="voxel_size"):
        wp.Volume.load_from_numpy(np.zeros((4, 4, 4)), voxel_size=0.0)


def test_negative_coordinates_from_warp():
    # written by warp-lang 1.19: Volume.allocate(min=(-20, -10, -5), max=(5, 5, 5), voxel_size=0.25,
    # bg_value=-1, translation=(0.5, 0, -1)), then voxel (i, j, k) = i + 2 j + 3 k over that box (zip codec)
    vol = wp.Volume.load_from_nvdb(os.path.join(DATA, "negative_zip.nvdb"))
    assert vol.background == -1.0 and vol.get_voxel_size() == (0.25, 0.25, 0.25)
    np.testing.assert_allclose(vol.translation, [0.5, 0, -1])
    ijk = np.array([[-20, -10, -5], [-1, -1, -1], [5, 5, 5], [0, 0, 0], [-3, 4, -5]], np.int32)
    np.testing.assert_array_equal(_lookup(vol, ijk), ijk @ np.array([1, 2, 3]))
    assert vol.get_tile_count() == 24


def test_save_and_reload(tmp_path):
    for name in ("sphere_sdf.nvdb", "negative_zip.nvdb"):
        vol = wp.Volume.load_from_nvdb(os.path.join(DATA, name))
        for codec in ("none", "zip"):
            path = tmp_path / f"{codec}_{name}"
            vol.save_to_nvdb(str(path), codec=codec)
            back = wp.Volume.load_from_nvdb(str(path))
            lo, hi = vol._origins.min(0) - 9, vol._origins.max(0) + 16
            np.testing.assert_array_equal(back.to_dense(lo, hi)[0], vol.to_dense(lo, hi)[0])
            np.testing.assert_allclose(back.transform, vol.transform)
            np.testing.assert_allclose(back.translation, vol.translation)
            assert back.background == vol.background
    # constant regions at every level, negative coordinates included, survive a round trip
    parts = dict(origins=np.array([[-8, 0, 0]], np.int32), values=np.arange(512, dtype=np.float32).reshape(1, 512),
                 background=0.0, xform=np.eye(3) * 0.3, translation=np.array([1.0, 2.0, 3.0]),
                 levels=[(np.array([[8, -8, 0]], np.int32), np.array([-2.0], np.float32)),
                         (np.array([[128, 0, -128]], np.int32), np.array([-5.0], np.float32)),
                         (np.array([[-8192, 0, 0]], np.int32), np.array([7.0], np.float32))])
    path = tmp_path / "const.nvdb"
    wp.Volume(_parts=parts).save_to_nvdb(str(path))
    back = wp.Volume.load_from_nvdb(str(path))
    ijk = [[-8, 0, 1], [9, -3, 3], [200, 100, -5], [300, 0, 0], [-5000, 0, 0], [0, 0, 0]]
    np.testing.assert_array_equal(_lookup(back, ijk), [1.0, -2.0, -5.0, 0.0, 7.0, 0.0])
    np.testing.assert_array_equal(back.lookup(ijk), [1.0, -2.0, -5.0, 0.0, 7.0, 0.0])
    dense, lo = back.to_dense((-9, -9, -9), (140, 9, 9))
    np.testing.assert_array_equal(dense[[1, 18, 138, 0], [9, 6, 9, 9], [10, 12, 0, 9]], [1.0, -2.0, -5.0, 0.0])
    with pytest.raises(ValueError, match="codec"):
        back.save_to_nvdb(str(path), codec="blosc")
