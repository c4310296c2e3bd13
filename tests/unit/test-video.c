/*
 * Video sources and sample buffers, without a compositor: a wl_event_loop, a source context with
 * no renderer (the system-memory RGB path pixman takes) and media made here with ffmpeg.
 *
 * What can't run here (no GPU, no /dev/udmabuf): decoding into dmabufs (VA and other hardware
 * decoders), the renderer's DMA_DRM caps and the udmabuf pool. The dmabuf bookkeeping is tested
 * with memfd-backed GstDmaBufMemory instead: the attributes a GPU renderer would import.
 */
#define _GNU_SOURCE /* memfd_create */
#include <dirent.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <wayland-server-core.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/interface.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "veil-config.h"
#include "decode/sniff.h"
#include "decode/video/avcodec_decoder.h"
#include "source/source.h"
#include "source/video/video.h"
#include "scene/sample_buffer.h"
#include "util/worker.h"
#include "check.h"

static char dir[] = "/tmp/veil-test-video-XXXXXX";

static char *media(const char *name) {
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

static bool run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool run(const char *fmt, ...) {
	char cmd[2048];
	va_list args;
	va_start(args, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, args);
	va_end(args);
	int status = system(cmd);
	if (status != 0) {
		fprintf(stderr, "command failed (%d): %s\n", status, cmd);
	}
	return status == 0;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int count_dir(const char *path) {
	DIR *d = opendir(path);
	if (d == NULL) {
		return -1;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		n += e->d_name[0] != '.';
	}
	closedir(d);
	return n;
}

/* What a holder of the source sees: every frame signal, and the colour of the frame. */
enum colour { OTHER, RED, GREEN, BLUE, N_COLOURS };

struct viewer {
	struct wl_listener frame;
	struct veil_source *source;
	int signals;
	int seen[N_COLOURS];
	enum colour last;
	double last_time, max_gap; /* between frame signals */
	int width, height; /* of the frame last signalled */
};

static enum colour colour_of(struct wlr_buffer *buffer) {
	void *data;
	uint32_t format;
	size_t stride;
	if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data,
			&format, &stride)) {
		return OTHER;
	}
	enum colour c = OTHER;
	if (format == DRM_FORMAT_XRGB8888) {
		const uint8_t *px = (const uint8_t *)data + (buffer->height / 2) * stride +
			(buffer->width / 2) * 4;
		int b = px[0], g = px[1], r = px[2];
		/* Through YUV 4:2:0 and back: near, not exact. */
		if (r > 200 && g < 50 && b < 50) {
			c = RED;
		} else if (r < 50 && g > 200 && b < 50) {
			c = GREEN;
		} else if (r < 50 && g < 50 && b > 200) {
			c = BLUE;
		}
	}
	wlr_buffer_end_data_ptr_access(buffer);
	return c;
}

static void handle_frame(struct wl_listener *listener, void *data) {
	struct viewer *viewer = wl_container_of(listener, viewer, frame);
	viewer->signals++;
	double t = now();
	if (viewer->last_time > 0 && t - viewer->last_time > viewer->max_gap) {
		viewer->max_gap = t - viewer->last_time;
	}
	viewer->last_time = t;
	viewer->width = viewer->source->width;
	viewer->height = viewer->source->height;
	if (viewer->source->frame != NULL) {
		viewer->last = colour_of(viewer->source->frame);
		viewer->seen[viewer->last]++;
	}
}

static void watch(struct viewer *viewer, struct veil_source *source) {
	*viewer = (struct viewer){ .source = source };
	viewer->frame.notify = handle_frame;
	wl_signal_add(&source->events.frame, &viewer->frame);
}

static void dispatch_for(struct wl_event_loop *loop, double seconds) {
	double end = now() + seconds;
	double left;
	while ((left = end - now()) > 0) {
		wl_event_loop_dispatch(loop, (int)(left * 1000) + 1);
	}
}

/*
 * A video opens on a worker: its first frame (or its error) comes through the event loop.
 * Returns whether the frame came.
 */
static bool wait_loaded(struct wl_event_loop *loop, struct veil_source *source) {
	double end = now() + 10;
	while (source->frame == NULL && source->error == NULL && now() < end) {
		wl_event_loop_dispatch(loop, 50);
	}
	return source->frame != NULL;
}

/*
 * Opens a video and waits for its load. A failure, at open or while loading, is returned like
 * veil_source_open's: NULL, an errno and a sentence.
 */
static struct veil_source *open_loaded(struct veil_source_context *ctx, const char *path,
		int *err, char **message) {
	struct veil_source *source = veil_source_open(ctx, path, false, VEIL_IMAGE_FILTER_LINEAR,
		(struct veil_cover){ 0, 0 }, err, message);
	if (source == NULL || wait_loaded(ctx->loop, source)) {
		return source;
	}
	*err = source->error_code;
	free(*message);
	*message = source->error != NULL ? strdup(source->error) : NULL;
	veil_source_unref(source);
	return NULL;
}

/*
 * Teardowns run on the worker: a new worker, once the old one ran them all and joined its
 * threads, leaves only what is still open.
 */
static void settle(struct veil_source_context *ctx) {
	veil_worker_destroy(ctx->worker);
	ctx->worker = veil_worker_create(ctx->loop);
}

static int no_timer(void *data) {
	return 0;
}

static struct veil_source_info info_of(struct veil_source *source) {
	struct veil_source_info info = {0};
	source->impl->get_info(source, &info);
	return info;
}

static int64_t status_int(struct veil_source *source, const char *key) {
	struct veil_source_info info = info_of(source);
	if (!info.counts) {
		return -1;
	}
	return (int64_t)(strcmp(key, "frames") == 0 ? info.frames :
		strcmp(key, "dropped") == 0 ? info.dropped :
		strcmp(key, "loops") == 0 ? info.loops :
		strcmp(key, "wakeups") == 0 ? info.wakeups : (uint64_t)-1);
}

static const char *info_string(const struct veil_source_info *info, const char *key) {
	const char *value = strcmp(key, "decoder") == 0 ? info->decoder :
		strcmp(key, "format") == 0 ? info->format :
		strcmp(key, "pipeline") == 0 ? info->pipeline :
		strcmp(key, "state") == 0 ? info->state : NULL;
	return value != NULL && value[0] != '\0' ? value : NULL;
}

static bool status_is(struct veil_source *source, const char *key, const char *want) {
	struct veil_source_info info = info_of(source);
	const char *value = info_string(&info, key);
	bool ok = value != NULL && strcmp(value, want) == 0;
	if (!ok) {
		fprintf(stderr, "status: %s is %s, not %s\n", key, value != NULL ? value : "null",
			want);
	}
	return ok;
}

