"""wp.geometry.IsoSurfaceMarchingCubes: the area and volume of a sphere against the analytic values, a closed and
consistently oriented surface (every edge shared by two triangles, Euler characteristic 2,
outward normals), the generated case table, the domain mapping, and bad input."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.geometry.marching_cubes import case_table

pytestmark = pytest.mark.needs_cxx


def _sphere_field(n, r, c):
    x = np.arange(n, dtype=np.float32)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    return np.sqrt((X - c[0]) ** 2 + (Y - c[1]) ** 2 + (Z - c[2]) ** 2) - r


def _check_closed(tris):
    edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
    _, count = np.unique(edges, axis=0, return_counts=True)
    assert (count == 2).all()
    # consistently oriented: each directed edge appears once
    directed = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    assert len(np.unique(directed, axis=0)) == len(directed)
    return len(count)


@pytest.mark.parametrize("n,r", [(32, 10.0), (48, 17.3)])
def test_sphere_area_volume_and_topology(n, r):
    c = (n / 2 - 0.3, n / 2 + 0.2, n / 2 + 0.1)
    field = _sphere_field(n, r, c)
    mc = wp.geometry.IsoSurfaceMarchingCubes(n, n, n)
    mc.surface(wp.array(field, dtype=float), 0.0)
    v, t = mc.verts.numpy(), mc.indices.numpy().reshape(-1, 3)
    a, b, d = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    cr = np.cross(b - a, d - a)
    area = 0.5 * np.linalg.norm(cr, axis=1).sum()
    assert abs(area - 4 * np.pi * r * r) / (4 * np.pi * r * r) < 0.02
    volume = (a * np.cross(b, d)).sum() / 6.0
    assert abs(volume - 4 / 3 * np.pi * r ** 3) / (4 / 3 * np.pi * r ** 3) < 0.01  # > 0: outward normals
    n_edges = _check_closed(t)
    assert len(v) - n_edges + len(t) == 2
    np.testing.assert_allclose(np.linalg.norm(v - np.array(c), axis=1), r, atol=0.1)


def test_every_case_gives_closed_oriented_pieces():
    table, counts = case_table()
    assert counts[0] == 0 and counts[255] == 0 and counts.max() <= 6
    # a random field with many ambiguous cells still gives a closed surface inside the grid
    rng = np.random.default_rng(1)
    f = rng.normal(size=(12, 12, 12)).astype(np.float32)
    f[0], f[-1], f[:, 0], f[:, -1], f[:, :, 0], f[:, :, -1] = 1, 1, 1, 1, 1, 1  # positive border: closed
    mc = wp.geometry.IsoSurfaceMarchingCubes(12, 12, 12)
    mc.surface(f, 0.0)
    _check_closed(mc.indices.numpy().reshape(-1, 3))


def test_domain_bounds_and_empty_surface():
    field = _sphere_field(16, 5.0, (7.5, 7.5, 7.5))
    mc = wp.geometry.IsoSurfaceMarchingCubes(16, 16, 16, (-1.0, -1.0, -1.0), (1.0, 1.0, 1.0))
    mc.surface(field, 0.0)
    v = mc.verts.numpy()
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 5.0 * 2 / 15, atol=0.02)
    mc.surface(field, -100.0)
    assert mc.verts.shape[0] == 0 and mc.indices.shape[0] == 0


def test_bad_input():
    mc = wp.geometry.IsoSurfaceMarchingCubes(8, 8, 8)
    with pytest.raises(ValueError, match="shape"):
        mc.surface(np.zeros((8, 8, 7), np.float32), 0.0)
    f = np.zeros((8, 8, 8), np.float32)
    f[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        mc.surface(f, 0.0)


@wp.kernel
def _sphere_sdf(field: wp.array3d(dtype=float), radius: wp.array(dtype=float), h: float):
    i, j, k = wp.tid()
    p = wp.vec3(float(i), float(j), float(k)) * h - wp.vec3(1.0, 1.0, 1.0)
    field[i, j, k] = wp.length(p) - radius[0]


@wp.kernel
def _area(verts: wp.array(dtype=wp.vec3), tris: wp.array(dtype=wp.int32), out: wp.array(dtype=float)):
    t = wp.tid()
    a, b, c = verts[tris[3 * t]], verts[tris[3 * t + 1]], verts[tris[3 * t + 2]]
    wp.atomic_add(out, 0, 0.5 * wp.length(wp.cross(b - a, c - a)))


def _area_of(r, n=24, tape=None):
    radius = wp.array([r], dtype=float, requires_grad=True)
    field = wp.zeros((n, n, n), dtype=float, requires_grad=True)
    area = wp.zeros(1, requires_grad=True)
    tape = tape if tape is not None else wp.Tape()
    with tape:
        wp.launch(_sphere_sdf, field.shape, inputs=[field, radius, 2.0 / (n - 1)])
        verts, tris = wp.geometry.IsoSurfaceMarchingCubes.extract(field, 0.0, (-1, -1, -1), (1, 1, 1))
        wp.launch(_area, len(tris) // 3, inputs=[verts, tris, area])
    return area, radius, tape


def test_vertices_are_differentiable_in_the_field():
    # d(area)/d(radius) through the tape against a central difference of the same discrete surface
    # (a small step keeps the topology; the analytic 8 pi r is only approached as the grid refines)
    area, radius, tape = _area_of(0.55)
    tape.backward(area)
    h = 1e-3
    fd = (_area_of(0.55 + h)[0].numpy()[0] - _area_of(0.55 - h)[0].numpy()[0]) / (2 * h)
    assert abs(radius.grad.numpy()[0] - fd) < 0.02 * abs(fd)
    assert abs(fd - 8 * np.pi * 0.55) < 0.05 * 8 * np.pi * 0.55


def test_tables_and_deprecated_names():
    iso = wp.geometry.IsoSurfaceMarchingCubes
    table, counts = case_table()
    assert len(iso.CASE_TO_TRI_RANGE) == 257 and iso.CASE_TO_TRI_RANGE[-1] == counts.sum()
    assert len(iso.TRI_LOCAL_INDICES) == 3 * counts.sum()
    c = 77  # a case's triangles read through the flat tables equal the case table's
    r0, r1 = iso.CASE_TO_TRI_RANGE[c], iso.CASE_TO_TRI_RANGE[c + 1]
    assert np.array_equal(np.array(iso.TRI_LOCAL_INDICES[3 * r0:3 * r1]).reshape(-1, 3), table[c, :counts[c]])
    for e, (a, b) in enumerate(iso.EDGE_TO_CORNERS):  # an edge joins corners one unit apart
        assert np.abs(np.subtract(iso.CUBE_CORNER_OFFSETS[a], iso.CUBE_CORNER_OFFSETS[b])).sum() == 1, e
    with pytest.warns(DeprecationWarning, match="wp.MarchingCubes is deprecated"):
        assert wp.MarchingCubes is iso
    with pytest.warns(DeprecationWarning, match="Use `lower` instead"):
        m = iso(4, 4, 4, domain_bounds_lower_corner=(0, 0, 0))
    assert m.lower == (0, 0, 0) and isinstance(m, wp.geometry.IsoSurfaceBase)
    with pytest.raises(TypeError, match="Cannot specify both"):
        iso(4, 4, 4, upper=(1, 1, 1), domain_bounds_upper_corner=(1, 1, 1))
    with pytest.raises(ValueError, match="at least 2 nodes on each axis"):
        iso.extract(np.zeros((1, 4, 4), np.float32), 0.0)


def test_vertices_are_numbered_as_warps():
    # warp-lang 1.19 numbers the crossings node by node (i, j, k), a node's x, y, z edges in turn; its
    # first eight vertices of this ellipsoid (72 vertices), as it returned them. warp_nb numbered all
    # x edges first, then y, then z (vertex 5 was the x edge of node (1, 1, 3)).
    x = np.linspace(-1, 1, 6)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")
    f = (np.sqrt(X**2 + 1.3 * Y**2 + 0.7 * Z**2) - 0.75).astype(np.float32)
    v, i = wp.geometry.IsoSurfaceMarchingCubes.extract(wp.array(f, dtype=float), 0.0)
    v = v.numpy()
    assert len(v) == 72 and len(i.numpy()) == 3 * 140
    a, b = 0.7694233, 1.9073981
    np.testing.assert_allclose(v[:8], [[a, 2, 2], [a, 2, 3], [a, 3, 2], [a, 3, 3], [b, 1, 2], [1, 1.6690247, 2],
                                       [b, 1, 3], [1, 1.6690247, 3]], rtol=1e-6)
    # every vertex: its lower node in order, then its axis
    frac = np.abs(v - np.round(v)) > 1e-6
    key = [(*np.floor(p).astype(int), int(np.argmax(f))) for p, f in zip(v, frac)]
    assert key == sorted(key)
