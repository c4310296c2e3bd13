/*
 * veil-decoder's allocator for a video whose frames go to a renderer that imports dmabufs: its
 * memories are dmabufs the compositor allocated (wire.h: MEMORY), asked for one at a time
 * through a function of the helper's (serve_video.c), so that the decoder writes each frame
 * where the GPU reads it.
 */
#ifndef VEIL_HELPER_REMOTE_ALLOCATOR_H
#define VEIL_HELPER_REMOTE_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <gst/gst.h>

/*
 * Returns a descriptor of a dmabuf of at least size bytes, which the allocator owns from then
 * on (it keeps the descriptor, and the dmabuf, for later allocations when the memory goes), or
 * a negative errno (the allocation then fails). Called on the streaming thread that allocates;
 * it may wait for the compositor.
 */
typedef int (*veil_remote_alloc_fn)(void *data, size_t size);

/* A new allocator (one reference) that gets its memory from ask(data, size). */
GstAllocator *veil_remote_allocator_new(veil_remote_alloc_fn ask, void *data);

/* Whether mem is one of allocator's. */
bool veil_remote_allocator_owns(GstAllocator *allocator, GstMemory *mem);

#endif
