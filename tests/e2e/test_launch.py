"""launch: argument checking (a TypeError naming the parameter), dims, devices, and the
isolation of kernels that fail to compile."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.struct
class Coeffs:
    a: float
    b: wp.vec3


@wp.kernel
def many_args(x: wp.array(dtype=float), s: float, n: int, v: wp.vec3, c: Coeffs, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = v * (x[i] * s + float(n)) + c.b * c.a


def test_all_argument_kinds():
    x = wp.array(np.arange(4, dtype=np.float32))
    out = wp.zeros(4, dtype=wp.vec3)
    c = Coeffs(a=2.0, b=wp.vec3(1.0, 0.0, 0.0))
    wp.launch(many_args, dim=4, inputs=[x, 0.5, 3, wp.vec3(1.0, 2.0, 3.0), c], outputs=[out])
    expected = (np.arange(4) * 0.5 + 3)[:, None] * np.array([1, 2, 3]) + np.array([2, 0, 0])
    assert np.allclose(out.numpy(), expected)
    # tuples for vectors and numpy scalars for scalars are accepted
    wp.launch(many_args, dim=4, inputs=[x, np.float32(0.5), np.int64(3), (1.0, 2.0, 3.0), c, out])
    assert np.allclose(out.numpy(), expected)


@pytest.mark.parametrize("position, value, words", [
    (0, [0.0] * 4, ("argument `x` (position 1) expects an array of type array(ndim=1, dtype=float32), but passed "
                    "value has type list (wrap it")),
    (0, np.zeros((4, 2), np.float32), "got array(dtype=float32, ndim=2)"),  # numpy arrays are taken in place
    (0, wp.zeros(4, dtype=wp.vec3), "got array(dtype=vec3f, ndim=1)"),
    (0, wp.zeros((2, 2)), "got array(dtype=float32, ndim=2)"),
    (1, "fast", "argument `s` (position 2) expects float32, got str"),
    (2, 1.5, "argument `n` (position 3) expects int32, got float"),
    (2, 2 ** 40, "does not fit in int32"),
    (3, (1.0, 2.0), "argument `v` (position 4) expects vec3f"),
    (4, wp.vec3(), "argument `c` (position 5) expects a Coeffs instance"),
])
def test_bad_arguments_name_the_parameter(position, value, words):
    args = [wp.zeros(4), 1.0, 1, wp.vec3(), Coeffs(), wp.zeros(4, dtype=wp.vec3)]
    args[position] = value
    with pytest.raises(TypeError) as info:
        wp.launch(many_args, dim=4, inputs=args)
    assert words in str(info.value), str(info.value)
    assert "many_args" in str(info.value)


def test_wrong_argument_count_and_non_kernels():
    with pytest.raises(TypeError, match="got 2 arguments but the kernel takes 6"):
        wp.launch(many_args, dim=1, inputs=[wp.zeros(1), 1.0])
    with pytest.raises(TypeError, match="expects a kernel"):
        wp.launch(lambda: None, dim=1, inputs=[])
    with pytest.raises(TypeError, match="cannot be called directly"):
        many_args(1)


def test_bad_dims_and_devices():
    a = wp.zeros(4)
    args = [a, 1.0, 1, wp.vec3(), Coeffs(), wp.zeros(4, dtype=wp.vec3)]
    with pytest.raises(ValueError, match="launch dim"):
        wp.launch(many_args, dim=(1, 2, 3, 4, 5), inputs=args)
    with pytest.raises(ValueError, match="launch dim"):
        wp.launch(many_args, dim=-1, inputs=args)
    with pytest.raises(wp.DeviceError, match="not available"):
        wp.launch(many_args, dim=4, inputs=args, device="cuda:0")
    with pytest.raises(wp.DeviceError, match="not a device name"):
        wp.launch(many_args, dim=4, inputs=args, device="tpu")
    # probed in warp-lang 1.19: ValueError for a device it does not have ("cuda:7", "bogus": Invalid device
    # identifier, from get_device, wp.zeros, set_device and ScopedDevice), RuntimeError for "cuda" without a GPU
    for bad in (lambda: wp.get_device("cuda:99"), lambda: wp.zeros(3, device="bogus"), lambda: wp.set_device("cuda:99"),
                lambda: wp.ScopedDevice("cuda:99").__enter__()):
        with pytest.raises(ValueError, match="not available|not a device name"):
            bad()
    if not wp.get_cuda_device_count():
        with pytest.raises(RuntimeError):
            wp.get_device("cuda")
    wp.launch(many_args, dim=0, inputs=args)  # an empty launch is fine and does nothing


def test_dims_given_as_lists_arrays_and_numpy_integers():
    for dim in ([3, 4], np.array([3, 4]), (np.int64(3), np.int32(4))):
        out = wp.zeros((3, 4), dtype=int)
        wp.launch(grid2, dim=dim, inputs=[out])
        np.testing.assert_array_equal(out.numpy(), 100 * np.arange(3)[:, None] + np.arange(4)[None, :])
    ones = wp.zeros(5, dtype=int)
    wp.launch(grid1, dim=np.int64(5), inputs=[ones])
    np.testing.assert_array_equal(ones.numpy(), np.arange(5))
    with pytest.raises(ValueError, match="launch dim"):
        wp.launch(grid2, dim=[1, 2, 3, 4, 5], inputs=[wp.zeros((3, 4), dtype=int)])


@wp.kernel
def grid1(out: wp.array(dtype=int)):
    out[wp.tid()] = wp.tid()


@wp.kernel
def grid2(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j


def test_a_tuple_tid_in_a_launch_of_fewer_dimensions_reads_0_for_the_missing_ones():
    out = wp.zeros((3, 5), dtype=int)
    wp.launch(grid2, dim=(3, 5), inputs=[out])
    assert (out.numpy() == np.add.outer(np.arange(3) * 100, np.arange(5))).all()
    out.zero_()
    wp.launch(grid2, dim=3, inputs=[out])  # as Warp: (i, 0)
    expected = np.zeros((3, 5), dtype=int)
    expected[:, 0] = np.arange(3) * 100
    np.testing.assert_array_equal(out.numpy(), expected)


@wp.kernel
def count_leading(counts: wp.array(dtype=int), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1)
    total[0] += float(i)  # a privatised reduction: the entry point's accumulator loop


@pytest.mark.parametrize("mode", ["checked", "release"])
@pytest.mark.parametrize("dim", [(3, 2), (4, 3, 2), (2, 1, 5, 3), (5,), (0, 7)])
def test_a_scalar_tid_in_a_launch_of_more_dimensions_is_the_leading_index(mode, dim):
    """Warp: "if fewer indices are requested than the launch dimensionality, only the leading
    indices are returned"; each leading index runs once per combination of the trailing ones."""
    from tests.support.helpers import launch_in_mode

    counts = wp.zeros(8, dtype=int, device="cpu")
    total = wp.zeros(1, dtype=float, device="cpu")
    launch_in_mode(count_leading, mode, dim, [counts, total])
    trailing = int(np.prod(dim[1:]))
    expected = np.zeros(8, dtype=int)
    expected[:dim[0]] = trailing
    np.testing.assert_array_equal(counts.numpy(), expected)
    assert total.numpy()[0] == trailing * sum(range(dim[0]))
    recorded = wp.launch(count_leading, dim=dim, inputs=[counts, total], device="cpu", record_cmd=True)
    counts.zero_()
    recorded.launch()
    np.testing.assert_array_equal(counts.numpy(), expected)


