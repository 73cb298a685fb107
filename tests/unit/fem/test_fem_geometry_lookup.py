"""`warp_nb.fem` geometries: finding the cell at a world position (`cell_lookup` on a mesh with its
BVH built), the coordinates of a point in a cell and the closest point of a cell, and the simplex
closest-point queries they rest on; all checked against numpy (brute force over fine samplings of
the elements)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem

from .geometry_values import evaluate
from .test_fem_geometries import _grid_hexes, _grid_points, _grid_quads, _grid_tris, _kuhn_tets


def _lookup(geo, pts):
    """geo.cell_lookup, cell_coordinates (in the found cell) and cell_closest_point at `pts`."""
    vec = wp.types.vector(geo.dimension, wp.float32)

    @wp.kernel
    def lookup(args: geo.CellArg, pts: wp.array(dtype=vec), cells: wp.array(dtype=int), coords: wp.array2d(dtype=wp.vec3),
               sq_dist: wp.array(dtype=float)):
        i = wp.tid()
        s = geo.cell_lookup(args, pts[i], 1.0e30)
        cells[i] = s.element_index
        coords[i, 0] = s.element_coords
        coords[i, 1] = geo.cell_coordinates(args, s.element_index, pts[i])
        c, d = geo.cell_closest_point(args, s.element_index, pts[i])
        coords[i, 2] = c
        sq_dist[i] = d

    n = len(pts)
    out = (wp.zeros(n, dtype=int), wp.zeros((n, 3), dtype=wp.vec3), wp.zeros(n, dtype=float))
    wp.launch(lookup, dim=n, inputs=[geo.cell_arg_value("cpu"), wp.array(pts, dtype=vec), *out])
    return [a.numpy() for a in out]


_MESHES = {
    "Trimesh2D": lambda: (fem.Trimesh2D, _grid_tris(3, 2), _grid_points((3, 2), 0.05)),
    "Quadmesh2D": lambda: (fem.Quadmesh2D, _grid_quads(3, 2), _grid_points((3, 2), 0.05)),
    "Tetmesh": lambda: (fem.Tetmesh, _kuhn_tets(2, 1, 2), _grid_points((2, 1, 2), 0.04)),
    "Hexmesh": lambda: (fem.Hexmesh, _grid_hexes(2, 1, 2), _grid_points((2, 1, 2), 0.04)),
}


@pytest.mark.parametrize("name", sorted(_MESHES))
def test_mesh_cell_lookup(name):
    cls, cells, points = _MESHES[name]()
    geo = cls(wp.array(cells, dtype=int), wp.array(points, dtype=wp.vec2 if points.shape[1] == 2 else wp.vec3))
    assert not geo.supports_cell_lookup("cpu")
    geo.build_bvh("cpu")
    assert geo.supports_cell_lookup("cpu") and geo.bvh_id("cpu") != 0
    v = evaluate(wp, fem, geo)
    # points strictly inside each cell: found in that cell, at the coordinates they came from
    pts = v["cell_centre"]
    found, coords, sq_dist = _lookup(geo, pts)
    assert found.tolist() == list(range(geo.cell_count()))
    np.testing.assert_allclose(coords[:, 1], coords[:, 0], atol=1.0e-4)
    np.testing.assert_allclose(sq_dist, 0.0, atol=1.0e-8)
    # points outside the mesh: the nearest cell, and the nearest point of it (numpy: over all cells'
    # positions at a fine sampling of their reference element)
    outside = np.array([[-0.3, 0.4, 0.5][:geo.dimension], [1.2, 1.3, 1.1][:geo.dimension]], dtype=np.float32)
    found, coords, sq_dist = _lookup(geo, outside)
    t = np.linspace(0.0, 1.0, 21)
    grid = np.stack(np.meshgrid(*[t] * geo.cell_dimension, indexing="ij"), -1).reshape(-1, geo.cell_dimension)
    if geo.reference_cell().prototype.measure() < 1.0:
        grid = grid[grid.sum(axis=1) <= 1.0]
    samples = []
    for c in range(geo.cell_count()):
        q = np.concatenate([grid, np.zeros((len(grid), 3 - geo.cell_dimension))], 1).astype(np.float32)
        if geo.cell_dimension == 2 and geo.reference_cell().prototype.measure() < 1.0:
            q = np.stack([1.0 - q[:, 0] - q[:, 1], q[:, 0], q[:, 1]], 1)
        samples.append(_positions_at(geo, c, q))
    samples = np.stack(samples)  # (cells, points, dim)
    d = ((samples[None] - outside[:, None, None]) ** 2).sum(-1).min(-1)  # (queries, cells)
    np.testing.assert_allclose(sq_dist, d.min(axis=1), rtol=0.05, atol=1.0e-4)
    assert np.all(d[np.arange(2), found] <= d.min(axis=1) + 1.0e-3)


def _positions_at(geo, cell, coords):
    vec = wp.types.vector(geo.dimension, wp.float32)

    @wp.kernel
    def at(args: geo.CellArg, cell: int, coords: wp.array(dtype=wp.vec3), out: wp.array(dtype=vec)):
        i = wp.tid()
        s = fem.Sample()
        s.element_index = cell
        s.element_coords = coords[i]
        out[i] = geo.cell_position(args, s)

    out = wp.zeros(len(coords), dtype=vec)
    wp.launch(at, dim=len(coords), inputs=[geo.cell_arg_value("cpu"), cell, wp.array(coords, dtype=wp.vec3), out])
    return out.numpy()


def test_closest_point_on_simplices():
    from warp_nb.fem.geometry.closest_point import project_on_tet_at_origin, project_on_tri_at_origin

    @wp.kernel
    def queries(q2: wp.array(dtype=wp.vec2), q3: wp.array(dtype=wp.vec3), d: wp.array2d(dtype=float),
                c: wp.array2d(dtype=wp.vec3)):
        i = wp.tid()
        d2, c2 = project_on_tri_at_origin(q2[i], wp.vec2(2.0, 0.5), wp.vec2(-0.5, 1.5))
        d3, c3 = project_on_tet_at_origin(q3[i], wp.vec3(1.0, 0.2, 0.0), wp.vec3(0.0, 1.5, 0.3), wp.vec3(0.2, -0.1, 0.8))
        d[i, 0] = d2
        c[i, 0] = c2
        d[i, 1] = d3
        c[i, 1] = c3

    rng = np.random.default_rng(3)
    q2 = rng.uniform(-1.5, 2.5, (64, 2)).astype(np.float32)
    q3 = rng.uniform(-1.0, 2.0, (64, 3)).astype(np.float32)
    d, c = wp.zeros((64, 2), dtype=float), wp.zeros((64, 2), dtype=wp.vec3)
    wp.launch(queries, dim=64, inputs=[wp.array(q2, dtype=wp.vec2), wp.array(q3, dtype=wp.vec3), d, c])
    d, c = d.numpy(), c.numpy()
    # numpy: brute force over a fine sampling of each simplex
    t = np.linspace(0.0, 1.0, 81)
    uv = np.stack(np.meshgrid(t, t, indexing="ij"), -1).reshape(-1, 2)
    uv = uv[uv.sum(1) <= 1.0]
    tri = uv @ np.array([[2.0, 0.5], [-0.5, 1.5]])
    dist_tri = ((q2[:, None] - tri[None]) ** 2).sum(-1).min(1)
    np.testing.assert_allclose(d[:, 0], dist_tri, atol=2.0e-3)
    np.testing.assert_allclose(c[:, 0, 0] + c[:, 0, 1] + c[:, 0, 2], 1.0, atol=1.0e-5)
    np.testing.assert_allclose(((q2 - c[:, 0, 1:] @ np.array([[2.0, 0.5], [-0.5, 1.5]])) ** 2).sum(1), d[:, 0], atol=1.0e-5)
    E = np.array([[1.0, 0.2, 0.0], [0.0, 1.5, 0.3], [0.2, -0.1, 0.8]])
    t = np.linspace(0.0, 1.0, 31)
    xyz = np.stack(np.meshgrid(t, t, t, indexing="ij"), -1).reshape(-1, 3)
    tet = xyz[xyz.sum(1) <= 1.0] @ E
    dist_tet = ((q3[:, None] - tet[None]) ** 2).sum(-1).min(1)
    np.testing.assert_allclose(d[:, 1], dist_tet, atol=1.0e-2)
    np.testing.assert_allclose(((q3 - c[:, 1] @ E) ** 2).sum(1), d[:, 1], atol=1.0e-5)


def _side_queries(geo, sides, pts):
    vec = wp.types.vector(geo.dimension, wp.float32)

    @wp.kernel
    def queries(args: geo.SideArg, sides: wp.array(dtype=int), pts: wp.array(dtype=vec), out: wp.array2d(dtype=wp.vec3),
                sq_dist: wp.array(dtype=float)):
        i = wp.tid()
        out[i, 0] = geo.side_coordinates(args, sides[i], pts[i])
        c, d = geo.side_closest_point(args, sides[i], pts[i])
        out[i, 1] = c
        sq_dist[i] = d

    n = len(pts)
    out, sq = wp.zeros((n, 2), dtype=wp.vec3), wp.zeros(n, dtype=float)
    wp.launch(queries, dim=n, inputs=[geo.side_arg_value("cpu"), wp.array(sides, dtype=int), wp.array(pts, dtype=vec),
                                      out, sq])
    return out.numpy(), sq.numpy()


@pytest.mark.parametrize("name", sorted(_MESHES) + ["Grid2D", "Grid3D"])
def test_side_coordinates_and_closest_points(name):
    if name.startswith("Grid"):
        geo = fem.Grid2D(res=wp.vec2i(2, 3)) if name == "Grid2D" else fem.Grid3D(res=wp.vec3i(2, 1, 2))
    else:
        cls, cells, points = _MESHES[name]()
        geo = cls(wp.array(cells, dtype=int), wp.array(points, dtype=wp.vec2 if points.shape[1] == 2 else wp.vec3))
    v = evaluate(wp, fem, geo)
    sdim = geo.cell_dimension - 1
    sides = np.repeat(np.arange(geo.side_count()), 2)
    # points of each side at the first two evaluation coordinates: found again there, at distance 0
    pts = v["pos"][:, :2].reshape(-1, geo.dimension)
    coords, sq_dist = _side_queries(geo, sides, pts)
    from .geometry_values import COORDS
    expected = np.tile(np.array(COORDS[:2]), (geo.side_count(), 1))
    n = 3 if geo.reference_side().prototype.measure() < 1.0 else sdim  # barycentric faces use all three
    np.testing.assert_allclose(coords[:, 0, :n], expected[:, :n], atol=2.0e-4)
    np.testing.assert_allclose(coords[:, 1, :n], expected[:, :n], atol=2.0e-4)
    np.testing.assert_allclose(sq_dist, 0.0, atol=1.0e-8)
    # pushed off the side along its normal (where it has one): same closest point, at the pushed distance
    if geo.side_normal is not None:
        offset = 0.05 * v["normal"][:, :2].reshape(-1, geo.dimension)
        coords, sq_dist = _side_queries(geo, sides, pts + offset)
        np.testing.assert_allclose(coords[:, 1, :n], expected[:, :n], atol=2.0e-3)
        np.testing.assert_allclose(sq_dist, 0.05**2, rtol=2.0e-2)


@pytest.mark.parametrize("name", ["Grid2D", "Trimesh2D", "Hexmesh"])
def test_filtered_cell_lookup(name):
    if name == "Grid2D":
        geo = fem.Grid2D(res=wp.vec2i(3, 2))
    else:
        cls, cells, points = _MESHES[name]()
        geo = cls(wp.array(cells, dtype=int), wp.array(points, dtype=wp.vec2 if points.shape[1] == 2 else wp.vec3))
    lookup = geo.make_filtered_cell_lookup()
    vec = wp.types.vector(geo.dimension, wp.float32)

    @wp.kernel
    def filtered(args: geo.CellArg, pts: wp.array(dtype=vec), marks: wp.array(dtype=int), max_dist: float,
                 found: wp.array(dtype=int)):
        i = wp.tid()
        found[i] = lookup(args, pts[i], max_dist, marks, 1).element_index

    v = evaluate(wp, fem, geo)
    pts = v["cell_centre"]
    marks = np.zeros(geo.cell_count(), dtype=np.int32)
    marks[[1, geo.cell_count() - 1]] = 1
    out = wp.zeros(len(pts), dtype=int)
    args = [geo.cell_arg_value("cpu"), wp.array(pts, dtype=vec), wp.array(marks, dtype=int)]
    wp.launch(filtered, dim=len(pts), inputs=[*args, 1.0e30, out])
    # numpy: the nearer of the two marked cells (their centres are inside them)
    d = ((pts[:, None] - pts[None, [1, geo.cell_count() - 1]]) ** 2).sum(-1)
    found = out.numpy()
    assert found[1] == 1 and found[-1] == geo.cell_count() - 1
    assert set(found.tolist()) <= {1, geo.cell_count() - 1}
    near = np.where(d[:, 0] < 0.25 * d[:, 1], 1, np.where(d[:, 1] < 0.25 * d[:, 0], geo.cell_count() - 1, -2))
    assert all(f == n for f, n in zip(found, near) if n != -2)
    # nothing marked within max_dist: no cell
    wp.launch(filtered, dim=len(pts), inputs=[*args, 1.0e-3, out])
    expected = np.full(len(pts), -1)
    expected[[1, -1]] = [1, geo.cell_count() - 1]
    assert out.numpy().tolist() == expected.tolist()


def test_update_bvh_follows_moved_positions():
    cls, cells, points = _MESHES["Trimesh2D"]()
    positions = wp.array(points, dtype=wp.vec2)
    geo = cls(wp.array(cells, dtype=int), positions, build_bvh=True)
    assert geo.supports_cell_lookup("cpu")
    # moved in place by a fraction of a cell: the old boxes still overlap the new cells, so a stale
    # hierarchy would offer the wrong candidates
    positions.assign(wp.array(points + np.float32(0.17), dtype=wp.vec2))
    geo.update_bvh()
    pts = evaluate(wp, fem, geo)["cell_centre"]
    found, _coords, sq_dist = _lookup(geo, pts)
    assert found.tolist() == list(range(geo.cell_count()))
    np.testing.assert_allclose(sq_dist, 0.0, atol=1.0e-8)
