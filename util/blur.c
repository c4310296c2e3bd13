/*
 * Three box blurs a side (util/blur.h). Each box pass is a running sum along a row, or along
 * every column at once a row at a time (the rows stay in the cache); the 6 passes round once
 * each, so a pixel moves at most a few levels from the exact sum.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/blur.h"
#include "util/image.h"

#define PASSES 3

int veil_blur_reduction(double sigma) {
	int reduction = (int)(sigma / 4.0);
	if (reduction < 1) {
		return 1;
	}
	return reduction > 8 ? 8 : reduction;
}

/* The odd widths of the PASSES boxes whose sum of variances is sigma's square. */
static void box_widths(double sigma, int widths[PASSES]) {
	double ideal = sqrt(12.0 * sigma * sigma / PASSES + 1.0);
	int lower = (int)floor(ideal);
	if (lower % 2 == 0) {
		lower--;
	}
	if (lower < 1) {
		lower = 1;
	}
	int upper = lower + 2;
	double m = (12.0 * sigma * sigma - PASSES * lower * lower - 4.0 * PASSES * lower -
		3.0 * PASSES) / (-4.0 * lower - 4.0);
	int n_lower = (int)lround(m);
	for (int i = 0; i < PASSES; i++) {
		widths[i] = i < n_lower ? lower : upper;
	}
}