def test_a_broken_kernel_does_not_break_its_neighbours(tmp_path):
    import importlib.util
    import sys
    path = tmp_path / "neighbours_mod.py"
    path.write_text(
        "import warp_nb as wp\n\n"
        "@wp.kernel\n"
        "def good(a: wp.array(dtype=float)):\n"
        "    a[wp.tid()] = 1.0\n\n"
        "@wp.kernel\n"
        "def bad(a: wp.array(dtype=float)):\n"
        "    a[wp.tid()] = undefined_thing\n\n"
        "@wp.kernel\n"
        "def also_good(a: wp.array(dtype=float)):\n"
        "    a[wp.tid()] = 2.0\n")
    spec = importlib.util.spec_from_file_location("neighbours_mod", path)
    m = importlib.util.module_from_spec(spec)
    sys.modules["neighbours_mod"] = m
    spec.loader.exec_module(m)
    a = wp.zeros(3)
    with pytest.raises(wp.KernelNameError) as info:
        wp.launch(m.bad, dim=3, inputs=[a])
    assert "neighbours_mod.py, line 9" in str(info.value) and "undefined_thing" in str(info.value)
    wp.launch(m.good, dim=3, inputs=[a])
    assert a.numpy().tolist() == [1.0, 1.0, 1.0]
    wp.launch(m.also_good, dim=3, inputs=[a])
    assert a.numpy().tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(wp.KernelNameError):  # still reported on every launch, not a stale success
        wp.launch(m.bad, dim=3, inputs=[a])


