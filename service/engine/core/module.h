/*
 * The Python glue's own helpers (module.c): Python.h, first, as Python asks,
 * and the conversions of what Python hands the core. No other file of the
 * core includes this one, so the rest compiles without Python.
 */
#ifndef CORE_MODULE_H
#define CORE_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common.h"

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

#endif
