#define _DEFAULT_SOURCE /* reallocarray */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <zlib.h>
#include "decode/anim.h"
#include "util/image.h"
#include "util/message.h"

/*
 * APNG through libpng, which (as Debian builds it) has no APNG support: the chunks are walked
 * here, bounded (every length against the file, every frame inside the canvas), and each frame
 * becomes a small PNG of its own in memory (the file's IHDR with the frame's size, its PLTE and
 * tRNS, the frame's IDAT or fdAT data as IDAT, IEND) that libpng's simplified API decodes to
 * B, G, R, A. Composing (dispose_op, blend_op) is ours. Nothing of the file's zlib data is read
 * here: libpng and zlib check it.
 */

#define SIGNATURE_LEN 8
#define FCTL_LEN 26

enum { DISPOSE_NONE, DISPOSE_BACKGROUND, DISPOSE_PREVIOUS };
enum { BLEND_SOURCE, BLEND_OVER };

struct chunk {
	uint32_t type;
	size_t offset; /* of its data */
	uint32_t len;
};

struct frame {
	int x, y, w, h;
	int delay_ms;
	int dispose, blend;
	size_t first, end; /* its data chunks: chunks[first, end) of type IDAT or fdAT */
	size_t data_len; /* the bytes of image data they hold */
};

struct veil_anim_decoder {
	const uint8_t *data;
	size_t len;
	const uint8_t *ihdr; /* 13 bytes */
	const struct chunk *plte, *trns;
	struct chunk *chunks;
	size_t n_chunks;
	struct frame *frames;
	int n_frames;
	int width, height;
	int index;
	uint8_t *canvas, *saved, *pixels;
	uint8_t *png; /* a frame as a PNG file */
	size_t png_size;
	int disposal; /* of the frame shown last */
	int x, y, w, h;
};

#define TYPE(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define IHDR TYPE('I', 'H', 'D', 'R')
#define PLTE TYPE('P', 'L', 'T', 'E')
#define TRNS TYPE('t', 'R', 'N', 'S')
#define IDAT TYPE('I', 'D', 'A', 'T')
#define IEND TYPE('I', 'E', 'N', 'D')
#define ACTL TYPE('a', 'c', 'T', 'L')
#define FCTL TYPE('f', 'c', 'T', 'L')
#define FDAT TYPE('f', 'd', 'A', 'T')

