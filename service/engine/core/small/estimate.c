/*
 * Estimates for positions the budget cannot solve: the heuristic and a
 * depth-limited negamax over it.
 */
#include "search.h"

/* The documented estimate for positions the budget cannot solve: every line
 * still open to a side counts 4 ** (its marks on it) for that side, doubled
 * for the side to move (its next mark is coming); the difference is squashed
 * by 0.9 * d / (|d| + lines) into (-0.9, 0.9), strictly inside the range no
 * proven win or loss can take. line_sums() counts the two sums. */
void
line_sums(const Shape *sh, const Node *n, int64_t *mine, int64_t *theirs)
{
    int64_t my_sum = 0, opp_sum = 0;
    for (int w = 0; w < sh->words; w++) {
        uint64_t open = n->my_open[w];
        const uint64_t *lines = &sh->line[64 * w];
        for (; open; open &= open - 1) {
            my_sum += (int64_t)1 << (2 * __builtin_popcountll(n->me & lines[__builtin_ctzll(open)]));
        }
        for (open = n->opp_open[w]; open; open &= open - 1) {
            opp_sum += (int64_t)1 << (2 * __builtin_popcountll(n->opp & lines[__builtin_ctzll(open)]));
        }
    }
    *mine = my_sum;
    *theirs = opp_sum;
}

HOT double
heuristic(const Shape *sh, const Node *n)
{
    int64_t my_sum, opp_sum;
    if (n->summed) {
        my_sum = n->my_sum, opp_sum = n->opp_sum;
    }
    else {
        line_sums(sh, n, &my_sum, &opp_sum);
    }
    double d = (double)(2 * my_sum - opp_sum);
    return 0.9 * d / (fabs(d) + sh->nlines);
}

/* play(), and the child's line sums (see heuristic()) from the parent's: only
 * the lines through the cell change. For the horizon's parents, which try
 * many children and need nothing else of them but the heuristic: from the
 * second child on, a parent's sums are worth counting once (most parents are
 * cut off after one child, and counting them in every play() cost what it
 * saved). */
void
play_summed(const Shape *sh, const Node *n, int64_t my_sum, int64_t opp_sum, int cell, Node *child)
{
    play(sh, n, cell, child);
    uint64_t mine = child->opp; /* the mover's marks, the new one included */
    lineset through = sh->through_mask[cell];
    lineset gaining_lines = n->my_open & through, closing_lines = n->opp_open & through;
    for (int w = 0; w < sh->words; w++) {
        const uint64_t *lines = &sh->line[64 * w];
        uint64_t gaining = gaining_lines[w];
        for (; gaining; gaining &= gaining - 1) {
            /* 4 ** marks - 4 ** (marks - 1) */
            my_sum += (int64_t)3 << (2 * (__builtin_popcountll(mine & lines[__builtin_ctzll(gaining)]) - 1));
        }
        uint64_t closing = closing_lines[w];
        for (; closing; closing &= closing - 1) {
            opp_sum -= (int64_t)1 << (2 * __builtin_popcountll(n->opp & lines[__builtin_ctzll(closing)]));
        }
    }
    child->my_sum = opp_sum;
    child->opp_sum = my_sum;
    child->summed = 1;
}


/* Depth-limited negamax: proven values where the search reaches the end of the
 * game or the table knows them, the heuristic at the horizon. Same window
 * contract as solve(), on estimates. */
HOT double
estimate(Search *S, const Node *n, int depth, double alpha, double beta)
{
    const Shape *sh = S->sh;
    if (count_node(&S->clock)) {
        return 0;
    }
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks;
    }
    if (n->marks == cells) {
        return 0;
    }
    if (n->opp_thr & (n->opp_thr - 1)) {
        return -(cells - n->marks - 1);
    }
    int low, high;
    static_bounds(sh, n, &low, &high);
    if (low == high) {
        return low;
    }
    if (depth <= 0) {
        /* The horizon: no table probe here (a probe is a cache miss, and most
         * nodes of an estimate are horizon nodes); the static bounds still hold. */
        double h = heuristic(sh, n);
        return h < low ? low : (h > high ? high : h);
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    int first = -1, entry_low, entry_high, entry_move;
    if (tt_probe(S, key0, key1, &entry_low, &entry_high, &entry_move, NULL)) {
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
    double lower = low, upper = high;
    Estimate *slot = est_slot(S, key0, key1, depth);
    if (key0 != 0 && slot->key0 == key0 && slot->key1 == key1 && slot->depth == depth) {
        lower = lower > slot->lower ? lower : slot->lower;
        upper = upper < slot->upper ? upper : slot->upper;
        first = sh->inverse[frame][slot->move];
        if (lower >= upper) {
            return lower;
        }
    }
    if (lower >= beta) {
        return lower;
    }
    if (upper <= alpha) {
        return upper;
    }
    double window_low = alpha > lower ? alpha : lower;
    double window_high = beta < upper ? beta : upper;
    Moves moves;
    if (n->opp_thr) {
        forced_move(n->opp_thr, &moves);
    }
    else {
        gen_moves(sh, n, first, &moves);
    }
    double a = window_low, best = -cells - 1;
    int best_move = -1;
    /* Above the horizon's parents, one move ahead (see play_ahead()). The
     * horizon's parents probe nothing for their children; from the second
     * child on they keep the children's line sums instead (see play_summed()). */
    int ahead = depth >= 2;
    int64_t my_sum = 0, opp_sum = 0;
    int summed = 0;
    Node kids[2];
    int cell = next_move(&moves), now = 0;
    play_ahead(S, n, cell, &kids[0], FETCH_NOTHING); /* searched at once */
    while (cell >= 0) {
        int next = -1;
        if (ahead) {
            next = next_move(&moves);
            play_ahead(S, n, next, &kids[now ^ 1], depth - 1);
        }
        double value = -estimate(S, &kids[now], depth - 1, -window_high, -a);
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
        if (!ahead && (next = next_move(&moves)) >= 0) {
            if (!summed) {
                line_sums(sh, n, &my_sum, &opp_sum);
                summed = 1;
            }
            play_summed(sh, n, my_sum, opp_sum, next, &kids[now ^ 1]);
        }
        cell = next;
        now ^= 1;
    }
    if (best <= window_low) {
        upper = upper < best ? upper : best;
    }
    else if (best >= window_high) {
        lower = lower > best ? lower : best;
    }
    else {
        lower = upper = best;
    }
    slot->key0 = key0;
    slot->key1 = key1;
    slot->depth = depth;
    slot->move = sh->perm[frame][best_move];
    slot->lower = lower;
    slot->upper = upper;
    if (lower == upper) {
        return lower;
    }
    return best <= window_low ? upper : lower;
}
