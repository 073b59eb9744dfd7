/*
 * The big boards' alpha-beta: principal variation search over candidate
 * moves, with the shared table, killer moves and a history of cut-offs.
 *
 * Bound semantics (as solve()'s on small boards): called with alpha < beta,
 * big_pvs() returns the value when it lies inside the window, an upper bound
 * (<= alpha) when it fails low, a lower bound (>= beta) when it fails high.
 *
 * Tactics hold at every node, whatever the depth or the budget: a row to
 * complete wins now; two five points of the other side lose; one must be
 * taken (the only move, searched without using depth); two five points to
 * make while the other side has none win in three plies. Against an open
 * three (the other side's flex4 cells) the moves are its defences and one's
 * own fours: every other move loses (see big_defences()). Under renju X's
 * moves are only those it may play (board.h's big_legal()): a block it may
 * not play is a loss, and its forbidden flex4 cells are no threat.
 *
 * At the horizon (depth 0 and below) the quiescence search over fours takes
 * over (quiesce.c).
 *
 * Candidates elsewhere: the empty cells within two of a stone, and every cell
 * where either side makes a four or an open three, ordered by the table's
 * move, what each side makes there (kind), killers and history, then the
 * cells' worth; at most MAX_BRANCH of them below the root, and off the
 * principal variation, once a move that does not lose is known, fewer the
 * shallower the node (move-count pruning, move_count[]). Off the principal
 * variation, where no four or open three is to be answered, a static
 * evaluation that beats beta by FUTILITY_MARGIN a ply of depth left is taken
 * for the node's value without a search (futility pruning; where the table's
 * bound on the node says better than the evaluation, the bound is used). A
 * node of depth IIR_DEPTH or more with no move from the table is searched a
 * ply shallower (internal iterative reduction). The
 * static evaluation is kept by ply (eval_at[]): a side whose evaluation rose
 * over its last two moves is improving, and is pruned less (a ply less of
 * futility margin, twice the moves before move-count pruning). Late quiet moves,
 * and against an open three the later defences and one's own fours, are
 * searched shallower first (late-move reductions, more the deeper the node
 * and the later the move: big_reduction()), and again at full depth when
 * they beat alpha.
 *
 * Below the root a win is a win: the window stops at WIN_LIMIT either way,
 * so a win found cuts off without a search for a faster one, and a node
 * that has found a losing move asks the others only whether they lose too.
 * The root, with a win in hand, asks its other moves only whether they win,
 * and takes one whose win is found sooner: the fastest win the search knows.
 */
#include "search.h"

#include <math.h>

#define MAX_BRANCH 20
/* Late-move reductions: a quiet move's reduction grows with the depth left
 * and its place in the order, log(depth) * log(place) / LMR_DIVISOR plies (as
 * the chess engines reduce), one less at a principal-variation node and for a
 * move whose history says it has cut off before. */
#define LMR_DIVISOR 2.0
#define LMR_MAX_DEPTH 64
/* Move-count pruning: at a node below the root and off the principal
 * variation, once a move that does not lose is known, the moves after the
 * first move_count[depth] = (3 + depth^1.32) / MOVE_COUNT_DIVISOR are not
 * searched (2 at depth 1, 6 at depth 6, 11 at depth 10; twice as many where
 * the side to move is improving): they come last in the order, so they are
 * the least likely to matter. */
#define MOVE_COUNT_DIVISOR 2.0
/* Futility pruning: a node's static evaluation beating beta by this much a
 * ply of depth left (a ply less where the side is improving) is its value
 * (370: about Rapfi's 63 a ply, scaled by the two evaluations' logistic
 * scales, 1,167.5 / 200). */
#define FUTILITY_MARGIN 370
/* Internal iterative reduction: a node of this depth or more with no move
 * from the table is searched a ply shallower. */
#define IIR_DEPTH 4
#define HISTORY_GOOD 1000
/* What making (attack) and taking (defence) each kind of cell is worth in the
 * move order. */