static uint32_t be32(const uint8_t *p) {
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v) {
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void png_destroy(struct veil_anim_decoder *dec) {
	if (dec == NULL) {
		return;
	}
	free(dec->chunks);
	free(dec->frames);
	free(dec->canvas);
	free(dec->saved);
	free(dec->pixels);
	free(dec->png);
	free(dec);
}

/* Every chunk up to IEND, each inside the file. */
static int read_chunks(struct veil_anim_decoder *dec, char **message) {
	size_t pos = SIGNATURE_LEN, cap = 0;
	while (true) {
		if (dec->len - pos < 12) {
			veil_message_set(message, "APNG file is truncated (no IEND chunk)");
			return -EINVAL;
		}
		uint32_t len = be32(dec->data + pos);
		if (len > 0x7fffffffu || len > dec->len - pos - 12) {
			veil_message_set(message, "APNG file is truncated or corrupt: a chunk of %u "
				"bytes at offset %zu goes past its end", len, pos);
			return -EINVAL;
		}
		if (dec->n_chunks == cap) {
			cap = cap > 0 ? cap * 2 : 64;
			struct chunk *chunks = reallocarray(dec->chunks, cap, sizeof(*chunks));
			if (chunks == NULL) {
				veil_message_set(message, "out of memory");
				return -ENOMEM;
			}
			dec->chunks = chunks;
		}
		struct chunk *c = &dec->chunks[dec->n_chunks++];
		c->type = be32(dec->data + pos + 4);
		c->offset = pos + 8;
		c->len = len;
		pos += 12 + (size_t)len;
		if (c->type == IEND) {
			return 0;
		}
	}
}

/* A frame control chunk into *f, checked against the canvas. */
static int read_fctl(struct veil_anim_decoder *dec, const struct chunk *c, struct frame *f,
		int n, char **message) {
	if (c->len < FCTL_LEN) {
		veil_message_set(message, "corrupt APNG file: frame %d's fcTL is %u bytes", n + 1,
			c->len);
		return -EINVAL;
	}
	const uint8_t *p = dec->data + c->offset;
	uint32_t w = be32(p + 4), h = be32(p + 8), x = be32(p + 12), y = be32(p + 16);
	unsigned num = (unsigned)p[20] << 8 | p[21], den = (unsigned)p[22] << 8 | p[23];
	if (w == 0 || h == 0 || x > (uint32_t)dec->width || y > (uint32_t)dec->height ||
			w > (uint32_t)dec->width - x || h > (uint32_t)dec->height - y) {
		veil_message_set(message, "corrupt APNG file: frame %d (%ux%u at %u,%u) lies outside "
			"the %dx%d canvas", n + 1, w, h, x, y, dec->width, dec->height);
		return -EINVAL;
	}
	if (p[24] > DISPOSE_PREVIOUS || p[25] > BLEND_OVER) {
		veil_message_set(message, "corrupt APNG file: frame %d has dispose %u, blend %u",
			n + 1, p[24], p[25]);
		return -EINVAL;
	}
	*f = (struct frame){
		.x = (int)x, .y = (int)y, .w = (int)w, .h = (int)h,
		.delay_ms = veil_anim_delay((int64_t)num * 1000 / (den != 0 ? den : 100)),
		.dispose = p[24],
		.blend = p[25],
	};
	/* The first frame has nothing before it to go back to. */
	if (n == 0 && f->dispose == DISPOSE_PREVIOUS) {
		f->dispose = DISPOSE_BACKGROUND;
	}
	return 0;
}

/* IHDR first, acTL before IDAT, each fcTL followed by its data. */
static int read_frames(struct veil_anim_decoder *dec, int *plays, char **message) {
	const struct chunk *c = &dec->chunks[0];
	if (c->type != IHDR || c->len != 13) {
		veil_message_set(message, "corrupt PNG file: it does not start with IHDR");
		return -EINVAL;
	}
	dec->ihdr = dec->data + c->offset;
	dec->width = (int)(be32(dec->ihdr) & 0x7fffffff);
	dec->height = (int)(be32(dec->ihdr + 4) & 0x7fffffff);
	int ret = veil_image_check_size((uint64_t)be32(dec->ihdr), (uint64_t)be32(dec->ihdr + 4),
		"PNG image", message);
	if (ret < 0) {
		return ret;
	}
	if (dec->width == 0 || dec->height == 0) {
		veil_message_set(message, "corrupt PNG file: its size is %dx%d", dec->width,
			dec->height);
		return -EINVAL;
	}
	bool actl = false, seen_idat = false;
	struct frame *f = NULL;
	size_t cap = 0;
	for (size_t i = 1; i < dec->n_chunks; i++) {
		c = &dec->chunks[i];
		if (c->type == ACTL && !seen_idat && c->len >= 8) {
			actl = true;
			*plays = (int)(be32(dec->data + c->offset + 4) & 0x7fffffff);
		} else if (c->type == PLTE && !seen_idat) {
			dec->plte = c;
		} else if (c->type == TRNS && !seen_idat) {
			dec->trns = c;
		} else if (c->type == FCTL) {
			if (dec->n_frames >= VEIL_ANIM_MAX_FRAMES) {
				veil_message_set(message, "APNG file has more than %d frames",
					VEIL_ANIM_MAX_FRAMES);
				return -EFBIG;
			}
			if ((size_t)dec->n_frames == cap) {
				cap = cap > 0 ? cap * 2 : 16;
				struct frame *frames = reallocarray(dec->frames, cap, sizeof(*frames));
				if (frames == NULL) {
					veil_message_set(message, "out of memory");
					return -ENOMEM;
				}
				dec->frames = frames;
			}
			f = &dec->frames[dec->n_frames];
			ret = read_fctl(dec, c, f, dec->n_frames, message);
			if (ret < 0) {
				return ret;
			}
			/* Before the first IDAT: the default image is the first frame. */
			if (!seen_idat && (f->x != 0 || f->y != 0 || f->w != dec->width ||
					f->h != dec->height)) {
				veil_message_set(message, "corrupt APNG file: its first frame is not the "
					"whole canvas");
				return -EINVAL;
			}
			f->first = f->end = i + 1;
			dec->n_frames++;
		} else if (c->type == IDAT || c->type == FDAT) {
			bool idat = c->type == IDAT;
			seen_idat = seen_idat || idat;
			/*
			 * Data follows its fcTL without a gap; IDAT is a frame's (the first) only when
			 * an fcTL came before it, else it is a default image the animation hides.
			 */
			bool belongs = f != NULL && f->end == i && (!idat || dec->n_frames == 1);
			if (!idat && c->len < 4) {
				veil_message_set(message, "corrupt APNG file: an fdAT chunk of %u bytes",
					c->len);
				return -EINVAL;
			}
			if (belongs) {
				f->end = i + 1;
				f->data_len += idat ? c->len : c->len - 4;
			}
		}
	}
	if (!actl || dec->n_frames == 0) {
		veil_message_set(message, "PNG file is not animated (no acTL or fcTL chunk)");
		return -EINVAL;
	}
	for (int n = 0; n < dec->n_frames; n++) {
		if (dec->frames[n].data_len == 0) {
			veil_message_set(message, "corrupt APNG file: frame %d has no image data", n + 1);
			return -EINVAL;
		}
	}
	return 0;
}

static int png_open(const uint8_t *data, size_t len, struct veil_anim_decoder **out,
		struct veil_anim_info *info, char **message) {
	static const uint8_t signature[SIGNATURE_LEN] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a,
		'\n' };
	if (len < SIGNATURE_LEN || memcmp(data, signature, SIGNATURE_LEN) != 0) {
		veil_message_set(message, "not a PNG file");
		return -EINVAL;
	}
	struct veil_anim_decoder *dec = calloc(1, sizeof(*dec));
	if (dec == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	dec->data = data;
	dec->len = len;
	int plays = 0;
	int ret = read_chunks(dec, message);
	if (ret == 0) {
		ret = read_frames(dec, &plays, message);
	}
	if (ret == 0) {
		dec->canvas = calloc((size_t)dec->width * (size_t)dec->height, 4);
		if (dec->canvas == NULL) {
			veil_message_set(message, "out of memory for a %dx%d canvas", dec->width,
				dec->height);
			ret = -ENOMEM;
		}
	}
	if (ret < 0) {
		png_destroy(dec);
		return ret;
	}
	*info = (struct veil_anim_info){
		.width = dec->width,
		.height = dec->height,
		.frames = dec->n_frames,
		.plays = plays,
	};
	*out = dec;
	return 0;
}

static uint8_t *put_chunk(uint8_t *p, uint32_t type, const uint8_t *body, size_t len) {
	put_be32(p, (uint32_t)len);
	put_be32(p + 4, type);
	if (len > 0) {
		memcpy(p + 8, body, len);
	}
	uLong crc = crc32(0, p + 4, 4);
	/* zlib's length is a uInt: feed large bodies in pieces. */
	for (size_t done = 0; done < len;) {
		size_t n = len - done > 0x40000000u ? 0x40000000u : len - done;
		crc = crc32(crc, p + 8 + done, (uInt)n);
		done += n;
	}
	put_be32(p + 8 + len, (uint32_t)crc);
	return p + 12 + len;
}

/* The frame as a PNG file of its own in dec->png; its length. */
static size_t build_png(struct veil_anim_decoder *dec, const struct frame *f, char **message) {
	size_t need = SIGNATURE_LEN + 25 + 12 + f->data_len + 12 +
		(dec->plte != NULL ? 12 + dec->plte->len : 0) +
		(dec->trns != NULL ? 12 + dec->trns->len : 0);
	if (need > dec->png_size) {
		uint8_t *png = realloc(dec->png, need);
		if (png == NULL) {
			veil_message_set(message, "out of memory");
			return 0;
		}
		dec->png = png;
		dec->png_size = need;
	}
	uint8_t *p = dec->png;
	memcpy(p, dec->data, SIGNATURE_LEN);
	p += SIGNATURE_LEN;
	uint8_t ihdr[13];
	memcpy(ihdr, dec->ihdr, sizeof(ihdr));
	put_be32(ihdr, (uint32_t)f->w);
	put_be32(ihdr + 4, (uint32_t)f->h);
	p = put_chunk(p, IHDR, ihdr, sizeof(ihdr));
	if (dec->plte != NULL) {
		p = put_chunk(p, PLTE, dec->data + dec->plte->offset, dec->plte->len);
	}
	if (dec->trns != NULL) {
		p = put_chunk(p, TRNS, dec->data + dec->trns->offset, dec->trns->len);
	}
	/* One IDAT of every data chunk's bytes, the CRC computed over them afterwards. */
	uint8_t *idat = p;
	p += 8;
	for (size_t i = f->first; i < f->end; i++) {
		const struct chunk *c = &dec->chunks[i];
		size_t skip = c->type == FDAT ? 4 : 0;
		if (c->type != IDAT && c->type != FDAT) {
			continue;
		}
		memcpy(p, dec->data + c->offset + skip, c->len - skip);
		p += c->len - skip;
	}
	put_be32(idat, (uint32_t)f->data_len);
	put_be32(idat + 4, IDAT);
	uLong crc = crc32(0, idat + 4, 4);
	for (size_t done = 0; done < f->data_len;) {
		size_t n = f->data_len - done > 0x40000000u ? 0x40000000u : f->data_len - done;
		crc = crc32(crc, idat + 8 + done, (uInt)n);
		done += n;
	}
	put_be32(p, (uint32_t)crc);
	p += 4;
	p = put_chunk(p, IEND, NULL, 0);
	return (size_t)(p - dec->png);
}

static int decode_frame(struct veil_anim_decoder *dec, const struct frame *f, int n,
		char **message) {
	size_t len = build_png(dec, f, message);
	if (len == 0) {
		return -ENOMEM;
	}
	png_image image = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_memory(&image, dec->png, len)) {
		veil_message_set(message, "corrupt APNG file: frame %d: %s", n + 1, image.message);
		png_image_free(&image);
		return -EINVAL;
	}
	image.format = PNG_FORMAT_BGRA;
	size_t size = (size_t)f->w * (size_t)f->h * 4;
	free(dec->pixels);
	dec->pixels = malloc(size);
	if (dec->pixels == NULL) {
		png_image_free(&image);
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	if (!png_image_finish_read(&image, NULL, dec->pixels, f->w * 4, NULL)) {
		veil_message_set(message, "corrupt APNG file: frame %d: %s", n + 1, image.message);
		png_image_free(&image);
		return -EINVAL;
	}
	return 0;
}

static int png_next(struct veil_anim_decoder *dec, const uint8_t **canvas, int *delay_ms,
		int *index, char **message) {
	size_t canvas_size = (size_t)dec->width * (size_t)dec->height * 4;
	if (dec->index >= dec->n_frames) {
		dec->index = 0;
		dec->disposal = DISPOSE_NONE;
	}
	if (dec->index == 0) {
		memset(dec->canvas, 0, canvas_size);
	} else if (dec->disposal == DISPOSE_BACKGROUND) {
		veil_anim_clear_rect(dec->canvas, dec->width, dec->height, dec->x, dec->y, dec->w,
			dec->h);
	} else if (dec->disposal == DISPOSE_PREVIOUS && dec->saved != NULL) {
		memcpy(dec->canvas, dec->saved, canvas_size);
	}
	const struct frame *f = &dec->frames[dec->index];
	int ret = decode_frame(dec, f, dec->index, message);
	if (ret < 0) {
		return ret;
	}
	if (f->dispose == DISPOSE_PREVIOUS) {
		if (dec->saved == NULL && (dec->saved = malloc(canvas_size)) == NULL) {
			veil_message_set(message, "out of memory");
			return -ENOMEM;
		}
		memcpy(dec->saved, dec->canvas, canvas_size);
	}
	veil_anim_put_rect(dec->canvas, dec->width, dec->height, dec->pixels, f->x, f->y, f->w,
		f->h, f->blend == BLEND_OVER);
	dec->disposal = f->dispose;
	dec->x = f->x;
	dec->y = f->y;
	dec->w = f->w;
	dec->h = f->h;
	*canvas = dec->canvas;
	*delay_ms = f->delay_ms;
	*index = dec->index++;
	return 0;
}

const struct veil_anim_decoder_impl veil_anim_png = {
	.format = VEIL_ANIM_PNG,
	.format_name = "apng",
	.name = "libpng",
	.open = png_open,
	.next = png_next,
	.destroy = png_destroy,
};
