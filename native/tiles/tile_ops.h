// tile_ops.h: what rearranges and multiplies tiles (transpose, broadcast, view, reshape, astype,
// element reads, sorting, matrix products), each followed by its adjoint; the reductions and scans
// are in tile_reduce.h, the tile type itself in tile.h.
#pragma once
#include "tiles/tile.h"
#include "tiles/tile_nd.h"  // the parts of 3-D and 4-D tiles (t[i], t[a:b] = u)
#include "tiles/tile_reduce.h"  // sums, extrema, tile_reduce and scans (over the elements a block counts)

namespace wpnb {

// --- rearranging without arithmetic ----------------------------------------------------------

// The transpose of a 2-D tile.
template <typename T, int R, int C>
WPNB_FN tile_t<T, C, R> tile_transpose(const tile_t<T, R, C>& a) {
    tile_t<T, C, R> out;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) out.at(j, i) = a.at(i, j);
    return out;
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_transpose(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, C, R>& adj_ret) {
    accumulate(adj_a, tile_transpose(adj_ret));
}

// a repeated to shape (R2, C2). (SR, SC) is a's shape in the result's axes (a 1-D tile of n is a
// row, (1, n), as numpy aligns shapes on the right); an axis of extent 1 repeats (the compiler
// checked the others match). Adjoint: the repeated elements' adjoints summed back.
template <int R2, int C2, int SR, int SC, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_broadcast(const tile_t<T, R, C>& a) {
    static_assert(SR * SC == R * C, "tile_broadcast: the source shape keeps the number of elements");
    tile_t<T, R2, C2> out;
    for (int i = 0; i < R2; ++i)
        for (int j = 0; j < C2; ++j) out.at(i, j) = a.data[(SR == 1 ? 0 : i) * SC + (SC == 1 ? 0 : j)];
    return out;
}
template <int R2, int C2, int SR, int SC, typename T, int R, int C>
WPNB_FN void adj_tile_broadcast(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R2, C2>& adj_ret) {
    for (int i = 0; i < R2; ++i)
        for (int j = 0; j < C2; ++j) accumulate(adj_a.data[(SR == 1 ? 0 : i) * SC + (SC == 1 ? 0 : j)], adj_ret.at(i, j));
}

// The part of a of shape (VR, VC) (in a's axes) starting at (o0, o1), stored with shape (R2, C2)
// of the same size (Warp's tile_view: a view of a row of a 2-D tile is a 1-D tile; a copy here).
// Elements beyond the source tile read 0.
template <int VR, int VC, int R2, int C2, typename T, int R, int C, typename I, typename J>
WPNB_FN tile_t<T, R2, C2> tile_view(const tile_t<T, R, C>& a, I o0, J o1) {
    static_assert(VR * VC == R2 * C2, "tile_view: the view and the result have the same size");
    tile_t<T, R2, C2> out;
    for (int i = 0; i < VR; ++i)
        for (int j = 0; j < VC; ++j) {
            const int32 si = o0 + i, sj = o1 + j;
            if (si >= 0 && si < R && sj >= 0 && sj < C) out.data[i * VC + j] = a.at(si, sj);
        }
    return out;
}
template <int VR, int VC, int R2, int C2, typename T, int R, int C, typename I, typename J>
WPNB_FN void adj_tile_view(const tile_t<T, R, C>&, I o0, J o1, tile_t<T, R, C>& adj_a, I&, J&,
                           const tile_t<T, R2, C2>& adj_ret) {
    for (int i = 0; i < VR; ++i)
        for (int j = 0; j < VC; ++j) {
            const int32 si = o0 + i, sj = o1 + j;
            if (si >= 0 && si < R && sj >= 0 && sj < C) accumulate(adj_a.at(si, sj), adj_ret.data[i * VC + j]);
        }
}

// The same elements in row-major order, seen with another shape of the same size.
template <int R2, int C2, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_reshape(const tile_t<T, R, C>& a) {
    static_assert(R * C == R2 * C2, "tile_reshape keeps the number of elements");
    tile_t<T, R2, C2> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = a.data[k];
    return out;
}
template <int R2, int C2, typename T, int R, int C>
WPNB_FN void adj_tile_reshape(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R2, C2>& adj_ret) {
    for (int k = 0; k < R * C; ++k) accumulate(adj_a.data[k], adj_ret.data[k]);
}

// A copy with another element type (wp.tile_astype); the adjoint converts back.
template <typename U, typename T, int R, int C>
WPNB_FN tile_t<U, R, C> tile_astype(const tile_t<T, R, C>& a) {
    tile_t<U, R, C> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = U(a.data[k]);
    return out;
}
template <typename U, typename T, int R, int C>
WPNB_FN void adj_tile_astype(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<U, R, C>& adj_ret) {
    for (int k = 0; k < R * C; ++k) accumulate(adj_a.data[k], T(adj_ret.data[k]));
}

// t[...] with integers and constant slices: the elements at (s0 + p * ST0, s1 + q * ST1) for p < N0,
// q < N1, stored row-major with shape (R2, C2) of the same size (an integer index is an axis of
// count 1 and step 0: t[i] of a 2-D tile is its row i). A copy (Warp's slices are views).
template <int N0, int ST0, int N1, int ST1, int R2, int C2, typename T, int R, int C, typename I, typename J>
WPNB_FN tile_t<T, R2, C2> tile_gather(const tile_t<T, R, C>& a, I i0, J j0) {
    static_assert(N0 * N1 == R2 * C2, "tile_gather: the selection and the result have the same size");
    const int32 s0 = int32(wrap_index(i0, R)), s1 = int32(wrap_index(j0, C));
    tile_t<T, R2, C2> out;
    for (int p = 0; p < N0; ++p)
        for (int q = 0; q < N1; ++q) out.data[p * N1 + q] = a.at(s0 + p * ST0, s1 + q * ST1);
    return out;
}
template <int N0, int ST0, int N1, int ST1, int R2, int C2, typename T, int R, int C, typename I, typename J>
WPNB_FN void adj_tile_gather(const tile_t<T, R, C>&, I i0, J j0, tile_t<T, R, C>& adj_a, I&, J&,
                             const tile_t<T, R2, C2>& adj_ret) {
    const int32 s0 = int32(wrap_index(i0, R)), s1 = int32(wrap_index(j0, C));
    for (int p = 0; p < N0; ++p)
        for (int q = 0; q < N1; ++q) accumulate(adj_a.at(s0 + p * ST0, s1 + q * ST1), adj_ret.data[p * N1 + q]);
}

// The inverse: a copy of a with the selected elements replaced by v's (t[...] = v, wp.tile_assign).
// Adjoint: v gets the selected elements' adjoints; a gets the others'.
template <int N0, int ST0, int N1, int ST1, typename T, int R, int C, int R2, int C2, typename I, typename J>
WPNB_FN tile_t<T, R, C> tile_scatter(const tile_t<T, R, C>& a, const tile_t<T, R2, C2>& v, I i0, J j0) {
    const int32 s0 = int32(wrap_index(i0, R)), s1 = int32(wrap_index(j0, C));
    tile_t<T, R, C> out = a;
    for (int p = 0; p < N0; ++p)
        for (int q = 0; q < N1; ++q) {
            const int32 i = s0 + p * ST0, j = s1 + q * ST1;
            if (i >= 0 && i < R && j >= 0 && j < C) out.at(i, j) = v.data[p * N1 + q];
        }
    return out;
}
template <int N0, int ST0, int N1, int ST1, typename T, int R, int C, int R2, int C2, typename I, typename J>
WPNB_FN void adj_tile_scatter(const tile_t<T, R, C>&, const tile_t<T, R2, C2>&, I i0, J j0, tile_t<T, R, C>& adj_a,
                              tile_t<T, R2, C2>& adj_v, I&, J&, const tile_t<T, R, C>& adj_ret) {
    const int32 s0 = int32(wrap_index(i0, R)), s1 = int32(wrap_index(j0, C));
    tile_t<T, R, C> rest = adj_ret;
    for (int p = 0; p < N0; ++p)
        for (int q = 0; q < N1; ++q) {
            const int32 i = s0 + p * ST0, j = s1 + q * ST1;
            if (i >= 0 && i < R && j >= 0 && j < C) {
                accumulate(adj_v.data[p * N1 + q], rest.at(i, j));
                rest.at(i, j) = T();
            }
        }
    accumulate(adj_a, rest);
}

// t[idx, :] / t[:, idx] / t[idx] with a 1-D tile of indices: the rows (AXIS 0) or columns (AXIS 1)
// they name, in their order (repeats allowed; negative indices count from the end). Adjoint: each
// picked element's adjoint added back where it came from.
template <int AXIS, typename T, int R, int C, typename I, int NI>
WPNB_FN tile_t<T, AXIS == 0 ? NI : R, AXIS == 0 ? C : NI> tile_take(const tile_t<T, R, C>& a, const tile_t<I, NI, 1>& idx) {
    tile_t<T, AXIS == 0 ? NI : R, AXIS == 0 ? C : NI> out;
    for (int p = 0; p < (AXIS == 0 ? NI : R); ++p)
        for (int q = 0; q < (AXIS == 0 ? C : NI); ++q)
            out.at(p, q) = AXIS == 0 ? a.at(int32(wrap_index(idx.data[p], R)), q) : a.at(p, int32(wrap_index(idx.data[q], C)));
    return out;
}
template <int AXIS, typename T, int R, int C, typename I, int NI>
WPNB_FN void adj_tile_take(const tile_t<T, R, C>&, const tile_t<I, NI, 1>& idx, tile_t<T, R, C>& adj_a, tile_t<I, NI, 1>&,
                           const tile_t<T, AXIS == 0 ? NI : R, AXIS == 0 ? C : NI>& adj_ret) {
    for (int p = 0; p < (AXIS == 0 ? NI : R); ++p)
        for (int q = 0; q < (AXIS == 0 ? C : NI); ++q) {
            T& into = AXIS == 0 ? adj_a.at(int32(wrap_index(idx.data[p], R)), q) : adj_a.at(p, int32(wrap_index(idx.data[q], C)));
            accumulate(into, adj_ret.at(p, q));
        }
}

// t[i] / t[i, j]; negative indices count from the end.
template <typename T, int R, typename I>
WPNB_FN T tile_extract(const tile_t<T, R, 1>& a, I i) { return a.data[wrap_index(i, R)]; }
template <typename T, int R, int C, typename I, typename J>
WPNB_FN T tile_extract(const tile_t<T, R, C>& a, I i, J j) { return a.at(wrap_index(i, R), wrap_index(j, C)); }
template <typename T, int R, typename I>
WPNB_FN void adj_tile_extract(const tile_t<T, R, 1>&, I i, tile_t<T, R, 1>& adj_a, I&, const T& adj_ret) {
    accumulate(adj_a.data[wrap_index(i, R)], adj_ret);
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN void adj_tile_extract(const tile_t<T, R, C>&, I i, J j, tile_t<T, R, C>& adj_a, I&, J&, const T& adj_ret) {
    accumulate(adj_a.at(wrap_index(i, R), wrap_index(j, C)), adj_ret);
}
// wp.tile_extract(t, i[, j]): as t[i, j] (unchecked code wraps a negative index the same way).
template <int SHARED, typename T, int R, typename I>
WPNB_FN T tile_extract_in(const tile_t<T, R, 1>& a, I i) { return tile_extract(a, i); }
template <int SHARED, typename T, int R, int C, typename I, typename J>
WPNB_FN T tile_extract_in(const tile_t<T, R, C>& a, I i, J j) { return tile_extract(a, i, j); }

#if defined(WPNB_CHECKS) && WPNB_CHECKS
// Checked code (the notebook default, checked and debug modes): an index outside the tile is
// reported like an array index (the launch raises IndexError at the kernel's line; Warp aborts the
// process) and element 0 is read instead, so nothing outside the tile is touched. t[-1] counts from
// the end; wp.tile_extract (STRICT) takes a negative index as outside, as Warp's does.
template <int STRICT, int R, int C, typename I, typename J>
WPNB_FN int32 tile_offset_checked(int32 loc, I i, J j) {
    const int64 idx[2] = {STRICT ? int64(i) : wrap_index(int64(i), R), STRICT ? int64(j) : wrap_index(int64(j), C)};
    const int64 shape[2] = {R, C};
    for (int d = 0; d < 2; ++d)
        if (idx[d] < 0 || idx[d] >= shape[d]) {
            const int64 shown[2] = {int64(i), int64(j)};
            debug_fail(loc, d, shown, shape, C == 1 ? 1 : 2);
            return 0;
        }
    return int32(idx[0] * C + idx[1]);
}
template <typename T, int R, typename I>
WPNB_FN T tile_extract_checked(const tile_t<T, R, 1>& a, int32 loc, I i) {
    return a.data[tile_offset_checked<0, R, 1>(loc, i, 0)];
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN T tile_extract_checked(const tile_t<T, R, C>& a, int32 loc, I i, J j) {
    return a.data[tile_offset_checked<0, R, C>(loc, i, j)];
}
template <int SHARED, typename T, int R, typename I>
WPNB_FN T tile_extract_in_checked(const tile_t<T, R, 1>& a, int32 loc, I i) {
    return a.data[tile_offset_checked<1, R, 1>(loc, i, 0)];
}
template <int SHARED, typename T, int R, int C, typename I, typename J>
WPNB_FN T tile_extract_in_checked(const tile_t<T, R, C>& a, int32 loc, I i, J j) {
    return a.data[tile_offset_checked<1, R, C>(loc, i, j)];
}
// t[i, j, k(, l)] of a 3-D or 4-D tile (extents E0..E3 padded in front to four): negative indices
// count from the end, as in tile_extract_nd; what is still outside is reported, element 0 read.
template <int N, int E0, int E1, int E2, int E3>
WPNB_FN int32 tile_offset_nd_checked(int32 loc, const int64 (&given)[N]) {
    const int64 extents[4] = {E0, E1, E2, E3};
    const int64* shape = extents + (4 - N);
    int64 flat = 0;
    for (int d = 0; d < N; ++d) {
        const int64 idx = wrap_index(given[d], shape[d]);
        if (idx < 0 || idx >= shape[d]) {
            debug_fail(loc, d, given, shape, N);
            return 0;
        }
        flat = flat * shape[d] + idx;
    }
    return int32(flat);
}
template <int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN T tile_extract_nd_checked(const tile_t<T, R, C>& a, int32 loc, I i, I j, I k) {
    const int64 given[3] = {int64(i), int64(j), int64(k)};
    return a.data[tile_offset_nd_checked<3, 1, E1, E2, E3>(loc, given)];
}
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN T tile_extract_nd_checked(const tile_t<T, R, C>& a, int32 loc, I i, I j, I k, I l) {
    const int64 given[4] = {int64(i), int64(j), int64(k), int64(l)};
    return a.data[tile_offset_nd_checked<4, E0, E1, E2, E3>(loc, given)];
}
#endif
template <int SHARED, typename T, int R, typename I>
WPNB_FN void adj_tile_extract_in(const tile_t<T, R, 1>& a, I i, tile_t<T, R, 1>& adj_a, I& adj_i, const T& adj_ret) {
    adj_tile_extract(a, i, adj_a, adj_i, adj_ret);
}
template <int SHARED, typename T, int R, int C, typename I, typename J>
WPNB_FN void adj_tile_extract_in(const tile_t<T, R, C>& a, I i, J j, tile_t<T, R, C>& adj_a, I& adj_i, J& adj_j,
                                 const T& adj_ret) {
    adj_tile_extract(a, i, j, adj_a, adj_i, adj_j, adj_ret);
}

// --- sorting ----------------------------------------------------------------------------------

// wp.tile_sort(keys, values): both rebound, sorted by key ascending, stably (equal keys keep their
// order), by a bottom-up merge sort through scratch tiles. Not differentiated.
template <typename K, typename V, int N>
WPNB_FN void tile_sort(tile_t<K, N, 1>& keys, tile_t<V, N, 1>& values) {
    tile_t<K, N, 1> k2;
    tile_t<V, N, 1> v2;
    K* ks = keys.data; V* vs = values.data; K* kd = k2.data; V* vd = v2.data;
    for (int width = 1; width < N; width *= 2) {
        for (int lo = 0; lo < N; lo += 2 * width) {
            const int mid = lo + width < N ? lo + width : N, hi = lo + 2 * width < N ? lo + 2 * width : N;
            int i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                if (ks[j] < ks[i]) { kd[o] = ks[j]; vd[o++] = vs[j++]; }
                else { kd[o] = ks[i]; vd[o++] = vs[i++]; }
            }
            while (i < mid) { kd[o] = ks[i]; vd[o++] = vs[i++]; }
            while (j < hi) { kd[o] = ks[j]; vd[o++] = vs[j++]; }
        }
        K* tk = ks; ks = kd; kd = tk;
        V* tv = vs; vs = vd; vd = tv;
    }
    if (ks != keys.data)
        for (int k = 0; k < N; ++k) { keys.data[k] = ks[k]; values.data[k] = vs[k]; }
}

// --- matrix products ---------------------------------------------------------------------------

// a (M x K) times b (K x N) into out (added to what out holds), accumulated in out's type O: the
// operands may be other float types (Warp's mixed precision: float16 a and b into a float64 out);
// each operand is converted to O as it is read (a no-op when the types agree).
template <typename A, typename B, typename O, int M, int K, int N>
WPNB_FN void tile_mma_into(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b, tile_t<O, M, N>& out) {
    WPNB_CUDA_UNROLL(1)
    for (int i = 0; i < M; ++i)
        WPNB_CUDA_UNROLL(1)
        for (int k = 0; k < K; ++k) {
            const O aik = O(a.at(i, k));
            WPNB_CUDA_UNROLL(4)
            for (int j = 0; j < N; ++j) out.at(i, j) = add(out.at(i, j), mul(aik, O(b.at(k, j))));
        }
}

// wp.tile_matmul(a, b) = a @ b, in a's type. Adjoint: adj_a += adj_ret @ b^T, adj_b += a^T @ adj_ret,
// each accumulated in its operand's type.
template <typename A, typename B, int M, int K, int N>
WPNB_FN tile_t<A, M, N> tile_mma(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b) {
    tile_t<A, M, N> out;
    tile_mma_into(a, b, out);
    return out;
}
template <typename A, typename B, typename R, int M, int K, int N>
WPNB_FN void adj_tile_mma(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b, tile_t<A, M, K>& adj_a,
                          tile_t<B, K, N>& adj_b, const tile_t<R, M, N>& adj_ret) {
    tile_mma_into(adj_ret, tile_transpose(b), adj_a);
    tile_mma_into(tile_transpose(a), adj_ret, adj_b);
}

// wp.tile_matmul(a, b, out, alpha, beta): alpha * a @ b + beta * out in out's type (the caller
// rebinds out).
template <typename A, typename B, typename T, int M, int K, int N>
WPNB_FN tile_t<T, M, N> tile_mma(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b, const tile_t<T, M, N>& out,
                                 T alpha, T beta) {
    if (alpha == T(1) && beta == T(1)) {
        // the accumulating form of a tiled GEMM loop (tile_matmul(a, b, acc)): add the products into a
        // copy of out directly, without a product tile and a second pass over it (benchmarks/README.md)
        tile_t<T, M, N> r = out;
        tile_mma_into(a, b, r);
        return r;
    }
    tile_t<T, M, N> p;
    tile_mma_into(a, b, p);
    tile_t<T, M, N> r;
    // beta == 0: out is not read at all (it may hold garbage or NaNs), as in BLAS and Warp
    for (int k = 0; k < M * N; ++k) r.data[k] = beta == T(0) ? mul(alpha, p.data[k]) : add(mul(alpha, p.data[k]), mul(beta, out.data[k]));
    return r;
}
template <typename A, typename B, typename T, int M, int K, int N>
WPNB_FN void adj_tile_mma(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b, const tile_t<T, M, N>& out, T alpha,
                          T beta, tile_t<A, M, K>& adj_a, tile_t<B, K, N>& adj_b, tile_t<T, M, N>& adj_out,
                          T& adj_alpha, T& adj_beta, const tile_t<T, M, N>& adj_ret) {
    tile_t<T, M, N> p;
    tile_mma_into(a, b, p);
    const tile_t<T, M, N> scaled = mul(adj_ret, alpha);
    adj_tile_mma(a, b, adj_a, adj_b, scaled);
    for (int k = 0; k < M * N; ++k) {
        accumulate(adj_out.data[k], mul(beta, adj_ret.data[k]));
        accumulate(adj_alpha, mul(p.data[k], adj_ret.data[k]));
        accumulate(adj_beta, mul(out.data[k], adj_ret.data[k]));
    }
}

}  // namespace wpnb
