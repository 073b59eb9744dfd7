/*
 * The big board: its shape, and play/undo keeping every empty cell's
 * patterns, kind and worth (see board.h).
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

Combination combinations[COMBINATIONS];
static int combinations_ready;
/* A pattern's place in a combination's index, by direction. */
static const int DIRECTION_WEIGHT[4] = {1, PATTERNS, PATTERNS * PATTERNS,
                                        PATTERNS * PATTERNS * PATTERNS};

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

static uint64_t zobrist[2][2][BIG_MAX_CELLS]; /* [hash][side][cell] */

static int zobrist_ready;

static void
fill_zobrist(void)
{
    uint64_t state = 0x5eed5eed5eedULL;
    for (int h = 0; h < 2; h++) {
        for (int s = 0; s < 2; s++) {
            for (int c = 0; c < BIG_MAX_CELLS; c++) {
                state += 0x9e3779b97f4a7c15ULL;
                zobrist[h][s][c] = mix64(state);
            }
        }
    }
    zobrist_ready = 1;
}

int
big_shape_init(BigShape *sh, int rows, int cols, int k, int rule)
{
    if (rows < 3 || rows > BIG_MAX_SIDE || cols < 3 || cols > BIG_MAX_SIDE || k < 3 ||
        k > (rows > cols ? rows : cols) || rule < RULE_FREESTYLE || rule > RULE_RENJU ||
        (rule == RULE_RENJU && k != 5)) {
        return -1;
    }
    if (!combinations_ready) {
        fill_combinations();
    }
    if (!zobrist_ready) {
        fill_zobrist();
    }
    memset(sh, 0, sizeof(*sh));
    sh->rows = rows;
    sh->cols = cols;
    sh->k = k;
    /* Where no row of k + 1 fits, the rules are one game (renju's forbidden
     * moves aside). */
    int fits = rows > k || cols > k;
    sh->rule = rule == RULE_EXACT && !fits ? RULE_FREESTYLE : rule;
    sh->exact = rule != RULE_FREESTYLE && fits;
    sh->renju = rule == RULE_RENJU;
    sh->cells = rows * cols;
    sh->patterns[0] = patterns_for(k, sh->exact, 0);
    sh->patterns[1] = patterns_for(k, sh->rule == RULE_EXACT, sh->renju);
    if (sh->patterns[0] == NULL || sh->patterns[1] == NULL) {
        return -1;
    }
    sh->half = sh->patterns[0]->half; /* both sides' under every rule */
    if (sh->patterns[0]->table != NULL) {
        /* Offsets -half..-1 are the code's digits 0..half-1, 1..half the rest. */
        for (int offset = -sh->half, power = 1; offset <= sh->half; offset++) {
            if (offset) {
                sh->weight[offset + sh->half] = (uint32_t)power;
                power *= 3;
            }
        }
    }
    /* Lines: rows, then columns, then the diagonals down-right (by column
     * minus row), then down-left (by row plus column); a cell's place on a
     * line counts from the line's top end (its left end for rows). */
    static const int dr[4] = {0, 1, 1, 1}, dc[4] = {1, 0, 1, -1};
    int nlines = 0;
    for (int d = 0; d < 4; d++) {
        for (int r0 = 0; r0 < rows; r0++) {
            for (int c0 = 0; c0 < cols; c0++) {
                /* A line starts at a cell whose predecessor is off the board. */
                int pr = r0 - dr[d], pc = c0 - dc[d];
                if (pr >= 0 && pr < rows && pc >= 0 && pc < cols) {
                    continue;
                }
                int l = nlines++, len = 0;
                for (int r = r0, c = c0; r >= 0 && r < rows && c >= 0 && c < cols;
                     r += dr[d], c += dc[d]) {
                    int cell = r * cols + c;
                    sh->line_of[cell][d] = (uint8_t)l;
                    sh->place[cell][d] = (uint8_t)len;
                    sh->line_cell[l][len++] = (int16_t)cell;
                }
                sh->line_len[l] = (uint8_t)len;
                uint64_t inside = (((uint64_t)1 << len) - 1) << sh->half;
                sh->wall[l] = ~inside;
            }
        }
    }
    sh->nlines = nlines;
    for (int cell = 0; cell < sh->cells; cell++) {
        int r = cell / cols, c = cell % cols, n = 0;
        for (int i = -2; i <= 2; i++) {
            for (int j = -2; j <= 2; j++) {
                if ((i || j) && r + i >= 0 && r + i < rows && c + j >= 0 && c + j < cols) {
                    sh->near[cell][n++] = (int16_t)((r + i) * cols + c + j);
                }
            }
        }
        sh->near_count[cell] = (uint8_t)n;
    }
    sh->salt0 = mix64((uint64_t)(rows << 24 | cols << 16 | k << 8 | sh->rule) ^ 0xb16b0a4dULL);
    sh->salt1 = mix64(sh->salt0 ^ 0x5a175a17ULL);
    return 0;
}

