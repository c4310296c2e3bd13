/* What differs between wlroots 0.19 and 0.20 for veil, in one place. */
#ifndef VEIL_SCENE_COMPAT_H
#define VEIL_SCENE_COMPAT_H

#include <stdbool.h>
#include <wlr/types/wlr_scene.h>
#include "util/colour_space.h"
#include "veil-config.h"

/*
 * Tells the renderer what a video frame's numbers mean: a YUV dmabuf's matrix and range (yuv),
 * and every frame's transfer function and primaries, so that HDR and wide-gamut video reach it
 * as they are (NULL: a still, sRGB). wlroots 0.20 takes them per scene buffer; 0.19 has no way
 * to say them: it converts YUV with its default (BT.601, limited range), so HD videos are off by
 * a few levels there, and shows everything as sRGB.
 */
static inline void veil_compat_set_colour_space(struct wlr_scene_buffer *node,
		const struct veil_colour_space *space, bool yuv) {
#if VEIL_WLR_MINOR >= 20
	static const struct veil_colour_space srgb = {0};
	if (space == NULL) {
		space = &srgb;
	}
	if (yuv) {
		enum wlr_color_encoding encoding = WLR_COLOR_ENCODING_BT601;
		if (space->matrix == VEIL_YUV_BT709) {
			encoding = WLR_COLOR_ENCODING_BT709;
		} else if (space->matrix == VEIL_YUV_BT2020) {
			encoding = WLR_COLOR_ENCODING_BT2020;
		}
		wlr_scene_buffer_set_color_encoding(node, encoding);
		wlr_scene_buffer_set_color_range(node,
			space->full_range ? WLR_COLOR_RANGE_FULL : WLR_COLOR_RANGE_LIMITED);
	}
	/* 0 is the scene's own default, sRGB; wlroots has no HLG curve (the status says so). */
	wlr_scene_buffer_set_transfer_function(node, space->transfer == VEIL_TRANSFER_PQ ?
		WLR_COLOR_TRANSFER_FUNCTION_ST2084_PQ : 0);
	wlr_scene_buffer_set_primaries(node, space->primaries == VEIL_PRIMARIES_BT2020 ?
		WLR_COLOR_NAMED_PRIMARIES_BT2020 : 0);
#else
	(void)node;
	(void)space;
	(void)yuv;
#endif
}

#endif
