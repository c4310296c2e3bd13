/* memfd_create() and the sealing fcntls are GNU extensions. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include "tests/renderer/memfd_allocator.h"

typedef struct {
	GstDmaBufAllocator parent;
} MemfdAllocator;

typedef struct {
	GstDmaBufAllocatorClass parent_class;
} MemfdAllocatorClass;

GType memfd_allocator_get_type(void);
G_DEFINE_TYPE(MemfdAllocator, memfd_allocator, GST_TYPE_DMABUF_ALLOCATOR)

/*
 * One memfd a memory, sized for the prefix, the data and the padding asked for, and sealed
 * against shrinking as udmabuf requires (a GPU mapping must never lose its pages).
 */
static GstMemory *memfd_alloc(GstAllocator *allocator, gsize size,
		GstAllocationParams *params) {
	gsize total = params->prefix + size + params->padding;
	int fd = memfd_create("veil-dmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		GST_WARNING("memfd_create failed");
		return NULL;
	}
	if (ftruncate(fd, (off_t)total) < 0 ||
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		GST_WARNING("cannot size or seal a memfd of %zu bytes", (size_t)total);
		close(fd);
		return NULL;
	}
	/*
	 * The memory owns the fd from here on: gst closes it when the memory goes. Mapped once
	 * and kept so: without it every map (a decoder's, once a frame) is a new mmap whose pages
	 * all fault again, which cost avdec_h264's output thread 7 ms of system time a 1080p frame.
	 */
	GstMemory *mem = gst_dmabuf_allocator_alloc_with_flags(allocator, fd, total,
		GST_FD_MEMORY_FLAG_KEEP_MAPPED);
	if (mem == NULL) {
		close(fd);
		return NULL;
	}
	gst_memory_resize(mem, (gssize)params->prefix, size);
	return mem;
}

static void memfd_allocator_class_init(MemfdAllocatorClass *klass) {
	GST_ALLOCATOR_CLASS(klass)->alloc = memfd_alloc;
}

static void memfd_allocator_init(MemfdAllocator *allocator) {
	/* The fd allocator only wraps fds; this one makes them, so gst_allocator_alloc() works. */
	GST_OBJECT_FLAG_UNSET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *memfd_dmabuf_allocator_new(void) {
	GstAllocator *allocator = g_object_new(memfd_allocator_get_type(), NULL);
	gst_object_ref_sink(allocator);
	return allocator;
}

bool memfd_dmabuf_allocator_register(const char *name) {
	GstAllocator *allocator = memfd_dmabuf_allocator_new();
	if (allocator == NULL) {
		return false;
	}
	/* Takes our reference. */
	gst_allocator_register(name, allocator);
	return true;
}
