/*
 * The decoder process's pixel allocator (util/pixels.h): each block is a memfd of its own,
 * mapped shared and populated in one call, so that the picture a decoder writes is already in
 * the file the compositor maps, and its pages do not fault in one at a time.
 */
#ifndef VEIL_HELPER_MEMFD_PIXELS_H
#define VEIL_HELPER_MEMFD_PIXELS_H

#include <stddef.h>

/* Makes it the process's allocator; before anything is decoded. */
void veil_memfd_pixels_install(void);

/*
 * The picture at data (size bytes, from veil_pixels_alloc()) in a memfd sealed against any
 * change, for the compositor to map (source/remote/map.c); the caller owns *fd. A block of this
 * allocator is handed over as it is, unmapped; one it had to take from the heap is copied into
 * a new memfd. data is freed either way. 0, or a negative errno.
 */
int veil_memfd_pixels_hand_over(void *data, size_t size, int *fd);

#endif
