/*
 * The big boards' evaluation weights from Python (service/engine/evaluation.json,
 * set once at import): the patterns', the kinds', the combinations'
 * corrections and the threat masks' values (core/big/evaluation.c holds them).
 */
#include "glue.h"

#include <limits.h>

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

PyObject *
core_set_evaluation(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *pattern_arg, *kind_arg, *pattern_other_arg, *kind_other_arg;
    PyObject *correction_arg = NULL, *correction_other_arg = NULL;
    int pattern[2][PATTERNS], kind[2][KINDS], tempo;
    static int correction[2][COMBINATION_CLASSES]; /* the GIL held: one caller at a time */
    if (!PyArg_ParseTuple(args, "OOOOi|OO", &pattern_arg, &kind_arg, &pattern_other_arg,
                          &kind_other_arg, &tempo, &correction_arg, &correction_other_arg)) {
        return NULL;
    }
    if (read_ints(pattern_arg, PATTERNS, pattern[0], "pattern_worth") < 0 ||
        read_ints(kind_arg, KINDS, kind[0], "kind_bonus") < 0 ||
        read_ints(pattern_other_arg, PATTERNS, pattern[1], "pattern_worth_other") < 0 ||
        read_ints(kind_other_arg, KINDS, kind[1], "kind_bonus_other") < 0) {
        return NULL;
    }
    memset(correction, 0, sizeof(correction));
    if ((correction_arg != NULL &&
         read_ints(correction_arg, COMBINATION_CLASSES, correction[0], "correction") < 0) ||
        (correction_other_arg != NULL && read_ints(correction_other_arg, COMBINATION_CLASSES,
                                                   correction[1], "correction_other") < 0)) {
        return NULL;
    }
    if (big_set_evaluation((const int(*)[PATTERNS])pattern, (const int(*)[KINDS])kind, tempo,
                           (const int(*)[COMBINATION_CLASSES])correction) < 0) {
        PyErr_Format(PyExc_ValueError, "every weight must be within +-%d", EVALUATION_WEIGHT_LIMIT);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
core_set_threat_values(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *values_arg;
    int values[THREAT_MASKS];
    if (!PyArg_ParseTuple(args, "O", &values_arg)) {
        return NULL;
    }
    if (read_ints(values_arg, THREAT_MASKS, values, "threat_values") < 0) {
        return NULL;
    }
    if (big_set_threat_values(values) < 0) {
        PyErr_Format(PyExc_ValueError, "every threat value must be within +-%d", THREAT_VALUE_LIMIT);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyObject *
core_set_network(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *mover_arg, *other_arg, *mask_arg, *bias_arg, *out_arg, *linear_arg;
    int out_bias, bias[NET_HIDDEN], out[NET_HIDDEN], linear[NET_HIDDEN];
    /* the GIL held: one caller at a time */
    static int cells[2][COMBINATION_CLASSES][NET_HIDDEN], mask[THREAT_MASKS][NET_HIDDEN];
    if (!PyArg_ParseTuple(args, "OOOOOiO", &mover_arg, &other_arg, &mask_arg, &bias_arg, &out_arg,
                          &out_bias, &linear_arg)) {
        return NULL;
    }
    if (read_ints(mover_arg, COMBINATION_CLASSES * NET_HIDDEN, &cells[0][0][0], "mover") < 0 ||
        read_ints(other_arg, COMBINATION_CLASSES * NET_HIDDEN, &cells[1][0][0], "other") < 0 ||
        read_ints(mask_arg, THREAT_MASKS * NET_HIDDEN, &mask[0][0], "mask") < 0 ||
        read_ints(bias_arg, NET_HIDDEN, bias, "bias") < 0 ||
        read_ints(out_arg, NET_HIDDEN, out, "out") < 0 ||
        read_ints(linear_arg, NET_HIDDEN, linear, "linear") < 0) {
        return NULL;
    }
    if (big_set_network((const int(*)[COMBINATION_CLASSES][NET_HIDDEN])cells,
                        (const int(*)[NET_HIDDEN])mask, bias, out, out_bias, linear) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "the cells' and masks' weights must be within +-%d, the biases +-%d, the "
                     "output weights +-%d, the output bias +-%d and the linear weights +-%d",
                     NET_WEIGHT_LIMIT, NET_BIAS_LIMIT, NET_OUT_LIMIT, THREAT_VALUE_LIMIT,
                     NET_LINEAR_LIMIT);
        return NULL;
    }
    Py_RETURN_NONE;
}
