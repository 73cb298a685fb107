"""Warp's public API beyond the kernel language, as programs written for Warp use it: generic
kernels and wp.overload, wp.Kernel(func=...) and module options, errors at load time, recorded
launches, slices and star-unpacking in kernels, the in-kernel checks, type queries and device
queries. Values are checked against numpy; messages against what they must say."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp
from tests.support import builtin_cases as bc


@wp.kernel
def generic_scale(a: wp.array(dtype=Any), s: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] * s


def test_generic_kernel_is_typed_per_launch_signature():
    for dtype, s in ((wp.float32, 2.0), (wp.int32, 3), (wp.float64, wp.float64(0.5))):
        a = wp.array(np.arange(4), dtype=dtype)
        out = wp.zeros(4, dtype=dtype)
        wp.launch(generic_scale, dim=4, inputs=[a, s, out])
        np.testing.assert_allclose(out.numpy(), np.arange(4) * float(getattr(s, "value", s)))
    v = wp.array(np.ones((3, 3)), dtype=wp.vec3)
    vout = wp.zeros(3, dtype=wp.vec3)
    wp.launch(generic_scale, dim=3, inputs=[v, 4.0, vout])
    np.testing.assert_allclose(vout.numpy(), np.full((3, 3), 4.0))
    with pytest.raises(TypeError, match="argument `a` is declared array"):
        wp.launch(generic_scale, dim=1, inputs=[1.0, 2.0, out])


@wp.kernel
def generic_fill(a: wp.array(dtype=Any), value: Any):
    a[wp.tid()] = value


fill_int = wp.overload(generic_fill, [wp.array(dtype=int), int])
wp.overload(generic_fill, {"a": wp.array(dtype=wp.vec2), "value": wp.vec2})


@wp.kernel
def generic_sum(a: wp.array(dtype=wp.Float), out: wp.array(dtype=wp.Float)):
    wp.atomic_add(out, 0, a[wp.tid()])


@wp.overload
def generic_sum(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)): ...  # noqa: E704


def test_overloads_by_call_and_by_decorator():
    assert len(generic_fill.overloads) == 2 and len(generic_sum.overloads) == 1
    a = wp.zeros(5, dtype=int)
    wp.launch(fill_int, dim=5, inputs=[a, 7])
    assert a.numpy().tolist() == [7] * 5
    with pytest.raises(TypeError, match="does not fit"):
        wp.overload(generic_sum, [wp.array(dtype=int), wp.array(dtype=int)])
    x = wp.array(np.linspace(0, 1, 11), dtype=wp.float64)
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(generic_sum, dim=11, inputs=[x, out])
    assert out.numpy()[0] == pytest.approx(np.linspace(0, 1, 11).sum())


@wp.func
def twice(v: wp.types.vector(length=Any, dtype=Any)):
    return v + v


@wp.kernel
def use_twice(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec2d)):
    i = wp.tid()
    a[i] = twice(a[i])
    b[i] = twice(b[i])


def test_generic_composite_parameters_of_functions():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    b = wp.array(np.arange(4, dtype=np.float64).reshape(2, 2), dtype=wp.vec2d)
    wp.launch(use_twice, dim=2, inputs=[a, b])
    np.testing.assert_allclose(a.numpy(), 2 * np.arange(6).reshape(2, 3))
    np.testing.assert_allclose(b.numpy(), 2 * np.arange(4).reshape(2, 2))


def _plus_one(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


def test_kernel_objects_modules_and_options():
    k = wp.Kernel(func=_plus_one, key="plus_one_no_grad", options={"enable_backward": False})
    assert k.key == "plus_one_no_grad" and k.options["enable_backward"] is False
    assert k.module is wp.get_module(__name__) and k in k.module.kernels
    x = wp.zeros(3, requires_grad=True)
    assert k.module.load("cpu")
    wp.launch(k, dim=3, inputs=[x])
    assert x.numpy().tolist() == [1, 1, 1]
    with pytest.raises(wp.KernelError, match="enable_backward=False"):
        wp.launch(k, dim=3, inputs=[x], adjoint=True, adj_inputs=[x.grad])
    unique = wp.kernel(_plus_one, module="unique")
    assert unique.module is not k.module and unique.module.kernels == [unique]
    options = wp.get_module_options(unique.module)
    assert options["enable_backward"] is True and options["max_unroll"] == wp.config.max_unroll
    wp.set_module_options({"enable_backward": False}, unique.module)
    assert not unique.backward_enabled


def _make_scaler(factor):
    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] * factor

    return scale


def test_unique_modules_reuse_identical_definitions():
    a, b, c = _make_scaler(2.0), _make_scaler(2.0), _make_scaler(3.0)
    assert a is b and a.module is b.module  # a factory called twice gives one kernel, as in Warp
    assert c is not a and c.module.name != a.module.name  # a different closure value is other code
    x = wp.array([1.0, 2.0], dtype=float)
    wp.launch(c, 2, inputs=[x])
    wp.launch(a, 2, inputs=[x])
    assert x.numpy().tolist() == [6.0, 12.0]


def test_module_options_are_checked_as_warp():
    with pytest.raises(ValueError, match='module="unique"'):
        wp.kernel(_plus_one, module_options={"fast_math": True})
    with pytest.raises(TypeError, match="must be a dict"):
        wp.kernel(_plus_one, module="unique", module_options="fast_math")
    with pytest.raises(ValueError, match="fast_mth.*Valid options"):
        wp.kernel(_plus_one, module="unique", module_options={"fast_mth": True})
    with pytest.raises(TypeError):
        wp.kernel(_plus_one, module="unique", module_options={"deterministic_max_records": 1.5})
    k = wp.kernel(_plus_one, module="unique", module_options={"fast_math": True})
    assert k.module.options["fast_math"] is True and "deterministic" in k.module.options


def test_a_launch_with_new_types_adds_an_overload():
    @wp.kernel(module="unique")
    def double(x: wp.array(dtype=Any)):
        x[wp.tid()] = x[wp.tid()] + x[wp.tid()]

    assert len(double.overloads) == 0
    wp.launch(double, 1, inputs=[wp.ones(1, dtype=wp.float32)])
    first = double.module.get_module_hash()
    wp.launch(double, 1, inputs=[wp.ones(1, dtype=wp.float64)])
    assert len(double.overloads) == 2 and double.module.get_module_hash() != first


BROKEN_MODULE = '''
import warp_nb as wp

@wp.kernel
def good(x: wp.array(dtype=float)):
    x[wp.tid()] = 2.0

@wp.kernel
def bad(x: wp.array(dtype=float)):
    x[wp.tid()] = undefined_name
'''


def test_a_bad_kernel_fails_at_load_not_at_import(tmp_path):
    module = bc.import_source(tmp_path / "mod_bad_kernel.py", BROKEN_MODULE)  # imports despite `bad`
    x = wp.zeros(2)
    wp.launch(module.good, dim=2, inputs=[x])
    assert x.numpy().tolist() == [2, 2]
    with pytest.raises(wp.KernelNameError, match="undefined_name") as info:
        wp.launch(module.bad, dim=2, inputs=[x])
    assert "mod_bad_kernel.py" in str(info.value)


@wp.kernel
def arange_into(out: wp.array(dtype=int), offset: int):
    i = wp.tid()
    out[i] = i + offset


def test_recorded_launch_runs_when_asked_and_can_be_changed():
    out = wp.zeros(8, dtype=int)
    cmd = wp.launch(arange_into, dim=4, inputs=[out, 0], record_cmd=True)
    assert isinstance(cmd, wp.Launch) and not out.numpy().any()  # recorded, not run
    cmd.launch()
    assert out.numpy().tolist() == [0, 1, 2, 3, 0, 0, 0, 0]
    cmd.set_dim(8)
    cmd.set_param_by_name("offset", 10)
    cmd.launch()
    assert out.numpy().tolist() == list(range(10, 18))
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        cmd.set_param_by_name("nope", 1)


@wp.kernel
def slices_and_unpacking(arr: wp.array(dtype=int), out: wp.array(dtype=float)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    out[0] = wp.dot(v[1:], wp.vec3(1.0, 10.0, 100.0))  # 2 + 30 + 400
    out[1] = wp.ddot(m[1:, :2], wp.mat22(1.0, 0.0, 0.0, 1.0))  # 4 + 8
    col = m[:, 2]
    out[2] = col[0] + col[2]  # 3 + 9
    v[::2] = wp.vec2(-1.0, -3.0)
    out[3] = v[0] + v[1] + v[2] + v[3]  # -1 + 2 - 3 + 4
    w = wp.vec4(*v[:3], 10.0)
    out[4] = w[3] + float(wp.max(*arr[1:3]))  # 10 + max(20, 30)
    out[5] = wp.ddot(wp.matrix_from_rows(*m), m)  # sum of squares 1..9


def test_slices_and_star_unpacking_in_kernels():
    out = wp.zeros(6)
    wp.launch(slices_and_unpacking, dim=1, inputs=[wp.array([10, 20, 30], dtype=int), out])
    expected = [432, 12, 12, 2, 40, float(np.sum(np.arange(1, 10) ** 2))]
    np.testing.assert_allclose(out.numpy(), expected)


DYNAMIC_SLICE = '''
import warp_nb as wp

@wp.kernel
def dynamic_slice(out: wp.array(dtype=float), n: int):
    v = wp.vec3(1.0, 2.0, 3.0)
    out[0] = v[0:n][0]
'''


def test_slice_errors_name_the_line(tmp_path):
    module = bc.import_source(tmp_path / "mod_dynamic_slice.py", DYNAMIC_SLICE)
    with pytest.raises(wp.KernelTypeError, match="slice bounds in kernels must be integer constants") as info:
        wp.launch(module.dynamic_slice, dim=1, inputs=[wp.zeros(1), 2])
    assert "line 7" in str(info.value)


CHECKS = '''
import warp_nb as wp

@wp.kernel
def checks(x: wp.array(dtype=float)):
    i = wp.tid()
    wp.expect_eq(x[i], 1.0)
    wp.expect_neq(i, 7)
    wp.expect_near(x[i], 1.0000001)
    wp.expect_near(wp.vec2(x[i], 2.0), wp.vec2(1.0, 2.1), 0.2)
    wp.expect_eq(wp.vec3(x[i]), wp.vec3(1.0, 1.0, 1.0))
'''


def test_in_kernel_checks_print_only_failures(tmp_path, capfd):
    module = bc.import_source(tmp_path / "mod_checks.py", CHECKS)
    wp.launch(module.checks, dim=2, inputs=[wp.ones(2)])
    assert "failed" not in capfd.readouterr().out
    wp.launch(module.checks, dim=1, inputs=[wp.full(1, 3.0)])
    out = capfd.readouterr().out
    assert out.count("Error, expect_eq() failed") == 2 and out.count("Error, expect_near() failed") == 2
    assert "expect_neq" not in out
    wp.expect_eq(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0))  # from Python too
    wp.expect_near(1.0, 1.5, 0.1)
    assert capfd.readouterr().out.count("expect_near() failed") == 1


def test_type_and_device_queries():
    assert wp.dtype_from_numpy(np.float16) is wp.float16 and wp.dtype_to_numpy(wp.uint8) is np.uint8
    with pytest.raises(TypeError, match="cannot convert"):
        wp.dtype_to_numpy(wp.vec3)
    assert wp.types.type_is_vector(wp.vec3) and not wp.types.type_is_vector(wp.mat22)
    assert wp.types.types_equal(float, wp.float32) and wp.types.type_size(wp.mat33) == 9
    assert wp.is_cpu_available() and not wp.get_device("cpu").is_mempool_supported
    assert isinstance(wp.get_cuda_driver_version(), int)
    assert not wp.is_peer_access_supported("cpu", "cpu")
    assert wp._src.types.np_dtype_to_warp_type[np.dtype(np.int16)] is wp.int16


def test_partial_fem_module_and_sparse_kernel_functions():
    import warp_nb.fem as fem
    import warp_nb.sparse as sparse
    assert set(fem.Sample.fields) >= {"element_index", "qp_weight"}
    offsets = np.array([0, 2, 2, 5], np.int32)

    @wp.kernel
    def rows(o: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = sparse.bsr_row_index(o, 3, i)

    out = wp.zeros(6, dtype=int)
    wp.launch(rows, dim=6, inputs=[wp.array(offsets, dtype=int), out])
    expected = [np.searchsorted(offsets, b, side="right") - 1 if b < offsets[-1] else -1 for b in range(6)]
    assert out.numpy().tolist() == expected


@wp.func
def neighbours(q: wp.HashGridQuery) -> int:
    n = int(0)
    for _ in q:  # a query passed to a function, iterated there
        n += 1
    return n


@wp.func
def scaled(field: wp.array(dtype=float), i: int, scale: float = 2.0):
    return field[i] * scale


@wp.func
def double(x: float):
    return 2.0 * x


@wp.kernel
def loops_and_calls(a: int, b: int, s: int, pts: wp.array(dtype=wp.vec3), grid: wp.uint64,
                    field: wp.array(dtype=float), out: wp.array(dtype=float)):
    digits = int(0)
    for i in reversed(range(a, b, s)):
        digits = digits * 10 + i
    out[0] = float(digits)
    acc = float(0.0)
    for x in wp.vec3(1.0, 2.0, 4.0):
        acc += x
    for x in (8.0, 16.0):
        acc += x
    out[1] = acc
    q = wp.hash_grid_query(grid, pts[0], 1.5)
    out[2] = float(neighbours(q))
    out[3] = scaled(field=field, i=1) + scaled(field, 2, scale=10.0)
    f = double
    out[4] = f(3.0)
    out[5] = float((7 - 1) / 4)  # integer division of constants, as the kernel computes it: 1


@pytest.mark.parametrize("a,b,s", [(1, 8, 3), (5, 0, -2), (3, 3, 1), (0, 5, 1), (9, -3, -4)])
def test_loops_over_iterables_and_function_calls(a, b, s):
    pts = wp.array(np.array([[0, 0, 0], [1, 0, 0], [5, 5, 5]], np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(pts, 1.5)
    out = wp.zeros(6)
    wp.launch(loops_and_calls, dim=1, inputs=[a, b, s, pts, grid.id, wp.array([1.0, 2.0, 3.0], dtype=float), out])
    digits = 0
    for i in reversed(range(a, b, s)):
        digits = digits * 10 + i
    near = int(np.sum(np.linalg.norm(pts.numpy() - pts.numpy()[0], axis=1) <= 1.5))
    np.testing.assert_allclose(out.numpy(), [digits, 31.0, near, 4.0 + 30.0, 6.0, 1.0])


def test_python_scope_values_print_and_compute_as_in_warp():
    assert str(wp.vec3(1, 2, 3)) == "[1.0, 2.0, 3.0]" and repr(wp.vec2i(1, 2)) == "vec2i([1, 2])"
    assert repr(wp.vec2d(1, 2)) == "vec2d([float64(1.0), float64(2.0)])"
    assert str(wp.mat22(1, 2, 3, 4)) == "[[1.0, 2.0],\n [3.0, 4.0]]"
    assert [float(v) for v in wp.quath(1, -2, 3, -4) + wp.quath(5, 5, 5, 5)] == [6, 3, 8, 1]
    assert wp.zeros(n=7).shape == (7,) and wp.ones(n=3).shape == (3,) and wp.empty(n=2).shape == (2,)
    with pytest.raises(TypeError, match="unexpected keyword"):
        wp.zeros(size=3)
    assert wp.bfloat16(3.14).value == pytest.approx(3.140625) and wp.dtype_to_numpy(wp.bfloat16) is np.uint16


@wp.func
def pick(x: float):
    return x + 1.0


@wp.func
def pick(x: int):  # noqa: F811  (an overload, as in Warp)
    return x + 2


def test_overloaded_function_called_from_python_picks_by_argument_type():
    assert pick(1.0) == 2.0 and pick(1) == 3


@wp.kernel
def scale_into(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = x[i] * s


def test_graph_capture_records_and_replays():
    x = wp.array(np.arange(8, dtype=np.float32))
    y, z = wp.zeros(8), wp.zeros(8)
    with wp.ScopedCapture() as capture:
        wp.launch(scale_into, dim=8, inputs=[x, y, 3.0])
        wp.copy(z, y)
        x.fill_(1.0)
    assert not y.numpy().any() and x.numpy()[2] == 2.0  # recorded, not run
    wp.capture_launch(capture.graph)
    np.testing.assert_allclose(z.numpy(), np.arange(8) * 3.0)
    assert (x.numpy() == 1.0).all()
    wp.capture_launch(capture.graph)  # replays with the values recorded: x is now ones
    np.testing.assert_allclose(z.numpy(), np.full(8, 3.0))
    with pytest.raises(NotImplementedError, match="non-contiguous"):
        with wp.ScopedCapture():
            x[::2].fill_(0.0)


@wp.kernel
def square_into(input: wp.array(dtype=float), output: wp.array(dtype=float)):
    i = wp.tid()
    output[i] = input[i] * input[i]


def test_launch_objects_made_empty_and_for_the_adjoint():
    out = wp.zeros(6, dtype=int)
    cmd = wp.Launch(arange_into, "cpu")  # empty: arguments zero, set before launching
    cmd.set_dim(3)
    cmd.set_param_by_name("out", out)
    cmd.launch()
    assert out.numpy().tolist() == [0, 1, 2, 0, 0, 0]
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.empty_like(x)
    y.grad.fill_(1.0)
    back = wp.launch(square_into, dim=3, inputs=[x, y], adj_inputs=[None, None], adjoint=True, record_cmd=True)
    assert not x.grad.numpy().any()
    back.launch()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


@wp.func_native("out[tid] = a * x[tid] + y[tid];",
                adj_snippet="adj_a += x[tid] * adj_out[tid]; adj_x[tid] += a * adj_out[tid]; adj_y[tid] += adj_out[tid];")
def native_saxpy(a: wp.float32, x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32),
                 out: wp.array(dtype=wp.float32), tid: int): ...  # noqa: E704


@wp.func_native("return x * x + 1.0f;")
def native_square_plus_one(x: float) -> float: ...  # noqa: E704


@wp.kernel
def use_native(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
               squares: wp.array(dtype=float)):
    tid = wp.tid()
    native_saxpy(a, x, y, out, tid)
    squares[tid] = native_square_plus_one(x[tid])


def test_func_native_runs_cpp_with_its_adjoint():
    n = 5
    xv = np.linspace(-1, 1, n).astype(np.float32)
    x = wp.array(xv, requires_grad=True)
    y = wp.array(np.ones(n, np.float32), requires_grad=True)
    out, squares = wp.zeros(n, requires_grad=True), wp.zeros(n)
    tape = wp.Tape()
    with tape:
        wp.launch(use_native, dim=n, inputs=[3.0, x, y, out, squares])
    np.testing.assert_allclose(out.numpy(), 3.0 * xv + 1.0)
    np.testing.assert_allclose(squares.numpy(), xv * xv + 1.0)
    seed = np.arange(n, dtype=np.float32)
    tape.backward(grads={out: wp.array(seed)})
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * seed)
    np.testing.assert_allclose(y.grad.numpy(), seed)


@wp.func_native("return wp::vec_t<3, wp::float32>(x, 2.0f * x, 3.0f);")
def native_in_warps_namespace(x: float) -> wp.vec3: ...  # noqa: E704


@wp.kernel
def use_warp_namespace(x: wp.array(dtype=float), out: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    out[tid] = native_in_warps_namespace(x[tid])


def test_func_native_may_name_warps_native_namespace():
    """Snippets written against Warp's headers spell its types wp::vec_t<3, wp::float32>: the same
    templates here."""
    out = wp.zeros(2, dtype=wp.vec3)
    wp.launch(use_warp_namespace, dim=2, inputs=[wp.array([1.0, 2.0], dtype=float), out])
    np.testing.assert_allclose(out.numpy(), [[1.0, 2.0, 3.0], [2.0, 4.0, 3.0]])


@wp.kernel
def guarded(arr: wp.array(dtype=int), result: wp.array(dtype=int)):
    tid = wp.tid()
    if arr and arr[tid] == 0:  # `and` short-circuits: a None array is never read
        result[tid] = -1
    elif not arr:
        result[tid] = 2
    else:
        result[tid] = 1


def test_an_array_is_true_unless_none_was_passed():
    result = wp.zeros(3, dtype=int)
    wp.launch(guarded, dim=3, inputs=[None, result])
    assert result.numpy().tolist() == [2, 2, 2]
    wp.launch(guarded, dim=3, inputs=[wp.array([0, 1, 0], dtype=int), result])
    assert result.numpy().tolist() == [-1, 1, -1]


def test_device_queries_without_a_gpu():
    assert wp.get_device("cpu").max_shared_memory_per_block == 0
    for alias in ("imaginary_device:0", "cpu"):  # nothing is ever mapped, so nothing can be unmapped
        with pytest.raises(RuntimeError, match="cannot unmap"):
            wp.unmap_cuda_device(alias)


@wp.kernel
def _count_down(counter: wp.array(dtype=wp.int32), visits: wp.array(dtype=wp.int32)):
    wp.atomic_sub(counter, 0, 1)
    wp.atomic_add(visits, 0, 1)


def test_captured_conditionals_read_their_condition_on_every_replay():
    counter, visits, flag = wp.zeros(1, dtype=wp.int32), wp.zeros(1, dtype=wp.int32), wp.zeros(1, dtype=wp.int32)

    def body():
        wp.launch(_count_down, 1, inputs=[counter, visits])

    with wp.ScopedCapture() as capture:
        counter.fill_(3)
        wp.capture_while(counter, while_body=body)  # three visits per replay
        wp.capture_if(flag, on_true=body)  # one more visit when flag is set at replay time
    assert visits.numpy()[0] == 0  # recorded, not run
    wp.capture_launch(capture.graph)
    flag.fill_(1)
    wp.capture_launch(capture.graph)
    assert visits.numpy()[0] == 3 + 4
    with wp.ScopedCapture(), pytest.raises(NotImplementedError):
        wp.zeros(4)[wp.array([0, 2], dtype=wp.int32)].fill_(1)


def test_cpu_kernel_cache_key_follows_the_instruction_set():
    native, generic = wp.get_cpu_kernel_cache_key("-march=native"), wp.get_cpu_kernel_cache_key("")
    assert native != generic and native.startswith(f"{wp.config.version}-")
    assert wp.get_cpu_kernel_cache_key("-march=native -mllvm=-inline-threshold=3000") == native  # not the ISA


def test_builtin_keyword_names_and_kernel_names_as_warp():
    """wp.pow(x=..., y=...) takes Warp's parameter names in any order; a kernel name that is no
    C++ identifier is refused when the kernel is declared."""

    @wp.kernel(module="unique")
    def powers(out: wp.array(dtype=float)):
        out[0] = wp.pow(x=2.0, y=4.0)
        out[1] = wp.pow(2.0, y=3.0)
        out[2] = wp.pow(y=0.5, x=9.0)

    out = wp.zeros(3, dtype=float)
    wp.launch(powers, 1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [16.0, 8.0, 3.0])
    with pytest.raises(ValueError, match="valid C\\+\\+ identifier"):
        @wp.kernel(module="unique", name="1invalid")
        def invalid_named_kernel():
            return


def test_launch_array_access_modes_are_warps():
    """wp.config.LaunchArrayAccessMode is Warp's IntEnum (RELAXED 0, CHECKED 1, STRICT 2, RELAXED by
    default); Warp's tests iterate over it and launch under each mode."""
    modes = wp.config.LaunchArrayAccessMode
    assert [(m.name, int(m)) for m in modes] == [("RELAXED", 0), ("CHECKED", 1), ("STRICT", 2)]
    assert wp.config.launch_array_access_mode is modes.RELAXED

    @wp.kernel(module="unique")
    def double(a: wp.array(dtype=float)):
        a[wp.tid()] *= 2.0

    saved = wp.config.launch_array_access_mode
    try:
        a = wp.array(np.arange(4, dtype=np.float32))
        for mode in modes:
            wp.config.launch_array_access_mode = mode
            wp.launch(double, 4, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), np.arange(4, dtype=np.float32) * 8)
    finally:
        wp.config.launch_array_access_mode = saved


def test_print_diagnostics_reports_versions_settings_and_devices(capsys):
    """wp.print_diagnostics(): Warp's keys, the values of this installation (numpy's and Python's own
    version strings are the oracle), the CPU first among the devices."""
    import sys as _sys

    info = wp.print_diagnostics()
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "Software"
    assert info["warp_python"] == wp.config.version and info["numpy"] == np.__version__
    assert info["python"] == _sys.version.split()[0]
    assert info["devices"][0]["alias"] == "cpu" and isinstance(info["debug"], bool)
    major, minor, patch = map(int, info["nanovdb"].split("."))
    from warp_nb.geometry.nvdb import _GRID_VERSION
    assert (major << 21) | (minor << 10) | patch == _GRID_VERSION


@wp.func_native(snippet="WP_TILE_SYNC();")
def native_block_barrier(): ...  # noqa: E704


@wp.kernel
def use_block_barrier(out: wp.array(dtype=int)):
    i = wp.tid()
    native_block_barrier()  # as MuJoCo Warp's solver writes its __syncthreads()
    out[i] = i + 1


def test_func_native_may_call_warps_block_barrier():
    out = wp.zeros(3, dtype=int)
    wp.launch_tiled(use_block_barrier, dim=[3], inputs=[out], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3])
