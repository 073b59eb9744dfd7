/*
 * Can the attacker win? A boolean proof search with relevance zones.
 */
#include "pairing.h"
#include "search.h"
#include "zones.h"

/* ``nowin`` answers whether one side, the attacker, can force a win at any
 * distance, as a proof: NW_NOWIN (it cannot), NW_WIN (it can), or NW_UNKNOWN
 * (the depth or the budget ran out). It is the outcome half of the search,
 * without distances, and it proves draws on boards where solve() drowns in
 * the attacker's moves (7x7 with k=5).
 *
 * The cut that makes it fast is the relevance zone (Hsu et al., TCS 815,
 * 2020). A proof that the attacker cannot win comes with a zone: a set of
 * empty cells such that the proof holds for the position with any extra
 * attacker marks outside it. A pairing's zone is its pairs' cells; a
 * defender's move adds its cell to the zone of the proof below it; an attacker
 * node's zone is the union of its moves' zones. Then an attacker move m'
 * outside the zone Z of a refuted move m is refuted too: the position after
 * m' has fewer attacker marks than the position after m plus an extra mark on
 * m', which the zone covers, and fewer marks never help (strategy stealing's
 * monotonicity). So an attacker node searches only the moves inside the
 * intersection of the zones found so far.
 *
 * Where a proof leans on something extra attacker marks could change (a
 * forced block, a defender's immediate win), its zone is every empty cell.
 *
 * Under the exact rule an extra mark can hurt its owner (it may turn a row of
 * k into an overline, or flank a line shut), so fewer marks may help the
 * attacker and the zones' cut is unsound: there nowin() searches every
 * attacking move, and stays a plain proof search. */
typedef struct ZoneEntry {
    uint64_t key0, key1;
    uint64_t zone;     /* NW_NOWIN: the zone, in the canonical frame */
    int8_t result;     /* NW_*; 0 in an empty slot is NW_WIN, but its key0 is 0 */
    uint8_t depth;     /* NW_UNKNOWN: the depth searched */
    uint8_t attacker;  /* whether the attacker is to move */
} ZoneEntry;

/* Per search: 16,384 entries of 32 bytes, 512 KiB. Measured against 2 MiB:
 * 1.4% more nodes on hard 7x7 k=5 proofs, 9% more nodes/s on the bench's rate
 * positions (a fresh table per search costs its pages). A search with a
 * budget of LONG_PROOF_NODES or more (the offline proofs: make prove-885, the
 * book's (8,8,5)) gets ZONE_BITS_LONG instead, 128 MiB: on (7,8,5) from the
 * empty board, 2^20 entries took 12% fewer nodes than 2^14, and 2^22 another
 * 0.7% fewer (12,182,416, 10,724,065, 10,648,441). */
#ifndef ZONE_BITS
#define ZONE_BITS 14
#endif
#ifndef ZONE_BITS_LONG
#define ZONE_BITS_LONG 22
#endif
#define LONG_PROOF_NODES ((uint64_t)1 << 30)

static uint64_t
map_cells(const uint8_t *perm, uint64_t cells)
{
    uint64_t out = 0;
    for (; cells; cells &= cells - 1) {
        out |= (uint64_t)1 << perm[__builtin_ctzll(cells)];
    }
    return out;
}

static uint64_t
pair_cells(const Pairing *P)
{
    uint64_t cells = 0;
    for (int i = 0; i < P->count; i++) {
        cells |= (uint64_t)1 << P->a[i] | (uint64_t)1 << P->b[i];
    }
    return cells;
}

/* The zone table's slots, copied whole: under a striped spin lock when the
 * threads of a split (below) share the table, else plainly. */
#define ZONE_LOCKS 4096

static inline void
zone_read(Search *S, uint64_t index, ZoneEntry *out)
{
    if (S->zone_locks == NULL) {
        *out = S->zones[index];
        return;
    }
    spin_lock(&S->zone_locks[index & (ZONE_LOCKS - 1)]);
    *out = S->zones[index];
    spin_unlock(&S->zone_locks[index & (ZONE_LOCKS - 1)]);
}

static inline void
zone_write(Search *S, uint64_t index, const ZoneEntry *entry)
{
    if (S->zone_locks == NULL) {
        S->zones[index] = *entry;
        return;
    }
    spin_lock(&S->zone_locks[index & (ZONE_LOCKS - 1)]);
    S->zones[index] = *entry;
    spin_unlock(&S->zone_locks[index & (ZONE_LOCKS - 1)]);
}

