/* veilctl snapshot's file: a PNG written whole or not at all. */
#ifndef VEIL_CLIENTS_VEILCTL_SNAPSHOT_PNG_H
#define VEIL_CLIENTS_VEILCTL_SNAPSHOT_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes height rows of width pixels, stride bytes apart, of R, G, B and A (alpha) or a byte
 * to ignore (!alpha) to path as an 8-bit RGBA or RGB PNG: into a new file beside it, renamed
 * over path once complete, so that a reader never sees half a picture. 0, or -1 with a
 * sentence (naming path) in buf.
 */
int veilctl_write_png(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
	size_t stride, bool alpha, char *buf, size_t buf_size);

#endif
