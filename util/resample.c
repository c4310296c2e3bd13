#include <errno.h>
#include <math.h>
#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "util/resample.h"

/*
 * Weights are fixed point with this many fraction bits (they sum to 1 << WEIGHT_BITS), the row
 * between the two passes with ROW_BITS: 255 << ROW_BITS, times a weight, times the lobes' sum of
 * absolute values (under 1.3), stays far inside 32 bits.
 */
#define WEIGHT_BITS 14
#define ROW_BITS 6
#define LOBES 3

/* One axis: for each destination index, the first source index and n weights from there. */
struct taps {
	int n;
	int *first;
	int32_t *weights; /* n per destination index */
};

static double sinc(double x) {
	if (x == 0.0) {
		return 1.0;
	}
	x *= 3.14159265358979323846;
	return sin(x) / x;
}

static double lanczos3(double x) {
	return x > -LOBES && x < LOBES ? sinc(x) * sinc(x / LOBES) : 0.0;
}

static void taps_finish(struct taps *taps) {
	free(taps->first);
	free(taps->weights);
}

/*
 * The taps of a src -> dst reduction (dst <= src): destination pixel i's centre is at
 * (i + 0.5) * scale in source pixels, and the kernel is stretched by the scale, so it is 2 * 3
 * destination pixels wide. Near an edge the kernel is cut to the picture and the taps left are
 * normalised again (repeating the edge pixel instead would weigh it several times over).
 */
static bool taps_init(struct taps *taps, int src, int dst) {
	double scale = (double)src / dst;
	double support = LOBES * scale;
	int n = (int)ceil(2 * support) + 1;
	if (n > src) {
		n = src;
	}
	taps->n = n;
	taps->first = calloc((size_t)dst, sizeof(*taps->first));
	taps->weights = calloc((size_t)dst * (size_t)n, sizeof(*taps->weights));
	double *w = calloc((size_t)n, sizeof(*w));
	if (taps->first == NULL || taps->weights == NULL || w == NULL) {
		free(w);
		taps_finish(taps);
		return false;
	}
	for (int i = 0; i < dst; i++) {
		double centre = (i + 0.5) * scale - 0.5;
		int lo = (int)floor(centre - support) + 1;
		int hi = (int)floor(centre + support);
		int first = lo < 0 ? 0 : lo;
		if (first > src - n) {
			first = src - n;
		}
		for (int k = 0; k < n; k++) {
			w[k] = 0.0;
		}
		double total = 0.0;
		for (int j = lo < first ? first : lo; j <= hi && j < first + n; j++) {
			double v = lanczos3((j - centre) / scale);
			w[j - first] += v;
			total += v;
		}
		/* Normalised to sum to one exactly; what rounding leaves goes to the largest. */
		int32_t *out = taps->weights + (size_t)i * (size_t)n;
		int32_t sum = 0;
		int largest = 0;
		for (int k = 0; k < n; k++) {
			out[k] = (int32_t)lrint(w[k] / total * (1 << WEIGHT_BITS));
			sum += out[k];
			if (out[k] > out[largest]) {
				largest = k;
			}
		}
		out[largest] += (1 << WEIGHT_BITS) - sum;
		taps->first[i] = first;
	}
	free(w);
	return true;
}

static inline uint8_t clamp_u8(int32_t v) {
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

int veil_resample_lanczos3(const struct veil_image *src, const struct veil_image *dst) {
	if (dst->width > src->width || dst->height > src->height || dst->width <= 0 ||
			dst->height <= 0) {
		return -EINVAL;
	}
	bool opaque = src->drm_format == DRM_FORMAT_XRGB8888;
	int ret = -ENOMEM;
	struct taps down = {0}, across = {0};
	int16_t *row = NULL;
	int32_t *acc = NULL;
	if (!taps_init(&down, src->height, dst->height)) {
		return -ENOMEM;
	}
	if (!taps_init(&across, src->width, dst->width)) {
		goto out;
	}
	/*
	 * One destination row at a time: down first, over whole source rows (plain multiply-adds
	 * the compiler vectorises) into one row of src->width pixels kept with ROW_BITS more bits
	 * (one rounding at the end, not two), then across it. Nothing picture-sized is allocated.
	 */
	size_t row_len = (size_t)src->width * 4;
	row = malloc(row_len * sizeof(*row));
	acc = malloc(row_len * sizeof(*acc));
	if (row == NULL || acc == NULL) {
		goto out;
	}
	const int shift = WEIGHT_BITS - ROW_BITS;
	const int bits = WEIGHT_BITS + ROW_BITS;
	const int32_t half = 1 << (bits - 1);
	for (int y = 0; y < dst->height; y++) {
		for (size_t i = 0; i < row_len; i++) {
			acc[i] = 1 << (shift - 1);
		}
		const int32_t *w = down.weights + (size_t)y * (size_t)down.n;
		for (int k = 0; k < down.n; k++) {
			const uint8_t *line = (const uint8_t *)src->data +
				(size_t)(down.first[y] + k) * (size_t)src->stride;
			int32_t wk = w[k];
			for (size_t i = 0; i < row_len; i++) {
				acc[i] += wk * line[i];
			}
		}
		for (size_t i = 0; i < row_len; i++) {
			row[i] = (int16_t)(acc[i] >> shift);
		}
		uint8_t *out = (uint8_t *)dst->data + (size_t)y * (size_t)dst->stride;
		for (int x = 0; x < dst->width; x++) {
			const int32_t *wx = across.weights + (size_t)x * (size_t)across.n;
			const int16_t *p = row + (size_t)across.first[x] * 4;
			int32_t b = half, g = half, r = half, a = half;
			for (int k = 0; k < across.n; k++) {
				b += wx[k] * p[4 * k];
				g += wx[k] * p[4 * k + 1];
				r += wx[k] * p[4 * k + 2];
				a += wx[k] * p[4 * k + 3];
			}
			uint8_t alpha = opaque ? 0xff : clamp_u8(a >> bits);
			/* Premultiplied: no colour above its alpha (the lobes overshoot at edges). */
			uint8_t cb = clamp_u8(b >> bits), cg = clamp_u8(g >> bits);
			uint8_t cr = clamp_u8(r >> bits);
			out[4 * x] = cb < alpha ? cb : alpha;
			out[4 * x + 1] = cg < alpha ? cg : alpha;
			out[4 * x + 2] = cr < alpha ? cr : alpha;
			out[4 * x + 3] = alpha;
		}
	}
	ret = 0;

out:
	free(acc);
	free(row);
	taps_finish(&across);
	taps_finish(&down);
	return ret;
}