static bool status_null(struct veil_source *source, const char *key) {
	struct veil_source_info info = info_of(source);
	return info_string(&info, key) == NULL;
}

static bool make_media(void) {
	/*
	 * 64x48, 20 fps, red, green and blue for 6 frames each (0.9 s), H.264 with AAC audio
	 * (which must not be decoded); moov at the end, as ffmpeg writes by default.
	 */
	const char *colours =
		"color=c=0xff0000:s=64x48:r=20:d=0.3[a];"
		"color=c=0x00ff00:s=64x48:r=20:d=0.3[b];"
		"color=c=0x0000ff:s=64x48:r=20:d=0.3[c];"
		"[a][b][c]concat=n=3:v=1:a=0[out0]";
	return run("ffmpeg -nostdin -v error -y -f lavfi -i '%s' -f lavfi -i sine=d=0.9 "
			"-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 6 -bf 0 "
			"-c:a aac -shortest %s", colours, media("colours.mp4")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i '%s' -c:v libx264 -preset ultrafast "
			"-pix_fmt yuv420p -g 6 -movflags +faststart %s", colours,
			media("faststart.mp4")) &&
		/* Dirac (VC-2): GStreamer here has a parser for it but no decoder. */
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=64x48:r=10:d=0.5 "
			"-c:v vc2 -strict experimental %s", media("dirac.mkv")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i sine=d=0.5 -c:a libopus %s",
			media("audio.mkv")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=32x32:r=10:d=0.5 "
			"-loop 0 %s", media("anim.gif")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=64x48:r=20:d=0.3 "
			"-pix_fmt yuv420p %s", media("raw.y4m")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=64x48:r=20:d=0.05 "
			"-c:v libx264 -preset ultrafast -pix_fmt yuv420p %s", media("one.mp4")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=32x32:d=0.1 -frames:v 1 "
			"%s", media("still.png")) &&
		/* Without moov (it is at the end): not playable at all. */
		run("head -c $(( $(stat -c %%s %s) / 2 )) %s > %s", media("colours.mp4"),
			media("colours.mp4"), media("truncated.mp4")) &&
		/* moov first, mdat cut: the first frames decode, then the data ends. */
		run("head -c $(( $(stat -c %%s %s) * 2 / 3 )) %s > %s", media("faststart.mp4"),
			media("faststart.mp4"), media("cut.mp4")) &&
		/* Made 16384x16384 by patching its headers (make_huge). */
		run("ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=64x48:r=10:d=0.5 "
			"-c:v mjpeg %s", media("huge.avi")) &&
		run("cp %s %s", media("colours.mp4"), media("deleted.mp4")) &&
		run("cp %s %s", media("colours.mp4"), media("emptied.mp4")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i color=c=0xff0000:s=64x48:r=20:d=0.5 "
			"-c:v libx264 -preset ultrafast -pix_fmt yuv420p -bf 0 -f h264 %s",
			media("red.h264")) &&
		run("ffmpeg -nostdin -v error -y -f lavfi -i color=c=0x0000ff:s=32x32:r=20:d=0.5 "
			"-c:v libx264 -preset ultrafast -pix_fmt yuv420p -bf 0 -f h264 %s",
			media("blue.h264")) &&
		/* 8200x16: over the limit, and cheap to encode. */
		run("ffmpeg -nostdin -v error -y -f lavfi -i color=c=0x00ff00:s=8200x16:r=20:d=0.2 "
			"-c:v libx264 -preset ultrafast -pix_fmt yuv420p -bf 0 -f h264 %s",
			media("wide.h264")) &&
		run("cat %s %s > %s", media("red.h264"), media("blue.h264"), media("sizes.h264")) &&
		run("cat %s %s > %s", media("red.h264"), media("wide.h264"), media("later.h264"));
}

