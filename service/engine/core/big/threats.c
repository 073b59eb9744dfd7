/*
 * Threat-space search on big boards (Allis): wins by sequences of threats the
 * defender must answer, proven as they are found.
 *
 * VCF, victory by continuous fours: every attacker move makes a four (a five
 * point), so the defender's only move is to take it; the attacker wins when a
 * move makes two five points (K_FLEX4) while the defender has none of its own,
 * or completes a row. A defender's block that makes a four of its own must be
 * answered by the attacker's next move, which must then be a four as well.
 *
 * VCT adds open threes: a three threatens an open four, so the defender must
 * take one of the cells that stop it (or make a four of its own, which the
 * attacker answers). big_defences() lists every such cell by trying each cell
 * that could matter, so the search is complete over the defender's replies:
 * any other reply lets the attacker make an open four and win. A four of the
 * defender's is answered by the attacker's block, which need be no threat of
 * its own where the three it answered still stands: the defender faces the
 * three again. Every rule: the patterns know what wins. Under renju X plays
 * only the moves it may (big_legal()), its forbidden flex4 cells threaten
 * nothing, and O also wins by a four whose block X may not take.
 *
 * Soundness, stated once: a win returned here holds against every defence.
 * A failure proves nothing (the depth or the clock ran out first); failures
 * are remembered per search (a memo of THREAT_BITS entries) so that the same
 * position is not searched twice at the same depth.
 */
#include "search.h"

static ThreatMemo *
memo_slot(BigSearch *S, uint64_t key0, uint64_t key1, int kind)
{
    if (S->memo == NULL) {
        return NULL;
    }
    uint64_t h = mix64(key0 ^ mix64(key1 ^ (uint64_t)kind)) & ((1u << THREAT_BITS) - 1);
    return &S->memo[h];
}

/* Whether the position failed before at ``depth`` or deeper. */
static int
failed_before(BigSearch *S, int kind, int depth, ThreatMemo **slot)
{
    uint64_t key0, key1;
    big_key(&S->board, &key0, &key1);
    *slot = memo_slot(S, key0, key1, kind);
    if (*slot == NULL) {
        return 0;
    }
    ThreatMemo *m = *slot;
    if (m->key0 == key0 && m->key1 == key1 && m->kind == kind && m->depth >= depth) {
        return 1;
    }
    return 0;
}

static void
remember_failure(BigSearch *S, ThreatMemo *slot, int kind, int depth)
{
    if (slot == NULL || S->clock.stop) {
        return; /* a search the clock stopped proved nothing, not even a failure */
    }
    big_key(&S->board, &slot->key0, &slot->key1);
    slot->kind = (uint8_t)kind;
    slot->depth = (uint8_t)(depth > 255 ? 255 : depth);
}

/* The line of a move that makes two five points: the move, the defender's
 * block of the first point, the attacker's row on the second. */
static int
flex_line(BigBoard *b, int c, Line *line)
{
    big_play(b, c);
    int first = cells_first(&b->five[!b->side]);
    int second = cells_next(&b->five[!b->side], first);
    big_undo(b, c);
    line->length = 3;
    line->cell[0] = (int16_t)c;
    line->cell[1] = (int16_t)first;
    line->cell[2] = (int16_t)second;
    return 3;
}

/* Prepend two moves to a line. */
static void
line_prepend(Line *line, int first, int second, const Line *rest)
{
    line->cell[0] = (int16_t)first;
    line->cell[1] = (int16_t)second;
    int room = BIG_MAX_CELLS - 2, n = rest->length < room ? rest->length : room;
    memmove(&line->cell[2], rest->cell, sizeof(int16_t) * (size_t)n);
    line->length = n + 2;
}

/* The attacker (the side to move) wins at once or in three plies: a row to
 * complete, or two five points to make while the defender has none. */
