#define _XOPEN_SOURCE 700 /* realpath */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "veil-config.h"
#include "decode/anim.h"
#include "decode/image.h"
#include "decode/sniff.h"
#include "decode/still.h"
#include "scene/frame_read.h"
#include "source/source.h"
#include "util/image.h"
#include "util/message.h"
#include "util/worker.h"

void veil_source_init(struct veil_source *source, const struct veil_source_impl *impl,
		struct veil_source_context *ctx, char *path, const struct stat *st) {
	source->impl = impl;
	source->ctx = ctx;
	source->refs = 1;
	source->path = path;
	source->dev = st->st_dev;
	source->ino = st->st_ino;
	source->size = st->st_size;
	source->mtime = st->st_mtim;
	wl_signal_init(&source->events.frame);
	wl_signal_init(&source->events.loop);
	wl_list_insert(&ctx->sources, &source->link);
}

/*
 * The palette of a source's first frame: the frame is taken here (a lock), read, scaled down to
 * VEIL_PALETTE_SAMPLE and its colours counted on a worker. The job is never cancelled: a source
 * that goes first only clears job->source, and done() gives the lock back on the compositor
 * thread (discard() runs only when the worker is destroyed, on that thread too).
 */
struct veil_palette_job {
	struct veil_job base;
	struct veil_source *source; /* NULL once the source is gone */
	/* Set with source = NULL, read by the worker: nobody wants the palette any more. */
	atomic_bool gone;
	struct veil_frame_read read;
	struct veil_palette palette;
	char *message; /* why there is none */
};

static void palette_job_run(struct veil_job *base) {
	struct veil_palette_job *job = wl_container_of(base, job, base);
	if (atomic_load(&job->gone)) {
		/* A wallpaper replaced before its turn (a storm of commands): no work for it. */
		return;
	}
	struct veil_image small;
	if (veil_frame_read_sample(&job->read, VEIL_PALETTE_SAMPLE, VEIL_PALETTE_SAMPLE, &small,
			&job->message) < 0) {
		return;
	}
	if (veil_palette_compute(&small, &job->palette) < 0) {
		veil_message_set(&job->message, "out of memory");
	}
	veil_image_finish(&small);
}

static void palette_job_free(struct veil_palette_job *job) {
	veil_frame_read_release(&job->read);
	free(job->message);
	free(job);
}

static void palette_job_done(struct veil_job *base) {
	struct veil_palette_job *job = wl_container_of(base, job, base);
	struct veil_source *source = job->source;
	if (source != NULL) {
		source->palette_job = NULL;
		if (job->message != NULL) {
			wlr_log(WLR_INFO, "veil: %s: no palette: %s", source->path, job->message);
		}
		source->palette = job->palette;
		if (source->palette.n > 0 && source->ctx->changed != NULL) {
			source->ctx->changed(source->ctx);
		}
	}
	palette_job_free(job);
}

static void palette_job_discard(struct veil_job *base) {
	struct veil_palette_job *job = wl_container_of(base, job, base);
	palette_job_free(job);
}

static const struct veil_job_impl palette_job_impl = {
	.run = palette_job_run,
	.done = palette_job_done,
	.discard = palette_job_discard,
};

static void start_palette(struct veil_source *source, struct wlr_buffer *frame) {
	source->palette_asked = true;
	struct veil_palette_job *job = calloc(1, sizeof(*job));
	if (job == NULL) {
		return;
	}
	char *message = NULL;
	if (veil_frame_read_take(&job->read, frame, &message) < 0) {
		wlr_log(WLR_INFO, "veil: %s: no palette: %s", source->path, message);
		free(message);
		free(job);
		return;
	}
	job->source = source;
	source->palette_job = job;
	veil_worker_submit(source->ctx->worker, &job->base, &palette_job_impl);
}

