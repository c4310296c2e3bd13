/*
 * `span`: the frame placed on a canvas larger than the output (the bounding box of several
 * outputs in the compositor's layout), and the part of it that one output shows. A pure function,
 * like geometry.c, so that it can be tested alone.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "scene/geometry.h"

/* Far beyond any real layout; keeps every product below within range. */
#define MAX_CANVAS (1 << 20)

/* The frame on the canvas: its top-left corner and logical pixels per frame pixel. */
struct placement {
	double x, y;
	double sx, sy;
};

static struct placement place(const struct veil_geometry_in *in) {
	const struct veil_canvas *c = in->canvas;
	double iw = in->image_width, ih = in->image_height;
	double sx = 1.0, sy = 1.0;
	switch (in->mode) {
	case VEIL_MODE_STRETCH:
		sx = c->width / iw;
		sy = c->height / ih;
		break;
	case VEIL_MODE_FILL:
		sx = sy = fmax(c->width / iw, c->height / ih);
		break;
	case VEIL_MODE_FIT:
		sx = sy = fmin(c->width / iw, c->height / ih);
		break;
	case VEIL_MODE_CENTER:
		/* swaybg's origin, whole logical pixels: one frame pixel to one logical pixel. */
		return (struct placement){
			c->x + (int)(c->width / 2.0 - iw / 2.0),
			c->y + (int)(c->height / 2.0 - ih / 2.0), 1.0, 1.0,
		};
	case VEIL_MODE_TILE:
		/* From the canvas's top-left corner. */
		return (struct placement){ c->x, c->y, 1.0, 1.0 };
	case VEIL_MODE_INTEGER: {
		/* Whole logical pixels per frame pixel, the most that fit, at least 1; centred. */
		double k = fmax(1.0, floor(fmin(c->width / iw, c->height / ih)));
		return (struct placement){
			c->x + (int)(c->width / 2.0 - iw * k / 2.0),
			c->y + (int)(c->height / 2.0 - ih * k / 2.0), k, k,
		};
	}
	case VEIL_MODE_SOLID_COLOR:
		break;
	}
	return (struct placement){
		c->x + (c->width - iw * sx) / 2.0, c->y + (c->height - ih * sy) / 2.0, sx, sy,
	};
}

/* One axis of a node: logical [l0, l1) in layout coordinates, frame pixels [src0, src1). */
struct axis {
	int l0, l1;
	double src0, src1;
};

/*
 * Frame pixels [f0, f1) placed at pos with s logical pixels each, seen by an output from o0 over
 * its logical size size (cover: the box that reaches its last physical pixel, one more at some
 * fractional scales). The frame's own edges inside the output round inwards to whole logical
 * pixels (the colour shows in the sliver left); the frame pixels shown are what the one map
 * gives there, so that two outputs meet without a seam. False when the output sees none of it.
 */
static bool clip(double pos, double s, double f0, double f1, int o0, int size, int cover,
		struct axis *out) {
	double p0 = pos + f0 * s, p1 = pos + f1 * s;
	/* Within a millionth of a pixel, an edge is whole already. */
	double e0 = p0 <= o0 ? o0 : ceil(p0 - 1e-6);
	double e1 = p1 >= o0 + size ? o0 + cover : floor(p1 + 1e-6);
	double d0 = fmax(e0, o0), d1 = fmin(e1, o0 + cover);
	if (d1 <= d0) {
		return false;
	}
	double src0 = fmin(fmax((d0 - pos) / s, f0), f1);
	double src1 = fmin(fmax((d1 - pos) / s, f0), f1);
	if (src1 - src0 < 1e-6) {
		return false;
	}
	*out = (struct axis){ (int)d0, (int)d1, src0, src1 };
	return true;
}

static struct veil_tile make_tile(const struct axis *x, const struct axis *y,
		const struct veil_canvas *c) {
	return (struct veil_tile){
		.src_x = x->src0,
		.src_y = y->src0,
		.src_width = x->src1 - x->src0,
		.src_height = y->src1 - y->src0,
		.x = x->l0 - c->output_x,
		.y = y->l0 - c->output_y,
		.width = x->l1 - x->l0,
		.height = y->l1 - y->l0,
	};
}

/* The copies of the frame, one per canvas cell the output sees, row by row. */
static int compute_tiles(const struct veil_geometry_in *in, const struct placement *p,
		int lw, int lh, int cover_w, int cover_h, struct veil_tile *tiles, int max) {
	const struct veil_canvas *c = in->canvas;
	int iw = in->image_width, ih = in->image_height;
	/* The cells that meet the output's covering box. */
	int64_t kx0 = (int64_t)floor((c->output_x - p->x) / iw);
	int64_t kx1 = (int64_t)ceil((c->output_x + cover_w - p->x) / iw);
	int64_t ky0 = (int64_t)floor((c->output_y - p->y) / ih);
	int64_t ky1 = (int64_t)ceil((c->output_y + cover_h - p->y) / ih);
	int n = 0;
	for (int64_t ky = ky0; ky < ky1; ky++) {
		struct axis y;
		if (!clip(p->y + (double)(ky * ih), 1.0, 0, ih, c->output_y, lh, cover_h, &y)) {
			continue;
		}
		for (int64_t kx = kx0; kx < kx1; kx++) {
			struct axis x;
			if (!clip(p->x + (double)(kx * iw), 1.0, 0, iw, c->output_x, lw, cover_w,
					&x)) {
				continue;
			}
			if (n < max) {
				tiles[n] = make_tile(&x, &y, c);
			}
			if (n == INT_MAX) {
				return n;
			}
			n++;
		}
	}
	return n;
}

static bool canvas_ok(const struct veil_canvas *c) {
	return c->width > 0 && c->width <= MAX_CANVAS && c->height > 0 &&
		c->height <= MAX_CANVAS && abs(c->x) <= MAX_CANVAS && abs(c->y) <= MAX_CANVAS &&
		abs(c->output_x) <= MAX_CANVAS && abs(c->output_y) <= MAX_CANVAS;
}

int veil_canvas_compute(const struct veil_geometry_in *in, struct veil_tile *tiles, int max) {
	if (in->canvas == NULL || !canvas_ok(in->canvas) || max < 0 ||
			(max > 0 && tiles == NULL)) {
		return -EINVAL;
	}
	/* The output's own checks, and the box that covers it: a stretched frame's. */
	struct veil_geometry_in alone = *in;
	alone.canvas = NULL;
	alone.mode = VEIL_MODE_STRETCH;
	struct veil_tile cover;
	int ret = veil_geometry_compute(&alone, &cover, 1);
	if (ret < 0 || in->mode == VEIL_MODE_SOLID_COLOR) {
		return ret < 0 ? ret : 0;
	}
	if (veil_mode_name(in->mode) == NULL) {
		return -EINVAL;
	}
	int lw, lh;
	veil_geometry_logical_size(in, &lw, &lh);

	const struct veil_canvas *c = in->canvas;
	struct placement p = place(in);
	if (in->mode == VEIL_MODE_TILE) {
		return compute_tiles(in, &p, lw, lh, cover.width, cover.height, tiles, max);
	}
	struct axis x, y;
	if (!clip(p.x, p.sx, 0, in->image_width, c->output_x, lw, cover.width, &x) ||
			!clip(p.y, p.sy, 0, in->image_height, c->output_y, lh, cover.height, &y)) {
		/* Fit or center leave this output to the colour. */
		return 0;
	}
	if (max > 0) {
		tiles[0] = make_tile(&x, &y, c);
	}
	return 1;
}
