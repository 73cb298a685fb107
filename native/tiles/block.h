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

// Which elements of a tile a lane computes in a statement that writes a block-uniform tile
// (compiler/block_uniform.py, emit/block_frame.py; tile_coop.h): elements first, first + step, ...
// when `on`, and a barrier (block_sync) before and after the statement when `sync`. Three ways:
//  - split (CUDA, and the CPU with wp.config.cpu_split_tiles): every running lane its share
//    (first = lane, step = running lanes), barriers around, so the block's lanes cooperate;
//  - lead (the CPU's default): lane 0 computes every element, no barrier (lane 0 is never behind
//    another fiber: block_cpu.h);
//  - apart (each lane has a frame of its own): every lane computes every element of its own tile.
struct coop_t {
    int32 first, step;
    bool on, sync;
};
WPNB_FN coop_t coop_part(bool apart, bool split, bool lead) {
    if (apart) return coop_t{0, 1, true, false};
    if (!split) return coop_t{0, 1, lead, false};
    return coop_t{block_lane(), block_active(), block_lane() < block_active(), true};
}

// CUDA threads run at once, so where the lanes share a frame in shared memory, a tile lane 0
// wrote alone is there for the others only after a barrier (`block_publish`, after each such
// statement). On the CPU lane 0 runs first in every round of fibers: nothing to wait for.
WPNB_FN void block_publish(bool apart) {
    if constexpr (!lanes_share_thread) {
        if (!apart) block_sync();
    }
}

#if defined(WPNB_CUDA)
// The frame budget in static shared memory (48 KiB a block in all): what the other shared slots
// leave (core/prelude_cuda.h: the lanes' exchange scratch, 16 KiB, the debug and alive slots, 9 KiB;
// arrays/array.h: a failed check's 4 KiB slot), with a margin. A larger frame goes in dynamic shared
// memory, which the launch gives where the device has room for it (cuda/target.py reads the frame's
// size from the module's `<symbol>_frame_bytes`, WPNB_FRAME_SIZE; it refuses a launch where there
// is none). A frame within the budget stays in each thread's own memory, every thread computing
// whole tiles, where the launch keeps the lanes apart.
#define WPNB_SHARED_FRAME_BYTES 16384
#define WPNB_FRAME_SIZE(sym) extern "C" { __device__ wpnb::int64 sym##_frame_bytes = wpnb::int64(sizeof(sym##_frame_t)); }

// The bytes of dynamic shared memory this launch has (PTX's %dynamic_smem_size).
WPNB_FN uint32 dynamic_shared_bytes() {
    uint32 n;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
    return n;
}

// The frame's bytes in shared memory: static when it fits the budget, else the launch's dynamic
// shared memory when it was given room for the frame (else none).
template <typename S, bool Fits = (sizeof(S) <= WPNB_SHARED_FRAME_BYTES)>
struct shared_frame_bytes {
    static WPNB_FN unsigned char* get() {
        __shared__ __align__(64) unsigned char bytes[sizeof(S)];
        return bytes;
    }
};
template <typename S>
struct shared_frame_bytes<S, false> {
    static WPNB_FN unsigned char* get() {
        extern __shared__ __align__(64) unsigned char wpnb_dynamic_frame[];
        return dynamic_shared_bytes() >= sizeof(S) ? wpnb_dynamic_frame : nullptr;
    }
};

// CUDA: a frame lives in shared memory (static or dynamic: shared_frame_bytes) when the launch lets
// the lanes share it, thread 0 leading and the lanes splitting what they can (coop_part); else
// each thread has its own and leads (apart). Zeroed as the CPU's is constructed: every element
// type's T() is zero bytes (scalars, vectors, matrices, quaternions, transforms, structs).
template <typename S>
struct block_frame_t<S, false> {
    static constexpr bool small = sizeof(S) <= WPNB_SHARED_FRAME_BYTES;
    S* at;
    bool shares;
    // Each thread's own frame, for the launches that keep the lanes apart: only for a frame within
    // the static budget. A larger one in local memory would make the driver reserve it for every
    // thread the device can hold (112 KiB x 2048 threads x 132 SMs: about 29 GiB on an H100), so
    // cuda/target.py refuses the launches that would need it (no room, or lanes kept apart).
    alignas(S) unsigned char own[small ? sizeof(S) : 1];
    WPNB_FN block_frame_t() {
        unsigned char* shared = shared_frame_bytes<S>::get();
        shares = shared != nullptr && (block_frame_mode_slot() & 2) != 0;
        if (!small && !shares) __trap();  // (never: such a launch was refused before it started)
        at = (S*)(shares ? shared : own);
        const int32 first = shares ? block_lane() : 0, step = shares ? block_active() : 1;
        if (sizeof(S) % 4 == 0) {
            for (int64 k = first; k < int64(sizeof(S) / 4); k += step) ((uint32*)at)[k] = 0u;
        } else {
            for (int64 k = first; k < int64(sizeof(S)); k += step) ((unsigned char*)at)[k] = 0;
        }
        if (shares) block_sync();
    }
    WPNB_FN S& get() { return *at; }
    WPNB_FN bool lead() const { return !shares || block_lane() == 0; }
    WPNB_FN bool apart() const { return !shares; }
    WPNB_FN coop_t part() const { return coop_part(!shares, true, lead()); }
};
#else
#define WPNB_FRAME_SIZE(sym)  // (the CPU's frame is the lanes' memory: block_cpu.h)
#endif

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
