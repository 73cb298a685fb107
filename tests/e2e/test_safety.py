"""A notebook that never dies (issue 12): bounds-checked access by default, negative indices that
wrap, redefinitions that recompile, and Warp's min/max/clamp/dot where a fuzzer found differences.
Oracles: numpy (np.fmin / np.fmax for the NaN rules) and Python's own indexing."""

import importlib
import math
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.launch.launcher import launcher_for

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def negate(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = -x[i]


@wp.kernel
def copy_at(x: wp.array(dtype=float), j: int, out: wp.array(dtype=float)):
    out[0] = x[j]


@wp.kernel
def component_at(v: wp.array(dtype=wp.vec3), k: int, m: wp.array(dtype=wp.mat22), r: int, out: wp.array(dtype=float)):
    out[0] = v[0][k]
    out[1] = m[0][r, 0]


# --- bounds checks by default -------------------------------------------------------------------
class _FakeKernelShell:
    kernel = object()  # what an IPython kernel's shell has and a terminal's does not


class _FakeIPython:
    @staticmethod
    def get_ipython():
        return _FakeKernelShell()


@pytest.fixture
def in_jupyter(monkeypatch):
    """This process seen as an IPython kernel (Jupyter), with the default setting."""
    monkeypatch.setitem(sys.modules, "IPython", _FakeIPython)
    monkeypatch.setattr(wp.config, "bounds_check", None)


def test_checks_are_the_default_in_notebooks_and_scripts(in_jupyter, monkeypatch):
    assert copy_at.compile_options().mode == "checked"
    monkeypatch.delitem(sys.modules, "IPython")  # a plain script
    assert copy_at.compile_options().mode == "checked"
    monkeypatch.setattr(wp.config, "bounds_check", False)
    assert copy_at.compile_options().mode == "release"


def test_out_of_bounds_write_raises_in_jupyter_and_process_survives(in_jupyter):
    assert wp.config.mode == "release"
    x = wp.zeros(10)
    for _ in range(3):  # the student's cell, run again and again: never a crash
        with pytest.raises(IndexError) as info:
            wp.launch(negate, dim=20, inputs=[x])
    message = str(info.value)
    assert "index 10 is out of bounds for axis 0 of array `x` with size 10" in message
    assert "negate" in message and "test_safety.py, line" in message and "x[i] = -x[i]" in message
    ok = wp.array(np.arange(10, dtype=np.float32))
    wp.launch(negate, dim=10, inputs=[ok])
    np.testing.assert_array_equal(ok.numpy(), -np.arange(10, dtype=np.float32))


def test_release_mode_turns_checks_off(in_jupyter):
    x = wp.array(np.arange(4, dtype=np.float32))
    out = wp.zeros(1)
    old = wp.config.bounds_check
    wp.config.bounds_check = False
    try:
        launcher = launcher_for(copy_at, "cpu")
        assert launcher.debug_state is None  # no checks compiled in
        wp.launch(copy_at, dim=1, inputs=[x, 3, out])
        assert out.numpy()[0] == 3.0
    finally:
        wp.config.bounds_check = old
    assert launcher_for(copy_at, "cpu").debug_state is not None
    explicit = wp.Kernel(copy_at.func, key="copy_at_release", options={"mode": "release"})
    assert explicit.compile_options().mode == "release"
    assert copy_at.compile_options().mode == "checked"


@pytest.mark.parametrize("check", [True, False])
def test_negative_indices_wrap_in_every_mode(check):
    x = wp.array(np.arange(5, dtype=np.float32) * 10.0)
    out = wp.zeros(1)
    old = wp.config.bounds_check
    wp.config.bounds_check = check
    try:
        for j in (-1, -2, -5, 0, 4):
            wp.launch(copy_at, dim=1, inputs=[x, j, out])
            assert out.numpy()[0] == x.numpy()[j]
        if check:
            for j in (-6, 5):
                with pytest.raises(IndexError, match=f"index {j} is out of bounds"):
                    wp.launch(copy_at, dim=1, inputs=[x, j, out])
    finally:
        wp.config.bounds_check = old


def test_runtime_component_indices_are_checked(in_jupyter):
    v = wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3)
    m = wp.array([wp.mat22(1.0, 2.0, 3.0, 4.0)], dtype=wp.mat22)
    out = wp.zeros(2)
    wp.launch(component_at, dim=1, inputs=[v, -1, m, 1, out])
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0])
    with pytest.raises(IndexError, match="index 3 is out of bounds .* vec3f .* size 3"):
        wp.launch(component_at, dim=1, inputs=[v, 3, m, 0, out])
    with pytest.raises(IndexError, match="index 2 is out of bounds .* size 2"):
        wp.launch(component_at, dim=1, inputs=[v, 0, m, 2, out])


