/*
 * The brain's protocol: commands and answers (docs/brain.md states them), the
 * one implementation, run by the executables (main.c) and by Python's
 * ``python -m service.brain`` (python/big.c's run_brain). brain_run() takes the
 * lines in order on the calling thread and searches; a reading thread
 * queues them, each with its number, and a STOP or YXSTOP it reads moves the
 * deadline of the search under way to now when that search is for an earlier
 * line, an END cancels it. After the end of the input, or END, a search with
 * no deadline stops at once.
 */
#include "brain.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

/* Every search's node budget: a search until told stops here at the latest. */
#define NODE_BUDGET 1000000000ULL
#define WARM_NODES 20000 /* START's warm-up: the table's first entries, its huge pages */
#define DEFAULT_TABLE_BYTES ((uint64_t)64 << 20)
#define MIN_TABLE_BYTES ((uint64_t)1 << 20)
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
#define LONGEST_NUMBER 18 /* digits; a longer number is read as the largest of its sign */
#define ERROR_BYTES 8192

typedef struct Item {
    struct Item *next;
    long number;
    char *line; /* NULL: the input ended */
} Item;

typedef struct {
    BrainClock clock;
    Game game;
    int has_game;
    int rule, opening;
    uint64_t table_bytes;
    int max_depth;
    int threads; /* INFO thread_num: the move's search threads (1 to MAX_THREADS) */
    Engine engine;
    int has_engine;
    Analysis analysis;
    /* Inside BOARD (or SWAP2BOARD) ... DONE: the lines so far. */
    int in_board, swap_board;
    char **board_lines;
    int board_count, board_capacity;
    char **notices; /* said before the next answer */
    int notice_count, notice_capacity;
    char error[ERROR_BYTES]; /* the failing command's ProtocolError */
    /* Shared with the reading thread, under the lock: the queue, the line
     * being handled, the search under way and the last STOP and END read. */
    PlatformLock *lock;
    Item *head, *tail;
    long line_number;
    Control *control;
    long stop_read, end_read; /* -1: none */
    int input_closed;
    FILE *input; /* a duplicate of the input's descriptor, read by the reading thread */
} Brain;

/* -- text ------------------------------------------------------------------ */

static char *
format(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int length = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    char *text = malloc((size_t)length + 1);
    if (text != NULL) {
        va_start(args, fmt);
        vsnprintf(text, (size_t)length + 1, fmt, args);
        va_end(args);
    }
    return text;
}

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

/* A ProtocolError: its text, and -1. */
static int
fail_with(Brain *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->error, sizeof(b->error), fmt, args);
    va_end(args);
    return -1;
}

/* What the brain got, quoted as Python's repr() quotes a str (the form of every
 * error since the brain was first written in Python). */
static void
quote(const char *text, size_t length, char *out, size_t size)
{
    char mark = memchr(text, '\'', length) != NULL && memchr(text, '"', length) == NULL ? '"' : '\'';
    size_t used = 0;
    if (size < 8) {
        out[0] = '\0';
        return;
    }
    out[used++] = mark;
    for (size_t i = 0; i < length && used + 6 < size; i++) {
        unsigned char c = (unsigned char)text[i];
        const char *escape = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        if (escape != NULL) {
            used += (size_t)snprintf(out + used, size - used, "%s", escape);
        }
        else if (c == (unsigned char)mark) {
            used += (size_t)snprintf(out + used, size - used, "\\%c", mark);
        }
        else if (c < 0x20 || c == 0x7f) {
            used += (size_t)snprintf(out + used, size - used, "\\x%02x", c);
        }
        else {
            out[used++] = (char)c;
        }
    }
    out[used++] = mark;
    out[used] = '\0';
}

static void
strip(const char **start, size_t *length)
{
    while (*length > 0 && isspace((unsigned char)**start)) {
        (*start)++;
        (*length)--;
    }
    while (*length > 0 && isspace((unsigned char)(*start)[*length - 1])) {
        (*length)--;
    }
}

static int
all_digits(const char *text, size_t length)
{
    if (length == 0) {
        return 0;
    }
    for (size_t i = 0; i < length; i++) {
        if (!isdigit((unsigned char)text[i])) {
            return 0;
        }
    }
    return 1;
}

