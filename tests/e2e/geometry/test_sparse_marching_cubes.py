"""wp.geometry.lipschitz_octree, sparse_marching_cubes and sparse_marching_cubes_from_cells: the octree
against a plain numpy octree and against the dense grid's crossing cells, the sparse surface against
the dense extractor's (same triangles), a closed sphere, gradients against finite differences, and bad
input."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

_OFFSETS = np.array(wp.geometry.IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS)


@wp.kernel
def _sphere_values(points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(points[i]) - 0.5


def _sphere(points):
    out = wp.empty(points.shape[0], dtype=float, device=points.device)
    wp.launch(_sphere_values, points.shape[0], inputs=[points, out], device=points.device)
    return out


def _numpy_octree(depth):
    """Leaves and evaluation count of the centre-value pruning, written out in numpy (float32 centres)."""
    children = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
    cells, evaluations = np.zeros((1, 3), np.int64), 0
    for d in range(depth + 1):
        w = 2.0 / (1 << d)
        centers = (-1.0 + w * (cells + 0.5)).astype(np.float32)
        evaluations += len(cells)
        cells = cells[np.abs(np.linalg.norm(centers, axis=1) - 0.5) <= np.sqrt(3) / 2 * w]
        if d < depth:
            cells = (2 * cells[:, None] + children[None]).reshape(-1, 3)
    corners = np.unique((cells[:, None] + children[None]).reshape(-1, 3), axis=0)
    return cells, evaluations + len(corners)


def _closed_euler(tris):
    edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
    _, count = np.unique(edges, axis=0, return_counts=True)
    assert (count == 2).all()
    return len(np.unique(tris)) - len(count) + len(tris)


def test_octree_matches_numpy_and_brackets_the_surface():
    depth = 5
    cells, width = wp.geometry.lipschitz_octree(_sphere, (-1.0, -1.0, -1.0), 2.0, depth)
    got = {tuple(c) for c in cells.numpy()}
    ref, ref_evals = _numpy_octree(depth)
    assert got == {tuple(c) for c in ref}
    assert width == 2.0 / 32
    _, _, stats = wp.geometry.sparse_marching_cubes(_sphere, 33, 33, 33, lower=(-1, -1, -1), upper=(1, 1, 1),
                                                    return_stats=True)
    assert stats["field_evaluations"] == ref_evals and stats["culled_cells"] == 0
    # every cell of the dense grid with a sign change is a leaf
    x = -1.0 + width * np.arange(33)
    f = np.sqrt(sum(g ** 2 for g in np.meshgrid(x, x, x, indexing="ij"))) - 0.5
    inside = (f < 0).astype(int)
    n = sum(inside[dx:dx + 32, dy:dy + 32, dz:dz + 32] for dx, dy, dz in _OFFSETS)
    assert {tuple(c) for c in np.argwhere((n > 0) & (n < 8))} <= got


@pytest.mark.parametrize("shape", [(17, 17, 17), (11, 15, 21)])
def test_sparse_equals_dense(shape):
    lower, upper = np.array([-1.0, -1.2, -0.9]), np.array([1.0, 1.3, 1.1])
    verts, indices = wp.geometry.sparse_marching_cubes(_sphere, *shape, lower=tuple(lower), upper=tuple(upper))
    axes = [lower[a] + (upper[a] - lower[a]) / (shape[a] - 1) * np.arange(shape[a]) for a in range(3)]
    f = (np.sqrt(sum(g ** 2 for g in np.meshgrid(*axes, indexing="ij"))) - 0.5).astype(np.float32)
    dv, di = wp.geometry.IsoSurfaceMarchingCubes.extract(wp.array(f), 0.0, lower=wp.vec3(*lower),
                                                         upper=wp.vec3(*upper))
    sv, st = verts.numpy(), indices.numpy().reshape(-1, 3)
    assert len(st) == len(di.numpy()) // 3 and len(sv) == len(dv.numpy())
    dvn, dt = dv.numpy(), di.numpy().reshape(-1, 3)
    # each sparse vertex is one dense vertex (up to rounding); the triangles are then the same index triples
    dist = np.linalg.norm(sv[:, None, :] - dvn[None, :, :], axis=2)
    match = dist.argmin(axis=1)
    assert dist.min(axis=1).max() < 1e-4 and len(np.unique(match)) == len(sv)
    as_set = lambda t: {tuple(np.roll(tri, -int(np.argmin(tri)))) for tri in t}
    assert as_set(match[st]) == as_set(dt)


def test_sphere_is_closed_and_on_the_surface():
    verts, indices = wp.geometry.sparse_marching_cubes(_sphere, 65, 65, 65, lower=(-1, -1, -1), upper=(1, 1, 1))
    v, t = verts.numpy(), indices.numpy().reshape(-1, 3)
    assert np.abs(np.linalg.norm(v, axis=1) - 0.5).max() < 2.0 / 64
    assert _closed_euler(t) == 2


def test_from_cells_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    cells = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5]], np.int32)
    values = rng.uniform(-1.0, 1.0, (4, 8)).astype(np.float32)
    values[np.abs(values) < 0.1] = 0.3  # keep every value away from the isovalue
    cv = wp.array(values, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = wp.geometry.sparse_marching_cubes_from_cells(cells, cv, origin=(0.5, 0.0, -1.0), cell_width=0.25)
    weights = rng.uniform(-1, 1, (verts.shape[0], 3)).astype(np.float32)
    verts.grad = wp.array(weights, dtype=wp.vec3)
    tape.backward()
    grad = cv.grad.numpy()

    def loss(v):
        out, _ = wp.geometry.sparse_marching_cubes_from_cells(cells, v, origin=(0.5, 0.0, -1.0), cell_width=0.25)
        return float((out.numpy().astype(np.float64) * weights).sum())

    fd = np.zeros_like(values)
    for idx in np.ndindex(values.shape):
        p, m = values.copy(), values.copy()
        p[idx] += 1e-3
        m[idx] -= 1e-3
        fd[idx] = (loss(p) - loss(m)) / 2e-3
    # a vertex shared by cells is placed from one cell's copy of its edge's values; the finite differences
    # see the same (the other copies move no vertex), so the two agree entry by entry
    np.testing.assert_allclose(grad, fd, rtol=2e-2, atol=2e-2)


def test_bad_input():
    @wp.func
    def sdf(p: wp.vec3):
        return wp.length(p) - 0.5

    with pytest.raises(TypeError, match="@wp.func"):
        wp.geometry.sparse_marching_cubes(sdf, 9, 9, 9)
    with pytest.raises(ValueError, match="at least 2 nodes"):
        wp.geometry.sparse_marching_cubes(_sphere, 1, 9, 9)
    with pytest.raises(ValueError, match="lipschitz_bound"):
        wp.geometry.sparse_marching_cubes(_sphere, 9, 9, 9, lipschitz_bound=0.0)
    with pytest.raises(ValueError, match="cell_width"):
        wp.geometry.sparse_marching_cubes_from_cells(np.zeros((1, 3), np.int32), np.zeros((1, 8), np.float32),
                                                     cell_width=-1.0)
    with pytest.raises(ValueError, match="corner_values"):
        wp.geometry.sparse_marching_cubes_from_cells(np.zeros((2, 3), np.int32), np.zeros(8, np.float32))


def test_lazy_builders_are_functions_in_any_order():
    """The geometry builders are imported on first use: asking for sparse_marching_cubes first (which
    imports the octree's module) must still leave wp.geometry.lipschitz_octree the function."""
    import subprocess
    import sys
    code = ("import warp_nb as wp; a = wp.geometry.sparse_marching_cubes; b = wp.geometry.lipschitz_octree; "
            "c = wp.geometry.sparse_marching_cubes_from_cells; assert all(callable(f) and not "
            "isinstance(f, type(wp)) for f in (a, b, c)), (a, b, c)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
