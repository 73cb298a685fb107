"""`warp_nb.fem` geometries: every device function of the `Geometry` protocol, evaluated on every cell
and side (tests/unit/fem/geometry_values.py), checked against numpy: positions from the vertices,
measures and normals from the deformation gradients, sides that sit on both their cells, inverse
gradients that invert, boundary sides that are exactly the sides with one cell. Where Warp fixes a
convention the protocol leaves open (numbering, orientation), the expected numbers were read from
warp-lang 1.19 by running geometry_values.py on the same geometry."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem

from .geometry_values import COORDS, evaluate

C = np.array(COORDS, dtype=np.float64)


def _measure(F):
    """Numpy's element measure of a stack of deformation gradients (..., dim, k)."""
    if F.shape[-1] == 1:
        return np.linalg.norm(F[..., 0], axis=-1)
    if F.shape[-1] == F.shape[-2]:
        return np.abs(np.linalg.det(F))
    return np.linalg.norm(np.cross(F[..., 0], F[..., 1]), axis=-1)


def _normal(F):
    if F.shape[-2] == 2:
        n = np.stack([F[..., 1, 0], -F[..., 0, 0]], -1)
    else:
        n = np.cross(F[..., 0], F[..., 1])
    return n / np.linalg.norm(n, axis=-1, keepdims=True)


def check_protocol(geo, v, faces_per_cell, total_measure, affine=True):
    """The checks every geometry passes, whatever its numbering."""
    dim, cdim = geo.dimension, geo.cell_dimension
    sdim = cdim - 1
    tol = dict(atol=2.0e-5, rtol=2.0e-5)
    # Warp's measures are true lengths, areas and volumes: |det F| times the reference element's
    # measure (1/2 for a triangle, 1/6 for a tetrahedron)
    ref_cell = geo.reference_cell().prototype.measure()
    ref_side = geo.reference_side().prototype.measure()
    # cells: measure from F, inverse gradients invert, total measure
    np.testing.assert_allclose(v["cell_measure"], _measure(v["cell_F"]) * ref_cell, **tol)
    eye = np.broadcast_to(np.eye(cdim), v["cell_F"].shape[:2] + (cdim, cdim))
    np.testing.assert_allclose(v["cell_inv_F"] @ v["cell_F"], eye, atol=1.0e-4)
    if affine:  # (a bilinear cell's measure varies over it: the sum at one point is not its area)
        np.testing.assert_allclose(v["cell_measure"][:, 0].sum(), total_measure, rtol=1.0e-5)
    if dim != cdim:
        np.testing.assert_allclose(v["cell_normal"], _normal(v["cell_F"]), **tol)

    # sides: the same point seen from the side and from both its cells
    np.testing.assert_allclose(v["inner_pos"], v["pos"], atol=1.0e-5)
    np.testing.assert_allclose(v["outer_pos"], v["pos"], atol=1.0e-5)
    side_coords = np.broadcast_to(C[:, :sdim], v["back_inner"].shape[:2] + (sdim,))
    np.testing.assert_allclose(v["back_inner"][..., :sdim], side_coords, atol=1.0e-5)
    np.testing.assert_allclose(v["back_outer"][..., :sdim], side_coords, atol=1.0e-5)
    np.testing.assert_allclose(v["measure"], _measure(v["F"]) * ref_side, **tol)
    if geo.side_normal is not None:
        np.testing.assert_allclose(v["normal"], _normal(v["F"]), **tol)
        # the normal points out of the inner cell
        centre = v["cell_centre"][v["inner"][:, 0]]
        assert np.all(np.einsum("sd,sd->s", v["normal"][:, 0], v["pos"][:, 0] - centre) > 0.0)
    # the side's tangents are the inner cell's gradient applied to the side direction, so the
    # inverse gradient maps them back into the cell's reference space (a non-zero vector)
    assert np.all(np.abs(v["inner_inv_F"] @ v["F"]).sum(axis=-2) > 1.0e-3)
    if affine:
        np.testing.assert_allclose(v["inner_inv_F"], v["cell_inv_F"][v["inner"], 0], atol=1.0e-4)
        np.testing.assert_allclose(v["outer_inv_F"], v["cell_inv_F"][v["outer"], 0], atol=1.0e-4)
        cell_measure = np.minimum(v["cell_measure"][v["inner"], 0], v["cell_measure"][v["outer"], 0])
        np.testing.assert_allclose(v["ratio"], v["measure"] / cell_measure, **tol)

    # topology: boundary sides are the sides with one cell, each cell has all its faces
    inner, outer = v["inner"][:, 0], v["outer"][:, 0]
    assert np.all(v["inner"] == inner[:, None]) and np.all(v["outer"] == outer[:, None])
    on_boundary = np.flatnonzero(inner == outer)
    assert len(v["boundary"]) == geo.boundary_side_count() == len(on_boundary)
    assert sorted(v["boundary"].tolist()) == on_boundary.tolist()
    faces = np.bincount(inner, minlength=geo.cell_count()) + np.bincount(outer[inner != outer], minlength=geo.cell_count())
    assert np.all(faces == faces_per_cell)


