#include <errno.h>
#include <drm_fourcc.h>
#include <stdlib.h>
#include <json-c/json.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "decode/image.h"
#include "decode/source.h"
#include "scene/pixel_buffer.h"

/*
 * A still image: decoded once, when the source is opened, into one frame that every output
 * showing the file shares. The source keeps that frame (one lock) until the last holder goes.
 */
struct image_source {
	struct veil_source base;
	int original_width, original_height;
	const char *decoder; /* "libpng" or "gstreamer" */
};

static void image_source_destroy(struct veil_source *source) {
	struct image_source *image = wl_container_of(source, image, base);
	free(image);
}

static void image_source_add_status(struct veil_source *source, struct json_object *obj) {
	struct image_source *image = wl_container_of(source, image, base);
	json_object_object_add(obj, "decoder", json_object_new_string(image->decoder));
	struct json_object *orig = json_object_new_object();
	json_object_object_add(orig, "width", json_object_new_int(image->original_width));
	json_object_object_add(orig, "height", json_object_new_int(image->original_height));
	json_object_object_add(obj, "original_size", orig);
}

static const struct veil_source_impl image_source_impl = {
	.kind = VEIL_SOURCE_IMAGE,
	.destroy = image_source_destroy,
	.add_status = image_source_add_status,
};

struct veil_source *veil_image_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, bool full_size, int *err, char **message) {
	struct veil_image pixels = {0};
	const char *decoder = "libpng";
	int ret = veil_png_load(fd, &pixels, message);
	if (ret == -ENOTSUP) {
		free(*message);
		*message = NULL;
		decoder = "gstreamer";
		ret = veil_gst_image_load(fd, &pixels, message);
	}
	if (ret < 0) {
		*err = ret;
		free(path);
		return NULL;
	}

	struct image_source *image = calloc(1, sizeof(*image));
	if (image == NULL) {
		*err = -ENOMEM;
		goto error;
	}
	image->decoder = decoder;
	image->original_width = pixels.width;
	image->original_height = pixels.height;

	/*
	 * Keep no more pixels than the largest output can show: an 8000x6000 photo on a 1080p
	 * output is kept at 1920x1440. center and tile show pixels one to one and keep them all.
	 */
	if (!full_size && ctx->max_output_width > 0 && ctx->max_output_height > 0) {
		ret = veil_image_shrink_to_cover(&pixels, ctx->max_output_width,
			ctx->max_output_height);
		if (ret < 0) {
			wlr_log(WLR_ERROR, "%s: cannot scale down (%d), keeping it whole", path, ret);
		}
	}
	bool shrunk = pixels.width != image->original_width;
	bool opaque = pixels.drm_format == DRM_FORMAT_XRGB8888;

	struct wlr_buffer *frame = veil_pixel_buffer_create(&pixels);
	if (frame == NULL) {
		*err = -ENOMEM;
		free(image);
		goto error;
	}
	veil_source_init(&image->base, &image_source_impl, ctx, path, st);
	image->base.shrunk = shrunk;
	image->base.opaque = opaque;
	veil_source_set_frame(&image->base, frame);
	wlr_buffer_drop(frame);
	wlr_log(WLR_INFO, "%s: %dx%d image (%s), kept at %dx%d", path, image->original_width,
		image->original_height, decoder, frame->width, frame->height);
	return &image->base;

error:
	veil_image_finish(&pixels);
	free(path);
	return NULL;
}
