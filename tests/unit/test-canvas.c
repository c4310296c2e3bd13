/*
 * scene/canvas.c: one frame across outputs. For two outputs that touch, at scales 1, 1.5 and 2,
 * in every mode and for frames smaller and larger than the canvas: each node's map from layout
 * coordinates to frame pixels is the same function on both outputs (no seam), stretch and fill
 * cover each output, tile copies are 1:1 and cover each output without overlap, and what is
 * asked makes sense (sizes, NULL, counts).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "scene/geometry.h"
#include "check.h"

#define MAX_TILES 4096

struct out {
	int x, y; /* layout */
	int width, height; /* physical */
	float scale;
};

static int compute(enum veil_mode mode, int iw, int ih, const struct veil_canvas *canvas,
		const struct out *o, struct veil_tile *tiles, int max) {
	struct veil_canvas c = *canvas;
	c.output_x = o->x;
	c.output_y = o->y;
	struct veil_geometry_in in = {
		.mode = mode, .image_width = iw, .image_height = ih,
		.output_width = o->width, .output_height = o->height, .scale = o->scale,
		.canvas = &c,
	};
	return veil_geometry_compute(&in, tiles, max);
}

/* Frame pixels per logical pixel across, and the frame x at layout x, of a node. */
static double slope_x(const struct veil_tile *t) {
	return t->src_width / t->width;
}

static double frame_x(const struct veil_tile *t, const struct out *o, double lx) {
	return t->src_x + (lx - (o->x + t->x)) * slope_x(t);
}

static double frame_y(const struct veil_tile *t, const struct out *o, double ly) {
	return t->src_y + (ly - (o->y + t->y)) * (t->src_height / t->height);
}

static void logical(const struct out *o, int *w, int *h) {
	struct veil_geometry_in in = {
		.mode = VEIL_MODE_STRETCH, .image_width = 1, .image_height = 1,
		.output_width = o->width, .output_height = o->height, .scale = o->scale,
	};
	veil_geometry_logical_size(&in, w, h);
}

