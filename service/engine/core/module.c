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
#include "big/root.h"
#include "table.h"

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
                             NULL};
    Shape *shape;
    Table *table;
    PyObject *xo, *oo, *budget_arg, *outcome_arg, *distance_arg, *control = Py_None;
    int x_to_move;
    uint64_t budget, outcome_budget, distance_budget;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&O&OOpOOO|O", kwlist, shape_arg, &shape,
                                     table_arg, &table, &xo, &oo, &x_to_move, &budget_arg,
                                     &outcome_arg, &distance_arg, &control)) {
        return NULL;
    }
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
    if (!PyArg_ParseTuple(args, "O&OOp", shape_arg, shape, &xo, &oo, &x_to_move)) {
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
    PyObject *xo, *oo, *nodes_arg;
    int x_to_move;
    uint64_t x, o, nodes;
    if (!PyArg_ParseTuple(args, "O&OOpO", shape_arg, &shape, &xo, &oo, &x_to_move, &nodes_arg) ||
        read_position(shape, xo, oo, &x, &o) < 0 ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return NULL;
    }
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
    Shape *shape;
    if (!PyArg_ParseTuple(args, "O&OOp|i", shape_arg, &shape, &xo, &oo, &x_to_move, &cell)) {
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
    Shape *shape;
    Table *table;
    PyObject *xo, *oo;
    int x_to_move, lower, upper;
    if (!PyArg_ParseTuple(args, "O&O&OOpii", shape_arg, &shape, table_arg, &table, &xo, &oo,
                          &x_to_move, &lower, &upper)) {
        return NULL;
    }
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
    PyObject *xo, *oo, *nodes_arg, *control = Py_None;
    int x_to_move, attacker_x;
    uint64_t x, o, nodes;
    if (!PyArg_ParseTuple(args, "O&O&OOppO|O", shape_arg, &shape, table_arg, &table, &xo, &oo,
                          &x_to_move, &attacker_x, &nodes_arg, &control) ||
        read_control(control) < 0 || read_position(shape, xo, oo, &x, &o) < 0 ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return NULL;
    }
    Search S = {0};
    S.sh = shape;
    S.tt = table;
    S.clock.limit = nodes;
    S.clock.ctl = control == Py_None ? NULL : (Control *)control;
    Node n;
    int result;
    Py_INCREF(shape);
    Py_INCREF(table);
    Py_XINCREF(control);
    Py_BEGIN_ALLOW_THREADS
    root_node(shape, x, o, x_to_move, &n);
    result = prove_nowin(&S, &n, attacker_x == x_to_move, nodes);
    Py_END_ALLOW_THREADS
    Py_XDECREF(control);
    Py_DECREF(table);
    Py_DECREF(shape);
    free(S.zones);
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
    Table *table;
    PyObject *xo, *oo, *budget_arg, *control = Py_None, *context_arg = Py_None;
    uint64_t budget;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiO&OOpO|OiO", kwlist, &rows, &cols, &k,
                                     &rule, table_arg, &table, &xo, &oo, &x_to_move, &budget_arg,
                                     &control, &max_depth, &context_arg)) {
        return NULL;
    }
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
    S->clock.ctl = control == Py_None ? NULL : (Control *)control;
    S->clock.limit = budget;
    S->max_depth = max_depth;
    int count = 0;
    BigRootResult result;
    Py_INCREF(table);
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
    Py_DECREF(table);

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

static PyMethodDef core_methods[] = {
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
        add_count(m, "MAX_BUDGET", MAX_BUDGET) < 0 ||
        add_count(m, "MAX_TABLE_BYTES", MAX_TABLE_BYTES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
