/*
 * The protocol's text (session.h): numbers and pairs read, what the brain got
 * quoted, errors and notices.
 */
#include "session.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#define LONGEST_NUMBER 18 /* digits; a longer number is read as the largest of its sign */

char *
text_format(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int length = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    char *text = malloc((size_t)length + 1);
    if (text != NULL) {
        va_start(args, fmt);
        vsnprintf(text, (size_t)length + 1, fmt, args);
        va_end(args);
    }
    return text;
}

/* A ProtocolError: its text, and -1. */
int
fail_with(Brain *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(b->error, sizeof(b->error), fmt, args);
    va_end(args);
    return -1;
}

/* What the brain got, quoted as Python's repr() quotes a str (the form of every
 * error since the brain was first written in Python). */
void
text_quote(const char *text, size_t length, char *out, size_t size)
{
    char mark = memchr(text, '\'', length) != NULL && memchr(text, '"', length) == NULL ? '"' : '\'';
    size_t used = 0;
    if (size < 8) {
        out[0] = '\0';
        return;
    }
    out[used++] = mark;
    for (size_t i = 0; i < length && used + 6 < size; i++) {
        unsigned char c = (unsigned char)text[i];
        const char *escape = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        if (escape != NULL) {
            used += (size_t)snprintf(out + used, size - used, "%s", escape);
        }
        else if (c == (unsigned char)mark) {
            used += (size_t)snprintf(out + used, size - used, "\\%c", mark);
        }
        else if (c < 0x20 || c == 0x7f) {
            used += (size_t)snprintf(out + used, size - used, "\\x%02x", c);
        }
        else {
            out[used++] = (char)c;
        }
    }
    out[used++] = mark;
    out[used] = '\0';
}

void
text_strip(const char **start, size_t *length)
{
    while (*length > 0 && isspace((unsigned char)**start)) {
        (*start)++;
        (*length)--;
    }
    while (*length > 0 && isspace((unsigned char)(*start)[*length - 1])) {
        (*length)--;
    }
}

static int
all_digits(const char *text, size_t length)
{
    if (length == 0) {
        return 0;
    }
    for (size_t i = 0; i < length; i++) {
        if (!isdigit((unsigned char)text[i])) {
            return 0;
        }
    }
    return 1;
}

static int64_t
digits_value(const char *text, size_t length)
{
    int64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

/* _number(): a whole number of at most 12 digits, or the error "{what}; got {text!r}". */
int
read_number(Brain *b, const char *text, size_t length, const char *what, int64_t *out)
{
    text_strip(&text, &length);
    if (!all_digits(text, length) || length > 12) {
        char quoted[ERROR_BYTES / 2];
        text_quote(text, length, quoted, sizeof(quoted));
        return fail_with(b, "%s; got %s", what, quoted);
    }
    *out = digits_value(text, length);
    return 0;
}

/* _pair(): x,y, each a whole number of at most 12 digits. */
int
read_pair(Brain *b, const char *text, const char *what, int64_t *x, int64_t *y)
{
    const char *comma = strchr(text, ',');
    const char *first = text, *second = comma == NULL ? NULL : comma + 1;
    size_t first_length = comma == NULL ? 0 : (size_t)(comma - text);
    size_t second_length = second == NULL ? 0 : strlen(second);
    if (second != NULL) {
        text_strip(&first, &first_length);
        text_strip(&second, &second_length);
    }
    if (second == NULL || strchr(second, ',') != NULL || !all_digits(first, first_length) ||
        !all_digits(second, second_length) || first_length > 12 || second_length > 12) {
        char quoted[ERROR_BYTES / 2];
        text_quote(text, strlen(text), quoted, sizeof(quoted));
        return fail_with(b, "%s; got %s", what, quoted);
    }
    *x = digits_value(first, first_length);
    *y = digits_value(second, second_length);
    return 0;
}

/* _integer(): a whole number with an optional sign, or 0 when there is none; a
 * very long one is read as the largest of its sign. */
int
text_integer(const char *text, size_t length, int64_t *out)
{
    text_strip(&text, &length);
    const char *digits = text;
    size_t count = length;
    if (count > 0 && digits[0] == '-') {
        digits++, count--;
    }
    if (count > 0 && digits[0] == '+') {
        digits++, count--;
    }
    if (!all_digits(digits, count)) {
        return 0;
    }
    int64_t magnitude = count <= LONGEST_NUMBER ? digits_value(digits, count) : 1000000000000000000LL;
    *out = length > 0 && text[0] == '-' ? -magnitude : magnitude;
    return 1;
}

void
text_upper(char *text)
{
    for (; *text != '\0'; text++) {
        *text = (char)toupper((unsigned char)*text);
    }
}

/* The first word (split on any white space), upper case, at most size - 1 bytes. */
void
text_first_word(const char *line, char *out, size_t size)
{
    while (isspace((unsigned char)*line)) {
        line++;
    }
    size_t length = 0;
    while (line[length] != '\0' && !isspace((unsigned char)line[length]) && length + 1 < size) {
        out[length] = line[length];
        length++;
    }
    out[length] = '\0';
    text_upper(out);
}

/* A MESSAGE said before the next answer. */
void
add_notice(Brain *b, const char *text)
{
    if (b->notice_count == b->notice_capacity) {
        int capacity = b->notice_capacity ? 2 * b->notice_capacity : 8;
        char **grown = realloc(b->notices, sizeof(char *) * (size_t)capacity);
        if (grown == NULL) {
            return;
        }
        b->notices = grown;
        b->notice_capacity = capacity;
    }
    char *copy = text_format("%s", text);
    if (copy != NULL) {
        b->notices[b->notice_count++] = copy;
    }
}