void veil_source_set_frame(struct veil_source *source, struct wlr_buffer *frame) {
	if (frame != NULL) {
		wlr_buffer_lock(frame);
		source->width = frame->width;
		source->height = frame->height;
	}
	/* The holders lock what they show: the old frame lives on until they move on. */
	wlr_buffer_unlock(source->frame);
	source->frame = frame;
	/* A still's picture, a video's or an animation's first frame. */
	if (frame != NULL && !source->palette_asked && source->ctx->worker != NULL) {
		start_palette(source, frame);
	}
	wl_signal_emit_mutable(&source->events.frame, source);
}

void veil_source_set_error(struct veil_source *source, int err, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);

	veil_message_sanitize(buf);
	wlr_log(WLR_ERROR, "veil: %s: %s", source->path, buf);
	free(source->error);
	source->error = strdup(buf);
	source->error_code = err < 0 ? err : -EIO;
	wl_signal_emit_mutable(&source->events.frame, source);
}

struct veil_source *veil_source_ref(struct veil_source *source) {
	source->refs++;
	return source;
}

void veil_source_unref(struct veil_source *source) {
	if (source == NULL) {
		return;
	}
	assert(source->refs > 0);
	if (--source->refs > 0) {
		return;
	}
	assert(source->viewers == 0);
	assert(wl_list_empty(&source->events.frame.listener_list));
	assert(wl_list_empty(&source->events.loop.listener_list));
	wl_list_remove(&source->link);
	if (source->palette_job != NULL) {
		source->palette_job->source = NULL;
		atomic_store(&source->palette_job->gone, true);
	}
	wlr_buffer_unlock(source->frame);
	source->frame = NULL;
	free(source->path);
	free(source->error);
	/* The implementation frees the struct it embeds the source in. */
	source->impl->destroy(source);
}

static void update_decoding(struct veil_source *source, bool was_running) {
	bool running = source->viewers > 0 && !source->paused && !source->held;
	if (running == was_running) {
		return;
	}
	if (source->impl->set_visible != NULL) {
		source->impl->set_visible(source, running);
	}
}

void veil_source_add_viewers(struct veil_source *source, int delta) {
	bool was_running = source->viewers > 0 && !source->paused && !source->held;
	source->viewers += delta;
	assert(source->viewers >= 0);
	update_decoding(source, was_running);
}

void veil_source_set_paused(struct veil_source *source, bool paused) {
	bool was_running = source->viewers > 0 && !source->paused && !source->held;
	source->paused = paused;
	if (source->impl->set_paused != NULL) {
		source->impl->set_paused(source, paused);
	}
	update_decoding(source, was_running);
}

void veil_source_set_held(struct veil_source *source, bool held) {
	if (held == source->held) {
		return;
	}
	bool was_running = source->viewers > 0 && !source->paused && !source->held;
	source->held = held;
	update_decoding(source, was_running);
}

void veil_source_set_fps(struct veil_source *source, int fps) {
	if (fps == source->fps) {
		return;
	}
	source->fps = fps;
	if (source->impl->set_fps != NULL) {
		source->impl->set_fps(source, fps);
	}
}

int64_t veil_source_get_position_ms(struct veil_source *source) {
	return source->impl->get_position_ms != NULL ? source->impl->get_position_ms(source) : -1;
}

void veil_source_seek(struct veil_source *source, int64_t ms) {
	if (ms >= 0 && source->impl->seek != NULL) {
		source->impl->seek(source, ms);
	}
}

void veil_source_add_owed(struct veil_source *source, int delta) {
	bool was = source->owed > 0;
	source->owed += delta;
	assert(source->owed >= 0);
	if ((source->owed > 0) != was && source->impl->set_frame_owed != NULL) {
		source->impl->set_frame_owed(source, source->owed > 0);
	}
}

void veil_source_frame_event(struct veil_source *source) {
	if (source->impl->frame_event != NULL) {
		source->impl->frame_event(source);
	}
}

