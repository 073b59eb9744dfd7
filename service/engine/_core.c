/*
 * The compiled search core: negamax with alpha-beta over bitboards and a shared
 * table of proven bounds, released from the GIL while it searches.
 *
 * It owns the search and nothing else. Python (geometry.py) hands it a shape's
 * lines, symmetries and static cell order; board.py has validated every
 * position before it gets here, but every argument is checked again because
 * this code handles what clients send.
 *
 * Scores inside the core count marks, not plies, so that negamax is plain
 * negation: a win completed by the T-th mark on the board is worth
 * cells + 1 - T to the winner, the negative to the loser, and a draw is 0
 * (search.py converts to the public convention of score.py).
 *
 * Bound semantics of solve() (the contract of Pons' connect-4 solver, stated
 * once here): called with a window alpha < beta it returns
 *   - the exact value v when alpha < v < beta;
 *   - an upper bound u with v <= u <= alpha when v <= alpha;
 *   - a lower bound l with beta <= l <= v when v >= beta.
 *
 * The shared table (Table) holds, per position class under the board's
 * symmetries, a proven lower and upper bound and the best move found. Only
 * solve() and nowin() write to it, both proven bounds only, so only proven
 * bounds outlive a request. It has a
 * fixed size in bytes, split into buckets of three 21-byte entries, one
 * 64-byte cache line each, on huge pages once it is in use; a bucket is found
 * by a hash of the canonical position and guarded by one of a fixed set of
 * striped spin locks, so searches on other threads may share it. Each entry
 * keeps the whole canonical position (both bitboards, the shape's tag and the
 * side to move) as its key, so a hit is verified exactly: two positions never
 * share an entry. Replacement: a store to a position already in the bucket
 * merges the bounds (both are proven, so their intersection is); otherwise it
 * takes an empty slot, or else evicts the entry whose subtree cost the fewest
 * nodes (the "work" of an entry is the bit length of the node count that proved
 * it), so cheap results make way and expensive proofs stay.
 *
 * Estimates from the depth-limited search live in a small per-search table
 * that dies with the search.
 *
 * Tactics hold at every node, whatever the budget: a side with a cell that
 * completes a line wins with it; a side facing two such cells of the other
 * side loses; a side facing one must take it. At the root the same rules
 * prove the immediate win, the losses beside a forced block and the losses
 * against two threats before any budgeted work starts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* The hot functions are compiled twice on x86-64 with GCC and glibc: for
 * x86-64-v3 (AVX2, BMI1/2, LZCNT: every x86-64 server CPU since 2013-2015)
 * and for the baseline, and the loader picks the one the CPU runs (an ifunc).
 * Measured: +4% node rate in bench/engine.py; the image stays portable. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif
#define MAX_SIDE 7
#define MAX_CELLS 49
#define MAX_LINES 128 /* 7x7 with k=3 has 120 */
#define MAX_SYMS 8
#define MAX_THROUGH 28 /* at most k windows per direction hold a cell: 4 * 7 */
#define BUCKET_SLOTS 3   /* entries of 21 bytes in a bucket of one 64-byte cache line */
#define BUCKET_BYTES 64
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
#define HUGE_AFTER_ENTRIES 1024
#define LOCK_STRIPES 4096
#define CHECK_MASK 1023 /* look at the clock and the cancel flag every 1,024 nodes */
#define EST_BITS 15     /* per-search estimate table: 32,768 entries */

typedef unsigned __int128 lineset;

enum stop_reason { STOP_NONE = 0, STOP_BUDGET = 1, STOP_DEADLINE = 2, STOP_CANCELLED = 3 };

/* ------------------------------------------------------------------------ */
/* Shape                                                                     */

typedef struct {
    PyObject_HEAD
    int rows, cols, k, cells, nlines, nsyms, tag;
    uint64_t full;
    uint64_t line[MAX_LINES];
    uint8_t group[MAX_LINES]; /* the whole row, column or diagonal the line lies in */
    int nthrough[MAX_CELLS];
    uint8_t through[MAX_CELLS][MAX_THROUGH];
    lineset through_mask[MAX_CELLS];
    uint8_t perm[MAX_SYMS][MAX_CELLS];
    uint8_t inverse[MAX_SYMS][MAX_CELLS];
    uint64_t image[MAX_CELLS][MAX_SYMS]; /* a cell's bit seen through each symmetry; 0 past nsyms */
    uint8_t order[MAX_CELLS];
    uint8_t rank[MAX_CELLS]; /* a cell's place in order */
} Shape;

