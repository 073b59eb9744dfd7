/*
 * Renju's forbidden cells for Python: the first forbidden move of a game's
 * moves, and X's forbidden cells in a position (core/big/renju.c decides).
 */
#include "glue.h"

/* A renju board of rows x cols (k = 5), empty; NULL with an exception set
 * (the first forbidden move's board; a position's comes from big.c's
 * read_big_position() and set_big_position()). */
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
PyObject *
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
PyObject *
core_renju_forbidden(PyObject *Py_UNUSED(module), PyObject *args)
{
    int rows, cols;
    PyObject *xo, *oo;
    if (!PyArg_ParseTuple(args, "iiOO", &rows, &cols, &xo, &oo)) {
        return NULL;
    }
    BigShape shape;
    uint8_t stone[BIG_MAX_CELLS];
    if (read_big_position(&shape, rows, cols, 5, RULE_RENJU, xo, oo, stone) < 0) {
        return NULL;
    }
    BigBoard *b = malloc(sizeof(BigBoard));
    if (b == NULL) {
        return PyErr_NoMemory();
    }
    set_big_position(b, &shape, stone, 1); /* (big_forbidden() asks nothing of the side to move) */
    PyObject *answer = PyList_New(0);
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
    free(b);
    return answer;
}
