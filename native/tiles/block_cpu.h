// block_cpu.h: blocks of several lanes on the CPU (wp.config.enable_cpu_blocks), as fibers.
//
// The lanes of a block run on one OS thread, each on its own stack. A lane runs until it reaches
// a barrier (block_sync) or ends, then the next lane runs; once every lane has had its turn, the
// round starts again. So when a lane passes a barrier, every lane has reached it: the barrier
// semantics of __syncthreads, without threads. Lanes that ended count as arrived. Different
// blocks run on different OS threads (the runtime's pool), each with its own fibers.
//
// A switch saves the callee-saved registers and the stack pointer and loads another lane's: on
// x86-64 a few instructions here (about 10 ns); elsewhere ucontext's swapcontext, which also saves
// the signal mask with a system call (about a microsecond). A block of 256 lanes crossing a
// barrier pays 256 switches. Without enable_cpu_blocks a block is one lane and none of this runs.
//
// CPU-only by nature (system headers, a stack switch in assembly), and the one exception to
// "target conditionals live in the prelude": a kernel's text is the same for both targets and
// includes this header, so under NVRTC it is empty (CUDA lanes are threads: core/prelude_cuda.h).
#pragma once
#include "tiles/block.h"

#if defined(WPNB_CPU)
#include <sys/mman.h>
#include <stdlib.h>
#include <new>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace wpnb {

// Each lane's stack; tiles live there, and the lane-write buffers of tile_block.h (B entries).
constexpr int64 kFiberStack = int64(1) << 20;
constexpr int64 kFiberGuard = 4096;

#if defined(__x86_64__)
// Save rbp, rbx, r12-r15, MXCSR and the x87 control word on this stack, store the stack pointer in
// *from, switch to `to` and restore what was saved there (System V: the other registers are the
// caller's to save). Internal linkage: every translation unit has its own copy.
static __attribute__((naked, noinline)) void fiber_switch(void** /*from*/, void* /*to*/) {
    asm volatile(
        "pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
        "subq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n\t"
        "movq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\t"
        "ldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n\t"
        "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret\n\t");
}
#endif

struct fiber_block_t {
    block_ctx_t ctx;
    bool* done;
    void (*run_lane)(void* user, int32 lane);
    void* user;
#if defined(__x86_64__)
    void* scheduler;
    void** lanes;  // each lane's saved stack pointer
#else
    ucontext_t scheduler;
    ucontext_t* lanes;
#endif
    alignas(16) unsigned char scratch[WPNB_BLOCK_SCRATCH];
};

inline void fiber_yield(block_ctx_t* c) {
    fiber_block_t* f = (fiber_block_t*)c->runner;
#if defined(__x86_64__)
    fiber_switch(&f->lanes[c->lane], f->scheduler);
#else
    swapcontext(&f->lanes[c->lane], &f->scheduler);
#endif
}

inline void fiber_run_current() {
    fiber_block_t* f = (fiber_block_t*)block_ctx_slot()->runner;
    const int32 lane = f->ctx.lane;
    f->run_lane(f->user, lane);
    f->done[lane] = true;
#if defined(__x86_64__)
    fiber_switch(&f->lanes[lane], f->scheduler);  // never resumed
    __builtin_unreachable();
#endif
}

// Lane k's fresh context on its stack [stack, stack + size), to start in fiber_run_current.
inline void fiber_prepare(fiber_block_t* f, int32 k, unsigned char* stack, int64 size) {
#if defined(__x86_64__)
    uint64* sp = (uint64*)(stack + size);
    *--sp = 0;                                  // (where a return address would be: keeps alignment)
    *--sp = (uint64)(void*)&fiber_run_current;  // fiber_switch's `ret` goes here
    for (int r = 0; r < 6; ++r) *--sp = 0;      // rbp, rbx, r12 - r15
    *--sp = 0x1F80ull | (0x037Full << 32);      // default MXCSR and x87 control word
    f->lanes[k] = sp;
#else
    getcontext(&f->lanes[k]);
    f->lanes[k].uc_stack.ss_sp = stack;
    f->lanes[k].uc_stack.ss_size = size_t(size);
    f->lanes[k].uc_link = &f->scheduler;
    makecontext(&f->lanes[k], (void (*)())fiber_run_current, 0);
#endif
}

inline void fiber_resume(fiber_block_t* f, int32 k) {
#if defined(__x86_64__)
    fiber_switch(&f->scheduler, f->lanes[k]);
#else
    swapcontext(&f->scheduler, &f->lanes[k]);
#endif
}