# --- Grid2D ---


def grid2d():
    return fem.Grid2D(res=wp.vec2i(2, 3), bounds_lo=wp.vec2(0.5, -1.0), bounds_hi=wp.vec2(1.5, 2.0))


def test_grid2d_counts_and_description():
    geo = grid2d()
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (6, 12, 17, 10)
    assert geo.dimension == geo.cell_dimension == 2 and geo.name == "Grid2D" and geo.base is geo
    np.testing.assert_allclose(np.array(geo.cell_size), [0.5, 1.0])
    np.testing.assert_allclose(np.array(geo.extents), [1.0, 3.0])
    assert geo.reference_cell().prototype.measure() == 1.0 and geo.reference_side().prototype.measure() == 1.0
    # Warp's defaults: the unit square
    unit = fem.Grid2D(res=wp.vec2i(3))
    assert unit.side_count() == 2 * 4 * 3 and unit.boundary_side_count() == 12
    np.testing.assert_allclose(np.array(unit.cell_size), [1.0 / 3.0, 1.0 / 3.0], rtol=1.0e-6)


def test_grid2d_values():
    geo = grid2d()
    v = evaluate(wp, fem, geo)
    check_protocol(geo, v, faces_per_cell=4, total_measure=3.0)
    # cell (x, y) is x * res.y + y; its points are bounds_lo + size * (cell + coords)
    cell = np.stack(np.divmod(np.arange(6), 3), -1)
    expected = np.array([0.5, -1.0]) + np.array([0.5, 1.0]) * (cell[:, None, :] + C[None, :, :2])
    np.testing.assert_allclose(v["cell_pos"], expected, atol=1.0e-6)
    np.testing.assert_allclose(v["cell_F"], np.broadcast_to(np.diag([0.5, 1.0]), (6, 5, 2, 2)))
    # every grid edge is exactly one side (endpoints at side coordinates 0 and 1)
    edges = {tuple(sorted(map(tuple, np.round(v["pos"][s, 2:4], 6)))) for s in range(geo.side_count())}
    xs, ys = np.linspace(0.5, 1.5, 3), np.linspace(-1.0, 2.0, 4)
    grid_edges = {((x, y0), (x, y1)) for x in xs for y0, y1 in zip(ys, ys[1:])}
    grid_edges |= {((x0, y), (x1, y)) for y in ys for x0, x1 in zip(xs, xs[1:])}
    assert edges == grid_edges


