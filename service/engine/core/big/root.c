/*
 * The root of a big board's analysis: the candidate moves' values, in phases.
 *
 *   1. Tactics, before any budgeted work (every one is a proof, and its
 *      distance is exact): a row to complete wins in 1 ply; two five points
 *      of the other side make every move a loss in 2, one makes every move
 *      but its block a loss in 2; a move making two five points, while the
 *      other side has none, wins in 3; against an open three, every move that
 *      is neither a defence nor a four loses in 4.
 *   2. Threat proofs for the side to move, each with a share of the budget:
 *      continuous fours (VCF), then fours and threes (VCT). The first move of
 *      a win found is a proven win, its distance bounded by the proof's.
 *   3. Threat proofs against each remaining candidate: the other side's VCF
 *      after it proves it a loss.
 * A search of fixed depth (max_depth, for weaker play and as a baseline)
 * keeps the tactics and skips phases 2 and 3.
 *
 *   4. Estimates of what is left, by iterative deepening of big_pvs() over
 *      the moves no proof settled (deepen.c says how).
 *
 * The listed moves are the candidates: the empty cells within two of a stone
 * and every cell that makes a four or a three for either side (the centre on
 * an empty board). The other legal moves are omitted; when a tactic proves
 * their value (a loss in 2 or in 4) it is reported for all of them at once.
 */
#include "root.h"

/* Each phase's share of the node budget and of the time left before the deadline. */
#define VCF_SHARE 10    /* percent for the mover's continuous fours */
#define VCT_SHARE 20    /* ... for its fours and threes */
#define LOSS_SHARE 10   /* ... for the other side's fours after each candidate */
#define VERIFY_SHARE 5  /* ... kept from the estimates to check the best against threes */
#define VERIFY_MOVES 4  /* the most moves that check refutes before the best is kept */
#define VCT_DEPTH 8   /* attacker moves of the VCT, continuous fours below included */
#define VCT_VCF_DEPTH 12

static inline int
count_line(const Line *line)
{
    return line->length;
}

/* Proven values, as the small boards' core reports them: mark-counted. */
static double
win_value(const BigBoard *b, int plies)
{
    return (double)(b->sh->cells - b->count + 1 - plies);
}

static void
set_proof(BigRootMove *m, const BigBoard *b, int plies, int exact, const Line *line)
{
    int win = plies > 0;
    int distance = win ? plies : -plies;
    m->value = win ? win_value(b, distance) : -win_value(b, distance);
    m->exact = exact;
    m->proven = exact ? 0 : (win ? 1 : -1);
    m->settled = 1;
    if (line != NULL) {
        m->line = *line;
    }
}

/* A move the other side's forced win of ``plies`` answers: a proven loss, its
 * line the move and then that win. */
static void
set_refuted(BigRootMove *m, const BigBoard *b, int plies, const Line *proof)
{
    Line line;
    line.length = 0;
    line.cell[line.length++] = (int16_t)m->cell;
    for (int j = 0; j < count_line(proof) && line.length < BIG_MAX_CELLS; j++) {
        line.cell[line.length++] = proof->cell[j];
    }
    set_proof(m, b, -(plies + 1), 0, &line);
}

/* Under renju, whether O's move ``c`` makes a four whose five point X may not
 * take (and X has none): a win in 3 plies, its line (the four) in ``proof``. */
static int
unblockable_four(BigBoard *b, int c, Line *proof)
{
    if (!b->sh->renju || b->side != 1 || !cells_has(&b->four[1], c) || cells_any(&b->five[0])) {
        return 0;
    }
    big_play(b, c);
    int point = cells_first(&b->five[1]);
    int won = cells_count(&b->five[1]) == 1 && !big_legal(b, point);
    big_undo(b, c);
    if (!won) {
        return 0;
    }
    proof->length = 1;
    proof->cell[0] = (int16_t)c;
    return 1;
}

