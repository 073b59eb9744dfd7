/*
 * The root of a small board's analysis: every legal move's value, in phases
 * (see analyze_root()).
 */
#include "root.h"
#include "zones.h"

/* The table's best move for a position, in the position's own frame, or -1. */
static int
tt_move(Search *S, const Node *n)
{
    uint64_t key0, key1;
    int frame = canonical(S->sh, n, &key0, &key1);
    int lower, upper, move;
    if (!tt_probe(S, key0, key1, &lower, &upper, &move, NULL)) {
        return -1;
    }
    int cell = S->sh->inverse[frame][move];
    return ((n->me | n->opp) >> cell) & 1 ? -1 : cell;
}

/* The line of play from a position whose exact value ``value`` (for its side to
 * move) is a proven win or loss: at each ply a move that keeps the value,
 * checked by a search in a window of width two around it, until the winning
 * move. So a win in n plies gives a line of exactly n moves. */
static int
proven_line(Search *S, const Node *start, int value, uint8_t *out, int room)
{
    const Shape *sh = S->sh;
    Node node = *start, child;
    int length = 0;
    while (length < room && node.marks < sh->cells) {
        if (node.my_thr && value == sh->cells - node.marks) {
            out[length++] = (uint8_t)__builtin_ctzll(node.my_thr);
            break;
        }
        Moves moves;
        if (node.opp_thr) {
            forced_move(node.opp_thr, &moves);
        }
        else {
            gen_moves(sh, &node, tt_move(S, &node), &moves);
        }
        int found = -1, cell;
        while ((cell = next_move(&moves)) >= 0) {
            play(sh, &node, cell, &child);
            int reply = solve(S, &child, -value - 1, -value + 1);
            if (S->clock.stop) {
                return length;
            }
            if (reply == -value) {
                found = cell;
                break;
            }
        }
        if (found < 0) {
            break;
        }
        out[length++] = (uint8_t)found;
        node = child;
        value = -value;
    }
    return length;
}

/* The line as far as it is known, for draws and estimates: forced replies,
 * immediate wins and the table's best moves, until the table knows no more. */
static int
known_line(Search *S, const Node *start, uint8_t *out, int room)
{
    const Shape *sh = S->sh;
    Node node = *start, child;
    int length = 0;
    while (length < room && node.marks < sh->cells) {
        int cell;
        if (node.my_thr) {
            out[length++] = (uint8_t)__builtin_ctzll(node.my_thr);
            break;
        }
        if (node.opp_thr) {
            cell = __builtin_ctzll(node.opp_thr);
        }
        else if ((cell = tt_move(S, &node)) < 0) {
            break;
        }
        out[length++] = (uint8_t)cell;
        play(sh, &node, cell, &child);
        node = child;
    }
    return length;
}

/* Settle one root move's outcome with at most ``allowance`` nodes: can the
 * mover win after it, can the opponent (nowin(), where ``use_nowin``)?
 * Neither is a draw; what they leave open goes to solve().
 * ``mover_cannot_win`` and ``opponent`` (nowin() for the opponent after a
 * pass) come from the root's own proofs. Returns whether the move's outcome
 * is now proven. */
static int
settle_move(Search *S, const Node *child, int use_nowin, int mover_cannot_win, int opponent,
            uint64_t allowance, RootMove *m)
{
    int mine = !use_nowin         ? NW_UNKNOWN
               : mover_cannot_win ? NW_NOWIN
                                  : prove_nowin(S, child, 0, allowance / 2);
    if (mine == NW_WIN) {
        m->value = 1;
        m->proven = 1;
        return 1;
    }
    m->no_win |= mine == NW_NOWIN;
    /* An opponent that wins even after a pass is strong: its wins are for
     * solve(), which finds them sooner than nowin(). */
    if (mine == NW_NOWIN && opponent != NW_WIN) {
        int theirs = opponent == NW_NOWIN ? NW_NOWIN : prove_nowin(S, child, 1, allowance / 2);
        if (theirs == NW_NOWIN) {
            m->value = 0;
            m->exact = 1; /* a draw is a draw: its score is 0 whatever the length */
            return 1;
        }
        if (theirs == NW_WIN) {
            m->value = -1;
            m->proven = -1;
            return 1;
        }
    }
    if (S->clock.stop) {
        return 0;
    }
    /* What the proofs left open, by the full search in a window around a draw. */
    uint64_t limit = allow(&S->clock, allowance);
    int value = -solve(S, child, -1, 1);
    int stopped = S->clock.stop;
    unallow(&S->clock, limit);
    if (stopped) {
        return 0;
    }
    m->value = value;
    if (value >= 1) {
        m->proven = 1;
    }
    else if (value <= -1) {
        m->proven = -1;
    }
    else {
        m->exact = 1;
    }
    return 1;
}

