"""wp.ScopedMemoryTracker: the allocations made inside a scope, with their scope path, label and
size (the oracle: the byte sizes numpy gives for the same shapes and dtypes), live counts that
follow garbage collection, and the report."""

import gc
import io

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.runtime import memory_tracker


def test_scopes_record_sizes_paths_and_frees():
    with wp.ScopedMemoryTracker("outer", print=False) as tracker:
        tracker.clear()
        a = wp.zeros(100, dtype=wp.vec3)
        with wp.ScopedMemoryTracker("inner", print=False):
            b = wp.zeros((4, 5), dtype=wp.float64)
        counts = memory_tracker.counters()
        text = memory_tracker.report_text(max_items=0)
        del b
        gc.collect()
        after = memory_tracker.counters()
    want = np.zeros((100, 3), np.float32).nbytes + np.zeros((4, 5)).nbytes
    assert counts["count"] == 2 and counts["bytes"] == want and counts["current"] == want
    assert "outer/inner" in text and "array[vec3f, 100]" in text and "array[float64, 4x5]" in text
    assert after["live"] == 1 and after["current"] == np.zeros((100, 3), np.float32).nbytes
    assert after["peak"] == want
    buf = io.StringIO()
    tracker.report(file=buf)  # after the scope, too
    assert buf.getvalue().startswith("Allocation Tracking Report")
    del a


def test_geometry_builders_label_their_memory_and_reports_need_a_scope():
    points = wp.array(np.random.default_rng(0).random((10, 3), dtype=np.float32), dtype=wp.vec3)
    with wp.ScopedMemoryTracker("geo", print=False) as tracker:
        tracker.clear()
        grid = wp.HashGrid(4, 4, 4)
        bvh = wp.Bvh(points, points)
        text = memory_tracker.report_text(max_items=0)
    assert "(native:hashgrid)" in text and "(native:bvh)" in text
    assert not memory_tracker.enabled()
    with pytest.raises(RuntimeError, match="not active"):
        wp.print_memory_report()
    del grid, bvh


def test_warps_parameters_active_report_func_and_sort(capsys):
    # probed in warp-lang 1.19: ScopedMemoryTracker(name="root", active=True, print=True, report_func=None);
    # report_func gets the report's text instead of stdout (at the scope's end and from report()), not
    # when print=False; active=False tracks nothing and reports nothing; report(sort=) takes "size" or
    # "chronological" (ValueError otherwise)
    got = []
    with wp.ScopedMemoryTracker("a", report_func=got.append) as t:
        t.clear()
        small, big = wp.zeros(3), wp.zeros(1000)
    assert len(got) == 1 and got[0].startswith("Allocation Tracking Report") and capsys.readouterr().out == ""
    t.report()
    assert len(got) == 2
    with wp.ScopedMemoryTracker("b", print=False, report_func=got.append):
        wp.zeros(10)
    with wp.ScopedMemoryTracker("c", active=False, report_func=got.append):
        assert not memory_tracker.enabled()
        wp.zeros(10)
    assert len(got) == 2 and capsys.readouterr().out == ""
    lines = {}
    for sort in ("size", "chronological"):
        buf = io.StringIO()
        t.report(file=buf, sort=sort, max_items=0)
        lines[sort] = [line for line in buf.getvalue().splitlines() if "array[float32" in line]
    assert [("1000" in line) for line in lines["size"]] == [True, False]
    assert [("1000" in line) for line in lines["chronological"]] == [False, True]
    with pytest.raises(ValueError, match="sort"):
        t.report(sort="name")
    del big, small
