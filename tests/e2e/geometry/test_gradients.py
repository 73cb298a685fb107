"""Gradient checks (warp_nb.autograd.gradcheck: adjoint vs central differences) for every
differentiable geometry builtin. The registry-driven gradient suite (tests/test_builtin_gradients.py)
leaves these to this file: their first argument must be a live wp.Mesh / wp.Volume handle."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.autograd import gradcheck
from warp_nb.builtins.registry import BUILTINS

from tests.support.shapes import uv_sphere

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def point_queries(mesh: wp.uint64, x: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    p = x[i]
    q0 = wp.mesh_query_point(mesh, p, 10.0)
    q1 = wp.mesh_query_point_no_sign(mesh, p, 10.0)
    q2 = wp.mesh_query_point_sign_normal(mesh, p, 10.0)
    q3 = wp.mesh_query_point_sign_normal(mesh, p, 10.0, 1.0e-3)
    q4 = wp.mesh_query_point_sign_winding_number(mesh, p, 10.0)
    q5 = wp.mesh_query_point_sign_winding_number(mesh, p, 10.0, 2.0, 0.5)
    out[i, 0] = q0.u + 2.0 * q0.v
    out[i, 1] = q1.u - q1.v
    out[i, 2] = q2.u * 3.0 + q2.v
    out[i, 3] = q3.v
    out[i, 4] = q4.u
    out[i, 5] = q5.u + q5.v
    out[i, 6] = wp.length(wp.mesh_eval_position(mesh, q1.face, q1.u, q1.v) - p)
    out[i, 7] = wp.dot(wp.mesh_eval_velocity(mesh, q1.face, q1.u, q1.v), wp.vec3(1.0, -2.0, 0.5))


@wp.kernel
def ray_queries(mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    r0 = wp.mesh_query_ray(mesh, o[i], d[i], 100.0)
    r1 = wp.mesh_query_ray(mesh, o[i], d[i], 100.0, -1)
    out[i, 0] = r0.t
    out[i, 1] = 2.0 * r1.t


@wp.kernel
def volume_queries(vol: wp.uint64, x: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    uvw = wp.volume_world_to_index(vol, x[i])
    out[i, 0] = wp.volume_sample_f(vol, uvw, wp.Volume.LINEAR)
    w = wp.volume_index_to_world(vol, uvw * 1.5)
    out[i, 1] = w[0] + 2.0 * w[1] - w[2]
    a = wp.volume_world_to_index_dir(vol, x[i])
    b = wp.volume_index_to_world_dir(vol, x[i])
    out[i, 2] = a[0] * a[1] + b[2] + wp.volume_sample(vol, uvw * 0.9, wp.Volume.LINEAR)
    g = wp.vec3(0.0, 0.0, 0.0)
    v = wp.volume_sample_grad_f(vol, uvw, wp.Volume.LINEAR, g)
    out[i, 3] = v + g[0] - 0.5 * g[2]


@wp.kernel
def index_volume_queries(vol: wp.uint64, x: wp.array(dtype=wp.vec3), data: wp.array(dtype=float),
                         bg: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i, 0] = wp.volume_sample_index(vol, x[i], wp.Volume.LINEAR, data, bg[0])
    g = wp.vec3(0.0, 0.0, 0.0)
    v = wp.volume_sample_grad_index(vol, x[i], wp.Volume.LINEAR, data, bg[0], g)
    out[i, 1] = 0.5 * v + g[1] - 2.0 * g[2]


@wp.kernel
def vector_volume_queries(vol: wp.uint64, x: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=float)):
    i = wp.tid()
    s = wp.volume_sample_v(vol, wp.volume_world_to_index(vol, x[i]), wp.Volume.LINEAR)
    out[i, 0] = s[0] - 2.0 * s[1]
    out[i, 1] = s[2] * s[0]


@pytest.fixture(scope="module")
def mesh():
    verts, idx = uv_sphere(1.0, 8, 10)
    vel = np.stack([verts[:, 1], verts[:, 2] * 2, -verts[:, 0]], 1)
    return wp.Mesh(verts, idx, velocities=vel, support_winding_number=True)


@pytest.mark.slow
def test_point_query_gradients(mesh):
    # points off face centres, off-centre inside the face (u, v vary smoothly: no face switches)
    verts, idx = mesh.points.numpy(), mesh.indices.numpy().reshape(-1, 3)
    faces = np.arange(3, 3 + 8 * 17, 17)
    tri = verts[idx[faces]].astype(np.float64)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    w = np.array([0.45, 0.35, 0.2])
    offset = np.array([-0.06, -0.03, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3])[:, None]  # never on the face (|d| kinks at 0)
    pts = ((w[None, :, None] * tri).sum(1) + n * offset).astype(np.float32)
    x = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros((8, 8), dtype=float, requires_grad=True)
    gradcheck(point_queries, 8, [mesh.id, x], [out], eps=2e-4, atol=1e-2, rtol=2e-2)


def test_ray_gradients(mesh):
    rng = np.random.default_rng(1)
    o = rng.uniform(-0.3, 0.3, (6, 3)).astype(np.float32) + np.float32([0, 0, 3])
    d = (np.float32([0, 0, -1]) + rng.uniform(-0.1, 0.1, (6, 3))).astype(np.float32)
    O = wp.array(o, dtype=wp.vec3, requires_grad=True)
    D = wp.array(d, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros((6, 2), dtype=float, requires_grad=True)
    gradcheck(ray_queries, 6, [mesh.id, O, D], [out], eps=1e-3, atol=1e-2, rtol=2e-2)


def test_volume_gradients():
    rng = np.random.default_rng(2)
    vol = wp.Volume.load_from_numpy(rng.normal(size=(12, 12, 12)), min_world=(-1, -1, -1),
                                    voxel_size=(0.2, 0.15, 0.25))
    x = wp.array(rng.uniform(-0.5, 0.5, (6, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    out = wp.zeros((6, 4), dtype=float, requires_grad=True)
    gradcheck(volume_queries, 6, [vol.id, x], [out], eps=1e-3, atol=5e-2, rtol=5e-2)
    vec_vol = wp.Volume.load_from_numpy(rng.normal(size=(12, 12, 12, 3)), min_world=(-1, -1, -1),
                                        voxel_size=(0.2, 0.15, 0.25))
    out2 = wp.zeros((6, 2), dtype=float, requires_grad=True)
    gradcheck(vector_volume_queries, 6, [vec_vol.id, x], [out2], eps=1e-3, atol=5e-2, rtol=5e-2)


def test_index_volume_gradients():
    """Gradients into the sample point, the voxel data and the background (the points sit inside
    one cell each, near the allocated block's edge, so some corners read the background)."""
    rng = np.random.default_rng(3)
    vol = wp.Volume.allocate_by_tiles(wp.array([[0, 0, 0]], dtype=wp.int32), voxel_size=1.0, bg_value=None)
    x_np = np.floor(rng.uniform(0, 8, (6, 3))) + rng.uniform(0.2, 0.8, (6, 3))
    x = wp.array(x_np.astype(np.float32), dtype=wp.vec3, requires_grad=True)
    data = wp.array(rng.normal(size=vol.get_voxel_count()).astype(np.float32), dtype=float, requires_grad=True)
    bg = wp.array([0.3], dtype=float, requires_grad=True)
    out = wp.zeros((6, 2), dtype=float, requires_grad=True)
    gradcheck(index_volume_queries, 6, [vol.id, x, data, bg], [out], eps=1e-3, atol=5e-2, rtol=5e-2)


def test_every_differentiable_geometry_overload_is_checked():
    """The kernels above call every overload of every differentiable geometry builtin (but the
    out-parameter forms)."""
    import inspect
    source = "".join(inspect.getsource(k.func) for k in (point_queries, ray_queries, volume_queries,
                                                          vector_volume_queries, index_volume_queries))
    for name, b in BUILTINS.items():
        if b.category == "geometry" and b.differentiable:
            for o in b.overloads:
                if o.inout and not b.adjoint_inout:  # Warp's out-parameter forms: a bool result, nothing to differentiate
                    continue
                n_args = len(o.params)
                assert any(call.count(",") + 1 == n_args for call in _calls(source, name)), (name, n_args)


def _calls(source, name):
    out, k = [], 0
    while True:
        k = source.find(f"wp.{name}(", k)
        if k < 0:
            return out
        depth, j = 0, k + len(name) + 3
        start = j + 1
        while True:
            depth += {"(": 1, ")": -1}.get(source[j], 0)
            if depth == 0:
                break
            j += 1
        args = source[start:j]
        flat, d = "", 0  # drop nested calls' commas
        for ch in args:
            d += {"(": 1, ")": -1}.get(ch, 0)
            flat += ch if d == 0 or ch not in "," else ""
        out.append(flat)
        k = j
