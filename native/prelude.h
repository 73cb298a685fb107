// prelude.h: the only place where the CPU (g++/clang) and CUDA (NVRTC) targets differ.
// Every other header includes this one and uses its macros; none includes a standard
// library header, because NVRTC compiles these files too and has no standard library.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WPNB_CUDA 1
#define WPNB_FN __device__ inline                       // every builtin and helper
#define WPNB_KERNEL extern "C" __global__               // kernel entry points
#define WPNB_RESTRICT __restrict__
#else
#define WPNB_CPU 1
#define WPNB_FN inline
#define WPNB_KERNEL extern "C" __attribute__((visibility("default")))
#define WPNB_RESTRICT __restrict__
#endif

// C library entry points the CPU build needs, declared by hand instead of including
// <math.h>/<stdio.h>. Under NVRTC the same names are device builtins.
#ifdef WPNB_CPU
extern "C" {
float sqrtf(float); double sqrt(double); float cbrtf(float); double cbrt(double);
float expf(float); double exp(double); float logf(float); double log(double);
float log2f(float); double log2(double); float log10f(float); double log10(double);
float powf(float, float); double pow(double, double);
float sinf(float); double sin(double); float cosf(float); double cos(double);
float tanf(float); double tan(double); float asinf(float); double asin(double);
float acosf(float); double acos(double); float atanf(float); double atan(double);
float atan2f(float, float); double atan2(double, double);
float sinhf(float); double sinh(double); float coshf(float); double cosh(double);
float tanhf(float); double tanh(double); float erff(float); double erf(double);
float floorf(float); double floor(double); float ceilf(float); double ceil(double);
float roundf(float); double round(double); float truncf(float); double trunc(double);
float rintf(float); double rint(double); float fmodf(float, float); double fmod(double, double);
float fabsf(float); double fabs(double);
int printf(const char*, ...);
}
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

struct half {
    uint16 bits;
    WPNB_FN half() : bits(0) {}
    WPNB_FN half(float32 f) : bits(float_to_half_bits(f)) {}
    WPNB_FN half(float64 f) : bits(float_to_half_bits(float32(f))) {}
    WPNB_FN half(int32 i) : bits(float_to_half_bits(float32(i))) {}
    WPNB_FN operator float32() const { return half_bits_to_float(bits); }
};
typedef half float16;

}  // namespace wpnb
