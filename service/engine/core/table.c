/*
 * The shared table (see table.h): its memory, its locks, probes and stores.
 * The memory and the huge pages are the platform's (platform.h).
 */
#include "table.h"

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
        platform_unmap(m->base, m->bytes);
        free(m);
    }
}

int
table_init(Table *t, uint64_t size)
{
    uint64_t buckets = size / BUCKET_BYTES; /* any count: bucket_of() scales the hash */
    /* Zero pages from the kernel, touched only as the table fills: a new
     * table costs nothing until it is used. The entries start on a 2 MiB
     * boundary (the slack before it is never touched), so that the table can
     * later sit on huge pages: see move_to_huge_pages(). */
    size_t bytes = (size_t)(buckets * BUCKET_BYTES);
    Mapping *mapping = malloc(sizeof(Mapping));
    if (mapping == NULL) {
        return -1;
    }
    mapping->bytes = bytes + HUGE_PAGE_BYTES;
    mapping->base = platform_map(mapping->bytes);
    if (mapping->base == NULL) {
        free(mapping);
        return -1;
    }
    atomic_init(&mapping->holders, 1);
    t->mapping = mapping;
    t->entries = (Entry *)mapping_entries(mapping);
    /* Too small to gain, or no huge pages here: never asked. */
    atomic_init(&t->huge_asked, bytes < HUGE_PAGE_BYTES || !PLATFORM_HUGE_PAGES);
    t->buckets = buckets;
    for (int i = 0; i < LOCK_STRIPES; i++) {
        atomic_init(&t->locks[i], 0);
    }
    atomic_init(&t->hits, 0);
    atomic_init(&t->misses, 0);
    atomic_init(&t->stored, 0);
    atomic_init(&t->evictions, 0);
    atomic_init(&t->filled, 0);
    atomic_init(&t->generation, 0);
    return 0;
}

void
table_prefault(Table *t)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&t->huge_asked, &expected, 1)) {
        platform_advise_huge(t->entries, table_bytes(t)); /* before the first touch */
    }
    /* One write a small page: each page (or huge page) is faulted in here. */
    volatile char *bytes = (volatile char *)t->entries;
    for (size_t at = 0; at < table_bytes(t); at += SMALL_PAGE_BYTES) {
        bytes[at] = 0;
    }
}

void
table_free(Table *t)
{
    if (t->mapping != NULL) {
        release_mapping(t->mapping);
        t->mapping = NULL;
        t->entries = NULL;
    }
}

void
table_clear(Table *t)
{
    if (t->entries != NULL) {
        memset(t->entries, 0, table_bytes(t));
    }
    atomic_store(&t->filled, 0);
}

static inline void
lock_stripe(Table *t, uint64_t bucket)
{
    spin_lock(&t->locks[bucket & (LOCK_STRIPES - 1)]);
}

static inline void
unlock_stripe(Table *t, uint64_t bucket)
{
    spin_unlock(&t->locks[bucket & (LOCK_STRIPES - 1)]);
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
 * thread; it blocks every signal, which stay the process's other threads'
 * (platform_thread_detach()). Linux only: elsewhere huge_asked starts set. */
static void
collapse_to_huge_pages(void *arg)
{
    Mapping *mapping = arg;
    char *entries = mapping_entries(mapping);
    size_t bytes = mapping->bytes - HUGE_PAGE_BYTES;
    platform_advise_huge(entries, bytes);
    /* Region by region, and no further once the table is freed (this
     * thread is then the mapping's only holder). */
    for (size_t done = 0; done < bytes; done += HUGE_PAGE_BYTES) {
        if (atomic_load_explicit(&mapping->holders, memory_order_acquire) == 1) {
            break;
        }
        size_t length = bytes - done < HUGE_PAGE_BYTES ? bytes - done : HUGE_PAGE_BYTES;
        /* A region the search wrote to meanwhile may fail with EAGAIN: again. */
        int again = 0;
        for (int tries = 0; tries < 4; tries++) {
            if (platform_collapse_huge(entries + done, length, &again) == 0 || !again) {
                break;
            }
        }
    }
    release_mapping(mapping);
}

static void
move_to_huge_pages(Table *t)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&t->huge_asked, &expected, 1)) {
        return;
    }
    atomic_fetch_add_explicit(&t->mapping->holders, 1, memory_order_relaxed);
    if (platform_thread_detach(collapse_to_huge_pages, t->mapping, 256 * 1024) < 0) {
        release_mapping(t->mapping); /* the table stays on small pages */
    }
}

