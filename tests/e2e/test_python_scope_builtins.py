"""Builtins without a numpy implementation called from Python scope run in a one-thread CPU
kernel (warp_nb/launch/builtin_call.py): same results as inside a kernel, Warp's return types,
and clear errors for what only a kernel can do."""

import math

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.builtins.registry import BUILTINS

pytestmark = pytest.mark.needs_cxx


def _rpy_reference(roll, pitch, yaw):
    """Quaternion (x, y, z, w) of rotations about x by roll, y by pitch, z by yaw, applied in
    that order (q = qz * qy * qx)."""
    def axis(i, angle):
        q = [0.0, 0.0, 0.0, math.cos(angle / 2)]
        q[i] = math.sin(angle / 2)
        return q

    def mul(a, b):
        ax, ay, az, aw = a
        bx, by, bz, bw = b
        return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]
    return np.array(mul(axis(2, yaw), mul(axis(1, pitch), axis(0, roll))))


def test_the_builtin_under_test_has_no_numpy_implementation():
    # otherwise these tests would not reach the kernel path
    assert all(BUILTINS[n].python is None for n in ("closest_point_edge_edge", "intersect_tri_tri", "quat_slerp"))


def test_quat_rpy_from_python_matches_the_formula_and_a_kernel():
    q = wp.quat_rpy(0.1, -0.4, 0.7)
    assert isinstance(q, wp.quatf)
    np.testing.assert_allclose(np.array(q), _rpy_reference(0.1, -0.4, 0.7), atol=1e-6)

    @wp.kernel
    def rpy(out: wp.array(dtype=wp.quat)):
        out[0] = wp.quat_rpy(0.1, -0.4, 0.7)

    out = wp.zeros(1, dtype=wp.quat)
    wp.launch(rpy, dim=1, inputs=[out])
    np.testing.assert_allclose(out.numpy()[0], np.array(q), atol=1e-7)


def test_quat_slerp_from_python_matches_a_kernel():
    a, b = wp.quat_rpy(0.1, 0.2, 0.3), wp.quat_rpy(-0.5, 0.4, 1.0)
    q = wp.quat_slerp(a, b, 0.25)
    assert isinstance(q, wp.quatf)

    @wp.kernel
    def slerp(a: wp.quat, b: wp.quat, out: wp.array(dtype=wp.quat)):
        out[0] = wp.quat_slerp(a, b, 0.25)

    out = wp.zeros(1, dtype=wp.quat)
    wp.launch(slerp, dim=1, inputs=[a, b, out])
    np.testing.assert_array_equal(out.numpy()[0], np.array(q))


def test_composite_arguments_and_keywords():
    p1, q1, p2, q2 = wp.vec3(0, 0, 0), wp.vec3(1, 1, 0), wp.vec3(0, 1, 0), wp.vec3(1, 0, 0)
    st = wp.closest_point_edge_edge(p1, q1, p2, q2, 1e-5)
    np.testing.assert_allclose(np.array(st), [0.5, 0.5, 0.0], atol=1e-6)
    by_name = wp.closest_point_edge_edge(p1, q1, p2, q2, epsilon=1e-5)
    assert np.array(by_name).tolist() == np.array(st).tolist()
    xf = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    assert wp.transform_point(xf, wp.vec3(1.0, 1.0, 1.0)) == wp.vec3(2.0, 3.0, 4.0)


def test_scalar_results_are_python_numbers():
    hit = wp.intersect_tri_tri(wp.vec3(0, 0, 0), wp.vec3(1, 0, 0), wp.vec3(0, 0, 1),
                               wp.vec3(0.5, -0.5, 0), wp.vec3(0.5, -0.5, 1), wp.vec3(0.5, 0.5, 0))
    assert hit == 1 and isinstance(hit, int)


