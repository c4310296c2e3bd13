#define _GNU_SOURCE /* F_DUPFD_CLOEXEC */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <veil/veil.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "source/remote/client.h"
#include "source/remote/frame_pool.h"
#include "source/remote/process.h"
#include "source/remote/spare.h"
#include "wire/wire.h"
#include "decode/gst.h"
#include "source/source.h"
#include "scene/dmabuf_buffer.h"
#include "scene/pixel_buffer.h"
#include "util/image.h"
#include "util/message.h"
#include "util/worker.h"

/*
 * A video played in veil-decoder (helper/serve_video.c): the helper runs the pipeline,
 * paces and loops it, and sends each frame in one of its memfds as it comes (wire.h: a video
 * streams). Here, on the compositor's thread, its socket is one fd on the event loop: a frame
 * is mapped (a new memfd, the first time round) and wrapped without a copy, and every request
 * (play, pause, the cap, the slots released) is one datagram that never blocks. Starting the
 * helper and waiting for the first frame happen on a worker; so does ending it.
 *
 * A helper that crashes, answers nonsense or stops reading costs the video, not the session:
 * the last frame stays, the status says what happened, the next command starts a new helper.
 *
 * While an output showing the video owes a frame event, the socket is not watched: a frame that
 * comes meanwhile waits in it, and the frame event, which wakes the compositor anyway, takes
 * it (as the in-process mailbox does). A frame event later than LATE_MS watches it again.
 *
 * For a renderer that imports dmabufs, the helper decodes into dmabufs the compositor allocates
 * (its registered VEIL_DMABUF_ALLOCATOR's, else udmabufs) and gives it when it asks (wire.h:
 * MEMORY): the decoder's NV12 goes to the GPU as it is, no conversion on the CPU, no copy. The
 * asks come before the first frame, on the worker; a pool made later (new caps) asks on the
 * compositor's thread, where an allocation is a few calls (a memfd, its size, an ioctl).
 *
 * A helper that sends no frame while the video plays, for the decoder's time limit plus the
 * last frame's duration (at most MAX_DURATION_MS), hangs (a decoder looping for ever, a
 * deadlock) and is ended. One timer looks out for it, woken once in that time, not per frame.
 */

#define LATE_MS 100
#define MAX_DURATION_MS 60000

/* The worker's half: starting the helper and its first frame. Freed by done() or discard(). */
struct video_start {
	struct veil_job job;
	struct video_helper_source *src; /* a cancelled job never reaches done() */
	struct veil_helper_spare *spare;
	struct veil_frame_pool *pool; /* a reference */
	GstAllocator *allocator; /* a reference, or NULL: frames in the helper's memfds */
	uint32_t dmabuf_formats[VEIL_WIRE_FORMATS];
	/*
	 * A position asked for before the helper started (ms, -1 for none): sent with the file
	 * if run() takes it in time (atomically), else by done() in a NEXT request.
	 */
	int64_t seek_ms;
	int fd;
	struct veil_helper helper;
	bool started;
	/* The result. */
	int ret;
	char *message;
	struct veil_image image;
	struct veil_decoder_video_frame frame;
};

/* Ending a helper on a worker (it may take VEIL_HELPER_EXIT_GRACE_MS): frees itself. */
struct video_end {
	struct veil_job job;
	struct veil_helper helper;
	bool kill;
};

struct video_helper_source {
	struct veil_source base;
	struct video_start *start; /* while the start job runs */
	struct veil_helper helper; /* sock -1 when none runs */
	struct veil_frame_pool *pool;
	GstAllocator *allocator; /* the dmabufs the helper decodes into, or NULL */
	struct wl_event_source *readable, *idle, *late, *hang;
	bool running; /* asked to play: shown, neither paused nor held */
	bool owed; /* an output showing it owes a frame event */
	bool watched; /* the socket wakes the compositor (not while owed, but after LATE_MS) */
	bool failed;
	int64_t heard_ms; /* CLOCK_MONOTONIC: the last frame, or when it was last asked to play */
	int duration_ms; /* of the last frame, at most MAX_DURATION_MS */
	int position_ms; /* of the last frame shown, -1 before one */
	int64_t seek_ms; /* a position to send in the next request, -1 for none */
	uint64_t frames, dropped, loops, copies, wakeups;
	pid_t pid; /* of the helper, for the status: each video's pipeline is told apart */
	int file_fd; /* ours: reopen() plays the same file, whatever its path names now */
	uint32_t drm_format;
	char decoder[32];
	char elements[VEIL_WIRE_TEXT];
};

