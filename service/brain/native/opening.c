/*
 * Swap openings: SWAP2BOARD's answers, chosen by the engine's own evaluation
 * to leave the game as balanced as it can (docs/brain.md gives the reasoning; this is the method, step by step):
 *
 * - three stones to place: each candidate of OPENINGS that fits and does not
 *   end the game is searched with an equal share of the turn; the one whose
 *   score is nearest 0 is placed, the earlier on a tie;
 * - a colour to choose: the position is searched (FIRST_LOOK_SHARE of the turn
 *   where two stones may follow, else all of it); its score is White's: below
 *   0 the brain swaps to Black, else it plays White's best move; under swap2 at
 *   three stones a score within BALANCED of 0 puts two stones instead;
 * - two stones to put: for each of White's PUT_TWO_WHITES best moves the
 *   position after it is searched, and the pair (White's move, Black's reply)
 *   whose score is nearest 0 is put, the better-ranked White move and then the
 *   lower cell on a tie; a pair that ends the game never.
 */
#include "brain.h"

#include <math.h>
#include <string.h>

static const int OPENINGS[][3][2] = {
    {{0, 0}, {2, 0}, {1, 1}},  {{0, 0}, {1, 1}, {-1, -1}}, {{0, 0}, {1, 0}, {2, 1}},
    {{0, 0}, {1, 1}, {2, 2}},  {{0, 0}, {0, 2}, {2, 0}},   {{0, 0}, {1, 1}, {-2, 0}},
    {{0, 0}, {1, 0}, {0, 2}},  {{0, 0}, {0, 1}, {2, 2}},
};
#define OPENING_COUNT ((int)(sizeof(OPENINGS) / sizeof(OPENINGS[0])))
#define BALANCED 0.1
#define FIRST_LOOK_SHARE (1.0 / 3)
#define PUT_TWO_WHITES 4

/* The board of ``stones`` in play order, alternating from Black (X). */
static void
position_of(int cols, int rows, int rule, const int *stones, int count, Position *p)
{
    memset(p, 0, sizeof(*p));
    p->cols = cols;
    p->rows = rows;
    p->k = rows < cols ? rows : cols;
    p->k = p->k < DEFAULT_K ? p->k : DEFAULT_K;
    p->rule = rule;
    for (int i = 0; i < count; i++) {
        p->stone[stones[i]] = (uint8_t)(i % 2 == 0 ? 1 : 2);
    }
    p->marks = count;
    p->x_to_move = count % 2 == 0;
}

static int
place_three(int cols, int rows, int rule, Evaluate evaluate, void *context, Analysis *scratch,
            Answer *out, char *error, size_t size)
{
    int candidates[OPENING_COUNT][3], count = 0;
    int centre_col = cols / 2, centre_row = rows / 2;
    for (int i = 0; i < OPENING_COUNT; i++) {
        int fits = 1;
        for (int j = 0; j < 3; j++) {
            int x = centre_col + OPENINGS[i][j][0], y = centre_row + OPENINGS[i][j][1];
            fits &= x >= 0 && x < cols && y >= 0 && y < rows;
            candidates[count][j] = y * cols + x;
        }
        Position p;
        if (fits) {
            position_of(cols, rows, rule, candidates[count], 3, &p);
            count += !position_is_game_over(&p);
        }
    }
    if (count == 0) {
        snprintf(error, size, "no opening of three stones fits a %dx%d board", cols, rows);
        return -1;
    }
    int best = -1;
    double best_score = 0;
    for (int i = 0; i < count; i++) {
        Position p;
        position_of(cols, rows, rule, candidates[i], 3, &p);
        int found = evaluate(context, &p, 1.0 / count, scratch);
        if (found < 0) {
            return -2;
        }
        double score = fabs(scratch->moves[0].score);
        if (best < 0 || score < best_score) {
            best = i;
            best_score = score;
        }
    }
    out->swap = 0;
    out->count = 3;
    memcpy(out->stones, candidates[best], sizeof(out->stones));
    return 0;
}

/* White's stone and Black's that leave the five stones nearest even; 0 when
 * none is found (every pair ends the game), -2 when a search was cancelled. */
