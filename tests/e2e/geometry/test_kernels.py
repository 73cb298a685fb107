"""The reusable geometry kernels of warp_nb.kernels: SPH densities against numpy, a short SPH run,
cloth resting on a sphere without passing through it, ray-cast depth against brute force, and
signed distances against the analytic sphere."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.kernels import cloth, raycast, sdf, sph

from tests.support.shapes import ray_hits, uv_sphere

pytestmark = pytest.mark.needs_cxx


def test_sph_density_matches_numpy_and_fluid_falls():
    rng = np.random.default_rng(1)
    pts = rng.uniform(0, 0.5, (800, 3)).astype(np.float32)
    fluid = sph.SPHFluid(pts, smoothing_length=0.08, grid_dim=16)
    rho = fluid.compute_density()
    np.testing.assert_allclose(rho, sph.poly6_density(pts, 0.08, fluid.mass), rtol=1e-4)
    block = sph.block((0.05, 0.05, 0.05), (0.35, 0.6, 0.35), 0.04)
    fluid = sph.SPHFluid(block, smoothing_length=0.08, lower=(0, 0, 0), upper=(1, 1, 1), stiffness=5.0)
    y0 = block[:, 1].mean()
    for _ in range(40):
        fluid.step(2e-3)
    x = fluid.positions.numpy()
    assert np.isfinite(x).all()
    assert (x >= -1e-6).all() and (x <= 1 + 1e-6).all()
    assert x[:, 1].mean() < y0  # gravity pulls the block down
    assert fluid.velocities.numpy()[:, 1].mean() < 0


def test_cloth_rests_on_sphere():
    verts, idx = uv_sphere(0.5, 16, 24)
    mesh = wp.Mesh(verts, idx)
    c = cloth.Cloth(16, 16, 0.06, origin=(-0.45, 0.56, -0.45), thickness=0.01, stiffness=2000.0)
    for _ in range(60):
        c.step(4e-3, mesh=mesh, substeps=4)
    x = c.positions.numpy()
    assert np.isfinite(x).all()
    r = np.linalg.norm(x, axis=1)
    assert r.min() > 0.5 - 0.02  # nothing went through the sphere (polygon faces sit inside r = 0.5)
    assert x[:, 1].min() < 0.5  # the edges drape down
    centre = x[8 * 16 + 8]  # the particle nearest the top of the sphere
    assert centre[1] > 0.45  # the middle rests on top
    lengths = np.linalg.norm(x[c.springs.numpy()[:, 1]] - x[c.springs.numpy()[:, 0]], axis=1)
    assert (lengths / c.rest.numpy()).max() < 1.5


def test_raycast_depth_matches_brute_force():
    verts, idx = uv_sphere(1.0, 10, 14)
    mesh = wp.Mesh(verts, idx)
    eye, target = (0.3, 0.2, 3.0), (0.0, 0.0, 0.0)
    depth, face, shade = raycast.render(mesh, eye, target, width=40, height=30)
    dirs = raycast.pixel_rays(eye, target, 40, 30).reshape(-1, 3)
    ref_t, ref_f = ray_hits(np.tile(np.float32(eye), (len(dirs), 1)), dirs.astype(np.float32), verts, idx)
    hit = np.isfinite(ref_t)
    assert ((face.ravel() >= 0) == hit).mean() > 0.99
    both = hit & (face.ravel() >= 0)
    np.testing.assert_allclose(depth.ravel()[both], ref_t[both], rtol=1e-4)
    assert (shade.ravel()[both] > 0).all() and (shade <= 1.0 + 1e-6).all()
    assert np.isinf(depth.ravel()[~hit & (face.ravel() < 0)]).all()


def test_sdf_of_a_sphere():
    verts, idx = uv_sphere(1.0, 24, 32)
    mesh = wp.Mesh(verts, idx, support_winding_number=True)
    rng = np.random.default_rng(2)
    pts = rng.uniform(-1.5, 1.5, (500, 3)).astype(np.float32)
    exact = np.linalg.norm(pts, axis=1) - 1.0
    for sign in ("normal", "winding"):
        d = sdf.sample_sdf(mesh, pts, sign=sign)
        np.testing.assert_allclose(d, exact, atol=0.02)  # the polygonal sphere is within 1 % of r
    g = sdf.sdf_grid(mesh, (-1.2, -1.2, -1.2), (1.2, 1.2, 1.2), (24, 24, 24))
    assert g.shape == (24, 24, 24) and g[12, 12, 12] < -0.9 and g[0, 0, 0] > 0.9
    mc = wp.geometry.IsoSurfaceMarchingCubes(24, 24, 24, (-1.2, -1.2, -1.2), (1.2, 1.2, 1.2))
    mc.surface(g, 0.0)
    v, t = mc.verts.numpy(), mc.indices.numpy().reshape(-1, 3)
    area = 0.5 * np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1).sum()
    assert abs(area - 4 * np.pi) < 0.05 * 4 * np.pi