static const struct veil_source_impl video_helper_source_impl;

static struct video_helper_source *video_helper_source_from_source(
		struct veil_source *source) {
	assert(source->impl == &video_helper_source_impl);
	struct video_helper_source *src = wl_container_of(source, src, base);
	return src;
}

static void end_run(struct veil_job *job) {
	struct video_end *end = wl_container_of(job, end, job);
	if (end->kill) {
		veil_helper_kill(&end->helper);
	}
	veil_helper_end(&end->helper, VEIL_HELPER_EXIT_GRACE_MS);
	free(end);
}

static const struct veil_job_impl end_impl = {
	.run = end_run,
};

/*
 * Hands the helper to a worker to end: it exits by itself once its socket closes, unless it
 * misbehaved (kill). Without memory for the job, ending it here is the lesser evil.
 */
static void end_helper(struct veil_source_context *ctx, struct veil_helper *helper, bool kill) {
	if (helper->sock < 0) {
		return;
	}
	struct video_end *end = calloc(1, sizeof(*end));
	if (end == NULL) {
		veil_helper_kill(helper);
		veil_helper_end(helper, 0);
	} else {
		end->helper = *helper;
		end->kill = kill;
		veil_worker_submit(ctx->worker, &end->job, &end_impl);
	}
	*helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
}

static void stop(struct video_helper_source *src, bool kill) {
	if (src->readable != NULL) {
		wl_event_source_remove(src->readable);
		src->readable = NULL;
	}
	if (src->idle != NULL) {
		wl_event_source_remove(src->idle);
		src->idle = NULL;
	}
	if (src->late != NULL) {
		wl_event_source_remove(src->late);
		src->late = NULL;
	}
	if (src->hang != NULL) {
		wl_event_source_remove(src->hang);
		src->hang = NULL;
	}
	end_helper(src->base.ctx, &src->helper, kill);
}

/* The video can't go on: its last frame stays, the status says why. */
static void fail(struct video_helper_source *src, int err, const char *why) {
	stop(src, true);
	src->failed = true;
	veil_source_set_error(&src->base, err, "'%s': %s", src->base.path, why);
	/* The next video's helper, a while after this one ended. */
	veil_helper_spare_fill(src->base.ctx->decoder_spare, VEIL_HELPER_SPARE_DELAY_MS);
}

/*
 * A dmabuf of size bytes from allocator, kept in the pool: its memory slot, with *sent a
 * descriptor of it to send; or a negative errno with a sentence.
 */
static int allocate_memory(struct veil_frame_pool *pool, GstAllocator *allocator, int size,
		int *sent, char **message) {
	*sent = -1;
	if (!veil_frame_pool_has_room(pool, (size_t)size)) {
		veil_message_set(message, "decoder asked for more than %d dmabufs or %zu MiB "
			"(another of %d bytes)", VEIL_FRAME_POOL_MEMORIES,
			VEIL_FRAME_POOL_MEMORY_BYTES >> 20, size);
		return -ENOSPC;
	}
	GstMemory *mem = allocator != NULL ?
		gst_allocator_alloc(allocator, (gsize)size, NULL) : NULL;
	int kept = mem != NULL && gst_is_dmabuf_memory(mem) ?
		fcntl(gst_dmabuf_memory_get_fd(mem), F_DUPFD_CLOEXEC, 0) : -1;
	if (mem != NULL) {
		gst_memory_unref(mem); /* the dmabuf lives on in its descriptors */
	}
	*sent = kept >= 0 ? fcntl(kept, F_DUPFD_CLOEXEC, 0) : -1;
	if (*sent < 0) {
		if (kept >= 0) {
			close(kept);
		}
		veil_message_set(message, "no dmabuf of %d bytes for the decoder", size);
		return -ENOMEM;
	}
	/* The pool takes kept in any case; it had room above, and only this thread adds. */
	int slot = veil_frame_pool_add_memory(pool, kept, (size_t)size);
	if (slot < 0) {
		close(*sent);
		*sent = -1;
		veil_message_set(message, "no room for a dmabuf of %d bytes", size);
	}
	return slot;
}

