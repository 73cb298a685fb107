// prelude_cpu.h: the CPU side of prelude.h (g++/clang), which includes it when not compiling for
// CUDA; prelude_cuda.h defines the same names for the GPU. The primitives where the targets
// differ: C library declarations, storage classes, atomics on bits, and the lanes of a block.
// Include prelude.h, not this file (alone it includes prelude.h, which picks the target).
#pragma once
#include "core/prelude.h"

#if defined(WPNB_CPU)

// C library entry points the CPU build needs, declared by hand instead of including
// <math.h>/<stdio.h> (noexcept, as glibc declares them, so either may come first).
// Under NVRTC the same names are device builtins.
extern "C" {
float sqrtf(float) noexcept; double sqrt(double) noexcept; float cbrtf(float) noexcept; double cbrt(double) noexcept;
float expf(float) noexcept; double exp(double) noexcept; float logf(float) noexcept; double log(double) noexcept;
float log2f(float) noexcept; double log2(double) noexcept; float log10f(float) noexcept; double log10(double) noexcept;
float powf(float, float) noexcept; double pow(double, double) noexcept;
float sinf(float) noexcept; double sin(double) noexcept; float cosf(float) noexcept; double cos(double) noexcept;
float tanf(float) noexcept; double tan(double) noexcept; float asinf(float) noexcept; double asin(double) noexcept;
float acosf(float) noexcept; double acos(double) noexcept; float atanf(float) noexcept; double atan(double) noexcept;
float atan2f(float, float) noexcept; double atan2(double, double) noexcept;
float sinhf(float) noexcept; double sinh(double) noexcept; float coshf(float) noexcept; double cosh(double) noexcept;
float tanhf(float) noexcept; double tanh(double) noexcept; float erff(float) noexcept; double erf(double) noexcept;
float floorf(float) noexcept; double floor(double) noexcept; float ceilf(float) noexcept; double ceil(double) noexcept;
float roundf(float) noexcept; double round(double) noexcept; float truncf(float) noexcept; double trunc(double) noexcept;
float rintf(float) noexcept; double rint(double) noexcept; float fmodf(float, float) noexcept; double fmod(double, double) noexcept;
float fabsf(float) noexcept; double fabs(double) noexcept;
float erfcf(float) noexcept; double erfc(double) noexcept;
float copysignf(float, float) noexcept; double copysign(double, double) noexcept;
int printf(const char*, ...);  // glibc declares printf without noexcept
}

// A function-local table built from constants: static, so it is built once per process
// (thread-safe initialisation since C++11). CUDA: each thread builds its own.
#define WPNB_TABLE_STORAGE static
// A function-local scratch buffer that a failed check hands out and nobody reads back: one per
// process (CUDA: per block, in shared memory).
#define WPNB_SCRATCH_STORAGE static

