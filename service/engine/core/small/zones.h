/*
 * The proof search with relevance zones (zones.c): can the attacker win?
 */
#ifndef SMALL_ZONES_H
#define SMALL_ZONES_H

#include "search.h"

enum { NW_UNKNOWN = -1, NW_WIN = 0, NW_NOWIN = 1 };
#ifndef DRAW_TRIES
#define DRAW_TRIES 3
#endif
#ifndef ROUND_FIRST
#define ROUND_FIRST 4000
#endif
/* Below this many empty cells solve() alone settles a root move in a few
 * hundred nodes, and nowin()'s tables would cost more than they save (the
 * start-up solve of 3x3 took 0.20 s with them, 0.11 s without). */
#ifndef NOWIN_MIN_EMPTIES
#define NOWIN_MIN_EMPTIES 10
#endif
/* The root looks for a win by threats (vct()) first on boards of this many
 * cells or more: on 8x8 with k=4 it proves in thousands of nodes the wins
 * that nowin() and solve() did not find within a request's million; boards
 * up to 7x7 keep their searches, and their node counts, as they were. */
#ifndef ROOT_VCT_MIN_CELLS
#define ROOT_VCT_MIN_CELLS 50
#endif

/* Iterative deepening of nowin() for ``attacker_moves`` (1: the side to move
 * attacks) until it proves NW_WIN or NW_NOWIN or ``allowance`` nodes are spent
 * (NW_UNKNOWN). */
int prove_nowin(Search *S, const Node *n, int attacker_moves, uint64_t allowance);

#endif