static void test_sniff(void) {
	struct {
		const char *name;
		bool video;
	} cases[] = {
		{ "colours.mp4", true },
		{ "dirac.mkv", true },
		{ "anim.gif", true },
		{ "still.png", false },
		{ "huge.avi", true },
		{ "audio.mkv", false },
		{ "garbage.mp4", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = open(media(cases[i].name), O_RDONLY | O_CLOEXEC);
		bool video = fd >= 0 && veil_media_sniff(fd, NULL) == VEIL_MEDIA_VIDEO;
		CHECK(fd >= 0 && video == cases[i].video, "%s", cases[i].name);
		close(fd);
	}
}

static void test_playback(struct veil_source_context *ctx) {
	int err;
	char *message;
	/* Opening returns at once: no frame, no size, loading. */
	double opened = now();
	struct veil_source *loading = veil_source_open(ctx, media("colours.mp4"), false,
		VEIL_IMAGE_FILTER_LINEAR, (struct veil_cover){ 0, 0 }, &err, &message);
	printf("colours.mp4: open returned in %.1f ms\n", (now() - opened) * 1000);
	CHECK(loading != NULL && err == 0, "%d %s", err, message ? message : "");
	free(message);
	if (loading != NULL) {
		CHECK(loading->frame == NULL && loading->width == 0 && loading->error == NULL);
		CHECK(status_is(loading, "state", "loading"));
		/* Shown while it loads: it plays once loaded. */
		veil_source_add_viewers(loading, 1);
		CHECK(wait_loaded(ctx->loop, loading) && loading->width == 64);
		printf("colours.mp4: first frame %.1f ms after open\n", (now() - opened) * 1000);
		CHECK(status_is(loading, "state", "playing"));
		veil_source_add_viewers(loading, -1);
		veil_source_unref(loading);
	}
	loading = veil_source_open(ctx, media("colours.mp4"), false,
		VEIL_IMAGE_FILTER_LINEAR, (struct veil_cover){ 0, 0 }, &err, &message);
	CHECK(loading != NULL && loading->frame == NULL, "%d %s", err, message ? message : "");
	free(message);
	/* Let go while it loads: the job's discard frees it on the worker. */
	veil_source_unref(loading);
	struct veil_source *source = open_loaded(ctx, media("colours.mp4"), &err, &message);
	CHECK(source != NULL && err == 0, "%d %s", err, message ? message : "");
	free(message);
	if (source == NULL) {
		return;
	}
	CHECK(source->impl->kind == VEIL_SOURCE_VIDEO);
	/* The first frame is there when the load is done: no black flash, no old wallpaper. */
	CHECK(source->frame != NULL && veil_sample_buffer_is(source->frame));
	CHECK(source->width == 64 && source->height == 48, "%dx%d", source->width,
		source->height);
	CHECK(source->opaque);
	CHECK(source->frame != NULL && colour_of(source->frame) == RED);
	/* veil's own decoder over libavcodec where it is built, ranked above avdec. */
	CHECK(status_is(source, "decoder",
		VEIL_HAVE_LIBAVCODEC ? VEIL_AVCODEC_DECODER_NAME : "avdec_h264"));
	CHECK(status_is(source, "state", "paused"));
	CHECK(status_is(source, "format", "BGRx"));

	/* Two outputs showing the file share the source and its pipeline. */
	struct veil_source *again = open_loaded(ctx, media("colours.mp4"), &err, &message);
	CHECK(again == source && source->refs == 2);
	free(message);
	veil_source_unref(again);

	struct viewer viewer;
	watch(&viewer, source);
	/* Shown nowhere yet: nothing plays (the first loop's re-preroll may show frame 0). */
	dispatch_for(ctx->loop, 0.3);
	CHECK(viewer.signals <= 1, "%d frames while hidden", viewer.signals);

	veil_source_add_viewers(source, 1);
	CHECK(status_is(source, "state", "playing"));
	dispatch_for(ctx->loop, 0.1);
	viewer.max_gap = 0;
	double start = now();
	dispatch_for(ctx->loop, 2.5);
	double elapsed = now() - start;
	int64_t frames = status_int(source, "frames");
	int64_t loops = status_int(source, "loops");
	printf("playing %.2f s: %d frame signals (red %d, green %d, blue %d, other %d), "
		"%" PRId64 " frames taken, %" PRId64 " dropped, %" PRId64 " loops\n",
		elapsed, viewer.signals, viewer.seen[RED], viewer.seen[GREEN], viewer.seen[BLUE],
		viewer.seen[OTHER], frames, status_int(source, "dropped"), loops);
	CHECK(viewer.seen[RED] > 0 && viewer.seen[GREEN] > 0 && viewer.seen[BLUE] > 0);
	CHECK(viewer.seen[OTHER] == 0);
	/* 0.9 s a loop: loops counted, and gapless (a frame every 50 ms, across loops too). */
	CHECK(loops >= 2, "%" PRId64 " loops", loops);
	CHECK(viewer.max_gap < 0.12, "%.3f s between two frames", viewer.max_gap);
	/* 20 fps: about 50 frames, one wake-up and one frame signal each, no more. */
	CHECK(viewer.signals >= 35 && viewer.signals <= 20 * elapsed + 3, "%d", viewer.signals);
	CHECK(source->error == NULL);

	/* Pause: at most the frame the sink prerolls on, then nothing. */
	veil_source_set_paused(source, true);
	CHECK(status_is(source, "state", "paused"));
	dispatch_for(ctx->loop, 0.3);
	int paused_at = viewer.signals;
	dispatch_for(ctx->loop, 0.7);
	CHECK(viewer.signals == paused_at, "%d frames while paused",
		viewer.signals - paused_at);
	veil_source_set_paused(source, false);
	int resumed_at = viewer.signals;
	dispatch_for(ctx->loop, 0.5);
	CHECK(viewer.signals > resumed_at + 5, "%d frames after resume",
		viewer.signals - resumed_at);

	/* Hidden (no output shows it): the same. */
	veil_source_add_viewers(source, -1);
	dispatch_for(ctx->loop, 0.3);
	int hidden_at = viewer.signals;
	dispatch_for(ctx->loop, 0.7);
	CHECK(viewer.signals == hidden_at, "%d frames while hidden", viewer.signals - hidden_at);

	wl_list_remove(&viewer.frame.link);
	/* A frame a consumer still holds outlives the source (and its pipeline). */
	struct wlr_buffer *held = wlr_buffer_lock(source->frame);
	veil_source_unref(source);
	CHECK(colour_of(held) != OTHER);
	wlr_buffer_unlock(held);
}

/* Opens a video and shows it (one viewer) for `seconds`: NULL, a failed check, if it can't. */
static struct veil_source *play(struct veil_source_context *ctx, const char *name,
		struct viewer *viewer, double seconds) {
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media(name), &err, &message);
	CHECK(source != NULL, "%s: %s", name, message != NULL ? message : "");
	free(message);
	if (source == NULL) {
		return NULL;
	}
	watch(viewer, source);
	veil_source_add_viewers(source, 1);
	dispatch_for(ctx->loop, seconds);
	return source;
}

/* Undoes play(), or the same steps done by hand. */
static void stop_playing(struct veil_source *source, struct viewer *viewer) {
	veil_source_add_viewers(source, -1);
	wl_list_remove(&viewer->frame.link);
	veil_source_unref(source);
}

/*
 * While an output owes a frame event, frames wait for it instead of waking the compositor:
 * taken at each frame event, no wake-up; without events (a late one), every other frame
 * wakes, so the picture still moves; no longer owed, wake-ups come back, one per frame.
 */
static void test_frame_event(struct veil_source_context *ctx) {
	struct viewer viewer;
	struct veil_source *source = play(ctx, "colours.mp4", &viewer, 0.3);
	if (source == NULL) {
		return;
	}

	/* As a 100 Hz output would: commit, frame event 10 ms later, commit again. */
	int signals = viewer.signals;
	int64_t wakeups = status_int(source, "wakeups");
	int64_t dropped = status_int(source, "dropped");
	veil_source_add_owed(source, 1);
	double start = now();
	while (now() - start < 1.5) {
		dispatch_for(ctx->loop, 0.01);
		veil_source_frame_event(source);
	}
	int taken = viewer.signals - signals;
	int64_t woke = status_int(source, "wakeups") - wakeups;
	int64_t lost = status_int(source, "dropped") - dropped;
	printf("owed, frame events every 10 ms, 1.5 s: %d frames, %" PRId64 " wake-ups, %" PRId64
		" dropped\n", taken, woke, lost);
	CHECK(taken >= 20 && woke <= 2 && lost <= 2, "%d frames, %" PRId64 " wake-ups, %" PRId64
		" dropped", taken, woke, lost);

	/* The events stop coming (the output stalled): the second frame waiting wakes. */
	signals = viewer.signals;
	wakeups = status_int(source, "wakeups");
	dispatch_for(ctx->loop, 1.5);
	taken = viewer.signals - signals;
	woke = status_int(source, "wakeups") - wakeups;
	printf("owed, no frame events, 1.5 s: %d frames, %" PRId64 " wake-ups\n", taken, woke);
	CHECK(taken >= 8 && taken <= 20 && woke == taken, "%d frames, %" PRId64 " wake-ups",
		taken, woke);

	/* Not owed any more: one wake-up per frame again. */
	veil_source_add_owed(source, -1);
	signals = viewer.signals;
	wakeups = status_int(source, "wakeups");
	dispatch_for(ctx->loop, 1.5);
	taken = viewer.signals - signals;
	woke = status_int(source, "wakeups") - wakeups;
	printf("not owed, 1.5 s: %d frames, %" PRId64 " wake-ups\n", taken, woke);
	CHECK(taken >= 20 && woke >= taken - 1 && woke <= taken + 1, "%d frames, %" PRId64
		" wake-ups", taken, woke);
	stop_playing(source, &viewer);
}

