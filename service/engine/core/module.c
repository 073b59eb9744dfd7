/*
 * The Python module service.engine._core: the thin glue between Python and
 * the two searches. It parses and checks every argument (this code handles
 * what clients send), releases the GIL around each search, and builds the
 * answers. Nothing here searches. The core's Shape, Table and Control are
 * plain C (the native brain uses them without Python): the Python types
 * below each hold one.
 */
#include "module.h"

#include "clock.h"
#include "small/pairing.h"
#include "small/root.h"
#include "small/zones.h"
#include "big/root.h"
#include "table.h"

#include "../../brain/native/run.h"

/* ------------------------------------------------------------------------ */
/* The core's types for Python: a Shape, a Table, a Control                 */

/* Read 'low' to 'high' cells of the board into 'out' (room for 'high'). */
static int
read_cell_list(PyObject *seq, int cells, uint8_t *out, Py_ssize_t low, Py_ssize_t high,
               const char *what)
{
    PyObject *fast = copy_items(seq, what);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < low || n > high) {
        if (low == high) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd cells, got %zd", what, low, n);
        }
        else {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd to %zd cells, got %zd", what, low,
                         high, n);
        }
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v >= cells) {
            PyErr_Format(PyExc_ValueError, "%s: cell %ld is off the board", what, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

/* Whether ``p`` (the shape's cells, each below cells) names every cell once. */
static int
is_permutation(const Shape *sh, const uint8_t *p)
{
    uint64_t seen = 0;
    for (int i = 0; i < sh->cells; i++) {
        seen |= (uint64_t)1 << p[i];
    }
    return seen == sh->full;
}

/* The exact rule's flanks: for each line, the 0 to 2 cells just past its ends. */
static int
read_flanks(Shape *self, PyObject *flanks)
{
    PyObject *fast = copy_items(flanks, "flanks");
    if (fast == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(fast) != self->nlines) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "flanks: one entry per line");
        return -1;
    }
    for (int i = 0; i < self->nlines; i++) {
        uint8_t ends[2];
        int count = read_cell_list(PySequence_Fast_GET_ITEM(fast, i), self->cells, ends, 0, 2,
                                   "a line's flank");
        if (count < 0) {
            Py_DECREF(fast);
            return -1;
        }
        for (int j = 0; j < count; j++) {
            if (self->line[i] >> ends[j] & 1) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "a line's flank lies outside the line");
                return -1;
            }
            self->flank[i] |= (uint64_t)1 << ends[j];
            ls_add(&self->flank_mask[ends[j]], i);
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int shape_fill(Shape *self, int rows, int cols, int k, int tag, PyObject *lines,
                      PyObject *symmetries, PyObject *order, PyObject *flanks);

/* A Shape for Python. */
typedef struct {
    PyObject_HEAD
    Shape shape;
    int ready; /* SHAPE_NEW, SHAPE_BUSY while __init__ runs, SHAPE_READY once it succeeded */
} ShapeObject;

enum { SHAPE_NEW = 0, SHAPE_BUSY = 1, SHAPE_READY = 2 };

static int
Shape_init(ShapeObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rows",  "cols",   "k", "tag", "lines", "symmetries",
                             "order", "flanks", NULL};
    int rows, cols, k, tag;
    PyObject *lines, *symmetries, *order, *flanks = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiOOO|O", kwlist, &rows, &cols, &k, &tag,
                                     &lines, &symmetries, &order, &flanks)) {
        return -1;
    }
    if (rows < 3 || rows > MAX_SIDE || cols < 3 || cols > MAX_SIDE || k < 3 ||
        k > (rows > cols ? rows : cols) || tag < 0 || tag > 255) {
        PyErr_SetString(PyExc_ValueError, "shape out of range");
        return -1;
    }
    /* Once: refused while another __init__ of this shape runs (an item's
     * __index__ may call it) and after one has succeeded. */
    if (self->ready != SHAPE_NEW) {
        PyErr_SetString(PyExc_RuntimeError, "a Shape is initialised once");
        return -1;
    }
    self->ready = SHAPE_BUSY;
    int result = shape_fill(&self->shape, rows, cols, k, tag, lines, symmetries, order, flanks);
    self->ready = result == 0 ? SHAPE_READY : SHAPE_NEW;
    return result;
}

