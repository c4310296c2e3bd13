/*
 * The decoder process's pixel allocator (util/pixels.h): each block is a memfd of its own,
 * mapped shared and populated in one call, so that the picture a decoder writes is already in
 * the file the compositor maps, and its pages do not fault in one at a time.
 */
#ifndef VEIL_DECODE_ISOLATE_MEMFD_PIXELS_H
#define VEIL_DECODE_ISOLATE_MEMFD_PIXELS_H

/* Makes it the process's allocator; before anything is decoded. */
void veil_memfd_pixels_install(void);

/*
 * The memfd behind data (a block of this allocator, data its start), unmapped, sealed against
 * any change and no longer the allocator's: the caller owns *fd. -ENOENT when data is not such a
 * block (the allocator fell back to the heap: the caller copies), another negative errno when
 * sealing failed (data is freed then).
 */
int veil_memfd_pixels_seal(void *data, int *fd);

#endif