static bool same_file(const struct veil_source *source, const struct stat *st) {
	return source->dev == st->st_dev && source->ino == st->st_ino &&
		source->size == st->st_size &&
		source->mtime.tv_sec == st->st_mtim.tv_sec &&
		source->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

bool veil_source_covers(const struct veil_source *source, struct veil_cover cover) {
	if (!source->shrunk || source->cover.width <= 0 || source->cover.height <= 0) {
		return true;
	}
	return source->cover.width >= cover.width && source->cover.height >= cover.height;
}

static struct veil_source *find_source(struct veil_source_context *ctx, const struct stat *st,
		int item, bool full_size, enum veil_image_filter filter, struct veil_cover cover) {
	struct veil_source *source;
	wl_list_for_each(source, &ctx->sources, link) {
		if (!same_file(source, st) || source->item != item || source->error != NULL ||
				source->stale) {
			continue;
		}
		if (full_size && source->shrunk) {
			continue;
		}
		/* Shrunk with another filter: `filter nearest` must not show averaged pixels. */
		if (!full_size && source->shrunk && source->filter != filter) {
			continue;
		}
		/* Shrunk to cover less than asked (a smaller output): blurred if shared. */
		if (!veil_source_covers(source, cover)) {
			continue;
		}
		return source;
	}
	return NULL;
}

/* The path shown in the status: absolute where it can be resolved. */
static char *display_path(const char *path) {
	char *resolved = realpath(path, NULL);
	return resolved != NULL ? resolved : strdup(path);
}

/* O_NONBLOCK: opening a FIFO must not hang the compositor. */
static int open_file(const char *path, char **message) {
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;
		veil_message_set(message, "Cannot open '%s': %s", path, strerror(err));
		return -err;
	}
	return fd;
}

/*
 * What can be known of a file at once, without decoding it: that it is a readable regular file,
 * not empty, what its first bytes say it holds, and that its header (the size a PNG, AVIF, HEIC,
 * WebP or TIFF claims, a TIFF's or BMP's layout, an SVG's file size) is one veil decodes. Reads
 * a few KiB at most. For a still, *decoder is the decoder that checked it.
 */
static int inspect(int fd, const char *name, struct stat *st, enum veil_media_kind *kind,
		const struct veil_still_decoder **decoder, enum veil_anim_format *anim,
		char **message) {
	*decoder = NULL;
	*anim = VEIL_ANIM_NONE;
	if (fstat(fd, st) != 0) {
		int err = errno;
		veil_message_set(message, "Cannot read '%s': %s", name, strerror(err));
		return -err;
	}
	if (S_ISDIR(st->st_mode)) {
		veil_message_set(message, "'%s' is a directory, not an image or a video", name);
		return -EISDIR;
	}
	if (!S_ISREG(st->st_mode)) {
		veil_message_set(message, "'%s' is not a regular file", name);
		return -EINVAL;
	}
	if (st->st_size == 0) {
		veil_message_set(message, "'%s' is empty", name);
		return -EINVAL;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0) {
		int err = errno;
		veil_message_set(message, "Cannot read '%s': %s", name, strerror(err));
		return -err;
	}
	if ((flags & O_ACCMODE) == O_WRONLY) {
		veil_message_set(message, "'%s' is not open for reading", name);
		return -EBADF;
	}

	const char *type;
	*kind = veil_media_sniff(fd, &type);
	int ret = 0;
	char *detail = NULL;
	switch (*kind) {
	case VEIL_MEDIA_AUDIO:
		veil_message_set(message, "'%s' is sound (%s): there is no picture to show", name,
			type);
		return -EINVAL;
	case VEIL_MEDIA_UNKNOWN:
		/* decodebin types a file with the same typefinders: it would not know it either. */
		veil_message_set(message, "'%s' is not an image or a video veil can read%s%s%s",
			name, type[0] != '\0' ? " (" : "", type, type[0] != '\0' ? ")" : "");
		return -EINVAL;
	case VEIL_MEDIA_VIDEO:
	case VEIL_MEDIA_PNG:
	case VEIL_MEDIA_HEIF:
	case VEIL_MEDIA_WEBP:
	case VEIL_MEDIA_TIFF:
	case VEIL_MEDIA_JXL:
	case VEIL_MEDIA_JPEG:
	case VEIL_MEDIA_SVG:
	case VEIL_MEDIA_IMAGE:
		/* An animated GIF, APNG, WebP or JPEG XL is played by veil (source/anim_source.c). */
		*anim = veil_anim_detect(fd);
		if (*anim != VEIL_ANIM_NONE) {
			ret = veil_anim_check(fd, *anim, &detail);
		} else if (*kind == VEIL_MEDIA_VIDEO) {
			return 0;
		} else {
			*decoder = veil_still_decoder_find(*kind, &detail);
			ret = *decoder != NULL ? (*decoder)->check(fd, &detail) : -ENOTSUP;
		}
		break;
	}
	if (ret < 0) {
		/* Decoders speak of the contents; a person also needs to know which file. */
		veil_message_set(message, "Cannot show '%s': %s", name,
			detail != NULL ? detail : strerror(-ret));
	}
	free(detail);
	return ret;
}

