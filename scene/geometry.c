#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "scene/geometry.h"

/*
 * Nodes sit at integer logical coordinates, and the scene turns a logical box into physical
 * pixels by rounding each edge on its own (scale_box() in wlr_scene.c). So at a scale s only
 * some physical edges are reachable (at 1.5: 0, 2, 3, 5, 6, ...; at 2: the even ones), and
 * everything here is a choice among those: scaled modes take boxes that cover every physical
 * pixel, unscaled ones take boxes whose physical size is exactly their source size.
 */

/* Far beyond any real output or frame; keeps every product below within range. */
#define MAX_SIZE (1 << 20)

static bool size_ok(int size) {
	return size > 0 && size <= MAX_SIZE;
}

static bool input_ok(const struct veil_geometry_in *in) {
	if (!size_ok(in->output_width) || !size_ok(in->output_height)) {
		return false;
	}
	float scale = in->scale;
	if (!isfinite(scale) || scale <= 0 || scale > MAX_SIZE) {
		return false;
	}
	/* A tiny scale makes an absurd logical size, and ints overflow on the way there. */
	return in->output_width / (double)scale <= MAX_SIZE &&
		in->output_height / (double)scale <= MAX_SIZE;
}

void veil_geometry_logical_size(const struct veil_geometry_in *in, int *width, int *height) {
	if (!input_ok(in)) {
		*width = *height = 0;
		return;
	}
	/* wlr_output_effective_resolution(): int /= float, so a float division, truncated. */
	*width = (int)((float)in->output_width / in->scale);
	*height = (int)((float)in->output_height / in->scale);
}

/* The physical edge the scene rounds logical coordinate l to: scale_box(), in float. */
static int to_physical(int l, float scale) {
	float p = (float)l * scale;
	return (int)round(p);
}

/*
 * The largest l whose physical edge is at or before p. Callers keep p within an output's
 * covering box (or at most a frame beyond 0), so that p / scale stays far from overflowing.
 */
static int floor_logical(int p, float scale) {
	int l = (int)floor(p / (double)scale);
	while (to_physical(l + 1, scale) <= p) {
		l++;
	}
	while (to_physical(l, scale) > p) {
		l--;
	}
	return l;
}

/* The smallest l whose physical edge is at or after p. */
static int ceil_logical(int p, float scale) {
	return floor_logical(p - 1, scale) + 1;
}

static bool exact_logical(int p, float scale, int *l) {
	*l = ceil_logical(p, scale);
	return to_physical(*l, scale) == p;
}

/* The logical coordinate whose physical edge is nearest to p. */
static int nearest_logical(double p, float scale) {
	int l = floor_logical((int)floor(p), scale);
	double below = p - to_physical(l, scale);
	double above = to_physical(l + 1, scale) - p;
	return above < below ? l + 1 : l;
}

/* One axis of a node: logical [l0, l1), showing frame pixels [src0, src1). */
struct span {
	int l0, l1;
	double src0, src1;
};

/* How many pixels of a frame at origin org are on an axis of out pixels. */
static int visible(int org, int frame, int out) {
	int start = org > 0 ? org : 0;
	int end = org + frame < out ? org + frame : out;
	return end - start;
}

/*
 * One axis of the centred frame at one frame pixel per physical pixel. The origin is swaybg's,
 * moved by a pixel if that lets the rounding show the frame whole; if no such pixel exists
 * (e.g. an odd frame at scale 2, where only even edges exist), the origin stays and the frame
 * loses the pixels next to an edge the rounding cannot reach.
 */
static struct span center_span(int out, int frame, int cover, float scale) {
	static const int shifts[] = { 0, -1, 1 };
	int centre = (int)(out / 2.0 - frame / 2.0);
	int cover_end = to_physical(cover, scale);