static int nowin(Search *S, const Node *n, int attacker_moves, int depth, int parent_paired,
                 uint64_t *zone);

/* The split: the attacker's moves at the root of a proof on S->threads
 * threads (young brothers wait). Every attacker move must be refuted, so
 * after the first (searched alone, for its zone) the others are shared out:
 * each thread takes the next move still inside the zones found so far and
 * refutes it with a search of its own, sharing the table and the zone
 * table. A win, or a move left unknown at this depth, stops them all. */
typedef struct {
    Search *parent;
    const Node *n;
    int depth, parent_paired, count;
    uint8_t cells[MAX_CELLS];
    uint64_t limit;               /* nodes each thread may spend */
    atomic_int next;              /* the next move to take */
    atomic_ullong inside, found;  /* moves not yet refuted by a zone; the zones' union */
    atomic_int result, win_cell;  /* NW_NOWIN until a thread finds otherwise */
    atomic_ullong nodes, hits, misses;
    Control group;                /* cancelled once the result is known */
} Split;

static void
split_thread(void *arg)
{
    Split *P = arg;
    const Search *S = P->parent;
    Search W = {0};
    W.sh = S->sh;
    W.tt = S->tt;
    W.zones = S->zones;
    W.zone_mask = S->zone_mask;
    W.zone_locks = S->zone_locks;
    W.clock.ctl = S->clock.ctl;
    W.clock.group = &P->group;
    W.clock.limit = P->limit;
    for (int i; !atomic_load(&P->group.cancelled) && (i = atomic_fetch_add(&P->next, 1)) < P->count;) {
        int cell = P->cells[i];
        if (!(atomic_load(&P->inside) >> cell & 1)) {
            continue; /* outside a refuted move's zone: refuted with it */
        }
        Node child;
        play(W.sh, P->n, cell, &child);
        uint64_t below;
        int r = nowin(&W, &child, 0, P->depth - 1, P->parent_paired, &below);
        if (r == NW_NOWIN && !W.clock.stop) {
            if (!W.sh->exact) {
                atomic_fetch_and(&P->inside, below);
            }
            atomic_fetch_or(&P->found, below);
            continue;
        }
        if (atomic_load(&P->group.cancelled)) {
            break; /* another thread's result stopped this one */
        }
        if (r == NW_WIN) {
            atomic_store(&P->win_cell, cell);
            atomic_store(&P->result, NW_WIN);
        }
        else {
            int expected = NW_NOWIN;
            atomic_compare_exchange_strong(&P->result, &expected, NW_UNKNOWN);
        }
        control_cancel(&P->group);
        break;
    }
    atomic_fetch_add(&P->nodes, W.clock.nodes);
    atomic_fetch_add(&P->hits, W.hits);
    atomic_fetch_add(&P->misses, W.misses);
    free(W.est);
}

static int
split_moves(Search *S, const Node *n, Moves *moves, int depth, int parent_paired, uint64_t *found,
            int *best_move)
{
    const Shape *sh = S->sh;
    int first = next_move(moves);
    if (first < 0) {
        return NW_NOWIN;
    }
    Node child;
    play(sh, n, first, &child);
    uint64_t below;
    int r = nowin(S, &child, 0, depth - 1, parent_paired, &below);
    if (*best_move < 0) {
        *best_move = first;
    }
    if (S->clock.stop || r != NW_NOWIN) {
        *best_move = first;
        return r;
    }
    Split *P = calloc(1, sizeof *P);
    if (P == NULL) {
        S->clock.stop = STOP_BUDGET;
        return NW_UNKNOWN;
    }
    P->parent = S;
    P->n = n;
    P->depth = depth;
    P->parent_paired = parent_paired;
    for (int cell; (cell = next_move(moves)) >= 0;) {
        P->cells[P->count++] = (uint8_t)cell;
    }
    /* Each thread may spend what is left: with threads, a budget bounds each
     * thread's nodes, not their sum (the offline proofs' budgets are not
     * meant to bind). */
    P->limit = S->clock.limit > S->clock.nodes ? S->clock.limit - S->clock.nodes : 0;
    atomic_init(&P->inside, sh->exact ? ~(uint64_t)0 : below);
    atomic_init(&P->found, below);
    atomic_init(&P->result, NW_NOWIN);
    atomic_init(&P->win_cell, -1);
    control_init(&P->group, 0);
    PlatformThread *helpers[MAX_PROOF_THREADS];
    int started = 0;
    for (int t = 1; t < S->threads; t++) {
        helpers[started] = platform_thread_start(split_thread, P, 0);
        started += helpers[started] != NULL;
    }
    split_thread(P);
    for (int t = 0; t < started; t++) {
        platform_thread_join(helpers[t]);
    }
    int result = atomic_load(&P->result);
    *found = atomic_load(&P->found);
    if (result == NW_WIN) {
        *best_move = atomic_load(&P->win_cell);
    }
    S->clock.nodes += atomic_load(&P->nodes);
    S->hits += atomic_load(&P->hits);
    S->misses += atomic_load(&P->misses);
    free(P);
    if (result == NW_UNKNOWN) {
        /* Out of nodes, past the deadline, cancelled, or short of depth. */
        int deadline_hit = 0, cancelled = 0;
        clock_check(&S->clock, &deadline_hit, &cancelled);
        if (cancelled || deadline_hit) {
            S->clock.stop = cancelled ? STOP_CANCELLED : STOP_DEADLINE;
        }
        else if (S->clock.nodes >= S->clock.limit) {
            S->clock.stop = STOP_BUDGET;
        }
    }
    return result;
}

