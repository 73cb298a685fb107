// array_search.h: binary search in sorted 1-D arrays (lower_bound) and inverse-transform sampling
// of a tabulated CDF (sample_cdf). Not differentiable (integer results).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "core/random.h"

namespace wpnb {

// The first index in [begin, end) whose element is not less than value; the range must be sorted
// ascending. A value above every element gives the last index, end - 1, as Warp (not end).
template <typename T> WPNB_FN int32 lower_bound(const array_t<T, 1>& a, int32 begin, int32 end, T value) {
    int32 lo = begin, hi = end;
    while (lo < hi) {
        const int32 mid = lo + (hi - lo) / 2;
        if (index(a, mid) < value) lo = mid + 1; else hi = mid;
    }
    return lo < end || end <= begin ? lo : end - 1;
}
template <typename T> WPNB_FN void adj_lower_bound(const array_t<T, 1>&, int32, int32, T, const array_t<T, 1>&, int32&, int32&, T&,
                                                   const int32&) {}
template <typename T> WPNB_FN int32 lower_bound(const array_t<T, 1>& a, T value) { return lower_bound(a, 0, int32(a.shape[0]), value); }
template <typename T> WPNB_FN void adj_lower_bound(const array_t<T, 1>&, T, const array_t<T, 1>&, T&, const int32&) {}

// An index drawn with the probabilities the ascending CDF table gives: lower_bound(cdf, u) for a
// uniform u in [0, 1) (the last index when u is above the table). Advances state.
WPNB_FN int32 sample_cdf(uint32& state, const array_t<float32, 1>& cdf) { return lower_bound(cdf, randf(state)); }
WPNB_FN void adj_sample_cdf(uint32&, const array_t<float32, 1>&, uint32&, const array_t<float32, 1>&, const int32&) {}

}  // namespace wpnb