static const int ATTACK[KINDS] = {
    [K_QUIET] = 0,     [K_F2] = 20,       [K_B3] = 30,       [K_F3] = 500,  [K_B4] = 400,
    [K_F3F3] = 4000,   [K_B4F3] = 8000,   [K_FLEX4] = 30000, [K_FIVE] = 100000,
};
static const int DEFEND[KINDS] = {
    [K_QUIET] = 0,     [K_F2] = 10,      [K_B3] = 15,       [K_F3] = 250,  [K_B4] = 150,
    [K_F3F3] = 2000,   [K_B4F3] = 4000,  [K_FLEX4] = 15000, [K_FIVE] = 60000,
};

int
big_move_order(const BigSearch *S, int c, int ply)
{
    const BigBoard *b = &S->board;
    int me = b->side, them = !me;
    const Combination *mine = &combinations[b->combo[c][me]];
    const Combination *theirs = &combinations[b->combo[c][them]];
    int score = ATTACK[mine->kind] + DEFEND[theirs->kind] + mine->worth + theirs->worth / 2;
    if (ply < MAX_PLY && (S->killers[ply][0] == c || S->killers[ply][1] == c)) {
        score += 300;
    }
    int history = S->history[me][c];
    return score + (history > 4000 ? 4000 : history) / 16;
}

void
big_candidates(BigSearch *S, int first, int ply, Picker *out)
{
    BigBoard *b = &S->board;
    const BigShape *sh = b->sh;
    int me = b->side, them = !me;
    out->count = out->next = 0;
    int forced = cells_first(&b->five[them]);
    if (forced >= 0) {
        if (big_legal(b, forced)) {
            out->cell[0] = (int16_t)forced;
            out->score[0] = 0;
            out->count = 1;
        }
        return;
    }
    Cells set;
    if (big_threat_flex4(b, them) >= 0) {
        big_defences(S, &set);
    }
    else {
        set = b->near;
        for (int i = 0; i < CELL_WORDS; i++) {
            set.w[i] |= b->four[me].w[i] | b->three[me].w[i] | b->four[them].w[i] |
                        b->three[them].w[i];
        }
        if (b->count == 0) {
            cells_add(&set, (sh->rows / 2) * sh->cols + sh->cols / 2);
        }
    }
    int n = 0, renju_x = sh->renju && me == 0;
    for (int c = cells_next(&set, -1); c >= 0; c = cells_next(&set, c)) {
        if (renju_x && !big_legal(b, c)) {
            continue;
        }
        out->cell[n] = (int16_t)c;
        out->score[n] = c == first ? INT32_MAX : big_move_order(S, c, ply);
        n++;
    }
    out->count = n;
}

int
big_tt_move(BigSearch *S)
{
    uint64_t key0, key1;
    big_key(&S->board, &key0, &key1);
    int value, bound, depth, move;
    if (!table_probe_big(S->tt, key0, key1, &value, &bound, &depth, &move)) {
        return -1;
    }
    if (move >= S->board.sh->cells || S->board.stone[move] || !big_legal(&S->board, move)) {
        return -1;
    }
    return move;
}

BigSearch *
big_search_new(void)
{
    BigSearch *S = calloc(1, sizeof(BigSearch));
    if (S == NULL) {
        return NULL;
    }
    S->memo = calloc((size_t)1 << THREAT_BITS, sizeof(ThreatMemo));
    if (S->memo == NULL) {
        free(S);
        return NULL;
    }
    return S;
}

void
big_search_renew(BigSearch *S)
{
    for (int side = 0; side < 2; side++) {
        for (int c = 0; c < BIG_MAX_CELLS; c++) {
            S->history[side][c] /= 2;
        }
    }
    memset(S->killers, 0xff, sizeof(S->killers)); /* -1: none */
    memset(&S->clock, 0, sizeof(S->clock));
    S->hits = S->misses = 0;
    S->root_moves = 0;
}

void
big_search_free(BigSearch *S)
{
    if (S != NULL) {
        free(S->memo);
        free(S);
    }
}

static uint8_t reductions[LMR_MAX_DEPTH][MAX_BRANCH + 1];
static int move_count[LMR_MAX_DEPTH];
static int reductions_ready;

/* A depth as an index of reductions[] and move_count[]: the deepest row
 * stands for every depth beyond it. */
static inline int
table_row(int depth)
{
    return depth < LMR_MAX_DEPTH ? depth : LMR_MAX_DEPTH - 1;
}

