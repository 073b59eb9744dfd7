/*
 * The small boards' functions (up to 64 cells, the exact core): analyze,
 * the threat and pairing probes, the store's reads and writes, can_win.
 */
#include "glue.h"

#include "../small/pairing.h"
#include "../small/root.h"
#include "../small/zones.h"

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

PyObject *
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
    free(S.vct);
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

/* A threat search's start from its arguments (shape, x, o, x_to_move, nodes):
 * the search state, limited to ``nodes``, and the root node. The shape's
 * object is the caller's to keep alive while the search runs. */
static int
start_threat_search(PyObject *args, ShapeObject **shape_object, Search *S, Node *n)
{
    PyObject *xo, *oo, *nodes_arg;
    int x_to_move;
    uint64_t x, o, nodes;
    if (!PyArg_ParseTuple(args, "O&OOpO", shape_arg, shape_object, &xo, &oo, &x_to_move,
                          &nodes_arg) ||
        read_position(&(*shape_object)->shape, xo, oo, &x, &o) < 0 ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return -1;
    }
    *S = (Search){0};
    S->sh = &(*shape_object)->shape;
    S->clock.limit = nodes;
    root_node(S->sh, x, o, x_to_move, n);
    return 0;
}

PyObject *
core_threat_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    Search S;
    Node n;
    if (start_threat_search(args, &shape_object, &S, &n) < 0) {
        return NULL;
    }
    int value = vcf(&S, &n, VCF_DEPTH);
    /* A search stopped by its limit found nothing it can claim. */
    return Py_BuildValue("(iK)", S.clock.stop ? 0 : value, (unsigned long long)S.clock.nodes);
}

PyObject *
core_quiet_threat_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    ShapeObject *shape_object;
    Search S;
    Node n;
    if (start_threat_search(args, &shape_object, &S, &n) < 0) {
        return NULL;
    }
    int won, move;
    Py_INCREF(shape_object);
    Py_BEGIN_ALLOW_THREADS
    won = vct(&S, &n, VCT_DEPTH, &move);
    Py_END_ALLOW_THREADS
    Py_DECREF(shape_object);
    free(S.vct);
    /* A search stopped by its limit found nothing it can claim. */
    return Py_BuildValue("(iK)", won && !S.clock.stop ? move : -1, (unsigned long long)S.clock.nodes);
}

PyObject *
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

PyObject *
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

PyObject *
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
PyObject *
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

PyObject *
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

