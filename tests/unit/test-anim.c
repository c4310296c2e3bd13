/*
 * The animation decoders (decode/anim_gif.c, anim_png.c; anim_jxl.c on cjxl's encoding of an
 * APNG) on files written here byte by byte: composition (disposal to background and to
 * previous, blending over and source, a GIF's transparent index) against pixels worked out by
 * hand; delays (zero raised to 100 ms, an APNG denominator of 0); loop counts; and hostile
 * files: chunk lengths past the end, frames outside the canvas, empty frames, short fdAT, every
 * truncation of a valid file, LZW garbage. A hostile file must give an error (or a frame),
 * never a crash: run under ASan in CI.
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "veil-config.h"
#include "decode/anim.h"
#include "check.h"

struct buf {
	uint8_t data[1 << 16];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n) {
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put8(struct buf *b, unsigned v) {
	b->data[b->len++] = (uint8_t)v;
}

static void put16le(struct buf *b, unsigned v) {
	put8(b, v & 0xff);
	put8(b, v >> 8);
}

static void put32be(struct buf *b, uint32_t v) {
	put8(b, v >> 24);
	put8(b, (v >> 16) & 0xff);
	put8(b, (v >> 8) & 0xff);
	put8(b, v & 0xff);
}

/* Runs every frame of a file through a decoder twice (a second play), expecting no error. */
static int play(const struct veil_anim_decoder_impl *impl, const uint8_t *data, size_t len,
		struct veil_anim_info *info) {
	struct veil_anim_decoder *dec;
	char *message = NULL;
	int ret = impl->open(data, len, &dec, info, &message);
	if (ret < 0) {
		free(message);
		return ret;
	}
	for (int i = 0; i < 2 * info->frames && ret == 0; i++) {
		const uint8_t *canvas;
		int delay, index;
		ret = impl->next(dec, &canvas, &delay, &index, &message);
		free(message);
		message = NULL;
	}
	impl->destroy(dec);
	return ret;
}

/* Every prefix of a file, and the file with each byte flipped: errors, never a crash. */
static void hostile_variants(const struct veil_anim_decoder_impl *impl, const uint8_t *data,
		size_t len) {
	uint8_t *copy = malloc(len);
	struct veil_anim_info info;
	int errors = 0;
	for (size_t n = 0; n < len; n++) {
		memcpy(copy, data, n);
		errors += play(impl, copy, n, &info) < 0;
	}
	CHECK(errors > 0, "%s: some truncation fails", impl->format_name);
	for (size_t i = 0; i < len; i++) {
		memcpy(copy, data, len);
		copy[i] ^= 0xa5;
		play(impl, copy, len, &info);
	}
	free(copy);
	CHECK(true, "%s: %zu truncations and %zu flipped bytes decoded or refused", impl->format_name,
		len, len);
}

#if VEIL_HAVE_GIFLIB
/* 8-bit indices as literal 9-bit LZW codes, a clear code every 250. */
static void put_lzw(struct buf *b, const uint8_t *idx, size_t n) {
	uint8_t codes[8192];
	size_t len = 0;
	uint32_t bits = 0;
	int nbits = 0;
	for (size_t i = 0; i <= n; i++) {
		unsigned code[2];
		int k = 0;
		if (i % 250 == 0 && i < n) {
			code[k++] = 256;
		}
		code[k++] = i < n ? idx[i] : 257;
		for (int j = 0; j < k; j++) {
			bits |= code[j] << nbits;
			nbits += 9;
			while (nbits >= 8) {
				codes[len++] = bits & 0xff;
				bits >>= 8;
				nbits -= 8;
			}
		}
	}
	if (nbits > 0) {
		codes[len++] = bits & 0xff;
	}
	put8(b, 8);
	for (size_t i = 0; i < len; i += 255) {
		size_t m = len - i < 255 ? len - i : 255;
		put8(b, (unsigned)m);
		put(b, codes + i, m);
	}
	put8(b, 0);
}

static void gif_header(struct buf *b, int w, int h, int loop) {
	put(b, "GIF89a", 6);
	put16le(b, (unsigned)w);
	put16le(b, (unsigned)h);
	put8(b, 0xf1); /* global table of 4 colours */
	put8(b, 0);
	put8(b, 0);
	static const uint8_t palette[12] = { 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255 };
	put(b, palette, sizeof(palette));
	if (loop >= 0) {
		put(b, "\x21\xff\x0bNETSCAPE2.0\x03\x01", 16);
		put16le(b, (unsigned)loop);
		put8(b, 0);
	}
}

