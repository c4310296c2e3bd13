#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cairo.h>
#include <gio/gio.h>
#include <librsvg/rsvg.h>
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * SVG (and SVGZ: librsvg inflates it) through librsvg, drawn by cairo straight into the block
 * of veil_pixels_alloc() at the size the picture is shown: the size that covers the output for
 * the modes that scale (load_cover), its own size for center and tile (load).
 *
 * librsvg reads the descriptor's bytes with no base file: every reference to another file
 * (`<image href="x.png">`, `file:///etc/passwd`, `<xi:include>`, CSS `@import`) is then refused
 * by librsvg's own rule that loads other than `data:` need a base, and network URLs always
 * are. Its safety limits stay on (no RSVG_HANDLE_FLAG_UNLIMITED): libxml2's caps on entity
 * expansion and nesting depth (256 levels) and librsvg's on the number of elements.
 */

/* A wallpaper's SVG with pictures embedded as base64 is a few MiB; larger files are refused. */
#define MAX_FILE_SIZE (64u * 1024 * 1024)

static int check_file(int fd, char **message) {
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > MAX_FILE_SIZE) {
		veil_message_set(message, "SVG file is %jd bytes, more than veil reads (%u)",
			(intmax_t)st.st_size, MAX_FILE_SIZE);
		return -EFBIG;
	}
	return 0;
}

int veil_svg_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	return check_file(fd, message);
}

/* The rounded-up length, forgiving what floating point adds to an exact one (1920.0000001). */
static int64_t round_up(double length) {
	return (int64_t)ceil(length - 1e-6);
}

bool veil_svg_cover_size(double width, double height, int cover_width, int cover_height,
		int64_t *out_width, int64_t *out_height) {
	if (!(width > 0 && height > 0 && isfinite(width) && isfinite(height)) ||
			cover_width <= 0 || cover_height <= 0) {
		return false;
	}
	/* As veil_image_cover_size(), in both directions: one side exactly the cover's. */
	if ((double)cover_width * height >= (double)cover_height * width) {
		double h = height * cover_width / width;
		*out_width = cover_width;
		*out_height = h < (double)INT32_MAX ? round_up(h) : INT32_MAX;
	} else {
		double w = width * cover_height / height;
		*out_width = w < (double)INT32_MAX ? round_up(w) : INT32_MAX;
		*out_height = cover_height;
	}
	if (*out_width < cover_width) {
		*out_width = cover_width;
	}
	if (*out_height < cover_height) {
		*out_height = cover_height;
	}
	return true;
}

/*
 * what, then librsvg's words, which quote the file (libxml2's errors do): control characters
 * and bytes that are not UTF-8 replaced, the line libxml2 ends them with taken off. Frees error.
 */
static void set_error(char **message, const char *what, GError *error) {
	char *words = veil_message_sanitize(g_strdup(error != NULL ? error->message : "no reason"));
	g_strchomp(words);
	veil_message_set(message, "%s: %s", what, words);
	g_free(words);
	g_clear_error(&error);
}

/*
 * The document from the file's bytes, with no base: nothing else is ever read. The file is read
 * by librsvg from a stream over the bytes veil read. NULL with a negative errno in *err.
 */
static RsvgHandle *open_handle(int fd, int *err, char **message) {
	uint8_t *data;
	size_t len;
	*err = veil_still_read_file(fd, MAX_FILE_SIZE, "SVG file", &data, &len, message);
	if (*err < 0) {
		return NULL;
	}
	*err = -EINVAL;
	GInputStream *stream = g_memory_input_stream_new_from_data(data, (gssize)len, free);
	GError *error = NULL;
	RsvgHandle *handle = rsvg_handle_new_from_stream_sync(stream, NULL,
		RSVG_HANDLE_FLAGS_NONE, NULL, &error);
	g_object_unref(stream);
	if (handle == NULL) {
		set_error(message, "corrupt SVG file", error);
		return NULL;
	}
	rsvg_handle_set_dpi(handle, 96.0);
	return handle;
}

/*
 * The document's own size in pixels: its width and height, else its viewBox's, else
 * VEIL_SVG_DEFAULT_SIDE square (a document of percentages and no viewBox has no size).
 */
