/*
 * The big board (up to 20x20, any k from 3 to the longer side, either rule):
 * stones per line as bit masks, and per empty cell the pattern each side
 * would make there in each direction, kept incrementally as stones are
 * played and taken back. The search never recounts a line: it reads the
 * sets of cells below (five, four, flex4, three) and the running sums.
 *
 * A cell's kind, for one side, combines its four patterns (pattern.h):
 *   K_FIVE   a stone here wins (some direction is P_FIVE);
 *   K_FLEX4  it makes two five points at once (a P_F4, or two P_B4): the
 *            other side can stop one, not both;
 *   K_B4F3   a four and an open three; K_F3F3 two open threes;
 *   K_B4     one four; K_F3 one open three; K_B3, K_F2, K_QUIET: less.
 * The sets hold, per side, the empty cells of each kind that matters to the
 * threat searches: five (K_FIVE), flex4 (K_FLEX4), four (any cell making a
 * five point: K_FLEX4, K_B4F3, K_B4), three (any cell making an open three,
 * P_F3 in some direction).
 *
 * The evaluation (evaluation.c states it) is the sum over empty cells of what
 * each cell is worth to the side to move, less what it is worth to the other.
 */
#ifndef BIG_BOARD_H
#define BIG_BOARD_H

#include "pattern.h"

#include <stddef.h>

#define BIG_MAX_SIDE 20
#define BIG_MAX_CELLS 400
#define BIG_MAX_LINES 118 /* 20 rows, 20 columns, 39 + 39 diagonals */
#define CELL_WORDS 7      /* 400 bits */
#define NEAR_CELLS 24     /* a 5x5 square's cells but its centre */

enum { K_QUIET = 0, K_F2, K_B3, K_F3, K_B4, K_F3F3, K_B4F3, K_FLEX4, K_FIVE, KINDS };

/* A set of cells, one bit each. */
typedef struct {
    uint64_t w[CELL_WORDS];
} Cells;