/*
 * H.264 without a container (its end comes as EOS: looping by flushing seeks), changing size
 * in the middle: the holders see the new size with the first frame of it.
 */
static void test_resize(struct veil_source_context *ctx) {
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("sizes.h264"), &err, &message);
	CHECK(source != NULL, "%d %s", err, message ? message : "");
	free(message);
	if (source == NULL) {
		return;
	}
	CHECK(source->width == 64 && source->height == 48);
	struct viewer viewer;
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	bool resized = false;
	double start = now(), end = start + 3;
	while (now() < end && (!resized || status_int(source, "loops") < 2)) {
		wl_event_loop_dispatch(ctx->loop, 50);
		if (viewer.width == 32 && viewer.height == 32) {
			resized = true;
		}
	}
	printf("sizes.h264: %d frames, last %dx%d, %" PRId64 " loops, max gap %.3f s\n",
		viewer.signals, viewer.width, viewer.height, status_int(source, "loops"),
		viewer.max_gap);
	CHECK(resized && viewer.seen[BLUE] > 0 && viewer.seen[RED] > 0);
	CHECK(status_int(source, "loops") >= 2 && source->error == NULL);
	/* Paced across loops too: baseparse's loop segments are moved in running time. */
	CHECK(viewer.signals <= 20 * (now() - start) + 3 && viewer.max_gap < 0.12,
		"%d frames in %.2f s", viewer.signals, now() - start);
	stop_playing(source, &viewer);
}

/* Too large from the middle on: an error after creation; the last good frame stays. */
static void test_too_large_later(struct veil_source_context *ctx) {
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("later.h264"), &err, &message);
	CHECK(source != NULL, "%d %s", err, message ? message : "");
	free(message);
	if (source == NULL) {
		return;
	}
	struct viewer viewer;
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	double end = now() + 3;
	while (now() < end && source->error == NULL) {
		wl_event_loop_dispatch(ctx->loop, 50);
	}
	printf("later.h264: %d frames, error: %s\n", viewer.signals,
		source->error ? source->error : "none");
	CHECK(source->error != NULL && strstr(source->error, "8200x16") != NULL);
	CHECK(source->frame != NULL && colour_of(source->frame) == RED &&
		source->width == 64 && source->height == 48);
	CHECK(status_is(source, "state", "stopped"));
	/* Stopped for good: showing or pausing it again changes nothing. */
	veil_source_add_viewers(source, -1);
	veil_source_add_viewers(source, 1);
	int signals = viewer.signals;
	dispatch_for(ctx->loop, 0.3);
	CHECK(viewer.signals == signals);
	stop_playing(source, &viewer);
}

/*
 * Raw video (y4m, no decoder) and an animated GIF (giflib, else avdec_gif). y4mdec pulls and pushes at once, racing
 * decodebin's linking (see restart_after_not_linked): opened a few times to meet the race.
 */
static void test_other_formats(struct veil_source_context *ctx) {
	int opened = 0;
	for (int i = 0; i < 10; i++) {
		int err;
		char *message;
		struct veil_source *source = open_loaded(ctx, media("raw.y4m"), &err, &message);
		if (source == NULL) {
			printf("raw.y4m: %d %s\n", err, message);
		}
		free(message);
		if (source != NULL && source->frame != NULL && source->width == 64 &&
				status_null(source, "decoder")) {
			opened++;
		}
		veil_source_unref(source);
	}
	CHECK(opened == 10, "raw.y4m opened %d times of 10", opened);

	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("anim.gif"), &err, &message);
	CHECK(source != NULL && source->impl->kind == VEIL_SOURCE_VIDEO, "%d %s", err,
		message != NULL ? message : "");
	free(message);
	if (source == NULL) {
		return;
	}
	struct viewer viewer;
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	dispatch_for(ctx->loop, 0.5);
	/* Played by veil itself when built with giflib (source/anim_source.c). */
	CHECK(viewer.signals >= 3 && status_is(source, "decoder",
		VEIL_HAVE_GIFLIB ? "giflib" : "avdec_gif"), "%d frames", viewer.signals);
	stop_playing(source, &viewer);

	/* One frame of 50 ms: looping it would wake the compositor 20 times a second for nothing. */
	source = open_loaded(ctx, media("one.mp4"), &err, &message);
	CHECK(source != NULL, "%d %s", err, message != NULL ? message : "");
	free(message);
	if (source == NULL) {
		return;
	}
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	dispatch_for(ctx->loop, 1.0);
	CHECK(viewer.signals <= 6 && status_int(source, "loops") <= 4 && source->frame != NULL,
		"%d frames, %" PRId64 " loops", viewer.signals, status_int(source, "loops"));
	stop_playing(source, &viewer);
}

/*
 * A renderer that says it imports dmabufs (NV12 linear and tiled, XRGB8888), as a GPU renderer
 * does. No GPU here: what can be checked is that the DMA_DRM caps offered first don't get in the
 * way of a software decoder, which ends in system-memory XRGB8888 as with pixman.
 */
struct fake_renderer {
	struct wlr_renderer base;
	struct wlr_drm_format_set dmabuf, data;
};

static const struct wlr_drm_format_set *fake_get_texture_formats(struct wlr_renderer *renderer,
		uint32_t caps) {
	struct fake_renderer *fake = wl_container_of(renderer, fake, base);
	if (caps & WLR_BUFFER_CAP_DMABUF) {
		return &fake->dmabuf;
	}
	return caps & WLR_BUFFER_CAP_DATA_PTR ? &fake->data : NULL;
}

static struct wlr_render_pass *fake_begin_buffer_pass(struct wlr_renderer *renderer,
		struct wlr_buffer *buffer, const struct wlr_buffer_pass_options *options) {
	return NULL;
}

static const struct wlr_renderer_impl fake_renderer_impl = {
	.get_texture_formats = fake_get_texture_formats,
	.begin_buffer_pass = fake_begin_buffer_pass,
};

