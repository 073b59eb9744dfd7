/*
 * INFO (session.h): the clock's limits, the rule, the table's memory, the
 * depth, the nodes and the threads. Never answered: what cannot be taken becomes a notice.
 */
#include "session.h"

#include <ctype.h>
#include <string.h>

static void
set_rule(Brain *b, int64_t value)
{
    Reading reading;
    read_rule(value, &reading);
    if (reading.notice[0] != '\0') {
        add_notice(b, reading.notice);
    }
    b->rule = reading.plays;
    b->opening = reading.opening;
    if (b->has_game) {
        b->game.rule = reading.plays;
    }
}

static void
set_depth(Brain *b, int64_t depth)
{
    if (depth > MAX_DEPTH) {
        char *text = text_format("max_depth is 0 (none) to %d; got %lld: ignored", MAX_DEPTH,
                                 (long long)depth);
        if (text != NULL) {
            add_notice(b, text);
            free(text);
        }
        return;
    }
    b->max_depth = (int)depth;
    drop_engine(b);
}

/* INFO thread_num: the threads a move's search may use, 1 to MAX_THREADS
 * (more is taken as MAX_THREADS, 0 is ignored; each said in a notice). Only
 * the move's search: START's warm-up and SWAP2BOARD's searches, bounded by
 * nodes so that a position gives one answer, keep to one. */
static void
set_threads(Brain *b, int64_t threads)
{
    char *text = NULL;
    if (threads == 0) {
        text = text_format("thread_num is 1 to %d; got 0: ignored", MAX_THREADS);
    }
    else if (threads > MAX_THREADS) {
        text = text_format("thread_num is 1 to %d; got %lld: %d used", MAX_THREADS,
                           (long long)threads, MAX_THREADS);
        b->threads = MAX_THREADS;
    }
    else {
        b->threads = (int)threads;
    }
    if (text != NULL) {
        add_notice(b, text);
        free(text);
    }
}

static void
limit_memory(Brain *b, int64_t max_memory)
{
    uint64_t wanted = max_memory == 0 ? DEFAULT_TABLE_BYTES : (uint64_t)max_memory / 4;
    wanted = wanted < MIN_TABLE_BYTES ? MIN_TABLE_BYTES : wanted;
    wanted = wanted > DEFAULT_TABLE_BYTES ? DEFAULT_TABLE_BYTES : wanted;
    if (wanted != b->table_bytes) {
        b->table_bytes = wanted;
        drop_engine(b); /* a new table of the new size at the next move */
    }
}

/* Never answered: what cannot be taken becomes a notice. */
int
info_command(Brain *b, const char *argument)
{
    const char *space = strchr(argument, ' ');
    size_t key_length = space == NULL ? strlen(argument) : (size_t)(space - argument);
    const char *value = space == NULL ? "" : space + 1;
    char key[32];
    if (key_length >= sizeof(key)) {
        return 0;
    }
    for (size_t i = 0; i < key_length; i++) {
        key[i] = (char)tolower((unsigned char)argument[i]);
    }
    key[key_length] = '\0';
    static const char *const KEYS[] = {"timeout_turn", "timeout_match", "time_left", "max_memory",
                                       "rule",         "max_depth",     "max_node",
                                       "thread_num"};
    int known = 0;
    for (size_t i = 0; i < sizeof(KEYS) / sizeof(KEYS[0]); i++) {
        known |= strcmp(key, KEYS[i]) == 0;
    }
    if (!known) {
        return 0; /* game_type, evaluate, folder, Yixin-Board's own: nothing to do here */
    }
    int64_t number;
    char *notice = NULL;
    if (!text_integer(value, strlen(value), &number)) {
        const char *start = value;
        size_t length = strlen(value);
        text_strip(&start, &length);
        char quoted[ERROR_BYTES / 2];
        text_quote(start, length, quoted, sizeof(quoted));
        notice = text_format("INFO %s takes a number; got %s: ignored", key, quoted);
    }
    else if (strcmp(key, "time_left") == 0) {
        b->clock.has_left = 1; /* the protocol: under 0 when the brain is out of time */
        b->clock.left_ms = number;
    }
    else if (number < 0) {
        notice = text_format("INFO %s cannot be negative; got %lld: ignored", key,
                             (long long)number);
    }
    else if (strcmp(key, "timeout_turn") == 0) {
        b->clock.turn_ms = number;
    }
    else if (strcmp(key, "timeout_match") == 0) {
        b->clock.match_ms = number;
    }
    else if (strcmp(key, "max_memory") == 0) {
        limit_memory(b, number);
    }
    else if (strcmp(key, "max_depth") == 0) {
        set_depth(b, number);
    }
    else if (strcmp(key, "max_node") == 0) {
        /* 0: none, as NODE_BUDGET (a search of about twenty minutes) and over it */
        b->max_nodes = (uint64_t)number < NODE_BUDGET ? (uint64_t)number : 0;
    }
    else if (strcmp(key, "thread_num") == 0) {
        set_threads(b, number);
    }
    else {
        set_rule(b, number);
    }
    if (notice != NULL) {
        add_notice(b, notice);
        free(notice);
    }
    return 0;
}
