#include "util/colour_space.h"

const char *veil_colour_space_fate(const struct veil_colour_space *space,
		enum veil_colour_renderer renderer) {
	if (space->transfer == VEIL_TRANSFER_SDR) {
		/* Wide gamut without HDR: the renderer maps the primaries where it can. */
		if (space->primaries == VEIL_PRIMARIES_BT709) {
			return "";
		}
		return renderer == VEIL_COLOUR_RENDERER_APPLIED ? "primaries given to the renderer" :
			"shown as BT.709, colours less saturated";
	}
	switch (renderer) {
	case VEIL_COLOUR_RENDERER_NONE:
		return "shown as SDR without tone mapping (sRGB assumed: wlroots 0.19 takes no "
			"transfer function; looks washed out)";
	case VEIL_COLOUR_RENDERER_PIXMAN:
		return "shown as SDR without tone mapping (the pixman renderer ignores the "
			"transfer function; looks washed out there)";
	case VEIL_COLOUR_RENDERER_APPLIED:
		break;
	}
	if (space->transfer == VEIL_TRANSFER_PQ) {
		return "given to the renderer as PQ with its primaries (HDR outputs show it as "
			"HDR, SDR ones as the renderer maps it)";
	}
	return "shown as SDR: wlroots has no HLG transfer function (primaries given to the "
		"renderer)";
}
