/*
 * Each loop's segment after the last one in running time, in the compositor's process
 * (pipeline.c) and in veil-decoder (helper/serve_video.c) alike.
 *
 * A loop's segment must start where the previous one ended in running time, or appsink finds
 * every frame late and shows the whole loop at once (no pacing, a loop per frame time). qtdemux
 * in pull mode gets it right; baseparse (H.264 without a container) and demuxers in push mode
 * give the new segment a base from the start, or none. Where that happens, the segment is moved
 * to where the last frame ended. A probe on appsink's sink pad: its streaming thread only, but
 * for veil_segment_chain_reset() while that thread is stopped.
 */
#ifndef VEIL_DECODE_VIDEO_SEGMENT_CHAIN_H
#define VEIL_DECODE_VIDEO_SEGMENT_CHAIN_H

#include <stdbool.h>
#include <gst/gst.h>

struct veil_segment_chain {
	const char *name; /* the file, for the log; not owned */
	GstSegment segment; /* the last one that came */
	bool have_segment;
	GstClockTime end; /* running time where the last buffer ended */
	bool logged; /* the first move was logged */
};

void veil_segment_chain_init(struct veil_segment_chain *chain, const char *name);

/* The pipeline was taken down to a state where running time starts again. */
void veil_segment_chain_reset(struct veil_segment_chain *chain);

/* Adds the probe (data: the chain, which must outlive the pad's streaming) to appsink's pad. */
void veil_segment_chain_attach(struct veil_segment_chain *chain, GstElement *sink);

#endif
