"""wp.geometry.IsoSurfaceNets: the generated tables against their invariants and OpenVDB's ambiguous-face
table (its SHA-256, as Warp's test pins it), a sphere's vertices against a plain numpy surface net (one
vertex per cell, the mean of its edge crossings), a closed outward surface of the right volume,
gradients against finite differences, and bad input."""

import hashlib

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.geometry import surface_nets_tables as tables

pytestmark = pytest.mark.needs_cxx


def _sphere(n, r):
    x = np.arange(n, dtype=np.float64)
    c = n / 2 - 0.37
    return (np.sqrt(sum(g ** 2 for g in np.meshgrid(x - c, x - c + 0.21, x - c - 0.13, indexing="ij"))) - r).astype(
        np.float32)


def test_tables():
    assert hashlib.sha256(bytes(tables.AMBIGUOUS_FACE)).hexdigest() == (
        "421d86c3f5ba48d62d136f26a9e02770417a1fa1d8828f027b61609ff3b7cb12")
    rows = np.array(tables.EDGE_GROUP_TABLE).reshape(256, 13)
    for signs in range(256):
        crossed = [((signs >> a) & 1) != ((signs >> b) & 1) for a, b in tables.EDGE_TO_CORNERS]
        assert [g != 0 for g in rows[signs, 1:]] == crossed
        assert set(rows[signs, 1:]) - {0} == set(range(1, rows[signs, 0] + 1))
    assert rows[0b01000001, 0] == 2  # corners 0 and 6 (a body diagonal): two sheets
    assert rows[0b00000101, 0] == 1  # corners 0 and 2 on a face: one sheet, the inside stays connected
    assert rows[0b10100101, 0] == 4  # four corners, no two adjacent: four sheets


def test_sphere_matches_numpy_surface_net():
    n, r = 24, 7.0
    f = _sphere(n, r)
    verts, quads = wp.geometry.IsoSurfaceNets.extract(wp.array(f), 0.0, topology="quad")
    v, q = verts.numpy(), quads.numpy().reshape(-1, 4)
    # the reference: every cell with a sign change gets the mean of its edges' crossings
    ref = []
    for i, j, k in np.ndindex(n - 1, n - 1, n - 1):
        pts = []
        for a, b in tables.EDGE_TO_CORNERS:
            pa, pb = np.array(tables.CORNER_OFFSETS[a]), np.array(tables.CORNER_OFFSETS[b])
            fa, fb = float(f[i + pa[0], j + pa[1], k + pa[2]]), float(f[i + pb[0], j + pb[1], k + pb[2]])
            if (fa < 0) != (fb < 0):
                pts.append(np.array([i, j, k]) + pa + (0 - fa) / (fb - fa) * (pb - pa))
        if pts:
            ref.append(np.mean(pts, axis=0))
    ref = np.array(ref)
    assert len(v) == len(ref)
    np.testing.assert_allclose(v, ref, atol=1e-5)  # both in (i, j, k) cell order
    # closed: every quad edge shared by two quads, Euler characteristic 2
    e = np.sort(np.concatenate([q[:, [s, (s + 1) % 4]] for s in range(4)]), axis=1)
    _, count = np.unique(e, axis=0, return_counts=True)
    assert (count == 2).all() and len(v) - len(count) + len(q) == 2


def test_triangles_outward_with_the_sphere_volume():
    n, r = 32, 10.0
    verts, tris = wp.geometry.IsoSurfaceNets.extract(wp.array(_sphere(n, r)), 0.0, lower=wp.vec3(0.0, 0.0, 0.0),
                                                     upper=wp.vec3(2.0 * (n - 1), n - 1.0, n - 1.0))
    v, t = verts.numpy().astype(np.float64), tris.numpy().reshape(-1, 3)
    vol = np.einsum("ij,ij->i", v[t[:, 0]], np.cross(v[t[:, 1]], v[t[:, 2]])).sum() / 6.0
    exact = 2.0 * 4.0 / 3.0 * np.pi * r ** 3  # the x axis is stretched by 2
    assert vol > 0 and abs(vol - exact) / exact < 0.03


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    f = rng.uniform(-1.0, 1.0, (5, 5, 5)).astype(np.float32)
    f[np.abs(f) < 0.05] = 0.5
    field = wp.array(f, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = wp.geometry.IsoSurfaceNets.extract(field, 0.0)
    w = rng.uniform(-1.0, 1.0, (verts.shape[0], 3))
    verts.grad = wp.array(w.astype(np.float32), dtype=wp.vec3)
    tape.backward()

    def loss(g):
        out, _ = wp.geometry.IsoSurfaceNets.extract(wp.array(g), 0.0)
        assert out.shape[0] == len(w)
        return float((out.numpy().astype(np.float64) * w).sum())

    fd = np.zeros_like(f)
    for idx in np.ndindex(f.shape):
        p, m = f.copy(), f.copy()
        p[idx] += 1e-3
        m[idx] -= 1e-3
        fd[idx] = (loss(p) - loss(m)) / 2e-3
    np.testing.assert_allclose(field.grad.numpy(), fd, rtol=2e-2, atol=2e-2)


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 nodes"):
        wp.geometry.IsoSurfaceNets.extract(wp.zeros((1, 4, 4), dtype=float))
    with pytest.raises(TypeError, match="float32"):
        wp.geometry.IsoSurfaceNets.extract(wp.zeros((4, 4, 4), dtype=wp.float64))
    with pytest.raises(ValueError, match="topology"):
        wp.geometry.IsoSurfaceNets(4, 4, 4, topology="quads")
    with pytest.raises(ValueError, match="shape"):
        wp.geometry.IsoSurfaceNets(4, 4, 4).surface(wp.zeros((5, 4, 4), dtype=float), 0.0)
