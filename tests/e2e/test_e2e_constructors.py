"""End to end: composite construction and the operators Warp accepts on vectors, matrices,
quaternions and transforms (casting and anonymous constructors, transforms by part, %, lerp,
scalar / quaternion, integer products, index types), and Warp's messages for what it refuses;
checked against numpy."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import rng

pytestmark = pytest.mark.needs_cxx


def kernel_from_source(source: str):
    """A kernel from source text (one per text), registered with linecache so it can be read back."""
    import linecache
    filename = f"<kernel {abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"wp": wp}
    exec(compile(source, filename, "exec"), namespace)
    return wp.Kernel(namespace["k"], key=f"k_{abs(hash(source))}")


# --- anonymous and casting constructors (Warp's rules and messages) ------------------------------

@wp.kernel
def k_vector_casts(a: wp.array(dtype=wp.vec3d), h: wp.array(dtype=wp.vec3h), f: wp.array(dtype=wp.vec3f)):
    i = wp.tid()
    h[i] = wp.types.vector(a[i], dtype=wp.float16)  # length from the copied vector
    f[i] = wp.vec3f(a[i])


def test_vector_casting_constructors_round_like_numpy():
    x = np.array([[1.1, -2.7, 65519.0], [1e-8, 3.0, -0.5]], dtype=np.float64)
    h, f = wp.zeros(2, dtype=wp.vec3h), wp.zeros(2, dtype=wp.vec3f)
    wp.launch(k_vector_casts, dim=2, inputs=[wp.array(x, dtype=wp.vec3d), h, f])
    np.testing.assert_array_equal(h.numpy(), x.astype(np.float16))
    np.testing.assert_array_equal(f.numpy(), x.astype(np.float32))


@pytest.mark.parametrize("body, message", [
    ("wp.vec3(wp.vec2(1.0, 2.0))", "incompatible vector of length 3 given when copy constructing a vector of length 2"),
    ("wp.types.vector(1.0, 2.0, length=5)", r"incompatible number of values given \(2\) when constructing a vector "
                                            "of length 5"),
    ("wp.types.vector()", "the `length` argument must be specified when zero-initializing a vector"),
    ("wp.types.vector(1.0, 2)", "all values given when constructing a vector must have the same type"),
    ("wp.vec2(x, x)", "all values used to initialize this vector are expected to be of the type `float32`"),
    ("wp.mat22(x)", "the value used to fill this matrix is expected to be of the type `float32`"),
    ("wp.mat22(x, x, x, x)", "all values used to initialize this matrix are expected to be of the type `float32`"),
    ("wp.mat33(wp.mat22(1.0, 2.0, 3.0, 4.0))", r"incompatible matrix of shape \(3, 3\) given when copy constructing a "
                                               r"matrix of shape \(2, 2\)"),
    ("wp.mat22(1.0, 2.0, 3.0)", r"incompatible number of values given \(3\) when constructing a matrix of shape "
                                r"\(2, 2\)"),
    ("wp.types.matrix(1.0, 2.0)", "the `shape` argument must be specified when initializing a matrix by value"),
])
def test_vector_constructor_errors_are_warps(body, message):
    kernel = kernel_from_source(f"def k(x: wp.float64):\n    v = {body}\n")
    with pytest.raises(RuntimeError, match=message + "$"):
        wp.launch(kernel, dim=1, inputs=[wp.float64(1.0)])


@wp.kernel
def k_typed_keywords_and_bool(m: wp.array(dtype=wp.mat22d), out: wp.array(dtype=wp.mat22d),
                              flags: wp.array(dtype=wp.vector(3, dtype=wp.bool))):
    out[0] = wp.mat22d(m[0], shape=(2, 2))
    out[1] = wp.types.matrix(m[0], dtype=wp.float64)
    flags[0] = wp.types.vector(True, False, True)


def test_typed_constructor_keywords_and_bool_literal_vectors():
    m = np.array([[[1.5, -2.0], [3.0, 4.25]]])
    out, flags = wp.zeros(2, dtype=wp.mat22d), wp.zeros(1, dtype=wp.vector(3, dtype=wp.bool))
    wp.launch(k_typed_keywords_and_bool, dim=1, inputs=[wp.array(m, dtype=wp.mat22d), out, flags])
    np.testing.assert_array_equal(out.numpy(), np.concatenate([m, m]))
    np.testing.assert_array_equal(flags.numpy()[0], [True, False, True])
    a = wp.mat33(*range(9))
    assert a.get_col(1) == wp.vec3(1.0, 4.0, 7.0)
    a.set_col(2, wp.vec3(-1.0, -2.0, -3.0))
    np.testing.assert_array_equal(np.asarray(a)[:, 2], [-1.0, -2.0, -3.0])


@wp.kernel
def k_vec_mod(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
              ai: wp.array(dtype=wp.vec3i), bi: wp.array(dtype=wp.vec3i), outi: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    out[i] = a[i] % b[i]
    outi[i] = ai[i] % bi[i]


def test_vector_modulo_is_c_remainder_componentwise():
    g = rng(3)
    a, b = g.normal(size=(4, 3)).astype(np.float32) * 5, g.normal(size=(4, 3)).astype(np.float32)
    ai, bi = g.integers(-9, 9, size=(4, 3)).astype(np.int32), g.integers(1, 4, size=(4, 3)).astype(np.int32)
    out, outi = wp.zeros(4, dtype=wp.vec3, requires_grad=True), wp.zeros(4, dtype=wp.vec3i)
    wa, wb = wp.array(a, dtype=wp.vec3, requires_grad=True), wp.array(b, dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k_vec_mod, dim=4, inputs=[wa, wb, out, wp.array(ai, dtype=wp.vec3i), wp.array(bi, dtype=wp.vec3i),
                                            outi])
    np.testing.assert_allclose(out.numpy(), np.fmod(a, b), rtol=1e-6)
    np.testing.assert_array_equal(outi.numpy(), np.fmod(ai, bi))
    tape.backward(grads={out: wp.array(np.ones((4, 3)), dtype=wp.vec3)})
    np.testing.assert_array_equal(wa.grad.numpy(), np.ones((4, 3)))  # d/da = 1
    np.testing.assert_array_equal(wb.grad.numpy(), np.zeros((4, 3)))  # d/db = 0, Warp's choice
    assert list(wp.vec3i(7, -7, 5) % wp.vec3i(2, 2, 0)) == [1, -1, 0]


@wp.kernel
def k_lerp_composites(a: wp.array(dtype=wp.mat22), b: wp.array(dtype=wp.mat22), t: wp.array(dtype=float),
                      ta: wp.array(dtype=wp.transform), tb: wp.array(dtype=wp.transform),
                      m: wp.array(dtype=wp.mat22), tr: wp.array(dtype=wp.transform)):
    m[0] = wp.lerp(a[0], b[0], t[0])
    tr[0] = wp.lerp(ta[0], tb[0], t[0])


def test_lerp_of_matrices_and_transforms_with_gradient():
    g = rng(5)
    a, b, ta, tb = g.normal(size=(1, 2, 2)), g.normal(size=(1, 2, 2)), g.normal(size=(1, 7)), g.normal(size=(1, 7))
    t = wp.array([0.3], dtype=float, requires_grad=True)
    m, tr = wp.zeros(1, dtype=wp.mat22, requires_grad=True), wp.zeros(1, dtype=wp.transform, requires_grad=True)
    args = [wp.array(a, dtype=wp.mat22), wp.array(b, dtype=wp.mat22), t, wp.array(ta, dtype=wp.transform),
            wp.array(tb, dtype=wp.transform), m, tr]
    tape = wp.Tape()
    with tape:
        wp.launch(k_lerp_composites, dim=1, inputs=args)
    np.testing.assert_allclose(m.numpy(), a * 0.7 + b * 0.3, rtol=1e-5)
    np.testing.assert_allclose(tr.numpy(), ta * 0.7 + tb * 0.3, rtol=1e-5, atol=1e-6)
    tape.backward(grads={m: wp.array(np.ones((1, 2, 2)), dtype=wp.mat22),
                         tr: wp.array(np.ones((1, 7)), dtype=wp.transform)})
    np.testing.assert_allclose(t.grad.numpy()[0], (b - a).sum() + (tb - ta).sum(), rtol=1e-5)


MAT22I = wp.types.matrix((2, 2), wp.int32)


@wp.kernel
def k_quat_and_int_products(q: wp.array(dtype=wp.quat), acc: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.quat),
                            a: wp.array(dtype=MAT22I), b: wp.array(dtype=MAT22I), m: wp.array(dtype=MAT22I)):
    i = wp.tid()
    out[i] = 2.0 / q[i]
    wp.atomic_add(acc, 0, q[i])
    acc[1] -= q[i]
    m[i] = a[i] @ b[i] + a[i] * b[i]


def test_scalar_over_quaternion_quaternion_atomics_and_integer_matmul():
    g = rng(7)
    q = g.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32)
    a, b = g.integers(-5, 5, size=(3, 2, 2)).astype(np.int32), g.integers(-5, 5, size=(3, 2, 2)).astype(np.int32)
    wq = wp.array(q, dtype=wp.quat, requires_grad=True)
    acc, out = wp.zeros(2, dtype=wp.quat), wp.zeros(3, dtype=wp.quat, requires_grad=True)
    m = wp.zeros(3, dtype=MAT22I)
    tape = wp.Tape()
    with tape:
        wp.launch(k_quat_and_int_products, dim=3, inputs=[wq, acc, out, wp.array(a, dtype=MAT22I),
                                                          wp.array(b, dtype=MAT22I), m])
    np.testing.assert_allclose(out.numpy(), 2.0 / q, rtol=1e-6)
    np.testing.assert_allclose(acc.numpy(), [q.sum(0), -q.sum(0)], rtol=1e-6)
    np.testing.assert_array_equal(m.numpy(), 2 * (a @ b))
    tape.backward(grads={out: wp.array(np.ones((3, 4)), dtype=wp.quat)})
    np.testing.assert_allclose(wq.grad.numpy(), -2.0 / q**2, rtol=1e-5)


def test_expect_eq_of_different_types_is_warps_runtime_error():
    kernel = kernel_from_source("def k():\n    wp.expect_neq(wp.vec3(0.0), wp.vec2(0.0))\n")
    with pytest.raises(RuntimeError, match="Can't test equality for objects with different types$"):
        wp.launch(kernel, dim=1)


@wp.kernel
def k_det_inv(m: wp.array(dtype=wp.mat44), d: wp.array(dtype=float), h: wp.array(dtype=wp.mat33h),
              hi: wp.array(dtype=wp.mat33h), o: wp.array(dtype=MAT22I)):
    d[0] = wp.determinant(m[0])
    hi[0] = wp.inverse(h[0])
    o[0] = wp.outer(wp.vec2i(2, -3), wp.vec2i(4, 5))


def test_determinant_and_inverse_are_accurate_to_their_precision():
    g = rng(11)
    m = g.normal(size=(1, 4, 4)).astype(np.float32)
    h = (g.normal(size=(1, 3, 3)) + 3 * np.eye(3)).astype(np.float16)
    d, hi, o = wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.mat33h), wp.zeros(1, dtype=MAT22I)
    wp.launch(k_det_inv, dim=1, inputs=[wp.array(m, dtype=wp.mat44), d, wp.array(h, dtype=wp.mat33h), hi, o])
    exact = np.linalg.det(m[0].astype(np.float64))
    assert abs(d.numpy()[0] - exact) <= 2 * np.finfo(np.float32).eps * abs(exact)  # one rounding
    np.testing.assert_allclose(hi.numpy()[0], np.linalg.inv(h[0].astype(np.float64)), rtol=2e-3, atol=1e-3)
    np.testing.assert_array_equal(o.numpy()[0], np.outer([2, -3], [4, 5]))


@wp.kernel
def k_index_types(out: wp.array(dtype=int)):
    v = wp.vec4i(10, 20, 30, 40)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    out[0] = v[wp.uint8(1)] + v[wp.int64(3)] + v[wp.argmax(v)]
    out[1] = int(m[wp.uint16(1), wp.int8(0)])


def test_vectors_and_matrices_take_any_integer_index_type():
    out = wp.zeros(2, dtype=int)
    wp.launch(k_index_types, dim=1, inputs=[out])
    assert out.numpy().tolist() == [20 + 40 + 40, 3]


@wp.kernel
def k_transform_forms(v: wp.array(dtype=float), out: wp.array(dtype=wp.transform), sv: wp.array(dtype=wp.spatial_vector)):
    p = wp.vec3(v[0], v[1], v[2])
    out[0] = wp.transform(p=p)
    out[1] = wp.transform(v[3])
    out[2] = 2.0 * wp.transform(p, wp.quat(v[3], v[4], v[5], v[6]))
    out[3] = -out[2]
    sv[0] = wp.spatial_vector(p, wp.vec3(v[4], v[5], v[6]))


def test_transform_constructor_forms_in_kernels_and_python():
    x = np.arange(1.0, 8.0, dtype=np.float32)
    v = wp.array(x, requires_grad=True)
    out, sv = wp.zeros(4, dtype=wp.transform, requires_grad=True), wp.zeros(1, dtype=wp.spatial_vector)
    tape = wp.Tape()
    with tape:
        wp.launch(k_transform_forms, dim=1, inputs=[v, out, sv])
    identity = np.array([0, 0, 0, 0, 0, 0, 1.0])
    expected = [np.concatenate([x[:3], identity[3:]]), np.full(7, x[3]), 2 * x, -2 * x]
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(sv.numpy()[0], np.concatenate([x[:3], x[4:]]))
    tape.backward(grads={out: wp.array(np.stack([np.zeros(7), np.ones(7), np.zeros(7), np.zeros(7)]),
                                       dtype=wp.transform)})
    np.testing.assert_array_equal(v.grad.numpy(), [0, 0, 0, 7, 0, 0, 0])  # transform(s): every component is s
    # Python scope, as Warp: the identity by default, p with the identity rotation, parts by name
    np.testing.assert_array_equal(list(wp.transform()), identity)
    np.testing.assert_array_equal(list(wp.transformd((1.0, 2.0, 3.0))), [1, 2, 3, 0, 0, 0, 1])
    np.testing.assert_array_equal(list(wp.transformf(q=(0.0, 1.0, 0.0, 0.0))), [0, 0, 0, 0, 1, 0, 0])
    with pytest.raises(TypeError, match="Invalid argument 'q' in transformation constructor"):
        wp.transform((1.0, 2.0, 3.0), 1.0)


@pytest.mark.parametrize("body, message", [
    ("wp.transform(1.0, 2.0)", r"incompatible number of values given \(2\) when constructing a transform; expected "
                               "0, 1, or 7"),
    ("wp.transformd(wp.transform(1.0))", "copy constructing a transform requires matching source and target "
                                         "dtypes, got `float32` and `float64`"),
])
def test_transform_constructor_errors_are_warps(body, message):
    with pytest.raises(RuntimeError, match=message + "$"):
        wp.launch(kernel_from_source(f"def k():\n    t = {body}\n"), dim=1)


@wp.kernel
def bound_locals(values: wp.array(dtype=wp.float64), counts: wp.array(dtype=wp.int32)):
    x = 0.1
    n = 3
    d = wp.vec3d(x, 0.0, 0.0)  # x converts like the literal it holds, as in Warp
    values[0] = d[0]
    values[1] = wp.float64(x)  # exactly 0.1, not 0.1 rounded to float32
    values[2] = wp.float64(wp.float32(x))
    f = wp.vec3f(4.0, 5.0, 6.0)
    sliced = f[0:n]  # n is a constant where an integer literal is needed
    counts[0] = n
    counts[1] = wp.int32(sliced[2])


def test_locals_bound_to_numbers_convert_like_the_numbers():
    values, counts = wp.zeros(3, dtype=wp.float64), wp.zeros(2, dtype=wp.int32)
    wp.launch(bound_locals, 1, outputs=[values, counts])
    np.testing.assert_array_equal(values.numpy(), [0.1, 0.1, float(np.float32(0.1))])
    np.testing.assert_array_equal(counts.numpy(), [3, 6])
