/*
 * The brain's clock, stated once (docs/brain.md quotes it):
 * a move may search for TURN_SHARE of timeout_turn, capped, where a match
 * clock runs, by the time left shared among the moves still expected, less
 * SAFETY_MS and the longest lag past its deadline measured (decaying); never
 * less than MIN_THINK_MS, or where a match clock runs, than the time left
 * over FLOOR_MOVES where that is less (near the end of a match clock, 20 ms
 * a move would run it out: the floor shrinks with it, down to a search of
 * depth 1 at none left). "Until told" (a negative number here, None there):
 * a turn of UNLIMITED_TURN_MS or more with no match clock running or a match
 * of UNLIMITED_MATCH_MS or more.
 */
#include "brain.h"

#define TURN_SHARE 0.9
#define SAFETY_MS 20
#define MIN_THINK_MS 20
#define LAG_DECAY 0.9
#define MATCH_MOVES 30
#define MOVES_PER_STONE 4
#define MIN_MOVES_LEFT 10
#define FLOOR_MOVES 40
#define DEFAULT_TURN_MS 5000
#define UNLIMITED_TURN_MS 2000000
#define UNLIMITED_MATCH_MS 100000000
#define NO_MATCH_LIMIT_MS 2147483647

void
clock_reset(BrainClock *c)
{
    c->turn_ms = DEFAULT_TURN_MS;
    c->match_ms = 0;
    c->has_left = 0;
    c->left_ms = 0;
    c->lag_ms = 0.0;
}

int
clock_match_runs(const BrainClock *c)
{
    if (!c->has_left || c->left_ms >= NO_MATCH_LIMIT_MS) {
        return 0;
    }
    /* 0 with no match limit is a manager's "nothing to say"; under 0 is out of time. */
    return c->match_ms > 0 || c->left_ms != 0;
}

double
clock_think_seconds(const BrainClock *c, int stones)
{
    if (c->turn_ms >= UNLIMITED_TURN_MS &&
        (c->match_ms >= UNLIMITED_MATCH_MS || !clock_match_runs(c))) {
        return -1.0;
    }
    double share = c->turn_ms > 0 ? (double)c->turn_ms * TURN_SHARE : MIN_THINK_MS;
    double floor = MIN_THINK_MS;
    if (c->has_left && clock_match_runs(c)) {
        double left = c->left_ms > 0 ? (double)c->left_ms : 0.0;
        double per_move = left / moves_left(stones);
        share = per_move < share ? per_move : share;
        floor = left / FLOOR_MOVES < floor ? left / FLOOR_MOVES : floor;
    }
    double think = share - SAFETY_MS - c->lag_ms;
    return (think > floor ? think : floor) / 1000;
}

void
clock_measured(BrainClock *c, double think_seconds, double spent_seconds)
{
    if (think_seconds >= 0) {
        double lag = (spent_seconds - think_seconds) * 1000;
        double kept = c->lag_ms * LAG_DECAY;
        c->lag_ms = lag > kept ? lag : kept;
        c->lag_ms = c->lag_ms > 0 ? c->lag_ms : 0.0;
    }
    if (c->has_left && c->left_ms < NO_MATCH_LIMIT_MS) {
        c->left_ms -= (int64_t)(spent_seconds * 1000); /* under 0: out of time */
    }
}

int
moves_left(int stones)
{
    int left = MATCH_MOVES - stones / MOVES_PER_STONE;
    return left > MIN_MOVES_LEFT ? left : MIN_MOVES_LEFT;
}