static int
immediate_win(BigBoard *b, Line *line)
{
    int a = b->side, d = !a;
    int five = cells_first(&b->five[a]);
    if (five >= 0) {
        line->length = 1;
        line->cell[0] = (int16_t)five;
        return 1;
    }
    if (!cells_any(&b->five[d])) {
        int flex = big_legal_flex4(b, a);
        if (flex >= 0) {
            return flex_line(b, flex, line);
        }
    }
    return 0;
}

/* After the attacker's move: the attacker's five points, and whether it wins
 * now: 2, two of them and the defender has none; 3, under renju, one that X
 * may not take (its block is forbidden) and X has none. */
static int
after_attack(const BigBoard *b, int *block)
{
    int a = !b->side, d = b->side;
    int points = cells_count(&b->five[a]);
    *block = points ? cells_first(&b->five[a]) : -1;
    if (points >= 2 && !cells_any(&b->five[d])) {
        return 2;
    }
    if (points == 1 && !cells_any(&b->five[d]) && !big_legal(b, *block)) {
        return 3;
    }
    return points == 1 ? 1 : 0;
}

/* The line of a four X cannot block: the four, then O's row (X's move
 * between them is any). */
static int
unblockable_line(int c, Line *line)
{
    line->length = 1;
    line->cell[0] = (int16_t)c;
    return 3;
}

HOT int
big_vcf(BigSearch *S, int depth, Line *line)
{
    BigBoard *b = &S->board;
    if (count_node(&S->clock)) {
        return 0;
    }
    int found = immediate_win(b, line);
    if (found) {
        return found;
    }
    int a = b->side, d = !a;
    int defender_points = cells_count(&b->five[d]);
    if (defender_points >= 2 || depth <= 0 || b->count + 3 > b->sh->cells) {
        return 0;
    }
    ThreatMemo *slot;
    if (failed_before(S, THREAT_VCF, depth, &slot)) {
        return 0;
    }
    Cells moves = b->four[a];
    if (defender_points == 1) {
        /* The attacker must take the defender's five point, with a four
         * (under renju, one X may play: the loop below checks). */
        int forced = cells_first(&b->five[d]);
        memset(&moves, 0, sizeof(moves));
        if (cells_has(&b->four[a], forced)) {
            cells_add(&moves, forced);
        }
    }
    /* A four that also makes an open three first: it wins soonest. */
    Cells order[2] = {moves, moves};
    for (int i = 0; i < CELL_WORDS; i++) {
        order[0].w[i] &= b->three[a].w[i];
        order[1].w[i] &= ~b->three[a].w[i];
    }
    Line rest;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = cells_next(&order[pass], -1); c >= 0; c = cells_next(&order[pass], c)) {
            if (!big_legal(b, c)) {
                continue;
            }
            big_play(b, c);
            int block, status = after_attack(b, &block);
            int result = 0;
            if (status == 2) {
                big_undo(b, c);
                return flex_line(b, c, line);
            }
            if (status == 3) {
                big_undo(b, c);
                return unblockable_line(c, line);
            }
            else if (status == 1) {
                big_play(b, block); /* the defender's only move */
                int below = big_vcf(S, depth - 1, &rest);
                big_undo(b, block);
                if (below) {
                    line_prepend(line, c, block, &rest);
                    result = below + 2;
                }
            }
            big_undo(b, c);
            if (result || S->clock.stop) {
                return result;
            }
        }
    }
    remember_failure(S, slot, THREAT_VCF, depth);
    return 0;
}

/* Whether ``cell`` lies in the window of ``target`` along a line on which
 * ``side`` makes a four there (the lines that make ``target`` a flex4 cell). */
static int
in_threat_window(const BigBoard *b, int target, int side, int cell)
{
    const BigShape *sh = b->sh;
    if (cell == target) {
        return 1;
    }
    for (int d = 0; d < 4; d++) {
        int pattern = b->pattern[target][side][d];
        if ((pattern == P_F4 || pattern == P_B4) && sh->line_of[cell][d] == sh->line_of[target][d]) {
            int gap = sh->place[cell][d] - sh->place[target][d];
            if (gap >= -sh->half && gap <= sh->half) {
                return 1;
            }
        }
    }
    return 0;
}

