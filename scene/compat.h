/* What differs between wlroots 0.19 and 0.20 for veil, in one place. */
#ifndef VEIL_SCENE_COMPAT_H
#define VEIL_SCENE_COMPAT_H

#include <stdbool.h>
#include <wlr/types/wlr_scene.h>
#include "veil-config.h"

/* The matrix a YUV frame was encoded with. */
enum veil_yuv_matrix {
	VEIL_YUV_BT601,
	VEIL_YUV_BT709,
	VEIL_YUV_BT2020,
};

/*
 * Tells the renderer how to turn a YUV dmabuf into RGB. wlroots 0.20 takes it per scene buffer;
 * 0.19 has no way to say it and converts with its default (BT.601, limited range), so HD videos
 * are off by a few levels there.
 */
static inline void veil_compat_set_yuv(struct wlr_scene_buffer *node,
		enum veil_yuv_matrix matrix, bool full_range) {
#if VEIL_WLR_MINOR >= 20
	enum wlr_color_encoding encoding = WLR_COLOR_ENCODING_BT601;
	if (matrix == VEIL_YUV_BT709) {
		encoding = WLR_COLOR_ENCODING_BT709;
	} else if (matrix == VEIL_YUV_BT2020) {
		encoding = WLR_COLOR_ENCODING_BT2020;
	}
	wlr_scene_buffer_set_color_encoding(node, encoding);
	wlr_scene_buffer_set_color_range(node,
		full_range ? WLR_COLOR_RANGE_FULL : WLR_COLOR_RANGE_LIMITED);
#else
	(void)node;
	(void)matrix;
	(void)full_range;
#endif
}

#endif