static int
read_cell_list(PyObject *seq, int cells, uint8_t *out, Py_ssize_t expected, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (expected >= 0 && n != expected) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd cells, got %zd", what, expected, n);
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

static int
is_permutation(const uint8_t *p, int cells)
{
    uint64_t seen = 0;
    for (int i = 0; i < cells; i++) {
        seen |= (uint64_t)1 << p[i];
    }
    return seen == (((uint64_t)1 << cells) - 1);
}

static int
Shape_init(Shape *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rows", "cols", "k", "tag", "lines", "symmetries", "order", NULL};
    int rows, cols, k, tag;
    PyObject *lines, *symmetries, *order;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiOOO", kwlist, &rows, &cols, &k, &tag,
                                     &lines, &symmetries, &order)) {
        return -1;
    }
    if (rows < 3 || rows > MAX_SIDE || cols < 3 || cols > MAX_SIDE || k < 3 ||
        k > (rows > cols ? rows : cols) || tag < 0 || tag > 255) {
        PyErr_SetString(PyExc_ValueError, "shape out of range");
        return -1;
    }
    int cells = rows * cols;
    self->rows = rows;
    self->cols = cols;
    self->k = k;
    self->tag = tag;
    self->cells = cells;
    self->full = ((uint64_t)1 << cells) - 1;
    memset(self->nthrough, 0, sizeof(self->nthrough));
    memset(self->through_mask, 0, sizeof(self->through_mask));

    PyObject *fast = PySequence_Fast(lines, "lines must be a sequence");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t nlines = PySequence_Fast_GET_SIZE(fast);
    if (nlines < 1 || nlines > MAX_LINES) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "between 1 and 128 lines");
        return -1;
    }
    self->nlines = (int)nlines;
    for (Py_ssize_t i = 0; i < nlines; i++) {
        uint8_t line_cells[MAX_SIDE];
        if (read_cell_list(PySequence_Fast_GET_ITEM(fast, i), cells, line_cells, k,
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
            self->through_mask[c] |= (lineset)1 << i;
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

    fast = PySequence_Fast(symmetries, "symmetries must be a sequence");
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
        if (read_cell_list(PySequence_Fast_GET_ITEM(fast, s), cells, self->perm[s], cells,
                           "a symmetry") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        if (!is_permutation(self->perm[s], cells)) {
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
    if (read_cell_list(order, cells, self->order, cells, "order") < 0) {
        return -1;
    }
    if (!is_permutation(self->order, cells)) {
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
    .tp_basicsize = sizeof(Shape),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Shape_init,
    .tp_doc = "A board shape: lines, symmetries and cell order, fixed at construction.",
};

/* ------------------------------------------------------------------------ */
/* Table: the shared, fixed-size table of proven bounds                      */

typedef struct {
    uint64_t key0; /* canonical X bitboard | (tag << 1 | side | 1 << 9) << 52; 0 when empty */
    uint64_t key1; /* canonical O bitboard */
    int8_t lower, upper;
    uint8_t move; /* best move in the canonical frame */
    uint8_t work; /* bit length of the nodes that proved it */
    uint8_t tried; /* TRIED_* knowledge that found nothing here: not worth a retry */
} __attribute__((packed)) Entry;

_Static_assert(sizeof(Entry) * BUCKET_SLOTS <= BUCKET_BYTES, "a bucket fits its entries");

/* A bucket is one cache line, so a probe costs one miss, not two. */
static inline Entry *
bucket_at(Entry *entries, uint64_t b)
{
    return (Entry *)((char *)entries + b * BUCKET_BYTES);
}

enum { TRIED_MINE = 1, TRIED_THEIRS = 2, TRIED_VCF = 4 };

typedef struct {
    PyObject_HEAD
    Entry *entries;
    void *mapping; /* the anonymous mapping that holds entries */
    size_t mapping_bytes;
    uint64_t buckets;
    atomic_uchar locks[LOCK_STRIPES];
    atomic_ullong hits, misses, stored, evictions, filled;
    atomic_int huge_asked; /* see ask_for_huge_pages() */
} Table;

/* The bytes of the entries (the mapping also holds the slack that aligns them). */
static inline size_t
table_bytes(const Table *t)
{
    return (size_t)(t->buckets * BUCKET_BYTES);
}

static int
Table_init(Table *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size_bytes", NULL};
    unsigned long long size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "K", kwlist, &size)) {
        return -1;
    }
    uint64_t want = size / BUCKET_BYTES;
    if (want < 1) {
        PyErr_SetString(PyExc_ValueError, "the table needs room for at least one bucket");
        return -1;
    }
    uint64_t buckets = want; /* any count: bucket_of() scales the hash, it does not mask it */
    if (self->mapping != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Table is initialised once");
        return -1;
    }
    /* Zero pages from the kernel, touched only as the table fills: a new
     * table costs nothing until it is used. The entries start on a 2 MiB
     * boundary (the slack before it is never touched), so that the table can
     * later sit on huge pages: see ask_for_huge_pages(). */
    size_t bytes = (size_t)(buckets * BUCKET_BYTES);
    char *mapping = mmap(NULL, bytes + HUGE_PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        PyErr_NoMemory();
        return -1;
    }
    char *start =
        (char *)(((uintptr_t)mapping + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1));
    self->mapping = mapping;
    self->mapping_bytes = bytes + HUGE_PAGE_BYTES;
    self->entries = (Entry *)start;
    atomic_init(&self->huge_asked, bytes < HUGE_PAGE_BYTES); /* too small to gain */
    self->buckets = buckets;
    for (int i = 0; i < LOCK_STRIPES; i++) {
        atomic_init(&self->locks[i], 0);
    }
    atomic_init(&self->hits, 0);
    atomic_init(&self->misses, 0);
    atomic_init(&self->stored, 0);
    atomic_init(&self->evictions, 0);
    atomic_init(&self->filled, 0);
    return 0;
}

static void
Table_dealloc(Table *self)
{
    if (self->mapping != NULL) {
        munmap(self->mapping, self->mapping_bytes);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Table_stats(Table *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(KKKKKK)", (unsigned long long)atomic_load(&self->hits),
                         (unsigned long long)atomic_load(&self->misses),
                         (unsigned long long)atomic_load(&self->filled),
                         (unsigned long long)atomic_load(&self->evictions),
                         (unsigned long long)(self->buckets * BUCKET_SLOTS),
                         (unsigned long long)table_bytes(self));
}

static PyObject *
Table_clear(Table *self, PyObject *Py_UNUSED(ignored))
{
    /* Only while no search runs: the caller (Engine) holds that guarantee. */
    memset(self->entries, 0, table_bytes(self));
    atomic_store(&self->filled, 0);
    Py_RETURN_NONE;
}

static PyMethodDef Table_methods[] = {
    {"stats", (PyCFunction)Table_stats, METH_NOARGS,
     "(hits, misses, entries, evictions, capacity_entries, size_bytes)"},
    {"clear", (PyCFunction)Table_clear, METH_NOARGS, "Forget every entry."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Table_init,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_doc = "The shared table of proven bounds, of a fixed size in bytes.",
};

static inline uint64_t
mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void
lock_stripe(Table *t, uint64_t bucket)
{
    atomic_uchar *lock = &t->locks[bucket & (LOCK_STRIPES - 1)];
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
        }
    }
}

static inline void
unlock_stripe(Table *t, uint64_t bucket)
{
    atomic_store_explicit(&t->locks[bucket & (LOCK_STRIPES - 1)], 0, memory_order_release);
}

/* ------------------------------------------------------------------------ */
/* Control: how another thread stops a search                                */

typedef struct {
    PyObject_HEAD
    atomic_int cancelled;
    atomic_llong deadline_ns; /* CLOCK_MONOTONIC nanoseconds; 0: none */
} Control;

static int64_t
seconds_to_ns(double seconds)
{
    if (!(seconds > 0)) {
        return 1; /* already past: any positive time before now */
    }
    if (seconds > 9.0e9) {
        return INT64_MAX;
    }
    return (int64_t)(seconds * 1e9);
}

static int
Control_init(Control *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"deadline", NULL};
    PyObject *deadline = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &deadline)) {
        return -1;
    }
    atomic_init(&self->cancelled, 0);
    int64_t ns = 0;
    if (deadline != Py_None) {
        double seconds = PyFloat_AsDouble(deadline);
        if (seconds == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        ns = seconds_to_ns(seconds);
    }
    atomic_init(&self->deadline_ns, ns);
    return 0;
}

static PyObject *
Control_cancel(Control *self, PyObject *Py_UNUSED(ignored))
{
    atomic_store(&self->cancelled, 1);
    Py_RETURN_NONE;
}

static PyObject *
Control_shorten(Control *self, PyObject *arg)
{
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    int64_t ns = seconds_to_ns(seconds);
    int64_t current = atomic_load(&self->deadline_ns);
    while ((current == 0 || ns < current) &&
           !atomic_compare_exchange_weak(&self->deadline_ns, &current, ns)) {
    }
    Py_RETURN_NONE;
}

static PyObject *
Control_get_deadline(Control *self, void *Py_UNUSED(closure))
{
    int64_t ns = atomic_load(&self->deadline_ns);
    if (ns == 0) {
        Py_RETURN_NONE;
    }
    return PyFloat_FromDouble((double)ns / 1e9);
}

static PyObject *
Control_get_cancelled(Control *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(atomic_load(&self->cancelled));
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
    .tp_basicsize = sizeof(Control),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Control_init,
    .tp_methods = Control_methods,
    .tp_getset = Control_getset,
    .tp_doc = "A search's deadline and cancel flag, safe to change from any thread.",
};

static inline int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* The search                                                                */

typedef struct {
    uint64_t me, opp;       /* the side to move's marks, the other side's */
    uint64_t my_thr;        /* empty cells that complete a line for the side to move */
    uint64_t opp_thr;       /* ... for the other side */
    lineset my_open;        /* lines holding none of opp: the side to move may still fill them */
    lineset opp_open;       /* lines holding none of me */
    uint64_t xs[MAX_SYMS];  /* X's marks seen through each symmetry */
    uint64_t os[MAX_SYMS];  /* O's marks seen through each symmetry */
    int color;              /* 0: X to move, 1: O to move */
    int marks;
    int summed;             /* whether the sums below are kept (play_summed()) */
    int64_t my_sum;         /* over my_open, 4 ** (the side to move's marks on the line) */
    int64_t opp_sum;        /* over opp_open, 4 ** (the other side's marks on it) */
} Node;

typedef struct {
    uint64_t key0, key1;
    int depth;
    uint8_t move;
    double lower, upper;
} Estimate;

typedef struct {
    const Shape *sh;
    Table *tt;
    Control *ctl;
    uint64_t nodes, limit;
    int stop;
    int unlimited; /* depth 1 of the estimates always completes */
    uint64_t hits, misses;
    Estimate *est;
    struct ZoneEntry *zones; /* nowin()'s proofs with their zones, allocated on first use */
} Search;

static inline int
count_node(Search *S)
{
    if (S->unlimited) {
        S->nodes++;
        return 0;
    }
    if (S->nodes >= S->limit) {
        S->stop = STOP_BUDGET;
        return 1;
    }
    S->nodes++;
    if ((S->nodes & CHECK_MASK) == 0 && S->ctl != NULL) {
        if (atomic_load_explicit(&S->ctl->cancelled, memory_order_relaxed)) {
            S->stop = STOP_CANCELLED;
            return 1;
        }
        int64_t deadline = atomic_load_explicit(&S->ctl->deadline_ns, memory_order_relaxed);
        if (deadline != 0 && now_ns() >= deadline) {
            S->stop = STOP_DEADLINE;
            return 1;
        }
    }
    return 0;
}

static inline uint64_t
new_threats(const Shape *sh, uint64_t mine, lineset my_open, int cell)
{
    uint64_t found = 0;
    int need = sh->k - 1;
    lineset open_here = my_open & sh->through_mask[cell];
    for (int half = 0; half < 2; half++) {
        const uint64_t *lines = &sh->line[64 * half];
        for (uint64_t bits = (uint64_t)(open_here >> (64 * half)); bits; bits &= bits - 1) {
            uint64_t m = lines[__builtin_ctzll(bits)];
            if (__builtin_popcountll(mine & m) == need) {
                found |= m & ~mine;
            }
        }
    }
    return found;
}

HOT static void
play(const Shape *sh, const Node *n, int cell, Node *child)
{
    uint64_t bit = (uint64_t)1 << cell;
    uint64_t mine = n->me | bit;
    child->me = n->opp;
    child->opp = mine;
    child->my_thr = n->opp_thr & ~bit;
    child->opp_thr = (n->my_thr & ~bit) | new_threats(sh, mine, n->my_open, cell);
    child->my_open = n->opp_open & ~sh->through_mask[cell];
    child->opp_open = n->my_open;
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

/* The symmetry frame whose image of the position is smallest, and that image. */
static inline int
canonical(const Shape *sh, const Node *n, uint64_t *key0, uint64_t *key1)
{
    int best = 0;
    uint64_t bx = n->xs[0], bo = n->os[0];
    for (int s = 1; s < sh->nsyms; s++) {
        if (n->xs[s] < bx || (n->xs[s] == bx && n->os[s] < bo)) {
            best = s;
            bx = n->xs[s];
            bo = n->os[s];
        }
    }
    uint64_t meta = (uint64_t)((sh->tag << 1 | n->color) | 1 << 9);
    *key0 = bx | meta << 52;
    *key1 = bo;
    return best;
}

/* The bucket of a position: the hash scaled to [0, buckets) by a multiply and a
 * shift (Lemire's reduction), so the table can have exactly the size asked for. */
static inline uint64_t
bucket_of(const Table *t, uint64_t key0, uint64_t key1)
{
    uint64_t hash = mix64(key0 ^ mix64(key1));
    return (uint64_t)(((unsigned __int128)hash * t->buckets) >> 64);
}

/* A probe is a cache miss (the table is far larger than the caches): fetching
 * the bucket's line early lets the search work while it arrives. */
static inline void
tt_prefetch(const Table *t, uint64_t key0, uint64_t key1)
{
    __builtin_prefetch(bucket_at(t->entries, bucket_of(t, key0, key1)), 1, 3);
}

HOT static int
tt_probe(Search *S, uint64_t key0, uint64_t key1, int *lower, int *upper, int *move, int *tried)
{
    Table *t = S->tt;
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int found = 0;
    lock_stripe(t, b);
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == key0 && slots[i].key1 == key1) {
            *lower = slots[i].lower;
            *upper = slots[i].upper;
            *move = slots[i].move;
            if (tried != NULL) {
                *tried = slots[i].tried;
            }
            found = 1;
            break;
        }
    }
    unlock_stripe(t, b);
    if (found) {
        S->hits++;
    }
    else {
        S->misses++;
    }
    return found;
}

/* Once a table holds HUGE_AFTER_ENTRIES entries it is in real use, and it
 * moves to 2 MiB pages: every probe lands on a random page, and with 4 KiB
 * pages nearly every probe also missed the TLB (measured: +10% node rate in
 * bench/engine.py). MADV_HUGEPAGE makes the pages touched from then on huge;
 * MADV_COLLAPSE (Linux 6.1) turns the ones already touched into huge pages,
 * once, in about 5 ms. Not from the start: a small cold search would pay for
 * zeroing whole 2 MiB pages it barely touches (measured: the cold 3x3 answer
 * went from 0.4 ms to 7 ms). Where the kernel says no, nothing changes but the
 * speed. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
static void
ask_for_huge_pages(Table *t)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&t->huge_asked, &expected, 1)) {
#ifdef MADV_HUGEPAGE
        (void)madvise(t->entries, table_bytes(t), MADV_HUGEPAGE);
        (void)madvise(t->entries, table_bytes(t), MADV_COLLAPSE);
#endif
    }
}

HOT static void
tt_store(Search *S, uint64_t key0, uint64_t key1, int lower, int upper, int move, uint64_t nodes,
         int tried)
{
    Table *t = S->tt;
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int work = 64 - (nodes ? __builtin_clzll(nodes) : 64);
    int filled = 0, evicted = 0;
    lock_stripe(t, b);
    Entry *target = NULL;
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == key0 && slots[i].key1 == key1) {
            target = &slots[i];
            int merged_lower = target->lower > lower ? target->lower : lower;
            int merged_upper = target->upper < upper ? target->upper : upper;
            if (merged_lower <= merged_upper) {
                lower = merged_lower;
                upper = merged_upper;
            }
            if (target->work > work) {
                work = target->work;
            }
            tried |= target->tried;
            break;
        }
    }
    if (target == NULL) {
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            if (slots[i].key0 == 0) {
                target = &slots[i];
                filled = 1;
                break;
            }
        }
    }
    if (target == NULL) {
        target = &slots[0];
        for (int i = 1; i < BUCKET_SLOTS; i++) {
            if (slots[i].work < target->work) {
                target = &slots[i];
            }
        }
        evicted = 1;
    }
    target->key0 = key0;
    target->key1 = key1;
    target->lower = (int8_t)lower;
    target->upper = (int8_t)upper;
    target->move = (uint8_t)move;
    target->work = (uint8_t)work;
    target->tried = (uint8_t)tried;
    unlock_stripe(t, b);
    if (filled) {
        uint64_t now_filled = atomic_fetch_add_explicit(&t->filled, 1, memory_order_relaxed) + 1;
        if (now_filled >= HUGE_AFTER_ENTRIES &&
            !atomic_load_explicit(&t->huge_asked, memory_order_relaxed)) {
            ask_for_huge_pages(t);
        }
    }
    if (evicted) {
        atomic_fetch_add_explicit(&t->evictions, 1, memory_order_relaxed);
    }
}

static Estimate *
est_slot(Search *S, uint64_t key0, uint64_t key1, int depth)
{
    uint64_t h = mix64(key0 ^ mix64(key1 ^ (uint64_t)depth)) & ((1u << EST_BITS) - 1);
    return &S->est[h];
}

/* What play_ahead() fetches for the child: nothing, its table bucket, or
 * (any depth >= 1) its bucket and its estimate slot at that depth. */
