/*
 * The big boards' evaluation and its weights (board.c keeps the sums as the
 * board plays; see board.h).
 *
 * The evaluation, stated once: each empty cell is worth, to each side, the
 * sum over its four directions of PATTERN_WORTH[pattern], plus KIND_BONUS
 * for its kind (what its four patterns make together), with one set of
 * weights for the side to move's cells and another for the other side's (a
 * threat is worth more to the side that can make it now). The position is
 * worth, to the side to move, what its cells are worth to it less what they
 * are worth to the other side, plus a tempo for having the move, plus the
 * value of the threats on the board as a whole (THREAT_VALUE[], indexed by
 * big_threat_mask(): which kinds of cell each side has, a correction the sum
 * over cells cannot make, as "an open three of the other side with no four
 * to answer it" is worth far less to the side to move than its cells say).
 * search.c squashes it into an estimate strictly between -0.9 and 0.9.
 *
 * On top of that sum, a network's correction (big_set_network(); none until
 * it is set): a hidden layer of NET_HIDDEN values, each the sum over the
 * empty cells of its weight for the cell's class of combination (the side
 * to move's cells with the mover's row, the other side's with the other's),
 * plus its weight for the position's threat mask, its weight times the
 * linear sum's value (clamped: how far the sum's verdict is to be trusted
 * depends on the rest) and its bias; the
 * correction is the sum of the positive hidden values times their output
 * weights, plus the output bias. What the linear sum cannot say (how the
 * cells' worths combine: two sides' development at once, say) it can. The
 * cells' sums are kept as the board plays (board.c), so an evaluation
 * costs 2 NET_HIDDEN multiplications.
 */
#include "board.h"

/* The weights, [0] the side to move's cells, [1] the other side's: hand-set
 * (the same for both) until big_set_evaluation() replaces them with the
 * fitted ones (service/engine/evaluation.json, at import). */
static int16_t PATTERN_WORTH[2][PATTERNS] = {
    {[P_DEAD] = 0, [P_B1] = 1, [P_F1] = 3, [P_B2] = 6, [P_F2] = 14, [P_B3] = 20, [P_F3] = 60,
     [P_B4] = 55, [P_F4] = 200, [P_FIVE] = 600},
    {[P_DEAD] = 0, [P_B1] = 1, [P_F1] = 3, [P_B2] = 6, [P_F2] = 14, [P_B3] = 20, [P_F3] = 60,
     [P_B4] = 55, [P_F4] = 200, [P_FIVE] = 600},
};
static int16_t KIND_BONUS[2][KINDS] = {
    {[K_F3F3] = 150, [K_B4F3] = 250, [K_FLEX4] = 400},
    {[K_F3F3] = 150, [K_B4F3] = 250, [K_FLEX4] = 400},
};
static int TEMPO = 25;
static int16_t THREAT_VALUE[THREAT_MASKS]; /* 0 until big_set_threat_values() */
static int16_t CORRECTION[2][COMBINATION_CLASSES];
/* (A row is 32 bytes: aligned so that none straddles two cache lines.) */
int16_t big_net_cells[2][COMBINATION_CLASSES][NET_HIDDEN] __attribute__((aligned(64)));
static int16_t NET_MASK[THREAT_MASKS][NET_HIDDEN];
static int32_t NET_BIAS[NET_HIDDEN];
static int32_t NET_OUT[NET_HIDDEN];
static int32_t NET_LINEAR[NET_HIDDEN];
static int NET_OUT_BIAS;

