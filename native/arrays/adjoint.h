// adjoint.h: what backward kernels need besides the builtins' own adjoints: accumulating into
// adjoint variables, scattering the adjoint of an array read into the array's gradient, reading
// the gradient of an array write, and the adjoints of the atomics.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "arrays/atomic.h"

namespace wpnb {

template <int N, typename T> struct vec_t;
template <int R, int C, typename T> struct mat_t;

// a += b for any value type with add(); arrays carry their gradients themselves (no-op).
template <typename T> WPNB_FN void accumulate(T& a, const T& b) { a = add(a, b); }
WPNB_FN void accumulate(bool&, const bool&) {}
template <typename T, int N> WPNB_FN void accumulate(array_t<T, N>&, const array_t<T, N>&) {}

// The gradient element of a (the same index arithmetic as index_c on the gradient buffer). W is
// the forward access's wrap mask: an index the compiler proved non-negative there is not wrapped
// here either, so the gradient walk stays as affine (and vectorisable) as the forward one.
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN T& grad_c(const array_t<T, N>& a, I... i) {
    array_t<T, N> g = a;
    g.data = a.grad;
    return index_c<Contiguous, W>(g, i...);
}

// value = a[i...] read in the forward pass: a.grad[i...] += adj_value. Threads may read the
// same element, so the add is atomic.
template <typename T, int N, typename... I>
WPNB_FN void adj_load(const array_t<T, N>& a, const T& adj_value, I... i) {
    if (a.grad) atomic_elem_add(&index_grad(a, i...), adj_value);
}

// adj_load for an array that every thread reads only at its own index: a plain add.
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN void adj_load_owned(const array_t<T, N>& a, const T& adj_value, I... i) {
    if (a.grad) accumulate(grad_c<Contiguous, W>(a, i...), adj_value);
}

// a[i...] = value in the forward pass: adj_value += a.grad[i...] (the gradient of the stored
// element), which is then consumed (zeroed): the value the element held before the store is dead,
// so nothing earlier gets gradient through it (Warp's final-write-wins; `a[i] = a[i] + 1` passes
// the gradient on once, not twice).
template <typename T, int N, typename... I>
WPNB_FN void adj_store(const array_t<T, N>& a, T& adj_value, I... i) {
    if (a.grad) {
        T& g = index_grad(a, i...);
        accumulate(adj_value, g);
        g = T();
    }
}
// adj_store of a kernel parameter, with index_c's arithmetic and the forward store's wrap mask.
template <bool Contiguous, unsigned W = WRAP_ALL, typename T, int N, typename... I>
WPNB_FN void adj_store_c(const array_t<T, N>& a, T& adj_value, I... i) {
    if (a.grad) {
        T& g = grad_c<Contiguous, W>(a, i...);
        accumulate(adj_value, g);
        g = T();
    }
}

// Consume the gradient of a component (or, below, a matrix row) after a component store's adjoint read it.
template <typename T> WPNB_FN void consume(T& g) { g = T(); }
template <int R, int C, typename T> WPNB_FN void consume_row(mat_t<R, C, T>& m, int32 i) {
    for (int j = 0; j < C; ++j) m.c[i][j] = T(0);
}

// Adjoints of the atomics: the added value's gradient is the element's gradient. For min/max
// only the value that ended up stored receives it (ties: every thread that wrote the winner).
#define WPNB_ADJ_ATOMIC_SUM(NAME, SIGN)                                                                      \
    template <typename T, typename I>                                                                         \
    WPNB_FN void adj_##NAME(const array_t<T, 1>& a, I i, T, array_t<T, 1>&, I&, T& adj_v, const T&) {         \
        if (a.grad) accumulate(adj_v, SIGN(index_grad(a, i))); }                                              \
    template <typename T, typename I, typename J>                                                             \
    WPNB_FN void adj_##NAME(const array_t<T, 2>& a, I i, J j, T, array_t<T, 2>&, I&, J&, T& adj_v, const T&) { \
        if (a.grad) accumulate(adj_v, SIGN(index_grad(a, i, j))); }                                           \
    template <typename T, typename I, typename J, typename K>                                                 \
    WPNB_FN void adj_##NAME(const array_t<T, 3>& a, I i, J j, K k, T, array_t<T, 3>&, I&, J&, K&, T& adj_v,   \
                            const T&) { if (a.grad) accumulate(adj_v, SIGN(index_grad(a, i, j, k))); }        \
    template <typename T, typename I, typename J, typename K, typename L>                                     \
    WPNB_FN void adj_##NAME(const array_t<T, 4>& a, I i, J j, K k, L l, T, array_t<T, 4>&, I&, J&, K&, L&,    \
                            T& adj_v, const T&) { if (a.grad) accumulate(adj_v, SIGN(index_grad(a, i, j, k, l))); }
