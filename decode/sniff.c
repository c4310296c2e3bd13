#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include <zlib.h>
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

/* A bare codestream (FF 0A) or the container's signature box. */
static bool is_jxl(const guint8 *head, size_t len) {
	static const guint8 container[12] = { 0, 0, 0, 0x0c, 'J', 'X', 'L', ' ', 0x0d, 0x0a, 0x87,
		0x0a };
	return (len >= 2 && head[0] == 0xff && head[1] == 0x0a) ||
		(len >= sizeof(container) && memcmp(head, container, sizeof(container)) == 0);
}

static bool is_jpeg(const guint8 *head, size_t len) {
	return len >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff;
}

/* Where the text from p on next holds needle, or NULL. */
static const guint8 *find(const guint8 *p, const guint8 *end, const char *needle) {
	size_t n = strlen(needle);
	for (; p + n <= end; p++) {
		if (memcmp(p, needle, n) == 0) {
			return p;
		}
	}
	return NULL;
}

/*
 * Whether the element at p (its '<') is <svg>, or <prefix:svg> as writers of namespaced XML give
 * it (<svg:svg xmlns:svg=...>, Python's <ns0:svg>): librsvg reads the namespace.
 */
static bool is_svg_element(const guint8 *p, const guint8 *end) {
	const guint8 *name = p + 1;
	const guint8 *q = name;
	while (q < end && (g_ascii_isalnum(*q) || *q == '_' || *q == '-' || *q == '.')) {
		q++;
	}
	if (q > name && q < end && *q == ':' && (g_ascii_isalpha(*name) || *name == '_')) {
		name = q + 1;
	}
	size_t left = (size_t)(end - name);
	return left >= 4 && memcmp(name, "svg", 3) == 0 && (name[3] == ' ' ||
		name[3] == '\t' || name[3] == '\r' || name[3] == '\n' || name[3] == '>' ||
		name[3] == '/');
}

/*
 * An XML document whose first element is <svg> (or <prefix:svg>): after a byte-order mark, white
 * space, an XML declaration, processing instructions, comments and a document type (its internal
 * subset too), all within the bytes read. (Only the root is looked for: librsvg decides the rest.)
 */
static bool is_svg_text(const guint8 *p, size_t len) {
	const guint8 *end = p + len;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
	}
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		size_t left = (size_t)(end - p);
		const guint8 *close = NULL; /* the markup's last byte */
		if (left >= 2 && memcmp(p, "<?", 2) == 0) {
			close = find(p + 2, end, "?>");
			close = close != NULL ? close + 1 : NULL;
		} else if (left >= 4 && memcmp(p, "<!--", 4) == 0) {
			close = find(p + 4, end, "-->");
			close = close != NULL ? close + 2 : NULL;
		} else if (left >= 9 && memcmp(p, "<!DOCTYPE", 9) == 0) {
			const guint8 *gt = find(p, end, ">");
			const guint8 *bracket = find(p, gt != NULL ? gt : end, "[");
			close = bracket != NULL ? find(bracket, end, "]") : gt;
			close = close != NULL && bracket != NULL ? find(close, end, ">") : close;
		} else {
			return *p == '<' && is_svg_element(p, end);
		}
		if (close == NULL) {
			return false;
		}
		p = close + 1;
	}
	return false;
}

/* SVG, or SVGZ: a gzip stream whose first inflated bytes are SVG (librsvg inflates it). */
static bool is_svg(const guint8 *head, size_t len) {
	if (len < 2 || head[0] != 0x1f || head[1] != 0x8b) {
		return is_svg_text(head, len);
	}
	guint8 text[4096];
	z_stream z = {
		.next_in = (Bytef *)head,
		.avail_in = (uInt)len,
		.next_out = text,
		.avail_out = sizeof(text),
	};
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		return false;
	}
	int ret = inflate(&z, Z_SYNC_FLUSH);
	size_t n = sizeof(text) - z.avail_out;
	inflateEnd(&z);
	return (ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR) &&
		is_svg_text(text, n);
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
		{ is_jxl, VEIL_MEDIA_JXL, "image/jxl" },
		{ is_jpeg, VEIL_MEDIA_JPEG, "image/jpeg" },
		{ is_svg, VEIL_MEDIA_SVG, "image/svg+xml" },
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
