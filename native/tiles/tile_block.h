// tile_block.h: the tile operations whose lanes differ, for blocks of B > 1 lanes (block.h says
// how lanes exchange values). The compiler emits these instead of their one-lane forms (tile.h,
// tile_stack.h, tile_nd.h) when a kernel is compiled for a block of B lanes, with their adjoints.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "tiles/block.h"
#include "tiles/tile.h"
#include "tiles/tile_stack.h"
#include "tiles/tile_nd.h"

namespace wpnb {

// wp.tile(x): every lane's x, in lane order (lanes outside the launch give zero).
template <int B, typename T>
WPNB_FN tile_t<T, B, 1> tile_from_lanes(T x) {
    tile_t<T, B, 1> out;
    block_gather<B>(x, out.data);
    return out;
}

template <int B, typename T>
WPNB_FN void adj_tile_from_lanes(T, T& adj_x, const tile_t<T, B, 1>& adj_ret) {
    const int32 lane = block_lane();
    if (lane < B) accumulate(adj_x, adj_ret.data[lane]);
}

// The block's sum of every lane's `part` (an adjoint each lane computed from its own values).
template <typename V>
WPNB_FN V block_sum_lanes(const V& part) {
    if (block_dim() == 1) return part;
    V total = block_broadcast(part, 0);
    for (int32 l = 1; l < block_active(); ++l) accumulate(total, block_broadcast(part, l));
    return total;
}

// wp.tile(v) of an N-vector or M x N matrix: its components as a tile of shape (N, B) or
// (M * N, B) (the compiler views it as (M, N, B)), lane k's in column k.
template <int B, int N, typename T>
WPNB_FN tile_t<T, N, B> tile_from_vector_lanes(const vec_t<N, T>& v) {
    vec_t<N, T> all[B];
    block_gather<B>(v, all);
    tile_t<T, N, B> out;
    for (int k = 0; k < B; ++k)
        for (int c = 0; c < N; ++c) out.at(c, k) = all[k].c[c];
    return out;
}
template <int B, int M, int N, typename T>
WPNB_FN tile_t<T, M * N, B> tile_from_matrix_lanes(const mat_t<M, N, T>& m) {
    mat_t<M, N, T> all[B];
    block_gather<B>(m, all);
    tile_t<T, M * N, B> out;
    for (int k = 0; k < B; ++k)
        for (int c = 0; c < M * N; ++c) out.at(c, k) = all[k].c[c / N][c % N];
    return out;
}

template <int B, int N, typename T>
WPNB_FN void adj_tile_from_vector_lanes(const vec_t<N, T>&, vec_t<N, T>& adj_v, const tile_t<T, N, B>& adj_ret) {
    const int32 lane = block_lane();
    if (lane < B)
        for (int c = 0; c < N; ++c) accumulate(adj_v.c[c], adj_ret.at(c, lane));
}
template <int B, int M, int N, typename T>
WPNB_FN void adj_tile_from_matrix_lanes(const mat_t<M, N, T>&, mat_t<M, N, T>& adj_m, const tile_t<T, M * N, B>& adj_ret) {
    const int32 lane = block_lane();
    if (lane < B)
        for (int c = 0; c < M * N; ++c) accumulate(adj_m.c[c / N][c % N], adj_ret.at(c, lane));
}

// wp.tile_from_thread(shape, value, thread_idx): the tile filled with lane thread_idx's value.
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_full_from_lane(T value, int32 lane) {
    return tile_full<T, R, C>(block_broadcast(value, lane));
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_full_from_lane(T, int32 lane, T& adj_value, int32&, const tile_t<T, R, C>& adj_ret) {
    if (block_lane() == lane) accumulate(adj_value, tile_total(adj_ret));
}

// One lane's write into a tile: where, what, and whether it writes at all.
template <typename T>
struct lane_write_t {
    int32 i0, i1, i2, i3;
    T value;
    bool has;
};

// How a write combines with the element (t[i] = v, t[i] += v, t[i] |= v ...), and its adjoint:
// the element's adjoint before the write (adj_a) and the written value's (adj_v) from the one after.
struct lane_op_set {
    static constexpr bool overwrites = true;
    template <typename T>
    static WPNB_FN T apply(T, T v) { return v; }
    template <typename T>
    static WPNB_FN void adjoint(T, T, T&, T& adj_v, const T& adj_ret) { accumulate(adj_v, adj_ret); }
};
#define WPNB_LANE_OP(NAME)                                                                   \
    struct lane_op_##NAME {                                                                  \
        static constexpr bool overwrites = false;                                            \
        template <typename T>                                                                \
        static WPNB_FN T apply(T a, T v) { return NAME(a, v); }                              \
        template <typename T>                                                                \
        static WPNB_FN void adjoint(T a, T v, T& adj_a, T& adj_v, const T& adj_ret) {        \
            adj_##NAME(a, v, adj_a, adj_v, adj_ret);                                         \
        }                                                                                    \
    };
WPNB_LANE_OP(add)
WPNB_LANE_OP(sub)
WPNB_LANE_OP(mul)
WPNB_LANE_OP(div)
WPNB_LANE_OP(bit_and)
WPNB_LANE_OP(bit_or)
WPNB_LANE_OP(bit_xor)
WPNB_LANE_OP(min)
WPNB_LANE_OP(max)
#undef WPNB_LANE_OP

// t[i, j] op= v from every lane: every lane applies all the block's writes in lane order, so
// each keeps the same tile. Indices outside the tile write nothing.
template <int B, typename Op, typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_lanes_update(const tile_t<T, R, C>& t, T value, int32 i, int32 j) {
    lane_write_t<T> all[B];
    block_gather<B>(lane_write_t<T>{i, j, 0, 0, value, true}, all);
    tile_t<T, R, C> out = t;
    const int32 active = block_active();
    for (int k = 0; k < active && k < B; ++k) {
        const lane_write_t<T>& w = all[k];
        if (w.has && w.i0 >= 0 && w.i0 < R && w.i1 >= 0 && w.i1 < C)  // (a lane that returned has no write)
            out.at(w.i0, w.i1) = Op::apply(out.at(w.i0, w.i1), w.value);
    }
    return out;
}

// The adjoint of the block's writes into a tile t (all[k]: lane k's write, flat[k]: its element,
// -1 for none; `active` lanes): the writes replayed in lane order, then walked back. Each lane's
// value gets the adjoint of its own write (a write that a later lane's set overwrote gets none, as
// the value it wrote is lost), and the tile's adjoint passes through each element's chain of
// writes (nothing where a set overwrote the element, minus the adjoint for -=, ...), as Warp's
// lanes do.
template <int B, typename Op, typename T, int R, int C>
WPNB_FN void adj_lane_writes(const tile_t<T, R, C>& t, const lane_write_t<T>* all, const int32* flat, int32 active,
                             tile_t<T, R, C>& adj_t, T& adj_value, const tile_t<T, R, C>& adj_ret) {
    T before[B];  // the element's value before each lane's write
    tile_t<T, R, C> now = t;
    for (int k = 0; k < active; ++k) {
        if (flat[k] < 0) continue;
        before[k] = now.data[flat[k]];
        now.data[flat[k]] = Op::apply(before[k], all[k].value);
    }
    const int32 lane = block_lane();
    tile_t<T, R, C> through = adj_ret;
    for (int k = active - 1; k >= 0; --k) {
        if (flat[k] < 0) continue;
        T adj_before = T(), adj_written = T();
        Op::adjoint(before[k], all[k].value, adj_before, adj_written, through.data[flat[k]]);
        through.data[flat[k]] = adj_before;
        if (k == lane) accumulate(adj_value, adj_written);
    }
    accumulate(adj_t, through);
}

// Adjoint: adj_lane_writes of the lanes' writes inside the tile.
template <int B, typename Op, typename T, int R, int C>
WPNB_FN void adj_tile_lanes_update(const tile_t<T, R, C>& t, T value, int32 i, int32 j, tile_t<T, R, C>& adj_t,
                                   T& adj_value, int32&, int32&, const tile_t<T, R, C>& adj_ret) {
    lane_write_t<T> all[B];
    block_gather<B>(lane_write_t<T>{i, j, 0, 0, value, true}, all);
    const int32 active = block_active() < B ? block_active() : B;
    int32 flat[B];
    for (int k = 0; k < active; ++k) {
        const lane_write_t<T>& w = all[k];
        const bool inside = w.has && w.i0 >= 0 && w.i0 < R && w.i1 >= 0 && w.i1 < C;
        flat[k] = inside ? w.i0 * C + w.i1 : -1;
    }
    adj_lane_writes<B, Op>(t, all, flat, active, adj_t, adj_value, adj_ret);
}

// wp.tile_scatter_add / tile_scatter_masked(t, i..., value, has_value) from every lane: each
// lane's write combined with its element (Op: lane_op_add, lane_op_set) in lane order.
template <int B, typename Op, int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN tile_t<T, R, C> tile_scatter_lanes(const tile_t<T, R, C>& a, const T& value, bool has, I i0, I i1, I i2, I i3) {
    lane_write_t<T> all[B];
    block_gather<B>(lane_write_t<T>{int32(i0), int32(i1), int32(i2), int32(i3), value, has}, all);
    tile_t<T, R, C> out = a;
    const int32 active = block_active();
    for (int k = 0; k < active && k < B; ++k) {
        const lane_write_t<T>& w = all[k];
        if (w.has) {
            const int f = tile_flat_index<E0, E1, E2, E3>(w.i0, w.i1, w.i2, w.i3);
            out.data[f] = Op::apply(out.data[f], w.value);
        }
    }
    return out;
}
// Adjoint: adj_lane_writes of the lanes' writes (as for tile_lanes_update): a set that a later
// lane's set overwrote gets no adjoint, nor does the element it overwrote.
template <int B, typename Op, int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_scatter_lanes(const tile_t<T, R, C>& a, const T& value, bool has, I i0, I i1, I i2, I i3,
                                    tile_t<T, R, C>& adj_a, T& adj_value, bool&, I&, I&, I&, I&,
                                    const tile_t<T, R, C>& adj_ret) {
    lane_write_t<T> all[B];
    block_gather<B>(lane_write_t<T>{int32(i0), int32(i1), int32(i2), int32(i3), value, has}, all);
    const int32 active = block_active() < B ? block_active() : B;
    int32 flat[B];
    for (int k = 0; k < active; ++k) {
        const lane_write_t<T>& w = all[k];
        flat[k] = w.has ? tile_flat_index<E0, E1, E2, E3>(w.i0, w.i1, w.i2, w.i3) : -1;
    }
    adj_lane_writes<B, Op>(a, all, flat, active, adj_a, adj_value, adj_ret);
}

// --- stacks: every lane pushes or pops its own value --------------------------------------------

// The slot this lane's push takes (-1: nothing to push, or no room left before it).
template <int B, typename T, int CAP>
WPNB_FN int32 tile_stack_push_slot_lanes(const tile_stack_t<T, CAP>& s, bool has_value) {
    bool all[B];
    block_gather<B>(has_value, all);
    const int32 lane = block_lane();
    int32 slot = s.count;
    for (int k = 0; k < lane && k < B; ++k) slot += all[k] ? 1 : 0;
    return has_value && slot < CAP ? slot : -1;
}

// s with every lane's value pushed, in lane order, while there is room.
template <int B, typename T, int CAP>
WPNB_FN tile_stack_t<T, CAP> tile_stack_pushed_lanes(const tile_stack_t<T, CAP>& s, T v, bool has_value) {
    lane_write_t<T> all[B];
    block_gather<B>(lane_write_t<T>{0, 0, 0, 0, v, has_value}, all);
    tile_stack_t<T, CAP> out = s;
    const int32 active = block_active();
    for (int k = 0; k < active && k < B; ++k)
        if (all[k].has && out.count < CAP) out.data[out.count++] = all[k].value;
    return out;
}

// Each running lane pops one value: the k-th running lane takes slot count - 1 - k (-1 when the
// stack has run out). `before`: how many running lanes come before this one (up to `upto`).
template <int B>
WPNB_FN int32 block_running_before(int32 upto) {
    bool running[B];
    block_gather<B>(true, running);  // lanes that returned give false
    int32 n = 0;
    for (int32 k = 0; k < upto && k < B; ++k) n += running[k] ? 1 : 0;
    return n;
}
template <int B, typename T, int CAP>
WPNB_FN int32 tile_stack_top_slot_lanes(const tile_stack_t<T, CAP>& s) {
    const int32 slot = s.count - 1 - block_running_before<B>(block_lane());
    return slot >= 0 ? slot : -1;
}
template <int B, typename T, int CAP>
WPNB_FN T tile_stack_top_lanes(const tile_stack_t<T, CAP>& s) {
    const int32 slot = s.count - 1 - block_running_before<B>(block_lane());
    return slot >= 0 ? s.data[slot] : T();
}
template <int B, typename T, int CAP>
WPNB_FN tile_stack_t<T, CAP> tile_stack_popped_lanes(const tile_stack_t<T, CAP>& s) {
    tile_stack_t<T, CAP> out = s;
    const int32 running = block_running_before<B>(B);
    out.count = s.count > running ? s.count - running : 0;
    return out;
}

}  // namespace wpnb
