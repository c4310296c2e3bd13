/*
 * The dominant colours of a picture, for theming tools (the status's "palette"): computed on a
 * worker from a small copy of the picture (64x64 at most, scene/frame_read.h) by median cut.
 *
 * The method, a variance-based median cut: the copy is point-sampled (each pixel the picture's
 * own, no blend of two at an edge); every opaque pixel (straight colour; fully transparent ones
 * are left out) starts in one box; the box whose pixels are farthest from their mean (the
 * largest sum of squared distances) is cut in two where that sum falls the most, along the
 * channel where it falls the most, between two values of that channel; until there are
 * VEIL_PALETTE_SIZE boxes or none holds two colours. Each box gives the mean of its pixels,
 * and the palette lists them by pixel count, most first (ties by colour), so the same picture
 * always gives the same palette. A picture of fewer colours gives fewer entries: a solid colour
 * gives one, exactly that colour. tests/bench/palette.py compares it with ImageMagick's
 * `-colors 5` (docs/measurements.md).
 */
#ifndef VEIL_UTIL_PALETTE_H
#define VEIL_UTIL_PALETTE_H

#include <stdint.h>

struct veil_image;

#define VEIL_PALETTE_SIZE 5
/* The side of the small copy the palette is computed from. */
#define VEIL_PALETTE_SAMPLE 64

struct veil_palette {
	int n; /* 0: none (not computed, or no opaque pixel) */
	uint32_t colors[VEIL_PALETTE_SIZE]; /* 0xRRGGBB, most pixels first */
};

/*
 * image is DRM_FORMAT_XRGB8888 or DRM_FORMAT_ARGB8888 (premultiplied). 0 or -ENOMEM (palette
 * then empty).
 */
int veil_palette_compute(const struct veil_image *image, struct veil_palette *palette);

#endif
