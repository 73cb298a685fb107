// prelude.h: the only place where the CPU (g++/clang) and CUDA (NVRTC) targets differ.
// Every other header includes this one and uses its macros and primitives; none includes a
// standard library header, because NVRTC compiles these files too and has no standard library.
// Here: which target this is, the function qualifiers, the fixed-width types and the 16-bit
// floats; the primitives that differ by target (atomics on bits, storage classes, the lanes of a
// block) are in prelude_cpu.h and prelude_cuda.h, one definition per target, included below.
// The target says which it is: its translation units define WPNB_CPU or WPNB_CUDA before any
// include (Target.prelude); without either (a header test), the compiler decides.
#pragma once

#if defined(WPNB_CUDA) || (!defined(WPNB_CPU) && (defined(__CUDACC__) || defined(__CUDACC_RTC__)))
#ifndef WPNB_CUDA
#define WPNB_CUDA 1
#endif
#define WPNB_FN __device__ inline                       // every builtin and helper
#define WPNB_KERNEL extern "C" __global__               // kernel entry points
#define WPNB_RESTRICT __restrict__
#define WPNB_DEBUG_STATE __device__                      // where a debug-mode launch reports errors
#define WPNB_COLD_FN __device__ __noinline__             // a rarely taken path (a failed check)
#define WPNB_NOINLINE_FN __device__ __noinline__         // a @wp.func(inline=False) and its adjoint
#define WPNB_FORCEINLINE_FN __device__ __forceinline__   // a @wp.func(inline=True) and its adjoint
#ifndef CUDA_CALLABLE
#define CUDA_CALLABLE __host__ __device__                // Warp's qualifier, for C++ written for Warp
#endif                                                   // (module preambles, external builtins)
// A loop over a whole tile run by one thread, unrolled n times at most: NVRTC unrolls a loop of
// constant count completely, and whole-tile loops of hundreds of elements made it take 10 to 15 s
// per kernel (a 16 x 16 tile_matmul, 200-element scans; 1 to 3 s with this). The CPU's compilers
// choose for themselves.
#define WPNB_PRAGMA(text) _Pragma(#text)
#define WPNB_CUDA_UNROLL(n) WPNB_PRAGMA(unroll n)
// Whether 3x3 and 2x2 decompositions of float32 (and half) matrices work in float64
// (core/mat_decomp.h): not on GPUs, where float64 is slow on most models (Warp's are float32).
#ifndef WPNB_WIDE_DECOMPOSITIONS
#define WPNB_WIDE_DECOMPOSITIONS 0
#endif
#else
#ifndef WPNB_CPU
#define WPNB_CPU 1
#endif
#define WPNB_FN inline
#define WPNB_KERNEL extern "C" __attribute__((visibility("default")))
#define WPNB_RESTRICT __restrict__
#define WPNB_DEBUG_STATE extern "C" __attribute__((visibility("default")))
#define WPNB_COLD_FN __attribute__((noinline, cold))
#define WPNB_NOINLINE_FN inline __attribute__((noinline))
#define WPNB_FORCEINLINE_FN inline __attribute__((always_inline))
#ifndef CUDA_CALLABLE
#define CUDA_CALLABLE                                    // Warp's qualifier (see the CUDA branch)
#endif
#define WPNB_CUDA_UNROLL(n)                              // (see the CUDA branch)
// On the CPU they do: scalar float64 arithmetic costs what float32 does, and the results come
// out correctly rounded (Warp's tests of svd3 compare float32 results to 5 places); a test
// builds the CPU with 0 to run the GPU's
#ifndef WPNB_WIDE_DECOMPOSITIONS
#define WPNB_WIDE_DECOMPOSITIONS 1
#endif
#endif

namespace wpnb {

typedef signed char int8;
typedef unsigned char uint8;
typedef short int16;
typedef unsigned short uint16;
typedef int int32;
typedef unsigned int uint32;
typedef long long int64;
typedef unsigned long long uint64;
typedef float float32;
typedef double float64;

// Reinterpret the bits of a 32-bit float as an integer and back (for half conversion,
// atomics on floats and random numbers). A union is accepted by both compilers.
WPNB_FN uint32 float_bits(float32 f) { union { float32 f; uint32 u; } x; x.f = f; return x.u; }
WPNB_FN float32 bits_float(uint32 u) { union { float32 f; uint32 u; } x; x.u = u; return x.f; }

// The bytes of one value seen as another type of the same size (std::bit_cast without the
// standard library; compilers turn the byte loop into a register move).
template <typename To, typename From>
WPNB_FN To bit_cast(const From& from) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of the same size");
    To to;
    const unsigned char* src = (const unsigned char*)&from;
    unsigned char* dst = (unsigned char*)&to;
    for (unsigned k = 0; k < sizeof(To); ++k) dst[k] = src[k];
    return to;
}

