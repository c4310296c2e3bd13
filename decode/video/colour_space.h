/*
 * What a video frame's numbers mean, from GStreamer's colorimetry: the YUV matrix and range the
 * renderer converts with, and the transfer function and primaries of HDR and wide-gamut video,
 * which the scene's buffers carry to the renderer (wlroots 0.20). One description for frames
 * decoded in process and in veil-decoder, which sends it over the wire.
 */
#ifndef VEIL_DECODE_VIDEO_COLOUR_SPACE_H
#define VEIL_DECODE_VIDEO_COLOUR_SPACE_H

#include <stdbool.h>
#include <gst/video/video.h>
#include "util/colour_space.h"

void veil_colour_space_from_info(const GstVideoInfo *info, struct veil_colour_space *space);
/* Whether the values are in range for the wire (a helper's answer is not trusted). */
bool veil_colour_space_valid(int matrix, int full_range, int transfer, int primaries);
#endif
