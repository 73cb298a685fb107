// libm.h: the C library's math functions as wpnb::libm overloads for float32 and float64, the
// layer every math builtin (scalar.h) calls; on the CPU, vectorisable through glibc's libmvec.
#pragma once
#include "core/prelude.h"

namespace wpnb {

// Thin overloads on the C library (float32 -> f-suffixed name, float64 -> plain name), so
// templates and macros below can call one name for both widths.
//
// Vector math (toolchain/vector_math.py): at level WPNB_VMATH, the functions of that level and
// below are called through declarations with GCC's simd attribute, under new source names bound
// to the same C symbols (asm labels). A loop over them vectorises into glibc's libmvec variants
// (_ZGVdN8v_sinf: sinf on 8 lanes). The new names also keep GCC from merging sin and cos into a
// sincos call, which has no vector variant. Without WPNB_VMATH the plain calls are made.
namespace libm {
#define WPNB_S_LIBM1(N) \
    WPNB_FN float32 N(float32 x) { return ::N##f(x); } \
    WPNB_FN float64 N(float64 x) { return ::N(x); }
#define WPNB_S_LIBM2(N) \
    WPNB_FN float32 N(float32 a, float32 b) { return ::N##f(a, b); } \
    WPNB_FN float64 N(float64 a, float64 b) { return ::N(a, b); }
#define WPNB_S_VLIBM1(N) \
    extern "C" __attribute__((simd("notinbranch"), const, nothrow)) float32 wpnb_vm_##N##f(float32) __asm__(#N "f"); \
    extern "C" __attribute__((simd("notinbranch"), const, nothrow)) float64 wpnb_vm_##N(float64) __asm__(#N); \
    WPNB_FN float32 N(float32 x) { return wpnb_vm_##N##f(x); } \
    WPNB_FN float64 N(float64 x) { return wpnb_vm_##N(x); }
#define WPNB_S_VLIBM2(N) \
    extern "C" __attribute__((simd("notinbranch"), const, nothrow)) float32 wpnb_vm_##N##f(float32, float32) \
        __asm__(#N "f"); \
    extern "C" __attribute__((simd("notinbranch"), const, nothrow)) float64 wpnb_vm_##N(float64, float64) __asm__(#N); \
    WPNB_FN float32 N(float32 a, float32 b) { return wpnb_vm_##N##f(a, b); } \
    WPNB_FN float64 N(float64 a, float64 b) { return wpnb_vm_##N(a, b); }
#if defined(WPNB_VMATH) && WPNB_CPU && !defined(__CUDACC__)
#define WPNB_S_VM_LEVEL WPNB_VMATH
#else
#define WPNB_S_VM_LEVEL 0
#endif
#if WPNB_S_VM_LEVEL >= 1
#define WPNB_S_L1(N) WPNB_S_VLIBM1(N)
#define WPNB_S_L1B(N) WPNB_S_VLIBM2(N)
#else
#define WPNB_S_L1(N) WPNB_S_LIBM1(N)
#define WPNB_S_L1B(N) WPNB_S_LIBM2(N)
#endif
#if WPNB_S_VM_LEVEL >= 2
#define WPNB_S_L2(N) WPNB_S_VLIBM1(N)
#define WPNB_S_L2B(N) WPNB_S_VLIBM2(N)
#else
#define WPNB_S_L2(N) WPNB_S_LIBM1(N)
#define WPNB_S_L2B(N) WPNB_S_LIBM2(N)
#endif
// level 1 (glibc 2.22) and level 2 (glibc 2.35): the lists of toolchain/vector_math.py's LEVELS
WPNB_S_L1(sin) WPNB_S_L1(cos) WPNB_S_L1(exp) WPNB_S_L1(log) WPNB_S_L1B(pow)
WPNB_S_L2(tan) WPNB_S_L2(asin) WPNB_S_L2(acos) WPNB_S_L2(atan) WPNB_S_L2(sinh) WPNB_S_L2(cosh)
WPNB_S_L2(tanh) WPNB_S_L2(cbrt) WPNB_S_L2(erf) WPNB_S_L2(log2) WPNB_S_L2(log10) WPNB_S_L2B(atan2)
// single instructions (or no vector variant)
WPNB_S_LIBM1(sqrt) WPNB_S_LIBM1(floor) WPNB_S_LIBM1(ceil) WPNB_S_LIBM1(round) WPNB_S_LIBM1(trunc)
WPNB_S_LIBM1(rint) WPNB_S_LIBM1(fabs) WPNB_S_LIBM2(fmod)
#undef WPNB_S_L1
#undef WPNB_S_L1B
#undef WPNB_S_L2
#undef WPNB_S_L2B
#undef WPNB_S_VM_LEVEL
#undef WPNB_S_VLIBM1
#undef WPNB_S_VLIBM2
#undef WPNB_S_LIBM1
#undef WPNB_S_LIBM2
}  // namespace libm

}  // namespace wpnb
