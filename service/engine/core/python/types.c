/*
 * The core's types for Python: a Shape, a Table, a Control (their structs
 * in glue.h), and the converters that check what a caller hands as one.
 */
#include "glue.h"

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

PyTypeObject ShapeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Shape",
    .tp_basicsize = sizeof(ShapeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Shape_init,
    .tp_doc = "A board shape: lines, symmetries and cell order, fixed at construction.",
};

/* A "O&" converter: a Shape whose __init__ has succeeded, or a TypeError or
 * ValueError (Shape.__new__ alone, or a failed __init__, leaves it unready). */
int
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

PyTypeObject TableType = {
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
int
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

PyTypeObject ControlType = {
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
Control *
control_of(PyObject *control)
{
    return control == Py_None ? NULL : &((ControlObject *)control)->control;
}

/* None, or a Control: a TypeError otherwise. */
int
read_control(PyObject *control)
{
    if (control != Py_None && !PyObject_TypeCheck(control, &ControlType)) {
        PyErr_SetString(PyExc_TypeError, "control must be a Control or None");
        return -1;
    }
    return 0;
}
