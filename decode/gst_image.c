#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decode/gst.h"
#include "decode/colour.h"
#include "decode/image.h"
#include "decode/task_pool.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * Still images in any format GStreamer has a decoder for, through a pipeline that lives for one
 * call:
 *
 *   fdsrc ! decodebin ! capsfilter (size limit) ! videoconvert ! videoflip (EXIF orientation)
 *     ! appsink caps=BGRA/BGRx
 *
 * (videoflip after videoconvert: it takes no palette, planar RGB, 4:2:2, 4:1:1 or 16-bit RGB,
 * which BMP and TIFF decoders give.)
 *
 * The first decoded picture is the appsink's preroll sample. Nothing here runs a main loop: the
 * calling thread waits on the bus with a deadline, then tears the pipeline down.
 *
 * Sizes are checked at three points, the earliest that knows them, so that a file whose header
 * claims a huge picture is refused (-EFBIG) before its pixels are allocated where possible:
 *   - WebP and TIFF: their headers, read here before any pipeline exists (nothing reports their
 *     size before webpdec or avdec_tiff, which allocate the whole frame first).
 *   - Caps that typefinders and parsers fill in from the header, seen in decodebin's
 *     autoplug-continue: PNG, JPEG (jpegparse), BMP, GIF (the libav demuxer), video codecs with a
 *     parser. The decoder is never created.
 *   - Raw caps out of the decoder, seen by a probe in front of the limit capsfilter (the filter
 *     refuses a side over the limit, the probe a pixel count over it), for formats nothing above
 *     knows. This stops the pipeline before videoconvert, the appsink or our copy allocate, not
 *     before the decoder: a GstVideoDecoder whose caps are refused still allocates its output
 *     frame and decodes into it, failing only when it pushes, and libav decoders allocate before
 *     they negotiate at all. Such a format may thus cost one frame of the size its header claims,
 *     bounded by GStreamer's and the decoder's own checks.
 * Not bounded: memory decoder libraries allocate for themselves, and the time of a call into a
 * decoder: the deadline below bounds our wait, but tearing the pipeline down waits for the
 * streaming thread to return from the decoder.
 */

/* How long a decode may take, all of it: typefinding, decoding and conversion. */
#define TIMEOUT_SECONDS 5

/*
 * fdsrc's buffer size. Decoders with no parser in front (avdec_bmp, avdec_tiff) take each buffer
 * for a whole picture, so a regular file goes in as one buffer, up to the size of the largest
 * uncompressed picture veil accepts; a larger file (or a pipe) goes in blocks.
 */
#define BLOCK_SIZE (64 * 1024)
#define WHOLE_FILE_MAX ((off_t)VEIL_IMAGE_MAX_PIXELS * 4 + 1024 * 1024)

#define OUTPUT_CAPS "video/x-raw, format=(string){ BGRA, BGRx }"

/*
 * What the callbacks share with the caller. On the heap and counted: each signal handler and the
 * probe hold a reference, dropped when GStreamer lets go of them. A streaming thread of decodebin
 * may still be running its handlers after the pipeline went to NULL and the call returned (an
 * element decodebin plugs while the pipeline stops is not stopped with it; fuzz-gst-image caught
 * a pad-added writing to the caller's stack that way).
 */
struct gst_load {
	gint refs; /* atomic */
	GWeakRef limit; /* the capsfilter (weak: its pad's probe holds load) */
	/* Written by streaming threads, read once the pipeline is stopped. */
	GMutex lock;
	int width, height; /* of the last raw caps offered to the limit filter */
	bool too_large;
	bool linked; /* a video pad of decodebin's is linked */
	char *other_type; /* decodebin's first pad that was not video, or a type it cannot decode */
};

static struct gst_load *load_ref(struct gst_load *load) {
	g_atomic_int_inc(&load->refs);
	return load;
}

static void load_unref(gpointer data) {
	struct gst_load *load = data;
	if (!g_atomic_int_dec_and_test(&load->refs)) {
		return;
	}
	g_weak_ref_clear(&load->limit);
	free(load->other_type);
	g_mutex_clear(&load->lock);
	free(load);
}

static void load_closure_notify(gpointer data, GClosure *closure) {
	load_unref(data);
}


static bool exceeds_limits(int64_t width, int64_t height) {
	return width > VEIL_IMAGE_MAX_SIDE || height > VEIL_IMAGE_MAX_SIDE ||
		width * height > VEIL_IMAGE_MAX_PIXELS;
}

