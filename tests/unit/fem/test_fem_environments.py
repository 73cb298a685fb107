"""Several environments in one geometry: a grid of `env_count` copies and meshes tagged by
`cell_env`. Per-environment integrals against numpy (each environment is a copy at the same place,
so an integral weighted by a function of the environment index is a known sum), environment-aware
lookups and particle quadratures, the node isolation of spaces, and the argument checks."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem


@fem.integrand
def _env_weighted(s: fem.Sample, domain: fem.Domain):
    p = domain(s)
    return (p[0] + p[1] * p[1]) * (1.0 + float(fem.environment_index(domain, s)))


@fem.integrand
def _env_of_particle(s: fem.Sample, domain: fem.Domain, out: wp.array(dtype=int)):
    out[s.qp_index] = fem.environment_index(domain, s)
    return 0.0


@fem.integrand
def _lookup_in_env(s: fem.Sample, domain: fem.Domain, out: wp.array(dtype=int), env: int):
    out[s.qp_index] = fem.lookup(domain, domain(s), env).element_index
    return 0.0


def test_grid_environment_integrals():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), env_count=3)
    assert geo.environment_count() == 3 and "_env" in geo.name
    assert geo.cell_count() == 18 and geo.side_count() == 3 * (2 * 6 + 3 + 2)
    # one environment: the unit square, x + y^2 integrates to 1/2 + 1/3; environment e weighs 1 + e
    expected = (0.5 + 1.0 / 3.0) * (1 + 2 + 3)
    got = fem.integrate(_env_weighted, domain=fem.Cells(geo), quadrature=fem.RegularQuadrature(fem.Cells(geo), 3))
    assert got == pytest.approx(expected, rel=1e-5)
    # boundary of the unit square: x + y^2 over its four edges = 1/2+0 + 1/2+1 + 1+1/3 + 0+1/3 = 11/3
    boundary = fem.BoundarySides(geo)
    got = fem.integrate(_env_weighted, domain=boundary, quadrature=fem.RegularQuadrature(boundary, 3))
    assert got == pytest.approx(11.0 / 3.0 * 6, rel=1e-5)


def test_grid_environment_spaces_do_not_share_nodes():
    geo = fem.Grid3D(res=wp.vec3i(1, 2, 1), env_count=2)
    for kwargs in ({"degree": 1}, {"degree": 2}):
        space = fem.make_polynomial_space(geo, **kwargs)
        table = space.topology.element_node_indices().numpy()
        per_env = space.node_count() // 2
        assert table[:2].max() < per_env and table[2:].min() >= per_env


def test_mesh_environment_lookup_and_particles():
    positions = wp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]] * 2, dtype=wp.vec2)
    tris = wp.array([[0, 1, 2], [3, 4, 5]], dtype=int)
    geo = fem.Trimesh2D(tris, positions, build_bvh=True, cell_env=wp.array([1, 0], dtype=wp.int32), env_count=2)
    domain = fem.Cells(geo)
    found = wp.zeros(2, dtype=int)
    fem.interpolate(_lookup_in_env, at=fem.RegularQuadrature(domain, order=0), values={"out": found, "env": 0})
    np.testing.assert_array_equal(found.numpy(), [1, 1])  # environment 0 is the second triangle
    pic = fem.PicQuadrature(domain, positions=wp.array([[0.2, 0.2]] * 3, dtype=wp.vec2),
                            env_indices=wp.array([0, 1, 0], dtype=int))
    assert pic.active_cell_count() == 2 and pic.max_points_per_element() == 2
    envs = wp.zeros(3, dtype=int)
    fem.interpolate(_env_of_particle, at=pic, values={"out": envs})
    np.testing.assert_array_equal(envs.numpy(), [0, 1, 0])
    with pytest.raises(ValueError, match="environment indices"):
        fem.PicQuadrature(domain, positions=wp.array([[0.2, 0.2]], dtype=wp.vec2))


def test_mesh_environment_argument_checks():
    positions = wp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=wp.vec2)
    tris = wp.array([[0, 1, 2]], dtype=int)
    with pytest.raises(ValueError, match="Environment count must be provided"):
        fem.Trimesh2D(tris, positions, cell_env=wp.array([0], dtype=wp.int32))
    with pytest.raises(ValueError, match="dtype wp.int32"):
        fem.Trimesh2D(tris, positions, cell_env=wp.array([0], dtype=wp.int64), env_count=1)
    with pytest.raises(ValueError, match="one entry per cell"):
        fem.Trimesh2D(tris, positions, cell_env=wp.array([0, 1], dtype=wp.int32), env_count=2)