/*
 * Answers the helper's ask for size bytes with a dmabuf, or with none. 0, or a negative errno
 * with a sentence: none given (past the pool's bounds, or the allocator failed), which ends the
 * video, as veil-decoder fails without it (a hostile helper that asked on would be answered,
 * and logged, as fast as it asks); or the send failed.
 */
static int give_memory(int sock, struct veil_frame_pool *pool, GstAllocator *allocator,
		int size, char **message) {
	int sent;
	int slot = allocate_memory(pool, allocator, size, &sent, message);
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.op = VEIL_WIRE_MEMORY,
		.kind = VEIL_MEDIA_VIDEO,
		.memory = slot >= 0 ? slot : -1,
	};
	/* A refusal is sent too: veil-decoder then ends at once, not at its time limit. */
	int ret = veil_wire_send(sock, &request, sizeof(request), sent);
	if (sent >= 0) {
		close(sent);
	}
	if (slot < 0) {
		return slot;
	}
	if (ret == -EAGAIN) {
		veil_message_set(message, "decoder stopped reading its requests");
	}
	if (ret == 0) {
		wlr_log(WLR_DEBUG, "veil: dmabuf %d (%d bytes) given to a video's decoder", slot,
			size);
	}
	return ret;
}

/* A frame received and not shown: its memory goes back. */
static void drop_frame(struct veil_image *image, struct veil_decoder_video_frame *frame) {
	veil_image_finish(image);
	if (frame->memory.release != NULL) {
		frame->memory.release(frame->memory.release_data);
		frame->memory.release = NULL;
	}
}

/* Tells the helper what it may reuse, whether to play, the cap: one datagram, never waited. */
static void send_state(struct video_helper_source *src) {
	if (src->helper.sock < 0) {
		return;
	}
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.op = VEIL_WIRE_NEXT,
		.kind = VEIL_MEDIA_VIDEO,
		.playing = src->running,
		.fps = src->base.fps,
		.seek = src->seek_ms >= 0,
		.seek_ms = src->seek_ms >= 0 ? (int32_t)src->seek_ms : 0,
	};
	do {
		request.n_released = (uint32_t)veil_frame_pool_take_released(src->pool,
			request.released, VEIL_WIRE_RELEASED);
		int ret = veil_wire_send(src->helper.sock, &request, sizeof(request), -1);
		if (ret == -EAGAIN) {
			fail(src, -ETIMEDOUT, "decoder stopped reading its requests");
			return;
		}
		if (ret < 0) {
			/* It ended: its last words (a -ECHILD reply), if any, are read next. */
			return;
		}
		/* Once. */
		src->seek_ms = -1;
		request.seek = 0;
		request.seek_ms = 0;
	} while (request.n_released == VEIL_WIRE_RELEASED);
}

static void handle_idle(void *data) {
	struct video_helper_source *src = data;
	src->idle = NULL;
	send_state(src);
}

/* A frame was released (the compositor thread): the helper hears of it once this turn ends. */
static void handle_release(void *data) {
	struct video_helper_source *src = data;
	if (src->idle == NULL && src->helper.sock >= 0) {
		src->idle = wl_event_loop_add_idle(src->base.ctx->loop, handle_idle, src);
	}
}

static int64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Shows a frame received in image or frame->memory: wrapped as it is, no copy; the buffer takes
 * either over.
 */
