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
 * Wraps attribs (its descriptors borrowed: valid until release), a frame of colour space space,
 * and takes over release, called with release_data once wlroots drops the last lock, or at once
 * if this fails (NULL). As with every wlr_buffer, the creator locks it where it keeps it and
 * gives up its own reference with wlr_buffer_drop().
 */
struct wlr_buffer *veil_dmabuf_buffer_create(const struct wlr_dmabuf_attributes *attribs,
	const struct veil_colour_space *space, void (*release)(void *data), void *release_data);

/* Whether buffer is one of these, and then its colour space and whether it is YUV. */
bool veil_dmabuf_buffer_get_colour_space(struct wlr_buffer *buffer,
	struct veil_colour_space *space, bool *yuv);

#endif
