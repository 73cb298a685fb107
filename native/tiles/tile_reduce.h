// tile_reduce.h: what reduces tiles: sums (also along an axis, of 3-D and 4-D tiles too, with the
// broadcast that is their adjoint's shape), extrema and their positions, tile_reduce with any
// operator, and scans, each followed by its adjoint. In a partial block they count only the
// elements of the lanes inside the launch (tile_counted). Included by tile_ops.h.
#pragma once
#include "tiles/tile.h"

namespace wpnb {

// --- which elements a reduction or scan counts ---------------------------------------------------
// Warp hands element k of a tile to lane k % block_dim of the block, so in a partial last block
// (lanes outside the launch do not run) the elements of the missing lanes take no part in
// reductions and scans. With every lane running (a full block, or the CPU's one lane) every
// element counts, and the test below is one comparison per reduction.
struct tile_counted {
    int32 lanes, active;
    WPNB_FN tile_counted() : lanes(block_dim()), active(block_members()) {}
    WPNB_FN bool all() const { return active >= lanes; }
    WPNB_FN bool operator()(int k) const { return active >= lanes || k % lanes < active; }
};
// The identities a reduction of no element gives: the largest and lowest value of a scalar type
// (+inf and -inf for floats), for wp.min and wp.max.
template <typename T> WPNB_FN T tile_top() {
    if (scalar_is_float<T>::value) return T(bits_float(0x7f800000u));
    if (T(-1) < T(0)) return T((uint64(1) << (sizeof(T) * 8 - 1)) - 1);
    return T(~uint64(0));
}
template <typename T> WPNB_FN T tile_bottom() {
    if (scalar_is_float<T>::value) return T(bits_float(0xff800000u));
    if (T(-1) < T(0)) return T(-tile_top<T>() - T(1));
    return T(0);
}
// A tile_reduce operator without an identity (a @wp.func): a line with no counted element is a
// failed check at `site` in checked code (a RuntimeError after the launch, where Warp aborts), and
// gives T() otherwise.
struct no_identity {
    int32 site;
    WPNB_FN explicit no_identity(int32 s = -1) : site(s) {}
};
template <typename T> WPNB_FN T identity_or_zero(const no_identity& none) {
#if defined(WPNB_CHECKS) && WPNB_CHECKS
    if (none.site >= 0) debug_fail(none.site, -3, nullptr, nullptr, 0);  // (-3: runtime/debug.py NAMED_FAILURE)
#endif
    (void)none;
    return T();
}
template <typename T, typename I> WPNB_FN T identity_or_zero(const I& identity) { return T(identity); }

// --- 3-D and 4-D tiles: broadcasting and sums along an axis -------------------------------------
// Shapes padded in front to four extents: E (the result's, or the source's for a sum), S (the
// source's for a broadcast); element (i0, i1, i2, i3) is at flat index ((i0 E1 + i1) E2 + i2) E3 + i3.

template <int E0, int E1, int E2, int E3, int S0, int S1, int S2, int S3, typename T, int R, int C>
WPNB_FN tile_t<T, E0 * E1 * E2, E3> tile_broadcast_nd(const tile_t<T, R, C>& a) {
    tile_t<T, E0 * E1 * E2, E3> out;
    int k = 0;
    for (int i0 = 0; i0 < E0; ++i0) for (int i1 = 0; i1 < E1; ++i1) for (int i2 = 0; i2 < E2; ++i2)
        for (int i3 = 0; i3 < E3; ++i3, ++k)
            out.data[k] = a.data[(((S0 == 1 ? 0 : i0) * S1 + (S1 == 1 ? 0 : i1)) * S2 + (S2 == 1 ? 0 : i2)) * S3 + (S3 == 1 ? 0 : i3)];
    return out;
}
template <int E0, int E1, int E2, int E3, int S0, int S1, int S2, int S3, typename T, int R, int C>
WPNB_FN void adj_tile_broadcast_nd(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, E0 * E1 * E2, E3>& adj_ret) {
    int k = 0;
    for (int i0 = 0; i0 < E0; ++i0) for (int i1 = 0; i1 < E1; ++i1) for (int i2 = 0; i2 < E2; ++i2)
        for (int i3 = 0; i3 < E3; ++i3, ++k)
            accumulate(adj_a.data[(((S0 == 1 ? 0 : i0) * S1 + (S1 == 1 ? 0 : i1)) * S2 + (S2 == 1 ? 0 : i2)) * S3 +
                                  (S3 == 1 ? 0 : i3)], adj_ret.data[k]);
}

// The flat index in the result of a reduction along (padded) axis AX of element (i0, i1, i2, i3).
template <int AX, int E0, int E1, int E2, int E3>
WPNB_FN int tile_reduced_index(int i0, int i1, int i2, int i3) {
    const int e[4] = {E0, E1, E2, E3}, i[4] = {i0, i1, i2, i3};
    int flat = 0;
    for (int d = 0; d < 4; ++d)
        if (d != AX) flat = flat * e[d] + i[d];
    return flat;
}
template <int AX, int E0, int E1, int E2, int E3, int R2, int C2, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_sum_axis_nd(const tile_t<T, R, C>& a) {
    tile_t<T, R2, C2> out;
    const tile_counted counted;
    int k = 0;
    for (int i0 = 0; i0 < E0; ++i0) for (int i1 = 0; i1 < E1; ++i1) for (int i2 = 0; i2 < E2; ++i2)
        for (int i3 = 0; i3 < E3; ++i3, ++k) {
            if (!counted(k)) continue;
            T& into = out.data[tile_reduced_index<AX, E0, E1, E2, E3>(i0, i1, i2, i3)];
            into = add(into, a.data[k]);
        }
    return out;
}
template <int AX, int E0, int E1, int E2, int E3, int R2, int C2, typename T, int R, int C>
WPNB_FN void adj_tile_sum_axis_nd(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R2, C2>& adj_ret) {
    const tile_counted counted;
    int k = 0;
    for (int i0 = 0; i0 < E0; ++i0) for (int i1 = 0; i1 < E1; ++i1) for (int i2 = 0; i2 < E2; ++i2)
        for (int i3 = 0; i3 < E3; ++i3, ++k)
            if (counted(k)) accumulate(adj_a.data[k], adj_ret.data[tile_reduced_index<AX, E0, E1, E2, E3>(i0, i1, i2, i3)]);
}

// --- reductions (results are 1-element tiles, as in Warp) --------------------------------------

template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_sum(const tile_t<T, R, C>& a) {
    const tile_counted counted;
    if (counted.all()) return tile_from_value(tile_total(a));
    T s = T();
    for (int k = 0; k < R * C; ++k) if (counted(k)) s = add(s, a.data[k]);
    return tile_from_value(s);
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_sum(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, 1, 1>& adj_ret) {
    const tile_counted counted;
    for (int k = 0; k < R * C; ++k) if (counted(k)) accumulate(adj_a.data[k], adj_ret.data[0]);
}

// The flat (row-major) index of the first smallest / largest element.
template <typename T, int R, int C>
WPNB_FN int32 tile_first_min(const tile_t<T, R, C>& a) {
    const tile_counted counted;
    int32 best = 0;  // (lane 0, which owns element 0, always runs)
    for (int k = 1; k < R * C; ++k) if (counted(k) && a.data[k] < a.data[best]) best = k;
    return best;
}
template <typename T, int R, int C>
WPNB_FN int32 tile_first_max(const tile_t<T, R, C>& a) {
    const tile_counted counted;
    int32 best = 0;
    for (int k = 1; k < R * C; ++k) if (counted(k) && a.data[k] > a.data[best]) best = k;
    return best;
}
template <typename T, int R, int C>
WPNB_FN tile_t<int32, 1, 1> tile_argmin(const tile_t<T, R, C>& a) { return tile_from_value(tile_first_min(a)); }
template <typename T, int R, int C>
WPNB_FN tile_t<int32, 1, 1> tile_argmax(const tile_t<T, R, C>& a) { return tile_from_value(tile_first_max(a)); }

// The smallest / largest element; its adjoint goes to the first element that has that value.
template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_min(const tile_t<T, R, C>& a) { return tile_from_value(a.data[tile_first_min(a)]); }
template <typename T, int R, int C>
WPNB_FN void adj_tile_min(const tile_t<T, R, C>& a, tile_t<T, R, C>& adj_a, const tile_t<T, 1, 1>& adj_ret) {
    accumulate(adj_a.data[tile_first_min(a)], adj_ret.data[0]);
}
template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_max(const tile_t<T, R, C>& a) { return tile_from_value(a.data[tile_first_max(a)]); }
template <typename T, int R, int C>
WPNB_FN void adj_tile_max(const tile_t<T, R, C>& a, tile_t<T, R, C>& adj_a, const tile_t<T, 1, 1>& adj_ret) {
    accumulate(adj_a.data[tile_first_max(a)], adj_ret.data[0]);
}

// --- reductions along one axis (axis 0 of an R x C tile gives C values, axis 1 gives R) ---------

// Line l of the reduction along AXIS, element m of it: a.at(m, l) for axis 0, a.at(l, m) for axis 1.
template <int AXIS, typename T, int R, int C>
WPNB_FN int32 tile_axis_index(int l, int m) { return AXIS == 0 ? m * C + l : l * C + m; }

template <int AXIS, typename T, int R, int C>
WPNB_FN tile_t<T, AXIS == 0 ? C : R, 1> tile_sum_axis(const tile_t<T, R, C>& a) {
    tile_t<T, AXIS == 0 ? C : R, 1> out;
    const tile_counted counted;
    for (int l = 0; l < (AXIS == 0 ? C : R); ++l)
        for (int m = 0; m < (AXIS == 0 ? R : C); ++m) {
            const int32 k = tile_axis_index<AXIS, T, R, C>(l, m);
            if (counted(k)) out.data[l] = add(out.data[l], a.data[k]);
        }
    return out;
}
template <int AXIS, typename T, int R, int C>
WPNB_FN void adj_tile_sum_axis(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, AXIS == 0 ? C : R, 1>& adj_ret) {
    const tile_counted counted;
    for (int l = 0; l < (AXIS == 0 ? C : R); ++l)
        for (int m = 0; m < (AXIS == 0 ? R : C); ++m) {
            const int32 k = tile_axis_index<AXIS, T, R, C>(l, m);
            if (counted(k)) accumulate(adj_a.data[k], adj_ret.data[l]);
        }
}

// The position (in the line) of the first extreme of each line (-1: the line has no counted element).
template <int AXIS, bool MAX, typename T, int R, int C>
WPNB_FN int32 tile_axis_best(const tile_t<T, R, C>& a, int l) {
    const tile_counted counted;
    int32 best = -1;
    for (int m = 0; m < (AXIS == 0 ? R : C); ++m) {
        if (!counted(tile_axis_index<AXIS, T, R, C>(l, m))) continue;
        if (best < 0) { best = m; continue; }
        const T x = a.data[tile_axis_index<AXIS, T, R, C>(l, m)], b = a.data[tile_axis_index<AXIS, T, R, C>(l, best)];
        if (MAX ? x > b : x < b) best = m;
    }
    return best;
}
#define WPNB_TILE_EXTREME_AXIS(NAME, ARGNAME, MAX)                                                          \
    template <int AXIS, typename T, int R, int C>                                                             \
    WPNB_FN tile_t<T, AXIS == 0 ? C : R, 1> NAME(const tile_t<T, R, C>& a) {                                  \
        tile_t<T, AXIS == 0 ? C : R, 1> out;                                                                  \
        for (int l = 0; l < (AXIS == 0 ? C : R); ++l) {                                                       \
            const int32 best = tile_axis_best<AXIS, MAX>(a, l);                                               \
            out.data[l] = best < 0 ? (MAX ? tile_bottom<T>() : tile_top<T>())                                 \
                                   : a.data[tile_axis_index<AXIS, T, R, C>(l, best)];                         \
        }                                                                                                     \
        return out;                                                                                           \
    }                                                                                                         \
    template <int AXIS, typename T, int R, int C>                                                             \
    WPNB_FN void adj_##NAME(const tile_t<T, R, C>& a, tile_t<T, R, C>& adj_a,                                 \
                            const tile_t<T, AXIS == 0 ? C : R, 1>& adj_ret) {                                 \
        for (int l = 0; l < (AXIS == 0 ? C : R); ++l) {                                                       \
            const int32 best = tile_axis_best<AXIS, MAX>(a, l);                                               \
            if (best >= 0) accumulate(adj_a.data[tile_axis_index<AXIS, T, R, C>(l, best)], adj_ret.data[l]);  \
        }                                                                                                     \
    }                                                                                                         \
    template <int AXIS, typename T, int R, int C>                                                             \
    WPNB_FN tile_t<int32, AXIS == 0 ? C : R, 1> ARGNAME(const tile_t<T, R, C>& a) {                           \
        tile_t<int32, AXIS == 0 ? C : R, 1> out;                                                              \
        for (int l = 0; l < (AXIS == 0 ? C : R); ++l) out.data[l] = tile_axis_best<AXIS, MAX>(a, l);          \
        return out;                                                                                           \
    }
WPNB_TILE_EXTREME_AXIS(tile_max_axis, tile_argmax_axis, true)
WPNB_TILE_EXTREME_AXIS(tile_min_axis, tile_argmin_axis, false)
#undef WPNB_TILE_EXTREME_AXIS

// tile_reduce(f, a, axis): f folded along each line over its counted elements; a line with none
// gives f's identity (wp.add 0, wp.mul 1, wp.min / wp.max the largest / lowest value; T() for an
// operator without one). Not differentiated.
template <int AXIS, typename F, typename I>
struct tile_axis_reducer {
    F f;
    I identity;
    template <typename T, int R, int C>
    WPNB_FN tile_t<T, AXIS == 0 ? C : R, 1> operator()(const tile_t<T, R, C>& a) const {
        tile_t<T, AXIS == 0 ? C : R, 1> out;
        const tile_counted counted;
        for (int l = 0; l < (AXIS == 0 ? C : R); ++l) {
            bool any = false;
            T acc = T();
            for (int m = 0; m < (AXIS == 0 ? R : C); ++m) {
                const int32 k = tile_axis_index<AXIS, T, R, C>(l, m);
                if (!counted(k)) continue;
                acc = any ? f(acc, a.data[k]) : a.data[k];
                any = true;
            }
            out.data[l] = any ? acc : identity_or_zero<T>(identity);
        }
        return out;
    }
};
template <int AXIS, typename F>
WPNB_FN tile_axis_reducer<AXIS, F, no_identity> reduce_axis_with(F f) { return tile_axis_reducer<AXIS, F, no_identity>{f, no_identity()}; }
template <int AXIS, typename F, typename I>
WPNB_FN tile_axis_reducer<AXIS, F, I> reduce_axis_with(F f, I identity) { return tile_axis_reducer<AXIS, F, I>{f, identity}; }

// --- scans (row-major order) ------------------------------------------------------------------

// Inclusive / exclusive prefix sums. Adjoint: suffix sums of the result's adjoint. Elements that
// do not count (a partial block's) are skipped: they neither add nor receive gradient, and their
// positions show the running value.
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_scan_inclusive(const tile_t<T, R, C>& a) {
    tile_t<T, R, C> out;
    const tile_counted counted;
    T s = T();
    WPNB_CUDA_UNROLL(4)
    for (int k = 0; k < R * C; ++k) out.data[k] = s = counted(k) ? add(s, a.data[k]) : s;
    return out;
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_scan_inclusive(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R, C>& adj_ret) {
    const tile_counted counted;
    T s = T();
    WPNB_CUDA_UNROLL(4)
    for (int k = R * C - 1; k >= 0; --k)
        if (counted(k)) accumulate(adj_a.data[k], s = add(s, adj_ret.data[k]));
}
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_scan_exclusive(const tile_t<T, R, C>& a) {
    tile_t<T, R, C> out;
    const tile_counted counted;
    T s = T();
    WPNB_CUDA_UNROLL(4)
    for (int k = 0; k < R * C; ++k) { out.data[k] = s; if (counted(k)) s = add(s, a.data[k]); }
    return out;
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_scan_exclusive(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R, C>& adj_ret) {
    const tile_counted counted;
    T s = T();
    WPNB_CUDA_UNROLL(4)
    for (int k = R * C - 1; k >= 0; --k) if (counted(k)) { accumulate(adj_a.data[k], s); s = add(s, adj_ret.data[k]); }
}

// Running maximum / minimum; a NaN is skipped as C's fmax / fmin do (not differentiated).
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_scan_max_inclusive(const tile_t<T, R, C>& a) {
    tile_t<T, R, C> out;
    const tile_counted counted;
    T m = a.data[0];  // (element 0 is lane 0's, which always runs)
    WPNB_CUDA_UNROLL(4)
    for (int k = 0; k < R * C; ++k) {
        const T x = a.data[k];
        if (counted(k) && (x > m || m != m)) m = x;
        out.data[k] = m;
    }
    return out;
}
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_scan_min_inclusive(const tile_t<T, R, C>& a) {
    tile_t<T, R, C> out;
    const tile_counted counted;
    T m = a.data[0];  // (element 0 is lane 0's, which always runs)
    WPNB_CUDA_UNROLL(4)
    for (int k = 0; k < R * C; ++k) {
        const T x = a.data[k];
        if (counted(k) && (x < m || m != m)) m = x;
        out.data[k] = m;
    }
    return out;
}

// tile_reduce(f, a): f folded over the counted elements in row-major order, starting from the
// first (element 0, lane 0's, always counts); not differentiated.
template <typename F>
struct tile_reducer {
    F f;
    template <typename T, int R, int C>
    WPNB_FN tile_t<T, 1, 1> operator()(const tile_t<T, R, C>& a) const {
        const tile_counted counted;
        T acc = a.data[0];
        for (int k = 1; k < R * C; ++k) if (counted(k)) acc = f(acc, a.data[k]);
        return tile_from_value(acc);
    }
};
template <typename F>
WPNB_FN tile_reducer<F> reduce_with(F f) { return tile_reducer<F>{f}; }
template <typename F, typename I>
WPNB_FN tile_reducer<F> reduce_with(F f, I) { return tile_reducer<F>{f}; }  // (never empty: lane 0 runs)

}  // namespace wpnb
