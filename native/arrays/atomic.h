// atomic.h: atomic read-modify-write on array elements (atomic_add/sub/min/max/cas/exch/and/or/xor).
// Each returns the element's old value. What the target adds in one instruction (integers on the
// CPU, float32 and float64 on CUDA) uses that instruction; everything else is a compare-and-swap
// loop on the value's bits (the primitives are the prelude's, one definition per target). Vectors
// and matrices update each component atomically (not the whole element at once, as in Warp).
// Adjoints of add/sub/min/max live here too.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "arrays/deterministic.h"

namespace wpnb {

// --- primitive atomics on one scalar ------------------------------------------------------

// The unsigned integer type whose compare-and-swap updates a value of T (by size).
template <int Bytes> struct unsigned_of_size;
template <> struct unsigned_of_size<1> { typedef uint8 type; };
template <> struct unsigned_of_size<2> { typedef uint16 type; };
template <> struct unsigned_of_size<4> { typedef uint32 type; };
template <> struct unsigned_of_size<8> { typedef uint64 type; };
template <typename T> struct atomic_bits { typedef typename unsigned_of_size<sizeof(T)>::type type; };

// Apply `op(old)` atomically to *p; returns the old value. A compare-and-swap loop on the bits
// (the target's primitives: core/prelude_cpu.h, core/prelude_cuda.h).
template <typename T, typename Op>
WPNB_FN T atomic_rmw(T* p, Op op) {
    typedef typename atomic_bits<T>::type B;
    static_assert(sizeof(B) == sizeof(T), "atomic_rmw needs a same-size integer type");
    B* bp = (B*)p;
    B old_bits = atomic_load_bits(bp);
    for (;;) {
        const T old_value = bit_cast<T>(old_bits);
        const B new_bits = bit_cast<B>(op(old_value));
        if (atomic_cas_bits_weak(bp, old_bits, new_bits)) return old_value;
    }
}

template <typename T> struct op_add { T v; WPNB_FN T operator()(T x) const { return add(x, v); } };
template <typename T> struct op_sub { T v; WPNB_FN T operator()(T x) const { return sub(x, v); } };
template <typename T> struct op_min { T v; WPNB_FN T operator()(T x) const { return min(x, v); } };
template <typename T> struct op_max { T v; WPNB_FN T operator()(T x) const { return max(x, v); } };
template <typename T> struct op_set { T v; WPNB_FN T operator()(T) const { return v; } };
template <typename T> struct op_and { T v; WPNB_FN T operator()(T x) const { return bit_and(x, v); } };
template <typename T> struct op_or { T v; WPNB_FN T operator()(T x) const { return bit_or(x, v); } };
template <typename T> struct op_xor { T v; WPNB_FN T operator()(T x) const { return bit_xor(x, v); } };

// The types the target adds in one instruction (native_atomic_add, in the prelude) use it;
// everything else goes through atomic_rmw.
// In deterministic mode a float update may be logged instead, to land in thread order after the
// launch (arrays/deterministic.h); its result is then a zero the kernel does not use (the compiler
// refuses kernels that would).
template <typename T> WPNB_FN T scalar_atomic_add(T* p, T v) {
    if constexpr (WPNB_DETERMINISTIC && det_deferred<T>::value) {
        if (det_defer<DET_ADD>(p, v)) return T();
    }
    if constexpr (native_atomic_add<T>::value) {
        return atomic_add_native(p, v);
    } else {
        op_add<T> op = {v}; return atomic_rmw(p, op);
    }
}
template <> WPNB_FN bool scalar_atomic_add<bool>(bool* p, bool v) { return *p; (void)v; }

template <typename T> WPNB_FN T scalar_atomic_sub(T* p, T v) { return scalar_atomic_add(p, neg(v)); }
template <typename T> WPNB_FN T scalar_atomic_min(T* p, T v) {
    if constexpr (WPNB_DETERMINISTIC && det_deferred<T>::value) {
        if (det_defer<DET_MIN>(p, v)) return T();
    }
    op_min<T> op = {v}; return atomic_rmw(p, op);
}
template <typename T> WPNB_FN T scalar_atomic_max(T* p, T v) {
    if constexpr (WPNB_DETERMINISTIC && det_deferred<T>::value) {
        if (det_defer<DET_MAX>(p, v)) return T();
    }
    op_max<T> op = {v}; return atomic_rmw(p, op);
}
template <typename T> WPNB_FN T scalar_atomic_exch(T* p, T v) { op_set<T> op = {v}; return atomic_rmw(p, op); }
// atomic_and/or/xor: *p = *p & v (| v, ^ v) on integers, through the compare-and-swap loop.
template <typename T> WPNB_FN T scalar_atomic_and(T* p, T v) { op_and<T> op = {v}; return atomic_rmw(p, op); }
template <typename T> WPNB_FN T scalar_atomic_or(T* p, T v) { op_or<T> op = {v}; return atomic_rmw(p, op); }
template <typename T> WPNB_FN T scalar_atomic_xor(T* p, T v) { op_xor<T> op = {v}; return atomic_rmw(p, op); }
template <typename T> WPNB_FN T scalar_atomic_cas(T* p, T compare, T v) {
    typedef typename atomic_bits<T>::type B;
    return bit_cast<T>(atomic_cas_bits((B*)p, bit_cast<B>(compare), bit_cast<B>(v)));
}

// --- element-level atomics: scalars directly, composites componentwise ----------------------

template <typename T> struct atomic_elem {
    enum { count = 1 };
    typedef T scalar;
};
template <int N, typename T> struct vec_t;
template <int R, int C, typename T> struct mat_t;
template <int N, typename T> struct atomic_elem<vec_t<N, T>> { enum { count = N }; typedef T scalar; };
template <int R, int C, typename T> struct atomic_elem<mat_t<R, C, T>> { enum { count = R * C }; typedef T scalar; };
template <typename T> struct quat_t;
template <typename T> struct transform_t;
template <typename T> struct atomic_elem<quat_t<T>> { enum { count = 4 }; typedef T scalar; };
template <typename T> struct atomic_elem<transform_t<T>> { enum { count = 7 }; typedef T scalar; };

#define WPNB_ATOMIC_ELEMENT(NAME)                                                                   \
    template <typename E> WPNB_FN E atomic_elem_##NAME(E* p, const E& v) {                          \
        typedef typename atomic_elem<E>::scalar S;                                                    \
        E old;                                                                                        \
        S* ps = (S*)p; const S* vs = (const S*)&v; S* os = (S*)&old;                                 \
        for (int k = 0; k < int(atomic_elem<E>::count); ++k) os[k] = scalar_atomic_##NAME(ps + k, vs[k]); \
        return old;                                                                                   \
    }
