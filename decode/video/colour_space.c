#include <stdio.h>
#include "decode/video/colour_space.h"

void veil_colour_space_from_info(const GstVideoInfo *info, struct veil_colour_space *space) {
	const GstVideoColorimetry *c = &info->colorimetry;
	*space = (struct veil_colour_space){
		.matrix = c->matrix == GST_VIDEO_COLOR_MATRIX_BT709 ? VEIL_YUV_BT709 :
			c->matrix == GST_VIDEO_COLOR_MATRIX_BT2020 ? VEIL_YUV_BT2020 : VEIL_YUV_BT601,
		.full_range = c->range == GST_VIDEO_COLOR_RANGE_0_255,
		.transfer = c->transfer == GST_VIDEO_TRANSFER_SMPTE2084 ? VEIL_TRANSFER_PQ :
			c->transfer == GST_VIDEO_TRANSFER_ARIB_STD_B67 ? VEIL_TRANSFER_HLG :
			VEIL_TRANSFER_SDR,
		.primaries = c->primaries == GST_VIDEO_COLOR_PRIMARIES_BT2020 ?
			VEIL_PRIMARIES_BT2020 : VEIL_PRIMARIES_BT709,
	};
}

bool veil_colour_space_valid(int matrix, int full_range, int transfer, int primaries) {
	return matrix >= VEIL_YUV_BT601 && matrix <= VEIL_YUV_BT2020 && full_range >= 0 &&
		full_range <= 1 && transfer >= VEIL_TRANSFER_SDR && transfer <= VEIL_TRANSFER_HLG &&
		primaries >= VEIL_PRIMARIES_BT709 && primaries <= VEIL_PRIMARIES_BT2020;
}

void veil_colour_space_describe(const struct veil_colour_space *space, bool hdr_renderer,
		char *buf, size_t size) {
	const char *primaries = space->primaries == VEIL_PRIMARIES_BT2020 ? "BT.2020" : "BT.709";
	if (space->transfer == VEIL_TRANSFER_SDR) {
		/* Wide gamut without HDR: the renderer maps the primaries where it can. */
		snprintf(buf, size, "%s", space->primaries == VEIL_PRIMARIES_BT709 ? "" :
			hdr_renderer ? "BT.2020 (SDR): primaries given to the renderer" :
			"BT.2020 (SDR): shown as BT.709, colours less saturated");
		return;
	}
	const char *curve = space->transfer == VEIL_TRANSFER_PQ ? "PQ" : "HLG";
	if (!hdr_renderer) {
		snprintf(buf, size, "%s %s (HDR): its values shown as SDR, no tone mapping (looks "
			"dim and flat; the renderer is told nothing of HDR here)", primaries, curve);
	} else if (space->transfer == VEIL_TRANSFER_PQ) {
		snprintf(buf, size, "%s PQ (HDR): transfer function and primaries given to the "
			"renderer (HDR outputs show it as HDR, SDR ones as the renderer maps it)",
			primaries);
	} else {
		snprintf(buf, size, "%s HLG (HDR): wlroots has no HLG transfer function; given as "
			"SDR, primaries given", primaries);
	}
}