enum { FETCH_NOTHING = -1, FETCH_BUCKET = 0 };

/* Play ``cell`` (nothing when it is -1) into ``child`` and start fetching
 * what ``fetch`` says. The move loops of solve() and estimate() play one move
 * ahead this way: the next child's lines arrive while this child is searched
 * (see bench/core_ab.py for what it gains). A cut-off wastes the one move
 * played ahead; the first child, searched at once, is fetched nothing. */
static inline void
play_ahead(Search *S, const Node *n, int cell, Node *child, int fetch)
{
    if (cell < 0) {
        return;
    }
    play(S->sh, n, cell, child);
    if (fetch != FETCH_NOTHING) {
        uint64_t key0, key1;
        canonical(S->sh, child, &key0, &key1);
        tt_prefetch(S->tt, key0, key1);
        if (fetch >= 1) {
            __builtin_prefetch(est_slot(S, key0, key1, fetch), 1, 3);
        }
    }
}

/* Bounds that hold when the side to move has no immediate win and faces at most
 * one threat: its earliest win is its next-but-one move, the opponent's the
 * move after that, and a side with no open line can never win. */
static inline void
static_bounds(const Shape *sh, const Node *n, int *low, int *high)
{
    int empties = sh->cells - n->marks;
    *high = (empties >= 3 && n->my_open != 0) ? empties - 2 : 0;
    *low = (empties >= 4 && n->opp_open != 0) ? -(empties - 3) : 0;
}

/* The moves of a node, handed out best first: ``first`` (the table's move)
 * ahead of all, then by the weight of the lines through each cell (an open line
 * counts 1 + 2 * marks for each side that can still fill it), ties in the
 * shape's static order (centre first). Picking the best remaining move on
 * demand, rather than sorting, costs one pass per move tried, and a node that
 * is cut off after its first move or two pays for little more. */
#define MOVE_SLOTS 64
#define SLOT_BITS 6 /* a slot's place, in the low bits of its key */
#define LAST_SLOT (MOVE_SLOTS - 1)
#define FIRST_WEIGHT (1 << 24) /* above any sum of line weights */
typedef struct {
    int count, next; /* the moves in all, those handed out */
    uint8_t cell[MOVE_SLOTS];
    /* Slot i holds the cell of place i in the static order: its key is
     * weight << SLOT_BITS | (LAST_SLOT - i), so that the largest key is the
     * heaviest move and, among equals, the first in the static order;
     * INT32_MIN for a cell that is not a move or was handed out. A fixed
     * number of slots makes the pick a vectorised maximum. */
    int32_t key[MOVE_SLOTS];
} Moves;

_Static_assert(MAX_CELLS <= MOVE_SLOTS && MOVE_SLOTS == 1 << SLOT_BITS, "a place fits its bits");
_Static_assert(FIRST_WEIGHT <= INT32_MAX >> SLOT_BITS, "the table's move keeps its key an int32");

static inline void
no_moves(Moves *out)
{
    for (int i = 0; i < MOVE_SLOTS; i++) {
        out->key[i] = INT32_MIN;
    }
}

HOT static void
gen_moves(const Shape *sh, const Node *n, int first, Moves *out)
{
    uint64_t empty = sh->full & ~(n->me | n->opp);
    int weight[MAX_LINES];
    memset(weight, 0, sizeof(int) * (size_t)sh->nlines); /* a line closed to both: 0 */
    for (int half = 0; half < 2; half++) {
        uint64_t mine = (uint64_t)(n->my_open >> (64 * half));
        uint64_t theirs = (uint64_t)(n->opp_open >> (64 * half));
        for (uint64_t bits = mine; bits; bits &= bits - 1) {
            int l = 64 * half + __builtin_ctzll(bits);
            weight[l] += 1 + 2 * __builtin_popcountll(n->me & sh->line[l]);
        }
        for (uint64_t bits = theirs; bits; bits &= bits - 1) {
            int l = 64 * half + __builtin_ctzll(bits);
            weight[l] += 1 + 2 * __builtin_popcountll(n->opp & sh->line[l]);
        }
    }
    /* Each cell in the slot of its place in the static order. */
    no_moves(out);
    for (uint64_t cells = empty; cells; cells &= cells - 1) {
        int c = __builtin_ctzll(cells);
        int score = c == first ? FIRST_WEIGHT : 0;
        if (c != first) {
            for (int j = 0; j < sh->nthrough[c]; j++) {
                score += weight[sh->through[c][j]];
            }
        }
        int slot = sh->rank[c];
        out->cell[slot] = (uint8_t)c;
        out->key[slot] = score << SLOT_BITS | (LAST_SLOT - slot);
    }
    out->count = __builtin_popcountll(empty);
    out->next = 0;
}

static void
forced_move(uint64_t cells, Moves *out)
{
    no_moves(out);
    out->cell[0] = (uint8_t)__builtin_ctzll(cells);
    out->key[0] = LAST_SLOT; /* weight 0, place 0 */
    out->count = 1;
    out->next = 0;
}

/* The best move not yet handed out, or -1 when none is left. */
static inline int
next_move(Moves *m)
{
    if (m->next >= m->count) {
        return -1;
    }
    int32_t best = INT32_MIN;
    for (int i = 0; i < MOVE_SLOTS; i++) {
        best = m->key[i] > best ? m->key[i] : best;
    }
    int index = LAST_SLOT - (best & LAST_SLOT);
    m->key[index] = INT32_MIN;
    m->next++;
    return m->cell[index];
}

/* ------------------------------------------------------------------------ */
/* Knowledge: draw certificates and threat sequences                         */

/* A pairing strategy (Hales-Jewett) for the defender against ``attacker``:
 * disjoint pairs of empty cells such that every line the attacker can still
 * fill holds one of the pairs. Whenever the attacker takes a cell of a pair,
 * the defender takes the other, so every such line ends up holding a defender
 * mark: the attacker never completes one, whoever is to move. The search for
 * pairs is a small backtracking search (the line with the fewest free cells
 * first), bounded in steps; finding none proves nothing. */
/* Steps of the search for pairs: at nodes with PAIRING_WIDE_EMPTIES or more
 * empty cells, and below. Longer searches prove some boards sooner but cost
 * node rate everywhere; these keep bench/engine.py's node rate above 3 M/s. */
#ifndef PAIRING_STEPS
#define PAIRING_STEPS 32
#endif
#ifndef PAIRING_STEPS_NARROW
#define PAIRING_STEPS_NARROW 12
#endif
#ifndef PAIRING_WIDE_EMPTIES
#define PAIRING_WIDE_EMPTIES 24
#endif
/* nowin() stands on its pairings, and a longer search for one there pays:
 * measured on 21 hard 7x7 k=5 positions, 200 steps took half the nodes of 32. */
#ifndef PAIRING_PROOF_STEPS
#define PAIRING_PROOF_STEPS 200
#endif
#ifndef PAIRING_PROOF_STEPS_NARROW
#define PAIRING_PROOF_STEPS_NARROW 50
#endif
#define PAIRING_MAX 32

typedef struct {
    const Shape *sh;
    int steps, step_limit;
    int count;
    uint8_t a[PAIRING_MAX], b[PAIRING_MAX];
} Pairing;

/* Free cells per line, bit-sliced: bit i of free1, free2 and free4 are the
 * 1s, 2s and 4s of line i's count of free cells (at most 7). Taking a cell
 * counts down every line through it in a few word operations, and the line
 * with the fewest free cells is found by masks, with no loop over lines. */
typedef struct {
    lineset free1, free2, free4;
} FreeCounts;

static inline void
take_cell(FreeCounts *f, lineset through)
{
    lineset borrow1 = through & ~f->free1;
    lineset borrow2 = borrow1 & ~f->free2;
    f->free1 ^= through;
    f->free2 ^= borrow1;
    f->free4 ^= borrow2;
}

/* The lines whose count of free cells is ``count``. */
static inline lineset
lines_with(const FreeCounts *f, int count)
{
    return (count & 1 ? f->free1 : ~f->free1) & (count & 2 ? f->free2 : ~f->free2) &
           (count & 4 ? f->free4 : ~f->free4);
}

static inline int
lowest_line(lineset set)
{
    uint64_t low = (uint64_t)set;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(set >> 64));
}

/* Add the pair (a, b) to the pairing: returns the free cells without them and
 * counts one free cell fewer on each line through each. */
static inline uint64_t
take_pair(Pairing *P, int a, int b, uint64_t free_cells, FreeCounts *counts)
{
    P->a[P->count] = (uint8_t)a;
    P->b[P->count] = (uint8_t)b;
    P->count++;
    take_cell(counts, P->sh->through_mask[a]);
    take_cell(counts, P->sh->through_mask[b]);
    return free_cells & ~((uint64_t)1 << a) & ~((uint64_t)1 << b);
}

