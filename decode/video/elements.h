/*
 * What a video's pipeline is made of, read from the pipeline itself for the status: the factory
 * names of the elements that do work on the frames' way (decodebin's parsers and decoders,
 * videoconvert when it converts), so that "no conversion on the CPU" is seen, not assumed. In
 * the compositor's process (video_source.c) and in veil-decoder (helper/serve_video.c).
 */
#ifndef VEIL_DECODE_VIDEO_ELEMENTS_H
#define VEIL_DECODE_VIDEO_ELEMENTS_H

#include <stddef.h>
#include <gst/gst.h>

/*
 * The names, space-separated, source to sink, into buf (a name that does not fit is left out
 * with the rest). Any thread: the bins are read under their locks.
 */
void veil_video_describe_elements(GstElement *pipeline, char *buf, size_t size);

#endif