def test_grid2d_numbering_matches_warp():
    # read from warp-lang 1.19 on the same grid: the boundary side order, the inner and outer
    # cells of each side, and where each side's coordinate starts
    v = evaluate(wp, fem, grid2d())
    assert v["boundary"].tolist() == [0, 12, 1, 13, 2, 14, 6, 15, 9, 16]
    assert v["inner"][:, 0].tolist() == [0, 1, 2, 0, 1, 2, 0, 0, 1, 3, 3, 4, 3, 4, 5, 2, 5]
    assert v["outer"][:, 0].tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 3, 4, 5, 2, 5]
    starts = [(0.5, 0), (0.5, 1), (0.5, 2), (1, -1), (1, 0), (1, 1), (0.5, -1), (1, 0), (1, 1), (1, -1),
              (1.5, 0), (1.5, 1), (1.5, -1), (1.5, 0), (1.5, 1), (1, 2), (1.5, 2)]
    np.testing.assert_allclose(v["pos"][:, 2], starts, atol=1.0e-6)
    np.testing.assert_allclose(v["inner_coords"][7, 1], [0.9, 1.0, 0.0], atol=1.0e-6)
    np.testing.assert_allclose(v["ratio"][:, 0], [2.0] * 6 + [1.0] * 6 + [2.0] * 3 + [1.0] * 2)


@wp.kernel
def _grid2d_lookup_kernel(args: fem.Grid2D.CellArg, pos: wp.array(dtype=wp.vec2), cells: wp.array(dtype=int),
                          coords: wp.array(dtype=wp.vec3), off_side: wp.array(dtype=wp.vec3),
                          side_arg: fem.Grid2D.SideArg):
    i = wp.tid()
    s = fem.Grid2D.cell_lookup(args, pos[i], 100.0)
    cells[i] = s.element_index
    coords[i] = s.element_coords
    # a point inside cell 0 is on none of its sides
    off_side[i] = fem.Grid2D.side_from_cell_coords(side_arg, i, 0, wp.vec3(0.5, 0.5, 0.0))


def test_grid2d_lookup_and_coordinates():
    geo = grid2d()
    pts = np.array([[0.6, -0.9], [1.3, 1.5], [0.5, 2.0], [5.0, -7.0]], dtype=np.float32)
    cells, coords, off = wp.zeros(4, dtype=int), wp.zeros(4, dtype=wp.vec3), wp.zeros(4, dtype=wp.vec3)
    wp.launch(_grid2d_lookup_kernel, dim=4, inputs=[geo.cell_arg_value("cpu"), wp.array(pts, dtype=wp.vec2), cells,
                                                    coords, off, geo.side_arg_value("cpu")])
    # numpy: the cell holding the point, clamped to the grid; none for a point further than max_dist (100)
    loc = (pts.astype(np.float64) - [0.5, -1.0]) / [0.5, 1.0]
    cell = np.clip(np.floor(loc), 0, [1, 2]).astype(int)
    gap = np.linalg.norm((loc - cell - np.clip(loc - cell, 0.0, 1.0)) * [0.5, 1.0], axis=1)
    expected = np.where(gap > 100.0, -1, cell[:, 0] * 3 + cell[:, 1])
    assert cells.numpy().tolist() == expected.tolist()
    np.testing.assert_allclose(coords.numpy()[:, :2], np.clip(loc - cell, 0.0, 1.0), atol=1.0e-5)
    np.testing.assert_allclose(off.numpy(), np.full((4, 3), fem.geometry.OUTSIDE))


def test_grid2d_bad_input():
    with pytest.raises(ValueError, match="res"):
        fem.Grid2D(res=wp.vec2i(0, 2))
    with pytest.raises(ValueError, match="bounds_hi"):
        fem.Grid2D(res=wp.vec2i(2, 2), bounds_lo=wp.vec2(1.0, 0.0), bounds_hi=wp.vec2(0.0, 1.0))
    with pytest.raises(TypeError, match="scalar_type"):  # float32 or float64 (test_fem_fp64.py)
        fem.Grid2D(res=wp.vec2i(2, 2), scalar_type=wp.int32)


