/*
 * The big board: its shape, and play/undo keeping every empty cell's
 * patterns, kind and worth (see board.h). What the cells and the position
 * are worth, and the weights, are evaluation.c's.
 */
#include "board.h"

/* A pattern's place in a combination's index, by direction. */
static const int DIRECTION_WEIGHT[4] = {1, PATTERNS, PATTERNS * PATTERNS,
                                        PATTERNS * PATTERNS * PATTERNS};

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
    big_combinations_init();
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

/* Eight of a row's weights, and eight of a side's sums, as vectors (GCC's
 * extension: the compiler picks the instructions, AVX2 where the clone has
 * it). Written as plain loops, the build's -fno-strict-aliasing had every
 * store to a sum possibly change the weights, and the compiler added one
 * value at a time: big_play() at 1.7 to 2.6 times the cost. */
typedef int16_t NetRow __attribute__((vector_size(16)));
typedef int32_t NetSums __attribute__((vector_size(32)));
#define NET_LANES 8

/* Side ``s``'s cell leaves class ``before`` for class ``after`` (-1: none, as
 * a stone takes the cell or the board is counted): the network's sums of
 * that side's cells follow. */
static inline __attribute__((always_inline)) void
net_move(BigBoard *b, int s, int before, int after)
{
    for (int side = 0; side < 2; side++) {
        for (int h = 0; h < NET_HIDDEN; h += NET_LANES) {
            NetSums sums;
            NetRow row;
            memcpy(&sums, &b->net[s][side][h], sizeof(sums));
            if (before >= 0) {
                memcpy(&row, &big_net_cells[side][before][h], sizeof(row));
                sums -= __builtin_convertvector(row, NetSums);
            }
            if (after >= 0) {
                memcpy(&row, &big_net_cells[side][after][h], sizeof(row));
                sums += __builtin_convertvector(row, NetSums);
            }
            memcpy(&b->net[s][side][h], &sums, sizeof(sums));
        }
    }
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
        net_move(b, s, c->cls, -1);
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
        net_move(b, s, -1, combinations[index].cls);
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
    if (was->cls != is->cls) {
        net_move(b, s, was->cls, is->cls);
    }
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
