"""Launch bounds, as Warp: the extents wp.tid() may read (int32 coordinates, so at most 2^31 in each
dimension it reads, judged from the typed kernel after dead code is folded away), a recorded
launch's `.bounds`, launches of more or fewer dimensions than wp.tid() has indices, and the dims
a launch accepts. Oversized launches are only recorded here, never run (a run is refused)."""

import types

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

BIG = 2 ** 31  # the largest extent wp.tid() can index (coordinates 0 .. 2^31 - 1)
DISABLED = False


class IndexLike:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


@wp.kernel
def scalar_tid(out: wp.array(dtype=int)):
    i = wp.tid()
    out[0] = i


@wp.kernel
def pair_tid(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[0, 0] = i + j


@wp.kernel
def triple_tid(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[0, 0, 0] = i + j + k


@wp.kernel
def no_tid(out: wp.array(dtype=int)):
    out[0] = 1


@wp.kernel
def tid_in_static_false():
    if wp.static(False):
        i = wp.tid()  # noqa: F841
    j = wp.tid() if wp.static(False) else 0  # noqa: F841


@wp.kernel
def tid_in_global_false():
    if DISABLED:
        i = wp.tid()  # noqa: F841 (dead code: the point)


@wp.kernel
def tid_in_local_false():
    off = False
    if off:
        i = wp.tid()  # noqa: F841


@wp.kernel
def tid_in_local_false_if_exp():
    off = False
    i = wp.tid() if off else 0  # noqa: F841


@wp.func
def tid():
    return 0


namespace = types.SimpleNamespace(tid=tid)


@wp.kernel
def qualified_tid_of_our_own(out: wp.array(dtype=int)):
    out[namespace.tid()] = 1


def _error(call) -> str:
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


def _extent_message(n: int, d: int) -> str:
    return f"Warp cannot launch a kernel using wp.tid() with extent {n} in dimension {d}"


@pytest.mark.parametrize("kernel,out_shape,dim,shape,coord_mult", [
    (scalar_tid, 1, 5, (5,), 1),
    (scalar_tid, 1, (3, 4), (3,), 4),
    (scalar_tid, 1, (3, 4, 5), (3,), 20),
    (pair_tid, (1, 1), 5, (5, 1), 1),
    (pair_tid, (1, 1), (3, 4, 5), (3, 4), 5),
    (no_tid, 1, (3, 4), (3,), 4),
])
def test_a_recorded_launch_has_warps_bounds(kernel, out_shape, dim, shape, coord_mult):
    """shape: one extent per index of wp.tid() (padded with 1, trailing extents folded into
    coord_mult); size: every thread (values seen in warp-lang 1.19)."""
    launch = wp.launch(kernel, dim=dim, inputs=[wp.zeros(out_shape, dtype=int)], record_cmd=True)
    dims = (dim,) if isinstance(dim, int) else dim
    assert launch.bounds.shape == shape
    assert launch.bounds.coord_mult == coord_mult
    assert launch.bounds.size == int(np.prod(dims))
    assert launch.bounds.ndim == len(dims)
    assert launch.params[0] is launch.bounds


def test_set_dim_checks_and_keeps_the_last_valid_bounds():
    out = wp.zeros((1, 1), dtype=int)
    launch = wp.launch(pair_tid, dim=(1, 1), inputs=[out], record_cmd=True)
    launch.set_dim((1, BIG))
    valid = launch.bounds
    assert _extent_message(BIG + 1, 1) in _error(lambda: launch.set_dim((1, BIG + 1)))
    assert "non-negative" in _error(lambda: launch.set_dim((1, -1)))
    assert launch.bounds is valid and launch.params[0] is valid and launch.dim == (1, BIG)


def test_a_scalar_tid_reads_only_the_leading_dimension():
    out = wp.zeros(1, dtype=int)
    assert wp.launch(scalar_tid, dim=BIG, inputs=[out], record_cmd=True).bounds.size == BIG
    assert _extent_message(BIG + 1, 0) in _error(
        lambda: wp.launch(scalar_tid, dim=BIG + 1, inputs=[out], record_cmd=True))
    assert _extent_message(BIG + 1, 0) in _error(
        lambda: wp.launch(scalar_tid, dim=(BIG + 1, 2), inputs=[out], record_cmd=True))
    folded = wp.launch(scalar_tid, dim=(1, BIG + 1), inputs=[out], record_cmd=True)
    assert folded.bounds.shape == (1,) and folded.bounds.coord_mult == BIG + 1


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_tuple_tid_reads_each_of_its_dimensions(axis):
    out = wp.zeros((1, 1, 1), dtype=int)
    dim = [1, 1, 1]
    dim[axis] = BIG
    assert wp.launch(triple_tid, dim=dim, inputs=[out], record_cmd=True).bounds.shape == tuple(dim)
    dim[axis] = BIG + 1
    assert _extent_message(BIG + 1, axis) in _error(lambda: wp.launch(triple_tid, dim=dim, inputs=[out],
                                                                      record_cmd=True))
    # a dimension past the kernel's indices is folded, never read
    assert wp.launch(pair_tid, dim=(1, 1, BIG + 1), inputs=[wp.zeros((1, 1), dtype=int)],
                     record_cmd=True).bounds.coord_mult == BIG + 1


def test_safe_extents_may_total_more_than_2_31_threads_but_a_scalar_tid_launch_does_not_run():
    out = wp.zeros(1, dtype=int)
    launch = wp.launch(scalar_tid, dim=(2 ** 16, 2 ** 16), inputs=[out], record_cmd=True)
    assert launch.bounds.size == 2 ** 32
    assert "at most 2^31 - 1 threads" in _error(launch.launch)
    assert "at most 2^31 - 1 threads" in _error(lambda: wp.launch(scalar_tid, dim=(2 ** 16, 2 ** 16), inputs=[out]))
    assert out.numpy()[0] == 0  # nothing ran


@wp.kernel
def sample_coordinates(count: wp.array(dtype=int), last: wp.array(dtype=int), n1: int):
    i, j = wp.tid()
    if j % 1048576 == 0:  # a sparse sample: 2^31 atomics would take minutes
        wp.atomic_add(count, i, 1)
    if j == n1 - 1:
        last[i] = j


def test_a_tuple_tid_launch_past_2_31_threads_runs_on_the_cpu():
    # as Warp (test_large: 46341 x 46341): the loop counts the flat index in int64, coordinates stay int32
    n1 = 2 ** 30 + 1
    count, last = wp.zeros(2, dtype=int, device="cpu"), wp.zeros(2, dtype=int, device="cpu")
    wp.launch(sample_coordinates, dim=(2, n1), inputs=[count, last, n1], device="cpu")
    expected = len(range(0, n1, 1048576))
    np.testing.assert_array_equal(count.numpy(), [expected, expected])
    np.testing.assert_array_equal(last.numpy(), [n1 - 1, n1 - 1])


@pytest.mark.parametrize("kernel", [no_tid, tid_in_static_false, tid_in_global_false, tid_in_local_false,
                                    tid_in_local_false_if_exp, qualified_tid_of_our_own])
def test_a_kernel_without_a_live_wp_tid_takes_any_extent(kernel):
    inputs = [wp.zeros(1, dtype=int)] if kernel.param_names else []
    launch = wp.launch(kernel, dim=BIG + 1, inputs=inputs, record_cmd=True)
    assert launch.bounds.size == BIG + 1
    launch.set_dim(BIG + 2)
    assert launch.bounds.size == BIG + 2


def test_an_empty_launch_may_have_an_oversized_extent():
    out = wp.zeros((1, 1), dtype=int)
    assert wp.launch(pair_tid, dim=(0, BIG + 1), inputs=[out]) is None
    launch = wp.launch(pair_tid, dim=(1, 1), inputs=[out], record_cmd=True)
    launch.set_dim((0, BIG + 1))
    assert launch.bounds.size == 0
    launch.launch()
    assert out.numpy()[0, 0] == 0


@wp.kernel
def mixed_arity(lead: wp.array2d(dtype=int), pairs: wp.array2d(dtype=int)):
    i = wp.tid()
    j, k = wp.tid()
    lead[j, k] = i
    pairs[j, k] = j * 10 + k


def test_scalar_and_tuple_tid_may_mix_in_one_kernel():
    lead, pairs = wp.zeros((3, 4), dtype=int), wp.zeros((3, 4), dtype=int)
    wp.launch(mixed_arity, dim=(3, 4), inputs=[lead, pairs])
    rows, cols = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    np.testing.assert_array_equal(lead.numpy(), rows)  # the scalar one is the leading index
    np.testing.assert_array_equal(pairs.numpy(), rows * 10 + cols)
    assert _extent_message(BIG + 1, 0) in _error(
        lambda: wp.launch(mixed_arity, dim=(BIG + 1, 1), inputs=[lead, pairs], record_cmd=True))


@wp.kernel
def visits2(counts: wp.array2d(dtype=int)):
    i, j = wp.tid()
    wp.atomic_add(counts, i, j, 1)


@wp.kernel
def visits3(counts: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    wp.atomic_add(counts, i, j, k, 1)


@pytest.mark.parametrize("mode", ["checked", "release"])
@pytest.mark.parametrize("kernel,ndim,dim", [(visits2, 2, (4, 8, 3)), (visits2, 2, (4, 8, 3, 2)),
                                             (visits3, 3, (4, 8, 3, 2)), (visits3, 3, (5,)), (visits3, 3, (2, 3))])
def test_launches_of_more_or_fewer_dimensions_than_tid_indices(mode, kernel, ndim, dim):
    """Each coordinate of the leading dimensions runs once per coordinate of the trailing ones;
    indices past the launch's dimensions are 0. Oracle: numpy over every flat thread index."""
    from tests.support.helpers import launch_in_mode

    padded = tuple(dim) + (1,) * (ndim - len(dim))
    expected = np.zeros(padded[:ndim], dtype=int)
    for t in range(int(np.prod(dim))):
        np.add.at(expected, np.unravel_index(t, padded)[:ndim], 1)
    counts = wp.zeros(padded[:ndim], dtype=int)
    launch_in_mode(kernel, mode, dim, [counts])
    np.testing.assert_array_equal(counts.numpy(), expected)
    recorded = wp.launch(kernel, dim=dim, inputs=[counts], record_cmd=True)
    counts.zero_()
    recorded.launch()
    np.testing.assert_array_equal(counts.numpy(), expected)


@wp.kernel
def double_into(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(y, i, j, 2.0 * x[i, j])


def test_the_gradient_of_a_folded_launch_counts_every_repeat():
    x = wp.array(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    y = wp.zeros((2, 3), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(double_into, dim=(2, 3, 4), inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), np.full((2, 3), 8.0))
    tape.backward(grads={y: wp.array(np.ones((2, 3), dtype=np.float32))})
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 8.0))  # d(sum y)/dx = 2 per repeat, 4 repeats


@wp.kernel
def count(out: wp.array(dtype=int)):
    wp.atomic_add(out, 0, 1)


@pytest.mark.parametrize("dim,threads", [(np.int32(5), 5), (np.int64(3), 3), ([np.int32(2), np.int64(3)], 6),
                                         (np.array([2, 2]), 4), ((IndexLike(2), 3), 6)])
def test_dims_may_be_numpy_integers_or_index_like(dim, threads):
    out = wp.zeros(1, dtype=int)
    wp.launch(count, dim=dim, inputs=[out])
    wp.launch_tiled(count, dim=dim, inputs=[out], block_dim=32, device="cpu")
    assert out.numpy()[0] == 2 * threads


def test_bad_dims_are_clear_errors():
    out = wp.zeros(1, dtype=int)
    assert "non-negative" in _error(lambda: wp.launch(count, dim=-1, inputs=[out]))
    assert "non-negative" in _error(lambda: wp.launch_tiled(count, dim=np.int32(-1), inputs=[out], block_dim=32))
    assert "at most 4 dimensions" in _error(lambda: wp.launch(count, dim=(1, 1, 1, 1, 2), inputs=[out]))
    assert "at most 4 dimensions" in _error(lambda: wp.launch(count, dim=(0, 1, 1, 1, 2), inputs=[out]))
    for bad in (1.5, (1, 2.5), "4"):
        with pytest.raises(TypeError, match="launch dim"):
            wp.launch(count, dim=bad, inputs=[out])


@wp.kernel
def tuple_tid_in_global_false():
    if DISABLED:
        i, j = wp.tid()  # noqa: RUF059


def test_the_bounds_keep_the_arity_of_a_dead_tuple_tid_and_any_extent():
    launch = wp.launch(tuple_tid_in_global_false, dim=(1, BIG + 1), record_cmd=True)
    assert launch.bounds.shape == (1, BIG + 1)  # as warp-lang 1.19


def test_extents_past_int64_are_refused_and_huge_totals_only_recorded():
    assert "below 2^63" in _error(lambda: wp.launch(no_tid, dim=2 ** 63, inputs=[wp.zeros(1, dtype=int)]))
    launch = wp.launch(no_tid, dim=(BIG, BIG, BIG), inputs=[wp.zeros(1, dtype=int)], record_cmd=True)
    assert launch.bounds.size == BIG ** 3
    assert "at most 2^31 - 1 threads" in _error(launch.launch)