/*
 * What /dev/udmabuf would give (memfd pages as dmabufs), without it: the same allocator minus
 * the UDMABUF_CREATE ioctl, so the pool veil offers decoders can be tested here. The fds are
 * memfds, which no GPU could import; the bookkeeping is what is tested.
 */
typedef struct {
	GstDmaBufAllocator parent;
} TestMemfdAllocator;
typedef struct {
	GstDmaBufAllocatorClass parent_class;
} TestMemfdAllocatorClass;
static GType test_memfd_allocator_get_type(void);
G_DEFINE_TYPE(TestMemfdAllocator, test_memfd_allocator, GST_TYPE_DMABUF_ALLOCATOR)

static GstMemory *memfd_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params) {
	gsize maxsize = size + params->prefix + params->padding;
	int fd = memfd_create("veil-test-pool", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)maxsize) != 0) {
		if (fd >= 0) {
			close(fd);
		}
		return NULL;
	}
	GstMemory *mem = gst_dmabuf_allocator_alloc_with_flags(allocator, fd, maxsize,
		GST_FD_MEMORY_FLAG_KEEP_MAPPED);
	if (mem != NULL) {
		gst_memory_resize(mem, (gssize)params->prefix, size);
	}
	return mem;
}

static void test_memfd_allocator_class_init(TestMemfdAllocatorClass *klass) {
	GST_ALLOCATOR_CLASS(klass)->alloc = memfd_alloc;
}

static void test_memfd_allocator_init(TestMemfdAllocator *allocator) {
	GST_OBJECT_FLAG_UNSET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* The constructor veil_source_open calls, with the pool's allocator given. */
static struct veil_source *open_with_allocator(struct veil_source_context *ctx,
		const char *path, GstAllocator *allocator, int *err, char **message) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		*err = -errno;
		*message = strdup(strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return NULL;
	}
	struct veil_source *source = veil_video_source_create_with_allocator(ctx, fd,
		strdup(path), &st, allocator, err, message);
	close(fd);
	if (source != NULL && !wait_loaded(ctx->loop, source)) {
		*err = source->error_code;
		*message = source->error != NULL ? strdup(source->error) : NULL;
		veil_source_unref(source);
		source = NULL;
	}
	return source;
}

static void test_dmabuf_renderer(struct veil_source_context *ctx) {
	struct fake_renderer fake = {0};
	wlr_renderer_init(&fake.base, &fake_renderer_impl, WLR_BUFFER_CAP_DMABUF);
	wlr_drm_format_set_add(&fake.dmabuf, DRM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR);
	wlr_drm_format_set_add(&fake.dmabuf, DRM_FORMAT_NV12, I915_FORMAT_MOD_Y_TILED);
	wlr_drm_format_set_add(&fake.dmabuf, DRM_FORMAT_NV12, DRM_FORMAT_MOD_INVALID);
	wlr_drm_format_set_add(&fake.dmabuf, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR);
	wlr_drm_format_set_add(&fake.dmabuf, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR);
	wlr_drm_format_set_add(&fake.data, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID);
	wlr_drm_format_set_add(&fake.data, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID);

	struct wlr_renderer *before = ctx->renderer;
	ctx->renderer = &fake.base;
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("faststart.mp4"), &err, &message);
	CHECK(source != NULL, "%d %s", err, message != NULL ? message : "");
	free(message);
	if (source != NULL) {
		CHECK(status_is(source, "format", "BGRx") && colour_of(source->frame) == RED);
		struct viewer viewer;
		watch(&viewer, source);
		veil_source_add_viewers(source, 1);
		dispatch_for(ctx->loop, 0.5);
		CHECK(viewer.signals >= 5 && viewer.seen[OTHER] == 0, "%d frames", viewer.signals);
		stop_playing(source, &viewer);
	}

	/*
	 * With (an imitation of) udmabuf: videoconvert writes NV12 into the pool veil offers, and
	 * the frames reach the renderer as dmabufs, never through a data pointer.
	 */
	GstAllocator *allocator = g_object_new(test_memfd_allocator_get_type(), NULL);
	gst_object_ref_sink(allocator);
	source = open_with_allocator(ctx, media("faststart.mp4"), allocator, &err, &message);
	CHECK(source != NULL, "%d %s", err, message != NULL ? message : "");
	free(message);
	if (source != NULL) {
		CHECK(status_is(source, "format", "NV12"));
		struct viewer viewer;
		watch(&viewer, source);
		veil_source_add_viewers(source, 1);
		dispatch_for(ctx->loop, 0.5);
		CHECK(viewer.signals >= 5, "%d frames", viewer.signals);
		struct wlr_dmabuf_attributes a = {0};
		bool ok = source->frame != NULL && wlr_buffer_get_dmabuf(source->frame, &a);
		CHECK(ok && a.format == DRM_FORMAT_NV12 && a.modifier == DRM_FORMAT_MOD_LINEAR &&
			a.n_planes == 2 && a.width == 64 && a.height == 48 && a.stride[0] >= 64);
		/* The luma of the frame shown, read through its fd as a GPU would: not black. */
		if (ok) {
			size_t len = a.offset[0] + (size_t)a.stride[0] * 48;
			uint8_t *y = mmap(NULL, len, PROT_READ, MAP_SHARED, a.fd[0], 0);
			CHECK(y != MAP_FAILED && y[a.offset[0] + 24 * a.stride[0] + 32] > 30);
			if (y != MAP_FAILED) {
				munmap(y, len);
			}
		}
		void *data;
		uint32_t format;
		size_t stride;
		CHECK(source->frame != NULL && !wlr_buffer_begin_data_ptr_access(source->frame,
			WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride));
		stop_playing(source, &viewer);
	}
	gst_object_unref(allocator);
	ctx->renderer = before;
	wlr_drm_format_set_finish(&fake.dmabuf);
	wlr_drm_format_set_finish(&fake.data);
}

/* The file is deleted after opening: what was opened keeps playing, and looping. */
static void test_deleted(struct veil_source_context *ctx) {
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("deleted.mp4"), &err, &message);
	free(message);
	CHECK(source != NULL);
	if (source == NULL) {
		return;
	}
	unlink(media("deleted.mp4"));
	struct viewer viewer;
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	dispatch_for(ctx->loop, 2.0);
	CHECK(viewer.signals >= 25 && status_int(source, "loops") >= 1 && source->error == NULL,
		"%d frames, %" PRId64 " loops", viewer.signals, status_int(source, "loops"));
	stop_playing(source, &viewer);
}

