"""USD bridge: a polygon mesh read into wp.Mesh (triangulated, in world space), and a time-sampled
simulation written and read back with Pixar's USD library. Skipped without usd-core."""

import numpy as np
import pytest

import warp_nb as wp

pxr = pytest.importorskip("pxr", reason="USD tests need Pixar's usd-core (pip install 'warp_nb[usd]')")
from pxr import Gf, Usd, UsdGeom  # noqa: E402

from warp_nb.geometry import usd  # noqa: E402

pytestmark = pytest.mark.needs_cxx

CUBE_POINTS = [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]
CUBE_QUADS = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5], [0, 4, 7, 3]]  # outward


def _write_cube(path, translate=(0, 0, 0)):
    stage = Usd.Stage.CreateNew(str(path))
    xf = UsdGeom.Xform.Define(stage, "/world")
    xf.AddTranslateOp().Set(Gf.Vec3d(*translate))
    mesh = UsdGeom.Mesh.Define(stage, "/world/cube")
    mesh.GetPointsAttr().Set([Gf.Vec3f(*p) for p in CUBE_POINTS])
    mesh.GetFaceVertexCountsAttr().Set([4] * 6)
    mesh.GetFaceVertexIndicesAttr().Set([i for q in CUBE_QUADS for i in q])
    stage.GetRootLayer().Save()


@wp.kernel
def sdf_kernel(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point(mesh, pts[i], 100.0)
    out[i] = wp.length(pts[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v)) * q.sign


def test_load_mesh_triangulates_in_world_space(tmp_path):
    path = tmp_path / "cube.usda"
    _write_cube(path, translate=(5, 0, 0))
    pts, tris, prim = usd.read_mesh(str(path))
    assert prim == "/world/cube" and len(tris) == 12 * 3
    np.testing.assert_allclose(pts.min(0), [4, -1, -1])
    mesh = usd.load_mesh(str(path))
    q = np.array([[5, 0, 0], [5.5, 0.2, 0.1], [8, 0, 0], [5, 0, 1.5]], np.float32)
    out = wp.zeros(4, dtype=float)
    wp.launch(sdf_kernel, 4, inputs=[mesh.id, wp.array(q, dtype=wp.vec3), out])
    np.testing.assert_allclose(out.numpy(), [-1.0, -0.5, 2.0, 0.5], atol=1e-5)
    local, _, _ = usd.read_mesh(str(path), "/world/cube", world_space=False)
    np.testing.assert_allclose(local.min(0), [-1, -1, -1])


def test_write_time_samples_and_read_back(tmp_path):
    path = tmp_path / "sim.usda"
    rng = np.random.default_rng(0)
    frames = [rng.random((50, 3)).astype(np.float32) for _ in range(5)]
    tris = np.array([0, 1, 2, 0, 2, 3], np.int32)
    with usd.UsdWriter(str(path), fps=30) as out:
        for k, f in enumerate(frames):
            out.add_points("/sim/particles", wp.array(f, dtype=wp.vec3), k, radius=0.02)
            out.add_mesh("/sim/quad", f[:4] + k, tris, k)
    stage = Usd.Stage.Open(str(path))
    assert stage.GetStartTimeCode() == 0 and stage.GetEndTimeCode() == 4 and stage.GetTimeCodesPerSecond() == 30
    points = UsdGeom.Points(stage.GetPrimAtPath("/sim/particles"))
    for k in (0, 3):
        np.testing.assert_allclose(np.asarray(points.GetPointsAttr().Get(k)), frames[k])
    np.testing.assert_allclose(np.asarray(points.GetWidthsAttr().Get(2)), 0.04)
    pts, idx, _ = usd.read_mesh(str(path), "/sim/quad", time=4)
    np.testing.assert_allclose(pts, frames[4][:4] + 4)
    np.testing.assert_array_equal(idx, tris)
    usd.save_points(str(tmp_path / "p.usdc"), frames[:2])
    assert Usd.Stage.Open(str(tmp_path / "p.usdc")).GetEndTimeCode() == 1


def test_bad_usd_input(tmp_path):
    with pytest.raises(ValueError, match="fewer than 3"):
        usd.triangulate([3, 2], [0, 1, 2, 0, 1])
    with pytest.raises(ValueError, match="add up"):
        usd.triangulate([3, 3], [0, 1, 2])
    path = tmp_path / "empty.usda"
    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().Save()
    with pytest.raises(ValueError, match="no UsdGeom.Mesh"):
        usd.load_mesh(str(path))


def test_missing_usd_core_says_what_to_install(monkeypatch, tmp_path):
    import sys
    from warp_nb.geometry import usd
    monkeypatch.setitem(sys.modules, "pxr.UsdGeom", None)  # as if usd-core were not installed
    with pytest.raises(ImportError, match=r"pip install 'warp_nb\[usd\]'"):
        usd.load_mesh(str(tmp_path / "missing.usda"))
