// scalar.h: scalar builtins (operators and math) for float16 (wpnb::half), bfloat16, float32,
// float64 and the integer types, each followed by its adjoint. The 16-bit floats ("small
// floats": half, bfloat16) compute in float32 and round back. Choices at non-smooth points
// are listed in docs/subgradients.md.
//
// Integer semantics (Warp's): `/` truncates toward zero, `%` (mod) takes the sign of the
// dividend (truncated division), `//` (floordiv) rounds toward minus infinity. Division or
// modulo by zero gives 0 instead of trapping; MIN / -1 and MIN // -1 wrap to MIN and
// MIN % -1 is 0. add/sub/mul/neg wrap modulo 2^bits (computed in unsigned arithmetic).
// Shifts by a negative count or by >= the bit width shift every bit out (0, or -1 for an
// arithmetic right shift of a negative value), the same result on CPU and GPU.
#pragma once
#include "core/prelude.h"
#include "core/libm.h"

namespace wpnb {


// Type lists used by the generator macros of this header (undefined at its end).
// Integers come as (T, U): U is the unsigned type wrapping arithmetic is done in.
#define WPNB_S_SINTS(X) X(int8, uint32) X(int16, uint32) X(int32, uint32) X(int64, uint64)
#define WPNB_S_UINTS(X) X(uint8, uint32) X(uint16, uint32) X(uint32, uint32) X(uint64, uint64)
#define WPNB_S_INTS(X) WPNB_S_SINTS(X) WPNB_S_UINTS(X)
#define WPNB_S_FLOATS(X) X(float32) X(float64)
// Adapter: applies the one-argument WPNB_S_DEF to a (T, U) entry.
#define WPNB_S_FIRST(T, U) WPNB_S_DEF(T)
// Every native scalar (not the small floats), one argument per entry.
#define WPNB_S_NATIVE(X) X(int8) X(int16) X(int32) X(int64) X(uint8) X(uint16) X(uint32) X(uint64) \
    X(float32) X(float64)
// The 16-bit floats stored as bits (prelude.h), computed in float32.
#define WPNB_S_SMALL(X) X(half) X(bfloat16)
#define WPNB_S_ALL(X) WPNB_S_NATIVE(X) WPNB_S_SMALL(X)

// Adjoint of a small float's unary/binary/ternary builtin: run the float32 adjoint and accumulate in float32.
#define WPNB_S_SMALL_ADJ1(H, NAME) \
    WPNB_FN void adj_##NAME(H x, H& adj_x, const H& adj_ret) { \
        float32 ax = 0.0f; adj_##NAME(float32(x), ax, float32(adj_ret)); \
        adj_x = H(float32(adj_x) + ax); }
#define WPNB_S_SMALL_ADJ2(H, NAME) \
    WPNB_FN void adj_##NAME(H a, H b, H& adj_a, H& adj_b, const H& adj_ret) { \
        float32 aa = 0.0f, ab = 0.0f; adj_##NAME(float32(a), float32(b), aa, ab, float32(adj_ret)); \
        adj_a = H(float32(adj_a) + aa); adj_b = H(float32(adj_b) + ab); }
#define WPNB_S_SMALL_ADJ3(H, NAME) \
    WPNB_FN void adj_##NAME(H a, H b, H c, H& adj_a, H& adj_b, H& adj_c, const H& adj_ret) { \
        float32 aa = 0.0f, ab = 0.0f, ac = 0.0f; \
        adj_##NAME(float32(a), float32(b), float32(c), aa, ab, ac, float32(adj_ret)); \
        adj_a = H(float32(adj_a) + aa); adj_b = H(float32(adj_b) + ab); adj_c = H(float32(adj_c) + ac); }
// A small float's binary builtin computed in float32: NAME(a, b) = H(EXPR) with its adjoint.
#define WPNB_S_SMALL_FN2(NAME, EXPR) \
    WPNB_FN half NAME(half a, half b) { return half(EXPR); } WPNB_S_SMALL_ADJ2(half, NAME) \
    WPNB_FN bfloat16 NAME(bfloat16 a, bfloat16 b) { return bfloat16(EXPR); } WPNB_S_SMALL_ADJ2(bfloat16, NAME)
#define WPNB_S_SMALL_FN1(NAME, EXPR) \
    WPNB_FN half NAME(half x) { return half(EXPR); } WPNB_S_SMALL_ADJ1(half, NAME) \
    WPNB_FN bfloat16 NAME(bfloat16 x) { return bfloat16(EXPR); } WPNB_S_SMALL_ADJ1(bfloat16, NAME)
