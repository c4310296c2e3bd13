/*
 * scene/geometry.c against a model of what wlroots' scene does with its nodes: every logical box
 * is turned into physical pixels here the way scale_box() in wlr_scene.c does it, and the checks
 * are on those physical pixels (coverage, 1:1 sizes, centring), not on the logical numbers.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene/geometry.h"
#include "check.h"

/* The case the checks belong to: each failure names it. */
static char context[200];

#define check(ok, fmt, ...) CHECK(ok, "(%s) " fmt, context, ##__VA_ARGS__)

__attribute__((format(printf, 1, 2)))
static void begin_case(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	vsnprintf(context, sizeof(context), fmt, args);
	va_end(args);
}

/* wlr_scene.c's scale_box(): each edge of a logical box goes to round(edge * scale), in float. */
static int phys(int l, float scale) {
	return (int)round((float)l * scale);
}

/* One axis of an output, as the scene's rounding sees it. */
struct axis {
	int out; /* physical pixels */
	float scale;
	int cover; /* the smallest logical edge at or past the output's physical edge */
	int step; /* the largest physical distance between consecutive logical edges */
	bool *reach; /* [0, reach_len): physical edges some logical edge lands on */
	int reach_len;
};

static void axis_init(struct axis *a, int out, float scale) {
	a->out = out;
	a->scale = scale;
	a->cover = 0;
	while (phys(a->cover, scale) < out) {
		a->cover++;
	}
	a->step = 0;
	for (int l = 0; l < a->cover; l++) {
		int d = phys(l + 1, scale) - phys(l, scale);
		a->step = d > a->step ? d : a->step;
	}
	a->reach_len = phys(a->cover, scale) + 1;
	a->reach = calloc(a->reach_len, sizeof(bool));
	for (int l = 0; l <= a->cover; l++) {
		a->reach[phys(l, scale)] = true;
	}
}

static void axis_finish(struct axis *a) {
	free(a->reach);
}

static bool is_int(double v) {
	return v == floor(v);
}

/* Checks that hold for every node of every mode: a real box, a source inside the frame. */
static void check_node(const struct veil_tile *t, const struct axis *ax, const struct axis *ay,
		int iw, int ih) {
	check(t->width > 0 && t->height > 0, "empty node %dx%d", t->width, t->height);
	check(t->x >= 0 && t->y >= 0, "node starts before the output at %d,%d", t->x, t->y);
	check(t->x + t->width <= ax->cover && t->y + t->height <= ay->cover,
		"node %d,%d %dx%d sticks out past the covering box %dx%d", t->x, t->y, t->width,
		t->height, ax->cover, ay->cover);
	check(t->src_x >= 0 && t->src_y >= 0 && t->src_width > 0 && t->src_height > 0 &&
		t->src_x + t->src_width <= iw + 1e-9 && t->src_y + t->src_height <= ih + 1e-9,
		"source %g,%g %gx%g outside the %dx%d frame", t->src_x, t->src_y, t->src_width,
		t->src_height, iw, ih);
}

/* The whole output, every physical pixel of it, and no more than a logical pixel beyond. */
static void check_covers(const struct veil_tile *t, const struct axis *ax, const struct axis *ay) {
	check(t->x == 0 && t->y == 0 && t->x + t->width == ax->cover &&
		t->y + t->height == ay->cover, "node %d,%d %dx%d is not the covering box %dx%d",
		t->x, t->y, t->width, t->height, ax->cover, ay->cover);
	check(phys(t->x + t->width, ax->scale) >= ax->out &&
		phys(t->y + t->height, ay->scale) >= ay->out, "physical seam at the right or bottom");
}

static void check_whole_frame(const struct veil_tile *t, int iw, int ih) {
	check(t->src_x == 0 && t->src_y == 0 && t->src_width == iw && t->src_height == ih,
		"source %g,%g %gx%g is not the whole %dx%d frame", t->src_x, t->src_y,
		t->src_width, t->src_height, iw, ih);
}