void
big_search_init(void)
{
    if (reductions_ready) {
        return;
    }
    for (int depth = 1; depth < LMR_MAX_DEPTH; depth++) {
        for (int place = 1; place <= MAX_BRANCH; place++) {
            double r = log((double)depth) * log((double)place) / LMR_DIVISOR + 0.5;
            reductions[depth][place] = (uint8_t)(r < 0 ? 0 : r);
        }
        move_count[depth] = (int)((3.0 + pow((double)depth, 1.32)) / MOVE_COUNT_DIVISOR);
    }
    reductions_ready = 1;
}

/* How many plies shallower the ``place``-th move (from 0) of a node is searched
 * first: 0 for the first two, for moves that make or stop a three or a four,
 * and where the moves are forced. */
int
big_reduction(const BigSearch *S, int depth, int place, int cell, int pv)
{
    if (place < 2 || depth < 2) {
        return 0;
    }
    int p = place < MAX_BRANCH ? place : MAX_BRANCH;
    int r = reductions[table_row(depth)][p] - pv - (S->history[S->board.side][cell] > HISTORY_GOOD);
    return r < 0 ? 0 : r > depth - 1 ? depth - 1 : r;
}

HOT int
big_pvs(BigSearch *S, int depth, int alpha, int beta, int ply)
{
    BigBoard *b = &S->board;
    if (count_node(&S->clock)) {
        return 0;
    }
    int me = b->side, them = !me;
    if (cells_any(&b->five[me])) {
        return WIN - ply - 1;
    }
    int threats = cells_count(&b->five[them]);
    if (threats >= 2) {
        return -(WIN - ply - 2);
    }
    if (b->count >= b->sh->cells) {
        return 0;
    }
    if (threats && !big_legal(b, cells_first(&b->five[them]))) {
        return -(WIN - ply - 2); /* renju: X may not block */
    }
    if (!threats && big_legal_flex4(b, me) >= 0) {
        return WIN - ply - 3;
    }
    if (ply >= MAX_PLY - 4) {
        return big_static_value(b);
    }
    /* Below the root a win is a win: the window stops at WIN_LIMIT, so that a
     * win found cuts off without a search for a faster one, and a loss found
     * leaves the other moves a search for any way not to lose, not for a
     * slower loss. The values stay fail-soft bounds, a win's distance the
     * one found. (The window so stays inside the values of the soonest win
     * or loss possible here, WIN - ply - 1 and -(WIN - ply - 2).) */
    if (beta > WIN_LIMIT) {
        beta = WIN_LIMIT;
    }
    if (alpha < -WIN_LIMIT) {
        alpha = -WIN_LIMIT;
    }
    if (alpha >= beta) {
        return alpha;
    }
    if (depth <= 0 && !threats) {
        return big_quiesce(S, depth, alpha, beta, ply);
    }
    int pv = beta - alpha > 1;
    uint64_t key0, key1;
    big_key(b, &key0, &key1);
    int first = -1, entry_value, bound, entry_depth = -1, move, known = 0, table_value = 0;
    if (table_probe_big(S->tt, key0, key1, &entry_value, &bound, &entry_depth, &move)) {
        S->hits++;
        known = 1;
        table_value = from_table(entry_value, ply);
        if (move < b->sh->cells && !b->stone[move] && big_legal(b, move)) {
            first = move;
        }
        if (!pv && entry_depth >= depth &&
            (bound == BOUND_EXACT || (bound == BOUND_LOWER && table_value >= beta) ||
             (bound == BOUND_UPPER && table_value <= alpha))) {
            return table_value;
        }
    }
    else {
        S->misses++;
    }
    int facing = big_threat_flex4(b, them) >= 0; /* an open three: the moves are its defences */
    /* No move from the table at a deep node: the table has not seen it, or
     * not at any depth worth keeping; a ply less (internal iterative
     * reduction) finds it a move the next visit starts from. */
    if (first < 0 && !threats && depth >= IIR_DEPTH) {
        depth--;
    }
    /* The static evaluation, kept by ply for the improving flag (answering a
     * four, the other side's negated, as no evaluation is made there). */
    int improving = 0;
    if (threats) {
        int before_it = ply > 0 ? S->eval_at[ply - 1] : EVAL_NONE;
        S->eval_at[ply] = before_it != EVAL_NONE ? -before_it : EVAL_NONE;
    }
    else {
        int eval = big_static_value(b);
        S->eval_at[ply] = eval;
        improving = ply >= 2 && S->eval_at[ply - 2] != EVAL_NONE && eval > S->eval_at[ply - 2];
        /* The table's bound, where it says better than the evaluation. */
        if (known && table_value > -WIN_LIMIT && table_value < WIN_LIMIT &&
            (bound == BOUND_EXACT ||
             (bound == BOUND_LOWER ? table_value > eval : table_value < eval))) {
            eval = table_value;
        }
        if (!pv && !facing && beta > -WIN_LIMIT &&
            eval - FUTILITY_MARGIN * (depth - improving) >= beta) {
            return eval; /* futility pruning */
        }
    }
    /* The table's move first, before the others are generated: a cut-off
     * there costs no generation. (Not where the moves are forced or must
     * defend: there the table's move may not be among them.) */
    Picker moves;
    int staged = first >= 0 && !threats && !facing;
    if (staged) {
        moves.count = moves.next = 0;
    }
    else {
        big_candidates(S, first, ply, &moves);
        if (moves.count == 0) {
            return big_static_value(b);
        }
    }
    int n = staged ? MAX_BRANCH : moves.count < MAX_BRANCH ? moves.count : MAX_BRANCH;
    /* A forced block costs no depth: the answer to a four is no choice. */
    int child_depth = threats ? depth : depth - 1;
    uint64_t before = S->clock.nodes;
    int best = -WIN - 1, best_move = -1, a = alpha;
    for (int i = 0; i < n; i++) {
        int c;
        if (staged && i == 0) {
            c = first;
        }
        else {
            if (staged && i == 1) {
                big_candidates(S, first, ply, &moves);
                /* Leave the table's move out: it was searched. */
                for (int j = 0; j < moves.count; j++) {
                    if (moves.cell[j] == first) {
                        moves.cell[j] = moves.cell[0];
                        moves.score[j] = moves.score[0];
                        moves.next = 1;
                        break;
                    }
                }
                n = moves.count < MAX_BRANCH ? moves.count : MAX_BRANCH;
                if (i >= n) {
                    break;
                }
            }
            c = pick(&moves);
            if (c < 0) {
                break;
            }
        }
        if (!pv && !threats && best > -WIN_LIMIT &&
            i >= move_count[table_row(depth)] << improving) {
            break; /* move-count pruning */
        }
        /* Against an open three the later defences (and one's own fours)
         * are reduced as late quiet moves are. */
        int reduce =
            !threats && (facing || big_is_quiet(b, c)) ? big_reduction(S, depth, i, c, pv) : 0;
        big_play(b, c);
        int value;
        if (i == 0) {
            value = -big_pvs(S, child_depth, -beta, -a, ply + 1);
        }
        else {
            value = -big_pvs(S, child_depth - reduce, -a - 1, -a, ply + 1);
            if (value > a && reduce && !S->clock.stop) {
                value = -big_pvs(S, child_depth, -a - 1, -a, ply + 1);
            }
            if (value > a && value < beta && !S->clock.stop) {
                value = -big_pvs(S, child_depth, -beta, -a, ply + 1);
            }
        }
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
                    if (big_is_quiet(b, c) && ply < MAX_PLY) {
                        if (S->killers[ply][0] != c) {
                            S->killers[ply][1] = S->killers[ply][0];
                            S->killers[ply][0] = (int16_t)c;
                        }
                        S->history[me][c] += depth * depth;
                    }
                    break;
                }
            }
        }
    }
    /* (A forced block below the horizon keeps a deeper search's entry.) */
    if (depth > 0 || entry_depth <= 0) {
        int stored = best <= alpha ? BOUND_UPPER : best >= beta ? BOUND_LOWER : BOUND_EXACT;
        table_store_big(S->tt, key0, key1, to_table(best, ply), stored, depth, best_move,
                        S->clock.nodes - before);
    }
    return best;
}
