"""Index ranges (compiler/index_ranges.py, issue 21): indices proven non-negative lose their
negative wrap; accesses a chunk of threads can prove in range before it runs lose their check,
in a second version of the body that the entry point picks per chunk. What must not change is any
result or any error: each kernel here is run checked and in release, on inputs in range, near the
bounds, past them and negative, against numpy and Python's own indexing."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import config, launch_in_mode
from warp_nb.compiler.index_ranges import index_facts
from warp_nb.compiler.pipeline import CompileOptions, front_half

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def stencil(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    i += 1
    j += 1
    dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])


@wp.kernel
def pairwise(pos: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    for j in range(n):
        s += pos[j] - pos[i]
    out[i] = s


@wp.kernel
def shifted(x: wp.array(dtype=float), k: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i - k]  # negative for i < k: counts from the end, as in Python


@wp.kernel
def gathered(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[idx[i]]  # an index read from memory: no fact, checked as before


@wp.kernel
def reversed_sum(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    for j in range(i, -1, -1):
        s += x[j]
    out[i] = s


def _facts(kernel, mode="checked", backward=False):
    dev = wp.get_device("cpu")
    key = kernel._key(dev, backward, None, 1)
    front = front_half(kernel, kernel._concrete(key), CompileOptions(mode=mode, backward=backward), dev.target)
    return index_facts(front.typed), front.unit.source




# --- the facts --------------------------------------------------------------------------------
def test_thread_and_loop_indices_are_non_negative_and_guarded():
    facts, source = _facts(stencil)
    assert set(facts.wrap.values()) == {0}  # i - 1 with i = tid + 1 is >= 0: no access wraps
    assert len(facts.guarded) == 5 and "wpnb::index_k<WPNB_K" in source and "wpnb_in_range" in source
    facts, _ = _facts(pairwise)
    assert set(facts.wrap.values()) == {0} and len(facts.guarded) == 3
    arg_bounds = [g.greatest for g in facts.guards() if g.greatest.terms and g.greatest.terms[0][0][0] == "arg"]
    assert arg_bounds and all(b.const == -1 for b in arg_bounds)  # pos[j] for j <= n - 1


def test_an_index_that_may_be_negative_keeps_its_wrap():
    facts, _ = _facts(shifted)
    masks = sorted(facts.wrap.values())
    assert masks == [0, 1]  # out[i] needs none; x[i - k] may be negative
    assert len(facts.guarded) == 2  # both can still be proven in range for a chunk, at run time


def test_an_index_read_from_memory_is_no_fact():
    facts, source = _facts(gathered)
    keys = {k for k, m in facts.wrap.items() if m == 1}
    assert len(keys) == 1 and len(facts.guarded) == 2  # idx[i] and out[i]; x[idx[i]] neither
    assert "wpnb::index_checked_c<WPNB_C>(x_" in source


def test_release_code_writes_no_wrap_for_proven_indices():
    _, source = _facts(stencil, mode="release")
    assert "wpnb::index_c<WPNB_C, 0u>(src_" in source and "index_k" not in source


# --- results and errors -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["checked", "release"])
def test_stencil_matches_numpy(mode):
    rng = np.random.default_rng(1)
    n = 67
    s = rng.random((n, n)).astype(np.float32)
    src, dst = wp.array(s), wp.zeros((n, n), dtype=float)
    launch_in_mode(stencil, mode, (n - 2, n - 2), [src, dst])
    ref = np.zeros_like(s)
    ref[1:-1, 1:-1] = 0.25 * (s[:-2, 1:-1] + s[2:, 1:-1] + s[1:-1, :-2] + s[1:-1, 2:])
    np.testing.assert_allclose(dst.numpy(), ref, rtol=1e-6)


def test_stencil_past_the_last_row_is_reported_as_before():
    n = 40
    src, small = wp.zeros((n, n), dtype=float), wp.zeros((n - 2, n), dtype=float)
    with pytest.raises(IndexError, match=r"index 38 is out of bounds for axis 0 of array `dst` with size 38"):
        launch_in_mode(stencil, "checked", (n - 2, n - 2), [src, small])


@pytest.mark.parametrize("mode", ["checked", "release"])
@pytest.mark.parametrize("k", [0, 1, 5, 299])
def test_negative_indices_count_from_the_end_in_every_chunk(mode, k):
    x = np.arange(300, dtype=np.float32)
    out = wp.zeros(300, dtype=float)
    launch_in_mode(shifted, mode, 300, [wp.array(x), k, out])
    np.testing.assert_array_equal(out.numpy(), x[np.arange(300) - k])


def test_an_index_below_minus_the_size_is_reported():
    out = wp.zeros(300, dtype=float)
    with pytest.raises(IndexError, match=r"index -300 is out of bounds for axis 0 of array `x` with size 299"):
        launch_in_mode(shifted, "checked", 300, [wp.zeros(299, dtype=float), 300, out])


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_a_loop_to_a_parameter_matches_numpy(mode):
    p = np.linspace(0.0, 1.0, 500, dtype=np.float32)
    out = wp.zeros(500, dtype=float)
    launch_in_mode(pairwise, mode, 500, [wp.array(p), 500, out])
    np.testing.assert_allclose(out.numpy(), p.sum() - 500 * p, rtol=1e-4, atol=1e-3)


def test_a_loop_past_the_array_is_reported_at_its_line():
    out = wp.zeros(10, dtype=float)
    with pytest.raises(IndexError, match=r"index 10 is out of bounds for axis 0 of array `pos` with size 10") as e:
        launch_in_mode(pairwise, "checked", 10, [wp.zeros(10, dtype=float), 11, out])
    assert "s += pos[j] - pos[i]" in str(e.value)


def test_a_gather_is_still_checked():
    out = wp.zeros(4, dtype=float)
    idx = wp.array(np.array([0, 1, 7, 2], dtype=np.int32))
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for axis 0 of array `x` with size 4"):
        launch_in_mode(gathered, "checked", 4, [wp.zeros(4, dtype=float), idx, out])


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_a_counting_down_loop_matches_numpy(mode):
    x = np.arange(1, 201, dtype=np.float32)
    out = wp.zeros(200, dtype=float)
    launch_in_mode(reversed_sum, mode, 200, [wp.array(x), out])
    np.testing.assert_allclose(out.numpy(), np.cumsum(x), rtol=1e-6)


def test_a_counting_down_loop_past_the_array_is_reported():
    out = wp.zeros(200, dtype=float)
    with pytest.raises(IndexError, match=r"index 199 is out of bounds for axis 0 of array `x` with size 199"):
        launch_in_mode(reversed_sum, "checked", 200, [wp.zeros(199, dtype=float), out])


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_a_large_launch_mixes_checked_and_unchecked_chunks(mode):
    """Big enough to run in parallel chunks (native/runtime/cpu_runtime.cpp): the chunks holding
    i < k take the checked body (their indices wrap), the others the unchecked one."""
    n, k = 1 << 20, 7
    x = np.arange(n, dtype=np.float32)
    out = wp.zeros(n, dtype=float)
    for _ in range(3):  # the first launches teach the runtime the kernel's cost; then it splits
        out.zero_()
        launch_in_mode(shifted, mode, n, [wp.array(x), k, out])
        np.testing.assert_array_equal(out.numpy(), x[np.arange(n) - k])


@wp.kernel
def loss_of(x: wp.array(dtype=float), k: int, loss: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i - k]
    wp.atomic_add(loss, 0, wp.sin(v) * v)


@pytest.mark.parametrize("k", [0, 3])
def test_the_backward_body_is_versioned_on_the_same_guards(k):
    """The adjoint of a checked kernel reads the same indices: versioned alike, same gradients
    (k > 0: the first threads wrap to the end of x, in the forward and the backward body)."""
    _, source = _facts(loss_of, backward=True)
    assert "loss_of_backward_run<true, false>" in source
    n = 1 << 16
    xs = np.linspace(-2.0, 2.0, n, dtype=np.float32)
    x = wp.array(xs, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with config(bounds_check=True):
        tape = wp.Tape()
        with tape:
            wp.launch(loss_of, dim=n, inputs=[x, k, loss])
        tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), np.sin(xs) + xs * np.cos(xs), rtol=1e-5, atol=1e-6)


@wp.kernel
def gather_and_copy(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] + x[idx[i]]  # x[i], idx[i], out[i] guarded; x[idx[i]] checked in both bodies


def test_a_check_left_in_the_unchecked_body_names_its_thread(monkeypatch):
    """Where the guards hold, a chunk runs the unchecked body, which still checks the gather: the
    entry point must still say which thread runs, so the error names the right one."""
    monkeypatch.setattr(wp.config, "bounds_check", True)
    monkeypatch.setattr(wp.config, "cpu_threads", 2)
    n = 1 << 18
    idx = np.arange(n, dtype=np.int32)
    for bad in (70_001, n - 1):
        idx_bad = idx.copy()
        idx_bad[bad] = n + 5
        x, out = wp.zeros(n, dtype=float), wp.zeros(n, dtype=float)
        for _ in range(3):  # (later launches split into chunks)
            with pytest.raises(IndexError) as info:
                wp.launch(gather_and_copy, dim=n, inputs=[x, wp.array(idx_bad), out])
            assert f"index {n + 5} is out of bounds for axis 0 of array `x` with size {n} at wp.tid() = {bad} (" \
                in str(info.value), str(info.value)


# --- the checked access's fast path (native/arrays/array.h index_checked_c) ----------------------
@wp.kernel
def gather3(x: wp.array3d(dtype=float), idx: wp.array2d(dtype=int), out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = x[idx[t, 0], idx[t, 1], idx[t, 2]]  # indices read from memory: checked, wrap on every axis


@wp.kernel
def gather_unsigned(x: wp.array(dtype=float), idx: wp.array(dtype=wp.uint32), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[idx[i]]


def _strided_x3():
    """A non-contiguous 3-D array (every other element of the last axis), and its numpy values."""
    base = np.arange(4 * 5 * 12, dtype=np.float32).reshape(4, 5, 12)
    return wp.array(base)[:, :, ::2], base[:, :, ::2]


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_negative_indices_read_from_memory_wrap_on_every_axis(mode):
    """In range and non-negative: the fast path; negative: the out-of-line path wraps them, on any axis
    and any stride (a non-contiguous last axis here)."""
    x, ref = _strided_x3()
    rng = np.random.default_rng(7)
    idx = np.stack([rng.integers(-s, s, 200) for s in ref.shape], axis=1).astype(np.int32)
    idx[:4] = [[0, 0, 0], [-1, -1, -1], [-4, 4, -6], [3, -5, 5]]  # the ends of each axis
    out = wp.zeros(200, dtype=float)
    launch_in_mode(gather3, mode, 200, [x, wp.array(idx), out])
    np.testing.assert_array_equal(out.numpy(), ref[idx[:, 0], idx[:, 1], idx[:, 2]])


@pytest.mark.parametrize("bad, axis, size", [((0, 0, 6), 2, 6), ((0, -6, 0), 1, 5), ((4, 0, 0), 0, 4)])
def test_a_gather_out_of_bounds_names_its_axis(bad, axis, size):
    x, ref = _strided_x3()
    idx = np.zeros((8, 3), dtype=np.int32)
    idx[5] = bad
    out = wp.zeros(8, dtype=float)
    with pytest.raises(IndexError, match=rf"index {bad[axis]} is out of bounds for axis {axis} of array `x` "
                                         rf"with size {size}"):
        launch_in_mode(gather3, "checked", 8, [x, wp.array(idx), out])


def test_an_unsigned_index_needs_no_wrap():
    facts, source = _facts(gather_unsigned)
    assert sorted(facts.wrap.values()) == [0, 0, 0]  # x[idx[i]]: a uint32 is never negative
    assert "wpnb::index_checked_c<WPNB_C, 0u>(x_" in source


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_an_unsigned_gather_matches_numpy_and_is_checked(mode):
    xs = np.arange(50, dtype=np.float32) * 0.5
    idx = np.random.default_rng(3).integers(0, 50, 300).astype(np.uint32)
    out = wp.zeros(300, dtype=float)
    launch_in_mode(gather_unsigned, mode, 300, [wp.array(xs), wp.array(idx), out])
    np.testing.assert_array_equal(out.numpy(), xs[idx])
    if mode == "checked":
        idx[17] = 50
        with pytest.raises(IndexError, match=r"index 50 is out of bounds for axis 0 of array `x` with size 50"):
            launch_in_mode(gather_unsigned, mode, 300, [wp.array(xs), wp.array(idx), out])


# --- guards under branches on arguments -------------------------------------------------------
@wp.kernel
def maybe_scaled(x: wp.array(dtype=float), use_scale: int, scale: wp.array(dtype=float), flip: bool,
                 out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    if use_scale != 0:
        v = v * scale[i]  # `scale` is a one-element placeholder when use_scale == 0
    if flip:
        v = -v
    else:
        v = v + x[i + 1]
    out[i] = v


def test_a_guard_under_a_branch_on_arguments_holds_only_where_taken():
    facts, source = _facts(maybe_scaled)
    def whens(array, const):
        return {g.when for g in facts.guards() if g.array == array and g.greatest.const == const}
    assert whens("x_1", 0) == {()}  # x[i]: read by every thread
    ((scale,),) = whens("scale_3", 0)
    assert scale.op == "ne" and scale.left.terms == ((("arg", "use_scale_2"), 1),)
    ((flip,),) = whens("x_1", 1)
    assert flip.op == "eq" and flip.left.terms == ((("arg", "flip_4"), 1),)  # x[i + 1]: where `flip` is false
    assert "(!((wpnb::int64(wpnb_args.use_scale_2)) != (0)) ||" in source


@pytest.mark.parametrize("mode", ["checked", "release"])
@pytest.mark.parametrize("use_scale, flip", [(0, False), (1, False), (0, True), (1, True)])
def test_placeholder_arrays_behind_argument_branches_match_numpy(mode, use_scale, flip):
    n = 5000
    xs = np.random.default_rng(2).random(n + 1).astype(np.float32)
    ss = np.random.default_rng(3).random(n).astype(np.float32)
    scale = wp.array(ss) if use_scale else wp.zeros(1, dtype=float)
    out = wp.zeros(n, dtype=float)
    launch_in_mode(maybe_scaled, mode, n, [wp.array(xs), use_scale, scale, flip, out])
    v = xs[:n] * (ss if use_scale else 1.0)
    ref = -v if flip else v + xs[1:]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


def test_a_taken_branch_still_checks_its_array():
    out = wp.zeros(5000, dtype=float)
    with pytest.raises(IndexError, match=r"index 1 is out of bounds for axis 0 of array `scale` with size 1"):
        launch_in_mode(maybe_scaled, "checked", 5000, [wp.zeros(5001, dtype=float), 1, wp.zeros(1, dtype=float),
                                                       False, out])
