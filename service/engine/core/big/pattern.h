/*
 * Line patterns for the big-board search: what a stone on an empty cell makes
 * on one line (one of the four directions), for one side.
 *
 * A pattern is read off a window of the line centred on the cell, H cells to
 * each side (H = k under the exact rule, to see a row of k + 1; k - 1 under
 * freestyle). With the cell taken by the side, the pattern is, in order:
 *   P_FIVE  a row of k through the cell (exactly k under the exact rule): a win;
 *   P_F4    a four with two or more "five points" (empty cells that complete a
 *           row of k through the cell): the other side cannot stop both;
 *   P_B4    a four with one five point;
 *   P_F3    a three: one more stone on the line makes a P_F4 (an open four);
 *   P_B3    one more stone makes a P_B4;
 *   P_F2, P_B2: one more stone makes a P_F3, a P_B3;
 *   P_F1, P_B1: likewise, a P_F2, a P_B2;
 *   P_DEAD  no row of k through the cell can ever be completed.
 * Each level counts only rows through the cell itself, so that a pattern
 * belongs to the cell that makes it. The definitions are exact at every level
 * wherever a table holds them (H <= PATTERN_TABLE_HALF); past that (k of 7 and
 * more under the exact rule, 8 and more under freestyle) the levels below P_B3
 * are read from the number of stones in the best window instead (see
 * pattern.c).
 *
 * A window is two bit masks over its 2H + 1 cells, bit H the centre: the
 * side's stones, and what blocks it (the other side's stones and the edge).
 */
#ifndef BIG_PATTERN_H
#define BIG_PATTERN_H

#include "../common.h"

enum {
    P_DEAD = 0,
    P_B1,
    P_F1,
    P_B2,
    P_F2,
    P_B3,
    P_F3,
    P_B4,
    P_F4,
    P_FIVE,
    PATTERNS
};

#define PATTERN_TABLE_HALF 6 /* tables up to 3^12 entries (531,441 bytes) */
#define PATTERN_MAX_HALF 20

/* The patterns of one (k, rule): a table indexed by the window (without its
 * centre) in base 3, or NULL where the window is too wide for one. */
typedef struct {
    int k, exact, half;
    uint8_t *table;
} Patterns;

/* The shared, read-only patterns of (k, exact), built on first use; ``wide``
 * reads freestyle's patterns over the exact rule's wider window (H = k), for
 * renju's O beside its X. Called with the GIL held (the first call for a
 * (k, rule) builds its table). NULL when memory runs out. */
const Patterns *patterns_for(int k, int exact, int wide);

/* The pattern of a window (centre empty in both masks). */
int pattern_of(const Patterns *p, uint64_t own, uint64_t blocked);

/* The window's table index: each side cell in base 3 (0 empty, 1 own,
 * 2 blocked), the centre left out. Only for half <= PATTERN_TABLE_HALF. */
extern uint32_t base3_of_bits[1 << (2 * PATTERN_TABLE_HALF)];

static inline int
pattern_lookup(const Patterns *p, uint64_t own, uint64_t blocked)
{
    if (p->table == NULL) {
        return pattern_of(p, own, blocked);
    }
    int h = p->half;
    uint64_t low = ((uint64_t)1 << h) - 1;
    uint64_t o = (own & low) | ((own >> (h + 1)) << h);
    uint64_t b = (blocked & low) | ((blocked >> (h + 1)) << h);
    return p->table[base3_of_bits[o] + 2 * base3_of_bits[b]];
}

#endif