def test_element_measure_and_normal_helpers():
    out = wp.zeros(5, dtype=float)
    nor = wp.zeros(2, dtype=wp.vec3)
    mat32 = wp.types.matrix(shape=(3, 2), dtype=wp.float32)

    @wp.kernel
    def helpers(out: wp.array(dtype=float), nor: wp.array(dtype=wp.vec3)):
        out[0] = fem.Geometry._element_measure(wp.vec2(3.0, 4.0))
        out[1] = fem.Geometry._element_measure(wp.mat22(2.0, 1.0, 0.5, -3.0))
        out[2] = fem.Geometry._element_measure(mat32(1.0, 0.0, 0.0, 2.0, 1.0, 1.0))
        out[3] = fem.Geometry._element_measure(wp.mat33(2.0, 1.0, 0.5, -3.0, 0.0, 0.0, 1.0, 1.0, 1.0))
        n2 = fem.Geometry._element_normal(wp.vec2(3.0, 4.0))
        nor[0] = wp.vec3(n2[0], n2[1], 0.0)
        nor[1] = fem.Geometry._element_normal(mat32(1.0, 0.0, 0.0, 2.0, 1.0, 1.0))

    wp.launch(helpers, dim=1, inputs=[out, nor])
    F2 = np.array([[2.0, 1.0], [0.5, -3.0]])
    F32 = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    F33 = np.array([[2.0, 1.0, 0.5], [-3.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    cross = np.cross(F32[:, 0], F32[:, 1])
    np.testing.assert_allclose(out.numpy()[:4], [5.0, abs(np.linalg.det(F2)), np.linalg.norm(cross),
                                                 abs(np.linalg.det(F33))], rtol=1.0e-6)
    np.testing.assert_allclose(nor.numpy(), [[0.8, -0.6, 0.0], cross / np.linalg.norm(cross)], rtol=1.0e-6)


# --- Grid3D ---


def grid3d():
    return fem.Grid3D(res=wp.vec3i(2, 1, 2), bounds_lo=wp.vec3(0.5, -1.0, 0.0), bounds_hi=wp.vec3(1.5, 2.0, 0.5))


def test_grid3d_values():
    geo = grid3d()
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (4, 18, 20, 16)
    assert geo.edge_count() == 2 * 2 * 3 + 3 * 1 * 3 + 3 * 2 * 2  # x, y and z edges
    v = evaluate(wp, fem, geo)
    check_protocol(geo, v, faces_per_cell=6, total_measure=1.5)
    size = np.array([0.5, 3.0, 0.25])
    cell = np.stack([np.arange(4) // 2, np.zeros(4, int), np.arange(4) % 2], -1)
    expected = np.array([0.5, -1.0, 0.0]) + size * (cell[:, None, :] + C[None, :, :])
    np.testing.assert_allclose(v["cell_pos"], expected, atol=1.0e-6)
    # every side is a grid face spanned by the sizes along the two other axes, and no face repeats
    side_faces = set()
    for s in range(geo.side_count()):
        axis = int(np.flatnonzero(np.abs(v["normal"][s, 0]) > 0.5)[0])
        u, w = (axis + 1) % 3, (axis + 2) % 3
        lo = v["pos"][s, 2] - np.where(v["F"][s, 0, :, 0] < 0, -v["F"][s, 0, :, 0], 0.0)  # the face's min corner
        side_faces.add((axis, *np.round(lo, 6)))
        assert np.allclose(np.abs(v["F"][s, 0, :, 0]), np.eye(3)[u] * size[u])
        assert np.allclose(v["F"][s, 0, :, 1], np.eye(3)[w] * size[w])
    assert len(side_faces) == geo.side_count()


def test_grid3d_numbering_matches_warp():
    # read from warp-lang 1.19 on the same grid
    v = evaluate(wp, fem, grid3d())
    assert v["boundary"].tolist() == [0, 12, 1, 13, 4, 14, 6, 15, 5, 16, 7, 17, 8, 18, 10, 19]
    assert v["inner"][:, 0].tolist() == [0, 1, 0, 1, 0, 1, 2, 3, 0, 0, 2, 2, 2, 3, 0, 2, 1, 3, 1, 3]
    assert v["outer"][:, 0].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 2, 3, 0, 2, 1, 3, 1, 3]
    np.testing.assert_allclose(v["inner_coords"][0, 1], [0.0, 0.9, 0.2], atol=1.0e-6)
    np.testing.assert_allclose(v["inner_coords"][4, 1], [0.2, 0.0, 0.9], atol=1.0e-6)
    np.testing.assert_allclose(v["inner_coords"][14, 0], [0.3, 1.0, 0.5], atol=1.0e-6)
    # side coordinates (0, 1): the corner where each side's u coordinate starts, v ends
    np.testing.assert_allclose(v["pos"][[0, 4, 8, 14], 2], [[0.5, 2.0, 0.25], [1.0, -1.0, 0.25], [1.0, 2.0, 0.0],
                                                           [1.0, 2.0, 0.0]], atol=1.0e-6)
    np.testing.assert_allclose(v["ratio"][[0, 4, 8], 0], [2.0, 1.0 / 3.0, 4.0], rtol=1.0e-6)


# --- unstructured meshes ---


def _grid_points(res, noise, seed=0):
    """The vertices of a regular grid on the unit box, (x, y[, z]) with x slowest, jittered inside."""
    axes = [np.linspace(0.0, 1.0, r + 1) for r in res]
    p = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(res))
    inside = np.all((p > 0.0) & (p < 1.0), axis=1, keepdims=True)
    return (p + noise * inside * np.random.default_rng(seed).standard_normal(p.shape)).astype(np.float32)


def _grid_quads(nx, ny):
    v = lambda x, y: x * (ny + 1) + y
    return np.array([[v(x, y), v(x + 1, y), v(x + 1, y + 1), v(x, y + 1)] for x in range(nx) for y in range(ny)])


def _grid_tris(nx, ny):
    return np.concatenate([[[q[0], q[1], q[2]], [q[0], q[2], q[3]]] for q in _grid_quads(nx, ny)])


def _expected_sides(cells, local_sides):
    """Warp's side numbering, written plainly: sides listed by first occurrence (cells in order, local
    sides in order), then stably sorted by smallest vertex; (vertices, inner cell, outer cell)."""
    found = {}
    for c, cell in enumerate(cells):
        for local in local_sides:
            verts = tuple(int(cell[k]) for k in local)
            key = tuple(sorted(verts))
            if key in found:
                found[key][2] = c
            else:
                found[key] = [verts, c, c]
    return sorted(found.values(), key=lambda side: min(side[0]))


def _mesh_values(cls, cells, points):
    dtype = wp.vec2 if points.shape[1] == 2 else wp.vec3
    geo = cls(wp.array(cells, dtype=int), wp.array(points, dtype=dtype))
    return geo, evaluate(wp, fem, geo)


def _check_segment_sides(v, cells, points, local_sides, orient_2d):
    """Positions at t = 0 and 1 are the edge's vertices, in Warp's numbering and orientation."""
    expected = _expected_sides(cells, local_sides)
    assert v["inner"][:, 0].tolist() == [s[1] for s in expected]
    assert v["outer"][:, 0].tolist() == [s[2] for s in expected]
    for s, (verts, inner, _outer) in enumerate(expected):
        start, end = v["pos"][s, 2], v["pos"][s, 3]  # side coordinates 0 and 1
        if orient_2d:  # in the plane the edge may be reversed to make its normal leave the inner cell
            assert {tuple(np.round(start, 5)), tuple(np.round(end, 5))} == {tuple(np.round(points[k], 5)) for k in verts}
        else:
            np.testing.assert_allclose([start, end], points[list(verts)], atol=1.0e-6)


def test_trimesh2d_values():
    points = _grid_points((3, 2), noise=0.05)
    cells = _grid_tris(3, 2)
    geo, v = _mesh_values(fem.Trimesh2D, cells, points)
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (12, 12, 23, 10)
    check_protocol(geo, v, faces_per_cell=3, total_measure=1.0)
    # barycentric cell coordinates
    np.testing.assert_allclose(v["cell_pos"], C @ points[cells], atol=1.0e-6)
    _check_segment_sides(v, cells, points, [(0, 1), (1, 2), (2, 0)], orient_2d=True)
    # counter-clockwise triangles keep their own edge direction
    np.testing.assert_allclose(v["pos"][:, 2], points[[s[0][0] for s in _expected_sides(cells, [(0, 1), (1, 2), (2, 0)])]],
                               atol=1.0e-6)


def test_trimesh2d_clockwise_triangles_get_outward_normals():
    points = _grid_points((2, 2), noise=0.05)
    cells = _grid_tris(2, 2)
    cells[::2] = cells[::2][:, [0, 2, 1]]
    geo, v = _mesh_values(fem.Trimesh2D, cells, points)
    check_protocol(geo, v, faces_per_cell=3, total_measure=1.0)


def test_trimesh3d_values():
    flat = _grid_points((2, 3), noise=0.05)
    points = np.concatenate([flat, 0.3 * flat[:, :1] ** 2 + 0.2 * flat[:, 1:]], 1).astype(np.float32)
    cells = _grid_tris(2, 3)
    geo, v = _mesh_values(fem.Trimesh3D, cells, points)
    assert geo.dimension == 3 and geo.cell_dimension == 2 and geo.side_normal is None
    tri = points[cells]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    check_protocol(geo, v, faces_per_cell=3, total_measure=area.sum())
    np.testing.assert_allclose(v["cell_measure"][:, 0], area, rtol=1.0e-5)
    _check_segment_sides(v, cells, points, [(0, 1), (1, 2), (2, 0)], orient_2d=False)


def _bilinear(points, cells):
    """Numpy's positions of the quads at COORDS: bilinear from the corners (0,0), (1,0), (1,1), (0,1)."""
    u, v = C[:, 0, None], C[:, 1, None]
    q = points[cells]
    return ((1 - u) * (1 - v) * q[:, None, 0] + u * (1 - v) * q[:, None, 1] + u * v * q[:, None, 2]
            + (1 - u) * v * q[:, None, 3])


def test_quadmesh2d_values():
    points = _grid_points((3, 2), noise=0.05)
    cells = _grid_quads(3, 2)
    cells[1] = cells[1][::-1]  # a clockwise quad: its edges are turned to keep normals outward
    cells[2] = np.roll(cells[2], 1)  # another first vertex
    geo, v = _mesh_values(fem.Quadmesh2D, cells, points)
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (6, 12, 17, 10)
    check_protocol(geo, v, faces_per_cell=4, total_measure=1.0, affine=False)
    np.testing.assert_allclose(v["cell_pos"], _bilinear(points, cells), atol=1.0e-6)
    _check_segment_sides(v, cells, points, [(0, 1), (1, 2), (2, 3), (3, 0)], orient_2d=True)


def test_quadmesh3d_values():
    flat = _grid_points((2, 3), noise=0.05)
    points = np.concatenate([flat, 0.3 * flat[:, :1] ** 2 + 0.2 * flat[:, 1:]], 1).astype(np.float32)
    cells = _grid_quads(2, 3)
    geo, v = _mesh_values(fem.Quadmesh3D, cells, points)
    assert geo.side_normal is None
    check_protocol(geo, v, faces_per_cell=4, total_measure=None, affine=False)
    np.testing.assert_allclose(v["cell_pos"], _bilinear(points, cells), atol=1.0e-6)
    _check_segment_sides(v, cells, points, [(0, 1), (1, 2), (2, 3), (3, 0)], orient_2d=False)


def _kuhn_tets(nx, ny, nz):
    """Six positively oriented tets per grid box (the Kuhn split), vertex (x, y, z) = (x * (ny+1) + y) * (nz+1) + z."""
    v = lambda x, y, z: (x * (ny + 1) + y) * (nz + 1) + z
    tets = []
    for x in range(nx):
        for y in range(ny):
            for z in range(nz):
                c = [v(x + i, y + j, z + k) for i, j, k in
                     [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]]
                for a, b in [(1, 2), (2, 3), (3, 7), (7, 4), (4, 5), (5, 1)]:
                    tets.append([c[0], c[a], c[b], c[6]])
    return np.array(tets)


def _tet_volumes(points, tets):
    t = points[tets].astype(np.float64)
    return np.linalg.det(np.stack([t[:, 1] - t[:, 0], t[:, 2] - t[:, 0], t[:, 3] - t[:, 0]], 1)) / 6.0


def _expected_faces(tets, points):
    """Warp's face numbering and orientation, written plainly: faces (0 1 2), (1 2 3), (2 3 0), (3 0 1) by
    first occurrence, stably sorted by smallest vertex; each starts at its smallest vertex and turns its
    normal out of its inner (first) tet."""
    faces = _expected_sides(tets, [(0, 1, 2), (1, 2, 3), (2, 3, 0), (3, 0, 1)])
    out = []
    for verts, inner, outer in faces:
        a, b, c = sorted(verts)
        p = points.astype(np.float64)
        if np.dot(np.cross(p[b] - p[a], p[c] - p[a]), (p[a] + p[b] + p[c]) / 3 - p[tets[inner]].mean(0)) < 0:
            b, c = c, b
        out.append(((a, b, c), inner, outer))
    return out


def test_tetmesh_values():
    points = _grid_points((2, 1, 2), noise=0.04)
    tets = _kuhn_tets(2, 1, 2)
    assert np.all(_tet_volumes(points, tets) > 0.0)
    tets[::3] = tets[::3][:, [1, 0, 2, 3]]  # negatively oriented tets
    tets[1::3] = tets[1::3][:, [1, 2, 0, 3]]  # tets whose first vertex is not their smallest
    geo, v = _mesh_values(fem.Tetmesh, tets, points)
    assert (geo.cell_count(), geo.vertex_count(), geo.boundary_side_count()) == (24, 18, 2 * 2 * (2 + 4 + 2))
    check_protocol(geo, v, faces_per_cell=4, total_measure=1.0)
    np.testing.assert_allclose(v["cell_measure"][:, 0], np.abs(_tet_volumes(points, tets)), rtol=1.0e-5)
    p0 = points[tets[:, 0]]
    np.testing.assert_allclose(v["cell_pos"], p0[:, None] + np.einsum("qk,ckd->cqd", C, points[tets[:, 1:]] - p0[:, None]),
                               atol=1.0e-6)
    expected = _expected_faces(tets, points)
    assert geo.side_count() == len(expected)
    assert v["inner"][:, 0].tolist() == [f[1] for f in expected]
    assert v["outer"][:, 0].tolist() == [f[2] for f in expected]
    # face coordinates are barycentric in the face's vertex order
    np.testing.assert_allclose(v["pos"], C @ points[[f[0] for f in expected]], atol=1.0e-6)
    # edges: counted once, each tet's local edges (0 1), (1 2), (2 0), (0 3), (1 3), (2 3) point at them
    edge_ids = geo.tet_edge_indices.numpy()
    local = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
    edges = _expected_sides(tets, local)
    assert geo.edge_count() == len(edges)
    index = {tuple(sorted(e[0])): i for i, e in enumerate(edges)}
    assert edge_ids.tolist() == [[index[tuple(sorted((t[a], t[b])))] for a, b in local] for t in tets.tolist()]


_CUBE = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], float)


def _grid_hexes(nx, ny, nz):
    v = lambda x, y, z: (x * (ny + 1) + y) * (nz + 1) + z
    return np.array([[v(x + i, y + j, z + k) for i, j, k in _CUBE.astype(int)]
                     for x in range(nx) for y in range(ny) for z in range(nz)])


def _rotate_hex(hexv, R):
    """The same hex listed from another corner: local vertex k becomes the one at R(corner k)."""
    moved = (R @ (_CUBE - 0.5).T).T + 0.5
    return [hexv[int(np.argmin(np.linalg.norm(_CUBE - c, axis=1)))] for c in moved]


def _trilinear(points, hexes):
    w = np.prod(np.where(_CUBE[None, :, :] > 0.5, C[:, None, :], 1.0 - C[:, None, :]), axis=2)  # (coords, 8)
    return np.einsum("qk,ckd->cqd", w, points[hexes])


def _expected_hex_faces(hexes):
    """Warp's face numbering: faces x=0, x=1, y=0, y=1, z=0, z=1 (outward), by first occurrence, stably
    sorted by smallest vertex, each turned to start at its smallest vertex."""
    faces = _expected_sides(hexes, [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)])
    return [(tuple(np.roll(f, -int(np.argmin(f)))), inner, outer) for f, inner, outer in faces]