static void show(struct video_helper_source *src, struct veil_image *image,
		struct veil_decoder_video_frame *frame) {
	src->heard_ms = now_ms();
	src->duration_ms = frame->duration_ms < MAX_DURATION_MS ?
		frame->duration_ms : MAX_DURATION_MS;
	struct wlr_buffer *buffer;
	uint32_t format;
	if (frame->memory.release != NULL) {
		format = frame->memory.dmabuf.format;
		buffer = veil_dmabuf_buffer_create(&frame->memory.dmabuf, &frame->memory.space,
			frame->memory.release, frame->memory.release_data);
		frame->memory.release = NULL;
	} else {
		format = image->drm_format;
		buffer = veil_pixel_buffer_create(image);
		if (buffer == NULL) {
			veil_image_finish(image);
		}
	}
	if (buffer == NULL) {
		return;
	}
	src->frames++;
	src->position_ms = frame->position_ms;
	bool seam = (uint64_t)frame->loops > src->loops && src->base.frame != NULL;
	src->loops = (uint64_t)frame->loops;
	src->copies = (uint64_t)frame->copies;
	src->drm_format = format;
	snprintf(src->decoder, sizeof(src->decoder), "%s", frame->decoder);
	snprintf(src->elements, sizeof(src->elements), "%s", frame->elements);
	src->base.opaque = format != DRM_FORMAT_ARGB8888;
	src->base.translucent = !src->base.opaque;
	if (seam) {
		/* Holders see the loop's last frame still (a loopfade keeps it). */
		wl_signal_emit_mutable(&src->base.events.loop, &src->base);
	}
	veil_source_set_frame(&src->base, buffer);
	wlr_buffer_drop(buffer);
}

/*
 * Takes what the socket holds: the newest frame is shown (the others released unseen), a failure
 * ends the video. Returns whether the helper still runs.
 */
static bool take_frames(struct video_helper_source *src, bool hangup) {
	struct veil_image newest = {0};
	struct veil_decoder_video_frame newest_frame;
	bool have = false;
	int ret = 0;
	char *message = NULL;
	/* A bound: a helper that floods the socket gives the compositor back after a while. */
	for (int i = 0; i < 64; i++) {
		struct veil_image image;
		struct veil_decoder_video_frame frame;
		bool answered;
		ret = veil_decoder_receive_video_frame(src->helper.sock, 0, src->pool, &image,
			&frame, &answered, &message);
		if (ret == VEIL_DECODER_MEMORY) {
			/* A pool made at new caps: its memory is given here, on this thread. */
			ret = give_memory(src->helper.sock, src->pool, src->allocator,
				frame.memory_size, &message);
			if (ret < 0) {
				break;
			}
			continue;
		}
		if (ret < 0) {
			break;
		}
		if (have) {
			src->dropped++;
			drop_frame(&newest, &newest_frame);
		}
		newest = image;
		newest_frame = frame;
		have = true;
	}
	if (have) {
		show(src, &newest, &newest_frame);
	}
	if (ret < 0 && (ret != -ETIMEDOUT || hangup)) {
		bool said = message != NULL && ret != -ETIMEDOUT;
		fail(src, ret == -ETIMEDOUT ? -EIO : ret,
			said ? message : "decoder ended without an answer");
		free(message);
		return false;
	}
	free(message);
	return true;
}

/* Watches the socket (a frame wakes the compositor), or not (it waits for a frame event). */
static void watch(struct video_helper_source *src, bool watched) {
	src->watched = watched;
	wl_event_source_fd_update(src->readable, watched ? WL_EVENT_READABLE : 0);
	wl_event_source_timer_update(src->late, watched ? 0 : LATE_MS);
}

static int handle_readable(int fd, uint32_t mask, void *data) {
	struct video_helper_source *src = data;
	src->wakeups++;
	take_frames(src, mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR));
	return 0;
}

/* No frame event for LATE_MS: frames wake the compositor again until none is owed. */
static int handle_late(void *data) {
	struct video_helper_source *src = data;
	if (take_frames(src, false)) {
		watch(src, true);
	}
	return 0;
}

/* How long a playing video's helper may send nothing before it counts as hung. */
static int64_t silence_limit_ms(const struct video_helper_source *src) {
	return (int64_t)veil_helper_spare_timeout_ms(src->base.ctx->decoder_spare) +
		src->duration_ms;
}

/* Looks out for a hang while the video plays (the timer sleeps while it doesn't). */
static void watch_hang(struct video_helper_source *src) {
	if (src->hang == NULL) {
		return;
	}
	int64_t left = src->heard_ms + silence_limit_ms(src) - now_ms();
	bool on = src->running && src->helper.sock >= 0;
	wl_event_source_timer_update(src->hang, !on ? 0 : left > 0 ? (int)left : 1);
}

