#include <drm_fourcc.h>
#include <stdlib.h>
#include <pixman.h>
#include <wlr/types/wlr_buffer.h>
#include "util/image.h"
#include "scene/pixel_buffer.h"
#include "scene/tile_buffer.h"

static pixman_format_code_t pixman_format(uint32_t drm_format) {
	switch (drm_format) {
	case DRM_FORMAT_ARGB8888:
		return PIXMAN_a8r8g8b8;
	case DRM_FORMAT_XRGB8888:
		return PIXMAN_x8r8g8b8;
	default:
		return 0;
	}
}

static int round_up(int size, int unit) {
	return (size + unit - 1) / unit * unit;
}

struct wlr_buffer *veil_tile_buffer_create(struct wlr_buffer *frame, int min_width,
		int min_height) {
	void *data;
	uint32_t format;
	size_t stride;
	if (!wlr_buffer_begin_data_ptr_access(frame, WLR_BUFFER_DATA_PTR_ACCESS_READ,
			&data, &format, &stride)) {
		return NULL;
	}
	struct wlr_buffer *tiled = NULL;
	pixman_image_t *src = NULL;
	pixman_format_code_t pformat = pixman_format(format);
	struct veil_image image = {
		.width = round_up(min_width, frame->width),
		.height = round_up(min_height, frame->height),
		.drm_format = format,
	};
	image.stride = image.width * 4;
	if (pformat == 0 || image.width > VEIL_IMAGE_MAX_SIDE ||
			image.height > VEIL_IMAGE_MAX_SIDE) {
		goto out;
	}
	image.data = malloc((size_t)image.stride * (size_t)image.height);
	src = pixman_image_create_bits_no_clear(pformat, frame->width, frame->height, data,
		(int)stride);
	pixman_image_t *dst = image.data != NULL ?
		pixman_image_create_bits_no_clear(pformat, image.width, image.height, image.data,
			image.stride) : NULL;
	if (src == NULL || dst == NULL) {
		if (dst != NULL) {
			pixman_image_unref(dst);
		}
		goto out;
	}
	/* Whole copies of the frame: the pattern goes on seamlessly from one node to the next. */
	pixman_image_set_repeat(src, PIXMAN_REPEAT_NORMAL);
	pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, 0, 0, 0, 0, 0, 0,
		image.width, image.height);
	pixman_image_unref(dst);
	tiled = veil_pixel_buffer_create(&image);
	/* The copies are in what the frame's pixels are in (an HDR still's PQ). */
	struct veil_colour_space space;
	if (tiled != NULL && veil_pixel_buffer_get_colour_space(frame, &space)) {
		veil_pixel_buffer_set_colour_space(tiled, &space);
	}

out:
	if (src != NULL) {
		pixman_image_unref(src);
	}
	wlr_buffer_end_data_ptr_access(frame);
	veil_image_finish(&image);
	return tiled;
}
