/*
 * The protocol's channel: the one way out for answers, a duplicate of the
 * descriptor brain_run() is given, written one whole line at a time under a
 * lock (the reading thread writes too). Keeping stray output off that
 * descriptor is the caller's: main.c and service/brain/__init__.py point
 * standard output at standard error before the brain starts.
 */
#include "brain.h"

#include <string.h>
#ifdef _WIN32
#include <io.h>
#define close _close
#define dup _dup
#define fdopen _fdopen
#else
#include <unistd.h>
#endif

static FILE *protocol;
static PlatformLock *lock;

FILE *
stream_of_copy(int fd, const char *mode)
{
    int copy = dup(fd);
    FILE *stream = copy < 0 ? NULL : fdopen(copy, mode);
    if (stream == NULL && copy >= 0) {
        close(copy);
    }
    return stream;
}

int
channel_open(int out_fd)
{
    protocol = stream_of_copy(out_fd, "w");
    lock = protocol == NULL ? NULL : platform_lock_new();
    if (lock == NULL) {
        if (protocol != NULL) {
            fclose(protocol);
        }
        protocol = NULL;
        return -1;
    }
    return 0;
}

void
channel_close(void)
{
    fclose(protocol);
    protocol = NULL;
    platform_lock_free(lock);
    lock = NULL;
}

void
channel_write(const char *line)
{
    platform_lock(lock);
    /* A line break inside would start a line the manager reads as an answer. */
    for (const char *c = line; *c != '\0'; c++) {
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, protocol);
    }
    fputc('\n', protocol);
    fflush(protocol);
    platform_unlock(lock);
}

void
channel_message(const char *text)
{
    size_t size = strlen(text) + sizeof("MESSAGE ");
    char *line = malloc(size);
    if (line != NULL) {
        snprintf(line, size, "MESSAGE %s", text);
        channel_write(line);
        free(line);
    }
}
