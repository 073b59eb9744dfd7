/*
 * What the core needs of the operating system, in one place: the monotonic
 * clock, threads, a lock and a condition, the table's memory and its huge
 * pages. POSIX (Linux) and Win32 (MinGW-w64) each implement it; no other file
 * of the core, nor the native brain, includes a system header of either.
 *
 * - The clock is CLOCK_MONOTONIC on POSIX, Python's time.monotonic(), so a
 *   deadline from Python means the same instant here; QueryPerformanceCounter
 *   on Windows, where no Python hands the core a deadline.
 * - The table's memory comes from the kernel zeroed and is touched only as it
 *   fills (mmap; VirtualAlloc commits pages that are zero-filled on first
 *   touch), so a table costs nothing until it is used.
 * - Huge pages are Linux's (madvise MADV_HUGEPAGE and MADV_COLLAPSE);
 *   PLATFORM_HUGE_PAGES is 0 elsewhere and the table stays on small pages
 *   (Windows' large pages need a privilege a brain does not have).
 * - Threads are started detached or joined, with every signal blocked on
 *   POSIX (signals stay the process's other threads', Python's main thread
 *   above all).
 *
 * The vector type of small/board.h (a GCC vector of four words) needs nothing
 * here: GCC and MinGW-w64's GCC lay it out alike, and it is passed by pointer.
 */
#ifndef CORE_PLATFORM_H
#define CORE_PLATFORM_H

/* glibc's POSIX and Linux names (clock_gettime, MAP_ANONYMOUS, MADV_*) under
 * -std=c11: before any system header, so common.h includes this file first.
 * (Python.h, first in python/glue.h, defines it as well.) */
#if !defined(_WIN32) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define PLATFORM_HUGE_PAGES 0
int64_t platform_now_ns(void);
#else
#include <time.h>
#define PLATFORM_HUGE_PAGES 1
static inline int64_t
platform_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#endif

/* Zeroed memory of ``bytes``, or NULL; given back with platform_unmap(). */
void *platform_map(size_t bytes);
void platform_unmap(void *base, size_t bytes);

/* Ask for huge pages on the pages touched from now on (Linux; else nothing). */
void platform_advise_huge(void *start, size_t bytes);
/* Turn the pages of [start, start + bytes) already touched into huge pages;
 * 0 on success (Linux 6.1's MADV_COLLAPSE); -1 when the kernel says no, and
 * *again is set when it says "try again" (the search wrote there meanwhile). */
int platform_collapse_huge(void *start, size_t bytes, int *again);

/* A thread running run(arg), with a stack of ``stack_bytes`` (0: the
 * system's default). Detached: it frees itself when run returns. */
typedef struct PlatformThread PlatformThread;
int platform_thread_detach(void (*run)(void *), void *arg, size_t stack_bytes);
/* Joinable: NULL when it could not start; platform_thread_join() waits for it
 * and frees it. */
PlatformThread *platform_thread_start(void (*run)(void *), void *arg, size_t stack_bytes);
void platform_thread_join(PlatformThread *thread);

/* A mutex and a condition variable, for the brain's queue of lines. */
typedef struct PlatformLock PlatformLock;
PlatformLock *platform_lock_new(void);
void platform_lock_free(PlatformLock *lock);
void platform_lock(PlatformLock *lock);
void platform_unlock(PlatformLock *lock);
/* Wait on the lock's condition (the lock held; released while waiting). */
void platform_wait(PlatformLock *lock);
/* Wake every waiter of the lock's condition. */
void platform_wake(PlatformLock *lock);

#endif
