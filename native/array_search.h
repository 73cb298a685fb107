// array_search.h: binary search in sorted 1-D arrays (lower_bound) and inverse-transform sampling
// of a tabulated CDF (sample_cdf). Not differentiable (integer results).
#pragma once
#include "prelude.h"
#include "scalar.h"
#include "array.h"
#include "random.h"

namespace wpnb {

// The first index in [begin, end) whose element is not less than value (end if none); the range
// must be sorted ascending.
template <typename T> WPNB_FN int32 lower_bound(const array_t<T, 1>& a, int32 begin, int32 end, T value) {
    int32 lo = begin, hi = end;
    while (lo < hi) {
        const int32 mid = lo + (hi - lo) / 2;
        if (index(a, mid) < value) lo = mid + 1; else hi = mid;
    }
    return lo;
}
template <typename T> WPNB_FN void adj_lower_bound(const array_t<T, 1>&, int32, int32, T, const array_t<T, 1>&, int32&, int32&, T&,
                                                   const int32&) {}
template <typename T> WPNB_FN int32 lower_bound(const array_t<T, 1>& a, T value) { return lower_bound(a, 0, int32(a.shape[0]), value); }
template <typename T> WPNB_FN void adj_lower_bound(const array_t<T, 1>&, T, const array_t<T, 1>&, T&, const int32&) {}

// An index drawn with the probabilities the ascending CDF table gives: lower_bound(cdf, u) for a
// uniform u in [0, 1) (clamped to the last index). Advances state.
WPNB_FN int32 sample_cdf(uint32& state, const array_t<float32, 1>& cdf) {
    const int32 k = lower_bound(cdf, randf(state));
    return k < int32(cdf.shape[0]) ? k : int32(cdf.shape[0]) - 1;
}
WPNB_FN void adj_sample_cdf(uint32&, const array_t<float32, 1>&, uint32&, const array_t<float32, 1>&, const int32&) {}

}  // namespace wpnb