	for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		int org = centre + shifts[i];
		int end = org + frame;
		if (visible(org, frame, out) != visible(centre, frame, out)) {
			/* The move would push pixels off the output. */
			continue;
		}
		int l0 = 0, l1 = cover;
		if (org > 0 && !exact_logical(org, scale, &l0)) {
			continue;
		}
		if (end < cover_end) {
			/* The frame ends inside: exactly there, or the output's edge would show. */
			if (end >= out || !exact_logical(end, scale, &l1)) {
				continue;
			}
		}
		return (struct span){ l0, l1, to_physical(l0, scale) - org,
			to_physical(l1, scale) - org };
	}

	int l0 = centre > 0 ? ceil_logical(centre, scale) : 0;
	int end = centre + frame < cover_end ? centre + frame : cover_end;
	int l1 = floor_logical(end, scale);
	if (l1 <= l0) {
		/* No two reachable edges fit in the frame: it cannot be 1:1 at all. */
		l0 = l0 < cover ? l0 : cover - 1;
		return (struct span){ l0, l0 + 1, 0, frame };
	}
	return (struct span){ l0, l1, to_physical(l0, scale) - centre,
		to_physical(l1, scale) - centre };
}

/*
 * The tile that starts at logical l on an axis whose covering box ends at cover: as wide as the
 * frame where the rounding allows, else narrower by the pixel or two it cannot reach. Those
 * frame pixels are dropped and the later tiles drift left by as much: with integer logical
 * edges, 1:1 tiles without gaps cannot all start at a multiple of the frame's size.
 */
static struct span tile_span(int l, int frame, int cover, float scale) {
	int start = to_physical(l, scale);
	int cover_end = to_physical(cover, scale);
	int l1 = cover;
	if (cover_end - start > frame) {
		l1 = floor_logical(start + frame, scale);
	}
	if (l1 <= l) {
		return (struct span){ l, l + 1, 0, frame };
	}
	return (struct span){ l, l1, 0, to_physical(l1, scale) - start };
}

/*
 * The axis on which a fitted frame leaves bars: size physical pixels centred on out, each edge
 * rounded to the nearest one the scene can reach. The frame stays whole, so its aspect ratio
 * is off by at most that rounding.
 */
static struct span fit_span(int out, double size, int frame, int cover, float scale) {
	int l0 = nearest_logical((out - size) / 2, scale);
	int l1 = nearest_logical((out + size) / 2, scale);
	l0 = l0 > 0 ? l0 : 0;
	l1 = l1 < cover ? l1 : cover;
	if (l1 <= l0) {
		/* Thinner than a logical pixel: the logical pixel nearest the centre. */
		l0 = nearest_logical((out - (double)scale) / 2, scale);
		l0 = l0 > 0 ? l0 : 0;
		l0 = l0 < cover ? l0 : cover - 1;
		l1 = l0 + 1;
	}
	return (struct span){ l0, l1, 0, frame };
}

/*
 * `integer`: the largest whole number of physical pixels per frame pixel that fits the output
 * (at least 1), the same on both axes.
 */
static int integer_factor(int out_w, int out_h, int frame_w, int frame_h) {
	int k = out_w / frame_w < out_h / frame_h ? out_w / frame_w : out_h / frame_h;
	return k > 1 ? k : 1;
}

/* One axis of `integer`: centred as center's, k physical pixels for each frame pixel. */
static struct span integer_span(int out, int frame, int k, int cover, float scale) {
	struct span s = center_span(out, frame * k, cover, scale);
	s.src0 /= k;
	s.src1 /= k;
	return s;
}

static int count_tiles(int frame, int cover, float scale) {
	int n = 0;
	for (int l = 0; l < cover; l = tile_span(l, frame, cover, scale).l1) {
		n++;
	}
	return n;
}

static struct veil_tile make_tile(const struct span *x, const struct span *y) {
	return (struct veil_tile){
		.src_x = x->src0,
		.src_y = y->src0,
		.src_width = x->src1 - x->src0,
		.src_height = y->src1 - y->src0,
		.x = x->l0,
		.y = y->l0,
		.width = x->l1 - x->l0,
		.height = y->l1 - y->l0,
	};
}

