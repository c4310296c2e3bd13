#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "decode/anim.h"
#include "decode/still.h"
#include "util/image.h"
#include "util/message.h"
#include "util/pixels.h"

int veil_anim_open_file(const struct veil_anim_decoder_impl *impl, int fd, uint8_t **data,
		size_t *len, struct veil_anim_decoder **dec, struct veil_anim_info *info,
		char **message) {
	const char *what = impl->format == VEIL_ANIM_GIF ? "GIF file" :
		impl->format == VEIL_ANIM_PNG ? "APNG file" : "WebP file";
	int ret = veil_still_read_file(fd, VEIL_ANIM_MAX_FILE_SIZE, what, data, len, message);
	if (ret < 0) {
		return ret;
	}
	ret = impl->open(*data, *len, dec, info, message);
	if (ret < 0) {
		*dec = NULL;
		free(*data);
		*data = NULL;
		*len = 0;
	}
	return ret;
}

int veil_anim_frame_image(const uint8_t *canvas, int width, int height, int cover_width,
		int cover_height, enum veil_image_filter filter, struct veil_image *image,
		int *shrink_error, char **message) {
	*shrink_error = 0;
	size_t size = (size_t)width * (size_t)height * 4;
	uint8_t *pixels = veil_pixels_alloc(size);
	if (pixels == NULL) {
		veil_message_set(message, "out of memory for a %dx%d frame", width, height);
		return -ENOMEM;
	}
	/* The decoder composes the next frame on the same canvas: this one is kept apart. */
	memcpy(pixels, canvas, size);
	bool opaque = veil_still_opaque(pixels, width, height, width * 4);
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = pixels,
	};
	if (cover_width > 0 && cover_height > 0) {
		*shrink_error = veil_image_shrink_to_cover(image, cover_width, cover_height,
			filter);
	}
	return 0;
}
