/*
 * The frame rate cap of a video's pipeline (`veil fps <N>`, or on battery), wherever the pipeline
 * runs (in the compositor's process, decode/video/pipeline.c, or in veil-decoder,
 * helper/serve_video.c): frames beyond it are dropped before they are converted, and
 * libav skips decoding those no other frame needs. Knows nothing of sources or processes.
 */
#ifndef VEIL_DECODE_VIDEO_RATE_H
#define VEIL_DECODE_VIDEO_RATE_H

#include <stdbool.h>
#include <gst/gst.h>

struct veil_video_rate {
	int fps; /* atomic: set on the compositor thread; 0 for no cap */
	bool decoder_watched; /* atomic: the decoder is avdec and its probe is on */
	bool skip; /* atomic: the decoder should skip non-reference frames now */
	/* videoconvert's sink pad's streaming thread */
	GstSegment segment;
	guint32 segment_seqnum;
	bool have_segment;
	GstClockTime next; /* running time of the next frame to keep; NONE: the next one */
	int stream_fps_n, stream_fps_d; /* 0/0 when unknown */
	bool skip_failed; /* skipping left fewer frames than the cap: never again */
	GstClockTime check_start;
	guint64 check_frames;
	/* the decoder's sink pad's streaming thread */
	GstSegment decoder_segment;
	guint32 decoder_seqnum;
	bool have_decoder_segment;
	bool decoder_skipping; /* the last segment the decoder got says so */
};

/* Building the pipeline: the probe that caps the frame rate, on convert's sink pad. */
void veil_video_rate_install(struct veil_video_rate *rate, GstElement *convert);
/* The thread that adds it: a libav decoder may skip frames for the cap. */
void veil_video_rate_watch_decoder(struct veil_video_rate *rate, GstElement *decoder);
/* Any thread: at most fps frames a second from now on (0: all). */
void veil_video_rate_set_fps(struct veil_video_rate *rate, int fps);

#endif