int veil_source_check(const char *path, char **message) {
	*message = NULL;
	int fd = open_file(path, message);
	if (fd < 0) {
		return fd;
	}
	struct stat st;
	enum veil_media_kind kind;
	const struct veil_still_decoder *decoder;
	enum veil_anim_format anim;
	int ret = inspect(fd, path, &st, &kind, &decoder, &anim, message);
	close(fd);
	return ret;
}

static struct veil_source *open_fd(struct veil_source_context *ctx, int fd, char *name,
	int item, bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);

struct veil_source *veil_source_open(struct veil_source_context *ctx, const char *path,
		bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
		char **message) {
	return veil_source_open_item(ctx, path, 0, full_size, filter, cover, err, message);
}

struct veil_source *veil_source_open_item(struct veil_source_context *ctx, const char *path,
		int item, bool full_size, enum veil_image_filter filter, struct veil_cover cover,
		int *err, char **message) {
	*err = 0;
	*message = NULL;
	int fd = open_file(path, message);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	char *shown_path = display_path(path);
	struct veil_source *source = NULL;
	if (shown_path == NULL) {
		*err = -ENOMEM;
		veil_message_set(message, "Out of memory");
	} else {
		source = open_fd(ctx, fd, shown_path, item, full_size, filter, cover, err,
			message);
	}
	close(fd);
	return source;
}

/* Whether a video opened now plays in veil-decoder (enum veil_video_place). */
static bool video_in_helper(const struct veil_source_context *ctx) {
	if (ctx->decoder_spare == NULL || ctx->video_place == VEIL_VIDEO_INPROCESS) {
		return false;
	}
	if (ctx->video_place == VEIL_VIDEO_PROCESS || ctx->renderer == NULL) {
		return true;
	}
	const struct wlr_drm_format_set *formats =
		wlr_renderer_get_texture_formats(ctx->renderer, WLR_BUFFER_CAP_DMABUF);
	return formats == NULL || formats->len == 0;
}

struct veil_source *veil_video_open(struct veil_source_context *ctx, int fd, char *path,
		const struct stat *st, int *err, char **message) {
#if VEIL_DECODER_PROCESS
	if (video_in_helper(ctx)) {
		struct veil_source *source =
			veil_video_helper_source_create(ctx, fd, path, st, err, message);
		if (source != NULL) {
			source->isolated = true;
		}
		return source;
	}
#endif
	return veil_video_source_create(ctx, fd, path, st, err, message);
}

struct veil_source *veil_video_reopen(struct veil_source *source, int file_fd) {
	struct stat st;
	char *path = strdup(source->path);
	if (path == NULL || fstat(file_fd, &st) != 0) {
		free(path);
		return NULL;
	}
	int err;
	char *message = NULL;
	struct veil_source *fresh = veil_video_open(source->ctx, file_fd, path, &st, &err,
		&message);
	if (fresh == NULL) {
		wlr_log(WLR_ERROR, "veil: %s: cannot restart for the new renderer: %s", source->path,
			message != NULL ? message : strerror(-err));
	}
	free(message);
	return fresh;
}

