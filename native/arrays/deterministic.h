// deterministic.h: deterministic mode's ordered float atomics on the CPU (compiler/deterministic.py).
// In a unit compiled with WPNB_DETERMINISTIC, a float atomic add/min/max (sub is an add of -v) that
// runs inside a deferring entry point is not applied where it runs: it is appended to the record
// log of the thread running it, under the chunk of the launch it belongs to. After the launch,
// det_replay applies the chunks in the order of their first thread index, each chunk's records in
// the order they were made (its threads run in increasing order, each in program order): every
// element receives its updates in the order of a serial loop over the threads, whatever the number
// of threads and however the pool scheduled the chunks. Outside such an entry point (no current
// log) and on CUDA, the atomics are the ordinary ones.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"

#ifndef WPNB_DETERMINISTIC
#define WPNB_DETERMINISTIC 0
#endif

namespace wpnb {

enum det_op { DET_ADD = 0, DET_MIN = 1, DET_MAX = 2 };

// The element types whose atomics are deferred: floats (integer sums, mins and maxes do not depend
// on their order).
template <typename T> struct det_deferred { static constexpr bool value = false; };
template <> struct det_deferred<half> { static constexpr bool value = true; };
template <> struct det_deferred<bfloat16> { static constexpr bool value = true; };
template <> struct det_deferred<float32> { static constexpr bool value = true; };
template <> struct det_deferred<float64> { static constexpr bool value = true; };

#if defined(WPNB_CPU) && WPNB_DETERMINISTIC

}  // namespace wpnb
extern "C" {
void* realloc(void*, __SIZE_TYPE__) noexcept;
void free(void*) noexcept;
}
namespace wpnb {

// One deferred update: *p = op(*p, value), with the value's bytes.
struct det_record {
    void* p;
    void (*apply)(void* p, const void* value);
    alignas(8) unsigned char value[8];
};
// The records [first, first + count) of a log came from the chunk of threads starting at `begin`.
struct det_chunk { int64 begin, first, count; };

// The records of one thread of the pool (each thread appends to its own: no locking).
struct det_log {
    det_record* records = nullptr;
    int64 size = 0, capacity = 0;
    det_chunk* chunks = nullptr;
    int64 nchunks = 0, chunk_capacity = 0;
    det_log* next = nullptr;  // every log of this library, for the replay
    int64 cursor = 0;  // the replay's next chunk
};

inline det_log* det_logs = nullptr;                   // (C++17 inline variables: one per library)
inline thread_local det_log* det_own = nullptr;       // this thread's log, made on first use
inline thread_local det_log* det_current = nullptr;   // non-null while a deferring chunk runs

template <typename X> inline void det_grow(X*& items, int64& capacity, int64 needed) {
    if (needed <= capacity) return;
    int64 c = capacity ? capacity * 2 : 256;
    while (c < needed) c *= 2;
    items = (X*)realloc(items, (__SIZE_TYPE__)c * sizeof(X));
    if (!items) __builtin_trap();  // out of memory: no way to keep the launch's updates
    capacity = c;
}

// A deferring entry point's chunk [begin, ...) starts / ends on this thread.
inline void det_chunk_begin(int64 begin) {
    det_log* log = det_own;
    if (!log) {
        log = new det_log();
        log->next = __atomic_load_n(&det_logs, __ATOMIC_ACQUIRE);
        while (!__atomic_compare_exchange_n(&det_logs, &log->next, log, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
        det_own = log;
    }
    det_grow(log->chunks, log->chunk_capacity, log->nchunks + 1);
    log->chunks[log->nchunks++] = det_chunk{begin, log->size, 0};
    det_current = log;
}
inline void det_chunk_end() {
    det_log* log = det_current;
    det_chunk& c = log->chunks[log->nchunks - 1];
    c.count = log->size - c.first;
    det_current = nullptr;
}

template <typename T, int Op> void det_apply(void* p, const void* value) {
    T* q = (T*)p;
    const T v = *(const T*)value;
    *q = Op == DET_ADD ? add(*q, v) : Op == DET_MIN ? min(*q, v) : max(*q, v);
}

// Log *p = op(*p, v) when a deferring chunk runs on this thread; false: apply it now.
template <int Op, typename T> inline bool det_defer(T* p, T v) {
    det_log* log = det_current;
    if (!log) return false;
    det_grow(log->records, log->capacity, log->size + 1);
    det_record& r = log->records[log->size++];
    r.p = p;
    r.apply = &det_apply<T, Op>;
    *(T*)r.value = v;
    return true;
}

// Apply every logged chunk in the order of its first thread index, then empty the logs. Each
// thread took its chunks in increasing order, so each log's chunks are sorted: a merge of the logs
// (as many as pool threads that ever ran a chunk: a handful).
inline void det_replay() {
    det_log* const head = __atomic_load_n(&det_logs, __ATOMIC_ACQUIRE);
    for (det_log* log = head; log; log = log->next) log->cursor = 0;
    for (;;) {
        det_log* best = nullptr;
        for (det_log* log = head; log; log = log->next)
            if (log->cursor < log->nchunks &&
                (!best || log->chunks[log->cursor].begin < best->chunks[best->cursor].begin))
                best = log;
        if (!best) break;
        const det_chunk& c = best->chunks[best->cursor++];
        for (int64 k = c.first; k < c.first + c.count; ++k) {
            const det_record& r = best->records[k];
            r.apply(r.p, r.value);
        }
    }
    for (det_log* log = head; log; log = log->next) log->size = log->nchunks = 0;
}

#else

template <int Op, typename T> WPNB_FN bool det_defer(T*, T) { return false; }

#endif

}  // namespace wpnb
