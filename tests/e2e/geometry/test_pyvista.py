"""pyvista bridge round trips: meshes, point clouds, volumes. Skipped without pyvista."""

import numpy as np
import pytest

import warp_nb as wp

pv = pytest.importorskip("pyvista", reason="pyvista tests need pyvista (pip install 'warp_nb[viz]')")
from warp_nb.geometry import pyvista_bridge as bridge  # noqa: E402

from tests.support.shapes import uv_sphere  # noqa: E402

pytestmark = pytest.mark.needs_cxx


def test_mesh_round_trip():
    verts, idx = uv_sphere(1.0, 8, 12)
    mesh = wp.Mesh(verts, idx, velocities=np.ones_like(verts))
    poly = bridge.mesh_to_pyvista(mesh)
    assert poly.n_points == len(verts) and poly.n_cells == len(idx) // 3
    np.testing.assert_allclose(poly.point_data["velocity"], 1.0)
    back = bridge.mesh_from_pyvista(poly)
    np.testing.assert_array_equal(back.indices.numpy(), idx)
    np.testing.assert_allclose(back.points.numpy(), verts)
    cube = bridge.mesh_from_pyvista(pv.Cube())  # quads are triangulated
    assert cube.num_tris == 12
    assert abs(poly.area - bridge.mesh_to_pyvista(back).area) < 1e-5


def test_points_round_trip():
    pts = np.random.default_rng(0).random((30, 3)).astype(np.float32)
    cloud = bridge.points_to_pyvista(wp.array(pts, dtype=wp.vec3), speed=np.arange(30.0))
    assert cloud.n_points == 30 and cloud.point_data["speed"][5] == 5.0
    back = bridge.points_from_pyvista(cloud)
    assert back.dtype is wp.vec3
    np.testing.assert_allclose(back.numpy(), pts)


def test_volume_round_trip():
    f = np.random.default_rng(1).normal(size=(10, 12, 9)).astype(np.float32)
    vol = wp.Volume.load_from_numpy(f, min_world=(1, 2, 3), voxel_size=(0.5, 0.25, 1.0))
    image = bridge.volume_to_pyvista(vol, (0, 0, 0), (9, 11, 8))
    assert tuple(image.dimensions) == (10, 12, 9)
    np.testing.assert_allclose(image.origin, (1, 2, 3))
    np.testing.assert_allclose(image.spacing, (0.5, 0.25, 1.0))
    # the image's point at index (i, j, k) holds f[i, j, k] and sits at origin + spacing * (i, j, k)
    k = image.find_closest_point((1 + 0.5 * 3, 2 + 0.25 * 7, 3 + 1.0 * 4))
    assert image.point_data["values"][k] == f[3, 7, 4]
    back = bridge.volume_from_pyvista(image)
    dense, _ = back.to_dense((0, 0, 0), (9, 11, 8))
    np.testing.assert_allclose(dense, f)
    np.testing.assert_allclose(back.translation, (1, 2, 3))


def test_missing_pyvista_says_what_to_install(monkeypatch):
    import sys
    from warp_nb.geometry import pyvista_bridge
    monkeypatch.setitem(sys.modules, "pyvista", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'warp_nb\[viz\]'"):
        pyvista_bridge.mesh_to_pyvista(object())