def test_what_only_a_kernel_can_do_is_refused():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        wp.tid()
    q = wp.quat_identity()
    with pytest.raises(RuntimeError, match="Couldn't find a function 'quat_slerp' compatible with the arguments "
                                           "'quatf, vec3f, float'"):
        wp.quat_slerp(q, wp.vec3(1.0, 2.0, 3.0), 0.5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        wp.quat_slerp(q, q, spin=0.3)


def test_builtins_with_several_results_return_a_tuple():
    q = np.array([1.0, -2.0, 3.0, 4.0])
    axis, angle = wp.quat_to_axis_angle(wp.quatd(*q))
    assert isinstance(axis, wp.vec3d)
    np.testing.assert_allclose(np.array(axis), q[:3] / np.linalg.norm(q[:3]), atol=1e-12)
    assert angle == pytest.approx(2.0 * math.atan2(np.linalg.norm(q[:3]), q[3]), abs=1e-12)
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    u, sigma, v = wp.svd3(wp.mat33d(*a.reshape(-1)))
    u, sigma, v = np.array(u).reshape(3, 3), np.array(sigma), np.array(v).reshape(3, 3)
    np.testing.assert_allclose(u @ np.diag(sigma) @ v.T, a, atol=1e-10)
    np.testing.assert_allclose(np.sort(sigma), np.sort(np.linalg.svd(a)[1]), atol=1e-10)


def test_keyword_arguments_follow_warps_parameter_names():
    v = wp.vec3f(3.0, 1.0, 2.0)
    assert wp.max(a=v) == 3.0 and wp.min(a=v) == 1.0
    assert wp.min(a=4.0, b=2.5) == 2.5
    p = wp.vec3f(1.0, 2.0, 3.0)
    m = np.eye(4, dtype=np.float32)
    m[:3, 3] = [10.0, 20.0, 30.0]  # a translation, so that the mat overload is seen doing its work
    m44 = wp.mat44f(*m.flatten())
    expected = m[:3, :3] @ np.array([1.0, 2.0, 3.0]) + m[:3, 3]
    np.testing.assert_allclose(wp.transform_point(point=p, mat=m44), expected)
    np.testing.assert_allclose(wp.transform_point(point=p, xform=m44), expected)  # a shared name: types choose
    np.testing.assert_allclose(wp.transform_vector(vec=p, mat=m44), [1.0, 2.0, 3.0])
    t = wp.transform(wp.vec3f(10.0, 20.0, 30.0), wp.quat_identity())
    np.testing.assert_allclose(wp.transform_point(xform=t, point=p), expected)


def test_keyword_call_of_a_builtin_without_a_numpy_implementation():
    state = wp.rand_init(42)
    xyz = wp.vec3f(0.25, 0.5, 0.75)
    np.testing.assert_allclose(wp.curlnoise(xyz=xyz, state=state),
                               wp.curlnoise(state, xyz, wp.uint32(1), 2.0, 0.5))  # Warp's defaults


def test_vectors_of_other_types_are_refused_as_in_kernels():
    with pytest.raises(RuntimeError, match="^Couldn't find a function 'min' compatible with the arguments "
                                           "'vec3f, vec3d'$"):
        wp.min(wp.vec3f(3.0, 1.0, 2.0), wp.vec3d(3.0, 1.0, 2.0))


def test_a_scalar_result_from_the_kernel_path_has_warps_type():
    # rand_init runs in a kernel from Python; its uint32 result is a wp.uint32, as Warp's Python scope gives
    state = wp.rand_init(42)
    assert isinstance(state, wp.uint32)

    @wp.kernel
    def init(out: wp.array(dtype=wp.uint32)):
        out[0] = wp.rand_init(42)

    out = wp.zeros(1, dtype=wp.uint32)
    wp.launch(init, dim=1, inputs=[out])
    assert state.value == int(out.numpy()[0])
    # so it is the state curlnoise takes from Python (a Python int is an int32 there, and refused)
    np.testing.assert_array_equal(np.array(wp.curlnoise(state, wp.vec3(0.25, 0.5, 0.75))),
                                  np.array(wp.curlnoise(state, wp.vec3(0.25, 0.5, 0.75), wp.uint32(1), 2.0, 0.5)))
    with pytest.raises(RuntimeError, match="'curlnoise' compatible with the arguments 'int, vec3f'"):
        wp.curlnoise(42, wp.vec3(0.25, 0.5, 0.75))


def test_wp_index_reads_a_component_in_kernels_and_is_refused_from_python():
    @wp.kernel
    def read(m: wp.array(dtype=wp.mat22), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        out[0] = wp.index(m[0], 1, 0) + 2.0 * wp.index(v[0], 2) + wp.index(wp.transform_identity(), 6)

    m_np, v_np = np.array([[[1.0, 2.0], [3.0, 4.0]]]), np.array([[5.0, 6.0, 7.0]])
    m = wp.array(m_np, dtype=wp.mat22, requires_grad=True)
    v = wp.array(v_np, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(read, dim=1, inputs=[m, v, out])
    assert out.numpy()[0] == m_np[0, 1, 0] + 2.0 * v_np[0, 2] + 1.0
    tape.backward(grads={out: wp.ones(1, dtype=float)})  # the sum is linear: its gradient is its coefficients
    np.testing.assert_array_equal(m.grad.numpy()[0], [[0.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(v.grad.numpy()[0], [0.0, 0.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'index' compatible with the arguments "
                                           r"'mat22f, int, int'$"):
        wp.index(wp.mat22f(), 0, 1)