Combination combinations[COMBINATIONS];
static int combinations_ready;
/* The class (see board.h) of a combination: its sorted patterns' rank. */
static int
combination_class(int index)
{
    static int16_t rank_of_sorted[COMBINATIONS];
    static int ranked;
    if (!ranked) {
        int rank = 0;
        for (int a = 0; a < PATTERNS; a++) {
            for (int b = a; b < PATTERNS; b++) {
                for (int c = b; c < PATTERNS; c++) {
                    for (int d = c; d < PATTERNS; d++) {
                        rank_of_sorted[((a * PATTERNS + b) * PATTERNS + c) * PATTERNS + d] =
                            (int16_t)rank++;
                    }
                }
            }
        }
        ranked = 1;
    }
    int p[4];
    for (int d = 0, rest = index; d < 4; d++, rest /= PATTERNS) {
        int value = rest % PATTERNS, at = d;
        for (; at > 0 && p[at - 1] > value; at--) {
            p[at] = p[at - 1];
        }
        p[at] = value;
    }
    return rank_of_sorted[((p[0] * PATTERNS + p[1]) * PATTERNS + p[2]) * PATTERNS + p[3]];
}

static void
fill_combinations(void)
{
    for (int index = 0; index < COMBINATIONS; index++) {
        int counts[PATTERNS] = {0};
        int worth = 0, worth_other = 0;
        for (int d = 0, rest = index; d < 4; d++, rest /= PATTERNS) {
            counts[rest % PATTERNS]++;
            worth += PATTERN_WORTH[0][rest % PATTERNS];
            worth_other += PATTERN_WORTH[1][rest % PATTERNS];
        }
        int fours = counts[P_B4] + counts[P_F4], threes = counts[P_F3];
        int kind = K_QUIET;
        if (counts[P_FIVE]) {
            kind = K_FIVE;
        }
        else if (counts[P_F4] || counts[P_B4] >= 2) {
            kind = K_FLEX4;
        }
        else if (fours && threes) {
            kind = K_B4F3;
        }
        else if (threes >= 2) {
            kind = K_F3F3;
        }
        else if (fours) {
            kind = K_B4;
        }
        else if (threes) {
            kind = K_F3;
        }
        else if (counts[P_B3]) {
            kind = K_B3;
        }
        else if (counts[P_F2]) {
            kind = K_F2;
        }
        combinations[index].kind = (uint8_t)kind;
        int class = combination_class(index);
        combinations[index].cls = (uint16_t)class;
        combinations[index].worth = (int16_t)(worth + KIND_BONUS[0][kind] + CORRECTION[0][class]);
        combinations[index].worth_other =
            (int16_t)(worth_other + KIND_BONUS[1][kind] + CORRECTION[1][class]);
        combinations[index].sets = (uint8_t)((kind == K_FIVE ? IN_FIVE : 0) |
                                         (kind == K_FLEX4 ? IN_FLEX4 : 0) |
                                         (kind == K_FLEX4 || kind == K_B4F3 || kind == K_B4 ? IN_FOUR
                                                                                          : 0) |
                                         (threes ? IN_THREE : 0));
    }
    combinations_ready = 1;
}

/* Whether every one of ``count`` values lies within +-``limit``. */
static int
within(const int *values, int count, int limit)
{
    for (int i = 0; i < count; i++) {
        if (values[i] < -limit || values[i] > limit) {
            return 0;
        }
    }
    return 1;
}

static int
within_limit(const int *weights, int count)
{
    return within(weights, count, EVALUATION_WEIGHT_LIMIT);
}

int
big_set_evaluation(const int pattern_worth[2][PATTERNS], const int kind_bonus[2][KINDS], int tempo,
                   const int correction[2][COMBINATION_CLASSES])
{
    for (int side = 0; side < 2; side++) {
        if (!within_limit(pattern_worth[side], PATTERNS) || !within_limit(kind_bonus[side], KINDS) ||
            (correction != NULL && !within_limit(correction[side], COMBINATION_CLASSES))) {
            return -1;
        }
    }
    if (!within_limit(&tempo, 1)) {
        return -1;
    }
    for (int side = 0; side < 2; side++) {
        for (int p = 0; p < PATTERNS; p++) {
            PATTERN_WORTH[side][p] = (int16_t)pattern_worth[side][p];
        }
        for (int k = 0; k < KINDS; k++) {
            KIND_BONUS[side][k] = (int16_t)kind_bonus[side][k];
        }
        for (int c = 0; c < COMBINATION_CLASSES; c++) {
            CORRECTION[side][c] = (int16_t)(correction != NULL ? correction[side][c] : 0);
        }
    }
    TEMPO = tempo;
    fill_combinations();
    return 0;
}