HOT static int
pair_cover(Pairing *P, lineset todo, uint64_t free_cells, const FreeCounts *counts_in)
{
    const Shape *sh = P->sh;
    FreeCounts counts = *counts_in;
    int base = P->count;
    /* A line with two free cells left has one pair: taken here, in a loop
     * (the same steps as a branch with one choice), before anything branches. */
    for (;;) {
        if (todo == 0) {
            return 1;
        }
        if (++P->steps > P->step_limit || P->count >= PAIRING_MAX) {
            P->count = base;
            return 0;
        }
        /* A line with 0 or 1 free cells (no 4s, no 2s) cannot hold a pair any more. */
        if (todo & ~counts.free4 & ~counts.free2) {
            P->count = base;
            return 0;
        }
        lineset two = todo & lines_with(&counts, 2);
        if (!two) {
            break;
        }
        uint64_t cells = sh->line[lowest_line(two)] & free_cells;
        int a = __builtin_ctzll(cells), b = __builtin_ctzll(cells & (cells - 1));
        todo &= ~(sh->through_mask[a] & sh->through_mask[b]);
        free_cells = take_pair(P, a, b, free_cells, &counts);
    }
    /* The lowest-numbered line among those with the fewest free cells (3 or more). */
    lineset fewest = 0;
    for (int count = 3; count <= 7 && !fewest; count++) {
        fewest = todo & lines_with(&counts, count);
    }
    int best = lowest_line(fewest);
    uint64_t cells = sh->line[best] & free_cells;
    /* The pairs of the line's free cells, those covering the most lines first:
     * fewer pairs, found sooner, and a smaller zone for nowin(). */
    uint8_t pa[21], pb[21];
    lineset pc[21];
    int pk[21], np = 0;
    for (uint64_t first = cells; first; first &= first - 1) {
        int a = __builtin_ctzll(first);
        for (uint64_t second = first & (first - 1); second; second &= second - 1) {
            int b = __builtin_ctzll(second);
            lineset covered = sh->through_mask[a] & sh->through_mask[b] & todo;
            int key = __builtin_popcountll((uint64_t)covered) +
                      __builtin_popcountll((uint64_t)(covered >> 64));
            int j = np++;
            while (j > 0 && pk[j - 1] < key) {
                pa[j] = pa[j - 1];
                pb[j] = pb[j - 1];
                pc[j] = pc[j - 1];
                pk[j] = pk[j - 1];
                j--;
            }
            pa[j] = (uint8_t)a;
            pb[j] = (uint8_t)b;
            pc[j] = covered;
            pk[j] = key;
        }
    }
    for (int i = 0; i < np; i++) {
        FreeCounts after = counts;
        uint64_t rest = take_pair(P, pa[i], pb[i], free_cells, &after);
        if (pair_cover(P, todo & ~pc[i], rest, &after)) {
            return 1;
        }
        P->count--;
        if (P->steps > P->step_limit) {
            break;
        }
    }
    P->count = base;
    return 0;
}

/* The free cells of each of ``open``, lines that hold none of the other
 * side's marks: k minus the owner's marks on it, bit-sliced (see FreeCounts).
 * The marks are counted up cell by cell, a few word operations each, and
 * subtracted from k bit by bit. */
static inline FreeCounts
free_counts(const Shape *sh, lineset open, uint64_t marks)
{
    lineset c1 = 0, c2 = 0, c4 = 0;
    for (; marks; marks &= marks - 1) {
        lineset through = sh->through_mask[__builtin_ctzll(marks)];
        lineset carry1 = c1 & through;
        lineset carry2 = c2 & carry1;
        c1 ^= through;
        c2 ^= carry1;
        c4 ^= carry2;
    }
    lineset k1 = sh->k & 1 ? ~(lineset)0 : 0, k2 = sh->k & 2 ? ~(lineset)0 : 0,
            k4 = sh->k & 4 ? ~(lineset)0 : 0;
    lineset borrow1 = ~k1 & c1;
    lineset borrow2 = (~k2 & (c2 | borrow1)) | (c2 & borrow1);
    FreeCounts counts = {(k1 ^ c1) & open, (k2 ^ c2 ^ borrow1) & open, (k4 ^ c4 ^ borrow2) & open};
    return counts;
}

/* Whether a pairing shows that the owner of ``marks`` and ``open`` (the lines
 * it can still fill) cannot win. */
HOT static int
cannot_win(const Shape *sh, lineset open, uint64_t marks, uint64_t empty, int thorough, Pairing *P)
{
    uint64_t groups = 0; /* the rows, columns and diagonals that hold an open line */
    for (int half = 0; half < 2; half++) {
        for (uint64_t bits = (uint64_t)(open >> (64 * half)); bits; bits &= bits - 1) {
            groups |= (uint64_t)1 << sh->group[64 * half + __builtin_ctzll(bits)];
        }
    }
    /* Two cells lie in one row, column or diagonal at most, so each of those
     * holding an open line needs a pair of its own: more of them than half the
     * empty cells, and no pairing exists. */
    if (2 * __builtin_popcountll(groups) > __builtin_popcountll(empty)) {
        return 0;
    }
    P->sh = sh;
    P->steps = 0;
    /* A certificate near the root cuts a large subtree and is worth a longer
     * search for it than one near the leaves, where brute force is cheap. */
    int wide = __builtin_popcountll(empty) >= PAIRING_WIDE_EMPTIES;
    P->step_limit = thorough ? (wide ? PAIRING_PROOF_STEPS : PAIRING_PROOF_STEPS_NARROW)
                             : (wide ? PAIRING_STEPS : PAIRING_STEPS_NARROW);
    P->count = 0;
    FreeCounts counts = free_counts(sh, open, marks);
    return pair_cover(P, open, empty, &counts);
}

/* Cells whose mark would give the side to move a threat (a line it can still
 * fill, holding k - 2 of its marks, gets a k - 1-th). */
static uint64_t
threat_makers(const Shape *sh, const Node *n)
{
    uint64_t found = 0;
    uint64_t empty = sh->full & ~(n->me | n->opp);
    int need = sh->k - 2;
    for (int half = 0; half < 2; half++) {
        uint64_t bits = (uint64_t)(n->my_open >> (64 * half));
        while (bits) {
            int l = 64 * half + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (__builtin_popcountll(n->me & sh->line[l]) == need) {
                found |= sh->line[l] & empty;
            }
        }
    }
    return found;
}

/* Victory by continuous threats (VCF, in Go-Moku's terms; Allis's threat-space
 * search restricted to threats that must be answered at once): every move of
 * the side to move makes a threat, so every reply is forced, until it has two
 * threats at once. Returns the internal value of the win found (a lower bound
 * on the node's value: a faster win may exist) or 0. Sound: the defender
 * either blocks or loses at once, and a line is abandoned as soon as the
 * defender gets a threat of its own that the next forcing move does not block. */
#define VCF_DEPTH 12
/* Below this many empty cells brute force is cheaper than the knowledge. */
#ifndef USE_PAIRING
#define USE_PAIRING 1
#endif
#ifndef USE_VCF
#define USE_VCF 1
#endif
#ifndef KNOWLEDGE_MIN_EMPTIES
#define KNOWLEDGE_MIN_EMPTIES 8
#endif

HOT static int
vcf(Search *S, const Node *n, int depth)
{
    const Shape *sh = S->sh;
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks;
    }
    if ((n->opp_thr & (n->opp_thr - 1)) || depth <= 0 || cells - n->marks < 3) {
        return 0;
    }
    uint64_t candidates = threat_makers(sh, n);
    if (n->opp_thr) {
        candidates &= n->opp_thr; /* the block must threaten too */
    }
    Node child, reply;
    for (; candidates; candidates &= candidates - 1) {
        if (count_node(S)) {
            return 0;
        }
        play(sh, n, __builtin_ctzll(candidates), &child);
        uint64_t threats = child.opp_thr; /* the attacker's, seen from the defender */
        if (!threats) {
            continue;
        }
        if (threats & (threats - 1)) {
            return cells - n->marks - 2; /* two threats: one is blocked, the other wins */
        }
        play(sh, &child, __builtin_ctzll(threats), &reply); /* the forced block */
        int value = vcf(S, &reply, depth - 1);
        if (value > 0 || S->stop) {
            return value;
        }
    }
    return 0;
}

HOT static int
solve(Search *S, const Node *n, int alpha, int beta)
{
    const Shape *sh = S->sh;
    if (count_node(S)) {
        return 0;
    }
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks; /* win with this move */
    }
    if (n->marks == cells) {
        return 0;
    }
    if (n->opp_thr & (n->opp_thr - 1)) {
        return -(cells - n->marks - 1); /* two threats: one can be blocked, not both */
    }
    int low, high;
    static_bounds(sh, n, &low, &high);
    if (low == high) {
        return low;
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    int first = -1, entry_low, entry_high, entry_move, tried = 0;
    if (tt_probe(S, key0, key1, &entry_low, &entry_high, &entry_move, &tried)) {
        if (entry_low > low) {
            low = entry_low;
        }
        if (entry_high < high) {
            high = entry_high;
        }
        first = sh->inverse[frame][entry_move];
        if (low >= high) {
            return low;
        }
    }
    if (low >= beta) {
        return low;
    }
    if (high <= alpha) {
        return high;
    }
    uint64_t before = S->nodes;
    if (cells - n->marks >= KNOWLEDGE_MIN_EMPTIES) {
        /* Knowledge before brute force: a side that a pairing stops cannot win,
         * and a forced win by continuous threats is a win. */
        uint64_t empty = sh->full & ~(n->me | n->opp);
        Pairing pairing;
        /* Each pairing check is made only where its answer settles the node:
         * "the mover cannot win" cuts a window that asks whether it beats a
         * draw (alpha >= 0) or makes a node that cannot lose exact (low >= 0);
         * "the opponent cannot win" likewise, mirrored. A search that found
         * nothing here before is not repeated (``tried``). */
        if (USE_PAIRING && high > 0 && (alpha >= 0 || low >= 0) && !(tried & TRIED_MINE)) {
            if (cannot_win(sh, n->my_open, n->me, empty, 0, &pairing)) {
                high = 0;
            }
            else {
                tried |= TRIED_MINE;
            }
        }
        /* (An opponent with a threat has a line with one free cell: no pairing.) */
        if (USE_PAIRING && low < 0 && (beta <= 0 || high <= 0) && !n->opp_thr &&
            !(tried & TRIED_THEIRS)) {
            if (cannot_win(sh, n->opp_open, n->opp, empty, 0, &pairing)) {
                low = 0;
            }
            else {
                tried |= TRIED_THEIRS;
            }
        }
        if (USE_VCF && high > 0 && beta > 0 && low < beta && !(tried & TRIED_VCF)) {
            int win = vcf(S, n, VCF_DEPTH);
            if (S->stop) {
                return 0;
            }
            if (win > 0 && win > low) { /* 0: no forced win found, which proves nothing */
                low = win;
            }
            else if (win == 0) {
                tried |= TRIED_VCF;
            }
        }
        if (low >= high || low >= beta || high <= alpha) {
            tt_store(S, key0, key1, low, high < low ? low : high,
                     first < 0 ? 0 : sh->perm[frame][first], S->nodes - before, tried);
            return low >= high ? low : (low >= beta ? low : high);
        }
    }
    int window_low = alpha > low ? alpha : low;
    int window_high = beta < high ? beta : high;
    Moves moves;
    if (n->opp_thr) {
        forced_move(n->opp_thr, &moves); /* forced: anything else loses at once */
    }
    else {
        gen_moves(sh, n, first, &moves);
    }
    int a = window_low, best = -cells - 1, best_move = -1;
    Node kids[2];
    int cell = next_move(&moves), now = 0;
    play_ahead(S, n, cell, &kids[0], FETCH_NOTHING); /* searched at once */
    while (cell >= 0) {
        int next = next_move(&moves);
        play_ahead(S, n, next, &kids[now ^ 1], FETCH_BUCKET);
        int value = -solve(S, &kids[now], -window_high, -a);
        if (S->stop) {
            return 0;
        }
        if (value > best) {
            best = value;
            best_move = cell;
            if (value > a) {
                a = value;
                if (a >= window_high) {
                    break;
                }
            }
        }
        cell = next;
        now ^= 1;
    }
    if (best <= window_low) {
        high = high < best ? high : best;
    }
    else if (best >= window_high) {
        low = low > best ? low : best;
    }
    else {
        low = high = best;
    }
    tt_store(S, key0, key1, low, high, sh->perm[frame][best_move], S->nodes - before, tried);
    if (low == high) {
        return low;
    }
    return best <= window_low ? high : low;
}

