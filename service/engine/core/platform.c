/*
 * The platform layer (see platform.h): POSIX first, then Win32.
 */
#include "platform.h"

#include <stdlib.h>

/* A thread's function and argument, handed to the system's own entry point. */
typedef struct {
    void (*run)(void *);
    void *arg;
} Start;

#ifdef _WIN32

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

int64_t
platform_now_ns(void)
{
    static LARGE_INTEGER frequency; /* fixed at boot; read once */
    LARGE_INTEGER now;
    if (frequency.QuadPart == 0) {
        QueryPerformanceFrequency(&frequency);
    }
    QueryPerformanceCounter(&now);
    int64_t seconds = now.QuadPart / frequency.QuadPart;
    int64_t rest = now.QuadPart % frequency.QuadPart;
    return seconds * 1000000000LL + rest * 1000000000LL / frequency.QuadPart;
}

void *
platform_map(size_t bytes)
{
    return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void
platform_unmap(void *base, size_t bytes)
{
    (void)bytes;
    VirtualFree(base, 0, MEM_RELEASE);
}

void
platform_advise_huge(void *start, size_t bytes)
{
    (void)start;
    (void)bytes;
}

int
platform_collapse_huge(void *start, size_t bytes, int *again)
{
    (void)start;
    (void)bytes;
    *again = 0;
    return -1;
}

struct PlatformThread {
    HANDLE handle;
};

static DWORD WINAPI
thread_entry(LPVOID raw)
{
    Start start = *(Start *)raw;
    free(raw);
    start.run(start.arg);
    return 0;
}

static HANDLE
start_thread(void (*run)(void *), void *arg, size_t stack_bytes)
{
    Start *start = malloc(sizeof(Start));
    if (start == NULL) {
        return NULL;
    }
    start->run = run;
    start->arg = arg;
    HANDLE handle = CreateThread(NULL, stack_bytes, thread_entry, start,
                                 stack_bytes ? STACK_SIZE_PARAM_IS_A_RESERVATION : 0, NULL);
    if (handle == NULL) {
        free(start);
    }
    return handle;
}

int
platform_thread_detach(void (*run)(void *), void *arg, size_t stack_bytes)
{
    HANDLE handle = start_thread(run, arg, stack_bytes);
    if (handle == NULL) {
        return -1;
    }
    CloseHandle(handle);
    return 0;
}

PlatformThread *
platform_thread_start(void (*run)(void *), void *arg, size_t stack_bytes)
{
    PlatformThread *thread = malloc(sizeof(PlatformThread));
    if (thread == NULL) {
        return NULL;
    }
    thread->handle = start_thread(run, arg, stack_bytes);
    if (thread->handle == NULL) {
        free(thread);
        return NULL;
    }
    return thread;
}

void
platform_thread_join(PlatformThread *thread)
{
    WaitForSingleObject(thread->handle, INFINITE);
    CloseHandle(thread->handle);
    free(thread);
}

struct PlatformLock {
    SRWLOCK lock;
    CONDITION_VARIABLE condition;
};

PlatformLock *
platform_lock_new(void)
{
    PlatformLock *lock = malloc(sizeof(PlatformLock));
    if (lock != NULL) {
        InitializeSRWLock(&lock->lock);
        InitializeConditionVariable(&lock->condition);
    }
    return lock;
}

void
platform_lock_free(PlatformLock *lock)
{
    free(lock);
}

void
platform_lock(PlatformLock *lock)
{
    AcquireSRWLockExclusive(&lock->lock);
}

void
platform_unlock(PlatformLock *lock)
{
    ReleaseSRWLockExclusive(&lock->lock);
}

void
platform_wait(PlatformLock *lock)
{
    SleepConditionVariableSRW(&lock->condition, &lock->lock, INFINITE, 0);
}

void
platform_wake(PlatformLock *lock)
{
    WakeAllConditionVariable(&lock->condition);
}

#else /* POSIX */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

void *
platform_map(size_t bytes)
{
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return base == MAP_FAILED ? NULL : base;
}

void
platform_unmap(void *base, size_t bytes)
{
    munmap(base, bytes);
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

void
platform_advise_huge(void *start, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    (void)madvise(start, bytes, MADV_HUGEPAGE);
#else
    (void)start;
    (void)bytes;
#endif
}

int
platform_collapse_huge(void *start, size_t bytes, int *again)
{
    int result = madvise(start, bytes, MADV_COLLAPSE);
    *again = result != 0 && errno == EAGAIN;
    return result == 0 ? 0 : -1;
}

struct PlatformThread {
    pthread_t handle;
};

static void *
thread_entry(void *raw)
{
    Start start = *(Start *)raw;
    free(raw);
    start.run(start.arg);
    return NULL;
}

/* A thread with every signal blocked (they stay the other threads'). */
static int
start_thread(pthread_t *handle, void (*run)(void *), void *arg, size_t stack_bytes, int detached)
{
    Start *start = malloc(sizeof(Start));
    pthread_attr_t attr;
    if (start == NULL) {
        return -1;
    }
    if (pthread_attr_init(&attr) != 0) {
        free(start);
        return -1;
    }
    start->run = run;
    start->arg = arg;
    if (detached) {
        (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    }
    if (stack_bytes != 0) {
        (void)pthread_attr_setstacksize(&attr, stack_bytes);
    }
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    int started = pthread_create(handle, &attr, thread_entry, start) == 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_attr_destroy(&attr);
    if (!started) {
        free(start);
        return -1;
    }
    return 0;
}

int
platform_thread_detach(void (*run)(void *), void *arg, size_t stack_bytes)
{
    pthread_t handle;
    return start_thread(&handle, run, arg, stack_bytes, 1);
}

PlatformThread *
platform_thread_start(void (*run)(void *), void *arg, size_t stack_bytes)
{
    PlatformThread *thread = malloc(sizeof(PlatformThread));
    if (thread == NULL) {
        return NULL;
    }
    if (start_thread(&thread->handle, run, arg, stack_bytes, 0) < 0) {
        free(thread);
        return NULL;
    }
    return thread;
}

void
platform_thread_join(PlatformThread *thread)
{
    pthread_join(thread->handle, NULL);
    free(thread);
}

struct PlatformLock {
    pthread_mutex_t mutex;
    pthread_cond_t condition;
};

PlatformLock *
platform_lock_new(void)
{
    PlatformLock *lock = malloc(sizeof(PlatformLock));
    if (lock == NULL) {
        return NULL;
    }
    if (pthread_mutex_init(&lock->mutex, NULL) != 0) {
        free(lock);
        return NULL;
    }
    if (pthread_cond_init(&lock->condition, NULL) != 0) {
        pthread_mutex_destroy(&lock->mutex);
        free(lock);
        return NULL;
    }
    return lock;
}

void
platform_lock_free(PlatformLock *lock)
{
    if (lock != NULL) {
        pthread_cond_destroy(&lock->condition);
        pthread_mutex_destroy(&lock->mutex);
        free(lock);
    }
}

void
platform_lock(PlatformLock *lock)
{
    pthread_mutex_lock(&lock->mutex);
}

void
platform_unlock(PlatformLock *lock)
{
    pthread_mutex_unlock(&lock->mutex);
}

void
platform_wait(PlatformLock *lock)
{
    pthread_cond_wait(&lock->condition, &lock->mutex);
}

void
platform_wake(PlatformLock *lock)
{
    pthread_cond_broadcast(&lock->condition);
}

#endif
