"""Public names of warp-lang 1.19 that warp_nb lacked until a sweep of `dir(warp)`: the logical
constants, wp.unot, wp.quat_between_vectors beyond the registry's generic tests, the capture mode
and DOT export, and the CUDA-only entry points, which answer or refuse clearly on this machine."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def test_logarithm_constants_from_python_and_in_kernels():
    assert (wp.LN2, wp.LN10, wp.LOG2E, wp.LOG10E) == (math.log(2), math.log(10), 1 / math.log(2), 1 / math.log(10))

    @wp.kernel
    def constants(out: wp.array(dtype=wp.float64)):
        out[0] = wp.float64(wp.LN2)
        out[1] = wp.float64(wp.LN10)
        out[2] = wp.float64(wp.LOG2E)
        out[3] = wp.float64(wp.LOG10E)

    out = wp.zeros(4, dtype=wp.float64)
    wp.launch(constants, 1, [out])
    np.testing.assert_allclose(out.numpy(), [math.log(2), math.log(10), math.log2(math.e), math.log10(math.e)],
                               rtol=1e-15)


def test_unot_is_not_for_numbers_bools_and_arrays():
    @wp.kernel
    def negations(x: wp.array(dtype=wp.float32), flags: wp.array(dtype=wp.bool), maybe: wp.array(dtype=wp.float32),
                  out: wp.array(dtype=wp.int32, ndim=2)):
        i = wp.tid()
        out[i, 0] = wp.where(wp.unot(x[i]), 1, 0)
        out[i, 1] = wp.where(wp.unot(flags[i]), 1, 0)
        out[i, 2] = wp.where(wp.unot(i), 1, 0)
        out[i, 3] = wp.where(wp.unot(maybe), 1, 0)

    x = np.array([0.0, -0.0, 2.5, -1.0], np.float32)
    flags = np.array([True, False, False, True])
    out = wp.zeros((4, 4), dtype=wp.int32)
    for maybe in (None, wp.zeros(1, dtype=wp.float32)):
        wp.launch(negations, 4, [wp.array(x), wp.array(flags, dtype=wp.bool), maybe, out])
        expected = np.stack([x == 0, ~flags, np.arange(4) == 0, np.full(4, maybe is None)], axis=1)
        np.testing.assert_array_equal(out.numpy(), expected.astype(np.int32))
    assert wp.unot(0) is True and wp.unot(2.5) is False and wp.unot(False) is True


def test_unot_takes_one_value():
    @wp.kernel
    def two(out: wp.array(dtype=wp.bool)):
        out[0] = wp.unot(1, 2)

    with pytest.raises(wp.KernelTypeError, match=r"wp.unot\(a\) takes one value"):
        wp.launch(two, 1, [wp.zeros(1, dtype=wp.bool)])


def test_quat_between_vectors_rotates_a_onto_b_and_keeps_w_non_negative():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(64, 3)) * rng.uniform(0.1, 10, (64, 1)), rng.normal(size=(64, 3))
    a[0], b[0] = (1.0, 2.0, 3.0), (2.0, 4.0, 6.0)  # the same direction: the identity

    @wp.kernel
    def between(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), q: wp.array(dtype=wp.quatd),
                r: wp.array(dtype=wp.vec3d)):
        i = wp.tid()
        q[i] = wp.quat_between_vectors(a[i], b[i])
        r[i] = wp.quat_rotate(q[i], wp.normalize(a[i]))

    q, r = wp.zeros(64, dtype=wp.quatd), wp.zeros(64, dtype=wp.vec3d)
    wp.launch(between, 64, [wp.array(a, dtype=wp.vec3d), wp.array(b, dtype=wp.vec3d), q, r])
    np.testing.assert_allclose(r.numpy(), b / np.linalg.norm(b, axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(q.numpy(), axis=1), 1.0, atol=1e-12)
    assert (q.numpy()[:, 3] >= 0).all()
    np.testing.assert_allclose(q.numpy()[0], [0, 0, 0, 1], atol=1e-15)
    # the rotation angle is the angle between the vectors (shortest arc)
    cos = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(2 * np.arccos(np.clip(q.numpy()[:, 3], -1, 1)), np.arccos(np.clip(cos, -1, 1)),
                               atol=1e-7)
    py = wp.quat_between_vectors(wp.vec3d(*a[5]), wp.vec3d(*b[5]))
    np.testing.assert_allclose(np.array(py), q.numpy()[5], atol=1e-12)


def test_capture_mode_is_checked_and_kept():
    assert [m.name for m in wp.CaptureMode] == ["GLOBAL", "THREAD_LOCAL", "RELAXED"]
    assert [int(m) for m in wp.CaptureMode] == [0, 1, 2]  # cudaStreamCaptureMode's values
    with wp.ScopedCapture(capture_mode=wp.CaptureMode.RELAXED) as capture:
        pass
    assert capture.graph.capture_mode is wp.CaptureMode.RELAXED
    with pytest.raises(TypeError, match="capture_mode must be a wp.CaptureMode"):
        wp.capture_begin(capture_mode="relaxed")
    with pytest.raises(RuntimeError, match="without a wp.capture_begin"):  # the refused begin opened nothing
        wp.capture_end()


def test_capture_debug_dot_print_writes_the_graph_in_replay_order(tmp_path):
    @wp.kernel
    def bump(a: wp.array(dtype=wp.float32), amount: wp.float32):
        a[wp.tid()] += amount

    a, condition = wp.zeros(4, dtype=wp.float32), wp.ones(1, dtype=wp.int32)
    with wp.ScopedCapture() as capture:
        wp.launch(bump, 4, [a, 1.0])
        a.fill_(5.0)
        wp.capture_if(condition, on_true=lambda: wp.launch(bump, 4, [a, 2.0]))
    path = tmp_path / "graph.dot"
    wp.capture_debug_dot_print(capture.graph, str(path))
    text = path.read_text()
    assert text.startswith("digraph") and text.rstrip().endswith("}")
    nodes = [line.split(" [label=")[0].strip() for line in text.splitlines() if "[label=" in line]
    assert nodes == ["n0", "n1", "n2", "n2_on_true_0"]
    assert "n0 -> n1;" in text and "n1 -> n2;" in text and "n2 -> n2_on_true_0 [style=dashed];" in text
    assert text.count("bump\\ndim=4") == 2 and "\\namount" in text and '"fill"' in text
    wp.capture_debug_dot_print(capture.graph, str(path), verbose=False)
    assert "amount" not in path.read_text()
    wp.capture_launch(capture.graph)  # printing changed nothing in the graph
    np.testing.assert_array_equal(a.numpy(), [7.0] * 4)
    with pytest.raises(TypeError, match="expects a graph"):
        wp.capture_debug_dot_print(object(), str(path))


def test_cuda_toolkit_version_is_nvrtcs_or_none():
    version = wp.get_cuda_toolkit_version()
    try:
        from warp_nb.toolchain.nvrtc import nvrtc_version
        expected = tuple(nvrtc_version())
    except Exception:
        expected = None
    assert version == expected
    assert version is None or (isinstance(version, tuple) and len(version) == 2 and version[0] >= 11)


def test_cuda_only_entry_points_answer_or_refuse_on_the_cpu():
    with wp.ScopedPeerAccess("cpu", "cpu", False):  # turning off what is off is allowed
        assert not wp.is_peer_access_enabled("cpu", "cpu")
    with pytest.raises(wp.DeviceError, match="peer access"):
        with wp.ScopedPeerAccess("cpu", "cpu", True):
            pass
    with pytest.raises(RuntimeError, match="external CUDA context"):
        wp.map_cuda_device("mine")
    with pytest.raises(RuntimeError, match="IPC is not supported on device cpu"):
        wp.from_ipc_handle(b"\0" * 64, wp.float32, (4,), device="cpu")
    with pytest.raises(RuntimeError, match="IPC is not supported on device cpu"):
        wp.event_from_ipc_handle(b"\0" * 64, device="cpu")
    wp.clear_jax_callable_graph_cache()  # nothing captured: nothing to drop
    with pytest.raises(TypeError, match="jax_callable"):
        wp.clear_jax_callable_graph_cache(len)


def test_type_ctype_device_like_and_codegen_index_error():
    import ctypes
    assert wp.types.type_ctype(wp.float32) is ctypes.c_float
    assert wp.types.type_ctype(wp.float16) is ctypes.c_uint16
    assert wp.types.type_ctype(wp.vec3) is wp.vec3 and ctypes.sizeof(wp.types.type_ctype(wp.mat33d)) == 72
    assert wp.Device in wp.DeviceLike.__args__ and str in wp.DeviceLike.__args__

    @wp.kernel
    def outside(out: wp.array(dtype=wp.float32)):
        v = wp.vec3(1.0, 2.0, 3.0)
        out[0] = v[3]

    with pytest.raises(wp.WarpCodegenIndexError, match="index 3 is out of range for vec3f") as caught:
        wp.launch(outside, 1, [wp.zeros(1, dtype=wp.float32)])
    assert isinstance(caught.value, IndexError) and isinstance(caught.value, wp.KernelTypeError)
