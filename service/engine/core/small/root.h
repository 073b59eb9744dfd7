/*
 * The root of a small board's analysis (root.c).
 */
#ifndef SMALL_ROOT_H
#define SMALL_ROOT_H

#include "search.h"

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

typedef struct {
    int depth;
    int stop;
} RootResult;

/* Fill ``moves`` (one per empty cell) and return the depth reached and why the
 * search stopped; see root.c. */
RootResult analyze_root(Search *S, const Node *root, uint64_t budget, uint64_t outcome_budget,
                        uint64_t distance_budget, RootMove *moves, int *count);

#endif
