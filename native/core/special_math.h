// special_math.h: the error-function family beyond erf (erfc, erfinv, erfcinv), copysign and
// bit_count, with adjoints. half goes through float32.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"

namespace wpnb {
namespace special_detail {
WPNB_FN float32 erfc_(float32 x) { return ::erfcf(x); }
WPNB_FN float64 erfc_(float64 x) { return ::erfc(x); }
WPNB_FN float32 erf_(float32 x) { return ::erff(x); }
WPNB_FN float64 erf_(float64 x) { return ::erf(x); }
// erfinv(y) for |y| < 1: Giles' single-precision approximation, then Newton steps on erf(x) - y
// (three, enough for float64); +-inf at +-1, NaN outside [-1, 1].
template <typename T> WPNB_FN T erfinv_(T y) {
    if (y <= T(-1) || y >= T(1)) return y == T(1) ? T(1) / T(0) : (y == T(-1) ? T(-1) / T(0) : T(0) / T(0));
    T w = -::log(float64((T(1) - y) * (T(1) + y))), x;
    if (w < T(5)) {
        w = w - T(2.5);
        T p = T(2.81022636e-08); p = T(3.43273939e-07) + p * w; p = T(-3.5233877e-06) + p * w;
        p = T(-4.39150654e-06) + p * w; p = T(0.00021858087) + p * w; p = T(-0.00125372503) + p * w;
        p = T(-0.00417768164) + p * w; p = T(0.246640727) + p * w; p = T(1.50140941) + p * w; x = p * y;
    } else {
        w = T(::sqrt(float64(w))) - T(3);
        T p = T(-0.000200214257); p = T(0.000100950558) + p * w; p = T(0.00134934322) + p * w;
        p = T(-0.00367342844) + p * w; p = T(0.00573950773) + p * w; p = T(-0.0076224613) + p * w;
        p = T(0.00943887047) + p * w; p = T(1.00167406) + p * w; p = T(2.83297682) + p * w; x = p * y;
    }
    for (int k = 0; k < 3; ++k) {
        const T d = T(1.12837916709551257390) * T(::exp(-float64(x) * float64(x)));
        if (d == T(0)) break;
        x -= (erf_(x) - y) / d;
    }
    return x;
}
}  // namespace special_detail

#define WPNB_SM_UNARY(NAME, VALUE, DERIV) \
    WPNB_FN float32 NAME(float32 x) { typedef float32 T; (void)sizeof(T); return VALUE; } \
    WPNB_FN float64 NAME(float64 x) { typedef float64 T; (void)sizeof(T); return VALUE; } \
    WPNB_FN half NAME(half x) { return half(NAME(float32(x))); } \
    WPNB_FN void adj_##NAME(float32 x, float32& adj_x, const float32& adj_ret) { typedef float32 T; adj_x += adj_ret * (DERIV); } \
    WPNB_FN void adj_##NAME(float64 x, float64& adj_x, const float64& adj_ret) { typedef float64 T; adj_x += adj_ret * (DERIV); } \
    WPNB_FN void adj_##NAME(half x, half& adj_x, const half& adj_ret) { \
        float32 a = 0.0f; adj_##NAME(float32(x), a, float32(adj_ret)); adj_x = half(float32(adj_x) + a); }
// erfc(x) = 1 - erf(x) (accurate for large x); d/dx = -2/sqrt(pi) exp(-x^2).
WPNB_SM_UNARY(erfc, special_detail::erfc_(x), T(-1.12837916709551257390) * T(::exp(-float64(x) * float64(x))))
// erfinv(y): erf(erfinv(y)) = y on (-1, 1); d/dy = sqrt(pi)/2 exp(erfinv(y)^2).
WPNB_SM_UNARY(erfinv, special_detail::erfinv_(x),
              T(0.88622692545275801365) * T(::exp(float64(special_detail::erfinv_(x)) * float64(special_detail::erfinv_(x)))))
// erfcinv(y) = erfinv(1 - y) on (0, 2); d/dy = -sqrt(pi)/2 exp(erfcinv(y)^2).
WPNB_SM_UNARY(erfcinv, special_detail::erfinv_(T(1) - x),
              T(-0.88622692545275801365) * T(::exp(float64(special_detail::erfinv_(T(1) - x)) *
                                                    float64(special_detail::erfinv_(T(1) - x)))))
#undef WPNB_SM_UNARY

// copysign(x, y): |x| with the sign bit of y; d/dx = +-1 (the sign applied), d/dy = 0.
WPNB_FN float32 copysign(float32 x, float32 y) { return ::copysignf(x, y); }
WPNB_FN float64 copysign(float64 x, float64 y) { return ::copysign(x, y); }
WPNB_FN half copysign(half x, half y) { return half(::copysignf(float32(x), float32(y))); }
template <typename T> WPNB_FN void adj_copysign(T x, T y, T& adj_x, T&, const T& adj_ret) {
    const float64 s = ::copysign(1.0, float64(x)) == ::copysign(1.0, float64(y)) ? 1.0 : -1.0;
    adj_x = T(float64(adj_x) + s * float64(adj_ret));
}

// bit_count(x): the number of set bits of x in its own width (two's complement for signed).
template <typename T> WPNB_FN int32 bit_count(T x) {
    uint64 u = uint64(x);
    if (sizeof(T) < 8) u &= (uint64(1) << (8 * sizeof(T))) - 1;
    int32 n = 0;
    for (; u; u &= u - 1) ++n;
    return n;
}
template <typename T> WPNB_FN void adj_bit_count(T, T&, const int32&) {}

}  // namespace wpnb