static void set_size_message(char **message, int width, int height) {
	if (width > VEIL_IMAGE_MAX_SIDE || height > VEIL_IMAGE_MAX_SIDE) {
		veil_message_set(message, "image is %dx%d pixels, larger than veil's limit of %dx%d",
			width, height, VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
	} else {
		veil_message_set(message, "image is %dx%d pixels, more than veil's limit of %d pixels",
			width, height, VEIL_IMAGE_MAX_PIXELS);
	}
}

/* Records the size that caps give; returns whether they are over the limits. */
static bool check_caps(struct gst_load *load, GstCaps *caps) {
	if (caps == NULL || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) {
		return false;
	}
	const GstStructure *structure = gst_caps_get_structure(caps, 0);
	int width = 0, height = 0;
	if (!gst_structure_get_int(structure, "width", &width) ||
			!gst_structure_get_int(structure, "height", &height)) {
		return false; /* not fixed: nothing to allocate yet */
	}
	bool too_large = exceeds_limits(width, height);
	g_mutex_lock(&load->lock);
	load->width = width;
	load->height = height;
	load->too_large = too_large;
	g_mutex_unlock(&load->lock);
	return too_large;
}

static void note_other_type(struct gst_load *load, GstCaps *caps) {
	if (caps == NULL || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) {
		return;
	}
	const char *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	g_mutex_lock(&load->lock);
	if (load->other_type == NULL) {
		load->other_type = strdup(name);
	}
	g_mutex_unlock(&load->lock);
}

static void handle_pad_added(GstElement *decodebin, GstPad *pad, gpointer data) {
	struct gst_load *load = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (caps == NULL) {
		caps = gst_pad_query_caps(pad, NULL);
	}
	const GstStructure *structure = caps != NULL && !gst_caps_is_empty(caps) ?
		gst_caps_get_structure(caps, 0) : NULL;
	if (structure == NULL || !g_str_has_prefix(gst_structure_get_name(structure), "video/")) {
		/* Audio, subtitles: not linked, which ends the pipeline if nothing else is. */
		note_other_type(load, caps);
		goto out;
	}

	GstElement *limit = g_weak_ref_get(&load->limit);
	if (limit == NULL) {
		goto out; /* the pipeline is gone */
	}
	GstPad *sink = gst_element_get_static_pad(limit, "sink");
	if (!gst_pad_is_linked(sink) && GST_PAD_LINK_SUCCESSFUL(gst_pad_link(pad, sink))) {
		g_mutex_lock(&load->lock);
		load->linked = true;
		g_mutex_unlock(&load->lock);
	}
	gst_object_unref(sink);
	gst_object_unref(limit);

out:
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
}

/*
 * Whether caps are of a stream that holds no picture: sound, subtitles. A still needs none of
 * their decoders, each of which is more code a file can crash (libgme did, through gmedec, on a
 * file typefound as game music: docs/reliability.md).
 */
static bool holds_no_picture(GstCaps *caps) {
	if (caps == NULL || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) {
		return false;
	}
	const char *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	return g_str_has_prefix(name, "audio/") || g_str_has_prefix(name, "text/") ||
		g_str_has_prefix(name, "subpicture/") ||
		g_str_has_prefix(name, "application/x-subtitle") ||
		strcmp(name, "application/x-ssa") == 0 || strcmp(name, "application/x-ass") == 0;
}

/*
 * Called for every pad decodebin may plug an element behind, with caps that typefinders and
 * parsers (pngparse, jpegparse, h264parse, ...) fill in from the file's header: a stream without
 * pictures is exposed undecoded (and left unlinked), and a picture over the limits stops here,
 * before a decoder exists.
 */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	if (holds_no_picture(caps)) {
		note_other_type(data, caps);
		return FALSE;
	}
	if (!check_caps(data, caps)) {
		return TRUE;
	}
	/* decodebin now exposes the encoded pad, which nothing links: end the wait at once. */
	GError *error = g_error_new_literal(GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
		"picture too large");
	gst_element_post_message(decodebin,
		gst_message_new_error(GST_OBJECT(decodebin), error, NULL));
	g_error_free(error);
	return FALSE;
}

static void handle_unknown_type(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	note_other_type(data, caps);
}

/*
 * decodebin has exposed every pad it will. Without a video pad nothing ever reaches the appsink,
 * and when the file ended during typefinding (a subtitle file, say) no element posts an error
 * either: end the wait at once rather than at the deadline.
 */
static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct gst_load *load = data;
	g_mutex_lock(&load->lock);
	bool linked = load->linked;
	g_mutex_unlock(&load->lock);
	if (linked) {
		return;
	}
	GError *error = g_error_new_literal(GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
		"the file holds no picture");
	gst_element_post_message(decodebin,
		gst_message_new_error(GST_OBJECT(decodebin), error, NULL));
	g_error_free(error);
}

