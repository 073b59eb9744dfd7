/*
 * The shared table (see table.h): its memory, its locks, probes and stores,
 * and the Table type Python creates once per engine.
 */
#include "table.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

/* Where a mapping's entries start: its first 2 MiB boundary. They take all of
 * it but the HUGE_PAGE_BYTES of slack that the alignment may leave. */
static char *
mapping_entries(const Mapping *m)
{
    return (char *)(((uintptr_t)m->base + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1));
}

/* Let go of a table's mapping: the last holder unmaps it. */
static void
release_mapping(Mapping *m)
{
    if (atomic_fetch_sub_explicit(&m->holders, 1, memory_order_acq_rel) == 1) {
        munmap(m->base, m->bytes);
        free(m);
    }
}

static int
Table_init(Table *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"size_bytes", NULL};
    PyObject *size_arg;
    uint64_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &size_arg)) {
        return -1;
    }
    /* At least one bucket; at most MAX_TABLE_BYTES, so that the size with
     * its alignment slack below cannot wrap. */
    if (read_count(size_arg, BUCKET_BYTES, MAX_TABLE_BYTES, "size_bytes", &size) < 0) {
        return -1;
    }
    /* Once, checked after the size is read (reading it may run Python code,
     * this very __init__ included) and with no Python code from here on. */
    if (self->mapping != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Table is initialised once");
        return -1;
    }
    uint64_t buckets = size / BUCKET_BYTES; /* any count: bucket_of() scales the hash */
    /* Zero pages from the kernel, touched only as the table fills: a new
     * table costs nothing until it is used. The entries start on a 2 MiB
     * boundary (the slack before it is never touched), so that the table can
     * later sit on huge pages: see move_to_huge_pages(). */
    size_t bytes = (size_t)(buckets * BUCKET_BYTES);
    Mapping *mapping = malloc(sizeof(Mapping));
    if (mapping == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    mapping->bytes = bytes + HUGE_PAGE_BYTES;
    mapping->base = mmap(NULL, mapping->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping->base == MAP_FAILED) {
        free(mapping);
        PyErr_NoMemory();
        return -1;
    }
    atomic_init(&mapping->holders, 1);
    self->mapping = mapping;
    self->entries = (Entry *)mapping_entries(mapping);
    atomic_init(&self->huge_asked, bytes < HUGE_PAGE_BYTES); /* too small to gain */
    self->buckets = buckets;
    for (int i = 0; i < LOCK_STRIPES; i++) {
        atomic_init(&self->locks[i], 0);
    }
    atomic_init(&self->hits, 0);
    atomic_init(&self->misses, 0);
    atomic_init(&self->stored, 0);
    atomic_init(&self->evictions, 0);
    atomic_init(&self->filled, 0);
    return 0;
}

static void
Table_dealloc(Table *self)
{
    if (self->mapping != NULL) {
        release_mapping(self->mapping);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Table_stats(Table *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(KKKKKK)", (unsigned long long)atomic_load(&self->hits),
                         (unsigned long long)atomic_load(&self->misses),
                         (unsigned long long)atomic_load(&self->filled),
                         (unsigned long long)atomic_load(&self->evictions),
                         (unsigned long long)(self->buckets * BUCKET_SLOTS),
                         (unsigned long long)table_bytes(self));
}

static PyObject *
Table_clear(Table *self, PyObject *Py_UNUSED(ignored))
{
    /* Only while no search runs: the caller (Engine) holds that guarantee. */
    if (self->entries != NULL) {
        memset(self->entries, 0, table_bytes(self));
    }
    atomic_store(&self->filled, 0);
    Py_RETURN_NONE;
}

static PyMethodDef Table_methods[] = {
    {"stats", (PyCFunction)Table_stats, METH_NOARGS,
     "(hits, misses, entries, evictions, capacity_entries, size_bytes)"},
    {"clear", (PyCFunction)Table_clear, METH_NOARGS, "Forget every entry."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "service.engine._core.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Table_init,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_doc = "The shared table of proven bounds, of a fixed size in bytes.",
};


int
table_arg(PyObject *obj, void *out)
{
    if (!PyObject_TypeCheck(obj, &TableType)) {
        PyErr_SetString(PyExc_TypeError, "table must be a Table");
        return 0;
    }
    if (((Table *)obj)->entries == NULL) {
        PyErr_SetString(PyExc_ValueError, "the table is not initialised");
        return 0;
    }
    *(Table **)out = (Table *)obj;
    return 1;
}

static inline void
lock_stripe(Table *t, uint64_t bucket)
{
    atomic_uchar *lock = &t->locks[bucket & (LOCK_STRIPES - 1)];
    while (atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
        }
    }
}

static inline void
unlock_stripe(Table *t, uint64_t bucket)
{
    atomic_store_explicit(&t->locks[bucket & (LOCK_STRIPES - 1)], 0, memory_order_release);
}

/* ------------------------------------------------------------------------ */
/* Control: how another thread stops a search                                */

HOT int
table_probe(Table *t, uint64_t key0, uint64_t key1, int *lower, int *upper, int *move, int *tried)
{
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int found = 0;
    lock_stripe(t, b);
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == key0 && slots[i].key1 == key1 && !(slots[i].work & ENTRY_BIG)) {
            *lower = slots[i].lower;
            *upper = slots[i].upper;
            *move = slots[i].move;
            if (tried != NULL) {
                *tried = slots[i].tried;
            }
            found = 1;
            break;
        }
    }
    unlock_stripe(t, b);
    return found;
}

