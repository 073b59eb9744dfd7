/*
 * The small boards' move order: see moves.h.
 */
#include "moves.h"

HOT void
gen_moves(const Shape *sh, const Node *n, int first, Moves *out)
{
    uint64_t empty = sh->full & ~(n->me | n->opp);
    int weight[MAX_LINES];
    memset(weight, 0, sizeof(int) * (size_t)sh->nlines); /* a line closed to both: 0 */
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = n->my_open[w]; bits; bits &= bits - 1) {
            int l = 64 * w + __builtin_ctzll(bits);
            weight[l] += 1 + 2 * __builtin_popcountll(n->me & sh->line[l]);
        }
        for (uint64_t bits = n->opp_open[w]; bits; bits &= bits - 1) {
            int l = 64 * w + __builtin_ctzll(bits);
            weight[l] += 1 + 2 * __builtin_popcountll(n->opp & sh->line[l]);
        }
    }
    /* Each cell in the slot of its place in the static order. */
    no_moves(out);
    for (uint64_t cells = empty; cells; cells &= cells - 1) {
        int c = __builtin_ctzll(cells);
        int score = c == first ? FIRST_WEIGHT : 0;
        if (c != first) {
            for (int j = 0; j < sh->nthrough[c]; j++) {
                score += weight[sh->through[c][j]];
            }
        }
        int slot = sh->rank[c];
        out->cell[slot] = (uint8_t)c;
        out->key[slot] = score << SLOT_BITS | (LAST_SLOT - slot);
    }
    out->count = __builtin_popcountll(empty);
    out->next = 0;
}
