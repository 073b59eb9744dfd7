/*
 * The brain's protocol: commands and answers (docs/brain.md states them), the
 * one implementation, run by the executables (main.c) and by Python's
 * ``python -m service.brain`` (python/big.c's run_brain). brain_run() takes the
 * lines in order on the calling thread and searches, while a reading thread
 * (input.c) queues them and stops a search at a STOP or END. INFO is
 * settings.c's, SWAP2BOARD's answer swap.c's (session.h names the parts).
 */
#include "session.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#define WARM_NODES 20000 /* START's warm-up: the table's first entries, its huge pages */

static void
say(const char *fmt, ...)
{
    char line[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof(line), fmt, args);
    va_end(args);
    channel_write(line);
}

/* -- playing ------------------------------------------------------------------ */

static int
need_game(Brain *b)
{
    return b->has_game ? 0 : fail_with(b, "no game: send START first");
}

Engine *
need_engine(Brain *b)
{
    if (!b->has_engine) {
        if (engine_open(&b->engine, b->table_bytes, b->max_depth) < 0) {
            fail_with(b, "internal error: MemoryError: no memory for the engine");
            return NULL;
        }
        b->has_engine = 1;
    }
    return &b->engine;
}

void
drop_engine(Brain *b)
{
    if (b->has_engine) {
        engine_close(&b->engine);
        b->has_engine = 0;
    }
}

int64_t
deadline_after(int64_t started, double think)
{
    if (think < 0) {
        return 0; /* until told */
    }
    int64_t ns = started + (int64_t)(think * 1e9);
    return ns > 0 ? ns : 1;
}

/* Search the position and answer the move; it stays on the board. A search
 * cancelled by END answers nothing. */
static int
play(Brain *b)
{
    int64_t started = now_ns();
    Position p;
    if (game_position(&b->game, &p, b->error, sizeof(b->error)) < 0 ||
        position_check_in_progress(&p, b->error, sizeof(b->error)) < 0) {
        return -1;
    }
    double think = clock_think_seconds(&b->clock, b->game.count);
    Engine *engine = need_engine(b);
    if (engine == NULL) {
        return -1;
    }
    Control control;
    control_init(&control, deadline_after(started, think));
    searching(b, &control);
    /* A node count is one answer for a position: one thread, as max_depth. */
    uint64_t budget = b->max_nodes > 0 ? b->max_nodes : NODE_BUDGET;
    int threads = b->max_nodes > 0 ? 1 : b->threads;
    int result = engine_search(engine, &p, budget, &control, threads, &b->analysis);
    searched(b);
    if (result < 0) {
        return fail_with(b, "internal error: the search could not start");
    }
    if (b->analysis.stop == STOP_CANCELLED) {
        return 0;
    }
    int cell = analysis_best_move(&b->analysis);
    b->game.cell[b->game.count] = (int16_t)cell;
    b->game.mine[b->game.count++] = 1;
    say("%d,%d", cell % b->game.cols, cell / b->game.cols);
    clock_measured(&b->clock, think, (double)(now_ns() - started) / 1e9);
    return 0;
}

/* The engine for the game, its table warmed by a short search of the empty
 * board: the first move then pays nothing for the table's first entries. */
static int
warm(Brain *b)
{
    Engine *engine = need_engine(b);
    Position p;
    if (engine == NULL || game_position(&b->game, &p, b->error, sizeof(b->error)) < 0) {
        return -1;
    }
    return engine_search(engine, &p, WARM_NODES, NULL, 1, &b->analysis) < 0
               ? fail_with(b, "internal error: the search could not start")
               : 0;
}

/* -- commands --------------------------------------------------------------- */

static int
new_game(Brain *b, int64_t cols, int64_t rows)
{
    if (cols < MIN_SIDE || cols > MAX_SIDE || rows < MIN_SIDE || rows > MAX_SIDE) {
        return fail_with(b, "unsupported size %lldx%lld: sides %d to %d", (long long)cols,
                         (long long)rows, MIN_SIDE, MAX_SIDE);
    }
    game_new(&b->game, (int)cols, (int)rows, b->rule);
    b->has_game = 1;
    if (warm(b) < 0) {
        return -1;
    }
    channel_write("OK");
    return 0;
}