static int
put_two(const Position *board, const Analysis *first, double share, Evaluate evaluate,
        void *context, Analysis *replies, Answer *out)
{
    int whites = first->count < PUT_TWO_WHITES ? first->count : PUT_TWO_WHITES;
    int found = 0, best_rank = 0, best_white = 0, best_black = 0;
    double best_value = 0;
    for (int rank = 0; rank < whites; rank++) {
        int white = first->moves[rank].cell;
        Position after;
        position_play(board, white, &after);
        if (position_is_game_over(&after)) {
            continue; /* the game is over: no position to search */
        }
        if (evaluate(context, &after, share / whites, replies) < 0) {
            return -2;
        }
        for (int i = 0; i < replies->count; i++) {
            Position five;
            position_play(&after, replies->moves[i].cell, &five);
            if (position_is_game_over(&five)) {
                continue;
            }
            double value = fabs(replies->moves[i].score);
            int black = replies->moves[i].cell;
            /* The key (|value|, White's rank, White's cell, Black's cell), least first. */
            int better = !found || value < best_value ||
                         (value == best_value &&
                          (rank < best_rank || (rank == best_rank && black < best_black)));
            if (better) {
                found = 1;
                best_value = value;
                best_rank = rank;
                best_white = white;
                best_black = black;
            }
        }
    }
    if (found) {
        out->swap = 0;
        out->count = 2;
        out->stones[0] = best_white;
        out->stones[1] = best_black;
    }
    return found;
}

static int
choose_colour(const Position *board, Evaluate evaluate, void *context, int may_put_two,
              Answer *out)
{
    Analysis *first = malloc(sizeof(Analysis)), *replies = malloc(sizeof(Analysis));
    int result = 0;
    if (first == NULL || replies == NULL) {
        result = -3;
        goto done;
    }
    if (evaluate(context, board, may_put_two ? FIRST_LOOK_SHARE : 1.0, first) < 0) {
        result = -2;
        goto done;
    }
    double score = first->moves[0].score; /* White's: White is to move */
    if (may_put_two && fabs(score) <= BALANCED) {
        int two = put_two(board, first, 1 - FIRST_LOOK_SHARE, evaluate, context, replies, out);
        if (two != 0) {
            result = two < 0 ? two : 0;
            goto done;
        }
    }
    out->count = 0;
    out->swap = score < 0;
    if (!out->swap) {
        out->count = 1;
        out->stones[0] = analysis_best_move(first);
    }
done:
    free(first);
    free(replies);
    return result;
}

int
opening_choose(int cols, int rows, int rule, const int *stones, int count, int opening,
               Evaluate evaluate, void *context, Answer *out, char *error, size_t size)
{
    static const int STAGES[3][3] = {{0, 0, 0}, {0, 1, 3}, {0, 3, 5}}; /* by OPENING_* */
    const int *stages = STAGES[opening == OPENING_SWAP1 ? OPENING_SWAP1 : OPENING_SWAP2];
    if (count != stages[0] && count != stages[1] && count != stages[2]) {
        snprintf(error, size, "SWAP2BOARD under %s takes %d, %d or %d stones; got %d",
                 opening == OPENING_SWAP1 ? "swap1" : "swap2", stages[0], stages[1], stages[2],
                 count);
        return -1;
    }
    if (count == 0) {
        Analysis *scratch = malloc(sizeof(Analysis));
        if (scratch == NULL) {
            snprintf(error, size, "internal error: out of memory");
            return -1;
        }
        int result = place_three(cols, rows, rule, evaluate, context, scratch, out, error, size);
        free(scratch);
        return result;
    }
    Position board;
    position_of(cols, rows, rule, stones, count, &board);
    if (position_check_in_progress(&board, error, size) < 0) {
        return -1;
    }
    int may_put_two = opening != OPENING_SWAP1 && count == 3;
    int result = choose_colour(&board, evaluate, context, may_put_two, out);
    if (result == -3) {
        snprintf(error, size, "internal error: out of memory");
        return -1;
    }
    return result;
}

void
answer_text(const Answer *a, int cols, char *out, size_t size)
{
    if (a->swap) {
        snprintf(out, size, "SWAP");
        return;
    }
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < a->count && used < size; i++) {
        used += (size_t)snprintf(out + used, size - used, "%s%d,%d", i ? " " : "",
                                 a->stones[i] % cols, a->stones[i] / cols);
    }
}
