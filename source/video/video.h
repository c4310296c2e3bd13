/*
 * A video: one GStreamer pipeline per file, shared by every output that shows it,
 *
 *   filesrc ! decodebin ! videoconvert ! appsink
 *
 * decodebin plugs a demuxer, a parser and a decoder (hardware first, VA only on the renderer's
 * GPU) and exposes raw video only; videoconvert converts only when the renderer can't take the
 * decoder's frames as they are (it is in passthrough otherwise and costs nothing); appsink paces
 * the frames at their presentation time and hands them over without a copy.
 *
 * Threads:
 * - The compositor thread creates the source (cheap work only) and later takes frames, drains
 *   the bus and changes states. It never builds, prerolls or stops a pipeline.
 * - A veil worker (util/worker.h) runs one job of the source at a time: the load (build the
 *   pipeline, preroll the first frame, arm looping), a stop after a failure (NULL state), and
 *   the teardown after the last reference went.
 * - GStreamer's streaming threads (veil's task pool: they end with the pipeline) run the
 *   decodebin and appsink callbacks; they put the newest sample into the mailbox, the only
 *   hand-off of frames between threads.
 *
 * Files: decode/video/player.c (the pipeline and its streaming threads' decisions, shared
 * with veil-decoder), and here decoder.c (what the renderer takes), bus.c (errors, preroll),
 * mailbox.c (frames between threads), loop.c (looping), pool.c (udmabuf pool), and
 * source/video_source.c (vtable, state, lifetime).
 */
#ifndef VEIL_SOURCE_VIDEO_VIDEO_H
#define VEIL_SOURCE_VIDEO_VIDEO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "source/source.h"
#include "decode/video/elements.h"
#include "decode/video/player.h"
#include "scene/sample_buffer.h"
#include "util/worker.h"


/*
 * The newest decoded sample on its way from a streaming thread to the compositor thread, and the
 * eventfd that wakes the compositor for it. Everything but wake_fd is under lock.
 */
struct veil_video_mailbox {
	pthread_mutex_t lock;
	int wake_fd; /* fixed from init to finish */
	GstSample *sample; /* the newest sample nobody took yet */
	uint64_t delivered; /* samples put in */
	uint64_t dropped; /* samples replaced before they were taken */
	/* Frames copied on their way to the renderer (into the dmabuf pool: see pool.c). */
	uint64_t copies;
	bool wake_written; /* wake_fd holds a wake-up the compositor has not read yet */
	/* Some output showing the video owes a frame event: a new sample waits for it. */
	bool frame_owed;
	/* The buffer put in last (identity only, no reference): a preroll is rendered again. */
	const GstBuffer *last_buffer;
	GstClockTime last_pts;
	/*
	 * A sample put in since the last take went back in time: the video started again (a
	 * loop's seam). Kept through dropped samples until a take.
	 */
	bool seam;
};

/* The udmabuf pool offered to decoders; the streaming thread that negotiates allocation's. */
struct veil_video_pool {
	GstBufferPool *pool;
	GstCaps *caps;
	GstVideoInfo info;
	bool activated; /* by us, to copy frames that did not come from it */
	bool logged_upload;
};

struct video_source {
	struct veil_source base;

	/*
	 * Set on the compositor thread before the load job is submitted, then only read, by every
	 * thread, until the teardown frees them.
	 */
	char *name; /* the path for log lines: base.path goes with the last reference */
	int file_fd; /* ours; filesrc opens it again through /proc/self/fd */
	char *render_device; /* sysfs device of the renderer's DRM node, NULL without one */
	GstAllocator *udmabuf; /* NULL unless the renderer takes dmabufs and udmabufs are made */
	uint32_t *linear_formats; /* DRM formats the renderer imports as linear dmabufs */
	size_t n_linear_formats;
	GstCaps *sink_caps; /* what appsink accepts: what the renderer takes */

	/* Frames between threads; its own lock. */
	struct veil_video_mailbox mailbox;

	/*
	 * The pipeline and what its streaming threads learn (player.h). Built by the load job (a
	 * worker), then the compositor thread's, then the teardown's (a worker); a stop job only
	 * changes its state. The load is restarted (see bus.c) before streaming threads exist, or
	 * after they are joined.
	 */
	struct veil_player player;
	unsigned logged_decoder_serial; /* the compositor thread's, written under player.lock */

	/* The streaming thread that answers appsink's allocation queries. */
	struct veil_video_pool pool;

	/* The load job's results: written by run() on a worker, read by done(). */
	int load_err; /* the load's negative errno, also the error_code of a failed load */
	char *load_message;
	GstSample *first;
	bool stopped; /* the failed load left the pipeline in NULL */