/* START n, or Yixin-Board's START width height (it opens with START 15 15). */
static int
start(Brain *b, const char *argument)
{
    const char *what = "START takes the board's size, or its width and height";
    const char *space = strchr(argument, ' ');
    int64_t cols, rows;
    if (space == NULL) {
        if (read_number(b, argument, strlen(argument), what, &cols) < 0) {
            return -1;
        }
        return new_game(b, cols, cols);
    }
    if (read_number(b, argument, (size_t)(space - argument), what, &cols) < 0 ||
        read_number(b, space + 1, strlen(space + 1), what, &rows) < 0) {
        return -1;
    }
    return new_game(b, cols, rows);
}

static int
rect_start(Brain *b, const char *argument)
{
    int64_t cols, rows;
    if (read_pair(b, argument, "RECTSTART takes width,height", &cols, &rows) < 0) {
        return -1;
    }
    return new_game(b, cols, rows);
}

static int
restart(Brain *b, const char *argument)
{
    (void)argument;
    if (need_game(b) < 0) {
        return -1;
    }
    game_new(&b->game, b->game.cols, b->game.rows, b->rule);
    channel_write("OK");
    return 0;
}

static int
begin(Brain *b, const char *argument)
{
    (void)argument;
    if (need_game(b) < 0) {
        return -1;
    }
    if (b->game.count > 0 || b->game.dead_count > 0) {
        return fail_with(b, "BEGIN on a board that has stones; use BOARD");
    }
    return play(b);
}

static int
turn(Brain *b, const char *argument)
{
    int64_t x, y;
    if (need_game(b) < 0 || read_pair(b, argument, "TURN takes x,y", &x, &y) < 0 ||
        game_place(&b->game, x, y, 0, b->error, sizeof(b->error)) < 0) {
        return -1;
    }
    return play(b);
}

static int
open_board(Brain *b, int swap)
{
    if (need_game(b) < 0) {
        return -1;
    }
    b->in_board = 1;
    b->swap_board = swap;
    b->board_count = 0;
    return 0;
}

static int
board(Brain *b, const char *argument)
{
    (void)argument;
    return open_board(b, 0);
}

static int
swap2_board(Brain *b, const char *argument)
{
    (void)argument;
    return open_board(b, 1);
}

static void
close_board(Brain *b)
{
    for (int i = 0; i < b->board_count; i++) {
        free(b->board_lines[i]);
    }
    b->board_count = 0;
    b->in_board = 0;
}

static int
finish_board(Brain *b)
{
    if (need_game(b) < 0) {
        close_board(b);
        return -1;
    }
    if (b->swap_board) {
        int result = finish_swap(b);
        close_board(b);
        return result;
    }
    Game fresh;
    game_new(&fresh, b->game.cols, b->game.rows, b->game.rule);
    int result = 0;
    for (int i = 0; i < b->board_count && result == 0; i++) {
        const char *line = b->board_lines[i];
        char quoted[ERROR_BYTES / 4], what[ERROR_BYTES / 2];
        text_quote(line, strlen(line), quoted, sizeof(quoted));
        snprintf(what, sizeof(what), "a BOARD line is x,y,who; got %s", quoted);
        const char *first = strchr(line, ','), *second = first ? strchr(first + 1, ',') : NULL;
        if (second == NULL || strchr(second + 1, ',') != NULL) {
            result = fail_with(b, "%s", what);
            break;
        }
        int64_t x, y, who;
        if (read_number(b, line, (size_t)(first - line), what, &x) < 0 ||
            read_number(b, first + 1, (size_t)(second - first - 1), what, &y) < 0 ||
            read_number(b, second + 1, strlen(second + 1), what, &who) < 0) {
            result = -1;
        }
        else if (who == 3) {
            result = game_place_dead(&fresh, x, y, b->error, sizeof(b->error));
        }
        else if (who == 1 || who == 2) {
            result = game_place(&fresh, x, y, who == 1, b->error, sizeof(b->error));
        }
        else {
            result = fail_with(b, "who is 1 (mine), 2 (the opponent's) or 3 (a dead stone); got %lld",
                               (long long)who);
        }
    }
    close_board(b);
    if (result < 0) {
        return -1;
    }
    b->game = fresh;
    return play(b);
}

