// select.h: where(cond, a, b) and Warp's older select(cond, a_false, a_true), for values of
// any type. Both values are already evaluated; the gradient goes to the chosen one.
#pragma once
#include "core/prelude.h"

namespace wpnb {

// where(cond, a, b) = a if cond is nonzero else b.
template <typename C, typename A> WPNB_FN A where(C cond, const A& a, const A& b) { return cond ? a : b; }
template <typename C, typename A>
WPNB_FN void adj_where(C cond, const A&, const A&, C&, A& adj_a, A& adj_b, const A& adj_ret) {
    if (cond) adj_a = add(adj_a, adj_ret); else adj_b = add(adj_b, adj_ret);
}

// select(cond, a_false, a_true) = a_true if cond is nonzero else a_false.
template <typename C, typename A> WPNB_FN A select(C cond, const A& a_false, const A& a_true) {
    return cond ? a_true : a_false;
}
template <typename C, typename A>
WPNB_FN void adj_select(C cond, const A&, const A&, C&, A& adj_false, A& adj_true, const A& adj_ret) {
    if (cond) adj_true = add(adj_true, adj_ret); else adj_false = add(adj_false, adj_ret);
}

}  // namespace wpnb
