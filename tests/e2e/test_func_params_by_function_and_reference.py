"""@wp.func parameters as Warp declares them beyond values: `g: wp.Function` (a function passed
as an argument, known when the caller is typed) and `x: wp.ref[T]` (a variable, an array element,
a struct field or a component the function writes through). Values against numpy."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def _double(x: float):
    return 2.0 * x


@wp.func
def _cube(x: float):
    return x * x * x


@wp.func
def _apply(g: wp.Function, x: float):
    return g(x)


@wp.func
def _apply_default(g: wp.Function = _double, x: float = 3.0):
    f = g  # a local naming the function
    return f(x)


@wp.func
def _accumulate(total: wp.ref[wp.float32], x: float):
    total += x


@wp.func
def _store_through(g: wp.Function, dst: wp.ref[wp.float32], x: float):
    dst = g(x)


@wp.struct
class _Box:
    value: float
    v: wp.vec3


@wp.kernel(enable_backward=False)
def _functions_and_references(x: wp.array(dtype=float), out: wp.array2d(dtype=float), boxes: wp.array(dtype=_Box)):
    i = wp.tid()
    out[i, 0] = _apply(_double, x[i])
    out[i, 1] = _apply(_cube, x[i])
    out[i, 2] = _apply(wp.sin, x[i])
    out[i, 3] = _apply_default()
    total = float(0.0)
    _accumulate(total, x[i])
    _accumulate(total, 1.0)
    out[i, 4] = total
    _store_through(_cube, out[i, 5], x[i])
    b = boxes[i]
    _store_through(_double, b.value, x[i])
    _accumulate(b.v[2], x[i])
    boxes[i] = b


def test_function_and_reference_parameters():
    x = np.linspace(-1.0, 2.0, 7, dtype=np.float32)
    out = wp.zeros((7, 6), dtype=float)
    boxes = wp.zeros(7, dtype=_Box)
    wp.launch(_functions_and_references, 7, inputs=[wp.array(x), out, boxes])
    got = out.numpy()
    np.testing.assert_allclose(got[:, 0], 2 * x, rtol=1e-6)
    np.testing.assert_allclose(got[:, 1], x ** 3, rtol=1e-6)
    np.testing.assert_allclose(got[:, 2], np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(got[:, 3], 6.0)
    np.testing.assert_allclose(got[:, 4], x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(got[:, 5], x ** 3, rtol=1e-6)
    b = boxes.numpy()
    np.testing.assert_allclose(b["value"], 2 * x, rtol=1e-6)
    np.testing.assert_allclose(b["v"][:, 2], x, rtol=1e-6)


def test_reference_arguments_must_be_writable_and_kernels_forward_only():
    @wp.kernel(enable_backward=False, module="unique")
    def literal(out: wp.array(dtype=float)):
        _accumulate(1.0, 2.0)

    with pytest.raises(TypeError, match="wp.ref"):
        wp.launch(literal, 1, inputs=[wp.zeros(1)])

    @wp.kernel(module="unique")
    def with_backward(out: wp.array(dtype=float)):
        _accumulate(out[0], 2.0)

    with pytest.raises(TypeError, match="backward"):
        wp.launch(with_backward, 1, inputs=[wp.zeros(1)])
    assert wp.ref[wp.int32] == wp.ref[wp.int32] and repr(wp.ref[wp.float32]) == "wp.ref[float32]"


@wp.func
def _overloaded(x: int):
    return float(x)


@wp.func
def _overloaded(x: float, g: wp.Function = _double):  # noqa: F811  (a second overload)
    return g(x)


def test_defaults_are_read_when_typed_and_overloads_complete_with_them():
    """Function.defaults (Warp's) is what a call without the argument takes, read when the caller is
    typed; an overload whose later parameters have defaults is found by get_overload and by calls."""

    @wp.kernel(enable_backward=False, module="unique")
    def uses_default(out: wp.array(dtype=float)):
        out[0] = _overloaded(3.0)
        out[1] = _overloaded(4)

    out = wp.zeros(2)
    wp.launch(uses_default, 1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [6.0, 4.0])
    second = _overloaded.get_overload([float], {})
    assert second is _overloaded.overloads[-1] and second.defaults["g"] is _double
    saved = dict(_apply_default.defaults)
    try:
        _apply_default.defaults["g"] = _cube

        @wp.kernel(enable_backward=False, module="unique")
        def uses_changed_default(out: wp.array(dtype=float)):
            out[0] = _apply_default()

        wp.launch(uses_changed_default, 1, inputs=[out])
        assert out.numpy()[0] == 27.0
    finally:
        _apply_default.defaults = saved


@wp.func
def _apply_from_python(g: wp.Function, x: float):
    return g(x)


@wp.func
def _cube_from_python(x: float):
    return x * x * x


def test_function_parameter_from_python_takes_warp_functions_only():
    assert _apply_from_python(_cube_from_python, 2.0) == pytest.approx(8.0)
    assert _apply_from_python(wp.sin, 0.5) == pytest.approx(np.sin(0.5))
    for not_warp in (lambda x: x, np.sin, abs):
        with pytest.raises(RuntimeError, match="^Error calling function '_apply_from_python', no overload found"):
            _apply_from_python(not_warp, 3.0)


@wp.func
def _apply_for_grad(g: wp.Function, x: float):
    return g(x)


@wp.kernel(module="unique")
def _grad_through_function_parameter(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.grad(_apply_for_grad)(_cube_from_python, xs[i])


@wp.kernel(module="unique")
def _grad_through_builtin_parameter(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.grad(_apply_for_grad)(wp.sin, xs[i])


@pytest.mark.parametrize("kernel,f", [(_grad_through_function_parameter, lambda x: x ** 3),
                                      (_grad_through_builtin_parameter, np.sin)])
def test_grad_of_a_function_with_a_function_parameter(kernel, f):
    xs = np.array([0.5, -1.25, 2.0])
    out = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(kernel, dim=3, inputs=[wp.array(xs, dtype=float, device="cpu")], outputs=[out], device="cpu")
    h = 1e-4  # central differences of the target, in float64
    np.testing.assert_allclose(out.numpy(), (f(xs + h) - f(xs - h)) / (2 * h), rtol=1e-4)


@wp.func
def _with_custom_grad(g: wp.Function, x: float):
    return x


@wp.func_grad(_with_custom_grad)
def _adj_with_custom_grad(g: wp.Function, x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret


@wp.func
def _with_custom_replay(g: wp.Function, x: float):
    return x


@wp.func_replay(_with_custom_replay)
def _replay_with_custom_replay(g: wp.Function, x: float):
    return x


@wp.kernel(module="unique")
def _calls_custom_grad(out: wp.array(dtype=float)):
    out[0] = _with_custom_grad(_cube_from_python, 2.0)


@wp.kernel(module="unique")
def _calls_custom_replay(out: wp.array(dtype=float)):
    out[0] = _with_custom_replay(_cube_from_python, 2.0)


@pytest.mark.parametrize("kernel", [_calls_custom_grad, _calls_custom_replay])
def test_function_parameters_refuse_custom_gradients(kernel):
    out = wp.zeros(1, dtype=float, device="cpu")
    with pytest.raises(wp.WarpCodegenError, match="Function parameters.*custom gradients or replay functions"):
        wp.launch(kernel, dim=1, outputs=[out], device="cpu")


@wp.kernel(module="unique")
def _passes_printf(out: wp.array(dtype=float)):
    out[0] = _apply_from_python(wp.printf, 0.5)


def test_a_builtin_with_its_own_typing_rules_is_refused_as_a_function_value():
    out = wp.zeros(1, dtype=float, device="cpu")
    with pytest.raises(wp.WarpCodegenError, match="unsupported built-in function 'printf'"):
        wp.launch(_passes_printf, dim=1, outputs=[out], device="cpu")