/* Two outputs side by side, a on the left: one picture, no seam. */
static void check_pair(enum veil_mode mode, int iw, int ih, const struct out *a,
		const struct out *b) {
	int aw, ah, bw, bh;
	logical(a, &aw, &ah);
	logical(b, &bw, &bh);
	int x1 = b->x + bw, y1 = (a->y + ah > b->y + bh ? a->y + ah : b->y + bh);
	struct veil_canvas canvas = {
		.x = a->x, .y = a->y < b->y ? a->y : b->y, .width = x1 - a->x,
	};
	canvas.height = y1 - canvas.y;
	static struct veil_tile ta[MAX_TILES], tb[MAX_TILES];
	int na = compute(mode, iw, ih, &canvas, a, ta, MAX_TILES);
	int nb = compute(mode, iw, ih, &canvas, b, tb, MAX_TILES);
	const char *name = veil_mode_name(mode);
	if (!CHECK(na >= 0 && na <= MAX_TILES && nb >= 0 && nb <= MAX_TILES,
			"%s %dx%d: %d and %d nodes", name, iw, ih, na, nb)) {
		return;
	}
	CHECK(compute(mode, iw, ih, &canvas, a, NULL, 0) == na, "%s: the count alone", name);

	if (mode == VEIL_MODE_STRETCH || mode == VEIL_MODE_FILL) {
		for (int i = 0; i < 2; i++) {
			const struct veil_tile *t = i == 0 ? ta : tb;
			int w = i == 0 ? aw : bw, h = i == 0 ? ah : bh;
			CHECK((i == 0 ? na : nb) == 1 && t->x == 0 && t->y == 0 && t->width >= w &&
				t->height >= h, "%s %dx%d: output %d covered (%d,%d %dx%d of %dx%d)",
				name, iw, ih, i, t->x, t->y, t->width, t->height, w, h);
			CHECK(t->src_x >= 0 && t->src_y >= 0 && t->src_x + t->src_width <= iw + 1e-9 &&
				t->src_y + t->src_height <= ih + 1e-9, "%s: the source box in the frame",
				name);
		}
	}
	if (mode == VEIL_MODE_TILE) {
		for (int i = 0; i < 2; i++) {
			const struct veil_tile *ts = i == 0 ? ta : tb;
			int n = i == 0 ? na : nb;
			long area = 0;
			int w = i == 0 ? aw : bw, h = i == 0 ? ah : bh;
			for (int k = 0; k < n; k++) {
				area += (long)ts[k].width * ts[k].height;
				CHECK(ts[k].src_width == ts[k].width && ts[k].src_height == ts[k].height,
					"tile %d: 1:1 (%gx%g on %dx%d)", k, ts[k].src_width,
					ts[k].src_height, ts[k].width, ts[k].height);
				CHECK(ts[k].x >= 0 && ts[k].y >= 0, "tile %d inside", k);
			}
			/* The covering box: the logical size, or one more at fractional scales. */
			CHECK(area >= (long)w * h && area <= (long)(w + 1) * (h + 1),
				"tiles of output %d: area %ld for %dx%d", i, area, w, h);
		}
		/* Tiles on both sides of the edge continue the grid: same frame column there. */
		for (int k = 0; k < nb; k++) {
			if (tb[k].x != 0) {
				continue;
			}
			for (int j = 0; j < na; j++) {
				if (ta[j].x + ta[j].width == aw && ta[j].y + a->y == tb[k].y + b->y) {
					double left = frame_x(&ta[j], a, b->x);
					double right = tb[k].src_x;
					CHECK(fabs(fmod(left, iw) - fmod(right, iw)) < 1e-6 ||
						(fabs(left - iw) < 1e-6 && right == 0),
						"tile grid across the edge: %g then %g", left, right);
				}
			}
		}
		return;
	}
	if (na != 1 || nb != 1) {
		/* fit or center with the frame on one side only: nothing to meet. */
		CHECK(mode == VEIL_MODE_FIT || mode == VEIL_MODE_CENTER, "%s: %d and %d nodes",
			name, na, nb);
		return;
	}
	/* The frame crosses the edge: both sides map layout x to the same frame x. */
	if (ta->x + ta->width >= aw && tb->x == 0) {
		CHECK(fabs(slope_x(ta) - slope_x(tb)) < 1e-9, "%s %dx%d: the same scale on both "
			"sides (%g, %g)", name, iw, ih, slope_x(ta), slope_x(tb));
		double left = frame_x(ta, a, b->x), right = frame_x(tb, b, b->x);
		CHECK(fabs(left - right) < 1e-6, "%s %dx%d scales %g/%g: frame x %g left of the "
			"edge, %g right of it", name, iw, ih, a->scale, b->scale, left, right);
		double ly = b->y + 1.0;
		CHECK(fabs(frame_y(ta, a, ly) - frame_y(tb, b, ly)) < 1e-6, "%s: rows line up",
			name);
	}
}

static void test_pairs(void) {
	static const float scales[] = { 1.0f, 1.5f, 2.0f };
	static const int frames[][2] = { { 720, 300 }, { 4000, 3000 }, { 97, 61 }, { 1440, 600 } };
	static const enum veil_mode modes[] = {
		VEIL_MODE_STRETCH, VEIL_MODE_FILL, VEIL_MODE_FIT, VEIL_MODE_CENTER, VEIL_MODE_TILE,
	};
	for (size_t s = 0; s < 3; s++) {
		for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
				struct out a = { 0, 0, 800, 600, 1.0f };
				struct out b = { 800, 60, 1440, 900, scales[s] };
				check_pair(modes[m], frames[f][0], frames[f][1], &a, &b);
			}
		}
	}
}