// IEEE binary16 stored as bits; arithmetic happens in float32 and rounds back, so the
// same text works on both targets without cuda_fp16.h.
WPNB_FN uint16 float_to_half_bits(float32 value) {
    const uint32 f = float_bits(value);
    const uint32 sign = (f >> 16) & 0x8000u;
    const int32 exponent = int32((f >> 23) & 0xffu);
    uint32 mantissa = f & 0x7fffffu;
    if (exponent == 0xff)  // inf or nan (keep nan quiet)
        return uint16(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
    const int32 e = exponent - 127 + 15;
    if (e >= 0x1f) return uint16(sign | 0x7c00u);  // overflow to inf
    if (e <= 0) {                                   // subnormal half or zero
        if (e < -10) return uint16(sign);
        mantissa |= 0x800000u;
        const uint32 shift = uint32(14 - e);
        uint32 half_mant = mantissa >> shift;
        const uint32 rest = mantissa & ((1u << shift) - 1u);
        const uint32 halfway = 1u << (shift - 1u);
        if (rest > halfway || (rest == halfway && (half_mant & 1u))) half_mant++;
        return uint16(sign | half_mant);
    }
    uint32 h = sign | (uint32(e) << 10) | (mantissa >> 13);
    const uint32 rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  // round to nearest even
    return uint16(h);
}

WPNB_FN float32 half_bits_to_float(uint16 h) {
    const uint32 sign = uint32(h & 0x8000u) << 16;
    const uint32 exponent = (h >> 10) & 0x1fu;
    uint32 mantissa = h & 0x3ffu;
    if (exponent == 0) {
        if (mantissa == 0) return bits_float(sign);
        // subnormal: scale the mantissa by 2^-24
        const float32 m = float32(mantissa) * 5.9604644775390625e-8f;
        return sign ? -m : m;
    }
    if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
    return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// bfloat16: float32's sign and 8-bit exponent with a 7-bit mantissa, i.e. the upper 16 bits of
// a float32. Rounds to nearest even; a nan stays a (quiet) nan even when its payload lies only in
// the low bits that are dropped (0x7f800001 would otherwise truncate to inf).
WPNB_FN uint16 float_to_bfloat16_bits(float32 value) {
    const uint32 f = float_bits(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) return uint16((f >> 16) | 0x40u);
    return uint16((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

WPNB_FN float32 bfloat16_bits_to_float(uint16 b) { return bits_float(uint32(b) << 16); }

// Launch bounds shared by every kernel entry point: the launch shape, its rank and total size.
// lead_div (a launch of single threads): for a kernel whose scalar wp.tid() meets a launch of more
// dimensions, the product of the trailing extents (the tid is the leading coordinate: the flat
// index divided by it); else 0. one_lane (a launch in blocks of several lanes on the CPU): 1 when
// the lanes of a block would all compute the same (tiles/block_cpu.h runs one of them); else 0.
struct launch_t {
    int64 shape[4];
    int32 ndim;
    union {
        int32 lead_div;
        int32 one_lane;
    };
    int64 size;
};

// What the first failing debug check of a launch records (read from Python after the launch).
struct debug_state_t {
    int32 failed;    // 0, or 1 once a check failed
    int32 loc;       // index into the kernel's table of checked source locations
    int32 axis;      // the axis whose index was out of bounds (-1 an assert, -2 a non-finite store,
                     // -3 a check whose site names its failure)
    int32 pad;
    int64 index[4];  // the indices of the failing access
    int64 shape[4];  // the shape of the array
    int64 thread;    // the failing thread's index in the launch, row-major over its shape (-1: unknown)
};

struct half {
    uint16 bits;
    WPNB_FN half() : bits(0) {}
    WPNB_FN half(float32 f) : bits(float_to_half_bits(f)) {}
    WPNB_FN half(float64 f) : bits(float_to_half_bits(float32(f))) {}
    WPNB_FN half(int32 i) : bits(float_to_half_bits(float32(i))) {}
    WPNB_FN operator float32() const { return half_bits_to_float(bits); }
};
typedef half float16;

// bfloat16 stored as bits, like half: arithmetic happens in float32 and rounds back.
struct bfloat16 {
    uint16 bits;
    WPNB_FN bfloat16() : bits(0) {}
    WPNB_FN bfloat16(float32 f) : bits(float_to_bfloat16_bits(f)) {}
    WPNB_FN bfloat16(float64 f) : bits(float_to_bfloat16_bits(float32(f))) {}
    WPNB_FN bfloat16(int32 i) : bits(float_to_bfloat16_bits(float32(i))) {}
    WPNB_FN operator float32() const { return bfloat16_bits_to_float(bits); }
};

}  // namespace wpnb

// Warp's native namespace, for @wp.func_native snippets written against Warp's headers
// (wp::vec_t<3, wp::float32>, wp::tile_extract ...): the same templates by warp_nb's names.
namespace wp = wpnb;
// Warp's block barrier (tile.h), which snippets call where CUDA code would call __syncthreads()
#define WP_TILE_SYNC() wpnb::block_sync()

// Bytes of scratch a block's lanes exchange values through (tiles/block.h).
#define WPNB_BLOCK_SCRATCH 16384

// The target's primitives: the same names, one definition per target.
#if defined(WPNB_CUDA)
#include "core/prelude_cuda.h"
#else
#include "core/prelude_cpu.h"
#endif

namespace wpnb {
// A negative index counts from the end, as in Python and Warp 1.19 (x[-1] is the last element);
// in every mode, checked or not. What is still outside [0, n) is out of bounds.
WPNB_FN int64 wrap_index(int64 i, int64 n) { return i < 0 ? i + n : i; }
// The bound below which an index a kernel computed in int32 is exact: an axis's size, at most 2^31
// (what an entry point compares a chunk's greatest index with, compiler/index_ranges.py).
WPNB_FN int64 index_limit(int64 n) { return n < (int64(1) << 31) ? n : (int64(1) << 31); }
}  // namespace wpnb

// The check state of a kernel compiled with checks (WPNB_CHECKS: checked and debug modes): one
// per translation unit (per kernel), read by Python after each launch.
#if defined(WPNB_CHECKS) && WPNB_CHECKS
WPNB_DEBUG_STATE wpnb::debug_state_t wpnb_debug_state = {};
// The entry points say which thread of the launch runs next (its row-major index), so a failed
// check can name it: WPNB_CHECK_THREADS once per chunk of a launch (where this OS or GPU thread
// keeps it), then WPNB_CHECK_THREAD(i) before each thread runs, a plain store. Code compiled
// without checks says nothing (no cost in release).
#define WPNB_CHECK_THREADS wpnb::int64* const wpnb_thread_slot = &wpnb::debug_thread_slot()
#define WPNB_CHECK_THREAD(i) (*wpnb_thread_slot = wpnb::int64(i))

namespace wpnb {
// Record the first failed check of this launch; later failures keep the first report.
WPNB_FN void debug_fail(int32 loc, int32 axis, const int64* idx, const int64* shape, int32 n) {
    if (!claim_flag(&wpnb_debug_state.failed)) return;
    wpnb_debug_state.loc = loc;
    wpnb_debug_state.axis = axis;
    wpnb_debug_state.thread = debug_thread_now();
    for (int d = 0; d < n && d < 4; ++d) { wpnb_debug_state.index[d] = idx[d]; wpnb_debug_state.shape[d] = shape[d]; }
}


// A runtime component index of a vector or matrix axis of length n, wrapped like an array index;
// one out of range is reported and replaced by 0, so the kernel goes on reading a real component.
template <typename I> WPNB_FN int32 component_checked(I i, int32 n, int32 loc) {
    const int64 w = wrap_index(int64(i), n);
    if (w < 0 || w >= n) {
        const int64 idx = int64(i), shape = n;
        debug_fail(loc, 0, &idx, &shape, 1);
        return 0;
    }
    return int32(w);
}
}  // namespace wpnb
#else
#define WPNB_CHECK_THREADS (void)0
#define WPNB_CHECK_THREAD(i) ((void)0)
#endif
