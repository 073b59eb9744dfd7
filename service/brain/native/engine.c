/*
 * What the brain asks of the engine, the Python side's Engine and
 * GameContext in a page: one table for the game and one big-board search
 * context, renewed from move to move (history halved, killers cleared, the
 * memo of failed threat searches kept: big_search_renew()), and each
 * analysis's moves ranked as analysis.py's rank_moves() ranks them: the
 * public score (score.py: a proven result counts plies, beyond +-1; an
 * estimate lies inside), higher first, then the lower cell.
 *
 * Every board goes to the big-board search (core/big/), 3x3 to 20x20; the
 * service answers boards up to 8x8 from the exact core first (docs/brain.md,
 * "Small boards", says what that changes).
 *
 * With more than one thread (INFO thread_num), the others are helpers: each
 * its own search state (kept, as the main one, from move to move), on the
 * same position and table, deepening until the main search answers
 * (big_help(): "lazy SMP", the table the only thing shared).
 */
#include "brain.h"

#include <string.h>

/* An unconfirmed win or loss stays an estimate (analysis.py's UNCONFIRMED). */
#define UNCONFIRMED 0.95

int
engine_open(Engine *e, uint64_t table_bytes, int max_depth)
{
    big_search_init(); /* once: the weights are the caller's (brain_run) */
    memset(e, 0, sizeof(*e));
    e->table_bytes = table_bytes;
    e->max_depth = max_depth;
    e->search = big_search_new();
    e->shape = malloc(sizeof(BigShape));
    e->found = malloc(sizeof(BigRootMove) * BIG_MAX_CELLS);
    if (e->search == NULL || e->shape == NULL || e->found == NULL ||
        table_init(&e->table, table_bytes) < 0) {
        engine_close(e);
        return -1;
    }
    /* All the table's memory now (at START), on huge pages: moved to them
     * as it filled (core/table.c), the first moves of a game overran their
     * deadline by up to 180 ms on a loaded machine where other brains started
     * meanwhile (docs/strength.md, "Time"). */
    table_prefault(&e->table);
    return 0;
}

void
engine_close(Engine *e)
{
    table_free(&e->table);
    big_search_free(e->search);
    for (int i = 0; i < MAX_THREADS - 1; i++) {
        big_search_free(e->helper[i]);
    }
    free(e->shape);
    free(e->found);
    memset(e, 0, sizeof(*e));
}

int
engine_new_game(Engine *e)
{
    table_clear(&e->table);
    big_search_free(e->search);
    e->search = big_search_new();
    for (int i = 0; i < MAX_THREADS - 1; i++) {
        big_search_free(e->helper[i]);
        e->helper[i] = NULL; /* a new one when next wanted */
    }
    return e->search == NULL ? -1 : 0;
}

/* ``p``'s stones on ``b``, and its side to move. */
static void
set_position(BigBoard *b, const BigShape *shape, const Position *p)
{
    big_board_init(b, shape);
    for (int cell = 0; cell < shape->cells; cell++) {
        if (p->stone[cell]) {
            b->side = p->stone[cell] - 1;
            big_play(b, cell);
        }
    }
    b->side = p->x_to_move ? 0 : 1;
}

typedef struct {
    BigSearch *search;
    int offset;
} Helper;

static void
help(void *arg)
{
    Helper *h = arg;
    big_help(h->search, h->offset);
}

/* A mark-counted value as a public one (search.py's to_public). */
static double
to_public(int internal, int marks)
{
    return internal > 0 ? internal + marks : internal < 0 ? internal - marks : 0;
}

static int
ranked_before(const MoveScore *a, const MoveScore *b)
{
    return a->score > b->score || (a->score == b->score && a->cell < b->cell);
}

int
engine_forbidden(Engine *e, const Position *p, int *cells)
{
    if (p->rule != RULE_RENJU || !p->x_to_move ||
        big_shape_init(e->shape, p->rows, p->cols, p->k, p->rule) < 0) {
        return 0;
    }
    BigBoard *b = &e->search->board;
    set_position(b, e->shape, p);
    int count = 0;
    for (int cell = 0; cell < e->shape->cells; cell++) {
        if (big_forbidden(b, cell) != FORBID_NONE) {
            cells[count++] = cell;
        }
    }
    return count;
}

int
engine_search(Engine *e, const Position *p, uint64_t budget, Control *control, int threads,
              Analysis *out)
{
    BigSearch *S = e->search;
    /* RULE_* are the core's own rule values (rules.c's PLAYED maps to them). */
    if (big_shape_init(e->shape, p->rows, p->cols, p->k, p->rule) < 0) {
        return -1;
    }
    big_search_renew(S);
    S->tt = &e->table;
    S->clock.ctl = control;
    S->clock.limit = budget;
    S->max_depth = e->max_depth;
    set_position(&S->board, e->shape, p);
    table_new_generation(&e->table); /* one for the search and its helpers */
    if (e->max_depth > 0) {
        threads = 1; /* a depth-bounded search (tests) answers alike every time */
    }
    /* The helpers, stopped by ``done`` when the main search answers (or by
     * ``control`` with it); a helper that cannot start is done without. */
    Control done;
    control_init(&done, 0);
    Helper helpers[MAX_THREADS - 1];
    PlatformThread *running[MAX_THREADS - 1];
    int started = 0;
    for (int i = 0; i < threads - 1 && i < MAX_THREADS - 1; i++) {
        if (e->helper[i] == NULL && (e->helper[i] = big_search_new()) == NULL) {
            break;
        }
        BigSearch *H = e->helper[i];
        big_search_renew(H);
        H->tt = &e->table;
        H->clock.ctl = control;
        H->clock.group = &done;
        H->clock.limit = budget;
        H->max_depth = e->max_depth;
        set_position(&H->board, e->shape, p);
        helpers[i] = (Helper){H, i % 2 == 0}; /* every other helper a ply ahead */
        if ((running[i] = platform_thread_start(help, &helpers[i], HELPER_STACK_BYTES)) == NULL) {
            break;
        }
        started++;
    }
    int count = 0;
    BigRootResult result = big_analyze(S, budget, e->found, &count);
    control_cancel(&done);
    uint64_t nodes = S->clock.nodes, hits = S->hits, misses = S->misses;
    for (int i = 0; i < started; i++) {
        platform_thread_join(running[i]);
        e->helper[i]->clock.group = NULL; /* ``done`` ends with this call */
        nodes += e->helper[i]->clock.nodes;
        hits += e->helper[i]->hits;
        misses += e->helper[i]->misses;
    }
    atomic_fetch_add_explicit(&e->table.hits, hits, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->table.misses, misses, memory_order_relaxed);
    out->count = 0;
    out->stop = result.stop;
    out->nodes = nodes;
    for (int i = 0; i < count; i++) {
        const BigRootMove *m = &e->found[i];
        MoveScore move = {m->cell, 0.0};
        if (m->exact || m->proven) {
            move.score = to_public((int)m->value, p->marks);
        }
        else if (m->value >= 1 || m->value <= -1) {
            move.score = m->value > 0 ? UNCONFIRMED : -UNCONFIRMED;
        }
        else {
            move.score = m->value;
        }
        /* Insertion into the ranking: a few hundred moves at most. */
        int at = out->count++;
        while (at > 0 && ranked_before(&move, &out->moves[at - 1])) {
            out->moves[at] = out->moves[at - 1];
            at--;
        }
        out->moves[at] = move;
    }
    return 0;
}

int
analysis_best_move(const Analysis *a)
{
    /* Ranked by score then cell: the first is the lowest cell of the best. */
    return a->count > 0 ? a->moves[0].cell : -1;
}
