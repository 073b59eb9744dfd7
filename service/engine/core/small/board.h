/*
 * The small boards' board and its lines: a shape of at most 64 cells (8x8),
 * its k-cell lines and symmetries as bitboards, and a position (Node) kept
 * incrementally as moves are played.
 *
 * Python (geometry.py) hands a Shape its lines, symmetries and static cell
 * order (python/types.c builds it); board.py has validated every position before it
 * gets here, but every argument is checked again because this code handles
 * what clients send.
 *
 * Symmetries, stated once: a square has 8, a rectangle 4; each is a
 * permutation of the cells, and a Node keeps its marks seen through every one
 * (xs, os), so that canonical() finds the smallest image, the key under which
 * the table stores a position's whole class.
 */
#ifndef SMALL_BOARD_H
#define SMALL_BOARD_H

#include "../common.h"

#define MAX_SIDE 8
#define MAX_CELLS 64
#define MAX_SYMS 8
#define MAX_THROUGH 32 /* at most k windows per direction hold a cell: 4 * 8 */

/* A set of lines, one bit each, in LINESET_WORDS words: 8x8 with k=3 has 168
 * lines. A GCC vector, so that &, |, ^ and ~ work on the whole set at once;
 * the helpers below do what a vector cannot (one bit, a test, a count),
 * and loops over the members go word by word up to the shape's words.
 * Functions take linesets by pointer: passed by value, a 32-byte vector's
 * ABI depends on whether AVX is on. Aligned as its words, not as a vector:
 * a Shape lives where Python's allocator puts it (16 bytes; python/types.c's
 * ShapeObject holds it after the object's header), and the AVX2
 * clones of the HOT functions would fault on an aligned load from there. */
#define LINESET_WORDS 4
#define MAX_LINES (64 * LINESET_WORDS)
typedef uint64_t lineset __attribute__((vector_size(8 * LINESET_WORDS), aligned(8)));

#define LS_NONE ((lineset){0})

