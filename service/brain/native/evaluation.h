/*
 * The big boards' evaluation weights of service/engine/evaluation.json (the
 * side to move's cells, then the other side's), which Python hands the core
 * at import; the native brain has no JSON reader, so they are copied here.
 * tests/brain/test_native.py fails when the two differ: after `make tune`,
 * copy the new weights (patterns: dead, b1, f1, b2, f2, b3, f3, b4, f4, five;
 * kinds: quiet, f2, b3, f3, b4, f3f3, b4f3, flex4, five).
 */
#ifndef BRAIN_EVALUATION_H
#define BRAIN_EVALUATION_H

static const int EVALUATION_PATTERN_WORTH[2][PATTERNS] = {
    {0, -3, -5, 19, 166, 293, 510, 653, 200, 600},
    {0, -1, -5, 20, 84, 56, 352, 765, 200, 600},
};
static const int EVALUATION_KIND_BONUS[2][KINDS] = {
    {0, -161, -202, -81, 95, 143, 752, 400, 0},
    {0, -77, 52, -89, -84, -84, 1044, 400, 0},
};
static const int EVALUATION_TEMPO = 1100;

#endif
