/*
 * The clock: the Control type (a search's deadline and cancel flag, set from
 * any thread) and the node budget's sub-allowances. See clock.h.
 */
#include "clock.h"


static int64_t
seconds_to_ns(double seconds)
{
    if (!(seconds > 0)) {
        return 1; /* already past: any positive time before now */
    }
    if (seconds > 9.0e9) {
        return INT64_MAX;
    }
    /* At least 1: a deadline under a nanosecond is still a deadline (0 means none). */
    int64_t ns = (int64_t)(seconds * 1e9);
    return ns > 0 ? ns : 1;
}

static int
Control_init(Control *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"deadline", NULL};
    PyObject *deadline = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", kwlist, &deadline)) {
        return -1;
    }
    int64_t ns = 0;
    if (deadline != Py_None) {
        double seconds = PyFloat_AsDouble(deadline);
        if (seconds == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        ns = seconds_to_ns(seconds);
    }
    /* Once, checked after the deadline is read (that may run Python code),
     * and stored atomically: Control.__new__ alone makes a usable Control
     * (no deadline) that a search may already be reading. */
    if (self->initialised) {
        PyErr_SetString(PyExc_RuntimeError, "a Control is initialised once");
        return -1;
    }
    self->initialised = 1;
    atomic_store(&self->cancelled, 0);
    atomic_store(&self->deadline_ns, ns);
    return 0;
}

static PyObject *
Control_cancel(Control *self, PyObject *Py_UNUSED(ignored))
{
    atomic_store(&self->cancelled, 1);
    Py_RETURN_NONE;
}

static PyObject *
Control_shorten(Control *self, PyObject *arg)
{
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    int64_t ns = seconds_to_ns(seconds);
    int64_t current = atomic_load(&self->deadline_ns);
    while ((current == 0 || ns < current) &&
           !atomic_compare_exchange_weak(&self->deadline_ns, &current, ns)) {
    }
    Py_RETURN_NONE;
}

static PyObject *
Control_get_deadline(Control *self, void *Py_UNUSED(closure))
{
    int64_t ns = atomic_load(&self->deadline_ns);
    if (ns == 0) {
        Py_RETURN_NONE;
    }
    return PyFloat_FromDouble((double)ns / 1e9);
}

static PyObject *
Control_get_cancelled(Control *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(atomic_load(&self->cancelled));
}

static PyMethodDef Control_methods[] = {
    {"cancel", (PyCFunction)Control_cancel, METH_NOARGS,
     "Stop the search within a few milliseconds; it raises SearchCancelled."},
    {"shorten", (PyCFunction)Control_shorten, METH_O,
     "Move the deadline (time.monotonic() seconds) earlier; a later one is ignored."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Control_getset[] = {
    {"deadline", (getter)Control_get_deadline, NULL, "time.monotonic() seconds, or None", NULL},
    {"cancelled", (getter)Control_get_cancelled, NULL, "whether cancel() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ControlType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Control",
    .tp_basicsize = sizeof(Control),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Control_init,
    .tp_methods = Control_methods,
    .tp_getset = Control_getset,
    .tp_doc = "A search's deadline and cancel flag, safe to change from any thread.",
};

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
