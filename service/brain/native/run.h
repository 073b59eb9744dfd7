/*
 * The brain's one entry point (protocol.c), for its two callers: main.c (the
 * executables) and the Python extension's run_brain (service/engine/core/
 * python/big.c), which includes this header alone: brain.h's names are the
 * brain's own.
 */
#ifndef BRAIN_RUN_H
#define BRAIN_RUN_H

/* Read commands from ``in_fd`` and answer them on ``out_fd`` (each duplicated:
 * the caller's descriptors stay open) until END or the end of the input; a
 * reading thread reads while the calling thread searches. One session at a
 * time in a process (the channel is the process's). 0, or -1 when it could
 * not start (no memory, a descriptor that cannot be duplicated, no thread).
 * The big-board evaluation's weights are the caller's to set first. */
int brain_run(int in_fd, int out_fd);

#endif
