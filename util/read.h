/*
 * Reading a file at an offset, whole: what every decoder that reads its own file needs.
 */
#ifndef VEIL_UTIL_READ_H
#define VEIL_UTIL_READ_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* pread() until len bytes or the end of the file; the count read, or a negative errno. */
ssize_t veil_read_at(int fd, void *buf, size_t len, off_t offset);

/*
 * The same two for a decoder, their failure said in *message (when not NULL) as every decoder
 * says it: "cannot read the file: <strerror>".
 */
int veil_read_stat(int fd, struct stat *st, char **message);
ssize_t veil_read_at_message(int fd, void *buf, size_t len, off_t offset, char **message);

#endif
