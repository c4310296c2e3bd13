/*
 * The memfds an animation's veil-decoder writes its frames into (wire.h: slots), as the
 * compositor maps them. A frame's pixels are borrowed from its slot until the image or the
 * wlr_buffer that took it over releases them (veil_image.release), on the compositor thread;
 * the helper may write that slot again only after the compositor's next request says so.
 * Frames are received on a worker: the pool is locked, and lives until its creator and every
 * frame let go of it.
 */
#ifndef VEIL_SOURCE_REMOTE_FRAME_POOL_H
#define VEIL_SOURCE_REMOTE_FRAME_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wlr/render/dmabuf.h>
#include "decode/video/colour_space.h"

struct veil_frame_pool;
struct veil_image;

/*
 * A video's frame in one of the compositor's own dmabufs (wire.h: MEMORY), which the helper
 * decoded into: its descriptors are the pool's, valid until release(release_data).
 */
struct veil_memory_frame {
	struct wlr_dmabuf_attributes dmabuf;
	struct veil_colour_space space;
	void (*release)(void *data);
	void *release_data;
};

/* NULL when memory is short. */
struct veil_frame_pool *veil_frame_pool_create(void);
/* One more reference, for another thread that receives frames into it. */
struct veil_frame_pool *veil_frame_pool_ref(struct veil_frame_pool *pool);
/* Gives up the creator's reference (NULL is allowed). */
void veil_frame_pool_unref(struct veil_frame_pool *pool);

/*
 * A worker: the frame in slot (a new memfd in fd when >= 0, which the pool maps and does not
 * keep) of width x height pixels, stride bytes a row, as *image. The slot must be one the pool
 * does not hold a frame of; a new memfd must be sealed against shrinking and growing and hold
 * the frame. 0, or -EPROTO (or mmap's errno) with a sentence.
 */
int veil_frame_pool_accept(struct veil_frame_pool *pool, int slot, int fd, int width,
	int height, int stride, uint32_t format, struct veil_image *image, char **message);

/*
 * A dmabuf of size bytes the compositor gives the helper (its descriptor, which the pool takes
 * in any case): the next memory slot's index, or -ENOSPC past VEIL_FRAME_POOL_MEMORIES dmabufs
 * or VEIL_FRAME_POOL_MEMORY_BYTES in all (a decoder's pool takes 6 to 8 frames; each new pool,
 * at new caps, asks again): a hostile helper holds no more of the GPU's memory than that.
 */
#define VEIL_FRAME_POOL_MEMORIES 48
#define VEIL_FRAME_POOL_MEMORY_BYTES ((size_t)1 << 30)
int veil_frame_pool_add_memory(struct veil_frame_pool *pool, int fd, size_t size);
/* Whether a dmabuf of size bytes would be taken (asked before one is allocated). */
bool veil_frame_pool_has_room(struct veil_frame_pool *pool, size_t size);

/*
 * A worker or the compositor thread: the frame in memory slot of width x height pixels in
 * format, n_planes planes at offsets with strides, as *frame. The slot must be a memory the
 * pool gave, not holding a frame; the planes must be the format's and lie in that memory.
 * 0, or -EPROTO with a sentence.
 */
int veil_frame_pool_accept_memory(struct veil_frame_pool *pool, int slot, int width,
	int height, uint32_t format, int n_planes, const int32_t *offsets, const int32_t *strides,
	struct veil_memory_frame *frame, char **message);

/*
 * Calls notify(data) after each release of a frame, outside the pool's lock, on the thread
 * that released it (a video's frames: the compositor's). NULL stops it.
 */
void veil_frame_pool_set_notify(struct veil_frame_pool *pool, void (*notify)(void *data),
	void *data);

/* A worker: moves up to max slots released since the last call into ids; how many. */
int veil_frame_pool_take_released(struct veil_frame_pool *pool, int32_t *ids, int max);

#endif
