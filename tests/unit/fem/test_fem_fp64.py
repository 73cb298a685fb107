"""Double-precision geometries end to end: grids with `scalar_type=wp.float64` and meshes of
vec2d/vec3d positions, their spaces, fields, quadratures, integrals, interpolation and lookups.

Positions carry an offset of 1 + 2^-30, exact in float64 and 1.0 in float32, so any step that
drops to single precision shows. References: exact integrals, numpy's Kronecker products of the
1-D P1 mass and stiffness matrices, and the same computation on a float32 geometry (which must
agree to float32's precision)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem

OFFSET = 1.0 + 2.0**-30


@fem.integrand
def _one(s: fem.Sample, domain: fem.Domain):
    return fem.scalar_type(domain)(1.0)


@fem.integrand
def _x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def _mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def _stiffness(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def _linear_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def _lookup_x(s: fem.Sample, domain: fem.Domain):
    # the position of the sample found at this sample's own position: the position again
    return domain(fem.lookup(domain, domain(s), s))[0]


def _grid2d(scalar, res=(2, 3)):
    vec = wp.types.vector(2, scalar)
    return fem.Grid2D(res=wp.vec2i(*res), bounds_lo=vec(OFFSET, 0.0), bounds_hi=vec(OFFSET + 2.0, 3.0),
                      scalar_type=scalar)


def _grid3d(scalar):
    vec = wp.types.vector(3, scalar)
    return fem.Grid3D(res=wp.vec3i(2, 1, 1), bounds_lo=vec(OFFSET, 0.0, 0.0), bounds_hi=vec(OFFSET + 1.0, 1.0, 1.0),
                      scalar_type=scalar)


def _mesh(kind, scalar):
    """One cell of each mesh kind with the offset: (geometry, volume, x centroid)."""
    dim = 3 if kind in ("Tetmesh", "Hexmesh", "Trimesh3D") else 2
    pts = {"Trimesh2D": [[0, 0], [1, 0], [0, 1]],
           "Trimesh3D": [[0, 0, 0], [1, 0, 0], [0, 1, 0]],
           "Quadmesh2D": [[0, 0], [1, 0], [1, 1], [0, 1]],
           "Tetmesh": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
           "Hexmesh": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]}[kind]
    p = np.array(pts, dtype=np.float64)
    p[:, 0] += OFFSET
    positions = wp.array(p, dtype=wp.types.vector(dim, scalar))
    indices = wp.array(np.arange(len(pts), dtype=np.int32)[None, :], ndim=2)
    volume, centroid = {"Trimesh2D": (0.5, 1 / 3), "Trimesh3D": (0.5, 1 / 3), "Quadmesh2D": (1.0, 0.5),
                        "Tetmesh": (1 / 6, 0.25), "Hexmesh": (1.0, 0.5)}[kind]
    return getattr(fem, kind)(indices, positions), volume, OFFSET + centroid


MESHES = ("Trimesh2D", "Trimesh3D", "Quadmesh2D", "Tetmesh", "Hexmesh")


def test_grid_types_follow_scalar_type():
    geo = _grid2d(wp.float64)
    assert geo.scalar_type is wp.float64
    assert geo.sample_type is fem.Sample_f64
    assert geo.coords_type is wp.vec3d
    assert geo.CellArg.fields["cell_size"] is wp.vec2d
    assert type(geo.bounds_lo) is wp.vec2d and geo.bounds_lo[0] == OFFSET  # kept in double precision
    f32 = _grid2d(wp.float32)
    assert f32.scalar_type is wp.float32 and f32.sample_type is fem.Sample
    assert f32.CellArg.fields["cell_size"] is wp.vec2
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=2)
    assert quadrature.Arg.fields["points"].dtype is wp.vec3d
    assert quadrature.Arg.fields["weights"].dtype is wp.float64


def test_bad_scalar_type_and_positions_are_refused():
    with pytest.raises(TypeError, match="scalar_type"):
        fem.Grid2D(res=wp.vec2i(1, 1), scalar_type=wp.float16)
    with pytest.raises(TypeError, match="positions"):
        fem.Trimesh2D(wp.array(np.array([[0, 1, 2]], dtype=np.int32)),
                      wp.array(np.zeros((3, 2)), dtype=wp.vec2h))


@pytest.mark.parametrize("make", [_grid2d, _grid3d], ids=["Grid2D", "Grid3D"])
def test_grid_volume_and_first_moment_in_double_precision(make):
    geo = make(wp.float64)
    lo, hi = np.array(geo.bounds_lo, dtype=np.float64), np.array(geo.bounds_hi, dtype=np.float64)
    volume = float(np.prod(hi - lo))
    cells = fem.Cells(geo)
    assert fem.integrate(_one, domain=cells) == pytest.approx(volume, rel=1e-14)
    moment = fem.integrate(_x, domain=cells)
    assert moment == pytest.approx(volume * (lo[0] + hi[0]) / 2, rel=1e-14)
    # float32 loses the offset (its origin is 1.0): right to float32's precision only
    f32 = fem.integrate(_x, domain=fem.Cells(make(wp.float32)))
    assert f32 == pytest.approx(moment, rel=1e-6)
    assert f32 != pytest.approx(moment, rel=1e-12)


@pytest.mark.parametrize("kind", MESHES)
def test_mesh_volume_and_first_moment_in_double_precision(kind):
    geo, volume, centroid = _mesh(kind, wp.float64)
    assert geo.scalar_type is wp.float64
    cells = fem.Cells(geo)
    assert fem.integrate(_one, domain=cells) == pytest.approx(volume, rel=1e-14)
    assert fem.integrate(_x, domain=cells) == pytest.approx(volume * centroid, rel=1e-14)


def _p1_1d(n, h):
    """The 1-D P1 mass and stiffness matrices of n cells of size h."""
    mass, stiff = np.zeros((n + 1, n + 1)), np.zeros((n + 1, n + 1))
    for c in range(n):
        mass[c:c + 2, c:c + 2] += h / 6 * np.array([[2, 1], [1, 2]])
        stiff[c:c + 2, c:c + 2] += 1 / h * np.array([[1, -1], [-1, 1]])
    return mass, stiff


def _to_dense(matrix):
    nnz = matrix.nnz_sync()
    rows = matrix.offsets.numpy()
    cols = matrix.columns.numpy()[:nnz]
    vals = matrix.values.numpy()[:nnz].astype(np.float64)
    out = np.zeros((matrix.nrow, matrix.ncol))
    for r in range(matrix.nrow):
        for k in range(rows[r], rows[r + 1]):
            out[r, cols[k]] += vals[k]
    return out


def test_grid_mass_and_stiffness_match_kronecker_products():
    geo = _grid2d(wp.float64, res=(2, 3))
    space = fem.make_polynomial_space(geo, degree=1)
    assert space.dtype is wp.float64
    cells = fem.Cells(geo)
    u, v = fem.make_trial(space, domain=cells), fem.make_test(space, domain=cells)
    mass = fem.integrate(_mass, fields={"u": u, "v": v})
    stiff = fem.integrate(_stiffness, fields={"u": u, "v": v})
    assert mass.scalar_type is wp.float64 and stiff.scalar_type is wp.float64
    mx, kx = _p1_1d(2, 1.0)
    my, ky = _p1_1d(3, 1.0)
    # node (i, j) is i * (res_y + 1) + j: x is the slow index
    np.testing.assert_allclose(_to_dense(mass), np.kron(mx, my), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(_to_dense(stiff), np.kron(kx, my) + np.kron(mx, ky), rtol=1e-13, atol=1e-13)
    # the same on a float32 grid, to float32's precision
    g32 = _grid2d(wp.float32, res=(2, 3))
    s32 = fem.make_polynomial_space(g32, degree=1)
    c32 = fem.Cells(g32)
    m32 = fem.integrate(_mass, fields={"u": fem.make_trial(s32, domain=c32), "v": fem.make_test(s32, domain=c32)})
    assert m32.scalar_type is wp.float32
    np.testing.assert_allclose(_to_dense(m32), _to_dense(mass), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kind", ["Tetmesh", "Hexmesh", "Quadmesh2D"])
def test_mesh_stiffness_rows_sum_to_zero(kind):
    geo, volume, _ = _mesh(kind, wp.float64)
    space = fem.make_polynomial_space(geo, degree=2 if kind == "Tetmesh" else 1)
    cells = fem.Cells(geo)
    u, v = fem.make_trial(space, domain=cells), fem.make_test(space, domain=cells)
    dense = _to_dense(fem.integrate(_stiffness, fields={"u": u, "v": v}))
    np.testing.assert_allclose(dense.sum(axis=1), 0.0, atol=1e-12)
    mass = _to_dense(fem.integrate(_mass, fields={"u": u, "v": v}))
    assert mass.sum() == pytest.approx(volume, rel=1e-13)


def test_linear_form_and_interpolation_keep_the_offset():
    geo = _grid2d(wp.float64)
    space = fem.make_polynomial_space(geo, degree=1)
    field = space.make_field()
    fem.interpolate(_linear_x, dest=field)
    x = space.node_positions().numpy()[:, 0]
    assert space.node_positions().dtype is wp.vec2d
    np.testing.assert_array_equal(field.dof_values.numpy(), x)  # exact: both are x in double precision
    assert np.isin(OFFSET, x)
    v = fem.make_test(space, domain=fem.Cells(geo))
    b = fem.integrate(_mass, fields={"u": field, "v": v})
    assert b.dtype is wp.float64
    # sum_i int x phi_i = int x
    assert float(np.sum(b.numpy())) == pytest.approx(fem.integrate(_x, domain=fem.Cells(geo)), rel=1e-14)


@pytest.mark.parametrize("kind", ["Grid2D", "Tetmesh", "Quadmesh2D"])
def test_lookup_finds_the_same_point(kind):
    if kind == "Grid2D":
        geo, volume, centroid = _grid2d(wp.float64), 6.0, OFFSET + 1.0
    else:
        geo, volume, centroid = _mesh(kind, wp.float64)
        geo.build_bvh()
    got = fem.integrate(_lookup_x, domain=fem.Cells(geo))
    assert got == pytest.approx(volume * centroid, rel=1e-12)


def test_boundary_sides_in_double_precision():
    geo = _grid3d(wp.float64)
    assert fem.integrate(_one, domain=fem.BoundarySides(geo)) == pytest.approx(6.0, rel=1e-14)  # the unit cube
    quad, _, _ = _mesh("Quadmesh2D", wp.float64)
    assert fem.integrate(_one, domain=fem.BoundarySides(quad)) == pytest.approx(4.0, rel=1e-14)


def test_retyped_struct_and_function_are_made_once():
    from warp_nb.fem.geometry.grid_2d import Grid2DCellArg
    from warp_nb.fem.precision import retyped
    a, b = retyped(Grid2DCellArg), retyped(Grid2DCellArg)
    assert a is b and a.fields["origin"] is wp.vec2d
    assert retyped(a) is a  # a float64 variant is its own
    assert retyped(Grid2DCellArg, wp.float32) is Grid2DCellArg
    assert retyped(fem.Grid2D.cell_position) is retyped(fem.Grid2D.cell_position)


def test_explicit_quadrature_takes_double_precision_points():
    geo = _grid2d(wp.float64, res=(2, 2))
    cells = fem.Cells(geo)
    n = geo.cell_count()
    points = wp.array(np.full((n, 1, 3), 0.5), dtype=wp.vec3d, ndim=2)
    weights = wp.array(np.ones((n, 1)), dtype=wp.float64, ndim=2)
    got = fem.integrate(_x, quadrature=fem.ExplicitQuadrature(cells, points=points, weights=weights))
    # the midpoint rule is exact for x
    assert got == pytest.approx(fem.integrate(_x, domain=cells), rel=1e-14)
    with pytest.raises(TypeError, match="points"):
        fem.ExplicitQuadrature(cells, points=wp.array(np.full((n, 1, 3), 0.5), dtype=wp.vec3, ndim=2),
                               weights=weights)


def test_pic_quadrature_refuses_double_precision_geometries():
    cells = fem.Cells(_grid2d(wp.float64))
    with pytest.raises(NotImplementedError, match="float64"):
        fem.PicQuadrature(cells, wp.array(np.array([[OFFSET + 0.5, 0.5]]), dtype=wp.vec2d))


@fem.integrand
def _doubled(s: fem.Sample, domain: fem.Domain):
    return domain(s) + domain(s)


def test_deformed_geometry_of_a_double_precision_field():
    geo = _grid2d(wp.float64, res=(2, 2))
    field = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2d).make_field()
    fem.interpolate(_doubled, dest=field)
    deformed = field.make_deformed_geometry(relative=False)
    assert deformed.scalar_type is wp.float64
    # positions doubled: the area is 4 times the grid's (6), the first moment 8 times
    cells = fem.Cells(geo)
    assert fem.integrate(_one, domain=fem.Cells(deformed)) == pytest.approx(24.0, rel=1e-14)
    assert fem.integrate(_x, domain=fem.Cells(deformed)) == pytest.approx(8 * fem.integrate(_x, domain=cells),
                                                                         rel=1e-14)


def test_boundary_restriction_of_a_double_precision_space():
    geo = _grid2d(wp.float64, res=(2, 3))
    space = fem.make_polynomial_space(geo, degree=1)
    restriction = fem.make_space_restriction(space_topology=space.topology, domain=fem.BoundarySides(geo))
    assert restriction.node_count_sync() == 2 * (2 + 3)  # the boundary vertices
    assert restriction.node_count() == 2 * (2 + 3)  # exact once synchronized


@fem.integrand
def _lookup_x_no_guess(s: fem.Sample, domain: fem.Domain):
    return domain(fem.lookup(domain, domain(s)))[0]


@fem.integrand
def _lookup_x_filtered(s: fem.Sample, domain: fem.Domain, keep: wp.array(dtype=int)):
    return domain(fem.lookup(domain, domain(s), 10.0, keep, 1))[0]


def test_lookups_on_deformed_and_filtered_double_precision_geometries():
    geo = _grid2d(wp.float64, res=(2, 2))
    cells = fem.Cells(geo)
    moment = fem.integrate(_x, domain=cells)
    keep = wp.array(np.ones(geo.cell_count(), dtype=np.int32), dtype=int)
    assert fem.integrate(_lookup_x_filtered, domain=cells, values={"keep": keep}) == pytest.approx(moment, rel=1e-13)
    field = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2d).make_field()
    fem.interpolate(_doubled, dest=field)
    deformed = field.make_deformed_geometry(relative=False)
    deformed.build_bvh()
    got = fem.integrate(_lookup_x_no_guess, domain=fem.Cells(deformed))
    assert got == pytest.approx(8 * moment, rel=1e-12)


def test_replicated_double_precision_grid():
    # env_count copies of a float64 grid: each copy keeps the offset
    vec = wp.vec2d
    geo = fem.Grid2D(res=wp.vec2i(2, 3), bounds_lo=vec(OFFSET, 0.0), bounds_hi=vec(OFFSET + 2.0, 3.0),
                     scalar_type=wp.float64, env_count=3)
    assert geo.scalar_type is wp.float64
    cells = fem.Cells(geo)
    single = fem.integrate(_x, domain=fem.Cells(_grid2d(wp.float64)))
    assert fem.integrate(_x, domain=cells) == pytest.approx(3 * single, rel=1e-14)
    assert fem.integrate(_one, domain=fem.BoundarySides(geo)) == pytest.approx(3 * 10.0, rel=1e-14)