# --- redefinitions recompile the kernels that use them ------------------------------------------
_MODULE = "wpnb_safety_redefined"


def _write_module(tmp_path, body: str):
    (tmp_path / f"{_MODULE}.py").write_text(textwrap.dedent(body))


_TEMPLATE = """
import warp_nb as wp

SCALE = wp.constant({scale})

@wp.struct
class Pair:
    a: float
    b: float

@wp.func
def f(x: float):
    return x + {step}

@wp.func
def g(p: Pair):
    return p.{field}

@wp.kernel
def k(out: wp.array(dtype=float)):
    p = Pair()
    p.a = 10.0
    p.b = 20.0
    out[0] = f(1.0) * SCALE + g(p)
"""


def test_redefined_func_struct_and_constant_recompile(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, _TEMPLATE.format(scale=1.0, step=1.0, field="a"))
    mod = importlib.import_module(_MODULE)
    try:
        kernel = mod.k  # the caller keeps the old kernel object, as a notebook does
        out = wp.zeros(1)
        wp.launch(kernel, dim=1, inputs=[out])
        assert out.numpy()[0] == 2.0 * 1.0 + 10.0
        _write_module(tmp_path, _TEMPLATE.format(scale=3.0, step=2.0, field="b"))
        importlib.reload(mod)
        wp.launch(kernel, dim=1, inputs=[out])
        assert out.numpy()[0] == 3.0 * 3.0 + 20.0
    finally:
        sys.modules.pop(_MODULE, None)


def _run_cell(tmp_path, ns: dict, number: int, source: str) -> None:
    """Run `source` in `ns` as a notebook cell does (a file the source can be read back from)."""
    path = tmp_path / f"cell_{number}.py"
    path.write_text(source)
    exec(compile(source, str(path), "exec"), ns)


def test_redefined_func_in_the_same_namespace(tmp_path):
    ns: dict = {"wp": wp, "__name__": "wpnb_safety_cells"}
    _run_cell(tmp_path, ns, 1, "@wp.func\ndef bump(x: float):\n    return x + 1.0\n")
    _run_cell(tmp_path, ns, 2, "@wp.kernel\ndef use_bump(out: wp.array(dtype=float)):\n    out[0] = bump(0.0)\n")
    out = wp.zeros(1)
    wp.launch(ns["use_bump"], dim=1, inputs=[out])
    assert out.numpy()[0] == 1.0
    _run_cell(tmp_path, ns, 3, "@wp.func\ndef bump(x: float):\n    return x + 2.0\n")  # the cell, edited
    wp.launch(ns["use_bump"], dim=1, inputs=[out])
    assert out.numpy()[0] == 2.0


