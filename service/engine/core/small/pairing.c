/*
 * The search for a pairing strategy: see pairing.h.
 */
#include "pairing.h"

/* Free cells per line, bit-sliced: bit i of free1, free2, free4 and free8 are
 * the 1s, 2s, 4s and 8s of line i's count of free cells (at most 8). Taking a cell
 * counts down every line through it in a few word operations, and the line
 * with the fewest free cells is found by masks, with no loop over lines. */
typedef struct {
    lineset free1, free2, free4, free8;
} FreeCounts;

static inline void
take_cell(FreeCounts *f, const lineset *through_cell)
{
    lineset through = *through_cell;
    lineset borrow1 = through & ~f->free1;
    lineset borrow2 = borrow1 & ~f->free2;
    lineset borrow4 = borrow2 & ~f->free4;
    f->free1 ^= through;
    f->free2 ^= borrow1;
    f->free4 ^= borrow2;
    f->free8 ^= borrow4;
}

/* The lines of ``set`` whose count of free cells is ``count``. */
static inline void
lines_with(const FreeCounts *f, int count, lineset *set)
{
    *set &= (count & 1 ? f->free1 : ~f->free1) & (count & 2 ? f->free2 : ~f->free2) &
            (count & 4 ? f->free4 : ~f->free4) & (count & 8 ? f->free8 : ~f->free8);
}

/* Add the pair (a, b) to the pairing: returns the free cells without them and
 * counts one free cell fewer on each line through each. */
static inline uint64_t
take_pair(Pairing *P, int a, int b, uint64_t free_cells, FreeCounts *counts)
{
    P->a[P->count] = (uint8_t)a;
    P->b[P->count] = (uint8_t)b;
    P->count++;
    take_cell(counts, &P->sh->through_mask[a]);
    take_cell(counts, &P->sh->through_mask[b]);
    return free_cells & ~((uint64_t)1 << a) & ~((uint64_t)1 << b);
}

HOT static int
pair_cover(Pairing *P, const lineset *todo_in, uint64_t free_cells, const FreeCounts *counts_in)
{
    lineset todo = *todo_in;
    const Shape *sh = P->sh;
    FreeCounts counts = *counts_in;
    int base = P->count;
    /* A line with two free cells left has one pair: taken here, in a loop
     * (the same steps as a branch with one choice), before anything branches. */
    for (;;) {
        if (!ls_any(&todo)) {
            return 1;
        }
        if (++P->steps > P->step_limit || P->count >= PAIRING_MAX) {
            P->count = base;
            return 0;
        }
        /* A line with 0 or 1 free cells (no 8s, 4s or 2s) cannot hold a pair any more. */
        lineset stuck = todo & ~counts.free8 & ~counts.free4 & ~counts.free2;
        if (ls_any(&stuck)) {
            P->count = base;
            return 0;
        }
        lineset two = todo;
        lines_with(&counts, 2, &two);
        if (!ls_any(&two)) {
            break;
        }
        uint64_t cells = sh->line[ls_lowest(&two)] & free_cells;
        int a = __builtin_ctzll(cells), b = __builtin_ctzll(cells & (cells - 1));
        todo &= ~(sh->through_mask[a] & sh->through_mask[b]);
        free_cells = take_pair(P, a, b, free_cells, &counts);
    }
    /* The lowest-numbered line among those with the fewest free cells (3 or more). */
    lineset fewest = LS_NONE;
    for (int count = 3; count <= 8 && !ls_any(&fewest); count++) {
        fewest = todo;
        lines_with(&counts, count, &fewest);
    }
    int best = ls_lowest(&fewest);
    uint64_t cells = sh->line[best] & free_cells;
    /* The pairs of the line's free cells, those covering the most lines first:
     * fewer pairs, found sooner, and a smaller zone for nowin(). */
    uint8_t pa[28], pb[28]; /* the pairs of at most 8 cells */
    lineset pc[28];
    int pk[28], np = 0;
    for (uint64_t first = cells; first; first &= first - 1) {
        int a = __builtin_ctzll(first);
        for (uint64_t second = first & (first - 1); second; second &= second - 1) {
            int b = __builtin_ctzll(second);
            lineset covered = sh->through_mask[a] & sh->through_mask[b] & todo;
            int key = ls_count(&covered);
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
        lineset left = todo & ~pc[i];
        if (pair_cover(P, &left, rest, &after)) {
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
free_counts(const Shape *sh, const lineset *open_lines, uint64_t marks)
{
    lineset open = *open_lines;
    lineset c1 = LS_NONE, c2 = LS_NONE, c4 = LS_NONE, c8 = LS_NONE;
    for (; marks; marks &= marks - 1) {
        lineset through = sh->through_mask[__builtin_ctzll(marks)];
        lineset carry1 = c1 & through;
        lineset carry2 = c2 & carry1;
        lineset carry4 = c4 & carry2;
        c1 ^= through;
        c2 ^= carry1;
        c4 ^= carry2;
        c8 ^= carry4;
    }
    /* k - marks, bit by bit with borrows (marks <= k on an open line). */
    lineset all = ~LS_NONE;
    lineset k1 = sh->k & 1 ? all : LS_NONE, k2 = sh->k & 2 ? all : LS_NONE,
            k4 = sh->k & 4 ? all : LS_NONE, k8 = sh->k & 8 ? all : LS_NONE;
    lineset borrow1 = ~k1 & c1;
    lineset borrow2 = (~k2 & (c2 | borrow1)) | (c2 & borrow1);
    lineset borrow4 = (~k4 & (c4 | borrow2)) | (c4 & borrow2);
    FreeCounts counts = {(k1 ^ c1) & open, (k2 ^ c2 ^ borrow1) & open,
                         (k4 ^ c4 ^ borrow2) & open, (k8 ^ c8 ^ borrow4) & open};
    return counts;
}

/* Whether a pairing shows that the owner of ``marks`` and ``open`` (the lines
 * it can still fill) cannot win. */
HOT int
cannot_win(const Shape *sh, const lineset *open, uint64_t marks, uint64_t empty, int thorough,
           Pairing *P)
{
    uint64_t groups = 0; /* the rows, columns and diagonals that hold an open line */
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = (*open)[w]; bits; bits &= bits - 1) {
            groups |= (uint64_t)1 << sh->group[64 * w + __builtin_ctzll(bits)];
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
