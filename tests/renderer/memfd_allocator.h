/*
 * A GStreamer allocator of dmabuf memory over memfds: what /dev/udmabuf gives a machine that has
 * it (memfd pages that a GPU can import), for machines that don't. Its memories are
 * GstDmaBufMemory, so veil hands its frames to the renderer as dmabufs; the importing test
 * renderer reads them through their fds as a driver would.
 */
#ifndef TESTS_RENDERER_MEMFD_ALLOCATOR_H
#define TESTS_RENDERER_MEMFD_ALLOCATOR_H

#include <stdbool.h>
#include <gst/gst.h>

/* A new allocator (floating reference sunk: the caller owns one reference). */
GstAllocator *memfd_dmabuf_allocator_new(void);
/*
 * Registers a new allocator under name (veil's is VEIL_DMABUF_ALLOCATOR), for the life of the
 * process: GStreamer keeps registered allocators until gst_deinit(). Call gst_init() first.
 */
bool memfd_dmabuf_allocator_register(const char *name);

#endif
