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