static inline void
ls_add(lineset *set, int i)
{
    (*set)[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline int
ls_any(const lineset *set)
{
    uint64_t any = 0;
    for (int w = 0; w < LINESET_WORDS; w++) {
        any |= (*set)[w];
    }
    return any != 0;
}

static inline int
ls_count(const lineset *set)
{
    int count = 0;
    for (int w = 0; w < LINESET_WORDS; w++) {
        count += __builtin_popcountll((*set)[w]);
    }
    return count;
}

/* The lowest line of a set that is not empty. */
static inline int
ls_lowest(const lineset *set)
{
    int w = 0;
    while ((*set)[w] == 0) {
        w++;
    }
    return 64 * w + __builtin_ctzll((*set)[w]);
}

typedef struct {
    int rows, cols, k, cells, nlines, nsyms, tag;
    int words; /* the words of a lineset that hold lines: (nlines + 63) / 64 */
    int wide;      /* more than NARROW_CELLS cells: see canonical() */
    uint64_t meta; /* the shape's and rule's part of every key: see canonical() */
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
} Shape;

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
canonical_image(const Shape *sh, const Node *n, uint64_t *bx, uint64_t *bo)
{
    int best = 0;
    *bx = n->xs[0];
    *bo = n->os[0];
    for (int s = 1; s < sh->nsyms; s++) {
        if (n->xs[s] < *bx || (n->xs[s] == *bx && n->os[s] < *bo)) {
            best = s;
            *bx = n->xs[s];
            *bo = n->os[s];
        }
    }
    return best;
}

/* The key of a position's class, two words, one per position, shape, rule and
 * side to move, and never the key of a big board (see big_key()):
 * - a narrow shape (at most NARROW_CELLS cells) has 12 bits to spare above its
 *   cells in the first word, and puts its meta there (sh->meta: tag, rule and a
 *   marker bit, and the side to move): the two words share no bit;
 * - a wide shape (7x8, 8x7, 8x8) has no such room, and writes its meta
 *   (WIDE_META_BITS, the lowest always 1) into the lowest free bits (a bit that
 *   is neither side's mark), setting each 1 in both words: the words share a
 *   bit, which a narrow key never does. A wide position with fewer free bits
 *   than that (at most 7 empty cells on 8x8) has no key: both words 0, which
 *   the table and the per-search caches never store.
 *   A wide key is the side to move's, not the colours': the mover's marks are
 *   where only the first word has a bit, the other side's where only the
 *   second, and the side to move is no part of it. Nothing in the game tells
 *   the colours apart, so a position and its colour-swapped twin share their
 *   value, and the proof that a side cannot win even when the other passes
 *   (analyze_root()) finds the other colour's proofs in the table: that
 *   halved the nodes of (7,8,5)'s proof from the empty board (24,283,968 to
 *   12,182,416). (The narrow shapes keep the colours' keys, so that their
 *   tables and node counts stay as they were.) */
#define NARROW_CELLS 52
#define WIDE_META_BITS 8

static inline int
canonical(const Shape *sh, const Node *n, uint64_t *key0, uint64_t *key1)
{
    uint64_t bx, bo;
    int best = canonical_image(sh, n, &bx, &bo);
    if (!sh->wide) {
        *key0 = bx | sh->meta | (uint64_t)n->color << 52;
        *key1 = bo;
        return best;
    }
    if (n->color) {
        best = 0;
        bx = n->os[0];
        bo = n->xs[0];
        for (int s = 1; s < sh->nsyms; s++) {
            if (n->os[s] < bx || (n->os[s] == bx && n->xs[s] < bo)) {
                best = s;
                bx = n->os[s];
                bo = n->xs[s];
            }
        }
    }
    uint64_t free_bits = ~(bx | bo), meta = sh->meta, both = 0;
    if (__builtin_popcountll(free_bits) < WIDE_META_BITS) {
        *key0 = *key1 = 0;
        return best;
    }
    for (int j = 0; j < WIDE_META_BITS; j++) {
        uint64_t bit = free_bits & -free_bits;
        free_bits ^= bit;
        both |= meta >> j & 1 ? bit : 0;
    }
    *key0 = bx | both;
    *key1 = bo | both;
    return best;
}

/* Bounds that hold when the side to move has no immediate win and faces at most
 * one threat: its earliest win is its next-but-one move, the opponent's the
 * move after that, and a side with no open line can never win. */
static inline void
static_bounds(const Shape *sh, const Node *n, int *low, int *high)
{
    int empties = sh->cells - n->marks;
    *high = (empties >= 3 && ls_any(&n->my_open)) ? empties - 2 : 0;
    *low = (empties >= 4 && ls_any(&n->opp_open)) ? -(empties - 3) : 0;
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

/* The empty cells of the side to move's open lines holding ``need`` or more of
 * its marks: where a mark gives it a threat (need = k - 2: vcf()) or a line
 * one mark from a threat (need = k - 3: vct()). */
static inline uint64_t
cells_of_lines_holding(const Shape *sh, const Node *n, int need)
{
    uint64_t found = 0;
    uint64_t empty = sh->full & ~(n->me | n->opp);
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = n->my_open[w]; bits; bits &= bits - 1) {
            int l = 64 * w + __builtin_ctzll(bits);
            if (__builtin_popcountll(n->me & sh->line[l]) >= need) {
                found |= sh->line[l] & empty;
            }
        }
    }
    return found;
}

/* Every empty cell that completes one of ``open``, lines open to ``mine``. */
uint64_t threats_in(const Shape *sh, uint64_t mine, const lineset *open);

/* The lines open to the owner of ``mine`` (into ``out``): holding none of
 * ``theirs`` and, under the exact rule, flanked by none of ``mine``. */
void open_lines(const Shape *sh, uint64_t mine, uint64_t theirs, lineset *out);

/* The node of the position (x, o) with X or O to move. */
void root_node(const Shape *sh, uint64_t x, uint64_t o, int x_to_move, Node *n);

#endif
