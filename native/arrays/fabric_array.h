// fabric_array.h: wp.fabricarray and wp.indexedfabricarray in kernels. A Fabric array is a 1-D
// sequence of elements stored in buckets (Omniverse Fabric's attribute storage): element i lives
// in the bucket whose [start, end) range holds i, at offset i - start. A Fabric array of arrays
// (N == 2) stores per element the address and length of a variable-length array; a[i] is then an
// array_t<T, 1> over it, so everything an array does works on the row. Fabric arrays carry no
// gradient storage (their `grad` is always null), so their adjoints add nothing.
#pragma once
#include "core/prelude.h"
#include "arrays/array.h"
#include "arrays/atomic.h"
#include "arrays/adjoint.h"

namespace wpnb {

// One row of the bucket table Python builds (warp_nb/arrays/fabric.py): the elements
// [start, end) at `data`; for an array of arrays, `data` holds one address per element and
// `lengths` one length per element.
struct fabric_bucket_t {
    int64 start;
    int64 end;
    uint64 data;
    uint64 lengths;
};

// Layout matches what Python packs: bucket table, bucket count, shape (shape[0]: the size; a
// Fabric array of arrays has no fixed second extent, shape[1] is 0).
template <typename T, int N>
struct fabricarray_t {
    const fabric_bucket_t* buckets;
    int64 nbuckets;
    int64 shape[N];
    static constexpr T* grad = nullptr;  // no gradient storage: `if (a.grad)` guards compile and skip
};

// A Fabric array seen through one int32 index array; shape[0] is the number of indices.
template <typename T, int N>
struct indexedfabricarray_t {
    fabricarray_t<T, N> fa;
    const int32* indices;
    int64 shape[N];
    static constexpr T* grad = nullptr;
};

// The bucket holding element i (0 <= i < size): a binary search over the ascending ranges.
template <typename T, int N>
WPNB_FN const fabric_bucket_t& fabric_bucket(const fabricarray_t<T, N>& a, int64 i) {
    int64 lo = 0, hi = a.nbuckets - 1;
    while (lo < hi) {
        const int64 mid = (lo + hi + 1) >> 1;
        if (a.buckets[mid].start <= i) lo = mid; else hi = mid - 1;
    }
    return a.buckets[lo];
}

// Position i of an indexed Fabric array in its Fabric array.
template <typename T, int N>
WPNB_FN int64 fabric_position(const indexedfabricarray_t<T, N>& a, int64 i) {
    return int64(a.indices[wrap_index(i, a.shape[0])]);
}

template <typename T>
WPNB_FN T& index(const fabricarray_t<T, 1>& a, int64 i) {
    i = wrap_index(i, a.shape[0]);
    const fabric_bucket_t& b = fabric_bucket(a, i);
    return ((T*)b.data)[i - b.start];
}
template <typename T>
WPNB_FN T& index(const indexedfabricarray_t<T, 1>& a, int64 i) { return index(a.fa, fabric_position(a, i)); }

// a[i] of a Fabric array of arrays: element i's array.
template <typename T>
WPNB_FN array_t<T, 1> view(const fabricarray_t<T, 2>& a, int64 i) {
    i = wrap_index(i, a.shape[0]);
    const fabric_bucket_t& b = fabric_bucket(a, i);
    array_t<T, 1> r;
    r.data = (T*)((const uint64*)b.data)[i - b.start];
    r.grad = nullptr;
    r.shape[0] = int64(((const uint64*)b.lengths)[i - b.start]);
    r.strides[0] = int64(sizeof(T));
    return r;
}
template <typename T>
WPNB_FN array_t<T, 1> view(const indexedfabricarray_t<T, 2>& a, int64 i) { return view(a.fa, fabric_position(a, i)); }

template <typename T>
WPNB_FN T& index(const fabricarray_t<T, 2>& a, int64 i, int64 j) { return index(view(a, i), j); }
template <typename T>
WPNB_FN T& index(const indexedfabricarray_t<T, 2>& a, int64 i, int64 j) { return index(view(a, i), j); }

// What the compiler calls for arrays in general; Fabric storage is never walked as contiguous memory.
#define WPNB_FABRIC_ACCESS(A)                                                                                  \
    template <typename T, int N> WPNB_FN bool last_dim_contiguous(const A<T, N>&) { return false; }            \
    template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>                        \
    WPNB_FN T& index_c(const A<T, N>& a, I... i) { return index(a, int64(i)...); }                             \
    /* never reached: a Fabric array's grad is null and every caller tests it first */                          \
    template <typename T, int N, typename... I>                                                                \
    WPNB_FN T& index_grad(const A<T, N>& a, I... i) { return index(a, int64(i)...); }                          \
    template <bool Contiguous, typename T, int N, typename... I>                                               \
    WPNB_FN T& grad_c(const A<T, N>& a, I... i) { return index(a, int64(i)...); }                              \
    template <typename T, int N> WPNB_FN int32 len(const A<T, N>& a) { return int32(a.shape[0]); }             \
    template <typename T, int N> WPNB_FN void accumulate(A<T, N>&, const A<T, N>&) {}                          \
    template <typename T, int N, typename... I> WPNB_FN void adj_load(const A<T, N>&, const T&, I...) {}       \
    template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>                        \
    WPNB_FN void adj_load_owned(const A<T, N>&, const T&, I...) {}                                             \
    template <typename T, int N, typename... I> WPNB_FN void adj_store(const A<T, N>&, T&, I...) {}            \
    template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>                        \
    WPNB_FN void adj_store_c(const A<T, N>&, T&, I...) {}
WPNB_FABRIC_ACCESS(fabricarray_t)
WPNB_FABRIC_ACCESS(indexedfabricarray_t)
#undef WPNB_FABRIC_ACCESS

template <typename T, int N>
WPNB_FN bool array_is_valid(const fabricarray_t<T, N>& a) { return a.buckets != nullptr || a.shape[0] == 0; }
template <typename T, int N>
WPNB_FN bool array_is_valid(const indexedfabricarray_t<T, N>& a) { return array_is_valid(a.fa); }

#if defined(WPNB_CHECKS) && WPNB_CHECKS
// The length of element i's array (a Fabric array of arrays); 0 for a Fabric array of values.
template <typename T> WPNB_FN int64 fabric_row_length(const fabricarray_t<T, 1>&, int64) { return 0; }
template <typename T> WPNB_FN int64 fabric_row_length(const indexedfabricarray_t<T, 1>&, int64) { return 0; }
template <typename T>
WPNB_FN int64 fabric_row_length(const fabricarray_t<T, 2>& a, int64 i) { return view(a, i).shape[0]; }
template <typename T>
WPNB_FN int64 fabric_row_length(const indexedfabricarray_t<T, 2>& a, int64 i) { return view(a, i).shape[0]; }

// The first index checked against the (indexed) size; a second one (an array of arrays) against
// the length of the element's array.
template <typename A>
WPNB_FN bool fabric_in_range(const A& a, int32 loc, const int64* idx, int32 n) {
    const int64 w = wrap_index(idx[0], a.shape[0]);
    if (w < 0 || w >= a.shape[0]) {
        debug_fail(loc, 0, idx, a.shape, n);
        return false;
    }
    if (n > 1) {
        const int64 len1 = fabric_row_length(a, idx[0]);
        const int64 shape[2] = {a.shape[0], len1};
        const int64 w1 = wrap_index(idx[1], len1);
        if (w1 < 0 || w1 >= len1) {
            debug_fail(loc, 1, idx, shape, n);
            return false;
        }
    }
    return true;
}

#define WPNB_FABRIC_CHECKED(A)                                                                                 \
    template <typename T, int N, typename... I>                                                                \
    WPNB_FN T& index_checked(const A<T, N>& a, int32 loc, I... i) {                                            \
        const int64 idx[sizeof...(I)] = {int64(i)...};                                                        \
        if (!fabric_in_range(a, loc, idx, int32(sizeof...(I)))) return debug_scratch<T>();                     \
        return index(a, int64(i)...);                                                                          \
    }                                                                                                          \
    template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>                        \
    WPNB_FN T& index_checked_c(const A<T, N>& a, int32 loc, I... i) { return index_checked(a, loc, i...); }    \
    template <bool K, bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>                 \
    WPNB_FN T& index_k(const A<T, N>& a, int32 loc, I... i) { return index_checked(a, loc, i...); }            \
    template <typename T, typename I>                                                                          \
    WPNB_FN array_t<T, 1> view_checked(const A<T, 2>& a, int32 loc, I i) {                                     \
        const int64 idx[1] = {int64(i)};                                                                      \
        if (!fabric_in_range(a, loc, idx, 1)) { array_t<T, 1> empty = {}; return empty; }                      \
        return view(a, int64(i));                                                                              \
    }
WPNB_FABRIC_CHECKED(fabricarray_t)
WPNB_FABRIC_CHECKED(indexedfabricarray_t)
#undef WPNB_FABRIC_CHECKED
#endif

// --- atomics element by element; no adjoints (no gradient storage) ----------------------------

#define WPNB_FABRIC_ATOMIC(NAME)                                                                               \
    template <typename T> WPNB_FN T atomic_##NAME(const fabricarray_t<T, 1>& a, int64 i, T v) {                \
        return atomic_elem_##NAME(&index(a, i), v); }                                                          \
    template <typename T> WPNB_FN T atomic_##NAME(const indexedfabricarray_t<T, 1>& a, int64 i, T v) {         \
        return atomic_elem_##NAME(&index(a, i), v); }                                                          \
    template <typename T> WPNB_FN T atomic_##NAME(const fabricarray_t<T, 2>& a, int64 i, int64 j, T v) {       \
        return atomic_elem_##NAME(&index(a, i, j), v); }                                                       \
    template <typename T> WPNB_FN T atomic_##NAME(const indexedfabricarray_t<T, 2>& a, int64 i, int64 j, T v) {\
        return atomic_elem_##NAME(&index(a, i, j), v); }                                                       \
    template <typename T, int N, typename... R>                                                                \
    WPNB_FN void adj_atomic_##NAME(const fabricarray_t<T, N>&, R&&...) {}                                      \
    template <typename T, int N, typename... R>                                                                \
    WPNB_FN void adj_atomic_##NAME(const indexedfabricarray_t<T, N>&, R&&...) {}
WPNB_FABRIC_ATOMIC(add)
WPNB_FABRIC_ATOMIC(sub)
WPNB_FABRIC_ATOMIC(min)
WPNB_FABRIC_ATOMIC(max)
WPNB_FABRIC_ATOMIC(exch)
WPNB_FABRIC_ATOMIC(and)
WPNB_FABRIC_ATOMIC(or)
WPNB_FABRIC_ATOMIC(xor)
#undef WPNB_FABRIC_ATOMIC

}  // namespace wpnb
