#include <errno.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/types/wlr_buffer.h>
#include "scene/dmabuf_buffer.h"
#include "scene/frame_read.h"
#include "scene/sample_buffer.h"
#include "util/image.h"
#include "util/message.h"
#include "util/pixels.h"

/* ---- Formats ---- */

/* A packed RGB format: where each channel is in the little-endian word of a pixel. */
struct packed_format {
	uint32_t format;
	int bytes; /* 2 or 4 */
	int r_shift, g_shift, b_shift, a_shift; /* a_shift < 0: no alpha */
	int r_bits, g_bits, b_bits;
};

static const struct packed_format packed_formats[] = {
	{ DRM_FORMAT_XRGB8888, 4, 16, 8, 0, -1, 8, 8, 8 },
	{ DRM_FORMAT_ARGB8888, 4, 16, 8, 0, 24, 8, 8, 8 },
	{ DRM_FORMAT_XBGR8888, 4, 0, 8, 16, -1, 8, 8, 8 },
	{ DRM_FORMAT_ABGR8888, 4, 0, 8, 16, 24, 8, 8, 8 },
	{ DRM_FORMAT_BGRX8888, 4, 8, 16, 24, -1, 8, 8, 8 },
	{ DRM_FORMAT_RGBX8888, 4, 24, 16, 8, -1, 8, 8, 8 },
	{ DRM_FORMAT_XRGB2101010, 4, 20, 10, 0, -1, 10, 10, 10 },
	{ DRM_FORMAT_XBGR2101010, 4, 0, 10, 20, -1, 10, 10, 10 },
	{ DRM_FORMAT_RGB565, 2, 11, 5, 0, -1, 5, 6, 5 },
	{ DRM_FORMAT_BGR565, 2, 0, 5, 11, -1, 5, 6, 5 },
};

static const struct packed_format *find_packed(uint32_t format) {
	for (size_t i = 0; i < sizeof(packed_formats) / sizeof(packed_formats[0]); i++) {
		if (packed_formats[i].format == format) {
			return &packed_formats[i];
		}
	}
	return NULL;
}

static bool is_yuv(uint32_t format) {
	return format == DRM_FORMAT_NV12 || format == DRM_FORMAT_YUV420 ||
		format == DRM_FORMAT_P010;
}

static int n_planes(uint32_t format) {
	switch (format) {
	case DRM_FORMAT_NV12:
	case DRM_FORMAT_P010:
		return 2;
	case DRM_FORMAT_YUV420:
		return 3;
	}
	return 1;
}

static bool has_alpha(uint32_t format) {
	const struct packed_format *packed = find_packed(format);
	return packed != NULL && packed->a_shift >= 0;
}

/* ---- Taking a frame (compositor thread) ---- */

int veil_frame_read_take(struct veil_frame_read *read, struct wlr_buffer *buffer,
		char **message) {
	*read = (struct veil_frame_read){ .width = buffer->width, .height = buffer->height };
	void *data;
	uint32_t format;
	size_t stride;
	/*
	 * veil's frames keep their data pointer for their whole life (a still's pixels, a sample's
	 * mapping): the access is only to learn it. Cheap: nothing is copied or converted here.
	 */
	if (wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data,
			&format, &stride)) {
		wlr_buffer_end_data_ptr_access(buffer);
		if (find_packed(format) == NULL) {
			goto unsupported;
		}
		read->data = data;
		read->stride = stride;
		read->format = format;
	} else if (wlr_buffer_get_dmabuf(buffer, &read->attribs)) {
		read->format = read->attribs.format;
		if (read->attribs.modifier != DRM_FORMAT_MOD_LINEAR) {
			veil_message_set(message, "the frame is in a GPU's own layout (modifier "
				"0x%llx), which veil cannot read back",
				(unsigned long long)read->attribs.modifier);
			return -ENOTSUP;
		}
		if ((find_packed(read->format) == NULL && !is_yuv(read->format)) ||
				read->attribs.n_planes < n_planes(read->format)) {
			goto unsupported;
		}
		read->dmabuf = true;
		struct veil_colour_space space = {0};
		bool yuv;
		if (!veil_dmabuf_buffer_get_colour_space(buffer, &space, &yuv) &&
				!veil_sample_buffer_get_colour_space(buffer, &space, &yuv)) {
			/* Unknown: BT.601, limited, as a GPU takes YUV without a word of it. */
			space = (struct veil_colour_space){0};
		}
		read->matrix = space.matrix;
		read->full_range = space.full_range;
	} else {
		veil_message_set(message, "the frame is neither in memory nor a dmabuf");
		return -ENOTSUP;
	}
	if (read->width <= 0 || read->height <= 0) {
		veil_message_set(message, "the frame is empty");
		return -ENOTSUP;
	}
	read->buffer = wlr_buffer_lock(buffer);
	return 0;

