#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "decode/anim.h"
#include "source/remote/anim_client.h"
#include "source/source.h"
#include "decode/still.h"
#include "scene/pixel_buffer.h"
#include "util/image.h"
#include "util/pixels.h"
#include "util/message.h"
#include "util/worker.h"

/*
 * An animated image (GIF, APNG, animated WebP) as a source: frames decoded on veil's workers,
 * one job at a time, each composed by its decoder (decode/anim_*.c), shrunk once to what covers
 * the largest output (as stills are) and wrapped as a wlr_buffer; a timer on the compositor's
 * event loop swaps them in with each frame's own delay, and does nothing else.
 *
 * Where: in veil-decoder (source/remote/anim_client.h: the same decoders in a sandboxed
 * process, each frame handed over in a sealed memfd and mapped here) when the scene decodes
 * there, else on the worker itself.
 *
 * Memory: when every frame at the kept size fits ANIM_BUDGET, the frames are decoded once and
 * kept (then the file's bytes and the decoder go); otherwise they are decoded on the fly, at
 * most AHEAD frames ahead of the one shown. Nothing is decoded while no output shows the
 * animation or the user paused it, and the timer is off then.
 */

#define ANIM_BUDGET (64u * 1024 * 1024)
#define AHEAD 2

struct anim_frame {
	struct wlr_buffer *buffer; /* one lock of ours */
	int delay_ms;
	int index;
};

/*
 * The decoding side. The source's while no job runs; the worker's from submit to done(), or
 * to discard() when the source went first. Only done() touches the source.
 */
struct anim_decode {
	struct veil_job job;
	struct anim_source *anim;
	int fd;
	const struct veil_anim_decoder_impl *impl;
	uint8_t *data;
	size_t len;
	struct veil_anim_decoder *dec; /* NULL until the first job opens it */
	/* Decoded in veil-decoder when not NULL (then data and dec stay NULL). */
	struct veil_helper_spare *spare;
	struct veil_anim_helper helper;
	int cover_width, cover_height; /* 0: keep every pixel */
	enum veil_image_filter filter; /* how frames are shrunk to cover that */
	struct veil_anim_info info;
	/* One job's result. */
	int ret;
	char *message;
	struct veil_image image;
	int delay_ms, index;
};

struct anim_source {
	struct veil_source base;
	const struct veil_anim_decoder_impl *impl;
	struct anim_decode *decode; /* NULL once every frame is kept, or after a failure */
	bool job_pending;
	struct veil_anim_info info; /* once opened */
	bool opened;
	bool keep_all;
	struct anim_frame *kept; /* keep_all: info.frames slots, the first n_kept filled */
	int n_kept;
	struct anim_frame queue[AHEAD]; /* !keep_all: decoded, not shown yet */
	int queue_head, queue_len;
	bool has_frame;
	int shown_index, shown_delay;
	bool visible, paused, running;
	bool due; /* the shown frame's time is up, the next is not decoded yet */
	bool finished; /* played as many times as the file says: the last frame stays */
	bool failed;
	uint64_t frames_shown, plays_done, wakeups;
	struct wl_event_source *timer;
	char decoder[64];
};

static const struct veil_source_impl anim_source_impl;

/* Not on the compositor thread while a helper runs (decode_release()). */
static void decode_free(struct anim_decode *d) {
	if (d == NULL) {
		return;
	}
	veil_anim_helper_end(&d->helper, d->spare);
	if (d->dec != NULL) {
		d->impl->destroy(d->dec);
	}
	free(d->data);
	if (d->fd >= 0) {
		close(d->fd);
	}
	veil_image_finish(&d->image);
	free(d->message);
	free(d);
}

/* The next frame from veil-decoder, into d->image. */
static void decode_in_helper(struct anim_decode *d) {
	struct veil_decoder_frame frame;
	int original_width, original_height;
	d->ret = veil_anim_helper_next(&d->helper, d->spare, d->impl->format, d->fd,
		d->cover_width, d->cover_height, d->filter, &d->image, &original_width,
		&original_height, &frame, &d->message);
	if (d->ret < 0) {
		return;
	}
	d->info = (struct veil_anim_info){
		.width = original_width,
		.height = original_height,
		.frames = frame.frames,
		.plays = frame.plays,
	};
	d->delay_ms = frame.delay_ms;
	d->index = frame.index;
}