/*
 * The file is cut to nothing while it plays: nothing is left to loop over. The last frame
 * stays, the threads end, and the status says the video stopped and why.
 */
static void test_truncated_in_place(struct veil_source_context *ctx) {
	struct viewer viewer;
	struct veil_source *source = play(ctx, "emptied.mp4", &viewer, 1.2);
	if (source == NULL) {
		return;
	}
	int before = viewer.signals;
	CHECK(before >= 10 && source->error == NULL, "%d frames", before);
	CHECK(truncate(media("emptied.mp4"), 0) == 0);
	dispatch_for(ctx->loop, 2.0);
	printf("emptied.mp4: %d frames before, %d after, %" PRId64 " loops, error: %s\n", before,
		viewer.signals - before, status_int(source, "loops"),
		source->error != NULL ? source->error : "none");
	CHECK(source->frame != NULL, "the last frame stays");
	CHECK(status_is(source, "state", "stopped") && source->error != NULL &&
		strstr(source->error, "stopped") != NULL, "error: %s",
		source->error != NULL ? source->error : "none");
	stop_playing(source, &viewer);
}

/* The data ends after the first frames: an error after creation, the last frame stays. */
static void test_cut(struct veil_source_context *ctx) {
	int err;
	char *message;
	struct veil_source *source = open_loaded(ctx, media("cut.mp4"), &err, &message);
	if (source == NULL) {
		/* Also fine: the cut was found before the first frame. */
		CHECK(err < 0 && message != NULL);
		printf("cut.mp4: %d %s\n", err, message);
		free(message);
		return;
	}
	free(message);
	struct viewer viewer;
	watch(&viewer, source);
	veil_source_add_viewers(source, 1);
	dispatch_for(ctx->loop, 1.5);
	printf("cut.mp4: %d frames, %" PRId64 " loops, error: %s\n", viewer.signals,
		status_int(source, "loops"), source->error ? source->error : "none");
	/* Either qtdemux plays what is there and loops, or it reports the cut: never a crash. */
	CHECK(source->frame != NULL);
	stop_playing(source, &viewer);
}

static void test_bad_inputs(struct veil_source_context *ctx) {
	struct {
		const char *name;
		int err; /* 0: any negative errno */
		const char *words; /* in the message */
	} cases[] = {
		{ "truncated.mp4", -EINVAL, NULL },
		{ "garbage.mp4", 0, NULL },
		{ "huge.avi", -EFBIG, "16384x16384" },
		{ "dirac.mkv", -ENOTSUP, "Dirac" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = 0;
		char *message = NULL;
		double start = now();
		struct veil_source *source = open_loaded(ctx, media(cases[i].name), &err, &message);
		printf("%s: %d, \"%s\" (%.2f s)\n", cases[i].name, err,
			message != NULL ? message : "(none)", now() - start);
		CHECK(source == NULL && err < 0 && message != NULL, "%s", cases[i].name);
		if (cases[i].err != 0) {
			CHECK(err == cases[i].err, "%s: %d", cases[i].name, err);
		}
		if (cases[i].words != NULL) {
			CHECK(message != NULL && strstr(message, cases[i].words) != NULL, "%s",
				cases[i].name);
		}
		CHECK(wl_list_empty(&ctx->sources));
		free(message);
		veil_source_unref(source);
	}

	/* Sniffing sends an audio-only file to the image decoder; the video path says why not. */
	int fd = open(media("audio.mkv"), O_RDONLY | O_CLOEXEC);
	struct stat st;
	fstat(fd, &st);
	int err = 0;
	char *message = NULL;
	struct veil_source *source = veil_video_source_create(ctx, fd, strdup(media("audio.mkv")),
		&st, &err, &message);
	/* It opens; the load finds no video stream. */
	if (source != NULL && !wait_loaded(ctx->loop, source)) {
		err = source->error_code;
		message = source->error != NULL ? strdup(source->error) : NULL;
		veil_source_unref(source);
		source = NULL;
	}
	printf("audio.mkv: %d, \"%s\"\n", err, message != NULL ? message : "(none)");
	CHECK(source == NULL && err == -EINVAL && message != NULL &&
		strstr(message, "no video stream") != NULL);
	CHECK(wl_list_empty(&ctx->sources));
	free(message);
	close(fd);
}

/* Noise named .mp4, the same every run. */
static bool make_garbage(const char *path) {
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		return false;
	}
	uint32_t x = 2463534242u;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		fputc((int)(x & 0xff), f);
	}
	return fclose(f) == 0;
}

/* An AVI's frame size is in two headers: say 16384x16384 in both, the frames stay small. */
static bool make_huge(const char *path) {
	FILE *f = fopen(path, "r+b");
	if (f == NULL) {
		return false;
	}
	uint8_t head[4096];
	size_t n = fread(head, 1, sizeof(head), f);
	int patched = 0;
	for (size_t i = 0; i + 24 <= n; i++) {
		size_t at = 0;
		if (memcmp(head + i, "avih", 4) == 0) {
			at = i + 8 + 32; /* dwWidth, dwHeight */
		} else if (memcmp(head + i, "strf", 4) == 0) {
			at = i + 8 + 4; /* biWidth, biHeight */
		} else {
			continue;
		}
		uint8_t size[8] = { 0x00, 0x40, 0, 0, 0x00, 0x40, 0, 0 }; /* 16384, little-endian */
		memcpy(head + at, size, sizeof(size));
		patched++;
	}
	bool ok = patched == 2 && fseek(f, 0, SEEK_SET) == 0 && fwrite(head, 1, n, f) == n;
	fclose(f);
	return ok;
}

static GstSample *make_sample(GstBuffer *buffer, const char *caps_str) {
	GstCaps *caps = gst_caps_from_string(caps_str);
	GstSample *sample = gst_sample_new(buffer, caps, NULL, NULL);
	gst_caps_unref(caps);
	gst_buffer_unref(buffer);
	return sample;
}

