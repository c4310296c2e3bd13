/*
 * xray's picture, on a worker: each wallpaper node's frame read back already reduced to about
 * the size it takes in the blurred picture (scene/frame_read.c, which maps dmabufs and converts
 * YUV), drawn where the node is with pixman's bilinear filter over the colour, then blurred,
 * and for a renderer that rounds source boxes scaled up to the output's logical size.
 */
#include <errno.h>
#include <math.h>
#include <drm_fourcc.h>
#include <pixman.h>
#include <stdlib.h>
#include <string.h>
#include "module/xray/xray_picture.h"
#include "util/blur.h"
#include "util/image.h"
#include "util/message.h"
#include "util/pixels.h"

/* Draws one piece into dst (cs: the picture's pixels per logical pixel). */
static int draw_piece(const struct veil_xray_piece *piece, pixman_image_t *dst, double cs,
		char **message) {
	const struct veil_frame_read *read = &piece->read;
	struct wlr_fbox src = piece->src;
	if (src.width <= 0 || src.height <= 0) {
		src = (struct wlr_fbox){ .width = read->width, .height = read->height };
	}
	double dx = piece->x * cs, dy = piece->y * cs;
	double dw = piece->width * cs, dh = piece->height * cs;
	if (dw <= 0 || dh <= 0) {
		return 0;
	}
	/* Read no more than twice what the piece takes here: the frame's own shrink is better. */
	double k = fmin(1.0, 2.0 * fmax(dw / src.width, dh / src.height));
	int max_width = (int)ceil(read->width * k), max_height = (int)ceil(read->height * k);
	struct veil_image image = {0};
	int ret = veil_frame_read_pixels(read, max_width, max_height, &image, message);
	if (ret < 0) {
		return ret;
	}
	double fx = (double)image.width / read->width, fy = (double)image.height / read->height;
	pixman_image_t *src_image = pixman_image_create_bits_no_clear(
		image.drm_format == DRM_FORMAT_XRGB8888 ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8,
		image.width, image.height, image.data, image.stride);
	if (src_image == NULL) {
		veil_image_finish(&image);
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	/* The picture's (X, Y) samples the read frame at sx * X + tx, sy * Y + ty. */
	double sx = src.width * fx / dw, sy = src.height * fy / dh;
	pixman_transform_t transform;
	pixman_transform_init_identity(&transform);
	transform.matrix[0][0] = pixman_double_to_fixed(sx);
	transform.matrix[0][2] = pixman_double_to_fixed(src.x * fx - dx * sx);
	transform.matrix[1][1] = pixman_double_to_fixed(sy);
	transform.matrix[1][2] = pixman_double_to_fixed(src.y * fy - dy * sy);
	pixman_image_set_transform(src_image, &transform);
	pixman_image_set_filter(src_image, PIXMAN_FILTER_BILINEAR, NULL, 0);
	pixman_image_set_repeat(src_image, PIXMAN_REPEAT_PAD);
	int x0 = (int)lround(dx), y0 = (int)lround(dy);
	int x1 = (int)lround(dx + dw), y1 = (int)lround(dy + dh);
	pixman_image_composite32(PIXMAN_OP_OVER, src_image, NULL, dst, x0, y0, 0, 0, x0, y0,
		x1 - x0, y1 - y0);
	pixman_image_unref(src_image);
	veil_image_finish(&image);
	return 0;
}

static bool opaque(const struct veil_image *image) {
	for (int y = 0; y < image->height; y++) {
		const uint8_t *row = (const uint8_t *)image->data + (size_t)y * image->stride;
		for (int x = 0; x < image->width; x++) {
			if (row[4 * x + 3] != 0xff) {
				return false;
			}
		}
	}
	return true;
}

/* A width x height picture with VEIL_XRAY_MARGIN pixels around it, into out (not cleared). */
static int alloc_with_margin(int width, int height, uint32_t drm_format,
		struct veil_image *out, char **message) {
	const int m = VEIL_XRAY_MARGIN;
	*out = (struct veil_image){
		.width = width + 2 * m, .height = height + 2 * m, .stride = 4 * (width + 2 * m),
		.drm_format = drm_format,
	};
	out->data = veil_pixels_alloc((size_t)out->stride * (size_t)out->height);
	if (out->data == NULL) {
		veil_message_set(message, "out of memory for a %dx%d blurred wallpaper",
			width, height);
		return -ENOMEM;
	}
	return 0;
}

/* The margin of out repeats the edge of the picture inside it. */
static void fill_margin(struct veil_image *out) {
	const int m = VEIL_XRAY_MARGIN;
	int w = out->width - 2 * m, h = out->height - 2 * m;
	for (int y = 0; y < out->height; y++) {
		int from = y < m ? m : (y >= m + h ? m + h - 1 : y);
		const uint32_t *src = (const uint32_t *)((const uint8_t *)out->data +
			(size_t)from * out->stride);
		uint32_t *dst = (uint32_t *)((uint8_t *)out->data + (size_t)y * out->stride);
		if (from != y) {
			memcpy(dst + m, src + m, 4 * (size_t)w);
		}
		for (int x = 0; x < m; x++) {
			dst[x] = src[m];
			dst[m + w + x] = src[m + w - 1];
		}
	}
}

/* image with VEIL_XRAY_MARGIN pixels around it that repeat its edge, into out. */
static int add_margin(const struct veil_image *image, struct veil_image *out, char **message) {
	const int m = VEIL_XRAY_MARGIN;
	int ret = alloc_with_margin(image->width, image->height, image->drm_format, out, message);
	if (ret < 0) {
		return ret;
	}
	for (int y = 0; y < image->height; y++) {
		memcpy((uint8_t *)out->data + (size_t)(y + m) * out->stride + 4 * m,
			(const uint8_t *)image->data + (size_t)y * image->stride,
			4 * (size_t)image->width);
	}
	fill_margin(out);
	return 0;
}

/*
 * image scaled up to width x height with pixman's bilinear filter (a pixel's centre samples
 * the image where a renderer's scaled source box would) and the margin around it, into out.
 */
static int scale_up(const struct veil_image *image, int width, int height,
		struct veil_image *out, char **message) {
	const int m = VEIL_XRAY_MARGIN;
	int ret = veil_image_check_size((uint64_t)width, (uint64_t)height,
		"the blurred wallpaper", message);
	if (ret < 0) {
		return ret;
	}
	ret = alloc_with_margin(width, height, image->drm_format, out, message);
	if (ret < 0) {
		return ret;
	}
	pixman_image_t *src = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8, image->width,
		image->height, image->data, image->stride);
	pixman_image_t *dst = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8, out->width,
		out->height, out->data, out->stride);
	if (src == NULL || dst == NULL) {
		if (src != NULL) {
			pixman_image_unref(src);
		}
		if (dst != NULL) {
			pixman_image_unref(dst);
		}
		veil_image_finish(out);
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	pixman_transform_t transform;
	pixman_transform_init_scale(&transform,
		pixman_double_to_fixed((double)image->width / width),
		pixman_double_to_fixed((double)image->height / height));
	pixman_image_set_transform(src, &transform);
	pixman_image_set_filter(src, PIXMAN_FILTER_BILINEAR, NULL, 0);
	pixman_image_set_repeat(src, PIXMAN_REPEAT_PAD);
	pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, 0, 0, 0, 0, m, m, width, height);
	pixman_image_unref(src);
	pixman_image_unref(dst);
	fill_margin(out);
	return 0;
}

