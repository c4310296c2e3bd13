/*
 * Where decoded pixels are allocated. In the compositor's process they come from the heap. The
 * decoder process (helper/) installs an allocator that puts each picture in a memfd of
 * its own, which it then hands over whole: no decoder copies its pixels out (memfd_pixels.c).
 * Every veil_image's pixels, and every block a decoder turns into them, come from here.
 */
#ifndef VEIL_UTIL_PIXELS_H
#define VEIL_UTIL_PIXELS_H

#include <stddef.h>

struct veil_pixels_allocator {
	/* size writable bytes, or NULL when there is no memory for them. */
	void *(*alloc)(size_t size);
	/* Gives back what alloc returned; data is never NULL. */
	void (*free)(void *data);
};

/*
 * Process-wide: set once, before anything is decoded (the decoder process's own start). NULL
 * goes back to the heap.
 */
void veil_pixels_set_allocator(const struct veil_pixels_allocator *allocator);

void *veil_pixels_alloc(size_t size);
/* Frees a block of veil_pixels_alloc(); NULL is a no-op. */
void veil_pixels_free(void *data);

#endif
