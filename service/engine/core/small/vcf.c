/*
 * Victory by continuous threats on small boards: see vcf() in search.h.
 */
#include "search.h"

/* Cells whose mark would give the side to move a threat (a line it can still
 * fill, holding k - 2 of its marks, gets a k - 1-th). */
static uint64_t
threat_makers(const Shape *sh, const Node *n)
{
    uint64_t found = 0;
    uint64_t empty = sh->full & ~(n->me | n->opp);
    int need = sh->k - 2;
    for (int w = 0; w < sh->words; w++) {
        uint64_t bits = n->my_open[w];
        while (bits) {
            int l = 64 * w + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (__builtin_popcountll(n->me & sh->line[l]) == need) {
                found |= sh->line[l] & empty;
            }
        }
    }
    return found;
}

HOT int
vcf(Search *S, const Node *n, int depth)
{
    const Shape *sh = S->sh;
    int cells = sh->cells;
    if (n->my_thr) {
        return cells - n->marks;
    }
    if ((n->opp_thr & (n->opp_thr - 1)) || depth <= 0 || cells - n->marks < 3) {
        return 0;
    }
    uint64_t candidates = threat_makers(sh, n);
    if (n->opp_thr) {
        candidates &= n->opp_thr; /* the block must threaten too */
    }
    Node child, reply;
    for (; candidates; candidates &= candidates - 1) {
        if (count_node(&S->clock)) {
            return 0;
        }
        play(sh, n, __builtin_ctzll(candidates), &child);
        uint64_t threats = child.opp_thr; /* the attacker's, seen from the defender */
        if (!threats) {
            continue;
        }
        if (threats & (threats - 1)) {
            return cells - n->marks - 2; /* two threats: one is blocked, the other wins */
        }
        play(sh, &child, __builtin_ctzll(threats), &reply); /* the forced block */
        int value = vcf(S, &reply, depth - 1);
        if (value > 0 || S->clock.stop) {
            return value;
        }
    }
    return 0;
}