static int
take_back(Brain *b, const char *argument)
{
    int64_t x, y;
    if (need_game(b) < 0 || read_pair(b, argument, "TAKEBACK takes x,y", &x, &y) < 0 ||
        game_take_back(&b->game, x, y, b->error, sizeof(b->error)) < 0) {
        return -1;
    }
    channel_write("OK");
    return 0;
}

static int
about(Brain *b, const char *argument)
{
    (void)b;
    (void)argument;
    channel_write("name=\"" NAME "\", version=\"" VERSION "\", author=\"tictactoe-service "
                  "engineers\", country=\"\", www=\"\", email=\"\"");
    return 0;
}

/* Yixin-Board's YXSHOWFORBID: Black's forbidden cells under renju with Black
 * to move, "FORBID " and each cell's x and y in two digits, then "." (as
 * docs/brain.md's "Rules" says). */
static int
show_forbidden(Brain *b, const char *argument)
{
    (void)argument;
    Position p;
    Engine *engine = need_game(b) < 0 ? NULL : need_engine(b);
    if (engine == NULL || game_position(&b->game, &p, b->error, sizeof(b->error)) < 0) {
        return -1;
    }
    int cells[MAX_SIDE * MAX_SIDE];
    int count = engine_forbidden(engine, &p, cells);
    char line[8 + 4 * MAX_SIDE * MAX_SIDE + 2] = "FORBID ";
    size_t used = strlen(line);
    for (int i = 0; i < count; i++) {
        used += (size_t)snprintf(line + used, sizeof(line) - used, "%02d%02d", cells[i] % p.cols,
                                 cells[i] / p.cols);
    }
    snprintf(line + used, sizeof(line) - used, ".");
    channel_write(line);
    return 0;
}

/* -- the loop --------------------------------------------------------------- */

typedef int (*Handler)(Brain *b, const char *argument);

static const struct {
    const char *command;
    Handler handler;
    int answered; /* a manager waits for its answer (BOARD's comes at DONE) */
} COMMANDS[] = {
    {"START", start, 1},       {"RECTSTART", rect_start, 1}, {"RESTART", restart, 1},
    {"BEGIN", begin, 1},       {"TURN", turn, 1},            {"BOARD", board, 0},
    {"SWAP2BOARD", swap2_board, 0}, {"INFO", info_command, 0},       {"TAKEBACK", take_back, 1},
    {"ABOUT", about, 1},       {"YXSHOWFORBID", show_forbidden, 1},
};
#define COMMAND_COUNT (sizeof(COMMANDS) / sizeof(COMMANDS[0]))

/* 1: go on; 0: END; -1: a ProtocolError in b->error. */
static int
handle(Brain *b, char *line)
{
    if (b->in_board) {
        char done[8];
        if (strlen(line) == 4) {
            snprintf(done, sizeof(done), "%s", line);
            text_upper(done);
            if (strcmp(done, "DONE") == 0) {
                return finish_board(b) < 0 ? -1 : 1;
            }
        }
        if (b->board_count == b->board_capacity) {
            int capacity = b->board_capacity ? 2 * b->board_capacity : 64;
            char **grown = realloc(b->board_lines, sizeof(char *) * (size_t)capacity);
            if (grown == NULL) {
                return fail_with(b, "internal error: MemoryError");
            }
            b->board_lines = grown;
            b->board_capacity = capacity;
        }
        b->board_lines[b->board_count] = text_format("%s", line);
        b->board_count += b->board_lines[b->board_count] != NULL;
        return 1;
    }
    char *space = strchr(line, ' ');
    const char *argument = "";
    if (space != NULL) {
        *space = '\0';
        argument = space + 1;
        while (isspace((unsigned char)*argument)) {
            argument++;
        }
        /* The argument's end is stripped already: the line's is. */
    }
    text_upper(line);
    if (strcmp(line, "END") == 0) {
        return 0;
    }
    if (strcmp(line, "STOP") == 0 || strcmp(line, "YXSTOP") == 0) {
        return 1; /* its search, if any, was stopped by the reading thread */
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(line, COMMANDS[i].command) == 0) {
            return COMMANDS[i].handler(b, argument) < 0 ? -1 : 1;
        }
    }
    char *answer = text_format("UNKNOWN %s is not a command of this brain", line);
    channel_write(answer != NULL ? answer : "UNKNOWN");
    free(answer);
    return 1;
}