/* The pattern side ``s`` makes on the empty ``cell`` along direction ``d``. */
static inline int
read_pattern(const BigBoard *b, int cell, int d, int s)
{
    const BigShape *sh = b->sh;
    int l = sh->line_of[cell][d], p = sh->place[cell][d];
    uint64_t window = ((uint64_t)1 << (2 * sh->half + 1)) - 1;
    uint64_t own = (b->line_stones[s][l] >> p) & window;
    uint64_t blocked = ((b->line_stones[!s][l] | sh->wall[l]) >> p) & window;
    return pattern_lookup(sh->patterns[s], own, blocked);
}

static inline int
combination(const uint8_t *p)
{
    return p[0] + PATTERNS * (p[1] + PATTERNS * (p[2] + PATTERNS * p[3]));
}

/* Move one side's membership of an empty cell from the sets of ``before``
 * (IN_* flags) to those of ``after``. */
static inline void
move_sets(BigBoard *b, int cell, int s, int before, int after)
{
    int changed = before ^ after;
    if (!changed) {
        return;
    }
    uint64_t bit = (uint64_t)1 << (cell & 63);
    int word = cell >> 6;
    if (changed & IN_FIVE) {
        b->five[s].w[word] ^= bit;
    }
    if (changed & IN_FLEX4) {
        b->flex4[s].w[word] ^= bit;
    }
    if (changed & IN_FOUR) {
        b->four[s].w[word] ^= bit;
    }
    if (changed & IN_THREE) {
        b->three[s].w[word] ^= bit;
    }
}

/* Take an empty cell's kind and worth out of the sets and sums (a stone is
 * placed on it). */
static inline void
forget_cell(BigBoard *b, int cell)
{
    for (int s = 0; s < 2; s++) {
        const Combination *c = &combinations[b->combo[cell][s]];
        b->worth_sum[s] -= c->worth;
        b->other_sum[s] -= c->worth_other;
        b->kinds[s][c->kind]--;
        move_sets(b, cell, s, c->sets, 0);
    }
}

/* Put an empty cell's kind and worth, from its patterns, into the sets and sums. */
static inline void
count_cell(BigBoard *b, int cell)
{
    for (int s = 0; s < 2; s++) {
        int index = combination(b->pattern[cell][s]);
        b->combo[cell][s] = (uint16_t)index;
        b->worth_sum[s] += combinations[index].worth;
        b->other_sum[s] += combinations[index].worth_other;
        b->kinds[s][combinations[index].kind]++;
        move_sets(b, cell, s, 0, combinations[index].sets);
    }
}

/* One side's pattern of an empty cell along ``d`` changes to ``now``. */
static inline void
repattern(BigBoard *b, int cell, int s, int d, int now)
{
    uint8_t *p = &b->pattern[cell][s][d];
    if (*p == now) {
        return;
    }
    int before = b->combo[cell][s];
    int after = before + (now - *p) * DIRECTION_WEIGHT[d];
    *p = (uint8_t)now;
    b->combo[cell][s] = (uint16_t)after;
    const Combination *was = &combinations[before], *is = &combinations[after];
    b->worth_sum[s] += is->worth - was->worth;
    b->other_sum[s] += is->worth_other - was->worth_other;
    b->kinds[s][was->kind]--;
    b->kinds[s][is->kind]++;
    move_sets(b, cell, s, was->sets, is->sets);
}

/* The pattern of side ``s`` on the empty ``cell`` along ``d``. */
static inline int
pattern_at(const BigBoard *b, int cell, int d, int s)
{
    const uint8_t *table = b->sh->patterns[s]->table;
    return table != NULL ? table[b->code[cell][d][s]] : read_pattern(b, cell, d, s);
}

/* Side ``s``'s stone arrives on ``cell``: the codes of the empty cells in
 * its windows change, and their patterns are read again (stones' cells are
 * left alone: see BigBoard.code). What each cell was goes on the undo stack
 * first. */
