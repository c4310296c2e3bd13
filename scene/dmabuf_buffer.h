/*
 * A wlr_buffer over a dmabuf whose descriptors another keeps (a video frame veil-decoder
 * decoded into one of the compositor's dmabufs): the renderer imports it as it is.
 */
#ifndef VEIL_SCENE_DMABUF_BUFFER_H
#define VEIL_SCENE_DMABUF_BUFFER_H

#include <stdbool.h>
#include <wlr/render/dmabuf.h>
#include "scene/compat.h"

struct wlr_buffer;

/*
 * Wraps attribs (its descriptors borrowed: valid until release), a YUV frame's encoded with
 * matrix in full_range or not, and takes over release, called with release_data once wlroots
 * drops the last lock, or at once if this fails (NULL). As with every wlr_buffer, the creator
 * locks it where it keeps it and gives up its own reference with wlr_buffer_drop().
 */
struct wlr_buffer *veil_dmabuf_buffer_create(const struct wlr_dmabuf_attributes *attribs,
	enum veil_yuv_matrix matrix, bool full_range, void (*release)(void *data),
	void *release_data);

/* Whether buffer is one of these in a YUV format, and then its matrix and range. */
bool veil_dmabuf_buffer_get_yuv(struct wlr_buffer *buffer, enum veil_yuv_matrix *matrix,
	bool *full_range);

#endif