/* Whether the defender's stone on ``c`` leaves ``side`` no flex4 cell. A
 * stone of the defender never raises the attacker's patterns, so only the
 * flex4 cells in c's windows can change: each is read again with c blocked
 * (one lookup per line), or, without a pattern table, the stone is played. */
static int
stops_every_flex4(BigBoard *b, int side, int c)
{
    const BigShape *sh = b->sh;
    if (sh->patterns[side]->table == NULL || (sh->renju && side == 0)) {
        /* (Under renju X's flex4 cells are read whole: O's stone may make a
         * forbidden one legal, a four-three-three a four-three.) */
        big_play(b, c);
        int stopped = big_legal_flex4(b, side) < 0;
        big_undo(b, c);
        return stopped;
    }
    for (int f = cells_next(&b->flex4[side], -1); f >= 0; f = cells_next(&b->flex4[side], f)) {
        if (f == c) {
            continue;
        }
        uint8_t patterns[4];
        memcpy(patterns, b->pattern[f][side], 4);
        for (int d = 0; d < 4; d++) {
            if (sh->line_of[c][d] == sh->line_of[f][d]) {
                int gap = sh->place[c][d] - sh->place[f][d];
                if (gap >= -sh->half && gap <= sh->half) {
                    patterns[d] = (uint8_t)pattern_if_blocked(b, f, d, side, c);
                }
            }
        }
        int index = patterns[0] + PATTERNS * (patterns[1] + PATTERNS * (patterns[2] + PATTERNS * patterns[3]));
        if (combinations[index].kind == K_FLEX4) {
            return 0;
        }
    }
    return 1;
}

void
big_defences(BigSearch *S, Cells *out)
{
    BigBoard *b = &S->board;
    const BigShape *sh = b->sh;
    int me = b->side, them = !me;
    *out = b->four[me];
    if (sh->renju && me == 0) {
        for (int c = cells_next(out, -1); c >= 0; c = cells_next(out, c)) {
            if (!big_legal(b, c)) {
                cells_remove(out, c);
            }
        }
    }
    /* Under renju a cell outside the windows of X's threatening flex4 cells
     * leaves them threats (big_threat_flex4()); its other ones are left to
     * stops_every_flex4(). */
    int renju_x = sh->renju && them == 0;
    int target = big_threat_flex4(b, them);
    if (target < 0) {
        return;
    }
    /* A defence changes every flex4 cell's pattern on a line that makes it one:
     * it is the cell itself, or in its window on such a line. Those that pass
     * for every flex4 cell are tried. */
    Cells tried = {{0}};
    for (int d = 0; d < 4; d++) {
        int pattern = b->pattern[target][them][d];
        if (pattern != P_F4 && pattern != P_B4 && d > 0) {
            continue;
        }
        for (int step = -sh->half; step <= sh->half; step++) {
            if (pattern != P_F4 && pattern != P_B4 && step != 0) {
                continue; /* (d == 0, step 0: the target itself) */
            }
            int c = big_step(sh, target, d, step);
            if (c < 0 || b->stone[c] || cells_has(&tried, c) || cells_has(out, c)) {
                continue;
            }
            cells_add(&tried, c);
            if (!big_legal(b, c)) {
                continue;
            }
            int possible = 1;
            for (int f = cells_next(&b->flex4[them], target); f >= 0 && possible;
                 f = cells_next(&b->flex4[them], f)) {
                if (!renju_x || big_flex4_threatens(b, them, f)) {
                    possible = in_threat_window(b, f, them, c);
                }
            }
            if (!possible) {
                continue;
            }
            if (stops_every_flex4(b, them, c)) {
                cells_add(out, c);
            }
        }
    }
}