struct veil_source *veil_source_open_fd(struct veil_source_context *ctx, int fd, char *name,
		bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
		char **message) {
	return open_fd(ctx, fd, name, 0, full_size, filter, cover, err, message);
}

struct veil_source *veil_source_open_again(struct veil_source *source, int file_fd,
		struct veil_cover cover) {
	char *message = NULL;
	struct veil_source *fresh = NULL;
	int fd = file_fd >= 0 ? fcntl(file_fd, F_DUPFD_CLOEXEC, 0) :
		open_file(source->path, &message);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && !same_file(source, &st)) {
		veil_message_set(&message, "'%s' is not the file it was when opened", source->path);
	} else if (fd >= 0) {
		char *name = strdup(source->path);
		int err = -ENOMEM;
		fresh = name != NULL ? open_fd(source->ctx, fd, name, source->item, false,
			source->filter, cover, &err, &message) : NULL;
		if (fresh == NULL && message == NULL) {
			veil_message_set(&message, "%s", strerror(-err));
		}
	}
	if (fd >= 0) {
		close(fd);
	} else if (message == NULL) {
		veil_message_set(&message, "%s", strerror(errno));
	}
	if (fresh == NULL) {
		wlr_log(WLR_ERROR, "veil: %s: kept at %dx%d, not decoded again for the larger "
			"output: %s", source->path, source->width, source->height,
			message != NULL ? message : "out of memory");
	}
	free(message);
	return fresh;
}

static struct veil_source *open_fd(struct veil_source_context *ctx, int fd, char *name,
		int item, bool full_size, enum veil_image_filter filter, struct veil_cover cover,
		int *err, char **message) {
	*err = 0;
	*message = NULL;
	/* name is for people only (the status, messages): keep it valid UTF-8. */
	veil_message_sanitize(name);
	struct stat st;
	if (fstat(fd, &st) == 0) {
		/* A file being decoded or shown already: its source, without reading it again. */
		struct veil_source *source = find_source(ctx, &st, item, full_size, filter,
			cover);
		if (source != NULL) {
			free(name);
			return veil_source_ref(source);
		}
	}
	enum veil_media_kind kind;
	const struct veil_still_decoder *decoder;
	enum veil_anim_format anim;
	*err = inspect(fd, name, &st, &kind, &decoder, &anim, message);
	if (*err == 0 && item != 0 && (anim != VEIL_ANIM_NONE || decoder == NULL ||
			decoder->load_item == NULL)) {
		veil_message_set(message, "Cannot show '%s': only a HEIF file has images beside its "
			"own", name);
		*err = -EINVAL;
	}
	if (*err < 0) {
		free(name);
		return NULL;
	}
	/* Decoders read with blocking calls, and a regular file never blocks for long. */
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		*err = -errno;
		veil_message_set(message, "Cannot read '%s': %s", name, strerror(errno));
		free(name);
		return NULL;
	}

	/* The constructors take name over, also when they fail: keep a copy for the message. */
	char *shown = strdup(name);
	if (shown == NULL) {
		*err = -ENOMEM;
		veil_message_set(message, "Out of memory");
		free(name);
		return NULL;
	}
	struct veil_source *source;
	if (anim != VEIL_ANIM_NONE) {
		source = veil_anim_source_create(ctx, fd, name, &st, veil_anim_decoder_find(anim),
			full_size, filter, cover, err, message);
	} else if (decoder != NULL) {
		source = veil_image_source_create(ctx, fd, name, &st, decoder, item, full_size,
			filter, cover, err, message);
	} else {
		source = veil_video_open(ctx, fd, name, &st, err, message);
	}
	if (source != NULL && (anim != VEIL_ANIM_NONE || decoder != NULL)) {
		source->isolated = ctx->decoder_spare != NULL;
	} else if (source == NULL) {
		if (*err == 0) {
			*err = -EINVAL;
		}
		char *detail = *message;
		veil_message_set(message, "Cannot show '%s': %s", shown,
			detail != NULL ? detail : strerror(-*err));
		free(detail);
	}
	free(shown);
	return source;
}
