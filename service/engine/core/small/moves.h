/*
 * The small boards' move order (see the comment on Moves).
 */
#ifndef SMALL_MOVES_H
#define SMALL_MOVES_H

#include "board.h"

/* The moves of a node, handed out best first: ``first`` (the table's move)
 * ahead of all, then by the weight of the lines through each cell (an open line
 * counts 1 + 2 * marks for each side that can still fill it), ties in the
 * shape's static order (centre first). Picking the best remaining move on
 * demand, rather than sorting, costs one pass per move tried, and a node that
 * is cut off after its first move or two pays for little more. */
#define MOVE_SLOTS 64
#define SLOT_BITS 6 /* a slot's place, in the low bits of its key */
#define LAST_SLOT (MOVE_SLOTS - 1)
#define FIRST_WEIGHT (1 << 24) /* above any sum of line weights */
typedef struct {
    int count, next; /* the moves in all, those handed out */
    uint8_t cell[MOVE_SLOTS];
    /* Slot i holds the cell of place i in the static order: its key is
     * weight << SLOT_BITS | (LAST_SLOT - i), so that the largest key is the
     * heaviest move and, among equals, the first in the static order;
     * INT32_MIN for a cell that is not a move or was handed out. A fixed
     * number of slots makes the pick a vectorised maximum. */
    int32_t key[MOVE_SLOTS];
} Moves;

_Static_assert(MAX_CELLS <= MOVE_SLOTS && MOVE_SLOTS == 1 << SLOT_BITS, "a place fits its bits");
_Static_assert(FIRST_WEIGHT <= INT32_MAX >> SLOT_BITS, "the table's move keeps its key an int32");

static inline void
no_moves(Moves *out)
{
    for (int i = 0; i < MOVE_SLOTS; i++) {
        out->key[i] = INT32_MIN;
    }
}

/* Fill ``out`` with the empty cells of ``n``, ``first`` (or -1) ahead of all. */
void gen_moves(const Shape *sh, const Node *n, int first, Moves *out);

static inline void
forced_move(uint64_t cells, Moves *out)
{
    no_moves(out);
    out->cell[0] = (uint8_t)__builtin_ctzll(cells);
    out->key[0] = LAST_SLOT; /* weight 0, place 0 */
    out->count = 1;
    out->next = 0;
}

/* The best move not yet handed out, or -1 when none is left. */
static inline int
next_move(Moves *m)
{
    if (m->next >= m->count) {
        return -1;
    }
    int32_t best = INT32_MIN;
    for (int i = 0; i < MOVE_SLOTS; i++) {
        best = m->key[i] > best ? m->key[i] : best;
    }
    int index = LAST_SLOT - (best & LAST_SLOT);
    m->key[index] = INT32_MIN;
    m->next++;
    return m->cell[index];
}

#endif