/* The line the table knows from the position after ``first``. */
static void
known_line(BigSearch *S, int first, Line *line)
{
    BigBoard *b = &S->board;
    int played[64], n = 0;
    line->length = 0;
    line->cell[line->length++] = (int16_t)first;
    big_play(b, first);
    played[n++] = first;
    while (n < 64 && b->count < b->sh->cells) {
        int me = b->side;
        int next = cells_first(&b->five[me]);
        if (next < 0) {
            next = cells_first(&b->five[!me]);
            if (next >= 0 && !big_legal(b, next)) {
                break; /* renju: X may not block */
            }
        }
        if (next < 0) {
            next = big_tt_move(S);
        }
        if (next < 0) {
            break;
        }
        line->cell[line->length++] = (int16_t)next;
        if (cells_has(&b->five[me], next)) {
            break; /* the row is complete */
        }
        big_play(b, next);
        played[n++] = next;
    }
    while (n > 0) {
        big_undo(b, played[--n]);
    }
}

static uint64_t
share(uint64_t budget, int percent)
{
    return budget / 100 * (uint64_t)percent + 1;
}

/* The mover's win by threats: continuous fours within ``vcf_nodes`` nodes
 * and ``vcf_percent`` of the time left, else fours and threes within
 * ``vct_nodes`` and ``vct_percent``. The plies of the win (0: none found),
 * *kind 1 or 2 as big_threat_win() says, and its line. */
static int
threat_phases(BigSearch *S, uint64_t vcf_nodes, int vcf_percent, uint64_t vct_nodes,
              int vct_percent, int *kind, Line *line)
{
    line->length = 0;
    uint64_t limit = allow(&S->clock, vcf_nodes);
    int64_t phase = allow_time(&S->clock, vcf_percent);
    int plies = big_vcf(S, VCF_MAX_DEPTH, line);
    unallow_time(&S->clock, phase);
    unallow(&S->clock, limit);
    *kind = plies ? 1 : 0;
    if (!plies && !S->clock.stop) {
        limit = allow(&S->clock, vct_nodes);
        phase = allow_time(&S->clock, vct_percent);
        plies = big_vct_deepening(S, VCT_DEPTH, VCT_VCF_DEPTH, line);
        unallow_time(&S->clock, phase);
        unallow(&S->clock, limit);
        *kind = plies ? 2 : 0;
    }
    return plies;
}

/* 5. The best estimate against the other side's fours and threes: a move
 * after which they win by VCT is a proven loss, and the next best is checked,
 * up to VERIFY_MOVES moves. (Phase 3 only looked for their fours.) */
static void
verify_best(BigSearch *S, BigRootMove *moves, int count, uint64_t budget)
{
    BigBoard *b = &S->board;
    for (int tried = 0; tried < VERIFY_MOVES && !S->clock.stop; tried++) {
        BigRootMove *best = NULL;
        for (int i = 0; i < count; i++) {
            if (!moves[i].settled && (best == NULL || moves[i].value > best->value)) {
                best = &moves[i];
            }
        }
        if (best == NULL) {
            return;
        }
        Line proof;
        big_play(b, best->cell);
        uint64_t limit = allow(&S->clock, (budget > S->clock.nodes ? budget - S->clock.nodes : 0) / 2 + 1);
        int plies = big_vct_deepening(S, VCT_DEPTH, VCT_VCF_DEPTH, &proof);
        unallow(&S->clock, limit);
        big_undo(b, best->cell);
        if (!plies) {
            return;
        }
        set_refuted(best, b, plies, &proof);
    }
}

