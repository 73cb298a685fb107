"""`wp.utils.array_scan` (prefix sums), `runlength_encode` and `array_cast`, as warp_nb kernels.

A scan is three launches: P threads each sum one contiguous chunk of the input (P <= 1024), one
thread turns the P chunk sums into exclusive offsets, and the P threads walk their chunks again
writing the running sums. Run-length encoding flags the first element of each run, scans the
flags into run numbers and scatters run values and starts; lengths are differences of starts."""

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import check_count, check_same_device, flat, kernel_per_dtype, name, same_type, scalar_of, scalar_view

_CHUNKS = 1024
_SCAN_SCALARS = (T.int32, T.int64, T.float32, T.float64)


@kernel_per_dtype
def _scan_kernels(dtype):
    def chunk_sums(values: wp.array(dtype=dtype), n: int, chunk: int, sums: wp.array(dtype=dtype)):
        t = wp.tid()
        s = dtype()
        for i in range(t * chunk, wp.min(n, (t + 1) * chunk)):
            s = s + values[i]
        sums[t] = s

    def offsets(sums: wp.array(dtype=dtype), p: int):
        running = dtype()
        for t in range(p):
            s = sums[t]
            sums[t] = running
            running = running + s

    def inclusive_scan(values: wp.array(dtype=dtype), n: int, chunk: int, sums: wp.array(dtype=dtype),
                       out: wp.array(dtype=dtype)):
        t = wp.tid()
        running = sums[t]
        for i in range(t * chunk, wp.min(n, (t + 1) * chunk)):
            running = running + values[i]
            out[i] = running

    def exclusive_scan(values: wp.array(dtype=dtype), n: int, chunk: int, sums: wp.array(dtype=dtype),
                       out: wp.array(dtype=dtype)):
        t = wp.tid()
        running = sums[t]
        for i in range(t * chunk, wp.min(n, (t + 1) * chunk)):
            v = values[i]
            out[i] = running
            running = running + v

    key = name(dtype)
    return {step: wp.kernel(fn, key=f"array_scan_{step}_{key}", enable_backward=False)
            for step, fn in (("sums", chunk_sums), ("offsets", offsets), ("inclusive", inclusive_scan),
                             ("exclusive", exclusive_scan))}


