"""End to end: functions as values in kernels. wp.grad(f)(args) in forward code, for user functions
(with loops and branches, and with a @wp.func_grad), builtins with several arguments (a tuple of
gradients) and functions named through a local, against central finite differences of the same
function in numpy; the errors for rebinding a local that names a function; type attributes that
generic code reads (a.dtype, vec.length); a @wp.func named after an operator overloading it."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def np_bumpy(x, y):
    s = x
    for k in range(3):
        s = np.sin(s) * y + x if s > 0.5 else s * s + y
    return s


@wp.func
def bumpy(x: wp.float64, y: wp.float64):
    s = x
    for k in range(3):
        if s > wp.float64(0.5):
            s = wp.sin(s) * y + x
        else:
            s = s * s + y
    return s


@wp.func
def clipped(x: float):
    return wp.min(x, 1.0)


@wp.func_grad(clipped)
def adj_clipped(x: float, adj_ret: float):
    wp.adjoint[x] += 3.0 * adj_ret  # a deliberately different gradient: shows the custom one is used


@wp.kernel(enable_backward=False)
def gradients(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64, ndim=2),
              custom: wp.array(dtype=float)):
    i = wp.tid()
    gx, gy = wp.grad(bumpy)(x[i], y[i])
    out[i, 0] = gx
    out[i, 1] = gy
    f = wp.atan2
    g = wp.grad(f)
    a, b = g(y[i], x[i])
    out[i, 2] = a
    out[i, 3] = b
    custom[i] = wp.grad(clipped)(float(x[i]))


def central(f, x, y, h=1e-6):
    return (f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h)


def test_grad_of_functions_and_builtins_matches_finite_differences():
    gen = np.random.default_rng(5)
    xv, yv = gen.uniform(-1.5, 1.5, 6), gen.uniform(0.2, 1.5, 6)
    out = wp.zeros((6, 4), dtype=wp.float64)
    custom = wp.zeros(6)
    wp.launch(gradients, 6, inputs=[wp.array(xv, dtype=wp.float64), wp.array(yv, dtype=wp.float64), out, custom])
    got = out.numpy()
    for k, (x, y) in enumerate(zip(xv, yv)):
        np.testing.assert_allclose(got[k, :2], central(np_bumpy, x, y), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got[k, 2:], central(np.arctan2, y, x), rtol=1e-5, atol=1e-7)
    assert custom.numpy().tolist() == [3.0] * 6


@wp.func
def cube(x: float):
    return x * x * x


@wp.kernel
def uses_grad_in_a_differentiated_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * 2.0 + wp.grad(cube)(x[i])  # the gradient is a value here; it is not differentiated again


def test_grad_of_in_a_kernel_that_is_differentiated():
    xv = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    x = wp.array(xv, requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(uses_grad_in_a_differentiated_kernel, 3, inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), 2 * xv + 3 * xv * xv, rtol=1e-6)
    tape.backward(grads={y: wp.ones(3)})
    assert x.grad.numpy().tolist() == [2.0, 2.0, 2.0]


def test_rebinding_a_function_valued_local_is_refused_at_its_line():
    @wp.kernel
    def rebinds(out: wp.array(dtype=float)):
        g = wp.grad(cube)
        g = 1.0
        out[0] = g

    @wp.kernel
    def rebinds_function(out: wp.array(dtype=float)):
        f = cube
        f = clipped
        out[0] = f(1.0)

    with pytest.raises(wp.KernelError, match=r"Cannot reassign local 'g'.*wp.grad") as info:
        wp.launch(rebinds, 1, inputs=[wp.zeros(1)])
    assert "test_function_values.py, line" in str(info.value)
    with pytest.raises(wp.KernelError, match="rebinding function-valued local `f` to another function"):
        wp.launch(rebinds_function, 1, inputs=[wp.zeros(1)])


def test_generic_code_reads_dtype_and_length_and_missing_names_are_key_errors():
    @wp.kernel
    def generic(a: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.float64)):
        v = a.dtype(a[0])  # the element type as a constructor
        s = type(a).dtype.dtype(2.0)  # the scalar type of the element type
        n = wp.vec3d.length
        out[0] = v[0] * s + wp.float64(n)

    a = wp.array(np.array([[1.5, 0.0, 0.0]]), dtype=wp.vec3d)
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(generic, 1, inputs=[a, out])
    assert out.numpy()[0] == 1.5 * 2.0 + 3.0

    @wp.kernel
    def misspelt():
        x = typez(1)  # noqa: F821

    @wp.kernel
    def missing_function():
        x = wp.nonexistent_func()

    with pytest.raises(KeyError, match="Referencing undefined symbol: typez"):
        wp.launch(misspelt, 1)
    with pytest.raises(AttributeError, match=r"Could not find function wp\.nonexistent_func") as info:
        wp.launch(missing_function, 1)
    assert "test_function_values.py, line" in str(info.value)


@wp.struct
class Complex:
    re: float
    im: float


@wp.func
def mul(a: Complex, b: Complex) -> Complex:  # named after the operator: `a * b` on Complex values calls it
    return Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)


def test_a_function_named_after_an_operator_overloads_it_for_structs():
    @wp.kernel
    def product(out: wp.array(dtype=float)):
        c = Complex(1.0, 2.0) * Complex(3.0, 4.0)
        out[0] = c.re
        out[1] = c.im
        out[2] = 2.0 * 3.0  # builtin operators are untouched

    out = wp.zeros(3)
    wp.launch(product, 1, inputs=[out])
    z = (1 + 2j) * (3 + 4j)
    assert out.numpy().tolist() == [z.real, z.imag, 6.0]
