"""The trees wp.Mesh and wp.Bvh build, checked as data against numpy: every item in exactly one
leaf and inside its leaf's box, every node's box around its children's, children after their
parent, leaves no larger than the leaf size; the triangle soup and face boxes the mesh keeps; the
same tree whatever the number of threads; the same properties after refit; closest points on a
large mesh against brute force."""

import hashlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp

from tests.support.shapes import closest_points, grid_plane, uv_sphere

pytestmark = pytest.mark.needs_cxx


def check_tree(nodes, items, lo, hi, leaf_size):
    """Assert the tree properties of nodes (NODE_DTYPE, exactly the built ones) over boxes lo/hi."""
    n_nodes, n_items = len(nodes), len(lo)
    start, count = nodes["start"].astype(np.int64), nodes["count"].astype(np.int64)
    lower, upper = nodes["lower"], nodes["upper"]
    inner = np.flatnonzero(count == 0)
    child = start[inner]
    # children come after their parent and inside the array; every node but the root has exactly
    # one parent (with the ordering, every node is then reached from the root)
    assert (child > inner).all() and (child + 1 < n_nodes).all()
    parents = np.bincount(np.concatenate([child, child + 1]), minlength=n_nodes)
    assert parents[0] == 0 and (parents[1:] == 1).all()
    for c in (child, child + 1):
        assert (lower[c] >= lower[inner]).all() and (upper[c] <= upper[inner]).all()
    # leaves: 1..leaf_size items, the item positions cover 0..n-1 once, items a permutation
    leaf = np.flatnonzero(count > 0)
    assert (count[leaf] <= max(leaf_size, 1)).all()
    assert len(inner) == len(leaf) - 1
    owner = np.repeat(leaf, count[leaf])
    pos = np.repeat(start[leaf], count[leaf]) + (np.arange(len(owner)) - np.repeat(np.cumsum(count[leaf]) - count[leaf],
                                                                                    count[leaf]))
    assert np.array_equal(np.sort(pos), np.arange(n_items))
    assert np.array_equal(np.sort(items), np.arange(n_items))
    it = items[pos]
    assert (lo[it] >= lower[owner]).all() and (hi[it] <= upper[owner]).all()
    # leaf boxes are tight (the union of their items' boxes), so refit gives the same boxes
    tight_lo = np.full((n_nodes, 3), np.inf, np.float32)
    tight_hi = np.full((n_nodes, 3), -np.inf, np.float32)
    np.minimum.at(tight_lo, owner, lo[it])
    np.maximum.at(tight_hi, owner, hi[it])
    assert np.array_equal(tight_lo[leaf], lower[leaf]) and np.array_equal(tight_hi[leaf], upper[leaf])


def mesh_tree(mesh):
    count = mesh._desc.bvh.num_nodes
    return mesh._nodes[:count], mesh._items


def check_mesh(mesh, pts, idx, built_from_pts=True):
    tri = pts[idx.reshape(-1, 3)]
    lo, hi = tri.min(axis=1), tri.max(axis=1)
    nodes, items = mesh_tree(mesh)
    check_tree(nodes, items, lo, hi, mesh.bvh_leaf_size)
    # what kernels read besides the nodes: the soup in tree order, the face boxes, the edge length
    np.testing.assert_array_equal(mesh._tris.reshape(-1, 3, 3), tri[items])
    np.testing.assert_array_equal(mesh._face_lowers, lo)
    np.testing.assert_array_equal(mesh._face_uppers, hi)
    if built_from_pts:  # (measured when the mesh is built; refit keeps it)
        edges = np.linalg.norm(tri - np.roll(tri, -1, axis=1), axis=2)
        np.testing.assert_allclose(mesh.average_edge_length, edges.mean(), rtol=1e-5)


