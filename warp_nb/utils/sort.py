"""`wp.utils.radix_sort_pairs` and `wp.utils.segmented_sort_pairs`, as warp_nb kernels. Both sort
the first `count` keys with their values in place and use elements [count, 2 * count) of the same
arrays as scratch, as Warp does.

Radix sort: a stable least-significant-digit sort, 8 bits a pass. Keys are seen as unsigned bit
patterns ordered like the keys (the sign bit of signed integers flipped; for floats, all bits
flipped when negative, the sign bit otherwise). Each pass: P threads count the digits of their
chunk of the keys, an exclusive scan of the counts (digit-major) gives every (digit, chunk) its
first output slot, and each thread scatters its chunk in order, which keeps the sort stable.

Segmented sort: one thread per segment runs a stable bottom-up merge sort of its range, on the
keys' bit patterns in the radix sort's order (so float keys sort as Warp's: -0.0 before +0.0)."""

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import check_count, kernel_per_dtype, name, named_func
from .scan import _scan

_RADIX_KEYS = (T.int32, T.uint32, T.float32, T.int64, T.uint64, T.float64)
_SEGMENTED = ((T.int32, T.int32), (T.float32, T.int32))
_DIGIT_BITS = 8
_INT32_MAX = 2**31 - 1


def _bits_type(dtype):
    return T.uint32 if T.type_size_in_bytes(dtype) == 4 else T.uint64


def _order_kind(dtype) -> str:
    if T.is_float_type(dtype):
        return "float"
    return "signed" if dtype in (T.int32, T.int64) else "unsigned"


@kernel_per_dtype
def _orderings(bits):
    """Functions bits -> bits that order like the key type (unsigned, signed, float)."""
    top = 8 * T.type_size_in_bytes(bits) - 1  # the sign bit

    def unsigned_order(k: bits):
        return k

    def signed_order(k: bits):
        return k ^ (bits(1) << bits(top))

    def float_order(k: bits):
        sign = bits(1) << bits(top)
        if (k & sign) != bits(0):
            return ~k
        return k ^ sign

    suffix = name(bits)
    return {"unsigned": named_func(unsigned_order, suffix), "signed": named_func(signed_order, suffix),
            "float": named_func(float_order, suffix)}


@kernel_per_dtype
def _radix_kernels(kbits, vbits, kind: str):
    order = _orderings(kbits)[kind]
    buckets = 1 << _DIGIT_BITS

    def count_digits(keys: wp.array(dtype=kbits), n: int, chunk: int, p: int, shift: kbits, mask: kbits,
                     counts: wp.array(dtype=wp.int32)):
        t = wp.tid()
        for d in range(buckets):
            counts[d * p + t] = 0
        for i in range(t * chunk, wp.min(n, (t + 1) * chunk)):
            slot = wp.int32((order(keys[i]) >> shift) & mask) * p + t
            counts[slot] = counts[slot] + 1

    def scatter(keys: wp.array(dtype=kbits), values: wp.array(dtype=vbits), n: int, chunk: int, p: int,
                shift: kbits, mask: kbits, offsets: wp.array(dtype=wp.int32), keys_out: wp.array(dtype=kbits),
                values_out: wp.array(dtype=vbits)):
        t = wp.tid()
        for i in range(t * chunk, wp.min(n, (t + 1) * chunk)):
            k = keys[i]
            slot = wp.int32((order(k) >> shift) & mask) * p + t
            at = offsets[slot]
            offsets[slot] = at + 1
            keys_out[at] = k
            values_out[at] = values[i]

    key = f"{name(kbits)}_{name(vbits)}_{kind}"
    return (wp.kernel(count_digits, key=f"radix_sort_count_{key}", enable_backward=False),
            wp.kernel(scatter, key=f"radix_sort_scatter_{key}", enable_backward=False))


def _bit_view(a: array, start: int, n: int) -> array:
    """Elements [start, start + n) of a contiguous array, seen as unsigned bit patterns."""
    bits = _bits_type(a.dtype)
    address = (a.ptr or 0) + start * T.type_size_in_bytes(a.dtype)  # (ptr None: an empty allocation)
    return array(ptr=address, dtype=bits, shape=(n,), device=a.device, owner=a)


