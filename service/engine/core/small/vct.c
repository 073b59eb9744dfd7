/*
 * Victory by continuous threats, quiet threats included: see vct() in search.h.
 */
#include "search.h"

/* The memo of one search's threat proofs: a win holds at any depth, a
 * failure for the depth it was searched to. 2^16 entries of 24 bytes. */
typedef struct VctEntry {
    uint64_t key0, key1;
    int8_t won;
    uint8_t depth;
    uint8_t attacker; /* whether the attacker is to move */
} VctEntry;

#define VCT_BITS 16

static VctEntry *
vct_slot(Search *S, const Node *n, int attacker_moves, uint64_t *key0, uint64_t *key1)
{
    canonical(S->sh, n, key0, key1);
    if (*key0 == 0) {
        return NULL; /* a position with no key is never kept (see canonical()) */
    }
    uint64_t h = mix64(*key0 ^ mix64(*key1 ^ (uint64_t)attacker_moves << 62));
    return &S->vct[h & (((uint64_t)1 << VCT_BITS) - 1)];
}

static int
vct_known(const VctEntry *slot, uint64_t key0, uint64_t key1, int attacker_moves, int depth,
          int *won)
{
    if (slot == NULL || slot->key0 != key0 || slot->key1 != key1 ||
        slot->attacker != attacker_moves || !(slot->won || slot->depth >= depth)) {
        return 0;
    }
    *won = slot->won;
    return 1;
}

/* ``cells`` into ``out``, handed out heaviest first (ties: the lowest cell)
 * for the side holding ``mine``: a cell weighs, over its lines ``open`` to
 * that side, 4 ** (the side's marks on the line). */
static void
weigh(const Shape *sh, uint64_t mine, const lineset *open, uint64_t cells, Moves *out)
{
    int line_weight[MAX_LINES];
    for (int w = 0; w < sh->words; w++) {
        for (uint64_t bits = (*open)[w]; bits; bits &= bits - 1) {
            int l = 64 * w + __builtin_ctzll(bits);
            line_weight[l] = 1 << (2 * __builtin_popcountll(mine & sh->line[l]));
        }
    }
    no_moves(out);
    out->count = __builtin_popcountll(cells);
    out->next = 0;
    for (; cells; cells &= cells - 1) {
        int c = __builtin_ctzll(cells), sum = 0;
        for (int j = 0; j < sh->nthrough[c]; j++) {
            int l = sh->through[c][j];
            sum += (*open)[l >> 6] >> (l & 63) & 1 ? line_weight[l] : 0;
        }
        /* Slot c, so that equal weights go lowest cell first. */
        out->cell[c] = (uint8_t)c;
        out->key[c] = sum << SLOT_BITS | (LAST_SLOT - c);
    }
}

static int defend(Search *S, const Node *n, int depth);

/* The attacker's threats: its moves that add a mark to one of its open lines
 * already holding k - 3 or more, the line's heaviest first; the first that
 * wins goes to ``move``. */
static int
threaten(Search *S, const Node *n, int depth, int *move)
{
    const Shape *sh = S->sh;
    Moves candidates;
    weigh(sh, n->me, &n->my_open, cells_of_lines_holding(sh, n, sh->k - 3), &candidates);
    Node child;
    for (int c; (c = next_move(&candidates)) >= 0 && !S->clock.stop;) {
        play(sh, n, c, &child);
        if (defend(S, &child, depth - 1)) {
            *move = c;
            return 1;
        }
    }
    return 0;
}

/* The attacker to move: a win within ``depth`` quiet threats? */
static int
attack(Search *S, const Node *n, int depth)
{
    if (n->my_thr) {
        return 1;
    }
    if ((n->opp_thr & (n->opp_thr - 1)) || !ls_any(&n->my_open) || count_node(&S->clock)) {
        return 0;
    }
    if (n->opp_thr) {
        /* The block is forced, and the attacker must threaten again after it. */
        Node child;
        play(S->sh, n, __builtin_ctzll(n->opp_thr), &child);
        return defend(S, &child, depth);
    }
    uint64_t key0, key1;
    VctEntry *slot = vct_slot(S, n, 1, &key0, &key1);
    int won, move;
    if (vct_known(slot, key0, key1, 1, depth, &won)) {
        return won;
    }
    won = vcf(S, n, VCF_DEPTH) > 0 || (depth > 0 && threaten(S, n, depth, &move));
    if (S->clock.stop) {
        return 0;
    }
    if (slot != NULL) {
        *slot = (VctEntry){key0, key1, (int8_t)won, (uint8_t)depth, 1};
    }
    return won;
}

/* The defender to move: does every reply lose? Only after a threat (the
 * attacker wins by fours if the defender passes) is the answer searched. */
static int
defend(Search *S, const Node *n, int depth)
{
    const Shape *sh = S->sh;
    if (n->my_thr) {
        return 0; /* the defender completes a line first */
    }
    if (n->opp_thr & (n->opp_thr - 1)) {
        return 1;
    }
    if (count_node(&S->clock)) {
        return 0;
    }
    Node child;
    if (n->opp_thr) {
        play(sh, n, __builtin_ctzll(n->opp_thr), &child);
        return attack(S, &child, depth);
    }
    uint64_t key0, key1;
    VctEntry *slot = vct_slot(S, n, 0, &key0, &key1);
    int won;
    if (vct_known(slot, key0, key1, 0, depth, &won)) {
        return won;
    }
    Node passed;
    pass_turn(n, &passed);
    won = vcf(S, &passed, VCF_DEPTH) > 0;
    if (won) {
        /* Every reply, those in the attacker's heaviest lines first (the
         * likeliest to refute it). */
        Moves replies;
        weigh(sh, n->opp, &n->opp_open, sh->full & ~(n->me | n->opp), &replies);
        for (int c; won && (c = next_move(&replies)) >= 0 && !S->clock.stop;) {
            play(sh, n, c, &child);
            won = attack(S, &child, depth);
        }
    }
    if (S->clock.stop) {
        return 0;
    }
    if (slot != NULL) {
        *slot = (VctEntry){key0, key1, (int8_t)won, (uint8_t)depth, 0};
    }
    return won;
}

int
vct(Search *S, const Node *n, int depth, int *move)
{
    *move = -1;
    if (n->my_thr) {
        *move = __builtin_ctzll(n->my_thr);
        return 1;
    }
    if (n->opp_thr) {
        return 0; /* the block is forced: the caller knows that move */
    }
    if (S->vct == NULL) {
        S->vct = calloc((size_t)1 << VCT_BITS, sizeof(VctEntry));
        if (S->vct == NULL) {
            return 0;
        }
    }
    for (int d = 1; d <= depth && !S->clock.stop; d++) {
        if (threaten(S, n, d, move)) {
            return 1;
        }
    }
    *move = -1;
    return 0;
}
