/*
 * When a video should stop looping, in the compositor's process (loop.c) and in veil-decoder
 * (helper/serve_video.c) alike. Loops that take nothing (no duration, timestamps a
 * demuxer gets wrong, a file cut short or rewritten while it plays, whose index then points
 * past its end) would spin: after MAX_FAST_LOOPS loops of less than FAST_LOOP_US each, or
 * MAX_STILL_LOOPS loops of one frame at most once it moved, the video stops on its last frame;
 * a video of one frame stays, without looping; one that ends before its first frame (cut
 * short) stops with a sentence. Pure bookkeeping: the caller's thread only.
 */
#ifndef VEIL_DECODE_VIDEO_LOOP_GUARD_H
#define VEIL_DECODE_VIDEO_LOOP_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#define VEIL_FAST_LOOP_US 20000
#define VEIL_MAX_FAST_LOOPS 10
#define VEIL_MAX_STILL_LOOPS 3

struct veil_loop_guard {
	int64_t last_us; /* when the last loop ended */
	int fast, still; /* loops in a row that took less than VEIL_FAST_LOOP_US, or <= 1 frame */
	uint64_t frames_at_loop; /* frames delivered when the last loop ended */
	bool moved; /* a loop brought more than one frame: a moving picture, not a still */
};

enum veil_loop_verdict {
	VEIL_LOOP_AGAIN, /* start it again */
	VEIL_LOOP_STAY, /* one frame a loop: it stays, without looping */
	VEIL_LOOP_STOP, /* stop on the last frame (a sentence in *message) */
};

/* A loop ended at now_us (a monotonic clock), frames delivered since the video started. */
enum veil_loop_verdict veil_loop_guard_end(struct veil_loop_guard *guard, int64_t now_us,
	uint64_t frames, char **message);

#endif