HOT static int
nowin(Search *S, const Node *n, int attacker_moves, int depth, int parent_paired, uint64_t *zone)
{
    const Shape *sh = S->sh;
    if (count_node(&S->clock)) {
        return NW_UNKNOWN;
    }
    uint64_t empty = sh->full & ~(n->me | n->opp);
    /* The attacker's view: its open lines and threats, and the defender's. */
    lineset att_open = attacker_moves ? n->my_open : n->opp_open;
    uint64_t att_thr = attacker_moves ? n->my_thr : n->opp_thr;
    uint64_t def_thr = attacker_moves ? n->opp_thr : n->my_thr;
    *zone = 0;
    if (empty == 0 || !ls_any(&att_open)) {
        return NW_NOWIN; /* no line left to the attacker: extra marks open none */
    }
    if (attacker_moves && att_thr) {
        return NW_WIN;
    }
    if (!attacker_moves && def_thr) {
        *zone = empty; /* the defender wins first */
        return NW_NOWIN;
    }
    if (attacker_moves && (def_thr & (def_thr - 1))) {
        *zone = empty; /* two defender threats: one of them is completed */
        return NW_NOWIN;
    }
    if (!attacker_moves && (att_thr & (att_thr - 1))) {
        return NW_WIN;
    }
    uint64_t key0, key1;
    int frame = canonical(sh, n, &key0, &key1);
    /* Fetched now, while the zone table and the search for a pairing run. */
    table_prefetch(S->tt, key0, key1);
    uint64_t index = mix64(key0 ^ mix64(key1 | (uint64_t)attacker_moves << 63)) & S->zone_mask;
    ZoneEntry was;
    zone_read(S, index, &was);
    /* A position with no key (see canonical()) is never seen, never kept. */
    int seen = key0 != 0 && was.key0 == key0 && was.key1 == key1 && was.attacker == attacker_moves;
    if (seen) {
        if (was.result == NW_NOWIN) {
            *zone = map_cells(sh->inverse[frame], was.zone);
            return NW_NOWIN;
        }
        if (was.result == NW_WIN) {
            return NW_WIN;
        }
        if (was.depth >= depth) {
            return NW_UNKNOWN;
        }
    }
    /* The search for a pairing is most of nowin()'s time, and two cases
     * already know it fails: a position seen before at a shallower depth, and
     * a defender node whose parent failed (same open lines, one free cell
     * fewer). */
    Pairing pairing;
    int pair_here = !seen && !parent_paired;
    if (pair_here && cannot_win(sh, &att_open, attacker_moves ? n->me : n->opp, empty, 1, &pairing)) {
        *zone = pair_cells(&pairing);
        return NW_NOWIN;
    }
    int first = -1, low, high, move;
    if (tt_probe(S, key0, key1, &low, &high, &move, NULL)) {
        first = sh->inverse[frame][move];
        if (attacker_moves ? high <= 0 : low >= 0) {
            *zone = empty;
            return NW_NOWIN;
        }
        if (attacker_moves ? low >= 1 : high <= -1) {
            return NW_WIN;
        }
    }
    if (depth <= 0) {
        return NW_UNKNOWN;
    }
    uint64_t before = S->clock.nodes;
    int result;
    uint64_t found = 0;
    int best_move = first;
    if (attacker_moves && vcf(S, n, VCF_DEPTH) > 0) {
        result = NW_WIN;
    }
    else if (S->clock.stop) {
        return NW_UNKNOWN;
    }
    else {
        Moves moves;
        uint64_t forced = attacker_moves ? def_thr : att_thr;
        if (forced) {
            forced_move(forced, &moves);
        }
        else {
            gen_moves(sh, n, first, &moves);
        }
        Node child;
        uint64_t inside = empty; /* attacker moves not yet refuted by a zone */
        result = attacker_moves ? NW_NOWIN : NW_WIN;
        if (attacker_moves && !forced && S->threads > 1 && n->marks == S->split_marks) {
            result = split_moves(S, n, &moves, depth, pair_here, &found, &best_move);
            if (S->clock.stop) {
                return NW_UNKNOWN;
            }
            moves.count = 0; /* (all searched) */
        }
        for (int cell; (cell = next_move(&moves)) >= 0;) {
            uint64_t bit = (uint64_t)1 << cell;
            if (attacker_moves && !(inside & bit)) {
                continue;
            }
            if (best_move < 0) {
                best_move = cell; /* the table's move: the most promising one tried */
            }
            play(sh, n, cell, &child);
            uint64_t below;
            /* A forced move costs no depth: the answer to a threat is no choice. */
            int r = nowin(S, &child, !attacker_moves, depth - (forced ? 0 : 1),
                          attacker_moves && pair_here, &below);
            if (S->clock.stop) {
                return NW_UNKNOWN;
            }
            if (attacker_moves) {
                if (r != NW_NOWIN) {
                    result = r;
                    best_move = cell;
                    break;
                }
                if (!sh->exact) {
                    inside &= below; /* see the zones' monotonicity, above */
                }
                found |= below;
            }
            else {
                if (r == NW_NOWIN) {
                    result = NW_NOWIN;
                    found = below | bit;
                    best_move = cell;
                    break;
                }
                if (r == NW_UNKNOWN) {
                    result = NW_UNKNOWN;
                }
            }
        }
        if (result == NW_NOWIN && forced && attacker_moves) {
            /* Extra attacker marks could block the defender's threat and free
             * the attacker's hand. (A defender's forced block stays forced.) */
            found = empty;
        }
    }
    if (result != NW_UNKNOWN) {
        /* Proven: into the shared table too, as the bound it is for the mover. */
        int s_low, s_high;
        static_bounds(sh, n, &s_low, &s_high);
        int attacker_wins = result == NW_WIN;
        int lower = attacker_moves ? (attacker_wins ? 1 : s_low) : (attacker_wins ? s_low : 0);
        int upper = attacker_moves ? (attacker_wins ? s_high : 0) : (attacker_wins ? -1 : s_high);
        if (lower <= upper) {
            int move = best_move >= 0 ? sh->perm[frame][best_move] : 0;
            tt_store(S, key0, key1, lower, upper, move, S->clock.nodes - before, 0);
        }
    }
    ZoneEntry now = {key0, key1, result == NW_NOWIN ? map_cells(sh->perm[frame], found) : 0,
                     (int8_t)result, (uint8_t)depth, (uint8_t)attacker_moves};
    zone_write(S, index, &now);
    *zone = found;
    return result;
}

