/*
 * The exact alpha-beta of the small boards.
 *
 * Bound semantics of solve() (the contract of Pons' connect-4 solver, stated
 * once here): called with a window alpha < beta it returns
 *   - the exact value v when alpha < v < beta;
 *   - an upper bound u with v <= u <= alpha when v <= alpha;
 *   - a lower bound l with beta <= l <= v when v >= beta.
 *
 * Only solve() and nowin() (zones.c) write to the shared table, both proven
 * bounds only, so only proven bounds outlive a request.
 */
#include "pairing.h"
#include "search.h"

HOT int
solve(Search *S, const Node *n, int alpha, int beta)
{
    const Shape *sh = S->sh;
    if (count_node(&S->clock)) {
        return 0;
    }
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks; /* win with this move */
    }
    if (n->marks == cells) {
        return 0;
    }
    if (n->opp_thr & (n->opp_thr - 1)) {
        return -(cells - n->marks - 1); /* two threats: one can be blocked, not both */
    }
    int low, high;
    static_bounds(sh, n, &low, &high);
    if (low == high) {
        return low;
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    int first = -1, entry_low, entry_high, entry_move, tried = 0;
    if (tt_probe(S, key0, key1, &entry_low, &entry_high, &entry_move, &tried)) {
        if (entry_low > low) {
            low = entry_low;
        }
        if (entry_high < high) {
            high = entry_high;
        }
        first = sh->inverse[frame][entry_move];
        if (low >= high) {
            return low;
        }
    }
    if (low >= beta) {
        return low;
    }
    if (high <= alpha) {
        return high;
    }
    uint64_t before = S->clock.nodes;
    if (cells - n->marks >= KNOWLEDGE_MIN_EMPTIES) {
        /* Knowledge before brute force: a side that a pairing stops cannot win,
         * and a forced win by continuous threats is a win. */
        uint64_t empty = sh->full & ~(n->me | n->opp);
        Pairing pairing;
        /* Each pairing check is made only where its answer settles the node:
         * "the mover cannot win" cuts a window that asks whether it beats a
         * draw (alpha >= 0) or makes a node that cannot lose exact (low >= 0);
         * "the opponent cannot win" likewise, mirrored. A search that found
         * nothing here before is not repeated (``tried``). */
        if (USE_PAIRING && high > 0 && (alpha >= 0 || low >= 0) && !(tried & TRIED_MINE)) {
            if (cannot_win(sh, &n->my_open, n->me, empty, 0, &pairing)) {
                high = 0;
            }
            else {
                tried |= TRIED_MINE;
            }
        }
        /* (An opponent with a threat has a line with one free cell: no pairing.) */
        if (USE_PAIRING && low < 0 && (beta <= 0 || high <= 0) && !n->opp_thr &&
            !(tried & TRIED_THEIRS)) {
            if (cannot_win(sh, &n->opp_open, n->opp, empty, 0, &pairing)) {
                low = 0;
            }
            else {
                tried |= TRIED_THEIRS;
            }
        }
        if (USE_VCF && high > 0 && beta > 0 && low < beta && !(tried & TRIED_VCF)) {
            int win = vcf(S, n, VCF_DEPTH);
            if (S->clock.stop) {
                return 0;
            }
            if (win > 0 && win > low) { /* 0: no forced win found, which proves nothing */
                low = win;
            }
            else if (win == 0) {
                tried |= TRIED_VCF;
            }
        }
        if (low >= high || low >= beta || high <= alpha) {
            tt_store(S, key0, key1, low, high < low ? low : high,
                     first < 0 ? 0 : sh->perm[frame][first], S->clock.nodes - before, tried);
            return low >= high ? low : (low >= beta ? low : high);
        }
    }
    int window_low = alpha > low ? alpha : low;
    int window_high = beta < high ? beta : high;
    Moves moves;
    if (n->opp_thr) {
        forced_move(n->opp_thr, &moves); /* forced: anything else loses at once */
    }
    else {
        gen_moves(sh, n, first, &moves);
    }
    int a = window_low, best = -cells - 1, best_move = -1;
    Node kids[2];
    int cell = next_move(&moves), now = 0;
    play_ahead(S, n, cell, &kids[0], FETCH_NOTHING); /* searched at once */
    while (cell >= 0) {
        int next = next_move(&moves);
        play_ahead(S, n, next, &kids[now ^ 1], FETCH_BUCKET);
        int value = -solve(S, &kids[now], -window_high, -a);
        if (S->clock.stop) {
            return 0;
        }
        if (value > best) {
            best = value;
            best_move = cell;
            if (value > a) {
                a = value;
                if (a >= window_high) {
                    break;
                }
            }
        }
        cell = next;
        now ^= 1;
    }
    if (best <= window_low) {
        high = high < best ? high : best;
    }
    else if (best >= window_high) {
        low = low > best ? low : best;
    }
    else {
        low = high = best;
    }
    tt_store(S, key0, key1, low, high, sh->perm[frame][best_move], S->clock.nodes - before, tried);
    if (low == high) {
        return low;
    }
    return best <= window_low ? high : low;
}
