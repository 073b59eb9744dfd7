/*
 * Line patterns: their definitions, and the tables that hold them (see
 * pattern.h for what each pattern means).
 *
 * The definitions are recursive: a window whose centre stone makes a row of
 * k is P_FIVE; one with five points is a four; otherwise the best level one
 * more stone of the side reaches decides (a child P_F4 makes this a P_F3, a
 * P_B4 a P_B3, and so on down). A table is filled by the same recursion, each
 * window computed once (the table is its own memo).
 */
#include "pattern.h"

uint32_t base3_of_bits[1 << (2 * PATTERN_TABLE_HALF)];

static int base3_ready;

static void
fill_base3(void)
{
    for (uint32_t bits = 0; bits < (1u << (2 * PATTERN_TABLE_HALF)); bits++) {
        uint32_t value = 0, power = 1;
        for (int i = 0; i < 2 * PATTERN_TABLE_HALF; i++) {
            if (bits >> i & 1) {
                value += power;
            }
            power *= 3;
        }
        base3_of_bits[bits] = value;
    }
    base3_ready = 1;
}

/* The length of the run of ``own`` through bit ``h`` (which is set). */
static int
run_through(uint64_t own, int h)
{
    int length = 1;
    for (int i = h + 1; i < 64 && (own >> i & 1); i++) {
        length++;
    }
    for (int i = h - 1; i >= 0 && (own >> i & 1); i--) {
        length++;
    }
    return length;
}

static int
is_five(const Patterns *p, uint64_t own)
{
    int run = run_through(own, p->half);
    return p->exact ? run == p->k : run >= p->k;
}

static inline uint64_t
window_mask(int half)
{
    return ((uint64_t)1 << (2 * half + 1)) - 1;
}

/* Empty cells (outside the centre) that complete a row of k through it. */
static int
five_points(const Patterns *p, uint64_t own, uint64_t blocked)
{
    int count = 0;
    uint64_t empty = window_mask(p->half) & ~own & ~blocked;
    for (; empty; empty &= empty - 1) {
        count += is_five(p, own | (empty & -empty));
    }
    return count;
}

/* What a child's level makes of its parent's: one stone further from five. */
static const uint8_t one_further[PATTERNS] = {
    [P_DEAD] = P_DEAD, [P_B1] = P_DEAD, [P_F1] = P_DEAD, [P_B2] = P_B1, [P_F2] = P_F1,
    [P_B3] = P_B2,     [P_F3] = P_F2,   [P_B4] = P_B3,   [P_F4] = P_F3, [P_FIVE] = P_DEAD,
};

/* The window's table index (see pattern_lookup()), from the full masks. */
static uint32_t
index_of(int half, uint64_t own, uint64_t blocked)
{
    uint32_t index = 0, power = 1;
    for (int i = 0; i <= 2 * half; i++) {
        if (i == half) {
            continue;
        }
        index += power * (uint32_t)((own >> i & 1) + 2 * (blocked >> i & 1));
        power *= 3;
    }
    return index;
}

/* The pattern of a window whose centre the side holds (``own`` has bit half),
 * from the table where ``table`` is given (filling it), else recomputed with
 * the levels below three by counting (see pattern.h). */
static int
classify(const Patterns *p, uint8_t *table, uint64_t own, uint64_t blocked)
{
    uint32_t index = 0;
    if (table != NULL) {
        index = index_of(p->half, own, blocked);
        if (table[index] != 0xFF) {
            return table[index];
        }
    }
    int level;
    if (is_five(p, own)) {
        level = P_FIVE;
    }
    else {
        int points = five_points(p, own, blocked);
        if (points >= 2) {
            level = P_F4;
        }
        else if (points == 1) {
            level = P_B4;
        }
        else {
            level = P_DEAD;
            uint64_t empty = window_mask(p->half) & ~own & ~blocked;
            for (uint64_t rest = empty; rest; rest &= rest - 1) {
                uint64_t more = own | (rest & -rest);
                int child;
                if (table != NULL) {
                    child = classify(p, table, more, blocked);
                }
                else {
                    /* Wide windows: fours exactly, one stone below by them. */
                    int child_points = is_five(p, more) ? 0 : five_points(p, more, blocked);
                    child = child_points >= 2 ? P_F4 : child_points == 1 ? P_B4 : P_DEAD;
                }
                int mine = one_further[child];
                if (mine > level) {
                    level = mine;
                }
            }
            if (table == NULL && level == P_DEAD) {
                /* A window of k cells through the centre, unblocked (and under
                 * the exact rule not flanked by the side), can still be won. */
                int h = p->half, k = p->k;
                for (int start = h - k + 1; start <= h; start++) {
                    if (start < 0 || start + k > 2 * h + 1) {
                        continue;
                    }
                    uint64_t cells = (((uint64_t)1 << k) - 1) << start;
                    uint64_t flank = 0;
                    if (p->exact) {
                        flank |= start > 0 ? (uint64_t)1 << (start - 1) : 0;
                        flank |= (uint64_t)1 << (start + k);
                    }
                    if (!(cells & blocked) && !(flank & own)) {
                        level = P_B1;
                        break;
                    }
                }
            }
        }
    }
    if (table != NULL) {
        table[index] = (uint8_t)level;
    }
    return level;
}

int
pattern_of(const Patterns *p, uint64_t own, uint64_t blocked)
{
    uint64_t centre = (uint64_t)1 << p->half;
    return classify(p, NULL, own | centre, blocked & ~centre);
}

static Patterns *cache[PATTERN_MAX_HALF + 2][2][2];

const Patterns *
patterns_for(int k, int exact, int wide)
{
    if (k < 3 || k > PATTERN_MAX_HALF) {
        return NULL;
    }
    exact = exact != 0;
    wide = wide != 0 && !exact;
    if (cache[k][exact][wide] != NULL) {
        return cache[k][exact][wide];
    }
    if (!base3_ready) {
        fill_base3();
    }
    Patterns *p = calloc(1, sizeof(Patterns));
    if (p == NULL) {
        return NULL;
    }
    p->k = k;
    p->exact = exact;
    p->half = exact || wide ? k : k - 1;
    if (p->half <= PATTERN_TABLE_HALF) {
        size_t entries = 1;
        for (int i = 0; i < 2 * p->half; i++) {
            entries *= 3;
        }
        p->table = malloc(entries);
        if (p->table == NULL) {
            free(p);
            return NULL;
        }
        memset(p->table, 0xFF, entries);
        /* Every window: each side cell empty (0), the side's (1) or blocked (2). */
        uint64_t centre = (uint64_t)1 << p->half;
        for (size_t index = 0; index < entries; index++) {
            uint64_t own = centre, blocked = 0;
            size_t rest = index;
            for (int i = 0; i <= 2 * p->half; i++) {
                if (i == p->half) {
                    continue;
                }
                int digit = (int)(rest % 3);
                rest /= 3;
                own |= (uint64_t)(digit == 1) << i;
                blocked |= (uint64_t)(digit == 2) << i;
            }
            classify(p, p->table, own, blocked);
        }
    }
    cache[k][exact][wide] = p;
    return p;
}
