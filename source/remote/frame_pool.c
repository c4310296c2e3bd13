#define _GNU_SOURCE /* F_SEAL_* */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include "source/remote/frame_pool.h"
#include "source/remote/map.h"
#include "wire/wire.h"
#include "util/image.h"
#include "util/message.h"

struct pool_slot {
	uint8_t *data; /* mapped read-only; NULL before the slot's memfd came */
	size_t size; /* of the mapping, or of the memory */
	int memory; /* a dmabuf of the compositor's (then no mapping), else -1 */
	bool held; /* a frame in it is not released yet */
	bool in_released; /* listed in released: a helper that reuses it early lists it once */
};

struct veil_frame_pool {
	pthread_mutex_t lock;
	int refs; /* the creator's, and one for each frame held */
	struct pool_slot slots[VEIL_WIRE_MAX_SLOTS];
	/* Released since the helper was last told: at most one entry a slot. */
	int32_t released[VEIL_WIRE_MAX_SLOTS];
	int n_released;
	int n_memories; /* memory slots 0 to this - 1 */
	size_t memory_bytes; /* their sizes' sum */
	void (*notify)(void *data);
	void *notify_data;
};

/* What a frame's image (and then its buffer) holds: freed with the frame's release. */
struct pool_frame {
	struct veil_frame_pool *pool;
	int slot;
};

struct veil_frame_pool *veil_frame_pool_create(void) {
	struct veil_frame_pool *pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		return NULL;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pool->refs = 1;
	for (int i = 0; i < VEIL_WIRE_MAX_SLOTS; i++) {
		pool->slots[i].memory = -1;
	}
	return pool;
}