BigRootResult
big_analyze(BigSearch *S, uint64_t budget, BigRootMove *moves, int *count)
{
    BigBoard *b = &S->board;
    const BigShape *sh = b->sh;
    int me = b->side, them = !me;
    BigRootResult result = {0, STOP_NONE, 0, 0.0, 0};
    int deadline_hit = 0, cancelled = 0, decided = 0;

    /* The candidates, in the order of the move generator's static scores. */
    int16_t cells[BIG_MAX_CELLS];
    Cells listed;
    memset(&listed, 0, sizeof(listed));
    Cells all = b->near;
    for (int i = 0; i < CELL_WORDS; i++) {
        all.w[i] |= b->four[me].w[i] | b->three[me].w[i] | b->four[them].w[i] | b->three[them].w[i] |
                    b->five[me].w[i] | b->five[them].w[i];
    }
    if (b->count == 0) {
        cells_add(&all, (sh->rows / 2) * sh->cols + sh->cols / 2);
    }
    /* Under renju X's forbidden cells are no moves: neither listed nor omitted. */
    int n = 0, forbidden = 0;
    for (int c = 0; c < sh->cells; c++) {
        if (!b->stone[c] && !big_legal(b, c)) {
            forbidden++;
        }
        else if (cells_has(&all, c)) {
            cells[n++] = (int16_t)c;
        }
    }
    for (int i = 0; i < n; i++) {
        BigRootMove *m = &moves[i];
        memset(m, 0, sizeof(*m));
        m->cell = cells[i];
        m->line.length = 1;
        m->line.cell[0] = cells[i];
        cells_add(&listed, cells[i]);
    }
    *count = n;
    int empty_cells = sh->cells - b->count;
    result.omitted = empty_cells - forbidden - n;

    /* 1. Tactics. */
    int their_points = cells_count(&b->five[them]);
    Cells defence;
    int facing_three = 0;
    if (!cells_any(&b->five[me]) && !their_points && big_legal_flex4(b, me) < 0 &&
        big_threat_flex4(b, them) >= 0) {
        big_defences(S, &defence);
        facing_three = 1;
    }
    for (int i = 0; i < n; i++) {
        BigRootMove *m = &moves[i];
        int c = m->cell;
        Line proof;
        if (cells_has(&b->five[me], c)) {
            set_proof(m, b, 1, 1, NULL);
        }
        else if (cells_any(&b->five[me])) {
            continue; /* a win is at hand: the others are searched below */
        }
        else if (their_points >= 2 || (their_points == 1 && !cells_has(&b->five[them], c))) {
            big_play(b, c);
            proof.length = 2;
            proof.cell[0] = (int16_t)c;
            proof.cell[1] = (int16_t)cells_first(&b->five[them]);
            big_undo(b, c);
            set_proof(m, b, -2, 1, &proof);
        }
        else if (!their_points && cells_has(&b->flex4[me], c)) {
            big_play(b, c);
            proof.length = 3;
            proof.cell[0] = (int16_t)c;
            proof.cell[1] = (int16_t)cells_first(&b->five[me]);
            proof.cell[2] = (int16_t)cells_next(&b->five[me], proof.cell[1]);
            big_undo(b, c);
            set_proof(m, b, 3, 1, &proof);
        }
        else if (!their_points && unblockable_four(b, c, &proof)) {
            set_proof(m, b, 3, 1, &proof);
        }
        else if (facing_three && !cells_has(&defence, c)) {
            /* The other side makes its open four, and completes a row past the block. */
            big_play(b, c);
            int flex = big_legal_flex4(b, them);
            if (flex < 0) { /* (none: the defences say there is one) */
                big_undo(b, c);
                continue;
            }
            big_play(b, flex);
            proof.length = 4;
            proof.cell[0] = (int16_t)c;
            proof.cell[1] = (int16_t)flex;
            proof.cell[2] = (int16_t)cells_first(&b->five[them]);
            proof.cell[3] = (int16_t)cells_next(&b->five[them], proof.cell[2]);
            big_undo(b, flex);
            big_undo(b, c);
            set_proof(m, b, -4, 1, &proof);
        }
    }
    if (their_points >= 1 && !cells_any(&b->five[me])) {
        result.omitted_proven = 1;
        result.omitted_value = -win_value(b, 2);
    }
    else if (facing_three) {
        result.omitted_proven = 1;
        result.omitted_value = -win_value(b, 4);
    }
    clock_check(&S->clock, &deadline_hit, &cancelled);

    int won = 0;
    for (int i = 0; i < n; i++) {
        won |= moves[i].settled && moves[i].value > 0;
    }
    /* 2. The mover's threats (not in a search of fixed depth). */
    int prove = S->max_depth == 0;
    if (prove && !won && !their_points && !deadline_hit && !cancelled) {
        Line proof;
        int kind;
        int plies = threat_phases(S, share(budget, VCF_SHARE), VCF_SHARE,
                                  share(budget, VCT_SHARE), VCT_SHARE, &kind, &proof);
        if (plies) {
            for (int i = 0; i < n; i++) {
                if (moves[i].cell == proof.cell[0] && !moves[i].settled) {
                    set_proof(&moves[i], b, plies, 0, &proof);
                    won = 1;
                }
            }
        }
        phase_stopped(&S->clock, &deadline_hit, &cancelled);
    }

    /* 3. The other side's continuous fours after each candidate. */
    if (prove && !deadline_hit && !cancelled) {
        int open = 0;
        for (int i = 0; i < n; i++) {
            open += !moves[i].settled;
        }
        uint64_t each = open ? share(budget, LOSS_SHARE) / (uint64_t)open + 1 : 0;
        int64_t phase = allow_time(&S->clock, LOSS_SHARE);
        for (int i = 0; i < n && !S->clock.stop && !time_over(&S->clock); i++) {
            BigRootMove *m = &moves[i];
            if (m->settled) {
                continue;
            }
            Line proof;
            big_play(b, m->cell);
            uint64_t limit = allow(&S->clock, each);
            int plies = big_vcf(S, VCF_MAX_DEPTH, &proof);
            unallow(&S->clock, limit);
            big_undo(b, m->cell);
            if (plies) {
                set_refuted(m, b, plies, &proof);
            }
        }
        unallow_time(&S->clock, phase);
        phase_stopped(&S->clock, &deadline_hit, &cancelled);
    }

    /* 4. Estimates. Depth 1 only after a deadline, and when the choice is
     * made: a win is proven, or every move but one is a proven loss. */
    if (!cancelled) {
        int open = 0, lost = 0;
        for (int i = 0; i < n; i++) {
            open += !moves[i].settled;
            lost += moves[i].settled && moves[i].value < 0;
        }
        int forced = open == 1 && lost == n - 1 && (result.omitted == 0 || result.omitted_proven);
        int deepest = S->max_depth > 0 && S->max_depth < DEEPEST ? S->max_depth : DEEPEST;
        if (won || forced) {
            deepest = 1;
            decided = !deadline_hit;
        }
        /* What 5. needs is kept from the estimates: VERIFY_SHARE of the
         * nodes left and of the time left. */
        uint64_t until = budget;
        int verify = prove && !won && !forced && !deadline_hit;
        if (verify && S->clock.nodes < budget) {
            until = budget - (budget - S->clock.nodes) / 100 * VERIFY_SHARE;
        }
        S->clock.limit = deadline_hit ? S->clock.nodes : until;
        int64_t phase = verify ? allow_time(&S->clock, 100 - VERIFY_SHARE) : 0;
        result.depth = big_deepen(S, moves, n, until, deepest);
        int timed_out = 0;
        if (verify) {
            /* The estimates' share ran out, not the search's: in time, that
             * is the deadline's doing. */
            timed_out = S->clock.stop == STOP_BUDGET && time_over(&S->clock);
            unallow_time(&S->clock, phase);
            if (S->clock.stop == STOP_BUDGET) {
                S->clock.stop = STOP_NONE;
            }
            S->clock.limit = budget;
            verify_best(S, moves, n, budget);
        }
        phase_stopped(&S->clock, &deadline_hit, &cancelled);
        deadline_hit |= timed_out;
    }
    for (int i = 0; i < n && !cancelled; i++) {
        BigRootMove *m = &moves[i];
        if (!m->settled) {
            known_line(S, m->cell, &m->line);
        }
    }
    int inexact = 0;
    for (int i = 0; i < n; i++) {
        inexact += !moves[i].exact;
    }
    if (result.omitted > 0 && !result.omitted_proven) {
        inexact++;
    }
    if (cancelled) {
        result.stop = STOP_CANCELLED;
    }
    else if (inexact) {
        result.stop = deadline_hit ? STOP_DEADLINE : decided ? STOP_DECIDED : STOP_BUDGET;
    }
    return result;
}

int
big_threat_win(BigSearch *S, uint64_t nodes, int *kind, Line *line)
{
    return threat_phases(S, nodes, 100, nodes, 100, kind, line);
}
