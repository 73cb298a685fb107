"""wp.Volume of int32, vec3f, vec4f and vec4d voxels against numpy: typed stores and lookups,
per-component trilinear sampling and its gradient matrix, the dtype= forms, NanoVDB round trips of
every type, active voxels of allocate_by_voxels, transforms, grid info and bad arguments."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def store_and_read(vol: wp.uint64, ijk: wp.array(dtype=wp.vec3i), f: wp.array(dtype=float),
                   i_out: wp.array(dtype=int), v_out: wp.array(dtype=wp.vec3), v4_out: wp.array(dtype=wp.vec4d),
                   kind: int):
    t = wp.tid()
    c = ijk[t]
    x = float(c[0] + 100 * c[1] + 10000 * c[2])
    if kind == 0:
        wp.volume_store(vol, c[0], c[1], c[2], x)
        f[t] = wp.volume_lookup(vol, c[0], c[1], c[2], dtype=wp.float32)
    elif kind == 1:
        wp.volume_store_i(vol, c[0], c[1], c[2], int(x))
        i_out[t] = wp.volume_lookup_i(vol, c[0], c[1], c[2])
    elif kind == 2:
        wp.volume_store(vol, c[0], c[1], c[2], wp.vec3(x, -x, 2.0))
        v_out[t] = wp.volume_lookup(vol, c[0], c[1], c[2], dtype=wp.vec3)
    else:
        wp.volume_store(vol, c[0], c[1], c[2], wp.vec4d(wp.float64(x), 1.0, 2.0, 3.0))
        v4_out[t] = wp.volume_lookup(vol, c[0], c[1], c[2], dtype=wp.vec4d)


@pytest.mark.parametrize("kind, bg", [(0, -5.0), (1, -7), (2, (1.0, 2.0, 3.0)), (3, wp.vec4d(1.0, 2.0, 3.0, 4.0))])
def test_typed_stores_and_lookups(kind, bg):
    vol = wp.Volume.allocate(min=[-9, -9, -9], max=[9, 9, 9], voxel_size=0.5, bg_value=bg)
    assert vol.dtype is (wp.float32, wp.int32, wp.vec3f, wp.vec4d)[kind]
    ijk = np.array([[0, 0, 0], [3, -2, 5], [-9, 9, -1], [200, 0, 0]], np.int32)  # the last is outside: background
    n = len(ijk)
    outs = [wp.zeros(n), wp.zeros(n, dtype=int), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec4d)]
    wp.launch(store_and_read, n, inputs=[vol.id, wp.array(ijk, dtype=wp.vec3i), *outs, kind])
    x = (ijk[:, 0] + 100 * ijk[:, 1] + 10000 * ijk[:, 2]).astype(np.float64)
    got = outs[kind].numpy()
    expect = [x, x.astype(int), np.stack([x, -x, np.full(n, 2.0)], 1), np.stack([x, *np.ones((3, n)) * [[1], [2], [3]]], 1)][kind]
    expect[-1] = np.asarray(bg, np.float64)
    np.testing.assert_allclose(got, expect)


@wp.kernel
def sample_vec(vol: wp.uint64, p: wp.array(dtype=wp.vec3), val: wp.array(dtype=wp.vec3),
               grad: wp.array(dtype=wp.mat33), near: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    g = wp.mat33()
    val[t] = wp.volume_sample_grad(vol, p[t], wp.Volume.LINEAR, g, dtype=wp.vec3)
    grad[t] = g
    near[t] = wp.volume_sample(vol, p[t], wp.Volume.CLOSEST, dtype=wp.vec3)


def test_vector_sampling_is_trilinear_per_component():
    rng = np.random.default_rng(4)
    field = rng.normal(size=(10, 11, 12, 3)).astype(np.float32)
    vol = wp.Volume.load_from_numpy(field, voxel_size=1.0)
    assert vol.dtype is wp.vec3f
    p = rng.uniform(0.5, 8.5, (20, 3)).astype(np.float32)
    val, grad, near = wp.zeros(20, dtype=wp.vec3), wp.zeros(20, dtype=wp.mat33), wp.zeros(20, dtype=wp.vec3)
    wp.launch(sample_vec, 20, inputs=[vol.id, wp.array(p, dtype=wp.vec3), val, grad, near])

    def trilinear(q):
        i = np.floor(q).astype(int)
        t = q - i
        out = np.zeros(3)
        for a in (0, 1):
            for b in (0, 1):
                for c in (0, 1):
                    w = (t[0] if a else 1 - t[0]) * (t[1] if b else 1 - t[1]) * (t[2] if c else 1 - t[2])
                    out += w * field[i[0] + a, i[1] + b, i[2] + c]
        return out
    for k in range(20):
        np.testing.assert_allclose(val.numpy()[k], trilinear(p[k]), atol=1e-5)
        h = 1e-3
        fd = np.stack([(trilinear(p[k] + h * e) - trilinear(p[k] - h * e)) / (2 * h) for e in np.eye(3)], 1)
        np.testing.assert_allclose(grad.numpy()[k], fd, atol=2e-3)  # rows: components, columns: axes
        np.testing.assert_allclose(near.numpy()[k], field[tuple(np.floor(p[k] + 0.5).astype(int))])


@pytest.mark.parametrize("bg", [1.5, 3, (1.0, 2.0, 3.0), (1.0, 2.0, 3.0, 4.0), wp.vec4d(1.0, 2.0, 3.0, 4.0)])
def test_nanovdb_round_trip_of_every_type(tmp_path, bg):
    vol = wp.Volume.allocate(min=[-3, -3, -3], max=[12, 3, 3], voxel_size=0.25, bg_value=bg,
                             translation=(1.0, 2.0, 3.0))
    rng = np.random.default_rng(1)
    vol._data[...] = rng.integers(-50, 50, vol._data.shape)  # the bricks' storage: varied values of every type
    path = tmp_path / "v.nvdb"
    vol.save_to_nvdb(str(path), codec="zip")
    back = wp.Volume.load_from_nvdb(str(path))
    assert back.dtype is vol.dtype and back.get_grid_info().type_str == vol.get_grid_info().type_str
    ijk = np.stack(np.meshgrid(np.arange(-9, 20), np.arange(-9, 9), np.arange(-4, 5), indexing="ij"), -1).reshape(-1, 3)
    np.testing.assert_array_equal(back.lookup(ijk), vol.lookup(ijk))
    np.testing.assert_array_equal(back.array().numpy(), vol.array().numpy())
    np.testing.assert_allclose(back.translation, (1.0, 2.0, 3.0))


def test_active_voxels_transform_and_info():
    vol = wp.Volume.allocate_by_voxels(np.array([[0, 0, 0], [1, 2, 3], [1, 2, 3], [40, -8, 5]], np.int32),
                                       voxel_size=0.5, point_mask=np.array([1, 1, 1, 0]))
    assert vol.get_voxel_count() == 2 and len(vol.get_tiles().numpy()) == 1
    assert sorted(map(tuple, vol.get_voxels().numpy().tolist())) == [(0, 0, 0), (1, 2, 3)]
    xform = [[0, -1, 0], [1, 0, 0], [0, 0, 2]]
    rot = wp.Volume.allocate_by_voxels(np.array([[-1.0, 1.0, 4.0]]), transform=xform)
    assert rot.get_voxels().numpy().tolist() == [[1, 1, 2]]  # index = inverse(xform) @ world
    info = rot.get_grid_info()
    assert np.array(info.transform_matrix).reshape(3, 3).tolist() == xform
    assert rot.get_voxel_size() == (-1.0, 1.0, 2.0)  # xform @ (1, 1, 1), as Warp reports it
    assert rot.device == wp.get_device("cpu")


def test_bad_arguments():
    data = np.zeros((8, 8, 8), np.float32)
    for bad, err in ((None, TypeError), ("0.5", TypeError), ((0.1, 0.2), ValueError), (0.0, ValueError),
                     ((0.1, -0.2, 0.3), ValueError)):
        with pytest.raises(err):
            wp.Volume.load_from_numpy(data, (0, 0, 0), voxel_size=bad)
    with pytest.raises(TypeError):
        wp.Volume.allocate(min=[0, 0, 0], max=[1, 1, 1], voxel_size=1.0, bg_value=(1.0, 2.0))