unsupported:
	veil_message_set(message, "the frame's format 0x%08x is not one veil reads back",
		(unsigned)read->format);
	return -ENOTSUP;
}

void veil_frame_read_release(struct veil_frame_read *read) {
	if (read->buffer != NULL) {
		wlr_buffer_unlock(read->buffer);
	}
	*read = (struct veil_frame_read){0};
}

/* ---- Reading it (a worker) ---- */

void veil_frame_fit_size(int width, int height, int max_width, int max_height, int *out_width,
		int *out_height) {
	double scale = 1.0;
	if (max_width > 0 && width > max_width) {
		scale = (double)max_width / width;
	}
	if (max_height > 0 && height * scale > max_height) {
		scale = (double)max_height / height;
	}
	int w = (int)(width * scale + 0.5), h = (int)(height * scale + 0.5);
	*out_width = w < 1 ? 1 : max_width > 0 && w > max_width ? max_width : w;
	*out_height = h < 1 ? 1 : max_height > 0 && h > max_height ? max_height : h;
}

/* A dmabuf's planes mapped for reading. */
struct planes {
	const uint8_t *plane[WLR_DMABUF_MAX_PLANES];
	size_t stride[WLR_DMABUF_MAX_PLANES];
	void *map[WLR_DMABUF_MAX_PLANES];
	size_t map_size[WLR_DMABUF_MAX_PLANES];
	int n;
};

static void sync_dmabuf(int fd, uint64_t flags) {
	/* A memfd standing in for a dmabuf (the test renderer's) has no such ioctl: no matter. */
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_READ };
	while (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0 && errno == EINTR) {
	}
}

static int plane_rows(uint32_t format, int plane, int height) {
	return plane > 0 && is_yuv(format) ? (height + 1) / 2 : height;
}

static size_t plane_row_bytes(uint32_t format, int plane, int width) {
	const struct packed_format *packed = find_packed(format);
	if (packed != NULL) {
		return (size_t)width * (size_t)packed->bytes;
	}
	int half = (width + 1) / 2;
	switch (format) {
	case DRM_FORMAT_NV12:
		return plane == 0 ? (size_t)width : (size_t)half * 2;
	case DRM_FORMAT_P010:
		return plane == 0 ? (size_t)width * 2 : (size_t)half * 4;
	case DRM_FORMAT_YUV420:
		return plane == 0 ? (size_t)width : (size_t)half;
	}
	return 0;
}

static void finish_planes(struct planes *planes, const struct wlr_dmabuf_attributes *attribs) {
	for (int i = 0; i < planes->n; i++) {
		if (planes->map[i] != NULL) {
			sync_dmabuf(attribs->fd[i], DMA_BUF_SYNC_END);
			munmap(planes->map[i], planes->map_size[i]);
		}
	}
}

