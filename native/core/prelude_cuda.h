// prelude_cuda.h: the CUDA side of prelude.h (NVRTC), which includes it when compiling for the
// GPU; prelude_cpu.h defines the same names for the CPU. The primitives where the targets differ:
// storage classes, atomics on bits, and the lanes of a block. (The C library's math functions
// and printf are device builtins here.)
// Include prelude.h, not this file (alone it includes prelude.h, which picks the target).
#pragma once
#include "core/prelude.h"

#if defined(WPNB_CUDA)

// A function-local table built from constants: automatic, each thread builds its own (no
// dynamically initialised device statics). CPU: static, built once per process.
#define WPNB_TABLE_STORAGE
// A function-local scratch buffer that a failed check hands out and nobody reads back: one per
// block, in shared memory (CPU: one per process).
#define WPNB_SCRATCH_STORAGE __shared__

namespace wpnb {

// --- atomics on the bits of a value (the typed atomics of arrays/atomic.h are built on these) ---

// *p, read (a compare-and-swap loop that starts from it checks it anyway).
template <typename B> WPNB_FN B atomic_load_bits(B* p) { return *p; }

// Compare-and-swap: *p = value if *p == compare; returns the old *p. 32- and 64-bit natively;
// 8- and 16-bit values through the aligned 32-bit word that holds them (every GPU generation
// supports that).
WPNB_FN uint32 atomic_cas_bits(uint32* p, uint32 compare, uint32 value) { return atomicCAS(p, compare, value); }
WPNB_FN uint64 atomic_cas_bits(uint64* p, uint64 compare, uint64 value) {
    return atomicCAS((unsigned long long*)p, (unsigned long long)compare, (unsigned long long)value);
}
template <typename B> WPNB_FN B atomic_cas_bits(B* p, B compare, B value) {
    uint32* word = (uint32*)((uint64)p & ~uint64(3));
    const uint32 shift = uint32(((uint64)p & 3) * 8);
    const uint32 mask = uint32((1ull << (8 * sizeof(B))) - 1) << shift;
    uint32 old = *word;
    for (;;) {
        const B current = B((old & mask) >> shift);
        if (current != compare) return current;
        const uint32 desired = (old & ~mask) | (uint32(value) << shift);
        const uint32 seen = atomicCAS(word, old, desired);
        if (seen == old) return current;
        old = seen;
    }
}

// One try of a compare-and-swap loop: *p = value if *p == expected, else expected = *p; true on
// success.
template <typename B> WPNB_FN bool atomic_cas_bits_weak(B* p, B& expected, B value) {
    const B seen = atomic_cas_bits(p, expected, value);
    const bool swapped = seen == expected;
    expected = seen;
    return swapped;
}

// Scalar types the target adds atomically in one instruction (the others: a compare-and-swap loop).
template <typename T> struct native_atomic_add { static constexpr bool value = false; };
template <> struct native_atomic_add<float32> { static constexpr bool value = true; };
template <> struct native_atomic_add<float64> { static constexpr bool value = true; };

// *p += v in one instruction, for the types of native_atomic_add; returns the old *p.
WPNB_FN float32 atomic_add_native(float32* p, float32 v) { return atomicAdd(p, v); }
WPNB_FN float64 atomic_add_native(float64* p, float64 v) { return atomicAdd(p, v); }

// Set *flag to 1; true for the one call that found it 0 (the first failed check of a launch).
WPNB_FN bool claim_flag(int32* flag) { return atomicCAS(flag, 0, 1) == 0; }

// dst[0, n) = src[0, n).
WPNB_FN void copy_bytes(unsigned char* dst, const unsigned char* src, int64 n) {
    for (int64 k = 0; k < n; ++k) dst[k] = src[k];
}

// --- the lanes of a block (tiles/block.h): the threads of a CUDA block ---

// The index of the launch's thread this GPU thread runs now (checked code: the entry points set it,
// a failed check records it), one slot per thread of the block in shared memory.
WPNB_FN int64& debug_thread_slot() {
    __shared__ int64 thread[1024];
    return thread[threadIdx.x];
}
WPNB_FN int64 debug_thread_now() { return debug_thread_slot(); }

// Lanes of a block are threads that run at once: each computes what the block needs for itself
// (tiles/block.h block_once). CPU: lanes are fibers of one thread.
constexpr bool lanes_share_thread = false;

// The lanes of this kernel's blocks, set by its entry point: B in a kernel typed for blocks of B
// lanes (one CUDA block each), 1 in a one-lane kernel, whose CUDA blocks hold many independent
// one-lane blocks of the launch (so threadIdx.x is not a lane there).
WPNB_FN int32& block_lanes_slot() {
    __shared__ int32 lanes;
    return lanes;
}
WPNB_FN int32 block_dim() { return block_lanes_slot(); }
// launch_t::one_lane of a launch in blocks, set by the block entry point: bit 1 when the lanes of a
// block may share a frame of block-uniform tiles (tiles/block.h block_frame_t; launch/launcher.py
// _block_flags: every wp.tid() component but the last one unpacked is the block's).
WPNB_FN int32& block_frame_mode_slot() {
    __shared__ int32 mode;
    return mode;
}
WPNB_FN int32 block_lane() { return block_lanes_slot() > 1 ? int32(threadIdx.x) : 0; }
WPNB_FN int32& block_active_slot() {
    __shared__ int32 active;
    return active;
}
WPNB_FN int32 block_active() { return block_active_slot(); }
WPNB_FN int32 block_members() { return block_active_slot(); }  // (lanes outside the launch return at once)
// Which threads of the block are still running (the entry point clears a thread's flag when it returns).
WPNB_FN bool* block_alive_slot() {
    __shared__ bool alive[1024];
    return alive;
}
WPNB_FN bool block_alive(int32 lane) { return block_alive_slot()[lane]; }
// The lowest thread of the block still running (threads may have returned), elected in shared memory.
WPNB_FN int32 block_leader() {
    __shared__ int32 leader;
    leader = int32(blockDim.x);
    __syncthreads();
    atomicMin(&leader, int32(threadIdx.x));
    __syncthreads();
    const int32 elected = leader;
    __syncthreads();  // every thread has read it before the next election
    return elected;
}
// The barrier: every thread of the block has reached it when one passes.
WPNB_FN void block_sync() { __syncthreads(); }
WPNB_FN unsigned char* block_scratch() {
    __shared__ __align__(16) unsigned char scratch[WPNB_BLOCK_SCRATCH];
    return scratch;
}

}  // namespace wpnb

// (prelude_cpu.h: a CPU kernel's while loops leave on an interrupt; a GPU's run to their end)
#define WPNB_INTERRUPTED() false

#endif  // WPNB_CUDA