static void check_fill(const struct veil_tile *t, const struct axis *ax, const struct axis *ay,
		int iw, int ih) {
	check_covers(t, ax, ay);
	double dw = phys(t->x + t->width, ax->scale), dh = phys(t->y + t->height, ay->scale);
	/* The source has the physical box's aspect ratio: nothing is distorted. */
	check(fabs(t->src_width * dh - t->src_height * dw) <= 1e-6 * dw * dh,
		"source %gx%g is not shaped like the box %gx%g", t->src_width, t->src_height, dw, dh);
	/* It covers: the frame is cropped in one direction only. */
	check(fabs(t->src_width - iw) < 1e-9 || fabs(t->src_height - ih) < 1e-9,
		"source %gx%g crops the %dx%d frame both ways", t->src_width, t->src_height, iw, ih);
	/* The output's centre shows the frame's centre, within a physical pixel. */
	double kx = t->src_width / dw, ky = t->src_height / dh; /* frame pixels per output pixel */
	check(fabs(t->src_x + ax->out / 2.0 * kx - iw / 2.0) <= kx + 1e-9 &&
		fabs(t->src_y + ay->out / 2.0 * ky - ih / 2.0) <= ky + 1e-9, "crop is not centred");
}

/*
 * One axis of a fitted frame that leaves bars: size physical pixels centred on the axis, each
 * edge as near as the scene's rounding allows (within half its step).
 */
static void check_fit_bar_axis(const struct axis *a, int l0, int l1, double size) {
	double slack = a->step / 2.0 + 1e-6;
	double want0 = (a->out - size) / 2, want1 = (a->out + size) / 2;
	int p0 = phys(l0, a->scale), p1 = phys(l1, a->scale);
	/* Hence centred within max(1, step / 2) physical pixels. */
	double centre_err = fabs((p0 + p1) / 2.0 - a->out / 2.0);
	check(centre_err <= (a->step > 2 ? a->step / 2.0 : 1.0) + 1e-6,
		"fit is %g pixels off centre", centre_err);
	if (l1 - l0 == 1 && size < a->step) {
		return; /* thinner than a logical pixel: that pixel, but where is only its centre */
	}
	check(fabs(p0 - want0) <= slack || (l0 == 0 && want0 < slack),
		"fit starts at %d, not near %g", p0, want0);
	check(fabs(p1 - want1) <= slack || (l1 == a->cover && want1 > p1 - slack),
		"fit ends at %d, not near %g", p1, want1);
}

static void check_fit(const struct veil_tile *t, const struct axis *ax, const struct axis *ay,
		int iw, int ih) {
	check_whole_frame(t, iw, ih);
	long long wide = (long long)iw * ay->out, tall = (long long)ih * ax->out;
	bool full_x = t->x == 0 && t->x + t->width == ax->cover;
	bool full_y = t->y == 0 && t->y + t->height == ay->cover;
	check(wide < tall || full_x, "a wide frame does not span the output's width");
	check(wide > tall || full_y, "a tall frame does not span the output's height");
	int pw = phys(t->x + t->width, ax->scale) - phys(t->x, ax->scale);
	int ph = phys(t->y + t->height, ay->scale) - phys(t->y, ay->scale);
	if (wide > tall) {
		check_fit_bar_axis(ay, t->y, t->y + t->height, (double)ih * pw / iw);
		/* Aspect ratio: off by at most the two edges' rounding. */
		check(fabs(ph - (double)pw * ih / iw) <= ay->step + 1e-6 || t->height == 1,
			"fit %dx%d distorts the %dx%d frame", pw, ph, iw, ih);
	} else if (wide < tall) {
		check_fit_bar_axis(ax, t->x, t->x + t->width, (double)iw * ph / ih);
		check(fabs(pw - (double)ph * iw / ih) <= ax->step + 1e-6 || t->width == 1,
			"fit %dx%d distorts the %dx%d frame", pw, ph, iw, ih);
	}
}

/*
 * One axis of a centred frame at one frame pixel per physical pixel: the node's physical size is
 * its source's size, the frame's origin is swaybg's within a pixel, and it shows all of what is
 * on the output but for slivers the scene's rounding cannot reach.
 */
