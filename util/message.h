/*
 * Sentences for people: error messages returned through commands and the status, and the
 * printf-to-malloc() every part of veil uses.
 */
#ifndef VEIL_UTIL_MESSAGE_H
#define VEIL_UTIL_MESSAGE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A malloc()ed, printf-formatted string; NULL only when memory is short. */
char *veil_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *veil_message_v(const char *fmt, va_list args) __attribute__((format(printf, 1, 0)));

/*
 * Sets *message (when message is not NULL) to a new sentence and returns err, for a parser's
 * `return veil_message_fail(message, -EINVAL, "...", ...)`. Without memory *message is NULL.
 */
int veil_message_fail(char **message, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets *dst (when dst is not NULL) to a new message, freeing nothing. */
void veil_message_set(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How much of a word a sentence quotes (veil_message_quote): a 64 KiB word would drown it. */
#define VEIL_QUOTE_SIZE 64

/*
 * A word as a sentence may quote it, in buf: sentences end up in logs and in JSON replies, so
 * control characters and bytes that are not UTF-8 become '?', and a long word is cut with
 * "...". Returns buf.
 */
const char *veil_message_quote(char buf[static VEIL_QUOTE_SIZE], const char *word);

/* The length of the valid UTF-8 sequence at p, or 0 if there is none. */
size_t veil_utf8_length(const unsigned char *p);

/*
 * Makes str fit for JSON and logs, in place: bytes that are not UTF-8 become '?', control
 * characters spaces (file names may hold both; the status and IPC replies must stay valid).
 * Returns str.
 */
char *veil_message_sanitize(char *str);

/*
 * Whether text read from a file (an ICC profile's description) can be shown as it is: valid
 * UTF-8 with no control character (C0, DEL, C1) and no U+FFFD, the mark of a decoder that met
 * garbage. Text that fails is shown not at all, rather than as question marks.
 */
bool veil_utf8_printable(const char *str);

#endif
