#include <stdbool.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include "helper/remote_allocator.h"

/* A dmabuf whose memory was freed, kept for the next allocation it is large enough for. */
struct kept {
	int fd;
	gsize size;
};

typedef struct {
	GstDmaBufAllocator parent;
	veil_remote_alloc_fn ask;
	void *data;
	GMutex lock;
	GArray *kept; /* of struct kept, under lock */
} RemoteAllocator;

typedef struct {
	GstDmaBufAllocatorClass parent_class;
} RemoteAllocatorClass;

GType veil_remote_allocator_get_type(void);
G_DEFINE_TYPE(RemoteAllocator, veil_remote_allocator, GST_TYPE_DMABUF_ALLOCATOR)

/* The smallest kept dmabuf of at least size bytes, taken out of the list; -1 if none. */
static int take_kept(RemoteAllocator *self, gsize size, gsize *kept_size) {
	g_mutex_lock(&self->lock);
	int best = -1;
	for (guint i = 0; i < self->kept->len; i++) {
		struct kept *k = &g_array_index(self->kept, struct kept, i);
		if (k->size >= size && (best < 0 ||
				k->size < g_array_index(self->kept, struct kept, best).size)) {
			best = (int)i;
		}
	}
	int fd = -1;
	if (best >= 0) {
		struct kept k = g_array_index(self->kept, struct kept, best);
		g_array_remove_index_fast(self->kept, (guint)best);
		fd = k.fd;
		*kept_size = k.size;
	}
	g_mutex_unlock(&self->lock);
	return fd;
}

/*
 * One dmabuf of the compositor's a memory, mapped once and kept so (a decoder maps its output
 * once a frame: a new mapping each time would fault every page in again). The descriptor stays
 * the allocator's: when the memory goes (a buffer pool made at new caps frees the old one's),
 * the dmabuf is kept for a later allocation (remote_free), so that a video whose size changes
 * at each loop asks the compositor for no more dmabufs than its two sizes take. The
 * compositor knows it by its index, which stays with the descriptor.
 */
static GstMemory *remote_alloc(GstAllocator *allocator, gsize size,
		GstAllocationParams *params) {
	RemoteAllocator *self = (RemoteAllocator *)allocator;
	gsize total = params->prefix + size + params->padding;
	gsize mem_size = total;
	int fd = take_kept(self, total, &mem_size);
	if (fd < 0) {
		fd = self->ask(self->data, total);
	}
	if (fd < 0) {
		GST_WARNING("the compositor gave no memory of %zu bytes", (size_t)total);
		return NULL;
	}
	GstMemory *mem = gst_dmabuf_allocator_alloc_with_flags(allocator, fd, mem_size,
		GST_FD_MEMORY_FLAG_KEEP_MAPPED | GST_FD_MEMORY_FLAG_DONT_CLOSE);
	if (mem == NULL) {
		close(fd);
		return NULL;
	}
	gst_memory_resize(mem, (gssize)params->prefix, size);
	return mem;
}

static void remote_free(GstAllocator *allocator, GstMemory *mem) {
	RemoteAllocator *self = (RemoteAllocator *)allocator;
	struct kept k = { .fd = gst_fd_memory_get_fd(mem), .size = mem->maxsize };
	/* Unmaps it; the descriptor stays open (DONT_CLOSE). */
	GST_ALLOCATOR_CLASS(veil_remote_allocator_parent_class)->free(allocator, mem);
	g_mutex_lock(&self->lock);
	g_array_append_val(self->kept, k);
	g_mutex_unlock(&self->lock);
}

static void remote_finalize(GObject *object) {
	RemoteAllocator *self = (RemoteAllocator *)object;
	for (guint i = 0; i < self->kept->len; i++) {
		close(g_array_index(self->kept, struct kept, i).fd);
	}
	g_array_unref(self->kept);
	g_mutex_clear(&self->lock);
	G_OBJECT_CLASS(veil_remote_allocator_parent_class)->finalize(object);
}

static void veil_remote_allocator_class_init(RemoteAllocatorClass *klass) {
	GST_ALLOCATOR_CLASS(klass)->alloc = remote_alloc;
	GST_ALLOCATOR_CLASS(klass)->free = remote_free;
	G_OBJECT_CLASS(klass)->finalize = remote_finalize;
}

static void veil_remote_allocator_init(RemoteAllocator *allocator) {
	/* The fd allocator only wraps descriptors; this one gets them, so gst_allocator_alloc()
	 * (a buffer pool's) works. */
	GST_OBJECT_FLAG_UNSET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
	g_mutex_init(&allocator->lock);
	allocator->kept = g_array_new(FALSE, FALSE, sizeof(struct kept));
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