@wp.kernel
def reads_past_end(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i + 2]


def test_debug_mode_turns_out_of_bounds_into_index_error():
    a, out = wp.zeros(4), wp.zeros(4)
    old = wp.config.mode
    wp.config.mode = "debug"
    try:
        with pytest.raises(IndexError) as info:
            wp.launch(reads_past_end, dim=4, inputs=[a, out])
        message = str(info.value)
        assert "out of bounds for axis 0 of array `a` with size 4" in message
        assert "reads_past_end" in message and "test_launch.py, line" in message and "a[i + 2]" in message
        assert "index 4" in message or "index 5" in message
        # the process is still usable, and a correct launch passes
        wp.launch(reads_past_end, dim=2, inputs=[a, out])
    finally:
        wp.config.mode = old


@wp.kernel
def asserts_positive(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] >= 0.0


def test_debug_mode_asserts():
    old = wp.config.mode
    wp.config.mode = "debug"
    try:
        wp.launch(asserts_positive, dim=3, inputs=[wp.ones(3)])
        with pytest.raises(AssertionError, match="assertion failed"):
            wp.launch(asserts_positive, dim=3, inputs=[wp.full(3, -1.0)])
    finally:
        wp.config.mode = old
    wp.launch(asserts_positive, dim=3, inputs=[wp.full(3, -1.0)])  # release mode: asserts are not compiled


@wp.kernel
def vec_param(v: wp.vec3, out: wp.array(dtype=wp.vec3)):
    out[0] = v


def test_a_single_number_for_a_vector_parameter():
    out = wp.zeros(1, dtype=wp.vec3)
    for value in (2, 1.5, wp.float32(1.5)):  # refused, as Warp 1.19: usually a mistake
        with pytest.raises(RuntimeError, match=r"argument 'v' expects vec3f but got a single value"):
            wp.launch(vec_param, 1, inputs=[value, out])
    with pytest.warns(DeprecationWarning, match="`float32`.*`vec3f`.*'v'.*deprecated"):
        wp.launch(vec_param, 1, inputs=[np.float32(2.5), out])  # numpy numbers still fill the vector
    np.testing.assert_array_equal(out.numpy()[0], [2.5, 2.5, 2.5])
    with pytest.raises(RuntimeError, match="argument 'c' expects Coeffs but got None"):
        wp.launch(many_args, 1, inputs=[None, 0.0, 0, wp.vec3(), None, out])
    cmd = wp.Launch(vec_param, wp.get_device())
    with pytest.raises(RuntimeError, match="expects vec3f but got a single value"):
        cmd.set_param_by_name("v", 3)


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_recorded_adjoint_launch_takes_gradients_by_name():
    x = wp.array([1.0, 2.0, 3.0], dtype=float)
    y = wp.empty_like(x)
    x_grad, y_grad = wp.zeros_like(x), wp.full_like(x, 2.0)
    cmd = wp.Launch(square, wp.get_device(), adjoint=True)
    cmd.set_param_by_name("x", x)
    cmd.set_param_by_name("y", y)
    cmd.set_param_by_name("x", x_grad, adjoint=True)
    cmd.set_param_by_name("y", y_grad, adjoint=True)
    cmd.set_dim(3)
    cmd.launch()
    np.testing.assert_allclose(x_grad.numpy(), 2.0 * 2.0 * x.numpy())  # d(x^2)/dx times the seed 2


