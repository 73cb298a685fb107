"""wp.config.verify_fp: a NaN or an infinity stored into an array is reported on standard output
(the C runtime's, flushed here as Warp's tests flush it) with the value, the array, the kernel and
the line; finite stores print nothing; the setting changes the compiled code (a kernel compiled
without it reports nothing) and the CUDA build of a checked kernel compiles under NVRTC."""

import ctypes
import dataclasses
import ctypes.util
import re

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

_LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


@pytest.fixture
def verify_fp():
    saved = wp.config.verify_fp
    wp.config.verify_fp = True
    yield
    wp.config.verify_fp = saved


def _output(capfd, run) -> str:
    _LIBC.fflush(None)
    capfd.readouterr()
    run()
    _LIBC.fflush(None)
    return capfd.readouterr().out


@wp.struct
class Slot:
    field: wp.float32


@wp.kernel(enable_backward=False)
def divide(a: wp.array(dtype=float), b: wp.array(dtype=float), d: float):
    i = wp.tid()
    b[i] = a[i] / d


@wp.kernel(enable_backward=False)
def slot_add(s: wp.array(dtype=Slot), x: float):
    s[0].field += x


@wp.kernel(enable_backward=False)
def accumulate(total: wp.array(dtype=float), x: float):
    wp.atomic_add(total, 0, x)


@wp.kernel(enable_backward=False)
def scale_vectors(v: wp.array(dtype=wp.vec3d), s: wp.float64):
    i = wp.tid()
    v[i] = v[i] * s


def test_finite_stores_print_nothing(verify_fp, capfd):
    a, b = wp.full(4, 2.0, dtype=float, device="cpu"), wp.zeros(4, dtype=float, device="cpu")
    out = _output(capfd, lambda: wp.launch(divide, dim=4, inputs=[a, b, 2.0], device="cpu"))
    assert "verify_fp" not in out
    np.testing.assert_array_equal(b.numpy(), np.ones(4, np.float32))


def test_nan_is_reported_with_array_kernel_and_line(verify_fp, capfd):
    a, b = wp.zeros(3, dtype=float, device="cpu"), wp.zeros(3, dtype=float, device="cpu")
    out = _output(capfd, lambda: wp.launch(divide, dim=3, inputs=[a, b, 0.0], device="cpu"))
    lines = [line for line in out.splitlines() if "verify_fp" in line]
    assert len(lines) == 3  # one per thread that stored a NaN
    line = lines[0]
    assert "nan" in line and "array `b`" in line and "`divide`" in line
    assert f"test_verify_fp.py:{divide.func.__code__.co_firstlineno + 3}" in line  # (the decorator's line is the first)
    assert np.isnan(b.numpy()).all()  # reported, not stopped: the values are stored as computed


def test_infinity_in_a_struct_field_and_by_an_atomic(verify_fp, capfd):
    s = wp.array([Slot()], dtype=Slot, device="cpu")
    out = _output(capfd, lambda: wp.launch(slot_add, dim=1, inputs=[s, 3.0e38], device="cpu"))
    assert "verify_fp" not in out  # 3e38 is finite
    out = _output(capfd, lambda: wp.launch(slot_add, dim=1, inputs=[s, 3.0e38], device="cpu"))
    assert "inf" in out and "array `s`" in out
    total = wp.array([3.0e38], dtype=float, device="cpu")
    out = _output(capfd, lambda: wp.launch(accumulate, dim=1, inputs=[total, 3.0e38], device="cpu"))
    assert "inf" in out and "array `total`" in out and "`accumulate`" in out


def test_every_component_of_a_vector_is_shown(verify_fp, capfd):
    v = wp.array([[1.0, 0.0, -1.0]], dtype=wp.vec3d, device="cpu")
    out = _output(capfd, lambda: wp.launch(scale_vectors, dim=1, inputs=[v, np.inf], device="cpu"))
    assert re.search(r"value inf -?nan -inf stored", out)  # (inf * 0 is a NaN whose sign C leaves open)


def test_without_verify_fp_nothing_is_reported(capfd):
    assert not wp.config.verify_fp
    a, b = wp.zeros(2, dtype=float, device="cpu"), wp.zeros(2, dtype=float, device="cpu")
    out = _output(capfd, lambda: wp.launch(divide, dim=2, inputs=[a, b, 0.0], device="cpu"))
    assert "verify_fp" not in out


@pytest.mark.needs_nvrtc
def test_a_checked_kernel_compiles_for_cuda(verify_fp):
    from warp_nb.compiler.pipeline import compile_kernel
    from warp_nb.cuda.target import AotCudaTarget
    from warp_nb.toolchain import nvrtc
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    for k in (divide, slot_add, accumulate, scale_vectors):
        options = k.compile_options()
        assert options.verify_fp
        compiled = compile_kernel(k, list(k.param_types), AotCudaTarget(90, use_ptx=True), options)
        assert "verify_fp: non-finite value" in compiled.unit.source
        debug = dataclasses.replace(options, mode="debug")  # (the check that raises)
        compiled = compile_kernel(k, list(k.param_types), AotCudaTarget(90, use_ptx=True), debug)
        assert ", -2);" in compiled.unit.source


def test_debug_mode_raises_at_the_launch(verify_fp):
    """Debug mode turns the report into a Python error (Warp's debug build asserts): the first
    non-finite store, with its array, thread and line; the process goes on."""
    @wp.kernel(enable_backward=False, module="unique")
    def debug_divide(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2), d: float):
        i = wp.tid()
        b[i] = wp.vec2(1.0, a[i] / d)

    debug_divide.module.options["mode"] = "debug"
    a, b = wp.array([1.0, 0.0], dtype=float, device="cpu"), wp.zeros(2, dtype=wp.vec2, device="cpu")
    wp.launch(debug_divide, dim=2, inputs=[a, b, 2.0], device="cpu")  # finite: no error
    with pytest.raises(FloatingPointError, match=r"NaN or infinity was stored into array `b` at wp.tid\(\) = \d "
                                                 r"\(.*test_verify_fp.py, line \d+, in kernel `.*debug_divide`"):
        wp.launch(debug_divide, dim=2, inputs=[a, b, 0.0], device="cpu")
