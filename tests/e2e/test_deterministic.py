"""Deterministic mode (wp.DeterministicMode, the "deterministic" module option) on the CPU: float atomics
land in thread order whatever `cpu_threads` is, so results are bit-identical from run to run and equal
to a serial loop over the threads (numpy's sequential cumsum is the oracle); counters hand out slots in
thread order; what cannot be ordered is refused with Warp's cause and fix, at the user's line."""

import numpy as np
import pytest

import warp_nb as wp

R2R = {"deterministic": wp.DeterministicMode.RUN_TO_RUN}
N = 1 << 18  # large enough that launches run on several threads, in chunks
BINS = 5
THREADS = (1, 2, 3, 4)


@pytest.fixture
def restore_threads():
    before = wp.config.cpu_threads
    yield
    wp.config.cpu_threads = before


def _inputs(seed=7, dtype=np.float32):
    rng = np.random.default_rng(seed)
    # magnitudes from 1e-7 to 1e7 and both signs: the rounding of a sum depends on its order
    values = (rng.standard_normal(N) * 10.0 ** rng.integers(-7, 8, N)).astype(dtype)
    bins = rng.integers(0, BINS, N).astype(np.int32)
    return values, bins


def _serial_sums(values, bins, dtype=np.float32):
    """Each bin's sum in thread order, rounded after every add (what one thread doing it gives)."""
    out = np.zeros(BINS, dtype=dtype)
    for b in range(BINS):
        part = values[bins == b]
        if len(part):
            out[b] = np.cumsum(part, dtype=dtype)[-1]
    return out


@wp.kernel
def plain_scatter_add(values: wp.array[wp.float32], bins: wp.array[wp.int32], out: wp.array[wp.float32]):
    i = wp.tid()
    wp.atomic_add(out, bins[i], values[i])


@wp.kernel(module="unique", module_options=R2R)
def det_scatter_add(values: wp.array[wp.float32], bins: wp.array[wp.int32], out: wp.array[wp.float32]):
    i = wp.tid()
    wp.atomic_add(out, bins[i], values[i])


@wp.kernel(module="unique", module_options=R2R)
def det_augassign_sub(values: wp.array[wp.float64], bins: wp.array[wp.int32], out: wp.array[wp.float64]):
    i = wp.tid()
    out[bins[i]] -= values[i]


@wp.kernel(module="unique", module_options=R2R)
def det_vec_add(values: wp.array[wp.float32], bins: wp.array[wp.int32], out: wp.array[wp.vec3]):
    i = wp.tid()
    v = values[i]
    wp.atomic_add(out, bins[i], wp.vec3(v, -2.0 * v, v * v))


@wp.kernel(module="unique", module_options=R2R)
def det_one_total(values: wp.array[wp.float32], out: wp.array[wp.float32]):
    wp.atomic_add(out, 0, values[wp.tid()])  # (default mode privatises this sum per chunk)


def test_float_atomic_sums_are_the_serial_sums_bit_for_bit(restore_threads):
    values, bins = _inputs()
    expected = _serial_sums(values, bins)
    v, b = wp.array(values), wp.array(bins)
    for threads in THREADS:
        wp.config.cpu_threads = threads
        for _ in range(3):
            out = wp.zeros(BINS, dtype=wp.float32)
            wp.launch(det_scatter_add, N, [v, b, out])
            np.testing.assert_array_equal(out.numpy(), expected, err_msg=f"cpu_threads={threads}")
    total = wp.zeros(1, dtype=wp.float32)
    wp.launch(det_one_total, N, [v, total])
    assert total.numpy()[0] == np.cumsum(values, dtype=np.float32)[-1]


def test_float64_augmented_subtraction_is_ordered(restore_threads):
    values, bins = _inputs(11, np.float64)
    expected = np.zeros(BINS)
    for k in range(BINS):
        expected[k] = np.cumsum(-values[bins == k])[-1]
    v, b = wp.array(values, dtype=wp.float64), wp.array(bins)
    for threads in THREADS:
        wp.config.cpu_threads = threads
        out = wp.zeros(BINS, dtype=wp.float64)
        wp.launch(det_augassign_sub, N, [v, b, out])
        np.testing.assert_array_equal(out.numpy(), expected)


