/*
 * The one video player: a GStreamer pipeline that turns a file into decoded frames,
 *
 *   filesrc ! decodebin ! videoconvert ! appsink
 *
 * and everything its streaming threads decide on the way: which decoder decodes (hardware
 * first, VA only on the renderer's GPU, or software only), which stream is shown, the largest
 * size taken, the refusals and their sentences, an element's first error, the frame rate cap and
 * the threads (rate.h, threads.h), each loop after the last in running time (segment_chain.h).
 *
 * It knows nothing of processes, outputs or the compositor: its frames go to a frame sink it is
 * given (struct veil_player_sink), the appsink callbacks. In the compositor's process the sink
 * is the mailbox and veil's buffers (source/video_source.c); in veil-decoder it is the wire to
 * the compositor (helper/serve_video.c). Whoever owns the player drives its states,
 * its bus and its seeks.
 */
#ifndef VEIL_DECODE_VIDEO_PLAYER_H
#define VEIL_DECODE_VIDEO_PLAYER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "decode/video/loop_guard.h"
#include "decode/video/rate.h"
#include "decode/video/segment_chain.h"

/* Larger videos are refused, before a decoder allocates frames for them. */
#define VEIL_VIDEO_MAX_SIDE 8192

/* Where the player's frames go: appsink's callbacks, on its streaming thread (data: the sink's). */
struct veil_player_sink {
	GstFlowReturn (*new_sample)(GstAppSink *sink, gpointer data);
	GstFlowReturn (*new_preroll)(GstAppSink *sink, gpointer data);
	gboolean (*propose_allocation)(GstAppSink *sink, GstQuery *query, gpointer data);
	void *data;
	/* appsink's queue: frames waiting for the sink, and whether more are dropped (else wait). */
	unsigned max_buffers;
	bool drop;
};

struct veil_player {
	/* Set before veil_player_build(), then only read, by every thread. */
	const char *name; /* for log lines */
	int file_fd; /* the file; filesrc opens it again through /proc/self/fd */
	GstCaps *sink_caps; /* what appsink accepts (borrowed) */
	bool hardware; /* hardware decoders may decode (not in veil-decoder's sandbox) */
	const char *render_device; /* sysfs device of the renderer's DRM node, NULL for none */
	struct veil_player_sink sink_impl;

	/* Built by veil_player_build(); streaming threads read the element pointers. */
	GstElement *pipeline; /* owns decodebin, convert and sink */
	GstElement *decodebin, *convert, *sink;
	GstBus *bus;
	GstTaskPool *task_pool; /* the streaming threads */
	bool push_mode; /* read through fdsrc: no segment seeks */

	/* Under lock: what the streaming threads learn about the stream. */
	pthread_mutex_t lock;
	int refused_err; /* a streaming thread refused the stream (too large, ...) */
	char *refused;
	char *decoder; /* factory name of the video decoder in use, NULL for none (yet) */
	bool decoder_hw;
	unsigned decoder_serial; /* counts decoders: decodebin may replace one */
	bool linked; /* a video pad of decodebin is linked */
	/* The media type of a video stream no installed decoder takes (decodebin's unknown-type). */
	char *unknown_type;
	GstMessage *child_error; /* the first error of an element inside decodebin */

	/* The streaming thread of decodebin's video pad. */
	bool caps_refused;
	/* appsink's streaming thread: each loop after the last in running time. */
	struct veil_segment_chain chain;
	/* videoconvert's and the decoder's streaming threads, and the cap set by any thread. */
	struct veil_video_rate rate;

	/* Whoever drives the pipeline (its bus): looping. */
	bool segment_looping; /* segment seeks work: loops are gapless */
	bool eos_fallback_logged;
	struct veil_loop_guard loop_guard; /* loops that bring nothing stop the video */
	/* Its bus (bus.c): what decodebin reported missing, the restarts, a lost error's wait. */
	char *missing;
	int restarts;
	int64_t child_deadline; /* g_get_monotonic_time(), 0 for none */
};

/* Before anything else: the lock. */
void veil_player_init(struct veil_player *player);
/*
 * Builds the pipeline (a worker, or veil-decoder's main thread): the elements, their signals, the
 * bus and the task pool; nothing runs yet. 0, or a negative errno with a sentence in *message.
 */
int veil_player_build(struct veil_player *player, char **message);
/*
 * Once its streaming threads are gone (the pipeline in NULL, to start again): forgets the stream
 * they had linked, its caps and loops; the decoder, refusals and the pipeline are kept.
 */
void veil_player_forget(struct veil_player *player);
/*
 * The end (a worker, or veil-decoder's main thread): the pipeline to NULL (joins the streaming
 * threads, which may take a while), then everything freed. The file is the owner's.
 */
void veil_player_finish(struct veil_player *player);

/*
 * Any thread: the stream is refused (err < 0, message taken over). The first refusal is kept and
 * an application message "veil-refused" is posted on the bus for the owner to act on.
 */
void veil_player_refuse(struct veil_player *player, int err, char *message);
/*
 * An error message of the pipeline as a sentence for the status (the details GStreamer adds for
 * developers go to the log); its negative errno.
 */
int veil_player_describe_error(struct veil_player *player, GstMessage *msg, char **message);
/* Streaming thread: refuses caps larger than VEIL_VIDEO_MAX_SIDE. Whether they are fine. */
bool veil_player_check_size(struct veil_player *player, const GstCaps *caps);

/* After the first frame (the owner's thread): arms gapless looping where the stream can. */
void veil_player_start_looping(struct veil_player *player);
/*
 * The owner's thread (never the compositor's: a flushing seek waits for the streaming threads):
 * goes on from ms into the stream, accurately, keeping gapless looping where it is armed.
 * Whether the pipeline took the seek.
 */
bool veil_player_seek(struct veil_player *player, int64_t ms);
/* Any thread: a sample's place in its stream (stream time), in ms; -1 when unknown. */
int64_t veil_player_sample_position_ms(GstSample *sample);

/* What a bus message means to the player's owner (veil_player_handle_message()). */
enum veil_player_event {
	VEIL_PLAYER_OWN, /* not the player's: the owner's (the first frame, loop ends, its own) */
	VEIL_PLAYER_HANDLED, /* nothing for the owner */
	VEIL_PLAYER_RESTARTED, /* autoplugging starts again: the owner forgets frames it holds */
	VEIL_PLAYER_FAILED, /* the video fails: a negative errno in *err, a sentence in *message */
};

/*
 * The owner's bus handler, for what both owners share (bus.c): errors and refusals as the
 * sentences a user reads, missing plugins, warnings, a lost clock, latency; while starting
 * (before the first frame, on a thread that may wait), restarts after a not-linked race and
 * the wait for an element's error decodebin may lose (veil_player_handle_deadline()).
 */
enum veil_player_event veil_player_handle_message(struct veil_player *player, GstMessage *msg,
	bool starting, int *err, char **message);
/* While player->child_deadline is set and passed: an element's error decodebin did not pass on. */
enum veil_player_event veil_player_handle_deadline(struct veil_player *player, int *err,
	char **message);

/*
 * The end of a loop came from the bus (EOS, or SEGMENT_DONE): starts it again, unless the loop
 * guard stops it (a sentence in *message) or keeps its one frame. frames: frames delivered so
 * far.
 */
enum veil_loop_verdict veil_player_loop_end(struct veil_player *player, bool eos,
	uint64_t frames, char **message);

#endif
