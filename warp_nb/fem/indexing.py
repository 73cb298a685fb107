"""Index maps that `warp.fem` builds on the device: node indices grouped by node
(`compress_node_indices`, from which node-to-element adjacency is read), masks turned into
local/global index maps (`masked_indices`), index range checks with a message naming the first bad
entry (`validate_indices_in_range`), one-element host reads, and per-type zero and basis element
functions. Results that the caller may give back are borrowed from a `TemporaryStore` (they have
`.release()`), as in Warp.

compress_node_indices sorts (node, array index) pairs with the stable radix sort of warp.utils,
invalid nodes (outside [0, node_count), NULL_NODE_INDEX among them) keyed past the last node so
that they sort to the end; each node's offset is then a binary search in the sorted keys, which
writes exactly node_count + 1 offsets and needs no atomics."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..utils import array_scan, radix_sort_pairs
from .cache import TemporaryStore, borrow_temporary, dynamic_func

#: The node index that stands for "no node" (ignored by compress_node_indices).
NULL_NODE_INDEX = 2**31 - 1

scalar_types = (wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64,
                wp.float16, wp.bfloat16, wp.float32, wp.float64)


# --- node index compression -----------------------------------------------------------------------

@wp.kernel
def _prepare_node_sort_kernel(node_count: int, node_indices: wp.array(dtype=wp.int32),
                              sort_keys: wp.array(dtype=wp.int32), sort_values: wp.array(dtype=wp.int32)):
    i = wp.tid()
    node = node_indices[i]
    if node < 0 or node >= node_count:
        node = node_count
    sort_keys[i] = node
    sort_values[i] = i


@wp.kernel
def _node_offsets_kernel(count: int, sorted_keys: wp.array(dtype=wp.int32), node_offsets: wp.array(dtype=wp.int32)):
    node = wp.tid()  # the first sorted position whose key is >= node
    lo = 0
    hi = count
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_keys[mid] < node:
            lo = mid + 1
        else:
            hi = mid
    node_offsets[node] = lo


@wp.kernel
def _used_nodes_kernel(node_offsets: wp.array(dtype=wp.int32), used: wp.array(dtype=wp.int32)):
    node = wp.tid()
    used[node] = wp.where(node_offsets[node + 1] > node_offsets[node], 1, 0)


@wp.kernel
def _scatter_unique_nodes_kernel(used_scan: wp.array(dtype=wp.int32), unique_node_indices: wp.array(dtype=wp.int32),
                                 unique_node_count: wp.array(dtype=wp.int32)):
    node = wp.tid()
    before = wp.where(node > 0, used_scan[node - 1], 0)
    if used_scan[node] > before:
        unique_node_indices[before] = node
    if node == used_scan.shape[0] - 1:
        unique_node_count[0] = used_scan[node]


def _sized(given, length: int, temporary_store, device):
    """`given` when it is an int32 array with room for `length` entries, else a borrowed one."""
    if given is not None and given.dtype == wp.int32 and given.shape[0] >= length:
        return given
    return borrow_temporary(temporary_store, shape=(length,), dtype=wp.int32, device=device)


def compress_node_indices(node_count: int, node_indices: wp.array, return_unique_nodes=False,
                          node_offsets: wp.array = None, sorted_array_indices: wp.array = None,
                          unique_node_count: wp.array = None, unique_node_indices: wp.array = None,
                          temporary_store: TemporaryStore = None):
    """Group the entries of `node_indices` by node: returns (node_offsets, sorted_array_indices),
    where the array indices of node v's entries are sorted_array_indices[node_offsets[v]:
    node_offsets[v + 1]] in increasing order; with return_unique_nodes also (unique_node_count,
    unique_node_indices), the nodes that have entries, sorted. Indices outside [0, node_count)
    are ignored. Arrays given with enough room receive the results."""
    if not isinstance(node_indices, wp.array) or node_indices.dtype != wp.int32:
        raise TypeError("compress_node_indices: node_indices must be a wp.array of int32")
    node_count = int(node_count)
    device = node_indices.device
    flat = node_indices.flatten() if node_indices.ndim > 1 else node_indices
    n = flat.shape[0]

    node_offsets = _sized(node_offsets, node_count + 1, temporary_store, device)
    # the radix sort works in place on double-length buffers (its second half is scratch)
    sorted_array_indices = _sized(sorted_array_indices, 2 * n, temporary_store, device)
    sort_keys = borrow_temporary(temporary_store, shape=(2 * n,), dtype=wp.int32, device=device)
    if n > 0:
        wp.launch(_prepare_node_sort_kernel, dim=n, device=device,
                  inputs=[node_count, flat, sort_keys, sorted_array_indices])
        radix_sort_pairs(sort_keys, sorted_array_indices, n, end_bit=max(node_count, 1).bit_length())
    wp.launch(_node_offsets_kernel, dim=node_count + 1, device=device, inputs=[n, sort_keys, node_offsets])
    sort_keys.release()
    if not return_unique_nodes:
        return node_offsets, sorted_array_indices

    unique_node_count = _sized(unique_node_count, 1, temporary_store, device)
    unique_node_indices = _sized(unique_node_indices, n, temporary_store, device)
    if node_count == 0:
        unique_node_count.zero_()
    else:
        used = borrow_temporary(temporary_store, shape=(node_count,), dtype=wp.int32, device=device)
        wp.launch(_used_nodes_kernel, dim=node_count, device=device, inputs=[node_offsets, used])
        array_scan(used, used, inclusive=True)
        wp.launch(_scatter_unique_nodes_kernel, dim=node_count, device=device,
                  inputs=[used, unique_node_indices, unique_node_count])
        used.release()
    return node_offsets, sorted_array_indices, unique_node_count, unique_node_indices


# --- masks ------------------------------------------------------------------------------------

@wp.kernel
def _masked_indices_kernel(missing_index: int, mask: wp.array(dtype=wp.int32), offsets: wp.array(dtype=wp.int32),
                           local_to_global: wp.array(dtype=wp.int32), global_to_local: wp.array(dtype=wp.int32)):
    i = wp.tid()
    local = offsets[i] - 1  # inclusive scan: the entries of mask up to i, this one included
    capacity = local_to_global.shape[0]
    if mask[i] == 0 or local >= capacity:
        global_to_local[i] = missing_index
    else:
        global_to_local[i] = local
        local_to_global[local] = i
    if i == mask.shape[0] - 1:
        total = offsets[i]
        for k in range(total, capacity):
            local_to_global[k] = missing_index
        if total > capacity:
            wp.printf("Number of elements exceeded the %d limit; increase to %d.\n", capacity, total)


def masked_indices(mask: wp.array, missing_index: int = -1, max_index_count: int = -1,
                   local_to_global: wp.array | None = None, global_to_local: wp.array | None = None,
                   temporary_store: TemporaryStore = None):
    """From a mask of 0s and 1s: (local_to_global, the indices where the mask is 1; global_to_local,
    each entry's rank among those, or missing_index where the mask is 0). With max_index_count >= 0
    the count is not read back: local_to_global has that length, at most the mask's (padded with
    missing_index), and
    a mask with more ones says so and keeps the first ones."""
    if not isinstance(mask, wp.array) or mask.dtype != wp.int32 or mask.ndim != 1:
        raise TypeError("masked_indices: mask must be a 1-D wp.array of int32 (0 or 1)")
    device = mask.device
    n = mask.shape[0]
    offsets = borrow_temporary(temporary_store, shape=(n,), dtype=wp.int32, device=device)
    if n > 0:
        array_scan(mask, offsets, inclusive=True)
    if max_index_count < 0:
        max_index_count = int(offsets.numpy()[-1]) if n > 0 else 0
    max_index_count = min(max_index_count, n)  # never more local indices than entries
    if local_to_global is None or local_to_global.shape[0] != max_index_count:
        local_to_global = borrow_temporary(temporary_store, shape=(max_index_count,), dtype=wp.int32, device=device)
    if global_to_local is None or global_to_local.shape[0] != n:
        global_to_local = borrow_temporary(temporary_store, shape=(n,), dtype=wp.int32, device=device)
    if n > 0:
        wp.launch(_masked_indices_kernel, dim=n, device=device,
                  inputs=[int(missing_index), mask, offsets, local_to_global, global_to_local])
    else:
        local_to_global.fill_(missing_index)
    offsets.release()
    return local_to_global, global_to_local


# --- checks and host reads ------------------------------------------------------------------------

def host_read_at_index(array: wp.array, index: int = -1, temporary_store: TemporaryStore = None) -> int:
    """The element of a 1-D array at `index` (negative counts from the end), read on the host."""
    size = array.shape[0]
    if not -size <= index < size:
        raise IndexError(f"host_read_at_index: index {index} is out of range for an array of {size} elements")
    index %= size
    return array[index:index + 1].numpy()[0]


@wp.kernel
def _find_invalid_index(upper_bound: int, indices: wp.array(dtype=wp.int32), first_invalid: wp.array(dtype=wp.int32)):
    i = wp.tid()
    value = indices[i]
    if value < 0 or value >= upper_bound:
        wp.atomic_min(first_invalid, 0, i)


def check_first_invalid_index(first_invalid: wp.array, upper_bound: int, indices: wp.array, index_name: str) -> None:
    """Raise ValueError naming the entry at first_invalid[0] when it is a position of `indices`
    (flattened); first_invalid[0] >= indices.size means every index was valid."""
    position = int(first_invalid.numpy()[0])
    if position < indices.size:
        value = int(indices.flatten()[position:position + 1].numpy()[0])
        raise ValueError(f"{index_name} index {value} at flattened array index {position} is out of bounds; "
                         f"expected a value in [0, {upper_bound})")


def validate_indices_in_range(upper_bound: int, indices: wp.array, index_name: str,
                              temporary_store: TemporaryStore | None = None) -> None:
    """Raise ValueError for the first entry of `indices` outside [0, upper_bound)."""
    if indices.size == 0:
        return
    flat = indices.flatten() if indices.ndim > 1 else indices
    first_invalid = borrow_temporary(temporary_store, shape=(1,), dtype=wp.int32, device=indices.device)
    first_invalid.fill_(indices.size)
    wp.launch(_find_invalid_index, dim=flat.shape[0], device=indices.device,
              inputs=[int(upper_bound), flat, first_invalid])
    try:
        check_first_invalid_index(first_invalid, upper_bound, indices, index_name)
    finally:
        first_invalid.release()


# --- per-type elements ----------------------------------------------------------------------------

def _type_key(dtype) -> tuple:
    dtype = T.canonical_scalar(dtype)
    return (T.type_name(dtype), T.type_length(dtype), getattr(dtype, "_shape_", ()))


def type_zero_element(dtype):
    """A wp.func without arguments returning the zero of `dtype` (scalar, vector or matrix)."""
    dtype = T.canonical_scalar(dtype)
    if T.is_composite_type(dtype):
        @dynamic_func(suffix=_type_key(dtype))
        def zero_element():
            return dtype()
    else:
        @dynamic_func(suffix=_type_key(dtype))
        def zero_element():
            return dtype(0)
    return zero_element


def type_basis_element(dtype):
    """A wp.func `basis_element(coord: int)` returning the coord-th unit element of `dtype`: 1 for a
    scalar, the coord-th unit vector, or the matrix with a 1 at flattened (row-major) index coord."""
    dtype = T.canonical_scalar(dtype)
    kind = T.kind_of(dtype) if T.is_composite_type(dtype) else "scalar"
    if kind == "matrix":
        cols = dtype._shape_[1]
        one = dtype._wp_scalar_type_(1)

        @dynamic_func(suffix=_type_key(dtype))
        def basis_element(coord: int):
            m = dtype()
            m[coord // cols, coord % cols] = one
            return m
    elif kind == "vector":
        one = dtype._wp_scalar_type_(1)

        @dynamic_func(suffix=_type_key(dtype))
        def basis_element(coord: int):
            v = dtype()
            v[coord] = one
            return v
    else:
        @dynamic_func(suffix=_type_key(dtype))
        def basis_element(coord: int):
            return dtype(1)
    return basis_element

