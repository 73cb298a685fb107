// cpu_runtime.cpp: runs a compiled kernel's CPU entry point over a launch, on every core.
// This is the only native code that may use the C++ standard library: it is compiled for the
// CPU alone, once per machine, and loaded with ctypes.
//
// Scheduling: the launch is cut into chunks that threads take from a shared counter (dynamic,
// so uneven work such as a Mandelbrot row balances). Small launches run on the calling thread:
// waking workers costs microseconds, so each kernel keeps a running estimate of its cost per
// thread index and a launch goes parallel only when it is expected to take long enough.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct launch_t {
    int64_t shape[4];
    int32_t ndim;
    int32_t pad;
    int64_t size;
};

typedef void (*entry_fn)(const void* args, const launch_t* launch, int64_t begin, int64_t end);

// Per-kernel statistics kept by Python next to the loaded kernel.
struct kernel_stats {
    double ns_per_item;  // running estimate of the serial cost of one thread index (0: unknown)
    int64_t launches;
    int64_t parallel_launches;
};

constexpr double kParallelAboveNs = 30000.0;  // expected serial time above which threads pay off
constexpr int64_t kUnknownParallelSize = 1 << 14;

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Pool {
public:
    explicit Pool(int workers) {
        // workers start from generation 0 even if they begin running after the first job was posted
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { worker(0); });
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
            generation_.fetch_add(1);
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

    int size() const { return int(threads_.size()) + 1; }

    // Run fn over [0, size) with `threads` participants (the caller is one of them).
    void run(entry_fn fn, const void* args, const launch_t* launch, int64_t size, int threads) {
        std::lock_guard<std::mutex> serial(run_mutex_);  // one parallel launch at a time
        const int helpers = std::min<int>(threads - 1, int(threads_.size()));
        int64_t chunk = size / (int64_t(threads) * 8);
        chunk = std::max<int64_t>(64, (chunk + 63) / 64 * 64);
        fn_ = fn; args_ = args; launch_ = launch; size_ = size; chunk_ = chunk;
        next_.store(0);
        helpers_wanted_.store(helpers);
        pending_.store(helpers);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            generation_.fetch_add(1);
        }
        wake_.notify_all();
        work();
        // wait for the helpers: spin briefly (they finish together), then sleep
        for (int spin = 0; pending_.load(std::memory_order_acquire) > 0; ++spin) {
            if (spin > 2000) {
                std::unique_lock<std::mutex> lock(mutex_);
                done_.wait(lock, [this] { return pending_.load() <= 0; });
                break;
            }
            std::this_thread::yield();
        }
    }

private:
    void work() {
        for (;;) {
            const int64_t begin = next_.fetch_add(chunk_);
            if (begin >= size_) return;
            fn_(args_, launch_, begin, std::min(begin + chunk_, size_));
        }
    }

    void worker(uint64_t seen) {
        for (;;) {
            // spin a little before sleeping: back-to-back launches then start at once
            auto until = now_ns() + 200000;
            while (generation_.load(std::memory_order_acquire) == seen && now_ns() < until)
                std::this_thread::yield();
            if (generation_.load() == seen) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_.load() != seen; });
            }
            seen = generation_.load();
            if (stop_) return;
            if (helpers_wanted_.fetch_sub(1) <= 0) continue;  // fewer threads wanted this time
            work();
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.notify_one();
            }
        }
    }

    std::vector<std::thread> threads_;
    std::mutex mutex_, run_mutex_;
    std::condition_variable wake_, done_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> helpers_wanted_{0}, pending_{0};
    std::atomic<int64_t> next_{0};
    bool stop_ = false;
    entry_fn fn_ = nullptr;
    const void* args_ = nullptr;
    const launch_t* launch_ = nullptr;
    int64_t size_ = 0, chunk_ = 64;
};

Pool* pool = nullptr;
std::mutex pool_mutex;

// The pool is made once, sized by the first parallel launch (every core by default); later
// launches asking for more threads than it has use all of its threads.
Pool* get_pool(int threads) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!pool) pool = new Pool(threads - 1);
    return pool;
}

}  // namespace

extern "C" {

// Run a kernel entry point over a launch. threads: how many threads may work (1 = serial and
// deterministic). stats may be null. Returns 1 when the launch ran in parallel.
__attribute__((visibility("default")))
int wpnb_launch(entry_fn fn, const void* args, const launch_t* launch, int threads, kernel_stats* stats) {
    const int64_t size = launch->size;
    if (size <= 0) return 0;
    bool parallel = threads > 1 && size > 1;
    if (parallel && stats) {
        parallel = stats->ns_per_item > 0.0 ? stats->ns_per_item * double(size) > kParallelAboveNs
                                            : size >= kUnknownParallelSize;
    }
    if (!parallel) {
        const int64_t t0 = stats ? now_ns() : 0;
        fn(args, launch, 0, size);
        if (stats) {
            const double per = double(now_ns() - t0) / double(size);
            stats->ns_per_item = stats->ns_per_item > 0.0 ? 0.5 * (stats->ns_per_item + per) : per;
            stats->launches++;
        }
        return 0;
    }
    const int64_t t0 = stats ? now_ns() : 0;
    Pool* p = get_pool(threads);
    p->run(fn, args, launch, size, std::min(threads, p->size()));
    if (stats) {
        const double per = double(now_ns() - t0) * double(threads) / double(size);
        stats->ns_per_item = stats->ns_per_item > 0.0 ? 0.5 * (stats->ns_per_item + per) : per;
        stats->launches++;
        stats->parallel_launches++;
    }
    return 1;
}

__attribute__((visibility("default"))) int wpnb_runtime_version() { return 1; }

}  // extern "C"