static void gif_frame(struct buf *b, int x, int y, int w, int h, const uint8_t *idx,
		int disposal, int transparent, int delay_cs) {
	put(b, "\x21\xf9\x04", 3);
	put8(b, (unsigned)(disposal << 2 | (transparent >= 0)));
	put16le(b, (unsigned)delay_cs);
	put8(b, transparent >= 0 ? (unsigned)transparent : 0);
	put8(b, 0);
	put8(b, 0x2c);
	put16le(b, (unsigned)x);
	put16le(b, (unsigned)y);
	put16le(b, (unsigned)w);
	put16le(b, (unsigned)h);
	put8(b, 0);
	put_lzw(b, idx, (size_t)w * (size_t)h);
}

/* The canvas pixel at x, y as 0xAARRGGBB (premultiplied). */
static uint32_t pixel(const uint8_t *canvas, int width, int x, int y) {
	const uint8_t *p = canvas + ((size_t)y * (size_t)width + (size_t)x) * 4;
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

#define RED 0xffff0000u
#define GREEN 0xff00ff00u
#define BLUE 0xff0000ffu
#define CLEAR 0x00000000u

static void test_gif(void) {
	static struct buf b;
	b.len = 0;
	gif_header(&b, 4, 4, 3);
	uint8_t red[16], green[4] = { 2, 0, 2, 2 }, blue[1] = { 3 };
	memset(red, 1, sizeof(red));
	/* 1: all red, then cleared to background. 2: green 2x2 at 1,1 with one transparent
	 * pixel. 3: blue at 0,0, then back to the previous. 4: 4x4 at 3,3, clipped to 1 pixel. */
	gif_frame(&b, 0, 0, 4, 4, red, 2, -1, 0);
	gif_frame(&b, 1, 1, 2, 2, green, 1, 0, 2);
	gif_frame(&b, 0, 0, 1, 1, blue, 3, -1, 50);
	gif_frame(&b, 3, 3, 4, 4, red, 1, -1, 10);
	put8(&b, 0x3b);

	struct veil_anim_decoder *dec;
	struct veil_anim_info info;
	char *message = NULL;
	int ret = veil_anim_gif.open(b.data, b.len, &dec, &info, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	if (ret < 0) {
		free(message);
		return;
	}
	CHECK(info.width == 4 && info.height == 4 && info.frames == 4, "%dx%d, %d frames",
		info.width, info.height, info.frames);
	CHECK(info.plays == 4, "NETSCAPE loop 3: four plays, got %d", info.plays);
	const uint8_t *c;
	int delay, index;
	CHECK(veil_anim_gif.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(index == 0 && delay == VEIL_ANIM_SHORT_DELAY_MS, "a delay of 0: %d ms", delay);
	CHECK(pixel(c, 4, 0, 0) == RED && pixel(c, 4, 3, 3) == RED);
	CHECK(veil_anim_gif.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(delay == 20, "2 cs: %d ms", delay);
	CHECK(pixel(c, 4, 0, 0) == CLEAR, "disposed to background: %08x", pixel(c, 4, 0, 0));
	CHECK(pixel(c, 4, 1, 1) == GREEN && pixel(c, 4, 2, 1) == CLEAR &&
		pixel(c, 4, 2, 2) == GREEN, "green with a transparent pixel: %08x %08x",
		pixel(c, 4, 1, 1), pixel(c, 4, 2, 1));
	CHECK(veil_anim_gif.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(pixel(c, 4, 0, 0) == BLUE && pixel(c, 4, 1, 1) == GREEN);
	CHECK(veil_anim_gif.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(pixel(c, 4, 0, 0) == CLEAR, "back to the previous: %08x", pixel(c, 4, 0, 0));
	CHECK(pixel(c, 4, 3, 3) == RED && pixel(c, 4, 2, 2) == GREEN,
		"a frame past the canvas is clipped: %08x", pixel(c, 4, 3, 3));
	CHECK(veil_anim_gif.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(index == 0 && pixel(c, 4, 2, 2) == RED, "the second play starts afresh");
	veil_anim_gif.destroy(dec);
	free(message);

	hostile_variants(&veil_anim_gif, b.data, b.len);

	/* No loop extension: once. A frame wholly outside the canvas. */
	b.len = 0;
	gif_header(&b, 4, 4, -1);
	gif_frame(&b, 60000, 60000, 4, 4, red, 0, -1, 10);
	put8(&b, 0x3b);
	CHECK(play(&veil_anim_gif, b.data, b.len, &info) == 0 && info.plays == 1,
		"a frame outside the canvas draws nothing; no loop extension plays once");
	/* LZW garbage. */
	b.len = 0;
	gif_header(&b, 4, 4, 0);
	put(&b, "\x2c\0\0\0\0\x04\0\x04\0\0\x08\x05\xff\xff\xff\xff\xff\0\x3b", 19);
	CHECK(play(&veil_anim_gif, b.data, b.len, &info) < 0, "LZW garbage fails");
	/* No frame at all; an empty canvas. */
	b.len = 0;
	gif_header(&b, 4, 4, 0);
	put8(&b, 0x3b);
	CHECK(play(&veil_anim_gif, b.data, b.len, &info) == -EINVAL, "no frame fails");
	b.len = 0;
	gif_header(&b, 0, 4, 0);
	gif_frame(&b, 0, 0, 1, 1, blue, 0, -1, 10);
	put8(&b, 0x3b);
	CHECK(play(&veil_anim_gif, b.data, b.len, &info) == -EINVAL, "an empty canvas fails");
}
#endif

static void chunk(struct buf *b, const char *type, const void *body, uint32_t len) {
	put32be(b, len);
	size_t start = b->len;
	put(b, type, 4);
	if (len > 0) {
		put(b, body, len);
	}
	put32be(b, (uint32_t)crc32(0, b->data + start, (uInt)(b->len - start)));
}

static void fctl(struct buf *b, uint32_t seq, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
		unsigned num, unsigned den, unsigned dispose, unsigned blend) {
	struct buf body = { .len = 0 };
	put32be(&body, seq);
	put32be(&body, w);
	put32be(&body, h);
	put32be(&body, x);
	put32be(&body, y);
	put8(&body, num >> 8);
	put8(&body, num & 0xff);
	put8(&body, den >> 8);
	put8(&body, den & 0xff);
	put8(&body, dispose);
	put8(&body, blend);
	chunk(b, "fcTL", body.data, (uint32_t)body.len);
}

/* RGBA rows of one colour, filter 0, compressed; fdAT gets a sequence number first. */
static void frame_data(struct buf *b, const char *type, uint32_t seq, int w, int h,
		const uint8_t rgba[4]) {
	uint8_t raw[4096];
	size_t n = 0;
	for (int y = 0; y < h; y++) {
		raw[n++] = 0;
		for (int x = 0; x < w; x++) {
			memcpy(raw + n, rgba, 4);
			n += 4;
		}
	}
	struct buf body = { .len = 0 };
	if (strcmp(type, "fdAT") == 0) {
		put32be(&body, seq);
	}
	uLongf zlen = sizeof(body.data) - body.len;
	compress(body.data + body.len, &zlen, raw, n);
	body.len += zlen;
	chunk(b, type, body.data, (uint32_t)body.len);
}

static void png_head(struct buf *b, uint32_t w, uint32_t h, uint32_t frames, uint32_t plays) {
	put(b, "\x89PNG\r\n\x1a\n", 8);
	struct buf body = { .len = 0 };
	put32be(&body, w);
	put32be(&body, h);
	put(&body, "\x08\x06\0\0\0", 5);
	chunk(b, "IHDR", body.data, 13);
	body.len = 0;
	put32be(&body, frames);
	put32be(&body, plays);
	chunk(b, "acTL", body.data, 8);
}

static void test_png(void) {
	static const uint8_t red[4] = { 255, 0, 0, 255 }, half_blue[4] = { 0, 0, 255, 128 },
		green[4] = { 0, 255, 0, 255 };
	static struct buf b;
	b.len = 0;
	png_head(&b, 4, 4, 4, 2);
	fctl(&b, 0, 4, 4, 0, 0, 0, 1000, 0, 0); /* red, delay 0 */
	frame_data(&b, "IDAT", 0, 4, 4, red);
	fctl(&b, 1, 2, 2, 2, 2, 1, 0, 1, 1); /* half blue over, 1/100 s (den 0), to background */
	frame_data(&b, "fdAT", 2, 2, 2, half_blue);
	fctl(&b, 3, 1, 1, 0, 0, 250, 1000, 2, 0); /* green source at 0,0, back to previous */
	frame_data(&b, "fdAT", 4, 1, 1, green);
	fctl(&b, 5, 1, 1, 3, 0, 250, 1000, 0, 0);
	frame_data(&b, "fdAT", 6, 1, 1, green);
	chunk(&b, "IEND", NULL, 0);

	struct veil_anim_decoder *dec;
	struct veil_anim_info info;
	char *message = NULL;
	int ret = veil_anim_png.open(b.data, b.len, &dec, &info, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	if (ret < 0) {
		free(message);
		return;
	}
	CHECK(info.frames == 4 && info.plays == 2, "%d frames, %d plays", info.frames,
		info.plays);
	const uint8_t *c;
	int delay, index;
	CHECK(veil_anim_png.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(delay == VEIL_ANIM_SHORT_DELAY_MS, "delay 0: %d", delay);
	CHECK(veil_anim_png.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(delay == VEIL_ANIM_SHORT_DELAY_MS, "1/100 s (den 0 is 100) is short: %d", delay);
	/* Half blue over red: premultiplied (127, 0, 128) at alpha 255. */
	uint32_t p = pixel(c, 4, 3, 3);
	CHECK((p >> 24) == 255 && ((p >> 16) & 0xff) >= 126 && ((p >> 16) & 0xff) <= 128 &&
		(p & 0xff) >= 127 && (p & 0xff) <= 129, "blended over: %08x", p);
	CHECK(pixel(c, 4, 0, 0) == RED);
	CHECK(veil_anim_png.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(delay == 250 && pixel(c, 4, 3, 3) == CLEAR, "disposed to background: %08x",
		pixel(c, 4, 3, 3));
	CHECK(pixel(c, 4, 0, 0) == GREEN);
	CHECK(veil_anim_png.next(dec, &c, &delay, &index, &message) == 0);
	CHECK(pixel(c, 4, 0, 0) == RED && pixel(c, 4, 3, 0) == GREEN,
		"back to the previous: %08x", pixel(c, 4, 0, 0));
	veil_anim_png.destroy(dec);
	free(message);
	hostile_variants(&veil_anim_png, b.data, b.len);

	/* Hostile structure. */
	struct { const char *what; int w, h, x, y; } outside[] = {
		{ "past the right edge", 2, 2, 3, 0 },
		{ "an offset that wraps", 2, 2, 0xfffffffe, 0 },
		{ "an empty frame", 0, 2, 0, 0 },
		{ "larger than the canvas", 5, 4, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		b.len = 0;
		png_head(&b, 4, 4, 2, 0);
		fctl(&b, 0, 4, 4, 0, 0, 1, 10, 0, 0);
		frame_data(&b, "IDAT", 0, 4, 4, red);
		fctl(&b, 1, (uint32_t)outside[i].w, (uint32_t)outside[i].h, (uint32_t)outside[i].x,
			(uint32_t)outside[i].y, 1, 10, 0, 0);
		frame_data(&b, "fdAT", 2, 1, 1, red);
		chunk(&b, "IEND", NULL, 0);
		CHECK(play(&veil_anim_png, b.data, b.len, &info) == -EINVAL, "%s is refused",
			outside[i].what);
	}
	/* A chunk length past the end, and one of 2^32 - 16. */
	b.len = 0;
	png_head(&b, 4, 4, 2, 0);
	put32be(&b, 0xfffffff0u);
	put(&b, "fcTL", 4);
	CHECK(play(&veil_anim_png, b.data, b.len, &info) == -EINVAL, "a huge chunk length");
	/* An fdAT of 2 bytes; an acTL without fcTL. */
	b.len = 0;
	png_head(&b, 4, 4, 2, 0);
	fctl(&b, 0, 4, 4, 0, 0, 1, 10, 0, 0);
	frame_data(&b, "IDAT", 0, 4, 4, red);
	fctl(&b, 1, 1, 1, 0, 0, 1, 10, 0, 0);
	chunk(&b, "fdAT", "\0\0", 2);
	chunk(&b, "IEND", NULL, 0);
	CHECK(play(&veil_anim_png, b.data, b.len, &info) == -EINVAL, "a 2-byte fdAT");
	b.len = 0;
	png_head(&b, 4, 4, 2, 0);
	frame_data(&b, "IDAT", 0, 4, 4, red);
	chunk(&b, "IEND", NULL, 0);
	CHECK(play(&veil_anim_png, b.data, b.len, &info) == -EINVAL, "acTL without fcTL");
	/* A frame whose data is not zlib. */
	b.len = 0;
	png_head(&b, 4, 4, 2, 0);
	fctl(&b, 0, 4, 4, 0, 0, 1, 10, 0, 0);
	chunk(&b, "IDAT", "garbage!", 8);
	fctl(&b, 1, 1, 1, 0, 0, 1, 10, 0, 0);
	frame_data(&b, "fdAT", 2, 1, 1, red);
	chunk(&b, "IEND", NULL, 0);
	CHECK(play(&veil_anim_png, b.data, b.len, &info) == -EINVAL, "garbage image data");
}

static enum veil_anim_format detect(const struct buf *b) {
	int fd = memfd_create("anim", MFD_CLOEXEC);
	if (fd < 0 || write(fd, b->data, b->len) != (ssize_t)b->len) {
		CHECK(false, "memfd");
		return VEIL_ANIM_NONE;
	}
	enum veil_anim_format format = veil_anim_detect(fd);
	close(fd);
	return format;
}

/* Which files are animations, from their first bytes (veil_anim_detect). */
static void test_detect(void) {
	static struct buf b;
	static const uint8_t red[4] = { 255, 0, 0, 255 };
	uint8_t idx[4] = { 1, 1, 1, 1 };
#if VEIL_HAVE_GIFLIB
	b.len = 0;
	gif_header(&b, 2, 2, -1);
	gif_frame(&b, 0, 0, 2, 2, idx, 0, -1, 10);
	put8(&b, 0x3b);
	CHECK(detect(&b) == VEIL_ANIM_NONE, "one image, no loop extension: a still");
	b.len -= 1;
	gif_frame(&b, 0, 0, 2, 2, idx, 0, -1, 10);
	put8(&b, 0x3b);
	CHECK(detect(&b) == VEIL_ANIM_GIF, "two images without a loop extension: it moves");
	b.len = 0;
	gif_header(&b, 2, 2, 0);
	gif_frame(&b, 0, 0, 2, 2, idx, 0, -1, 10);
	CHECK(detect(&b) == VEIL_ANIM_GIF, "a loop extension: it moves");
	/* Sub-block lengths past the end of the head. */
	b.len = 0;
	gif_header(&b, 2, 2, -1);
	put(&b, "\x21\xf9\xff\x01", 4);
	CHECK(detect(&b) == VEIL_ANIM_NONE, "a block past the end");
#else
	(void)idx;
#endif
	b.len = 0;
	png_head(&b, 4, 4, 2, 0);
	fctl(&b, 0, 4, 4, 0, 0, 1, 10, 0, 0);
	frame_data(&b, "IDAT", 0, 4, 4, red);
	CHECK(detect(&b) == VEIL_ANIM_PNG, "acTL of two frames before IDAT");
	b.len = 0;
	png_head(&b, 4, 4, 1, 0);
	frame_data(&b, "IDAT", 0, 4, 4, red);
	CHECK(detect(&b) == VEIL_ANIM_NONE, "acTL of one frame: a still");
	b.len = 0;
	put(&b, "\x89PNG\r\n\x1a\n", 8);
	put32be(&b, 0xfffffff0u);
	put(&b, "IHDR", 4);
	CHECK(detect(&b) == VEIL_ANIM_NONE, "a chunk past the end");
}

#if VEIL_HAVE_LIBJXL
/*
 * Animated JPEG XL as cjxl writes it from an APNG written here: three 8x8 frames (red 200 ms,
 * green 300 ms, blue 100 ms) looping, lossless and lossy (cjxl 0.11 writes num_loops 0 whatever
 * the APNG says). The count, the delays, the loop count, every pixel of each frame, the first frame
 * again after the last; every truncation and flipped byte decoded or refused.
 */
static bool near(uint32_t got, uint32_t want, int tolerance) {
	for (int shift = 0; shift < 32; shift += 8) {
		if (abs((int)((got >> shift) & 0xff) - (int)((want >> shift) & 0xff)) > tolerance) {
			return false;
		}
	}
	return true;
}

static void test_jxl(const char *distance, int tolerance) {
	static const uint8_t colours[3][4] = {
		{ 255, 0, 0, 255 }, { 0, 255, 0, 255 }, { 0, 0, 255, 255 },
	};
	static const uint32_t want[3] = { RED, GREEN, BLUE };
	static const int delays[3] = { 200, 300, 100 };
	static struct buf b;
	b.len = 0;
	png_head(&b, 8, 8, 3, 0);
	for (uint32_t i = 0; i < 3; i++) {
		fctl(&b, 2 * i, 8, 8, 0, 0, (uint16_t)delays[i], 1000, 0, 0);
		frame_data(&b, i == 0 ? "IDAT" : "fdAT", i == 0 ? 0 : 2 * i - 1, 8, 8, colours[i]);
	}
	chunk(&b, "IEND", NULL, 0);
	FILE *f = fopen("test-anim-jxl.png", "wb");
	CHECK(f != NULL && fwrite(b.data, 1, b.len, f) == b.len && fclose(f) == 0);
	char command[128];
	snprintf(command, sizeof(command), "cjxl -d %s test-anim-jxl.png test-anim-jxl.jxl "
		">/dev/null 2>&1", distance);
	int status = system(command);
	CHECK(status == 0, "cjxl (libjxl-tools) encodes the APNG: status %d", status);
	f = fopen("test-anim-jxl.jxl", "rb");
	b.len = f != NULL ? fread(b.data, 1, sizeof(b.data), f) : 0;
	if (f != NULL) {
		fclose(f);
	}
	unlink("test-anim-jxl.png");
	unlink("test-anim-jxl.jxl");
	if (!CHECK(b.len > 0 && b.len < sizeof(b.data), "cjxl's file: %zu bytes", b.len)) {
		return;
	}
	CHECK(detect(&b) == VEIL_ANIM_JXL, "cjxl's animation is detected as one");

	struct veil_anim_decoder *dec;
	struct veil_anim_info info;
	char *message = NULL;
	int ret = veil_anim_jxl.open(b.data, b.len, &dec, &info, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	if (ret < 0) {
		free(message);
		return;
	}
	CHECK(info.width == 8 && info.height == 8 && info.frames == 3 && info.plays == 0,
		"%dx%d, %d frames, %d plays", info.width, info.height, info.frames, info.plays);
	for (int i = 0; i < 4; i++) {
		const uint8_t *c;
		int delay, index;
		ret = veil_anim_jxl.next(dec, &c, &delay, &index, &message);
		CHECK(ret == 0, "frame %d: %s", i, message != NULL ? message : "");
		if (ret < 0) {
			break;
		}
		int wrong = 0;
		for (int p = 0; p < 64; p++) {
			wrong += !near(pixel(c, 8, p % 8, p / 8), want[i % 3], tolerance);
		}
		CHECK(index == i % 3 && delay == delays[i % 3] && wrong == 0,
			"-d %s frame %d: index %d, delay %d, %d pixels not %08x within %d (first "
			"%08x)", distance, i, index, delay, wrong, want[i % 3], tolerance,
			pixel(c, 8, 0, 0));
	}
	veil_anim_jxl.destroy(dec);
	free(message);
	if (tolerance == 0) {
		hostile_variants(&veil_anim_jxl, b.data, b.len);
	}
}
#endif

int main(void) {
	test_detect();
#if VEIL_HAVE_LIBJXL
	test_jxl("0", 0);
	/* Lossy (XYB), decoded into sRGB by libjxl: djxl too makes red 254, 0, 10 of it. */
	test_jxl("1", 12);
#endif
#if VEIL_HAVE_GIFLIB
	test_gif();
#else
	printf("giflib: not built, its cases skipped\n");
#endif
	test_png();
	return check_summary("anim");
}
