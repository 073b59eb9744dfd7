/*
 * The search for a pairing strategy: see pairing.h.
 */
#include "pairing.h"

/* Free cells per line, bit-sliced: bit i of free1, free2 and free4 are the
 * 1s, 2s and 4s of line i's count of free cells (at most 7). Taking a cell
 * counts down every line through it in a few word operations, and the line
 * with the fewest free cells is found by masks, with no loop over lines. */
typedef struct {
    lineset free1, free2, free4;
} FreeCounts;

static inline void
take_cell(FreeCounts *f, lineset through)
{
    lineset borrow1 = through & ~f->free1;
    lineset borrow2 = borrow1 & ~f->free2;
    f->free1 ^= through;
    f->free2 ^= borrow1;
    f->free4 ^= borrow2;
}

/* The lines whose count of free cells is ``count``. */
static inline lineset
lines_with(const FreeCounts *f, int count)
{
    return (count & 1 ? f->free1 : ~f->free1) & (count & 2 ? f->free2 : ~f->free2) &
           (count & 4 ? f->free4 : ~f->free4);
}

static inline int
lowest_line(lineset set)
{
    uint64_t low = (uint64_t)set;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(set >> 64));
}

/* Add the pair (a, b) to the pairing: returns the free cells without them and
 * counts one free cell fewer on each line through each. */
static inline uint64_t
take_pair(Pairing *P, int a, int b, uint64_t free_cells, FreeCounts *counts)
{
    P->a[P->count] = (uint8_t)a;
    P->b[P->count] = (uint8_t)b;
    P->count++;
    take_cell(counts, P->sh->through_mask[a]);
    take_cell(counts, P->sh->through_mask[b]);
    return free_cells & ~((uint64_t)1 << a) & ~((uint64_t)1 << b);
}

HOT static int
pair_cover(Pairing *P, lineset todo, uint64_t free_cells, const FreeCounts *counts_in)
{
    const Shape *sh = P->sh;
    FreeCounts counts = *counts_in;
    int base = P->count;
    /* A line with two free cells left has one pair: taken here, in a loop
     * (the same steps as a branch with one choice), before anything branches. */
    for (;;) {
        if (todo == 0) {
            return 1;
        }
        if (++P->steps > P->step_limit || P->count >= PAIRING_MAX) {
            P->count = base;
            return 0;
        }
        /* A line with 0 or 1 free cells (no 4s, no 2s) cannot hold a pair any more. */
        if (todo & ~counts.free4 & ~counts.free2) {
            P->count = base;
            return 0;
        }
        lineset two = todo & lines_with(&counts, 2);
        if (!two) {
            break;
        }
        uint64_t cells = sh->line[lowest_line(two)] & free_cells;
        int a = __builtin_ctzll(cells), b = __builtin_ctzll(cells & (cells - 1));
        todo &= ~(sh->through_mask[a] & sh->through_mask[b]);
        free_cells = take_pair(P, a, b, free_cells, &counts);
    }
    /* The lowest-numbered line among those with the fewest free cells (3 or more). */
    lineset fewest = 0;
    for (int count = 3; count <= 7 && !fewest; count++) {
        fewest = todo & lines_with(&counts, count);
    }
    int best = lowest_line(fewest);
    uint64_t cells = sh->line[best] & free_cells;
    /* The pairs of the line's free cells, those covering the most lines first:
     * fewer pairs, found sooner, and a smaller zone for nowin(). */
    uint8_t pa[21], pb[21];
    lineset pc[21];
    int pk[21], np = 0;
    for (uint64_t first = cells; first; first &= first - 1) {
        int a = __builtin_ctzll(first);
        for (uint64_t second = first & (first - 1); second; second &= second - 1) {
            int b = __builtin_ctzll(second);
            lineset covered = sh->through_mask[a] & sh->through_mask[b] & todo;
            int key = __builtin_popcountll((uint64_t)covered) +
                      __builtin_popcountll((uint64_t)(covered >> 64));
            int j = np++;
            while (j > 0 && pk[j - 1] < key) {
                pa[j] = pa[j - 1];
                pb[j] = pb[j - 1];
                pc[j] = pc[j - 1];
                pk[j] = pk[j - 1];
                j--;
            }
            pa[j] = (uint8_t)a;
            pb[j] = (uint8_t)b;
            pc[j] = covered;
            pk[j] = key;
        }
    }
    for (int i = 0; i < np; i++) {
        FreeCounts after = counts;
        uint64_t rest = take_pair(P, pa[i], pb[i], free_cells, &after);
        if (pair_cover(P, todo & ~pc[i], rest, &after)) {
            return 1;
        }
        P->count--;
        if (P->steps > P->step_limit) {
            break;
        }
    }
    P->count = base;
    return 0;
}

/* The free cells of each of ``open``, lines that hold none of the other
 * side's marks: k minus the owner's marks on it, bit-sliced (see FreeCounts).
 * The marks are counted up cell by cell, a few word operations each, and
 * subtracted from k bit by bit. */
static inline FreeCounts
free_counts(const Shape *sh, lineset open, uint64_t marks)
{
    lineset c1 = 0, c2 = 0, c4 = 0;
    for (; marks; marks &= marks - 1) {
        lineset through = sh->through_mask[__builtin_ctzll(marks)];
        lineset carry1 = c1 & through;
        lineset carry2 = c2 & carry1;
        c1 ^= through;
        c2 ^= carry1;
        c4 ^= carry2;
    }
    lineset k1 = sh->k & 1 ? ~(lineset)0 : 0, k2 = sh->k & 2 ? ~(lineset)0 : 0,
            k4 = sh->k & 4 ? ~(lineset)0 : 0;
    lineset borrow1 = ~k1 & c1;
    lineset borrow2 = (~k2 & (c2 | borrow1)) | (c2 & borrow1);
    FreeCounts counts = {(k1 ^ c1) & open, (k2 ^ c2 ^ borrow1) & open, (k4 ^ c4 ^ borrow2) & open};
    return counts;
}

/* Whether a pairing shows that the owner of ``marks`` and ``open`` (the lines
 * it can still fill) cannot win. */
HOT int
cannot_win(const Shape *sh, lineset open, uint64_t marks, uint64_t empty, int thorough, Pairing *P)
{
    uint64_t groups = 0; /* the rows, columns and diagonals that hold an open line */
    for (int half = 0; half < 2; half++) {
        for (uint64_t bits = (uint64_t)(open >> (64 * half)); bits; bits &= bits - 1) {
            groups |= (uint64_t)1 << sh->group[64 * half + __builtin_ctzll(bits)];
        }
    }
    /* Two cells lie in one row, column or diagonal at most, so each of those
     * holding an open line needs a pair of its own: more of them than half the
     * empty cells, and no pairing exists. */
    if (2 * __builtin_popcountll(groups) > __builtin_popcountll(empty)) {
        return 0;
    }
    P->sh = sh;
    P->steps = 0;
    /* A certificate near the root cuts a large subtree and is worth a longer
     * search for it than one near the leaves, where brute force is cheap. */
    int wide = __builtin_popcountll(empty) >= PAIRING_WIDE_EMPTIES;
    P->step_limit = thorough ? (wide ? PAIRING_PROOF_STEPS : PAIRING_PROOF_STEPS_NARROW)
                             : (wide ? PAIRING_STEPS : PAIRING_STEPS_NARROW);
    P->count = 0;
    FreeCounts counts = free_counts(sh, open, marks);
    return pair_cover(P, open, empty, &counts);
}