def _scan(values: array, out: array, inclusive: bool) -> None:
    """values and out: one-dimensional arrays of the same dtype and length, on one device."""
    n = values.size
    if n == 0:
        return
    p = min(n, _CHUNKS)
    chunk = (n + p - 1) // p
    p = (n + chunk - 1) // chunk
    kernels = _scan_kernels(values.dtype)
    sums = wp.empty(p, dtype=values.dtype, device=values.device)
    wp.launch(kernels["sums"], p, inputs=[values, n, chunk, sums], device=values.device)
    wp.launch(kernels["offsets"], 1, inputs=[sums, p], device=values.device)
    wp.launch(kernels["inclusive" if inclusive else "exclusive"], p, inputs=[values, n, chunk, sums, out], device=values.device)


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sums of in_array into out_array (same size and dtype: int32, int64, float32,
    float64, or vectors of them, component-wise; as in Warp, not matrices, quaternions or
    transforms): inclusive (out[i] = in[0] + ... + in[i]) or exclusive (out[i] = in[0] + ... +
    in[i-1], out[0] = 0). Either may be a strided view. An empty input is no error, whatever its
    type (Warp returns before it checks the type)."""
    check_same_device("In and out array storage devices", in_array, out_array)
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if not same_type(in_array.dtype, out_array.dtype):
        raise RuntimeError(f"In and out array data types do not match ({name(in_array.dtype)} vs "
                           f"{name(out_array.dtype)})")
    if in_array.size == 0:  # as Warp: nothing to scan, whatever the type
        return
    if scalar_of(in_array.dtype) not in _SCAN_SCALARS or T.kind_of(in_array.dtype) not in (None, "vector"):
        raise RuntimeError(f"Unsupported data type: {name(in_array.dtype)}")
    target = out_array if out_array.ndim == 1 or out_array.is_contiguous else wp.empty_like(out_array)
    _scan(flat(in_array), flat(target), inclusive)
    if target is not out_array:
        wp.copy(out_array, target)


# --- run-length encoding -------------------------------------------------------------------
@kernel_per_dtype
def _runlength_kernels():
    def heads(values: wp.array(dtype=wp.int32), flags: wp.array(dtype=wp.int32)):
        i = wp.tid()
        flags[i] = 1 if i == 0 or values[i] != values[i - 1] else 0

    def scatter(values: wp.array(dtype=wp.int32), flags: wp.array(dtype=wp.int32), runs: wp.array(dtype=wp.int32),
                n: int, run_values: wp.array(dtype=wp.int32), starts: wp.array(dtype=wp.int32),
                run_count: wp.array(dtype=wp.int32)):
        i = wp.tid()
        if flags[i] == 1:
            run_values[runs[i] - 1] = values[i]
            starts[runs[i] - 1] = i
        if i == n - 1:
            run_count[0] = runs[i]

    def lengths(starts: wp.array(dtype=wp.int32), n: int, run_count: wp.array(dtype=wp.int32),
                run_lengths: wp.array(dtype=wp.int32)):
        r = wp.tid()
        count = run_count[0]
        if r < count:
            end = n
            if r + 1 < count:
                end = starts[r + 1]
            run_lengths[r] = end - starts[r]

    return (wp.kernel(heads, key="runlength_heads", enable_backward=False),
            wp.kernel(scatter, key="runlength_scatter", enable_backward=False),
            wp.kernel(lengths, key="runlength_lengths", enable_backward=False))


def runlength_encode(values: array, run_values: array, run_lengths: array, run_count: array | None = None,
                     value_count: int | None = None):
    """Run-length encode the first value_count (default: all) int32 values: run_values[r] and
    run_lengths[r] for each run r of equal consecutive values. Returns the number of runs, or,
    when run_count (an int32 array) is given, writes it to run_count[0] and returns run_count
    (as Warp's does)."""
    if run_values.device != values.device or run_lengths.device != values.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if run_count is not None and run_count.device != values.device:
        raise RuntimeError("run_count storage device does not match other arrays")
    n = values.size if value_count is None else check_count(value_count, "value_count")
    if n < 0:
        raise RuntimeError(f"value_count must be non-negative, got {n}")
    if n > values.size:  # Warp reads past the end of values (garbage runs); refused instead
        raise RuntimeError(f"value_count ({n}) exceeds the number of values ({values.size})")
    if run_values.size < n or run_lengths.size < n:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({n})")
    if not same_type(values.dtype, run_values.dtype):
        raise RuntimeError(f"values and run_values data types do not match ({name(values.dtype)} vs "
                           f"{name(run_values.dtype)})")
    if run_lengths.dtype is not T.int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is not None and run_count.dtype is not T.int32:
        raise RuntimeError("run_count array must be of type int32")
    device = values.device
    from ..runtime import recording
    if run_count is None and n and recording.capture is not None:
        raise NotImplementedError("runlength_encode() returns the run count to Python, which a graph capture cannot "
                                  "record; pass a run_count array")
    count = run_count if run_count is not None else wp.zeros(1, dtype=T.int32, device=device)
    if n == 0:  # as Warp: no runs, whatever the values' type
        count.zero_()
    else:
        if values.dtype is not T.int32:
            raise RuntimeError(f"Unsupported data type: {name(values.dtype)}")
        heads, scatter, lengths = _runlength_kernels()
        src = flat(values)[:n]
        flags = wp.empty(n, dtype=T.int32, device=device)
        runs = wp.empty(n, dtype=T.int32, device=device)
        starts = wp.empty(n, dtype=T.int32, device=device)
        out_values, out_lengths = flat(run_values), flat(run_lengths)
        wp.launch(heads, n, inputs=[src, flags], device=device)
        _scan(flags, runs, True)
        wp.launch(scatter, n, inputs=[src, flags, runs, n, out_values, starts, count], device=device)
        wp.launch(lengths, n, inputs=[starts, n, count, out_lengths], device=device)
    if run_count is None:
        return int(count.numpy()[0])
    return run_count


# --- casts -------------------------------------------------------------------------------------
@kernel_per_dtype
def _cast_kernel(src_dtype, dst_dtype):
    def cast(src: wp.array(dtype=src_dtype), dst: wp.array(dtype=dst_dtype)):
        i = wp.tid()
        dst[i] = dst_dtype(src[i])

    return wp.kernel(cast, key=f"array_cast_{name(src_dtype)}_to_{name(dst_dtype)}", enable_backward=False)


def _cast_1d(src: array, dst: array, count) -> None:
    """Elements of the 1-D src into the 1-D dst (either may be strided): a copy when the types are
    the same (wp.copy's count, where 0 is everything, as Warp's call), else the first `count`
    (default: all of src) converted."""
    if same_type(src.dtype, dst.dtype):
        wp.copy(dst, src, count=0 if count is None else int(count))
        return
    n = src.size if count is None else int(count)
    if n > src.size or n > dst.size:
        raise RuntimeError(f"Cast count ({n}) exceeds the input size ({src.size}) or output size ({dst.size})")
    if n:  # (a negative count is refused by the launch, as in Warp)
        wp.launch(_cast_kernel(src.dtype, dst.dtype), n, inputs=[src[: max(n, 0)], dst[: max(n, 0)]],
                  device=src.device)


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Cast the elements of in_array into out_array's dtype, as Warp's does. Element types of
    other shapes (vec2 -> float32, float32 -> mat22) are cast scalar by scalar over the arrays'
    flattened scalars, count (in input elements) limiting it; arrays of other numbers of
    dimensions are flattened; otherwise arrays of several dimensions take no count short of their
    size, and need the same shape unless the types are the same: that is a copy (wp.copy, so a
    count of 0 copies everything and a larger array of the same number of dimensions is filled
    from its start). Strided arrays are read and written through their strides (Warp's
    scalar-level cast reads their storage as if contiguous)."""
    check_same_device("Array storage devices", in_array, out_array)
    in_shape, out_shape = T.numpy_inner_shape(in_array.dtype), T.numpy_inner_shape(out_array.dtype)
    if in_shape != out_shape:
        src = scalar_view(in_array)
        target = out_array if out_array.is_contiguous else out_array.contiguous()  # (keeps what is not written)
        dst = scalar_view(target)
        _cast_1d(src, dst, None if count is None else int(count) * T.type_length(in_array.dtype))
        if target is not out_array:
            out_array.assign(target)
        return
    if in_array.ndim != out_array.ndim:
        in_array = flat(in_array)
        if out_array.ndim != 1:
            target = out_array if out_array.is_contiguous else out_array.contiguous()
            _cast_1d(in_array, flat(target), count)
            if target is not out_array:
                out_array.assign(target)
            return
    if in_array.ndim > 1 and count is not None and int(count) < in_array.size:  # (the whole, or more, goes on)
        raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
    if same_type(in_array.dtype, out_array.dtype):  # wp.copy, as Warp's: other shapes of one size are copied
        wp.copy(out_array, in_array, count=0 if count is None else int(count))
        return
    if in_array.ndim > 1:
        if tuple(in_array.shape) != tuple(out_array.shape):
            raise RuntimeError(f"Array shapes do not match ({tuple(in_array.shape)} vs {tuple(out_array.shape)})")
        target = out_array if out_array.is_contiguous else wp.empty_like(out_array)
        _cast_1d(flat(in_array), flat(target), count)
        if target is not out_array:
            out_array.assign(target)
        return
    _cast_1d(in_array, out_array, count)
