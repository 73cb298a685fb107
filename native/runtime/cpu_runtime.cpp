// cpu_runtime.cpp: runs a compiled kernel's CPU entry point over a launch, on every core.
// It is compiled once per machine, loaded with ctypes, and written against POSIX threads and
// the compiler's atomic builtins rather than <thread>/<atomic>: the C++ standard library
// headers would triple its first-use compile time.
//
// Scheduling: the launch is cut into chunks that threads take from a shared counter (dynamic,
// so uneven work such as a Mandelbrot row balances). Small launches run on the calling thread:
// waking workers costs microseconds, so each kernel keeps a running estimate of its cost per
// thread index and a launch goes parallel only when it is expected to take long enough.
//
// Interrupts: a SIGINT (Ctrl-C, a notebook's Interrupt) sets `interrupted` before Python's own
// handler runs; a launch then takes no further chunk and the kernels' while loops leave
// (native/core/prelude_cpu.h), so the call returns and Python raises KeyboardInterrupt. A kernel
// that never ends can be stopped without losing the process.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

namespace {

volatile int interrupted = 0;  // set by on_interrupt, cleared when a launch starts
struct sigaction chained;      // the SIGINT action on_interrupt was installed over (Python's)

void on_interrupt(int sig, siginfo_t* info, void* context) {
    interrupted = 1;
    if (chained.sa_flags & SA_SIGINFO) {
        if (chained.sa_sigaction) chained.sa_sigaction(sig, info, context);
    } else if (chained.sa_handler == SIG_DFL) {  // the default action: end the process, as before
        signal(sig, SIG_DFL);
        raise(sig);
    } else if (chained.sa_handler != SIG_IGN && chained.sa_handler) {
        chained.sa_handler(sig);
    }
}

struct launch_t {
    int64_t shape[4];
    int32_t ndim;
    int32_t lead_div;  // or one_lane: see native/core/prelude.h
    int64_t size;
};

typedef void (*entry_fn)(const void* args, const launch_t* launch, int64_t begin, int64_t end);

// Per-kernel statistics kept by Python next to the loaded kernel.
struct kernel_stats {
    double ns_per_item;  // running estimate of the serial cost of one thread index (0: unknown)
    int64_t launches;
    int64_t parallel_launches;
};

const double kParallelAboveNs = 30000.0;  // expected serial time above which threads pay off
const int64_t kUnknownParallelSize = 1 << 14;
const int kMaxThreads = 256;
const int64_t kSerialPiece = int64_t(1) << 16;

int64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

template <typename T> T load_acquire(const T* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

// A pool of worker threads; the thread that launches works too. One parallel launch at a time.
struct Pool {
    pthread_t threads[kMaxThreads];
    int workers = 0;
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;  // guards sleeping and waking
    pthread_mutex_t run_mutex = PTHREAD_MUTEX_INITIALIZER;  // one launch at a time
    pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
    pthread_cond_t done = PTHREAD_COND_INITIALIZER;
    uint64_t generation = 0;  // bumped for every job
    int helpers_wanted = 0;   // workers that may join the current job
    int pending = 0;          // workers that joined and have not finished
    int64_t next = 0;         // next chunk start
    entry_fn fn = nullptr;
    const void* args = nullptr;
    const launch_t* launch = nullptr;
    int64_t size = 0, chunk = 64;
    bool interruptible = false;  // a kernel launch (not a host builder's loop, which must finish)

    void work() {
        for (;;) {
            if (interruptible && interrupted) return;
            const int64_t begin = __atomic_fetch_add(&next, chunk, __ATOMIC_RELAXED);
            if (begin >= size) return;
            const int64_t end = begin + chunk < size ? begin + chunk : size;
            fn(args, launch, begin, end);
        }
    }

    void worker_loop() {
        uint64_t seen = 0;  // workers start from generation 0, even if a job was posted already
        for (;;) {
            // spin a little before sleeping: back-to-back launches then start at once
            const int64_t until = now_ns() + 200000;
            while (load_acquire(&generation) == seen && now_ns() < until) sched_yield();
            pthread_mutex_lock(&mutex);
            while (generation == seen) pthread_cond_wait(&wake, &mutex);
            seen = generation;
            const bool wanted = helpers_wanted > 0;
            if (wanted) {
                --helpers_wanted;
                ++pending;
            }
            pthread_mutex_unlock(&mutex);
            if (!wanted) continue;  // fewer helpers wanted this time
            work();
            pthread_mutex_lock(&mutex);
            if (--pending == 0) pthread_cond_signal(&done);
            pthread_mutex_unlock(&mutex);
        }
    }

    static void* worker_main(void* self) {
        static_cast<Pool*>(self)->worker_loop();
        return nullptr;
    }

    explicit Pool(int count) {
        for (int i = 0; i < count && i < kMaxThreads; ++i) {
            if (pthread_create(&threads[workers], nullptr, worker_main, this) != 0) break;
            pthread_detach(threads[workers]);
            ++workers;
        }
    }

    int size_with_caller() const { return workers + 1; }

    // chunk: how many indices a thread takes at a time (0: about eight chunks per participant)
    void run(entry_fn f, const void* a, const launch_t* l, int64_t n, int participants, int64_t chunk_size = 0) {
        pthread_mutex_lock(&run_mutex);
        interruptible = l != nullptr;
        const int helpers = participants - 1 < workers ? participants - 1 : workers;
        int64_t c = n / (int64_t(participants) * 8);
        c = c < 64 ? 64 : (c + 63) / 64 * 64;
        if (chunk_size > 0) c = chunk_size;
        fn = f; args = a; launch = l; size = n; chunk = c;
        __atomic_store_n(&next, 0, __ATOMIC_RELAXED);
        pthread_mutex_lock(&mutex);
        helpers_wanted = helpers;
        pending = 0;
        __atomic_store_n(&generation, generation + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&wake);
        pthread_mutex_unlock(&mutex);
        work();
        // wait for the helpers that joined: they finish about together, so spin briefly, then
        // sleep. One that has not joined yet (on a busy machine it may not run for milliseconds)
        // is not waited for: every chunk is taken, and it may no longer join.
        for (int spin = 0; load_acquire(&pending) > 0 && spin < 2000; ++spin) sched_yield();
        pthread_mutex_lock(&mutex);
        helpers_wanted = 0;
        while (pending > 0) pthread_cond_wait(&done, &mutex);
        pthread_mutex_unlock(&mutex);
        pthread_mutex_unlock(&run_mutex);
    }
};

Pool* pool = nullptr;
pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;

// The pool is made once, sized by the first parallel launch (every core by default); later
// launches asking for more threads than it has use all of its threads.
Pool* get_pool(int threads) {
    pthread_mutex_lock(&pool_mutex);
    if (!pool) pool = new Pool(threads - 1);
    pthread_mutex_unlock(&pool_mutex);
    return pool;
}

void update(kernel_stats* stats, double per_item, bool parallel) {
    stats->ns_per_item = stats->ns_per_item > 0.0 ? 0.5 * (stats->ns_per_item + per_item) : per_item;
    stats->launches++;
    if (parallel) stats->parallel_launches++;
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
    const int64_t t0 = stats ? now_ns() : 0;
    interrupted = 0;
    if (!parallel) {
        // in pieces of kSerialPiece indices, so that an interrupt is seen between them
        for (int64_t begin = 0; begin < size && !interrupted; begin += kSerialPiece)
            fn(args, launch, begin, size - begin > kSerialPiece ? begin + kSerialPiece : size);
        if (stats) update(stats, double(now_ns() - t0) / double(size), false);
        return 0;
    }
    Pool* p = get_pool(threads);
    const int participants = threads < p->size_with_caller() ? threads : p->size_with_caller();
    p->run(fn, args, launch, size, participants);
    if (stats) update(stats, double(now_ns() - t0) * double(participants) / double(size), true);
    return 1;
}

// Run fn(args, nullptr, begin, end) over [0, n) in chunks of `chunk` indices on the pool (the
// caller works too); serially on the calling thread when threads <= 1. For the host builders of
// geometry.cpp (BVH, hash grid), which reach it through its address: one pool for the process.
// Not reentrant: fn must not call back into the pool.
__attribute__((visibility("default")))
void wpnb_parallel_chunks(entry_fn fn, const void* args, int64_t n, int64_t chunk, int threads) {
    if (n <= 0) return;
    if (threads <= 1 || n <= chunk) {
        fn(args, nullptr, 0, n);
        return;
    }
    Pool* p = get_pool(threads);
    const int participants = threads < p->size_with_caller() ? threads : p->size_with_caller();
    p->run(fn, args, nullptr, n, participants, chunk > 0 ? chunk : 1);
}

// Put on_interrupt before the process's SIGINT action (it chains to that one), unless it is there
// already or SIGINT is ignored. Python replaces it whenever signal.signal(SIGINT, ...) is called
// (IPython's kernel does so around each cell): runtime/interrupts.py calls this again then.
// Returns 1 when it installed the handler.
__attribute__((visibility("default"))) int wpnb_watch_interrupts() {
    struct sigaction current;
    if (sigaction(SIGINT, nullptr, &current) != 0) return 0;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_interrupt) return 0;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) return 0;
    struct sigaction mine = {};
    mine.sa_sigaction = on_interrupt;
    mine.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
    sigemptyset(&mine.sa_mask);
    chained = current;
    return sigaction(SIGINT, &mine, nullptr) == 0 ? 1 : 0;
}

// The address kernels read to know whether to stop (their wpnb_interrupt_flag, runtime/load.py).
__attribute__((visibility("default"))) volatile int* wpnb_interrupt_flag_address() { return &interrupted; }

__attribute__((visibility("default"))) int wpnb_runtime_version() { return 4; }

}  // extern "C"
