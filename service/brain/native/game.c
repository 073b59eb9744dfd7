/*
 * One game as the manager describes it: the board's size, the rule,
 * and the stones in the order they came, the brain's, the opponent's and dead
 * ones (BOARD's field 3). The engine has no neutral cell, so game_position()
 * gives each dead stone to the opponent, where it blocks the brain's rows as a
 * wall does, unless that would complete a row for the opponent; then to the
 * brain; a dead stone that would complete a row for either side is an error.
 * Also the referee's questions the engine's Board answers for the service: a
 * row under the rule, a finished game.
 */
#include "brain.h"

#include <string.h>

void
game_new(Game *g, int cols, int rows, int rule)
{
    g->cols = cols;
    g->rows = rows;
    g->rule = rule;
    g->count = 0;
    g->dead_count = 0;
}

int
game_cell(const Game *g, int64_t x, int64_t y, char *error, size_t size)
{
    if (x < 0 || x >= g->cols || y < 0 || y >= g->rows) {
        snprintf(error, size, "%lld,%lld is off the %dx%d board", (long long)x, (long long)y,
                 g->cols, g->rows);
        return -1;
    }
    return (int)(y * g->cols + x);
}

static int
is_taken(const Game *g, int cell)
{
    for (int i = 0; i < g->dead_count; i++) {
        if (g->dead[i] == cell) {
            return 1;
        }
    }
    for (int i = 0; i < g->count; i++) {
        if (g->cell[i] == cell) {
            return 1;
        }
    }
    return 0;
}

/* The cell of x,y if it is free, else -1 and the error. */
static int
free_cell(const Game *g, int64_t x, int64_t y, char *error, size_t size)
{
    int cell = game_cell(g, x, y, error, size);
    if (cell >= 0 && is_taken(g, cell)) {
        snprintf(error, size, "%lld,%lld is already taken", (long long)x, (long long)y);
        return -1;
    }
    return cell;
}

int
game_place(Game *g, int64_t x, int64_t y, int mine, char *error, size_t size)
{
    int cell = free_cell(g, x, y, error, size);
    if (cell < 0) {
        return -1;
    }
    g->cell[g->count] = (int16_t)cell;
    g->mine[g->count++] = (uint8_t)(mine != 0);
    return 0;
}

int
game_place_dead(Game *g, int64_t x, int64_t y, char *error, size_t size)
{
    int cell = free_cell(g, x, y, error, size);
    if (cell < 0) {
        return -1;
    }
    g->dead[g->dead_count++] = (int16_t)cell;
    return 0;
}

int
game_take_back(Game *g, int64_t x, int64_t y, char *error, size_t size)
{
    int cell = game_cell(g, x, y, error, size);
    if (cell < 0) {
        return -1;
    }
    for (int i = 0; i < g->count; i++) {
        if (g->cell[i] == cell) {
            memmove(&g->cell[i], &g->cell[i + 1], sizeof(g->cell[0]) * (size_t)(g->count - i - 1));
            memmove(&g->mine[i], &g->mine[i + 1], sizeof(g->mine[0]) * (size_t)(g->count - i - 1));
            g->count--;
            return 0;
        }
    }
    snprintf(error, size, "%lld,%lld is empty: nothing to take back", (long long)x, (long long)y);
    return -1;
}

static int
min_int(int a, int b)
{
    return a < b ? a : b;
}

int
game_position(const Game *g, Position *p, char *error, size_t size)
{
    int mine = 0, theirs = 0;
    for (int i = 0; i < g->count; i++) {
        mine += g->mine[i];
        theirs += !g->mine[i];
    }
    /* The side with fewer stones moves: X (under renju, Black) when the counts
     * are equal. */
    int brain_is_x = mine <= theirs;
    int my_stone = brain_is_x ? 1 : 2, their_stone = brain_is_x ? 2 : 1;
    memset(p, 0, sizeof(*p));
    p->cols = g->cols;
    p->rows = g->rows;
    p->k = min_int(min_int(g->rows, g->cols), DEFAULT_K);
    /* Renju needs 9x9; its closest rule there: exactly five, as the service plays it. */
    p->rule = g->rule == RULE_RENJU && min_int(g->rows, g->cols) < 9 ? RULE_EXACT : g->rule;
    p->x_to_move = brain_is_x;
    for (int i = 0; i < g->count; i++) {
        p->stone[g->cell[i]] = (uint8_t)(g->mine[i] ? my_stone : their_stone);
    }
    p->marks = g->count;
    for (int i = 0; i < g->dead_count; i++) {
        int cell = g->dead[i];
        p->stone[cell] = (uint8_t)their_stone;
        if (!position_has_row(p, their_stone)) {
            p->marks++;
            continue;
        }
        p->stone[cell] = (uint8_t)my_stone;
        if (!position_has_row(p, my_stone)) {
            p->marks++;
            continue;
        }
        snprintf(error, size, "the dead stone at %d,%d would complete a row for either side",
                 cell % g->cols, cell / g->cols);
        return -1;
    }
    return 0;
}