# --- min / max / clamp with NaN, clamp with lo > hi, dot's signed zero ----------------------------
@wp.kernel
def min_max_clamp(a: wp.array(dtype=float), b: wp.array(dtype=float), lo: wp.array(dtype=float),
                  hi: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    out[i, 0] = wp.min(a[i], b[i])
    out[i, 1] = wp.max(a[i], b[i])
    out[i, 2] = wp.clamp(a[i], lo[i], hi[i])


def test_min_max_clamp_follow_fmin_fmax():
    nan = math.nan
    a = np.array([nan, 1.0, nan, 2.0, 0.5, 5.0, nan, 3.0], dtype=np.float32)
    b = np.array([1.0, nan, nan, -1.0, 0.5, 2.0, 0.0, 0.0], dtype=np.float32)
    lo = np.array([-1.0, 0.0, nan, 1.0, nan, 4.0, 3.0, 1.0], dtype=np.float32)
    hi = np.array([1.0, 2.0, 1.0, -1.0, 0.2, nan, -3.0, 2.0], dtype=np.float32)
    out = wp.zeros((len(a), 3))
    wp.launch(min_max_clamp, dim=len(a), inputs=[wp.array(a), wp.array(b), wp.array(lo), wp.array(hi), out])
    got = out.numpy()
    np.testing.assert_array_equal(got[:, 0], np.fmin(a, b))
    np.testing.assert_array_equal(got[:, 1], np.fmax(a, b))
    np.testing.assert_array_equal(got[:, 2], np.fmin(np.fmax(lo, a), hi))  # lo > hi gives hi


@wp.kernel
def dot_of(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.dot(a[i], b[i])


def test_dot_keeps_the_sign_of_zero():
    a = wp.array([wp.vec3(-0.0, -0.0, -0.0), wp.vec3(-0.0, 0.0, 0.0)], dtype=wp.vec3)
    b = wp.array([wp.vec3(1.0, 1.0, 1.0), wp.vec3(1.0, 1.0, 1.0)], dtype=wp.vec3)
    out = wp.zeros(2)
    wp.launch(dot_of, dim=2, inputs=[a, b, out])
    expected = np.array([-0.0 * 1.0 + -0.0 * 1.0 + -0.0 * 1.0, -0.0 + 0.0 + 0.0], dtype=np.float32)
    np.testing.assert_array_equal(np.signbit(out.numpy()), np.signbit(expected))


@wp.kernel(module="unique")
def read_past_the_end(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i + 1000]


def test_a_failed_check_is_raised_from_the_launch_not_from_the_runtime(monkeypatch):
    """The bounds error stands under one warp_nb frame (wp.launch's own raise, as argument errors
    do), not under the runtime's helpers that read the check state."""
    import traceback
    monkeypatch.setattr(wp.config, "bounds_check", True)
    with pytest.raises(IndexError) as info:
        wp.launch(read_past_the_end, dim=4, inputs=[wp.zeros(4), wp.zeros(4)])
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if "warp_nb" in f.filename]
    assert [f.name for f in frames] == ["launch"], frames
    with pytest.raises(IndexError) as info:  # a recorded launch too
        wp.launch(read_past_the_end, dim=4, inputs=[wp.zeros(4), wp.zeros(4)], record_cmd=True).launch()
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if "warp_nb" in f.filename]
    assert [f.name for f in frames] == ["launch"], frames


@wp.kernel(module="unique")
def write_one_past(y: wp.array2d(dtype=float), i0: int, j0: int):
    i, j = wp.tid()
    if i == i0 and j == j0:
        y[i, j + 10] = 1.0


@wp.kernel(module="unique")
def assert_small(x: wp.array(dtype=float)):
    i = wp.tid()
    assert x[i] < 1.0


def test_a_failed_check_names_the_failing_thread_and_carets_the_index(monkeypatch):
    """The native side records the wp.tid() of the thread whose check failed (a tuple for a launch of
    several dimensions, on several CPU threads); the message puts a caret under the index of the
    axis that was out of bounds. Only one thread fails, so the answer is exact."""
    monkeypatch.setattr(wp.config, "bounds_check", True)
    monkeypatch.setattr(wp.config, "cpu_threads", 2)
    for i0, j0 in [(3, 54), (0, 60), (99, 63)]:
        with pytest.raises(IndexError) as info:
            wp.launch(write_one_past, dim=(100, 64), inputs=[wp.zeros((100, 64)), i0, j0])
        text = str(info.value)
        assert f"index {j0 + 10} is out of bounds for axis 1 of array `y` with size 64 at wp.tid() = ({i0}, {j0}) (" \
            in text, text
        line, caret = text.splitlines()[-2:]
        assert line == "    y[i, j + 10] = 1.0" and caret == " " * 9 + "^" * 6, text  # under `j + 10`
    monkeypatch.setattr(wp.config, "mode", "debug")
    x = np.zeros(50, dtype=np.float32)
    x[37] = 5.0
    with pytest.raises(AssertionError, match=r"^assertion failed at wp\.tid\(\) = 37 \("):
        wp.launch(assert_small, dim=50, inputs=[wp.array(x)])