static int map_planes(const struct veil_frame_read *read, struct planes *planes,
		char **message) {
	const struct wlr_dmabuf_attributes *attribs = &read->attribs;
	*planes = (struct planes){ .n = n_planes(read->format) };
	for (int i = 0; i < planes->n; i++) {
		off_t end = lseek(attribs->fd[i], 0, SEEK_END);
		size_t rows = (size_t)plane_rows(read->format, i, read->height);
		size_t need = (size_t)attribs->offset[i] + (rows - 1) * attribs->stride[i] +
			plane_row_bytes(read->format, i, read->width);
		if (end < 0 || (uint64_t)end < need ||
				attribs->stride[i] < plane_row_bytes(read->format, i, read->width)) {
			veil_message_set(message, "plane %d of the frame is smaller than its size "
				"says", i);
			finish_planes(planes, attribs);
			return -EPROTO;
		}
		void *map = mmap(NULL, (size_t)end, PROT_READ, MAP_SHARED, attribs->fd[i], 0);
		if (map == MAP_FAILED) {
			int err = errno;
			veil_message_set(message, "cannot map the frame: %s", strerror(err));
			finish_planes(planes, attribs);
			return -err;
		}
		planes->map[i] = map;
		planes->map_size[i] = (size_t)end;
		sync_dmabuf(attribs->fd[i], DMA_BUF_SYNC_START);
		planes->plane[i] = (const uint8_t *)map + attribs->offset[i];
		planes->stride[i] = attribs->stride[i];
	}
	return 0;
}

static uint8_t expand(uint32_t value, int bits) {
	uint32_t max = (1u << bits) - 1;
	return (uint8_t)((value * 255 + max / 2) / max);
}

