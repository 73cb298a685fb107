// array.h: array_t<T, N>, the kernel-side view of a wp.array (data and grad pointers, shape
// and byte strides), element access, sub-array views, and the debug-mode bounds checks that
// report the first out-of-bounds access to Python instead of touching memory.
#pragma once
#include "core/prelude.h"

namespace wpnb {

// Layout matches the descriptor Python packs for an array argument: data, grad, shape[N], strides[N].
template <typename T, int N>
struct array_t {
    T* data;
    T* grad;
    int64 shape[N];
    int64 strides[N];  // in bytes

    // a[i]: element i of a 1-D array (what @wp.func_native snippets write; no bounds check)
    WPNB_FN T& operator[](int64 i) const { return *(T*)((char*)data + i * strides[0]); }
};

// Whether an array argument holds an array: None passed from Python gives a null data pointer.
template <typename T, int N>
WPNB_FN bool array_is_valid(const array_t<T, N>& a) { return a.data != nullptr; }

// The gradient of `a` seen as an array of its own (a @wp.func_native adjoint's adj_<array>).
template <typename T, int N>
WPNB_FN array_t<T, N> grad_view(const array_t<T, N>& a) {
    array_t<T, N> g = a;
    g.data = a.grad;
    g.grad = nullptr;
    return g;
}


// Byte offset of element (i...) from strides; negative indices count from the end (no checks).
#define WPNB_AT(d, i) (wrap_index(i, a.shape[d]) * a.strides[d])
template <typename T, int N>
WPNB_FN int64 byte_offset(const array_t<T, N>& a, int64 i) { return WPNB_AT(0, i); }
template <typename T, int N>
WPNB_FN int64 byte_offset(const array_t<T, N>& a, int64 i, int64 j) { return WPNB_AT(0, i) + WPNB_AT(1, j); }
template <typename T, int N>
WPNB_FN int64 byte_offset(const array_t<T, N>& a, int64 i, int64 j, int64 k) {
    return WPNB_AT(0, i) + WPNB_AT(1, j) + WPNB_AT(2, k);
}
template <typename T, int N>
WPNB_FN int64 byte_offset(const array_t<T, N>& a, int64 i, int64 j, int64 k, int64 l) {
    return WPNB_AT(0, i) + WPNB_AT(1, j) + WPNB_AT(2, k) + WPNB_AT(3, l);
}
#undef WPNB_AT

// Reference to element (i...) of a; the number of indices must equal N (the compiler checks).
template <typename T, int N, typename... I>
WPNB_FN T& index(const array_t<T, N>& a, I... i) {
    static_assert(sizeof...(I) == N, "index needs one index per dimension");
    return *(T*)((char*)a.data + byte_offset(a, int64(i)...));
}

// Reference to the gradient of element (i...) (arrays without a gradient are never passed here).
template <typename T, int N, typename... I>
WPNB_FN T& index_grad(const array_t<T, N>& a, I... i) {
    return *(T*)((char*)a.grad + byte_offset(a, int64(i)...));
}

// Which axes of an access may hold a negative index (bit d: axis d), so need wrap_index. The
// compiler clears the bits of indices it proved non-negative (compiler/index_ranges.py): such an
// index costs no compare, and a loop over it stays a plain affine walk the C++ compiler vectorises.
constexpr unsigned WRAP_ALL = 15u;
template <unsigned W, int D> WPNB_FN int64 wrap_dim(int64 i, int64 n) { return ((W >> D) & 1u) ? wrap_index(i, n) : i; }

// index_c<true>: the same element for an array whose last dimension is contiguous (stride ==
// sizeof(T)), written as plain pointer arithmetic on T* so the C++ compiler can vectorise loops
// over the last index. Kernel entry points check the strides once and pick the version.
template <bool Contiguous, unsigned W, typename T, int N> struct contiguous_index;
template <unsigned W, typename T, int N> struct contiguous_index<false, W, T, N> {
    template <typename... I> static WPNB_FN T& at(const array_t<T, N>& a, I... i) {
        const int64 idx[N] = {int64(i)...};
        int64 offset = 0;
        for (int d = 0; d < N; ++d) offset += (((W >> d) & 1u) ? wrap_index(idx[d], a.shape[d]) : idx[d]) * a.strides[d];
        return *(T*)((char*)a.data + offset);
    }
};
template <unsigned W, typename T> struct contiguous_index<true, W, T, 1> {
    static WPNB_FN T& at(const array_t<T, 1>& a, int64 i) { return a.data[wrap_dim<W, 0>(i, a.shape[0])]; }
};
template <unsigned W, typename T> struct contiguous_index<true, W, T, 2> {
    static WPNB_FN T& at(const array_t<T, 2>& a, int64 i, int64 j) {
        return ((T*)((char*)a.data + wrap_dim<W, 0>(i, a.shape[0]) * a.strides[0]))[wrap_dim<W, 1>(j, a.shape[1])];
    }
};
template <unsigned W, typename T> struct contiguous_index<true, W, T, 3> {
    static WPNB_FN T& at(const array_t<T, 3>& a, int64 i, int64 j, int64 k) {
        return ((T*)((char*)a.data + wrap_dim<W, 0>(i, a.shape[0]) * a.strides[0] +
                     wrap_dim<W, 1>(j, a.shape[1]) * a.strides[1]))[wrap_dim<W, 2>(k, a.shape[2])];
    }
};
template <unsigned W, typename T> struct contiguous_index<true, W, T, 4> {
    static WPNB_FN T& at(const array_t<T, 4>& a, int64 i, int64 j, int64 k, int64 l) {
        return ((T*)((char*)a.data + wrap_dim<W, 0>(i, a.shape[0]) * a.strides[0] +
                     wrap_dim<W, 1>(j, a.shape[1]) * a.strides[1] + wrap_dim<W, 2>(k, a.shape[2]) * a.strides[2]))
            [wrap_dim<W, 3>(l, a.shape[3])];
    }
};
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_c(const array_t<T, N>& a, I... i) {
    return contiguous_index<Contiguous, W, T, N>::at(a, int64(i)...);
}

// Whether the last dimension of a is contiguous (what index_c<true> needs).
template <typename T, int N> WPNB_FN bool last_dim_contiguous(const array_t<T, N>& a) {
    return a.strides[N - 1] == int64(sizeof(T));
}

template <typename T, int N, typename... I>
WPNB_FN T load(const array_t<T, N>& a, I... i) { return index(a, i...); }

template <typename T, int N, typename... I>
WPNB_FN void store(const array_t<T, N>& a, T value, I... i) { index(a, i...) = value; }

// The sub-array a[i] (first index fixed): rank N-1, same strides for the rest.
template <typename T, int N>
WPNB_FN array_t<T, N - 1> view(const array_t<T, N>& a, int64 i) {
    array_t<T, N - 1> r;
    i = wrap_index(i, a.shape[0]);
    r.data = (T*)((char*)a.data + i * a.strides[0]);
    r.grad = a.grad ? (T*)((char*)a.grad + i * a.strides[0]) : (T*)0;
    for (int d = 1; d < N; ++d) { r.shape[d - 1] = a.shape[d]; r.strides[d - 1] = a.strides[d]; }
    return r;
}
template <typename T, int N>
WPNB_FN array_t<T, N - 2> view(const array_t<T, N>& a, int64 i, int64 j) { return view(view(a, i), j); }
template <typename T, int N>
WPNB_FN array_t<T, N - 3> view(const array_t<T, N>& a, int64 i, int64 j, int64 k) { return view(view(view(a, i), j), k); }

// wp.array(ptr=..., shape=..., dtype=...) in a kernel: a contiguous view of memory at an address.
template <typename T, int N, typename... D>
WPNB_FN array_t<T, N> array_at(uint64 ptr, D... dims) {
    array_t<T, N> r;
    const int64 shape[N] = {int64(dims)...};
    int64 stride = int64(sizeof(T));
    for (int d = N - 1; d >= 0; --d) { r.shape[d] = shape[d]; r.strides[d] = stride; stride *= shape[d]; }
    r.data = (T*)ptr;
    r.grad = (T*)0;
    return r;
}
// A fixed-size array made in a kernel (wp.zeros(shape=..., dtype=...)): `buffer` zeroed, viewed
// contiguously with the given shape. The buffer is a local of the function that made it.
template <typename T, int S, typename... D>
WPNB_FN array_t<T, int(sizeof...(D))> local_array(T (&buffer)[S], D... dims) {
    for (int k = 0; k < S; ++k) buffer[k] = T{};
    return array_at<T, int(sizeof...(D))>(uint64(buffer), dims...);
}

// A fixed-size array returned by a function: its S elements by value, in row-major order (made
// from the array the function returns; the caller copies them into its own buffer).
template <typename T, int S, int N>
struct fixed_array_t {
    T data[S];
    WPNB_FN fixed_array_t() { for (int k = 0; k < S; ++k) data[k] = T{}; }
    WPNB_FN fixed_array_t(const array_t<T, N>& a) {
        int64 idx[N] = {};
        for (int k = 0; k < S; ++k) {  // element k of a, walking its indices in row-major order
            int64 offset = 0;
            for (int d = 0; d < N; ++d) offset += idx[d] * a.strides[d];
            data[k] = *(const T*)((const char*)a.data + offset);
            for (int d = N - 1; d >= 0; --d) { if (++idx[d] < a.shape[d]) break; idx[d] = 0; }
        }
    }
};
template <typename T, int S, int N, typename... D>
WPNB_FN array_t<T, N> local_array_from(T (&buffer)[S], const fixed_array_t<T, S, N>& value, D... dims) {
    for (int k = 0; k < S; ++k) buffer[k] = value.data[k];
    return array_at<T, N>(uint64(buffer), dims...);
}

// len(a): the size of the first dimension.
template <typename T, int N> WPNB_FN int32 len(const array_t<T, N>& a) { return int32(a.shape[0]); }

#if defined(WPNB_CHECKS) && WPNB_CHECKS
// A scratch element returned by a failed checked access, so the kernel goes on without
// touching memory outside the array (its result is discarded: the launch raises).
template <typename T> WPNB_FN T& debug_scratch() {
    static_assert(sizeof(T) <= 4096, "element type too large for the debug scratch slot");
    alignas(16) WPNB_SCRATCH_STORAGE char slot[4096];  // (static on the CPU, __shared__ on CUDA)
    return *(T*)slot;
}

// The cold path of a failed checked access: report the first axis out of bounds. Out of line, and
// given values only (no address of the array or its indices escapes), so the checked access
// itself stays a compare and a branch that the compiler keeps in registers.
WPNB_COLD_FN void index_failed(int32 loc, int32 n, int64 i0, int64 s0, int64 i1, int64 s1, int64 i2, int64 s2,
                               int64 i3, int64 s3) {
    const int64 idx[4] = {i0, i1, i2, i3}, shape[4] = {s0, s1, s2, s3};
    for (int d = 0; d < n; ++d) {
        const int64 w = wrap_index(idx[d], shape[d]);
        if (w < 0 || w >= shape[d]) { debug_fail(loc, d, idx, shape, n); break; }
    }
}

// The slow path of a checked access, taken when some index is not already in [0, size): wrap the
// axes W says may be negative, check, and give the element's address, or report the first axis
// out of bounds (index_failed) and give a scratch slot. Out of line and given values only, like
// index_failed, so the fast path below keeps the array and its indices in registers.
WPNB_COLD_FN char* index_slow(char* data, unsigned w, int32 loc, int32 n, int64 i0, int64 s0, int64 t0, int64 i1,
                              int64 s1, int64 t1, int64 i2, int64 s2, int64 t2, int64 i3, int64 s3, int64 t3) {
    const int64 idx[4] = {i0, i1, i2, i3}, shape[4] = {s0, s1, s2, s3}, stride[4] = {t0, t1, t2, t3};
    int64 offset = 0;
    for (int d = 0; d < n; ++d) {
        const int64 k = ((w >> d) & 1u) ? wrap_index(idx[d], shape[d]) : idx[d];
        if (k < 0 || k >= shape[d]) {
            index_failed(loc, n, i0, s0, i1, s1, i2, s2, i3, s3);
            return &debug_scratch<char[4096]>()[0];
        }
        offset += k * stride[d];
    }
    return data + offset;
}

// index_c<Contiguous, W>() with bounds checks: an out-of-bounds index (after negative indices
// wrap, on the axes W says may be negative) is reported with its source location and touches no
// memory outside the array. The fast path is one unsigned compare per axis, no early exit and no
// wrap: an index in [0, size) needs none, so the address stays an affine function of the index
// (a loop counter's access is a pointer walk, as in release code). A negative index that wraps
// into range, and a failure, take the slow path.
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_checked_c(const array_t<T, N>& a, int32 loc, I... i) {
    const int64 idx[N] = {int64(i)...};
    bool ok = true;
    for (int d = 0; d < N; ++d) ok &= uint64(idx[d]) < uint64(a.shape[d]);
    if (__builtin_expect(ok, 1)) return index_c<Contiguous, 0u>(a, i...);
#define WPNB_AXIS(d) (N > d ? idx[N > d ? d : 0] : 0), (N > d ? a.shape[N > d ? d : 0] : 0), \
                     (N > d ? a.strides[N > d ? d : 0] : 0)
    return *(T*)index_slow((char*)a.data, W, loc, N, WPNB_AXIS(0), WPNB_AXIS(1), WPNB_AXIS(2), WPNB_AXIS(3));
#undef WPNB_AXIS
}

// A checked access in a kernel body compiled twice (compiler/index_ranges.py): with K true, checked;
// with K false, in the version the entry point runs once it has checked, for the whole chunk of
// threads, that every index of this access is in range, so neither a check nor a wrap is needed.
template <bool K, bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_k(const array_t<T, N>& a, int32 loc, I... i) {
    if (K) return index_checked_c<Contiguous, W>(a, loc, i...);
    return index_c<Contiguous, 0u>(a, i...);
}
template <typename T, int N, typename... I>
WPNB_FN T& index_checked(const array_t<T, N>& a, int32 loc, I... i) { return index_checked_c<false>(a, loc, i...); }

template <typename T, int N, typename... I>
WPNB_FN array_t<T, N - sizeof...(I)> view_checked(const array_t<T, N>& a, int32 loc, I... i) {
    const int64 idx[sizeof...(I)] = {int64(i)...};
    for (int d = 0; d < int(sizeof...(I)); ++d) {
        const int64 w = wrap_index(idx[d], a.shape[d]);
        if (w < 0 || w >= a.shape[d]) {
            debug_fail(loc, d, idx, a.shape, int32(sizeof...(I)));
            array_t<T, N - sizeof...(I)> empty = {};
            return empty;
        }
    }
    return view(a, i...);
}

// assert (checked and debug modes): a false condition is reported with its source location.
// `kind`: -1 an assert, -2 a NaN or infinity stored into an array (wp.config.verify_fp in debug mode).
WPNB_FN void debug_check(bool cond, int32 loc, int32 kind = -1) {
    if (!cond) debug_fail(loc, kind, (const int64*)0, (const int64*)0, 0);
}
#endif

}  // namespace wpnb
