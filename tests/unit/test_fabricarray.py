"""wp.fabricarray / wp.indexedfabricarray / wp.fabricarrayarray: kernels over bucketed data compared
with numpy on the same values, the Python side (numpy, fill_, zero_, assign, wp.copy), empty arrays,
bounds checks in checked mode, and malformed interfaces."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import config, launch_in_mode

pytestmark = pytest.mark.needs_cxx

_CODES = {wp.float32: "f4", wp.float64: "f8", wp.int32: "i4", wp.int64: "i8"}


def bucketed(storage: wp.array, sizes, gap: int = 0, name="attr"):
    """A Fabric array interface over `storage` (1-D) cut into buckets of `sizes` elements, `gap`
    unused elements after each (so a lookup that picks a neighbouring bucket reads another address)."""
    scalar = getattr(storage.dtype, "_wp_scalar_type_", storage.dtype)
    role = "vector" if wp.types.type_length(storage.dtype) > 1 else ""
    elem = wp.types.type_size_in_bytes(storage.dtype)
    pointers, p = [], storage.ptr
    for n in sizes:
        pointers.append(p)
        p += (n + gap) * elem
    info = {"type": (True, _CODES[scalar], wp.types.type_length(storage.dtype), 0, role), "access": 2,
            "pointers": pointers, "counts": list(sizes)}
    return {"version": 1, "device": "cpu", "attribs": {name: info}, "_keep": storage}


SENTINEL = -77


def fabric(values, sizes, dtype=wp.float32, gap=2):
    """(Fabric array of `values` in buckets of `sizes` with gaps of SENTINEL between them, a function
    reading the bucket elements back from the storage with numpy and checking the gaps are untouched)."""
    values = np.asarray(values)
    assert sum(sizes) == len(values)
    inner = values.shape[1:]
    rows, keep, at = [], [], 0
    for n in sizes:
        rows += [values[at:at + n], np.full((gap, *inner), SENTINEL, dtype=values.dtype)]
        keep += [True] * n + [False] * gap
        at += n
    storage = wp.array(np.concatenate(rows) if rows else values, dtype=dtype)
    keep = np.array(keep, dtype=bool)

    def read():
        held = storage.numpy()
        assert np.all(held[~keep] == SENTINEL), "an access wrote outside its bucket"
        return held[keep]

    return wp.fabricarray(bucketed(storage, sizes, gap), "attr"), read


@wp.kernel
def scale_and_count(a: wp.fabricarray[float], counts: wp.fabricarray[wp.int32], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i] * 3.0
    a[i] = a[i] + 1.0
    wp.atomic_add(counts, i % 3, 1)


def test_kernel_reads_writes_and_atomics_match_numpy():
    rng = np.random.default_rng(7)
    values = rng.standard_normal(23).astype(np.float32)
    a, data = fabric(values, [5, 0, 1, 9, 8])  # an empty bucket among them
    counts, _ = fabric(np.zeros(3), [2, 1], wp.int32)
    out = wp.zeros(23, dtype=float)
    wp.launch(scale_and_count, dim=23, inputs=[a, counts, out])
    np.testing.assert_allclose(out.numpy(), values * 3.0, rtol=1e-6)
    np.testing.assert_allclose(data(), values + 1.0, rtol=1e-6)  # written in place, through the buckets
    np.testing.assert_array_equal(counts.numpy(), np.bincount(np.arange(23) % 3))


@wp.kernel
def gather(a: Any, out: wp.array[Any]):
    i = wp.tid()
    out[i] = a[i] + a[i]


def test_generic_kernel_over_fabric_and_indexed_fabric_vectors():
    rng = np.random.default_rng(1)
    values = rng.standard_normal((12, 3)).astype(np.float32)
    a, _ = fabric(values, [4, 4, 4], wp.vec3)
    out = wp.zeros(12, dtype=wp.vec3)
    wp.launch(gather, dim=12, inputs=[a, out])
    np.testing.assert_allclose(out.numpy(), 2 * values, rtol=1e-6)

    idx = np.array([11, 0, 5, 5, 7], dtype=np.int32)
    ia = a[wp.array(idx, dtype=wp.int32)]
    assert isinstance(ia, wp.indexedfabricarray) and ia.shape == (5,) and ia.dtype is wp.vec3
    out = wp.zeros(5, dtype=wp.vec3)
    wp.launch(gather, dim=5, inputs=[ia, out])
    np.testing.assert_allclose(out.numpy(), 2 * values[idx], rtol=1e-6)


@wp.kernel
def row_sums(a: wp.fabricarrayarray(dtype=float), sums: wp.array[float], lengths: wp.array[int]):
    i = wp.tid()
    row = a[i]
    lengths[i] = row.shape[0]
    for j in range(row.shape[0]):
        sums[i] = sums[i] + row[j]


@wp.kernel
def element_at(a: wp.fabricarrayarray(dtype=float), j: int, out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i, j]


def test_fabric_array_of_arrays_row_sums():
    rows = [np.arange(1, n + 1, dtype=np.float32) * (k + 1) for k, n in enumerate([3, 1, 4, 2, 5])]
    arrays = [wp.array(r) for r in rows]
    ptrs = wp.array([x.ptr for x in arrays], dtype=wp.uint64)
    lens = wp.array([x.size for x in arrays], dtype=wp.uint64)
    sizes = [2, 3]
    info = {"type": (True, "f4", 1, 1, ""), "access": 2, "counts": sizes,
            "pointers": [ptrs.ptr, ptrs.ptr + 2 * 8], "array_lengths": [lens.ptr, lens.ptr + 2 * 8]}
    iface = {"version": 1, "device": "cpu", "attribs": {"rows": info}, "_keep": (arrays, ptrs, lens)}
    a = wp.fabricarrayarray(data=iface, attrib="rows")
    assert a.ndim == 2 and a.shape == (5,) and len(a) == 5
    sums, lengths = wp.zeros(5, dtype=float), wp.zeros(5, dtype=int)
    wp.launch(row_sums, dim=5, inputs=[a, sums, lengths])
    np.testing.assert_allclose(sums.numpy(), [r.sum() for r in rows], rtol=1e-6)
    np.testing.assert_array_equal(lengths.numpy(), [r.size for r in rows])
    with pytest.raises(RuntimeError, match="Fabric arrays of arrays"):
        a.numpy()
    out = wp.zeros(5, dtype=float)
    launch_in_mode(element_at, "checked", 5, [a, 0, out])  # a[i, j]: element j of row i
    np.testing.assert_array_equal(out.numpy(), [r[0] for r in rows])
    with pytest.raises(IndexError, match=r"index 1 is out of bounds for axis 1 of array `a` with size 1"):
        launch_in_mode(element_at, "checked", 5, [a, 1, out])  # row 1 holds one value


def test_python_side_numpy_fill_assign_copy():
    values = np.arange(10, dtype=np.float32)
    a, data = fabric(values, [3, 3, 4])
    np.testing.assert_array_equal(a.numpy(), values)
    a.fill_(2.5)
    np.testing.assert_array_equal(data(), np.full(10, 2.5, np.float32))
    a.assign(values[::-1].copy())
    np.testing.assert_array_equal(data(), values[::-1])
    a.zero_()
    np.testing.assert_array_equal(data(), np.zeros(10, np.float32))
    wp.copy(a, wp.array(values))
    np.testing.assert_array_equal(data(), values)
    out = wp.zeros(10, dtype=float)
    wp.copy(out, a)
    np.testing.assert_array_equal(out.numpy(), values)
    np.testing.assert_array_equal(wp.clone(a).numpy(), values)

    idx = np.array([9, 2, 4], dtype=np.int32)
    ia = a[wp.array(idx, dtype=wp.int32)]
    ia.fill_(-1.0)
    expected = values.copy()
    expected[idx] = -1.0
    np.testing.assert_array_equal(data(), expected)
    np.testing.assert_array_equal(ia.numpy(), [-1.0, -1.0, -1.0])
    assert a.list() == expected.tolist()


@wp.kernel
def count_len(a: wp.fabricarray[float], out: wp.array[int]):
    out[0] = len(a)


def test_empty_fabric_array():
    a, _ = fabric(np.zeros(0, np.float32), [])
    assert a.shape == (0,) and a.size == 0
    assert a.numpy().shape == (0,)
    a.fill_(1.0)
    a.zero_()
    wp.copy(a, wp.zeros(0, dtype=float))
    out = wp.full(1, 7, dtype=int)
    wp.launch(count_len, dim=1, inputs=[a, out])
    assert out.numpy()[0] == 0
    counts, _ = fabric(np.zeros(0), [], wp.int32)
    wp.launch(scale_and_count, dim=0, inputs=[a, counts, wp.zeros(0, dtype=float)])  # nothing runs


@wp.kernel
def read_next(a: wp.fabricarray[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i + 1]


@wp.kernel
def read_next_indexed(a: wp.indexedfabricarray[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i + 1]


def test_out_of_range_index_in_checked_mode_raises():
    a, _ = fabric(np.arange(6, dtype=np.float32), [2, 4])
    out = wp.zeros(6, dtype=float)
    with pytest.raises(IndexError, match=r"index 6 is out of bounds for axis 0 of array `a` with size 6"):
        launch_in_mode(read_next, "checked", 6, [a, out])
    launch_in_mode(read_next, "checked", 5, [a, out])  # in range: the values, no error
    np.testing.assert_array_equal(out.numpy()[:5], np.arange(1, 6))

    ia = a[wp.array([5, 0, 3], dtype=wp.int32)]
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 0 of array `a` with size 3"):
        launch_in_mode(read_next_indexed, "checked", 3, [ia, wp.zeros(3, dtype=float)])


@wp.kernel
def weighted(a: wp.fabricarray[float], x: wp.array[float], loss: wp.array[float]):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * x[i] * x[i])


def test_backward_through_a_kernel_reading_fabric():
    """Fabric arrays carry no gradient; the adjoint of a kernel reading one compiles and gives the
    other inputs theirs: d/dx sum(a x^2) = 2 a x."""
    values = np.linspace(-1.0, 2.0, 8).astype(np.float32)
    a, _ = fabric(values, [3, 5])
    xs = np.linspace(0.5, 1.5, 8).astype(np.float32)
    x = wp.array(xs, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with config(bounds_check=False):
        tape = wp.Tape()
        with tape:
            wp.launch(weighted, dim=8, inputs=[a, x, loss])
        tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * values * xs, rtol=1e-5)


def test_malformed_interfaces_are_refused_by_name():
    data = wp.zeros(2, dtype=float)
    iface = bucketed(data, [2])
    with pytest.raises(ValueError, match="Failed to get attribute 'other'"):
        wp.fabricarray(iface, "other")
    with pytest.raises(ValueError, match="Unsupported Fabric interface version: 3"):
        wp.fabricarray(dict(iface, version=3), "attr")
    iface["attribs"]["attr"]["type"] = (True, "f4", 1, 0)
    with pytest.raises(ValueError, match="must contain five elements, got 4"):
        wp.fabricarray(iface, "attr")
    iface["attribs"]["attr"]["type"] = (True, "f4", 6, 0, "matrix")
    with pytest.raises(ValueError, match="square element count, got 6"):
        wp.fabricarray(iface, "attr")
    a, _ = fabric([1.0, 2.0], [2])
    with pytest.raises(ValueError, match="only support indexing using index arrays"):
        a[0]
    with pytest.raises(TypeError, match=r"argument `a` \(position 1\) expects an array of type fabricarray.*type array"):
        wp.launch(count_len, dim=1, inputs=[wp.zeros(2, dtype=float), wp.zeros(1, dtype=int)])
    with pytest.raises(TypeError, match=r"argument `a` \(position 1\) expects fabricarray\(dtype=float32.*int32"):
        wp.launch(count_len, dim=1, inputs=[fabric([1, 2], [2], wp.int32)[0], wp.zeros(1, dtype=int)])


def test_annotations():
    assert wp.fabricarray[float] == wp.fabricarray(dtype=float)
    assert repr(wp.fabricarray[wp.float32]) == "wp.fabricarray[wp.float32]"
    assert wp.indexedfabricarray[float].kind == "indexedfabricarray"
    assert wp.fabricarrayarray(dtype=float).ndim == 2
    assert wp.fabricarray[float] != wp.array[float]

    class Tagged(wp.fabricarray):
        pass

    with pytest.raises(TypeError, match="Subscript syntax not supported"):
        Tagged[float]
