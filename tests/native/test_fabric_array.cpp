// Mirror test of native/arrays/fabric_array.h: element lookup through bucket tables of many random
// layouts against a linear walk over the buckets, indexed access against the index array, a Fabric
// array of arrays' rows and elements, atomics, and the checked path's range test.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define WPNB_CHECKS 1
#include "arrays/fabric_array.h"

using namespace wpnb;

static int failures = 0;
#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) {                     \
            ++failures;                    \
            std::printf(__VA_ARGS__);      \
            std::printf("\n");             \
        }                                  \
    } while (0)

// Whether a checked access reported a failure since the last reset (the runtime hands the first one
// of a launch to Python), and on which axis.
static bool reported() { return wpnb_debug_state.failed != 0; }
static void reset() { wpnb_debug_state = {}; }

// Buckets of the given sizes cut from `storage`, `gap` unused elements after each (so a lookup that
// picks a neighbouring bucket lands on another address); sizes of 0 are left out, as Python does.
static std::vector<fabric_bucket_t> buckets_of(std::vector<float>& storage, const std::vector<int>& sizes,
                                               int gap = 0) {
    std::vector<fabric_bucket_t> out;
    int64 start = 0, at = 0;
    for (int n : sizes) {
        if (n == 0) continue;
        out.push_back({start, start + n, uint64(&storage[at]), 0});
        start += n;
        at += n + gap;
    }
    return out;
}

static void test_lookup_matches_a_linear_walk() {
    std::srand(3);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int> sizes;
        int total = 0;
        const int nb = 1 + std::rand() % 9;
        for (int b = 0; b < nb; ++b) {
            const int n = std::rand() % 6;
            sizes.push_back(n);
            total += n;
        }
        std::vector<float> storage(total + 3 * nb + 1);
        std::vector<fabric_bucket_t> table = buckets_of(storage, sizes, 3);
        fabricarray_t<float, 1> a = {table.data(), int64(table.size()), {total}};
        for (int i = 0; i < total; ++i) {
            // the linear walk: the bucket whose range holds i
            const float* expected = nullptr;
            for (const fabric_bucket_t& b : table)
                if (b.start <= i && i < b.end) expected = (const float*)b.data + (i - b.start);
            EXPECT(&index(a, i) == expected, "trial %d: element %d at the wrong address", trial, i);
        }
        if (total > 0) EXPECT(&index(a, -1) == &index(a, total - 1), "trial %d: a[-1] is not the last", trial);
        EXPECT(len(a) == total, "trial %d: len %d != %d", trial, len(a), total);
    }
}

static void test_indexed_and_atomics() {
    std::vector<float> storage = {0, 1, 2, 3, 4, 5, 6};
    std::vector<fabric_bucket_t> table = buckets_of(storage, {3, 0, 4});
    fabricarray_t<float, 1> a = {table.data(), int64(table.size()), {7}};
    const int32 idx[3] = {6, 0, 4};
    indexedfabricarray_t<float, 1> ia = {a, idx, {3}};
    for (int k = 0; k < 3; ++k) EXPECT(index(ia, k) == float(idx[k]), "ia[%d] = %g", k, index(ia, k));
    const float old = atomic_add(ia, 0, 10.0f);
    EXPECT(old == 6.0f && storage[6] == 16.0f, "atomic_add through the index: old %g, now %g", old, storage[6]);
    atomic_max(a, 1, 9.0f);
    EXPECT(storage[1] == 9.0f, "atomic_max: %g", storage[1]);
}

static void test_arrays_of_arrays() {
    std::vector<double> r0 = {1, 2}, r1 = {3}, r2 = {4, 5, 6};
    const uint64 ptrs[3] = {uint64(r0.data()), uint64(r1.data()), uint64(r2.data())};
    const uint64 lens[3] = {2, 1, 3};
    const fabric_bucket_t table[2] = {{0, 1, uint64(&ptrs[0]), uint64(&lens[0])},
                                      {1, 3, uint64(&ptrs[1]), uint64(&lens[1])}};
    fabricarray_t<double, 2> a = {table, 2, {3, 0}};
    EXPECT(view(a, 2).shape[0] == 3 && index(view(a, 2), 1) == 5.0, "row 2 is not {4, 5, 6}");
    EXPECT(index(a, 0, 1) == 2.0 && index(a, 1, 0) == 3.0, "a[i, j] does not reach the rows");
    const int32 idx[1] = {2};
    indexedfabricarray_t<double, 2> ia = {a, idx, {1, 0}};
    EXPECT(view(ia, 0).data == r2.data(), "indexed row 0 is not row 2");
}

static void test_checked_range() {
    std::vector<float> storage = {0, 1, 2, 3};
    std::vector<fabric_bucket_t> table = buckets_of(storage, {1, 3});
    fabricarray_t<float, 1> a = {table.data(), int64(table.size()), {4}};
    reset();
    EXPECT(index_checked(a, 0, 3) == 3.0f && !reported(), "a[3] of 4 was refused");
    EXPECT(index_checked(a, 0, -4) == 0.0f && !reported(), "a[-4] of 4 was refused");
    index_checked(a, 0, 4);
    EXPECT(reported() && wpnb_debug_state.axis == 0, "a[4] of 4 was not reported");
    reset();
    index_checked(a, 0, -5);
    EXPECT(reported(), "a[-5] of 4 was not reported");
    std::vector<double> r0 = {1, 2};
    const uint64 ptrs[1] = {uint64(r0.data())};
    const uint64 lens[1] = {2};
    const fabric_bucket_t rows[1] = {{0, 1, uint64(&ptrs[0]), uint64(&lens[0])}};
    fabricarray_t<double, 2> aa = {rows, 1, {1, 0}};
    reset();
    index_checked(aa, 0, 0, 2);
    EXPECT(reported() && wpnb_debug_state.axis == 1 && wpnb_debug_state.shape[1] == 2,
           "a[0, 2] of a row of 2 was not reported on axis 1");
}

int main() {
    test_lookup_matches_a_linear_walk();
    test_indexed_and_atomics();
    test_arrays_of_arrays();
    test_checked_range();
    if (failures) std::printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
