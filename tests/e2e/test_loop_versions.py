"""Loop versions (compiler/loop_guards.py, emit/loop_versions.py, issue 21): in checked code, an
innermost loop whose accesses are affine in its counter and in values the loop does not change is
checked once at its entry and runs without checks when the check holds; else the checked loop runs
as before. Nothing may change a result or an error: each kernel runs checked and in release on
inputs in range, at the bounds, past them and negative, against numpy and Python's indexing."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import launch_in_mode
from warp_nb.compiler.index_ranges import index_facts
from warp_nb.compiler.loop_guards import loop_versions
from warp_nb.compiler.pipeline import CompileOptions, front_half

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def csr_rows(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=float),
             x: wp.array(dtype=float), y: wp.array(dtype=float)):
    r = wp.tid()
    s = float(0.0)
    for b in range(offsets[r], offsets[r + 1]):
        s += values[b] * x[columns[b]]  # values[b], columns[b]: guarded at entry; x[...] keeps its check
    y[r] = s


@wp.kernel
def window_down(x: wp.array(dtype=float), starts: wp.array(dtype=int), k: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    hi = starts[i] + 3
    for j in range(hi, starts[i] - 1, -1):  # counting down, with an offset argument
        s += x[j + k] * float(j - starts[i] + 1)
    out[i] = s


@wp.kernel
def nested(offsets: wp.array(dtype=int), values: wp.array2d(dtype=float), m: int, out: wp.array(dtype=float)):
    r = wp.tid()
    s = float(0.0)
    for b in range(offsets[r], offsets[r + 1]):  # not innermost: only the loop over c is versioned
        for c in range(m):
            s += values[b, c]  # (b: a value the inner loop does not change)
    out[r] = s


@wp.kernel
def long_body(offsets: wp.array(dtype=int), values: wp.array(dtype=float), out: wp.array(dtype=float)):
    r = wp.tid()
    s = float(0.0)
    for b in range(offsets[r], offsets[r + 1]):  # a body too long to copy (loop_guards.MAX_STATEMENTS)
        s += values[b] * float(0) + wp.sin(s)
        s += values[b] * float(1) + wp.sin(s)
        s += values[b] * float(2) + wp.sin(s)
        s += values[b] * float(3) + wp.sin(s)
        s += values[b] * float(4) + wp.sin(s)
        s += values[b] * float(5) + wp.sin(s)
        s += values[b] * float(6) + wp.sin(s)
        s += values[b] * float(7) + wp.sin(s)
        s += values[b] * float(8) + wp.sin(s)
        s += values[b] * float(9) + wp.sin(s)
        s += values[b] * float(10) + wp.sin(s)
        s += values[b] * float(11) + wp.sin(s)
        s += values[b] * float(12) + wp.sin(s)
        s += values[b] * float(13) + wp.sin(s)
        s += values[b] * float(14) + wp.sin(s)
        s += values[b] * float(15) + wp.sin(s)
        s += values[b] * float(16) + wp.sin(s)
        s += values[b] * float(17) + wp.sin(s)
        s += values[b] * float(18) + wp.sin(s)
        s += values[b] * float(19) + wp.sin(s)
    out[r] = s


def _front(kernel, mode="checked"):
    dev = wp.get_device("cpu")
    key = kernel._key(dev, False, None, 1)
    front = front_half(kernel, kernel._concrete(key), CompileOptions(mode=mode), dev.target)
    return front.typed, front.unit.source


def _csr(rows=200, cols=150, seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 9, rows)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    columns = rng.integers(0, cols, offsets[-1]).astype(np.int32)
    values = rng.standard_normal(offsets[-1]).astype(np.float32)
    x = rng.standard_normal(cols).astype(np.float32)
    return offsets, columns, values, x


def _csr_ref(offsets, columns, values, x):
    """Python's indexing, negative indices included."""
    out = np.zeros(len(offsets) - 1, dtype=np.float64)
    for r in range(len(offsets) - 1):
        for b in range(offsets[r], offsets[r + 1]):
            out[r] += float(values[b]) * float(x[columns[b]])
    return out


# --- the facts and the text -------------------------------------------------------------------
def test_the_counter_accesses_are_guarded_and_the_gather_is_not():
    typed, source = _front(csr_rows)
    versions = loop_versions(typed, index_facts(typed).guarded)
    (version,) = versions.values()
    assert len(version.accesses) == 2 and {g.array for g in version.guards} == {"values_3", "columns_2"}
    fast, checked = source.split("the loop's accesses in range", 1)[1].split("} else {", 1)
    assert "wpnb::index_c<WPNB_C, 0u>(values_3, b_" in fast and "index_checked_c<WPNB_C>(x_4" in fast
    assert "index_checked_c<WPNB_C>(values_3" in checked.split("y_5")[0]


