/*
 * The worker's part of xray: the picture an output's wallpaper nodes show, composed at a reduced
 * size from the frames they show, then blurred (util/blur.c).
 */
#ifndef VEIL_MODULE_XRAY_PICTURE_H
#define VEIL_MODULE_XRAY_PICTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/util/box.h>
#include "scene/frame_read.h"

struct veil_image;

/* The most buffer nodes of an output xray composes (tile mode uses one; span one a output). */
#define VEIL_XRAY_MAX_PIECES 8

/* One wallpaper node: its frame (locked) and where the layout put it. */
struct veil_xray_piece {
	struct veil_frame_read read;
	struct wlr_fbox src; /* of the frame, in its pixels; empty: the whole frame */
	double x, y, width, height; /* on the output, logical */
};

/* What to compose: taken on the compositor thread, made on a worker. */
struct veil_xray_request {
	int width, height; /* the blurred picture, in its pixels */
	double logical_width, logical_height; /* the output's size it covers */
	bool fill; /* the colour under everything (bars, a solid colour) */
	uint32_t color; /* 0xRRGGBB */
	double fill_width, fill_height; /* logical, from the top left */
	struct veil_xray_piece pieces[VEIL_XRAY_MAX_PIECES];
	int n_pieces;
	double sigma; /* in the blurred picture's pixels */
	double reduction; /* output pixels a picture's pixel stands for, a side (1 or more) */
	/*
	 * When > 0, the blurred picture scaled up to this size (bilinear, as a renderer would) for
	 * a renderer that rounds a node's source box to whole pixels (wlroots' pixman renderer):
	 * at the output's logical size every node's source box is whole.
	 */
	int full_width, full_height;
};

/*
 * A worker: composes and blurs into out (DRM_FORMAT_XRGB8888 when every pixel is opaque, else
 * ARGB8888 premultiplied), width x height (or full_width x full_height) with a margin of
 * VEIL_XRAY_MARGIN pixels all round that repeats the edge: a renderer's bilinear filter at a
 * node's edge reads it rather than nothing (wlroots 0.19's pixman renderer faded a node at the
 * output's edge to black by 2 or 3 pixels without it). 0, or a negative errno with a sentence
 * in *message.
 */
#define VEIL_XRAY_MARGIN 1
int veil_xray_picture_make(const struct veil_xray_request *request, struct veil_image *out,
	char **message);

#endif
