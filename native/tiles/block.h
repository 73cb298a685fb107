// block.h: the threads of a block (Warp's block_dim lanes) and how they exchange values.
//
// A tile is a value every lane of a block holds whole (tile.h): lanes compute the same tile ops
// on the same values, so most tile code needs no cooperation at all. Cooperation is needed
// where lanes differ: wp.tile(x) gathers one value per lane, wp.untile hands each lane its
// element, per-lane writes into a tile (t[i] = v, t[i] |= v, stack pushes) are gathered and
// applied in lane order by every lane, and operations with effects outside the block (stores,
// atomics, prints) run once, on lane 0, their result broadcast. Lanes exchange values through a
// small scratch buffer, with a barrier on each side.
//
// CUDA: lanes are the block's threads, the scratch is shared memory, the barrier __syncthreads.
// CPU: with wp.config.enable_cpu_blocks, lanes are fibers run by block_cpu.h and the barrier
// switches between them; otherwise a block is one lane and nothing here costs anything.
// Every lane of a block must reach the same barriers (tile ops in uniform control flow), as in
// Warp; lanes of a partial last block that are outside the launch do not run and count as
// arrived (block_active() lanes run).
#pragma once
#include "core/prelude.h"

namespace wpnb {

// The lanes' primitives differ by target and are the prelude's (core/prelude_cpu.h,
// core/prelude_cuda.h): block_lane(), block_dim(), block_active() (lanes 0 .. active - 1 run),
// block_members() (the lanes of the block inside the launch: tile reductions count their elements),
// block_leader() (the lowest lane still running), block_alive(lane), block_sync() (the barrier),
// block_scratch() (WPNB_BLOCK_SCRATCH bytes shared by the lanes) and lanes_share_thread.

// Lane `src`'s `value`, in every lane (every lane calls it). Values larger than the scratch
// (big tiles) go through it in pieces.
template <typename V>
WPNB_FN V block_broadcast(const V& value, int32 src) {
    V out = value;
    if (block_dim() == 1) return out;
    unsigned char* scratch = block_scratch();
    const int64 size = int64(sizeof(V));
    for (int64 base = 0; base < size; base += WPNB_BLOCK_SCRATCH) {
        const int64 n = size - base < WPNB_BLOCK_SCRATCH ? size - base : WPNB_BLOCK_SCRATCH;
        block_sync();  // every lane has read what the scratch held before
        if (block_lane() == src) copy_bytes(scratch, (const unsigned char*)&value + base, n);
        block_sync();
        copy_bytes((unsigned char*)&out + base, scratch, n);
    }
    return out;
}

// Every lane's x, in lane order, into out[0 .. B) of every lane; lanes outside the launch, and
// lanes that returned, give T().
template <int B, typename T>
WPNB_FN void block_gather(const T& x, T* out) {
    if (B == 1) {
        out[0] = x;
        return;
    }
    const int32 lane = block_lane(), active = block_active();
    const int per = int(WPNB_BLOCK_SCRATCH / sizeof(T)) > 0 ? int(WPNB_BLOCK_SCRATCH / sizeof(T)) : 1;
    T* slots = (T*)block_scratch();
    bool present[B];  // which lanes take part, seen between the barriers (none can end there)
    for (int base = 0; base < B; base += per) {
        block_sync();
        if (lane >= base && lane < base + per) slots[lane - base] = x;
        for (int k = base; k < B && k < base + per; ++k) present[k] = k < active && block_alive(k);
        block_sync();
        for (int k = base; k < B && k < base + per; ++k) out[k] = present[k] ? slots[k - base] : T();
    }
}

// f() run by one lane alone, the block's leader (a store, an atomic, a print: effects outside
// the block happen once), its result handed to every lane.
template <typename R>
struct block_lead_t {
    template <typename F>
    static WPNB_FN R run(F& f) {
        const int32 leader = block_leader();
        R r = R();
        if (block_lane() == leader) r = f();
        return block_broadcast(r, leader);
    }
};
template <>
struct block_lead_t<void> {
    template <typename F>
    static WPNB_FN void run(F& f) {
        if (block_lane() == block_leader()) f();
        block_sync();  // what the leader wrote is there for every lane's next read
    }
};
template <typename F>
WPNB_FN auto block_lead(F f) -> decltype(f()) {
    return block_lead_t<decltype(f())>::run(f);
}

// f() for a costly tile operation (a product, a factorisation, an FFT, a sort) whose result every
// lane holds. CPU lanes are fibers of one thread: computing it in every lane would only repeat the
// work, so lane 0 computes it and hands it over. CUDA lanes run in parallel: each computes it.
template <typename F>
WPNB_FN auto block_once(F f) -> decltype(f()) {
    if constexpr (lanes_share_thread) {
        return block_lead(f);
    } else {
        return f();
    }
}

// What lane 0 holds, in every lane, after a block_once (lanes that share a thread); where lanes
// are threads, every lane computed it.
template <typename V>
WPNB_FN V block_share(const V& value) {
    if constexpr (lanes_share_thread) {
        return block_broadcast(value, block_leader());
    } else {
        return value;
    }
}

// The frame that holds a kernel's block-uniform tiles (compiler/block_uniform.py), one struct S of
// them: lead() lanes compute them, every lane reads them through get(). Where lanes are threads
// (CUDA), each has its own frame and leads, and apart() says that the block-wide calls keep their
// cooperation (block_lead_if, block_once_if). On the CPU the lanes of a block share lane 0's frame
// and lane 0 alone leads (block_cpu.h), unless the launch keeps them apart (its leading wp.tid()
// components vary inside a block).
template <typename S, bool SharesThread = lanes_share_thread>
struct block_frame_t;
template <typename S>
struct block_frame_t<S, false> {
    S own;
    WPNB_FN S& get() { return own; }
    WPNB_FN bool lead() const { return true; }
    WPNB_FN bool apart() const { return true; }
};

// A store or an atomic written where one lane runs it for the block: as it is, unless the lanes
// are apart (each lane runs it; then one does, as block_lead).
template <typename F>
WPNB_FN auto block_lead_if(bool apart, F f) -> decltype(f()) {
    if (apart) return block_lead(f);
    return f();
}
// The same for a costly tile operation (block_once).
template <typename F>
WPNB_FN auto block_once_if(bool apart, F f) -> decltype(f()) {
    if (apart) return block_once(f);
    return f();
}

}  // namespace wpnb
