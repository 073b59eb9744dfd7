/*
 * Victory by continuous threats on small boards: see vcf() in search.h.
 */
#include "search.h"

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
    /* (No line holds k - 1 and a free cell: that would be a threat, my_thr.) */
    uint64_t candidates = cells_of_lines_holding(sh, n, sh->k - 2);
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
