"""fem.integrate's sparse outputs under Warp's bsr_options: mapped assembly ("mapped" builds a
triplet -> block map on a capacity="auto" call and gathers through it on capacity="reuse" calls;
"mapped_atomic" adds into the blocks from the integration kernel), the table of maps that non-mapped
writes invalidate, topology="padded" outputs, and the restriction node-count bound that sizes row
compression. Matrices are checked against a dense Q1 mass matrix built with numpy from the nodes'
positions (exact for bilinear elements on rectangles), not against our own assembly."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.fem.bsr_assembly import triplet_maps
from warp_nb.sparse import bsr_copy, bsr_zeros

RES = (3, 2)
BOUNDS = (1.5, 1.0)  # cells of 0.5 x 0.5


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field, scale: float):
    return scale * u(s) * v(s)


@fem.integrand
def position(s: fem.Sample, domain: fem.Domain):
    return domain(s)


@fem.integrand
def trial_value(s: fem.Sample, u: fem.Field):
    return u(s)


def _setup():
    geo = fem.Grid2D(res=wp.vec2i(*RES), bounds_hi=wp.vec2(*BOUNDS))
    space = fem.make_polynomial_space(geo, degree=1)
    return geo, space, {"u": fem.make_trial(space), "v": fem.make_test(space)}


def _dense_mass(space) -> np.ndarray:
    """The Q1 mass matrix: per cell, (hx/6)(hy/6) * (2 if same x else 1) * (2 if same y else 1)."""
    field = fem.make_polynomial_space(space.geometry, degree=1, dtype=wp.vec2).make_field()
    fem.interpolate(position, dest=field)
    positions = field.dof_values.numpy()
    hx, hy = BOUNDS[0] / RES[0], BOUNDS[1] / RES[1]
    dense = np.zeros((space.node_count(), space.node_count()))
    for nodes in space.topology.element_node_indices().numpy():
        for a in nodes:
            for b in nodes:
                same_x = np.isclose(positions[a][0], positions[b][0])
                same_y = np.isclose(positions[a][1], positions[b][1])
                dense[a, b] += hx * hy / 36.0 * (2 if same_x else 1) * (2 if same_y else 1)
    return dense


def _dense(matrix) -> np.ndarray:
    compact = bsr_copy(matrix)
    n = compact.nnz_sync()
    out = np.zeros((compact.nrow, compact.ncol))
    offsets, columns = compact.offsets.numpy(), compact.columns.numpy()[:n]
    values = compact.values.numpy()[:n]
    for r in range(compact.nrow):
        for k in range(offsets[r], offsets[r + 1]):
            out[r, columns[k]] += values[k]
    return out


@pytest.mark.parametrize("construction", ["mapped", "mapped_atomic"])
def test_mapped_assembly_matches_dense_mass_and_reuses_its_map(construction):
    _, space, fields = _setup()
    dense = _dense_mass(space)
    assert dense.sum() == pytest.approx(BOUNDS[0] * BOUNDS[1])  # the oracle itself: the mass integrates 1
    options = {"construction": construction}
    matrix = fem.integrate(mass, fields=fields, values={"scale": 1.0}, output_dtype=float, bsr_options=options)
    np.testing.assert_allclose(_dense(matrix), dense, rtol=1e-6, atol=1e-9)
    mapping = triplet_maps[matrix]
    # nothing is read back: nnz is the triplet count (4 x 4 pairs per cell), an upper bound
    assert mapping.triplet_count == RES[0] * RES[1] * 16 == matrix.nnz
    nnz = matrix.nnz_sync()
    assert nnz == len(np.nonzero(dense)[0])
    matrix.values[nnz:].fill_(123.0)
    columns, values = matrix.columns.ptr, matrix.values.ptr

    fem.integrate(mass, fields=fields, values={"scale": 3.0}, output=matrix,
                  bsr_options={**options, "capacity": "reuse"})
    np.testing.assert_allclose(_dense(matrix), 3.0 * dense, rtol=1e-6, atol=1e-9)
    assert (matrix.columns.ptr, matrix.values.ptr) == (columns, values)  # no topology work, same storage
    assert triplet_maps[matrix] is mapping
    np.testing.assert_array_equal(matrix.values.numpy()[nnz:], 123.0)  # slots past the active blocks untouched

    storage = (mapping._triplet_blocks.ptr, mapping._block_ends.ptr, mapping._triplet_indices.ptr)
    fem.integrate(mass, fields=fields, values={"scale": 2.0}, output=matrix, bsr_options=options)
    assert triplet_maps[matrix] is mapping  # rebuilt in place
    assert (mapping._triplet_blocks.ptr, mapping._block_ends.ptr, mapping._triplet_indices.ptr) == storage
    np.testing.assert_allclose(_dense(matrix), 2.0 * dense, rtol=1e-6, atol=1e-9)


def test_mapped_gather_sums_as_the_first_assembly_did():
    _, space, fields = _setup()
    matrix = fem.integrate(mass, fields=fields, values={"scale": 1.0}, output_dtype=float,
                           bsr_options={"construction": "mapped"})
    n = matrix.nnz_sync()
    first = matrix.values.numpy()[:n].copy()
    fem.integrate(mass, fields=fields, values={"scale": 1.0}, output=matrix,
                  bsr_options={"construction": "mapped", "capacity": "reuse"})
    np.testing.assert_array_equal(matrix.values.numpy()[:n], first)  # bit for bit


@pytest.mark.parametrize("construction", ["mapped", "mapped_atomic"])
def test_nodal_mapped_assembly_is_the_lumped_mass(construction):
    _, space, fields = _setup()
    lumped = _dense_mass(space).sum(axis=1)  # Q1 nodal quadrature = row sums of the mass matrix
    options = {"construction": construction}
    matrix = fem.integrate(mass, fields=fields, values={"scale": 1.0}, assembly="nodal", output_dtype=float,
                           bsr_options=options)
    fem.integrate(mass, fields=fields, values={"scale": 2.0}, assembly="nodal", output=matrix,
                  bsr_options={**options, "capacity": "reuse"})
    np.testing.assert_allclose(_dense(matrix), np.diag(2.0 * lumped), rtol=1e-6, atol=1e-9)


def test_point_basis_unused_slots_are_dropped_from_the_map():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    points = wp.array([[0.25, 0.33], [0.33, 0.25], [0.8, 0.8]], dtype=wp.vec2)
    quadrature = fem.PicQuadrature(fem.Cells(geo), positions=points)
    space = fem.make_collocated_function_space(fem.PointBasisSpace(quadrature))
    fields = {"u": fem.make_trial(space, domain=fem.Cells(geo)), "v": fem.make_test(space, domain=fem.Cells(geo))}
    reference = fem.integrate(mass, quadrature=quadrature, fields=fields, values={"scale": 1.0})
    matrix = fem.integrate(mass, quadrature=quadrature, fields=fields, values={"scale": 1.0},
                           bsr_options={"construction": "mapped_atomic"})
    assert np.any(triplet_maps[matrix]._triplet_blocks.numpy() == -1)  # cells with fewer points than slots
    fem.integrate(mass, quadrature=quadrature, fields=fields, values={"scale": 1.0}, output=matrix,
                  bsr_options={"construction": "mapped_atomic", "capacity": "reuse"})
    np.testing.assert_allclose(_dense(matrix), _dense(reference), rtol=1e-6)


def test_non_mapped_writes_forget_the_map():
    _, space, fields = _setup()
    matrix = fem.integrate(mass, fields=fields, values={"scale": 1.0}, bsr_options={"construction": "mapped"})
    assert matrix in triplet_maps
    fem.integrate(mass, fields=fields, values={"scale": 1.0}, output=matrix)
    assert matrix not in triplet_maps
    with pytest.raises(RuntimeError, match="requires output from an earlier mapped assembly"):
        fem.integrate(mass, fields=fields, values={"scale": 1.0}, output=matrix,
                      bsr_options={"construction": "mapped", "capacity": "reuse"})
    fem.integrate(mass, fields=fields, values={"scale": 1.0}, output=matrix, bsr_options={"construction": "mapped"})
    assert matrix in triplet_maps
    fem.interpolate(trial_value, dest=matrix, dest_space=space, at=fields["v"].space_restriction,
                    fields={"u": fields["u"]})
    assert matrix not in triplet_maps


@pytest.mark.parametrize("options, add, error, text", [
    ({"construction": "mapped", "prune_numerical_zeros": True}, False, ValueError, "prune_numerical_zeros"),
    ({"construction": "mapped_atomic", "topology": "padded"}, False, ValueError, "'compact'"),
    ({"construction": "mapped"}, True, NotImplementedError, "add=True"),
    ({"construction": "triplets", "capacity": "reuse"}, True, RuntimeError, "add=True"),
    ({"construction": "mapped", "capacity": "sometimes"}, False, ValueError, "'auto'"),
    ({"construction": "scatter"}, False, ValueError, "mapped_atomic"),
])
def test_refused_bsr_options(options, add, error, text):
    _, space, fields = _setup()
    output = bsr_zeros(space.node_count(), space.node_count(), block_type=float)
    with pytest.raises(error, match=text):
        fem.integrate(mass, fields=fields, values={"scale": 1.0}, output=output, add=add, bsr_options=options)
    with pytest.raises(RuntimeError, match="requires an output matrix"):
        fem.integrate(mass, fields=fields, values={"scale": 1.0}, bsr_options={"capacity": "reuse"})
    with pytest.raises(NotImplementedError, match="fem.integrate"):
        fem.interpolate(trial_value, dest=output, dest_space=space, at=fields["v"].space_restriction,
                        fields={"u": fields["u"]}, bsr_options={"construction": "mapped"})


def test_padded_output_reserves_each_rows_candidates():
    geo, space, fields = _setup()
    dense = _dense_mass(space)
    matrix = fem.integrate(mass, fields=fields, values={"scale": 1.0}, bsr_options={"topology": "padded"})
    assert matrix.padded
    # one slot per (cell, test node, trial node) triplet of the row: 4 per cell around the node
    cells_per_node = np.zeros(space.node_count(), dtype=int)
    for nodes in space.topology.element_node_indices().numpy():
        cells_per_node[nodes] += 1
    np.testing.assert_array_equal(np.diff(matrix.offsets.numpy()), 4 * cells_per_node)
    np.testing.assert_array_equal(matrix.row_counts.numpy(), np.count_nonzero(dense, axis=1))
    np.testing.assert_allclose(_dense(matrix), dense, rtol=1e-6, atol=1e-9)


def test_restriction_node_count_is_an_upper_bound_until_synced():
    geo = fem.Grid2D(res=wp.vec2i(4, 4))
    space = fem.make_polynomial_space(geo, degree=2)
    cells = wp.array([0, 5], dtype=int)
    restriction = fem.make_space_restriction(space_topology=space.topology,
                                             domain=fem.Subdomain(fem.Cells(geo), element_indices=cells))
    exact = len(np.unique(space.topology.element_node_indices().numpy()[[0, 5]]))
    assert exact < 2 * 9
    assert restriction.node_count() == 2 * 9  # two cells of 9 nodes: the host's bound
    assert restriction.node_count_sync() == exact
    assert restriction.node_count() == exact
    restriction.rebuild()
    assert restriction.node_count() == 2 * 9
    boundary = fem.make_space_restriction(space_topology=space.topology, domain=fem.BoundarySides(geo))
    assert boundary.node_count() == space.node_count() > boundary.node_count_sync() == 4 * 8


@pytest.mark.parametrize("cells", [[0, 7], list(range(8))])
def test_first_row_compression_storage_stays_within_the_restriction_bound(cells):
    geo = fem.Grid3D(res=wp.vec3i(2))
    space = fem.make_polynomial_space(geo, degree=2)
    trial_space = fem.make_polynomial_space(geo, degree=1, discontinuous=True)
    domain = fem.Subdomain(fem.Cells(geo), element_indices=wp.array(cells, dtype=int))
    restriction = fem.make_space_restriction(space_topology=space.topology, domain=domain)
    matrix = bsr_zeros(space.node_count(), trial_space.node_count(), block_type=float)
    fem.interpolate(trial_value, dest=matrix, dest_space=space, at=restriction,
                    fields={"u": fem.make_trial(trial_space, domain=domain)}, reduction="first",
                    bsr_options={"construction": "row_compress"})
    assert matrix.values.shape[0] <= restriction.node_count() * trial_space.topology.MAX_NODES_PER_ELEMENT
    # each node of the two cells: its first cell's eight trial values, which sum to one (Q1 partition of unity)
    dense = _dense(matrix)
    rows = np.unique(space.topology.element_node_indices().numpy()[cells])
    np.testing.assert_allclose(dense[rows].sum(axis=1), 1.0, rtol=1e-6)
    assert np.count_nonzero(dense.sum(axis=1)) == len(rows)
