#include <assert.h>
#include <stdlib.h>
#include <drm_fourcc.h>
#include <wlr/interfaces/wlr_buffer.h>
#include "scene/dmabuf_buffer.h"

/* GPU access only: a renderer that can't import it draws nothing of it. */
struct dmabuf_buffer {
	struct wlr_buffer base;
	struct wlr_dmabuf_attributes attribs; /* descriptors borrowed, until release */
	struct veil_colour_space space;
	void (*release)(void *data); /* owned: called in destroy */
	void *release_data;
};

static const struct wlr_buffer_impl dmabuf_buffer_impl;

static struct dmabuf_buffer *dmabuf_buffer_from_buffer(struct wlr_buffer *wlr_buffer) {
	assert(wlr_buffer->impl == &dmabuf_buffer_impl);
	struct dmabuf_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	return buffer;
}

static void dmabuf_buffer_destroy(struct wlr_buffer *wlr_buffer) {
	struct dmabuf_buffer *buffer = dmabuf_buffer_from_buffer(wlr_buffer);
	wlr_buffer_finish(wlr_buffer);
	buffer->release(buffer->release_data);
	free(buffer);
}

static bool dmabuf_buffer_get_dmabuf(struct wlr_buffer *wlr_buffer,
		struct wlr_dmabuf_attributes *attribs) {
	struct dmabuf_buffer *buffer = dmabuf_buffer_from_buffer(wlr_buffer);
	*attribs = buffer->attribs;
	return true;
}

static const struct wlr_buffer_impl dmabuf_buffer_impl = {
	.destroy = dmabuf_buffer_destroy,
	.get_dmabuf = dmabuf_buffer_get_dmabuf,
};

bool veil_dmabuf_buffer_get_colour_space(struct wlr_buffer *wlr_buffer,
		struct veil_colour_space *space, bool *yuv) {
	if (wlr_buffer->impl != &dmabuf_buffer_impl) {
		return false;
	}
	struct dmabuf_buffer *buffer = dmabuf_buffer_from_buffer(wlr_buffer);
	uint32_t format = buffer->attribs.format;
	*yuv = format != DRM_FORMAT_XRGB8888 && format != DRM_FORMAT_ARGB8888;
	*space = buffer->space;
	return true;
}

struct wlr_buffer *veil_dmabuf_buffer_create(const struct wlr_dmabuf_attributes *attribs,
		const struct veil_colour_space *space, void (*release)(void *data),
		void *release_data) {
	struct dmabuf_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		release(release_data);
		return NULL;
	}
	wlr_buffer_init(&buffer->base, &dmabuf_buffer_impl, attribs->width, attribs->height);
	buffer->attribs = *attribs;
	buffer->space = *space;
	buffer->release = release;
	buffer->release_data = release_data;
	return &buffer->base;
}