// The frame of a kernel's block-uniform tiles on the CPU (block.h): lane 0 runs first in each
// round (run_fiber_blocks), so it sizes the block's frame and zeroes it before any other lane asks
// for it; then lane 0 alone computes the tiles and the others read them there. Apart (a launch
// whose leading wp.tid() components vary inside a block), each lane has a frame of its own.
template <typename S>
struct block_frame_t<S, true> {
    S* at;
    bool leads, kept_apart;
    block_frame_t() {
        block_ctx_t* c = block_ctx_slot();
        if (!c) __builtin_trap();  // (kernels typed for several lanes run as fibers)
        kept_apart = c->apart != 0;
        const int64 each = (int64(sizeof(S)) + 63) / 64 * 64;
        if (c->lane == 0) {
            const int64 need = kept_apart ? each * c->dim : each;
            if (c->frame_bytes < need) {
                free(c->frame);
                c->frame = (unsigned char*)aligned_alloc(64, size_t(need));
                c->frame_bytes = c->frame ? need : 0;
                if (!c->frame) __builtin_trap();
            }
        }
        at = (S*)(c->frame + (kept_apart ? each * c->lane : 0));
        leads = kept_apart || c->lane == 0;
        if (leads) ::new ((void*)at) S();
    }
    S& get() { return *at; }
    bool lead() const { return leads; }
    bool apart() const { return kept_apart; }
    // (lanes split a statement's elements only with wp.config.cpu_split_tiles: launch bit 4)
    coop_t part() const { return coop_part(kept_apart, block_ctx_slot()->split != 0, leads); }
};

// Run blocks [block_begin, block_end) of B lanes over `size` threads: run_lane(user, lane) with
// the current block in *block. `flags` (the launch's launch_t::one_lane): bit 0, every lane would
// compute the same, so only lane 0 of each block runs, the others counting as arrived, and a
// block's tiles are computed once (wp.block_dim() is still B); bit 1, the lanes may share a frame
// of block-uniform tiles (block_frame_t; else each keeps its own); bit 2, the lanes sharing it split
// the statements that write those tiles (block.h coop_part). Returns false when the fiber
// stacks could not be mapped.
inline bool run_fiber_blocks(int32 B, int64 block_begin, int64 block_end, int64 size, int64* block,
                             void (*run_lane)(void*, int32), void* user, int32 flags = 0) {
    const bool one_lane = (flags & 1) != 0;
    const int64 per_lane = kFiberStack + kFiberGuard;
#if defined(__x86_64__)
    const int64 lane_state = int64(sizeof(void*));
#else
    const int64 lane_state = int64(sizeof(ucontext_t));
#endif
    const int64 bytes = int64(B) * per_lane + int64(sizeof(fiber_block_t)) + int64(B) * lane_state + int64(B) + 64;
    void* region = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (region == MAP_FAILED) return false;
    unsigned char* base = (unsigned char*)region;
    // (one lane for all: only lane 0's stack is used; each guard is a system call and a mapping)
    for (int32 k = 0; k < (one_lane ? 1 : B); ++k) mprotect(base + int64(k) * per_lane, size_t(kFiberGuard), PROT_NONE);
    unsigned char* tail = base + int64(B) * per_lane;
    fiber_block_t* f = (fiber_block_t*)tail;  // plain data, in fresh zeroed pages
    unsigned char* after = tail + sizeof(fiber_block_t);
#if defined(__x86_64__)
    f->lanes = (void**)after;
    f->done = (bool*)(f->lanes + B);
#else
    f->lanes = (ucontext_t*)after;
    f->done = (bool*)(f->lanes + B);
#endif
    f->run_lane = run_lane;
    f->user = user;
    block_ctx_t*& slot = block_ctx_slot();
    block_ctx_t* outer = slot;
    bool interrupted = false;
    for (int64 b = block_begin; b < block_end && !interrupted; ++b) {
        *block = b;
        const int64 first = b * B;
        const int32 members = int32(size - first < B ? size - first : B);
        const int32 active = one_lane ? 1 : members;
        f->ctx.lane = 0;
        f->ctx.dim = B;
        f->ctx.active = active;
        f->ctx.members = members;
        f->ctx.leader = 0;
        f->ctx.scratch = f->scratch;
        f->ctx.done = f->done;
        f->ctx.sync = fiber_yield;
        f->ctx.runner = f;
        f->ctx.apart = (flags & 2) ? 0 : 1;
        f->ctx.split = (flags & 4) ? 1 : 0;
        slot = &f->ctx;
        for (int32 k = 0; k < active; ++k) {
            fiber_prepare(f, k, base + int64(k) * per_lane + kFiberGuard, kFiberStack);
            f->done[k] = false;
        }
        int32 remaining = active;
        while (remaining > 0 && !interrupted) {  // one round: every lane runs to its next barrier (or its end)
            for (int32 k = 0; k < active; ++k) {
                if (f->done[k]) continue;
                // Ctrl-C (prelude_cpu.h): no lane is resumed once it came, so none passes a barrier that
                // a lane which left a loop early (or never got there) did not reach; the block is
                // abandoned, its fibers' stacks unmapped with the rest
                if (WPNB_INTERRUPTED()) { interrupted = true; break; }
                f->ctx.lane = k;
                fiber_resume(f, k);
                if (!f->done[k]) continue;
                --remaining;
                while (f->ctx.leader < active - 1 && f->done[f->ctx.leader]) ++f->ctx.leader;  // the next lead
            }
        }
    }
    slot = outer;
    free(f->ctx.frame);
    munmap(region, size_t(bytes));
    return true;
}

}  // namespace wpnb
#endif
