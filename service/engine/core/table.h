/*
 * The shared table: a fixed number of bytes (TTT_TABLE_MB) that every search
 * of the process reads and writes, on any thread.
 *
 * It is split into buckets of three 21-byte entries, one 64-byte cache line
 * each, on huge pages once it is in use; a bucket is found by a hash of the
 * position's key and guarded by one of a fixed set of striped spin locks.
 * Each entry keeps the whole key (two words) that it was stored under, so a
 * hit is verified exactly. Replacement: a store to a key already in the
 * bucket merges the bounds (both are proven, so their intersection is);
 * otherwise it takes an empty slot, or else evicts the entry whose subtree
 * cost the fewest nodes (the "work" of an entry is the bit length of the node
 * count that proved it), so cheap results make way and expensive proofs stay;
 * a big board's entry counts less work the more searches ago it was last
 * used (generations, below), so earlier moves' entries age out.
 *
 * The small boards' entries (small/) hold proven lower and upper bounds only,
 * keyed on the canonical position itself; see canonical() in small/board.h.
 * The big boards' entries (big/) hold a search's value, with its bound, depth
 * and best move, keyed on two Zobrist hashes (see big_key() in big/board.h),
 * and say so (ENTRY_BIG): a probe of one kind never finds the other, whatever
 * their bits (8x8's keys use all 64 bits of a word). Replacement weighs both
 * by the work that produced them, and only the big boards' by their age too.
 */
#ifndef CORE_TABLE_H
#define CORE_TABLE_H

#include "common.h"

#define BUCKET_SLOTS 3 /* entries of 21 bytes in a bucket of one 64-byte cache line */
#define BUCKET_BYTES 64
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
#define SMALL_PAGE_BYTES ((size_t)4 << 10)
/* The largest table a caller may ask for: 1 TiB. */
#define MAX_TABLE_BYTES ((uint64_t)1 << 40)
#define HUGE_AFTER_ENTRIES 1024
#define LOCK_STRIPES 4096

typedef struct {
    uint64_t key0; /* the position's key, two words; key0 is 0 in an empty slot */
    uint64_t key1;
    union {
        struct { /* a small board's proven bounds */
            int8_t lower, upper;
            uint8_t move; /* best move in the canonical frame */
        } __attribute__((packed));
        struct { /* a big board's search result */
            int16_t value;
            uint8_t move_low; /* the move's low 8 bits */
        } __attribute__((packed));
    } __attribute__((packed));
    uint8_t work;  /* bit length of the nodes that proved (or searched) it (WORK_BITS),
                    * and ENTRY_BIG on a big board's entry */
    /* Small boards: TRIED_* knowledge that found nothing here, not worth a
     * retry. Big boards: the move's 9th bit, the bound (2 bits), the depth. */
    uint8_t tried;
} __attribute__((packed)) Entry;

_Static_assert(sizeof(Entry) == 21, "an entry is 21 bytes");

_Static_assert(sizeof(Entry) * BUCKET_SLOTS <= BUCKET_BYTES, "a bucket fits its entries");

enum { TRIED_MINE = 1, TRIED_THEIRS = 2, TRIED_VCF = 4 };

/* A small board's key and a big board's never stand for each other, whatever
 * their bits: an entry says which kind it is, and a probe of one kind never
 * finds the other. */
enum { WORK_BITS = 0x7f, ENTRY_BIG = 0x80 };

/* The anonymous mapping that holds a table's entries. The Table holds it,
 * and so does the thread that moves it to huge pages while that runs (see
 * move_to_huge_pages()): the last of them to let go unmaps it. */
typedef struct {
    void *base;
    size_t bytes;
    atomic_int holders;
} Mapping;

typedef struct {
    Entry *entries;
    Mapping *mapping;
    uint64_t buckets;
    atomic_uchar locks[LOCK_STRIPES];
    atomic_ullong hits, misses, stored, evictions, filled;
    atomic_int huge_asked; /* see move_to_huge_pages() */
    atomic_uint generation; /* the big-board searches begun: table_new_generation() */
} Table;

