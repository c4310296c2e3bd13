#include <errno.h>
#include <inttypes.h>
#include <drm_fourcc.h>
#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "util/image.h"
#include "util/pixels.h"
#include "util/resample.h"
#include "util/message.h"

/*
 * DRM formats are little-endian words, so their bytes are B, G, R, A on every host; pixman's
 * formats are host-order words (wlroots' render/pixman maps them the same way).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PIXMAN_ARGB PIXMAN_b8g8r8a8
#define PIXMAN_XRGB PIXMAN_b8g8r8x8
#else
#define PIXMAN_ARGB PIXMAN_a8r8g8b8
#define PIXMAN_XRGB PIXMAN_x8r8g8b8
#endif

void veil_image_data_free(void *data, size_t mapped_size) {
	if (data != NULL && mapped_size > 0) {
		munmap(data, mapped_size);
	} else {
		veil_pixels_free(data);
	}
}

void veil_image_finish(struct veil_image *image) {
	if (image->release != NULL) {
		image->release(image->release_data);
	} else {
		veil_image_data_free(image->data, image->mapped_size);
	}
	free(image->colour.icc);
	*image = (struct veil_image){0};
}

/*
 * Linear and nearest, through pixman. dst's pixels have alpha even when src is opaque: pixman
 * fills in 0xff from the X source.
 */
static int scale_pixman(const struct veil_image *src, const struct veil_image *dst,
		enum veil_image_filter filter) {
	int ret = -ENOMEM;
	bool opaque = src->drm_format == DRM_FORMAT_XRGB8888;
	pixman_image_t *src_image = NULL, *dst_image = NULL;
	pixman_fixed_t *params = NULL;

	src_image = pixman_image_create_bits_no_clear(opaque ? PIXMAN_XRGB : PIXMAN_ARGB,
		src->width, src->height, src->data, src->stride);
	dst_image = pixman_image_create_bits_no_clear(PIXMAN_ARGB, dst->width, dst->height,
		dst->data, dst->stride);
	if (src_image == NULL || dst_image == NULL) {
		goto out;
	}

	double sx = (double)src->width / dst->width;
	double sy = (double)src->height / dst->height;
	pixman_transform_t transform;
	pixman_transform_init_scale(&transform, pixman_double_to_fixed(sx),
		pixman_double_to_fixed(sy));
	if (!pixman_image_set_transform(src_image, &transform)) {
		goto out;
	}
	/* Edge pixels repeat outwards: the filter would otherwise fade the borders to nothing. */
	pixman_image_set_repeat(src_image, PIXMAN_REPEAT_PAD);

	int n_params = 0;
	switch (filter) {
	case VEIL_IMAGE_FILTER_NEAREST:
		/* The source pixel under each destination pixel's centre. */
		if (!pixman_image_set_filter(src_image, PIXMAN_FILTER_NEAREST, NULL, 0)) {
			goto out;
		}
		break;
	case VEIL_IMAGE_FILTER_LINEAR:
	default:
		/*
		 * Every destination pixel averages the source pixels under it (a box sampling
		 * filter as wide as the reduction), so a large reduction does not alias the way
		 * bilinear sampling, which looks at 2x2 source pixels only, would.
		 */
		params = pixman_filter_create_separable_convolution(&n_params,
			pixman_double_to_fixed(sx), pixman_double_to_fixed(sy),
			PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX,
			2, 2);
		break;
	}
	if (filter != VEIL_IMAGE_FILTER_NEAREST && (params == NULL ||
			!pixman_image_set_filter(src_image, PIXMAN_FILTER_SEPARABLE_CONVOLUTION,
			params, n_params))) {
		goto out;
	}

	pixman_image_composite32(PIXMAN_OP_SRC, src_image, NULL, dst_image, 0, 0, 0, 0, 0, 0,
		dst->width, dst->height);
	ret = 0;

out:
	free(params);
	if (src_image != NULL) {
		pixman_image_unref(src_image);
	}
	if (dst_image != NULL) {
		pixman_image_unref(dst_image);
	}
	return ret;
}

int veil_image_scale_into(const struct veil_image *src, const struct veil_image *dst,
		enum veil_image_filter filter) {
	if (filter == VEIL_IMAGE_FILTER_SMOOTH) {
		return veil_resample_lanczos3(src, dst);
	}
	return scale_pixman(src, dst, filter);
}

bool veil_image_cover_size(int width, int height, int max_width, int max_height,
		int *out_width, int *out_height) {
	*out_width = width;
	*out_height = height;
	if (max_width <= 0 || max_height <= 0 || width <= 0 || height <= 0) {
		return false;
	}
	/*
	 * One side ends exactly at its limit; the other, rounded up, covers at least its own. The
	 * side that binds is the one whose limit asks for the larger scale.
	 */
	int64_t w = width, h = height;
	int64_t new_width, new_height;
	if ((int64_t)max_width * h >= (int64_t)max_height * w) {
		new_width = max_width;
		new_height = (h * max_width + w - 1) / w;
	} else {
		new_height = max_height;
		new_width = (w * max_height + h - 1) / h;
	}
	if (new_width >= w && new_height >= h) {
		return false; /* already no larger than needed: never scale up */
	}
	*out_width = (int)(new_width < w ? new_width : w);
	*out_height = (int)(new_height < h ? new_height : h);
	return true;
}

int veil_image_shrink_to_cover(struct veil_image *image, int max_width, int max_height,
		enum veil_image_filter filter) {
	if (max_width <= 0 || max_height <= 0 || image->width <= 0 || image->height <= 0 ||
			image->data == NULL) {
		return -EINVAL;
	}
	if (image->drm_format != DRM_FORMAT_ARGB8888 &&
			image->drm_format != DRM_FORMAT_XRGB8888) {
		return -EINVAL;
	}
	struct veil_image scaled = { .drm_format = image->drm_format };
	if (!veil_image_cover_size(image->width, image->height, max_width, max_height,
			&scaled.width, &scaled.height)) {
		return 0;
	}
	scaled.stride = scaled.width * 4;
	scaled.data = veil_pixels_alloc((size_t)scaled.stride * (size_t)scaled.height);
	if (scaled.data == NULL) {
		return -ENOMEM;
	}
	int ret = veil_image_scale_into(image, &scaled, filter);
	if (ret < 0) {
		veil_pixels_free(scaled.data);
		return ret;
	}
	scaled.colour = image->colour;
	image->colour = (struct veil_image_colour){0};
	veil_image_finish(image);
	*image = scaled;
	return 0;
}

int veil_image_check_size(uint64_t width, uint64_t height, const char *what, char **message) {
	if (width > VEIL_IMAGE_MAX_SIDE || height > VEIL_IMAGE_MAX_SIDE) {
		veil_message_set(message, "%s is %" PRIu64 "x%" PRIu64 " pixels, larger than veil's "
			"limit of %dx%d", what, width, height, VEIL_IMAGE_MAX_SIDE,
			VEIL_IMAGE_MAX_SIDE);
		return -EFBIG;
	}
	if (width * height > VEIL_IMAGE_MAX_PIXELS) {
		veil_message_set(message, "%s is %" PRIu64 "x%" PRIu64 " pixels, more than veil's "
			"limit of %d pixels", what, width, height, VEIL_IMAGE_MAX_PIXELS);
		return -EFBIG;
	}
	return 0;
}