/* Shape_init's work, with no check of its own: see there. */
static int
shape_fill(Shape *self, int rows, int cols, int k, int tag, PyObject *lines, PyObject *symmetries,
           PyObject *order, PyObject *flanks)
{
    int cells = rows * cols;
    self->rows = rows;
    self->cols = cols;
    self->k = k;
    self->tag = tag;
    self->cells = cells;
    self->full = cells == 64 ? ~(uint64_t)0 : ((uint64_t)1 << cells) - 1;
    memset(self->nthrough, 0, sizeof(self->nthrough));
    memset(self->through_mask, 0, sizeof(self->through_mask));
    memset(self->flank, 0, sizeof(self->flank));
    memset(self->flank_mask, 0, sizeof(self->flank_mask));
    self->exact = flanks != Py_None;
    self->wide = cells > NARROW_CELLS;
    if (self->wide) {
        /* The marker bit, the side to move's bit (0 here), the rule, k - 3 and
         * which of 8x8, 7x8 and 8x7: WIDE_META_BITS in all. */
        int which = rows == cols ? 0 : rows < cols ? 1 : 2;
        self->meta = 1 | (uint64_t)self->exact << 2 | (uint64_t)(k - 3) << 3 | (uint64_t)which << 6;
    }
    else {
        self->meta = ((uint64_t)tag << 1 | 1 << 9 | (uint64_t)self->exact << 10) << 52;
    }

    PyObject *fast = copy_items(lines, "lines");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t nlines = PySequence_Fast_GET_SIZE(fast);
    if (nlines < 1 || nlines > MAX_LINES) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "between 1 and %d lines", MAX_LINES);
        return -1;
    }
    self->nlines = (int)nlines;
    self->words = (int)(nlines + 63) / 64;
    for (Py_ssize_t i = 0; i < nlines; i++) {
        uint8_t line_cells[MAX_SIDE];
        if (read_cell_list(PySequence_Fast_GET_ITEM(fast, i), cells, line_cells, k, k,
                           "a line") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        uint64_t mask = 0;
        for (int j = 0; j < k; j++) {
            int c = line_cells[j];
            mask |= (uint64_t)1 << c;
            if (self->nthrough[c] >= MAX_THROUGH) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "too many lines through one cell");
                return -1;
            }
            self->through[c][self->nthrough[c]++] = (uint8_t)i;
            ls_add(&self->through_mask[c], i);
        }
        if (__builtin_popcountll(mask) != k) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a line repeats a cell");
            return -1;
        }
        self->line[i] = mask;
        /* Its group: a direction (the step between its first two cells) and
         * which row, column or diagonal of that direction. */
        int first = line_cells[0] < line_cells[1] ? line_cells[0] : line_cells[1];
        int step = abs((int)line_cells[1] - (int)line_cells[0]);
        int r = first / cols, c = first % cols, direction, which;
        if (step == 1) {
            direction = 0, which = r;
        }
        else if (step == cols) {
            direction = 1, which = c;
        }
        else if (step == cols + 1) {
            direction = 2, which = r - c + MAX_SIDE - 1;
        }
        else if (step == cols - 1) {
            direction = 3, which = r + c;
        }
        else {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a line's cells are not in a row, column or diagonal");
            return -1;
        }
        self->group[i] = (uint8_t)(direction * (2 * MAX_SIDE - 1) + which);
    }
    Py_DECREF(fast);

    fast = copy_items(symmetries, "symmetries");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t nsyms = PySequence_Fast_GET_SIZE(fast);
    if (nsyms < 1 || nsyms > MAX_SYMS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "between 1 and 8 symmetries");
        return -1;
    }
    self->nsyms = (int)nsyms;
    memset(self->image, 0, sizeof(self->image));
    for (Py_ssize_t s = 0; s < nsyms; s++) {
        if (read_cell_list(PySequence_Fast_GET_ITEM(fast, s), cells, self->perm[s], cells, cells,
                           "a symmetry") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        if (!is_permutation(self, self->perm[s])) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a symmetry is not a permutation");
            return -1;
        }
        for (int c = 0; c < cells; c++) {
            self->inverse[s][self->perm[s][c]] = (uint8_t)c;
            self->image[c][s] = (uint64_t)1 << self->perm[s][c];
        }
    }
    Py_DECREF(fast);
    for (int c = 0; c < cells; c++) {
        if (self->perm[0][c] != c) {
            PyErr_SetString(PyExc_ValueError, "the first symmetry must be the identity");
            return -1;
        }
    }
    if (self->exact && read_flanks(self, flanks) < 0) {
        return -1;
    }
    if (read_cell_list(order, cells, self->order, cells, cells, "order") < 0) {
        return -1;
    }
    if (!is_permutation(self, self->order)) {
        PyErr_SetString(PyExc_ValueError, "order is not a permutation of the cells");
        return -1;
    }
    for (int i = 0; i < cells; i++) {
        self->rank[self->order[i]] = (uint8_t)i;
    }
    return 0;
}

static PyTypeObject ShapeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Shape",
    .tp_basicsize = sizeof(ShapeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Shape_init,
    .tp_doc = "A board shape: lines, symmetries and cell order, fixed at construction.",
};

/* A "O&" converter: a Shape whose __init__ has succeeded, or a TypeError or
 * ValueError (Shape.__new__ alone, or a failed __init__, leaves it unready). */
static int
shape_arg(PyObject *obj, void *out)
{
    if (!PyObject_TypeCheck(obj, &ShapeType)) {
        PyErr_SetString(PyExc_TypeError, "shape must be a Shape");
        return 0;
    }
    if (((ShapeObject *)obj)->ready != SHAPE_READY) {
        PyErr_SetString(PyExc_ValueError, "the shape is not initialised");
        return 0;
    }
    *(ShapeObject **)out = (ShapeObject *)obj;
    return 1;
}

/* A Table for Python: Table.__new__ alone makes one with no memory. */
typedef struct {
    PyObject_HEAD
    Table table;
} TableObject;

