#include <stdbool.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include "decode/isolate/remote_allocator.h"

typedef struct {
	GstDmaBufAllocator parent;
	veil_remote_alloc_fn ask;
	void *data;
} RemoteAllocator;

typedef struct {
	GstDmaBufAllocatorClass parent_class;
} RemoteAllocatorClass;

GType veil_remote_allocator_get_type(void);
G_DEFINE_TYPE(RemoteAllocator, veil_remote_allocator, GST_TYPE_DMABUF_ALLOCATOR)

/*
 * One dmabuf of the compositor's a memory, mapped once and kept so (a decoder maps its output
 * once a frame: a new mapping each time would fault every page in again).
 */
static GstMemory *remote_alloc(GstAllocator *allocator, gsize size,
		GstAllocationParams *params) {
	RemoteAllocator *self = (RemoteAllocator *)allocator;
	gsize total = params->prefix + size + params->padding;
	int fd = self->ask(self->data, total);
	if (fd < 0) {
		GST_WARNING("the compositor gave no memory of %zu bytes", (size_t)total);
		return NULL;
	}
	GstMemory *mem = gst_dmabuf_allocator_alloc_with_flags(allocator, fd, total,
		GST_FD_MEMORY_FLAG_KEEP_MAPPED);
	if (mem == NULL) {
		close(fd);
		return NULL;
	}
	gst_memory_resize(mem, (gssize)params->prefix, size);
	return mem;
}

static void veil_remote_allocator_class_init(RemoteAllocatorClass *klass) {
	GST_ALLOCATOR_CLASS(klass)->alloc = remote_alloc;
}

static void veil_remote_allocator_init(RemoteAllocator *allocator) {
	/* The fd allocator only wraps descriptors; this one gets them, so gst_allocator_alloc()
	 * (a buffer pool's) works. */
	GST_OBJECT_FLAG_UNSET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *veil_remote_allocator_new(veil_remote_alloc_fn ask, void *data) {
	RemoteAllocator *self = g_object_new(veil_remote_allocator_get_type(), NULL);
	gst_object_ref_sink(self);
	self->ask = ask;
	self->data = data;
	return GST_ALLOCATOR(self);
}

bool veil_remote_allocator_owns(GstAllocator *allocator, GstMemory *mem) {
	return mem != NULL && mem->allocator == allocator;
}
