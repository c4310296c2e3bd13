#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/base/gsttypefindhelper.h>
#include <wlr/util/log.h>
#include "decode/gst.h"
#include "decode/image.h"
#include "decode/sniff.h"

/* Enough for every typefinder GStreamer has to decide (mp4's moov may come later: not needed). */
#define SNIFF_BYTES (64 * 1024)

static bool contains(const guint8 *data, size_t len, const char *needle) {
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(data + i, needle, n) == 0) {
			return true;
		}
	}
	return false;
}

static bool is_video_type(const char *type) {
	return g_str_has_prefix(type, "video/") ||
		strcmp(type, "application/ogg") == 0 ||
		strcmp(type, "application/x-yuv4mpeg") == 0 ||
		strcmp(type, "application/mxf") == 0 ||
		strcmp(type, "application/vnd.rn-realmedia") == 0;
}

enum veil_media_kind veil_media_sniff(int fd, const char **type_out) {
	if (type_out != NULL) {
		*type_out = "";
	}
	guint8 *head = malloc(SNIFF_BYTES);
	if (head == NULL) {
		return VEIL_MEDIA_UNKNOWN;
	}
	ssize_t n = pread(fd, head, SNIFF_BYTES, 0);
	if (n <= 0) {
		free(head);
		return VEIL_MEDIA_UNKNOWN;
	}
	if (veil_png_sniff(head, (size_t)n)) {
		free(head);
		return VEIL_MEDIA_PNG;
	}
	if (veil_gst_init(NULL) < 0) {
		free(head);
		return VEIL_MEDIA_UNKNOWN;
	}

	enum veil_media_kind kind = VEIL_MEDIA_UNKNOWN;
	GstTypeFindProbability prob = GST_TYPE_FIND_NONE;
	GstCaps *caps = gst_type_find_helper_for_data(NULL, head, (gsize)n, &prob);
	if (caps != NULL && prob >= GST_TYPE_FIND_POSSIBLE && !gst_caps_is_empty(caps)) {
		/* Media type names are interned by GStreamer: they outlive the caps. */
		const char *type = g_intern_string(
			gst_structure_get_name(gst_caps_get_structure(caps, 0)));
		if (strcmp(type, "image/gif") == 0) {
			/* A GIF moves when it has a looping extension; a still GIF is an image. */
			bool animated = contains(head, (size_t)n, "NETSCAPE2.0") ||
				contains(head, (size_t)n, "ANIMEXTS1.0");
			kind = animated ? VEIL_MEDIA_VIDEO : VEIL_MEDIA_IMAGE;
		} else if (is_video_type(type)) {
			kind = VEIL_MEDIA_VIDEO;
		} else if (g_str_has_prefix(type, "audio/")) {
			kind = VEIL_MEDIA_AUDIO;
		} else if (g_str_has_prefix(type, "image/")) {
			kind = VEIL_MEDIA_IMAGE;
		}
		if (type_out != NULL) {
			*type_out = type;
		}
		wlr_log(WLR_DEBUG, "veil: typefind: %s (probability %d)", type, (int)prob);
	}
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
	free(head);
	return kind;
}
