#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "decode/gst.h"
#include "source/video/video.h"
#include "util/message.h"

/*
 * The video source's vtable, state and lifetime; see source/video/video.h for the pipeline and
 * its threads. A source is returned at once, loading: its first frame comes from the load job.
 * The struct lives until the teardown job (or the discard of a cancelled job) frees it on a
 * worker, after the pipeline's streaming threads are joined: nothing that holds it outlives it.
 */

static const struct veil_source_impl video_source_impl;

/* How long a seek's job waits for the frame at its position. */
#define SEEK_WAIT (5 * GST_SECOND)

static struct video_source *video_source_from_source(struct veil_source *source) {
	assert(source->impl == &video_source_impl);
	struct video_source *src = wl_container_of(source, src, base);
	return src;
}

/* A worker, or the compositor thread for a source that never had a pipeline. */
static void teardown(struct video_source *src) {
	bool had_pipeline = src->player.pipeline != NULL;
	/* NULL first: it joins the streaming threads, which use everything below. */
	veil_player_finish(&src->player);
	if (src->file_fd >= 0) {
		close(src->file_fd);
	}
	veil_video_mailbox_finish(&src->mailbox);
	if (src->first != NULL) {
		gst_sample_unref(src->first);
	}
	veil_video_pool_finish(&src->pool);
	if (src->udmabuf != NULL) {
		gst_object_unref(src->udmabuf);
	}
	if (src->sink_caps != NULL) {
		gst_caps_unref(src->sink_caps);
	}
	if (src->caps != NULL) {
		gst_caps_unref(src->caps);
	}
	free(src->load_message);
	free(src->linear_formats);
	free(src->render_device);
	free(src->name);
	free(src);
	if (!had_pipeline) {
		return;
	}
	/*
	 * These two act on the whole process, which is why they run here, on a worker, and once
	 * per pipeline. GStreamer runs short jobs (gst_element_call_async) on GLib's shared pool,
	 * which keeps idle threads 15 s: end the idle ones now; whoever needs one gets a new one.
	 */
	g_thread_pool_stop_unused_threads();
#ifdef __GLIBC__
	/*
	 * The decoder's threads freed their frames into glibc arenas of their own, which keep the
	 * pages: after videos played, glibc kept 75-103 MiB of heap in the 500-switch soak, which
	 * passes with default arenas once this gives the free pages back.
	 */
	malloc_trim(0);
#endif
}

static void teardown_run(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	teardown(src);
}

/* Fire and forget: run() frees the job with the source. */
static const struct veil_job_impl teardown_impl = {
	.run = teardown_run,
};

static void discard_job(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	teardown(src);
}

/* The job that stops a failed pipeline: NULL joins streaming threads, which may take a while. */
static void stop_run(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	gst_element_set_state(src->player.pipeline, GST_STATE_NULL);
}

static void stop_done(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	src->job_pending = false;
}

static const struct veil_job_impl stop_impl = {
	.run = stop_run,
	.done = stop_done,
	.discard = discard_job,
};

void veil_video_source_fail(struct video_source *src, const char *message) {
	if (src->failed) {
		return;
	}
	src->failed = true;
	GstSample *sample = veil_video_mailbox_take(&src->mailbox);
	if (sample != NULL) {
		gst_sample_unref(sample);
	}
	/* No job runs now: a load's done() is where a load fails, and a stop comes once. */
	assert(!src->job_pending);
	if (src->player.pipeline != NULL && !src->stopped) {
		src->job_pending = true;
		veil_worker_submit(src->base.ctx->worker, &src->job, &stop_impl);
	}
	/*
	 * Last: a holder may let go of the source when it hears of the error. The status shows
	 * the sentence alone: it names the file.
	 */
	int err = src->load_err < 0 ? src->load_err : -EIO;
	if (src->created) {
		veil_source_set_error(&src->base, err, "'%s': %s", src->base.path, message);
	} else {
		veil_source_set_error(&src->base, err, "Cannot show '%s': %s", src->base.path,
			message);
	}
}

static void update_state(struct video_source *src) {
	if (src->failed || !src->created) {
		return;
	}
	GstState want = src->visible && !src->paused ? GST_STATE_PLAYING : GST_STATE_PAUSED;
	if (want == src->target) {
		return;
	}
	src->target = want;
	/* Asynchronous: PAUSED blocks the streaming thread at the sink, nothing more is decoded. */
	if (gst_element_set_state(src->player.pipeline, want) == GST_STATE_CHANGE_FAILURE) {
		veil_video_source_fail(src, "The video pipeline refused to change state");
	}
}