static inline int clamp_index(int i, int n) {
	return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/* One box of radius r along a row of n pixels: in to out (4 channels each). */
static void blur_row(const uint8_t *in, uint8_t *out, int n, int r) {
	uint32_t width = (uint32_t)(2 * r + 1);
	uint32_t sum[4] = {0};
	for (int i = -r; i <= r; i++) {
		const uint8_t *p = in + 4 * clamp_index(i, n);
		for (int c = 0; c < 4; c++) {
			sum[c] += p[c];
		}
	}
	for (int x = 0; x < n; x++) {
		for (int c = 0; c < 4; c++) {
			out[4 * x + c] = (uint8_t)((sum[c] + width / 2) / width);
		}
		const uint8_t *add = in + 4 * clamp_index(x + r + 1, n);
		const uint8_t *sub = in + 4 * clamp_index(x - r, n);
		for (int c = 0; c < 4; c++) {
			sum[c] += add[c];
			sum[c] -= sub[c];
		}
	}
}

/* One box of radius r down every column of in (rows of 4 * w bytes) into out, a row at a time. */
static void blur_columns(const uint8_t *in, size_t in_stride, uint8_t *out, size_t out_stride,
		int w, int h, int r, uint32_t *sum) {
	uint32_t width = (uint32_t)(2 * r + 1);
	size_t n = 4 * (size_t)w;
	memset(sum, 0, n * sizeof(*sum));
	for (int i = -r; i <= r; i++) {
		const uint8_t *row = in + (size_t)clamp_index(i, h) * in_stride;
		for (size_t k = 0; k < n; k++) {
			sum[k] += row[k];
		}
	}
	for (int y = 0; y < h; y++) {
		uint8_t *dst = out + (size_t)y * out_stride;
		for (size_t k = 0; k < n; k++) {
			dst[k] = (uint8_t)((sum[k] + width / 2) / width);
		}
		const uint8_t *add = in + (size_t)clamp_index(y + r + 1, h) * in_stride;
		const uint8_t *sub = in + (size_t)clamp_index(y - r, h) * in_stride;
		for (size_t k = 0; k < n; k++) {
			sum[k] += add[k];
			sum[k] -= sub[k];
		}
	}
}

int veil_blur_image(struct veil_image *image, double sigma) {
	int w = image->width, h = image->height;
	if (w <= 0 || h <= 0 || sigma <= 0.0) {
		return 0;
	}
	size_t stride = 4 * (size_t)w;
	uint8_t *tmp = malloc(stride * (size_t)h);
	uint32_t *sum = malloc(stride * sizeof(*sum));
	if (tmp == NULL || sum == NULL) {
		free(tmp);
		free(sum);
		return -ENOMEM;
	}
	int widths[PASSES];
	box_widths(sigma, widths);
	uint8_t *data = image->data;
	size_t image_stride = (size_t)image->stride;
	for (int pass = 0; pass < PASSES; pass++) {
		int r = widths[pass] / 2;
		/* Across: the image's rows into tmp. */
		for (int y = 0; y < h; y++) {
			blur_row(data + (size_t)y * image_stride, tmp + (size_t)y * stride, w, r);
		}
		/* Down: tmp back into the image. */
		blur_columns(tmp, stride, data, image_stride, w, h, r, sum);
	}
	free(tmp);
	free(sum);
	return 0;
}

/* v0 carried outwards by k of its difference to v1, within 0 and limit. */
static inline uint8_t extrapolate(uint8_t v0, uint8_t v1, double k, int limit) {
	long v = lround(v0 + k * ((double)v0 - v1));
	return (uint8_t)(v < 0 ? 0 : (v > limit ? limit : v));
}

/* A pixel (premultiplied: no colour above alpha) carried out from p0, away from p1. */
static void extrapolate_pixel(const uint8_t *p0, const uint8_t *p1, double k, uint8_t *out) {
	out[3] = extrapolate(p0[3], p1[3], k, 255);
	for (int c = 0; c < 3; c++) {
		out[c] = extrapolate(p0[c], p1[c], k, out[3]);
	}
}

int veil_blur_image_reduced(struct veil_image *image, double sigma, double reduction) {
	int w = image->width, h = image->height;
	if (reduction <= 1.0 || w < 2 || h < 2 || sigma <= 0.0) {
		return veil_blur_image(image, sigma);
	}
	/* The reduced edge row's centre is (reduction - 1) / 2 full rows in from the edge's. */
	double k = (reduction - 1.0) / (2.0 * reduction);
	int pad = (int)ceil(3.0 * sigma);
	struct veil_image padded = {
		.width = w + 2 * pad, .height = h + 2 * pad, .stride = 4 * (w + 2 * pad),
		.drm_format = image->drm_format,
	};
	padded.data = malloc((size_t)padded.stride * (size_t)padded.height);
	if (padded.data == NULL) {
		return -ENOMEM;
	}
	uint8_t *pd = padded.data;
	const uint8_t *id = image->data;
	size_t ps = (size_t)padded.stride, is = (size_t)image->stride;
	for (int y = 0; y < h; y++) {
		memcpy(pd + (size_t)(y + pad) * ps + 4 * (size_t)pad, id + (size_t)y * is,
			4 * (size_t)w);
	}
	/* The top and bottom: each column's estimated edge, repeated. */
	uint8_t *top = pd + (size_t)(pad - 1) * ps, *bottom = pd + (size_t)(pad + h) * ps;
	for (int x = pad; x < pad + w; x++) {
		extrapolate_pixel(top + ps + 4 * x, top + 2 * ps + 4 * x, k, top + 4 * x);
		extrapolate_pixel(bottom - ps + 4 * x, bottom - 2 * ps + 4 * x, k, bottom + 4 * x);
	}
	for (int y = 0; y < pad - 1; y++) {
		memcpy(pd + (size_t)y * ps + 4 * pad, top + 4 * pad, 4 * (size_t)w);
		memcpy(bottom + (size_t)(y + 1) * ps + 4 * pad, bottom + 4 * pad, 4 * (size_t)w);
	}
	/* The sides, over every row (the corners from the rows above and below). */
	for (int y = 0; y < padded.height; y++) {
		uint8_t *row = pd + (size_t)y * ps;
		uint8_t left[4], right[4];
		extrapolate_pixel(row + 4 * pad, row + 4 * (pad + 1), k, left);
		extrapolate_pixel(row + 4 * (pad + w - 1), row + 4 * (pad + w - 2), k, right);
		for (int x = 0; x < pad; x++) {
			memcpy(row + 4 * x, left, 4);
			memcpy(row + 4 * (pad + w + x), right, 4);
		}
	}
	int ret = veil_blur_image(&padded, sigma);
	if (ret == 0) {
		for (int y = 0; y < h; y++) {
			memcpy((uint8_t *)image->data + (size_t)y * is,
				pd + (size_t)(y + pad) * ps + 4 * (size_t)pad, 4 * (size_t)w);
		}
	}
	free(padded.data);
	return ret;
}