	/* Compositor thread only. */
	struct veil_job job; /* the load, a stop or the teardown: one at a time */
	bool job_pending; /* job submitted and its done() not run yet */
	struct wl_event_source *wake_source, *bus_source;
	GstCaps *caps; /* of the frames, parsed into format */
	struct veil_sample_format format;
	uint64_t frames, loops;
	uint64_t wakeups; /* times the streaming threads woke the compositor (wake_fd) */
	bool visible, paused; /* asked for; applied once loaded */
	int64_t position_ms; /* of the frame shown (stream time), -1 before the first */
	/*
	 * A seek asked for (ms into the stream), -1 for none: set on the compositor thread, taken
	 * (atomically) by the job that carries it out, the load's or a seek's (video_source.c).
	 */
	int64_t seek_ms;
	bool loading, created, failed;
	GstState target;
};

/* video_source.c, compositor thread: stops the pipeline for good; the last good frame stays. */
void veil_video_source_fail(struct video_source *src, const char *message);
/*
 * The constructor with the allocator of the udmabuf pool given (borrowed; NULL for none): a
 * memfd-backed one where /dev/udmabuf is missing, for the unit test.
 */
struct veil_source *veil_video_source_create_with_allocator(struct veil_source_context *ctx,
	int fd, char *path, const struct stat *st, GstAllocator *udmabuf, int *err,
	char **message);
/* Why the load failed, as a negative errno; 0 when it did not (or not yet). */

/* decoder.c */
/* Compositor thread, at creation: the renderer's device and formats, appsink's caps. */
void veil_video_inspect_renderer(struct video_source *src, struct wlr_renderer *renderer,
	GstAllocator *udmabuf);
/* Compositor thread: logs which decoder decodes, once per decoder. */
void veil_video_log_decoder(struct video_source *src);

/* bus.c */
/*
 * The load job: waits (bounded) until the first frame is decoded or the stream fails. Returns
 * 0 or a negative errno with a sentence in *message.
 */
int veil_video_wait_preroll(struct video_source *src, char **message);
/* Compositor thread: the bus's poll fd is readable. */
int veil_video_handle_bus(int fd, uint32_t mask, void *data);

/* mailbox.c */
int veil_video_mailbox_init(struct veil_video_mailbox *mailbox);
/* Any thread, once nothing puts samples in any more. */
void veil_video_mailbox_finish(struct veil_video_mailbox *mailbox);
/* Any thread: the waiting sample (a reference), NULL for none. */
GstSample *veil_video_mailbox_take(struct veil_video_mailbox *mailbox);
/* The same, and whether a loop's seam came since the last take (seam may be NULL). */
GstSample *veil_video_mailbox_take_seam(struct veil_video_mailbox *mailbox, bool *seam);
/* Streaming threads gone: forgets the sample and the last buffer (a load starts again). */
void veil_video_mailbox_reset(struct veil_video_mailbox *mailbox);
/* Any thread: consumes the wake-up, so that the next sample writes one again. */
void veil_video_mailbox_read_wake(struct veil_video_mailbox *mailbox, const char *name);
uint64_t veil_video_mailbox_delivered(struct veil_video_mailbox *mailbox);
/* Streaming thread, appsink's callbacks: a decoded sample to show. */
GstFlowReturn veil_video_handle_new_sample(GstAppSink *sink, gpointer data);
GstFlowReturn veil_video_handle_new_preroll(GstAppSink *sink, gpointer data);
/*
 * Compositor thread: wraps a sample (taken over) for the renderer. Returns it, or NULL with a
 * negative errno in *err and a sentence in *message.
 */
struct wlr_buffer *veil_video_wrap_sample(struct video_source *src, GstSample *sample,
	int *err, char **message);
/* Compositor thread: shows the waiting sample, if there is one. */
void veil_video_take_waiting_frame(struct video_source *src);
int veil_video_handle_wake(int fd, uint32_t mask, void *data);
void veil_video_set_frame_owed(struct video_source *src, bool owed);

/* loop.c */
/* The load job, after the first frame: arms gapless looping. */
void veil_video_start_looping(struct video_source *src);
/* Compositor thread: the end of a loop came from the bus (EOS or SEGMENT_DONE). */
void veil_video_handle_loop_end(struct video_source *src, bool eos);

/* pool.c, the streaming thread that negotiates allocation */
/*
 * Offers decoders a pool of udmabufs from allocator for system-memory formats the renderer
 * imports linearly (linear_formats), so that no upload copy is made.
 */
void veil_video_pool_offer(struct veil_video_pool *pool, GstAllocator *allocator,
	const uint32_t *linear_formats, size_t n_linear_formats, GstQuery *query,
	const char *name);
/*
 * Copies a frame that did not come from the pool into it (into a pool of its own caps when no
 * element asked for one); returns the sample to show, and whether it is a copy in *copied.
 */
GstSample *veil_video_pool_upload(struct veil_video_pool *pool, GstAllocator *allocator,
	const uint32_t *linear_formats, size_t n_linear_formats, GstSample *sample,
	const char *name, bool *copied);
/* Any thread, once no streaming thread uses the pool. */
void veil_video_pool_finish(struct veil_video_pool *pool);
/* appsink's allocation query (data: the source): the udmabuf pool, where there is one. */
gboolean veil_video_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data);

#endif
