"""Warp's timing API (ScopedTimer options, timing_begin/end/print) and the small wp.utils helpers
(MeshAdjacency, create_warp_function, warn, transform_expand)."""

import contextlib
import io
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.launch import launcher

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_scoped_timer_prints_records_and_profiles():
    timings = {}
    with (contextlib.redirect_stdout(io.StringIO()) as out, wp.ScopedTimer("outer", dict=timings, synchronize=True) as t,
          wp.ScopedTimer("inner", use_nvtx=True, color="cyan")):
        pass
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"  inner took \d+\.\d+ ms", lines[0]) and re.fullmatch(r"outer took \d+\.\d+ ms", lines[1])
    assert timings["outer"] == [t.elapsed] and t.elapsed >= 0.0
    with contextlib.redirect_stdout(io.StringIO()) as out:
        with wp.ScopedTimer("quiet", print=False):
            pass
        with wp.ScopedTimer("off", active=False) as off:
            pass
        with wp.ScopedTimer("profiled", detailed=True):
            sum(range(10))
    assert off.elapsed == 0.0
    assert re.match(r"^ +\d+ function calls", out.getvalue()) and "profiled took" in out.getvalue()


def test_timing_records_kernel_launches_by_kind():
    a = wp.zeros(64)
    wp.launch(add_one, 64, inputs=[a])  # compiled before timing starts
    wp.timing_begin(cuda_filter=wp.TIMING_ALL)
    for _ in range(3):
        wp.launch(add_one, 64, inputs=[a])
    wp.utils.array_sum(a)  # warp_nb's own kernels count as builtin kernels
    results = wp.timing_end()
    kernels = [r for r in results if r.filter == wp.TIMING_KERNEL]
    assert [r.name for r in kernels] == [add_one.key] * 3
    assert all(r.device == wp.get_device("cpu") and r.elapsed >= 0.0 for r in kernels)
    assert any(r.filter == wp.TIMING_KERNEL_BUILTIN for r in results)
    assert not launcher.listeners  # timing off again: launches pay nothing
    with contextlib.redirect_stdout(io.StringIO()) as out:
        wp.timing_print(results)
    assert add_one.key in out.getvalue() and "3" in out.getvalue()


def test_scoped_timer_cuda_filter_and_report_func():
    a = wp.zeros(8)
    reports = []
    with wp.ScopedTimer("t", print=True, cuda_filter=wp.TIMING_KERNEL,
                        report_func=lambda results, indent: reports.append(list(results))) as timer:
        wp.launch(add_one, 8, inputs=[a])
        wp.utils.array_sum(a)  # filtered out: builtin kernels are not TIMING_KERNEL
    assert [r.name for r in timer.timing_results] == [add_one.key]
    assert reports == [timer.timing_results]
    with pytest.raises(RuntimeError, match="without a matching"):
        wp.timing_end()


def test_mesh_adjacency_edges_and_faces():
    tris = np.array([(0, 3, 1), (0, 2, 3)])
    adj = wp.utils.MeshAdjacency(tris, len(tris))
    for (a, b), e in adj.edges.items():
        assert a < b and {e.v0, e.v1} == {a, b}
        faces = [f for f in (e.f0, e.f1) if f >= 0]
        assert all({a, b} <= set(tris[f]) for f in faces)  # each face holds the edge
        for o, f in ((e.o0, e.f0), (e.o1, e.f1)):
            assert (o == -1) == (f == -1) and (f == -1 or set(tris[f]) == {a, b, o})
    assert adj.edges[(0, 3)].f1 == 1 and adj.edges[(1, 3)].f1 == -1
    with contextlib.redirect_stdout(io.StringIO()) as out:
        wp.utils.MeshAdjacency([(0, 1, 2), (0, 2, 1), (2, 1, 0)], 3)
    assert out.getvalue().count("non-manifold") == 3


def make_lambda():
    return lambda q, qd: (
        q[0] * 2.0 + qd
    )


@wp.kernel
def call_created(out: wp.array(dtype=float)):
    out[0] = created(wp.vec2(1.5, 0.0), 1.0)


created, _ = wp.utils.create_warp_function(make_lambda())


def test_create_warp_function_from_a_lambda():
    again, module = wp.utils.create_warp_function(make_lambda())
    assert module is not None
    assert re.fullmatch(r"func_[0-9a-f]{16}", created.key) and again.key == created.key
    assert created((1.5, 0.0), 1.0) == make_lambda()((1.5, 0.0), 1.0)
    out = wp.zeros(1)
    wp.launch(call_created, 1, inputs=[out])
    assert out.numpy()[0] == 4.0


def test_warn_formats_as_warp_and_respects_filters():
    # in a fresh interpreter: pytest records warnings instead of printing them
    script = ("import warp_nb as wp\n"
              "for _ in range(2):\n    wp.utils.warn('twice')\n"
              "for _ in range(2):\n    wp.utils.warn('only once', once=True)\n")
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stderr
    assert err == "Warp UserWarning: twice\nWarp UserWarning: twice\nWarp UserWarning: only once\n"
    with pytest.warns(DeprecationWarning, match="recorded"):
        wp.utils.warn("recorded", category=DeprecationWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            wp.utils.warn("an error now")


def test_transform_expand():
    t = wp.transform_expand((1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0))
    assert np.allclose(np.array(t), [1, 2, 3, 0, 0, 0, 1])
