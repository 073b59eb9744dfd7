/*
 * The small boards' board and its lines: a shape of at most 49 cells (7x7),
 * its k-cell lines and symmetries as bitboards, and a position (Node) kept
 * incrementally as moves are played.
 *
 * Python (geometry.py) hands a Shape its lines, symmetries and static cell
 * order; board.py has validated every position before it gets here, but
 * every argument is checked again because this code handles what clients send.
 *
 * Symmetries, stated once: a square has 8, a rectangle 4; each is a
 * permutation of the cells, and a Node keeps its marks seen through every one
 * (xs, os), so that canonical() finds the smallest image, the key under which
 * the table stores a position's whole class.
 */
#ifndef SMALL_BOARD_H
#define SMALL_BOARD_H

#include "../common.h"

#define MAX_SIDE 7
#define MAX_CELLS 49
#define MAX_LINES 128 /* 7x7 with k=3 has 120 */
#define MAX_SYMS 8
#define MAX_THROUGH 28 /* at most k windows per direction hold a cell: 4 * 7 */

typedef unsigned __int128 lineset;

typedef struct {
    PyObject_HEAD
    int rows, cols, k, cells, nlines, nsyms, tag;
    uint64_t full;
    uint64_t line[MAX_LINES];
    uint8_t group[MAX_LINES]; /* the whole row, column or diagonal the line lies in */
    int nthrough[MAX_CELLS];
    uint8_t through[MAX_CELLS][MAX_THROUGH];
    lineset through_mask[MAX_CELLS];
    uint8_t perm[MAX_SYMS][MAX_CELLS];
    uint8_t inverse[MAX_SYMS][MAX_CELLS];
    uint64_t image[MAX_CELLS][MAX_SYMS]; /* a cell's bit seen through each symmetry; 0 past nsyms */
    uint8_t order[MAX_CELLS];
    uint8_t rank[MAX_CELLS]; /* a cell's place in order */
    /* The exact rule (a row longer than k wins for neither side), where a row of
     * k + 1 fits: a line is open to a side only while the side holds neither
     * of the cells that flank it (flank[l]); flank_mask[c] is the set of lines
     * that c flanks. Under freestyle exact is 0 and these stay empty. */
    int exact;
    uint64_t flank[MAX_LINES];
    lineset flank_mask[MAX_CELLS];
    int ready; /* SHAPE_NEW, SHAPE_BUSY while __init__ runs, SHAPE_READY once it succeeded */
} Shape;

enum { SHAPE_NEW = 0, SHAPE_BUSY = 1, SHAPE_READY = 2 };

extern PyTypeObject ShapeType;

/* A "O&" converter: a Shape whose __init__ has succeeded, or a TypeError or
 * ValueError (Shape.__new__ alone, or a failed __init__, leaves it unready). */
int shape_arg(PyObject *obj, void *out);

typedef struct {
    uint64_t me, opp;       /* the side to move's marks, the other side's */
    uint64_t my_thr;        /* empty cells that complete a line for the side to move */
    uint64_t opp_thr;       /* ... for the other side */
    lineset my_open;        /* lines holding none of opp: the side to move may still fill them */
    lineset opp_open;       /* lines holding none of me */
    uint64_t xs[MAX_SYMS];  /* X's marks seen through each symmetry */
    uint64_t os[MAX_SYMS];  /* O's marks seen through each symmetry */
    int color;              /* 0: X to move, 1: O to move */
    int marks;
    int summed;             /* whether the sums below are kept (play_summed()) */
    int64_t my_sum;         /* over my_open, 4 ** (the side to move's marks on the line) */
    int64_t opp_sum;        /* over opp_open, 4 ** (the other side's marks on it) */
} Node;

/* The position after the side to move marks ``cell``. */
void play(const Shape *sh, const Node *n, int cell, Node *child);

/* The symmetry frame whose image of the position is smallest, and that image. */
static inline int
canonical(const Shape *sh, const Node *n, uint64_t *key0, uint64_t *key1)
{
    int best = 0;
    uint64_t bx = n->xs[0], bo = n->os[0];
    for (int s = 1; s < sh->nsyms; s++) {
        if (n->xs[s] < bx || (n->xs[s] == bx && n->os[s] < bo)) {
            best = s;
            bx = n->xs[s];
            bo = n->os[s];
        }
    }
    uint64_t meta = (uint64_t)((sh->tag << 1 | n->color) | 1 << 9 | sh->exact << 10);
    *key0 = bx | meta << 52;
    *key1 = bo;
    return best;
}

/* Bounds that hold when the side to move has no immediate win and faces at most
 * one threat: its earliest win is its next-but-one move, the opponent's the
 * move after that, and a side with no open line can never win. */
static inline void
static_bounds(const Shape *sh, const Node *n, int *low, int *high)
{
    int empties = sh->cells - n->marks;
    *high = (empties >= 3 && n->my_open != 0) ? empties - 2 : 0;
    *low = (empties >= 4 && n->opp_open != 0) ? -(empties - 3) : 0;
}


/* The position with the other side to move: as if the side to move passed. */
static inline void
pass_turn(const Node *n, Node *out)
{
    *out = *n;
    out->me = n->opp;
    out->opp = n->me;
    out->my_thr = n->opp_thr;
    out->opp_thr = n->my_thr;
    out->my_open = n->opp_open;
    out->opp_open = n->my_open;
    out->color = n->color ^ 1;
    out->summed = 0;
}

/* Every empty cell that completes one of ``open``, lines open to ``mine``. */
uint64_t threats_in(const Shape *sh, uint64_t mine, lineset open);

/* The lines open to the owner of ``mine``: holding none of ``theirs`` and,
 * under the exact rule, flanked by none of ``mine``. */
lineset open_lines(const Shape *sh, uint64_t mine, uint64_t theirs);

/* The node of the position (x, o) with X or O to move. */
void root_node(const Shape *sh, uint64_t x, uint64_t o, int x_to_move, Node *n);

#endif