/* The load job, on a worker: everything up to the first frame. */
static int load(struct video_source *src, char **message) {
	int ret = veil_player_build(&src->player, message);
	if (ret < 0) {
		return ret;
	}
	/* PAUSED prerolls: the first frame is decoded, or the stream fails. */
	if (gst_element_set_state(src->player.pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		/* The element that failed has posted why. */
		ret = veil_video_wait_preroll(src, message);
		if (ret == 0) {
			ret = -EINVAL;
			veil_message_set(message, "The video pipeline cannot start");
		}
		return ret;
	}
	ret = veil_video_wait_preroll(src, message);
	if (ret < 0) {
		return ret;
	}
	/* The frame is taken here; the wake-up the streaming thread wrote is stale. */
	veil_video_mailbox_read_wake(&src->mailbox, src->name);
	src->first = veil_video_mailbox_take(&src->mailbox);
	if (src->first == NULL) {
		veil_message_set(message, "The video gave no frame");
		return -EINVAL;
	}
	veil_video_start_looping(src);
	/* A position asked for before the first frame: that frame is the one at the position. */
	int64_t ms = __atomic_exchange_n(&src->seek_ms, -1, __ATOMIC_ACQ_REL);
	if (ms > 0 && veil_player_seek(&src->player, ms) &&
			gst_element_get_state(src->player.pipeline, NULL, NULL, SEEK_WAIT) !=
			GST_STATE_CHANGE_FAILURE) {
		veil_video_mailbox_read_wake(&src->mailbox, src->name);
		GstSample *there = veil_video_mailbox_take(&src->mailbox);
		if (there != NULL) {
			gst_sample_unref(src->first);
			src->first = there;
		}
	}
	return 0;
}

/* The seek job: a seek asked for after the load, carried out on a worker. */
static void seek_run(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	int64_t ms = __atomic_exchange_n(&src->seek_ms, -1, __ATOMIC_ACQ_REL);
	if (ms >= 0 && veil_player_seek(&src->player, ms)) {
		/* Until the frame there is prerolled: one seek at a time. */
		gst_element_get_state(src->player.pipeline, NULL, NULL, SEEK_WAIT);
	}
}

static void maybe_seek(struct video_source *src);

static void seek_done(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	src->job_pending = false;
	maybe_seek(src);
}

static const struct veil_job_impl seek_impl = {
	.run = seek_run,
	.done = seek_done,
	.discard = discard_job,
};

/* A seek asked for and not carried out: its job, once no other job of the source runs. */
static void maybe_seek(struct video_source *src) {
	if (src->job_pending || !src->created || src->failed ||
			__atomic_load_n(&src->seek_ms, __ATOMIC_ACQUIRE) < 0) {
		return;
	}
	src->job_pending = true;
	veil_worker_submit(src->base.ctx->worker, &src->job, &seek_impl);
}

static void load_run(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	src->load_err = load(src, &src->load_message);
	if (src->load_err < 0 && src->player.pipeline != NULL) {
		/* Here rather than on the compositor thread: it joins the streaming threads. */
		gst_element_set_state(src->player.pipeline, GST_STATE_NULL);
		src->stopped = true;
	}
}

/* Compositor thread: the first frame is decoded. Returns 0 or -errno and a sentence. */
static int start(struct video_source *src, char **message) {
	GstSample *first = src->first;
	src->first = NULL;
	int ret;
	struct wlr_buffer *frame = veil_video_wrap_sample(src, first, &ret, message);
	if (frame == NULL) {
		return ret;
	}
	struct wl_event_loop *loop = src->base.ctx->loop;
	src->wake_source = wl_event_loop_add_fd(loop, src->mailbox.wake_fd, WL_EVENT_READABLE,
		veil_video_handle_wake, src);
	GPollFD pollfd;
	gst_bus_get_pollfd(src->player.bus, &pollfd);
	src->bus_source = wl_event_loop_add_fd(loop, pollfd.fd, WL_EVENT_READABLE,
		veil_video_handle_bus, src);
	if (src->wake_source == NULL || src->bus_source == NULL) {
		wlr_buffer_drop(frame);
		veil_message_set(message, "Cannot watch the video pipeline");
		return -ENOMEM;
	}

	veil_video_log_decoder(src);
	if (src->logged_decoder_serial == 0) {
		wlr_log(WLR_INFO, "veil: %s: video decoder: none (raw video)", src->name);
	}
	src->created = true;
	src->frames++;
	wlr_log(WLR_INFO, "veil: %s: %dx%d video, pipeline %s", src->name, frame->width,
		frame->height, GST_OBJECT_NAME(src->player.pipeline));
	/* What set_visible and set_paused asked for while it loaded. */
	update_state(src);
	if (src->failed) {
		wlr_buffer_drop(frame);
		return 0;
	}
	/* Last: the holders swap wallpapers now, and may let go of other sources meanwhile. */
	veil_source_set_frame(&src->base, frame);
	wlr_buffer_drop(frame);
	return 0;
}

static void load_done(struct veil_job *job) {
	struct video_source *src = wl_container_of(job, src, job);
	src->job_pending = false;
	src->loading = false;
	char *message = src->load_message;
	src->load_message = NULL;
	int ret = src->load_err;
	if (ret == 0) {
		ret = start(src, &message);
	}
	if (ret < 0) {
		src->load_err = ret;
		veil_video_source_fail(src, message != NULL ? message : "The video can't be played");
	}
	free(message);
	/* A seek asked for after the load job had looked. */
	maybe_seek(src);
}

static const struct veil_job_impl load_impl = {
	.run = load_run,
	.done = load_done,
	.discard = discard_job,
};

static void video_source_set_visible(struct veil_source *source, bool visible) {
	struct video_source *src = video_source_from_source(source);
	src->visible = visible;
	update_state(src);
}

static void video_source_set_paused(struct veil_source *source, bool paused) {
	struct video_source *src = video_source_from_source(source);
	src->paused = paused;
	update_state(src);
}

static void video_source_set_fps(struct veil_source *source, int fps) {
	veil_video_rate_set_fps(&video_source_from_source(source)->player.rate, fps);
}

static void video_source_frame_event(struct veil_source *source) {
	veil_video_take_waiting_frame(video_source_from_source(source));
}

static void video_source_set_frame_owed(struct veil_source *source, bool owed) {
	veil_video_set_frame_owed(video_source_from_source(source), owed);
}

static int64_t video_source_get_position_ms(struct veil_source *source) {
	struct video_source *src = video_source_from_source(source);
	return src->created ? src->position_ms : -1;
}

static void video_source_seek(struct veil_source *source, int64_t ms) {
	struct video_source *src = video_source_from_source(source);
	__atomic_store_n(&src->seek_ms, ms, __ATOMIC_RELEASE);
	maybe_seek(src);
}

static const char *state_name(struct video_source *src) {
	if (src->loading) {
		return "loading";
	}
	if (src->failed) {
		return "stopped";
	}
	return src->target == GST_STATE_PLAYING ? "playing" : "paused";
}

static void video_source_get_info(struct veil_source *source, struct veil_source_info *info) {
	struct video_source *src = video_source_from_source(source);
	pthread_mutex_lock(&src->player.lock);
	snprintf(info->decoder, sizeof(info->decoder), "%s",
		src->player.decoder != NULL ? src->player.decoder : "");
	info->hardware = src->player.decoder_hw;
	pthread_mutex_unlock(&src->player.lock);
	pthread_mutex_lock(&src->mailbox.lock);
	info->dropped = src->mailbox.dropped;
	info->copies = src->mailbox.copies;
	pthread_mutex_unlock(&src->mailbox.lock);

	info->state = state_name(src);
	info->counts = true;
	info->frames = src->frames;
	info->loops = src->loops;
	info->wakeups = src->wakeups;
	/* The load job builds the pipeline: not to be looked at before its done(). */
	if (!src->loading && src->player.pipeline != NULL) {
		snprintf(info->pipeline, sizeof(info->pipeline), "%s",
			GST_OBJECT_NAME(src->player.pipeline));
		veil_video_describe_elements(src->player.pipeline, info->elements, sizeof(info->elements));
	}
	if (src->caps != NULL) {
		char *format = src->format.dma_drm ?
			gst_video_dma_drm_fourcc_to_string(src->format.drm_format,
				src->format.modifier) :
			g_strdup(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&src->format.info)));
		snprintf(info->format, sizeof(info->format), "%s", format != NULL ? format : "");
		g_free(format);
	}
}