static void pool_destroy(struct veil_frame_pool *pool) {
	for (int i = 0; i < VEIL_WIRE_MAX_SLOTS; i++) {
		if (pool->slots[i].data != NULL) {
			munmap(pool->slots[i].data, pool->slots[i].size);
		}
		if (pool->slots[i].memory >= 0) {
			close(pool->slots[i].memory);
		}
	}
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* Drops one reference, with the lock held; unlocks, and destroys the pool after the last. */
static void unref_locked(struct veil_frame_pool *pool) {
	bool last = --pool->refs == 0;
	pthread_mutex_unlock(&pool->lock);
	if (last) {
		pool_destroy(pool);
	}
}

struct veil_frame_pool *veil_frame_pool_ref(struct veil_frame_pool *pool) {
	pthread_mutex_lock(&pool->lock);
	pool->refs++;
	pthread_mutex_unlock(&pool->lock);
	return pool;
}

void veil_frame_pool_unref(struct veil_frame_pool *pool) {
	if (pool == NULL) {
		return;
	}
	pthread_mutex_lock(&pool->lock);
	unref_locked(pool);
}

/* veil_image.release of a frame: the compositor thread, or a worker. */
static void release_frame(void *data) {
	struct pool_frame *frame = data;
	struct veil_frame_pool *pool = frame->pool;
	pthread_mutex_lock(&pool->lock);
	struct pool_slot *slot = &pool->slots[frame->slot];
	slot->held = false;
	if (!slot->in_released) {
		slot->in_released = true;
		pool->released[pool->n_released++] = frame->slot;
	}
	void (*notify)(void *data) = pool->notify;
	void *notify_data = pool->notify_data;
	unref_locked(pool);
	free(frame);
	if (notify != NULL) {
		notify(notify_data);
	}
}

void veil_frame_pool_set_notify(struct veil_frame_pool *pool, void (*notify)(void *data),
		void *data) {
	pthread_mutex_lock(&pool->lock);
	pool->notify = notify;
	pool->notify_data = data;
	pthread_mutex_unlock(&pool->lock);
}

/* Maps a slot's new memfd: sealed so that no page of the mapping can vanish (SIGBUS). */
static int map_slot(struct pool_slot *slot, int fd, size_t size, char **message) {
	void *data;
	int ret = veil_decoder_map_memfd(fd, F_SEAL_SHRINK | F_SEAL_GROW, size, "decoder's frame",
		&data, message);
	if (ret < 0) {
		return ret;
	}
	if (slot->data != NULL) {
		munmap(slot->data, slot->size);
	}
	slot->data = data;
	slot->size = size;
	return 0;
}

int veil_frame_pool_accept(struct veil_frame_pool *pool, int slot_id, int fd, int width,
		int height, int stride, uint32_t format, struct veil_image *image, char **message) {
	*image = (struct veil_image){0};
	if (slot_id < 0 || slot_id >= VEIL_WIRE_MAX_SLOTS) {
		veil_message_set(message, "decoder answered frame slot %d", slot_id);
		return -EPROTO;
	}
	struct pool_frame *frame = calloc(1, sizeof(*frame));
	if (frame == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	/* check_picture() bounded these: no overflow. */
	size_t size = (size_t)stride * (size_t)height;
	int ret = 0;
	pthread_mutex_lock(&pool->lock);
	struct pool_slot *slot = &pool->slots[slot_id];
	if (slot->held) {
		veil_message_set(message, "decoder wrote into a frame the compositor still holds");
		ret = -EPROTO;
	} else if (slot->memory >= 0) {
		veil_message_set(message, "decoder answered a frame in memory slot %d as its own",
			slot_id);
		ret = -EPROTO;
	} else if (fd >= 0) {
		ret = map_slot(slot, fd, size, message);
	} else if (slot->data == NULL || slot->size < size) {
		veil_message_set(message, "decoder answered a frame in slot %d without its memory",
			slot_id);
		ret = -EPROTO;
	}
	if (ret == 0) {
		slot->held = true;
		pool->refs++;
		frame->pool = pool;
		frame->slot = slot_id;
		*image = (struct veil_image){
			.width = width,
			.height = height,
			.stride = stride,
			.drm_format = format,
			.data = slot->data,
			.release = release_frame,
			.release_data = frame,
		};
	}
	pthread_mutex_unlock(&pool->lock);
	if (ret < 0) {
		free(frame);
	}
	return ret;
}

int veil_frame_pool_take_released(struct veil_frame_pool *pool, int32_t *ids, int max) {
	pthread_mutex_lock(&pool->lock);
	int n = pool->n_released < max ? pool->n_released : max;
	memcpy(ids, pool->released, (size_t)n * sizeof(*ids));
	for (int i = 0; i < n; i++) {
		pool->slots[ids[i]].in_released = false;
	}
	memmove(pool->released, pool->released + n,
		(size_t)(pool->n_released - n) * sizeof(*ids));
	pool->n_released -= n;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

/* Under the lock. */
static bool has_room(struct veil_frame_pool *pool, size_t size) {
	int id = pool->n_memories;
	return id < VEIL_FRAME_POOL_MEMORIES && pool->slots[id].data == NULL &&
		!pool->slots[id].held && size <= VEIL_FRAME_POOL_MEMORY_BYTES - pool->memory_bytes;
}

bool veil_frame_pool_has_room(struct veil_frame_pool *pool, size_t size) {
	pthread_mutex_lock(&pool->lock);
	bool room = has_room(pool, size);
	pthread_mutex_unlock(&pool->lock);
	return room;
}

int veil_frame_pool_add_memory(struct veil_frame_pool *pool, int fd, size_t size) {
	pthread_mutex_lock(&pool->lock);
	int id = pool->n_memories;
	bool free_slot = has_room(pool, size);
	if (free_slot) {
		pool->slots[id].memory = fd;
		pool->slots[id].size = size;
		pool->n_memories++;
		pool->memory_bytes += size;
	}
	pthread_mutex_unlock(&pool->lock);
	if (!free_slot) {
		close(fd);
		return -ENOSPC;
	}
	return id;
}

/* A plane of a format: bytes a sample, and how many pixels share one across and down. */
struct plane_layout {
	int cpp, hsub, vsub;
};

struct format_layout {
	uint32_t format;
	int n_planes;
	struct plane_layout planes[3];
};

/* What a helper may decode into the compositor's dmabufs (the renderers' linear formats). */
static const struct format_layout layouts[] = {
	{ DRM_FORMAT_XRGB8888, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_ARGB8888, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_NV12, 2, { { 1, 1, 1 }, { 2, 2, 2 } } },
	{ DRM_FORMAT_P010, 2, { { 2, 1, 1 }, { 4, 2, 2 } } },
	{ DRM_FORMAT_YUV420, 3, { { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } } },
};

/* Whether the planes are format's and lie in size bytes; says why not in *message. */
static bool check_planes(int width, int height, uint32_t format, int n_planes,
		const int32_t *offsets, const int32_t *strides, size_t size, char **message) {
	const struct format_layout *layout = NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].format == format) {
			layout = &layouts[i];
		}
	}
	if (layout == NULL || n_planes != layout->n_planes) {
		veil_message_set(message, "decoder answered a frame of format 0x%08x in %d planes",
			format, n_planes);
		return false;
	}
	for (int i = 0; i < n_planes; i++) {
		const struct plane_layout *plane = &layout->planes[i];
		int64_t row = (int64_t)(width + plane->hsub - 1) / plane->hsub * plane->cpp;
		int64_t rows = (int64_t)(height + plane->vsub - 1) / plane->vsub;
		int64_t offset = offsets[i], stride = strides[i];
		if (offset < 0 || stride < row || offset + stride * (rows - 1) + row > (int64_t)size) {
			veil_message_set(message, "decoder answered plane %d at %" PRId64 " with a "
				"stride of %" PRId64 " bytes, past its memory of %zu bytes", i, offset,
				stride, size);
			return false;
		}
	}
	return true;
}