int
big_set_threat_values(const int values[THREAT_MASKS])
{
    if (!within(values, THREAT_MASKS, THREAT_VALUE_LIMIT)) {
        return -1;
    }
    for (int m = 0; m < THREAT_MASKS; m++) {
        THREAT_VALUE[m] = (int16_t)values[m];
    }
    return 0;
}

int
big_set_network(const int cells[2][COMBINATION_CLASSES][NET_HIDDEN],
                const int mask[THREAT_MASKS][NET_HIDDEN], const int bias[NET_HIDDEN],
                const int out[NET_HIDDEN], int out_bias, const int linear[NET_HIDDEN])
{
    for (int side = 0; side < 2; side++) {
        for (int c = 0; c < COMBINATION_CLASSES; c++) {
            if (!within(cells[side][c], NET_HIDDEN, NET_WEIGHT_LIMIT)) {
                return -1;
            }
        }
    }
    for (int m = 0; m < THREAT_MASKS; m++) {
        if (!within(mask[m], NET_HIDDEN, NET_WEIGHT_LIMIT)) {
            return -1;
        }
    }
    if (!within(bias, NET_HIDDEN, NET_BIAS_LIMIT) || !within(out, NET_HIDDEN, NET_OUT_LIMIT) ||
        !within(&out_bias, 1, THREAT_VALUE_LIMIT) || !within(linear, NET_HIDDEN, NET_LINEAR_LIMIT)) {
        return -1;
    }
    for (int h = 0; h < NET_HIDDEN; h++) {
        for (int side = 0; side < 2; side++) {
            for (int c = 0; c < COMBINATION_CLASSES; c++) {
                big_net_cells[side][c][h] = (int16_t)cells[side][c][h];
            }
        }
        for (int m = 0; m < THREAT_MASKS; m++) {
            NET_MASK[m][h] = (int16_t)mask[m][h];
        }
        NET_BIAS[h] = bias[h];
        NET_OUT[h] = out[h];
        NET_LINEAR[h] = linear[h];
    }
    NET_OUT_BIAS = out_bias;
    return 0;
}

void
big_combinations_init(void)
{
    if (!combinations_ready) {
        fill_combinations();
    }
}

/* The network's correction (see above) for the side to move, ``mask`` the
 * position's threat mask and ``linear`` the linear sum's value. */
static inline int
network_value(const BigBoard *b, int mask, int linear)
{
    const int32_t *mover = b->net[b->side][0], *other = b->net[!b->side][1];
    int64_t input = linear < -NET_INPUT_LIMIT ? -NET_INPUT_LIMIT
                    : linear > NET_INPUT_LIMIT ? NET_INPUT_LIMIT
                                               : linear;
    int64_t out = 0;
    for (int h = 0; h < NET_HIDDEN; h++) {
        int64_t hidden = (int64_t)mover[h] + other[h] + NET_MASK[mask][h] + NET_BIAS[h] +
                         ((input * NET_LINEAR[h]) >> NET_LINEAR_SHIFT);
        out += (hidden > 0 ? hidden : 0) * NET_OUT[h];
    }
    return (int)(out >> NET_SHIFT) + NET_OUT_BIAS;
}

int
big_evaluate(const BigBoard *b)
{
    int me = b->side, mask = big_threat_mask(b);
    int linear = b->worth_sum[me] - b->other_sum[!me] + TEMPO + THREAT_VALUE[mask];
    return linear + network_value(b, mask, linear);
}
