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

/* What a shrink keeps between rows: the taps, and one source row's worth of sums. */
struct veil_resample_rows {
	struct taps down, across;
	bool opaque;
	int src_width, src_height;
	struct veil_image dst;
	int16_t *row;
	int32_t *acc;
	const uint8_t **lines; /* down.n pointers: the source rows of one destination row */
	/* Fed row by row: the last down.n source rows, row i in slot i % down.n. */
	uint8_t *ring;
	int pushed; /* source rows pushed so far */
	int next; /* the next destination row to make */
};

static void rows_free(struct veil_resample_rows *rs) {
	free(rs->ring);
	free(rs->lines);
	free(rs->acc);
	free(rs->row);
	taps_finish(&rs->across);
	taps_finish(&rs->down);
	free(rs);
}

static struct veil_resample_rows *rows_init(int src_width, int src_height, bool opaque,
		const struct veil_image *dst) {
	if (dst->width > src_width || dst->height > src_height || dst->width <= 0 ||
			dst->height <= 0) {
		return NULL;
	}
	struct veil_resample_rows *rs = calloc(1, sizeof(*rs));
	if (rs == NULL) {
		return NULL;
	}
	rs->opaque = opaque;
	rs->src_width = src_width;
	rs->src_height = src_height;
	rs->dst = *dst;
	if (!taps_init(&rs->down, src_height, dst->height) ||
			!taps_init(&rs->across, src_width, dst->width)) {
		rows_free(rs);
		return NULL;
	}
	size_t row_len = (size_t)src_width * 4;
	rs->row = malloc(row_len * sizeof(*rs->row));
	rs->acc = malloc(row_len * sizeof(*rs->acc));
	rs->lines = calloc((size_t)rs->down.n, sizeof(*rs->lines));
	if (rs->row == NULL || rs->acc == NULL || rs->lines == NULL) {
		rows_free(rs);
		return NULL;
	}
	return rs;
}

/* acc += weight * line, over len bytes: the loop the compiler vectorises, rows apart. */
static void accumulate(int32_t *restrict acc, const uint8_t *restrict line, int32_t weight,
		size_t len) {
	for (size_t i = 0; i < len; i++) {
		acc[i] += weight * line[i];
	}
}

/*
 * Destination row y from its source rows (rs->lines): down first, over whole source rows
 * (plain multiply-adds the compiler vectorises) into one row of src_width pixels kept with
 * ROW_BITS more bits (one rounding at the end, not two), then across it.
 */
static void shrink_row(struct veil_resample_rows *rs, int y) {
	size_t row_len = (size_t)rs->src_width * 4;
	const int shift = WEIGHT_BITS - ROW_BITS;
	const int bits = WEIGHT_BITS + ROW_BITS;
	const int32_t half = 1 << (bits - 1);
	/* restrict: no row aliases another (the compiler knew it of malloc()'s, not of a struct's). */
	int32_t *restrict acc = rs->acc;
	int16_t *restrict row = rs->row;
	for (size_t i = 0; i < row_len; i++) {
		acc[i] = 1 << (shift - 1);
	}
	/* Locals, not rs's fields: a store through a byte pointer could change those. */
	const int down_n = rs->down.n;
	const int32_t *w = rs->down.weights + (size_t)y * (size_t)down_n;
	for (int k = 0; k < down_n; k++) {
		accumulate(acc, rs->lines[k], w[k], row_len);
	}
	for (size_t i = 0; i < row_len; i++) {
		row[i] = (int16_t)(acc[i] >> shift);
	}
	const int n = rs->across.n, width = rs->dst.width;
	const int32_t *weights = rs->across.weights;
	const int *first = rs->across.first;
	const bool opaque = rs->opaque;
	uint8_t *restrict out = (uint8_t *)rs->dst.data + (size_t)y * (size_t)rs->dst.stride;
	for (int x = 0; x < width; x++) {
		const int32_t *wx = weights + (size_t)x * (size_t)n;
		const int16_t *p = row + (size_t)first[x] * 4;
		int32_t b = half, g = half, r = half, a = half;
		for (int k = 0; k < n; k++) {
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

int veil_resample_lanczos3(const struct veil_image *src, const struct veil_image *dst) {
	if (dst->width > src->width || dst->height > src->height || dst->width <= 0 ||
			dst->height <= 0) {
		return -EINVAL;
	}
	/* One destination row at a time, straight from src: nothing picture-sized is allocated. */
	struct veil_resample_rows *rs = rows_init(src->width, src->height,
		src->drm_format == DRM_FORMAT_XRGB8888, dst);
	if (rs == NULL) {
		return -ENOMEM;
	}
	for (int y = 0; y < dst->height; y++) {
		for (int k = 0; k < rs->down.n; k++) {
			rs->lines[k] = (const uint8_t *)src->data +
				(size_t)(rs->down.first[y] + k) * (size_t)src->stride;
		}
		shrink_row(rs, y);
	}
	rows_free(rs);
	return 0;
}

struct veil_resample_rows *veil_resample_rows_create(int src_width, int src_height,
		const struct veil_image *dst) {
	struct veil_resample_rows *rs = rows_init(src_width, src_height, false, dst);
	if (rs == NULL) {
		return NULL;
	}
	rs->ring = malloc((size_t)rs->down.n * (size_t)src_width * 4);
	if (rs->ring == NULL) {
		rows_free(rs);
		return NULL;
	}
	return rs;
}

void veil_resample_rows_destroy(struct veil_resample_rows *rs) {
	if (rs != NULL) {
		rows_free(rs);
	}
}

uint8_t *veil_resample_rows_next(struct veil_resample_rows *rs) {
	size_t slot = (size_t)(rs->pushed % rs->down.n);
	return rs->ring + slot * (size_t)rs->src_width * 4;
}

void veil_resample_rows_push(struct veil_resample_rows *rs) {
	rs->pushed++;
	/*
	 * Every destination row whose source rows are all in: the first row of the next one is
	 * never before this one's (taps_init), so a slot is written again only once no row left
	 * to make needs what it held.
	 */
	int n = rs->down.n;
	while (rs->next < rs->dst.height && rs->down.first[rs->next] + n <= rs->pushed) {
		int first = rs->down.first[rs->next];
		for (int k = 0; k < n; k++) {
			rs->lines[k] = rs->ring + (size_t)((first + k) % n) * (size_t)rs->src_width * 4;
		}
		shrink_row(rs, rs->next);
		rs->next++;
	}
}

bool veil_resample_rows_done(const struct veil_resample_rows *rs) {
	return rs->next == rs->dst.height;
}