static int
Table_init(TableObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size_bytes", NULL};
    PyObject *size_arg;
    uint64_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &size_arg)) {
        return -1;
    }
    /* At least one bucket; at most MAX_TABLE_BYTES, so that the size with
     * its alignment slack cannot wrap. */
    if (read_count(size_arg, BUCKET_BYTES, MAX_TABLE_BYTES, "size_bytes", &size) < 0) {
        return -1;
    }
    /* Once, checked after the size is read (reading it may run Python code,
     * this very __init__ included) and with no Python code from here on. */
    if (self->table.mapping != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Table is initialised once");
        return -1;
    }
    if (table_init(&self->table, size) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
Table_dealloc(TableObject *self)
{
    table_free(&self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Table_stats(TableObject *self, PyObject *Py_UNUSED(ignored))
{
    Table *t = &self->table;
    return Py_BuildValue("(KKKKKK)", (unsigned long long)atomic_load(&t->hits),
                         (unsigned long long)atomic_load(&t->misses),
                         (unsigned long long)atomic_load(&t->filled),
                         (unsigned long long)atomic_load(&t->evictions),
                         (unsigned long long)(t->buckets * BUCKET_SLOTS),
                         (unsigned long long)table_bytes(t));
}

static PyObject *
Table_ages(TableObject *self, PyObject *Py_UNUSED(ignored))
{
    uint64_t counts[AGES];
    Py_BEGIN_ALLOW_THREADS
    table_ages(&self->table, counts);
    Py_END_ALLOW_THREADS
    PyObject *ages = PyTuple_New(AGES);
    for (int i = 0; ages != NULL && i < AGES; i++) {
        PyObject *count = PyLong_FromUnsignedLongLong(counts[i]);
        if (count == NULL) {
            Py_CLEAR(ages);
            break;
        }
        PyTuple_SET_ITEM(ages, i, count);
    }
    return ages;
}

static PyObject *
Table_clear(TableObject *self, PyObject *Py_UNUSED(ignored))
{
    /* Only while no search runs: the caller (Engine) holds that guarantee. */
    table_clear(&self->table);
    Py_RETURN_NONE;
}

static PyMethodDef Table_methods[] = {
    {"stats", (PyCFunction)Table_stats, METH_NOARGS,
     "(hits, misses, entries, evictions, capacity_entries, size_bytes)"},
    {"ages", (PyCFunction)Table_ages, METH_NOARGS,
     "The big-board entries by age: how many were last used 0, 1, ... searches ago "
     "(the last count: that many or more)."},
    {"clear", (PyCFunction)Table_clear, METH_NOARGS, "Forget every entry."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Table",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Table_init,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_doc = "The shared table of proven bounds, of a fixed size in bytes.",
};


/* A "O&" converter: an initialised Table (Table.__new__ alone makes one with
 * no memory), or a TypeError or ValueError. */
static int
table_arg(PyObject *obj, void *out)
{
    if (!PyObject_TypeCheck(obj, &TableType)) {
        PyErr_SetString(PyExc_TypeError, "table must be a Table");
        return 0;
    }
    if (((TableObject *)obj)->table.entries == NULL) {
        PyErr_SetString(PyExc_ValueError, "the table is not initialised");
        return 0;
    }
    *(TableObject **)out = (TableObject *)obj;
    return 1;
}


static int64_t
seconds_to_ns(double seconds)
{
    if (!(seconds > 0)) {
        return 1; /* already past: any positive time before now */
    }
    if (seconds > 9.0e9) {
        return INT64_MAX;
    }
    /* The nearest nanosecond (truncating made every deadline up to 1 ns
     * early, so one read back was not the one given); at least 1: a deadline
     * under a nanosecond is still a deadline (0 means none). */
    int64_t ns = (int64_t)(seconds * 1e9 + 0.5);
    return ns > 0 ? ns : 1;
}

/* A Control for Python: Control.__new__ alone makes a usable one (no deadline). */
typedef struct {
    PyObject_HEAD
    Control control;
    int initialised; /* __init__ runs once: a search may be reading the others */
} ControlObject;

static int
Control_init(ControlObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"deadline", NULL};
    PyObject *deadline = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &deadline)) {
        return -1;
    }
    int64_t ns = 0;
    if (deadline != Py_None) {
        double seconds = PyFloat_AsDouble(deadline);
        if (seconds == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        ns = seconds_to_ns(seconds);
    }
    /* Once, checked after the deadline is read (that may run Python code),
     * and stored atomically: Control.__new__ alone makes a usable Control
     * (no deadline) that a search may already be reading. */
    if (self->initialised) {
        PyErr_SetString(PyExc_RuntimeError, "a Control is initialised once");
        return -1;
    }
    self->initialised = 1;
    control_init(&self->control, ns);
    return 0;
}

static PyObject *
Control_cancel(ControlObject *self, PyObject *Py_UNUSED(ignored))
{
    control_cancel(&self->control);
    Py_RETURN_NONE;
}

static PyObject *
Control_shorten(ControlObject *self, PyObject *arg)
{
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    control_shorten(&self->control, seconds_to_ns(seconds));
    Py_RETURN_NONE;
}

static PyObject *
Control_get_deadline(ControlObject *self, void *Py_UNUSED(closure))
{
    int64_t ns = atomic_load(&self->control.deadline_ns);
    if (ns == 0) {
        Py_RETURN_NONE;
    }
    return PyFloat_FromDouble((double)ns / 1e9);
}

static PyObject *
Control_get_cancelled(ControlObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(atomic_load(&self->control.cancelled));
}

static PyMethodDef Control_methods[] = {
    {"cancel", (PyCFunction)Control_cancel, METH_NOARGS,
     "Stop the search within a few milliseconds; it raises SearchCancelled."},
    {"shorten", (PyCFunction)Control_shorten, METH_O,
     "Move the deadline (time.monotonic() seconds) earlier; a later one is ignored."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Control_getset[] = {
    {"deadline", (getter)Control_get_deadline, NULL, "time.monotonic() seconds, or None", NULL},
    {"cancelled", (getter)Control_get_cancelled, NULL, "whether cancel() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ControlType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Control",
    .tp_basicsize = sizeof(ControlObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Control_init,
    .tp_methods = Control_methods,
    .tp_getset = Control_getset,
    .tp_doc = "A search's deadline and cancel flag, safe to change from any thread.",
};

/* The Control a search is handed: NULL for None (read_control() has checked it). */
static Control *
control_of(PyObject *control)
{
    return control == Py_None ? NULL : &((ControlObject *)control)->control;
}

/* ------------------------------------------------------------------------ */
/* Small boards                                                              */

static int
read_bitboard(PyObject *obj, uint64_t *out, const char *what)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s must be a bitboard of at most 64 cells", what);
        return -1;
    }
    *out = v;
    return 0;
}

/* None, or a Control: a TypeError otherwise. */
static int
read_control(PyObject *control)
{
    if (control != Py_None && !PyObject_TypeCheck(control, &ControlType)) {
        PyErr_SetString(PyExc_TypeError, "control must be a Control or None");
        return -1;
    }
    return 0;
}

/* X's and O's bitboards from Python, checked: disjoint cells of ``shape``. */
static int
read_position(const Shape *shape, PyObject *xo, PyObject *oo, uint64_t *x, uint64_t *o)
{
    if (read_bitboard(xo, x, "x") < 0 || read_bitboard(oo, o, "o") < 0) {
        return -1;
    }
    if ((*x | *o) & ~shape->full || (*x & *o)) {
        PyErr_SetString(PyExc_ValueError, "x and o must be disjoint cells of the board");
        return -1;
    }
    return 0;
}

static PyObject *
core_analyze(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"shape", "table",          "x",
                             "o",     "x_to_move",      "budget",
                             "outcome_budget", "distance_budget", "control",
                             "threads", NULL};
    ShapeObject *shape_object;
    TableObject *table_object;
    PyObject *xo, *oo, *budget_arg, *outcome_arg, *distance_arg, *control = Py_None;
    int x_to_move, threads = 1;
    uint64_t budget, outcome_budget, distance_budget;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&O&OOpOOO|Oi", kwlist, shape_arg,
                                     &shape_object, table_arg, &table_object, &xo, &oo, &x_to_move,
                                     &budget_arg, &outcome_arg, &distance_arg, &control, &threads)) {
        return NULL;
    }
    if (threads < 1 || threads > MAX_PROOF_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d", MAX_PROOF_THREADS);
        return NULL;
    }
    Shape *shape = &shape_object->shape;
    Table *table = &table_object->table;
    if (read_control(control) < 0) {
        return NULL;
    }
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    if (read_count(budget_arg, 1, MAX_BUDGET, "budget", &budget) < 0 ||
        read_count(outcome_arg, 1, MAX_BUDGET, "outcome_budget", &outcome_budget) < 0 ||
        read_count(distance_arg, 1, MAX_BUDGET, "distance_budget", &distance_budget) < 0) {
        return NULL;
    }
    if (outcome_budget > distance_budget || distance_budget > budget) {
        PyErr_SetString(PyExc_ValueError,
                        "budgets must satisfy 1 <= outcome_budget <= distance_budget <= budget");
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.tt = table;
    S.clock.ctl = control_of(control);
    S.threads = threads;
    Node root;
    RootMove moves[MAX_CELLS];
    int count = 0;
    RootResult result;
    /* Keep the shape and table alive while the GIL is released. */
    Py_INCREF(shape_object);
    Py_INCREF(table_object);
    Py_XINCREF(control);
    Py_BEGIN_ALLOW_THREADS
    root_node(shape, x, o, x_to_move, &root);
    result = analyze_root(&S, &root, budget, outcome_budget, distance_budget, moves, &count);
    atomic_fetch_add_explicit(&table->hits, S.hits, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->misses, S.misses, memory_order_relaxed);
    Py_END_ALLOW_THREADS
    Py_XDECREF(control);
    Py_DECREF(table_object);
    Py_DECREF(shape_object);
    free(S.est);
    free(S.zones);
    free(S.zone_locks);
    if (result.stop < 0) {
        return PyErr_NoMemory();
    }

    PyObject *list = PyList_New(count);
    if (list == NULL) {
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        PyObject *item;
        PyObject *line = PyTuple_New(moves[i].line_length);
        if (line == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        for (int j = 0; j < moves[i].line_length; j++) {
            PyTuple_SET_ITEM(line, j, PyLong_FromLong(moves[i].line[j]));
        }
        if (moves[i].exact) {
            item = Py_BuildValue("(iiOiNO)", moves[i].cell, (int)moves[i].value, Py_True, 0, line,
                                 Py_False);
        }
        else if (moves[i].proven) {
            item = Py_BuildValue("(iiOiNO)", moves[i].cell, (int)moves[i].value, Py_False,
                                 moves[i].proven, line, Py_False);
        }
        else {
            item = Py_BuildValue("(idOiNO)", moves[i].cell, moves[i].value, Py_False, 0, line,
                                 moves[i].no_win ? Py_True : Py_False);
        }
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return Py_BuildValue("(NKii)", list, (unsigned long long)S.clock.nodes, result.depth,
                         result.stop);
}

/* Parse (shape, x, o, x_to_move) into a root node, for the knowledge checks below. */
static int
parse_position(PyObject *args, Shape **shape, Node *n)
{
    ShapeObject *shape_object;
    PyObject *xo, *oo;
    int x_to_move;
    if (!PyArg_ParseTuple(args, "O&OOp", shape_arg, &shape_object, &xo, &oo, &x_to_move)) {
        return -1;
    }
    *shape = &shape_object->shape;
    uint64_t x, o;
    if (read_position(*shape, xo, oo, &x, &o) < 0) {
        return -1;
    }
    root_node(*shape, x, o, x_to_move, n);
    return 0;
}

static PyObject *
core_threat_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    PyObject *xo, *oo, *nodes_arg;
    int x_to_move;
    uint64_t x, o, nodes;
    if (!PyArg_ParseTuple(args, "O&OOpO", shape_arg, &shape_object, &xo, &oo, &x_to_move,
                          &nodes_arg) ||
        read_position(&shape_object->shape, xo, oo, &x, &o) < 0 ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return NULL;
    }
    Shape *shape = &shape_object->shape;
    Search S = {0};
    S.sh = shape;
    S.clock.limit = nodes;
    Node n;
    root_node(shape, x, o, x_to_move, &n);
    int value = vcf(&S, &n, VCF_DEPTH);
    /* A search stopped by its limit found nothing it can claim. */
    return Py_BuildValue("(iK)", S.clock.stop ? 0 : value, (unsigned long long)S.clock.nodes);
}

static PyObject *
core_heuristic(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *xo, *oo;
    int x_to_move, cell = -1;
    ShapeObject *shape_object;
    if (!PyArg_ParseTuple(args, "O&OOp|i", shape_arg, &shape_object, &xo, &oo, &x_to_move,
                          &cell)) {
        return NULL;
    }
    Shape *shape = &shape_object->shape;
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    if (cell != -1 && (cell < 0 || cell >= shape->cells || ((x | o) >> cell) & 1)) {
        PyErr_SetString(PyExc_ValueError, "cell must be an empty cell of the board, or -1");
        return NULL;
    }
    Node n, child;
    root_node(shape, x, o, x_to_move, &n);
    if (cell < 0) {
        return PyFloat_FromDouble(heuristic(shape, &n));
    }
    int64_t my_sum, opp_sum;
    line_sums(shape, &n, &my_sum, &opp_sum);
    play_summed(shape, &n, my_sum, opp_sum, cell, &child);
    return PyFloat_FromDouble(heuristic(shape, &child));
}

static PyObject *
core_pairing(PyObject *Py_UNUSED(module), PyObject *args)
{
    Shape *shape;
    Node n;
    if (parse_position(args, &shape, &n) < 0) {
        return NULL;
    }
    Pairing P;
    uint64_t empty = shape->full & ~(n.me | n.opp);
    if (!cannot_win(shape, &n.my_open, n.me, empty, 0, &P)) {
        Py_RETURN_NONE;
    }
    PyObject *pairs = PyList_New(P.count);
    if (pairs == NULL) {
        return NULL;
    }
    for (int i = 0; i < P.count; i++) {
        PyObject *pair = Py_BuildValue("(ii)", P.a[i], P.b[i]);
        if (pair == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        PyList_SET_ITEM(pairs, i, pair);
    }
    return pairs;
}

static PyObject *
core_store(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    TableObject *table_object;
    PyObject *xo, *oo;
    int x_to_move, lower, upper;
    if (!PyArg_ParseTuple(args, "O&O&OOpii", shape_arg, &shape_object, table_arg, &table_object,
                          &xo, &oo, &x_to_move, &lower, &upper)) {
        return NULL;
    }
    Shape *shape = &shape_object->shape;
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    /* The values a search gives this position (see small/search.h): at most
     * a win with the next move, cells - marks; at least the loss the other
     * side has just made, -(cells + 1 - marks). */
    int left = shape->cells - __builtin_popcountll(x | o);
    if (lower < -(left + 1) || upper > left || lower > upper) {
        PyErr_Format(PyExc_ValueError,
                     "bounds must satisfy -(empty cells + 1) <= lower <= upper <= empty cells: "
                     "%d <= lower <= upper <= %d here", -(left + 1), left);
        return NULL;
    }
    Node n;
    root_node(shape, x, o, x_to_move, &n);
    uint64_t key0, key1;
    canonical(shape, &n, &key0, &key1);
    if (key0 == 0) {
        PyErr_Format(PyExc_ValueError, "a position of this shape with fewer than %d free cells has "
                     "no key: the table does not hold it", WIDE_META_BITS);
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.tt = &table_object->table;
    /* The most work an entry can record: replacement keeps it over any search's. */
    tt_store(&S, key0, key1, lower, upper, 0, UINT64_MAX, 0);
    Py_RETURN_NONE;
}

/* Every position of ``shape`` with at most ``max_marks`` marks whose proven
 * bounds the table holds, as (x, o, x_to_move, lower, upper), one per class
 * of positions equal under the board's symmetries (a wide shape's, under the
 * colours' swap too: see canonical()). An entry is decoded from its key and
 * kept only if the position's own key is that key, so other shapes' entries
 * and big boards' never pass. For the offline proofs' store (store.py), while
 * no search writes to the table. */
static PyObject *
core_proven_positions(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    TableObject *table_object;
    int max_marks;
    if (!PyArg_ParseTuple(args, "O&O&i", shape_arg, &shape_object, table_arg, &table_object,
                          &max_marks)) {
        return NULL;
    }
    const Shape *sh = &shape_object->shape;
    Table *t = &table_object->table;
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        return NULL;
    }
    for (uint64_t b = 0; b < t->buckets; b++) {
        Entry *bucket = bucket_at(t->entries, b);
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            const Entry *e = &bucket[i];
            if (e->key0 == 0 || (e->work & ENTRY_BIG)) {
                continue;
            }
            uint64_t x, o;
            int x_to_move = 1;
            if (sh->wide) {
                uint64_t meta = e->key0 & e->key1;
                x = e->key0 & ~meta;
                o = e->key1 & ~meta;
            }
            else {
                x = e->key0 & sh->full;
                o = e->key1;
                x_to_move = !((e->key0 >> 52) & 1);
            }
            if ((x | o) & ~sh->full || (x & o) || __builtin_popcountll(x | o) > max_marks) {
                continue;
            }
            Node n;
            uint64_t key0, key1;
            root_node(sh, x, o, x_to_move, &n);
            canonical(sh, &n, &key0, &key1);
            if (key0 != e->key0 || key1 != e->key1) {
                continue;
            }
            PyObject *item = Py_BuildValue("(KKOii)", (unsigned long long)x, (unsigned long long)o,
                                           x_to_move ? Py_True : Py_False, (int)e->lower,
                                           (int)e->upper);
            if (item == NULL || PyList_Append(found, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(found);
                return NULL;
            }
            Py_DECREF(item);
        }
    }
    return found;
}

static PyObject *
core_can_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    TableObject *table_object;
    PyObject *xo, *oo, *nodes_arg, *control = Py_None;
    int x_to_move, attacker_x;
    uint64_t x, o, nodes;
    if (!PyArg_ParseTuple(args, "O&O&OOppO|O", shape_arg, &shape_object, table_arg,
                          &table_object, &xo, &oo, &x_to_move, &attacker_x, &nodes_arg,
                          &control) ||
        read_control(control) < 0 || read_position(&shape_object->shape, xo, oo, &x, &o) < 0 ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return NULL;
    }
    Shape *shape = &shape_object->shape;
    Search S = {0};
    S.sh = shape;
    S.tt = &table_object->table;
    S.clock.limit = nodes;
    S.clock.ctl = control_of(control);
    Node n;
    int result;
    Py_INCREF(shape_object);
    Py_INCREF(table_object);
    Py_XINCREF(control);
    Py_BEGIN_ALLOW_THREADS
    root_node(shape, x, o, x_to_move, &n);
    result = prove_nowin(&S, &n, attacker_x == x_to_move, nodes);
    Py_END_ALLOW_THREADS
    Py_XDECREF(control);
    Py_DECREF(table_object);
    Py_DECREF(shape_object);
    free(S.zones);
    free(S.zone_locks);
    PyObject *answer = result == NW_UNKNOWN ? Py_None : result == NW_WIN ? Py_True : Py_False;
    return Py_BuildValue("(OK)", answer, (unsigned long long)S.clock.nodes);
}

/* ------------------------------------------------------------------------ */
/* Big boards                                                                */

#define BIG_SHAPE_RANGE                                                                            \
    "a big board is 3 to 20 cells a side, k 3 to the longer, rule 0 (freestyle), 1 (exact) or "    \
    "2 (renju, k = 5)"

/* A big board's stones from Python: one bytes object per side, bit i of the
 * little-endian bytes for cell i, disjoint and on the board. */
static int
read_stones(const BigShape *sh, PyObject *xo, PyObject *oo, uint8_t *stone)
{
    PyObject *sides[2] = {xo, oo};
    memset(stone, 0, BIG_MAX_CELLS);
    for (int s = 0; s < 2; s++) {
        if (!PyBytes_Check(sides[s])) {
            PyErr_SetString(PyExc_TypeError, "x and o must be bytes (little-endian bitboards)");
            return -1;
        }
        Py_ssize_t size = PyBytes_GET_SIZE(sides[s]);
        const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(sides[s]);
        for (Py_ssize_t i = 0; i < size; i++) {
            for (int bit = 0; bit < 8; bit++) {
                if (!(bytes[i] >> bit & 1)) {
                    continue;
                }
                Py_ssize_t cell = i * 8 + bit;
                if (cell >= sh->cells || stone[cell]) {
                    PyErr_SetString(PyExc_ValueError, "x and o must be disjoint cells of the board");
                    return -1;
                }
                stone[cell] = (uint8_t)(s + 1);
            }
        }
    }
    return 0;
}

static PyObject *
line_tuple(const Line *line)
{
    PyObject *tuple = PyTuple_New(line->length);
    if (tuple == NULL) {
        return NULL;
    }
    for (int j = 0; j < line->length; j++) {
        PyTuple_SET_ITEM(tuple, j, PyLong_FromLong(line->cell[j]));
    }
    return tuple;
}

/* A game's search context: the big search's state (history, threat memo)
 * kept from one analysis to the next, for a caller that plays one game (the
 * brain). One analysis at a time: a second, while one runs, is refused. */
typedef struct {
    PyObject_HEAD
    BigSearch *search; /* NULL until first used */
    atomic_int busy;
} Context;

static void
Context_dealloc(Context *self)
{
    big_search_free(self->search);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Context",
    .tp_basicsize = sizeof(Context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_doc = "One game's big-board search state, kept between its analyses (one at a time).",
};

static PyObject *
core_analyze_big(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rows",   "cols",    "k",         "rule", "table", "x", "o",
                             "x_to_move", "budget", "control", "max_depth", "context", NULL};
    int rows, cols, k, rule, x_to_move, max_depth = 0;
    TableObject *table_object;
    PyObject *xo, *oo, *budget_arg, *control = Py_None, *context_arg = Py_None;
    uint64_t budget;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiO&OOpO|OiO", kwlist, &rows, &cols, &k,
                                     &rule, table_arg, &table_object, &xo, &oo, &x_to_move,
                                     &budget_arg, &control, &max_depth, &context_arg)) {
        return NULL;
    }
    Table *table = &table_object->table;
    if (max_depth < 0 || max_depth > 60) {
        PyErr_SetString(PyExc_ValueError, "max_depth is 0 (none) to 60");
        return NULL;
    }
    if (read_control(control) < 0 || read_count(budget_arg, 1, MAX_BUDGET, "budget", &budget) < 0) {
        return NULL;
    }
    Context *context = NULL;
    if (context_arg != Py_None) {
        if (!PyObject_TypeCheck(context_arg, &ContextType)) {
            PyErr_SetString(PyExc_TypeError, "context must be a Context or None");
            return NULL;
        }
        context = (Context *)context_arg;
        int idle = 0;
        if (!atomic_compare_exchange_strong(&context->busy, &idle, 1)) {
            PyErr_SetString(PyExc_ValueError, "the context is in use by another analysis");
            return NULL;
        }
    }
    BigShape *shape = malloc(sizeof(BigShape));
    BigRootMove *moves = malloc(sizeof(BigRootMove) * BIG_MAX_CELLS);
    BigSearch *S = context != NULL && context->search != NULL ? context->search : big_search_new();
    if (shape == NULL || S == NULL || moves == NULL) {
        free(shape);
        free(moves);
        if (context == NULL) {
            big_search_free(S);
        }
        else {
            atomic_store(&context->busy, 0);
        }
        return PyErr_NoMemory();
    }
    if (context != NULL) {
        context->search = S;
        Py_INCREF(context);
    }
    big_search_renew(S);
    PyObject *answer = NULL;
    uint8_t stone[BIG_MAX_CELLS];
    if (big_shape_init(shape, rows, cols, k, rule) < 0) {
        PyErr_SetString(PyExc_ValueError, BIG_SHAPE_RANGE);
        goto done;
    }
    if (read_stones(shape, xo, oo, stone) < 0) {
        goto done;
    }
    S->tt = table;
    S->clock.ctl = control_of(control);
    S->clock.limit = budget;
    S->max_depth = max_depth;
    int count = 0;
    BigRootResult result;
    Py_INCREF(table_object);
    Py_XINCREF(control);
    Py_BEGIN_ALLOW_THREADS
    big_board_init(&S->board, shape);
    for (int cell = 0; cell < shape->cells; cell++) {
        if (stone[cell]) {
            S->board.side = stone[cell] - 1;
            big_play(&S->board, cell);
        }
    }
    S->board.side = x_to_move ? 0 : 1;
    result = big_analyze(S, budget, moves, &count);
    atomic_fetch_add_explicit(&table->hits, S->hits, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->misses, S->misses, memory_order_relaxed);
    Py_END_ALLOW_THREADS
    Py_XDECREF(control);
    Py_DECREF(table_object);

    PyObject *list = PyList_New(count);
    if (list == NULL) {
        goto done;
    }
    for (int i = 0; i < count; i++) {
        const BigRootMove *m = &moves[i];
        PyObject *line = line_tuple(&m->line), *item;
        if (line == NULL) {
            Py_DECREF(list);
            goto done;
        }
        if (m->exact || m->proven) {
            item = Py_BuildValue("(iiOiNO)", m->cell, (int)m->value, m->exact ? Py_True : Py_False,
                                 m->proven, line, Py_False);
        }
        else {
            item = Py_BuildValue("(idOiNO)", m->cell, m->value, Py_False, 0, line, Py_False);
        }
        if (item == NULL) {
            Py_DECREF(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, item);
    }
    PyObject *omitted_value = result.omitted_proven ? PyLong_FromLong((long)result.omitted_value)
                                                    : Py_NewRef(Py_None);
    answer = Py_BuildValue("(NKiiiN)", list, (unsigned long long)S->clock.nodes, result.depth,
                           result.stop, result.omitted, omitted_value);
done:
    if (context != NULL) {
        atomic_store(&context->busy, 0);
        Py_DECREF(context);
    }
    else {
        big_search_free(S);
    }
    free(shape);
    free(moves);
    return answer;
}

/* The big board after a sequence of moves (a cell, or -1 to take the last one
 * back), as the search keeps it: per cell, each side's four patterns and
 * kind; the sets; the evaluation. For the tests, which compare it with a
 * plain reference and with the board rebuilt from scratch. */
static PyObject *
core_big_board(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols, k, rule;
    PyObject *sequence;
    if (!PyArg_ParseTuple(args, "iiiiO", &rows, &cols, &k, &rule, &sequence)) {
        return NULL;
    }
    BigShape *shape = malloc(sizeof(BigShape));
    BigBoard *b = malloc(sizeof(BigBoard));
    PyObject *fast = NULL, *answer = NULL;
    int played[BIG_MAX_CELLS], count = 0;
    if (shape == NULL || b == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (big_shape_init(shape, rows, cols, k, rule) < 0) {
        PyErr_SetString(PyExc_ValueError, BIG_SHAPE_RANGE);
        goto done;
    }
    big_board_init(b, shape);
    fast = copy_items(sequence, "moves");
    if (fast == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        long cell = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (cell == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (cell == -1) {
            if (count == 0) {
                PyErr_SetString(PyExc_ValueError, "no move to take back");
                goto done;
            }
            big_undo(b, played[--count]);
            continue;
        }
        if (cell < 0 || cell >= shape->cells || b->stone[cell]) {
            PyErr_SetString(PyExc_ValueError, "a move must take an empty cell of the board");
            goto done;
        }
        big_play(b, (int)cell);
        played[count++] = (int)cell;
    }
    PyObject *cells = PyList_New(shape->cells);
    if (cells == NULL) {
        goto done;
    }
    for (int c = 0; c < shape->cells; c++) {
        PyObject *item;
        if (b->stone[c]) {
            item = PyLong_FromLong(b->stone[c]);
        }
        else {
            const uint8_t(*p)[4] = b->pattern[c];
            item = Py_BuildValue("((iiii)(iiii)ii)", p[0][0], p[0][1], p[0][2], p[0][3], p[1][0],
                                 p[1][1], p[1][2], p[1][3], cell_kind(b, c, 0), cell_kind(b, c, 1));
        }
        if (item == NULL) {
            Py_DECREF(cells);
            goto done;
        }
        PyList_SET_ITEM(cells, c, item);
    }
    PyObject *sets = PyTuple_New(8);
    if (sets == NULL) {
        Py_DECREF(cells);
        goto done;
    }
    const Cells *all[8] = {&b->five[0], &b->five[1], &b->flex4[0], &b->flex4[1],
                           &b->four[0], &b->four[1], &b->three[0], &b->three[1]};
    for (int i = 0; i < 8; i++) {
        PyObject *members = PyList_New(0);
        if (members == NULL) {
            Py_DECREF(cells);
            Py_DECREF(sets);
            goto done;
        }
        for (int c = cells_next(all[i], -1); c >= 0; c = cells_next(all[i], c)) {
            PyObject *number = PyLong_FromLong(c);
            if (number == NULL || PyList_Append(members, number) < 0) {
                Py_XDECREF(number);
                Py_DECREF(members);
                Py_DECREF(cells);
                Py_DECREF(sets);
                goto done;
            }
            Py_DECREF(number);
        }
        PyTuple_SET_ITEM(sets, i, members);
    }
    answer = Py_BuildValue("(NNi(ii))", cells, sets, big_evaluate(b), b->worth_sum[0],
                           b->worth_sum[1]);
done:
    Py_XDECREF(fast);
    free(b);
    free(shape);
    return answer;
}

/* A renju board of rows x cols (k = 5), empty; NULL with an exception set. */
static BigBoard *
renju_board(int rows, int cols, BigShape *shape)
{
    if (big_shape_init(shape, rows, cols, 5, RULE_RENJU) < 0) {
        PyErr_SetString(PyExc_ValueError, BIG_SHAPE_RANGE);
        return NULL;
    }
    BigBoard *b = malloc(sizeof(BigBoard));
    if (b == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    big_board_init(b, shape);
    return b;
}

/* Renju: the first move of X in a game's moves (X first, then alternately)
 * that the rule forbids, as (its index, FORBID_*), or None. */
static PyObject *
core_renju_first_forbidden(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols;
    PyObject *sequence;
    if (!PyArg_ParseTuple(args, "iiO", &rows, &cols, &sequence)) {
        return NULL;
    }
    BigShape shape;
    BigBoard *b = renju_board(rows, cols, &shape);
    PyObject *fast = b == NULL ? NULL : copy_items(sequence, "moves");
    PyObject *answer = NULL;
    if (fast == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        long cell = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (cell == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (cell < 0 || cell >= shape.cells || b->stone[cell] || b->count >= shape.cells) {
            PyErr_SetString(PyExc_ValueError, "a move must take an empty cell of the board");
            goto done;
        }
        int kind = b->side == 0 ? big_forbidden(b, (int)cell) : FORBID_NONE;
        if (kind != FORBID_NONE) {
            answer = Py_BuildValue("(ni)", i, kind);
            goto done;
        }
        big_play(b, (int)cell);
    }
    answer = Py_NewRef(Py_None);
done:
    Py_XDECREF(fast);
    free(b);
    return answer;
}

/* Renju: X's forbidden cells of a position, [(cell, FORBID_*), ...]. */
static PyObject *
core_renju_forbidden(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols;
    PyObject *xo, *oo;
    if (!PyArg_ParseTuple(args, "iiOO", &rows, &cols, &xo, &oo)) {
        return NULL;
    }
    BigShape shape;
    uint8_t stone[BIG_MAX_CELLS];
    BigBoard *b = renju_board(rows, cols, &shape);
    PyObject *answer = NULL;
    if (b == NULL || read_stones(&shape, xo, oo, stone) < 0) {
        goto done;
    }
    for (int cell = 0; cell < shape.cells; cell++) {
        if (stone[cell]) {
            b->side = stone[cell] - 1;
            big_play(b, cell);
        }
    }
    answer = PyList_New(0);
    for (int cell = 0; answer != NULL && cell < shape.cells; cell++) {
        int kind = big_forbidden(b, cell);
        if (kind == FORBID_NONE) {
            continue;
        }
        PyObject *item = Py_BuildValue("(ii)", cell, kind);
        if (item == NULL || PyList_Append(answer, item) < 0) {
            Py_CLEAR(answer);
        }
        Py_XDECREF(item);
    }
done:
    free(b);
    return answer;
}

/* A sequence of exactly ``count`` ints, into ``out``. */
static int
read_ints(PyObject *obj, int count, int *out, const char *what)
{
    PyObject *items = PySequence_Fast(obj, what);
    if (items == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(items) != count) {
        PyErr_Format(PyExc_ValueError, "%s must have %d items", what, count);
        Py_DECREF(items);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(items, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(items);
            return -1;
        }
        out[i] = v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
    }
    Py_DECREF(items);
    return 0;
}

static PyObject *
core_set_evaluation(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *pattern_arg, *kind_arg, *pattern_other_arg, *kind_other_arg;
    int pattern[2][PATTERNS], kind[2][KINDS], tempo;
    if (!PyArg_ParseTuple(args, "OOOOi", &pattern_arg, &kind_arg, &pattern_other_arg,
                          &kind_other_arg, &tempo)) {
        return NULL;
    }
    if (read_ints(pattern_arg, PATTERNS, pattern[0], "pattern_worth") < 0 ||
        read_ints(kind_arg, KINDS, kind[0], "kind_bonus") < 0 ||
        read_ints(pattern_other_arg, PATTERNS, pattern[1], "pattern_worth_other") < 0 ||
        read_ints(kind_other_arg, KINDS, kind[1], "kind_bonus_other") < 0) {
        return NULL;
    }
    if (big_set_evaluation((const int(*)[PATTERNS])pattern, (const int(*)[KINDS])kind, tempo) < 0) {
        PyErr_Format(PyExc_ValueError, "every weight must be within +-%d", EVALUATION_WEIGHT_LIMIT);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* One brain session at a time: the brain's output channel is the process's. */
static atomic_int brain_running;

static PyObject *
core_run_brain(PyObject *Py_UNUSED(module), PyObject *args)
{
    int in_fd, out_fd;
    if (!PyArg_ParseTuple(args, "ii", &in_fd, &out_fd)) {
        return NULL;
    }
    if (in_fd < 0 || out_fd < 0) {
        PyErr_SetString(PyExc_ValueError, "run_brain takes two open file descriptors");
        return NULL;
    }
    int idle = 0;
    if (!atomic_compare_exchange_strong(&brain_running, &idle, 1)) {
        PyErr_SetString(PyExc_RuntimeError, "a brain session is running in this process already");
        return NULL;
    }
    int result;
    Py_BEGIN_ALLOW_THREADS
    result = brain_run(in_fd, out_fd);
    Py_END_ALLOW_THREADS
    atomic_store(&brain_running, 0);
    if (result < 0) {
        PyErr_SetString(PyExc_OSError, "the brain could not start: no memory, descriptor or thread");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"run_brain", (PyCFunction)core_run_brain, METH_VARARGS,
     "run_brain(in_fd, out_fd, /): the Gomocup brain (service/brain/native/, docs/brain.md):\n"
     "commands read from in_fd and answered on out_fd until END or the end of the input, with\n"
     "the GIL released. Both descriptors are duplicated and stay the caller's to close. The\n"
     "evaluation is the one set_evaluation set. One session at a time (RuntimeError)."},
    {"set_evaluation", (PyCFunction)core_set_evaluation, METH_VARARGS,
     "set_evaluation(pattern_worth, kind_bonus, pattern_worth_other, kind_bonus_other, tempo, /):\n"
     "the big boards' evaluation weights (a worth per pattern and a bonus per kind, for the side to\n"
     "move's cells and the other side's, and the tempo; see core/big/board.c). Only before any\n"
     "search: the module calls it once, at import, with service/engine/evaluation.json."},
    {"big_board", (PyCFunction)core_big_board, METH_VARARGS,
     "big_board(rows, cols, k, rule, moves) -> (cells, sets, evaluation, worth_sums): the\n"
     "big board after the moves (X first; -1 takes the last move back). cells[c] is the\n"
     "stone (1 X, 2 O) or ((X's four patterns), (O's), X's kind, O's kind); sets are the\n"
     "five, flex4, four and three cells of X and of O, in that order (see big/board.h)."},
    {"renju_first_forbidden", (PyCFunction)core_renju_first_forbidden, METH_VARARGS,
     "renju_first_forbidden(rows, cols, moves) -> (index, kind) | None: the first move of X\n"
     "(moves alternate, X first) that renju forbids, kind 1 overline, 2 double four, 3 double\n"
     "three (see big/renju.c)."},
    {"renju_forbidden", (PyCFunction)core_renju_forbidden, METH_VARARGS,
     "renju_forbidden(rows, cols, x, o) -> [(cell, kind), ...]: X's forbidden empty cells of\n"
     "the position (bitboards as analyze_big takes them), kinds as renju_first_forbidden's."},
    {"analyze_big", (PyCFunction)(void (*)(void))core_analyze_big, METH_VARARGS | METH_KEYWORDS,
     "analyze_big(rows, cols, k, rule, table, x, o, x_to_move, budget, control=None,\n"
     "            max_depth=0, context=None)\n"
     "    -> ([(cell, value, exact, proven, line, no_win), ...], nodes, depth, stop, omitted,\n"
     "        omitted_value)\n\n"
     "The big-board search (boards the small core cannot hold): x and o are little-endian\n"
     "bitboards as bytes; the listed moves are the candidates, ``omitted`` counts the other\n"
     "legal moves and ``omitted_value`` is their proven value, or None. A Context carries one\n"
     "game's search state (history, threat memo) from one analysis to the next."},
    {"analyze", (PyCFunction)(void (*)(void))core_analyze, METH_VARARGS | METH_KEYWORDS,
     "analyze(shape, table, x, o, x_to_move, budget, outcome_budget, distance_budget,\n"
     "        control=None) -> ([(cell, value, exact, proven, line, no_win), ...], nodes, depth,\n"
     "        stop)\n\n"
     "Every legal move's internal value, searched with the GIL released."},
    {"proven_positions", (PyCFunction)core_proven_positions, METH_VARARGS,
     "proven_positions(shape, table, max_marks): the table's proven positions of the shape "
     "with at most max_marks marks, (x, o, x_to_move, lower, upper) each."},
    {"store", (PyCFunction)core_store, METH_VARARGS,
     "store(shape, table, x, o, x_to_move, lower, upper): record proven bounds of a\n"
     "position (internal scores, for the side to move), kept over any search's entries."},
    {"threat_win", (PyCFunction)core_threat_win, METH_VARARGS,
     "threat_win(shape, x, o, x_to_move, nodes) -> (value, nodes): the internal value of a\n"
     "win by continuous threats for the side to move, or 0 when none is found within the\n"
     "nodes."},
    {"heuristic", (PyCFunction)core_heuristic, METH_VARARGS,
     "heuristic(shape, x, o, x_to_move, cell=-1) -> the estimate of the position for the side\n"
     "to move (see small/estimate.c), or with a cell, of the position after that move, its line sums\n"
     "kept from this one's as the search keeps them for the horizon."},
    {"pairing", (PyCFunction)core_pairing, METH_VARARGS,
     "pairing(shape, x, o, x_to_move) -> [(a, b), ...]: disjoint pairs of empty cells,\n"
     "one in every line the side to move can still fill, or None when none is found."},
    {"can_win", (PyCFunction)core_can_win, METH_VARARGS,
     "can_win(shape, table, x, o, x_to_move, attacker_x, nodes, control=None) -> (answer,\n"
     "nodes): whether the attacker (X or O) can force a win, proven by the zone search; None\n"
     "when unknown (the nodes spent, or the control's deadline passed or cancel called)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "service.engine._core",
    .m_doc = "The compiled search core (see service/engine/core/common.h).",
    .m_size = -1,
    .m_methods = core_methods,
};

static int
add_count(PyObject *m, const char *name, uint64_t value)
{
    PyObject *number = PyLong_FromUnsignedLongLong(value);
    int failed = number == NULL || PyModule_AddObjectRef(m, name, number) < 0;
    Py_XDECREF(number);
    return failed ? -1 : 0;
}

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&ShapeType) < 0 || PyType_Ready(&TableType) < 0 ||
        PyType_Ready(&ControlType) < 0 || PyType_Ready(&ContextType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL) {
        return NULL;
    }
    big_search_init();
    if (PyModule_AddObjectRef(m, "Shape", (PyObject *)&ShapeType) < 0 ||
        PyModule_AddObjectRef(m, "Table", (PyObject *)&TableType) < 0 ||
        PyModule_AddObjectRef(m, "Control", (PyObject *)&ControlType) < 0 ||
        PyModule_AddObjectRef(m, "Context", (PyObject *)&ContextType) < 0 ||
        PyModule_AddIntConstant(m, "STOP_NONE", STOP_NONE) < 0 ||
        PyModule_AddIntConstant(m, "PATTERNS", PATTERNS) < 0 ||
        PyModule_AddIntConstant(m, "KINDS", KINDS) < 0 ||
        PyModule_AddIntConstant(m, "STOP_BUDGET", STOP_BUDGET) < 0 ||
        PyModule_AddIntConstant(m, "STOP_DEADLINE", STOP_DEADLINE) < 0 ||
        PyModule_AddIntConstant(m, "STOP_CANCELLED", STOP_CANCELLED) < 0 ||
        PyModule_AddIntConstant(m, "STOP_DECIDED", STOP_DECIDED) < 0 ||
        PyModule_AddIntConstant(m, "BUCKET_BYTES", BUCKET_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "BUCKET_SLOTS", BUCKET_SLOTS) < 0 ||
        PyModule_AddIntConstant(m, "BIG_MAX_SIDE", BIG_MAX_SIDE) < 0 ||
        PyModule_AddIntConstant(m, "SMALL_MAX_CELLS", MAX_CELLS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PROOF_THREADS", MAX_PROOF_THREADS) < 0 ||
        add_count(m, "MAX_BUDGET", MAX_BUDGET) < 0 ||
        add_count(m, "MAX_TABLE_BYTES", MAX_TABLE_BYTES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