/* ------------------------------------------------------------------------ */
/* Can the attacker win? A boolean proof search with relevance zones          */

/* ``nowin`` answers whether one side, the attacker, can force a win at any
 * distance, as a proof: NW_NOWIN (it cannot), NW_WIN (it can), or NW_UNKNOWN
 * (the depth or the budget ran out). It is the outcome half of the search,
 * without distances, and it proves draws on boards where solve() drowns in
 * the attacker's moves (7x7 with k=5).
 *
 * The cut that makes it fast is the relevance zone (Hsu et al., TCS 815,
 * 2020). A proof that the attacker cannot win comes with a zone: a set of
 * empty cells such that the proof holds for the position with any extra
 * attacker marks outside it. A pairing's zone is its pairs' cells; a
 * defender's move adds its cell to the zone of the proof below it; an attacker
 * node's zone is the union of its moves' zones. Then an attacker move m'
 * outside the zone Z of a refuted move m is refuted too: the position after
 * m' has fewer attacker marks than the position after m plus an extra mark on
 * m', which the zone covers, and fewer marks never help (strategy stealing's
 * monotonicity). So an attacker node searches only the moves inside the
 * intersection of the zones found so far.
 *
 * Where a proof leans on something extra attacker marks could change (a
 * forced block, a defender's immediate win), its zone is every empty cell. */
enum { NW_UNKNOWN = -1, NW_WIN = 0, NW_NOWIN = 1 };
#ifndef DRAW_TRIES
#define DRAW_TRIES 3
#endif
#ifndef ROUND_FIRST
#define ROUND_FIRST 4000
#endif
/* Below this many empty cells solve() alone settles a root move in a few
 * hundred nodes, and nowin()'s tables would cost more than they save (the
 * start-up solve of 3x3 took 0.20 s with them, 0.11 s without). */
#ifndef NOWIN_MIN_EMPTIES
#define NOWIN_MIN_EMPTIES 10
#endif

typedef struct ZoneEntry {
    uint64_t key0, key1;
    uint64_t zone;  /* NW_NOWIN: the zone, in the canonical frame */
    int8_t result;  /* NW_*; 0 in an empty slot is NW_WIN, but its key0 is 0 */
    uint8_t depth;  /* NW_UNKNOWN: the depth searched */
} ZoneEntry;

/* Per search: 16,384 entries of 32 bytes, 512 KiB. Measured against 2 MiB:
 * 1.4% more nodes on hard 7x7 k=5 proofs, 9% more nodes/s on the bench's rate
 * positions (a fresh table per search costs its pages). */
#ifndef ZONE_BITS
#define ZONE_BITS 14
#endif

static uint64_t
map_cells(const uint8_t *perm, uint64_t cells)
{
    uint64_t out = 0;
    for (; cells; cells &= cells - 1) {
        out |= (uint64_t)1 << perm[__builtin_ctzll(cells)];
    }
    return out;
}

static uint64_t
pair_cells(const Pairing *P)
{
    uint64_t cells = 0;
    for (int i = 0; i < P->count; i++) {
        cells |= (uint64_t)1 << P->a[i] | (uint64_t)1 << P->b[i];
    }
    return cells;
}