static void check_center_axis(const struct axis *a, int frame, int l0, int l1, double src0,
		double srcw, bool expect_whole) {
	int p0 = phys(l0, a->scale), p1 = phys(l1, a->scale);
	if (frame < 2 * a->step - 1) {
		return; /* there may be no two reachable edges within the frame: not 1:1 */
	}
	check(is_int(src0) && is_int(srcw), "fractional source %g+%g at 1:1", src0, srcw);
	check(p1 - p0 == srcw, "physical size %d is not the source's %g", p1 - p0, srcw);
	int origin = p0 - (int)src0; /* where frame pixel 0 is, on or off the output */
	int ideal = (int)(a->out / 2.0 - frame / 2.0); /* swaybg's render_background_image() */
	check(abs(origin - ideal) <= 1, "origin %d is not within a pixel of %d", origin, ideal);

	int vis0 = origin > 0 ? origin : 0;
	int vis1 = origin + frame < a->out ? origin + frame : a->out;
	check(p0 >= vis0 && p0 - vis0 < a->step, "starts at %d, visible from %d", p0, vis0);
	check(vis1 - p1 < a->step, "ends at %d, visible to %d", p1, vis1);
	if (origin <= 0) {
		check(p0 == 0, "gap at the output's start");
	}
	if (origin + frame >= a->out + a->step) {
		check(p1 >= a->out, "gap at the output's end");
	}
	if (expect_whole) {
		check(src0 == 0 && srcw == frame, "frame cropped to %g+%g of %d", src0, srcw, frame);
	}
}

/* Where a centred frame can always be shown whole: scales whose reachable edges are dense. */
static bool center_whole_possible(const struct axis *a, int frame) {
	if (a->out - frame < 2) {
		return false;
	}
	if (a->scale == 1.0f || a->scale == 1.25f || a->scale == 1.5f) {
		return true;
	}
	return (a->scale == 2.0f || a->scale == 3.0f) && frame % (int)a->scale == 0;
}

/*
 * One axis of a tile grid, given its nodes' logical edges e[0..n]: no gaps, no overlaps, all of
 * the output; each tile at one frame pixel per physical pixel, short of the frame by no more
 * than what the rounding cannot reach; exactly on multiples of the frame where those are
 * reachable.
 */
static void check_tile_axis(const struct axis *a, int frame, const int *edges,
		const double *src0, const double *srcw, int n) {
	check(edges[0] == 0, "first tile at %d", edges[0]);
	check(edges[n] == a->cover, "last tile ends at %d, not %d", edges[n], a->cover);
	bool all_reachable = true;
	for (int p = frame; p < a->reach_len - 1; p += frame) {
		all_reachable = all_reachable && a->reach[p];
	}
	for (int i = 0; i < n; i++) {
		int p0 = phys(edges[i], a->scale), p1 = phys(edges[i + 1], a->scale);
		check(edges[i + 1] > edges[i], "tile %d is empty", i);
		if (frame < a->step) {
			continue;
		}
		check(src0[i] == 0, "tile %d starts at frame pixel %g", i, src0[i]);
		check(p1 - p0 == srcw[i], "tile %d: %d physical pixels for %g", i, p1 - p0, srcw[i]);
		if (i < n - 1) {
			check(frame - srcw[i] < a->step, "tile %d drops %g pixels", i, frame - srcw[i]);
		}
		if (all_reachable) {
			check(p0 == i * frame, "tile %d at %d, not %d", i, p0, i * frame);
		}
	}
}

