// array_slice.h: slices of arrays inside kernels (a[1:n:2, i], a[::-1]): a view with some axes
// indexed (dropped) and some sliced (kept, with a new length and a stride times the step), over
// the same memory and the same gradient memory. Bounds follow Python's slice.indices.
#pragma once
#include "core/prelude.h"
#include "arrays/array.h"

namespace wpnb {

// One axis of a slice expression: an index (the axis is dropped), or start:stop:step with flags
// saying which bounds were written (a missing bound depends on the step's sign).
struct slice_axis_t {
    int64 start, stop, step;
    int32 given;  // bit 0: start written, bit 1: stop written
    int32 keep;   // 1: a slice (axis kept), 0: an index (axis dropped)
};

WPNB_FN slice_axis_t slice_index(int64 i) { slice_axis_t s = {i, 0, 1, 0, 0}; return s; }
WPNB_FN slice_axis_t slice_range(int64 start, int64 stop, int64 step, int32 given) {
    slice_axis_t s = {start, stop, step, given, 1};
    return s;
}

namespace slice_detail {
// The first position and the length of start:stop:step over n elements (Python's rules; a zero
// step gives an empty axis: the type checker refuses a constant zero step).
WPNB_FN void resolve(const slice_axis_t& s, int64 n, int64& first, int64& length) {
    const int64 step = s.step;
    if (step == 0) { first = 0; length = 0; return; }
    int64 start, stop;
    if (step > 0) {
        start = (s.given & 1) ? (s.start < 0 ? (s.start + n < 0 ? 0 : s.start + n) : (s.start > n ? n : s.start)) : 0;
        stop = (s.given & 2) ? (s.stop < 0 ? (s.stop + n < 0 ? 0 : s.stop + n) : (s.stop > n ? n : s.stop)) : n;
        length = stop > start ? (stop - start + step - 1) / step : 0;
    } else {
        start = (s.given & 1) ? (s.start < 0 ? (s.start + n < 0 ? -1 : s.start + n) : (s.start >= n ? n - 1 : s.start))
                              : n - 1;
        stop = (s.given & 2) ? (s.stop < 0 ? (s.stop + n < 0 ? -1 : s.stop + n) : (s.stop >= n ? n - 1 : s.stop)) : -1;
        length = start > stop ? (start - stop - step - 1) / (-step) : 0;
    }
    first = length > 0 ? start : 0;
}
}  // namespace slice_detail

// a[axes...] for M kept axes (slices, plus the axes after the last one written).
template <int M, typename T, int N, typename... S>
WPNB_FN array_t<T, M> array_slice(const array_t<T, N>& a, S... axes) {
    const slice_axis_t s[] = {axes...};
    const int K = int(sizeof...(S));
    array_t<T, M> r = {};
    int64 offset = 0;
    int out = 0;
    for (int d = 0; d < K; ++d) {
        const int64 n = a.shape[d];
        if (!s[d].keep) {
            const int64 i = s[d].start < 0 ? s[d].start + n : s[d].start;  // negative indices wrap
            offset += i * a.strides[d];
            continue;
        }
        int64 first, length;
        slice_detail::resolve(s[d], n, first, length);
        offset += first * a.strides[d];
        r.shape[out] = length;
        r.strides[out] = a.strides[d] * s[d].step;
        ++out;
    }
    for (int d = K; d < N; ++d) { r.shape[out] = a.shape[d]; r.strides[out] = a.strides[d]; ++out; }
    r.data = (T*)((char*)a.data + offset);
    r.grad = a.grad ? (T*)((char*)a.grad + offset) : (T*)0;
    return r;
}

}  // namespace wpnb
