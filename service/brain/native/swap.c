/*
 * SWAP2BOARD (session.h): the swap openings' answers, each search bounded by
 * nodes so that a position and a clock give one answer.
 */
#include "session.h"

#include <string.h>

/* SWAP2BOARD's searches are bounded by nodes, so that a position and a clock
 * give one answer: the turn's time at this rate (a fifth of the 0.73 million
 * a second docs/brain.md measures: an emptied table's first search is slower,
 * and the machine may be shared; the turn's deadline caps them where it is
 * slower still). A search until told chooses with the nodes of
 * OPENING_UNTIL_TOLD_SECONDS. */
#define OPENING_NODE_RATE 150000
#define OPENING_UNTIL_TOLD_SECONDS 10.0
#define MIN_OPENING_NODES 1000
#define OPENING_CUT "the turn's deadline cut a search short: another machine may choose otherwise"

typedef struct {
    Brain *brain;
    double seconds;
    Control *control;
    int cut; /* a search the deadline cut short of its nodes */
} Swap;

static int
evaluate(void *context, const Position *p, double share, Analysis *out)
{
    Swap *swap = context;
    double wanted = swap->seconds * share * OPENING_NODE_RATE;
    uint64_t nodes = wanted > (double)NODE_BUDGET ? NODE_BUDGET : (uint64_t)wanted;
    nodes = nodes < MIN_OPENING_NODES ? MIN_OPENING_NODES : nodes;
    if (engine_search(&swap->brain->engine, p, nodes, swap->control, 1, out) < 0 ||
        out->stop == STOP_CANCELLED) {
        return -1;
    }
    swap->cut |= out->stop == STOP_DEADLINE;
    return 0;
}

/* SWAP2BOARD's stones, in play order from Black: x,y (GomocupJudge) or
 * x,y,who (Rapfi; who, 1 or 2, is not needed: the order says the colour). */
int
finish_swap(Brain *b)
{
    int stones[BOARD_CELLS], count = 0;
    for (int i = 0; i < b->board_count; i++) {
        const char *line = b->board_lines[i];
        char quoted[ERROR_BYTES / 4], what[ERROR_BYTES / 2];
        text_quote(line, strlen(line), quoted, sizeof(quoted));
        snprintf(what, sizeof(what), "a SWAP2BOARD line is x,y or x,y,who; got %s", quoted);
        int64_t numbers[4];
        int parts = 0;
        for (const char *part = line;; parts++) {
            const char *comma = strchr(part, ',');
            size_t length = comma == NULL ? strlen(part) : (size_t)(comma - part);
            if (parts < 4 && read_number(b, part, length, what, &numbers[parts]) < 0) {
                return -1;
            }
            if (comma == NULL) {
                parts++;
                break;
            }
            part = comma + 1;
        }
        if ((parts != 2 && parts != 3) || (parts == 3 && numbers[2] != 1 && numbers[2] != 2)) {
            return fail_with(b, "%s", what);
        }
        int cell = game_cell(&b->game, numbers[0], numbers[1], b->error, sizeof(b->error));
        if (cell < 0) {
            return -1;
        }
        for (int j = 0; j < count; j++) {
            if (stones[j] == cell) {
                return fail_with(b, "%lld,%lld is already taken", (long long)numbers[0],
                                 (long long)numbers[1]);
            }
        }
        if (count < BOARD_CELLS) {
            stones[count++] = cell;
        }
    }
    int opening = b->opening == OPENING_SWAP1 ? OPENING_SWAP1 : OPENING_SWAP2;
    int64_t started = now_ns();
    double think = clock_think_seconds(&b->clock, count);
    Engine *engine = need_engine(b);
    /* A swap opening starts a game: an empty table and a new search context,
     * so that the answer depends on the stones and the clock alone. */
    if (engine == NULL || engine_new_game(engine) < 0) {
        drop_engine(b);
        return fail_with(b, "internal error: MemoryError: no memory for the engine");
    }
    Control control;
    control_init(&control, deadline_after(started, think));
    Swap swap = {b, think < 0 ? OPENING_UNTIL_TOLD_SECONDS : think, &control, 0};
    Answer answer;
    searching(b, &control);
    int result = opening_choose(b->game.cols, b->game.rows, b->game.rule, stones, count, opening,
                                evaluate, &swap, &answer, b->error, sizeof(b->error));
    searched(b);
    if (result == -2) {
        return 0; /* cancelled by END */
    }
    if (result < 0) {
        return -1;
    }
    /* The game after the answer: the brain holds Black's stones when it swaps,
     * places the opening or puts two, and White's when it plays White's move. */
    int black = answer.swap || answer.count != 1;
    Game after;
    game_new(&after, b->game.cols, b->game.rows, b->game.rule);
    for (int i = 0; i < count + answer.count; i++) {
        after.cell[i] = (int16_t)(i < count ? stones[i] : answer.stones[i - count]);
        after.mine[i] = (uint8_t)((i % 2 == 0) == black);
    }
    after.count = count + answer.count;
    b->game = after;
    if (swap.cut && think >= 0) {
        channel_message(OPENING_CUT);
    }
    char text[64];
    answer_text(&answer, b->game.cols, text, sizeof(text));
    channel_write(text);
    clock_measured(&b->clock, think, (double)(now_ns() - started) / 1e9);
    return 0;
}