static int compute_tiles(const struct veil_geometry_in *in, int cover_w, int cover_h,
		struct veil_tile *tiles, int max) {
	float scale = in->scale;
	int64_t n = (int64_t)count_tiles(in->image_width, cover_w, scale) *
		count_tiles(in->image_height, cover_h, scale);

	int i = 0;
	for (int ly = 0; ly < cover_h && i < max;) {
		struct span y = tile_span(ly, in->image_height, cover_h, scale);
		for (int lx = 0; lx < cover_w && i < max;) {
			struct span x = tile_span(lx, in->image_width, cover_w, scale);
			tiles[i++] = make_tile(&x, &y);
			lx = x.l1;
		}
		ly = y.l1;
	}
	return n > INT_MAX ? INT_MAX : (int)n;
}

int veil_geometry_compute(const struct veil_geometry_in *in, struct veil_tile *tiles, int max) {
	if (in->canvas != NULL) {
		return veil_canvas_compute(in, tiles, max);
	}
	if (!input_ok(in) || max < 0 || (max > 0 && tiles == NULL) ||
			veil_mode_name(in->mode) == NULL) {
		return -EINVAL;
	}
	if (in->mode == VEIL_MODE_SOLID_COLOR) {
		return 0;
	}
	int iw = in->image_width, ih = in->image_height;
	if (!size_ok(iw) || !size_ok(ih)) {
		return -EINVAL;
	}

	float scale = in->scale;
	int ow = in->output_width, oh = in->output_height;
	/*
	 * The smallest logical box that covers every physical pixel. It can be a logical pixel
	 * larger than the output's logical size, whose rounding down leaves a seam otherwise.
	 */
	int cover_w = ceil_logical(ow, scale);
	int cover_h = ceil_logical(oh, scale);
	/* What the covering box is in physical pixels, a little over the output's size maybe. */
	double dw = to_physical(cover_w, scale);
	double dh = to_physical(cover_h, scale);

	struct span x = { 0, cover_w, 0, iw };
	struct span y = { 0, cover_h, 0, ih };
	switch (in->mode) {
	case VEIL_MODE_STRETCH:
		break;
	case VEIL_MODE_FILL:
		/* Crop to the covering box's aspect ratio, evenly from both sides. */
		if ((double)iw * dh > (double)ih * dw) {
			double width = ih * dw / dh;
			x.src0 = (iw - width) / 2;
			x.src1 = iw - x.src0;
		} else {
			double height = iw * dh / dw;
			y.src0 = (ih - height) / 2;
			y.src1 = ih - y.src0;
		}
		break;
	case VEIL_MODE_FIT:
		/* The frame spans one axis and is centred on the other (both if the ratios match). */
		if ((int64_t)iw * oh > (int64_t)ih * ow) {
			y = fit_span(oh, ih * dw / iw, ih, cover_h, scale);
		} else if ((int64_t)iw * oh < (int64_t)ih * ow) {
			x = fit_span(ow, iw * dh / ih, iw, cover_w, scale);
		}
		break;
	case VEIL_MODE_CENTER:
		x = center_span(ow, iw, cover_w, scale);
		y = center_span(oh, ih, cover_h, scale);
		break;
	case VEIL_MODE_TILE:
		return compute_tiles(in, cover_w, cover_h, tiles, max);
	case VEIL_MODE_INTEGER: {
		int k = integer_factor(ow, oh, iw, ih);
		x = integer_span(ow, iw, k, cover_w, scale);
		y = integer_span(oh, ih, k, cover_h, scale);
		break;
	}
	case VEIL_MODE_SOLID_COLOR:
		return 0;
	}

	if (max > 0) {
		tiles[0] = make_tile(&x, &y);
	}
	return 1;
}