static void convert_packed_row(const struct packed_format *packed, const uint8_t *src,
		uint32_t *dst, int width) {
	uint32_t r_mask = (1u << packed->r_bits) - 1, g_mask = (1u << packed->g_bits) - 1;
	uint32_t b_mask = (1u << packed->b_bits) - 1;
	for (int x = 0; x < width; x++) {
		uint32_t w;
		if (packed->bytes == 4) {
			w = (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 |
				(uint32_t)src[3] << 24;
		} else {
			w = (uint32_t)src[0] | (uint32_t)src[1] << 8;
		}
		src += packed->bytes;
		uint32_t r = expand((w >> packed->r_shift) & r_mask, packed->r_bits);
		uint32_t g = expand((w >> packed->g_shift) & g_mask, packed->g_bits);
		uint32_t b = expand((w >> packed->b_shift) & b_mask, packed->b_bits);
		uint32_t a = packed->a_shift >= 0 ? (w >> packed->a_shift) & 0xff : 0xff;
		dst[x] = a << 24 | r << 16 | g << 8 | b;
	}
}

/* YUV to R'G'B': the matrix's luma weights and the range of the codes. */
struct yuv_coeffs {
	double y_offset, y_scale, c_scale;
	double rv, gu, gv, bu;
};

static struct yuv_coeffs yuv_coeffs(enum veil_yuv_matrix matrix, bool full_range, int bits) {
	double kr = 0.299, kb = 0.114;
	if (matrix == VEIL_YUV_BT709) {
		kr = 0.2126;
		kb = 0.0722;
	} else if (matrix == VEIL_YUV_BT2020) {
		kr = 0.2627;
		kb = 0.0593;
	}
	double kg = 1.0 - kr - kb;
	double unit = (double)(1 << (bits - 8));
	struct yuv_coeffs c = {
		.y_offset = full_range ? 0.0 : 16.0 * unit,
		.y_scale = full_range ? 255.0 / (255.0 * unit) : 255.0 / (219.0 * unit),
		.c_scale = full_range ? 255.0 / (255.0 * unit) : 255.0 / (224.0 * unit),
		.rv = 2.0 * (1.0 - kr),
		.bu = 2.0 * (1.0 - kb),
	};
	c.gu = -c.bu * kb / kg;
	c.gv = -c.rv * kr / kg;
	return c;
}

static uint32_t clamp8(double v) {
	return v <= 0.0 ? 0 : v >= 255.0 ? 255 : (uint32_t)(v + 0.5);
}

static uint32_t yuv_pixel(const struct yuv_coeffs *c, double y, double u, double v,
		double c_mid) {
	double yy = (y - c->y_offset) * c->y_scale;
	double cb = (u - c_mid) * c->c_scale, cr = (v - c_mid) * c->c_scale;
	uint32_t r = clamp8(yy + c->rv * cr);
	uint32_t g = clamp8(yy + c->gu * cb + c->gv * cr);
	uint32_t b = clamp8(yy + c->bu * cb);
	return 0xffu << 24 | r << 16 | g << 8 | b;
}

static uint16_t read16(const uint8_t *p) {
	return (uint16_t)(p[0] | p[1] << 8);
}

static void convert_yuv_row(const struct veil_frame_read *read, const struct planes *planes,
		const struct yuv_coeffs *c, int y, uint32_t *dst) {
	const uint8_t *luma = planes->plane[0] + (size_t)y * planes->stride[0];
	size_t crow = (size_t)(y / 2);
	for (int x = 0; x < read->width; x++) {
		size_t cx = (size_t)(x / 2);
		double yv, u, v;
		switch (read->format) {
		case DRM_FORMAT_NV12: {
			const uint8_t *uv = planes->plane[1] + crow * planes->stride[1] + cx * 2;
			dst[x] = yuv_pixel(c, luma[x], uv[0], uv[1], 128.0);
			continue;
		}
		case DRM_FORMAT_YUV420:
			u = planes->plane[1][crow * planes->stride[1] + cx];
			v = planes->plane[2][crow * planes->stride[2] + cx];
			dst[x] = yuv_pixel(c, luma[x], u, v, 128.0);
			continue;
		default: /* P010: ten bits at the top of each 16-bit word */
			yv = read16(luma + (size_t)x * 2) >> 6;
			u = read16(planes->plane[1] + crow * planes->stride[1] + cx * 4) >> 6;
			v = read16(planes->plane[1] + crow * planes->stride[1] + cx * 4 + 2) >> 6;
			dst[x] = yuv_pixel(c, yv, u, v, 512.0);
			continue;
		}
	}
}

/* One pixel, as convert_frame() gives it. */
static uint32_t read_pixel(const struct veil_frame_read *read, const struct planes *planes,
		const struct yuv_coeffs *c, int x, int y) {
	const struct packed_format *packed = find_packed(read->format);
	uint32_t pixel;
	if (packed != NULL) {
		convert_packed_row(packed, planes->plane[0] + (size_t)y * planes->stride[0] +
			(size_t)x * (size_t)packed->bytes, &pixel, 1);
		return pixel;
	}
	const uint8_t *luma = planes->plane[0] + (size_t)y * planes->stride[0];
	size_t crow = (size_t)(y / 2), cx = (size_t)(x / 2);
	switch (read->format) {
	case DRM_FORMAT_NV12: {
		const uint8_t *uv = planes->plane[1] + crow * planes->stride[1] + cx * 2;
		return yuv_pixel(c, luma[x], uv[0], uv[1], 128.0);
	}
	case DRM_FORMAT_YUV420:
		return yuv_pixel(c, luma[x], planes->plane[1][crow * planes->stride[1] + cx],
			planes->plane[2][crow * planes->stride[2] + cx], 128.0);
	default: { /* P010 */
		const uint8_t *uv = planes->plane[1] + crow * planes->stride[1] + cx * 4;
		return yuv_pixel(c, read16(luma + (size_t)x * 2) >> 6, read16(uv) >> 6,
			read16(uv + 2) >> 6, 512.0);
	}
	}
}

int veil_frame_read_sample(const struct veil_frame_read *read, int max_width, int max_height,
		struct veil_image *out, char **message) {
	*out = (struct veil_image){0};
	struct planes planes = {0};
	if (read->dmabuf) {
		int ret = map_planes(read, &planes, message);
		if (ret < 0) {
			return ret;
		}
	} else {
		planes.plane[0] = read->data;
		planes.stride[0] = read->stride;
	}
	int width, height;
	veil_frame_fit_size(read->width, read->height, max_width, max_height, &width, &height);
	*out = (struct veil_image){
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = has_alpha(read->format) ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888,
	};
	out->data = veil_pixels_alloc((size_t)out->stride * (size_t)height);
	if (out->data == NULL) {
		veil_message_set(message, "out of memory");
		if (read->dmabuf) {
			finish_planes(&planes, &read->attribs);
		}
		return -ENOMEM;
	}
	struct yuv_coeffs c = yuv_coeffs(read->matrix, read->full_range,
		read->format == DRM_FORMAT_P010 ? 10 : 8);
	for (int y = 0; y < height; y++) {
		/* The pixel under each sample's centre. */
		int sy = (int)(((int64_t)y * 2 + 1) * read->height / (2 * (int64_t)height));
		uint32_t *row = (uint32_t *)((uint8_t *)out->data + (size_t)y * out->stride);
		for (int x = 0; x < width; x++) {
			int sx = (int)(((int64_t)x * 2 + 1) * read->width / (2 * (int64_t)width));
			row[x] = read_pixel(read, &planes, &c, sx, sy);
		}
	}
	if (read->dmabuf) {
		finish_planes(&planes, &read->attribs);
	}
	return 0;
}

/* The whole frame as XRGB8888 or ARGB8888, in *image (its own pixels). */
static int convert_frame(const struct veil_frame_read *read, const struct planes *planes,
		struct veil_image *image, char **message) {
	int ret = veil_image_check_size((uint64_t)read->width, (uint64_t)read->height, "the frame",
		message);
	if (ret < 0) {
		return ret;
	}
	*image = (struct veil_image){
		.width = read->width,
		.height = read->height,
		.stride = read->width * 4,
		.drm_format = has_alpha(read->format) ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888,
	};
	image->data = veil_pixels_alloc((size_t)image->stride * (size_t)image->height);
	if (image->data == NULL) {
		veil_message_set(message, "out of memory for a %dx%d frame", read->width,
			read->height);
		return -ENOMEM;
	}
	const struct packed_format *packed = find_packed(read->format);
	struct yuv_coeffs c = yuv_coeffs(read->matrix, read->full_range,
		read->format == DRM_FORMAT_P010 ? 10 : 8);
	for (int y = 0; y < read->height; y++) {
		uint32_t *dst = (uint32_t *)((uint8_t *)image->data + (size_t)y * image->stride);
		if (packed != NULL) {
			convert_packed_row(packed, planes->plane[0] + (size_t)y * planes->stride[0],
				dst, read->width);
		} else {
			convert_yuv_row(read, planes, &c, y, dst);
		}
	}
	return 0;
}

int veil_frame_read_pixels(const struct veil_frame_read *read, int max_width, int max_height,
		struct veil_image *out, char **message) {
	*out = (struct veil_image){0};
	struct planes planes = {0};
	struct veil_image full = {0};
	bool own_full = false;
	int ret;
	if (read->dmabuf) {
		ret = map_planes(read, &planes, message);
		if (ret < 0) {
			return ret;
		}
	} else {
		planes.plane[0] = read->data;
		planes.stride[0] = read->stride;
	}

	bool native = read->format == DRM_FORMAT_XRGB8888 || read->format == DRM_FORMAT_ARGB8888;
	if (native && !read->dmabuf) {
		/* Read where it is: scaled from there, or copied once below. */
		full = (struct veil_image){
			.width = read->width,
			.height = read->height,
			.stride = (int)read->stride,
			.drm_format = read->format,
			.data = (void *)read->data,
		};
	} else {
		ret = convert_frame(read, &planes, &full, message);
		if (ret < 0) {
			goto out;
		}
		own_full = true;
	}

	int width, height;
	veil_frame_fit_size(read->width, read->height, max_width, max_height, &width, &height);
	if (width == read->width && height == read->height && own_full) {
		*out = full;
		own_full = false;
		ret = 0;
		goto out;
	}
	struct veil_image dst = {
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = full.drm_format,
	};
	dst.data = veil_pixels_alloc((size_t)dst.stride * (size_t)height);
	if (dst.data == NULL) {
		veil_message_set(message, "out of memory for a %dx%d picture", width, height);
		ret = -ENOMEM;
		goto out;
	}
	if (width == read->width && height == read->height) {
		for (int y = 0; y < height; y++) {
			memcpy((uint8_t *)dst.data + (size_t)y * dst.stride,
				(const uint8_t *)full.data + (size_t)y * full.stride,
				(size_t)width * 4);
		}
		ret = 0;
	} else {
		ret = veil_image_scale_into(&full, &dst, VEIL_IMAGE_FILTER_LINEAR);
	}
	if (ret < 0) {
		veil_pixels_free(dst.data);
		veil_message_set(message, "out of memory to scale the frame");
		goto out;
	}
	*out = dst;

out:
	if (own_full) {
		veil_image_finish(&full);
	}
	if (read->dmabuf) {
		finish_planes(&planes, &read->attribs);
	}
	return ret;
}