static inline void
cells_add(Cells *s, int c)
{
    s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static inline void
cells_remove(Cells *s, int c)
{
    s->w[c >> 6] &= ~((uint64_t)1 << (c & 63));
}

static inline int
cells_has(const Cells *s, int c)
{
    return (int)(s->w[c >> 6] >> (c & 63) & 1);
}

static inline int
cells_any(const Cells *s)
{
    uint64_t any = 0;
    for (int i = 0; i < CELL_WORDS; i++) {
        any |= s->w[i];
    }
    return any != 0;
}

static inline int
cells_count(const Cells *s)
{
    int count = 0;
    for (int i = 0; i < CELL_WORDS; i++) {
        count += __builtin_popcountll(s->w[i]);
    }
    return count;
}

/* The lowest cell of the set, or -1. */
static inline int
cells_first(const Cells *s)
{
    for (int i = 0; i < CELL_WORDS; i++) {
        if (s->w[i]) {
            return i * 64 + __builtin_ctzll(s->w[i]);
        }
    }
    return -1;
}

/* Iterate: for (int c = cells_next(&s, -1); c >= 0; c = cells_next(&s, c)). */
static inline int
cells_next(const Cells *s, int after)
{
    int start = after + 1;
    int i = start >> 6;
    if (i >= CELL_WORDS) {
        return -1;
    }
    uint64_t bits = s->w[i] & (~(uint64_t)0 << (start & 63));
    for (;;) {
        if (bits) {
            return i * 64 + __builtin_ctzll(bits);
        }
        if (++i >= CELL_WORDS) {
            return -1;
        }
        bits = s->w[i];
    }
}

/* The rules (the core's rule numbers, python/big.c's too): freestyle, k or more
 * in a row win; exact, exactly k do; renju (k = 5), X (the first player,
 * Black) wins with exactly five and may not play a forbidden move (renju.c),
 * O (White) wins with five or more. */
enum { RULE_FREESTYLE = 0, RULE_EXACT = 1, RULE_RENJU = 2 };

/* A board's shape: its lines, and where each cell lies on them. */
typedef struct {
    int rows, cols, k, rule, cells;
    int exact; /* X's rows of k + 1 or more do not win (exact, renju) */
    int renju; /* X's forbidden moves are illegal (renju) */
    int half;  /* the pattern window's half width, both sides' */
    int nlines;
    const Patterns *patterns[2]; /* each side's: X's and O's differ under renju */
    uint8_t line_of[BIG_MAX_CELLS][4];
    uint8_t place[BIG_MAX_CELLS][4];
    uint8_t line_len[BIG_MAX_LINES];
    int16_t line_cell[BIG_MAX_LINES][BIG_MAX_SIDE];
    uint64_t wall[BIG_MAX_LINES]; /* every bit of a line's mask outside the line */
    int16_t near[BIG_MAX_CELLS][NEAR_CELLS];
    uint8_t near_count[BIG_MAX_CELLS];
    uint64_t salt0, salt1; /* the shape's part of every position's key */
    /* What a stone ``offset`` cells along a line adds to a cell's code:
     * weight[offset + half] (see BigBoard.code), for the side that owns it;
     * twice that for the other side. */
    uint32_t weight[2 * PATTERN_MAX_HALF + 1];
} BigShape;

/* Build the shape of rows x cols with k in a row under ``rule`` (RULE_*);
 * returns 0, or -1 when the shape or the rule is out of range (renju: k = 5)
 * or its patterns cannot be built (no memory). Call with the GIL held: the
 * first use of a (k, rule) builds its patterns. */
int big_shape_init(BigShape *sh, int rows, int cols, int k, int rule);

/* The evaluation's network (evaluation.c): its hidden width. */
#define NET_HIDDEN 16

/* The running sums and the sets of cells (see above), kept as one block. */
#define BIG_SUMS                                                                                   \
    int32_t worth_sum[2]; /* as the side to move's cells */                                      \
    int32_t other_sum[2]; /* as the other side's */                                                \
    int16_t kinds[2][KINDS]; /* each side's empty cells of each kind */                           \
    int32_t net[2][2][NET_HIDDEN]; /* [side][its cells as the mover's, as the other's] */         \
    Cells five[2], flex4[2], four[2], three[2];
typedef struct {
    BIG_SUMS
} BigSums;

/* What big_play() changed around its cell, for big_undo() to put back: one
 * cell's code along one direction, and its patterns and combinations then. */
typedef struct {
    int16_t cell;
    uint8_t d;
    uint8_t pattern[2];
    uint16_t combo[2];
    uint32_t code[2];
} BigChange;
/* A move changes at most the other cells of its 4 lines. */
#define BIG_MAX_CHANGES (BIG_MAX_CELLS * 4 * (BIG_MAX_SIDE - 1))

typedef struct {
    const BigShape *sh;
    int side;  /* the side to move: 0 (X) or 1 (O) */
    int count; /* stones on the board */
    uint64_t hash0, hash1;
    uint8_t stone[BIG_MAX_CELLS]; /* 0 empty, 1 X, 2 O */
    uint64_t line_stones[2][BIG_MAX_LINES];
    /* Each empty cell's window along each direction for each side, as its
     * pattern table's index (see pattern_lookup()), kept as stones come and
     * go: where the shape's patterns have a table, a pattern is one lookup.
     * A stone's cell keeps the window it had when the stone came, which is
     * right again when the stone is taken back (moves are taken back in the
     * reverse order), so nothing around a stone is kept up to date. */
    uint32_t code[BIG_MAX_CELLS][4][2];
    uint8_t pattern[BIG_MAX_CELLS][2][4];
    uint16_t combo[BIG_MAX_CELLS][2]; /* the four patterns' combination: see cell_kind() */
    struct {
        BIG_SUMS
    }; /* (one block: big_play() saves it whole, as a BigSums) */
    Cells near; /* empty cells within two of a stone (a 5x5 square) */
    uint8_t near_stones[BIG_MAX_CELLS];
    /* The undo stack (not cleared by big_board_init(): only its height is).
     * Before each move, the sums and sets (worth_sum to three, copied whole)
     * and the height of the changes; big_undo() puts both back, so taking a
     * move back costs copies, not pattern lookups. */
    int changes;
    struct {
        BigSums sums;
        int changes;
        int cell; /* the move played */
    } saved[BIG_MAX_CELLS];
    BigChange change[BIG_MAX_CHANGES];
} BigBoard;

/* What a combination of four patterns makes of a cell: its kind, the sets
 * it belongs to (IN_*), its worth. One table of PATTERNS^4 entries. */
enum { IN_FIVE = 1, IN_FLEX4 = 2, IN_FOUR = 4, IN_THREE = 8 };
typedef struct {
    int16_t worth;       /* to the side to move: the evaluation's, and the move order's */
    int16_t worth_other; /* to the side not to move */
    uint8_t kind;
    uint8_t sets;
    uint16_t cls; /* its class (COMBINATION_CLASSES): the network's row */
} Combination;
#define COMBINATIONS (PATTERNS * PATTERNS * PATTERNS * PATTERNS)
extern Combination combinations[COMBINATIONS];

/* The pattern side ``s`` would make on the empty ``cell`` along ``d`` if the
 * other side held ``blocked`` too (a cell of its window there): one lookup.
 * Only where the shape's patterns have a table. */
static inline int
pattern_if_blocked(const BigBoard *b, int cell, int d, int s, int blocked)
{
    const BigShape *sh = b->sh;
    int offset = sh->place[blocked][d] - sh->place[cell][d];
    return sh->patterns[s]->table[b->code[cell][d][s] + 2 * sh->weight[offset + sh->half]];
}

/* The kind and the worth of an empty cell for side ``s``. */
static inline int
cell_kind(const BigBoard *b, int cell, int s)
{
    return combinations[b->combo[cell][s]].kind;
}

static inline int
cell_worth(const BigBoard *b, int cell, int s)
{
    return combinations[b->combo[cell][s]].worth;
}

/* An empty board of the shape, X to move. */
void big_board_init(BigBoard *b, const BigShape *sh);

/* The side to move places a stone on the empty cell; big_undo() takes it back. */
void big_play(BigBoard *b, int cell);
void big_undo(BigBoard *b, int cell);

/* The evaluation for the side to move (see evaluation.c). */
int big_evaluate(const BigBoard *b);

/* Fill the table of combinations (evaluation.c) from the weights in force,
 * once; big_shape_init() calls it. */
void big_combinations_init(void);

/* The threats on the board, as the side to move sees them (the evaluation's
 * THREAT_VALUE[] is indexed by it): a bit for each kind of cell that either
 * side has at least one of, THREAT_* below. The side to move's open-four and
 * five cells, and the other side's five cells, have no bit: where they are,
 * the search decides before it evaluates. */
enum {
    THREAT_B4F3 = 1 << 0, /* the side to move can make a four and an open three at once */
    THREAT_B4 = 1 << 1,   /* ... a four */
    THREAT_F3F3 = 1 << 2, /* ... two open threes at once */
    THREAT_F3 = 1 << 3,   /* ... an open three */
    THREAT_THEIR_FLEX4 = 1 << 4, /* the other side can make an open four (it has an open three) */
    THREAT_THEIR_B4F3 = 1 << 5,
    THREAT_THEIR_B4 = 1 << 6,
    THREAT_THEIR_F3F3 = 1 << 7,
    THREAT_THEIR_F3 = 1 << 8,
    THREAT_MASKS = 1 << 9,
};
static inline int
big_threat_mask(const BigBoard *b)
{
    const int16_t *mine = b->kinds[b->side], *theirs = b->kinds[!b->side];
    return (mine[K_B4F3] > 0 ? THREAT_B4F3 : 0) | (mine[K_B4] > 0 ? THREAT_B4 : 0) |
           (mine[K_F3F3] > 0 ? THREAT_F3F3 : 0) | (mine[K_F3] > 0 ? THREAT_F3 : 0) |
           (theirs[K_FLEX4] > 0 ? THREAT_THEIR_FLEX4 : 0) |
           (theirs[K_B4F3] > 0 ? THREAT_THEIR_B4F3 : 0) | (theirs[K_B4] > 0 ? THREAT_THEIR_B4 : 0) |
           (theirs[K_F3F3] > 0 ? THREAT_THEIR_F3F3 : 0) | (theirs[K_F3] > 0 ? THREAT_THEIR_F3 : 0);
}

/* Replace the evaluation's weights: a worth per pattern (PATTERNS), a bonus
 * per kind (KINDS), each for the side to move's cells [0] and the other
 * side's [1], and the tempo, each within +-EVALUATION_WEIGHT_LIMIT (so that a
 * cell's worth fits its int16 and no sum overflows); -1 if one is not. Only
 * before any board is made: boards keep running sums of the weights they
 * were made with. ``correction`` (or NULL: none) adds a worth per class of
 * combination to each side's cells, within the same limit. Called with the
 * GIL held, at import. */
#define EVALUATION_WEIGHT_LIMIT 2000
/* A combination's class: its four patterns as a multiset, numbered in
 * lexicographic order of the sorted patterns (a <= b <= c <= d), as
 * Python's itertools.combinations_with_replacement(range(PATTERNS), 4). */
#define COMBINATION_CLASSES 715
int big_set_evaluation(const int pattern_worth[2][PATTERNS], const int kind_bonus[2][KINDS],
                       int tempo, const int correction[2][COMBINATION_CLASSES]);

/* Replace the value of each threat mask (big_threat_mask()), each within
 * +-THREAT_VALUE_LIMIT; -1 if one is not. As big_set_evaluation(): only
 * before any board is made, with the GIL held. */
#define THREAT_VALUE_LIMIT 4000
int big_set_threat_values(const int values[THREAT_MASKS]);

/* The evaluation's network (evaluation.c says what it computes): a row of
 * NET_HIDDEN weights per class of combination for the side to move's cells
 * ([0]) and for the other side's ([1]), and per threat mask, each weight
 * within +-NET_WEIGHT_LIMIT; a bias per hidden value within
 * +-NET_BIAS_LIMIT; an output weight per hidden value within
 * +-NET_OUT_LIMIT and an output bias within +-THREAT_VALUE_LIMIT; and a
 * weight per hidden value for the linear sum's value (``linear``, within
 * +-NET_LINEAR_LIMIT, in units of 2^-NET_LINEAR_SHIFT of a hidden unit per
 * unit of the evaluation; the value clamped to +-NET_INPUT_LIMIT first).
 * Hidden values count in units of 2^-16 (NET_SHIFT); all 0 (as before any
 * call) is no network. -1 if a weight is out of range. As
 * big_set_evaluation(): only before any board is made, with the GIL held. */
#define NET_WEIGHT_LIMIT 32767
#define NET_BIAS_LIMIT (1 << 20)
#define NET_OUT_LIMIT 16384
#define NET_SHIFT 16
#define NET_LINEAR_LIMIT (1 << 20)
#define NET_LINEAR_SHIFT 8
#define NET_INPUT_LIMIT 16384
int big_set_network(const int cells[2][COMBINATION_CLASSES][NET_HIDDEN],
                    const int mask[THREAT_MASKS][NET_HIDDEN], const int bias[NET_HIDDEN],
                    const int out[NET_HIDDEN], int out_bias, const int linear[NET_HIDDEN]);
/* The network's rows of the cells' classes, as big_set_network() took them
 * (board.c keeps each side's sums of them as the board plays). */
extern int16_t big_net_cells[2][COMBINATION_CLASSES][NET_HIDDEN];

/* The position's key in the shared table (its entries are ENTRY_BIG, apart
 * from the small boards'); the top bit keeps the first word from 0, an empty
 * slot's. */
static inline void
big_key(const BigBoard *b, uint64_t *key0, uint64_t *key1)
{
    uint64_t side = b->side ? 0x9e3779b97f4a7c15ULL : 0;
    *key0 = (b->hash0 ^ b->sh->salt0 ^ side) | (uint64_t)1 << 63;
    *key1 = b->hash1 ^ b->sh->salt1 ^ side;
}

/* The cell ``steps`` from ``cell`` along direction ``d`` (0 across, 1 down,
 * 2 down-right, 3 down-left), or -1 off the board. */
static inline int
big_step(const BigShape *sh, int cell, int d, int steps)
{
    int l = sh->line_of[cell][d], p = sh->place[cell][d] + steps;
    return p >= 0 && p < sh->line_len[l] ? sh->line_cell[l][p] : -1;
}

/* Renju (renju.c): what forbids X's move on an empty ``cell`` (FORBID_*),
 * whoever is to move, or FORBID_NONE; always FORBID_NONE under the other
 * rules. */
enum { FORBID_NONE = 0, FORBID_OVERLINE = 1, FORBID_DOUBLE_FOUR = 2, FORBID_DOUBLE_THREE = 3 };
int big_forbidden(const BigBoard *b, int cell);

/* Whether X's move on the empty ``cell`` could be forbidden at all: a cheap
 * test that passes every forbidden cell (two threes or fours there by X's
 * patterns, or a row of six), so that big_forbidden() runs on few cells. */
static inline int
big_maybe_forbidden(const BigBoard *b, int cell)
{
    int kind = combinations[b->combo[cell][0]].kind;
    if (kind == K_F3F3 || kind == K_B4F3 || kind == K_FLEX4) {
        return 1;
    }
    if (kind == K_FIVE) {
        return 0; /* exactly five: a win, never forbidden */
    }
    const BigShape *sh = b->sh;
    for (int d = 0; d < 4; d++) {
        int l = sh->line_of[cell][d], at = sh->half + sh->place[cell][d];
        uint64_t own = b->line_stones[0][l];
        int run = 1;
        for (int i = at + 1; own >> i & 1; i++) {
            run++;
        }
        for (int i = at - 1; i >= 0 && (own >> i & 1); i--) {
            run++;
        }
        if (run > sh->k) {
            return 1;
        }
    }
    return 0;
}

/* Whether the side to move may play on the empty ``cell``: always, but for X
 * under renju on a forbidden cell. */
static inline int
big_legal(const BigBoard *b, int cell)
{
    return !(b->sh->renju && b->side == 0 && big_maybe_forbidden(b, cell) &&
             big_forbidden(b, cell));
}

/* The first of ``side``'s flex4 cells it may play now, or -1: under renju,
 * X's forbidden ones are none (a double four is one of them). */
int big_legal_flex4(const BigBoard *b, int side);

/* The first of ``side``'s flex4 cells that threatens: one it may play now and
 * still may after any one stone of the other side, or -1. The other side
 * must answer it, and every answer that leaves a legal flex4 loses (under
 * renju, O's stone can make X's forbidden cell legal, or, by making a false
 * three real, its legal one forbidden: a flex4 with a second three beside
 * its four is no threat). */
int big_threat_flex4(const BigBoard *b, int side);
int big_flex4_threatens(const BigBoard *b, int side, int cell); /* one flex4 cell's test */

#endif
