/*
 * Reading a frame veil shows back into memory, for a snapshot (module/control/snapshot.c) or a
 * palette (util/palette.h): taken on the compositor thread (a lock, a data pointer or the dmabuf's
 * attributes, nothing slow), read and converted on a worker, given back on the compositor
 * thread. Frames are veil's own buffers (scene/pixel_buffer.c, sample_buffer.c,
 * dmabuf_buffer.c): their pixels stay where they are and unchanged while a lock is held.
 */
#ifndef VEIL_SCENE_FRAME_READ_H
#define VEIL_SCENE_FRAME_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wlr/render/dmabuf.h>
#include "scene/compat.h"

struct wlr_buffer;
struct veil_image;

struct veil_frame_read {
	struct wlr_buffer *buffer; /* locked from take to release */
	uint32_t format; /* DRM fourcc */
	int width, height;
	/* Read through a data pointer (valid while locked), else through the dmabuf's planes. */
	const uint8_t *data;
	size_t stride;
	bool dmabuf;
	struct wlr_dmabuf_attributes attribs; /* descriptors the buffer's, valid while locked */
	enum veil_yuv_matrix matrix;
	bool full_range;
};

/*
 * Compositor thread: locks buffer and notes how to read it. 0, or -ENOTSUP with a sentence in
 * *message (a layout or format veil cannot read back); nothing is held then.
 */
int veil_frame_read_take(struct veil_frame_read *read, struct wlr_buffer *buffer,
	char **message);
/*
 * A worker: the frame's pixels, scaled down to fit max_width x max_height keeping the aspect
 * ratio (0: no limit on that side; never scaled up), as a veil_image of its own:
 * DRM_FORMAT_XRGB8888, or DRM_FORMAT_ARGB8888 (premultiplied) when the frame has alpha. 0, or
 * a negative errno with a sentence in *message.
 */
int veil_frame_read_pixels(const struct veil_frame_read *read, int max_width, int max_height,
	struct veil_image *out, char **message);
/*
 * The same by point sampling: each pixel of the result is the frame's pixel under its centre,
 * read alone (a YUV frame is not converted whole). No colour in it that the frame lacks.
 */
int veil_frame_read_sample(const struct veil_frame_read *read, int max_width, int max_height,
	struct veil_image *out, char **message);
/* Compositor thread: gives up the lock. Nothing else is held; read is zeroed. */
void veil_frame_read_release(struct veil_frame_read *read);

/* The size a width x height picture takes to fit max_width x max_height (0: no limit). */
void veil_frame_fit_size(int width, int height, int max_width, int max_height, int *out_width,
	int *out_height);

#endif