WPNB_ATOMIC_ELEMENT(add)
WPNB_ATOMIC_ELEMENT(sub)
WPNB_ATOMIC_ELEMENT(min)
WPNB_ATOMIC_ELEMENT(max)
WPNB_ATOMIC_ELEMENT(exch)
WPNB_ATOMIC_ELEMENT(and)
WPNB_ATOMIC_ELEMENT(or)
WPNB_ATOMIC_ELEMENT(xor)
#undef WPNB_ATOMIC_ELEMENT

// atomic_NAME(arr, i[, j, k, l], value): the builtins as the compiler calls them (release mode).
#define WPNB_ATOMIC_BUILTIN(NAME)                                                                              \
    template <typename T> WPNB_FN T atomic_##NAME(const array_t<T, 1>& a, int64 i, T v) {                      \
        return atomic_elem_##NAME(&index(a, i), v); }                                                           \
    template <typename T> WPNB_FN T atomic_##NAME(const array_t<T, 2>& a, int64 i, int64 j, T v) {             \
        return atomic_elem_##NAME(&index(a, i, j), v); }                                                        \
    template <typename T> WPNB_FN T atomic_##NAME(const array_t<T, 3>& a, int64 i, int64 j, int64 k, T v) {    \
        return atomic_elem_##NAME(&index(a, i, j, k), v); }                                                     \
    template <typename T>                                                                                       \
    WPNB_FN T atomic_##NAME(const array_t<T, 4>& a, int64 i, int64 j, int64 k, int64 l, T v) {                 \
        return atomic_elem_##NAME(&index(a, i, j, k, l), v); }
WPNB_ATOMIC_BUILTIN(add)
WPNB_ATOMIC_BUILTIN(sub)
WPNB_ATOMIC_BUILTIN(min)
WPNB_ATOMIC_BUILTIN(max)
WPNB_ATOMIC_BUILTIN(exch)
WPNB_ATOMIC_BUILTIN(and)
WPNB_ATOMIC_BUILTIN(or)
WPNB_ATOMIC_BUILTIN(xor)
#undef WPNB_ATOMIC_BUILTIN

template <typename T> WPNB_FN T atomic_cas(const array_t<T, 1>& a, int64 i, T c, T v) { return scalar_atomic_cas(&index(a, i), c, v); }
template <typename T> WPNB_FN T atomic_cas(const array_t<T, 2>& a, int64 i, int64 j, T c, T v) {
    return scalar_atomic_cas(&index(a, i, j), c, v); }
template <typename T> WPNB_FN T atomic_cas(const array_t<T, 3>& a, int64 i, int64 j, int64 k, T c, T v) {
    return scalar_atomic_cas(&index(a, i, j, k), c, v); }
template <typename T> WPNB_FN T atomic_cas(const array_t<T, 4>& a, int64 i, int64 j, int64 k, int64 l, T c, T v) {
    return scalar_atomic_cas(&index(a, i, j, k, l), c, v); }

// Pointer forms for debug mode, where the element reference comes from index_checked.
#define WPNB_ATOMIC_PTR(NAME) \
    template <typename T> WPNB_FN T atomic_##NAME##_at(T& element, T v) { return atomic_elem_##NAME(&element, v); }
WPNB_ATOMIC_PTR(add)
WPNB_ATOMIC_PTR(sub)
WPNB_ATOMIC_PTR(min)
WPNB_ATOMIC_PTR(max)
WPNB_ATOMIC_PTR(exch)
WPNB_ATOMIC_PTR(and)
WPNB_ATOMIC_PTR(or)
WPNB_ATOMIC_PTR(xor)
#undef WPNB_ATOMIC_PTR
template <typename T> WPNB_FN T atomic_cas_at(T& element, T c, T v) { return scalar_atomic_cas(&element, c, v); }

// Sum of N partial sums, pairwise (the per-chunk reduction of a privatised atomic_add).
template <int N, typename T> WPNB_FN T fold_lanes(const T (&lanes)[N]) {
    T tmp[N];
    for (int k = 0; k < N; ++k) tmp[k] = lanes[k];
    for (int width = N / 2; width > 0; width /= 2)
        for (int k = 0; k < width; ++k) tmp[k] = add(tmp[k], tmp[k + width]);
    return tmp[0];
}

}  // namespace wpnb