/* Fill ``moves`` (one per empty cell) and return the depth reached and why the
 * search stopped (STOP_NONE when every value is proven exactly). The phases,
 * each with what is left of the budget up to its share:
 *   1. tactics (no budget): immediate wins, and the losses beside a forced block;
 *   2. the outcome of every move: on boards of ROOT_VCT_MIN_CELLS or more,
 *      first a win of the mover's by threats (vct()); then by nowin() and
 *      alpha-beta in a window of width one around the draw (a draw found
 *      there is exact; a win or loss may lack its distance);
 *   3. the exact distance of the proven wins and losses;
 *   4. estimates, by iterative deepening, of what is still unknown (depth 1
 *      always completes, whatever the budget or the deadline), and a check of
 *      the wins and losses they found. */
RootResult
analyze_root(Search *S, const Node *root, uint64_t budget, uint64_t outcome_budget,
             uint64_t distance_budget, RootMove *moves, int *count)
{
    const Shape *sh = S->sh;
    int cells = sh->cells, marks = root->marks, empties = cells - marks;
    Moves ordered;
    gen_moves(sh, root, -1, &ordered);
    uint8_t order[MAX_CELLS];
    int n = 0;
    for (int cell; (cell = next_move(&ordered)) >= 0;) {
        order[n++] = (uint8_t)cell;
    }
    uint64_t keys[MAX_CELLS][2]; /* each child's smallest image: equal for symmetric moves */
    int reps[MAX_CELLS], nreps = 0;
    Node child;
    for (int i = 0; i < n; i++) {
        play(sh, root, order[i], &child);
        canonical_image(sh, &child, &keys[i][0], &keys[i][1]);
        int rep = i;
        for (int j = 0; j < i; j++) {
            if (keys[j][0] == keys[i][0] && keys[j][1] == keys[i][1]) {
                rep = moves[j].rep;
                break;
            }
        }
        moves[i].cell = order[i];
        moves[i].rep = rep;
        moves[i].exact = 0;
        moves[i].proven = 0;
        moves[i].no_win = 0;
        moves[i].value = 0;
        moves[i].line[0] = order[i]; /* every line starts with its move */
        moves[i].line_length = 1;
        if (rep == i) {
            reps[nreps++] = i;
        }
    }
    *count = n;
    RootResult result = {empties, STOP_NONE};
    int deadline_hit = 0, cancelled = 0, limit = cells + 1;

    /* 1. Tactics, before any budgeted work. */
    int win_now = cells - marks, lose_next = -(cells - marks - 1);
    for (int r = 0; r < nreps; r++) {
        RootMove *m = &moves[reps[r]];
        uint64_t bit = (uint64_t)1 << m->cell;
        if (root->my_thr & bit) {
            m->value = win_now;
            m->exact = 1;
        }
        else if (!root->my_thr && root->opp_thr && (root->opp_thr & ~bit)) {
            m->value = lose_next; /* the opponent still completes a line next move */
            m->exact = 1;
        }
    }
    clock_check(&S->clock, &deadline_hit, &cancelled);

    /* 2. The outcome of every move. */
    S->clock.limit = outcome_budget;
    /* Two proofs for all the moves at once, by nowin(): if the mover cannot
     * win here, none of its moves wins; if the opponent cannot win even when
     * the mover passes, it cannot win after any move (an extra mark never
     * hurts). Each gets at most half of what is left. */
    int mover_cannot_win = 0, opponent = NW_UNKNOWN;
    int use_nowin = empties >= NOWIN_MIN_EMPTIES;
    /* A win by threats first, with at most a quarter of what is left: where
     * the mover has one, nowin()'s proof that it cannot win is not needed. */
    int threat_win = 0;
    if (use_nowin && cells >= ROOT_VCT_MIN_CELLS && !deadline_hit && !cancelled && !root->my_thr &&
        !root->opp_thr) {
        uint64_t outer = allow(&S->clock, (S->clock.limit - S->clock.nodes) / 4);
        int cell;
        threat_win = vct(S, root, VCT_DEPTH, &cell) && !S->clock.stop;
        unallow(&S->clock, outer); /* (a deadline or a cancel stays seen: S->clock.stop) */
        for (int i = 0; i < n && threat_win; i++) {
            RootMove *m = &moves[moves[i].rep];
            if (moves[i].cell == cell && !m->exact) {
                m->value = 1;
                m->proven = 1;
                m->no_win = 0;
            }
        }
    }
    if (use_nowin && !threat_win && !S->clock.stop && !deadline_hit && !cancelled &&
        !root->my_thr && !(root->opp_thr & (root->opp_thr - 1))) {
        mover_cannot_win = prove_nowin(S, root, 1, (S->clock.limit - S->clock.nodes) / 2) == NW_NOWIN;
        /* (Not under the exact rule, where an extra mark may hurt its owner.) */
        if (!root->opp_thr && !S->clock.stop && !sh->exact) {
            Node passed;
            pass_turn(root, &passed);
            opponent = prove_nowin(S, &passed, 1, (S->clock.limit - S->clock.nodes) / 2);
        }
    }
    int open_moves = 0;
    for (int r = 0; r < nreps; r++) {
        open_moves += !moves[reps[r]].exact && !moves[reps[r]].proven;
    }
    for (int r = 0; r < nreps && mover_cannot_win; r++) {
        moves[reps[r]].no_win = 1;
    }
    /* Where the mover cannot win, one move proven a draw proves the position
     * a draw: the likeliest moves first get a quarter of what is left each,
     * until one is. */
    for (int r = 0, tries = 0; mover_cannot_win && r < nreps && tries < DRAW_TRIES && !S->clock.stop; r++) {
        RootMove *m = &moves[reps[r]];
        if (m->exact && m->value == 0) {
            break;
        }
        if (m->exact || m->proven) {
            continue;
        }
        play(sh, root, m->cell, &child);
        /* (nowin() for the opponent too, strong or not: a draw is its proof.) */
        int strong = opponent == NW_WIN ? NW_UNKNOWN : opponent;
        open_moves -= settle_move(S, &child, use_nowin, mover_cannot_win, strong,
                                  (S->clock.limit - S->clock.nodes) / 4, m);
        tries++;
        if (m->exact) {
            break;
        }
    }
    /* Then each move in rounds, with an allowance that grows fourfold from
     * round to round: easy moves settle in the first, and the hard ones share
     * what is left, none starving the others (a draw among losses needs its
     * proof as much as a win does). */
    uint64_t allowance = use_nowin ? ROUND_FIRST : outcome_budget; /* small: one round */
    while (open_moves && !deadline_hit && !cancelled && !S->clock.stop) {
        for (int r = 0; r < nreps && !S->clock.stop; r++) {
            RootMove *m = &moves[reps[r]];
            if (m->exact || m->proven) {
                continue;
            }
            play(sh, root, m->cell, &child);
            if (settle_move(S, &child, use_nowin, mover_cannot_win, opponent, allowance, m)) {
                open_moves--;
            }
        }
        allowance = allowance < ((uint64_t)1 << 60) ? 4 * allowance : allowance;
    }
    phase_stopped(&S->clock, &deadline_hit, &cancelled);

    /* 3. The distance of the proven wins and losses. */
    S->clock.limit = distance_budget > S->clock.nodes ? distance_budget : S->clock.nodes;
    for (int r = 0; r < nreps && !deadline_hit && !cancelled && !S->clock.stop; r++) {
        RootMove *m = &moves[reps[r]];
        if (m->exact || !m->proven) {
            continue;
        }
        play(sh, root, m->cell, &child);
        int value = -solve(S, &child, -limit, limit);
        if (!S->clock.stop) {
            m->value = value;
            m->exact = 1;
            m->proven = 0;
        }
    }
    phase_stopped(&S->clock, &deadline_hit, &cancelled);

    /* 4. Estimates of what is still unknown. */
    int open = 0;
    for (int r = 0; r < nreps; r++) {
        open += !moves[reps[r]].exact && !moves[reps[r]].proven;
    }
    if (open && !cancelled) {
        if (S->est == NULL) {
            S->est = calloc((size_t)1 << EST_BITS, sizeof(Estimate));
            if (S->est == NULL) {
                result.stop = -1; /* out of memory: the caller raises */
                return result;
            }
        }
        S->clock.limit = deadline_hit ? S->clock.nodes : (budget > S->clock.nodes ? budget : S->clock.nodes);
        double values[MAX_CELLS];
        int reached = 0;
        for (int depth = 1; depth <= empties; depth++) {
            S->clock.unlimited = depth == 1;
            for (int r = 0; r < nreps && !S->clock.stop; r++) {
                RootMove *m = &moves[reps[r]];
                if (m->exact || m->proven) {
                    continue;
                }
                play(sh, root, m->cell, &child);
                values[r] = -estimate(S, &child, depth - 1, -limit, limit);
            }
            S->clock.unlimited = 0;
            if (S->clock.stop) {
                break;
            }
            reached = depth;
            int settled = 1;
            for (int r = 0; r < nreps; r++) {
                RootMove *m = &moves[reps[r]];
                if (!m->exact && !m->proven) {
                    /* A move proven not to win is at best a draw: its estimate
                     * is squashed into (-0.9, 0), below the draws, in order. */
                    m->value = m->no_win && fabs(values[r]) < 1 ? (values[r] - 0.9) / 2 : values[r];
                    settled &= fabs(values[r]) >= 1;
                }
            }
            if (settled) {
                break; /* every open move is a win or loss: deeper changes nothing */
            }
        }
        result.depth = reached;
        if (S->clock.stop == STOP_NONE && !deadline_hit) {
            /* Check the wins and losses the estimate found with what is left of
             * the budget, in a window of width one around each. */
            for (int r = 0; r < nreps && !S->clock.stop; r++) {
                RootMove *m = &moves[reps[r]];
                if (m->exact || m->proven || fabs(m->value) < 1) {
                    continue;
                }
                int expected = -(int)m->value;
                play(sh, root, m->cell, &child);
                int value = solve(S, &child, expected - 1, expected + 1);
                if (!S->clock.stop && value == expected) {
                    m->exact = 1;
                }
            }
        }
        phase_stopped(&S->clock, &deadline_hit, &cancelled);
    }
    else if (!cancelled) {
        /* Every move's outcome is proven; the depth behind the unknown distances
         * is what the outcome search looked at: the rest of the game. */
        result.depth = empties;
    }
    /* 5. The line of play of each move, with a little more budget. */
    if (!cancelled) {
        S->clock.limit = add_saturating(S->clock.nodes, budget / 4 > 10000 ? budget / 4 : 10000);
        for (int r = 0; r < nreps; r++) {
            RootMove *m = &moves[reps[r]];
            play(sh, root, m->cell, &child);
            if (m->exact && m->value != 0 && !S->clock.stop) {
                m->line_length += proven_line(S, &child, -(int)m->value, m->line + 1, MAX_CELLS - 1);
            }
            else if (!(m->exact && m->value == win_now)) {
                m->line_length += known_line(S, &child, m->line + 1, MAX_CELLS - 1);
            }
        }
        phase_stopped(&S->clock, &deadline_hit, &cancelled);
    }
    for (int i = 0; i < n; i++) {
        RootMove *rep = &moves[moves[i].rep];
        moves[i].value = rep->value;
        moves[i].exact = rep->exact;
        moves[i].proven = rep->proven;
        moves[i].no_win = rep->no_win;
        if (i != moves[i].rep) {
            /* A symmetric image: the continuation is the representative's,
             * mapped through the symmetry that takes its child to this one. */
            Node here, there;
            uint64_t k0, k1;
            play(sh, root, rep->cell, &there);
            play(sh, root, moves[i].cell, &here);
            int frame_there = canonical_image(sh, &there, &k0, &k1);
            int frame_here = canonical_image(sh, &here, &k0, &k1);
            moves[i].line[0] = (uint8_t)moves[i].cell;
            for (int j = 1; j < rep->line_length; j++) {
                int canonical_cell = sh->perm[frame_there][rep->line[j]];
                moves[i].line[j] = sh->inverse[frame_here][canonical_cell];
            }
            moves[i].line_length = rep->line_length;
        }
    }
    open = 0;
    for (int i = 0; i < n; i++) {
        open += !moves[i].exact;
    }
    if (cancelled) {
        result.stop = STOP_CANCELLED;
    }
    else if (!open) {
        result.stop = STOP_NONE;
        result.depth = empties;
    }
    else {
        result.stop = deadline_hit ? STOP_DEADLINE : STOP_BUDGET;
    }
    return result;
}

