/*
 * The big boards' quiescence search over fours, at the horizon of big_pvs()
 * (search.c).
 *
 * At the horizon (depth 0 and below) this search takes over: the side to
 * move may stand pat on the evaluation or make a four, whose block is the
 * other side's only move and costs nothing, so a line of fours is searched
 * to its end, within QUIET_FOURS fours and QUIET_NODES nodes, with
 * alpha-beta bounds. As Rapfi's, its fours are those near the side's own
 * last move, and past the first two only fours that make something more;
 * off the principal variation, where alpha lies QUIET_DELTA beyond the
 * evaluation (a win to better), none (delta pruning). Wins by continuous
 * fours, and fours that gain or lose on the evaluation, show at the leaves.
 * Its entries go in the table at depth 0, never over a deeper search's.
 */
#include "search.h"

/* The quiescence search: the most fours (both sides') in a line below the
 * horizon, and the nodes one horizon node may spend. */
#define QUIET_FOURS 12
#define QUIET_NODES 256
/* Delta pruning's margin: Rapfi's 2,086 scaled as FUTILITY_MARGIN is. */
#define QUIET_DELTA 12000

/* Whether ``cell`` lies near ``move``: within the 5x5 square around it, or
 * within 4 of it along one of its lines. */
static inline int
near_move(const BigShape *sh, int cell, int move)
{
    int dr = abs(cell / sh->cols - move / sh->cols), dc = abs(cell % sh->cols - move % sh->cols);
    return (dr <= 2 && dc <= 2) || ((dr == 0 || dc == 0 || dr == dc) && dr <= 4 && dc <= 4);
}

/* Whether side ``s``'s four at ``cell`` makes something more: a two or a
 * three along another line, or a second four. */
static inline int
four_plus(const BigBoard *b, int cell, int s)
{
    int more = 0, fours = 0;
    for (int d = 0; d < 4; d++) {
        int p = b->pattern[cell][s][d];
        fours += p >= P_B4;
        more += p >= P_F2 && p < P_B4;
    }
    return more > 0 || fours > 1;
}

/* The quiescence search at the horizon, for a side to move with no five
 * point of the other side to block (big_pvs() has checked the tactics): the
 * evaluation (standing pat), or better, one of its fours. A four's block is
 * forced, so big_pvs() plays it at the same depth and comes back here with
 * the same side to move (or, when the block makes a four, after that four's
 * forced block, with the other side to move: it stands pat or makes its own
 * fours). A four costs one of QUIET_FOURS (depth counts down below 0), and a
 * line that makes two five points or a four X may not block ends in
 * big_pvs()'s tactics. Under renju X makes only its legal fours. The values
 * are estimates within big_pvs()'s bound semantics (fail-soft, at least the
 * standing value unless the table answers): a line cut short by QUIET_FOURS
 * or QUIET_NODES, or by delta pruning, or an open three of the other side
 * left unanswered, stands pat. The fours searched are near the side's own
 * last move (near_move()), and from the third on they make something more
 * (four_plus()): a chain of fours that wins goes on where the last one was.
 *
 * The table is read only where there is a four to search (most horizon nodes
 * have none, or stand pat above beta, and skip its cache miss); what is
 * stored goes at depth 0, and not over a deeper search's entry, which a store
 * of an exact value would otherwise replace (table.h). */
int
big_quiesce(BigSearch *S, int depth, int alpha, int beta, int ply)
{
    BigBoard *b = &S->board;
    int me = b->side;
    if (depth == 0) {
        S->quiet_until = S->clock.nodes + QUIET_NODES; /* a new horizon node */
    }
    int stand = big_static_value(b);
    S->eval_at[ply] = stand;
    if (stand >= beta || depth <= -QUIET_FOURS || S->clock.nodes >= S->quiet_until ||
        !cells_any(&b->four[me])) {
        return stand;
    }
    int pv = beta - alpha > 1;
    /* Delta pruning: off the principal variation, where alpha lies beyond
     * what fours could gain on the evaluation (a win to be bettered, in
     * practice), the fours are not searched. */
    if (!pv && stand + QUIET_DELTA < alpha) {
        return stand;
    }
    uint64_t key0, key1;
    big_key(b, &key0, &key1);
    int first = -1, entry_value, bound, entry_depth = -1, move;
    if (table_probe_big(S->tt, key0, key1, &entry_value, &bound, &entry_depth, &move)) {
        S->hits++;
        if (move < b->sh->cells && cells_has(&b->four[me], move)) {
            first = move;
        }
        int value = from_table(entry_value, ply);
        if (!pv && (bound == BOUND_EXACT || (bound == BOUND_LOWER && value >= beta) ||
                    (bound == BOUND_UPPER && value <= alpha))) {
            return value;
        }
    }
    else {
        S->misses++;
    }
    Picker fours;
    fours.count = fours.next = 0;
    /* The side's own last move, where the search played it (-1 at the root's
     * first plies: every four is then searched). */
    int last = b->count - 2 >= S->root_count ? b->saved[b->count - 2].cell : -1;
    for (int c = cells_next(&b->four[me], -1); c >= 0; c = cells_next(&b->four[me], c)) {
        if (c != first && ((last >= 0 && !near_move(b->sh, c, last)) ||
                           (depth < -1 && !four_plus(b, c, me)))) {
            continue;
        }
        if (big_legal(b, c)) {
            fours.cell[fours.count] = (int16_t)c;
            fours.score[fours.count++] = c == first ? INT32_MAX : big_move_order(S, c, MAX_PLY);
        }
    }
    uint64_t before = S->clock.nodes;
    int best = stand, best_move = BIG_NO_MOVE, a = alpha > stand ? alpha : stand;
    for (int c = pick(&fours); c >= 0; c = pick(&fours)) {
        big_play(b, c);
        int value = -big_pvs(S, depth - 1, -beta, -a, ply + 1);
        big_undo(b, c);
        if (S->clock.stop) {
            return 0;
        }
        if (value > best) {
            best = value;
            best_move = c;
            if (value > a) {
                a = value;
                if (a >= beta) {
                    break;
                }
            }
        }
    }
    if (entry_depth <= 0) {
        int stored = best <= alpha ? BOUND_UPPER : best >= beta ? BOUND_LOWER : BOUND_EXACT;
        table_store_big(S->tt, key0, key1, to_table(best, ply), stored, 0, best_move,
                        S->clock.nodes - before);
    }
    return best;
}
