#include <assert.h>
#include <stdlib.h>
#include <wlr/interfaces/wlr_buffer.h>
#include "util/image.h"
#include "scene/pixel_buffer.h"

/*
 * Read-only pixels for the renderer: pixman renders straight from them, a GPU renderer uploads
 * them once into the texture the scene buffer keeps. Nothing writes to them after creation.
 */
struct pixel_buffer {
	struct wlr_buffer base;
	/*
	 * Owned: freed, unmapped or released (veil_image's release) in destroy, when wlroots
	 * drops the last lock.
	 */
	void *data;
	size_t mapped_size; /* veil_image.mapped_size */
	void (*release)(void *release_data);
	void *release_data;
	uint32_t format;
	size_t stride;
	struct veil_colour_space space; /* all zero: sRGB */
};

static const struct wlr_buffer_impl pixel_buffer_impl;

static struct pixel_buffer *pixel_buffer_from_buffer(struct wlr_buffer *wlr_buffer) {
	assert(wlr_buffer->impl == &pixel_buffer_impl);
	struct pixel_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	return buffer;
}

static void pixel_buffer_destroy(struct wlr_buffer *wlr_buffer) {
	struct pixel_buffer *buffer = pixel_buffer_from_buffer(wlr_buffer);
	wlr_buffer_finish(wlr_buffer);
	if (buffer->release != NULL) {
		buffer->release(buffer->release_data);
	} else {
		veil_image_data_free(buffer->data, buffer->mapped_size);
	}
	free(buffer);
}

static bool pixel_buffer_begin_data_ptr_access(struct wlr_buffer *wlr_buffer, uint32_t flags,
		void **data, uint32_t *format, size_t *stride) {
	struct pixel_buffer *buffer = pixel_buffer_from_buffer(wlr_buffer);
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) {
		return false;
	}
	*data = buffer->data;
	*format = buffer->format;
	*stride = buffer->stride;
	return true;
}

static void pixel_buffer_end_data_ptr_access(struct wlr_buffer *wlr_buffer) {
	/* Nothing to release: the pixels stay mapped for the buffer's whole life. */
}

static const struct wlr_buffer_impl pixel_buffer_impl = {
	.destroy = pixel_buffer_destroy,
	.begin_data_ptr_access = pixel_buffer_begin_data_ptr_access,
	.end_data_ptr_access = pixel_buffer_end_data_ptr_access,
};

struct wlr_buffer *veil_pixel_buffer_create(struct veil_image *image) {
	struct pixel_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	wlr_buffer_init(&buffer->base, &pixel_buffer_impl, image->width, image->height);
	buffer->data = image->data;
	buffer->format = image->drm_format;
	buffer->stride = image->stride;
	buffer->mapped_size = image->mapped_size;
	buffer->release = image->release;
	buffer->release_data = image->release_data;
	image->data = NULL;
	image->mapped_size = 0;
	image->release = NULL;
	image->release_data = NULL;
	return &buffer->base;
}

void veil_pixel_buffer_set_colour_space(struct wlr_buffer *wlr_buffer,
		const struct veil_colour_space *space) {
	struct pixel_buffer *buffer = pixel_buffer_from_buffer(wlr_buffer);
	buffer->space = *space;
}

bool veil_pixel_buffer_get_colour_space(struct wlr_buffer *wlr_buffer,
		struct veil_colour_space *space) {
	if (wlr_buffer->impl != &pixel_buffer_impl) {
		return false;
	}
	struct pixel_buffer *buffer = pixel_buffer_from_buffer(wlr_buffer);
	/* RGB: no matrix nor range to say. */
	if (buffer->space.transfer == VEIL_TRANSFER_SDR &&
			buffer->space.primaries == VEIL_PRIMARIES_BT709) {
		return false;
	}
	*space = buffer->space;
	return true;
}
