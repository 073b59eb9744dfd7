/*
 * INFO rule: what each value asks for and what the engine plays for it. The
 * managers disagree on the numbers: Piskvork's protocol text makes the value a
 * bit field (1 exactly five, 2 continuous game, 4 renju, 8 caro); Yixin-Board
 * sends 2 for renju, and Rapfi reads 0 to 6 as freestyle, exactly five, renju,
 * -, renju, freestyle with swap1, freestyle with swap2. The brain reads 0 to 6
 * as Rapfi and Yixin-Board do (the GUIs people play in and the brains they
 * compare with), 3 as Piskvork does (exactly five, continuous), which Rapfi
 * does not read, and any other value as Piskvork's bits. One table each:
 * RULE_VALUES (what a value asks for),
 * PLAYED (the variants the engine plays: renju is one line here once the core
 * has it) and STAND_IN (the closest played variant of each other one).
 */
#include "brain.h"

#include <string.h>

typedef enum { FREESTYLE, EXACT, RENJU, CARO, VARIANTS } Variant;

static const char *const VARIANT_NAMES[VARIANTS] = {"freestyle", "exactly five", "renju", "caro"};

typedef struct {
    Variant variant;
    int opening;
    int continuous; /* Piskvork's "continuous game": play on after a five */
} Asked;

static const Asked RULE_VALUES[] = {
    [0] = {FREESTYLE, OPENING_FREE, 0},
    [1] = {EXACT, OPENING_FREE, 0},
    [2] = {RENJU, OPENING_FREE, 0}, /* Yixin-Board and Rapfi; Piskvork's "continuous freestyle" */
    [3] = {EXACT, OPENING_FREE, 1}, /* Piskvork's 1 + 2 */
    [4] = {RENJU, OPENING_FREE, 0},
    [5] = {FREESTYLE, OPENING_SWAP1, 0}, /* Rapfi; Piskvork's 1 + 4 */
    [6] = {FREESTYLE, OPENING_SWAP2, 0}, /* Rapfi; Piskvork's 2 + 4 */
};
#define RULE_VALUE_COUNT ((int64_t)(sizeof(RULE_VALUES) / sizeof(RULE_VALUES[0])))

enum { PISKVORK_EXACT = 1, PISKVORK_CONTINUOUS = 2, PISKVORK_RENJU = 4, PISKVORK_CARO = 8 };
#define PISKVORK_BITS 15

/* The variants the engine plays, as the core's rule; -1: not played. */
static const int PLAYED[VARIANTS] = {
    [FREESTYLE] = RULE_FREESTYLE,
    [EXACT] = RULE_EXACT,
    [RENJU] = RULE_RENJU,
    [CARO] = -1,
};
/* The closest played variant of each other one. Caro: a row of five or more
 * wins (unless both its ends are blocked, which is not kept), as under freestyle. */
static const Variant STAND_IN[VARIANTS] = {
    [FREESTYLE] = FREESTYLE, [EXACT] = EXACT, [RENJU] = RENJU, [CARO] = FREESTYLE};

static Asked
piskvork_bits(int64_t value)
{
    Asked asked = {FREESTYLE, OPENING_FREE, (value & PISKVORK_CONTINUOUS) != 0};
    if (value & PISKVORK_RENJU) {
        asked.variant = RENJU;
    }
    else if (value & PISKVORK_CARO) {
        asked.variant = CARO;
    }
    else if (value & PISKVORK_EXACT) {
        asked.variant = EXACT;
    }
    return asked;
}

void
read_rule(int64_t value, Reading *out)
{
    out->notice[0] = '\0';
    out->opening = OPENING_FREE;
    Asked asked;
    if (value >= 0 && value < RULE_VALUE_COUNT) {
        asked = RULE_VALUES[value];
    }
    else if (value > 0 && (value & ~(int64_t)PISKVORK_BITS) == 0) {
        asked = piskvork_bits(value);
    }
    else {
        Variant played = value > 0 && (value & PISKVORK_EXACT) ? EXACT : FREESTYLE;
        out->plays = PLAYED[played];
        snprintf(out->notice, sizeof(out->notice), "rule %lld is unknown: playing %s",
                 (long long)value, VARIANT_NAMES[played]);
        return;
    }
    Variant played = PLAYED[asked.variant] >= 0 ? asked.variant : STAND_IN[asked.variant];
    out->plays = PLAYED[played];
    out->opening = asked.opening;
    char notes[256] = "";
    if (played != asked.variant) {
        snprintf(notes, sizeof(notes), "%s is not supported yet: playing %s, the closest rule",
                 VARIANT_NAMES[asked.variant], VARIANT_NAMES[played]);
    }
    if (asked.continuous) {
        size_t used = strlen(notes);
        snprintf(notes + used, sizeof(notes) - used, "%sa continuous game is played position by "
                 "position: a BOARD's dead stones (field 3) take their cells and make no row",
                 used ? "; " : "");
    }
    if (notes[0] != '\0') {
        snprintf(out->notice, sizeof(out->notice), "rule %lld: %s", (long long)value, notes);
    }
}

const char *
rule_name(int rule)
{
    return rule == RULE_RENJU ? "renju" : rule == RULE_EXACT ? "exact" : "freestyle";
}
