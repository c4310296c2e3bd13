/*
 * How many threads decode and convert a video (threads.c), wherever its pipeline runs. Knows
 * nothing of sources or processes.
 */
#ifndef VEIL_DECODE_VIDEO_THREADS_H
#define VEIL_DECODE_VIDEO_THREADS_H

#include <stdbool.h>
#include <gst/gst.h>

/*
 * Whether slice threads decode the stream of these caps (a known size and rate within 1080p60's
 * pixel rate); else libav's frame threads.
 */
bool veil_video_slice_threads_suffice(const GstStructure *s);
/* The thread that adds it: avdec decodes with fewer threads up to 1080p60. */
void veil_video_limit_decoder_threads(GstElement *decoder);
/* videoconvert's threads for the decoded stream of caps (decodebin's streaming thread). */
void veil_video_set_convert_threads(GstElement *convert, GstCaps *caps);
/* The same count, for a GstVideoConverter of frames of caps. */
guint veil_video_convert_thread_count(GstCaps *caps);

#endif