/* The rows, as geometry.py lists them: every window of k cells along a row,
 * a column or a diagonal, in its order (direction, then row, then column),
 * won by a side that holds all of it and, under the exact rule where a row of
 * k + 1 fits (under renju, for X), neither of the cells that flank it. Calls found(window) for
 * each won by ``side`` until it returns nonzero; returns how many it saw. */
static int
winning_lines(const Position *p, int side, int (*found)(void *, const int *), void *context)
{
    static const int steps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}}; /* (rows, columns) */
    int overlines = (p->rule == RULE_EXACT && (p->rows > p->k || p->cols > p->k)) ||
                    (p->rule == RULE_RENJU && side == 1); /* renju: X's six is no five */
    int count = 0;
    for (int d = 0; d < 4; d++) {
        int dr = steps[d][0], dc = steps[d][1];
        for (int r = 0; r < p->rows; r++) {
            for (int c = 0; c < p->cols; c++) {
                int er = r + dr * (p->k - 1), ec = c + dc * (p->k - 1);
                if (er < 0 || er >= p->rows || ec < 0 || ec >= p->cols) {
                    continue;
                }
                int window[DEFAULT_K > MAX_SIDE ? DEFAULT_K : MAX_SIDE], held = 1;
                for (int i = 0; i < p->k; i++) {
                    window[i] = (r + dr * i) * p->cols + c + dc * i;
                    held &= p->stone[window[i]] == side;
                }
                const int ends[2][2] = {{r - dr, c - dc}, {r + dr * p->k, c + dc * p->k}};
                for (int e = 0; e < 2 && held && overlines; e++) {
                    int fr = ends[e][0], fc = ends[e][1];
                    held = !(fr >= 0 && fr < p->rows && fc >= 0 && fc < p->cols &&
                             p->stone[fr * p->cols + fc] == side);
                }
                if (held) {
                    count++;
                    if (found != NULL && found(context, window)) {
                        return count;
                    }
                }
            }
        }
    }
    return count;
}

static int
first_line(void *context, const int *window)
{
    (void)context;
    (void)window;
    return 1;
}

int
position_has_row(const Position *p, int side)
{
    return winning_lines(p, side, first_line, NULL) > 0;
}

/* board.py's description of the won lines: "cells 1,2,3 and cells ...". */
typedef struct {
    char *out;
    size_t size, used;
    int k;
} Described;

static int
describe_line(void *context, const int *window)
{
    Described *d = context;
    for (int i = 0; i < d->k && d->used < d->size; i++) {
        const char *before = i > 0 ? "," : d->used > 0 ? " and cells " : "cells ";
        d->used += (size_t)snprintf(d->out + d->used, d->size - d->used, "%s%d", before, window[i]);
    }
    return 0;
}

int
position_check_in_progress(const Position *p, char *error, size_t size)
{
    for (int side = 1; side <= 2; side++) {
        if (position_has_row(p, side)) {
            char lines[1024] = "";
            Described described = {lines, sizeof(lines), 0, p->k};
            winning_lines(p, side, describe_line, &described);
            snprintf(error, size, "%s has won on %s; there is no move to suggest",
                     side == 1 ? "X" : "O", lines);
            return -1;
        }
    }
    if (p->marks >= p->cols * p->rows) {
        snprintf(error, size, "the board is full and the game is drawn; there is no move to suggest");
        return -1;
    }
    return 0;
}

int
position_is_game_over(const Position *p)
{
    char ignored[128];
    return position_check_in_progress(p, ignored, sizeof(ignored)) < 0;
}

void
position_play(const Position *p, int cell, Position *after)
{
    *after = *p;
    after->stone[cell] = (uint8_t)(p->x_to_move ? 1 : 2);
    after->x_to_move = !p->x_to_move;
    after->marks++;
}
