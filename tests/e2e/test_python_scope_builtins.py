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


@wp.kernel
def _scope_twins(q: wp.quatf, v: wp.vec3f, t: wp.transformf, x: wp.array(dtype=float), m: wp.array(dtype=wp.mat33f),
                 vecs: wp.array(dtype=wp.vec3f), xf: wp.array(dtype=wp.transformf), s: wp.array(dtype=float)):
    m[0] = wp.quat_to_matrix(q)
    vecs[0] = wp.quat_rotate(q, v)
    vecs[1] = wp.quat_rotate_inv(q, v)
    vecs[2] = wp.transform_point(t, v)
    vecs[3] = wp.transform_vector(t, v)
    xf[0] = wp.transform_inverse(t)
    xf[1] = wp.transform_multiply(t, t)
    for i in range(x.shape[0]):
        s[6 * i + 0] = wp.acos(x[i])
        s[6 * i + 1] = wp.asin(x[i])
        s[6 * i + 2] = wp.sqrt(x[i])
        s[6 * i + 3] = wp.log(x[i])
        s[6 * i + 4] = wp.exp(x[i] * 100.0)
        s[6 * i + 5] = wp.floor(x[i] * 1e30 * 1e30)


def test_python_scope_gives_what_kernels_give_where_numpy_and_math_would_not():
    """A quaternion not of unit length rotates by the kernels' (and Warp's) formula, not q v q^-1;
    acos/asin clamp to [-1, 1] (Warp's rule, in kernels too); out of a function's domain the result
    is nan or inf, not Python's math domain error. (Found by comparing every exported builtin with
    warp-lang's on random arguments.)"""
    q = wp.quatf(1.29, 1.73, -0.05, -0.06)  # |q| about 2.2
    v, t = wp.vec3f(-0.05, -0.4, 0.19), wp.transformf(wp.vec3f(0.2, -0.1, -0.4), wp.quatf(1.29, 1.73, -0.05, -0.06))
    xs = np.array([1.26, -3.0, -0.5, 0.5, np.inf], dtype=np.float32)
    m, vecs = wp.zeros(1, dtype=wp.mat33f), wp.zeros(4, dtype=wp.vec3f)
    xf, s = wp.zeros(2, dtype=wp.transformf), wp.zeros(6 * len(xs), dtype=float)
    wp.launch(_scope_twins, 1, inputs=[q, v, t, wp.array(xs, dtype=float), m, vecs, xf, s])
    np.testing.assert_allclose(np.array(wp.quat_to_matrix(q)), m.numpy()[0], rtol=1e-6)
    got = [wp.quat_rotate(q, v), wp.quat_rotate_inv(q, v), wp.transform_point(t, v), wp.transform_vector(t, v)]
    np.testing.assert_allclose(np.array(got), vecs.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(wp.transform_inverse(t)), xf.numpy()[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(wp.transform_multiply(t, t)), xf.numpy()[1], rtol=1e-5, atol=1e-6)
    # the formula itself: (2w^2 - 1) v + 2w (u x v) + 2u (u . v)
    u, w, vv = np.array(q)[:3], np.array(q)[3], np.array(v)
    np.testing.assert_allclose(np.array(got[0]), (2 * w * w - 1) * vv + 2 * w * np.cross(u, vv) + 2 * u * u.dot(vv),
                               rtol=1e-5)
    scope = [[wp.acos(wp.float32(x)), wp.asin(wp.float32(x)), wp.sqrt(wp.float32(x)), wp.log(wp.float32(x)),
              wp.exp(wp.float32(x * 100.0)), wp.floor(wp.float32(x * 1e30 * 1e30))] for x in xs.tolist()]
    np.testing.assert_allclose(np.array(scope, dtype=np.float32).ravel(), s.numpy(), rtol=1e-6, equal_nan=True)
    assert scope[0][:2] == [0.0, pytest.approx(math.pi / 2)]
    assert scope[1][:2] == [pytest.approx(math.pi), pytest.approx(-math.pi / 2)]
    assert math.isnan(scope[1][2]) and math.isnan(scope[1][3]) and scope[0][4] == math.inf


def test_random_draws_from_python_scope_leave_the_state_alone():
    """wp.randf(state) and the other draws work from Python scope as in Warp: the value a kernel
    draws first from that state, and the caller's state does not advance."""
    @wp.kernel
    def first_draws(seed: int, out: wp.array(dtype=float), ints: wp.array(dtype=wp.int32)):
        s = wp.rand_init(seed)
        out[0] = wp.randf(s)
        s = wp.rand_init(seed)
        out[1] = wp.randn(s)
        s = wp.rand_init(seed)
        out[2] = wp.randf(s, 1.0, 3.0)
        s = wp.rand_init(seed)
        ints[0] = wp.randi(s)
        s = wp.rand_init(seed)
        ints[1] = wp.int32(wp.poisson(s, 3.5))

    out, ints = wp.zeros(3, dtype=float), wp.zeros(2, dtype=wp.int32)
    wp.launch(first_draws, 1, inputs=[42, out, ints])
    state = wp.rand_init(42)
    got = [wp.randf(state), wp.randn(state), wp.randf(state, 1.0, 3.0)]
    assert wp.randf(state) == got[0]  # the same state gives the same draw
    np.testing.assert_array_equal(np.array(got, dtype=np.float32), out.numpy())
    assert [wp.randi(state), wp.poisson(state, 3.5)] == ints.numpy().tolist()
    assert np.linalg.norm(np.array(wp.sample_unit_sphere_surface(state))) == pytest.approx(1.0, abs=1e-6)


def test_integer_vectors_cross_and_divide_as_in_kernels():
    """cross takes integer vectors (as Warp's); cw_div of integers truncates toward zero and gives
    0 for a zero divisor in both scopes (numpy's float division gave inf, then an OverflowError)."""
    a, b = wp.vec3i(-3, -2, 1), wp.vec3i(-2, -4, -2)
    assert wp.cross(a, b) == wp.vec3i(*np.cross([-3, -2, 1], [-2, -4, -2]))

    @wp.kernel
    def int_ops(x: wp.array(dtype=wp.vec3i), y: wp.array(dtype=wp.vec3i)):
        y[0] = wp.cross(x[0], x[1])
        y[1] = wp.cw_div(x[2], x[3])

    n, d = wp.vec3i(1, -7, 3), wp.vec3i(0, 2, -2)
    y = wp.zeros(2, dtype=wp.vec3i)
    wp.launch(int_ops, 1, inputs=[wp.array([a, b, n, d], dtype=wp.vec3i), y])
    assert y.numpy()[0].tolist() == [8, -8, 8]
    assert list(wp.cw_div(n, d)) == y.numpy()[1].tolist() == [0, -3, -1]


def test_quat_to_rpy_and_quat_to_euler_of_a_quaternion_off_the_unit_sphere_are_warps():
    """Warp's quat_to_rpy takes q as given (the textbook formulas), its quat_to_euler normalizes
    first: for a unit q both give the same angles, for q = (0.1, 0.2, 0.3, 0.9) (|q| = 0.995) not.
    The expected values are warp-lang 1.19's, in a kernel."""
    @wp.kernel
    def angles(q: wp.quatf, out: wp.array(dtype=wp.vec3f)):
        out[0] = wp.quat_to_rpy(q)
        out[1] = wp.quat_to_euler(q, 0, 1, 2)

    q = wp.quatf(0.1, 0.2, 0.3, 0.9)
    out = wp.zeros(2, dtype=wp.vec3f)
    wp.launch(angles, 1, inputs=[q, out])
    warp_rpy, warp_euler = [0.32175055, 0.30469263, 0.66477454], [0.33929265, 0.32128847, 0.69899964]
    np.testing.assert_allclose(out.numpy(), [warp_rpy, warp_euler], atol=2e-7)
    np.testing.assert_allclose([list(wp.quat_to_rpy(q)), list(wp.quat_to_euler(q, 0, 1, 2))], [warp_rpy, warp_euler],
                               atol=2e-7)


# quat_to_euler of q = (0.01414234, 0.90115081, 0.31777439, -0.29452784) for every sequence, as
# warp-lang 1.19 gives it: Tait-Bryan angles indexed by axis, proper Euler ones (i == k) in the
# slots i, j and 3 - i - j, first and third in [-2pi, 2pi] (3.43, 4.33, 3.85 here)
WARP_EULER = {
    (0, 1, 0): [2.754595, 2.54296, 3.43263], (0, 1, 2): [2.406743, -0.570219, 3.334884],
    (0, 2, 0): [4.325391, 1.861834, 2.54296], (0, 2, 1): [-0.629579, 3.720387, -0.162411],
    (1, 0, 1): [0.647426, 3.413008, 0.360366], (1, 0, 2): [0.5997, 3.85435, -0.26057],
    (1, 2, 0): [0.615796, 3.704985, -0.214312], (1, 2, 1): [1.931162, 1.842212, 0.647426],
    (2, 0, 1): [-0.620025, 3.837639, -0.200011], (2, 0, 2): [2.245346, 3.873351, 0.763143],
    (2, 1, 0): [-2.392252, -0.549006, 3.393564], (2, 1, 2): [2.302554, 2.245346, 2.333939],
}


def test_quat_to_euler_takes_every_sequence_as_warp():
    """All 12 sequences, proper Euler ones included (they came back as garbage before), in a kernel
    and from Python scope; a Tait-Bryan result turns back into the rotation."""
    @wp.kernel
    def to_euler(q: wp.quatf, seqs: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3f),
                 back: wp.array(dtype=wp.quatf)):
        t = wp.tid()
        s = seqs[t]
        e = wp.quat_to_euler(q, s[0], s[1], s[2])
        out[t] = e
        back[t] = wp.quat_from_euler(e, s[0], s[1], s[2])

    q = wp.quatf(0.01414234, 0.90115081, 0.31777439, -0.29452784)
    seqs = list(WARP_EULER)
    out, back = wp.zeros(len(seqs), dtype=wp.vec3f), wp.zeros(len(seqs), dtype=wp.quatf)
    wp.launch(to_euler, len(seqs), inputs=[q, wp.array(seqs, dtype=wp.vec3i), out, back])
    np.testing.assert_allclose(out.numpy(), [WARP_EULER[s] for s in seqs], atol=2e-5)
    for s in seqs:
        np.testing.assert_allclose(list(wp.quat_to_euler(q, *s)), WARP_EULER[s], atol=2e-6)
    for s, b in zip(seqs, back.numpy()):
        if s[0] != s[2]:  # q and -q are one rotation
            assert min(np.abs(b - np.array(q)).max(), np.abs(b + np.array(q)).max()) < 1e-5, s