/* Answer one line; 0 when the brain must stop (END). */
static int
take(Brain *b, char *line)
{
    char command[16];
    text_first_word(line, command, sizeof(command));
    int answered = 0;
    if (b->in_board) {
        answered = strcmp(command, "DONE") == 0;
    }
    else {
        for (size_t i = 0; i < COMMAND_COUNT; i++) {
            answered |= COMMANDS[i].answered && strcmp(command, COMMANDS[i].command) == 0;
        }
    }
    if (answered) {
        for (int i = 0; i < b->notice_count; i++) {
            channel_message(b->notices[i]);
            free(b->notices[i]);
        }
        b->notice_count = 0;
    }
    int result = handle(b, line);
    if (result < 0) {
        /* ERROR where the manager waits for an answer; elsewhere it would be
         * read as the next command's answer, so a MESSAGE before that one. */
        if (answered) {
            char *text = text_format("ERROR %s", b->error);
            channel_write(text != NULL ? text : "ERROR");
            free(text);
        }
        else {
            add_notice(b, b->error);
        }
    }
    return result != 0;
}

/* Free what a session leaves: its engine, its notices, its board lines, the
 * lines the reading thread queued after END. */
static void
release(Brain *b)
{
    drop_engine(b);
    close_board(b);
    free(b->board_lines);
    for (int i = 0; i < b->notice_count; i++) {
        free(b->notices[i]);
    }
    free(b->notices);
    while (b->head != NULL) {
        Item *item = b->head;
        b->head = item->next;
        free(item->line);
        free(item);
    }
    platform_lock_free(b->lock);
    free(b);
}

int
brain_run(int in_fd, int out_fd)
{
    Brain *b = calloc(1, sizeof(Brain)); /* large: off the stack */
    if (b == NULL) {
        return -1;
    }
    b->input = stream_of_copy(in_fd, "r");
    if (b->input == NULL) {
        free(b);
        return -1;
    }
    if (channel_open(out_fd) < 0) {
        fclose(b->input);
        free(b);
        return -1;
    }
    clock_reset(&b->clock);
    b->rule = RULE_FREESTYLE;
    b->opening = OPENING_FREE;
    b->table_bytes = DEFAULT_TABLE_BYTES;
    b->threads = 1;
    b->line_number = -1;
    b->stop_read = -1;
    b->end_read = -1;
    b->lock = platform_lock_new();
    PlatformThread *reader = b->lock == NULL ? NULL : platform_thread_start(read_input, b, 0);
    if (reader == NULL) {
        channel_message("internal error: the input cannot be read");
        channel_close();
        fclose(b->input);
        if (b->lock != NULL) {
            platform_lock_free(b->lock);
        }
        free(b);
        return -1;
    }
    for (;;) {
        platform_lock(b->lock);
        while (b->head == NULL) {
            platform_wait(b->lock);
        }
        Item *item = b->head;
        b->head = item->next;
        if (b->head == NULL) {
            b->tail = NULL;
        }
        if (item->line != NULL) {
            b->line_number = item->number;
        }
        platform_unlock(b->lock);
        char *line = item->line;
        free(item);
        if (line == NULL) {
            break;
        }
        int go_on = take(b, line);
        free(line);
        if (!go_on) {
            break;
        }
    }
    /* The reading thread stops at END and at the end of the input, the only
     * ways out of the loop: it reads nothing more, so waiting for it is short. */
    platform_thread_join(reader);
    fclose(b->input);
    channel_close();
    release(b);
    return 0;
}