def random_soup(n_tris, seed):
    """Random, overlapping triangles of very different sizes (and a run of identical ones)."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-1, 1, (3 * n_tris, 3)).astype(np.float32)
    pts[1::3] = pts[::3] + rng.normal(0, 0.01, (n_tris, 3)).astype(np.float32) * rng.uniform(0, 50, (n_tris, 1))
    pts[2::3] = pts[::3] + rng.normal(0, 0.01, (n_tris, 3)).astype(np.float32)
    idx = np.arange(3 * n_tris, dtype=np.int32)
    idx[-300:] = idx[:3].repeat(100).reshape(3, 100).T.reshape(-1)  # 100 copies of triangle 0
    return pts, idx


@pytest.fixture(scope="module")
def sheet():
    pts, idx = grid_plane(200, 1.0)  # 80k triangles: parallel binning at the top, many subtrees
    pts[:, 2] = 0.1 * np.sin(6 * pts[:, 0]) * np.cos(5 * pts[:, 1])
    return pts, idx


@pytest.mark.parametrize("leaf_size", [1, 4, 9])
def test_mesh_tree_properties(sheet, leaf_size):
    pts, idx = sheet
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32), bvh_leaf_size=leaf_size)
    check_mesh(mesh, pts, idx)


@pytest.mark.parametrize("shape", ["one", "two", "sphere", "soup"])
def test_mesh_tree_properties_on_other_shapes(shape):
    if shape == "one":
        pts, idx = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), np.int32([0, 1, 2])
    elif shape == "two":
        pts, idx = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]), np.int32([0, 1, 2, 1, 3, 2])
    elif shape == "sphere":
        pts, idx = uv_sphere(1.0, 40, 60)
    else:
        pts, idx = random_soup(30000, seed=3)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    check_mesh(mesh, pts, idx)


def test_the_tree_does_not_depend_on_the_thread_count(sheet):
    pts, idx = sheet
    trees = []
    saved = wp.config.cpu_threads
    try:
        for threads in (1, 2, 0):
            wp.config.cpu_threads = threads
            mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
            trees.append((mesh_tree(mesh)[0].tobytes(), mesh._items.tobytes(), mesh._tris.tobytes()))
    finally:
        wp.config.cpu_threads = saved
    assert trees[0] == trees[1] == trees[2]


_TREE_DIGEST = textwrap.dedent("""
    import hashlib, sys
    import numpy as np, warp_nb as wp
    sys.path.insert(0, {root!r})
    from tests.support.shapes import uv_sphere
    wp.config.cpu_threads = 2
    pts, idx = uv_sphere(1.0, 120, 180)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    print(hashlib.sha256(mesh._nodes[:mesh._desc.bvh.num_nodes].tobytes() + mesh._items.tobytes()).hexdigest())
""")


def test_the_pool_of_the_ctypes_runtime_builds_the_same_tree(tmp_path):
    """Without the extension module the builders run on the ctypes runtime's pool."""
    from tests.support.shapes import uv_sphere
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    script = tmp_path / "tree.py"
    script.write_text(_TREE_DIGEST.format(root=root))
    env = dict(os.environ, WARP_NB_CTYPES_LAUNCH="1")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    pts, idx = uv_sphere(1.0, 120, 180)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    here = hashlib.sha256(mesh_tree(mesh)[0].tobytes() + mesh._items.tobytes()).hexdigest()
    assert out.stdout.split() == [here]


def test_refit_keeps_the_tree_properties(sheet):
    pts, idx = sheet
    points = wp.array(pts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(idx, dtype=wp.int32), support_winding_number=True)
    rng = np.random.default_rng(7)
    moved = pts + rng.normal(0, 0.01, pts.shape).astype(np.float32) + np.float32([0.5, -2.0, 1.0])
    points.numpy()[:] = moved
    mesh.refit()
    check_mesh(mesh, moved, idx, built_from_pts=False)
    # the winding-number data covers the moved mesh: the total area at the root
    tri = moved[idx.reshape(-1, 3)].astype(np.float64)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    np.testing.assert_allclose(mesh._dipoles[0, 7], area, rtol=1e-4)


def test_bvh_tree_properties():
    rng = np.random.default_rng(5)
    centers = rng.uniform(-1, 1, (70000, 3)).astype(np.float32)
    half = rng.uniform(0, 0.02, (70000, 3)).astype(np.float32)
    lo, hi = centers - half, centers + half
    for leaf_size in (1, 3):
        bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=leaf_size)
        check_tree(bvh._nodes[:bvh.num_nodes], bvh._items, lo, hi, leaf_size)


@wp.kernel
def closest_distance(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, pts[i], 1.0e6)
    out[i] = wp.length(pts[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))


def test_closest_points_on_a_large_mesh(sheet):
    pts, idx = sheet
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    rng = np.random.default_rng(9)
    q = rng.uniform([-0.1, -0.1, -0.3], [1.1, 1.1, 0.3], (40, 3)).astype(np.float32)
    out = wp.zeros(len(q), dtype=float)
    wp.launch(closest_distance, len(q), inputs=[mesh.id, wp.array(q, dtype=wp.vec3), out])
    ref, _, _ = closest_points(q, pts, idx)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=2e-6)