def test_release_and_outer_loops_get_no_second_version():
    """(A loop over a small constant range is unrolled by the compiler: `nested` loops to an argument.)"""
    _, source = _front(csr_rows, mode="release")
    assert "the loop's accesses in range" not in source
    typed, _ = _front(long_body)
    assert loop_versions(typed, index_facts(typed).guarded) == {}
    typed, _ = _front(nested)
    (version,) = loop_versions(typed, index_facts(typed).guarded).values()
    row, col = version.guards
    ((atom, coeff),) = row.least.terms
    assert row.least == row.greatest and atom[1].startswith("b_") and coeff == 1  # the outer counter, fixed
    ((atom, coeff),) = col.greatest.terms
    assert col.least == type(col.least)(0) and atom[1].startswith("m_") and col.greatest.const == -1


# --- results and errors -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["checked", "release"])
def test_csr_rows_match_numpy(mode):
    offsets, columns, values, x = _csr()
    y = wp.zeros(len(offsets) - 1, dtype=float)
    launch_in_mode(csr_rows, mode, len(offsets) - 1, [wp.array(offsets), wp.array(columns), wp.array(values),
                                                     wp.array(x), y])
    np.testing.assert_allclose(y.numpy(), _csr_ref(offsets, columns, values, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_a_row_that_starts_negative_wraps_as_in_python(mode):
    """offsets[r] < 0: the guard fails, the checked loop runs, and values[-2] is values' last but one."""
    offsets, columns, values, x = _csr(rows=20)
    offsets = offsets.copy()
    offsets[0] = -2
    y = wp.zeros(20, dtype=float)
    launch_in_mode(csr_rows, mode, 20, [wp.array(offsets), wp.array(columns), wp.array(values), wp.array(x), y])
    np.testing.assert_allclose(y.numpy(), _csr_ref(offsets, columns, values, x), rtol=1e-5, atol=1e-5)


def test_a_row_past_the_values_is_reported_as_before():
    offsets, columns, values, x = _csr(rows=30)
    short = values[:-1]
    y = wp.zeros(30, dtype=float)
    with pytest.raises(IndexError, match=rf"index {len(values) - 1} is out of bounds for axis 0 of array `values` "
                                         rf"with size {len(values) - 1}") as e:
        launch_in_mode(csr_rows, "checked", 30, [wp.array(offsets), wp.array(columns), wp.array(short),
                                                 wp.array(x), y])
    assert "s += values[b] * x[columns[b]]" in str(e.value)


def test_a_bad_column_in_a_guarded_loop_is_still_reported():
    offsets, columns, values, x = _csr(rows=30)
    columns = columns.copy()
    columns[offsets[12]] = len(x) + 3  # (row 12 has at least one entry with this seed? make sure)
    assert offsets[13] > offsets[12]
    y = wp.zeros(30, dtype=float)
    with pytest.raises(IndexError, match=rf"index {len(x) + 3} is out of bounds for axis 0 of array `x`"):
        launch_in_mode(csr_rows, "checked", 30, [wp.array(offsets), wp.array(columns), wp.array(values),
                                                 wp.array(x), y])


@pytest.mark.parametrize("mode", ["checked", "release"])
@pytest.mark.parametrize("k", [0, 2, -7])
def test_a_counting_down_window_matches_python(mode, k):
    x = np.arange(40, dtype=np.float32) * 0.25
    starts = np.array([0, 5, 36, 1, 20], dtype=np.int32)  # 36 + 3 + k: past the end for k = 2 (checked: error)
    out = wp.zeros(len(starts), dtype=float)
    args = [wp.array(x), wp.array(starts), k, out]
    ok = all(-40 <= s + k and s + 3 + k < 40 for s in starts)
    if not ok:
        if mode == "checked":
            with pytest.raises(IndexError, match=r"out of bounds for axis 0 of array `x` with size 40"):
                launch_in_mode(window_down, mode, len(starts), args)
        return
    launch_in_mode(window_down, mode, len(starts), args)
    ref = [sum(float(x[j + k]) * (j - s + 1) for j in range(s + 3, s - 1, -1)) for s in starts]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_an_outer_loop_matches_numpy(mode):
    offsets, _, values, _ = _csr(rows=25, seed=4)
    v2 = np.stack([values, 2 * values], axis=1)
    out = wp.zeros(25, dtype=float)
    launch_in_mode(nested, mode, 25, [wp.array(offsets), wp.array(v2), 2, out])
    ref = [v2[offsets[r]:offsets[r + 1]].sum() for r in range(25)]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