def radix_sort_pairs(keys: array, values: array, count: int, begin_bit: int = 0, end_bit: int | None = None):
    """Sort keys[:count] (int32, uint32, float32, int64, uint64 or float64) ascending, stably,
    moving values[:count] (of any type 4 or 8 bytes wide: int32, vec2, vec2h, ...) with them;
    only bits [begin_bit, end_bit) of the keys are compared. Both arrays must be contiguous and
    hold at least 2 * count elements (the rest is scratch). A count of 0 returns at once and a
    negative one sorts nothing, as in Warp."""
    if keys.device != values.device:
        raise RuntimeError(f"Keys and values array storage devices do not match ({keys.device} vs {values.device})")
    count = check_count(count)
    if count == 0:  # as Warp: nothing to sort, and nothing else is checked
        return
    for what, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"radix_sort_pairs() requires a contiguous {what} array, got non-contiguous {what} "
                               f"with data types: {name(keys.dtype)}, {name(values.dtype)}")
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    if keys.dtype not in _RADIX_KEYS or T.type_size_in_bytes(values.dtype) not in (4, 8):
        raise RuntimeError(f"Unsupported keys and values data types: {name(keys.dtype)}, {name(values.dtype)}")
    key_bits = 8 * T.type_size_in_bytes(keys.dtype)
    end_bit = key_bits if end_bit is None else int(end_bit)
    if not 0 <= int(begin_bit) <= end_bit <= key_bits:
        raise RuntimeError(f"Invalid radix sort bit range [{begin_bit}, {end_bit}) for {key_bits}-bit keys")
    if count < 0 or begin_bit == end_bit:  # a negative count sorts nothing, as in Warp
        return
    device, n = keys.device, count
    kbits, vbits = _bits_type(keys.dtype), _bits_type(values.dtype)
    count_kernel, scatter_kernel = _radix_kernels(kbits, vbits, _order_kind(keys.dtype))
    p = min(1024, max(1, n // 256))
    chunk = (n + p - 1) // p
    p = (n + chunk - 1) // chunk
    halves = [(_bit_view(keys, 0, n), _bit_view(values, 0, n)), (_bit_view(keys, n, n), _bit_view(values, n, n))]
    counts = wp.empty(p << _DIGIT_BITS, dtype=T.int32, device=device)
    offsets = wp.empty_like(counts)
    src = 0
    for shift in range(int(begin_bit), end_bit, _DIGIT_BITS):
        width = min(_DIGIT_BITS, end_bit - shift)
        shift_bits, mask = kbits(shift), kbits((1 << width) - 1)
        (keys_in, values_in), (keys_out, values_out) = halves[src], halves[1 - src]
        wp.launch(count_kernel, p, inputs=[keys_in, n, chunk, p, shift_bits, mask, counts], device=device)
        _scan(counts, offsets, False)
        wp.launch(scatter_kernel, p, inputs=[keys_in, values_in, n, chunk, p, shift_bits, mask, offsets, keys_out,
                                             values_out], device=device)
        src = 1 - src
    if src == 1:
        wp.copy(keys, keys, dest_offset=0, src_offset=n, count=n)
        wp.copy(values, values, dest_offset=0, src_offset=n, count=n)


# --- segmented sort --------------------------------------------------------------------------
@kernel_per_dtype
def _segmented_kernel(kind: str):
    """Keys and values as 32-bit patterns; keys ordered as radix_sort_pairs orders them (floats:
    -NaN < -inf < ... < -0.0 < +0.0 < ... < inf < NaN, Warp's order here too)."""
    order = _orderings(T.uint32)[kind]

    def merge_sort_segments(keys: wp.array(dtype=wp.uint32), values: wp.array(dtype=wp.uint32), count: int,
                            starts: wp.array(dtype=wp.int32), ends: wp.array(dtype=wp.int32)):
        s = wp.tid()
        lo = starts[s]
        length = ends[s] - lo
        if lo >= 0 and length > 0 and ends[s] <= count:  # an invalid range sorts nothing
            src = 0  # where the data is now: 0 the sort range, 1 the scratch half
            width = 1
            while width < length:
                a_base = src * count + lo
                b_base = (1 - src) * count + lo
                i = 0
                while i < length:
                    mid = wp.min(i + width, length)
                    end = wp.min(i + 2 * width, length)
                    a = i
                    b = mid
                    o = i
                    while o < end:
                        take_b = a >= mid or (b < end and order(keys[a_base + b]) < order(keys[a_base + a]))
                        if take_b:
                            keys[b_base + o] = keys[a_base + b]
                            values[b_base + o] = values[a_base + b]
                            b += 1
                        else:
                            keys[b_base + o] = keys[a_base + a]
                            values[b_base + o] = values[a_base + a]
                            a += 1
                        o += 1
                    i += 2 * width
                src = 1 - src
                width *= 2
            if src == 1:
                for j in range(length):
                    keys[lo + j] = keys[count + lo + j]
                    values[lo + j] = values[count + lo + j]

    return wp.kernel(merge_sort_segments, key=f"segmented_sort_{kind}", enable_backward=False)


def _check_segmented_arguments(keys, values, count, starts, ends) -> None:
    if keys.device != values.device or starts.device != keys.device or ends is not None and ends.device != keys.device:
        raise RuntimeError("Keys, values, and segment index array storage devices must match")
    if starts.ndim != 1:
        raise RuntimeError("segment_start_indices must be one-dimensional")
    if ends is not None and ends.ndim != 1:
        raise RuntimeError("segment_end_indices must be one-dimensional")
    if ends is not None and starts.size != ends.size:
        raise RuntimeError(f"segment_start_indices and segment_end_indices must have the same size "
                           f"({starts.size} vs {ends.size})")
    for what, a in (("keys", keys), ("values", values), ("segment_start_indices", starts),
                    ("segment_end_indices", ends)):
        if a is not None and not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {what} array")
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Array storage must be large enough to contain 2*count elements")
    for what, a in (("segment_start_indices", starts), ("segment_end_indices", ends)):
        if a is not None and a.dtype is not T.int32:
            raise RuntimeError(f"{what} array must be of type int32")


def segmented_sort_pairs(keys: array, values: array, count: int, segment_start_indices: array,
                         segment_end_indices: array | None = None) -> None:
    """Sort keys (int32 or float32) with their int32 values within each segment
    [segment_start_indices[i], segment_end_indices[i]) of the first count elements, stably; float
    keys in radix_sort_pairs' order (-0.0 before +0.0, NaNs by sign at either end), as Warp's.
    Without segment_end_indices, segment i ends where segment i + 1 starts (the last offset only
    closes the last segment). Arrays hold at least 2 * count elements (the rest is scratch); keys
    and values may have several dimensions (their storage is what is sorted).
    On the CPU a malformed range raises ValueError before anything is sorted; on a GPU (where
    the offsets are not read back) it sorts nothing. As in Warp, a count of 0 returns before the
    arrays are checked, and no segments before the key and value types are."""
    count = check_count(count)
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    if count > _INT32_MAX:
        raise ValueError(f"count must not exceed {_INT32_MAX}, got {count}")
    if count == 0:
        return
    starts, ends = segment_start_indices, segment_end_indices
    _check_segmented_arguments(keys, values, count, starts, ends)
    if ends is None:
        starts, ends = starts[: max(starts.size - 1, 0)], starts[1:]
    if starts.size == 0:
        return
    if (keys.dtype, values.dtype) not in _SEGMENTED:
        raise RuntimeError(f"Unsupported data type: {name(keys.dtype)}")
    if keys.device.is_cpu:
        _check_segments(starts, ends, count, ValueError)
        from ..runtime import recording
        if recording.capture is not None:  # checked again each time the graph runs (as Warp, a RuntimeError)
            recording.capture.record(recording.Operation(
                "check", lambda: _check_segments(starts, ends, count, RuntimeError)))
    kind = "float" if keys.dtype is T.float32 else "signed"
    wp.launch(_segmented_kernel(kind), starts.size, device=keys.device,
              inputs=[_bit_view(keys, 0, keys.size), _bit_view(values, 0, values.size), count, starts, ends])


def _check_segments(starts: array, ends: array, count: int, error) -> None:
    lo, hi = starts.numpy(), ends.numpy()
    bad = np.flatnonzero((lo < 0) | (hi > count) | (hi < lo))
    if bad.size:
        i = int(bad[0])
        raise error(f"Invalid segment range at index {i}: [{lo[i]}, {hi[i]}) is not within [0, {count}]")
