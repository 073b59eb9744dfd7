/*
 * The small boards' board (see board.h): the Shape type, built once per shape
 * from what Python hands it, and play(), which keeps a Node's threats, open
 * lines and symmetric images as each move is made.
 */
#include "board.h"

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
Shape_init(Shape *self, PyObject *args, PyObject *kwds)
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
    int result = shape_fill(self, rows, cols, k, tag, lines, symmetries, order, flanks);
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

int
shape_arg(PyObject *obj, void *out)
{
    if (!PyObject_TypeCheck(obj, &ShapeType)) {
        PyErr_SetString(PyExc_TypeError, "shape must be a Shape");
        return 0;
    }
    if (((Shape *)obj)->ready != SHAPE_READY) {
        PyErr_SetString(PyExc_ValueError, "the shape is not initialised");
        return 0;
    }
    *(Shape **)out = (Shape *)obj;
    return 1;
}

PyTypeObject ShapeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Shape",
    .tp_basicsize = sizeof(Shape),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Shape_init,
    .tp_doc = "A board shape: lines, symmetries and cell order, fixed at construction.",
};

/* The empty cells that complete one of ``open`` for the owner of ``mine``:
 * threats_in()'s work, inlined where play() needs it. */
static inline uint64_t
completions(const Shape *sh, uint64_t mine, const lineset *open)
{
    uint64_t found = 0;
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = (*open)[w]; bits; bits &= bits - 1) {
            uint64_t m = sh->line[64 * w + __builtin_ctzll(bits)];
            if (__builtin_popcountll(mine & m) == sh->k - 1) {
                found |= m & ~mine;
            }
        }
    }
    return found;
}

/* The threats a mark at ``cell`` adds: only lines through it change. */
static inline uint64_t
new_threats(const Shape *sh, uint64_t mine, const lineset *my_open, int cell)
{
    lineset open_here = *my_open & sh->through_mask[cell];
    return completions(sh, mine, &open_here);
}

HOT void
play(const Shape *sh, const Node *n, int cell, Node *child)
{
    uint64_t bit = (uint64_t)1 << cell;
    uint64_t mine = n->me | bit;
    lineset mine_open = n->my_open;
    uint64_t mine_thr = n->my_thr & ~bit;
    if (sh->exact) {
        /* The mark closes the mover's lines that it flanks; where one of them
         * held a threat, the mover's threats are counted again. */
        lineset closed = mine_open & sh->flank_mask[cell];
        if (ls_any(&closed)) {
            mine_open &= ~closed;
            if (threats_in(sh, mine, &closed)) {
                mine_thr = threats_in(sh, mine, &mine_open);
            }
        }
    }
    child->me = n->opp;
    child->opp = mine;
    child->my_thr = n->opp_thr & ~bit;
    child->opp_thr = mine_thr | new_threats(sh, mine, &mine_open, cell);
    child->my_open = n->opp_open & ~sh->through_mask[cell];
    child->opp_open = mine_open;
    /* All MAX_SYMS frames, used or not (the images past nsyms are 0): work of
     * a fixed size is a few vector operations, of a variable size a loop. */
    uint64_t xmask = n->color == 0 ? ~(uint64_t)0 : 0;
    const uint64_t *image = sh->image[cell];
    for (int s = 0; s < MAX_SYMS; s++) {
        child->xs[s] = n->xs[s] | (image[s] & xmask);
        child->os[s] = n->os[s] | (image[s] & ~xmask);
    }
    child->color = n->color ^ 1;
    child->marks = n->marks + 1;
    child->summed = 0;
}

uint64_t
threats_in(const Shape *sh, uint64_t mine, const lineset *open)
{
    return completions(sh, mine, open);
}

void
open_lines(const Shape *sh, uint64_t mine, uint64_t theirs, lineset *out)
{
    lineset set = LS_NONE;
    for (int l = 0; l < sh->nlines; l++) {
        if (!(theirs & sh->line[l]) && !(mine & sh->flank[l])) {
            ls_add(&set, l);
        }
    }
    *out = set;
}

void
root_node(const Shape *sh, uint64_t x, uint64_t o, int x_to_move, Node *n)
{
    n->me = x_to_move ? x : o;
    n->opp = x_to_move ? o : x;
    open_lines(sh, n->me, n->opp, &n->my_open);
    open_lines(sh, n->opp, n->me, &n->opp_open);
    n->my_thr = threats_in(sh, n->me, &n->my_open);
    n->opp_thr = threats_in(sh, n->opp, &n->opp_open);
    memset(n->xs, 0, sizeof(n->xs)); /* frames past nsyms stay 0: play() ORs 0 into them */
    memset(n->os, 0, sizeof(n->os));
    for (int s = 0; s < sh->nsyms; s++) {
        for (int c = 0; c < sh->cells; c++) {
            if ((x >> c) & 1) {
                n->xs[s] |= (uint64_t)1 << sh->perm[s][c];
            }
            if ((o >> c) & 1) {
                n->os[s] |= (uint64_t)1 << sh->perm[s][c];
            }
        }
    }
    n->color = x_to_move ? 0 : 1;
    n->marks = __builtin_popcountll(x | o);
    n->summed = 0;
}
