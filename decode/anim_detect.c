#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "veil-config.h"
#include "decode/anim.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/image.h"
#include "util/message.h"
#include "util/read.h"

/*
 * Which files are animations veil plays, from their first bytes only (the compositor thread
 * asks): a GIF with a loop extension (as decode/sniff.c tells a moving GIF from a still) or two
 * images in its first 64 KiB, a PNG
 * whose acTL before the first IDAT announces two frames or more, a WebP whose VP8X chunk has
 * the animation flag, a JPEG XL whose header (read by libjxl) says it is an animation.
 */

#define HEAD_LEN (64 * 1024)

const struct veil_anim_decoder_impl *veil_anim_decoder_find(enum veil_anim_format format) {
	switch (format) {
#if VEIL_HAVE_GIFLIB
	case VEIL_ANIM_GIF:
		return &veil_anim_gif;
#endif
#if VEIL_HAVE_LIBWEBP
	case VEIL_ANIM_WEBP:
		return &veil_anim_webp;
#endif
#if VEIL_HAVE_LIBJXL
	case VEIL_ANIM_JXL:
		return &veil_anim_jxl;
#endif
	case VEIL_ANIM_PNG:
		return &veil_anim_png;
	default:
		return NULL;
	}
}

static uint32_t be32(const uint8_t *p) {
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool contains(const uint8_t *data, size_t len, const char *needle) {
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(data + i, needle, n) == 0) {
			return true;
		}
	}
	return false;
}

static bool is_gif(const uint8_t *head, size_t len) {
	return len >= 13 && (memcmp(head, "GIF87a", 6) == 0 || memcmp(head, "GIF89a", 6) == 0);
}

/* Past a run of data sub-blocks at *pos; false when the head ends first. */
static bool skip_sub_blocks(const uint8_t *head, size_t len, size_t *pos) {
	while (*pos < len) {
		uint8_t n = head[(*pos)++];
		if (n == 0) {
			return true;
		}
		*pos += n;
	}
	return false;
}

/*
 * Two image descriptors within the head: a GIF that moves even without a loop extension (it
 * plays once, as browsers play it). Walks the blocks, bounded by the head.
 */
static bool gif_has_frames(const uint8_t *head, size_t len) {
	size_t pos = 13;
	if (head[10] & 0x80) {
		pos += (size_t)3 << ((head[10] & 7) + 1);
	}
	int images = 0;
	while (pos < len) {
		uint8_t block = head[pos++];
		if (block == 0x21) {
			pos++; /* the label */
			if (!skip_sub_blocks(head, len, &pos)) {
				return false;
			}
		} else if (block == 0x2c) {
			if (++images >= 2) {
				return true;
			}
			if (len - pos < 10) {
				return false;
			}
			uint8_t flags = head[pos + 8];
			pos += 9;
			if (flags & 0x80) {
				pos += (size_t)3 << ((flags & 7) + 1);
			}
			pos++; /* LZW minimum code size */
			if (!skip_sub_blocks(head, len, &pos)) {
				return false;
			}
		} else {
			return false; /* the trailer, or not a GIF block */
		}
	}
	return false;
}

/* An acTL of two frames or more before the first IDAT, within the head. */
static bool is_apng(const uint8_t *head, size_t len) {
	static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	if (len < 8 || memcmp(head, signature, 8) != 0) {
		return false;
	}
	size_t pos = 8;
	while (len - pos >= 12) {
		uint32_t n = be32(head + pos);
		const uint8_t *type = head + pos + 4;
		if (memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0) {
			return false;
		}
		if (memcmp(type, "acTL", 4) == 0) {
			return n >= 8 && len - pos >= 16 && be32(head + pos + 8) >= 2;
		}
		if (n > len - pos - 12) {
			return false;
		}
		pos += 12 + (size_t)n;
	}
	return false;
}

static bool is_animated_webp(const uint8_t *head, size_t len) {
	return len >= 21 && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0 &&
		memcmp(head + 12, "VP8X", 4) == 0 && (head[20] & 0x02) != 0;
}

static bool is_animated_jxl(const uint8_t *head, size_t len) {
#if VEIL_HAVE_LIBJXL
	return veil_anim_jxl_sniff(head, len);
#else
	return false;
#endif
}

enum veil_anim_format veil_anim_detect(int fd) {
	uint8_t *head = malloc(HEAD_LEN);
	if (head == NULL) {
		return VEIL_ANIM_NONE;
	}
	ssize_t n = veil_read_at(fd, head, HEAD_LEN, 0);
	enum veil_anim_format format = VEIL_ANIM_NONE;
	size_t len = n > 0 ? (size_t)n : 0;
	if (is_gif(head, len) && (contains(head, len, "NETSCAPE2.0") ||
			contains(head, len, "ANIMEXTS1.0") || gif_has_frames(head, len))) {
		format = VEIL_ANIM_GIF;
	} else if (is_apng(head, len)) {
		format = VEIL_ANIM_PNG;
	} else if (is_animated_webp(head, len)) {
		format = VEIL_ANIM_WEBP;
	} else if (is_animated_jxl(head, len)) {
		format = VEIL_ANIM_JXL;
	}
	free(head);
	/* A format this build cannot play goes where it went before (GStreamer, a still). */
	return veil_anim_decoder_find(format) != NULL ? format : VEIL_ANIM_NONE;
}

int veil_anim_check(int fd, enum veil_anim_format format, char **message) {
	uint8_t head[32];
	ssize_t n = veil_read_at_message(fd, head, sizeof(head), 0, message);
	if (n < 0) {
		return (int)n;
	}
	switch (format) {
	case VEIL_ANIM_GIF:
		if (n < 10) {
			break;
		}
		return veil_image_check_size(head[6] | head[7] << 8, head[8] | head[9] << 8,
			"GIF image", message);
	case VEIL_ANIM_PNG:
		if (n < 24) {
			break;
		}
		return veil_image_check_size(be32(head + 16), be32(head + 20), "PNG image",
			message);
#if VEIL_HAVE_LIBWEBP
	case VEIL_ANIM_WEBP:
		/* The canvas size, and the RIFF size against the file's: a file cut short. */
		return veil_webp_check(fd, message);
#endif
#if VEIL_HAVE_LIBJXL
	case VEIL_ANIM_JXL:
		return veil_jxl_check(fd, message);
#endif
	default:
		break;
	}
	veil_message_set(message, "the file is too short for its header");
	return -EINVAL;
}
