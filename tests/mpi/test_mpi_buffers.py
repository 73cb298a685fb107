"""warp_nb arrays in mpi4py's buffer calls on 2 real ranks (tests/mpi/scripts/buffers.py): values
against numpy, addresses against the arrays' own (no copies), and bad input refused on every rank
with a message naming the fix, all under a timeout so a hang fails instead of stalling."""

import json

import numpy as np
import pytest

from .mpirun import SCRIPTS, run_ranks

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]


@pytest.fixture(scope="module")
def reports():
    proc = run_ranks(2, [str(SCRIPTS / "buffers.py")], timeout=180)
    assert proc.returncode == 0, f"the ranks failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert lines, proc.stdout[-3000:]
    return json.loads(lines[-1])


def filled(rank, n, dtype=np.float32):
    return (np.arange(n) + 1000 * rank).astype(dtype)


def test_allreduce_takes_warp_arrays_directly_and_in_place(reports):
    for r in reports:
        np.testing.assert_array_equal(r["allreduce_direct"], filled(0, 6) + filled(1, 6))
        np.testing.assert_array_equal(r["allreduce_in_place_max"], np.maximum(filled(0, 6), filled(1, 6)))


def test_mpi_sees_the_arrays_own_memory(reports):
    for r in reports:
        assert r["same_address"] == [True, True]


@pytest.mark.parametrize("key, shape", [("send_recv", (5,)), ("sendrecv_vec3", (4, 3)), ("isend_irecv_vec3", (4, 3))])
def test_point_to_point_delivers_the_other_ranks_values(reports, key, shape):
    n = int(np.prod(shape))
    for rank, r in enumerate(reports):
        np.testing.assert_array_equal(np.asarray(r[key]).reshape(shape), filled(1 - rank, n).reshape(shape))


def test_receive_straight_into_a_row_of_a_grid(reports):
    for rank, r in enumerate(reports):
        expected = np.zeros((3, 4), np.float32)
        expected[2] = filled(1 - rank, 4)
        np.testing.assert_array_equal(r["into_row"], expected)


def test_a_strided_view_is_refused_with_the_fix(reports):
    for r in reports:
        assert r["strided"].startswith("ValueError: column is a strided view")
        assert "a.contiguous()" in r["strided"] and "u[i]" in r["strided"]
        assert r["strided_direct"] is not None  # passed to mpi4py as it is: refused (by mpi4py), no hang
        assert r["empty"].startswith("ValueError") and "empty" in r["empty"]
        assert r["not_warp"].startswith("TypeError")


@pytest.mark.parametrize("case, words", [("collective_size", ["rank 0: shape (3,)", "rank 1: shape (4,)"]),
                                         ("collective_dtype", ["float32", "float64"]),
                                         ("halo_size", ["(4,)", "(5,)", "receive buffer"]),
                                         ("halo_dtype", ["int32", "float32", "same dtype"])])
def test_mismatched_layouts_raise_on_every_rank(reports, case, words):
    for r in reports:  # both ranks raise, also the one whose own buffers were right
        assert r[case] is not None and r[case].startswith("ValueError")
        for word in words:
            assert word in r[case]


def test_a_wrong_total_count_is_refused_on_every_rank(reports):
    for r in reports:
        assert r["fit_total"].startswith("ValueError: the ranks hold [5, 5] points, 10 in all, but total_count is 7")


def test_mpi_reports_a_receive_buffer_too_small(reports):
    assert reports[0]["truncated_recv"] is None  # the sender finishes
    assert "TRUNCATE" in reports[1]["truncated_recv"]


def test_an_exception_on_one_rank_ends_every_rank():
    """The way the examples and docs say to run (`python -m mpi4py`): no rank is left waiting."""
    proc = run_ranks(2, [str(SCRIPTS / "one_rank_fails.py")], timeout=120)
    assert proc.returncode != 0
    assert "rank 1 found bad input before the Allreduce" in proc.stderr
    assert "must not happen" not in proc.stdout
