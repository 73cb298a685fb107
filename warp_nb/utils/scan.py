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
    float64, or vectors and matrices of them): inclusive (out[i] = in[0] + ... + in[i]) or
    exclusive (out[i] = in[0] + ... + in[i-1], out[0] = 0). Either may be a strided view."""
    check_same_device("In and out array storage devices", in_array, out_array)
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if not same_type(in_array.dtype, out_array.dtype):
        raise RuntimeError(f"In and out array data types do not match ({name(in_array.dtype)} vs "
                           f"{name(out_array.dtype)})")
    if scalar_of(in_array.dtype) not in _SCAN_SCALARS:
        raise RuntimeError(f"Unsupported data type: {name(in_array.dtype)}")
    if in_array.size == 0:
        return
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
    run_lengths[r] for each run r of equal consecutive values. Returns the number of runs, or
    writes it to run_count[0] when run_count (an int32 array) is given."""
    if run_values.device != values.device or run_lengths.device != values.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if run_count is not None and run_count.device != values.device:
        raise RuntimeError("run_count storage device does not match other arrays")
    n = values.size if value_count is None else check_count(value_count, "value_count")
    if n < 0:
        raise RuntimeError(f"value_count must be non-negative, got {n}")
    if run_values.size < n or run_lengths.size < n:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({n})")
    if not same_type(values.dtype, run_values.dtype):
        raise RuntimeError(f"values and run_values data types do not match ({name(values.dtype)} vs "
                           f"{name(run_values.dtype)})")
    if run_lengths.dtype is not T.int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is not None and run_count.dtype is not T.int32:
        raise RuntimeError("run_count array must be of type int32")
    if values.dtype is not T.int32:
        raise RuntimeError(f"Unsupported data type: {name(values.dtype)}")
    device = values.device
    from ..runtime import recording
    if run_count is None and n and recording.capture is not None:
        raise NotImplementedError("runlength_encode() returns the run count to Python, which a graph capture cannot "
                                  "record; pass a run_count array")
    count = run_count if run_count is not None else wp.zeros(1, dtype=T.int32, device=device)
    if n == 0:
        count.zero_()
    else:
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
    return None


# --- casts -------------------------------------------------------------------------------------
@kernel_per_dtype
def _cast_kernel(src_dtype, dst_dtype):
    def cast(src: wp.array(dtype=src_dtype), dst: wp.array(dtype=dst_dtype)):
        i = wp.tid()
        dst[i] = dst_dtype(src[i])

    return wp.kernel(cast, key=f"array_cast_{name(src_dtype)}_to_{name(dst_dtype)}", enable_backward=False)


def _launch_cast(src: array, dst: array, n: int) -> None:
    if n:
        wp.launch(_cast_kernel(src.dtype, dst.dtype), n, inputs=[src[:n], dst[:n]], device=src.device)


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Cast the elements of in_array into out_array's dtype. Arrays whose element shapes differ
    (vec2 -> float) are cast scalar by scalar over their flattened storage; count (one-dimensional
    arrays only) limits the cast to the first count input elements. The same dtype is a copy."""
    check_same_device("Array storage devices", in_array, out_array)
    if count is not None and (in_array.ndim > 1 or out_array.ndim > 1):
        raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
    if in_array.ndim > 1 and in_array.ndim == out_array.ndim and tuple(in_array.shape) != tuple(out_array.shape):
        raise RuntimeError(f"Array shapes do not match ({tuple(in_array.shape)} vs {tuple(out_array.shape)})")
    same_shape = T.numpy_inner_shape(in_array.dtype) == T.numpy_inner_shape(out_array.dtype)
    if same_shape:
        n = in_array.size if count is None else int(count)
        if n > in_array.size or n > out_array.size:
            raise RuntimeError(f"Cast count ({n}) exceeds the input size ({in_array.size}) or output size "
                               f"({out_array.size})")
        if same_type(in_array.dtype, out_array.dtype):
            wp.copy(out_array, in_array, count=n) if in_array.ndim == 1 else out_array.assign(in_array)
            return
        if T.type_length(in_array.dtype) == 1:
            target = out_array if out_array.is_contiguous else wp.empty(out_array.shape, dtype=out_array.dtype,
                                                                         device=out_array.device)
            _launch_cast(flat(in_array), flat(target), n)
            if target is not out_array:
                wp.copy(out_array, target)
            return
        scale = T.type_length(in_array.dtype)
    else:
        scale = T.type_length(in_array.dtype)
        n = in_array.size if count is None else int(count)
    src, dst = scalar_view(in_array), scalar_view(out_array)
    n_scalars = n * scale
    if n_scalars > src.size or n_scalars > dst.size:
        raise RuntimeError(f"Cast count ({n}) exceeds the input size ({in_array.size}) or output size "
                           f"({out_array.size})")
    _launch_cast(src, dst, n_scalars)
    if not out_array.is_contiguous:
        out_array.assign(dst.numpy().reshape(out_array.shape + T.numpy_inner_shape(out_array.dtype)))