static int handle_hang(void *data) {
	struct video_helper_source *src = data;
	/* Frames that wait for a frame event count. */
	if (!src->running || !take_frames(src, false)) {
		return 0;
	}
	int64_t limit = silence_limit_ms(src);
	if (now_ms() - src->heard_ms < limit) {
		watch_hang(src);
		return 0;
	}
	char why[96];
	snprintf(why, sizeof(why), "decoder sent no frame for %d s while playing",
		(int)((limit + 999) / 1000));
	fail(src, -ETIMEDOUT, why);
	return 0;
}

static void start_free(struct video_start *start) {
	if (start->started) {
		veil_helper_kill(&start->helper);
		veil_helper_end(&start->helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	drop_frame(&start->image, &start->frame);
	veil_frame_pool_unref(start->pool);
	if (start->allocator != NULL) {
		gst_object_unref(start->allocator);
	}
	if (start->fd >= 0) {
		close(start->fd);
	}
	free(start->message);
	free(start);
}

/* A worker: the helper started and handed the file, then its first frame. */
static void start_run(struct veil_job *job) {
	struct video_start *start = wl_container_of(job, start, job);
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.op = VEIL_WIRE_DECODE,
		.kind = VEIL_MEDIA_VIDEO,
	};
	memcpy(request.dmabuf_formats, start->dmabuf_formats, sizeof(request.dmabuf_formats));
	int64_t seek_ms = __atomic_exchange_n(&start->seek_ms, -1, __ATOMIC_ACQ_REL);
	if (seek_ms >= 0) {
		request.seek = 1;
		request.seek_ms = seek_ms > INT32_MAX ? INT32_MAX : (int32_t)seek_ms;
	}
	int ms = veil_decoder_begin(start->spare, &start->helper, &request, start->fd,
		&start->message);
	if (ms < 0) {
		start->ret = ms;
		return;
	}
	start->started = true;
	bool answered;
	/* Its pool's memory first, then the first frame. */
	for (;;) {
		start->ret = veil_decoder_receive_video_frame(start->helper.sock, ms, start->pool,
			&start->image, &start->frame, &answered, &start->message);
		if (start->ret != VEIL_DECODER_MEMORY) {
			veil_decoder_name_timeout(start->spare, start->ret, &start->message);
			break;
		}
		start->ret = give_memory(start->helper.sock, start->pool, start->allocator,
			start->frame.memory_size, &start->message);
		if (start->ret < 0) {
			break;
		}
	}
	close(start->fd);
	start->fd = -1;
	veil_helper_spare_fill(start->spare, VEIL_HELPER_SPARE_DELAY_MS);
}

static void start_discard(struct veil_job *job) {
	struct video_start *start = wl_container_of(job, start, job);
	start_free(start);
}

static void start_done(struct veil_job *job) {
	struct video_start *start = wl_container_of(job, start, job);
	struct video_helper_source *src = start->src;
	src->start = NULL;
	if (start->ret < 0) {
		src->failed = true;
		veil_source_set_error(&src->base, start->ret, "Cannot show '%s': %s",
			src->base.path, start->message != NULL ? start->message :
			strerror(-start->ret));
		start_free(start);
		return;
	}
	/* Requests never wait on the compositor's thread: a full socket is a helper that hangs. */
	int flags = fcntl(start->helper.sock, F_GETFL);
	if (flags < 0 || fcntl(start->helper.sock, F_SETFL, flags | O_NONBLOCK) < 0) {
		fail(src, -errno, "cannot make the decoder's socket non-blocking");
		start_free(start);
		return;
	}
	src->helper = start->helper;
	src->pid = src->helper.pid;
	/* A position asked for after run() sent the file: in the first request below. */
	int64_t seek_ms = __atomic_exchange_n(&start->seek_ms, -1, __ATOMIC_ACQ_REL);
	if (seek_ms >= 0) {
		src->seek_ms = seek_ms;
	}
	src->allocator = start->allocator != NULL ? gst_object_ref(start->allocator) : NULL;
	wlr_log(WLR_INFO, "veil: %s: playing in veil-decoder (pid %d), decoded by %s",
		src->base.path, (int)src->pid, start->frame.decoder);
	start->started = false;
	/* Frames are released on this thread from now on: each tells the helper. */
	veil_frame_pool_set_notify(src->pool, handle_release, src);
	src->readable = wl_event_loop_add_fd(src->base.ctx->loop, src->helper.sock,
		WL_EVENT_READABLE, handle_readable, src);
	src->late = wl_event_loop_add_timer(src->base.ctx->loop, handle_late, src);
	src->hang = wl_event_loop_add_timer(src->base.ctx->loop, handle_hang, src);
	src->watched = true;
	if (src->readable == NULL || src->late == NULL || src->hang == NULL) {
		fail(src, -ENOMEM, "out of memory");
		start_free(start);
		return;
	}
	show(src, &start->image, &start->frame);
	start_free(start);
	send_state(src);
	watch_hang(src);
	if (src->helper.sock >= 0 && src->owed) {
		watch(src, false);
	}
}

static const struct veil_job_impl start_impl = {
	.run = start_run,
	.done = start_done,
	.discard = start_discard,
};

/*
 * The renderer was replaced: a new source of the file, played where the new renderer wants
 * it (in process if it imports dmabufs), loading while this one's frames stay.
 */
static struct veil_source *video_helper_source_reopen(struct veil_source *source) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	return veil_video_reopen(source, src->file_fd);
}

