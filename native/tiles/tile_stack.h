// tile_stack.h: Warp's tile_stack, a fixed-capacity stack shared by a block's threads. A block is
// one thread here (see tile.h), so a stack is a value like a tile: the compiler rebinds the
// variable after each push, pop or clear. Pushes beyond the capacity are dropped; a pop of an
// empty stack gives slot -1 and a zero value. Not differentiated.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"

namespace wpnb {

template <typename T, int CAP>
struct tile_stack_t {
    T data[CAP];
    int32 count;

    // An empty stack.
    WPNB_FN tile_stack_t() : count(0) { for (int k = 0; k < CAP; ++k) data[k] = T(); }
};

// s with v pushed when has_value (and there is room).
template <typename T, int CAP>
WPNB_FN tile_stack_t<T, CAP> tile_stack_pushed(const tile_stack_t<T, CAP>& s, T v, bool has_value) {
    tile_stack_t<T, CAP> out = s;
    if (has_value && out.count < CAP) out.data[out.count++] = v;
    return out;
}

// The slot a push with has_value takes, or -1 (nothing to push, or the stack is full).
template <typename T, int CAP>
WPNB_FN int32 tile_stack_push_slot(const tile_stack_t<T, CAP>& s, bool has_value) {
    return has_value && s.count < CAP ? s.count : -1;
}

// The slot a pop takes (the top: count - 1), or -1 for an empty stack; and the value there.
template <typename T, int CAP>
WPNB_FN int32 tile_stack_top_slot(const tile_stack_t<T, CAP>& s) { return s.count > 0 ? s.count - 1 : -1; }
template <typename T, int CAP>
WPNB_FN T tile_stack_top(const tile_stack_t<T, CAP>& s) { return s.count > 0 ? s.data[s.count - 1] : T(); }

// s without its top (unchanged when empty).
template <typename T, int CAP>
WPNB_FN tile_stack_t<T, CAP> tile_stack_popped(const tile_stack_t<T, CAP>& s) {
    tile_stack_t<T, CAP> out = s;
    if (out.count > 0) --out.count;
    return out;
}

// How many values s holds; an empty stack.
template <typename T, int CAP>
WPNB_FN int32 tile_stack_count(const tile_stack_t<T, CAP>& s) { return s.count; }
template <typename T, int CAP>
WPNB_FN tile_stack_t<T, CAP> tile_stack_cleared(const tile_stack_t<T, CAP>&) { return tile_stack_t<T, CAP>(); }

}  // namespace wpnb
