/* Sentences for people: error messages returned through commands and the status. */
#ifndef VEIL_MODULE_MESSAGE_H
#define VEIL_MODULE_MESSAGE_H

/* A malloc()ed, printf-formatted string; NULL only when memory is short. */
char *veil_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sets *dst (when dst is not NULL) to a new message, freeing nothing. */
void veil_message_set(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