static void check_tiles(const struct veil_tile *t, int n, const struct axis *ax,
		const struct axis *ay, int iw, int ih) {
	int cols = 0;
	while (cols < n && t[cols].y == 0) {
		cols++;
	}
	check(cols > 0 && n % cols == 0, "%d tiles are not rows of %d", n, cols);
	if (cols == 0 || n % cols != 0) {
		return;
	}
	int rows = n / cols;
	int *xe = calloc(cols + 1, sizeof(int)), *ye = calloc(rows + 1, sizeof(int));
	double *xs = calloc(cols, sizeof(double)), *xw = calloc(cols, sizeof(double));
	double *ys = calloc(rows, sizeof(double)), *yw = calloc(rows, sizeof(double));
	for (int i = 0; i < n; i++) {
		const struct veil_tile *c = &t[i % cols], *r = &t[i - i % cols];
		check_node(&t[i], ax, ay, iw, ih);
		/* A grid: every tile lines up with the first of its row and of its column. */
		check(t[i].x == c->x && t[i].width == c->width && t[i].src_x == c->src_x &&
			t[i].src_width == c->src_width && t[i].y == r->y &&
			t[i].height == r->height && t[i].src_y == r->src_y &&
			t[i].src_height == r->src_height, "tile %d is off the grid", i);
	}
	for (int i = 0; i < cols; i++) {
		xe[i] = t[i].x;
		xe[i + 1] = t[i].x + t[i].width;
		xs[i] = t[i].src_x;
		xw[i] = t[i].src_width;
		if (i > 0) {
			check(t[i].x == t[i - 1].x + t[i - 1].width, "gap or overlap after column %d", i);
		}
	}
	for (int i = 0; i < rows; i++) {
		const struct veil_tile *r = &t[i * cols];
		ye[i] = r->y;
		ye[i + 1] = r->y + r->height;
		ys[i] = r->src_y;
		yw[i] = r->src_height;
		if (i > 0) {
			const struct veil_tile *p = &t[(i - 1) * cols];
			check(r->y == p->y + p->height, "gap or overlap after row %d", i);
		}
	}
	check_tile_axis(ax, iw, xe, xs, xw, cols);
	check_tile_axis(ay, ih, ye, ys, yw, rows);
	free(xe);
	free(ye);
	free(xs);
	free(xw);
	free(ys);
	free(yw);
}

/* A rotated output and frame give the same nodes with x and y swapped. */
static void check_transposed(const struct veil_geometry_in *in, const struct veil_tile *t) {
	struct veil_geometry_in rot = {
		.mode = in->mode,
		.image_width = in->image_height,
		.image_height = in->image_width,
		.output_width = in->output_height,
		.output_height = in->output_width,
		.scale = in->scale,
	};
	struct veil_tile r;
	int n = veil_geometry_compute(&rot, &r, 1);
	check(n == 1 && r.x == t->y && r.y == t->x && r.width == t->height &&
		r.height == t->width && r.src_x == t->src_y && r.src_y == t->src_x &&
		r.src_width == t->src_height && r.src_height == t->src_width,
		"rotated output gives other nodes");
}

static void run_case(enum veil_mode mode, int ow, int oh, int iw, int ih, float scale) {
	begin_case("%s output %dx%d@%g frame %dx%d", veil_mode_name(mode), ow, oh, scale, iw, ih);
	struct veil_geometry_in in = {
		.mode = mode,
		.image_width = iw,
		.image_height = ih,
		.output_width = ow,
		.output_height = oh,
		.scale = scale,
	};
	struct axis ax, ay;
	axis_init(&ax, ow, scale);
	axis_init(&ay, oh, scale);

	int n = veil_geometry_compute(&in, NULL, 0);
	check(n == veil_geometry_compute(&in, NULL, 0), "not a pure function");
	if (mode == VEIL_MODE_SOLID_COLOR) {
		check(n == 0, "solid_color needs %d nodes", n);
	} else if (mode != VEIL_MODE_TILE) {
		check(n == 1, "%d nodes", n);
	} else {
		check(n > 0, "tile needs %d nodes", n);
	}

	if (n == 1 && mode != VEIL_MODE_TILE) {
		struct veil_tile t[2];
		memset(t, 0x5a, sizeof(t));
		check(veil_geometry_compute(&in, t, 2) == 1, "count changes with room");
		check(t[1].x == 0x5a5a5a5a, "writes past the nodes it needs");
		check_node(&t[0], &ax, &ay, iw, ih);
		switch (mode) {
		case VEIL_MODE_STRETCH:
			check_covers(&t[0], &ax, &ay);
			check_whole_frame(&t[0], iw, ih);
			break;
		case VEIL_MODE_FILL:
			check_fill(&t[0], &ax, &ay, iw, ih);
			break;
		case VEIL_MODE_FIT:
			check_fit(&t[0], &ax, &ay, iw, ih);
			break;
		case VEIL_MODE_CENTER:
			check_center_axis(&ax, iw, t[0].x, t[0].x + t[0].width, t[0].src_x,
				t[0].src_width, center_whole_possible(&ax, iw));
			check_center_axis(&ay, ih, t[0].y, t[0].y + t[0].height, t[0].src_y,
				t[0].src_height, center_whole_possible(&ay, ih));
			break;
		default:
			break;
		}
		check_transposed(&in, &t[0]);
	} else if (mode == VEIL_MODE_TILE && n > 0 && n <= 1 << 18) {
		struct veil_tile *t = malloc((n + 1) * sizeof(*t));
		memset(t, 0x5a, (n + 1) * sizeof(*t));
		check(veil_geometry_compute(&in, t, n + 1) == n, "count changes with room");
		check(t[n].x == 0x5a5a5a5a, "writes past the nodes it needs");
		check_tiles(t, n, &ax, &ay, iw, ih);
		/* Less room: the same count, the first nodes, nothing written past max. */
		struct veil_tile few[3];
		memset(few, 0x5a, sizeof(few));
		check(veil_geometry_compute(&in, few, 2) == n, "count changes with less room");
		check(memcmp(few, t, (n < 2 ? n : 2) * sizeof(*t)) == 0, "other first nodes");
		check(few[2].x == 0x5a5a5a5a, "writes past max");
		free(t);
	}

	axis_finish(&ax);
	axis_finish(&ay);
}