static void intrinsic_size(RsvgHandle *handle, double *width, double *height) {
	if (rsvg_handle_get_intrinsic_size_in_pixels(handle, width, height) &&
			*width > 0 && *height > 0 && isfinite(*width) && isfinite(*height)) {
		return;
	}
	gboolean has_width, has_height, has_viewbox;
	RsvgLength w, h;
	RsvgRectangle viewbox;
	rsvg_handle_get_intrinsic_dimensions(handle, &has_width, &w, &has_height, &h,
		&has_viewbox, &viewbox);
	if (has_viewbox && viewbox.width > 0 && viewbox.height > 0 &&
			isfinite(viewbox.width) && isfinite(viewbox.height)) {
		*width = viewbox.width;
		*height = viewbox.height;
		return;
	}
	*width = VEIL_SVG_DEFAULT_SIDE;
	*height = VEIL_SVG_DEFAULT_SIDE;
}

static int clamp_side(double side) {
	return side >= (double)INT32_MAX ? INT32_MAX : side < 1 ? 1 : (int)round_up(side);
}

static int render(RsvgHandle *handle, int width, int height, struct veil_image *image,
		char **message) {
	int ret = veil_image_check_size((uint64_t)width, (uint64_t)height, "SVG image",
		message);
	if (ret < 0) {
		return ret;
	}
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width);
	if (stride != width * 4) {
		veil_message_set(message, "cairo wants an unexpected stride for %d pixels", width);
		return -ENOTSUP;
	}
	size_t size = (size_t)stride * (size_t)height;
	uint8_t *pixels = veil_pixels_alloc(size);
	if (pixels == NULL) {
		veil_message_set(message, "out of memory for a %dx%d image", width, height);
		return -ENOMEM;
	}
	/* Transparent where the document draws nothing: cairo draws over what is there. */
	memset(pixels, 0, size);
	/* Cairo's ARGB32 is premultiplied, in native words: B, G, R, A bytes little-endian. */
	cairo_surface_t *surface = cairo_image_surface_create_for_data(pixels,
		CAIRO_FORMAT_ARGB32, width, height, stride);
	cairo_t *cr = cairo_create(surface);
	RsvgRectangle viewport = { 0, 0, width, height };
	GError *error = NULL;
	bool drawn = rsvg_handle_render_document(handle, cr, &viewport, &error);
	cairo_status_t status = cairo_status(cr);
	cairo_destroy(cr);
	cairo_surface_finish(surface);
	cairo_surface_destroy(surface);
	if (!drawn || status != CAIRO_STATUS_SUCCESS) {
		if (error != NULL) {
			set_error(message, "SVG file does not render", error);
		} else {
			veil_message_set(message, "SVG file does not render: %s",
				cairo_status_to_string(status));
		}
		veil_pixels_free(pixels);
		return status == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : -EINVAL;
	}
	bool opaque = veil_still_opaque(pixels, width, height, stride);
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = stride,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = pixels,
		.frames = 1,
	};
	return 0;
}

static int load(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	int ret;
	RsvgHandle *handle = open_handle(fd, &ret, message);
	if (handle == NULL) {
		return ret;
	}
	double width, height;
	intrinsic_size(handle, &width, &height);
	*file_width = clamp_side(width);
	*file_height = clamp_side(height);
	int64_t out_width = *file_width, out_height = *file_height;
	if (veil_svg_cover_size(width, height, cover_width, cover_height, &out_width,
			&out_height) && (out_width > VEIL_IMAGE_MAX_SIDE ||
			out_height > VEIL_IMAGE_MAX_SIDE)) {
		/* A sliver (a 100000x10 document) covers no output within the limits. */
		veil_message_set(message, "SVG image of %dx%d would be %" PRId64 "x%" PRId64
			" pixels to cover %dx%d, larger than veil's limit of %dx%d", *file_width,
			*file_height, out_width, out_height, cover_width, cover_height,
			VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
		ret = -EFBIG;
	} else {
		ret = render(handle, (int)out_width, (int)out_height, image, message);
	}
	g_object_unref(handle);
	return ret;
}

int veil_svg_load(int fd, struct veil_image *image, char **message) {
	int file_width, file_height;
	return load(fd, 0, 0, image, &file_width, &file_height, message);
}

int veil_svg_load_cover(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	return load(fd, cover_width, cover_height, image, file_width, file_height, message);
}
