/*
 * The small boards' board (see board.h): play(), which keeps a Node's
 * threats, open lines and symmetric images as each move is made. (The Shape
 * is built from what Python hands it in python/types.c.)
 */
#include "board.h"

/* The empty cells that complete one of ``open`` for the owner of ``mine``:
 * threats_in()'s work, inlined where play() needs it. */
static inline uint64_t
completions(const Shape *sh, uint64_t mine, const lineset *open)
{
    uint64_t found = 0;
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = (*open)[w]; bits; bits &= bits - 1) {
            uint64_t m = sh->line[64 * w + __builtin_ctzll(bits)];
            if (__builtin_popcountll(mine & m) == sh->k - 1) {
                found |= m & ~mine;
            }
        }
    }
    return found;
}

/* The threats a mark at ``cell`` adds: only lines through it change. */
static inline uint64_t
new_threats(const Shape *sh, uint64_t mine, const lineset *my_open, int cell)
{
    lineset open_here = *my_open & sh->through_mask[cell];
    return completions(sh, mine, &open_here);
}

HOT void
play(const Shape *sh, const Node *n, int cell, Node *child)
{
    uint64_t bit = (uint64_t)1 << cell;
    uint64_t mine = n->me | bit;
    lineset mine_open = n->my_open;
    uint64_t mine_thr = n->my_thr & ~bit;
    if (sh->exact) {
        /* The mark closes the mover's lines that it flanks; where one of them
         * held a threat, the mover's threats are counted again. */
        lineset closed = mine_open & sh->flank_mask[cell];
        if (ls_any(&closed)) {
            mine_open &= ~closed;
            if (threats_in(sh, mine, &closed)) {
                mine_thr = threats_in(sh, mine, &mine_open);
            }
        }
    }
    child->me = n->opp;
    child->opp = mine;
    child->my_thr = n->opp_thr & ~bit;
    child->opp_thr = mine_thr | new_threats(sh, mine, &mine_open, cell);
    child->my_open = n->opp_open & ~sh->through_mask[cell];
    child->opp_open = mine_open;
    /* All MAX_SYMS frames, used or not (the images past nsyms are 0): work of
     * a fixed size is a few vector operations, of a variable size a loop. */
    uint64_t xmask = n->color == 0 ? ~(uint64_t)0 : 0;
    const uint64_t *image = sh->image[cell];
    for (int s = 0; s < MAX_SYMS; s++) {
        child->xs[s] = n->xs[s] | (image[s] & xmask);
        child->os[s] = n->os[s] | (image[s] & ~xmask);
    }
    child->color = n->color ^ 1;
    child->marks = n->marks + 1;
    child->summed = 0;
}

uint64_t
threats_in(const Shape *sh, uint64_t mine, const lineset *open)
{
    return completions(sh, mine, open);
}

void
open_lines(const Shape *sh, uint64_t mine, uint64_t theirs, lineset *out)
{
    lineset set = LS_NONE;
    for (int l = 0; l < sh->nlines; l++) {
        if (!(theirs & sh->line[l]) && !(mine & sh->flank[l])) {
            ls_add(&set, l);
        }
    }
    *out = set;
}

void
root_node(const Shape *sh, uint64_t x, uint64_t o, int x_to_move, Node *n)
{
    n->me = x_to_move ? x : o;
    n->opp = x_to_move ? o : x;
    open_lines(sh, n->me, n->opp, &n->my_open);
    open_lines(sh, n->opp, n->me, &n->opp_open);
    n->my_thr = threats_in(sh, n->me, &n->my_open);
    n->opp_thr = threats_in(sh, n->opp, &n->opp_open);
    memset(n->xs, 0, sizeof(n->xs)); /* frames past nsyms stay 0: play() ORs 0 into them */
    memset(n->os, 0, sizeof(n->os));
    for (int s = 0; s < sh->nsyms; s++) {
        for (int c = 0; c < sh->cells; c++) {
            if ((x >> c) & 1) {
                n->xs[s] |= (uint64_t)1 << sh->perm[s][c];
            }
            if ((o >> c) & 1) {
                n->os[s] |= (uint64_t)1 << sh->perm[s][c];
            }
        }
    }
    n->color = x_to_move ? 0 : 1;
    n->marks = __builtin_popcountll(x | o);
    n->summed = 0;
}