/*
 * Sees the raw caps a decoder offers before the limit filter does: first in the ACCEPT_CAPS query
 * that the pad in front (decodebin's ghost pad) sends before it lets a CAPS event through, then in
 * the event. Caps over the pixel count, which a caps range cannot express, are refused here, so
 * that the decoder's negotiation fails as it does for a side over the limit.
 */
static GstPadProbeReturn handle_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct gst_load *load = data;
	if (info->type & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM) {
		GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
		if (GST_QUERY_TYPE(query) != GST_QUERY_ACCEPT_CAPS ||
				!(info->type & GST_PAD_PROBE_TYPE_PUSH)) {
			return GST_PAD_PROBE_OK;
		}
		GstCaps *caps;
		gst_query_parse_accept_caps(query, &caps);
		if (!check_caps(load, caps)) {
			return GST_PAD_PROBE_OK;
		}
		gst_query_set_accept_caps_result(query, FALSE);
		return GST_PAD_PROBE_HANDLED;
	}

	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) {
		return GST_PAD_PROBE_OK;
	}
	GstCaps *caps;
	gst_event_parse_caps(event, &caps);
	if (check_caps(load, caps)) {
		/* Caps the limit filter refuses: the CAPS event fails. */
		GstCaps *refused = gst_caps_new_empty_simple("video/x-veil-too-large");
		GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_caps(refused);
		gst_caps_unref(refused);
		gst_event_unref(event);
	}
	return GST_PAD_PROBE_OK;
}


/* Turns the pipeline's error into -errno and a sentence, using what the callbacks saw. */
static int report_error(struct gst_load *load, GstMessage *msg, char **message) {
	GError *error = NULL;
	gst_message_parse_error(msg, &error, NULL);
	int shortage = error->domain == GST_RESOURCE_ERROR ? veil_gst_descriptor_shortage() : 0;
	if (shortage != 0) {
		veil_message_set(message, "cannot decode the image: %s (GStreamer: %s)",
			strerror(shortage), error->message);
		g_error_free(error);
		return -shortage;
	}

	g_mutex_lock(&load->lock);
	bool linked = load->linked;
	char *other_type = load->other_type;
	load->other_type = NULL;
	g_mutex_unlock(&load->lock);

	int ret;
	if (!linked && other_type != NULL) {
		veil_message_set(message, "not an image GStreamer can decode: no picture decoder for %s",
			other_type);
		ret = -ENOTSUP;
	} else {
		veil_message_set(message, "not an image GStreamer can decode: %s", error->message);
		ret = veil_gst_errno(error);
	}
	free(other_type);
	g_error_free(error);
	return ret;
}

/*
 * Copies the sample into a veil_pixels_alloc()ed image: straight alpha becomes premultiplied,
 * an alpha channel that is 0xff everywhere makes the image XRGB, and X bytes are set to 0xff.
 */
static int copy_sample(GstSample *sample, struct veil_image *image, char **message) {
	GstVideoInfo info;
	GstCaps *caps = gst_sample_get_caps(sample);
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	if (caps == NULL || buffer == NULL || !gst_video_info_from_caps(&info, caps)) {
		veil_message_set(message, "not an image GStreamer can decode: no picture came out");
		return -EINVAL;
	}
	int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
	if (width <= 0 || height <= 0) {
		veil_message_set(message, "not an image GStreamer can decode: it is %dx%d pixels",
			width, height);
		return -EINVAL;
	}
	if (exceeds_limits(width, height)) {
		set_size_message(message, width, height);
		return -EFBIG;
	}
	bool has_alpha = GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_BGRA;

	GstVideoFrame frame;
	if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) {
		veil_message_set(message, "cannot map the picture GStreamer decoded");
		return -EINVAL;
	}
	size_t stride = (size_t)width * 4;
	uint8_t *data = veil_pixels_alloc(stride * (size_t)height);
	if (data == NULL) {
		gst_video_frame_unmap(&frame);
		veil_message_set(message, "out of memory for a %dx%d image", width, height);
		return -ENOMEM;
	}
	const uint8_t *src = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
	int src_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
	bool opaque = true;
	for (int y = 0; y < height; y++) {
		uint8_t *row = data + (size_t)y * stride;
		memcpy(row, src + (ptrdiff_t)y * src_stride, stride);
		for (int x = 0; x < width; x++) {
			uint8_t *p = row + 4 * x;
			unsigned alpha = p[3];
			if (!has_alpha) {
				p[3] = 0xff;
				continue;
			}
			if (alpha == 0xff) {
				continue;
			}
			opaque = false;
			for (int i = 0; i < 3; i++) {
				/* p[i] * alpha / 255, rounded to nearest. */
				unsigned t = p[i] * alpha + 128;
				p[i] = (uint8_t)((t + (t >> 8)) >> 8);
			}
		}
	}
	gst_video_frame_unmap(&frame);

	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = (int)stride,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = data,
	};
	return 0;
}