static void test_system_memory(void) {
	/* BGRx with a padded stride (as a decoder pads), described by a GstVideoMeta. */
	int width = 8, height = 4, stride = 64;
	GstBuffer *buffer = gst_buffer_new_allocate(NULL, stride * height, NULL);
	GstMapInfo map;
	gst_buffer_map(buffer, &map, GST_MAP_WRITE);
	memset(map.data, 0, map.size);
	map.data[2 * stride + 4 * 4 + 1] = 0xff; /* pixel (4, 2): green */
	gst_buffer_unmap(buffer, &map);
	gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
	gint strides[GST_VIDEO_MAX_PLANES] = { stride };
	gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRx,
		width, height, 1, offsets, strides);
	GstSample *sample = make_sample(buffer,
		"video/x-raw, format=BGRx, width=8, height=4, framerate=0/1");

	struct wlr_buffer *wlr_buffer = veil_sample_buffer_create(sample);
	CHECK(wlr_buffer != NULL && veil_sample_buffer_is(wlr_buffer));
	if (wlr_buffer != NULL) {
		CHECK(veil_sample_buffer_get_sample(wlr_buffer) == sample);
		CHECK(wlr_buffer->width == width && wlr_buffer->height == height);
		void *data;
		uint32_t format;
		size_t got_stride;
		CHECK(!wlr_buffer_begin_data_ptr_access(wlr_buffer,
			WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &got_stride));
		bool ok = wlr_buffer_begin_data_ptr_access(wlr_buffer,
			WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &got_stride);
		CHECK(ok && format == DRM_FORMAT_XRGB8888 && got_stride == (size_t)stride);
		if (ok) {
			CHECK(((uint8_t *)data)[2 * stride + 4 * 4 + 1] == 0xff);
			wlr_buffer_end_data_ptr_access(wlr_buffer);
		}
		struct wlr_dmabuf_attributes attribs;
		CHECK(!wlr_buffer_get_dmabuf(wlr_buffer, &attribs));
		CHECK(wlr_buffer_is_opaque(wlr_buffer));
		/* The buffer keeps the sample: it outlives the producer's reference. */
		gst_sample_unref(sample);
		sample = NULL;
		CHECK(wlr_buffer_begin_data_ptr_access(wlr_buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ,
			&data, &format, &got_stride));
		wlr_buffer_end_data_ptr_access(wlr_buffer);
		wlr_buffer_drop(wlr_buffer);
	}
	if (sample != NULL) {
		gst_sample_unref(sample);
	}

	/* No data pointer for YUV or alpha in system memory: refused, not shown wrong. */
	const char *refused[] = {
		"video/x-raw, format=I420, width=8, height=4",
		"video/x-raw, format=NV12, width=8, height=4",
		"video/x-raw, format=BGRA, width=8, height=4",
		"audio/x-raw, format=S16LE, rate=48000, channels=2",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		sample = make_sample(gst_buffer_new_allocate(NULL, 8 * 4 * 4, NULL), refused[i]);
		struct wlr_buffer *b = veil_sample_buffer_create(sample);
		CHECK(b == NULL, "%s", refused[i]);
		if (b != NULL) {
			wlr_buffer_drop(b);
		}
		gst_sample_unref(sample);
	}

	/* The other RGB byte orders map to the DRM format of the same memory layout. */
	struct {
		const char *gst;
		uint32_t drm;
	} formats[] = {
		{ "BGRx", DRM_FORMAT_XRGB8888 },
		{ "RGBx", DRM_FORMAT_XBGR8888 },
		{ "xRGB", DRM_FORMAT_BGRX8888 },
		{ "xBGR", DRM_FORMAT_RGBX8888 },
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char caps[128];
		snprintf(caps, sizeof(caps), "video/x-raw, format=%s, width=8, height=4",
			formats[i].gst);
		GstCaps *c = gst_caps_from_string(caps);
		struct veil_sample_format fmt;
		CHECK(veil_sample_format_from_caps(&fmt, c, NULL) == 0 &&
			fmt.drm_format == formats[i].drm && fmt.data_ptr && fmt.opaque, "%s",
			formats[i].gst);
		gst_caps_unref(c);
	}
}

static GstMemory *memfd_dmabuf(GstAllocator *allocator, size_t size, int *fd_out) {
	int fd = memfd_create("veil-test", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		return NULL;
	}
	*fd_out = fd;
	/* The memory owns fd from here on, as a decoder's dmabuf memory owns its fd. */
	return gst_dmabuf_allocator_alloc(allocator, fd, size);
}