def test_vector_atomics_are_ordered_per_component(restore_threads):
    values, bins = _inputs(3)
    comps = np.stack([values, np.float32(-2.0) * values, values * values], axis=1)
    expected = np.zeros((BINS, 3), np.float32)
    for k in range(BINS):
        expected[k] = np.cumsum(comps[bins == k], axis=0, dtype=np.float32)[-1]
    v, b = wp.array(values), wp.array(bins)
    for threads in THREADS:
        wp.config.cpu_threads = threads
        out = wp.zeros(BINS, dtype=wp.vec3)
        wp.launch(det_vec_add, N, [v, b, out])
        np.testing.assert_array_equal(out.numpy(), expected)


@wp.kernel(module="unique", module_options=R2R)
def det_gather(values: wp.array[wp.float32], index: wp.array[wp.int32], out: wp.array[wp.float32]):
    i = wp.tid()
    out[i] = values[index[i]] * 3.0


def test_backward_gradient_accumulation_is_ordered(restore_threads):
    _, bins = _inputs()
    rng = np.random.default_rng(5)
    seeds = (rng.standard_normal(N) * 10.0 ** rng.integers(-7, 8, N)).astype(np.float32)
    expected = _serial_sums(seeds * np.float32(3.0), bins)  # d out[i] / d values[bins[i]] = 3
    b = wp.array(bins)
    for threads in THREADS:
        wp.config.cpu_threads = threads
        values = wp.ones(BINS, dtype=wp.float32, requires_grad=True)
        out = wp.zeros(N, dtype=wp.float32, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(det_gather, N, [values, b, out])
        tape.backward(grads={out: wp.array(seeds)})
        np.testing.assert_array_equal(values.grad.numpy(), expected, err_msg=f"cpu_threads={threads}")


@wp.kernel(module="unique", module_options=R2R)
def det_counter(data: wp.array[wp.float32], counter: wp.array[wp.int32], out: wp.array[wp.float32]):
    i = wp.tid()
    if data[i] > 0.0:
        slot = wp.atomic_add(counter, 0, 1)
        out[slot] = data[i]


def test_counter_slots_follow_thread_order(restore_threads):
    values, _ = _inputs()
    kept = values[values > 0]
    for threads in THREADS:
        wp.config.cpu_threads = threads
        counter = wp.zeros(1, dtype=wp.int32)
        out = wp.zeros(N, dtype=wp.float32)
        wp.launch(det_counter, N, [wp.array(values), counter], [out])
        assert counter.numpy()[0] == len(kept)
        np.testing.assert_array_equal(out.numpy()[:len(kept)], kept)


def test_counter_kernel_backward_is_refused():
    data = wp.array(np.ones(8, np.float32), requires_grad=True)
    out = wp.zeros(8, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(det_counter, 8, [data, wp.zeros(1, dtype=wp.int32)], [out])
    with pytest.raises(wp.WarpDeterminismError, match="cannot differentiate kernel 'det_counter' automatically"):
        tape.backward(grads={out: wp.ones_like(out)})


def _refused(kernel):
    with pytest.raises(wp.WarpDeterminismError) as info:
        wp.load_module(module=kernel.module, device="cpu")
    return str(info.value)


def test_refusals_say_cause_fix_and_line():
    @wp.kernel(module="unique", module_options=R2R)
    def read_after(out: wp.array[wp.float32], seen: wp.array[wp.float32]):
        wp.atomic_add(out, 0, 1.0)
        seen[0] = out[1]

    @wp.kernel(module="unique", module_options=R2R)
    def store_through_view(out: wp.array2d[wp.float32]):
        wp.atomic_add(out, 0, 0, 1.0)
        column = out[:, 1]
        column[0] = 5.0

    @wp.kernel(module="unique", module_options=R2R)
    def mixed(out: wp.array[wp.float32], d: wp.array[wp.float32]):
        wp.atomic_add(out, 0, d[wp.tid()])
        wp.atomic_max(out, 1, d[wp.tid()])

    @wp.kernel(module="unique", module_options=R2R)
    def float_result(out: wp.array[wp.float32], seen: wp.array[wp.float32]):
        seen[wp.tid()] = wp.atomic_add(out, 0, 1.0)

    @wp.kernel(module="unique", module_options=R2R)
    def max_slot(counter: wp.array[wp.int32], out: wp.array[wp.float32]):
        out[wp.atomic_max(counter, 0, 1)] = 1.0

    @wp.kernel(module="unique", module_options=R2R)
    def counter_read(counter: wp.array[wp.int32], out: wp.array[wp.int32]):
        first = counter[0]
        out[wp.atomic_add(counter, 0, 1)] = first

    cases = ((read_after, "array 'out' receives deterministic atomic updates and is also read directly"),
             (store_through_view, "array 'out' receives deterministic atomic updates and is also written directly"),
             (mixed, "array 'out' receives both 'add' and 'max' atomic operations"),
             (float_result, "return value of atomic_add() as a slot, but the counter is not an int32 array"),
             (max_slot, "value returned by wp.atomic_max(), but stable slot assignment supports only"),
             (counter_read, "array 'counter' receives deterministic atomic updates and is also read directly"))
    for kernel, cause in cases:
        message = _refused(kernel)
        assert message.startswith("Deterministic mode cannot compile this kernel. Cause: ")
        assert cause in message and "Fix: " in message
        assert "test_deterministic.py" in message and "warp_nb" not in message.split("\n", 1)[0]


def test_default_mode_accepts_the_refused_patterns():
    @wp.kernel(module="unique")
    def read_after_default(out: wp.array[wp.float32], seen: wp.array[wp.float32]):
        wp.atomic_add(out, 0, 1.0)
        seen[0] = out[1]

    out, seen = wp.zeros(2, dtype=wp.float32), wp.zeros(1, dtype=wp.float32)
    wp.launch(read_after_default, 4, [out, seen])
    assert out.numpy()[0] == 4.0


def test_modes_are_checked_where_they_are_set():
    for bad in (True, 1, "run_to_run"):
        with pytest.raises(ValueError, match="DeterministicMode"):
            wp.config.deterministic = bad
    assert wp.config.deterministic is wp.DeterministicMode.NOT_GUARANTEED

    @wp.kernel(module="unique", module_options={"deterministic": True})
    def flagged(out: wp.array[wp.float32]):
        out[0] = 1.0

    with pytest.raises(ValueError, match="deterministic must be a warp.DeterministicMode value, got True"):
        flagged.module.resolve_options(wp.config)
    assert wp.get_module_options(det_scatter_add.module)["deterministic"] is wp.DeterministicMode.RUN_TO_RUN


@wp.kernel(module="unique", module_options=R2R)
def det_local_histogram(values: wp.array[wp.float32], out: wp.array[wp.float32]):
    i = wp.tid()
    local = wp.zeros(shape=2, dtype=wp.float32)  # atomics into a thread's own array land at once
    wp.atomic_add(local, 0, values[i])
    wp.atomic_add(local, 0, values[i])
    wp.atomic_add(out, i % 2, local[0])


def test_atomics_into_local_arrays_apply_where_they_run(restore_threads):
    values, _ = _inputs(9)
    twice = (values + values).astype(np.float32)
    expected = np.array([np.cumsum(twice[0::2], dtype=np.float32)[-1], np.cumsum(twice[1::2], dtype=np.float32)[-1]])
    for threads in (1, 2):
        wp.config.cpu_threads = threads
        out = wp.zeros(2, dtype=wp.float32)
        wp.launch(det_local_histogram, N, [wp.array(values), out])
        np.testing.assert_array_equal(out.numpy(), expected)


def test_the_global_setting_applies_to_modules_made_after_it():
    before = wp.config.deterministic
    try:
        wp.config.deterministic = wp.DeterministicMode.RUN_TO_RUN

        @wp.kernel(module="unique")
        def made_after(out: wp.array[wp.float32], seen: wp.array[wp.float32]):
            wp.atomic_add(out, 0, 1.0)
            seen[0] = out[0]

        assert wp.get_module_options(made_after.module)["deterministic"] is wp.DeterministicMode.RUN_TO_RUN
        with pytest.raises(wp.WarpDeterminismError, match="is also read directly"):
            wp.launch(made_after, 1, [wp.zeros(1, dtype=wp.float32), wp.zeros(1, dtype=wp.float32)])
        # a module made before (this test file's shared one) keeps the level it was made with
        assert wp.get_module_options(plain_scatter_add.module)["deterministic"] is \
            wp.DeterministicMode.NOT_GUARANTEED
    finally:
        wp.config.deterministic = before


@wp.kernel(module="unique", module_options=R2R)
def det_aot_scatter(values: wp.array[wp.float32], bins: wp.array[wp.int32], out: wp.array[wp.float32]):
    i = wp.tid()
    wp.atomic_add(out, bins[i], values[i])


def test_an_ahead_of_time_build_replays_in_order(tmp_path, restore_threads):
    wp.compile_aot_module(det_aot_scatter.module, device="cpu", module_dir=tmp_path)
    wp.load_aot_module(det_aot_scatter.module, device="cpu", module_dir=tmp_path)
    values, bins = _inputs(13)
    wp.config.cpu_threads = 2
    out = wp.zeros(BINS, dtype=wp.float32)
    wp.launch(det_aot_scatter, N, [wp.array(values), wp.array(bins)], [out])
    assert all(k.startswith("aot:") for k in (launcher.compiled.key for launcher in det_aot_scatter.launchers.values()))
    np.testing.assert_array_equal(out.numpy(), _serial_sums(values, bins))


def test_saving_a_graph_of_a_deterministic_launch_is_refused(tmp_path):
    values, bins = wp.array(np.ones(8, np.float32)), wp.array(np.zeros(8, np.int32))
    out = wp.zeros(BINS, dtype=wp.float32)
    wp.launch(det_scatter_add, 8, [values, bins, out])  # compiled before the capture
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        wp.launch(det_scatter_add, 8, [values, bins, out])
    with pytest.raises(RuntimeError, match="deterministic mode"):
        wp.capture_save(capture.graph, str(tmp_path / "graph.wrp"), inputs={"values": values}, outputs={"out": out})
    wp.capture_launch(capture.graph)  # replayed in this process: in order
    assert out.numpy()[0] == 16.0


@wp.kernel(module="unique", module_options=R2R)
def det_indexed_add(a: wp.indexedarray[wp.float32], values: wp.array[wp.float32]):
    i = wp.tid()
    wp.atomic_add(a, i % 2, values[i])


@wp.kernel(module="unique", module_options=R2R)
def det_no_atomics(a: wp.array[wp.float32]):
    a[wp.tid()] = 1.0


def test_indexed_array_targets_are_ordered_and_plain_kernels_keep_the_fast_launch(restore_threads):
    values, _ = _inputs(17)
    expected = [np.cumsum(values[k::2], dtype=np.float32)[-1] for k in (0, 1)]
    base = wp.zeros(4, dtype=wp.float32)
    wp.config.cpu_threads = 2
    wp.launch(det_indexed_add, N, [wp.indexedarray(base, [wp.array(np.array([3, 1], np.int32))]), wp.array(values)])
    np.testing.assert_array_equal(base.numpy()[[3, 1]], expected)
    wp.launch(det_no_atomics, 4, [wp.zeros(4, dtype=wp.float32)])
    assert [launcher.direct for launcher in det_no_atomics.launchers.values()] == [True]
