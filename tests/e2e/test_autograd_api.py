"""warp_nb.autograd with Warp's API: jacobian / jacobian_fd of kernels and of Python functions
that launch kernels, gradcheck / gradcheck_tape, jacobian_plot and FunctionMetadata. Jacobians
are compared with the analytic derivative (numpy) and with each other; inputs must come back
unchanged; messages are asserted."""

import contextlib
import io

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.autograd import (
    FunctionMetadata,
    gradcheck,
    gradcheck_report,
    gradcheck_tape,
    jacobian,
    jacobian_fd,
    jacobian_plot,
)

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def mul_add(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), c: wp.array(dtype=wp.float64),
            out1: wp.array(dtype=wp.float64), out2: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out1[i] = a[i] * b[i] + c[i]
    out2[i] = wp.sin(a[i]) * c[i]


@wp.kernel
def vec_norms(v: wp.array(dtype=wp.vec3d), s: wp.float64, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = s * wp.length(v[i])


@wp.func
def wrong_square(x: float):
    return x * x


@wp.func_grad(wrong_square)
def adj_wrong_square(x: float, adj: float):
    wp.adjoint[x] += 3.0 * x * adj  # the true derivative is 2 x


@wp.kernel
def wrong_kernel(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wrong_square(a[i])


@wp.kernel(enable_backward=False)
def forward_only(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 3.0 * a[i]


@wp.kernel
def increment(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@wp.kernel
def cube(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


def _arrays(n=4, seed=0):
    rng = np.random.default_rng(seed)
    return [wp.array(rng.uniform(0.5, 1.5, n), dtype=wp.float64, requires_grad=True) for _ in range(3)] + \
        [wp.zeros(n, dtype=wp.float64, requires_grad=True) for _ in range(2)]


def test_kernel_jacobians_match_the_analytic_derivative():
    a, b, c, out1, out2 = _arrays()
    av, bv, cv = a.numpy().copy(), b.numpy().copy(), c.numpy().copy()
    for jac in (jacobian(mul_add, 4, [a, b, c], [out1, out2]), jacobian_fd(mul_add, 4, [a, b, c], [out1, out2], eps=1e-6)):
        assert sorted(jac) == [(i, o) for i in range(3) for o in range(2)]
        assert all(isinstance(j, wp.array) and j.dtype is wp.float64 and j.shape == (4, 4) for j in jac.values())
        expected = {(0, 0): bv, (1, 0): av, (2, 0): np.ones(4), (0, 1): np.cos(av) * cv, (1, 1): np.zeros(4),
                    (2, 1): np.sin(av)}
        for key, diagonal in expected.items():
            np.testing.assert_allclose(jac[key].numpy(), np.diag(diagonal), atol=1e-7, err_msg=str(key))
    np.testing.assert_array_equal(a.numpy(), av)  # inputs untouched
    assert not a.grad.numpy().any()  # and the user's gradients too (private buffers)


def test_masks_limits_and_vector_inputs():
    a, b, c, out1, out2 = _arrays()
    jac = jacobian(mul_add, 4, [a, b, c], [out1, out2], input_output_mask=[("a", "out2"), (2, 0)],
                   max_outputs_per_var=3)
    assert sorted(jac) == [(0, 1), (2, 0)]
    assert np.isnan(jac[(0, 1)].numpy()[3:]).all() and not np.isnan(jac[(0, 1)].numpy()[:3]).any()
    fd = jacobian_fd(mul_add, 4, [a, b, c], [out1, out2], input_output_mask=[(1, "out1")], max_inputs_per_var=2)
    assert sorted(fd) == [(1, 0)] and np.isnan(fd[(1, 0)].numpy()[:, 2:]).all()
    with pytest.raises(ValueError, match="input_output_mask names input 'z', but the inputs are a, b, c"):
        jacobian(mul_add, 4, [a, b, c], [out1, out2], input_output_mask=[("z", 0)])

    v = wp.array(np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]), dtype=wp.vec3d, requires_grad=True)
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    jac = jacobian(vec_norms, 2, [v, 2.0], [out])  # a scalar input takes no part
    expected = np.zeros((2, 6))
    expected[0, :3] = 2.0 * np.array([1.0, 2.0, 2.0]) / 3.0
    expected[1, 3:] = 2.0 * np.array([0.0, 3.0, 4.0]) / 5.0
    np.testing.assert_allclose(jac[(0, 0)].numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(jacobian_fd(vec_norms, 2, [v, 2.0], [out], eps=1e-6)[(0, 0)].numpy(), expected,
                               atol=1e-6)


def test_gradcheck_passes_fails_and_explains():
    a, b, c, out1, out2 = _arrays()
    assert gradcheck(mul_add, 4, [a, b, c], [out1, out2], eps=1e-6, atol=1e-6, rtol=1e-5, show_summary=False) is True
    x = wp.array(np.array([1.0, 2.0], np.float32), requires_grad=True)
    y = wp.zeros_like(x)
    assert gradcheck(wrong_kernel, 2, [x], [y], raise_exception=False, show_summary=False) is False
    with pytest.raises(ValueError, match=r"gradcheck of \S*wrong_kernel FAILED"):
        gradcheck(wrong_kernel, 2, [x], [y], show_summary=False)
    report = gradcheck_report(wrong_kernel, 2, [x], [y], raise_exception=False)
    _err, iname, ie, oname, oe, ad, fd = report.worst[0]
    assert (iname, ie, oname, oe) == ("a", 1, "out", 1) and ad == pytest.approx(6.0) and fd == pytest.approx(4.0, 1e-2)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        gradcheck(wrong_kernel, 2, [x], [y], raise_exception=False)  # show_summary defaults to True
    assert "FAIL" in printed.getvalue() and "a " in printed.getvalue()


def test_backward_disabled_kernels_refuse_jacobian_but_not_finite_differences():
    x = wp.array(np.array([1.0, 2.0], np.float32), requires_grad=True)
    y = wp.zeros_like(x)
    with pytest.raises(ValueError, match="Kernel must have backward pass enabled to compute Jacobians: kernel "
                                         r"`\S*forward_only`"):
        jacobian(forward_only, 2, [x], [y])
    np.testing.assert_allclose(jacobian_fd(forward_only, 2, [x], [y])[(0, 0)].numpy(), 3.0 * np.eye(2), rtol=1e-3)

    def pipeline(a):
        out = wp.zeros_like(a)
        wp.launch(forward_only, 2, inputs=[a], outputs=[out])
        return out

    with pytest.raises(ValueError, match="Kernel must have backward pass enabled"):
        jacobian(pipeline, inputs=[x])


def test_functions_are_differentiated_at_their_inputs_which_come_back_unchanged():
    x = wp.array(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)

    def mutating(v):  # y = (v + 1)^3, and v is changed in place
        wp.launch(increment, 3, inputs=[v])
        out = wp.zeros_like(v)
        wp.launch(cube, 3, inputs=[v], outputs=[out])
        return out

    expected = np.diag(3.0 * (np.array([1.0, 2.0, 3.0]) + 1.0) ** 2)
    np.testing.assert_allclose(jacobian(mutating, inputs=[x])[(0, 0)].numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(jacobian_fd(mutating, inputs=[x], eps=1e-3)[(0, 0)].numpy(), expected, rtol=1e-3)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    assert gradcheck(mutating, inputs=[x], show_summary=False)
    assert not gradcheck(mutating, inputs=[x], restore_inputs=False, raise_exception=False, show_summary=False)

    def fails(v):
        wp.launch(increment, 3, inputs=[v])
        raise RuntimeError("boom")

    for fn in (jacobian, jacobian_fd):
        x = wp.array(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
        with pytest.raises(RuntimeError, match="boom"):
            fn(fails, inputs=[x])
        np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])

    with pytest.raises(ValueError, match="must return a wp.array or a list of them"):
        jacobian(lambda v: None, inputs=[x])


def test_gradcheck_tape_checks_each_recorded_kernel():
    x = wp.array(np.array([1.0, 2.0], np.float32), requires_grad=True)
    y, z, w = (wp.zeros_like(x) for _ in range(3))
    with wp.Tape() as tape:
        wp.launch(cube, 2, inputs=[x], outputs=[y])
        wp.launch(forward_only, 2, inputs=[y], outputs=[z])  # skipped: no backward pass
    assert gradcheck_tape(tape, show_summary=False)
    with wp.Tape() as tape:
        wp.launch(cube, 2, inputs=[x], outputs=[y])
        wp.launch(wrong_kernel, 2, inputs=[y], outputs=[w])
    assert not gradcheck_tape(tape, raise_exception=False, show_summary=False)
    assert gradcheck_tape(tape, blacklist_kernels=[wrong_kernel], show_summary=False)
    with pytest.raises(ValueError, match=r"gradcheck_tape: the gradients of `\S*wrong_kernel` do not match"):
        gradcheck_tape(tape, show_summary=False)


def test_jacobian_plot_layout_labels_and_validation():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    a, b, c, out1, out2 = _arrays(3)
    jac = jacobian(mul_add, 3, [a, b, c], [out1, out2], input_output_mask=[("c", "out1"), ("a", "out2")])
    fig = jacobian_plot(jac, mul_add, inputs=[a, b, c], show_plot=False)
    assert fig.get_suptitle().endswith("mul_add kernel Jacobian")
    cells = fig.axes[:4]  # rows out1, out2; columns a, c; then the colour bar
    assert len(fig.axes) == 5 and not cells[0].axison and not cells[3].axison
    assert (cells[1].get_xlabel(), cells[1].get_ylabel(), cells[2].get_xlabel(), cells[2].get_ylabel()) == \
        ("c", "out1", "a", "out2")
    assert cells[0].get_gridspec().get_width_ratios() == [3, 3]
    plt.close("all")
    with pytest.raises(ValueError, match="inputs must be provided"):
        jacobian_plot(jac, mul_add)
    assert jacobian_plot({}, FunctionMetadata(key="k"), show_plot=False) is None
    one = {(0, 0): wp.array(np.ones((1, 1)), dtype=float)}
    for metadata, message in (
            (FunctionMetadata(input_labels=[None], output_labels=["y"], input_dtypes=[wp.float32]),
             "Jacobian input index 0: missing label"),
            (FunctionMetadata(input_labels=["x"], output_labels=["y"], input_dtypes=[None]), "missing array dtype"),
            (FunctionMetadata(input_labels=["x"], output_labels=[], input_dtypes=[wp.float32]),
             "Jacobian output index 0")):
        with pytest.raises(ValueError, match=message):
            jacobian_plot(one, metadata, show_plot=False)
    fig = jacobian_plot(one, FunctionMetadata(input_labels=["x"], output_labels=["y"], input_dtypes=[wp.float32]),
                        show_plot=False)
    assert fig.get_suptitle() == "unknown kernel Jacobian"
    plt.close("all")
