#include <errno.h>
#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util/image.h"
#include "util/palette.h"

struct box {
	size_t start, count;
	double sse; /* the sum of squared distances of its pixels to their mean */
};

struct entry {
	uint32_t color;
	size_t count;
};

struct sums {
	double s[3], sq[3];
	size_t n;
};

static void sums_add(struct sums *sums, const uint8_t *p) {
	for (int c = 0; c < 3; c++) {
		sums->s[c] += p[c];
		sums->sq[c] += (double)p[c] * p[c];
	}
	sums->n++;
}

static double sums_sse(const struct sums *sums) {
	if (sums->n == 0) {
		return 0.0;
	}
	double sse = 0.0;
	for (int c = 0; c < 3; c++) {
		sse += sums->sq[c] - sums->s[c] * sums->s[c] / (double)sums->n;
	}
	return sse > 0.0 ? sse : 0.0;
}

static double box_sse(const uint8_t (*pixels)[3], size_t start, size_t count) {
	struct sums sums = {0};
	for (size_t i = start; i < start + count; i++) {
		sums_add(&sums, pixels[i]);
	}
	return sums_sse(&sums);
}

/* qsort has no context argument: one comparator per channel, the others breaking ties. */
static int compare_channels(const uint8_t *a, const uint8_t *b, int first) {
	for (int k = 0; k < 3; k++) {
		int c = (first + k) % 3;
		if (a[c] != b[c]) {
			return a[c] - b[c];
		}
	}
	return 0;
}

static int compare_r(const void *a, const void *b) {
	return compare_channels(a, b, 0);
}

static int compare_g(const void *a, const void *b) {
	return compare_channels(a, b, 1);
}

static int compare_b(const void *a, const void *b) {
	return compare_channels(a, b, 2);
}

static int (*const compare[3])(const void *, const void *) = {
	compare_r, compare_g, compare_b,
};

static int compare_entries(const void *a, const void *b) {
	const struct entry *ea = a, *eb = b;
	if (ea->count != eb->count) {
		return ea->count > eb->count ? -1 : 1;
	}
	return ea->color < eb->color ? -1 : ea->color > eb->color ? 1 : 0;
}

/*
 * The best cut of box along channel c (its pixels sorted by c): the index where the two sides'
 * squared errors add up to the least, cutting only between two values of c. 0 when every pixel
 * has the same value of c.
 */
static size_t best_cut(uint8_t (*pixels)[3], const struct box *box, int c, double *sse) {
	qsort(pixels + box->start, box->count, sizeof(pixels[0]), compare[c]);
	struct sums total = {0}, left = {0};
	for (size_t i = box->start; i < box->start + box->count; i++) {
		sums_add(&total, pixels[i]);
	}
	size_t best = 0;
	*sse = 0.0;
	for (size_t i = box->start + 1; i < box->start + box->count; i++) {
		sums_add(&left, pixels[i - 1]);
		if (pixels[i - 1][c] == pixels[i][c]) {
			continue;
		}
		struct sums right = total;
		for (int k = 0; k < 3; k++) {
			right.s[k] -= left.s[k];
			right.sq[k] -= left.sq[k];
		}
		right.n -= left.n;
		double split = sums_sse(&left) + sums_sse(&right);
		if (best == 0 || split < *sse) {
			best = i;
			*sse = split;
		}
	}
	return best;
}

/* Splits box where its error falls the most, into box and *right. */
static void split(uint8_t (*pixels)[3], struct box *box, struct box *right) {
	int best_channel = -1;
	double best_sse = 0.0;
	for (int c = 0; c < 3; c++) {
		double sse;
		if (best_cut(pixels, box, c, &sse) != 0 && (best_channel < 0 || sse < best_sse)) {
			best_channel = c;
			best_sse = sse;
		}
	}
	/* Sorted again by the channel chosen (the last sort was by blue). */
	double sse;
	size_t at = best_cut(pixels, box, best_channel, &sse);
	size_t end = box->start + box->count;
	*right = (struct box){ .start = at, .count = end - at };
	box->count = at - box->start;
	box->sse = box_sse((const uint8_t (*)[3])pixels, box->start, box->count);
	right->sse = box_sse((const uint8_t (*)[3])pixels, right->start, right->count);
}

int veil_palette_compute(const struct veil_image *image, struct veil_palette *palette) {
	*palette = (struct veil_palette){0};
	size_t total = (size_t)image->width * (size_t)image->height;
	uint8_t (*pixels)[3] = calloc(total > 0 ? total : 1, sizeof(*pixels));
	if (pixels == NULL) {
		return -ENOMEM;
	}
	bool alpha = image->drm_format == DRM_FORMAT_ARGB8888;
	size_t n = 0;
	for (int y = 0; y < image->height; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)image->data +
			(size_t)y * (size_t)image->stride);
		for (int x = 0; x < image->width; x++) {
			uint32_t p = row[x];
			uint32_t a = alpha ? p >> 24 : 255;
			if (a == 0) {
				continue;
			}
			for (int c = 0; c < 3; c++) {
				uint32_t v = (p >> (16 - 8 * c)) & 0xff;
				/* Premultiplied to straight colour. */
				v = a == 255 ? v : (v * 255 + a / 2) / a;
				pixels[n][c] = (uint8_t)(v > 255 ? 255 : v);
			}
			n++;
		}
	}
	if (n == 0) {
		free(pixels);
		return 0;
	}

	struct box boxes[VEIL_PALETTE_SIZE];
	int n_boxes = 1;
	boxes[0] = (struct box){ .start = 0, .count = n };
	boxes[0].sse = box_sse((const uint8_t (*)[3])pixels, 0, n);
	while (n_boxes < VEIL_PALETTE_SIZE) {
		int best = -1;
		for (int i = 0; i < n_boxes; i++) {
			if (boxes[i].sse > 0.0 && (best < 0 || boxes[i].sse > boxes[best].sse)) {
				best = i;
			}
		}
		if (best < 0) {
			break; /* every box holds one colour */
		}
		split(pixels, &boxes[best], &boxes[n_boxes]);
		n_boxes++;
	}

	struct entry entries[VEIL_PALETTE_SIZE];
	for (int i = 0; i < n_boxes; i++) {
		uint64_t sum[3] = {0};
		for (size_t j = boxes[i].start; j < boxes[i].start + boxes[i].count; j++) {
			for (int c = 0; c < 3; c++) {
				sum[c] += pixels[j][c];
			}
		}
		uint32_t color = 0;
		for (int c = 0; c < 3; c++) {
			uint64_t mean = (sum[c] + boxes[i].count / 2) / boxes[i].count;
			color = color << 8 | (uint32_t)mean;
		}
		entries[i] = (struct entry){ .color = color, .count = boxes[i].count };
	}
	qsort(entries, (size_t)n_boxes, sizeof(entries[0]), compare_entries);
	palette->n = n_boxes;
	for (int i = 0; i < n_boxes; i++) {
		palette->colors[i] = entries[i].color;
	}
	free(pixels);
	return 0;
}