@pytest.mark.parametrize("parallelepiped", [False, True])
def test_hexmesh_values(parallelepiped):
    points = _grid_points((2, 1, 2), noise=0.0 if parallelepiped else 0.04)
    points[:, 0] += 0.3 * points[:, 2]  # sheared: parallelepipeds, not boxes
    hexes = _grid_hexes(2, 1, 2)
    Rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    hexes[0], hexes[1], hexes[3] = _rotate_hex(hexes[0], Rz), _rotate_hex(hexes[1], Rx), _rotate_hex(hexes[3], Rx @ Rz)
    geo = fem.Hexmesh(wp.array(hexes, dtype=int), wp.array(points, dtype=wp.vec3),
                      assume_parallelepiped_cells=parallelepiped)
    v = evaluate(wp, fem, geo)
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (4, 18, 20, 16)
    assert geo.edge_count() == 33
    check_protocol(geo, v, faces_per_cell=6, total_measure=1.0, affine=parallelepiped)
    np.testing.assert_allclose(v["cell_pos"], _trilinear(points, hexes), atol=1.0e-5)
    expected = _expected_hex_faces(hexes)
    assert v["inner"][:, 0].tolist() == [f[1] for f in expected]
    assert v["outer"][:, 0].tolist() == [f[2] for f in expected]
    np.testing.assert_allclose(v["pos"][:, 3], points[[f[0][1] for f in expected]], atol=1.0e-6)  # (u, v) = (1, 0)
    np.testing.assert_allclose(v["pos"][:, 2], points[[f[0][3] for f in expected]], atol=1.0e-6)  # (0, 1)
    local = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
    edges = _expected_sides(hexes, local)
    index = {tuple(sorted(e[0])): i for i, e in enumerate(edges)}
    assert geo.hex_edge_indices.numpy().tolist() == [[index[tuple(sorted((h[a], h[b])))] for a, b in local]
                                                     for h in hexes.tolist()]


@pytest.mark.parametrize("cls,per_cell,dtype", [("Trimesh2D", 3, wp.vec2), ("Trimesh3D", 3, wp.vec3),
                                                 ("Quadmesh2D", 4, wp.vec2), ("Quadmesh3D", 4, wp.vec3),
                                                 ("Tetmesh", 4, wp.vec3), ("Hexmesh", 8, wp.vec3)])
def test_mesh_bad_input(cls, per_cell, dtype):
    positions = wp.zeros(per_cell, dtype=dtype)
    cells = list(range(per_cell))
    cells[-1] = per_cell
    with pytest.raises(ValueError, match=rf"Vertex index {per_cell} at flattened array index {per_cell - 1} is out of "
                                         rf"bounds; expected a value in \[0, {per_cell}\)"):
        getattr(fem, cls)(wp.array([cells], dtype=int), positions)
    with pytest.raises(TypeError, match="positions"):
        getattr(fem, cls)(wp.array([list(range(per_cell))], dtype=int), wp.zeros(per_cell, dtype=float))