static void test_names(void) {
	begin_case("mode names");
	static const char *const names[] = {
		"stretch", "fill", "fit", "center", "tile", "solid_color", "integer",
	};
	for (int i = 0; i < 7; i++) {
		enum veil_mode m = (enum veil_mode)-1;
		check(veil_mode_from_name(names[i], &m) && m == (enum veil_mode)i, "%s", names[i]);
		check(veil_mode_name((enum veil_mode)i) != NULL &&
			strcmp(veil_mode_name((enum veil_mode)i), names[i]) == 0, "name of %d", i);
	}
	enum veil_mode m = VEIL_MODE_STRETCH;
	check(veil_mode_from_name("FiLL", &m) && m == VEIL_MODE_FILL, "FiLL");
	check(veil_mode_from_name("SOLID_COLOR", &m) && m == VEIL_MODE_SOLID_COLOR, "SOLID_COLOR");
	static const char *const bad[] = { "", "fills", "fil", "solid-color", "centre", " fit" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = VEIL_MODE_TILE;
		check(!veil_mode_from_name(bad[i], &m) && m == VEIL_MODE_TILE, "accepts '%s'", bad[i]);
	}
	check(!veil_mode_from_name(NULL, &m), "accepts NULL");
	check(veil_mode_name((enum veil_mode)7) == NULL, "names mode 7");
	check(veil_mode_name((enum veil_mode)-1) == NULL, "names mode -1");
}

static void test_logical_size(void) {
	begin_case("logical size");
	/* Worked out by hand from wlr_output_effective_resolution(): truncated. */
	static const struct {
		int w, h;
		float scale;
		int lw, lh;
	} cases[] = {
		{ 1920, 1080, 1, 1920, 1080 },
		{ 1366, 768, 1.25f, 1092, 614 },
		{ 1366, 768, 1.5f, 910, 512 },
		{ 768, 1366, 1.5f, 512, 910 },
		{ 1001, 777, 2, 500, 388 },
		{ 1001, 777, 3, 333, 259 },
		{ 2560, 1600, 1.75f, 1462, 914 },
		{ 3840, 2160, 1.5f, 2560, 1440 },
		{ 1920, 1080, 0.5f, 3840, 2160 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct veil_geometry_in in = {
			.output_width = cases[i].w,
			.output_height = cases[i].h,
			.scale = cases[i].scale,
		};
		int w, h;
		veil_geometry_logical_size(&in, &w, &h);
		check(w == cases[i].lw && h == cases[i].lh, "%dx%d@%g: %dx%d, not %dx%d",
			cases[i].w, cases[i].h, cases[i].scale, w, h, cases[i].lw, cases[i].lh);
	}
	/* And wlroots' own expression, int /= float, over many sizes and scales. */
	static const float scales[] = { 1, 1.25f, 1.5f, 1.75f, 2, 2.5f, 3, 0.75f, 1.1f, 4.0f / 3 };
	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
		for (int size = 1; size < 5000; size += 7) {
			struct veil_geometry_in in = {
				.output_width = size,
				.output_height = size + 1,
				.scale = scales[s],
			};
			int w, h, ew = size, eh = size + 1;
			ew /= scales[s];
			eh /= scales[s];
			veil_geometry_logical_size(&in, &w, &h);
			check(w == ew && h == eh, "%d@%g: %d, not %d", size, scales[s], w, ew);
		}
	}
}