static bool read_at(int fd, off_t offset, void *buf, size_t len) {
	ssize_t n;
	do {
		n = pread(fd, buf, len, offset);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len;
}

static uint32_t read_uint(const uint8_t *p, int n, bool big_endian) {
	uint32_t v = 0;
	for (int i = 0; i < n; i++) {
		v = v << 8 | p[big_endian ? i : n - 1 - i];
	}
	return v;
}

static bool webp_size(const uint8_t head[static 30], uint32_t *width, uint32_t *height) {
	if (memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WEBP", 4) != 0) {
		return false;
	}
	const uint8_t *data = head + 20;
	if (memcmp(head + 12, "VP8 ", 4) == 0 && data[3] == 0x9d && data[4] == 0x01 &&
			data[5] == 0x2a) {
		*width = read_uint(data + 6, 2, false) & 0x3fff;
		*height = read_uint(data + 8, 2, false) & 0x3fff;
		return true;
	}
	if (memcmp(head + 12, "VP8L", 4) == 0 && data[0] == 0x2f) {
		uint32_t bits = read_uint(data + 1, 4, false);
		*width = (bits & 0x3fff) + 1;
		*height = ((bits >> 14) & 0x3fff) + 1;
		return true;
	}
	if (memcmp(head + 12, "VP8X", 4) == 0) {
		*width = read_uint(data + 4, 3, false) + 1;
		*height = read_uint(data + 7, 3, false) + 1;
		return true;
	}
	return false;
}

/* ImageWidth and ImageLength in the first IFD: the page avdec_tiff decodes. */
static bool tiff_size(int fd, const uint8_t head[static 30], uint32_t *width,
		uint32_t *height) {
	bool big_endian;
	if (memcmp(head, "II*\0", 4) == 0) {
		big_endian = false;
	} else if (memcmp(head, "MM\0*", 4) == 0) {
		big_endian = true;
	} else {
		return false;
	}
	uint32_t ifd = read_uint(head + 4, 4, big_endian);
	uint8_t count_bytes[2];
	if (!read_at(fd, ifd, count_bytes, sizeof(count_bytes))) {
		return false;
	}
	uint32_t n_entries = read_uint(count_bytes, 2, big_endian);
	bool have_width = false, have_height = false;
	for (uint32_t i = 0; i < n_entries && i < 1024; i++) {
		uint8_t entry[12];
		if (!read_at(fd, (off_t)ifd + 2 + 12 * (off_t)i, entry, sizeof(entry))) {
			return false;
		}
		uint32_t tag = read_uint(entry, 2, big_endian);
		uint32_t type = read_uint(entry + 2, 2, big_endian);
		if ((tag != 256 && tag != 257) || (type != 3 && type != 4)) {
			continue;
		}
		/* SHORT values sit left-justified in the value field. */
		uint32_t value = read_uint(entry + 8, type == 3 ? 2 : 4, big_endian);
		if (tag == 256) {
			*width = value;
			have_width = true;
		} else {
			*height = value;
			have_height = true;
		}
	}
	return have_width && have_height;
}

/*
 * The size in the header of formats whose decoders allocate their whole output frame before
 * anything in the pipeline reports the size: nothing in decodebin parses WebP or TIFF headers,
 * and webpdec and avdec_tiff allocate (the latter touching every page) before they negotiate.
 */
static bool header_size(int fd, uint32_t *width, uint32_t *height) {
	uint8_t head[30];
	if (!read_at(fd, 0, head, sizeof(head))) {
		return false;
	}
	return webp_size(head, width, height) || tiff_size(fd, head, width, height);
}

/*
 * Layouts that crash GStreamer. avdec_tiff and avdec_bmp (gst-libav 1.28) take any pixel format
 * libavcodec's decoder picks, and when GStreamer has no format of its own for it (1-bit grey,
 * grey with alpha, 12-bit grey, 16-bit and float RGB, YUV 4:4:0, RGB 4:4:4 in 16 bits) they go on
 * with an invalid video info and dereference NULL in the streaming thread: the compositor dies.
 * These formats come from the header, so the layouts GStreamer is known to decode are let
 * through and every other TIFF or BMP is refused before a pipeline exists. (Found by fuzzing;
 * docs/reliability.md lists what was tried.)
 */
#define TIFF_MAX_TAGS 1024
#define TIFF_MAX_VALUES 16

/* Value index of an IFD entry of type SHORT or LONG, in the entry or where it points. */
static bool tiff_value(int fd, const uint8_t entry[static 12], bool big_endian, uint32_t index,
		uint32_t *value) {
	uint32_t type = read_uint(entry + 2, 2, big_endian);
	uint32_t count = read_uint(entry + 4, 4, big_endian);
	int size = type == 3 ? 2 : type == 4 ? 4 : 0;
	if (size == 0 || count == 0 || count > TIFF_MAX_VALUES || index >= count) {
		return false;
	}
	uint8_t buf[4];
	if (count * (uint32_t)size <= 4) {
		memcpy(buf, entry + 8 + index * (uint32_t)size, (size_t)size);
	} else if (!read_at(fd, (off_t)read_uint(entry + 8, 4, big_endian) +
			(off_t)index * size, buf, (size_t)size)) {
		return false;
	}
	*value = read_uint(buf, size, big_endian);
	return true;
}

/* Every value of the entry, which must all be the same. */
static bool tiff_same_values(int fd, const uint8_t entry[static 12], bool big_endian,
		uint32_t *value, uint32_t *count) {
	*count = read_uint(entry + 4, 4, big_endian);
	for (uint32_t i = 0; i < *count; i++) {
		uint32_t v;
		if (!tiff_value(fd, entry, big_endian, i, &v) || (i > 0 && v != *value)) {
			return false;
		}
		*value = v;
	}
	return *count > 0;
}

/* Whether avdec_tiff turns this layout into a format GStreamer has (tried one by one). */
static bool tiff_layout_known(uint32_t photometric, uint32_t samples, uint32_t bits,
		uint32_t planar, const uint32_t sub[static 2]) {
	switch (photometric) {
	case 0: /* grey, white is zero */
	case 1: /* grey, black is zero */
		return samples == 1 && (bits == 2 || bits == 4 || bits == 8 || bits == 16);
	case 2: /* RGB, RGBA; planar too */
		return (samples == 3 || samples == 4) && bits == 8;
	case 3: /* palette */
		return samples == 1 && (bits == 1 || bits == 2 || bits == 4 || bits == 8);
	case 5: /* CMYK */
		return samples == 4 && bits == 8 && planar == 1;
	case 6: /* YCbCr: 4:4:4, 4:2:2, 4:1:1, 4:2:0 and 4:1:0, not 4:4:0 */
		return samples == 3 && bits == 8 && planar == 1 &&
			((sub[0] == 1 && sub[1] == 1) || (sub[0] == 2 && sub[1] == 1) ||
			(sub[0] == 4 && sub[1] == 1) || (sub[0] == 2 && sub[1] == 2) ||
			(sub[0] == 4 && sub[1] == 4));
	default:
		return false;
	}
}

/* The first IFD's layout, as libavcodec reads it (its defaults for tags left out). */
static int check_tiff(int fd, const uint8_t head[static 30], char **message) {
	bool big_endian;
	if (memcmp(head, "II*\0", 4) == 0) {
		big_endian = false;
	} else if (memcmp(head, "MM\0*", 4) == 0) {
		big_endian = true;
	} else {
		return 0;
	}
	uint32_t ifd = read_uint(head + 4, 4, big_endian);
	uint8_t count_bytes[2];
	if (!read_at(fd, ifd, count_bytes, sizeof(count_bytes))) {
		veil_message_set(message, "corrupt TIFF file: its first directory is past its end");
		return -EINVAL;
	}
	uint32_t n_entries = read_uint(count_bytes, 2, big_endian);
	if (n_entries > TIFF_MAX_TAGS) {
		veil_message_set(message, "corrupt TIFF file: %" PRIu32 " tags in a directory",
			n_entries);
		return -EINVAL;
	}
	uint32_t photometric = UINT32_MAX, samples = 1, bits = 1, bits_count = 1, planar = 1;
	uint32_t format = 1, sub[2] = { 2, 2 };
	uint32_t seen = 0;
	for (uint32_t i = 0; i < n_entries; i++) {
		uint8_t entry[12];
		if (!read_at(fd, (off_t)ifd + 2 + 12 * (off_t)i, entry, sizeof(entry))) {
			veil_message_set(message, "corrupt TIFF file: its first directory is cut short");
			return -EINVAL;
		}
		uint32_t tag = read_uint(entry, 2, big_endian);
		uint32_t count = read_uint(entry + 4, 4, big_endian), format_count;
		int bit;
		bool ok;
		switch (tag) {
		case 258: /* BitsPerSample */
			bit = 0;
			ok = tiff_same_values(fd, entry, big_endian, &bits, &bits_count);
			break;
		case 262: /* PhotometricInterpretation */
			bit = 1;
			ok = count == 1 && tiff_value(fd, entry, big_endian, 0, &photometric);
			break;
		case 277: /* SamplesPerPixel */
			bit = 2;
			ok = count == 1 && tiff_value(fd, entry, big_endian, 0, &samples);
			break;
		case 284: /* PlanarConfiguration */
			bit = 3;
			ok = count == 1 && tiff_value(fd, entry, big_endian, 0, &planar);
			break;
		case 339: /* SampleFormat */
			bit = 4;
			ok = tiff_same_values(fd, entry, big_endian, &format, &format_count);
			break;
		case 530: /* YCbCrSubSampling */
			bit = 5;
			ok = count == 2 && tiff_value(fd, entry, big_endian, 0, &sub[0]) &&
				tiff_value(fd, entry, big_endian, 1, &sub[1]);
			break;
		case 330: /* SubIFDs */
		case 50706: /* DNGVersion */
			veil_message_set(message, "TIFF raw photos (DNG) are not supported");
			return -ENOTSUP;
		default:
			continue;
		}
		if (!ok || (seen & (1u << bit)) != 0) {
			veil_message_set(message, "corrupt TIFF file: tag %" PRIu32 " is malformed or "
				"repeated", tag);
			return -EINVAL;
		}
		seen |= 1u << bit;
	}
	if (photometric == UINT32_MAX || (bits_count != 1 && bits_count != samples)) {
		veil_message_set(message, "corrupt TIFF file: no colour model, or bits for %" PRIu32
			" samples of %" PRIu32, bits_count, samples);
		return -EINVAL;
	}
	if (format != 1 || !tiff_layout_known(photometric, samples, bits, planar, sub)) {
		veil_message_set(message, "TIFF layout veil does not pass to GStreamer, whose decoder "
			"crashes on some (colour model %" PRIu32 ", %" PRIu32 " samples of %" PRIu32
			" bits, sample format %" PRIu32 ")", photometric, samples, bits, format);
		return -ENOTSUP;
	}
	return 0;
}

/* 16-bit BMPs with colour masks: libavcodec knows 5:6:5, 5:5:5 and 4:4:4, GStreamer not 4:4:4. */
static int check_bmp(int fd, const uint8_t head[static 30], char **message) {
	uint8_t bmp[66];
	if (memcmp(head, "BM", 2) != 0 || !read_at(fd, 0, bmp, sizeof(bmp))) {
		return 0;
	}
	uint32_t header_size = read_uint(bmp + 14, 4, false);
	uint32_t depth = read_uint(bmp + 28, 2, false);
	uint32_t compression = read_uint(bmp + 30, 4, false);
	if (header_size < 40 || depth != 16 || compression != 3 /* BI_BITFIELDS */) {
		return 0;
	}
	uint32_t r = read_uint(bmp + 54, 4, false), g = read_uint(bmp + 58, 4, false);
	uint32_t b = read_uint(bmp + 62, 4, false);
	if ((r == 0xf800 && g == 0x07e0 && b == 0x001f) ||
			(r == 0x7c00 && g == 0x03e0 && b == 0x001f)) {
		return 0;
	}
	veil_message_set(message, "BMP layout veil does not pass to GStreamer, whose decoder crashes "
		"on some (16 bits with colour masks %04" PRIx32 ", %04" PRIx32 ", %04" PRIx32 ")",
		r, g, b);
	return -ENOTSUP;
}

/* 0, or why GStreamer must not see the file. */
static int check_layout(int fd, char **message) {
	uint8_t head[30];
	if (!read_at(fd, 0, head, sizeof(head))) {
		return 0;
	}
	int ret = check_tiff(fd, head, message);
	return ret < 0 ? ret : check_bmp(fd, head, message);
}

/*
 * A descriptor of our own for fdsrc, reading from the start: a regular file opened again through
 * /proc has an offset of its own, leaving the caller's alone. Otherwise (no /proc, or a pipe,
 * which opening again could block on) a dup shares the caller's offset, rewound when it can be.
 */
static int open_copy(int fd, const struct stat *st) {
	if (S_ISREG(st->st_mode)) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		int copy = open(path, O_RDONLY | O_CLOEXEC);
		if (copy >= 0) {
			return copy;
		}
	}
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (copy < 0) {
		return -errno;
	}
	lseek(copy, 0, SEEK_SET); /* fails on pipes, which are read from where they are */
	return copy;
}