HOT int
big_vct(BigSearch *S, int depth, int vcf_depth, Line *line)
{
    BigBoard *b = &S->board;
    if (count_node(&S->clock)) {
        return 0;
    }
    int found = immediate_win(b, line);
    if (found) {
        return found;
    }
    int a = b->side, d = !a;
    int defender_points = cells_count(&b->five[d]);
    if (defender_points >= 2 || b->count + 3 > b->sh->cells) {
        return 0;
    }
    found = big_vcf(S, vcf_depth, line);
    if (found || S->clock.stop || depth <= 0) {
        return found;
    }
    ThreatMemo *slot;
    if (failed_before(S, THREAT_VCT, depth, &slot)) {
        return 0;
    }
    Cells moves = b->four[a];
    for (int i = 0; i < CELL_WORDS; i++) {
        moves.w[i] |= b->three[a].w[i];
    }
    if (defender_points == 1) {
        /* The block is the only move. It may be no threat of its own and
         * still keep one: an open three the defender answered with a four
         * is still there, and the loop below reads the block as a three
         * then (every defence must lose). */
        int forced = cells_first(&b->five[d]);
        memset(&moves, 0, sizeof(moves));
        cells_add(&moves, forced);
    }
    /* The strongest threats first, by the search's move order. */
    int16_t order[BIG_MAX_CELLS];
    int keys[BIG_MAX_CELLS], n = 0;
    for (int c = cells_next(&moves, -1); c >= 0; c = cells_next(&moves, c)) {
        int key = big_move_order(S, c, MAX_PLY), j = n++;
        while (j > 0 && keys[j - 1] < key) {
            order[j] = order[j - 1];
            keys[j] = keys[j - 1];
            j--;
        }
        order[j] = (int16_t)c;
        keys[j] = key;
    }
    Line rest, best_rest;
    for (int i = 0; i < n; i++) {
        int c = order[i];
        if (!big_legal(b, c)) {
            continue;
        }
        big_play(b, c);
        int block, status = after_attack(b, &block);
        int result = 0;
        if (status == 2) {
            big_undo(b, c);
            return flex_line(b, c, line);
        }
        if (status == 3) {
            big_undo(b, c);
            return unblockable_line(c, line);
        }
        else if (status == 1) {
            big_play(b, block);
            int below = big_vct(S, depth - 1, vcf_depth, &rest);
            big_undo(b, block);
            if (below) {
                line_prepend(line, c, block, &rest);
                result = below + 2;
            }
        }
        else if (big_threat_flex4(b, a) >= 0) {
            /* A three: every defence must lose. Any other reply lets the
             * attacker make an open four: a win in four more plies. */
            Cells replies;
            big_defences(S, &replies);
            int longest = 4, first = -1, all = 1;
            for (int r = cells_next(&replies, -1); r >= 0 && all; r = cells_next(&replies, r)) {
                big_play(b, r);
                int below = big_vct(S, depth - 1, vcf_depth, &rest);
                big_undo(b, r);
                if (!below) {
                    all = 0;
                }
                else if (first < 0 || below + 1 > longest) {
                    if (first < 0) {
                        first = r;
                        best_rest = rest;
                    }
                    longest = below + 1 > longest ? below + 1 : longest;
                }
            }
            if (all && !S->clock.stop) {
                if (first >= 0) {
                    line_prepend(line, c, first, &best_rest);
                }
                else {
                    line->length = 1;
                    line->cell[0] = (int16_t)c;
                }
                result = 1 + longest;
            }
        }
        big_undo(b, c);
        if (result || S->clock.stop) {
            return S->clock.stop ? 0 : result;
        }
    }
    remember_failure(S, slot, THREAT_VCT, depth);
    return 0;
}

int
big_vct_deepening(BigSearch *S, int depth, int vcf_depth, Line *line)
{
    for (int d = 1; d <= depth; d++) {
        int found = big_vct(S, d, vcf_depth, line);
        if (found || S->clock.stop) {
            return found;
        }
    }
    return 0;
}