HOT static int
nowin(Search *S, const Node *n, int attacker_moves, int depth, int parent_paired, uint64_t *zone)
{
    const Shape *sh = S->sh;
    if (count_node(S)) {
        return NW_UNKNOWN;
    }
    uint64_t empty = sh->full & ~(n->me | n->opp);
    /* The attacker's view: its open lines and threats, and the defender's. */
    lineset att_open = attacker_moves ? n->my_open : n->opp_open;
    uint64_t att_thr = attacker_moves ? n->my_thr : n->opp_thr;
    uint64_t def_thr = attacker_moves ? n->opp_thr : n->my_thr;
    *zone = 0;
    if (empty == 0 || att_open == 0) {
        return NW_NOWIN; /* no line left to the attacker: extra marks open none */
    }
    if (attacker_moves && att_thr) {
        return NW_WIN;
    }
    if (!attacker_moves && def_thr) {
        *zone = empty; /* the defender wins first */
        return NW_NOWIN;
    }
    if (attacker_moves && (def_thr & (def_thr - 1))) {
        *zone = empty; /* two defender threats: one of them is completed */
        return NW_NOWIN;
    }
    if (!attacker_moves && (att_thr & (att_thr - 1))) {
        return NW_WIN;
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    /* Fetched now, while the zone table and the search for a pairing run. */
    tt_prefetch(S->tt, key0, key1);
    uint64_t zkey1 = key1 | (uint64_t)attacker_moves << 63;
    ZoneEntry *slot = &S->zones[mix64(key0 ^ mix64(zkey1)) & ((1u << ZONE_BITS) - 1)];
    int seen = slot->key0 == key0 && slot->key1 == zkey1;
    if (seen) {
        if (slot->result == NW_NOWIN) {
            *zone = map_cells(sh->inverse[frame], slot->zone);
            return NW_NOWIN;
        }
        if (slot->result == NW_WIN) {
            return NW_WIN;
        }
        if (slot->depth >= depth) {
            return NW_UNKNOWN;
        }
    }
    /* The search for a pairing is most of nowin()'s time, and two cases
     * already know it fails: a position seen before at a shallower depth, and
     * a defender node whose parent failed (same open lines, one free cell
     * fewer). */
    Pairing pairing;
    int pair_here = !seen && !parent_paired;
    if (pair_here && cannot_win(sh, att_open, attacker_moves ? n->me : n->opp, empty, 1, &pairing)) {
        *zone = pair_cells(&pairing);
        return NW_NOWIN;
    }
    int first = -1, low, high, move;
    if (tt_probe(S, key0, key1, &low, &high, &move, NULL)) {
        first = sh->inverse[frame][move];
        if (attacker_moves ? high <= 0 : low >= 0) {
            *zone = empty;
            return NW_NOWIN;
        }
        if (attacker_moves ? low >= 1 : high <= -1) {
            return NW_WIN;
        }
    }
    if (depth <= 0) {
        return NW_UNKNOWN;
    }
    uint64_t before = S->nodes;
    int result;
    uint64_t found = 0;
    int best_move = first;
    if (attacker_moves && vcf(S, n, VCF_DEPTH) > 0) {
        result = NW_WIN;
    }
    else if (S->stop) {
        return NW_UNKNOWN;
    }
    else {
        Moves moves;
        uint64_t forced = attacker_moves ? def_thr : att_thr;
        if (forced) {
            forced_move(forced, &moves);
        }
        else {
            gen_moves(sh, n, first, &moves);
        }
        Node child;
        uint64_t inside = empty; /* attacker moves not yet refuted by a zone */
        result = attacker_moves ? NW_NOWIN : NW_WIN;
        for (int cell; (cell = next_move(&moves)) >= 0;) {
            uint64_t bit = (uint64_t)1 << cell;
            if (attacker_moves && !(inside & bit)) {
                continue;
            }
            if (best_move < 0) {
                best_move = cell; /* the table's move: the most promising one tried */
            }
            play(sh, n, cell, &child);
            uint64_t below;
            /* A forced move costs no depth: the answer to a threat is no choice. */
            int r = nowin(S, &child, !attacker_moves, depth - (forced ? 0 : 1),
                          attacker_moves && pair_here, &below);
            if (S->stop) {
                return NW_UNKNOWN;
            }
            if (attacker_moves) {
                if (r != NW_NOWIN) {
                    result = r;
                    best_move = cell;
                    break;
                }
                inside &= below;
                found |= below;
            }
            else {
                if (r == NW_NOWIN) {
                    result = NW_NOWIN;
                    found = below | bit;
                    best_move = cell;
                    break;
                }
                if (r == NW_UNKNOWN) {
                    result = NW_UNKNOWN;
                }
            }
        }
        if (result == NW_NOWIN && forced && attacker_moves) {
            /* Extra attacker marks could block the defender's threat and free
             * the attacker's hand. (A defender's forced block stays forced.) */
            found = empty;
        }
    }
    if (result != NW_UNKNOWN) {
        /* Proven: into the shared table too, as the bound it is for the mover. */
        int s_low, s_high;
        static_bounds(sh, n, &s_low, &s_high);
        int attacker_wins = result == NW_WIN;
        int lower = attacker_moves ? (attacker_wins ? 1 : s_low) : (attacker_wins ? s_low : 0);
        int upper = attacker_moves ? (attacker_wins ? s_high : 0) : (attacker_wins ? -1 : s_high);
        if (lower <= upper) {
            int move = best_move >= 0 ? sh->perm[frame][best_move] : 0;
            tt_store(S, key0, key1, lower, upper, move, S->nodes - before, 0);
        }
    }
    slot->key0 = key0;
    slot->key1 = zkey1;
    slot->result = (int8_t)result;
    slot->depth = (uint8_t)depth;
    slot->zone = result == NW_NOWIN ? map_cells(sh->perm[frame], found) : 0;
    *zone = found;
    return result;
}

/* A sub-search that may spend at most ``allowance`` more nodes: allow()
 * lowers the limit and returns the one to restore, unallow() restores it and
 * clears a budget stop that was the allowance's, not the search's. */
static uint64_t
allow(Search *S, uint64_t allowance)
{
    uint64_t limit = S->limit;
    if (S->nodes + allowance < limit) {
        S->limit = S->nodes + allowance;
    }
    return limit;
}

static void
unallow(Search *S, uint64_t limit)
{
    if (S->stop == STOP_BUDGET && S->nodes < limit) {
        S->stop = STOP_NONE;
    }
    S->limit = limit;
}

/* Iterative deepening of nowin() until it proves something or ``allowance``
 * nodes are spent: shallow proofs are found at their own depth, not under a
 * deep first line of play. */
static int
prove_nowin(Search *S, const Node *n, int attacker_moves, uint64_t allowance)
{
    if (S->zones == NULL) {
        S->zones = calloc((size_t)1 << ZONE_BITS, sizeof(ZoneEntry));
        if (S->zones == NULL) {
            return NW_UNKNOWN;
        }
    }
    uint64_t limit = allow(S, allowance);
    int result = NW_UNKNOWN;
    uint64_t zone;
    int empties = S->sh->cells - n->marks;
    for (int depth = 1; depth <= empties && result == NW_UNKNOWN && !S->stop; depth++) {
        result = nowin(S, n, attacker_moves, depth, 0, &zone);
    }
    unallow(S, limit);
    return result;
}

/* The position with the other side to move: as if the side to move passed. */
static void
pass_turn(const Node *n, Node *out)
{
    *out = *n;
    out->me = n->opp;
    out->opp = n->me;
    out->my_thr = n->opp_thr;
    out->opp_thr = n->my_thr;
    out->my_open = n->opp_open;
    out->opp_open = n->my_open;
    out->color = n->color ^ 1;
    out->summed = 0;
}

/* The documented estimate for positions the budget cannot solve: every line
 * still open to a side counts 4 ** (its marks on it) for that side, doubled
 * for the side to move (its next mark is coming); the difference is squashed
 * by 0.9 * d / (|d| + lines) into (-0.9, 0.9), strictly inside the range no
 * proven win or loss can take. line_sums() counts the two sums. */
static void
line_sums(const Shape *sh, const Node *n, int64_t *mine, int64_t *theirs)
{
    int64_t my_sum = 0, opp_sum = 0;
    for (int half = 0; half < 2; half++) {
        uint64_t open = (uint64_t)(n->my_open >> (64 * half));
        const uint64_t *lines = &sh->line[64 * half];
        for (; open; open &= open - 1) {
            my_sum += (int64_t)1 << (2 * __builtin_popcountll(n->me & lines[__builtin_ctzll(open)]));
        }
        for (open = (uint64_t)(n->opp_open >> (64 * half)); open; open &= open - 1) {
            opp_sum += (int64_t)1 << (2 * __builtin_popcountll(n->opp & lines[__builtin_ctzll(open)]));
        }
    }
    *mine = my_sum;
    *theirs = opp_sum;
}

HOT static double
heuristic(const Shape *sh, const Node *n)
{
    int64_t my_sum, opp_sum;
    if (n->summed) {
        my_sum = n->my_sum, opp_sum = n->opp_sum;
    }
    else {
        line_sums(sh, n, &my_sum, &opp_sum);
    }
    double d = (double)(2 * my_sum - opp_sum);
    return 0.9 * d / (fabs(d) + sh->nlines);
}

/* play(), and the child's line sums (see heuristic()) from the parent's: only
 * the lines through the cell change. For the horizon's parents, which try
 * many children and need nothing else of them but the heuristic: from the
 * second child on, a parent's sums are worth counting once (most parents are
 * cut off after one child, and counting them in every play() cost what it
 * saved). */
static void
play_summed(const Shape *sh, const Node *n, int64_t my_sum, int64_t opp_sum, int cell, Node *child)
{
    play(sh, n, cell, child);
    uint64_t mine = child->opp; /* the mover's marks, the new one included */
    lineset through = sh->through_mask[cell];
    for (int half = 0; half < 2; half++) {
        const uint64_t *lines = &sh->line[64 * half];
        uint64_t gaining = (uint64_t)((n->my_open & through) >> (64 * half));
        for (; gaining; gaining &= gaining - 1) {
            /* 4 ** marks - 4 ** (marks - 1) */
            my_sum += (int64_t)3 << (2 * (__builtin_popcountll(mine & lines[__builtin_ctzll(gaining)]) - 1));
        }
        uint64_t closing = (uint64_t)((n->opp_open & through) >> (64 * half));
        for (; closing; closing &= closing - 1) {
            opp_sum -= (int64_t)1 << (2 * __builtin_popcountll(n->opp & lines[__builtin_ctzll(closing)]));
        }
    }
    child->my_sum = opp_sum;
    child->opp_sum = my_sum;
    child->summed = 1;
}


/* Depth-limited negamax: proven values where the search reaches the end of the
 * game or the table knows them, the heuristic at the horizon. Same window
 * contract as solve(), on estimates. */
HOT static double
estimate(Search *S, const Node *n, int depth, double alpha, double beta)
{
    const Shape *sh = S->sh;
    if (count_node(S)) {
        return 0;
    }
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks;
    }
    if (n->marks == cells) {
        return 0;
    }
    if (n->opp_thr & (n->opp_thr - 1)) {
        return -(cells - n->marks - 1);
    }
    int low, high;
    static_bounds(sh, n, &low, &high);
    if (low == high) {
        return low;
    }
    if (depth <= 0) {
        /* The horizon: no table probe here (a probe is a cache miss, and most
         * nodes of an estimate are horizon nodes); the static bounds still hold. */
        double h = heuristic(sh, n);
        return h < low ? low : (h > high ? high : h);
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    int first = -1, entry_low, entry_high, entry_move;
    if (tt_probe(S, key0, key1, &entry_low, &entry_high, &entry_move, NULL)) {
        if (entry_low > low) {
            low = entry_low;
        }
        if (entry_high < high) {
            high = entry_high;
        }
        first = sh->inverse[frame][entry_move];
        if (low >= high) {
            return low;
        }
    }
    double lower = low, upper = high;
    Estimate *slot = est_slot(S, key0, key1, depth);
    if (slot->key0 == key0 && slot->key1 == key1 && slot->depth == depth) {
        lower = lower > slot->lower ? lower : slot->lower;
        upper = upper < slot->upper ? upper : slot->upper;
        first = sh->inverse[frame][slot->move];
        if (lower >= upper) {
            return lower;
        }
    }
    if (lower >= beta) {
        return lower;
    }
    if (upper <= alpha) {
        return upper;
    }
    double window_low = alpha > lower ? alpha : lower;
    double window_high = beta < upper ? beta : upper;
    Moves moves;
    if (n->opp_thr) {
        forced_move(n->opp_thr, &moves);
    }
    else {
        gen_moves(sh, n, first, &moves);
    }
    double a = window_low, best = -cells - 1;
    int best_move = -1;
    /* Above the horizon's parents, one move ahead (see play_ahead()). The
     * horizon's parents probe nothing for their children; from the second
     * child on they keep the children's line sums instead (see play_summed()). */
    int ahead = depth >= 2;
    int64_t my_sum = 0, opp_sum = 0;
    int summed = 0;
    Node kids[2];
    int cell = next_move(&moves), now = 0;
    play_ahead(S, n, cell, &kids[0], FETCH_NOTHING); /* searched at once */
    while (cell >= 0) {
        int next = -1;
        if (ahead) {
            next = next_move(&moves);
            play_ahead(S, n, next, &kids[now ^ 1], depth - 1);
        }
        double value = -estimate(S, &kids[now], depth - 1, -window_high, -a);
        if (S->stop) {
            return 0;
        }
        if (value > best) {
            best = value;
            best_move = cell;
            if (value > a) {
                a = value;
                if (a >= window_high) {
                    break;
                }
            }
        }
        if (!ahead && (next = next_move(&moves)) >= 0) {
            if (!summed) {
                line_sums(sh, n, &my_sum, &opp_sum);
                summed = 1;
            }
            play_summed(sh, n, my_sum, opp_sum, next, &kids[now ^ 1]);
        }
        cell = next;
        now ^= 1;
    }
    if (best <= window_low) {
        upper = upper < best ? upper : best;
    }
    else if (best >= window_high) {
        lower = lower > best ? lower : best;
    }
    else {
        lower = upper = best;
    }
    slot->key0 = key0;
    slot->key1 = key1;
    slot->depth = depth;
    slot->move = sh->perm[frame][best_move];
    slot->lower = lower;
    slot->upper = upper;
    if (lower == upper) {
        return lower;
    }
    return best <= window_low ? upper : lower;
}

/* ------------------------------------------------------------------------ */
/* The root: every legal move's value                                        */

typedef struct {
    int cell;
    int rep;       /* index of the move whose child is this child up to symmetry */
    int exact;     /* 1 when value is proven exactly */
    int no_win;    /* the mover is proven unable to win after this move */
    int proven;    /* +1 a proven win (value is a lower bound), -1 a proven loss
                      (value is an upper bound), 0 nothing proven beyond ``exact`` */
    double value;  /* internal (mark-counted) value for the mover */
    int line_length;
    uint8_t line[MAX_CELLS]; /* the move, then the expected continuation */
} RootMove;

static uint64_t
all_threats(const Shape *sh, uint64_t mine, uint64_t theirs)
{
    uint64_t found = 0;
    for (int l = 0; l < sh->nlines; l++) {
        uint64_t m = sh->line[l];
        if (!(theirs & m) && __builtin_popcountll(mine & m) == sh->k - 1) {
            found |= m & ~mine;
        }
    }
    return found;
}

static lineset
open_lines(const Shape *sh, uint64_t theirs)
{
    lineset set = 0;
    for (int l = 0; l < sh->nlines; l++) {
        if (!(theirs & sh->line[l])) {
            set |= (lineset)1 << l;
        }
    }
    return set;
}

static void
root_node(const Shape *sh, uint64_t x, uint64_t o, int x_to_move, Node *n)
{
    n->me = x_to_move ? x : o;
    n->opp = x_to_move ? o : x;
    n->my_thr = all_threats(sh, n->me, n->opp);
    n->opp_thr = all_threats(sh, n->opp, n->me);
    n->my_open = open_lines(sh, n->opp);
    n->opp_open = open_lines(sh, n->me);
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

typedef struct {
    int depth;
    int stop;
} RootResult;

/* The table's best move for a position, in the position's own frame, or -1. */
static int
tt_move(Search *S, const Node *n)
{
    uint64_t key0, key1;
    int frame = canonical(S->sh, n, &key0, &key1);
    int lower, upper, move;
    if (!tt_probe(S, key0, key1, &lower, &upper, &move, NULL)) {
        return -1;
    }
    int cell = S->sh->inverse[frame][move];
    return ((n->me | n->opp) >> cell) & 1 ? -1 : cell;
}

/* The line of play from a position whose exact value ``value`` (for its side to
 * move) is a proven win or loss: at each ply a move that keeps the value,
 * checked by a search in a window of width two around it, until the winning
 * move. So a win in n plies gives a line of exactly n moves. */
static int
proven_line(Search *S, const Node *start, int value, uint8_t *out, int room)
{
    const Shape *sh = S->sh;
    Node node = *start, child;
    int length = 0;
    while (length < room && node.marks < sh->cells) {
        if (node.my_thr && value == sh->cells - node.marks) {
            out[length++] = (uint8_t)__builtin_ctzll(node.my_thr);
            break;
        }
        Moves moves;
        if (node.opp_thr) {
            forced_move(node.opp_thr, &moves);
        }
        else {
            gen_moves(sh, &node, tt_move(S, &node), &moves);
        }
        int found = -1, cell;
        while ((cell = next_move(&moves)) >= 0) {
            play(sh, &node, cell, &child);
            int reply = solve(S, &child, -value - 1, -value + 1);
            if (S->stop) {
                return length;
            }
            if (reply == -value) {
                found = cell;
                break;
            }
        }
        if (found < 0) {
            break;
        }
        out[length++] = (uint8_t)found;
        node = child;
        value = -value;
    }
    return length;
}

/* The line as far as it is known, for draws and estimates: forced replies,
 * immediate wins and the table's best moves, until the table knows no more. */
static int
known_line(Search *S, const Node *start, uint8_t *out, int room)
{
    const Shape *sh = S->sh;
    Node node = *start, child;
    int length = 0;
    while (length < room && node.marks < sh->cells) {
        int cell;
        if (node.my_thr) {
            out[length++] = (uint8_t)__builtin_ctzll(node.my_thr);
            break;
        }
        if (node.opp_thr) {
            cell = __builtin_ctzll(node.opp_thr);
        }
        else if ((cell = tt_move(S, &node)) < 0) {
            break;
        }
        out[length++] = (uint8_t)cell;
        play(sh, &node, cell, &child);
        node = child;
    }
    return length;
}

/* Record why a phase stopped; returns 1 when later phases must not search. */
static int
phase_stopped(Search *S, int *deadline_hit, int *cancelled)
{
    if (S->stop == STOP_DEADLINE) {
        *deadline_hit = 1;
    }
    if (S->stop == STOP_CANCELLED) {
        *cancelled = 1;
    }
    S->stop = STOP_NONE;
    return *deadline_hit || *cancelled;
}

/* Settle one root move's outcome with at most ``allowance`` nodes: can the
 * mover win after it, can the opponent (nowin(), where ``use_nowin``)?
 * Neither is a draw; what they leave open goes to solve().
 * ``mover_cannot_win`` and ``opponent`` (nowin() for the opponent after a
 * pass) come from the root's own proofs. Returns whether the move's outcome
 * is now proven. */
static int
settle_move(Search *S, const Node *child, int use_nowin, int mover_cannot_win, int opponent,
            uint64_t allowance, RootMove *m)
{
    int mine = !use_nowin         ? NW_UNKNOWN
               : mover_cannot_win ? NW_NOWIN
                                  : prove_nowin(S, child, 0, allowance / 2);
    if (mine == NW_WIN) {
        m->value = 1;
        m->proven = 1;
        return 1;
    }
    m->no_win |= mine == NW_NOWIN;
    /* An opponent that wins even after a pass is strong: its wins are for
     * solve(), which finds them sooner than nowin(). */
    if (mine == NW_NOWIN && opponent != NW_WIN) {
        int theirs = opponent == NW_NOWIN ? NW_NOWIN : prove_nowin(S, child, 1, allowance / 2);
        if (theirs == NW_NOWIN) {
            m->value = 0;
            m->exact = 1; /* a draw is a draw: its score is 0 whatever the length */
            return 1;
        }
        if (theirs == NW_WIN) {
            m->value = -1;
            m->proven = -1;
            return 1;
        }
    }
    if (S->stop) {
        return 0;
    }
    /* What the proofs left open, by the full search in a window around a draw. */
    uint64_t limit = allow(S, allowance);
    int value = -solve(S, child, -1, 1);
    int stopped = S->stop;
    unallow(S, limit);
    if (stopped) {
        return 0;
    }
    m->value = value;
    if (value >= 1) {
        m->proven = 1;
    }
    else if (value <= -1) {
        m->proven = -1;
    }
    else {
        m->exact = 1;
    }
    return 1;
}

/* Fill ``moves`` (one per empty cell) and return the depth reached and why the
 * search stopped (STOP_NONE when every value is proven exactly). The phases,
 * each with what is left of the budget up to its share:
 *   1. tactics (no budget): immediate wins, and the losses beside a forced block;
 *   2. the outcome of every move, by nowin() and then alpha-beta in a window
 *      of width one around the draw (a draw found there is exact; a win or
 *      loss may lack its distance);
 *   3. the exact distance of the proven wins and losses;
 *   4. estimates, by iterative deepening, of what is still unknown (depth 1
 *      always completes, whatever the budget or the deadline), and a check of
 *      the wins and losses they found. */
static RootResult
analyze_root(Search *S, const Node *root, uint64_t budget, uint64_t outcome_budget,
             uint64_t distance_budget, RootMove *moves, int *count)
{
    const Shape *sh = S->sh;
    int cells = sh->cells, marks = root->marks, empties = cells - marks;
    Moves ordered;
    gen_moves(sh, root, -1, &ordered);
    uint8_t order[MAX_CELLS];
    int n = 0;
    for (int cell; (cell = next_move(&ordered)) >= 0;) {
        order[n++] = (uint8_t)cell;
    }
    uint64_t keys[MAX_CELLS][2];
    int reps[MAX_CELLS], nreps = 0;
    Node child;
    for (int i = 0; i < n; i++) {
        play(sh, root, order[i], &child);
        canonical(sh, &child, &keys[i][0], &keys[i][1]);
        int rep = i;
        for (int j = 0; j < i; j++) {
            if (keys[j][0] == keys[i][0] && keys[j][1] == keys[i][1]) {
                rep = moves[j].rep;
                break;
            }
        }
        moves[i].cell = order[i];
        moves[i].rep = rep;
        moves[i].exact = 0;
        moves[i].proven = 0;
        moves[i].no_win = 0;
        moves[i].value = 0;
        moves[i].line[0] = order[i]; /* every line starts with its move */
        moves[i].line_length = 1;
        if (rep == i) {
            reps[nreps++] = i;
        }
    }
    *count = n;
    RootResult result = {empties, STOP_NONE};
    int deadline_hit = 0, cancelled = 0, limit = cells + 1;

    /* 1. Tactics, before any budgeted work. */
    int win_now = cells - marks, lose_next = -(cells - marks - 1);
    for (int r = 0; r < nreps; r++) {
        RootMove *m = &moves[reps[r]];
        uint64_t bit = (uint64_t)1 << m->cell;
        if (root->my_thr & bit) {
            m->value = win_now;
            m->exact = 1;
        }
        else if (!root->my_thr && root->opp_thr && (root->opp_thr & ~bit)) {
            m->value = lose_next; /* the opponent still completes a line next move */
            m->exact = 1;
        }
    }
    if (S->ctl != NULL) {
        int64_t deadline = atomic_load(&S->ctl->deadline_ns);
        deadline_hit = deadline != 0 && now_ns() >= deadline;
        cancelled = atomic_load(&S->ctl->cancelled);
    }

    /* 2. The outcome of every move. */
    S->limit = outcome_budget;
    /* Two proofs for all the moves at once, by nowin(): if the mover cannot
     * win here, none of its moves wins; if the opponent cannot win even when
     * the mover passes, it cannot win after any move (an extra mark never
     * hurts). Each gets at most half of what is left. */
    int mover_cannot_win = 0, opponent = NW_UNKNOWN;
    int use_nowin = empties >= NOWIN_MIN_EMPTIES;
    if (use_nowin && !deadline_hit && !cancelled && !root->my_thr &&
        !(root->opp_thr & (root->opp_thr - 1))) {
        mover_cannot_win = prove_nowin(S, root, 1, (S->limit - S->nodes) / 2) == NW_NOWIN;
        if (!root->opp_thr && !S->stop) {
            Node passed;
            pass_turn(root, &passed);
            opponent = prove_nowin(S, &passed, 1, (S->limit - S->nodes) / 2);
        }
    }
    int open_moves = 0;
    for (int r = 0; r < nreps; r++) {
        open_moves += !moves[reps[r]].exact;
    }
    for (int r = 0; r < nreps && mover_cannot_win; r++) {
        moves[reps[r]].no_win = 1;
    }
    /* Where the mover cannot win, one move proven a draw proves the position
     * a draw: the likeliest moves first get a quarter of what is left each,
     * until one is. */
    for (int r = 0, tries = 0; mover_cannot_win && r < nreps && tries < DRAW_TRIES && !S->stop; r++) {
        RootMove *m = &moves[reps[r]];
        if (m->exact && m->value == 0) {
            break;
        }
        if (m->exact || m->proven) {
            continue;
        }
        play(sh, root, m->cell, &child);
        /* (nowin() for the opponent too, strong or not: a draw is its proof.) */
        int strong = opponent == NW_WIN ? NW_UNKNOWN : opponent;
        open_moves -= settle_move(S, &child, use_nowin, mover_cannot_win, strong,
                                  (S->limit - S->nodes) / 4, m);
        tries++;
        if (m->exact) {
            break;
        }
    }
    /* Then each move in rounds, with an allowance that grows fourfold from
     * round to round: easy moves settle in the first, and the hard ones share
     * what is left, none starving the others (a draw among losses needs its
     * proof as much as a win does). */
    uint64_t allowance = use_nowin ? ROUND_FIRST : outcome_budget; /* small: one round */
    while (open_moves && !deadline_hit && !cancelled && !S->stop) {
        for (int r = 0; r < nreps && !S->stop; r++) {
            RootMove *m = &moves[reps[r]];
            if (m->exact || m->proven) {
                continue;
            }
            play(sh, root, m->cell, &child);
            if (settle_move(S, &child, use_nowin, mover_cannot_win, opponent, allowance, m)) {
                open_moves--;
            }
        }
        allowance = allowance < ((uint64_t)1 << 60) ? 4 * allowance : allowance;
    }
    phase_stopped(S, &deadline_hit, &cancelled);

    /* 3. The distance of the proven wins and losses. */
    S->limit = distance_budget > S->nodes ? distance_budget : S->nodes;
    for (int r = 0; r < nreps && !deadline_hit && !cancelled && !S->stop; r++) {
        RootMove *m = &moves[reps[r]];
        if (m->exact || !m->proven) {
            continue;
        }
        play(sh, root, m->cell, &child);
        int value = -solve(S, &child, -limit, limit);
        if (!S->stop) {
            m->value = value;
            m->exact = 1;
            m->proven = 0;
        }
    }
    phase_stopped(S, &deadline_hit, &cancelled);

    /* 4. Estimates of what is still unknown. */
    int open = 0;
    for (int r = 0; r < nreps; r++) {
        open += !moves[reps[r]].exact && !moves[reps[r]].proven;
    }
    if (open && !cancelled) {
        if (S->est == NULL) {
            S->est = calloc((size_t)1 << EST_BITS, sizeof(Estimate));
            if (S->est == NULL) {
                result.stop = -1; /* out of memory: the caller raises */
                return result;
            }
        }
        S->limit = deadline_hit ? S->nodes : (budget > S->nodes ? budget : S->nodes);
        double values[MAX_CELLS];
        int reached = 0;
        for (int depth = 1; depth <= empties; depth++) {
            S->unlimited = depth == 1;
            for (int r = 0; r < nreps && !S->stop; r++) {
                RootMove *m = &moves[reps[r]];
                if (m->exact || m->proven) {
                    continue;
                }
                play(sh, root, m->cell, &child);
                values[r] = -estimate(S, &child, depth - 1, -limit, limit);
            }
            S->unlimited = 0;
            if (S->stop) {
                break;
            }
            reached = depth;
            int settled = 1;
            for (int r = 0; r < nreps; r++) {
                RootMove *m = &moves[reps[r]];
                if (!m->exact && !m->proven) {
                    /* A move proven not to win is at best a draw: its estimate
                     * is squashed into (-0.9, 0), below the draws, in order. */
                    m->value = m->no_win && fabs(values[r]) < 1 ? (values[r] - 0.9) / 2 : values[r];
                    settled &= fabs(values[r]) >= 1;
                }
            }
            if (settled) {
                break; /* every open move is a win or loss: deeper changes nothing */
            }
        }
        result.depth = reached;
        if (S->stop == STOP_NONE && !deadline_hit) {
            /* Check the wins and losses the estimate found with what is left of
             * the budget, in a window of width one around each. */
            for (int r = 0; r < nreps && !S->stop; r++) {
                RootMove *m = &moves[reps[r]];
                if (m->exact || m->proven || fabs(m->value) < 1) {
                    continue;
                }
                int expected = -(int)m->value;
                play(sh, root, m->cell, &child);
                int value = solve(S, &child, expected - 1, expected + 1);
                if (!S->stop && value == expected) {
                    m->exact = 1;
                }
            }
        }
        phase_stopped(S, &deadline_hit, &cancelled);
    }
    else if (!cancelled) {
        /* Every move's outcome is proven; the depth behind the unknown distances
         * is what the outcome search looked at: the rest of the game. */
        result.depth = empties;
    }
    /* 5. The line of play of each move, with a little more budget. */
    if (!cancelled) {
        S->limit = S->nodes + (budget / 4 > 10000 ? budget / 4 : 10000);
        for (int r = 0; r < nreps; r++) {
            RootMove *m = &moves[reps[r]];
            play(sh, root, m->cell, &child);
            if (m->exact && m->value != 0 && !S->stop) {
                m->line_length += proven_line(S, &child, -(int)m->value, m->line + 1, MAX_CELLS - 1);
            }
            else if (!(m->exact && m->value == win_now)) {
                m->line_length += known_line(S, &child, m->line + 1, MAX_CELLS - 1);
            }
        }
        phase_stopped(S, &deadline_hit, &cancelled);
    }
    for (int i = 0; i < n; i++) {
        RootMove *rep = &moves[moves[i].rep];
        moves[i].value = rep->value;
        moves[i].exact = rep->exact;
        moves[i].proven = rep->proven;
        moves[i].no_win = rep->no_win;
        if (i != moves[i].rep) {
            /* A symmetric image: the continuation is the representative's,
             * mapped through the symmetry that takes its child to this one. */
            Node here, there;
            uint64_t k0, k1;
            play(sh, root, rep->cell, &there);
            play(sh, root, moves[i].cell, &here);
            int frame_there = canonical(sh, &there, &k0, &k1);
            int frame_here = canonical(sh, &here, &k0, &k1);
            moves[i].line[0] = (uint8_t)moves[i].cell;
            for (int j = 1; j < rep->line_length; j++) {
                int canonical_cell = sh->perm[frame_there][rep->line[j]];
                moves[i].line[j] = sh->inverse[frame_here][canonical_cell];
            }
            moves[i].line_length = rep->line_length;
        }
    }
    open = 0;
    for (int i = 0; i < n; i++) {
        open += !moves[i].exact;
    }
    if (cancelled) {
        result.stop = STOP_CANCELLED;
    }
    else if (!open) {
        result.stop = STOP_NONE;
        result.depth = empties;
    }
    else {
        result.stop = deadline_hit ? STOP_DEADLINE : STOP_BUDGET;
    }
    return result;
}

static int
read_bitboard(PyObject *obj, uint64_t *out, const char *what)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s must be a bitboard of at most 49 cells", what);
        return -1;
    }
    *out = v;
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
                             NULL};
    Shape *shape;
    Table *table;
    PyObject *xo, *oo, *control = Py_None;
    int x_to_move;
    unsigned long long budget, outcome_budget, distance_budget;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!OOpKKK|O", kwlist, &ShapeType, &shape,
                                     &TableType, &table, &xo, &oo, &x_to_move, &budget,
                                     &outcome_budget, &distance_budget, &control)) {
        return NULL;
    }
    if (control != Py_None && !PyObject_TypeCheck(control, &ControlType)) {
        PyErr_SetString(PyExc_TypeError, "control must be a Control or None");
        return NULL;
    }
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    if (outcome_budget < 1 || outcome_budget > distance_budget || distance_budget > budget) {
        PyErr_SetString(PyExc_ValueError,
                        "budgets must satisfy 1 <= outcome_budget <= distance_budget <= budget");
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.tt = table;
    S.ctl = control == Py_None ? NULL : (Control *)control;
    Node root;
    RootMove moves[MAX_CELLS];
    int count = 0;
    RootResult result;
    /* Keep the shape and table alive while the GIL is released. */
    Py_INCREF(shape);
    Py_INCREF(table);
    Py_XINCREF(control);
    Py_BEGIN_ALLOW_THREADS
    root_node(shape, x, o, x_to_move, &root);
    result = analyze_root(&S, &root, budget, outcome_budget, distance_budget, moves, &count);
    atomic_fetch_add_explicit(&table->hits, S.hits, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->misses, S.misses, memory_order_relaxed);
    Py_END_ALLOW_THREADS
    Py_XDECREF(control);
    Py_DECREF(table);
    Py_DECREF(shape);
    free(S.est);
    free(S.zones);
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
    return Py_BuildValue("(NKii)", list, (unsigned long long)S.nodes, result.depth,
                         result.stop);
}