static GstElement *add_element(GstElement *pipeline, const char *factory, char **message) {
	GstElement *element = gst_element_factory_make(factory, NULL);
	if (element == NULL) {
		veil_message_set(message, "GStreamer has no %s element (is gst-plugins-base installed?)",
			factory);
		return NULL;
	}
	gst_bin_add(GST_BIN(pipeline), element);
	return element;
}

/* Waits for the first picture or an error, for at most TIMEOUT_SECONDS. */
static int run(GstElement *pipeline, GstElement *sink, struct gst_load *load,
		struct veil_image *image, char **message) {
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *msg = NULL;
	GstSample *sample = NULL;
	int ret;

	/*
	 * A bus made while the process had no descriptor to spare has no poll: waiting on it would
	 * return at once, and the loop below would spin until its deadline.
	 */
	GPollFD pollfd = { .fd = -1 };
	gst_bus_get_pollfd(bus, &pollfd);
	if (pollfd.fd < 0) {
		veil_message_set(message, "cannot start a GStreamer pipeline: %s", strerror(EMFILE));
		ret = -EMFILE;
		goto out;
	}
	if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
		if (msg != NULL) {
			ret = report_error(load, msg, message);
		} else {
			int shortage = veil_gst_descriptor_shortage();
			veil_message_set(message, "cannot start a GStreamer pipeline%s%s",
				shortage != 0 ? ": " : "", shortage != 0 ? strerror(shortage) : "");
			ret = shortage != 0 ? -shortage : -EINVAL;
		}
		goto out;
	}

	gint64 deadline = g_get_monotonic_time() + TIMEOUT_SECONDS * G_USEC_PER_SEC;
	while (true) {
		gint64 remaining = deadline - g_get_monotonic_time();
		if (remaining <= 0) {
			veil_message_set(message, "GStreamer took more than %d seconds to decode "
				"the image", TIMEOUT_SECONDS);
			ret = -ETIMEDOUT;
			goto out;
		}
		msg = gst_bus_timed_pop_filtered(bus, remaining * GST_USECOND,
			GST_MESSAGE_ERROR | GST_MESSAGE_ASYNC_DONE);
		if (msg == NULL) {
			continue; /* the deadline passed: said above */
		}
		if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
			ret = report_error(load, msg, message);
			goto out;
		}
		if (GST_MESSAGE_SRC(msg) == GST_OBJECT(pipeline)) {
			break; /* prerolled: a picture, or the end of a file that had none */
		}
		gst_message_unref(msg);
		msg = NULL;
	}

	sample = gst_app_sink_try_pull_preroll(GST_APP_SINK(sink), 0);
	if (sample == NULL) {
		veil_message_set(message, "not an image GStreamer can decode: it holds no picture");
		ret = -EINVAL;
		goto out;
	}
	ret = copy_sample(sample, image, message);

