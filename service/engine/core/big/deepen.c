/*
 * The root's estimates (big_analyze()'s phase 4, root.c): iterative deepening
 * of big_pvs() over the root's moves that no proof settled, each move's value
 * its own search's (a move that failed low capped below the best), and the
 * helper threads' deepening of the same root (big_help()).
 *
 * Depths 1 and 2 search every move in a full window, so each gets a value of
 * its own; deeper, the best is searched in full and the others in a null
 * window around it (late quiet ones reduced first, as below the root). A move
 * that fails low keeps its last value, capped below the best's (the deeper
 * search found it no better), and the bound it failed with as its place in the
 * next iteration's order. With a win in hand the others are asked only whether
 * they win too. Depth 1 always completes, whatever the budget or deadline.
 */
#include "root.h"

#include <math.h>

/* The estimate of a search value: wins and losses the search saw but did not
 * prove stay estimates, in (0.95, 0.99) and (-0.99, -0.95), a sooner win
 * (a later loss) higher, so that a side that sees itself winning plays the
 * fastest line it knows and a side that sees itself lost the slowest; the
 * rest is squashed into (-0.9, 0.9). */
static double
estimate_of(int value)
{
    if (value > WIN_LIMIT) {
        return 0.99 - 0.0003 * (double)(WIN - value);
    }
    if (value < -WIN_LIMIT) {
        return -0.99 + 0.0003 * (double)(WIN + value);
    }
    double v = (double)value;
    return 0.9 * v / (fabs(v) + 400.0);
}

int
big_deepen(BigSearch *S, BigRootMove *moves, int count, uint64_t budget, int deepest)
{
    BigBoard *b = &S->board;
    int order[BIG_MAX_CELLS], keys[BIG_MAX_CELLS], n = 0;
    for (int i = 0; i < count; i++) {
        if (!moves[i].settled) {
            /* The move order's first guess: insertion by its static score. */
            int key = big_move_order(S, moves[i].cell, 0), j = n++;
            while (j > 0 && keys[j - 1] < key) {
                order[j] = order[j - 1];
                keys[j] = keys[j - 1];
                j--;
            }
            order[j] = i;
            keys[j] = key;
        }
    }
    if (n == 0) {
        return 0;
    }
    if (S->clock.limit > budget) {
        S->clock.limit = budget;
    }
    S->root_moves = n;
    S->eval_at[0] = big_static_value(b);
    S->root_count = b->count;
    int reached = 0;
    int best_value = -WIN - 1;
    int empties = b->sh->cells - b->count;
    for (int depth = 1; depth <= deepest && depth <= empties; depth++) {
        /* Depth 1 always completes, whatever the budget or the deadline. */
        S->clock.unlimited = depth == 1;
        int alpha = -WIN - 1, finished = 1;
        int iteration_best = -WIN - 1;
        for (int r = 0; r < n; r++) {
            BigRootMove *m = &moves[order[r]];
            /* A late quiet move is searched shallower first, as below the root. */
            int reduce = depth >= 3 && r > 0 && big_is_quiet(b, m->cell)
                             ? big_reduction(S, depth - 1, r, m->cell, 1)
                             : 0;
            big_play(b, m->cell);
            int value;
            if (depth <= 2 || r == 0) {
                value = -big_pvs(S, depth - 1, -WIN - 1, WIN + 1, 1);
            }
            else {
                /* With a win in hand, only whether this one wins too (the
                 * search looks for no faster win below the root); a win it
                 * finds sooner stands as found. */
                int won = alpha >= WIN_LIMIT;
                value = won ? -big_pvs(S, depth - 1, -WIN_LIMIT, -WIN_LIMIT + 1, 1)
                            : -big_pvs(S, depth - 1 - reduce, -alpha - 1, -alpha, 1);
                if (!won && reduce && value > alpha && !S->clock.stop) {
                    value = -big_pvs(S, depth - 1, -alpha - 1, -alpha, 1);
                }
                if (!won && value > alpha && !S->clock.stop) {
                    /* Failed high: its value lies above alpha, searched there. */
                    value = -big_pvs(S, depth - 1, -WIN - 1, -alpha, 1);
                }
                else if (value <= alpha && !S->clock.stop) {
                    /* Failed low: no better than the best so far. Its place in
                     * the next iteration's order is this bound (at most
                     * alpha), not the value a shallower search gave it. */
                    m->bound = value < alpha ? value : alpha;
                    m->bounded = 1;
                    m->order_key = m->bound;
                    big_undo(b, m->cell);
                    continue;
                }
            }
            big_undo(b, m->cell);
            if (S->clock.stop) {
                finished = 0;
                break;
            }
            m->score = value;
            m->order_key = value;
            m->scored_depth = depth;
            m->bounded = 0;
            if (value > alpha) {
                alpha = value;
            }
            if (value > iteration_best) {
                iteration_best = value;
            }
        }
        S->clock.unlimited = 0;
        if (!finished) {
            break;
        }
        reached = depth;
        best_value = iteration_best;
        /* The best first, then by this iteration's value (or the bound it
         * failed low with); ties in the previous order. */
        for (int i = 1; i < n; i++) {
            int key = order[i], j = i;
            while (j > 0 && moves[order[j - 1]].order_key < moves[key].order_key) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = key;
        }
        if (best_value > WIN_LIMIT || best_value < -WIN_LIMIT) {
            /* Every move seen to win or lose: deeper shows nothing new. */
            int all_decided = 1;
            for (int r = 0; r < n; r++) {
                int v = moves[order[r]].score;
                all_decided &= v > WIN_LIMIT || v < -WIN_LIMIT;
            }
            if (all_decided) {
                break;
            }
        }
    }
    /* The values: each move's own, capped below the best where it failed low. */
    int best = -WIN - 1;
    for (int r = 0; r < n; r++) {
        if (moves[order[r]].scored_depth > 0 && moves[order[r]].score > best) {
            best = moves[order[r]].score;
        }
    }
    for (int r = 0; r < n; r++) {
        BigRootMove *m = &moves[order[r]];
        int value = m->scored_depth > 0 ? m->score : 0;
        if (m->bounded && m->bound < value) {
            value = m->bound;
        }
        if (order[r] != order[0] && value >= best) {
            value = best - 1;
        }
        m->value = estimate_of(value);
    }
    return reached;
}

int
big_help(BigSearch *S, int offset)
{
    int empties = S->board.sh->cells - S->board.count, reached = 0;
    S->root_count = S->board.count;
    for (int depth = 1 + offset; depth <= DEEPEST && depth <= empties; depth++) {
        int value = big_pvs(S, depth, -WIN - 1, WIN + 1, 0);
        if (S->clock.stop) {
            break;
        }
        reached = depth;
        if (value > WIN_LIMIT || value < -WIN_LIMIT) {
            break; /* seen decided: deeper shows nothing new */
        }
    }
    return reached;
}