/* Once a table holds HUGE_AFTER_ENTRIES entries it is in real use, and it
 * moves to 2 MiB pages: every probe lands on a random page, and with 4 KiB
 * pages nearly every probe also missed the TLB (measured: +10% node rate in
 * bench/engine.py). MADV_HUGEPAGE makes the pages touched from then on huge;
 * MADV_COLLAPSE (Linux 6.1) turns the ones already touched into huge pages.
 * Not from the start: a small cold search would pay for zeroing whole 2 MiB
 * pages it barely touches (measured: the cold 3x3 answer went from 0.4 ms to
 * 11 ms). Where the kernel says no, nothing changes but the speed.
 *
 * On a thread of its own, not the search's: the collapse cannot be
 * interrupted, and it took 20-110 ms for a 64 MiB table on an idle machine
 * and up to 420 ms on a loaded one (strace -T), which sent a first move
 * 0.36 s past its deadline. A search that touches a region while the kernel
 * collapses it waits for that one 2 MiB region only. The thread holds the
 * mapping until it is done, so a table freed meanwhile is unmapped by the
 * thread; it blocks every signal, which stay the process's other threads'. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
static void *
collapse_to_huge_pages(void *arg)
{
    Mapping *mapping = arg;
    char *entries = mapping_entries(mapping);
    size_t bytes = mapping->bytes - HUGE_PAGE_BYTES;
#ifdef MADV_HUGEPAGE
    (void)madvise(entries, bytes, MADV_HUGEPAGE);
    /* Region by region, and no further once the table is freed (this
     * thread is then the mapping's only holder). */
    for (size_t done = 0; done < bytes; done += HUGE_PAGE_BYTES) {
        if (atomic_load_explicit(&mapping->holders, memory_order_acquire) == 1) {
            break;
        }
        size_t length = bytes - done < HUGE_PAGE_BYTES ? bytes - done : HUGE_PAGE_BYTES;
        /* A region the search wrote to meanwhile may fail with EAGAIN: again. */
        for (int tries = 0; tries < 4; tries++) {
            if (madvise(entries + done, length, MADV_COLLAPSE) == 0 || errno != EAGAIN) {
                break;
            }
        }
    }
#endif
    release_mapping(mapping);
    return NULL;
}

static void
move_to_huge_pages(Table *t)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&t->huge_asked, &expected, 1)) {
        return;
    }
    atomic_fetch_add_explicit(&t->mapping->holders, 1, memory_order_relaxed);
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, before;
    sigfillset(&all);
    int started = pthread_attr_init(&attr) == 0;
    if (started) {
        (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        (void)pthread_attr_setstacksize(&attr, 256 * 1024);
        pthread_sigmask(SIG_SETMASK, &all, &before);
        started = pthread_create(&thread, &attr, collapse_to_huge_pages, t->mapping) == 0;
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        release_mapping(t->mapping); /* the table stays on small pages */
    }
}

/* The slot a store to (key0, key1) of its kind (0 or ENTRY_BIG) takes, under
 * the bucket's lock: the key's own, else an empty one (*filled), else the one
 * of least work (*evicted). */
