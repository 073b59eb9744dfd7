/*
 * The root of a big board's analysis (root.c) and its estimates (deepen.c).
 */
#ifndef BIG_ROOT_H
#define BIG_ROOT_H

#include "search.h"

typedef struct {
    int cell;
    int settled;  /* proven by the tactics or a threat search: not estimated */
    int exact;    /* value proven exactly, distance included */
    int proven;   /* +1 a proven win (value is a lower bound), -1 a proven loss
                     (an upper bound), 0 nothing proven beyond ``exact`` */
    double value; /* mark-counted, as the small boards' core reports it; an
                     estimate lies strictly inside (-1, 1) */
    Line line;    /* the move, then the expected continuation */
    /* The estimate's search: its last value, the depth of that value, and an
     * upper bound from a deeper search it failed low in. */
    int score, scored_depth, bound, bounded;
    int order_key; /* the latest iteration's value or fail-low bound: the root's order */
} BigRootMove;

typedef struct {
    int depth;           /* the deepest iteration completed */
    int stop;            /* STOP_NONE when every value is proven exactly */
    int omitted;         /* legal moves not listed */
    double omitted_value; /* their value when omitted_proven (a proven loss) */
    int omitted_proven;
} BigRootResult;

/* Fill ``moves`` with the candidates of the side to move of ``S->board`` and
 * their values, spending at most ``budget`` nodes in all. The caller begins
 * the search's table generation (table_new_generation()) first, before any
 * helper starts, so that the main search and its helpers share one. */
BigRootResult big_analyze(BigSearch *S, uint64_t budget, BigRootMove *moves, int *count);

/* The side to move's win by threats alone, by the root's own proof phases:
 * continuous fours (up to VCF_MAX_DEPTH of them), else fours and open threes
 * (deepening to the root's VCT depth), each within ``nodes`` nodes.
 * The plies of the win found (0: none; a failure proves nothing), with
 * *kind 1 for fours alone and 2 for threats with threes, and its line. For
 * the diagnostics of bench/blunders.py and the tests. */
int big_threat_win(BigSearch *S, uint64_t nodes, int *kind, Line *line);

/* The iterations stop at DEEPEST, a depth few searches reach. */
#define DEEPEST (MAX_PLY - 8)

/* Phase 4 of big_analyze() (deepen.c): iterative deepening of big_pvs() over
 * the ``count`` moves not settled, to ``deepest`` at most and within
 * ``budget`` nodes; each such move's value, as an estimate. The deepest
 * iteration completed. */
int big_deepen(BigSearch *S, BigRootMove *moves, int count, uint64_t budget, int deepest);

/* A helper thread of a parallel search (the brain's INFO thread_num): while
 * big_analyze() runs on the same position in another search state, deepen
 * big_pvs() from the root in a full window, from depth 1 + ``offset``, until
 * the helper's clock stops it or the root's value is seen decided, filling the
 * shared table, which is all the searches share ("lazy SMP": each has its
 * own board, history, killers and threat memo). The deepest depth finished. */
int big_help(BigSearch *S, int offset);

#endif
