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

/*
 * ISO base media files whose major brand, or one of their compatible brands, says they hold
 * HEIF images (AVIF is HEIF too): files others write name mif2 or heis first (Nokia's
 * conformance files), with mif1 among the compatible ones.
 */
static bool is_heif(const guint8 *head, size_t len) {
	static const char brands[][5] = {
		"avif", "avis", "heic", "heix", "heim", "heis", "mif1", "mif2", "msf1",
	};
	if (len < 16 || memcmp(head + 4, "ftyp", 4) != 0) {
		return false;
	}
	size_t box = (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3];
	box = box < len ? box : len;
	for (size_t at = 8; at + 4 <= box; at += at == 8 ? 8 : 4) {
		for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++) {
			if (memcmp(head + at, brands[i], 4) == 0) {
				return true;
			}
		}
	}
	return false;
}

static bool is_webp(const guint8 *head, size_t len) {
	return len >= 12 && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0;
}

/* Little- or big-endian TIFF (42) and BigTIFF (43). */
static bool is_tiff(const guint8 *head, size_t len) {
	return len >= 4 && ((memcmp(head, "II", 2) == 0 && (head[2] == 42 || head[2] == 43) &&
		head[3] == 0) || (memcmp(head, "MM", 2) == 0 && head[2] == 0 &&
		(head[3] == 42 || head[3] == 43)));
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
	static const struct {
		bool (*test)(const guint8 *head, size_t len);
		enum veil_media_kind kind;
		const char *type;
	} signatures[] = {
		{ is_heif, VEIL_MEDIA_HEIF, "image/heif" },
		{ is_webp, VEIL_MEDIA_WEBP, "image/webp" },
		{ is_tiff, VEIL_MEDIA_TIFF, "image/tiff" },
	};
	if (veil_png_sniff(head, (size_t)n)) {
		free(head);
		if (type_out != NULL) {
			*type_out = "image/png";
		}
		return VEIL_MEDIA_PNG;
	}
	for (size_t i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++) {
		if (signatures[i].test(head, (size_t)n)) {
			free(head);
			if (type_out != NULL) {
				*type_out = signatures[i].type;
			}
			return signatures[i].kind;
		}
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
