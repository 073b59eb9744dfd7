/*
 * The Gomocup brain: the protocol (docs/brain.md) in C over the compiled core
 * (service/engine/core/), its one implementation. The executables run it
 * (main.c: `make brain`, `make brain-windows`, no Python), and so does the
 * Python extension (python/big.c's run_brain: `python -m service.brain`).
 *
 * One file per concept: protocol.c (commands, answers and the loop), with
 * the parts of its session (session.h: input.c the reading thread,
 * settings.c INFO, swap.c SWAP2BOARD, text.c the protocol's text),
 * clock.c (how long a move searches), rules.c (INFO rule's values), game.c
 * (the board as the manager gives it), opening.c (SWAP2BOARD's choices),
 * channel.c (the one way out for answers) and engine.c (one game's table and
 * search context, a move's ranking).
 */
#ifndef BRAIN_NATIVE_H
#define BRAIN_NATIVE_H

#include "../../engine/core/big/root.h"
#include "run.h"

#include <stdio.h>

#define NAME "tictactoe-service"
#define VERSION "0.1.0"
#define MIN_SIDE 3
#define MAX_SIDE 20
#define DEFAULT_K 5
#define MAX_DEPTH 60

/* -- channel.c: the one way out for answers --------------------------------- */

/* A stdio stream on a duplicate of ``fd`` (``mode`` as fopen's), or NULL:
 * the input the protocol reads and the channel's output are both one. */
FILE *stream_of_copy(int fd, const char *mode);
/* Answers go to a duplicate of ``out_fd``; -1 when it cannot be made. */
int channel_open(int out_fd);
void channel_close(void);
/* One whole line, under a lock (the reading thread writes too); a line break
 * inside becomes a space. */
void channel_write(const char *line);
void channel_message(const char *text);

/* -- clock.c: how long a move may search ------------------------------------ */

typedef struct {
    int64_t turn_ms;
    int64_t match_ms;
    int has_left; /* whether time_left was given */
    int64_t left_ms;
    double lag_ms;
} BrainClock;

void clock_reset(BrainClock *c);
/* Whether a match clock limits the moves. */
int clock_match_runs(const BrainClock *c);
/* The seconds the next move may search with ``stones`` on the board; a
 * negative number: until told. */
double clock_think_seconds(const BrainClock *c, int stones);
void clock_measured(BrainClock *c, double think_seconds, double spent_seconds);
int moves_left(int stones);

/* -- rules.c: INFO rule ------------------------------------------------------ */

/* The rules the engine plays: the core's RULE_* (big/board.h). */
enum { OPENING_FREE = 0, OPENING_SWAP1 = 1, OPENING_SWAP2 = 2 };

typedef struct {
    int plays;   /* RULE_* */
    int opening; /* OPENING_* */
    char notice[320]; /* empty: nothing to say */
} Reading;

void read_rule(int64_t value, Reading *out);
const char *rule_name(int rule);

/* -- game.c: the board as the manager gives it ------------------------------- */

#define BOARD_CELLS (MAX_SIDE * MAX_SIDE)

typedef struct {
    int cols, rows, rule;
    int count; /* stones in the order they came */
    int16_t cell[BOARD_CELLS];
    uint8_t mine[BOARD_CELLS];
    int dead_count;
    int16_t dead[BOARD_CELLS];
} Game;

/* A position for the engine: cells 0 empty, 1 X, 2 O; X moves first. */
typedef struct {
    int cols, rows, k, rule;
    uint8_t stone[BOARD_CELLS];
    int x_to_move;
    int marks;
} Position;

/* Errors are written into ``error`` (a ProtocolError's text) and return -1. */
void game_new(Game *g, int cols, int rows, int rule);
int game_cell(const Game *g, int64_t x, int64_t y, char *error, size_t size);
int game_place(Game *g, int64_t x, int64_t y, int mine, char *error, size_t size);
int game_place_dead(Game *g, int64_t x, int64_t y, char *error, size_t size);
int game_take_back(Game *g, int64_t x, int64_t y, char *error, size_t size);
/* The position with the brain to move, dead stones given out (game.c says how). */
int game_position(const Game *g, Position *p, char *error, size_t size);

/* Whether ``side`` (1 X, 2 O) has a row under the position's rule. */
int position_has_row(const Position *p, int side);
/* -1 and the GameOverError's text when the game is over. */
int position_check_in_progress(const Position *p, char *error, size_t size);
int position_is_game_over(const Position *p);
/* The position after a move of the side to move. */
void position_play(const Position *p, int cell, Position *after);

/* -- engine.c: one game's search ------------------------------------------- */

typedef struct {
    int cell;
    double score; /* the public score (score.py): proven ones beyond +-1 */
} MoveScore;

typedef struct {
    int count;
    MoveScore moves[BIG_MAX_CELLS]; /* best first: higher score, then lower cell */
    int stop;                       /* STOP_* */
    uint64_t nodes;
} Analysis;

/* The most search threads (INFO thread_num), and a helper's stack: the
 * search's recursion needs a few hundred KiB (Windows gives threads 1 MiB). */
#define MAX_THREADS 8
#define HELPER_STACK_BYTES ((size_t)8 << 20)

typedef struct {
    Table table;
    BigSearch *search; /* the game's search context (GameContext) */
    BigSearch *helper[MAX_THREADS - 1]; /* the helper threads' (NULL until wanted) */
    BigShape *shape;
    BigRootMove *found;
    uint64_t table_bytes;
    int max_depth;
} Engine;

int engine_open(Engine *e, uint64_t table_bytes, int max_depth);
void engine_close(Engine *e);
/* A new game: the table emptied, a new search context (SWAP2BOARD). */
int engine_new_game(Engine *e);
/* Under renju with X to move, X's forbidden cells into ``cells`` (the core's
 * verdicts); how many. */
int engine_forbidden(Engine *e, const Position *p, int *cells);
/* Analyse ``p``, at most ``budget`` nodes a thread, stopped by ``control``
 * (may be NULL), on ``threads`` threads (1: the calling one alone; the
 * others help, see engine.c); -1 when memory runs out. */
int engine_search(Engine *e, const Position *p, uint64_t budget, Control *control, int threads,
                  Analysis *out);
/* Every move whose score equals the best, lowest cell first: the first. */
int analysis_best_move(const Analysis *a);

/* -- opening.c: SWAP2BOARD's answers ---------------------------------------- */

typedef struct {
    int swap;     /* take Black */
    int count;    /* else the stones placed, in play order */
    int stones[3];
} Answer;

/* A search of ``p`` with ``share`` (0 to 1) of the turn; -1: stop (END). */
typedef int (*Evaluate)(void *context, const Position *p, double share, Analysis *out);

/* 0 and the answer, or -1 and a StageError's or GameOverError's text, or -2
 * when a search was cancelled. */
int opening_choose(int cols, int rows, int rule, const int *stones, int count, int opening,
                   Evaluate evaluate, void *context, Answer *out, char *error, size_t size);
void answer_text(const Answer *a, int cols, char *out, size_t size);

#endif
