/*
 * What every file of the compiled core shares: the headers, the stop reasons
 * every search reports, the hash mixer, and HOT for the functions compiled
 * for two instruction sets.
 *
 * The files, by concept: python/ (the Python glue, the only files that
 * include Python.h, through python/glue.h, which lists them), platform.h
 * (what the core needs of the operating system: the clock, threads, the
 * table's memory and huge pages), table.h (the shared table of TTT_TABLE_MB),
 * clock.h (the node budget, the deadline and cancellation), small/ (the exact
 * core, for boards up to 8x8, 64 cells: bitboards of one machine word, proofs
 * by alpha-beta, pairings, threats and zones; small/search.h lists its files)
 * and big/ (the threat and pattern search for boards up to 20x20;
 * big/search.h lists its files). Everything but python/ compiles without
 * Python: the native brain (service/brain/native/) links it as it is.
 */
#ifndef CORE_COMMON_H
#define CORE_COMMON_H

#include "platform.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The hot functions are compiled twice on x86-64 with GCC and glibc: for
 * x86-64-v3 (AVX2, BMI1/2, LZCNT: every x86-64 server CPU since 2013-2015)
 * and for the baseline, and the loader picks the one the CPU runs (an ifunc).
 * Measured: +4% node rate in bench/engine.py; the image stays portable.
 * Not under ThreadSanitizer: the loader runs an ifunc's resolver before that
 * runtime has started, and the instrumented resolver crashes. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif

enum stop_reason { STOP_NONE = 0, STOP_BUDGET = 1, STOP_DEADLINE = 2, STOP_CANCELLED = 3, STOP_DECIDED = 4 };

/* The largest node budget (or allowance) a caller may give: far beyond any
 * search's, and small enough that a count plus a budget never wraps. */
#define MAX_BUDGET ((uint64_t)1 << 62)

/* a + b, or UINT64_MAX where that does not fit. */
static inline uint64_t
add_saturating(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* A spin lock of one byte (the table's and the zone table's striped locks):
 * held for the few nanoseconds of copying an entry. */
static inline void
spin_lock(atomic_uchar *lock)
{
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
        }
    }
}

static inline void
spin_unlock(atomic_uchar *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release);
}

static inline uint64_t
mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
