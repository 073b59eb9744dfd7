/*
 * The small boards' searches, and what they share: a Search (one per root
 * analysis, on one thread) with its clock, its view of the shared table and
 * its private tables of estimates and zones.
 *
 * Scores inside the core count marks, not plies, so that negamax is plain
 * negation: a win completed by the T-th mark on the board is worth
 * cells + 1 - T to the winner, the negative to the loser, and a draw is 0
 * (search.py converts to the public convention of score.py).
 *
 * Tactics hold at every node, whatever the budget: a side with a cell that
 * completes a line wins with it; a side facing two such cells of the other
 * side loses; a side facing one must take it.
 *
 * The files: solve.c (alpha-beta on proven values), estimate.c (the same on
 * estimates, with the heuristic), pairing.c, vcf.c and vct.c (knowledge: draw
 * certificates, continuous threats, threats), zones.c (the proof search with
 * relevance zones), root.c (every legal move's value).
 */
#ifndef SMALL_SEARCH_H
#define SMALL_SEARCH_H

#include "../clock.h"
#include "../table.h"
#include "board.h"
#include "moves.h"

#define EST_BITS 15     /* per-search estimate table: 32,768 entries */
#define MAX_PROOF_THREADS 64

typedef struct {
    uint64_t key0, key1;
    int depth;
    uint8_t move;
    double lower, upper;
} Estimate;

typedef struct {
    const Shape *sh;
    Table *tt;
    Clock clock;
    uint64_t hits, misses;
    Estimate *est;
    struct ZoneEntry *zones; /* nowin()'s proofs with their zones, allocated on first use */
    uint64_t zone_mask;      /* their count less one (see zones.c) */
    atomic_uchar *zone_locks; /* NULL, or the locks of a zone table that threads share */
    int threads;             /* a proof's root may split over this many threads (0, 1: none) */
    int split_marks;         /* the marks of the root that splits (zones.c) */
    struct VctEntry *vct;    /* vct()'s memo, allocated on first use */
} Search;

/* A position with no key (see canonical()) is never found, never stored. */
static inline int
tt_probe(Search *S, uint64_t key0, uint64_t key1, int *lower, int *upper, int *move, int *tried)
{
    int found = key0 != 0 && table_probe(S->tt, key0, key1, lower, upper, move, tried);
    if (found) {
        S->hits++;
    }
    else {
        S->misses++;
    }
    return found;
}

static inline void
tt_store(Search *S, uint64_t key0, uint64_t key1, int lower, int upper, int move, uint64_t nodes,
         int tried)
{
    if (key0 != 0) {
        table_store(S->tt, key0, key1, lower, upper, move, nodes, tried);
    }
}

static inline Estimate *
est_slot(Search *S, uint64_t key0, uint64_t key1, int depth)
{
    uint64_t h = mix64(key0 ^ mix64(key1 ^ (uint64_t)depth)) & ((1u << EST_BITS) - 1);
    return &S->est[h];
}

/* What play_ahead() fetches for the child: nothing, its table bucket, or
 * (any depth >= 1) its bucket and its estimate slot at that depth. */
enum { FETCH_NOTHING = -1, FETCH_BUCKET = 0 };

/* Play ``cell`` (nothing when it is -1) into ``child`` and start fetching
 * what ``fetch`` says. The move loops of solve() and estimate() play one move
 * ahead this way: the next child's lines arrive while this child is searched
 * (see bench/core_ab.py for what it gains). A cut-off wastes the one move
 * played ahead; the first child, searched at once, is fetched nothing. */
static inline void
play_ahead(Search *S, const Node *n, int cell, Node *child, int fetch)
{
    if (cell < 0) {
        return;
    }
    play(S->sh, n, cell, child);
    if (fetch != FETCH_NOTHING) {
        uint64_t key0, key1;
        canonical(S->sh, child, &key0, &key1);
        table_prefetch(S->tt, key0, key1);
        if (fetch >= 1) {
            __builtin_prefetch(est_slot(S, key0, key1, fetch), 1, 3);
        }
    }
}

/* Below this many empty cells brute force is cheaper than the knowledge. */
#ifndef USE_PAIRING
#define USE_PAIRING 1
#endif
#ifndef USE_VCF
#define USE_VCF 1
#endif
#ifndef KNOWLEDGE_MIN_EMPTIES
#define KNOWLEDGE_MIN_EMPTIES 8
#endif

/* Victory by continuous threats (VCF, in Go-Moku's terms; Allis's threat-space
 * search restricted to threats that must be answered at once): every move of
 * the side to move makes a threat, so every reply is forced, until it has two
 * threats at once. Returns the internal value of the win found (a lower bound
 * on the node's value: a faster win may exist) or 0. Sound: the defender
 * either blocks or loses at once, and a line is abandoned as soon as the
 * defender gets a threat of its own that the next forcing move does not block. */
#define VCF_DEPTH 12
int vcf(Search *S, const Node *n, int depth);

/* Victory by threats, quiet ones included (vct.c): each attacker move adds a
 * mark to one of its lines that already holds k - 3 or more, and is a threat,
 * a four or a move after which the attacker would win by fours (vcf()) if
 * the defender passed; every defender reply is searched (the defender's
 * own fours and wins included), and so is every line of fours, within
 * ``depth`` quiet threats (fours cost none). Returns 1 and the first move in
 * ``move`` where the side to move wins so, else 0 (and -1): not found, or
 * the budget ran out. A proof: sound under both rules, whatever it restricts
 * the attacker to. The side to move must face no threat of the other side's. */
#define VCT_DEPTH 8
int vct(Search *S, const Node *n, int depth, int *move);

/* The exact value of ``n`` inside (alpha, beta), or a bound outside it (solve.c). */
int solve(Search *S, const Node *n, int alpha, int beta);

/* The estimate of ``n`` at ``depth`` plies (estimate.c). */
double estimate(Search *S, const Node *n, int depth, double alpha, double beta);
double heuristic(const Shape *sh, const Node *n);
void line_sums(const Shape *sh, const Node *n, int64_t *mine, int64_t *theirs);
void play_summed(const Shape *sh, const Node *n, int64_t my_sum, int64_t opp_sum, int cell,
                 Node *child);


#endif
