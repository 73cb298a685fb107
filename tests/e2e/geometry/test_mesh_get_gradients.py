"""Gradients through a mesh's own arrays: wp.mesh_get(id).points[i] read in a kernel on a Tape
sends its adjoint into the points' gradient array, checked against central differences."""

import numpy as np

import warp_nb as wp

POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.2, 1.0, 0.0], [0.0, 0.3, 1.0]], dtype=np.float32)
INDICES = np.array([0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2], dtype=np.int32)


@wp.func
def face_area(mesh_id: wp.uint64, face: int) -> float:
    m = wp.mesh_get(mesh_id)
    a = m.points[m.indices[face * 3 + 0]]
    b = m.points[m.indices[face * 3 + 1]]
    c = m.points[m.indices[face * 3 + 2]]
    return wp.length(wp.cross(b - a, c - a)) * 0.5


@wp.kernel
def total_area(mesh_id: wp.uint64, out: wp.array(dtype=float)):
    wp.atomic_add(out, 0, face_area(mesh_id, wp.tid()))


def _area(points: np.ndarray) -> float:
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(INDICES, dtype=wp.int32))
    out = wp.zeros(1, dtype=float)
    wp.launch(total_area, len(INDICES) // 3, inputs=[mesh.id, out])
    return float(out.numpy()[0])


def test_mesh_get_points_gradient_matches_central_differences():
    pos = wp.array(POINTS, dtype=wp.vec3, requires_grad=True)
    mesh = wp.Mesh(points=pos, indices=wp.array(INDICES, dtype=wp.int32))
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(total_area, len(INDICES) // 3, inputs=[mesh.id, out])
    tape.backward(loss=out)
    grad = mesh.points.grad.numpy()
    assert np.abs(grad).max() > 0.1

    eps, fd = 1e-3, np.zeros_like(POINTS)
    for i in range(POINTS.shape[0]):
        for j in range(3):
            hi, lo = POINTS.copy(), POINTS.copy()
            hi[i, j] += eps
            lo[i, j] -= eps
            fd[i, j] = (_area(hi) - _area(lo)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, atol=2e-3)


def test_a_mesh_without_gradients_still_differentiates_the_rest():
    mesh = wp.Mesh(points=wp.array(POINTS, dtype=wp.vec3), indices=wp.array(INDICES, dtype=wp.int32))
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(total_area, len(INDICES) // 3, inputs=[mesh.id, out])
    tape.backward(loss=out)  # the points have no gradient array: nothing to write, nothing to crash
    assert mesh.points.grad is None
    np.testing.assert_allclose(out.numpy()[0], _area(POINTS), rtol=1e-6)