static void video_helper_source_destroy(struct veil_source *source) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	if (src->start != NULL) {
		veil_job_cancel(&src->start->job);
	}
	stop(src, false);
	/* Frames still shown keep their memfds mapped: the pool goes with the last of them. */
	veil_frame_pool_set_notify(src->pool, NULL, NULL);
	veil_frame_pool_unref(src->pool);
	if (src->allocator != NULL) {
		gst_object_unref(src->allocator);
	}
	close(src->file_fd);
	free(src);
}

static void video_helper_source_set_visible(struct veil_source *source, bool visible) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	if (visible && !src->running) {
		src->heard_ms = now_ms(); /* a paused pipeline sends nothing: it starts again */
	}
	src->running = visible;
	send_state(src);
	watch_hang(src);
}

static void video_helper_source_set_frame_owed(struct veil_source *source, bool owed) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	src->owed = owed;
	if (src->readable == NULL) {
		return;
	}
	/* No event will come for a frame that waited for one: take it now. */
	if (owed || take_frames(src, false)) {
		watch(src, !owed);
	}
}

/* An output's frame event: the moment to show a frame that waited for it. */
static void video_helper_source_frame_event(struct veil_source *source) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	if (src->readable != NULL && src->owed && take_frames(src, false) && !src->watched) {
		wl_event_source_timer_update(src->late, LATE_MS);
	}
}

static void video_helper_source_set_fps(struct veil_source *source, int fps) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	(void)fps; /* in base.fps, sent with every request */
	send_state(src);
}

static int64_t video_helper_source_get_position_ms(struct veil_source *source) {
	return video_helper_source_from_source(source)->position_ms;
}

static void video_helper_source_seek(struct veil_source *source, int64_t ms) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	if (ms > INT32_MAX) {
		ms = INT32_MAX;
	}
	if (src->start != NULL) {
		/* With the file, or right after its first frame (start_done()). */
		__atomic_store_n(&src->start->seek_ms, ms, __ATOMIC_RELEASE);
		return;
	}
	src->seek_ms = ms;
	send_state(src);
}

static void video_helper_source_get_info(struct veil_source *source,
		struct veil_source_info *info) {
	struct video_helper_source *src = video_helper_source_from_source(source);
	if (src->failed) {
		info->state = "stopped";
	} else if (src->start != NULL || src->frames == 0) {
		info->state = "loading";
	} else {
		info->state = src->running ? "playing" : "paused";
	}
	snprintf(info->decoder, sizeof(info->decoder), "%s", src->decoder);
	info->counts = true;
	info->frames = src->frames;
	info->dropped = src->dropped;
	info->loops = src->loops;
	info->wakeups = src->wakeups;
	snprintf(info->pipeline, sizeof(info->pipeline), "veil-decoder-%d", (int)src->pid);
	snprintf(info->elements, sizeof(info->elements), "%s", src->elements);
	info->copies = src->copies;
	/* Named as GStreamer names it, as the in-process video's status does. */
	GstVideoFormat format = gst_video_dma_drm_fourcc_to_format(src->drm_format);
	if (src->frames > 0 && format != GST_VIDEO_FORMAT_UNKNOWN) {
		snprintf(info->format, sizeof(info->format), "%s",
			gst_video_format_to_string(format));
	}
}

