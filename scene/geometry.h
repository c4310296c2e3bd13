/*
 * Where a wallpaper's frame goes on an output: a pure function of the mode, the frame's size and
 * the output's size and scale, so that it can be tested alone.
 */
#ifndef VEIL_SCENE_GEOMETRY_H
#define VEIL_SCENE_GEOMETRY_H

#include <stdbool.h>
#include "util/mode.h"

/*
 * `span`: one picture across outputs. The canvas is a box in the compositor's layout coordinates
 * (logical pixels); the mode places the frame on it, and the output shows its part.
 */
struct veil_canvas {
	int x, y, width, height; /* the canvas, in layout coordinates */
	int output_x, output_y; /* the output's top-left corner, in layout coordinates */
};

/* What the geometry is computed from. */
struct veil_geometry_in {
	enum veil_mode mode;
	int image_width, image_height; /* the frame, in buffer pixels */
	int output_width, output_height; /* physical pixels, after the output's transform */
	float scale; /* the output's scale, > 0 */
	/* NULL: the frame is placed on the output alone; else on this canvas (scene/canvas.c). */
	const struct veil_canvas *canvas;
};

/* One scene buffer node: the part of the frame it shows and where, in logical coordinates. */
struct veil_tile {
	double src_x, src_y, src_width, src_height; /* in frame pixels, inside the frame */
	int x, y, width, height; /* logical, relative to the output's top-left corner */
};

/*
 * The output's logical size as the scene sees it (wlr_output_effective_resolution's rounding).
 */
void veil_geometry_logical_size(const struct veil_geometry_in *in, int *width, int *height);

/*
 * Fills tiles[0..max) with the nodes the mode needs and returns how many it needs (which may be
 * more than max: the caller then shows none, or asks again with more room), or -EINVAL for sizes
 * or scales that make no sense. Logical boxes are chosen so that, after the scene's rounding to
 * physical pixels, an unscaled mode (center, tile) maps one frame pixel to one output pixel.
 *
 * At fractional scales the logical size rounds down, so boxes that must reach the right or
 * bottom edge end up to one logical pixel past it; the STRETCH node's box is the box a rect
 * (bars, solid colour) needs to leave no seam there. Where the rounding cannot reach an edge
 * (an odd size at scale 2, say), center moves the frame by a pixel or crops a sliver, and tile
 * drops the unreachable frame pixels at that seam so that later tiles start a pixel early:
 * tiles stay 1:1 without gaps, but do not all start at multiples of the frame's size.
 */
int veil_geometry_compute(const struct veil_geometry_in *in, struct veil_tile *tiles, int max);

/*
 * scene/canvas.c: the same for in->canvas (which must be set): the nodes of the output's part of
 * the frame placed on the canvas in the mode, relative to the output's top-left corner. Every
 * output maps layout coordinates to frame pixels by the same function, so the picture goes on
 * across the edge between two outputs. Modes are measured in logical pixels: center and tile
 * show one frame pixel per logical pixel (two physical ones at scale 2).
 */
int veil_canvas_compute(const struct veil_geometry_in *in, struct veil_tile *tiles, int max);

#endif
