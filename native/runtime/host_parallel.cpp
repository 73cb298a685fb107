// host_parallel.cpp (included by geometry.cpp): parallel loops for the host-side builders, run on
// the CPU runtime's thread pool, the one kernel launches use (cpu_runtime.cpp's
// wpnb_parallel_chunks, whose address Python hands over once when it loads the builders:
// wpnb_geometry_set_pool). No threads are started per call, and the builders never compete with a
// second pool for the cores. Without a pool (a C++ test, or before one was handed over) the loops
// run serially on the calling thread.
#include <algorithm>
#include <cstdint>

namespace {

typedef void (*chunk_entry)(const void* ctx, const void* unused, int64_t begin, int64_t end);
typedef void (*parallel_chunks_fn)(chunk_entry fn, const void* ctx, int64_t n, int64_t chunk, int threads);

parallel_chunks_fn g_parallel_chunks = nullptr;

template <class F> void call_chunk(const void* ctx, const void*, int64_t begin, int64_t end) {
    (*static_cast<const F*>(ctx))(begin, end);
}

// fn(begin, end) over [0, n) in chunks of `grain` indices taken by up to `threads` threads.
// fn must not throw (an exception cannot cross a pool thread) nor call back into the pool.
template <class F> void parallel_chunks(int64_t n, int64_t grain, int threads, const F& fn) {
    if (n <= 0) return;
    if (threads <= 1 || n <= grain || !g_parallel_chunks) {
        fn(int64_t(0), n);
        return;
    }
    g_parallel_chunks(&call_chunk<F>, &fn, n, grain, threads);
}

// The chunk size of a loop over n cheap items: about four chunks per thread (dynamic balance on
// a shared machine), none smaller than 2048 items (waking the pool costs microseconds).
int64_t loop_grain(int64_t n, int threads) {
    return std::max<int64_t>(2048, (n + 4 * threads - 1) / (4 * int64_t(threads)));
}

// fn(begin, end) over [0, n) in loop_grain chunks; chunk k starts at k * loop_grain(n, threads),
// so per-chunk partial results can be kept in chunk_count(n, threads) slots.
template <class F> void parallel_for(int64_t n, int threads, const F& fn) {
    parallel_chunks(n, loop_grain(n, threads), threads, fn);
}

int64_t chunk_count(int64_t n, int threads) {
    const int64_t g = loop_grain(n, threads);
    return std::max<int64_t>(1, (n + g - 1) / g);
}

}  // namespace

// The pool's parallel-for (wpnb_parallel_chunks of the loaded CPU runtime); null: serial loops.
extern "C" __attribute__((visibility("default"))) void wpnb_geometry_set_pool(void* fn) {
    g_parallel_chunks = reinterpret_cast<parallel_chunks_fn>(fn);
}