static inline Entry *
claim_slot(Entry *slots, uint64_t key0, uint64_t key1, int kind, int *filled, int *evicted)
{
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == key0 && slots[i].key1 == key1 && (slots[i].work & ENTRY_BIG) == kind) {
            return &slots[i];
        }
    }
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == 0) {
            *filled = 1;
            return &slots[i];
        }
    }
    Entry *target = &slots[0];
    for (int i = 1; i < BUCKET_SLOTS; i++) {
        if ((slots[i].work & WORK_BITS) < (target->work & WORK_BITS)) {
            target = &slots[i];
        }
    }
    *evicted = 1;
    return target;
}

/* The table's counts after a store, outside the lock. */
static inline void
count_store(Table *t, int filled, int evicted)
{
    if (filled) {
        uint64_t now_filled = atomic_fetch_add_explicit(&t->filled, 1, memory_order_relaxed) + 1;
        if (now_filled >= HUGE_AFTER_ENTRIES &&
            !atomic_load_explicit(&t->huge_asked, memory_order_relaxed)) {
            move_to_huge_pages(t);
        }
    }
    if (evicted) {
        atomic_fetch_add_explicit(&t->evictions, 1, memory_order_relaxed);
    }
}

static inline int
work_of(uint64_t nodes)
{
    return 64 - (nodes ? __builtin_clzll(nodes) : 64);
}

HOT void
table_store(Table *t, uint64_t key0, uint64_t key1, int lower, int upper, int move, uint64_t nodes,
            int tried)
{
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int work = work_of(nodes);
    int filled = 0, evicted = 0;
    lock_stripe(t, b);
    Entry *target = claim_slot(slots, key0, key1, 0, &filled, &evicted);
    if (!filled && !evicted) {
        /* The same position: both bounds are proven, so their intersection is. */
        int merged_lower = target->lower > lower ? target->lower : lower;
        int merged_upper = target->upper < upper ? target->upper : upper;
        if (merged_lower <= merged_upper) {
            lower = merged_lower;
            upper = merged_upper;
        }
        if (target->work > work) { /* a small board's entry: no ENTRY_BIG */
            work = target->work;
        }
        tried |= target->tried;
    }
    target->key0 = key0;
    target->key1 = key1;
    target->lower = (int8_t)lower;
    target->upper = (int8_t)upper;
    target->move = (uint8_t)move;
    target->work = (uint8_t)work;
    target->tried = (uint8_t)tried;
    unlock_stripe(t, b);
    count_store(t, filled, evicted);
}

HOT int
table_probe_big(Table *t, uint64_t key0, uint64_t key1, int *value, int *bound, int *depth,
                int *move)
{
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int found = 0;
    lock_stripe(t, b);
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (slots[i].key0 == key0 && slots[i].key1 == key1 && (slots[i].work & ENTRY_BIG)) {
            *value = slots[i].value;
            *move = slots[i].move_low | (slots[i].tried & 1) << 8;
            *bound = slots[i].tried >> 1 & 3;
            *depth = slots[i].tried >> 3;
            found = 1;
            break;
        }
    }
    unlock_stripe(t, b);
    return found;
}

HOT void
table_store_big(Table *t, uint64_t key0, uint64_t key1, int value, int bound, int depth, int move,
                uint64_t nodes)
{
    uint64_t b = bucket_of(t, key0, key1);
    Entry *slots = bucket_at(t->entries, b);
    int work = work_of(nodes);
    int filled = 0, evicted = 0;
    depth = depth < 0 ? 0 : depth > 31 ? 31 : depth;
    lock_stripe(t, b);
    Entry *target = claim_slot(slots, key0, key1, ENTRY_BIG, &filled, &evicted);
    if (!filled && !evicted && (target->tried >> 3) > depth && bound != BOUND_EXACT) {
        /* The same position searched deeper: keep that, but take the new move. */
        if (move != BIG_NO_MOVE) {
            target->move_low = (uint8_t)move;
            target->tried = (uint8_t)((target->tried & ~1) | (move >> 8 & 1));
        }
        unlock_stripe(t, b);
        return;
    }
    target->key0 = key0;
    target->key1 = key1;
    target->value = (int16_t)value;
    target->move_low = (uint8_t)move;
    target->work = (uint8_t)(work | ENTRY_BIG);
    target->tried = (uint8_t)((move >> 8 & 1) | bound << 1 | depth << 3);
    unlock_stripe(t, b);
    count_store(t, filled, evicted);
}