static const struct veil_source_impl video_helper_source_impl = {
	.kind = VEIL_SOURCE_VIDEO,
	.destroy = video_helper_source_destroy,
	.set_visible = video_helper_source_set_visible,
	.get_info = video_helper_source_get_info,
	.set_fps = video_helper_source_set_fps,
	.set_frame_owed = video_helper_source_set_frame_owed,
	.frame_event = video_helper_source_frame_event,
	.reopen = video_helper_source_reopen,
	.get_position_ms = video_helper_source_get_position_ms,
	.seek = video_helper_source_seek,
};

/*
 * The dmabufs a helper decodes into for a renderer that imports them, and the formats it
 * imports linearly, best first, into formats; NULL (frames in the helper's memfds, converted to
 * XRGB8888) when it imports none of them or no allocator gives dmabufs: the compositor's own
 * when it registered one (VEIL_DMABUF_ALLOCATOR in veil.h), else /dev/udmabuf's.
 */
static GstAllocator *dmabuf_target(struct veil_source_context *ctx,
		uint32_t formats[VEIL_WIRE_FORMATS]) {
	static const uint32_t preferred[] = {
		DRM_FORMAT_NV12, DRM_FORMAT_YUV420, DRM_FORMAT_P010, DRM_FORMAT_XRGB8888,
	};
	memset(formats, 0, VEIL_WIRE_FORMATS * sizeof(*formats));
	const struct wlr_drm_format_set *set = ctx->renderer != NULL ?
		wlr_renderer_get_texture_formats(ctx->renderer, WLR_BUFFER_CAP_DMABUF) : NULL;
	if (set == NULL || set->len == 0 || veil_gst_init(NULL) != 0) {
		return NULL;
	}
	int n = 0;
	for (size_t i = 0; i < sizeof(preferred) / sizeof(preferred[0]); i++) {
		if (wlr_drm_format_set_has(set, preferred[i], DRM_FORMAT_MOD_LINEAR)) {
			formats[n++] = preferred[i];
		}
	}
	GstAllocator *allocator = NULL;
	if (n > 0) {
		allocator = gst_allocator_find(VEIL_DMABUF_ALLOCATOR);
		if (allocator == NULL) {
			allocator = gst_udmabuf_allocator_get();
		}
	}
	if (allocator == NULL) {
		formats[0] = 0;
	}
	return allocator;
}

struct veil_source *veil_video_helper_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, int *err, char **message) {
	struct video_helper_source *src = calloc(1, sizeof(*src));
	struct video_start *start = calloc(1, sizeof(*start));
	struct veil_frame_pool *pool = veil_frame_pool_create();
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int kept = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (src == NULL || start == NULL || pool == NULL || copy < 0 || kept < 0) {
		*err = copy < 0 || kept < 0 ? -errno : -ENOMEM;
		veil_message_set(message, "%s", strerror(-*err));
		goto fail;
	}
	veil_source_init(&src->base, &video_helper_source_impl, ctx, path, st);
	src->helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
	src->position_ms = -1;
	src->seek_ms = -1;
	src->pool = pool;
	src->file_fd = kept;
	snprintf(src->decoder, sizeof(src->decoder), "veil-decoder");
	*start = (struct video_start){
		.src = src,
		.spare = ctx->decoder_spare,
		.pool = pool,
		.fd = copy,
		.helper = { .pidfd = -1, .sock = -1 },
		.seek_ms = -1,
	};
	/* The worker's reference: its first frame is mapped there. */
	start->pool = veil_frame_pool_ref(pool);
	start->allocator = dmabuf_target(ctx, start->dmabuf_formats);
	src->start = start;
	veil_worker_submit(ctx->worker, &start->job, &start_impl);
	return &src->base;

fail:
	if (copy >= 0) {
		close(copy);
	}
	if (kept >= 0) {
		close(kept);
	}
	veil_frame_pool_unref(pool);
	free(start);
	free(src);
	free(path);
	return NULL;
}