int veil_xray_picture_make(const struct veil_xray_request *request, struct veil_image *out,
		char **message) {
	struct veil_image image = {
		.width = request->width,
		.height = request->height,
		.stride = 4 * request->width,
		.drm_format = DRM_FORMAT_ARGB8888,
	};
	int ret = veil_image_check_size((uint64_t)image.width, (uint64_t)image.height,
		"the blurred wallpaper", message);
	if (ret < 0) {
		return ret;
	}
	image.data = veil_pixels_alloc((size_t)image.stride * (size_t)image.height);
	if (image.data == NULL) {
		veil_message_set(message, "out of memory for a %dx%d blurred wallpaper",
			image.width, image.height);
		return -ENOMEM;
	}
	memset(image.data, 0, (size_t)image.stride * (size_t)image.height);
	pixman_image_t *dst = pixman_image_create_bits_no_clear(PIXMAN_a8r8g8b8, image.width,
		image.height, image.data, image.stride);
	if (dst == NULL) {
		veil_image_finish(&image);
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	double cs = image.width / request->logical_width;
	if (request->fill) {
		uint32_t c = request->color;
		pixman_color_t color = {
			.red = (uint16_t)(((c >> 16) & 0xff) * 0x101),
			.green = (uint16_t)(((c >> 8) & 0xff) * 0x101),
			.blue = (uint16_t)((c & 0xff) * 0x101),
			.alpha = 0xffff,
		};
		pixman_rectangle16_t rect = {
			.width = (uint16_t)fmin(image.width, ceil(request->fill_width * cs)),
			.height = (uint16_t)fmin(image.height, ceil(request->fill_height * cs)),
		};
		pixman_image_fill_rectangles(PIXMAN_OP_SRC, dst, &color, 1, &rect);
	}
	for (int i = 0; i < request->n_pieces; i++) {
		ret = draw_piece(&request->pieces[i], dst, cs, message);
		if (ret < 0) {
			pixman_image_unref(dst);
			veil_image_finish(&image);
			return ret;
		}
	}
	pixman_image_unref(dst);
	ret = veil_blur_image_reduced(&image, request->sigma, request->reduction);
	if (ret < 0) {
		veil_image_finish(&image);
		veil_message_set(message, "out of memory to blur the wallpaper");
		return ret;
	}
	if (opaque(&image)) {
		image.drm_format = DRM_FORMAT_XRGB8888;
	}
	if (request->full_width > 0 && request->full_height > 0) {
		ret = scale_up(&image, request->full_width, request->full_height, out, message);
	} else {
		ret = add_margin(&image, out, message);
	}
	veil_image_finish(&image);
	return ret;
}
