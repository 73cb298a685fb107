// block_cpu.h: blocks of several lanes on the CPU (wp.config.enable_cpu_blocks), as fibers.
//
// The lanes of a block run on one OS thread, each on its own stack. A lane runs until it reaches
// a barrier (block_sync) or ends, then the next lane runs; once every lane has had its turn, the
// round starts again. So when a lane passes a barrier, every lane has reached it: the barrier
// semantics of __syncthreads, without threads. Lanes that ended count as arrived. Different
// blocks run on different OS threads (the runtime's pool), each with its own fibers.
//
// ucontext's swapcontext costs about a microsecond per switch (it saves the signal mask); a
// block of 256 lanes crossing a barrier pays 256 of them. That is the price of Warp's CPU-blocks
// semantics; without enable_cpu_blocks a block is one lane and none of this runs.
#pragma once
#include "block.h"

#if defined(WPNB_CPU)
#include <sys/mman.h>
#include <ucontext.h>

namespace wpnb {

// Each lane's stack; tiles live there, and the lane-write buffers of tile_block.h (B entries).
constexpr int64 kFiberStack = int64(1) << 20;
constexpr int64 kFiberGuard = 4096;

struct fiber_block_t {
    block_ctx_t ctx;
    ucontext_t scheduler;
    ucontext_t* lanes;
    bool* done;
    void (*run_lane)(void* user, int32 lane);
    void* user;
    alignas(16) unsigned char scratch[WPNB_BLOCK_SCRATCH];
};

inline void fiber_yield(block_ctx_t* c) {
    fiber_block_t* f = (fiber_block_t*)c->runner;
    swapcontext(&f->lanes[c->lane], &f->scheduler);
}

inline void fiber_start(unsigned int hi, unsigned int lo) {
    fiber_block_t* f = (fiber_block_t*)(((unsigned long long)hi << 32) | (unsigned long long)lo);
    const int32 lane = f->ctx.lane;
    f->run_lane(f->user, lane);
    f->done[lane] = true;  // returning resumes the scheduler (uc_link)
}

// Run blocks [block_begin, block_end) of B lanes over `size` threads: run_lane(user, lane) with
// the current block in *block. Returns false when the fiber stacks could not be mapped.
inline bool run_fiber_blocks(int32 B, int64 block_begin, int64 block_end, int64 size, int64* block,
                             void (*run_lane)(void*, int32), void* user) {
    const int64 per_lane = kFiberStack + kFiberGuard;
    const int64 bytes = int64(B) * per_lane + int64(sizeof(fiber_block_t)) + int64(B) * int64(sizeof(ucontext_t)) +
                        int64(B) + 64;
    void* region = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (region == MAP_FAILED) return false;
    unsigned char* base = (unsigned char*)region;
    for (int32 k = 0; k < B; ++k) mprotect(base + int64(k) * per_lane, size_t(kFiberGuard), PROT_NONE);
    unsigned char* tail = base + int64(B) * per_lane;
    fiber_block_t* f = (fiber_block_t*)tail;  // plain data, in fresh zeroed pages
    f->lanes = (ucontext_t*)(tail + sizeof(fiber_block_t));
    f->done = (bool*)(f->lanes + B);
    f->run_lane = run_lane;
    f->user = user;
    const unsigned long long address = (unsigned long long)f;
    block_ctx_t*& slot = block_ctx_slot();
    block_ctx_t* outer = slot;
    for (int64 b = block_begin; b < block_end; ++b) {
        *block = b;
        const int64 first = b * B;
        const int32 active = int32(size - first < B ? size - first : B);
        f->ctx.lane = 0;
        f->ctx.dim = B;
        f->ctx.active = active;
        f->ctx.scratch = f->scratch;
        f->ctx.sync = fiber_yield;
        f->ctx.runner = f;
        slot = &f->ctx;
        for (int32 k = 0; k < active; ++k) {
            getcontext(&f->lanes[k]);
            f->lanes[k].uc_stack.ss_sp = base + int64(k) * per_lane + kFiberGuard;
            f->lanes[k].uc_stack.ss_size = size_t(kFiberStack);
            f->lanes[k].uc_link = &f->scheduler;
            makecontext(&f->lanes[k], (void (*)())fiber_start, 2, (unsigned int)(address >> 32),
                        (unsigned int)(address & 0xffffffffu));
            f->done[k] = false;
        }
        int32 remaining = active;
        while (remaining > 0) {  // one round: every lane runs to its next barrier (or its end)
            for (int32 k = 0; k < active; ++k) {
                if (f->done[k]) continue;
                f->ctx.lane = k;
                swapcontext(&f->scheduler, &f->lanes[k]);
                if (f->done[k]) --remaining;
            }
        }
    }
    slot = outer;
    munmap(region, size_t(bytes));
    return true;
}

}  // namespace wpnb
#endif