static void test_hostile(void) {
	begin_case("hostile input");
	const struct veil_geometry_in good = {
		.mode = VEIL_MODE_FILL,
		.image_width = 640,
		.image_height = 480,
		.output_width = 1920,
		.output_height = 1080,
		.scale = 1,
	};
	struct veil_tile t;
	check(veil_geometry_compute(&good, &t, 1) == 1, "the good case fails");

	static const int bad_sizes[] = { 0, -1, -1920, INT_MIN, (1 << 20) + 1, INT_MAX };
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		for (int field = 0; field < 4; field++) {
			struct veil_geometry_in in = good;
			int *f[] = { &in.image_width, &in.image_height, &in.output_width,
				&in.output_height };
			*f[field] = bad_sizes[i];
			check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "size %d in field %d",
				bad_sizes[i], field);
		}
	}
	static const float bad_scales[] = { 0, -0.0f, -1, -INFINITY, INFINITY, 1e-30f, 1e30f };
	for (size_t i = 0; i < sizeof(bad_scales) / sizeof(bad_scales[0]); i++) {
		for (int mode = 0; mode < 6; mode++) {
			struct veil_geometry_in in = good;
			in.scale = bad_scales[i];
			in.mode = (enum veil_mode)mode;
			check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "scale %g", bad_scales[i]);
			int w = -1, h = -1;
			veil_geometry_logical_size(&in, &w, &h);
			check(w == 0 && h == 0, "logical size %dx%d at scale %g", w, h, bad_scales[i]);
		}
	}
	struct veil_geometry_in in = good;
	in.scale = NAN;
	check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "NaN scale");
	in.scale = -NAN;
	check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "-NaN scale");

	in = good;
	in.mode = (enum veil_mode)7;
	check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "mode 7");
	in.mode = (enum veil_mode)-1;
	check(veil_geometry_compute(&in, &t, 1) == -EINVAL, "mode -1");
	check(veil_geometry_compute(&good, &t, -1) == -EINVAL, "max -1");
	check(veil_geometry_compute(&good, NULL, 1) == -EINVAL, "NULL with room");
	check(veil_geometry_compute(&good, NULL, 0) == 1, "asking how many");

	/* solid_color needs no frame, but still an output. */
	in = good;
	in.mode = VEIL_MODE_SOLID_COLOR;
	in.image_width = in.image_height = 0;
	check(veil_geometry_compute(&in, NULL, 0) == 0, "solid_color without a frame");
	in.output_width = 0;
	check(veil_geometry_compute(&in, NULL, 0) == -EINVAL, "solid_color without an output");

	/* The largest sizes are fine, and a frame of 1x1 tiled on them does not overflow. */
	in = good;
	in.mode = VEIL_MODE_TILE;
	in.output_width = in.output_height = 1 << 20;
	in.image_width = in.image_height = 1;
	struct veil_tile few[4];
	check(veil_geometry_compute(&in, few, 4) == INT_MAX, "2^40 tiles");
	check(few[3].x == 3 && few[3].y == 0 && few[3].width == 1 && few[3].src_width == 1,
		"the fourth of 2^40 tiles");
	for (int mode = 0; mode < 5; mode++) {
		in.mode = (enum veil_mode)mode;
		in.image_width = 1 << 20;
		in.image_height = 3;
		check(veil_geometry_compute(&in, few, 4) >= 1, "%s at 2^20", veil_mode_name(mode));
	}
	/* Large but finite scales: a logical pixel wider than the output. */
	in = good;
	in.scale = 5000;
	for (int mode = 0; mode < 5; mode++) {
		in.mode = (enum veil_mode)mode;
		int n = veil_geometry_compute(&in, few, 4);
		check(n == 1 && few[0].x == 0 && few[0].width == 1, "%s at scale 5000",
			veil_mode_name(mode));
	}
}