#define WPNB_S_SMALL_FN3(NAME, A, B, C) \
    WPNB_FN half NAME(half A, half B, half C) { return half(NAME(float32(A), float32(B), float32(C))); } \
    WPNB_S_SMALL_ADJ3(half, NAME) \
    WPNB_FN bfloat16 NAME(bfloat16 A, bfloat16 B, bfloat16 C) { \
        return bfloat16(NAME(float32(A), float32(B), float32(C))); } \
    WPNB_S_SMALL_ADJ3(bfloat16, NAME)

// ---------------------------------------------------------------------------------------
// Arithmetic operators
// ---------------------------------------------------------------------------------------

// add(a, b) = a + b; d/da = 1, d/db = 1. Integer arithmetic is plain C++ arithmetic, as in
// CUDA and Warp: 8- and 16-bit results wrap when narrowed, and signed 32/64-bit overflow is
// left undefined so the compiler can reason about indices (i - 1, i + 1) and vectorise loops.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T add(T a, T b) { return T(a + b); } \
    WPNB_FN void adj_add(T, T, T&, T&, const T&) {}
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T add(T a, T b) { return a + b; } \
    WPNB_FN void adj_add(T, T, T& adj_a, T& adj_b, const T& adj_ret) { adj_a += adj_ret; adj_b += adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(add, float32(a) + float32(b))

// sub(a, b) = a - b; d/da = 1, d/db = -1. Integers: see add.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T sub(T a, T b) { return T(a - b); } \
    WPNB_FN void adj_sub(T, T, T&, T&, const T&) {}
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T sub(T a, T b) { return a - b; } \
    WPNB_FN void adj_sub(T, T, T& adj_a, T& adj_b, const T& adj_ret) { adj_a += adj_ret; adj_b -= adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(sub, float32(a) - float32(b))

// mul(a, b) = a * b; d/da = b, d/db = a. Integers: see add.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T mul(T a, T b) { return T(a * b); } \
    WPNB_FN void adj_mul(T, T, T&, T&, const T&) {}
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T mul(T a, T b) { return a * b; } \
    WPNB_FN void adj_mul(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { adj_a += b * adj_ret; adj_b += a * adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(mul, float32(a) * float32(b))

// div(a, b): floats a / b (IEEE: x/0 = +-inf or nan), d/da = 1/b, d/db = -a/b^2.
// Signed integers truncate toward zero; b == 0 gives 0; MIN / -1 wraps to MIN.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T div(T a, T b) { return b == T(0) ? T(0) : (b == T(-1) ? T(U(0) - U(a)) : T(a / b)); } \
    WPNB_FN void adj_div(T, T, T&, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
// Unsigned integers: a / b, and 0 when b == 0.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T div(T a, T b) { return b == T(0) ? T(0) : T(a / b); } \
    WPNB_FN void adj_div(T, T, T&, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T div(T a, T b) { return a / b; } \
    WPNB_FN void adj_div(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { \
        adj_a += adj_ret / b; adj_b -= adj_ret * (a / b) / b; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(div, float32(a) / float32(b))

// mod(a, b): remainder of truncated division, sign of a (C `%`, C fmod for floats).
// Integers: b == 0 gives 0, MIN % -1 gives 0. Floats: mod(a, 0) = nan; d/da = 1 and, Warp's
// choice, d/db = 0 (the true -trunc(a/b) only where |a| >= |b|; jumps are ignored).
#define WPNB_S_DEF(T, U) \
    WPNB_FN T mod(T a, T b) { return (b == T(0) || b == T(-1)) ? T(0) : T(a % b); } \
    WPNB_FN void adj_mod(T, T, T&, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T mod(T a, T b) { return b == T(0) ? T(0) : T(a % b); } \
    WPNB_FN void adj_mod(T, T, T&, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T mod(T a, T b) { return libm::fmod(a, b); } \
    WPNB_FN void adj_mod(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { \
        (void)a; (void)b; (void)adj_b; adj_a += adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(mod, libm::fmod(float32(a), float32(b)))

// floordiv(a, b): Python `//`, rounds toward -inf. Signed integers: b == 0 gives 0, MIN // -1
// wraps to MIN. Floats: floor(a / b). Piecewise constant: gradient 0 everywhere.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T floordiv(T a, T b) { \
        if (b == T(0)) return T(0); \
        if (b == T(-1)) return T(U(0) - U(a)); \
        const T q = T(a / b); \
        return (T(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) ? T(q - T(1)) : q; } \
    WPNB_FN void adj_floordiv(T, T, T&, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T floordiv(T a, T b) { return b == T(0) ? T(0) : T(a / b); } \
    WPNB_FN void adj_floordiv(T, T, T&, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T floordiv(T a, T b) { return libm::floor(a / b); } \
    WPNB_FN void adj_floordiv(T, T, T&, T&, const T&) {}
WPNB_S_FLOATS(WPNB_S_DEF) WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// neg(x) = -x (integers wrap, so -MIN = MIN); pos(x) = +x. d/dx = -1 and 1.
#define WPNB_S_DEF(T, U) \
    WPNB_FN T neg(T x) { return T(U(0) - U(x)); } \
    WPNB_FN void adj_neg(T, T&, const T&) {} \
    WPNB_FN T pos(T x) { return x; } \
    WPNB_FN void adj_pos(T, T&, const T&) {}
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
// A float's neg(x) is 0 - x, as Warp's: neg(0.0) and neg(-0.0) are +0.0, a nan keeps its sign (found by
// tests/fuzz/arrays_against_warp.py through `-a` in Python scope); -x would give -0.0 for 0.0.
#define WPNB_S_DEF(T) \
    WPNB_FN T neg(T x) { return T(0) - x; } \
    WPNB_FN void adj_neg(T, T& adj_x, const T& adj_ret) { adj_x -= adj_ret; } \
    WPNB_FN T pos(T x) { return x; } \
    WPNB_FN void adj_pos(T, T& adj_x, const T& adj_ret) { adj_x += adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
// The small floats flip the sign bit, as 0 - x would: a zero becomes +0, a nan is left as it is
// (an exponent of all ones over a nonzero mantissa: half's exponent is 5 bits, bfloat16's 8).
WPNB_FN uint16 small_inf_bits(half) { return 0x7c00u; }
WPNB_FN uint16 small_inf_bits(bfloat16) { return 0x7f80u; }
#define WPNB_S_DEF(H) \
    WPNB_FN H neg(H x) { \
        H r = x; \
        if ((x.bits & 0x7fffu) == 0u) r.bits = 0u; \
        else if ((x.bits & 0x7fffu) <= small_inf_bits(x)) r.bits = uint16(r.bits ^ 0x8000u); \
        return r; } \
    WPNB_S_SMALL_ADJ1(H, neg) \
    WPNB_FN H pos(H x) { return x; } \
    WPNB_S_SMALL_ADJ1(H, pos)
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// ---------------------------------------------------------------------------------------
// Comparisons (return bool; no gradient) and logic
// ---------------------------------------------------------------------------------------

// lt le gt ge eq ne: a < b, a <= b, a > b, a >= b, a == b, a != b (nan compares unequal).
#define WPNB_S_CMP(T, C) \
    WPNB_FN bool lt(T a, T b) { return C(a) < C(b); } \
    WPNB_FN void adj_lt(T, T, T&, T&, const bool&) {} \
    WPNB_FN bool le(T a, T b) { return C(a) <= C(b); } \
    WPNB_FN void adj_le(T, T, T&, T&, const bool&) {} \
    WPNB_FN bool gt(T a, T b) { return C(a) > C(b); } \
    WPNB_FN void adj_gt(T, T, T&, T&, const bool&) {} \
    WPNB_FN bool ge(T a, T b) { return C(a) >= C(b); } \
    WPNB_FN void adj_ge(T, T, T&, T&, const bool&) {} \
    WPNB_FN bool eq(T a, T b) { return C(a) == C(b); } \
    WPNB_FN void adj_eq(T, T, T&, T&, const bool&) {} \
    WPNB_FN bool ne(T a, T b) { return C(a) != C(b); } \
    WPNB_FN void adj_ne(T, T, T&, T&, const bool&) {}
#define WPNB_S_DEF(T) WPNB_S_CMP(T, T)
WPNB_S_NATIVE(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_CMP(half, float32)
WPNB_S_CMP(bfloat16, float32)
WPNB_S_CMP(bool, bool)
#undef WPNB_S_CMP

// logical_not(x) = (x == 0), for bool and every scalar (-0.0 counts as zero; nan is not zero).
#define WPNB_S_DEF(T) \
    WPNB_FN bool logical_not(T x) { return x == T(0); } \
    WPNB_FN void adj_logical_not(T, T&, const bool&) {}
WPNB_S_NATIVE(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(H) \
    WPNB_FN bool logical_not(H x) { return float32(x) == 0.0f; } \
    WPNB_FN void adj_logical_not(H, H&, const bool&) {}
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_FN bool logical_not(bool x) { return !x; }
WPNB_FN void adj_logical_not(bool, bool&, const bool&) {}

// bit_and bit_or bit_xor: a & b, a | b, a ^ b (integers and bool); invert(x) = ~x (integers).
#define WPNB_S_DEF(T, U) \
    WPNB_FN T bit_and(T a, T b) { return T(a & b); } \
    WPNB_FN void adj_bit_and(T, T, T&, T&, const T&) {} \
    WPNB_FN T bit_or(T a, T b) { return T(a | b); } \
    WPNB_FN void adj_bit_or(T, T, T&, T&, const T&) {} \
    WPNB_FN T bit_xor(T a, T b) { return T(a ^ b); } \
    WPNB_FN void adj_bit_xor(T, T, T&, T&, const T&) {} \
    WPNB_FN T invert(T x) { return T(~U(x)); } \
    WPNB_FN void adj_invert(T, T&, const T&) {}
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_FN bool bit_and(bool a, bool b) { return a & b; }  // no branch (&& would short-circuit)
WPNB_FN void adj_bit_and(bool, bool, bool&, bool&, const bool&) {}
WPNB_FN bool bit_or(bool a, bool b) { return a | b; }
WPNB_FN void adj_bit_or(bool, bool, bool&, bool&, const bool&) {}
WPNB_FN bool bit_xor(bool a, bool b) { return a != b; }
WPNB_FN void adj_bit_xor(bool, bool, bool&, bool&, const bool&) {}

// lshift(a, n) = a << n (wraps); rshift(a, n) = a >> n (arithmetic for signed types).
// n < 0 or n >= bits shifts everything out: lshift gives 0, rshift gives 0 or -1 (a < 0).
#define WPNB_S_DEF(T, U) \
    WPNB_FN T lshift(T a, T n) { \
        return (n < T(0) || uint64(n) >= 8u * sizeof(T)) ? T(0) : T(U(a) << U(n)); } \
    WPNB_FN void adj_lshift(T, T, T&, T&, const T&) {} \
    WPNB_FN T rshift(T a, T n) { \
        return (n < T(0) || uint64(n) >= 8u * sizeof(T)) ? (a < T(0) ? T(-1) : T(0)) : T(a >> n); } \
    WPNB_FN void adj_rshift(T, T, T&, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T lshift(T a, T n) { return uint64(n) >= 8u * sizeof(T) ? T(0) : T(U(a) << U(n)); } \
    WPNB_FN void adj_lshift(T, T, T&, T&, const T&) {} \
    WPNB_FN T rshift(T a, T n) { return uint64(n) >= 8u * sizeof(T) ? T(0) : T(a >> n); } \
    WPNB_FN void adj_rshift(T, T, T&, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF

// isnan(x), isinf(x) (+-inf), isfinite(x) (neither): tested on the bits, so they hold under
// fast-math too. Integers are always finite. No gradient.
WPNB_FN bool isnan(float32 x) { return (float_bits(x) & 0x7fffffffu) > 0x7f800000u; }
WPNB_FN bool isinf(float32 x) { return (float_bits(x) & 0x7fffffffu) == 0x7f800000u; }
WPNB_FN bool isfinite(float32 x) { return (float_bits(x) & 0x7f800000u) != 0x7f800000u; }
WPNB_FN uint64 double_bits(float64 f) { union { float64 f; uint64 u; } v; v.f = f; return v.u; }
WPNB_FN bool isnan(float64 x) { return (double_bits(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
WPNB_FN bool isinf(float64 x) { return (double_bits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
WPNB_FN bool isfinite(float64 x) { return (double_bits(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }
WPNB_FN bool isnan(half x) { return (x.bits & 0x7fffu) > 0x7c00u; }
WPNB_FN bool isinf(half x) { return (x.bits & 0x7fffu) == 0x7c00u; }
WPNB_FN bool isfinite(half x) { return (x.bits & 0x7c00u) != 0x7c00u; }
WPNB_FN bool isnan(bfloat16 x) { return (x.bits & 0x7fffu) > 0x7f80u; }
WPNB_FN bool isinf(bfloat16 x) { return (x.bits & 0x7fffu) == 0x7f80u; }
WPNB_FN bool isfinite(bfloat16 x) { return (x.bits & 0x7f80u) != 0x7f80u; }
#define WPNB_S_DEF(T, U) \
    WPNB_FN bool isnan(T) { return false; } \
    WPNB_FN bool isinf(T) { return false; } \
    WPNB_FN bool isfinite(T) { return true; }
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN void adj_isnan(T, T&, const bool&) {} \
    WPNB_FN void adj_isinf(T, T&, const bool&) {} \
    WPNB_FN void adj_isfinite(T, T&, const bool&) {}
WPNB_S_ALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// ---------------------------------------------------------------------------------------
// abs, sign, min, max, clamp, step, nonzero (all scalar types)
// ---------------------------------------------------------------------------------------

// abs(x) = |x|; signed MIN stays MIN. Gradient sign(x) with d/dx at 0 = +1 (Warp's choice).
#define WPNB_S_DEF(T, U) \
    WPNB_FN T abs(T x) { return x < T(0) ? T(U(0) - U(x)) : x; } \
    WPNB_FN void adj_abs(T, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T abs(T x) { return x; } \
    WPNB_FN void adj_abs(T, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T) \
    WPNB_FN T abs(T x) { return libm::fabs(x); } \
    WPNB_FN void adj_abs(T x, T& adj_x, const T& adj_ret) { adj_x += x < T(0) ? -adj_ret : adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(H) \
    WPNB_FN H abs(H x) { H r = x; r.bits = uint16(r.bits & 0x7fffu); return r; } \
    WPNB_S_SMALL_ADJ1(H, abs)
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// sign(x) = -1 if x < 0 else 1 (Warp: sign(0) = sign(-0) = 1, sign(nan) = 1). Gradient 0.
#define WPNB_S_DEF(T) \
    WPNB_FN T sign(T x) { return x < T(0) ? T(-1) : T(1); } \
    WPNB_FN void adj_sign(T, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_FIRST) WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T sign(T) { return T(1); } \
    WPNB_FN void adj_sign(T, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(H) \
    WPNB_FN H sign(H x) { return H(sign(float32(x))); } \
    WPNB_FN void adj_sign(H, H&, const H&) {}
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// step(x) = 1 if x < 0 else 0 (Warp's definition, note the direction). Gradient 0.
// nonzero(x) = 1 if x != 0 else 0 (nan counts as nonzero). Gradient 0.
#define WPNB_S_DEF(T) \
    WPNB_FN T step(T x) { return x < T(0) ? T(1) : T(0); } \
    WPNB_FN void adj_step(T, T&, const T&) {} \
    WPNB_FN T nonzero(T x) { return x != T(0) ? T(1) : T(0); } \
    WPNB_FN void adj_nonzero(T, T&, const T&) {}
WPNB_S_SINTS(WPNB_S_FIRST) WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(T, U) \
    WPNB_FN T step(T) { return T(0); } \
    WPNB_FN void adj_step(T, T&, const T&) {} \
    WPNB_FN T nonzero(T x) { return x != T(0) ? T(1) : T(0); } \
    WPNB_FN void adj_nonzero(T, T&, const T&) {}
WPNB_S_UINTS(WPNB_S_DEF)
#undef WPNB_S_DEF
#define WPNB_S_DEF(H) \
    WPNB_FN H step(H x) { return H(step(float32(x))); } \
    WPNB_FN void adj_step(H, H&, const H&) {} \
    WPNB_FN H nonzero(H x) { return H(nonzero(float32(x))); } \
    WPNB_FN void adj_nonzero(H, H&, const H&) {}
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF

// min(a, b) = a < b ? a : b; max(a, b) = a > b ? a : b. Floats follow C fmin/fmax: a nan is a
// missing value, so min(nan, b) = b, min(a, nan) = a and only min(nan, nan) is nan (Warp's choice).
// The gradient goes to the argument returned: on a tie (a == b) that is b.
// clamp(x, lo, hi) = min(max(x, lo), hi) with the same nan rule (clamp(nan, lo, hi) = min(lo, hi));
// the gradient goes to the input returned: at x == lo that is x, at x == hi (or lo >= hi) it is hi,
// as in Warp. Integer adjoints are no-ops.
#define WPNB_S_MINMAX(T, ADJ_MIN, ADJ_MAX, ADJ_CLAMP) \
    WPNB_FN T min(T a, T b) { return (a < b || b != b) ? a : b; } \
    WPNB_FN void adj_min(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { ADJ_MIN } \
    WPNB_FN T max(T a, T b) { return (a > b || b != b) ? a : b; } \
    WPNB_FN void adj_max(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { ADJ_MAX } \
    WPNB_FN T clamp(T x, T lo, T hi) { \
        const T m = (lo > x || x != x) ? lo : x; \
        return (hi < m || m != m) ? hi : m; } \
    WPNB_FN void adj_clamp(T x, T lo, T hi, T& adj_x, T& adj_lo, T& adj_hi, const T& adj_ret) { ADJ_CLAMP }
#define WPNB_S_DEF(T, U) WPNB_S_MINMAX(T, \
    (void)a; (void)b; (void)adj_a; (void)adj_b; (void)adj_ret;, \
    (void)a; (void)b; (void)adj_a; (void)adj_b; (void)adj_ret;, \
    (void)x; (void)lo; (void)hi; (void)adj_x; (void)adj_lo; (void)adj_hi; (void)adj_ret;)
WPNB_S_INTS(WPNB_S_DEF)
#undef WPNB_S_DEF
// Which argument a float min/max/clamp returns (nan is missing; min/max ties go to b; clamp's tie
// with lo goes to x, its tie with hi to hi).
template <typename T> WPNB_FN bool min_takes_a(T a, T b) { return !isnan(a) && (isnan(b) || a < b); }
template <typename T> WPNB_FN bool max_takes_a(T a, T b) { return !isnan(a) && (isnan(b) || a > b); }
template <typename T> WPNB_FN bool clamp_keeps_x_over_lo(T x, T lo) { return !isnan(x) && (isnan(lo) || !(x < lo)); }
template <typename T> WPNB_FN bool clamp_keeps_m_under_hi(T m, T hi) { return !isnan(m) && (isnan(hi) || m < hi); }
#define WPNB_S_DEF(T) \
    WPNB_FN T min(T a, T b) { return min_takes_a(a, b) ? a : b; } \
    WPNB_FN void adj_min(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { \
        if (min_takes_a(a, b)) adj_a += adj_ret; else adj_b += adj_ret; } \
    WPNB_FN T max(T a, T b) { return max_takes_a(a, b) ? a : b; } \
    WPNB_FN void adj_max(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { \
        if (max_takes_a(a, b)) adj_a += adj_ret; else adj_b += adj_ret; } \
    WPNB_FN T clamp(T x, T lo, T hi) { \
        const T m = clamp_keeps_x_over_lo(x, lo) ? x : lo; \
        return clamp_keeps_m_under_hi(m, hi) ? m : hi; } \
    WPNB_FN void adj_clamp(T x, T lo, T hi, T& adj_x, T& adj_lo, T& adj_hi, const T& adj_ret) { \
        const bool keep_x = clamp_keeps_x_over_lo(x, lo); \
        if (!clamp_keeps_m_under_hi(keep_x ? x : lo, hi)) adj_hi += adj_ret; \
        else if (keep_x) adj_x += adj_ret; else adj_lo += adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
#undef WPNB_S_MINMAX
WPNB_S_SMALL_FN2(min, min(float32(a), float32(b)))
WPNB_S_SMALL_FN2(max, max(float32(a), float32(b)))
WPNB_S_SMALL_FN3(clamp, x, lo, hi)

// ---------------------------------------------------------------------------------------
// Floating-point math (float16, float32, float64)
// ---------------------------------------------------------------------------------------

// Generates NAME(x) = libm::NAME(x) for float32/float64/small floats and adj_NAME with
// adj_x += adj_ret * (DERIV); DERIV may use T (the type), x and ret (= NAME(x)).
#define WPNB_S_UNARY_T(TT, NAME, DERIV) \
    WPNB_FN TT NAME(TT x) { return libm::NAME(x); } \
    WPNB_FN void adj_##NAME(TT x, TT& adj_x, const TT& adj_ret) { \
        typedef TT T; const T ret = libm::NAME(x); (void)ret; adj_x += adj_ret * T(DERIV); }
#define WPNB_S_UNARY(NAME, DERIV) \
    WPNB_S_UNARY_T(float32, NAME, DERIV) WPNB_S_UNARY_T(float64, NAME, DERIV) \
    WPNB_S_SMALL_FN1(NAME, libm::NAME(float32(x)))

// floor, ceil, trunc: round down / up / toward zero. round: nearest, halfway cases away
// from zero (Warp's round). rint: nearest, halfway cases to even. Gradient 0 everywhere.
WPNB_S_UNARY(floor, 0)
WPNB_S_UNARY(ceil, 0)
WPNB_S_UNARY(trunc, 0)
WPNB_S_UNARY(round, 0)
WPNB_S_UNARY(rint, 0)

// sqrt(x); d/dx = 0.5 / sqrt(x) for x > 0, chosen 0 at x == 0 (true value +inf), nan for x < 0.
WPNB_S_UNARY(sqrt, x > T(0) ? T(0.5) / ret : (x == T(0) ? T(0) : ret))
// cbrt(x) = x^(1/3) (real, odd); d/dx = cbrt(x) / (3x), chosen 0 at x == 0 (true value +inf).
WPNB_S_UNARY(cbrt, x != T(0) ? ret / (T(3) * x) : T(0))
// exp(x); d/dx = exp(x).
WPNB_S_UNARY(exp, ret)
// log(x) natural; d/dx = 1/x (inf at 0, nan below).
WPNB_S_UNARY(log, T(1) / x)
// log2(x); d/dx = 1 / (x ln 2).
WPNB_S_UNARY(log2, T(1) / (x * T(0.69314718055994530942)))
// log10(x); d/dx = 1 / (x ln 10).
WPNB_S_UNARY(log10, T(1) / (x * T(2.30258509299404568402)))
// sin(x); d/dx = cos(x).
WPNB_S_UNARY(sin, libm::cos(x))
// cos(x); d/dx = -sin(x).
WPNB_S_UNARY(cos, -libm::sin(x))
// tan(x); d/dx = 1 + tan(x)^2.
WPNB_S_UNARY(tan, T(1) + ret * ret)
// asin and acos take x clamped to [-1, 1], as Warp's do (asin(1.5) is pi/2, not nan; a dot product
// of unit vectors that rounds to 1.0000001 still has an angle); nan stays nan.
template <typename T> WPNB_FN T unit_clamp(T x) { return x < T(-1) ? T(-1) : (x > T(1) ? T(1) : x); }
#define WPNB_S_UNIT_CLAMPED_T(TT, NAME, DERIV) \
    WPNB_FN TT NAME(TT x) { return libm::NAME(unit_clamp(x)); } \
    WPNB_FN void adj_##NAME(TT x, TT& adj_x, const TT& adj_ret) { typedef TT T; adj_x += adj_ret * T(DERIV); }
#define WPNB_S_UNIT_CLAMPED(NAME, DERIV) \
    WPNB_S_UNIT_CLAMPED_T(float32, NAME, DERIV) WPNB_S_UNIT_CLAMPED_T(float64, NAME, DERIV) \
    WPNB_S_SMALL_FN1(NAME, NAME(float32(x)))
// asin(x); d/dx = 1/sqrt(1 - x^2) for |x| < 1, chosen 0 for |x| >= 1 (true value inf at +-1).
WPNB_S_UNIT_CLAMPED(asin, libm::fabs(x) < T(1) ? T(1) / libm::sqrt(T(1) - x * x) : T(0))
// acos(x); d/dx = -1/sqrt(1 - x^2) for |x| < 1, chosen 0 for |x| >= 1 (true value -inf at +-1).
WPNB_S_UNIT_CLAMPED(acos, libm::fabs(x) < T(1) ? T(-1) / libm::sqrt(T(1) - x * x) : T(0))
// atan(x); d/dx = 1 / (1 + x^2).
WPNB_S_UNARY(atan, T(1) / (T(1) + x * x))
// sinh(x); d/dx = cosh(x).
WPNB_S_UNARY(sinh, libm::cosh(x))
// cosh(x); d/dx = sinh(x).
WPNB_S_UNARY(cosh, libm::sinh(x))
// tanh(x); d/dx = 1 - tanh(x)^2.
WPNB_S_UNARY(tanh, T(1) - ret * ret)
// erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt; d/dx = 2/sqrt(pi) * exp(-x^2).
WPNB_S_UNARY(erf, T(1.12837916709551257390) * libm::exp(-x * x))
#undef WPNB_S_UNARY
#undef WPNB_S_UNARY_T

// frac(x) = x - trunc(x) (Warp's definition: keeps the sign of x); d/dx = 1 (jumps ignored).
#define WPNB_S_DEF(T) \
    WPNB_FN T frac(T x) { return x - libm::trunc(x); } \
    WPNB_FN void adj_frac(T, T& adj_x, const T& adj_ret) { adj_x += adj_ret; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN1(frac, frac(float32(x)))

// degrees(x) = x * 180/pi; radians(x) = x * pi/180. Linear.
#define WPNB_S_DEF(T) \
    WPNB_FN T degrees(T x) { return x * T(57.295779513082320877); } \
    WPNB_FN void adj_degrees(T, T& adj_x, const T& adj_ret) { adj_x += adj_ret * T(57.295779513082320877); } \
    WPNB_FN T radians(T x) { return x * T(0.017453292519943295769); } \
    WPNB_FN void adj_radians(T, T& adj_x, const T& adj_ret) { adj_x += adj_ret * T(0.017453292519943295769); }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN1(degrees, degrees(float32(x)))
WPNB_S_SMALL_FN1(radians, radians(float32(x)))

// pow(a, b) = a^b (C pow: negative a needs integral b, else nan). d/da = b a^(b-1), chosen 0
// at a == 0 with b < 1 (true value inf or nan); d/db = ln(a) a^b for a > 0, chosen 0 for a <= 0.
// atan2(y, x): angle of (x, y) in [-pi, pi]; d/dy = x/(x^2+y^2), d/dx = -y/(x^2+y^2), 0 at (0, 0).
#define WPNB_S_DEF(T) \
    WPNB_FN T pow(T a, T b) { return libm::pow(a, b); } \
    WPNB_FN void adj_pow(T a, T b, T& adj_a, T& adj_b, const T& adj_ret) { \
        if (!(a == T(0) && b < T(1))) adj_a += adj_ret * b * libm::pow(a, b - T(1)); \
        if (a > T(0)) adj_b += adj_ret * libm::log(a) * libm::pow(a, b); } \
    WPNB_FN T atan2(T y, T x) { return libm::atan2(y, x); } \
    WPNB_FN void adj_atan2(T y, T x, T& adj_y, T& adj_x, const T& adj_ret) { \
        const T r2 = x * x + y * y; \
        if (r2 > T(0)) { adj_y += adj_ret * x / r2; adj_x -= adj_ret * y / r2; } }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN2(pow, libm::pow(float32(a), float32(b)))
WPNB_S_SMALL_FN2(atan2, libm::atan2(float32(a), float32(b)))

// lerp(a, b, t) = a*(1-t) + b*t; d/da = 1-t, d/db = t, d/dt = b-a.
// smoothstep(a, b, x): u = clamp((x-a)/(b-a), 0, 1), returns u^2 (3 - 2u), C1-smooth; with
// s = 6u(1-u)/(b-a): d/dx = s, d/da = s (x-b)/(b-a), d/db = -s (x-a)/(b-a). a == b: step
// at a (1 if x > a else 0: Warp's value, whose 0/0 at x == a clamps to 0), gradient 0 (Warp's is nan).
#define WPNB_S_DEF(T) \
    WPNB_FN T lerp(T a, T b, T t) { return a * (T(1) - t) + b * t; } \
    WPNB_FN void adj_lerp(T a, T b, T t, T& adj_a, T& adj_b, T& adj_t, const T& adj_ret) { \
        adj_a += adj_ret * (T(1) - t); adj_b += adj_ret * t; adj_t += adj_ret * (b - a); } \
    WPNB_FN T smoothstep(T a, T b, T x) { \
        if (a == b) return x > a ? T(1) : T(0); \
        const T u = clamp((x - a) / (b - a), T(0), T(1)); \
        return u * u * (T(3) - T(2) * u); } \
    WPNB_FN void adj_smoothstep(T a, T b, T x, T& adj_a, T& adj_b, T& adj_x, const T& adj_ret) { \
        if (a == b) return; \
        const T d = b - a, u = clamp((x - a) / d, T(0), T(1)); \
        const T s = adj_ret * T(6) * u * (T(1) - u) / d; \
        adj_x += s; adj_a += s * (x - b) / d; adj_b -= s * (x - a) / d; }
WPNB_S_FLOATS(WPNB_S_DEF)
#undef WPNB_S_DEF
WPNB_S_SMALL_FN3(lerp, a, b, t)
WPNB_S_SMALL_FN3(smoothstep, a, b, x)


// ---------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------

// cast<To>(x): value conversion between any two scalar types (bool included); a small-float
// source or target goes through float32. Float to integer truncates toward zero (out of range is
// undefined, as in C). adj_cast adds adj_ret converted back to From (0 for integer sides).
template <typename To> struct scalar_caster {
    template <typename From> static WPNB_FN To run(From x) { return To(x); }
    static WPNB_FN To run(half x) { return To(float32(x)); }
    static WPNB_FN To run(bfloat16 x) { return To(float32(x)); }
};
#define WPNB_S_DEF(H) \
    template <> struct scalar_caster<H> { \
        template <typename From> static WPNB_FN H run(From x) { return H(float32(x)); } \
        static WPNB_FN H run(H x) { return x; } \
    };
WPNB_S_SMALL(WPNB_S_DEF)
#undef WPNB_S_DEF
template <typename To, typename From> WPNB_FN To cast(From x) { return scalar_caster<To>::run(x); }
template <typename T> struct scalar_is_float { enum { value = 0 }; };
template <> struct scalar_is_float<half> { enum { value = 1 }; };
template <> struct scalar_is_float<bfloat16> { enum { value = 1 }; };
template <> struct scalar_is_float<float32> { enum { value = 1 }; };
template <> struct scalar_is_float<float64> { enum { value = 1 }; };
template <typename To, typename From> WPNB_FN void adj_cast(From, From& adj_x, const To& adj_ret) {
    if (scalar_is_float<To>::value && scalar_is_float<From>::value)
        adj_x = cast<From>(cast<float64>(adj_x) + cast<float64>(adj_ret));
}

#undef WPNB_S_SMALL_ADJ1
#undef WPNB_S_SMALL_ADJ2
#undef WPNB_S_SMALL_ADJ3
#undef WPNB_S_SMALL_FN1
#undef WPNB_S_SMALL_FN2
#undef WPNB_S_SMALL_FN3
#undef WPNB_S_SMALL
#undef WPNB_S_SINTS
#undef WPNB_S_UINTS
#undef WPNB_S_INTS
#undef WPNB_S_FLOATS
#undef WPNB_S_FIRST
#undef WPNB_S_NATIVE
#undef WPNB_S_ALL

}  // namespace wpnb