namespace wpnb {

// --- atomics on the bits of a value (the typed atomics of arrays/atomic.h are built on these) ---

// *p, read atomically (relaxed).
template <typename B> WPNB_FN B atomic_load_bits(B* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

// Compare-and-swap: *p = value if *p == compare; returns the old *p (relaxed).
template <typename B> WPNB_FN B atomic_cas_bits(B* p, B compare, B value) {
    __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;
}

// One try of a compare-and-swap loop: *p = value if *p == expected, else expected = *p; true on
// success. It may fail spuriously (a weak compare-and-swap, cheaper in a loop on some CPUs).
template <typename B> WPNB_FN bool atomic_cas_bits_weak(B* p, B& expected, B value) {
    return __atomic_compare_exchange_n(p, &expected, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

// Scalar types the target adds atomically in one instruction (the others: a compare-and-swap loop).
template <typename T> struct native_atomic_add { static constexpr bool value = false; };
template <> struct native_atomic_add<int8> { static constexpr bool value = true; };
template <> struct native_atomic_add<uint8> { static constexpr bool value = true; };
template <> struct native_atomic_add<int16> { static constexpr bool value = true; };
template <> struct native_atomic_add<uint16> { static constexpr bool value = true; };
template <> struct native_atomic_add<int32> { static constexpr bool value = true; };
template <> struct native_atomic_add<uint32> { static constexpr bool value = true; };
template <> struct native_atomic_add<int64> { static constexpr bool value = true; };
template <> struct native_atomic_add<uint64> { static constexpr bool value = true; };

// *p += v in one instruction, for the types of native_atomic_add; returns the old *p.
template <typename T> WPNB_FN T atomic_add_native(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

// Set *flag to 1; true for the one call that found it 0 (the first failed check of a launch).
WPNB_FN bool claim_flag(int32* flag) { return __atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL) == 0; }

// The index of the launch's thread this OS thread runs now (checked code: the entry points set it,
// a failed check records it; -1 before any). Out of line: the entry point asks once per chunk and
// keeps the address (inlined, the compiler would compute it again, a call, for every thread).
__attribute__((noinline)) inline int64& debug_thread_slot() {
    static thread_local int64 thread = -1;
    return thread;
}

// dst[0, n) = src[0, n).
WPNB_FN void copy_bytes(unsigned char* dst, const unsigned char* src, int64 n) {
    __builtin_memcpy(dst, src, (unsigned long)n);
}

// --- the lanes of a block (tiles/block.h): fibers of one OS thread, run by tiles/block_cpu.h ---

// Lanes of a block are fibers of one OS thread: what one lane computes for the block is not
// repeated by the others (tiles/block.h block_once). CUDA: lanes are threads that run at once.
constexpr bool lanes_share_thread = true;

struct block_ctx_t {
    int32 lane;    // the lane running now (CPU fibers set it at each switch)
    int32 dim;     // lanes per block
    int32 active;  // lanes 0 .. active - 1 run (a partial last block has fewer than dim)
    int32 members; // lanes of the block inside the launch (one lane computing for all lanes stands for them)
    int32 leader;  // the lowest lane still running: it does what the block does once
    unsigned char* scratch;  // WPNB_BLOCK_SCRATCH bytes, shared by the block's lanes
    const bool* done;        // which lanes have returned (they give nothing to what lanes gather)
    void (*sync)(block_ctx_t*);
    void* runner;
    int32 apart;            // the lanes keep frames of their own (tiles/block_cpu.h block_frame_t)
    unsigned char* frame;   // the block's frame of uniform tiles (or one per lane, apart)
    int64 frame_bytes;      // its capacity
    int32 split;            // the lanes sharing the frame split tile statements (tiles/block.h coop_part)
};

// The block the fibers of this OS thread belong to (null: one-lane blocks).
inline block_ctx_t*& block_ctx_slot() {
    static thread_local block_ctx_t* ctx = nullptr;
    return ctx;
}
WPNB_FN int32 block_lane() { block_ctx_t* c = block_ctx_slot(); return c ? c->lane : 0; }
WPNB_FN int32 block_dim() { block_ctx_t* c = block_ctx_slot(); return c ? c->dim : 1; }
WPNB_FN int32 block_active() { block_ctx_t* c = block_ctx_slot(); return c ? c->active : 1; }
// The lanes of the block that are inside the launch (the lanes a partial last block has), whether
// they run as fibers or one lane computes for them (tile reductions count their elements only).
WPNB_FN int32 block_members() { block_ctx_t* c = block_ctx_slot(); return c ? c->members : 1; }
WPNB_FN int32 block_leader() { block_ctx_t* c = block_ctx_slot(); return c ? c->leader : 0; }
WPNB_FN bool block_alive(int32 lane) { block_ctx_t* c = block_ctx_slot(); return c ? !c->done[lane] : lane == 0; }
// The barrier: switch to the block's next fiber (every lane has reached it when this one resumes).
WPNB_FN void block_sync() {
    block_ctx_t* c = block_ctx_slot();
    if (c) c->sync(c);
}
WPNB_FN unsigned char* block_scratch() { return block_ctx_slot()->scratch; }

// The launch's thread a failed check names: the one this OS thread said it runs; in a block of
// several lanes, which run as fibers of this OS thread, the lane running now.
inline int64 debug_thread_now() {
    const int64 t = debug_thread_slot();
    const block_ctx_t* c = block_ctx_slot();
    return c && t >= 0 ? t - t % c->dim + c->lane : t;
}

// Interrupts (Ctrl-C, a notebook's Interrupt): every while loop of a kernel tests this flag each
// iteration and leaves when it is set, so a kernel that never ends can be stopped. The flag is the
// CPU runtime's, which its SIGINT handler sets (native/runtime/cpu_runtime.cpp); the module's
// pointer to it is given when it is loaded (runtime/load.py), and points at a zero until then.
// A launch abandoned this way leaves its arrays partly written.
inline volatile int no_interrupt = 0;

}  // namespace wpnb

extern "C" {
__attribute__((visibility("default"), weak)) volatile int* wpnb_interrupt_flag = &wpnb::no_interrupt;
}
#define WPNB_INTERRUPTED() (*wpnb_interrupt_flag != 0)

#endif  // WPNB_CPU