/* Iterative deepening of nowin() until it proves something or ``allowance``
 * nodes are spent: shallow proofs are found at their own depth, not under a
 * deep first line of play. */
int
prove_nowin(Search *S, const Node *n, int attacker_moves, uint64_t allowance)
{
    if (S->zones == NULL) {
        int bits = S->clock.limit - S->clock.nodes >= LONG_PROOF_NODES ? ZONE_BITS_LONG : ZONE_BITS;
        S->zones = calloc((size_t)1 << bits, sizeof(ZoneEntry));
        if (S->zones == NULL) {
            return NW_UNKNOWN;
        }
        S->zone_mask = ((uint64_t)1 << bits) - 1;
        if (S->threads > 1) {
            S->zone_locks = calloc(ZONE_LOCKS, sizeof(atomic_uchar));
            if (S->zone_locks == NULL) {
                S->threads = 1;
            }
        }
    }
    S->split_marks = attacker_moves ? n->marks : -1;
    uint64_t limit = allow(&S->clock, allowance);
    int result = NW_UNKNOWN;
    uint64_t zone;
    int empties = S->sh->cells - n->marks;
    for (int depth = 1; depth <= empties && result == NW_UNKNOWN && !S->clock.stop; depth++) {
        result = nowin(S, n, attacker_moves, depth, 0, &zone);
    }
    unallow(&S->clock, limit);
    return result;
}
