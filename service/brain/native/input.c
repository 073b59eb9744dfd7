/*
 * The reading thread (session.h): it queues the input's lines, each with its
 * number, and a STOP or YXSTOP it reads moves the deadline of the search
 * under way to now when that search is for an earlier line; an END cancels it.
 * After the end of the input, or END, a search with no deadline stops at once.
 */
#include "session.h"

#include <string.h>

static void
enqueue(Brain *b, long number, char *line)
{
    Item *item = malloc(sizeof(Item));
    if (item == NULL) {
        free(line);
        return;
    }
    item->next = NULL;
    item->number = number;
    item->line = line;
    platform_lock(b->lock);
    if (b->tail == NULL) {
        b->head = item;
    }
    else {
        b->tail->next = item;
    }
    b->tail = item;
    platform_wake(b->lock);
    platform_unlock(b->lock);
}

/* One line of the input, without its end, or NULL at its end. */
static char *
read_line(FILE *input)
{
    size_t capacity = 256, length = 0;
    char *line = malloc(capacity);
    if (line == NULL) {
        return NULL;
    }
    while (fgets(line + length, (int)(capacity - length), input) != NULL) {
        length += strlen(line + length);
        if (length > 0 && line[length - 1] == '\n') {
            return line;
        }
        if (length + 1 == capacity) {
            char *grown = realloc(line, capacity * 2);
            if (grown == NULL) {
                return line; /* the rest comes as the next line */
            }
            line = grown;
            capacity *= 2;
        }
    }
    if (length > 0) {
        return line;
    }
    free(line);
    return NULL;
}

/* STOP (or END) read as line ``number``: stop a search for an earlier line. */
static void
interrupt(Brain *b, long number, int end)
{
    platform_lock(b->lock);
    if (end) {
        b->end_read = number;
    }
    else {
        b->stop_read = number;
    }
    if (b->control != NULL && b->line_number < number) {
        if (end) {
            control_cancel(b->control);
        }
        else {
            control_shorten(b->control, now_ns());
        }
    }
    platform_unlock(b->lock);
}

void
read_input(void *arg)
{
    Brain *b = arg;
    char *raw;
    for (long number = 0; (raw = read_line(b->input)) != NULL; number++) {
        const char *start = raw;
        size_t length = strlen(raw);
        text_strip(&start, &length);
        if (length == 0) {
            free(raw);
            continue;
        }
        char *line = text_format("%.*s", (int)length, start);
        free(raw);
        if (line == NULL) {
            continue;
        }
        char word[16];
        text_first_word(line, word, sizeof(word));
        int end = strcmp(word, "END") == 0;
        if (end || strcmp(word, "STOP") == 0 || strcmp(word, "YXSTOP") == 0) {
            interrupt(b, number, end);
        }
        enqueue(b, number, line);
        if (end) {
            break;
        }
    }
    platform_lock(b->lock);
    b->input_closed = 1;
    if (b->control != NULL && atomic_load(&b->control->deadline_ns) == 0) {
        control_shorten(b->control, now_ns());
    }
    platform_unlock(b->lock);
    enqueue(b, -1, NULL);
}

/* ``control`` is the search under way, stoppable by the reading thread. A
 * STOP already read after this line stops it at once; so does the end of the
 * input, or an END, for a search until told (no one is left to stop it). */
void
searching(Brain *b, Control *control)
{
    platform_lock(b->lock);
    b->control = control;
    int ending = b->input_closed || b->end_read >= 0;
    if (b->stop_read > b->line_number ||
        (ending && atomic_load(&control->deadline_ns) == 0)) {
        control_shorten(control, now_ns());
    }
    platform_unlock(b->lock);
}

void
searched(Brain *b)
{
    platform_lock(b->lock);
    b->control = NULL;
    platform_unlock(b->lock);
}