static inline __attribute__((always_inline)) void
refresh_around(BigBoard *b, int cell, int s)
{
    const BigShape *sh = b->sh;
    const uint8_t *table = sh->patterns[0]->table, *table_o = sh->patterns[1]->table;
    int half = sh->half;
    for (int d = 0; d < 4; d++) {
        int l = sh->line_of[cell][d], p = sh->place[cell][d], len = sh->line_len[l];
        int from = p - half < 0 ? 0 : p - half;
        int to = p + half >= len ? len - 1 : p + half;
        const int16_t *line = sh->line_cell[l];
        for (int q = from; q <= to; q++) {
            int n = line[q];
            if (b->stone[n]) {
                continue; /* (this stone's own cell too) */
            }
            BigChange *change = &b->change[b->changes++];
            change->cell = (int16_t)n;
            change->d = (uint8_t)d;
            memcpy(change->pattern, (uint8_t[2]){b->pattern[n][0][d], b->pattern[n][1][d]}, 2);
            memcpy(change->combo, b->combo[n], sizeof(change->combo));
            memcpy(change->code, b->code[n][d], sizeof(change->code));
            if (table != NULL) {
                /* The stone lies ``p - q`` cells along from n. */
                uint32_t weight = sh->weight[p - q + half];
                uint32_t *code = b->code[n][d];
                code[s] += weight;
                code[!s] += 2 * weight;
                repattern(b, n, 0, d, table[code[0]]);
                repattern(b, n, 1, d, table_o[code[1]]);
            }
            else {
                repattern(b, n, 0, d, read_pattern(b, n, d, 0));
                repattern(b, n, 1, d, read_pattern(b, n, d, 1));
            }
        }
    }
}

void
big_board_init(BigBoard *b, const BigShape *sh)
{
    memset(b, 0, offsetof(BigBoard, saved)); /* the undo stack: only its height */
    b->sh = sh;
    for (int cell = 0; cell < sh->cells; cell++) {
        for (int d = 0; d < 4; d++) {
            if (sh->patterns[0]->table != NULL) {
                /* The edge blocks both sides: past it, every digit is 2. */
                uint32_t code = 0;
                for (int offset = -sh->half; offset <= sh->half; offset++) {
                    if (offset && big_step(sh, cell, d, offset) < 0) {
                        code += 2 * sh->weight[offset + sh->half];
                    }
                }
                b->code[cell][d][0] = b->code[cell][d][1] = code;
            }
            b->pattern[cell][0][d] = (uint8_t)pattern_at(b, cell, d, 0);
            b->pattern[cell][1][d] = (uint8_t)pattern_at(b, cell, d, 1);
        }
        count_cell(b, cell);
    }
}

HOT void
big_play(BigBoard *b, int cell)
{
    const BigShape *sh = b->sh;
    int s = b->side;
    memcpy(&b->saved[b->count].sums, &b->worth_sum, sizeof(BigSums));
    b->saved[b->count].changes = b->changes;
    b->saved[b->count].cell = cell;
    forget_cell(b, cell);
    cells_remove(&b->near, cell);
    b->stone[cell] = (uint8_t)(s + 1);
    for (int d = 0; d < 4; d++) {
        b->line_stones[s][sh->line_of[cell][d]] |= (uint64_t)1 << (sh->half + sh->place[cell][d]);
    }
    refresh_around(b, cell, s);
    for (int i = 0; i < sh->near_count[cell]; i++) {
        int n = sh->near[cell][i];
        if (b->near_stones[n]++ == 0 && !b->stone[n]) {
            cells_add(&b->near, n);
        }
    }
    b->hash0 ^= zobrist[0][s][cell];
    b->hash1 ^= zobrist[1][s][cell];
    b->count++;
    b->side = !s;
}

HOT void
big_undo(BigBoard *b, int cell)
{
    const BigShape *sh = b->sh;
    int s = !b->side;
    b->side = s;
    b->count--;
    b->hash0 ^= zobrist[0][s][cell];
    b->hash1 ^= zobrist[1][s][cell];
    for (int i = 0; i < sh->near_count[cell]; i++) {
        int n = sh->near[cell][i];
        if (--b->near_stones[n] == 0) {
            cells_remove(&b->near, n);
        }
    }
    b->stone[cell] = 0;
    for (int d = 0; d < 4; d++) {
        b->line_stones[s][sh->line_of[cell][d]] &= ~((uint64_t)1 << (sh->half + sh->place[cell][d]));
    }
    /* The cell's own patterns and combinations were left as they were when
     * the stone came (a stone's are never read again, nor changed). */
    int from = b->saved[b->count].changes;
    for (int i = b->changes - 1; i >= from; i--) {
        const BigChange *change = &b->change[i];
        int n = change->cell, d = change->d;
        memcpy(b->code[n][d], change->code, sizeof(change->code));
        b->pattern[n][0][d] = change->pattern[0];
        b->pattern[n][1][d] = change->pattern[1];
        memcpy(b->combo[n], change->combo, sizeof(change->combo));
    }
    b->changes = from;
    memcpy(&b->worth_sum, &b->saved[b->count].sums, sizeof(BigSums));
    if (b->near_stones[cell]) {
        cells_add(&b->near, cell);
    }
}

int
big_evaluate(const BigBoard *b)
{
    int me = b->side;
    return b->worth_sum[me] - b->other_sum[!me] + TEMPO + THREAT_VALUE[big_threat_mask(b)];
}