/* A worker: opens the decoder the first time, then composes the next frame into d->image. */
static void decode_run(struct veil_job *job) {
	struct anim_decode *d = wl_container_of(job, d, job);
	free(d->message);
	d->message = NULL;
	veil_image_finish(&d->image);
	if (d->spare != NULL) {
		decode_in_helper(d);
		return;
	}
	if (d->dec == NULL) {
		d->ret = veil_anim_open_file(d->impl, d->fd, &d->data, &d->len, &d->dec, &d->info,
			&d->message);
		if (d->ret < 0) {
			return;
		}
	}
	const uint8_t *canvas;
	d->ret = d->impl->next(d->dec, &canvas, &d->delay_ms, &d->index, &d->message);
	if (d->ret < 0) {
		return;
	}
	int shrink_error;
	d->ret = veil_anim_frame_image(canvas, d->info.width, d->info.height, d->cover_width,
		d->cover_height, d->filter, &d->image, &shrink_error, &d->message);
	if (shrink_error < 0) {
		wlr_log(WLR_ERROR, "veil: an animation's frame cannot be scaled down (%d): "
			"kept whole", shrink_error);
	}
}

static void decode_discard(struct veil_job *job) {
	struct anim_decode *d = wl_container_of(job, d, job);
	decode_free(d);
}

static void decode_done(struct veil_job *job);

static const struct veil_job_impl decode_impl = {
	.run = decode_run,
	.done = decode_done,
	.discard = decode_discard,
};

static const struct veil_job_impl decode_free_impl = {
	.run = decode_discard,
	.discard = decode_discard,
};

/*
 * Compositor thread, no job pending: frees the decode, on a worker when a helper runs (its end
 * may wait for it to exit).
 */
static void decode_release(struct anim_source *anim, struct anim_decode *d) {
	if (d != NULL && veil_anim_helper_running(&d->helper)) {
		veil_worker_submit(anim->base.ctx->worker, &d->job, &decode_free_impl);
		return;
	}
	decode_free(d);
}

static void arm_timer(struct anim_source *anim) {
	bool on = anim->running && anim->has_frame && !anim->finished && !anim->failed &&
		!anim->due && anim->info.frames > 1;
	/* 0 disarms: a delay is at least 1 ms. */
	wl_event_source_timer_update(anim->timer, on ? anim->shown_delay : 0);
}

/* Submits the next decode when one is wanted; lets the decoder go once every frame is kept. */
static void schedule(struct anim_source *anim) {
	if (anim->job_pending || anim->decode == NULL || anim->failed || anim->finished) {
		return;
	}
	if (anim->keep_all && anim->n_kept >= anim->info.frames) {
		decode_release(anim, anim->decode);
		anim->decode = NULL;
		return;
	}
	/* The first frame always; the others only while someone watches. */
	if (anim->has_frame && !anim->running) {
		return;
	}
	if (!anim->keep_all && anim->queue_len >= AHEAD) {
		return;
	}
	if (anim->opened && anim->info.frames == 1 && anim->has_frame) {
		return;
	}
	anim->job_pending = true;
	anim->decode->anim = anim;
	veil_worker_submit(anim->base.ctx->worker, &anim->decode->job, &decode_impl);
}

static void show(struct anim_source *anim, const struct anim_frame *frame) {
	anim->has_frame = true;
	anim->shown_index = frame->index;
	anim->shown_delay = frame->delay_ms;
	anim->frames_shown++;
	arm_timer(anim);
	/* Last: holders swap wallpapers now. */
	veil_source_set_frame(&anim->base, frame->buffer);
}

/* The shown frame's time is up: the next one, or the end of the last play. */
static void advance(struct anim_source *anim) {
	if (!anim->running || anim->finished || anim->failed || !anim->has_frame) {
		return;
	}
	bool wraps = anim->shown_index + 1 >= anim->info.frames;
	if (wraps && anim->info.plays > 0 && anim->plays_done + 1 >= (uint64_t)anim->info.plays) {
		anim->plays_done++;
		anim->finished = true;
		anim->due = false;
		arm_timer(anim);
		wlr_log(WLR_DEBUG, "veil: %s: played %d times, stays on its last frame",
			anim->base.path, anim->info.plays);
		return;
	}
	int next = wraps ? 0 : anim->shown_index + 1;
	if (anim->keep_all) {
		if (next >= anim->n_kept) {
			anim->due = true;
			schedule(anim);
			return;
		}
		anim->due = false;
		if (wraps) {
			anim->plays_done++;
		}
		schedule(anim);
		show(anim, &anim->kept[next]);
		return;
	}
	if (anim->queue_len == 0) {
		anim->due = true;
		schedule(anim);
		return;
	}
	anim->due = false;
	if (wraps) {
		anim->plays_done++;
	}
	struct anim_frame frame = anim->queue[anim->queue_head];
	anim->queue_head = (anim->queue_head + 1) % AHEAD;
	anim->queue_len--;
	schedule(anim);
	/* The source's lock keeps it from here. */
	show(anim, &frame);
	wlr_buffer_unlock(frame.buffer);
}