/* A frame placed right of an output (fit on a wide canvas): that output shows only colour. */
static void test_outside(void) {
	struct veil_canvas canvas = { .x = 0, .y = 0, .width = 3000, .height = 100 };
	struct out a = { 0, 0, 800, 100, 1.0f };
	struct veil_tile t;
	CHECK(compute(VEIL_MODE_FIT, 100, 100, &canvas, &a, &t, 1) == 0);
	CHECK(compute(VEIL_MODE_CENTER, 100, 100, &canvas, &a, &t, 1) == 0);
	CHECK(compute(VEIL_MODE_SOLID_COLOR, 100, 100, &canvas, &a, &t, 1) == 0);
}

static void test_bad(void) {
	struct veil_canvas canvas = { .x = 0, .y = 0, .width = 1600, .height = 600 };
	struct out a = { 0, 0, 800, 600, 1.0f };
	struct veil_tile t;
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &canvas, &a, &t, 1) == 1);
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &canvas, &a, NULL, 1) == -EINVAL);
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &canvas, &a, &t, -1) == -EINVAL);
	CHECK(compute(VEIL_MODE_FILL, 0, 100, &canvas, &a, &t, 1) == -EINVAL);
	CHECK(compute((enum veil_mode)99, 100, 100, &canvas, &a, &t, 1) == -EINVAL);
	struct out nan = a;
	nan.scale = NAN;
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &canvas, &nan, &t, 1) == -EINVAL);
	struct veil_canvas empty = canvas;
	empty.width = 0;
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &empty, &a, &t, 1) == -EINVAL);
	struct veil_canvas huge = canvas;
	huge.x = -(1 << 30);
	CHECK(compute(VEIL_MODE_FILL, 100, 100, &huge, &a, &t, 1) == -EINVAL);
	/* A 1x1 frame tiled on a large canvas: counted, not all written. */
	struct veil_tile few[4];
	CHECK(compute(VEIL_MODE_TILE, 1, 1, &canvas, &a, few, 4) == 800 * 600);
}

/*
 * integer across two 1920x1080 outputs side by side: 250x130 fits 8 times on the 3840x1080
 * canvas (2000x1040 from 920,20); each output shows its half, 8 logical pixels a frame pixel.
 */
static void test_integer(void) {
	struct veil_canvas canvas = { .x = 0, .y = 0, .width = 3840, .height = 1080 };
	struct out a = { 0, 0, 1920, 1080, 1.0f };
	struct out b = { 1920, 0, 1920, 1080, 1.0f };
	struct veil_tile t;
	CHECK(compute(VEIL_MODE_INTEGER, 250, 130, &canvas, &a, &t, 1) == 1);
	CHECK(t.x == 920 && t.y == 20 && t.width == 1000 && t.height == 1040, "%d,%d %dx%d",
		t.x, t.y, t.width, t.height);
	CHECK(t.src_x == 0 && t.src_width == 125 && t.src_y == 0 && t.src_height == 130,
		"%g,%g %gx%g", t.src_x, t.src_y, t.src_width, t.src_height);
	CHECK(compute(VEIL_MODE_INTEGER, 250, 130, &canvas, &b, &t, 1) == 1);
	CHECK(t.x == 0 && t.y == 20 && t.width == 1000 && t.height == 1040, "%d,%d %dx%d",
		t.x, t.y, t.width, t.height);
	CHECK(t.src_x == 125 && t.src_width == 125, "%g %g", t.src_x, t.src_width);
	/* Larger than the canvas: 1x, centred and cropped as center is. */
	CHECK(compute(VEIL_MODE_INTEGER, 5000, 2000, &canvas, &a, &t, 1) == 1);
	CHECK(t.x == 0 && t.width == 1920 && t.src_x == 580 && t.src_width == 1920,
		"%d %d %g %g", t.x, t.width, t.src_x, t.src_width);
}

int main(void) {
	test_pairs();
	test_integer();
	test_outside();
	test_bad();
	return check_summary("canvas");
}
