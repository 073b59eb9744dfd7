/*
 * The module service.engine._core: its functions, documented here as Python
 * shows them, and its constants (glue.h lists the files).
 */
#include "glue.h"

#include "../big/search.h"
#include "../small/zones.h"

static PyMethodDef core_methods[] = {
    {"run_brain", (PyCFunction)core_run_brain, METH_VARARGS,
     "run_brain(in_fd, out_fd, /): the Gomocup brain (service/brain/native/, docs/brain.md):\n"
     "commands read from in_fd and answered on out_fd until END or the end of the input, with\n"
     "the GIL released. Both descriptors are duplicated and stay the caller's to close. The\n"
     "evaluation is the one set_evaluation set. One session at a time (RuntimeError)."},
    {"set_evaluation", (PyCFunction)core_set_evaluation, METH_VARARGS,
     "set_evaluation(pattern_worth, kind_bonus, pattern_worth_other, kind_bonus_other, tempo,\n"
     "correction=(0,)*715, correction_other=(0,)*715, /): the big boards' evaluation weights (a\n"
     "worth per pattern and a bonus per kind, for the side to move's cells and the other side's,\n"
     "the tempo, and a correction per class of combination for each; see\n"
     "core/big/evaluation.c). Only before any search: the module calls it once, at import,\n"
     "with service/engine/evaluation.json."},
    {"set_threat_values", (PyCFunction)core_set_threat_values, METH_VARARGS,
     "set_threat_values(values, /): the big boards' evaluation's value of each threat mask (512\n"
     "of them, indexed by big_threat_mask(): see core/big/board.h). As set_evaluation: only\n"
     "before any search, once, at import, with service/engine/evaluation.json."},
    {"set_network", (PyCFunction)core_set_network, METH_VARARGS,
     "set_network(mover, other, mask, bias, out, out_bias, linear, /): the big boards'\n"
     "evaluation's network (see core/big/evaluation.c): 16 weights per class of combination\n"
     "(715) for the side to move's cells and for the other side's, and per threat mask (512),\n"
     "each flat, class by class; 16 biases, 16 output weights, the output bias and 16 weights\n"
     "for the linear sum's value. As set_evaluation: only before any search, once, at import,\n"
     "with service/engine/evaluation.json."},
    {"big_board", (PyCFunction)core_big_board, METH_VARARGS,
     "big_board(rows, cols, k, rule, moves) -> (cells, sets, evaluation, worth_sums): the\n"
     "big board after the moves (X first; -1 takes the last move back). cells[c] is the\n"
     "stone (1 X, 2 O) or ((X's four patterns), (O's), X's kind, O's kind); sets are the\n"
     "five, flex4, four and three cells of X and of O, in that order (see big/board.h)."},
    {"big_candidates", (PyCFunction)core_big_candidates, METH_VARARGS,
     "big_candidates(rows, cols, k, rule, moves) -> [(cell, score), ...]: the side to move's\n"
     "candidate moves after the moves (as big_board's) in the order a new search tries them\n"
     "(no table move, killers or history), each with its move-order score. Against a five\n"
     "point only its block (none under renju where X may not take it); against an open three\n"
     "its defences and one's own fours. For bench/move_order.py and the tests."},
    {"big_threat_win", (PyCFunction)core_big_threat_win, METH_VARARGS,
     "big_threat_win(rows, cols, k, rule, x, o, x_to_move, nodes) -> (kind, plies, line,\n"
     "nodes): the side to move's win by threats alone, as the big boards' root proves it:\n"
     "continuous fours (kind 1), else fours and open threes (kind 2), each within `nodes`\n"
     "nodes; kind and plies 0 where none was found (which proves nothing). For diagnostics\n"
     "(bench/blunders.py --threat-kinds) and the tests."},
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
    {"quiet_threat_win", (PyCFunction)core_quiet_threat_win, METH_VARARGS,
     "quiet_threat_win(shape, x, o, x_to_move, nodes) -> (move, nodes): a first move of a\n"
     "win by threats, quiet ones included, for the side to move (which faces no threat),\n"
     "or -1 when none is found within the nodes."},
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