@wp.kernel
def add_one(x: wp.array(dtype=float)):
    x[wp.tid()] += 1.0


def test_numpy_arrays_are_launched_in_place_on_the_cpu():
    values = np.arange(4, dtype=np.float32)
    wp.launch(add_one, 4, inputs=[values])
    np.testing.assert_array_equal(values, np.arange(1, 5))


def test_recorded_launch_takes_arguments_in_their_c_form():
    out = wp.zeros(1, dtype=wp.vec3)
    cmd = wp.launch(many_args, dim=1, inputs=[wp.zeros(1), 0.0, 0, wp.vec3(), Coeffs()], outputs=[out],
                    record_cmd=True)
    x, c = wp.array([2.0], dtype=float), Coeffs(a=1.0, b=wp.vec3(0.0, 1.0, 0.0))
    cmd.set_param_at_index_from_ctype(0, x.__ctype__())
    cmd.set_param_at_index_from_ctype(1, 3.0)
    cmd.set_param_at_index_from_ctype(3, wp.vec3(1.0, 1.0, 1.0))
    cmd.set_param_by_name_from_ctype("c", c.__ctype__())
    cmd.launch()
    np.testing.assert_allclose(out.numpy()[0], [6.0, 7.0, 6.0])  # v * (x * s + n) + c.b * c.a


def test_launch_errors_teach_without_burying_the_message():
    """A wrong dtype says how to convert; a float for an int parameter is one clean error (no
    chained 'During handling of the above exception'), raised from wp.launch, not from the
    packer's internals."""
    import traceback

    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float), n: int):
        i = wp.tid()
        x[i] = x[i] * float(n)

    with pytest.raises(TypeError, match=r"convert it \(wp.array\(a.numpy\(\), dtype=wp.float32\)") as info:
        wp.launch(scale, 4, inputs=[wp.zeros(4, dtype=wp.float64), 2])
    assert "wp.array(dtype=wp.float64)" in str(info.value)
    with pytest.raises(TypeError, match="reshape it") as info:
        wp.launch(scale, 4, inputs=[wp.zeros((2, 2), dtype=float), 2])
    with pytest.raises(TypeError, match="pass an int") as info:
        wp.launch(scale, 4, inputs=[wp.zeros(4, dtype=float), 2.5])
    assert info.value.__cause__ is None and info.value.__suppress_context__
    frames = traceback.extract_tb(info.value.__traceback__)
    assert [f.name for f in frames][-1] == "launch"  # nothing below wp.launch


@wp.kernel
def copy_composites(v: wp.vec3, q: wp.quat, t: wp.transform, out: wp.array(dtype=float)):
    for k in range(3):
        out[k] = v[k]
    for k in range(4):
        out[3 + k] = q[k]
    for k in range(7):
        out[7 + k] = t[k]


def test_a_launch_command_zeroes_unset_composite_arguments():
    """As Warp: the bits of an unset argument are zero (a transform's too, not the identity)."""
    out = wp.full(14, -1.0, dtype=float)
    cmd = wp.Launch(copy_composites, "cpu")
    cmd.set_param_by_name("out", out)
    cmd.set_dim(1)
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), np.zeros(14))


