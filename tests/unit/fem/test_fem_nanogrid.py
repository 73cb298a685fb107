"""`fem.Nanogrid`: the geometry of an index volume's active voxels. A sparse grid is checked against
the numbers warp-lang 1.19 gives on the same volume (counts, side numbering, inner and outer cells,
node counts of its spaces); a full box of voxels against the `Grid3D` of the same box, which must
give the same geometry up to numbering (integrals, and the spectrum of a stiffness matrix, which
does not depend on how the nodes are numbered)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem

from .geometry_values import evaluate
from .test_fem_geometries import check_protocol

_SPARSE = [[0, 0, 0], [1, 0, 0], [3, 0, 0], [0, 1, 0], [-1, 0, 2], [9, 0, 0]]


def sparse_grid(**kwargs):
    volume = wp.Volume.allocate_by_voxels(wp.array(_SPARSE, dtype=wp.vec3i), voxel_size=0.5,
                                          translation=(1.0, 2.0, 3.0))
    return fem.Nanogrid(volume, **kwargs)


def test_sparse_counts_and_numbering_match_warp():
    geo = sparse_grid()
    counts = (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count(), geo.edge_count())
    assert counts == (6, 40, 34, 32, 64)  # warp-lang
    v = evaluate(wp, fem, geo)
    check_protocol(geo, v, faces_per_cell=6, total_measure=6 * 0.125)
    # cells in the volume's voxel order, centred on their voxel (index coordinates are voxel centres)
    voxels = geo.cell_grid.get_voxels().numpy()
    assert voxels.tolist() == [[-1, 0, 2], [0, 0, 0], [0, 1, 0], [1, 0, 0], [3, 0, 0], [9, 0, 0]]
    np.testing.assert_allclose(v["cell_centre"], np.array([1.0, 2.0, 3.0]) + 0.5 * voxels, atol=1e-6)
    # read from warp-lang 1.19 on the same volume
    assert v["inner"][:, 0].tolist() == [0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 1, 1, 2, 3, 3, 4, 4, 5, 5,
                                         1, 0, 2, 1, 2, 3, 4, 4, 5, 5]
    assert v["outer"][:, 0].tolist() == [0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 1, 2, 2, 3, 3, 4, 4, 5, 5,
                                         1, 0, 2, 3, 2, 3, 4, 4, 5, 5]
    assert v["boundary"].tolist() == [k for k in range(34) if k not in (16, 27)]
    # where a side's coordinates (0, 1) and (1, 0) are (warp-lang): u and v swap on a low boundary face
    np.testing.assert_allclose(v["pos"][[0, 1, 16, 25], 2], [[0.25, 2.25, 3.75], [0.75, 1.75, 3.75],
                                                             [1.25, 2.25, 2.75], [0.75, 1.75, 4.25]], atol=1e-6)
    np.testing.assert_allclose(v["pos"][[0, 1, 16, 25], 3], [[0.25, 1.75, 4.25], [0.25, 2.25, 3.75],
                                                             [0.75, 2.25, 3.25], [0.75, 2.25, 3.75]], atol=1e-6)


def test_sparse_space_node_counts_match_warp():
    geo = sparse_grid()
    cases = {(1, None): 40, (2, None): 144, (3, None): 352, (2, fem.ElementBasis.SERENDIPITY): 104,
             (2, fem.ElementBasis.BSPLINE): 232, (3, fem.ElementBasis.BSPLINE): 232}
    for (degree, basis), count in cases.items():
        assert fem.make_polynomial_space(geo, degree=degree, element_basis=basis).node_count() == count
    q1 = fem.make_polynomial_space(geo, degree=1)
    # degree 1: the vertex grid's numbering, a cell's nodes in lexicographic (x slowest) order (warp-lang)
    assert q1.topology.element_node_indices().numpy()[:2].tolist() == [[0, 1, 2, 3, 6, 7, 10, 11],
                                                                        [4, 5, 8, 9, 14, 15, 16, 17]]
    np.testing.assert_allclose(q1.node_positions().numpy()[:3], [[0.25, 1.75, 3.75], [0.25, 1.75, 4.25],
                                                                 [0.25, 2.25, 3.75]])
    # degree 3, read from warp-lang: a y-face's nodes run along z, then x (its tangents)
    q3 = fem.make_polynomial_space(geo, degree=3).topology.element_node_indices().numpy()
    assert q3[0, [18, 30, 33, 45]].tolist() == [182, 186, 181, 185]
    for degree in (2, 3):  # every node of every cell is a distinct point or shared with a neighbour at its place
        space = fem.make_polynomial_space(geo, degree=degree)
        nodes = space.topology.element_node_indices().numpy()
        assert nodes.min() >= 0 and len(np.unique(nodes)) == space.node_count()


def _box(res, lo, size):
    ijk = np.stack(np.meshgrid(*[np.arange(r) for r in res], indexing="ij"), -1).reshape(-1, 3)
    volume = wp.Volume.allocate_by_voxels(wp.array(ijk, dtype=wp.vec3i), voxel_size=size,
                                          translation=tuple(np.array(lo) + 0.5 * np.array(size)))
    grid = fem.Grid3D(res=wp.vec3i(*res), bounds_lo=wp.vec3(*lo),
                      bounds_hi=wp.vec3(*(np.array(lo) + np.array(res) * np.array(size))))
    return fem.Nanogrid(volume), grid


@fem.integrand
def _polynomial(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return x[0] * x[1] * x[1] + x[2]


@fem.integrand
def _stiffness(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s)) + u(s) * v(s)


def _to_dense(matrix):
    nnz = matrix.nnz_sync()
    rows, cols = matrix.offsets.numpy(), matrix.columns.numpy()[:nnz]
    vals = matrix.values.numpy()[:nnz].astype(np.float64)
    out = np.zeros((matrix.nrow, matrix.ncol))
    for r in range(matrix.nrow):
        out[r, cols[rows[r]:rows[r + 1]]] += vals[rows[r]:rows[r + 1]]
    return out


def test_dense_box_agrees_with_grid3d():
    res, lo, size = (3, 2, 4), (-1.0, 0.5, 2.0), (0.5, 0.25, 1.0)
    nano, grid = _box(res, lo, size)
    for name in ("cell_count", "vertex_count", "side_count", "boundary_side_count", "edge_count"):
        assert getattr(nano, name)() == getattr(grid, name)(), name
    for domain in (fem.Cells, fem.Sides, fem.BoundarySides):
        a = fem.integrate(_polynomial, domain=domain(nano))
        b = fem.integrate(_polynomial, domain=domain(grid))
        np.testing.assert_allclose(a, b, rtol=1e-5)
    for degree in (1, 2):
        spaces = [fem.make_polynomial_space(g, degree=degree) for g in (nano, grid)]
        assert spaces[0].node_count() == spaces[1].node_count()
        eig = [np.linalg.eigvalsh(_to_dense(fem.integrate(_stiffness, fields={"u": fem.make_trial(sp),
                                                                                "v": fem.make_test(sp)})))
               for sp in spaces]
        np.testing.assert_allclose(eig[0], eig[1], rtol=1e-4, atol=1e-5)
        # the same nodes, numbered differently
        pos = [np.round(sp.node_positions().numpy(), 5) for sp in spaces]
        assert sorted(map(tuple, pos[0])) == sorted(map(tuple, pos[1]))


@wp.kernel
def _lookup(args: fem.Nanogrid.CellArg, pos: wp.array(dtype=wp.vec3), max_dist: float, cells: wp.array(dtype=int),
            coords: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = fem.Nanogrid.cell_lookup(args, pos[i], max_dist)
    cells[i] = s.element_index
    coords[i] = s.element_coords


def test_lookup_finds_the_voxel_or_the_nearest_one():
    geo = sparse_grid()
    # inside cell 3 (voxel (1, 0, 0)), just outside cell 5 (voxel (9, 0, 0)) along +x, far from everything
    pos = wp.array([[1.6, 2.1, 2.9], [5.8, 2.0, 3.0], [8.0, 8.0, 8.0]], dtype=wp.vec3)
    cells, coords = wp.empty(3, dtype=int), wp.empty(3, dtype=wp.vec3)
    wp.launch(_lookup, dim=3, inputs=[geo.cell_arg_value("cpu"), pos, 0.1, cells, coords])
    assert cells.numpy().tolist() == [3, 5, -1]
    np.testing.assert_allclose(coords.numpy()[:2], [[0.7, 0.7, 0.3], [1.0, 0.5, 0.5]], atol=1e-5)
    wp.launch(_lookup, dim=3, inputs=[geo.cell_arg_value("cpu"), pos, 0.0, cells, coords])
    assert cells.numpy().tolist() == [3, -1, -1]


@fem.integrand
def _one(s: fem.Sample):
    return 1.0


@fem.integrand
def _one_of_scalar_type(s: fem.Sample, domain: fem.Domain):
    return fem.scalar_type(domain)(1.0)


def test_float64_volume():
    geo = sparse_grid(scalar_type=wp.float64)
    assert geo.scalar_type == wp.float64
    np.testing.assert_allclose(fem.integrate(_one_of_scalar_type, domain=fem.Cells(geo)), 0.75, rtol=1e-14)
    np.testing.assert_allclose(fem.integrate(_one_of_scalar_type, domain=fem.BoundarySides(geo)), 8.0, rtol=1e-14)


def test_rebuildable_counts_capacities_like_warp():
    status = wp.zeros(1, dtype=wp.uint32)
    volume = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, rebuildable=True,
                                          max_active_voxels=4, max_leaf_nodes=4, max_lower_nodes=4,
                                          max_upper_nodes=4, status=status)
    geo = fem.Nanogrid(volume, rebuildable=True)
    # warp-lang: the capacities for cells, vertices (8 per cell) and edges (12), the actual sides
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count(),
            geo.edge_count()) == (4, 32, 6, 6, 48)
    assert fem.make_polynomial_space(geo, degree=2).node_count() == 32 + 48 + 24 + 4
    geo.rebuild(wp.array([[0, 0, 0], [1, 0, 0], [3, 0, 0]], dtype=wp.int32), status=status)
    assert int(status.numpy()[0]) == wp.Volume.REBUILD_SUCCESS
    assert (geo.side_count(), geo.boundary_side_count()) == (17, 16)
    assert geo.vertex_grid.get_active_stats().voxel_count == 20
    np.testing.assert_allclose(fem.integrate(_one, domain=fem.BoundarySides(geo)), 16.0)


def test_bad_input():
    with pytest.raises(TypeError, match="grid"):
        fem.Nanogrid(np.zeros((2, 3)))
    # a value volume works too: its active voxels are the cells (the brick load_from_numpy keeps; warp-lang: 512)
    assert fem.Nanogrid(wp.Volume.load_from_numpy(np.ones((2, 2, 2), np.float32))).cell_count() == 512
    empty = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0,
                                         point_mask=wp.zeros(1, dtype=wp.int32))
    with pytest.raises(ValueError, match="at least one active cell"):
        fem.Nanogrid(empty)
    fixed = sparse_grid()
    with pytest.raises(RuntimeError, match="not constructed in rebuildable mode"):
        fixed.rebuild_topology_from_cells()
    with pytest.raises(RuntimeError, match="require a rebuildable Volume"):
        sparse_grid(rebuildable=True)


def test_volume_numbers_voxels_in_tree_order():
    # warp-lang: by upper node, then lower node, then brick (signed), not plain lexicographic order
    points = wp.array([[16, 0, 0], [0, 200, 0], [0, 0, 0], [5000, 0, 0], [-3, 0, 0]], dtype=wp.vec3i)
    volume = wp.Volume.allocate_by_voxels(points, voxel_size=1.0)
    assert volume.get_voxels().numpy().tolist() == [[-3, 0, 0], [0, 0, 0], [16, 0, 0], [0, 200, 0], [5000, 0, 0]]
