/*
 * The clock of a search: its node budget, its deadline and its cancel flag.
 *
 * A Control is what another thread holds to stop a search (the HTTP layer's
 * deadline, a client that left, the drain on SIGTERM, the brain's STOP; in
 * Python, the Control type of python/types.c wraps one); a Clock
 * is a search's own count of nodes against its limit, which looks at the
 * Control every CHECK_MASK + 1 nodes. Both searches (small/ and big/) count
 * every node through count_node(), so a budget means the same in both, and a
 * stop is seen within about a thousand nodes, whatever the search.
 */
#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include "common.h"

#define CHECK_MASK 1023 /* look at the clock and the cancel flag every 1,024 nodes */

typedef struct {
    atomic_int cancelled;
    atomic_llong deadline_ns; /* now_ns() nanoseconds; 0: none */
} Control;

/* A Control with ``deadline_ns`` (0: none), not cancelled. */
void control_init(Control *ctl, int64_t deadline_ns);
/* Stop the search: it stops within CHECK_MASK + 1 nodes (STOP_CANCELLED). */
void control_cancel(Control *ctl);
/* Move the deadline to ``deadline_ns`` if that is earlier (or there was none). */
void control_shorten(Control *ctl, int64_t deadline_ns);

typedef struct {
    Control *ctl;       /* NULL: no deadline, no cancellation */
    Control *group;     /* NULL, or the stop that a split's threads share (small/zones.c) */
    uint64_t nodes;     /* nodes visited so far */
    uint64_t limit;     /* the node count at which the search stops (STOP_BUDGET) */
    int stop;           /* why the search stopped (STOP_*), STOP_NONE while it runs */
    int unlimited;      /* count nodes, deaf to the deadline and the limit (the estimates'
                           depth 1), but not to a sub-search's allowance: */
    uint64_t allowance; /* while unlimited, the node count an allow() ends at; 0: none */
    int64_t phase_ns;   /* a phase's own time limit (allow_time()); 0: none */
} Clock;

static inline int64_t
now_ns(void)
{
    return platform_now_ns();
}

/* Count one node; returns 1 (and sets stop) when the search must stop. */
static inline int
count_node(Clock *c)
{
    if (c->unlimited) {
        if (c->allowance != 0 && c->nodes >= c->allowance) {
            c->stop = STOP_BUDGET; /* the allowance's: unallow() clears it */
            return 1;
        }
        c->nodes++;
        return 0;
    }
    if (c->nodes >= c->limit) {
        c->stop = STOP_BUDGET;
        return 1;
    }
    c->nodes++;
    if ((c->nodes & CHECK_MASK) == 0 && c->group != NULL &&
        atomic_load_explicit(&c->group->cancelled, memory_order_relaxed)) {
        c->stop = STOP_CANCELLED;
        return 1;
    }
    if ((c->nodes & CHECK_MASK) == 0 && c->ctl != NULL) {
        if (atomic_load_explicit(&c->ctl->cancelled, memory_order_relaxed)) {
            c->stop = STOP_CANCELLED;
            return 1;
        }
        int64_t deadline = atomic_load_explicit(&c->ctl->deadline_ns, memory_order_relaxed);
        if (deadline != 0 || c->phase_ns != 0) {
            int64_t now = now_ns();
            if (deadline != 0 && now >= deadline) {
                c->stop = STOP_DEADLINE;
                return 1;
            }
            if (c->phase_ns != 0 && now >= c->phase_ns) {
                c->stop = STOP_BUDGET; /* the phase's: unallow() clears it */
                return 1;
            }
        }
    }
    return 0;
}

/* A sub-search that may spend at most ``allowance`` more nodes: allow()
 * lowers the limit and returns the one to restore, unallow() restores it and
 * clears a budget stop that was the allowance's, not the search's. In an
 * unlimited stretch the allowance holds all the same (a leaf's short threat
 * search stays short at depth 1): allow() and unallow() then set and restore
 * ``allowance`` instead of the limit. */
uint64_t allow(Clock *c, uint64_t allowance);
void unallow(Clock *c, uint64_t limit);

/* The same in time: a phase that may spend at most ``percent`` of the time
 * left before the deadline (no limit without one). allow_time() returns the
 * phase limit to restore; its stop is a budget stop, which unallow() clears,
 * so the two go in pairs: allow(), allow_time(), ..., unallow_time(),
 * unallow(). time_over() says whether the phase's time has run out. */
int64_t allow_time(Clock *c, int percent);
void unallow_time(Clock *c, int64_t phase_ns);
int time_over(const Clock *c);

/* Whether the deadline has passed (*deadline_hit) or the search was cancelled
 * (*cancelled), looked at once, outside the node count. */
void clock_check(const Clock *c, int *deadline_hit, int *cancelled);

/* Record why a phase stopped; returns 1 when later phases must not search. */
int phase_stopped(Clock *c, int *deadline_hit, int *cancelled);

#endif
