/*
 * What differs between wlroots 0.19 and 0.20 for the importing test renderer, in one place.
 * 0.20 carries a YCbCr matrix and range per render-pass texture and lets a renderer say which
 * matrices it converts; 0.19 has neither, so its YUV textures are converted with BT.601, limited
 * range (what GPU renderers assume for YUV without colour information).
 */
#ifndef TESTS_RENDERER_COMPAT_H
#define TESTS_RENDERER_COMPAT_H

#include <stdbool.h>
#include <wlr/render/color.h>
#include <wlr/render/pass.h>
#include <wlr/render/wlr_renderer.h>
#include "tests/renderer/import_renderer.h"
#include "veil-config.h"

static inline void compat_set_color_encodings(struct wlr_renderer *renderer) {
#if VEIL_WLR_MINOR >= 20
	renderer->color_encodings = WLR_COLOR_ENCODING_BT601 | WLR_COLOR_ENCODING_BT709 |
		WLR_COLOR_ENCODING_BT2020;
#else
	(void)renderer;
#endif
}

/* The matrix and range to convert a YUV texture with; NONE means BT.601, limited. */
static inline void compat_get_yuv(const struct wlr_render_texture_options *options,
		enum import_yuv_matrix *matrix, bool *full_range) {
	*matrix = IMPORT_YUV_BT601;
	*full_range = false;
#if VEIL_WLR_MINOR >= 20
	if (options->color_encoding == WLR_COLOR_ENCODING_BT709) {
		*matrix = IMPORT_YUV_BT709;
	} else if (options->color_encoding == WLR_COLOR_ENCODING_BT2020) {
		*matrix = IMPORT_YUV_BT2020;
	}
	*full_range = options->color_range == WLR_COLOR_RANGE_FULL;
#else
	(void)options;
#endif
}

/*
 * What the texture's values encode, as a GPU renderer would take it: an HDR curve (PQ) or not,
 * BT.2020's primaries or not. wlroots 0.19 says neither.
 */
static inline void compat_get_colour_space(const struct wlr_render_texture_options *options,
		bool *pq, bool *bt2020) {
	*pq = false;
	*bt2020 = false;
#if VEIL_WLR_MINOR >= 20
	*pq = options->transfer_function == WLR_COLOR_TRANSFER_FUNCTION_ST2084_PQ;
	/* BT.2020's red is at x 0.708; sRGB's at 0.64. */
	*bt2020 = options->primaries != NULL && options->primaries->red.x > 0.7f;
#else
	(void)options;
#endif
}

/*
 * The pixman renderer gets RGB only: the YCbCr settings were used up by the conversion; it has
 * no colour management, so the transfer function and primaries are recorded, then dropped.
 */
static inline void compat_clear_yuv(struct wlr_render_texture_options *options) {
#if VEIL_WLR_MINOR >= 20
	options->color_encoding = WLR_COLOR_ENCODING_NONE;
	options->color_range = WLR_COLOR_RANGE_NONE;
	options->transfer_function = 0;
	options->primaries = NULL;
#else
	(void)options;
#endif
}

#endif
