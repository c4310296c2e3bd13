/*
 * What a frame's numbers mean, as the renderer is told it (scene/compat.h): the YUV matrix and
 * range of a video's YUV frames, and the transfer function and primaries of HDR and wide-gamut
 * pictures, videos' (decode/video/colour_space.h reads them from GStreamer) and HDR stills'
 * (decode/colour.c reads them from CICP). The pixel buffers below decode/ carry it;
 * util/colour_space.c says, for the status, what becomes of it on a renderer.
 */
#ifndef VEIL_UTIL_COLOUR_SPACE_H
#define VEIL_UTIL_COLOUR_SPACE_H

#include <stdbool.h>

/* The matrix a YUV frame was encoded with. */
enum veil_yuv_matrix {
	VEIL_YUV_BT601,
	VEIL_YUV_BT709,
	VEIL_YUV_BT2020,
};

/* How the frame's values encode light: SDR video's gamma (or sRGB's), or an HDR curve. */
enum veil_transfer {
	VEIL_TRANSFER_SDR,
	VEIL_TRANSFER_PQ, /* SMPTE ST 2084 (HDR10) */
	VEIL_TRANSFER_HLG, /* ARIB STD-B67 (broadcast HDR) */
};

enum veil_primaries {
	VEIL_PRIMARIES_BT709, /* and sRGB's, and BT.601's, close enough to them */
	VEIL_PRIMARIES_BT2020,
};

/* All zero: sRGB (a still's RGB, or BT.601 limited-range YUV). */
struct veil_colour_space {
	enum veil_yuv_matrix matrix;
	bool full_range;
	enum veil_transfer transfer;
	enum veil_primaries primaries;
};

/* What a renderer does with the colour space a buffer carries. */
enum veil_colour_renderer {
	VEIL_COLOUR_RENDERER_NONE, /* wlroots 0.19: buffers carry none */
	VEIL_COLOUR_RENDERER_PIXMAN, /* carried, and ignored: the values drawn as they are */
	VEIL_COLOUR_RENDERER_APPLIED, /* wlroots 0.20's GPU renderers: PQ and primaries applied */
};

/*
 * For the status: what becomes of a picture in space on renderer, as a clause ("given to the
 * renderer as PQ with its primaries (...)"), or "" for SDR in BT.709's primaries. One text for
 * videos and HDR stills (module/control/status.c).
 */
const char *veil_colour_space_fate(const struct veil_colour_space *space,
	enum veil_colour_renderer renderer);

#endif
