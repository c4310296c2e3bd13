/*
 * The compositor's side of a helper's memfd: checked, then mapped read-only. A helper is
 * untrusted: what it sends must be a memory file, sealed so that no page of the mapping can
 * vanish under the renderer (SIGBUS), and large enough for the pixels it claims.
 */
#ifndef VEIL_SOURCE_REMOTE_MAP_H
#define VEIL_SOURCE_REMOTE_MAP_H

#include <stddef.h>

/*
 * A worker: maps size bytes of fd read-only and populated into *data once fd is a regular
 * file with at least seals (F_SEAL_*) and size bytes. what names it in the sentence ("decoder's picture"). 0, or
 * -EPROTO (or mmap's errno) with a sentence. fd stays the caller's.
 */
int veil_decoder_map_memfd(int fd, int seals, size_t size, const char *what, void **data,
	char **message);

#endif