/* Parse (shape, x, o, x_to_move) into a root node, for the knowledge checks below. */
static int
parse_position(PyObject *args, Shape **shape, Node *n)
{
    PyObject *xo, *oo;
    int x_to_move;
    if (!PyArg_ParseTuple(args, "O!OOp", &ShapeType, shape, &xo, &oo, &x_to_move)) {
        return -1;
    }
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
    Shape *shape;
    Node n;
    if (parse_position(args, &shape, &n) < 0) {
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.limit = UINT64_MAX;
    int value = vcf(&S, &n, VCF_DEPTH);
    return PyLong_FromLong(value);
}

static PyObject *
core_heuristic(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *xo, *oo;
    int x_to_move, cell = -1;
    Shape *shape;
    if (!PyArg_ParseTuple(args, "O!OOp|i", &ShapeType, &shape, &xo, &oo, &x_to_move, &cell)) {
        return NULL;
    }
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
    if (!cannot_win(shape, n.my_open, n.me, empty, 0, &P)) {
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
    Shape *shape;
    Table *table;
    PyObject *xo, *oo;
    int x_to_move, lower, upper;
    if (!PyArg_ParseTuple(args, "O!O!OOpii", &ShapeType, &shape, &TableType, &table, &xo, &oo,
                          &x_to_move, &lower, &upper)) {
        return NULL;
    }
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    int limit = shape->cells + 1;
    if (lower < -limit || upper > limit || lower > upper) {
        PyErr_SetString(PyExc_ValueError, "bounds must satisfy -(cells+1) <= lower <= upper <= cells+1");
        return NULL;
    }
    Node n;
    root_node(shape, x, o, x_to_move, &n);
    uint64_t key0, key1;
    canonical(shape, &n, &key0, &key1);
    Search S = {0};
    S.sh = shape;
    S.tt = table;
    /* The most work an entry can record: replacement keeps it over any search's. */
    tt_store(&S, key0, key1, lower, upper, 0, UINT64_MAX, 0);
    Py_RETURN_NONE;
}

static PyObject *
core_can_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    Shape *shape;
    Table *table;
    PyObject *xo, *oo;
    int x_to_move, attacker_x;
    unsigned long long nodes;
    if (!PyArg_ParseTuple(args, "O!O!OOppK", &ShapeType, &shape, &TableType, &table, &xo, &oo,
                          &x_to_move, &attacker_x, &nodes)) {
        return NULL;
    }
    uint64_t x, o;
    if (read_position(shape, xo, oo, &x, &o) < 0) {
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.tt = table;
    S.limit = nodes;
    Node n;
    int result;
    Py_INCREF(shape);
    Py_INCREF(table);
    Py_BEGIN_ALLOW_THREADS
    root_node(shape, x, o, x_to_move, &n);
    result = prove_nowin(&S, &n, attacker_x == x_to_move, nodes);
    Py_END_ALLOW_THREADS
    Py_DECREF(table);
    Py_DECREF(shape);
    free(S.zones);
    PyObject *answer = result == NW_UNKNOWN ? Py_None : result == NW_WIN ? Py_True : Py_False;
    return Py_BuildValue("(OK)", answer, (unsigned long long)S.nodes);
}

static PyMethodDef core_methods[] = {
    {"analyze", (PyCFunction)(void (*)(void))core_analyze, METH_VARARGS | METH_KEYWORDS,
     "analyze(shape, table, x, o, x_to_move, budget, outcome_budget, distance_budget,\n"
     "        control=None) -> ([(cell, value, exact, proven, line, no_win), ...], nodes, depth,\n"
     "        stop)\n\n"
     "Every legal move's internal value, searched with the GIL released."},
    {"store", (PyCFunction)core_store, METH_VARARGS,
     "store(shape, table, x, o, x_to_move, lower, upper): record proven bounds of a\n"
     "position (internal scores, for the side to move), kept over any search's entries."},
    {"threat_win", (PyCFunction)core_threat_win, METH_VARARGS,
     "threat_win(shape, x, o, x_to_move) -> internal value of a win by continuous\n"
     "threats for the side to move, or 0 when none is found."},
    {"heuristic", (PyCFunction)core_heuristic, METH_VARARGS,
     "heuristic(shape, x, o, x_to_move, cell=-1) -> the estimate of the position for the side\n"
     "to move (see _core.c), or with a cell, of the position after that move, its line sums\n"
     "kept from this one's as the search keeps them for the horizon."},
    {"pairing", (PyCFunction)core_pairing, METH_VARARGS,
     "pairing(shape, x, o, x_to_move) -> [(a, b), ...]: disjoint pairs of empty cells,\n"
     "one in every line the side to move can still fill, or None when none is found."},
    {"can_win", (PyCFunction)core_can_win, METH_VARARGS,
     "can_win(shape, table, x, o, x_to_move, attacker_x, nodes) -> (answer, nodes): whether\n"
     "the attacker (X or O) can force a win, proven by the zone search; None when unknown."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "service.engine._core",
    .m_doc = "The compiled search core (see the comment at the top of _core.c).",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&ShapeType) < 0 || PyType_Ready(&TableType) < 0 ||
        PyType_Ready(&ControlType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "Shape", (PyObject *)&ShapeType) < 0 ||
        PyModule_AddObjectRef(m, "Table", (PyObject *)&TableType) < 0 ||
        PyModule_AddObjectRef(m, "Control", (PyObject *)&ControlType) < 0 ||
        PyModule_AddIntConstant(m, "STOP_NONE", STOP_NONE) < 0 ||
        PyModule_AddIntConstant(m, "STOP_BUDGET", STOP_BUDGET) < 0 ||
        PyModule_AddIntConstant(m, "STOP_DEADLINE", STOP_DEADLINE) < 0 ||
        PyModule_AddIntConstant(m, "STOP_CANCELLED", STOP_CANCELLED) < 0 ||
        PyModule_AddIntConstant(m, "BUCKET_BYTES", BUCKET_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "BUCKET_SLOTS", BUCKET_SLOTS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
