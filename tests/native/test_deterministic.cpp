// Tests for native/arrays/deterministic.h: float atomics logged by chunks that several threads run
// (each taking its chunks in increasing order, as the CPU runtime's pool does) land, after
// det_replay, in the order of a serial loop over the threads, bit for bit; sub is an add of -v;
// min/max are replayed too; outside a chunk the atomics apply at once; the logs are empty after a
// replay. Exit status 0 when everything passes; prints each failure.
#define WPNB_CPU 1
#define WPNB_DETERMINISTIC 1
#include <cstdio>
#include <thread>
#include <vector>

#include "arrays/atomic.h"

using namespace wpnb;
static int g_fail = 0;
#define CHECK(cond, ...) do { if (!(cond)) { ++g_fail; \
    std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } while (0)

static const int N = 4096, CHUNK = 64;
static float values[N];

// thread `who` of `threads` runs chunks who, who + threads, ... (increasing), each thread in order
static void run_chunks(float* sum, float* lowest, int who, int threads) {
    for (int begin = who * CHUNK; begin < N; begin += threads * CHUNK) {
        det_chunk_begin(begin);
        for (int i = begin; i < begin + CHUNK; ++i) {
            if (i % 3 == 0) scalar_atomic_sub(sum, values[i]);
            else scalar_atomic_add(sum, values[i]);
            scalar_atomic_min(lowest, values[i]);
        }
        det_chunk_end();
    }
}

int main() {
    unsigned state = 12345u;
    for (int i = 0; i < N; ++i) {  // magnitudes from 1e-6 to 1e6, both signs: the sum depends on its order
        state = state * 1664525u + 1013904223u;
        const float mant = float(int(state >> 8) % 20001 - 10000) / 1000.0f;
        float scale = 1.0f;
        for (int e = int(state % 13u); e > 0; --e) scale *= 10.0f;
        values[i] = mant * scale * 1e-6f;
    }
    float serial = 0.0f, serial_min = 1e30f;
    for (int i = 0; i < N; ++i) {
        serial = i % 3 == 0 ? serial - values[i] : serial + values[i];
        serial_min = values[i] < serial_min ? values[i] : serial_min;
    }
    for (int threads = 1; threads <= 4; ++threads) {
        float sum = 0.0f, lowest = 1e30f;
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) pool.emplace_back(run_chunks, &sum, &lowest, t, threads);
        for (auto& t : pool) t.join();
        CHECK(sum == 0.0f && lowest == 1e30f, "logged updates applied before the replay (%d threads)", threads);
        det_replay();
        CHECK(sum == serial, "%d threads: %.9g, serial %.9g", threads, double(sum), double(serial));
        CHECK(lowest == serial_min, "%d threads: min %.9g, serial %.9g", threads, double(lowest), double(serial_min));
        det_replay();  // the logs were emptied: nothing applied twice
        CHECK(sum == serial, "a second replay changed the sum (%d threads)", threads);
    }
    float direct = 1.0f;
    scalar_atomic_add(&direct, 2.0f);  // no chunk running on this thread: applied at once
    CHECK(direct == 3.0f, "outside a chunk: %g", double(direct));
    int count = 0;
    det_chunk_begin(0);
    scalar_atomic_add(&count, 5);  // integers are never logged
    det_chunk_end();
    CHECK(count == 5, "int atomic logged: %d", count);
    if (g_fail) std::printf("%d failures\n", g_fail);
    return g_fail ? 1 : 0;
}