/* A table of ``size`` bytes (at least BUCKET_BYTES, at most
 * MAX_TABLE_BYTES): 0, or -1 when the memory cannot be had. Its memory comes
 * zeroed and is touched only as it fills. table_free() lets it go (a thread
 * that still moves it to huge pages unmaps it when done); table_clear()
 * forgets every entry, only while no search runs. (In Python, the Table type
 * of python/types.c wraps one.) */
int table_init(Table *t, uint64_t size);
/* Give a new table all its memory now, on huge pages where the platform has
 * them, instead of as it fills: no page fault and no move to huge pages
 * (move_to_huge_pages()) is left for a later search to wait on. For a
 * program that must answer on time and can pay at start-up (the Gomocup
 * brain's START: native/engine.c). */
void table_prefault(Table *t);
void table_free(Table *t);
void table_clear(Table *t);

/* A bucket is one cache line, so a probe costs one miss, not two. */
static inline Entry *
bucket_at(Entry *entries, uint64_t b)
{
    return (Entry *)((char *)entries + b * BUCKET_BYTES);
}

/* The bytes of the entries (the mapping also holds the slack that aligns them). */
static inline size_t
table_bytes(const Table *t)
{
    return (size_t)(t->buckets * BUCKET_BYTES);
}

/* The bucket of a key: the hash scaled to [0, buckets) by a multiply and a
 * shift (Lemire's reduction), so the table can have exactly the size asked for. */
static inline uint64_t
bucket_of(const Table *t, uint64_t key0, uint64_t key1)
{
    uint64_t hash = mix64(key0 ^ mix64(key1));
    return (uint64_t)(((unsigned __int128)hash * t->buckets) >> 64);
}

/* A probe is a cache miss (the table is far larger than the caches): fetching
 * the bucket's line early lets the search work while it arrives. */
static inline void
table_prefetch(const Table *t, uint64_t key0, uint64_t key1)
{
    __builtin_prefetch(bucket_at(t->entries, bucket_of(t, key0, key1)), 1, 3);
}

/* The entry stored under (key0, key1): its bounds, move and tried flags
 * (``tried`` may be NULL); returns 0 when there is none. */
int table_probe(Table *t, uint64_t key0, uint64_t key1, int *lower, int *upper, int *move,
                int *tried);

/* Store proven bounds under (key0, key1), with the nodes their proof cost. */
void table_store(Table *t, uint64_t key0, uint64_t key1, int lower, int upper, int move,
                 uint64_t nodes, int tried);

/* A big board's entry: its value (for the side to move), which bound it is,
 * the depth searched and the best move (BIG_NO_MOVE for none). */
enum { BOUND_EXACT = 0, BOUND_LOWER = 1, BOUND_UPPER = 2 };
#define BIG_NO_MOVE 511
int table_probe_big(Table *t, uint64_t key0, uint64_t key1, int *value, int *bound, int *depth,
                    int *move);
void table_store_big(Table *t, uint64_t key0, uint64_t key1, int value, int bound, int depth,
                     int move, uint64_t nodes);

/* Generations: every big-board search begins one (big_analyze()'s callers
 * call table_new_generation(), before the brain's helpers start), and a big
 * entry remembers the generation that last stored or found it, in the top
 * byte of its key1 (GENERATION_SHIFT: the key keeps 120 bits). When a store
 * must evict, an entry counts AGE_WEIGHT bits of work less for every
 * generation it has not been used in, so the entries of a game's earlier
 * moves age out instead of holding their slots for ever. Small boards'
 * entries are proofs, true at any move: they never age. table_ages() counts
 * the big entries by age, for tests. */
#define GENERATION_SHIFT 56
#define AGE_WEIGHT 4
#define AGES 8
void table_new_generation(Table *t);
void table_ages(Table *t, uint64_t counts[AGES]);

#endif