/* `integer`: the largest whole-number scale that fits, centred, whole frame pixels per node. */
static void check_integer(int ow, int oh, float scale, int iw, int ih, int x, int y, int w,
		int h, double sx, double sy, double sw, double sh) {
	begin_case("integer %dx%d on %dx%d at %g", iw, ih, ow, oh, scale);
	struct veil_geometry_in in = {
		.mode = VEIL_MODE_INTEGER, .image_width = iw, .image_height = ih,
		.output_width = ow, .output_height = oh, .scale = scale,
	};
	struct veil_tile t;
	check(veil_geometry_compute(&in, &t, 1) == 1, "one node");
	check(t.x == x && t.y == y && t.width == w && t.height == h,
		"box %d,%d %dx%d, expected %d,%d %dx%d", t.x, t.y, t.width, t.height, x, y, w, h);
	check(t.src_x == sx && t.src_y == sy && t.src_width == sw && t.src_height == sh,
		"source %g,%g %gx%g, expected %g,%g %gx%g", t.src_x, t.src_y, t.src_width,
		t.src_height, sx, sy, sw, sh);
}

static void test_integer(void) {
	/* 7x (1750x910) fits 1920x1080, not 8x (2000x1040): 85 pixels around. */
	check_integer(1920, 1080, 1, 250, 130, 85, 85, 1750, 910, 0, 0, 250, 130);
	/* Exactly 8x: the whole output. */
	check_integer(1920, 1080, 1, 240, 135, 0, 0, 1920, 1080, 0, 0, 240, 135);
	/* Larger than the output: 1x, cropped at the centre as center crops. */
	check_integer(1920, 1080, 1, 3000, 2000, 0, 0, 1920, 1080, 540, 460, 1920, 1080);
	/* Taller than wide: the height decides (1080 / 100 = 10x, 10 x 16 = 160 wide). */
	check_integer(1920, 1080, 1, 16, 100, 880, 40, 160, 1000, 0, 0, 16, 100);
	/*
	 * At scale 2 (3840x2160 physical): 15x is 3750x1950 physical from 45,105, an odd
	 * physical edge the scene cannot reach; moved a pixel to 44,104 (logical 22,52).
	 */
	check_integer(3840, 2160, 2, 250, 130, 22, 52, 1875, 975, 0, 0, 250, 130);
}

int main(void) {
	test_names();
	test_integer();
	test_logical_size();
	test_hostile();

	static const int outputs[][2] = {
		{ 1366, 768 }, { 768, 1366 }, { 1920, 1080 }, { 1080, 1920 }, { 1001, 777 },
		{ 777, 1001 }, { 2560, 1440 }, { 3840, 2160 }, { 1280, 1024 }, { 7, 3 }, { 1, 1 },
	};
	static const int frames[][2] = {
		{ 1001, 777 }, { 777, 1001 }, { 1366, 768 }, { 1920, 1080 }, { 1367, 769 },
		{ 5000, 3000 }, { 2, 7000 }, { 64, 64 }, { 63, 65 }, { 100, 33 }, { 3, 2 }, { 1, 1 },
	};
	static const float scales[] = { 1, 1.25f, 1.5f, 1.75f, 2, 3, 0.5f, 4.0f / 3, 2.5f };
	for (size_t o = 0; o < sizeof(outputs) / sizeof(outputs[0]); o++) {
		for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
			for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
				for (int mode = 0; mode < 6; mode++) {
					run_case((enum veil_mode)mode, outputs[o][0], outputs[o][1],
						frames[f][0], frames[f][1], scales[s]);
				}
			}
		}
	}
	/* Many more sizes, from a fixed sequence, at the scales compositors offer. */
	unsigned seed = 12345;
	for (int i = 0; i < 3000; i++) {
		int v[4];
		for (int j = 0; j < 4; j++) {
			seed = seed * 1103515245u + 12345u;
			v[j] = 1 + (int)((seed >> 8) % (j < 2 ? 3000 : 2000));
		}
		float scale = scales[i % 6];
		for (int mode = 0; mode < 5; mode++) {
			run_case((enum veil_mode)mode, v[0], v[1], v[2], v[3], scale);
		}
	}

	return check_summary("geometry");
}