def test_norm_huber_compares_squares_as_warp():
    """|v|^2 <= delta^2 picks the quadratic branch (Warp's test): with a negative delta, |v| below
    |delta| gives |v|^2 / 2 in both scopes (warp-lang: 0.091845 for this v and delta)."""
    @wp.kernel
    def huber(v: wp.vec3f, delta: float, out: wp.array(dtype=float)):
        out[0] = wp.norm_huber(v, delta)

    v, delta = wp.vec3f(-0.40172568, 0.02155133, 0.14778715), -1.123757
    out = wp.zeros(1, dtype=float)
    wp.launch(huber, 1, inputs=[v, delta, out])
    expected = 0.5 * float(np.dot(np.array(v), np.array(v)))
    assert out.numpy()[0] == pytest.approx(expected, rel=1e-6) and expected == pytest.approx(0.091845, abs=1e-6)
    assert wp.norm_huber(v, delta) == pytest.approx(expected, rel=1e-6)


def test_quat_to_euler_gradient_of_proper_euler_sequences_by_central_differences():
    @wp.kernel
    def weighted(q: wp.array(dtype=wp.quatd), seq: wp.vec3i, w: wp.vec3d, out: wp.array(dtype=wp.float64)):
        out[0] = wp.dot(wp.quat_to_euler(q[0], seq[0], seq[1], seq[2]), w)

    w = wp.vec3d(0.3, -1.1, 0.7)
    q0 = np.array([0.01414234, 0.90115081, 0.31777439, -0.29452784])
    for seq in ((0, 1, 0), (2, 0, 2), (1, 2, 1), (0, 1, 2)):
        q = wp.array([q0], dtype=wp.quatd, requires_grad=True)
        out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(weighted, 1, inputs=[q, wp.vec3i(*seq), w, out])
        tape.backward(out)
        fd = []
        for n in range(4):
            h = np.zeros(4)
            h[n] = 1e-6
            vals = []
            for sign in (1, -1):
                o = wp.zeros(1, dtype=wp.float64)
                wp.launch(weighted, 1, inputs=[wp.array([q0 + sign * h], dtype=wp.quatd), wp.vec3i(*seq), w, o])
                vals.append(o.numpy()[0])
            fd.append((vals[0] - vals[1]) / 2e-6)
        np.testing.assert_allclose(q.grad.numpy()[0], fd, rtol=1e-5, atol=1e-7, err_msg=str(seq))


