/*
 * The big boards' analyses for Python (analyze_big, big_threat_win,
 * big_board, big_candidates), one game's search Context, and the reading of
 * a big position that renju.c shares.
 */
#include "glue.h"

#include "../big/root.h"

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

int
read_big_position(BigShape *sh, int rows, int cols, int k, int rule, PyObject *xo, PyObject *oo,
                  uint8_t *stone)
{
    if (big_shape_init(sh, rows, cols, k, rule) < 0) {
        PyErr_SetString(PyExc_ValueError, BIG_SHAPE_RANGE);
        return -1;
    }
    return read_stones(sh, xo, oo, stone);
}

void
set_big_position(BigBoard *b, const BigShape *sh, const uint8_t *stone, int x_to_move)
{
    big_board_init(b, sh);
    for (int cell = 0; cell < sh->cells; cell++) {
        if (stone[cell]) {
            b->side = stone[cell] - 1;
            big_play(b, cell);
        }
    }
    b->side = x_to_move ? 0 : 1;
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

PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Context",
    .tp_basicsize = sizeof(Context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_doc = "One game's big-board search state, kept between its analyses (one at a time).",
};

PyObject *
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
    if (read_big_position(shape, rows, cols, k, rule, xo, oo, stone) < 0) {
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
    set_big_position(&S->board, shape, stone, x_to_move);
    table_new_generation(table); /* the entries of earlier searches age */
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

/* The side to move's win by threats alone (big_threat_win()): (kind, plies,
 * line, nodes), kind 0 none found, 1 continuous fours, 2 fours and threes. */
PyObject *
core_big_threat_win(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols, k, rule, x_to_move;
    PyObject *xo, *oo, *nodes_arg;
    uint64_t nodes;
    if (!PyArg_ParseTuple(args, "iiiiOOpO", &rows, &cols, &k, &rule, &xo, &oo, &x_to_move,
                          &nodes_arg) ||
        read_count(nodes_arg, 1, MAX_BUDGET, "nodes", &nodes) < 0) {
        return NULL;
    }
    BigShape *shape = malloc(sizeof(BigShape));
    BigSearch *S = big_search_new();
    if (shape == NULL || S == NULL) {
        free(shape);
        big_search_free(S);
        return PyErr_NoMemory();
    }
    PyObject *answer = NULL;
    uint8_t stone[BIG_MAX_CELLS];
    if (read_big_position(shape, rows, cols, k, rule, xo, oo, stone) < 0) {
        goto done;
    }
    big_search_renew(S);
    S->clock.limit = UINT64_MAX;
    int kind, plies;
    Line line;
    Py_BEGIN_ALLOW_THREADS
    set_big_position(&S->board, shape, stone, x_to_move);
    plies = big_threat_win(S, nodes, &kind, &line);
    Py_END_ALLOW_THREADS
    PyObject *cells = line_tuple(&line);
    if (cells != NULL) {
        answer = Py_BuildValue("(iiNK)", kind, plies, cells, (unsigned long long)S->clock.nodes);
    }
done:
    big_search_free(S);
    free(shape);
    return answer;
}

/* The board of rows x cols, k and rule (``shape``, built here) after a
 * sequence of moves from Python, played from the empty board (a cell, or -1
 * to take the last one back), into ``b``: 0, or -1 with an exception set. As
 * read_big_position() reads a position, for big_board and big_candidates. */
static int
read_big_moves(BigShape *shape, int rows, int cols, int k, int rule, PyObject *sequence,
               BigBoard *b)
{
    if (big_shape_init(shape, rows, cols, k, rule) < 0) {
        PyErr_SetString(PyExc_ValueError, BIG_SHAPE_RANGE);
        return -1;
    }
    big_board_init(b, shape);
    int played[BIG_MAX_CELLS], count = 0, status = -1;
    PyObject *fast = copy_items(sequence, "moves");
    if (fast == NULL) {
        return -1;
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
    status = 0;
done:
    Py_DECREF(fast);
    return status;
}

/* The big board after a sequence of moves, as the search keeps it: per cell,
 * each side's four patterns and kind; the sets; the evaluation. For the
 * tests, which compare it with a plain reference and with the board rebuilt
 * from scratch. */
PyObject *
core_big_board(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols, k, rule;
    PyObject *sequence;
    if (!PyArg_ParseTuple(args, "iiiiO", &rows, &cols, &k, &rule, &sequence)) {
        return NULL;
    }
    BigShape *shape = malloc(sizeof(BigShape));
    BigBoard *b = malloc(sizeof(BigBoard));
    PyObject *answer = NULL;
    if (shape == NULL || b == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_big_moves(shape, rows, cols, k, rule, sequence, b) < 0) {
        goto done;
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
    free(b);
    free(shape);
    return answer;
}

/* The candidate moves of the side to move after a sequence of moves (as
 * big_board's), in the order a new search's node tries them (big_candidates()
 * and pick(): no table move, no killers, no history), each with its score.
 * For bench/move_order.py and the tests. */
PyObject *
core_big_candidates(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols, k, rule;
    PyObject *sequence;
    if (!PyArg_ParseTuple(args, "iiiiO", &rows, &cols, &k, &rule, &sequence)) {
        return NULL;
    }
    BigShape *shape = malloc(sizeof(BigShape));
    BigSearch *S = big_search_new();
    Picker *moves = malloc(sizeof(Picker));
    PyObject *answer = NULL;
    if (shape == NULL || S == NULL || moves == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_big_moves(shape, rows, cols, k, rule, sequence, &S->board) < 0) {
        goto done;
    }
    big_search_renew(S); /* no killers */
    big_candidates(S, -1, 1, moves);
    answer = PyList_New(moves->count);
    for (int i = 0; answer != NULL && i < moves->count; i++) {
        int at = moves->next;
        int cell = pick(moves); /* (the best left is swapped to ``at``) */
        PyObject *item = Py_BuildValue("(ii)", cell, moves->score[at]);
        if (item == NULL) {
            Py_CLEAR(answer);
            break;
        }
        PyList_SET_ITEM(answer, i, item);
    }
done:
    free(moves);
    big_search_free(S);
    free(shape);
    return answer;
}