/* A big entry's key1 keeps the generation in its top byte (table.h). */
#define KEY1_BITS (((uint64_t)1 << GENERATION_SHIFT) - 1)

static inline int
same_key(const Entry *e, uint64_t key0, uint64_t key1, int kind)
{
    if (e->key0 != key0 || (e->work & ENTRY_BIG) != kind) {
        return 0;
    }
    return kind ? ((e->key1 ^ key1) & KEY1_BITS) == 0 : e->key1 == key1;
}

static inline unsigned
generation_now(Table *t)
{
    return atomic_load_explicit(&t->generation, memory_order_relaxed) & 0xff;
}

/* A big entry's key1 as stored: the key's bits and the generation ``now``. */
static inline uint64_t
stamped(uint64_t key1, unsigned now)
{
    return (key1 & KEY1_BITS) | (uint64_t)now << GENERATION_SHIFT;
}

/* How many generations ago a big entry was last stored or found. */
static inline int
age_of(const Entry *e, unsigned now)
{
    return (int)((now - (unsigned)(e->key1 >> GENERATION_SHIFT)) & 0xff);
}

/* What an entry is worth keeping: its work, less AGE_WEIGHT a generation of
 * age for a big entry. */
static inline int
worth_of(const Entry *e, unsigned now)
{
    int work = e->work & WORK_BITS;
    return e->work & ENTRY_BIG ? work - AGE_WEIGHT * age_of(e, now) : work;
}

/* The slot a store to (key0, key1) of its kind (0 or ENTRY_BIG) takes, under
 * the bucket's lock: the key's own, else an empty one (*filled), else the one
 * least worth keeping (*evicted). */
static inline Entry *
claim_slot(Entry *slots, uint64_t key0, uint64_t key1, int kind, unsigned now, int *filled,
           int *evicted)
{
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (same_key(&slots[i], key0, key1, kind)) {
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
    int least = worth_of(target, now);
    for (int i = 1; i < BUCKET_SLOTS; i++) {
        int worth = worth_of(&slots[i], now);
        if (worth < least) {
            target = &slots[i];
            least = worth;
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
    Entry *target = claim_slot(slots, key0, key1, 0, generation_now(t), &filled, &evicted);
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
    unsigned now = generation_now(t);
    lock_stripe(t, b);
    for (int i = 0; i < BUCKET_SLOTS; i++) {
        if (same_key(&slots[i], key0, key1, ENTRY_BIG)) {
            *value = slots[i].value;
            *move = slots[i].move_low | (slots[i].tried & 1) << 8;
            *bound = slots[i].tried >> 1 & 3;
            *depth = slots[i].tried >> 3;
            if (age_of(&slots[i], now) != 0) {
                slots[i].key1 = stamped(key1, now); /* in use again: young */
            }
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
    unsigned now = generation_now(t);
    lock_stripe(t, b);
    Entry *target = claim_slot(slots, key0, key1, ENTRY_BIG, now, &filled, &evicted);
    if (!filled && !evicted && (target->tried >> 3) > depth && bound != BOUND_EXACT) {
        /* The same position searched deeper: keep that, but take the new move. */
        target->key1 = stamped(key1, now);
        if (move != BIG_NO_MOVE) {
            target->move_low = (uint8_t)move;
            target->tried = (uint8_t)((target->tried & ~1) | (move >> 8 & 1));
        }
        unlock_stripe(t, b);
        return;
    }
    target->key0 = key0;
    target->key1 = stamped(key1, now);
    target->value = (int16_t)value;
    target->move_low = (uint8_t)move;
    target->work = (uint8_t)(work | ENTRY_BIG);
    target->tried = (uint8_t)((move >> 8 & 1) | bound << 1 | depth << 3);
    unlock_stripe(t, b);
    count_store(t, filled, evicted);
}

void
table_new_generation(Table *t)
{
    atomic_fetch_add_explicit(&t->generation, 1, memory_order_relaxed);
}

void
table_ages(Table *t, uint64_t counts[AGES])
{
    unsigned now = generation_now(t);
    memset(counts, 0, sizeof(uint64_t) * AGES);
    for (uint64_t b = 0; b < t->buckets; b++) {
        Entry *slots = bucket_at(t->entries, b);
        lock_stripe(t, b);
        for (int i = 0; i < BUCKET_SLOTS; i++) {
            if (slots[i].key0 != 0 && (slots[i].work & ENTRY_BIG)) {
                int age = age_of(&slots[i], now);
                counts[age < AGES ? age : AGES - 1]++;
            }
        }
        unlock_stripe(t, b);
    }
}
