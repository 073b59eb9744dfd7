/*
 * The brain's session: what the parts of the protocol share (brain_run() in
 * protocol.c owns it). The parts, one file each:
 *   protocol.c  the commands, their answers and the loop that takes the lines;
 *   input.c     the reading thread: it queues the lines and stops a search
 *               at a STOP or END read while it runs;
 *   settings.c  INFO: the clock, the rule, the table's memory, the depth and
 *               the threads;
 *   swap.c      SWAP2BOARD: the swap openings' answers;
 *   text.c      the protocol's text: numbers and pairs read, what the brain
 *               got quoted, errors and notices.
 * Not a header for anything outside service/brain/native/ (brain.h is the
 * brain's, run.h its entry point).
 */
#ifndef BRAIN_SESSION_H
#define BRAIN_SESSION_H

#include "brain.h"

/* Every search's node budget: a search until told stops here at the latest. */
#define NODE_BUDGET 1000000000ULL
#define DEFAULT_TABLE_BYTES ((uint64_t)64 << 20)
#define MIN_TABLE_BYTES ((uint64_t)1 << 20)
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
    uint64_t max_nodes; /* INFO max_node: a move's search's nodes, 0 for no limit */
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

/* -- text.c (each function's comment is at its definition) -------------------- */

char *text_format(const char *fmt, ...);
int fail_with(Brain *b, const char *fmt, ...);
void text_quote(const char *text, size_t length, char *out, size_t size);
void text_strip(const char **start, size_t *length);
void text_upper(char *text);
void text_first_word(const char *line, char *out, size_t size);
int read_number(Brain *b, const char *text, size_t length, const char *what, int64_t *out);
int read_pair(Brain *b, const char *text, const char *what, int64_t *x, int64_t *y);
int text_integer(const char *text, size_t length, int64_t *out);
void add_notice(Brain *b, const char *text);

/* -- input.c ------------------------------------------------------------------- */

void read_input(void *arg); /* the reading thread's body (``arg`` the Brain) */
void searching(Brain *b, Control *control);
void searched(Brain *b);

/* -- protocol.c, for swap.c ---------------------------------------------------- */

Engine *need_engine(Brain *b);
void drop_engine(Brain *b);
int64_t deadline_after(int64_t started, double think);

/* -- settings.c and swap.c: their commands ------------------------------------- */

int info_command(Brain *b, const char *argument);
int finish_swap(Brain *b); /* SWAP2BOARD's answer, at its DONE (its lines in b->board_lines) */

#endif