/*
 * veil_source_unref has released the frame, path and error. The compositor thread lets go of
 * its event sources; the rest goes on a worker, where stopping the pipeline may block.
 */
static void video_source_destroy(struct veil_source *source) {
	struct video_source *src = video_source_from_source(source);
	if (src->wake_source != NULL) {
		wl_event_source_remove(src->wake_source);
		src->wake_source = NULL;
	}
	if (src->bus_source != NULL) {
		wl_event_source_remove(src->bus_source);
		src->bus_source = NULL;
	}
	if (src->job_pending) {
		/* The job may be running: its discard() tears down once the worker is done with it. */
		veil_job_cancel(&src->job);
		return;
	}
	if (src->player.pipeline == NULL) {
		/* Nothing would block: a creation that failed before the load job. */
		teardown(src);
		return;
	}
	veil_worker_submit(src->base.ctx->worker, &src->job, &teardown_impl);
}

static struct veil_source *video_source_reopen(struct veil_source *source) {
	struct video_source *src = video_source_from_source(source);
	/* Our descriptor: the file the source plays, even if its path names another now. */
	return veil_video_reopen(source, src->file_fd);
}

static const struct veil_source_impl video_source_impl = {
	.kind = VEIL_SOURCE_VIDEO,
	.destroy = video_source_destroy,
	.set_visible = video_source_set_visible,
	.set_paused = video_source_set_paused,
	.get_info = video_source_get_info,
	.reopen = video_source_reopen,
	.set_frame_owed = video_source_set_frame_owed,
	.frame_event = video_source_frame_event,
	.set_fps = video_source_set_fps,
	.get_position_ms = video_source_get_position_ms,
	.seek = video_source_seek,
};

