/*
 * How many threads decode and convert a video (threads.c), wherever its pipeline runs. Knows
 * nothing of sources or processes.
 */
#ifndef VEIL_DECODE_VIDEO_THREADS_H
#define VEIL_DECODE_VIDEO_THREADS_H

#include <gst/gst.h>

/* The thread that adds it: avdec decodes with fewer threads up to 1080p60. */
void veil_video_limit_decoder_threads(GstElement *decoder);
/* videoconvert's threads for the decoded stream of caps (decodebin's streaming thread). */
void veil_video_set_convert_threads(GstElement *convert, GstCaps *caps);
/* The same count, for a GstVideoConverter of frames of caps. */
guint veil_video_convert_thread_count(GstCaps *caps);

#endif