int veil_frame_pool_accept_memory(struct veil_frame_pool *pool, int slot_id, int width,
		int height, uint32_t format, int n_planes, const int32_t *offsets,
		const int32_t *strides, struct veil_memory_frame *out, char **message) {
	*out = (struct veil_memory_frame){0};
	if (slot_id < 0 || slot_id >= VEIL_WIRE_MAX_SLOTS) {
		veil_message_set(message, "decoder answered frame slot %d", slot_id);
		return -EPROTO;
	}
	struct pool_frame *frame = calloc(1, sizeof(*frame));
	if (frame == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	int ret = 0;
	pthread_mutex_lock(&pool->lock);
	struct pool_slot *slot = &pool->slots[slot_id];
	if (slot->memory < 0) {
		veil_message_set(message, "decoder answered a frame in memory %d it was not given",
			slot_id);
		ret = -EPROTO;
	} else if (slot->held) {
		veil_message_set(message, "decoder wrote into a frame the compositor still holds");
		ret = -EPROTO;
	} else if (!check_planes(width, height, format, n_planes, offsets, strides, slot->size,
			message)) {
		ret = -EPROTO;
	}
	if (ret == 0) {
		slot->held = true;
		pool->refs++;
		frame->pool = pool;
		frame->slot = slot_id;
		out->dmabuf = (struct wlr_dmabuf_attributes){
			.width = width,
			.height = height,
			.format = format,
			.modifier = DRM_FORMAT_MOD_LINEAR,
			.n_planes = n_planes,
		};
		for (int i = 0; i < n_planes; i++) {
			out->dmabuf.offset[i] = (uint32_t)offsets[i];
			out->dmabuf.stride[i] = (uint32_t)strides[i];
			out->dmabuf.fd[i] = slot->memory;
		}
		out->release = release_frame;
		out->release_data = frame;
	}
	pthread_mutex_unlock(&pool->lock);
	if (ret < 0) {
		free(frame);
	}
	return ret;
}
