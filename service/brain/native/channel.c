/*
 * The protocol's channel (channel.py): a manager reads every line on the
 * brain's standard output as an answer but MESSAGE and DEBUG lines, and
 * Piskvork merges standard error into the same pipe. So at start the protocol
 * moves to a duplicate of descriptor 1, the only handle answers are written
 * to, one whole line at a time under a lock, and descriptor 1 then points at
 * standard error: whatever else writes there (a sanitizer's report, say)
 * never reaches the protocol.
 */
#include "brain.h"

#include <string.h>
#ifdef _WIN32
#include <io.h>
#define dup _dup
#define dup2 _dup2
#define fdopen _fdopen
#else
#include <unistd.h>
#endif

static FILE *protocol;
static PlatformLock *lock;

void
channel_open(void)
{
    fflush(stdout);
    int fd = dup(1);
    protocol = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (protocol == NULL) {
        protocol = stdout; /* no spare descriptor: answers stay on 1 */
    }
    else {
        (void)dup2(2, 1);
    }
    lock = platform_lock_new();
}

void
channel_write(const char *line)
{
    if (lock != NULL) {
        platform_lock(lock);
    }
    /* A line break inside would start a line the manager reads as an answer. */
    for (const char *c = line; *c != '\0'; c++) {
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, protocol);
    }
    fputc('\n', protocol);
    fflush(protocol);
    if (lock != NULL) {
        platform_unlock(lock);
    }
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