static int handle_timer(void *data) {
	struct anim_source *anim = data;
	anim->wakeups++;
	advance(anim);
	return 0;
}

/* Fails the source: the last good frame stays, the status says why. Call last. */
static void fail(struct anim_source *anim, int err, const char *message) {
	anim->failed = true;
	arm_timer(anim);
	const char *why = message != NULL ? message : strerror(err < 0 ? -err : EIO);
	if (anim->has_frame) {
		veil_source_set_error(&anim->base, err, "'%s': %s", anim->base.path, why);
	} else {
		veil_source_set_error(&anim->base, err, "Cannot show '%s': %s", anim->base.path,
			why);
	}
}

static void decode_done(struct veil_job *job) {
	struct anim_decode *d = wl_container_of(job, d, job);
	struct anim_source *anim = d->anim;
	anim->job_pending = false;
	if (d->ret < 0) {
		char *message = d->message;
		d->message = NULL;
		int err = d->ret;
		decode_release(anim, d);
		anim->decode = NULL;
		fail(anim, err, message);
		free(message);
		return;
	}
	if (!anim->opened) {
		anim->opened = true;
		anim->info = d->info;
		uint64_t frame_bytes = (uint64_t)d->image.stride * (uint64_t)d->image.height;
		anim->keep_all = (uint64_t)d->info.frames * frame_bytes <= ANIM_BUDGET &&
			(d->spare == NULL || d->info.frames <= VEIL_ANIM_HELPER_MAX_KEPT);
		if (anim->keep_all) {
			anim->kept = calloc((size_t)d->info.frames, sizeof(*anim->kept));
			anim->keep_all = anim->kept != NULL;
		}
		anim->base.shrunk = d->image.width != d->info.width;
		snprintf(anim->decoder, sizeof(anim->decoder), "%s", anim->impl->name);
		char plays[32] = "for ever";
		if (d->info.plays > 0) {
			snprintf(plays, sizeof(plays), "%d times", d->info.plays);
		}
		wlr_log(WLR_INFO, "veil: %s: %dx%d %s animation of %d frames (%s, %s), plays %s, "
			"kept at %dx%d, %s", anim->base.path, d->info.width, d->info.height,
			anim->impl->format_name, d->info.frames, anim->impl->name,
			d->spare != NULL ? "in veil-decoder" : "in process", plays,
			d->image.width, d->image.height, anim->keep_all ? "every frame kept" :
			"decoded on the fly (larger than the budget)");
	}
	struct anim_frame frame = { .delay_ms = d->delay_ms, .index = d->index };
	frame.buffer = veil_pixel_buffer_create(&d->image);
	if (frame.buffer == NULL) {
		decode_release(anim, d);
		anim->decode = NULL;
		fail(anim, -ENOMEM, NULL);
		return;
	}
	/* Ours: the producer's reference becomes our lock. */
	wlr_buffer_lock(frame.buffer);
	wlr_buffer_drop(frame.buffer);
	if (anim->keep_all) {
		if (frame.index != anim->n_kept) {
			/* Decoders give frames in order: a gap is a bug, not a file's. */
			wlr_buffer_unlock(frame.buffer);
			decode_release(anim, d);
			anim->decode = NULL;
			fail(anim, -EIO, "frames came out of order");
			return;
		}
		anim->kept[anim->n_kept++] = frame;
		if (!anim->has_frame) {
			/* The first frame: the next is decoded meanwhile. */
			anim->has_frame = true;
			schedule(anim);
			anim->has_frame = false;
			show(anim, &anim->kept[0]);
		} else if (anim->due) {
			advance(anim);
		} else {
			schedule(anim);
		}
		return;
	}
	if (!anim->has_frame) {
		anim->has_frame = true;
		schedule(anim);
		anim->has_frame = false;
		show(anim, &frame);
		wlr_buffer_unlock(frame.buffer);
		return;
	}
	anim->queue[(anim->queue_head + anim->queue_len) % AHEAD] = frame;
	anim->queue_len++;
	if (anim->due) {
		advance(anim);
	} else {
		schedule(anim);
	}
}

