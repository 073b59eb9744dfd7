/*
 * The Python module service.engine._core: the thin glue between Python and
 * the two searches. It parses and checks every argument (this code handles
 * what clients send), releases the GIL around each search, and builds the
 * answers. Nothing here searches.
 */
#include "clock.h"
#include "small/pairing.h"
#include "small/root.h"
#include "small/zones.h"
#include "table.h"

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
    S.clock.ctl = control == Py_None ? NULL : (Control *)control;
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
    return Py_BuildValue("(NKii)", list, (unsigned long long)S.clock.nodes, result.depth,
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
    S.clock.limit = UINT64_MAX;
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
    S.clock.limit = nodes;
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
    return Py_BuildValue("(OK)", answer, (unsigned long long)S.clock.nodes);
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
     "to move (see small/estimate.c), or with a cell, of the position after that move, its line sums\n"
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
    .m_doc = "The compiled search core (see service/engine/core/common.h).",
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