static int64_t
digits_value(const char *text, size_t length)
{
    int64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

/* _number(): a whole number of at most 12 digits, or the error "{what}; got {text!r}". */
static int
read_number(Brain *b, const char *text, size_t length, const char *what, int64_t *out)
{
    strip(&text, &length);
    if (!all_digits(text, length) || length > 12) {
        char quoted[ERROR_BYTES / 2];
        quote(text, length, quoted, sizeof(quoted));
        return fail_with(b, "%s; got %s", what, quoted);
    }
    *out = digits_value(text, length);
    return 0;
}

/* _pair(): x,y, each a whole number of at most 12 digits. */
static int
read_pair(Brain *b, const char *text, const char *what, int64_t *x, int64_t *y)
{
    const char *comma = strchr(text, ',');
    const char *first = text, *second = comma == NULL ? NULL : comma + 1;
    size_t first_length = comma == NULL ? 0 : (size_t)(comma - text);
    size_t second_length = second == NULL ? 0 : strlen(second);
    if (second != NULL) {
        strip(&first, &first_length);
        strip(&second, &second_length);
    }
    if (second == NULL || strchr(second, ',') != NULL || !all_digits(first, first_length) ||
        !all_digits(second, second_length) || first_length > 12 || second_length > 12) {
        char quoted[ERROR_BYTES / 2];
        quote(text, strlen(text), quoted, sizeof(quoted));
        return fail_with(b, "%s; got %s", what, quoted);
    }
    *x = digits_value(first, first_length);
    *y = digits_value(second, second_length);
    return 0;
}

/* _integer(): a whole number with an optional sign, or 0 when there is none; a
 * very long one is read as the largest of its sign. */
static int
read_integer(const char *text, size_t length, int64_t *out)
{
    strip(&text, &length);
    const char *digits = text;
    size_t count = length;
    if (count > 0 && digits[0] == '-') {
        digits++, count--;
    }
    if (count > 0 && digits[0] == '+') {
        digits++, count--;
    }
    if (!all_digits(digits, count)) {
        return 0;
    }
    int64_t magnitude = count <= LONGEST_NUMBER ? digits_value(digits, count) : 1000000000000000000LL;
    *out = length > 0 && text[0] == '-' ? -magnitude : magnitude;
    return 1;
}

static void
upper(char *text)
{
    for (; *text != '\0'; text++) {
        *text = (char)toupper((unsigned char)*text);
    }
}

/* The first word (split on any white space), upper case, at most size - 1 bytes. */
static void
first_word(const char *line, char *out, size_t size)
{
    while (isspace((unsigned char)*line)) {
        line++;
    }
    size_t length = 0;
    while (line[length] != '\0' && !isspace((unsigned char)line[length]) && length + 1 < size) {
        out[length] = line[length];
        length++;
    }
    out[length] = '\0';
    upper(out);
}

static void
add_notice(Brain *b, const char *text)
{
    if (b->notice_count == b->notice_capacity) {
        int capacity = b->notice_capacity ? 2 * b->notice_capacity : 8;
        char **grown = realloc(b->notices, sizeof(char *) * (size_t)capacity);
        if (grown == NULL) {
            return;
        }
        b->notices = grown;
        b->notice_capacity = capacity;
    }
    char *copy = format("%s", text);
    if (copy != NULL) {
        b->notices[b->notice_count++] = copy;
    }
}

/* -- the reading thread ------------------------------------------------------ */

static void
enqueue(Brain *b, long number, char *line)
{
    Item *item = malloc(sizeof(Item));
    if (item == NULL) {
        free(line);
        return;
    }
    item->next = NULL;
    item->number = number;
    item->line = line;
    platform_lock(b->lock);
    if (b->tail == NULL) {
        b->head = item;
    }
    else {
        b->tail->next = item;
    }
    b->tail = item;
    platform_wake(b->lock);
    platform_unlock(b->lock);
}

/* One line of the input, without its end, or NULL at its end. */
static char *
read_line(FILE *input)
{
    size_t capacity = 256, length = 0;
    char *line = malloc(capacity);
    if (line == NULL) {
        return NULL;
    }
    while (fgets(line + length, (int)(capacity - length), input) != NULL) {
        length += strlen(line + length);
        if (length > 0 && line[length - 1] == '\n') {
            return line;
        }
        if (length + 1 == capacity) {
            char *grown = realloc(line, capacity * 2);
            if (grown == NULL) {
                return line; /* the rest comes as the next line */
            }
            line = grown;
            capacity *= 2;
        }
    }
    if (length > 0) {
        return line;
    }
    free(line);
    return NULL;
}

/* STOP (or END) read as line ``number``: stop a search for an earlier line. */
static void
interrupt(Brain *b, long number, int end)
{
    platform_lock(b->lock);
    if (end) {
        b->end_read = number;
    }
    else {
        b->stop_read = number;
    }
    if (b->control != NULL && b->line_number < number) {
        if (end) {
            control_cancel(b->control);
        }
        else {
            control_shorten(b->control, now_ns());
        }
    }
    platform_unlock(b->lock);
}

static void
read_input(void *arg)
{
    Brain *b = arg;
    char *raw;
    for (long number = 0; (raw = read_line(b->input)) != NULL; number++) {
        const char *start = raw;
        size_t length = strlen(raw);
        strip(&start, &length);
        if (length == 0) {
            free(raw);
            continue;
        }
        char *line = format("%.*s", (int)length, start);
        free(raw);
        if (line == NULL) {
            continue;
        }
        char word[16];
        first_word(line, word, sizeof(word));
        int end = strcmp(word, "END") == 0;
        if (end || strcmp(word, "STOP") == 0 || strcmp(word, "YXSTOP") == 0) {
            interrupt(b, number, end);
        }
        enqueue(b, number, line);
        if (end) {
            break;
        }
    }
    platform_lock(b->lock);
    b->input_closed = 1;
    if (b->control != NULL && atomic_load(&b->control->deadline_ns) == 0) {
        control_shorten(b->control, now_ns());
    }
    platform_unlock(b->lock);
    enqueue(b, -1, NULL);
}

/* ``control`` is the search under way, stoppable by the reading thread. A
 * STOP already read after this line stops it at once; so does the end of the
 * input, or an END, for a search until told (no one is left to stop it). */
static void
searching(Brain *b, Control *control)
{
    platform_lock(b->lock);
    b->control = control;
    int ending = b->input_closed || b->end_read >= 0;
    if (b->stop_read > b->line_number ||
        (ending && atomic_load(&control->deadline_ns) == 0)) {
        control_shorten(control, now_ns());
    }
    platform_unlock(b->lock);
}

static void
searched(Brain *b)
{
    platform_lock(b->lock);
    b->control = NULL;
    platform_unlock(b->lock);
}

/* -- playing ------------------------------------------------------------------ */

static int
need_game(Brain *b)
{
    return b->has_game ? 0 : fail_with(b, "no game: send START first");
}

static Engine *
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

static void
drop_engine(Brain *b)
{
    if (b->has_engine) {
        engine_close(&b->engine);
        b->has_engine = 0;
    }
}

static int64_t
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
    int result = engine_search(engine, &p, NODE_BUDGET, &control, b->threads, &b->analysis);
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

/* -- SWAP2BOARD ------------------------------------------------------------- */

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
static int
finish_swap(Brain *b)
{
    int stones[BOARD_CELLS], count = 0;
    for (int i = 0; i < b->board_count; i++) {
        const char *line = b->board_lines[i];
        char quoted[ERROR_BYTES / 4], what[ERROR_BYTES / 2];
        quote(line, strlen(line), quoted, sizeof(quoted));
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
        quote(line, strlen(line), quoted, sizeof(quoted));
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
        char *text = format("max_depth is 0 (none) to %d; got %lld: ignored", MAX_DEPTH,
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
        text = format("thread_num is 1 to %d; got 0: ignored", MAX_THREADS);
    }
    else if (threads > MAX_THREADS) {
        text = format("thread_num is 1 to %d; got %lld: %d used", MAX_THREADS, (long long)threads,
                      MAX_THREADS);
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
static int
info(Brain *b, const char *argument)
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
                                       "rule",         "max_depth",     "thread_num"};
    int known = 0;
    for (size_t i = 0; i < sizeof(KEYS) / sizeof(KEYS[0]); i++) {
        known |= strcmp(key, KEYS[i]) == 0;
    }
    if (!known) {
        return 0; /* game_type, evaluate, folder, Yixin-Board's own: nothing to do here */
    }
    int64_t number;
    char *notice = NULL;
    if (!read_integer(value, strlen(value), &number)) {
        const char *start = value;
        size_t length = strlen(value);
        strip(&start, &length);
        char quoted[ERROR_BYTES / 2];
        quote(start, length, quoted, sizeof(quoted));
        notice = format("INFO %s takes a number; got %s: ignored", key, quoted);
    }
    else if (strcmp(key, "time_left") == 0) {
        b->clock.has_left = 1; /* the protocol: under 0 when the brain is out of time */
        b->clock.left_ms = number;
    }
    else if (number < 0) {
        notice = format("INFO %s cannot be negative; got %lld: ignored", key, (long long)number);
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
    {"SWAP2BOARD", swap2_board, 0}, {"INFO", info, 0},       {"TAKEBACK", take_back, 1},
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
            upper(done);
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
        b->board_lines[b->board_count] = format("%s", line);
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
    upper(line);
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
    char *answer = format("UNKNOWN %s is not a command of this brain", line);
    channel_write(answer != NULL ? answer : "UNKNOWN");
    free(answer);
    return 1;
}

/* Answer one line; 0 when the brain must stop (END). */
static int
take(Brain *b, char *line)
{
    char command[16];
    first_word(line, command, sizeof(command));
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
            char *text = format("ERROR %s", b->error);
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
