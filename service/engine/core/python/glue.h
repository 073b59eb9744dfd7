/*
 * The Python module service.engine._core: the thin glue between Python and
 * the two searches. It parses and checks every argument (this code handles
 * what clients send), releases the GIL around each search, and builds the
 * answers. Nothing here searches. The core's Shape, Table and Control are
 * plain C (the native brain uses them without Python): the Python types of
 * types.c each hold one.
 *
 * The files: module.c (the module: its functions' table and constants),
 * types.c (Shape, Table and Control for Python, and the converters that
 * check them), small.c (the small boards' functions), big.c (the big
 * boards' analyses), renju.c (renju's forbidden cells), weights.c (the big
 * boards' evaluation weights) and brain.c (the Gomocup brain). This header comes
 * first in each, and Python.h first in it, as Python asks. No file outside
 * this folder includes it, so the rest of the core compiles without Python
 * (the brain's executables leave this folder out).
 */
#ifndef CORE_PYTHON_GLUE_H
#define CORE_PYTHON_GLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../clock.h"
#include "../common.h"
#include "../big/board.h"
#include "../small/board.h"
#include "../table.h"

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


/* types.c: the core's types for Python. */
/* A Shape for Python. */
typedef struct {
    PyObject_HEAD
    Shape shape;
    int ready; /* SHAPE_NEW, SHAPE_BUSY while __init__ runs, SHAPE_READY once it succeeded */
} ShapeObject;

enum { SHAPE_NEW = 0, SHAPE_BUSY = 1, SHAPE_READY = 2 };

/* A Table for Python: Table.__new__ alone makes one with no memory. */
typedef struct {
    PyObject_HEAD
    Table table;
} TableObject;

/* A Control for Python: Control.__new__ alone makes a usable one (no deadline). */
typedef struct {
    PyObject_HEAD
    Control control;
    int initialised; /* __init__ runs once: a search may be reading the others */
} ControlObject;

extern PyTypeObject ShapeType, TableType, ControlType;

/* "O&" converters: an initialised Shape, an initialised Table (a TypeError or
 * ValueError otherwise). */
int shape_arg(PyObject *obj, void *out);
int table_arg(PyObject *obj, void *out);
/* None or a Control (a TypeError otherwise), and the Control a search is
 * then handed (NULL for None). */
int read_control(PyObject *control);
Control *control_of(PyObject *control);

/* small.c: the small boards' functions (their documentation: module.c). */
PyObject *core_analyze(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *core_threat_win(PyObject *module, PyObject *args);
PyObject *core_heuristic(PyObject *module, PyObject *args);
PyObject *core_pairing(PyObject *module, PyObject *args);
PyObject *core_store(PyObject *module, PyObject *args);
PyObject *core_proven_positions(PyObject *module, PyObject *args);
PyObject *core_can_win(PyObject *module, PyObject *args);
PyObject *core_quiet_threat_win(PyObject *module, PyObject *args);

/* big.c: the big boards' analyses, one game's search Context. */
#define BIG_SHAPE_RANGE                                                                            \
    "a big board is 3 to 20 cells a side, k 3 to the longer, rule 0 (freestyle), 1 (exact) or "    \
    "2 (renju, k = 5)"
/* A big board's shape and stones from Python (x and o: one bytes object per
 * side, bit i of the little-endian bytes for cell i, disjoint and on the
 * board); -1 with the error set otherwise. */
int read_big_position(BigShape *sh, int rows, int cols, int k, int rule, PyObject *xo,
                      PyObject *oo, uint8_t *stone);
/* A board of the shape with the stones read_big_position() read, and the side to move. */
void set_big_position(BigBoard *b, const BigShape *sh, const uint8_t *stone, int x_to_move);
extern PyTypeObject ContextType;
PyObject *core_analyze_big(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *core_big_board(PyObject *module, PyObject *args);
PyObject *core_big_candidates(PyObject *module, PyObject *args);
PyObject *core_big_threat_win(PyObject *module, PyObject *args);

/* renju.c, weights.c and brain.c (their documentation: module.c). */
PyObject *core_renju_first_forbidden(PyObject *module, PyObject *args);
PyObject *core_renju_forbidden(PyObject *module, PyObject *args);
PyObject *core_set_evaluation(PyObject *module, PyObject *args);
PyObject *core_set_threat_values(PyObject *module, PyObject *args);
PyObject *core_set_network(PyObject *module, PyObject *args);
PyObject *core_run_brain(PyObject *module, PyObject *args);

#endif
