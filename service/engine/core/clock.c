/*
 * The clock: a Control (a search's deadline and cancel flag, set from any
 * thread) and the node budget's sub-allowances. See clock.h.
 */
#include "clock.h"


void
control_init(Control *ctl, int64_t deadline_ns)
{
    atomic_store(&ctl->cancelled, 0);
    atomic_store(&ctl->deadline_ns, deadline_ns);
}

void
control_cancel(Control *ctl)
{
    atomic_store(&ctl->cancelled, 1);
}

void
control_shorten(Control *ctl, int64_t deadline_ns)
{
    int64_t current = atomic_load(&ctl->deadline_ns);
    while ((current == 0 || deadline_ns < current) &&
           !atomic_compare_exchange_weak(&ctl->deadline_ns, &current, deadline_ns)) {
    }
}

uint64_t
allow(Clock *c, uint64_t allowance)
{
    if (c->unlimited) {
        uint64_t saved = c->allowance;
        uint64_t end = allowance < UINT64_MAX - c->nodes ? c->nodes + allowance : UINT64_MAX;
        if (saved == 0 || end < saved) {
            c->allowance = end;
        }
        return saved;
    }
    uint64_t limit = c->limit;
    /* (Saturating: nodes + allowance may not fit in 64 bits.) */
    if (c->nodes < limit && allowance < limit - c->nodes) {
        c->limit = c->nodes + allowance;
    }
    return limit;
}

void
unallow(Clock *c, uint64_t limit)
{
    if (c->unlimited) {
        if (c->stop == STOP_BUDGET && (limit == 0 || c->nodes < limit)) {
            c->stop = STOP_NONE;
        }
        c->allowance = limit;
        return;
    }
    if (c->stop == STOP_BUDGET && c->nodes < limit) {
        c->stop = STOP_NONE;
    }
    c->limit = limit;
}

int64_t
allow_time(Clock *c, int percent)
{
    int64_t saved = c->phase_ns;
    int64_t deadline = c->ctl != NULL ? atomic_load(&c->ctl->deadline_ns) : 0;
    if (deadline != 0) {
        int64_t now = now_ns();
        int64_t end = deadline > now ? now + (deadline - now) / 100 * percent : now;
        if (saved == 0 || end < saved) {
            c->phase_ns = end;
        }
    }
    return saved;
}

void
unallow_time(Clock *c, int64_t phase_ns)
{
    c->phase_ns = phase_ns;
}

int
time_over(const Clock *c)
{
    return c->phase_ns != 0 && now_ns() >= c->phase_ns;
}

void
clock_check(const Clock *c, int *deadline_hit, int *cancelled)
{
    if (c->ctl != NULL) {
        int64_t deadline = atomic_load(&c->ctl->deadline_ns);
        *deadline_hit = deadline != 0 && now_ns() >= deadline;
        *cancelled = atomic_load(&c->ctl->cancelled);
    }
}

int
phase_stopped(Clock *c, int *deadline_hit, int *cancelled)
{
    if (c->stop == STOP_DEADLINE) {
        *deadline_hit = 1;
    }
    if (c->stop == STOP_CANCELLED) {
        *cancelled = 1;
    }
    c->stop = STOP_NONE;
    return *deadline_hit || *cancelled;
}
