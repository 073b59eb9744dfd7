/*
 * The big-board search: one per root analysis, on one thread, over the board
 * of board.h, with the shared table (table.h) and the clock (clock.h) the
 * small boards' searches use too.
 *
 * Values inside it count plies from the search's root: a win whose last
 * stone is played p plies after the root is WIN - p, a loss the negative;
 * estimates lie strictly inside (-ESTIMATE_LIMIT, ESTIMATE_LIMIT). Only the
 * threat searches (threats.c) and the tactics prove anything: a win the main
 * search (search.c) finds among its candidate moves is an estimate, since it
 * did not look at every reply.
 *
 * The files: threats.c (continuous fours and threes, the defences against a
 * three), search.c (alpha-beta/PVS with iterative deepening, move order and
 * candidates), quiesce.c (the quiescence search over fours at the horizon),
 * root.c (every candidate's value, proofs and lines), deepen.c (the root's
 * iterative deepening, its estimates).
 */
#ifndef BIG_SEARCH_H
#define BIG_SEARCH_H

#include "../clock.h"
#include "../table.h"
#include "board.h"

#define WIN 30000
#define WIN_LIMIT (WIN - 1000) /* a value beyond this is a win or a loss */
#define ESTIMATE_LIMIT 20000
#define MAX_PLY 128
#define VCF_MAX_DEPTH 40 /* attacker moves of a continuous-four search */
#define EVAL_NONE (-2 * WIN) /* no static evaluation at that ply */
#define THREAT_BITS 16  /* per-search memo of failed threat searches: 65,536 entries */

typedef struct {
    uint64_t key0, key1;
    uint8_t depth; /* the attacker moves searched without a win */
    uint8_t kind;  /* THREAT_VCF or THREAT_VCT */
} ThreatMemo;

enum { THREAT_VCF = 1, THREAT_VCT = 2 };

typedef struct {
    BigBoard board; /* played and taken back as the search goes */
    Table *tt;
    Clock clock;
    uint64_t hits, misses;
    ThreatMemo *memo; /* allocated on first use */
    int16_t killers[MAX_PLY][2];
    int32_t history[2][BIG_MAX_CELLS];
    int root_moves; /* the root's candidates: a cap on the branching below */
    int eval_at[MAX_PLY]; /* each ply's static evaluation on the current line, or EVAL_NONE */
    uint64_t quiet_until; /* the node count a horizon node's quiescence search ends at */
    int max_depth;  /* > 0: a fixed-depth search, without the threat proofs */
    int root_count; /* the stones at the search's root */
} BigSearch;

/* A line of play: the cells in order. */
typedef struct {
    int length;
    int16_t cell[BIG_MAX_CELLS];
} Line;

/* Whether the side to move wins by continuous fours (every move a four, so
 * every reply is forced) within ``depth`` of its moves: the plies to the win
 * (odd), with the line in ``line``, or 0 (none found, or the clock stopped). */
int big_vcf(BigSearch *S, int depth, Line *line);

/* The same with open threes as well as fours (threats that must be answered
 * within two moves): the most plies the win can take against any defence, and
 * its principal line, or 0. Every defence against each three is searched:
 * big_defences() lists them. */
int big_vct(BigSearch *S, int depth, int vcf_depth, Line *line);

/* big_vct() at depths 1, 2, ... up to ``depth``: the shortest wins first,
 * and each failure, remembered, prunes the deeper tries. */
int big_vct_deepening(BigSearch *S, int depth, int vcf_depth, Line *line);

/* The moves of the side to move that stop the other side's open fours to be
 * (its flex4 cells), and its own fours: every move not listed loses. */
void big_defences(BigSearch *S, Cells *out);

/* The value of the board for its side to move, searched ``depth`` plies
 * (PVS within (alpha, beta), ply counted from the root). */
int big_pvs(BigSearch *S, int depth, int alpha, int beta, int ply);

/* Moves with their places in the order, handed out best first by pick(). */
typedef struct {
    int count, next;
    int16_t cell[BIG_MAX_CELLS];
    int score[BIG_MAX_CELLS];
} Picker;

/* The best move not yet handed out, or -1. Picking on demand, not sorting: a
 * node cut off after its first move or two pays for little more. */
static inline int
pick(Picker *p)
{
    if (p->next >= p->count) {
        return -1;
    }
    int best = p->next;
    for (int i = p->next + 1; i < p->count; i++) {
        if (p->score[i] > p->score[best]) {
            best = i;
        }
    }
    int16_t cell = p->cell[best];
    int score = p->score[best];
    p->cell[best] = p->cell[p->next];
    p->score[best] = p->score[p->next];
    p->cell[p->next] = cell;
    p->score[p->next] = score;
    return p->cell[p->next++];
}

/* The candidate moves of the side to move: the forced block, or against an
 * open three the defences, else the cells near stones and threats; ``first``
 * (or -1) ahead of all. */
void big_candidates(BigSearch *S, int first, int ply, Picker *out);

/* A move's place in the order: what it makes and takes, killers, history. */
int big_move_order(const BigSearch *S, int cell, int ply);

/* Whether a move makes nothing for either side: no three or four of its own,
 * none of the other side's taken. */
static inline int
big_is_quiet(const BigBoard *b, int c)
{
    return cell_kind(b, c, b->side) < K_F3 && cell_kind(b, c, !b->side) < K_F3;
}

/* A search's state, allocated whole (the board's undo stack is large), with
 * its threat memo; NULL when memory runs out. big_search_renew() readies a
 * state for the next analysis of the same game: history halved (its
 * knowledge ages, it is not thrown away), killers cleared (their plies
 * counted from the old root), the memo of failed threat searches kept (a
 * failure is a fact about a position, true at any later move). */
BigSearch *big_search_new(void);
void big_search_renew(BigSearch *S);
void big_search_free(BigSearch *S);

/* Fill the search's shared tables (the late-move reductions); call once with
 * the GIL held, before any search. */
void big_search_init(void);

/* How many plies shallower a late quiet move is searched first (search.c). */
int big_reduction(const BigSearch *S, int depth, int place, int cell, int pv);

/* The evaluation of the board for its side to move, an estimate. */
static inline int
big_static_value(const BigBoard *b)
{
    int v = big_evaluate(b);
    return v >= ESTIMATE_LIMIT    ? ESTIMATE_LIMIT - 1
           : v <= -ESTIMATE_LIMIT ? -ESTIMATE_LIMIT + 1
                                  : v;
}

/* Table values of wins and losses count plies from the position, not the root. */
static inline int
to_table(int value, int ply)
{
    return value > WIN_LIMIT ? value + ply : value < -WIN_LIMIT ? value - ply : value;
}

static inline int
from_table(int value, int ply)
{
    return value > WIN_LIMIT ? value - ply : value < -WIN_LIMIT ? value + ply : value;
}

/* The quiescence search over fours at the horizon (quiesce.c): big_pvs()
 * hands it a node at depth 0 or below with no five point to block. */
int big_quiesce(BigSearch *S, int depth, int alpha, int beta, int ply);

/* The table's best move for the position, or -1. */
int big_tt_move(BigSearch *S);

#endif
