"""`warp_nb.fem.utils`: grid connectivity (small cases written out by hand in Warp's orderings, and
geometric checks on larger grids: every element has positive measure, the tets of neighbouring
cells share their face diagonals, the elements tile the box) and the device index maps against
numpy (compress_node_indices, masked_indices, validate_indices_in_range, host reads, type
elements)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.fem import utils

# ---- grids ----------------------------------------------------------------------------------------


def _positions_2d(Nx, Ny):
    i, j = np.meshgrid(np.arange(Nx + 1), np.arange(Ny + 1), indexing="ij")
    return np.stack([i.ravel(), j.ravel()], -1).astype(float)  # vertex (i, j) is i (Ny + 1) + j


def _positions_3d(Nx, Ny, Nz):
    i, j, k = np.meshgrid(np.arange(Nx + 1), np.arange(Ny + 1), np.arange(Nz + 1), indexing="ij")
    return np.stack([i.ravel(), j.ravel(), k.ravel()], -1).astype(float)


def test_small_grids_by_hand():
    # 2 x 1 cells: vertices 0 (0,0) 1 (0,1) 2 (1,0) 3 (1,1) 4 (2,0) 5 (2,1)
    np.testing.assert_array_equal(utils.grid_to_tris(2, 1), [[0, 2, 3], [0, 3, 1], [2, 4, 5], [2, 5, 3]])
    np.testing.assert_array_equal(utils.grid_to_quads(2, 1), [[0, 2, 3, 1], [2, 4, 5, 3]])
    # cell order: triangles list x fastest, quads y fastest (as Warp does)
    np.testing.assert_array_equal(utils.grid_to_tris(2, 2)[2:4], [[3, 6, 7], [3, 7, 4]])
    np.testing.assert_array_equal(utils.grid_to_quads(2, 2)[1], [1, 4, 5, 2])
    # one cube: vertex (i, j, k) is 4 i + 2 j + k
    np.testing.assert_array_equal(utils.grid_to_hexes(1, 1, 1), [[0, 4, 6, 2, 1, 5, 7, 3]])
    np.testing.assert_array_equal(utils.grid_to_tets(1, 1, 1),
                                  [[0, 1, 2, 4], [3, 2, 1, 7], [5, 1, 7, 4], [6, 7, 4, 2], [4, 1, 2, 7]])
    # the second cell along x is the first one mirrored in x
    np.testing.assert_array_equal(utils.grid_to_tets(2, 1, 1)[5], [8, 9, 10, 4])


def _signed_areas(tris, p):
    (ax, ay), (bx, by), (cx, cy) = (p[tris[:, k]].T for k in range(3))
    return 0.5 * ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))


def test_triangles_and_quads_are_counter_clockwise_and_tile_the_box():
    Nx, Ny = 3, 4
    p = _positions_2d(Nx, Ny)
    tris = utils.grid_to_tris(Nx, Ny)
    assert tris.shape == (2 * Nx * Ny, 3)
    areas = _signed_areas(tris, p)
    np.testing.assert_allclose(areas, 0.5)
    quads = utils.grid_to_quads(Nx, Ny)
    assert quads.shape == (Nx * Ny, 4)
    quad_areas = _signed_areas(quads[:, [0, 1, 2]], p) + _signed_areas(quads[:, [0, 2, 3]], p)
    np.testing.assert_allclose(quad_areas, 1.0)
    assert len({tuple(sorted(q)) for q in quads}) == Nx * Ny


def _tet_volumes(tets, p):
    a, b, c, d = (p[tets[:, k]] for k in range(4))
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


def test_tets_fill_each_cell_and_faces_conform():
    Nx, Ny, Nz = 2, 3, 2
    p = _positions_3d(Nx, Ny, Nz)
    tets = utils.grid_to_tets(Nx, Ny, Nz)
    assert tets.shape == (5 * Nx * Ny * Nz, 4)
    volumes = np.abs(_tet_volumes(tets, p))
    np.testing.assert_allclose(volumes.reshape(-1, 5).sum(axis=1), 1.0)
    # conforming: every interior triangular face is shared by exactly two tets
    faces = {}
    for t in tets:
        for f in ((t[0], t[1], t[2]), (t[0], t[1], t[3]), (t[0], t[2], t[3]), (t[1], t[2], t[3])):
            key = tuple(sorted(f))
            faces[key] = faces.get(key, 0) + 1
    boundary = [f for f, n in faces.items() if n == 1]
    assert all(n <= 2 for n in faces.values())
    # boundary faces: two triangles per boundary square
    assert len(boundary) == 2 * 2 * (Nx * Ny + Ny * Nz + Nx * Nz)


def test_hexes_have_positive_volume():
    Nx, Ny, Nz = 2, 2, 3
    p = _positions_3d(Nx, Ny, Nz)
    hexes = utils.grid_to_hexes(Nx, Ny, Nz)
    assert hexes.shape == (Nx * Ny * Nz, 8)
    # vertex 0 -> 1 -> 3 along x, y; 0 -> 4 along z: the usual right-handed hexahedron
    e1, e2, e3 = (p[hexes[:, k]] - p[hexes[:, 0]] for k in (1, 3, 4))
    np.testing.assert_allclose(np.einsum("ij,ij->i", np.cross(e1, e2), e3), 1.0)
    with pytest.raises(ValueError, match="Nz"):
        utils.grid_to_hexes(1, 1, 0)


# ---- index maps --------------------------------------------------------------------------------


@pytest.mark.needs_cxx
def test_compress_node_indices_matches_numpy():
    rng = np.random.default_rng(0)
    node_count = 7
    values = rng.integers(-2, node_count + 2, 40).astype(np.int32)
    offsets, sorted_indices, unique_count, unique_nodes = utils.compress_node_indices(
        node_count, wp.array(values, dtype=int), return_unique_nodes=True)
    offsets, sorted_indices = offsets.numpy(), sorted_indices.numpy()
    valid = (values >= 0) & (values < node_count)
    counts = np.bincount(values[valid], minlength=node_count)
    np.testing.assert_array_equal(offsets, np.concatenate([[0], np.cumsum(counts)]))
    for v in range(node_count):
        np.testing.assert_array_equal(sorted_indices[offsets[v]:offsets[v + 1]], np.flatnonzero(values == v))
    used = np.flatnonzero(counts)
    assert unique_count.numpy()[0] == len(used)
    np.testing.assert_array_equal(unique_nodes.numpy()[:len(used)], used)


@pytest.mark.needs_cxx
def test_compress_node_indices_writes_only_the_offsets_given():
    backing = wp.full(12, -99, dtype=int)
    offsets = wp.array(ptr=backing.ptr, shape=(4,), dtype=int, copy=False)
    utils.compress_node_indices(3, wp.array([0, 1, 2, 5, -1], dtype=int), node_offsets=offsets)
    np.testing.assert_array_equal(backing.numpy(), [0, 1, 2, 3] + [-99] * 8)


@pytest.mark.needs_cxx
def test_masked_indices():
    mask = np.array([0, 1, 1, 0, 1, 0, 1], dtype=np.int32)
    l2g, g2l = utils.masked_indices(wp.array(mask, dtype=int))
    np.testing.assert_array_equal(l2g.numpy(), np.flatnonzero(mask))
    expected = np.where(mask == 1, np.cumsum(mask) - 1, -1)
    np.testing.assert_array_equal(g2l.numpy(), expected)
    # a fixed capacity: the first ones are kept, the rest map to missing_index
    l2g, g2l = utils.masked_indices(wp.array(mask, dtype=int), missing_index=-5, max_index_count=2)
    np.testing.assert_array_equal(l2g.numpy(), [1, 2])
    np.testing.assert_array_equal(g2l.numpy(), [-5, 0, 1, -5, -5, -5, -5])
    l2g, _ = utils.masked_indices(wp.array(mask, dtype=int), missing_index=-5, max_index_count=6)
    np.testing.assert_array_equal(l2g.numpy(), [1, 2, 4, 6, -5, -5])


@pytest.mark.needs_cxx
def test_validate_indices_in_range_names_the_first_bad_entry():
    utils.validate_indices_in_range(3, wp.array([0, 2, 1], dtype=int), index_name="Vertex")
    with pytest.raises(ValueError, match=r"Vertex index -1 at flattened array index 2 is out of bounds; "
                                         r"expected a value in \[0, 3\)"):
        utils.validate_indices_in_range(3, wp.array([[0, 2], [-1, 7]], dtype=int), index_name="Vertex")


def test_host_read_at_index():
    a = wp.array([4, 5, 6], dtype=int)
    assert (utils.host_read_at_index(a), utils.host_read_at_index(a, 0), utils.host_read_at_index(a, -2)) == (6, 4, 5)
    with pytest.raises(IndexError, match="index 3"):
        utils.host_read_at_index(a, 3)


@pytest.mark.needs_cxx
def test_type_elements():
    mat23 = wp.types.matrix(shape=(2, 3), dtype=float)
    zero_v = utils.type_zero_element(wp.vec3i)
    assert zero_v is utils.type_zero_element(wp.vec3i)
    basis_m = utils.type_basis_element(mat23)
    basis_v = utils.type_basis_element(wp.vec3)
    one = utils.type_basis_element(float)

    @wp.kernel
    def k(vi: wp.array(dtype=wp.vec3i), m: wp.array(dtype=mat23), v: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
        vi[0] = zero_v() + wp.vec3i(1, 2, 3)
        m[0] = basis_m(4)
        v[0] = basis_v(2)
        s[0] = one(0)

    outs = [wp.empty(1, dtype=t) for t in (wp.vec3i, mat23, wp.vec3, float)]
    wp.launch(k, dim=1, inputs=outs)
    expected_m = np.zeros((2, 3))
    expected_m[1, 1] = 1.0
    np.testing.assert_array_equal(outs[0].numpy()[0], [1, 2, 3])
    np.testing.assert_array_equal(outs[1].numpy()[0], expected_m)
    np.testing.assert_array_equal(outs[2].numpy()[0], [0.0, 0.0, 1.0])
    assert outs[3].numpy()[0] == 1.0