def test_determinant_of_a_singular_matrix_is_zero_in_both_scopes():
    """The kernels' cofactor expansion (Warp's too): 0 for the singular matrix 1..9, where numpy's
    LU gave 6.7e-16; and inverse gives the zero matrix there."""
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    assert wp.determinant(m) == 0.0
    assert np.array_equal(np.array(wp.inverse(m)), np.zeros((3, 3)))
    assert wp.determinant(wp.mat44(*(np.arange(16.0) + np.eye(4).ravel()))) == -49.0


def test_smoothstep_with_equal_edges_is_warps_step():
    # warp-lang 1.19 (tests/fuzz/gradients_against_warp.py): 0 at x == a == b, where its formula's
    # 0/0 clamps to 0; 1 above, 0 below. warp_nb gave 1 at x == a. The same code runs in kernels.
    for t in (wp.float32, wp.float64):
        assert [wp.smoothstep(t(1.0), t(1.0), t(x)) for x in (0.0, 1.0, 2.0)] == [0.0, 0.0, 1.0]


def test_float16_composites_by_their_values():
    # the values, not the 16-bit patterns np.asarray of a float16 composite shows
    h = wp.vec3h(-1.0, 2.0, -3.0)
    assert wp.argmin(h) == 2 and wp.argmax(h) == 1
    assert wp.isnan(wp.vec3h(float("nan"), 1.0, 2.0)) and wp.isinf(wp.vec3h(float("inf"), 1.0, 2.0))
    assert wp.matrix_from_rows(h, h)[1] == h and list(wp.matrix_from_cols(h, h)[2]) == [-3.0, -3.0]
    assert wp.abs(h) == wp.vec3h(1.0, 2.0, 3.0)
