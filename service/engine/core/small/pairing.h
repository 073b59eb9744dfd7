/*
 * Pairing strategies: the small boards' draw certificates (see below).
 */
#ifndef SMALL_PAIRING_H
#define SMALL_PAIRING_H

#include "board.h"

/* A pairing strategy (Hales-Jewett) for the defender against ``attacker``:
 * disjoint pairs of empty cells such that every line the attacker can still
 * fill holds one of the pairs. Whenever the attacker takes a cell of a pair,
 * the defender takes the other, so every such line ends up holding a defender
 * mark: the attacker never completes one, whoever is to move. The search for
 * pairs is a small backtracking search (the line with the fewest free cells
 * first), bounded in steps; finding none proves nothing. */
/* Steps of the search for pairs: at nodes with PAIRING_WIDE_EMPTIES or more
 * empty cells, and below. Longer searches prove some boards sooner but cost
 * node rate everywhere; these keep bench/engine.py's node rate above 3 M/s. */
#ifndef PAIRING_STEPS
#define PAIRING_STEPS 32
#endif
#ifndef PAIRING_STEPS_NARROW
#define PAIRING_STEPS_NARROW 12
#endif
#ifndef PAIRING_WIDE_EMPTIES
#define PAIRING_WIDE_EMPTIES 24
#endif
/* nowin() stands on its pairings, and a longer search for one there pays:
 * measured on 21 hard 7x7 k=5 positions, 200 steps took half the nodes of 32. */
#ifndef PAIRING_PROOF_STEPS
#define PAIRING_PROOF_STEPS 200
#endif
#ifndef PAIRING_PROOF_STEPS_NARROW
#define PAIRING_PROOF_STEPS_NARROW 50
#endif
#define PAIRING_MAX 32

typedef struct {
    const Shape *sh;
    int steps, step_limit;
    int count;
    uint8_t a[PAIRING_MAX], b[PAIRING_MAX];
} Pairing;

/* Whether a pairing shows that the owner of ``marks`` and ``open`` (the lines
 * it can still fill) cannot win; ``thorough`` searches longer (nowin()). */
int cannot_win(const Shape *sh, const lineset *open, uint64_t marks, uint64_t empty, int thorough,
               Pairing *P);

#endif