#define WPNB_PLUS(x) (x)
#define WPNB_MINUS(x) neg(x)
WPNB_ADJ_ATOMIC_SUM(atomic_add, WPNB_PLUS)
WPNB_ADJ_ATOMIC_SUM(atomic_sub, WPNB_MINUS)
#undef WPNB_ADJ_ATOMIC_SUM
#undef WPNB_PLUS
#undef WPNB_MINUS

// Adjoint of atomic_min / atomic_max: the value's gradient flows where the value won, that is
// where the element's final content equals it (componentwise for vectors and matrices, which
// the forward pass also updates componentwise). Ties give every tied writer the gradient; a NaN value
// stored into a NaN slot won too (NaN != NaN, so it is checked apart, as Warp does).
template <typename T> WPNB_FN void adj_atomic_extreme(const T& stored, const T& grad, const T& v, T& adj_v) {
    typedef typename atomic_elem<T>::scalar S;
    const S* st = (const S*)&stored; const S* g = (const S*)&grad; const S* val = (const S*)&v; S* adj = (S*)&adj_v;
    for (int k = 0; k < int(atomic_elem<T>::count); ++k)
        if (st[k] == val[k] || (st[k] != st[k] && val[k] != val[k])) adj[k] = add(adj[k], g[k]);
}
#define WPNB_ADJ_ATOMIC_EXTREME(NAME)                                                                         \
    template <typename T, typename I>                                                                          \
    WPNB_FN void adj_##NAME(const array_t<T, 1>& a, I i, T v, array_t<T, 1>&, I&, T& adj_v, const T&) {        \
        if (a.grad) adj_atomic_extreme(index(a, i), index_grad(a, i), v, adj_v); }                             \
    template <typename T, typename I, typename J>                                                              \
    WPNB_FN void adj_##NAME(const array_t<T, 2>& a, I i, J j, T v, array_t<T, 2>&, I&, J&, T& adj_v, const T&) {\
        if (a.grad) adj_atomic_extreme(index(a, i, j), index_grad(a, i, j), v, adj_v); }                       \
    template <typename T, typename I, typename J, typename K>                                                  \
    WPNB_FN void adj_##NAME(const array_t<T, 3>& a, I i, J j, K k, T v, array_t<T, 3>&, I&, J&, K&, T& adj_v,   \
                            const T&) { if (a.grad) adj_atomic_extreme(index(a, i, j, k), index_grad(a, i, j, k), v, adj_v); } \
    template <typename T, typename I, typename J, typename K, typename L>                                      \
    WPNB_FN void adj_##NAME(const array_t<T, 4>& a, I i, J j, K k, L l, T v, array_t<T, 4>&, I&, J&, K&, L&,   \
                            T& adj_v, const T&) {                                                               \
        if (a.grad) adj_atomic_extreme(index(a, i, j, k, l), index_grad(a, i, j, k, l), v, adj_v); }
WPNB_ADJ_ATOMIC_EXTREME(atomic_min)
WPNB_ADJ_ATOMIC_EXTREME(atomic_max)
#undef WPNB_ADJ_ATOMIC_EXTREME

// Adjoint of a matrix row read m[i]: adj_m row i += adj_row.
template <int R, int C, typename T, typename I>
WPNB_FN void adj_add_row(mat_t<R, C, T>& adj_m, I i, const vec_t<C, T>& adj_row) {
    for (int c = 0; c < C; ++c) adj_m.c[i][c] = add(adj_m.c[i][c], adj_row.c[c]);
}

}  // namespace wpnb
