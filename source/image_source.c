#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "veil-config.h"
#include "decode/image.h"
#include "source/remote/client.h"
#include "source/source.h"
#include "decode/still.h"
#include "util/message.h"
#include "scene/pixel_buffer.h"
#include "util/worker.h"

/*
 * A still image: decoded once, on a worker, into one frame that every output showing the file
 * shares. The source has no frame until the decode is done; then it keeps that frame (one lock)
 * until the last holder goes.
 */
struct image_source {
	struct veil_source base;
	int original_width, original_height;
	/* The library that decoded it: "libpng", "libheif", ..., "libwebp (first of 12 frames)". */
	char decoder[64];
	char colour[VEIL_COLOUR_TEXT]; /* "Display P3 (ICC) -> sRGB", "sRGB", ... */
	struct image_load *load; /* the decode still to come back, NULL once it did */
};

/*
 * One decode. The compositor thread fills the request and submits it; from then on the job is
 * the worker's until done() (compositor thread) or discard() (a worker, when the source went
 * first) frees it. Only done() touches the source.
 */
struct image_load {
	struct veil_job job;
	struct image_source *image;
	/* Request. */
	int fd; /* our own descriptor of the file */
	const struct veil_still_decoder *decoder; /* the one the header was checked with */
	int item; /* a HEIF's item-th top-level image (from 1), 0 for the file's own */
	int cover_width, cover_height; /* shrink to cover this; 0: keep every pixel */
	enum veil_image_filter filter; /* how */
	/* Decoded in veil-decoder (source/remote/) when not NULL, else in this process. */
	struct veil_helper_spare *spare;
	/* Result. */
	int ret;
	char *message; /* malloc()ed, when ret < 0 */
	struct veil_image pixels;
	int original_width, original_height;
	char decoder_name[32];
	struct veil_colour_result colour;
	int frames; /* of an animation shown as a still */
};

static void load_free(struct image_load *load) {
	close(load->fd);
	veil_image_finish(&load->pixels);
	free(load->message);
	free(load);
}

static void load_run(struct veil_job *job) {
	struct image_load *load = wl_container_of(job, load, job);
#if VEIL_DECODER_PROCESS
	if (load->spare != NULL) {
		load->ret = veil_decoder_run(load->spare, load->decoder->kind, load->fd,
			load->item, load->cover_width, load->cover_height, load->filter, &load->pixels,
			&load->original_width,
			&load->original_height, load->decoder_name, sizeof(load->decoder_name),
			&load->colour, &load->message);
		load->frames = load->pixels.frames;
		return;
	}
#endif
	const struct veil_still_decoder *used = load->decoder;
	int shrink_error = 0;
	load->ret = veil_still_decode_item(load->decoder, load->fd, load->item, load->cover_width,
		load->cover_height, load->filter, &load->pixels, &load->original_width,
		&load->original_height, &used, &shrink_error, &load->colour, &load->message);
	snprintf(load->decoder_name, sizeof(load->decoder_name), "%s", used->name);
	load->frames = load->pixels.frames;
	if (shrink_error < 0) {
		wlr_log(WLR_ERROR, "veil: %s: cannot scale down (%d), keeping it whole",
			load->image->base.path, shrink_error);
	}
}

