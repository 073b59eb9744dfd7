/*
 * What every file of the compiled core shares: the headers, the stop reasons
 * every search reports, the hash mixer, and HOT for the functions compiled
 * for two instruction sets.
 *
 * The files, by concept: module.c (the Python glue), table.h (the shared
 * table of TTT_TABLE_MB), clock.h (the node budget, the deadline and
 * cancellation), and small/ (the exact core, for boards up to 8x8, 64 cells:
 * bitboards of one machine word, proofs by alpha-beta, pairings, threats and
 * zones; small/search.h lists its files).
 */
#ifndef CORE_COMMON_H
#define CORE_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The hot functions are compiled twice on x86-64 with GCC and glibc: for
 * x86-64-v3 (AVX2, BMI1/2, LZCNT: every x86-64 server CPU since 2013-2015)
 * and for the baseline, and the loader picks the one the CPU runs (an ifunc).
 * Measured: +4% node rate in bench/engine.py; the image stays portable. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif

enum stop_reason { STOP_NONE = 0, STOP_BUDGET = 1, STOP_DEADLINE = 2, STOP_CANCELLED = 3, STOP_DECIDED = 4 };

/* The largest node budget (or allowance) a caller may give: far beyond any
 * search's, and small enough that a count plus a budget never wraps. */
#define MAX_BUDGET ((uint64_t)1 << 62)

/* A count from Python (a node budget, a size in bytes) into ``out``, checked
 * to lie in [min, max]: a ValueError naming ``what`` and the range otherwise
 * (a negative number included, which the "K" format would wrap). */
static inline int
read_count(PyObject *obj, uint64_t min, uint64_t max, const char *what, uint64_t *out)
{
    PyObject *number = PyNumber_Index(obj);
    if (number == NULL) {
        return -1;
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    Py_DECREF(number);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow != 0 || value < 0 || (uint64_t)value < min || (uint64_t)value > max) {
        PyErr_Format(PyExc_ValueError, "%s must be from %llu to %llu", what,
                     (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

/* A tuple of the sequence's items, holding a reference to each: what the
 * caller handed is copied before it is read, so that an item whose __index__
 * changes the caller's list cannot free what is being read. */
static inline PyObject *
copy_items(PyObject *seq, const char *what)
{
    if (!PySequence_Check(seq) || PyUnicode_Check(seq) || PyBytes_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of cells", what);
        return NULL;
    }
    return PySequence_Tuple(seq);
}

/* a + b, or UINT64_MAX where that does not fit. */
static inline uint64_t
add_saturating(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static inline uint64_t
mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