static void test_dmabuf(void) {
	GstAllocator *allocator = gst_dmabuf_allocator_new();
	int width = 64, height = 48, stride = 128;

	/* NV12 in one dmabuf: Y at 0, UV after the padded Y plane and 256 bytes more. */
	size_t uv_offset = (size_t)stride * height + 256;
	size_t size = uv_offset + (size_t)stride * height / 2;
	int fd = -1;
	GstMemory *mem = memfd_dmabuf(allocator, size, &fd);
	CHECK(mem != NULL && gst_is_dmabuf_memory(mem));
	if (mem == NULL) {
		gst_object_unref(allocator);
		return;
	}
	GstBuffer *buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, mem);
	gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, uv_offset };
	gint strides[GST_VIDEO_MAX_PLANES] = { stride, stride };
	gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12,
		width, height, 2, offsets, strides);
	GstSample *sample = make_sample(buffer,
		"video/x-raw(memory:DMABuf), format=NV12, width=64, height=48");
	struct wlr_buffer *wlr_buffer = veil_sample_buffer_create(sample);
	gst_sample_unref(sample);
	CHECK(wlr_buffer != NULL);
	if (wlr_buffer != NULL) {
		struct wlr_dmabuf_attributes a;
		bool ok = wlr_buffer_get_dmabuf(wlr_buffer, &a);
		CHECK(ok && a.n_planes == 2 && a.format == DRM_FORMAT_NV12 &&
			a.modifier == DRM_FORMAT_MOD_LINEAR && a.width == width && a.height == height);
		CHECK(ok && a.fd[0] == fd && a.fd[1] == fd, "fds %d %d, memfd %d", a.fd[0],
			a.fd[1], fd);
		CHECK(ok && a.offset[0] == 0 && a.offset[1] == uv_offset, "%u %u", a.offset[0],
			a.offset[1]);
		CHECK(ok && a.stride[0] == (uint32_t)stride && a.stride[1] == (uint32_t)stride);
		/* YUV has no data pointer: only a GPU renderer can show it. */
		void *data;
		uint32_t format;
		size_t s;
		CHECK(!wlr_buffer_begin_data_ptr_access(wlr_buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ,
			&data, &format, &s));
		wlr_buffer_drop(wlr_buffer);
		/* The fd was borrowed, never closed by the buffer: the memory closed it. */
		CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
	}

	/*
	 * One dmabuf per plane, the second one a view that starts 4096 bytes into its fd (as
	 * gst_memory_resize leaves it): the fd offset is the memory's offset plus the plane's.
	 * DMA_DRM caps with an explicit (Intel X-tiled) modifier.
	 */
	int fd_y = -1, fd_uv = -1;
	GstMemory *y = memfd_dmabuf(allocator, (size_t)stride * height, &fd_y);
	GstMemory *uv = memfd_dmabuf(allocator, 4096 + (size_t)stride * height / 2, &fd_uv);
	gst_memory_resize(uv, 4096, (gsize)stride * height / 2);
	buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, y);
	gst_buffer_append_memory(buffer, uv);
	gsize offsets2[GST_VIDEO_MAX_PLANES] = { 0, (gsize)stride * height };
	gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_DMA_DRM,
		width, height, 2, offsets2, strides);
	GstBuffer *no_meta = gst_buffer_copy_deep(buffer);
	gst_buffer_remove_meta(no_meta, (GstMeta *)gst_buffer_get_video_meta(no_meta));
	const char *caps = "video/x-raw(memory:DMABuf), format=DMA_DRM, "
		"drm-format=NV12:0x0100000000000001, width=64, height=48";
	sample = make_sample(buffer, caps);
	wlr_buffer = veil_sample_buffer_create(sample);
	gst_sample_unref(sample);
	CHECK(wlr_buffer != NULL);
	if (wlr_buffer != NULL) {
		struct wlr_dmabuf_attributes a;
		bool ok = wlr_buffer_get_dmabuf(wlr_buffer, &a);
		CHECK(ok && a.n_planes == 2 && a.format == DRM_FORMAT_NV12 &&
			a.modifier == I915_FORMAT_MOD_X_TILED, "format %08x modifier %016" PRIx64,
			a.format, a.modifier);
		CHECK(ok && a.fd[0] == fd_y && a.fd[1] == fd_uv);
		CHECK(ok && a.offset[0] == 0 && a.offset[1] == 4096, "%u %u", a.offset[0],
			a.offset[1]);
		wlr_buffer_drop(wlr_buffer);
	}
	/* A tiled frame without a meta has no known layout: refused. */
	sample = make_sample(no_meta, caps);
	wlr_buffer = veil_sample_buffer_create(sample);
	CHECK(wlr_buffer == NULL);
	gst_sample_unref(sample);

	/* A linear BGRx dmabuf is also readable through a data pointer (mapped on demand). */
	mem = memfd_dmabuf(allocator, (size_t)width * 4 * height, &fd);
	buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, mem);
	GstMapInfo map;
	if (gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
		memset(map.data, 0x80, map.size);
		gst_buffer_unmap(buffer, &map);
	}
	sample = make_sample(buffer, "video/x-raw(memory:DMABuf), format=BGRx, width=64, "
		"height=48");
	wlr_buffer = veil_sample_buffer_create(sample);
	gst_sample_unref(sample);
	CHECK(wlr_buffer != NULL);
	if (wlr_buffer != NULL) {
		struct wlr_dmabuf_attributes a;
		CHECK(wlr_buffer_get_dmabuf(wlr_buffer, &a) && a.format == DRM_FORMAT_XRGB8888 &&
			a.n_planes == 1 && a.stride[0] == (uint32_t)width * 4);
		void *data;
		uint32_t format;
		size_t s;
		bool ok = wlr_buffer_begin_data_ptr_access(wlr_buffer,
			WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &s);
		CHECK(ok && format == DRM_FORMAT_XRGB8888 && ((uint8_t *)data)[5] == 0x80);
		if (ok) {
			wlr_buffer_end_data_ptr_access(wlr_buffer);
		}
		wlr_buffer_drop(wlr_buffer);
	}
	gst_object_unref(allocator);

	/* No /dev/udmabuf here: the allocator is absent and the video path steps aside. */
	GstAllocator *udmabuf = gst_udmabuf_allocator_get();
	CHECK((udmabuf == NULL) == (access("/dev/udmabuf", R_OK) != 0));
	if (udmabuf != NULL) {
		gst_object_unref(udmabuf);
	}
}

int main(void) {
	wlr_log_init(getenv("VEIL_TEST_DEBUG") != NULL ? WLR_DEBUG : WLR_INFO, NULL);
	gst_init(NULL, NULL);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(make_media());
	CHECK(make_huge(media("huge.avi")));
	CHECK(make_garbage(media("garbage.mp4")));

	struct wl_event_loop *loop = wl_event_loop_create();
	struct veil_source_context ctx = { .loop = loop, .renderer = NULL };
	ctx.worker = veil_worker_create(loop);
	wl_list_init(&ctx.sources);

	test_system_memory();
	test_dmabuf();
	test_sniff();

	/*
	 * The loop's timers share one timerfd, made with the first timer and kept with the loop:
	 * made here, before counting, since an animated GIF's source has a timer.
	 */
	wl_event_source_remove(wl_event_loop_add_timer(loop, no_timer, NULL));
	int fds_before = count_dir("/proc/self/fd");
	int threads_before = count_dir("/proc/self/task");
	test_playback(&ctx);
	test_frame_event(&ctx);
	test_resize(&ctx);
	test_too_large_later(&ctx);
	test_deleted(&ctx);
	test_truncated_in_place(&ctx);
	test_other_formats(&ctx);
	test_dmabuf_renderer(&ctx);
	test_cut(&ctx);
	CHECK(wl_list_empty(&ctx.sources));

	/*
	 * A stopped video's streaming threads are joined when its pipeline goes to NULL: none is
	 * left behind (GLib's shared pool would keep them 15 s). Checked before the bad inputs,
	 * some of which the image decoder reads, with threads of its own.
	 */
	/* The teardowns ran on the worker; its own threads go with it. */
	settle(&ctx);
	int threads = count_dir("/proc/self/task");
	double start = now();
	while (threads > threads_before + 1 && now() - start < 3) {
		usleep(50 * 1000);
		threads = count_dir("/proc/self/task");
	}
	printf("threads: %d before the videos, %d %.2f s after the last\n", threads_before,
		threads, now() - start);
	if (getenv("VEIL_TEST_DEBUG") != NULL) {
		run("for t in /proc/%d/task/*; do cat $t/comm; done | sort | uniq -c", getpid());
	}
	/* GLib may have started its pool-spawner thread, once for the process. */
	CHECK(threads <= threads_before + 1, "%d threads, %d before", threads, threads_before);

	test_bad_inputs(&ctx);
	CHECK(wl_list_empty(&ctx.sources));
	/* Every descriptor a video had is closed with it. */
	settle(&ctx);
	CHECK(count_dir("/proc/self/fd") == fds_before, "%d fds, %d before",
		count_dir("/proc/self/fd"), fds_before);

	veil_worker_destroy(ctx.worker);
	wl_event_loop_destroy(loop);
	run("rm -rf %s", dir);
	return check_summary("video");
}