static void load_done(struct veil_job *job) {
	struct image_load *load = wl_container_of(job, load, job);
	struct image_source *image = load->image;
	image->load = NULL;
	if (load->ret < 0) {
		veil_source_set_error(&image->base, load->ret, "Cannot show '%s': %s",
			image->base.path, load->message != NULL ? load->message : strerror(-load->ret));
		load_free(load);
		return;
	}
	bool opaque = load->pixels.drm_format == DRM_FORMAT_XRGB8888;
	/* Takes the pixels over. */
	struct wlr_buffer *frame = veil_pixel_buffer_create(&load->pixels);
	if (frame == NULL) {
		veil_source_set_error(&image->base, -ENOMEM, "Cannot show '%s': %s",
			image->base.path, strerror(ENOMEM));
		load_free(load);
		return;
	}
	veil_pixel_buffer_set_colour_space(frame, &load->colour.space);
	if (load->frames > 1) {
		snprintf(image->decoder, sizeof(image->decoder), "%s (first of %d frames)",
			load->decoder_name, load->frames);
		wlr_log(WLR_INFO, "veil: %s: an animation of %d frames, shown as a still of its "
			"first frame: veil does not play this kind of animation yet", image->base.path,
			load->frames);
	} else {
		snprintf(image->decoder, sizeof(image->decoder), "%s", load->decoder_name);
	}
	snprintf(image->colour, sizeof(image->colour), "%s", load->colour.said);
	if (load->colour.fell_back) {
		wlr_log(WLR_ERROR, "veil: %s: colour: %s", image->base.path, load->colour.said);
	}
	image->original_width = load->original_width;
	image->original_height = load->original_height;
	image->base.shrunk = frame->width != image->original_width;
	image->base.opaque = opaque;
	wlr_log(WLR_INFO, "veil: %s: %dx%d image (%s), kept at %dx%d, decoded %s",
		image->base.path, image->original_width, image->original_height, image->decoder,
		frame->width, frame->height, load->spare != NULL ? "in veil-decoder" : "in process");
	load_free(load);
	veil_source_set_frame(&image->base, frame);
	wlr_buffer_drop(frame);
}

static void load_discard(struct veil_job *job) {
	struct image_load *load = wl_container_of(job, load, job);
	load_free(load);
}

static const struct veil_job_impl load_impl = {
	.run = load_run,
	.done = load_done,
	.discard = load_discard,
};

static void image_source_destroy(struct veil_source *source) {
	struct image_source *image = wl_container_of(source, image, base);
	if (image->load != NULL) {
		/* Superseded while it decodes: the worker frees the decode when it ends. */
		veil_job_cancel(&image->load->job);
	}
	free(image);
}

static void image_source_get_info(struct veil_source *source, struct veil_source_info *info) {
	struct image_source *image = wl_container_of(source, image, base);
	if (image->load != NULL) {
		info->state = "loading";
		return;
	}
	snprintf(info->decoder, sizeof(info->decoder), "%s", image->decoder);
	snprintf(info->colour, sizeof(info->colour), "%s", image->colour);
	info->original_width = image->original_width;
	info->original_height = image->original_height;
}

static const struct veil_source_impl image_source_impl = {
	.kind = VEIL_SOURCE_IMAGE,
	.destroy = image_source_destroy,
	.get_info = image_source_get_info,
};

struct veil_source *veil_image_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, const struct veil_still_decoder *decoder, int item,
		bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
		char **message) {
	struct image_source *image = calloc(1, sizeof(*image));
	struct image_load *load = calloc(1, sizeof(*load));
	if (image == NULL || load == NULL) {
		goto error_nomem;
	}
	/* Our own descriptor: the caller closes theirs when the command returns. */
	load->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (load->fd < 0) {
		*err = -errno;
		veil_message_set(message, "%s", strerror(errno));
		free(load);
		free(image);
		free(path);
		return NULL;
	}
	load->image = image;
	load->decoder = decoder;
	load->item = item;
	load->spare = ctx->decoder_spare;
	if (!full_size) {
		load->cover_width = cover.width;
		load->cover_height = cover.height;
		load->filter = filter;
	}
	image->load = load;
	veil_source_init(&image->base, &image_source_impl, ctx, path, st);
	/* Until the decode says otherwise: a request for every pixel must not share it. */
	image->base.shrunk = !full_size;
	image->base.filter = filter;
	image->base.cover = (struct veil_cover){ load->cover_width, load->cover_height };
	image->base.item = item;
	veil_worker_submit(ctx->worker, &load->job, &load_impl);
	return &image->base;

error_nomem:
	free(load);
	free(image);
	free(path);
	*err = -ENOMEM;
	veil_message_set(message, "Out of memory");
	return NULL;
}