struct veil_source *veil_video_source_create_with_allocator(struct veil_source_context *ctx,
		int fd, char *path, const struct stat *st, GstAllocator *udmabuf, int *err,
		char **message) {
	*err = 0;
	*message = NULL;
	char *why = NULL;
	if (veil_gst_init(&why) < 0) {
		veil_message_set(message, "GStreamer cannot start: %s",
			why != NULL ? why : "out of memory");
		free(why);
		*err = -ENOTSUP;
		free(path);
		return NULL;
	}
	struct video_source *src = calloc(1, sizeof(*src));
	if (src == NULL) {
		*err = -ENOMEM;
		veil_message_set(message, "Out of memory");
		free(path);
		return NULL;
	}
	/* A failure below unlinks the source again (veil_source_unref). */
	veil_source_init(&src->base, &video_source_impl, ctx, path, st);
	src->target = GST_STATE_PAUSED;
	src->position_ms = -1;
	src->seek_ms = -1;
	veil_player_init(&src->player);
	src->name = strdup(path);
	int ret = veil_video_mailbox_init(&src->mailbox);
	src->file_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (src->file_fd < 0 && ret == 0) {
		ret = -errno;
	}
	if (ret < 0) {
		veil_message_set(message, "Cannot open the video: %s", strerror(-ret));
		goto error;
	}
	if (src->name == NULL) {
		ret = -ENOMEM;
		veil_message_set(message, "Out of memory");
		goto error;
	}
	veil_video_inspect_renderer(src, ctx->renderer, udmabuf);
	/* In this process: hardware decoders too, on the renderer's GPU. */
	src->player.name = src->name;
	src->player.file_fd = src->file_fd;
	src->player.sink_caps = src->sink_caps;
	src->player.hardware = true;
	src->player.render_device = src->render_device;
	src->player.sink_impl = (struct veil_player_sink){
		.new_sample = veil_video_handle_new_sample,
		.new_preroll = veil_video_handle_new_preroll,
		.propose_allocation = veil_video_propose_allocation,
		.data = src,
		/* A short queue keeps frames in the decoder's pool; the mailbox keeps the newest. */
		.max_buffers = 2,
		.drop = true,
	};

	/* Decoding starts when an output shows it (set_visible), once loaded. */
	src->loading = true;
	src->job_pending = true;
	veil_worker_submit(ctx->worker, &src->job, &load_impl);
	return &src->base;

error:
	wlr_log(WLR_DEBUG, "veil: %s: %s", path, *message != NULL ? *message : "cannot open");
	*err = ret;
	veil_source_unref(&src->base);
	return NULL;
}

struct veil_source *veil_video_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, int *err, char **message) {
	GstAllocator *udmabuf = NULL;
	const struct wlr_drm_format_set *formats = ctx->renderer != NULL ?
		wlr_renderer_get_texture_formats(ctx->renderer, WLR_BUFFER_CAP_DMABUF) : NULL;
	/*
	 * Only for a renderer that imports dmabufs. The compositor's own dmabuf allocator when it
	 * registered one (VEIL_DMABUF_ALLOCATOR in veil.h), else /dev/udmabuf's.
	 */
	if (formats != NULL && formats->len > 0 && veil_gst_init(NULL) == 0) {
		udmabuf = gst_allocator_find(VEIL_DMABUF_ALLOCATOR);
		if (udmabuf == NULL) {
			udmabuf = gst_udmabuf_allocator_get();
		}
	}
	struct veil_source *source = veil_video_source_create_with_allocator(ctx, fd, path, st,
		udmabuf, err, message);
	if (udmabuf != NULL) {
		gst_object_unref(udmabuf);
	}
	return source;
}