static void update_running(struct anim_source *anim) {
	bool running = anim->visible && !anim->paused;
	if (running == anim->running) {
		return;
	}
	anim->running = running;
	/* Paused or covered: the frame shown stays; its whole delay runs again on return. */
	arm_timer(anim);
	if (running && anim->due) {
		advance(anim);
	} else {
		schedule(anim);
	}
}

static void anim_source_set_visible(struct veil_source *source, bool visible) {
	struct anim_source *anim = wl_container_of(source, anim, base);
	anim->visible = visible;
	update_running(anim);
}

static void anim_source_set_paused(struct veil_source *source, bool paused) {
	struct anim_source *anim = wl_container_of(source, anim, base);
	anim->paused = paused;
	update_running(anim);
}

static void anim_source_get_info(struct veil_source *source, struct veil_source_info *info) {
	struct anim_source *anim = wl_container_of(source, anim, base);
	if (!anim->has_frame && !anim->failed) {
		info->state = "loading";
		return;
	}
	info->state = anim->failed ? "stopped" : anim->finished ? "finished" :
		anim->running ? "playing" : "paused";
	snprintf(info->decoder, sizeof(info->decoder), "%s", anim->decoder);
	info->counts = true;
	info->frames = anim->frames_shown;
	info->loops = anim->plays_done;
	info->wakeups = anim->wakeups;
	info->original_width = anim->info.width;
	info->original_height = anim->info.height;
	info->animation = anim->impl->format_name;
	info->anim_frames = anim->info.frames;
	info->anim_plays = anim->info.plays;
	info->anim_kept = anim->keep_all ? anim->n_kept : anim->queue_len + 1;
	info->anim_budget_mib = ANIM_BUDGET / (1024 * 1024);
}

static void anim_source_destroy(struct veil_source *source) {
	struct anim_source *anim = wl_container_of(source, anim, base);
	wl_event_source_remove(anim->timer);
	if (anim->job_pending) {
		/* The worker frees the decode when it is done with it. */
		veil_job_cancel(&anim->decode->job);
	} else {
		decode_release(anim, anim->decode);
	}
	for (int i = 0; i < anim->n_kept; i++) {
		wlr_buffer_unlock(anim->kept[i].buffer);
	}
	free(anim->kept);
	for (int i = 0; i < anim->queue_len; i++) {
		wlr_buffer_unlock(anim->queue[(anim->queue_head + i) % AHEAD].buffer);
	}
	free(anim);
}

static const struct veil_source_impl anim_source_impl = {
	/* It moves: paused when covered, shared and kept on a transition's old side as videos. */
	.kind = VEIL_SOURCE_VIDEO,
	.destroy = anim_source_destroy,
	.set_visible = anim_source_set_visible,
	.set_paused = anim_source_set_paused,
	.get_info = anim_source_get_info,
};

struct veil_source *veil_anim_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, const struct veil_anim_decoder_impl *impl,
		bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
		char **message) {
	struct anim_source *anim = calloc(1, sizeof(*anim));
	struct anim_decode *d = calloc(1, sizeof(*d));
	if (anim == NULL || d == NULL) {
		free(anim);
		free(d);
		free(path);
		*err = -ENOMEM;
		veil_message_set(message, "Out of memory");
		return NULL;
	}
	/* Our own descriptor: the caller closes theirs when the command returns. */
	d->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	anim->timer = wl_event_loop_add_timer(ctx->loop, handle_timer, anim);
	if (d->fd < 0 || anim->timer == NULL) {
		*err = d->fd < 0 ? -errno : -ENOMEM;
		veil_message_set(message, "%s", strerror(-*err));
		if (anim->timer != NULL) {
			wl_event_source_remove(anim->timer);
		}
		if (d->fd >= 0) {
			close(d->fd);
		}
		free(d);
		free(anim);
		free(path);
		return NULL;
	}
	d->impl = impl;
	d->spare = ctx->decoder_spare;
	veil_anim_helper_init(&d->helper);
	if (!full_size) {
		d->cover_width = cover.width;
		d->cover_height = cover.height;
		d->filter = filter;
	}
	anim->impl = impl;
	anim->decode = d;
	veil_source_init(&anim->base, &anim_source_impl, ctx, path, st);
	/* Until the decode says otherwise: a request for every pixel must not share it. */
	anim->base.shrunk = !full_size;
	anim->base.filter = filter;
	anim->base.cover = (struct veil_cover){ d->cover_width, d->cover_height };
	/* Transparent pixels show the setting's colour (module/core/layout.c keeps the rect). */
	anim->base.translucent = true;
	schedule(anim);
	return &anim->base;
}