out:
	/*
	 * Refused caps end a decode in different ways (an error, or a decoder that drops the frame
	 * and leaves the appsink with nothing): the size we saw says why.
	 */
	g_mutex_lock(&load->lock);
	bool too_large = load->too_large;
	int width = load->width, height = load->height;
	g_mutex_unlock(&load->lock);
	if (ret < 0 && ret != -EFBIG && too_large) {
		if (message != NULL) {
			free(*message);
		}
		set_size_message(message, width, height);
		ret = -EFBIG;
	}
	if (sample != NULL) {
		gst_sample_unref(sample);
	}
	if (msg != NULL) {
		gst_message_unref(msg);
	}
	gst_object_unref(bus);
	return ret;
}

int veil_gst_image_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	uint32_t width, height;
	if (header_size(fd, &width, &height) && exceeds_limits(width, height)) {
		set_size_message(message, width, height);
		return -EFBIG;
	}
	return check_layout(fd, message);
}

int veil_gst_image_load(int fd, struct veil_image *image, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	char *why = NULL;
	if (veil_gst_init(&why) < 0) {
		veil_message_set(message, "cannot start GStreamer: %s",
			why != NULL ? why : "out of memory");
		free(why);
		return -ENOTSUP;
	}

	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		veil_message_set(message, "cannot read the file: %s", strerror(EISDIR));
		return -EISDIR;
	}
	int refused = veil_gst_image_check(fd, message);
	if (refused < 0) {
		return refused;
	}

	int copy = open_copy(fd, &st);
	if (copy < 0) {
		veil_message_set(message, "cannot read the file: %s", strerror(-copy));
		return copy;
	}

	struct gst_load *load = calloc(1, sizeof(*load));
	if (load == NULL) {
		close(copy);
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	load->refs = 1;
	g_weak_ref_init(&load->limit, NULL);
	g_mutex_init(&load->lock);
	ret = -ENOTSUP;
	GstElement *pipeline = gst_pipeline_new("veil-image");
	/* Streaming threads that end with the pipeline, not 15 s later in GLib's pool. */
	GstTaskPool *pool = veil_task_pool_new();
	GstBus *pool_bus = gst_element_get_bus(pipeline);
	/* The handler keeps the pool for as long as the bus keeps the handler (see gst_load). */
	veil_gst_bus_adopt_tasks(pool_bus, pool);
	gst_object_unref(pool_bus);
	GstElement *src = add_element(pipeline, "fdsrc", message);
	GstElement *decodebin = src ? add_element(pipeline, "decodebin", message) : NULL;
	GstElement *limit = decodebin ? add_element(pipeline, "capsfilter", message) : NULL;
	g_weak_ref_set(&load->limit, limit);
	GstElement *convert = limit ? add_element(pipeline, "videoconvert", message) : NULL;
	GstElement *sink = convert ? add_element(pipeline, "appsink", message) : NULL;
	if (sink == NULL) {
		goto out;
	}
	/* Optional (gst-plugins-good): without it, photos keep the camera's orientation. */
	GstElement *flip = gst_element_factory_make("videoflip", NULL);
	if (flip != NULL) {
		gst_bin_add(GST_BIN(pipeline), flip);
		gst_util_set_object_arg(G_OBJECT(flip), "video-direction", "auto");
	}

	guint blocksize = BLOCK_SIZE;
	if (S_ISREG(st.st_mode) && st.st_size > BLOCK_SIZE && st.st_size <= WHOLE_FILE_MAX) {
		blocksize = (guint)st.st_size;
	}
	g_object_set(src, "fd", copy, "blocksize", blocksize, NULL);
	GstCaps *limit_caps = gst_caps_new_simple("video/x-raw",
		"width", GST_TYPE_INT_RANGE, 1, VEIL_IMAGE_MAX_SIDE,
		"height", GST_TYPE_INT_RANGE, 1, VEIL_IMAGE_MAX_SIDE, NULL);
	g_object_set(limit, "caps", limit_caps, NULL);
	gst_caps_unref(limit_caps);
	GstCaps *output_caps = gst_caps_from_string(OUTPUT_CAPS);
	gst_app_sink_set_caps(GST_APP_SINK(sink), output_caps);
	gst_caps_unref(output_caps);
	g_object_set(sink, "sync", FALSE, "max-buffers", 1, "enable-last-sample", FALSE, NULL);

	bool linked = gst_element_link(src, decodebin);
	if (flip != NULL) {
		linked = linked && gst_element_link_many(limit, convert, flip, sink, NULL);
	} else {
		linked = linked && gst_element_link_many(limit, convert, sink, NULL);
	}
	if (!linked) {
		veil_message_set(message, "cannot link a GStreamer pipeline");
		ret = -EINVAL;
		goto out;
	}
	static const struct {
		const char *signal;
		GCallback handler;
	} handlers[] = {
		{ "pad-added", G_CALLBACK(handle_pad_added) },
		{ "autoplug-continue", G_CALLBACK(handle_autoplug_continue) },
		{ "unknown-type", G_CALLBACK(handle_unknown_type) },
		{ "no-more-pads", G_CALLBACK(handle_no_more_pads) },
	};
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		g_signal_connect_data(decodebin, handlers[i].signal, handlers[i].handler,
			load_ref(load), load_closure_notify, 0);
	}
	GstPad *limit_sink = gst_element_get_static_pad(limit, "sink");
	gst_pad_add_probe(limit_sink,
		GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
		handle_probe, load_ref(load), load_unref);
	gst_object_unref(limit_sink);

	ret = run(pipeline, sink, load, image, message);
	/*
	 * A JPEG's ICC profile: GStreamer's jpegdec hands none over (no tag, no meta), so its APP2
	 * segments are read from the file here (nothing for other formats).
	 */
	if (ret == 0 && veil_colour_read_jpeg_icc(fd, &image->colour) == -ENOMEM) {
		veil_image_finish(image);
		veil_message_set(message, "out of memory for the JPEG file's colour profile");
		ret = -ENOMEM;
	}

out:
	/*
	 * Stops the streaming threads (fdsrc's, so copy may be closed); the callbacks' references
	 * keep load for any decodebin thread that outlives the pipeline.
	 */
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	gst_object_unref(pool);
	load_unref(load);
	close(copy);
	return ret;
}
