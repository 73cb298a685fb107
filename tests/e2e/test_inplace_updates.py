"""In-place updates of array elements (`a[i] *= v`, `a[i].x += v`): the forward pass, gradients
where they are exact, a refusal where the gradient would need an overwritten value, and the index
checks of slot writes; plus `Module.load`, which raises when no kernel of the module loads."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.compiler.adjoint import NotDifferentiableError


@wp.kernel
def scale_component(src: wp.array(dtype=wp.float32), dst: wp.array(dtype=wp.vec3)):
    dst[0].x *= src[0]


@wp.kernel
def scale_element(src: wp.array(dtype=wp.float32), dst: wp.array(dtype=wp.float32)):
    i = wp.tid()
    dst[i] /= src[i]


@wp.kernel
def shift_component(src: wp.array(dtype=wp.float32), dst: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    dst[0].y += src[0] * src[0]
    out[0] = dst[0].y * 2.0


@wp.kernel
def scale_local(src: wp.array(dtype=wp.float32), out: wp.array(dtype=float)):
    v = wp.vec3(src[0], 1.0, 2.0)
    v[0] *= src[0]
    out[0] = v[0] + v[1]


def test_multiplying_update_runs_forward_and_refuses_its_gradient():
    src = wp.array([2.0], dtype=float, requires_grad=True)
    dst = wp.array([[5.0, 1.0, 0.0]], dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_component, 1, inputs=[src, dst])
    np.testing.assert_allclose(dst.numpy(), [[10.0, 1.0, 0.0]])
    dst.grad = wp.array([[1.0, 0.0, 0.0]], dtype=wp.vec3)
    # d(new x)/d src is the old x (5), which the update overwrote: refused, not silently 10
    with pytest.raises(NotDifferentiableError, match=r"in-place update such as `a\[i\] \*= v`") as e:
        tape.backward()
    assert "dst[0].x *= src[0]" in str(e.value)


def test_dividing_update_of_a_scalar_element_refuses_its_gradient():
    src = wp.array([2.0, 4.0], dtype=float, requires_grad=True)
    dst = wp.array([6.0, 8.0], dtype=float, requires_grad=True)
    wp.launch(scale_element, 2, inputs=[src, dst])
    np.testing.assert_allclose(dst.numpy(), [3.0, 2.0])
    with pytest.raises(NotDifferentiableError, match="old value"):
        wp.launch(scale_element, 2, inputs=[src, dst], adj_inputs=[src.grad, dst.grad], adjoint=True)


def test_adding_update_of_a_component_has_exact_gradients():
    x = 1.5
    src = wp.array([x], dtype=float, requires_grad=True)
    dst = wp.array([[0.0, 3.0, 0.0]], dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(shift_component, 1, inputs=[src, dst, out])
    np.testing.assert_allclose(out.numpy(), [2.0 * (3.0 + x * x)])
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    np.testing.assert_allclose(src.grad.numpy(), [4.0 * x], rtol=1e-6)  # d/dx 2 (y + x^2)


def test_multiplying_update_of_a_local_vector_has_exact_gradients():
    x = 3.0
    src = wp.array([x], dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_local, 1, inputs=[src, out])
    np.testing.assert_allclose(out.numpy(), [x * x + 1.0])
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    np.testing.assert_allclose(src.grad.numpy(), [2.0 * x], rtol=1e-6)


@wp.kernel(module="unique")
def float_slot_index(dst: wp.array(dtype=wp.vec3)):
    dst[0.0].x = 1.0


@wp.kernel(module="unique")
def float_slot_update_index(dst: wp.array(dtype=wp.vec3), idx: wp.array(dtype=wp.float32)):
    dst[idx[0]].x += 1.0


@pytest.mark.parametrize("kernel, shown", [(float_slot_index, "the float constant 0.0"),
                                           (float_slot_update_index, "a float32")])
def test_slot_writes_refuse_float_indices_at_an_explicit_load(kernel, shown):
    with pytest.raises(TypeError, match=f"Array slot write indices must be integers, got {shown}"):
        kernel.module.load("cpu")


def test_launching_a_good_kernel_beside_a_bad_one_still_works():
    module = wp.get_module("test_inplace_updates_mixed")

    def good(a: wp.array(dtype=float)):
        a[wp.tid()] = 2.0

    def bad(a: wp.array(dtype=float)):
        a[1.5] = 2.0

    good_k = wp.Kernel(func=good, key="good", module=module)
    wp.Kernel(func=bad, key="bad", module=module)
    a = wp.zeros(3, dtype=float)
    wp.launch(good_k, 3, inputs=[a])  # a launch loads the module quietly: the bad kernel waits for its own launch
    np.testing.assert_allclose(a.numpy(), [2.0, 2.0, 2.0])
    assert not module.load("cpu")  # one good kernel loaded: the bad one's error waits for its launch
    with pytest.raises(TypeError, match="array indices must be integers"):
        wp.launch(module.kernels[-1], 1, inputs=[a])