@wp.kernel
def scaled_if(flag: bool, a: float, x: wp.array(dtype=float)):
    i = wp.tid()
    if flag:
        x[i] = a * x[i]


@pytest.mark.parametrize("value", ["2.0", None, [2.0], b"2", 2.0j])
def test_scalar_parameters_refuse_what_is_not_a_number(value):
    """Warp refuses a string, None or a list for a scalar parameter; silently converting "2.0" or
    packing None as NaN would hide the mistake (lab 01's try-it-yourself promises the error)."""
    x = wp.ones(4)
    with pytest.raises(TypeError, match=r"argument `a` \(position 2\) expects float32, got .*: pass a number") as info:
        wp.launch(scaled_if, dim=4, inputs=[True, value, x])
    assert isinstance(info.value, RuntimeError)  # Warp raises a RuntimeError: both kinds are caught
    np.testing.assert_array_equal(x.numpy(), 1.0)  # nothing ran


@pytest.mark.parametrize("flag", ["no", None, 0.5j])
def test_bool_parameters_refuse_what_is_not_a_number(flag):
    with pytest.raises(TypeError, match=r"argument `flag` \(position 1\) expects bool, got .*: pass a number"):
        wp.launch(scaled_if, dim=4, inputs=[flag, 2.0, wp.ones(4)])


def test_scalar_parameters_take_python_and_numpy_numbers():
    x = wp.ones(3)
    for flag, a in ((True, 2), (np.bool_(True), np.float64(2.0)), (1, np.float32(2.0))):
        wp.launch(scaled_if, dim=3, inputs=[flag, a, x])
    np.testing.assert_array_equal(x.numpy(), 8.0)


def test_print_launches_says_each_launch_through_the_logger():
    class Capture:
        def __init__(self):
            self.infos = []

        def debug(self, message):
            pass

        def info(self, message):
            self.infos.append(message)

        def warning(self, message, category=None, stacklevel=1):
            pass

        def error(self, message):
            pass

    @wp.kernel(module="unique")
    def said(a: wp.array(dtype=float), s: float):
        pass

    logger, saved = Capture(), wp.get_logger()
    a = wp.zeros(3, device="cpu")
    try:
        wp.set_logger(logger)
        wp.config.print_launches = True
        wp.launch(said, dim=(2, 3), inputs=[a], outputs=[1.5], device="cpu")
        wp.launch(said, dim=0, inputs=[a, 2.0], device="cpu")
        wp.config.print_launches = False
        wp.launch(said, dim=1, inputs=[a, 2.0], device="cpu")
    finally:
        wp.config.print_launches = False
        wp.set_logger(saved)
    # Warp 1.19's words
    assert logger.infos == [
        "kernel: " + said.key + " dim: (2, 3) inputs: [array(shape=(3,), dtype=float32)] outputs: [1.5] device: cpu",
        "kernel: " + said.key + " dim: 0 inputs: [array(shape=(3,), dtype=float32), 2.0] outputs: [] device: cpu"]


def test_from_ptr_is_a_deprecated_view():
    a = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    with pytest.warns(DeprecationWarning, match=r"wp\.from_ptr\(\) is deprecated"):
        view = wp.from_ptr(a.ptr, 3, dtype=wp.float32, device="cpu")
    np.testing.assert_array_equal(view.numpy(), [1.0, 2.0, 3.0])


def test_an_adjoint_launch_command_shows_zero_adjoints_of_unset_values():
    @wp.kernel(module="unique")
    def k(v: wp.vec3, s: float, out: wp.array(dtype=float)):
        out[0] = v[0] + s

    cmd = wp.Launch(k, "cpu", adjoint=True)
    adjoints = cmd.params[1 + 3:]  # (the bounds, the 3 arguments, then their adjoints, as Warp's)
    assert list(adjoints[0]) == [0.0, 0.0, 0.0] and float(adjoints[1]) == 0.0 and adjoints[2] is None
