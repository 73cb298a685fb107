// indexed_array.h: wp.indexedarray in kernels. An indexedarray_t is an array seen through one
// index array per dimension (a null pointer: the dimension taken whole); element access,
// gradients and atomics go through the indices to the underlying array, so every array builtin
// and the adjoint pass work on it unchanged.
#pragma once
#include "core/prelude.h"
#include "arrays/array.h"
#include "arrays/atomic.h"
#include "arrays/adjoint.h"

namespace wpnb {

// Layout matches what Python packs: the array's descriptor, N index pointers, the N-d shape.
template <typename T, int N>
struct indexedarray_t {
    array_t<T, N> arr;
    int32* indices[N];
    int64 shape[N];
};

// The position in the underlying array of index i along dimension d.
template <typename T, int N>
WPNB_FN int64 indexed_position(const indexedarray_t<T, N>& a, int d, int64 i) {
    i = wrap_index(i, a.shape[d]);  // negative indices count from the end of the indexed shape
    return a.indices[d] ? int64(a.indices[d][i]) : i;
}

template <typename T>
WPNB_FN T& index(const indexedarray_t<T, 1>& a, int64 i) { return index(a.arr, indexed_position(a, 0, i)); }
template <typename T>
WPNB_FN T& index(const indexedarray_t<T, 2>& a, int64 i, int64 j) {
    return index(a.arr, indexed_position(a, 0, i), indexed_position(a, 1, j));
}
template <typename T>
WPNB_FN T& index(const indexedarray_t<T, 3>& a, int64 i, int64 j, int64 k) {
    return index(a.arr, indexed_position(a, 0, i), indexed_position(a, 1, j), indexed_position(a, 2, k));
}
template <typename T>
WPNB_FN T& index(const indexedarray_t<T, 4>& a, int64 i, int64 j, int64 k, int64 l) {
    return index(a.arr, indexed_position(a, 0, i), indexed_position(a, 1, j), indexed_position(a, 2, k),
                 indexed_position(a, 3, l));
}

// The same element of the underlying array's gradient.
template <typename T, int N, typename... I>
WPNB_FN T& index_grad(const indexedarray_t<T, N>& a, I... i) {
    indexedarray_t<T, N> g = a;
    g.arr.data = a.arr.grad;
    return index(g, int64(i)...);
}

// The sub-array a[i] (first index fixed): the underlying array's view at the indexed position,
// seen through the remaining index arrays.
template <typename T, int N>
WPNB_FN indexedarray_t<T, N - 1> view(const indexedarray_t<T, N>& a, int64 i) {
    indexedarray_t<T, N - 1> r;
    r.arr = view(a.arr, indexed_position(a, 0, i));
    for (int d = 1; d < N; ++d) { r.indices[d - 1] = a.indices[d]; r.shape[d - 1] = a.shape[d]; }
    return r;
}
template <typename T, int N>
WPNB_FN indexedarray_t<T, N - 2> view(const indexedarray_t<T, N>& a, int64 i, int64 j) { return view(view(a, i), j); }
template <typename T, int N>
WPNB_FN indexedarray_t<T, N - 3> view(const indexedarray_t<T, N>& a, int64 i, int64 j, int64 k) {
    return view(view(view(a, i), j), k);
}

// An indexed array is never walked as contiguous memory.
template <typename T, int N> WPNB_FN bool last_dim_contiguous(const indexedarray_t<T, N>&) { return false; }
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_c(const indexedarray_t<T, N>& a, I... i) { return index(a, int64(i)...); }
template <bool Contiguous, typename T, int N, typename... I>
WPNB_FN T& grad_c(const indexedarray_t<T, N>& a, I... i) { return index_grad(a, i...); }

template <typename T, int N> WPNB_FN int32 len(const indexedarray_t<T, N>& a) { return int32(a.shape[0]); }
template <typename T, int N>
WPNB_FN bool array_is_valid(const indexedarray_t<T, N>& a) { return a.arr.data != nullptr; }

#if defined(WPNB_CHECKS) && WPNB_CHECKS
// index() with bounds checks against the indexed shape.
template <typename T, int N, typename... I>
WPNB_FN T& index_checked(const indexedarray_t<T, N>& a, int32 loc, I... i) {
    const int64 idx[N] = {int64(i)...};
    for (int d = 0; d < N; ++d) {
        const int64 w = wrap_index(idx[d], a.shape[d]);
        if (w < 0 || w >= a.shape[d]) {
            debug_fail(loc, d, idx, a.shape, N);
            return debug_scratch<T>();
        }
    }
    return index(a, int64(i)...);
}

template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_checked_c(const indexedarray_t<T, N>& a, int32 loc, I... i) { return index_checked(a, loc, i...); }
template <bool K, bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& index_k(const indexedarray_t<T, N>& a, int32 loc, I... i) { return index_checked(a, loc, i...); }

template <typename T, int N, typename... I>
WPNB_FN indexedarray_t<T, N - sizeof...(I)> view_checked(const indexedarray_t<T, N>& a, int32 loc, I... i) {
    const int64 idx[sizeof...(I)] = {int64(i)...};
    for (int d = 0; d < int(sizeof...(I)); ++d) {
        const int64 w = wrap_index(idx[d], a.shape[d]);
        if (w < 0 || w >= a.shape[d]) {
            debug_fail(loc, d, idx, a.shape, int32(sizeof...(I)));
            indexedarray_t<T, N - sizeof...(I)> empty = {};
            return empty;
        }
    }
    return view(a, i...);
}
#endif

// --- atomics and adjoints, element by element through the indices -----------------------------

#define WPNB_INDEXED_ATOMIC(NAME)                                                                         \
    template <typename T> WPNB_FN T atomic_##NAME(const indexedarray_t<T, 1>& a, int64 i, T v) {          \
        return atomic_elem_##NAME(&index(a, i), v); }                                                     \
    template <typename T> WPNB_FN T atomic_##NAME(const indexedarray_t<T, 2>& a, int64 i, int64 j, T v) { \
        return atomic_elem_##NAME(&index(a, i, j), v); }                                                 \
    template <typename T>                                                                                 \
    WPNB_FN T atomic_##NAME(const indexedarray_t<T, 3>& a, int64 i, int64 j, int64 k, T v) {              \
        return atomic_elem_##NAME(&index(a, i, j, k), v); }                                               \
    template <typename T>                                                                                 \
    WPNB_FN T atomic_##NAME(const indexedarray_t<T, 4>& a, int64 i, int64 j, int64 k, int64 l, T v) {     \
        return atomic_elem_##NAME(&index(a, i, j, k, l), v); }
WPNB_INDEXED_ATOMIC(add)
WPNB_INDEXED_ATOMIC(sub)
WPNB_INDEXED_ATOMIC(min)
WPNB_INDEXED_ATOMIC(max)
WPNB_INDEXED_ATOMIC(exch)
#undef WPNB_INDEXED_ATOMIC

template <typename T, int N> WPNB_FN void accumulate(indexedarray_t<T, N>&, const indexedarray_t<T, N>&) {}

template <typename T, int N, typename... I>
WPNB_FN void adj_load(const indexedarray_t<T, N>& a, const T& adj_value, I... i) {
    if (a.arr.grad) atomic_elem_add(&index_grad(a, i...), adj_value);
}
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN void adj_load_owned(const indexedarray_t<T, N>& a, const T& adj_value, I... i) {
    adj_load(a, adj_value, i...);  // indices may repeat an element: always atomic
}
template <typename T, int N, typename... I>
WPNB_FN void adj_store(const indexedarray_t<T, N>& a, T& adj_value, I... i) {
    if (a.arr.grad) accumulate(adj_value, index_grad(a, i...));
}
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN void adj_store_c(const indexedarray_t<T, N>& a, T& adj_value, I... i) {
    adj_store(a, adj_value, i...);
}

#define WPNB_INDEXED_ADJ_SUM(NAME, SIGN)                                                                     \
    template <typename T, typename... I>                                                                  \
    WPNB_FN void adj_##NAME##_indexed(const indexedarray_t<T, sizeof...(I)>& a, T& adj_v, I... i) {       \
        if (a.arr.grad) accumulate(adj_v, SIGN(index_grad(a, i...))); }                                   \
    template <typename T, typename I>                                                                     \
    WPNB_FN void adj_##NAME(const indexedarray_t<T, 1>& a, I i, T, indexedarray_t<T, 1>&, I&, T& adj_v,   \
                            const T&) { adj_##NAME##_indexed(a, adj_v, i); }                              \
    template <typename T, typename I, typename J>                                                         \
    WPNB_FN void adj_##NAME(const indexedarray_t<T, 2>& a, I i, J j, T, indexedarray_t<T, 2>&, I&, J&,    \
                            T& adj_v, const T&) { adj_##NAME##_indexed(a, adj_v, i, j); }                 \
    template <typename T, typename I, typename J, typename K>                                             \
    WPNB_FN void adj_##NAME(const indexedarray_t<T, 3>& a, I i, J j, K k, T, indexedarray_t<T, 3>&, I&,   \
                            J&, K&, T& adj_v, const T&) { adj_##NAME##_indexed(a, adj_v, i, j, k); }      \
    template <typename T, typename I, typename J, typename K, typename L>                                 \
    WPNB_FN void adj_##NAME(const indexedarray_t<T, 4>& a, I i, J j, K k, L l, T, indexedarray_t<T, 4>&,  \
                            I&, J&, K&, L&, T& adj_v, const T&) { adj_##NAME##_indexed(a, adj_v, i, j, k, l); }
#define WPNB_PLUS(x) (x)
#define WPNB_MINUS(x) neg(x)
WPNB_INDEXED_ADJ_SUM(atomic_add, WPNB_PLUS)
WPNB_INDEXED_ADJ_SUM(atomic_sub, WPNB_MINUS)
#undef WPNB_INDEXED_ADJ_SUM
#undef WPNB_PLUS
#undef WPNB_MINUS

}  // namespace wpnb
