/*
 * Renju's forbidden moves for X (Black, the first player), read off the
 * board's stones as the rule defines them, stated once:
 *
 *   A move of X that makes exactly five in a row wins, and is never
 *   forbidden. Otherwise it is forbidden when it makes
 *     an overline: six or more of X in a row through it;
 *     a double four: two fours at once (a four: a line on which one more
 *       stone of X makes exactly five; a straight four, .XXXX., is one four;
 *       X.XXX.X made by its middle stone is two);
 *     a double three: two real threes at once (a three: a line on which one
 *       more stone of X makes a straight four; a real one: some such stone
 *       is itself a move X may play, with this move on the board, decided
 *       by this same definition).
 *   Only the lines through the move count: the fours and threes it makes.
 *
 * The recursion places stones that are not on the board: they are kept in a
 * short list beside it (Extra), so that the board's incremental state is
 * never touched and the search may ask at any node. It stops at MAX_DEPTH
 * levels of placed stones; a three still undecided there counts as real (no
 * position of the tests or of play comes near: each level needs a new three
 * crossing the last one's straight-four cell).
 */
#include "board.h"

#define MAX_DEPTH 8
#define REACH 5 /* a five through the cell lies within four cells of it */

typedef struct {
    int count;
    int16_t cell[MAX_DEPTH + 1];
} Extra;

/* X's stones and what blocks X (O's stones, the edge) on ``cell``'s line
 * along ``d``, with the extra stones; the cell's bit is ``*at``. */
static void
line_masks(const BigBoard *b, const Extra *extra, int cell, int d, uint64_t *own,
           uint64_t *blocked, int *at)
{
    const BigShape *sh = b->sh;
    int l = sh->line_of[cell][d];
    *own = b->line_stones[0][l];
    *blocked = b->line_stones[1][l] | sh->wall[l];
    for (int i = 0; i < extra->count; i++) {
        int e = extra->cell[i];
        if (sh->line_of[e][d] == l) {
            *own |= (uint64_t)1 << (sh->half + sh->place[e][d]);
        }
    }
    *at = sh->half + sh->place[cell][d];
}

/* The length of X's run through bit ``at`` (set in ``own``). */
static int
run_at(uint64_t own, int at)
{
    int run = 1;
    for (int i = at + 1; i < 64 && (own >> i & 1); i++) {
        run++;
    }
    for (int i = at - 1; i >= 0 && (own >> i & 1); i--) {
        run++;
    }
    return run;
}

/* The empty bits of the line that make exactly five through ``at`` (set in
 * ``own``): at most one on each side of it. */
static int
five_points(uint64_t own, uint64_t blocked, int at, int points[2])
{
    int n = 0;
    for (int i = at - (REACH - 1); i <= at + (REACH - 1); i++) {
        if (i < 0 || i == at || ((own | blocked) >> i & 1)) {
            continue;
        }
        if (run_at(own | (uint64_t)1 << i, at) == REACH) {
            points[n++] = i;
        }
    }
    return n;
}

/* The fours on a line through ``at``: its five points, a straight four's two
 * (five apart, the four between them) counted once. */
static int
fours_of(uint64_t own, uint64_t blocked, int at)
{
    int points[2];
    int n = five_points(own, blocked, at, points);
    return n == 2 && points[1] - points[0] == REACH ? 1 : n;
}

static int forbidden(const BigBoard *b, Extra *extra, int cell);

/* Whether X's stone at bit ``at`` (set in ``own``) makes a real three on the
 * line of ``cell`` along ``d``: a stone on an empty bit that makes a straight
 * four through it, where X may play with ``cell`` taken. */
static int
real_three(const BigBoard *b, Extra *extra, int cell, int d, uint64_t own, uint64_t blocked, int at)
{
    const BigShape *sh = b->sh;
    int l = sh->line_of[cell][d];
    for (int i = at - (REACH - 1); i <= at + (REACH - 1); i++) {
        if (i < 0 || i == at || ((own | blocked) >> i & 1)) {
            continue;
        }
        int points[2];
        uint64_t more = own | (uint64_t)1 << i;
        if (five_points(more, blocked, at, points) != 2 || points[1] - points[0] != REACH) {
            continue;
        }
        if (extra->count >= MAX_DEPTH) {
            return 1;
        }
        int next = sh->line_cell[l][i - sh->half];
        extra->cell[extra->count++] = (int16_t)cell;
        int allowed = forbidden(b, extra, next) == FORBID_NONE;
        extra->count--;
        if (allowed) {
            return 1;
        }
    }
    return 0;
}

/* What forbids X's stone on the empty ``cell``, with the extra stones placed. */
static int
forbidden(const BigBoard *b, Extra *extra, int cell)
{
    uint64_t own[4], blocked[4];
    int at[4], overline = 0;
    for (int d = 0; d < 4; d++) {
        line_masks(b, extra, cell, d, &own[d], &blocked[d], &at[d]);
        own[d] |= (uint64_t)1 << at[d];
        int run = run_at(own[d], at[d]);
        if (run == REACH) {
            return FORBID_NONE;
        }
        overline |= run > REACH;
    }
    if (overline) {
        return FORBID_OVERLINE;
    }
    int fours = 0, four_on[4];
    for (int d = 0; d < 4; d++) {
        four_on[d] = fours_of(own[d], blocked[d], at[d]);
        fours += four_on[d];
    }
    if (fours >= 2) {
        return FORBID_DOUBLE_FOUR;
    }
    int threes = 0;
    for (int d = 0; d < 4 && threes < 2; d++) {
        if (!four_on[d]) {
            threes += real_three(b, extra, cell, d, own[d], blocked[d], at[d]);
        }
    }
    return threes >= 2 ? FORBID_DOUBLE_THREE : FORBID_NONE;
}

int
big_forbidden(const BigBoard *b, int cell)
{
    if (!b->sh->renju || b->stone[cell]) {
        return FORBID_NONE;
    }
    Extra extra = {0, {0}};
    return forbidden(b, &extra, cell);
}

/* Whether X may play on the empty ``cell``. */
static int
legal_for_x(const BigBoard *b, int cell)
{
    return !big_maybe_forbidden(b, cell) || big_forbidden(b, cell) == FORBID_NONE;
}

int
big_legal_flex4(const BigBoard *b, int side)
{
    const Cells *flex4 = &b->flex4[side];
    for (int c = cells_next(flex4, -1); c >= 0; c = cells_next(flex4, c)) {
        if (side != 0 || !b->sh->renju || legal_for_x(b, c)) {
            return c;
        }
    }
    return -1;
}

int
big_flex4_threatens(const BigBoard *b, int side, int cell)
{
    if (side != 0 || !b->sh->renju) {
        return 1;
    }
    /* No stone of O can forbid X's legal cell when X has at most one P_F3
     * line there: O's stones make no fours nor rows of six, and a double
     * three needs two lines each one stone from a straight four. */
    int threes = 0;
    for (int d = 0; d < 4; d++) {
        threes += b->pattern[cell][0][d] == P_F3;
    }
    return threes <= 1 && legal_for_x(b, cell);
}

int
big_threat_flex4(const BigBoard *b, int side)
{
    const Cells *flex4 = &b->flex4[side];
    for (int c = cells_next(flex4, -1); c >= 0; c = cells_next(flex4, c)) {
        if (big_flex4_threatens(b, side, c)) {
            return c;
        }
    }
    return -1;
}
