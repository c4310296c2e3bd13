/*
 * What a video frame's numbers mean, from GStreamer's colorimetry: the YUV matrix and range the
 * renderer converts with, and the transfer function and primaries of HDR and wide-gamut video,
 * which the scene's buffers carry to the renderer (wlroots 0.20). One description for frames
 * decoded in process and in veil-decoder, which sends it over the wire.
 */
#ifndef VEIL_DECODE_VIDEO_COLOUR_SPACE_H
#define VEIL_DECODE_VIDEO_COLOUR_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <gst/video/video.h>
#include "util/colour_space.h"

void veil_colour_space_from_info(const GstVideoInfo *info, struct veil_colour_space *space);
/* Whether the values are in range for the wire (a helper's answer is not trusted). */
bool veil_colour_space_valid(int matrix, int full_range, int transfer, int primaries);
/*
 * For the status: "" for SDR video in BT.709's primaries, else what it is and what becomes of
 * it ("BT.2020 PQ (HDR): ..."); hdr_renderer says whether the frames reach the renderer as they
 * are with their transfer function and primaries (wlroots 0.20, YUV dmabufs), rather than
 * converted to 8-bit RGB on the way.
 */
void veil_colour_space_describe(const struct veil_colour_space *space, bool hdr_renderer,
	char *buf, size_t size);

#endif
