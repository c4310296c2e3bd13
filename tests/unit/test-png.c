/*
 * Still-image decoding: veil_png_load, veil_gst_image_load and veil_image_shrink_to_cover.
 *
 * The PNGs are written here by a small encoder of our own (stored deflate blocks, every filter
 * type, Adam7) from known samples, so that libpng only ever decodes them; the expected pixels are
 * computed from the same samples. JPEG and WebP files come from GStreamer's encoders. Every file
 * is written to the working directory (meson runs the test in the build directory).
 */
#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gst/gst.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "decode/image.h"
#include "decode/still.h"
#include "check.h"

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Time limits stretch under valgrind, which runs everything tens of times slower. */
static double slack(void) {
	const char *preload = getenv("LD_PRELOAD");
	return preload != NULL && strstr(preload, "vgpreload") != NULL ? 100 : 1;
}

static uint32_t rand_state = 12345;

static uint32_t next_rand(void) {
	rand_state = rand_state * 1103515245 + 12345;
	return rand_state >> 8;
}

/* Byte buffers and files */

struct buf {
	uint8_t *data;
	size_t len, cap;
};

static void buf_put(struct buf *buf, const void *data, size_t len) {
	if (buf->len + len > buf->cap) {
		buf->cap = (buf->len + len) * 2 + 64;
		buf->data = realloc(buf->data, buf->cap);
		if (buf->data == NULL) {
			abort();
		}
	}
	memcpy(buf->data + buf->len, data, len);
	buf->len += len;
}

static void buf_byte(struct buf *buf, uint8_t byte) {
	buf_put(buf, &byte, 1);
}

static void buf_be32(struct buf *buf, uint32_t v) {
	uint8_t bytes[4] = { v >> 24, v >> 16, v >> 8, v };
	buf_put(buf, bytes, 4);
}

static void write_file(const char *path, const void *data, size_t len) {
	FILE *f = fopen(path, "wb");
	if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static uint8_t *read_file(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	struct buf buf = {0};
	uint8_t chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_put(&buf, chunk, n);
	}
	fclose(f);
	*len = buf.len;
	return buf.data;
}

static int open_data(const char *path, const void *data, size_t len) {
	write_file(path, data, len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	return fd;
}

/* A PNG encoder that shares nothing with libpng */

static uint32_t crc_table[256];

static uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len) {
	if (crc_table[1] == 0) {
		for (uint32_t n = 0; n < 256; n++) {
			uint32_t c = n;
			for (int k = 0; k < 8; k++) {
				c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
			}
			crc_table[n] = c;
		}
	}
	crc ^= 0xffffffffu;
	for (size_t i = 0; i < len; i++) {
		crc = crc_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
	}
	return crc ^ 0xffffffffu;
}

static void put_chunk(struct buf *out, const char *type, const uint8_t *data, size_t len) {
	buf_be32(out, (uint32_t)len);
	size_t start = out->len;
	buf_put(out, type, 4);
	if (len > 0) {
		buf_put(out, data, len);
	}
	buf_be32(out, crc32_update(0, out->data + start, len + 4));
}

/* A zlib stream of stored (uncompressed) deflate blocks. */
static void zlib_store(struct buf *out, const uint8_t *data, size_t len) {
	buf_byte(out, 0x78);
	buf_byte(out, 0x01);
	size_t pos = 0;
	do {
		size_t n = len - pos > 65535 ? 65535 : len - pos;
		buf_byte(out, pos + n == len ? 1 : 0);
		uint8_t lens[4] = { n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff };
		buf_put(out, lens, 4);
		buf_put(out, data + pos, n);
		pos += n;
	} while (pos < len);
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < len; i++) {
		a = (a + data[i]) % 65521;
		b = (b + a) % 65521;
	}
	buf_be32(out, b << 16 | a);
}

struct png_spec {
	int width, height;
	int color_type; /* 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA */
	int depth;
	bool interlace;
	const uint16_t *samples; /* width * height * channels, at the bit depth */
	const uint8_t *palette; /* RGB triples */
	int palette_len;
	const uint8_t *trns; /* the tRNS chunk's contents */
	int trns_len;
	size_t idat_max; /* split the data in IDAT chunks of this size; 0: one chunk */
	bool text_chunk; /* add a tEXt chunk after IHDR */
};

static int channels_of(int color_type) {
	switch (color_type) {
	case 2:
		return 3;
	case 4:
		return 2;
	case 6:
		return 4;
	default:
		return 1;
	}
}

static uint8_t paeth(int a, int b, int c) {
	int p = a + b - c;
	int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	if (pa <= pb && pa <= pc) {
		return (uint8_t)a;
	}
	return (uint8_t)(pb <= pc ? b : c);
}

/* Appends one filtered row; the filter type cycles through all five. */
static void filter_row(struct buf *out, const uint8_t *row, const uint8_t *prev, size_t len,
		size_t bpp, int type) {
	buf_byte(out, (uint8_t)type);
	for (size_t i = 0; i < len; i++) {
		int a = i >= bpp ? row[i - bpp] : 0;
		int b = prev[i];
		int c = i >= bpp ? prev[i - bpp] : 0;
		int pred = 0;
		switch (type) {
		case 1:
			pred = a;
			break;
		case 2:
			pred = b;
			break;
		case 3:
			pred = (a + b) / 2;
			break;
		case 4:
			pred = paeth(a, b, c);
			break;
		}
		buf_byte(out, (uint8_t)(row[i] - pred));
	}
}

static const int adam7[7][4] = { /* x0, y0, dx, dy */
	{ 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 },
	{ 0, 2, 2, 4 }, { 1, 0, 2, 2 }, { 0, 1, 1, 2 },
};

static uint8_t *encode_png(const struct png_spec *spec, size_t *out_len) {
	int channels = channels_of(spec->color_type);
	int bits = channels * spec->depth;
	size_t bpp = bits >= 8 ? (size_t)bits / 8 : 1;
	size_t max_row = ((size_t)spec->width * bits + 7) / 8;
	uint8_t *row = calloc(1, max_row), *prev = calloc(1, max_row);
	struct buf raw = {0};
	int filter = 0;

	int n_passes = spec->interlace ? 7 : 1;
	for (int pass = 0; pass < n_passes; pass++) {
		int x0 = 0, y0 = 0, dx = 1, dy = 1;
		if (spec->interlace) {
			x0 = adam7[pass][0];
			y0 = adam7[pass][1];
			dx = adam7[pass][2];
			dy = adam7[pass][3];
		}
		int pass_w = (spec->width - x0 + dx - 1) / dx;
		int pass_h = (spec->height - y0 + dy - 1) / dy;
		if (pass_w <= 0 || pass_h <= 0) {
			continue;
		}
		size_t row_len = ((size_t)pass_w * bits + 7) / 8;
		memset(prev, 0, max_row);
		for (int py = 0; py < pass_h; py++) {
			int y = y0 + py * dy;
			memset(row, 0, max_row);
			size_t bit = 0;
			for (int px = 0; px < pass_w; px++) {
				int x = x0 + px * dx;
				const uint16_t *s = spec->samples +
					((size_t)y * spec->width + x) * channels;
				for (int c = 0; c < channels; c++) {
					if (spec->depth == 16) {
						row[bit / 8] = s[c] >> 8;
						row[bit / 8 + 1] = s[c] & 0xff;
					} else if (spec->depth == 8) {
						row[bit / 8] = (uint8_t)s[c];
					} else {
						int shift = 8 - spec->depth - (int)(bit % 8);
						row[bit / 8] |= (uint8_t)(s[c] << shift);
					}
					bit += spec->depth;
				}
			}
			filter_row(&raw, row, prev, row_len, bpp, filter);
			filter = (filter + 1) % 5;
			memcpy(prev, row, row_len);
		}
	}

	struct buf z = {0};
	zlib_store(&z, raw.data, raw.len);

	struct buf out = {0};
	static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	buf_put(&out, signature, 8);
	struct buf ihdr = {0};
	buf_be32(&ihdr, (uint32_t)spec->width);
	buf_be32(&ihdr, (uint32_t)spec->height);
	uint8_t fields[5] = { spec->depth, spec->color_type, 0, 0, spec->interlace };
	buf_put(&ihdr, fields, 5);
	put_chunk(&out, "IHDR", ihdr.data, ihdr.len);
	if (spec->text_chunk) {
		static const char text[] = "Comment\0written by test-png";
		put_chunk(&out, "tEXt", (const uint8_t *)text, sizeof(text) - 1);
	}
	if (spec->palette != NULL) {
		put_chunk(&out, "PLTE", spec->palette, (size_t)spec->palette_len * 3);
	}
	if (spec->trns != NULL) {
		put_chunk(&out, "tRNS", spec->trns, (size_t)spec->trns_len);
	}
	size_t max = spec->idat_max > 0 ? spec->idat_max : z.len;
	for (size_t pos = 0; pos < z.len; pos += max) {
		put_chunk(&out, "IDAT", z.data + pos, z.len - pos < max ? z.len - pos : max);
	}
	put_chunk(&out, "IEND", NULL, 0);

	free(row);
	free(prev);
	free(raw.data);
	free(z.data);
	free(ihdr.data);
	*out_len = out.len;
	return out.data;
}

/* Expected pixels, computed from the samples */

static uint8_t to8(unsigned v, int depth) {
	switch (depth) {
	case 1:
		return (uint8_t)(v * 255);
	case 2:
		return (uint8_t)(v * 85);
	case 4:
		return (uint8_t)(v * 17);
	case 8:
		return (uint8_t)v;
	default:
		return (uint8_t)((v * 255u + 32767u) / 65535u);
	}
}

static uint8_t premul(unsigned c, unsigned a) {
	return (uint8_t)((c * a * 2 + 255) / 510);
}

/* B, G, R, A premultiplied bytes for every pixel; returns whether all are opaque. */
static bool expected_pixels(const struct png_spec *spec, uint8_t *out) {
	int channels = channels_of(spec->color_type);
	bool opaque = true;
	for (int i = 0; i < spec->width * spec->height; i++) {
		const uint16_t *s = spec->samples + (size_t)i * channels;
		unsigned r, g, b, a = 255;
		switch (spec->color_type) {
		case 0:
		case 4:
			r = g = b = to8(s[0], spec->depth);
			if (spec->color_type == 4) {
				a = to8(s[1], spec->depth);
			} else if (spec->trns != NULL &&
					s[0] == (spec->trns[0] << 8 | spec->trns[1])) {
				a = 0;
			}
			break;
		case 2:
		case 6:
			r = to8(s[0], spec->depth);
			g = to8(s[1], spec->depth);
			b = to8(s[2], spec->depth);
			if (spec->color_type == 6) {
				a = to8(s[3], spec->depth);
			} else if (spec->trns != NULL &&
					s[0] == (spec->trns[0] << 8 | spec->trns[1]) &&
					s[1] == (spec->trns[2] << 8 | spec->trns[3]) &&
					s[2] == (spec->trns[4] << 8 | spec->trns[5])) {
				a = 0;
			}
			break;
		default:
			r = spec->palette[s[0] * 3];
			g = spec->palette[s[0] * 3 + 1];
			b = spec->palette[s[0] * 3 + 2];
			if (spec->trns != NULL && s[0] < spec->trns_len) {
				a = spec->trns[s[0]];
			}
			break;
		}
		if (a != 255) {
			opaque = false;
		}
		out[4 * i] = premul(b, a);
		out[4 * i + 1] = premul(g, a);
		out[4 * i + 2] = premul(r, a);
		out[4 * i + 3] = (uint8_t)a;
	}
	return opaque;
}

static int compare_pixels(const struct veil_image *image, const uint8_t *expected, int tolerance) {
	int worst = 0;
	for (int y = 0; y < image->height; y++) {
		const uint8_t *row = (const uint8_t *)image->data + (size_t)y * image->stride;
		for (int x = 0; x < image->width * 4; x++) {
			int d = abs(row[x] - expected[(size_t)y * image->width * 4 + x]);
			if (d > worst) {
				worst = d;
			}
			if (d > tolerance) {
				CHECK_FAIL("pixel %d,%d byte %d is %d, expected %d", x / 4, y, x % 4,
					row[x], expected[(size_t)y * image->width * 4 + x]);
				return d;
			}
		}
	}
	return worst;
}

/* Decodes spec's PNG with veil_png_load and compares with the samples, exactly. */
static void check_png(const struct png_spec *spec) {
	size_t len;
	uint8_t *png = encode_png(spec, &len);
	int fd = open_data("test-png-case.png", png, len);
	size_t n = (size_t)spec->width * spec->height * 4;
	uint8_t *expected = malloc(n);
	bool opaque = expected_pixels(spec, expected);

	struct veil_image image = {0};
	char *message = NULL;
	int ret = veil_png_load(fd, &image, &message);
	if (ret != 0) {
		CHECK_FAIL("veil_png_load: %d (%s)", ret, message ? message : "no message");
	} else if (image.width != spec->width || image.height != spec->height ||
			image.stride != spec->width * 4) {
		CHECK_FAIL("size %dx%d stride %d", image.width, image.height, image.stride);
	} else if (image.drm_format != (opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888)) {
		CHECK_FAIL("format %.4s, expected %s", (const char *)&image.drm_format,
			opaque ? "XRGB" : "ARGB");
	} else {
		compare_pixels(&image, expected, 0);
	}
	free(message);
	veil_image_finish(&image);
	free(expected);
	free(png);
	close(fd);
}

static uint16_t *random_samples(int n, int depth) {
	uint16_t *s = malloc(sizeof(*s) * (size_t)n);
	for (int i = 0; i < n; i++) {
		s[i] = (uint16_t)(next_rand() & ((1u << depth) - 1));
	}
	return s;
}

static void test_grey(int depth, bool interlace, bool trns) {
	check_begin("grey %d-bit%s%s", depth, interlace ? " interlaced" : "", trns ? " tRNS" : "");
	struct png_spec spec = { .width = 13, .height = 11, .color_type = 0, .depth = depth,
		.interlace = interlace };
	uint16_t *samples = random_samples(spec.width * spec.height, depth);
	uint16_t key = (uint16_t)(0x1234 & ((1u << depth) - 1));
	uint8_t trns_data[2] = { key >> 8, key & 0xff };
	if (trns) {
		for (int i = 0; i < spec.width * spec.height; i += 3) {
			samples[i] = key;
		}
		if (depth == 16) {
			samples[1] = key ^ 1; /* differs in the low byte only: stays opaque */
		}
		spec.trns = trns_data;
		spec.trns_len = 2;
	}
	spec.samples = samples;
	check_png(&spec);
	free(samples);
	check_end();
}

static void test_rgb(int depth, bool interlace, bool trns) {
	check_begin("RGB %d-bit%s%s", depth, interlace ? " interlaced" : "", trns ? " tRNS" : "");
	struct png_spec spec = { .width = 13, .height = 11, .color_type = 2, .depth = depth,
		.interlace = interlace };
	int n = spec.width * spec.height;
	uint16_t *samples = random_samples(n * 3, depth);
	uint16_t key[3] = { 0x1234 & ((1u << depth) - 1), 0x5678 & ((1u << depth) - 1),
		0x9abc & ((1u << depth) - 1) };
	uint8_t trns_data[6];
	if (trns) {
		for (int c = 0; c < 3; c++) {
			trns_data[2 * c] = key[c] >> 8;
			trns_data[2 * c + 1] = key[c] & 0xff;
		}
		for (int i = 0; i < n; i += 4) {
			memcpy(samples + 3 * i, key, sizeof(key));
		}
		if (depth == 16) {
			memcpy(samples + 3, key, sizeof(key));
			samples[5] ^= 1;
		}
		spec.trns = trns_data;
		spec.trns_len = 6;
	}
	spec.samples = samples;
	check_png(&spec);
	free(samples);
	check_end();
}

static void test_palette(int depth, bool interlace, int trns_len) {
	check_begin("palette %d-bit%s tRNS %d", depth, interlace ? " interlaced" : "", trns_len);
	int entries = 1 << depth;
	uint8_t palette[256 * 3], trns[256];
	for (int i = 0; i < entries * 3; i++) {
		palette[i] = (uint8_t)next_rand();
	}
	for (int i = 0; i < trns_len; i++) {
		trns[i] = (uint8_t)next_rand();
	}
	if (trns_len > 1) {
		trns[0] = 0;
		trns[1] = 255;
	}
	if (trns_len > entries) {
		trns_len = entries;
	}
	struct png_spec spec = { .width = 13, .height = 11, .color_type = 3, .depth = depth,
		.interlace = interlace, .palette = palette, .palette_len = entries };
	uint16_t *samples = random_samples(spec.width * spec.height, depth);
	if (trns_len > 0) {
		spec.trns = trns;
		spec.trns_len = trns_len;
	}
	spec.samples = samples;
	check_png(&spec);
	free(samples);
	check_end();
}

static void test_alpha(int color_type, int depth, bool interlace, bool opaque) {
	check_begin("%s %d-bit%s%s", color_type == 4 ? "grey+alpha" : "RGBA", depth,
		interlace ? " interlaced" : "", opaque ? " all opaque" : "");
	struct png_spec spec = { .width = 13, .height = 11, .color_type = color_type,
		.depth = depth, .interlace = interlace };
	int channels = channels_of(color_type);
	int n = spec.width * spec.height;
	uint16_t *samples = random_samples(n * channels, depth);
	uint16_t max = (uint16_t)((1u << depth) - 1);
	for (int i = 0; i < n; i++) {
		uint16_t *alpha = &samples[i * channels + channels - 1];
		if (opaque || i % 5 == 0) {
			*alpha = max;
		} else if (i % 5 == 1) {
			*alpha = 0;
		}
	}
	spec.samples = samples;
	check_png(&spec);
	free(samples);
	check_end();
}

/* A larger interlaced RGBA image in many IDAT chunks, past the reader's 64 KiB buffer. */
static void test_large_chunks(void) {
	check_begin("RGBA 300x200 interlaced, 1000-byte IDATs, tEXt");
	struct png_spec spec = { .width = 300, .height = 200, .color_type = 6, .depth = 8,
		.interlace = true, .idat_max = 1000, .text_chunk = true };
	spec.samples = random_samples(spec.width * spec.height * 4, 8);
	check_png(&spec);
	free((void *)spec.samples);
	check_end();
}

static void test_1x1(void) {
	check_begin("grey 1-bit 1x1 interlaced");
	uint16_t sample = 1;
	struct png_spec spec = { .width = 1, .height = 1, .color_type = 0, .depth = 1,
		.interlace = true, .samples = &sample };
	check_png(&spec);
	check_end();
}

/* PNG's colour chunks, through the whole decode (decode/colour.c) */

/*
 * A palette PNG of one colour, as ImageMagick writes it, with the given colour chunks after
 * IHDR (each a type and its body), through veil_still_decode(): its one pixel and what
 * source.colour says.
 */
static bool decode_with_chunks(const uint8_t rgb[3], const char *const types[],
		const uint8_t *const bodies[], const size_t lens[], int n, uint8_t out[3],
		char *said, size_t said_len) {
	uint16_t samples[4] = {0};
	struct png_spec spec = { .width = 2, .height = 2, .color_type = 3, .depth = 8,
		.samples = samples, .palette = rgb, .palette_len = 1 };
	size_t len;
	uint8_t *png = encode_png(&spec, &len);
	/* Signature (8) and IHDR (25), then the chunks, then the rest. */
	struct buf file = {0};
	buf_put(&file, png, 33);
	for (int i = 0; i < n; i++) {
		put_chunk(&file, types[i], bodies[i], lens[i]);
	}
	buf_put(&file, png + 33, len - 33);
	free(png);
	int fd = open_data("test-png-case.png", file.data, file.len);
	free(file.data);
	const struct veil_still_decoder *decoder = veil_still_decoder_find(VEIL_MEDIA_PNG, NULL);
	const struct veil_still_decoder *used;
	struct veil_image image = {0};
	struct veil_colour_result colour;
	int width, height, shrink_error;
	char *message = NULL;
	int ret = veil_still_decode(decoder, fd, 0, 0, VEIL_IMAGE_FILTER_SMOOTH, &image, &width,
		&height, &used, &shrink_error, &colour, &message);
	close(fd);
	if (ret < 0) {
		CHECK_FAIL("decode: %s", message != NULL ? message : "no message");
		free(message);
		return false;
	}
	const uint8_t *p = image.data;
	out[0] = p[2];
	out[1] = p[1];
	out[2] = p[0];
	snprintf(said, said_len, "%s", colour.said);
	veil_image_finish(&image);
	return true;
}

static void be32_at(uint8_t *p, uint32_t v) {
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* sRGB's display gamma (the spec's third edition: samples are light to this power). */
static uint8_t encode_srgb(double light) {
	double v = light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055;
	return (uint8_t)(v * 255 + 0.5);
}

static void test_colour_chunks(void) {
	static const uint8_t rgb[3] = { 32, 64, 208 };
	/* cHRM: white, red, green, blue, x and y, times 100000 (sRGB's, as ImageMagick writes). */
	static const uint32_t srgb_xy[8] = { 31270, 32900, 64000, 33000, 30000, 60000, 15000,
		6000 };
	static const uint32_t p3_xy[8] = { 31270, 32900, 68000, 32000, 26500, 69000, 15000,
		6000 };
	uint8_t chrm[32], chrm_p3[32], gama_srgb[4], gama_1[4], gama_25[4], gama_045[4];
	for (int i = 0; i < 8; i++) {
		be32_at(chrm + 4 * i, srgb_xy[i]);
		be32_at(chrm_p3 + 4 * i, p3_xy[i]);
	}
	be32_at(gama_srgb, 45455);
	be32_at(gama_045, 45000); /* PngSuite's g04: within libpng's 5 % of sRGB's */
	be32_at(gama_1, 100000);
	be32_at(gama_25, 250000);
	const size_t chrm_len = sizeof(chrm), gama_len = 4;
	uint8_t expect_1[3], expect_25[3];
	for (int c = 0; c < 3; c++) {
		expect_1[c] = encode_srgb(rgb[c] / 255.0);
		expect_25[c] = encode_srgb(pow(rgb[c] / 255.0, 1 / 2.5));
	}
	struct {
		const char *what;
		const char *types[2];
		const uint8_t *bodies[2];
		size_t lens[2];
		int n;
		const uint8_t *expect; /* NULL: unchanged */
		const char *said;
	} cases[] = {
		{ "cHRM of sRGB without gAMA (ImageMagick's palette PNGs)", { "cHRM" }, { chrm },
			{ chrm_len }, 1, NULL, "cHRM without gAMA: sRGB" },
		{ "cHRM of Display P3 without gAMA", { "cHRM" }, { chrm_p3 }, { chrm_len }, 1,
			NULL, "cHRM without gAMA: sRGB" },
		{ "gAMA 0.45455 and cHRM of sRGB", { "gAMA", "cHRM" }, { gama_srgb, chrm },
			{ gama_len, chrm_len }, 2, NULL, "gAMA 0.45455 and cHRM: sRGB's, left alone" },
		{ "gAMA 0.45", { "gAMA" }, { gama_045 }, { gama_len }, 1, NULL,
			"gAMA 0.45: sRGB's, left alone" },
		{ "gAMA 1", { "gAMA" }, { gama_1 }, { gama_len }, 1, expect_1, "gAMA 1 -> sRGB" },
		{ "gAMA 2.5", { "gAMA" }, { gama_25 }, { gama_len }, 1, expect_25,
			"gAMA 2.5 -> sRGB" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_begin("colour chunks: %s", cases[i].what);
		uint8_t got[3];
		char said[VEIL_COLOUR_TEXT];
		if (decode_with_chunks(rgb, cases[i].types, cases[i].bodies, cases[i].lens,
				cases[i].n, got, said, sizeof(said))) {
			const uint8_t *want = cases[i].expect != NULL ? cases[i].expect : rgb;
			for (int c = 0; c < 3; c++) {
				if (abs((int)got[c] - (int)want[c]) > 1) {
					CHECK_FAIL("(%d, %d, %d), expected (%d, %d, %d)", got[0], got[1],
						got[2], want[0], want[1], want[2]);
					break;
				}
			}
			if (strcmp(said, cases[i].said) != 0) {
				CHECK_FAIL("said \"%s\", expected \"%s\"", said, cases[i].said);
			}
		}
		check_end();
	}
}

/* Hostile files */

static uint8_t *valid_png(size_t *len) {
	static uint16_t samples[40 * 30 * 3];
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		samples[i] = (uint16_t)(next_rand() & 0xff);
	}
	struct png_spec spec = { .width = 40, .height = 30, .color_type = 2, .depth = 8,
		.samples = samples, .idat_max = 1200 };
	return encode_png(&spec, len);
}

static int load_bytes(const void *data, size_t len, char **message, struct veil_image *image) {
	int fd = open_data("test-png-hostile.png", data, len);
	int ret = veil_png_load(fd, image, message);
	close(fd);
	return ret;
}

static void expect_failure(const char *what, const void *data, size_t len, int expected) {
	check_begin("%s", what);
	struct veil_image image = {0};
	char *message = NULL;
	double start = now();
	int ret = load_bytes(data, len, &message, &image);
	double elapsed = now() - start;
	if (ret != expected) {
		CHECK_FAIL("returned %d (%s), expected %d", ret, message ? message : "no message",
			expected);
	} else if (message == NULL || message[0] == '\0') {
		CHECK_FAIL("no message");
	} else if (image.data != NULL) {
		CHECK_FAIL("image set on failure");
	} else if (elapsed > 0.5 * slack()) {
		CHECK_FAIL("took %.3f s", elapsed);
	} else {
		printf("ok %s: %s\n", what, message);
	}
	free(message);
	check_end();
}

static void set_be32(uint8_t *p, uint32_t v) {
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Rewrites the CRC of the chunk whose length field is at offset. */
static void fix_crc(uint8_t *png, size_t offset) {
	uint32_t len = (uint32_t)png[offset] << 24 | png[offset + 1] << 16 |
		png[offset + 2] << 8 | png[offset + 3];
	set_be32(png + offset + 8 + len, crc32_update(0, png + offset + 4, len + 4));
}

static uint8_t *header_only_png(uint32_t width, uint32_t height, size_t *len) {
	/* A valid IHDR claiming width x height, then a tiny IDAT and IEND. */
	struct buf out = {0};
	static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	buf_put(&out, signature, 8);
	uint8_t ihdr[13] = {0};
	set_be32(ihdr, width);
	set_be32(ihdr + 4, height);
	ihdr[8] = 8;
	ihdr[9] = 6;
	put_chunk(&out, "IHDR", ihdr, sizeof(ihdr));
	static const uint8_t idat[] = { 0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff, 0, 0, 0, 1 };
	put_chunk(&out, "IDAT", idat, sizeof(idat));
	put_chunk(&out, "IEND", NULL, 0);
	*len = out.len;
	return out.data;
}

static void test_hostile(void) {
	size_t len;
	uint8_t *png = valid_png(&len);
	char what[128];

	expect_failure("zero-byte file", "", 0, -EINVAL);

	/* IHDR chunk at 8, its data at 16; first IDAT's length at 33. */
	size_t cuts[] = { 1, 4, 8, 12, 20, 30, 33, 41, 45, 600, 1300, len / 2, len - 40,
		len - 12, len - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		snprintf(what, sizeof(what), "truncated at %zu of %zu", cuts[i], len);
		expect_failure(what, png, cuts[i], -EINVAL);
	}

	uint8_t *bad = malloc(len);
	memcpy(bad, png, len);
	bad[29] ^= 0x01; /* IHDR's CRC */
	expect_failure("bad IHDR CRC", bad, len, -EINVAL);

	memcpy(bad, png, len);
	bad[33 + 8 + 500] ^= 0x40; /* in the first IDAT's data: its CRC no longer matches */
	expect_failure("bad IDAT CRC", bad, len, -EINVAL);

	memcpy(bad, png, len);
	for (int i = 0; i < 16; i++) {
		bad[33 + 8 + 2 + i] = (uint8_t)next_rand(); /* the first deflate block header */
	}
	bad[33 + 8 + 2] = 0x07; /* BTYPE 3: invalid in every deflate stream */
	fix_crc(bad, 33);
	expect_failure("corrupt deflate data, valid CRC", bad, len, -EINVAL);

	memcpy(bad, png, len);
	bad[33 + 8] = 0x79; /* a zlib header whose check bits are wrong */
	fix_crc(bad, 33);
	expect_failure("corrupt zlib header, valid CRC", bad, len, -EINVAL);

	/* The deflate stream ends early, but every chunk is whole. */
	size_t short_len = 33 + 12 + 1200;
	memcpy(bad, png, short_len);
	memcpy(bad + short_len, png + len - 12, 12);
	expect_failure("IDATs missing, chunks valid", bad, short_len + 12, -EINVAL);

	memcpy(bad, png, len);
	bad[24] = 7; /* colour type 7 does not exist */
	fix_crc(bad, 8);
	expect_failure("invalid colour type", bad, len, -EINVAL);

	memcpy(bad, png, len);
	set_be32(bad + 16, 0);
	fix_crc(bad, 8);
	expect_failure("zero width", bad, len, -EINVAL);
	free(bad);

	size_t big_len;
	uint8_t *big = header_only_png(100000, 100000, &big_len);
	check_begin("100000x100000 header");
	struct veil_image image = {0};
	char *message = NULL;
	double start = now();
	int ret = load_bytes(big, big_len, &message, &image);
	double elapsed = now() - start;
	const char *want = "PNG image is 100000x100000 pixels, larger than veil's limit of "
		"16384x16384";
	if (ret != -EFBIG || message == NULL || strcmp(message, want) != 0) {
		CHECK_FAIL("returned %d (%s)", ret, message ? message : "no message");
	} else if (elapsed > 0.05 * slack()) {
		CHECK_FAIL("took %.3f s", elapsed);
	}
	free(message);
	free(big);
	check_end();

	big = header_only_png(16385, 1, &big_len);
	expect_failure("16385x1 header", big, big_len, -EFBIG);
	free(big);
	big = header_only_png(16384, 16384, &big_len);
	expect_failure("16384x16384 header (pixel count)", big, big_len, -EFBIG);
	free(big);
	big = header_only_png(0x80000000u, 10, &big_len);
	expect_failure("width 2^31 header", big, big_len, -EINVAL);
	free(big);

	uint8_t garbage[4096];
	for (size_t i = 0; i < sizeof(garbage); i++) {
		garbage[i] = (uint8_t)next_rand();
	}
	expect_failure("garbage bytes", garbage, sizeof(garbage), -ENOTSUP);
	static const char text[] = "This is not a picture.\nJust some text.\n";
	expect_failure("text file", text, sizeof(text) - 1, -ENOTSUP);
	expect_failure("PNG signature only, first 7 bytes", png, 7, -EINVAL);

	check_begin("directory fd");
	mkdir("test-png-dir", 0755);
	int fd = open("test-png-dir", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	message = NULL;
	ret = veil_png_load(fd, &image, &message);
	if (ret >= 0 || message == NULL) {
		CHECK_FAIL("returned %d", ret);
	} else {
		printf("ok directory (png): %d %s\n", ret, message);
	}
	free(message);
	message = NULL;
	ret = veil_gst_image_load(fd, &image, &message);
	if (ret >= 0 || message == NULL) {
		CHECK_FAIL("gst returned %d", ret);
	} else {
		printf("ok directory (gst): %d %s\n", ret, message);
	}
	free(message);
	close(fd);
	rmdir("test-png-dir");
	check_end();

	check_begin("bad fd");
	ret = veil_png_load(-1, &image, NULL);
	if (ret != -EBADF) {
		CHECK_FAIL("returned %d", ret);
	}
	check_end();

	/* A bad CRC on an ancillary chunk is libpng's warning: the chunk is skipped. */
	check_begin("bad tEXt CRC is ignored");
	uint16_t samples[4 * 4] = {0};
	struct png_spec spec = { .width = 4, .height = 4, .color_type = 0, .depth = 8,
		.samples = samples, .text_chunk = true };
	size_t text_len;
	uint8_t *text_png = encode_png(&spec, &text_len);
	text_png[33 + 8 + 27] ^= 0xff; /* tEXt follows IHDR; 27 bytes of text */
	image = (struct veil_image){0};
	message = NULL;
	ret = load_bytes(text_png, text_len, &message, &image);
	if (ret != 0) {
		CHECK_FAIL("returned %d (%s)", ret, message ? message : "no message");
	}
	free(message);
	veil_image_finish(&image);
	free(text_png);
	check_end();

	free(png);
}

/* Where the file is read from */

static void test_fd_handling(void) {
	size_t len;
	uint8_t *png = valid_png(&len);

	check_begin("fd positioned at the end, offset kept, NULL message");
	int fd = open_data("test-png-offset.png", png, len);
	lseek(fd, 0, SEEK_END);
	struct veil_image image = {0};
	int ret = veil_png_load(fd, &image, NULL);
	if (ret != 0 || image.width != 40 || image.height != 30) {
		CHECK_FAIL("returned %d, %dx%d", ret, image.width, image.height);
	} else if (lseek(fd, 0, SEEK_CUR) != (off_t)len) {
		CHECK_FAIL("offset moved to %lld", (long long)lseek(fd, 0, SEEK_CUR));
	}
	veil_image_finish(&image);
	if (image.data != NULL || image.width != 0) {
		CHECK_FAIL("veil_image_finish left %p %d", image.data, image.width);
	}
	close(fd);
	check_end();

	check_begin("read from a pipe");
	int fds[2];
	if (pipe(fds) != 0 || len > 65536 || write(fds[1], png, len) != (ssize_t)len) {
		CHECK_FAIL("cannot set up the pipe");
	} else {
		close(fds[1]);
		ret = veil_png_load(fds[0], &image, NULL);
		if (ret != 0 || image.width != 40 || image.height != 30) {
			CHECK_FAIL("returned %d, %dx%d", ret, image.width, image.height);
		}
		veil_image_finish(&image);
		close(fds[0]);
	}
	check_end();
	free(png);
}

/* Scaling down */

static struct veil_image make_image(int width, int height, uint32_t format) {
	struct veil_image image = {
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = format,
		.data = malloc((size_t)width * height * 4),
	};
	return image;
}

static void test_shrink_checkerboard(int width, int height, int max_w, int max_h, int want_w,
		int want_h, enum veil_image_filter filter) {
	check_begin("shrink %dx%d checkerboard to cover %dx%d, %s", width, height, max_w, max_h,
		veil_image_filter_name(filter));
	struct veil_image image = make_image(width, height, DRM_FORMAT_XRGB8888);
	uint32_t *p = image.data;
	for (int y = 0; y < height; y++) {
		for (int x = 0; x < width; x++) {
			p[(size_t)y * width + x] = (x + y) % 2 ? 0xffffffff : 0xff000000;
		}
	}
	double start = now();
	int ret = veil_image_shrink_to_cover(&image, max_w, max_h, filter);
	double elapsed = now() - start;
	if (ret != 0 || image.width != want_w || image.height != want_h ||
			image.stride != want_w * 4 || image.drm_format != DRM_FORMAT_XRGB8888) {
		CHECK_FAIL("returned %d, %dx%d stride %d format %.4s", ret, image.width, image.height,
			image.stride, (const char *)&image.drm_format);
	} else {
		/*
		 * A one-pixel checkerboard averages to grey; aliasing would show as patterns.
		 * Nearest picks source pixels: black and white only.
		 */
		int lo = 255, hi = 0, others = 0;
		const uint8_t *bytes = image.data;
		for (size_t i = 0; i < (size_t)image.width * image.height; i++) {
			int v = bytes[4 * i + 1];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			others += v != 0 && v != 255;
			if (bytes[4 * i + 3] != 0xff) {
				CHECK_FAIL("X byte %d at %zu", bytes[4 * i + 3], i);
				break;
			}
		}
		if (filter == VEIL_IMAGE_FILTER_NEAREST) {
			if (others > 0) {
				CHECK_FAIL("%d pixels neither black nor white", others);
			}
		} else if (lo < 127 - 12 || hi > 128 + 12) {
			CHECK_FAIL("grey ranges from %d to %d", lo, hi);
		}
		printf("ok shrink %dx%d -> %dx%d %s in %.3f s, grey %d..%d\n", width, height,
			image.width, image.height, veil_image_filter_name(filter), elapsed, lo, hi);
	}
	veil_image_finish(&image);
	check_end();
}

static void test_shrink_solid(uint32_t pixel, uint32_t format, enum veil_image_filter filter) {
	check_begin("shrink solid %08x %.4s keeps colour to the edges, %s", pixel,
		(const char *)&format, veil_image_filter_name(filter));
	struct veil_image image = make_image(1000, 700, format);
	uint32_t *p = image.data;
	for (int i = 0; i < 1000 * 700; i++) {
		p[i] = pixel;
	}
	int ret = veil_image_shrink_to_cover(&image, 333, 100, filter);
	if (ret != 0 || image.width != 333 || image.height != 234 ||
			image.drm_format != format) {
		CHECK_FAIL("returned %d, %dx%d %.4s", ret, image.width, image.height,
			(const char *)&image.drm_format);
	} else {
		p = image.data;
		for (int i = 0; i < image.width * image.height; i++) {
			uint32_t want = format == DRM_FORMAT_XRGB8888 ? pixel | 0xff000000 : pixel;
			uint32_t got = p[i];
			for (int c = 0; c < 32; c += 8) {
				int d = abs((int)((got >> c) & 0xff) - (int)((want >> c) & 0xff));
				if (d > 1) {
					CHECK_FAIL("pixel %d,%d is %08x", i % image.width,
						i / image.width, got);
					i = image.width * image.height;
					break;
				}
			}
		}
	}
	veil_image_finish(&image);
	check_end();
}

static void test_shrink_noop(int width, int height, int max_w, int max_h) {
	check_begin("no upscale: %dx%d to cover %dx%d", width, height, max_w, max_h);
	struct veil_image image = make_image(width, height, DRM_FORMAT_ARGB8888);
	void *data = image.data;
	memset(data, 0x40, (size_t)width * height * 4);
	int ret = veil_image_shrink_to_cover(&image, max_w, max_h, VEIL_IMAGE_FILTER_SMOOTH);
	if (ret != 0 || image.data != data || image.width != width || image.height != height) {
		CHECK_FAIL("returned %d, %dx%d", ret, image.width, image.height);
	}
	veil_image_finish(&image);
	check_end();
}

/*
 * A smooth shrink of a bright opaque square on transparency: Lanczos' lobes overshoot at the
 * edge, and no premultiplied channel may end above its alpha.
 */
static void test_shrink_smooth_premultiplied(void) {
	check_begin("smooth shrink keeps premultiplied colour within alpha");
	struct veil_image image = make_image(900, 900, DRM_FORMAT_ARGB8888);
	uint32_t *p = image.data;
	for (int y = 0; y < 900; y++) {
		for (int x = 0; x < 900; x++) {
			bool in = x >= 300 && x < 600 && y >= 300 && y < 600;
			p[y * 900 + x] = in ? 0xffffffff : (x % 2 ? 0x40404040 : 0x00000000);
		}
	}
	int ret = veil_image_shrink_to_cover(&image, 97, 97, VEIL_IMAGE_FILTER_SMOOTH);
	const uint8_t *b = image.data;
	int bad = 0;
	for (int i = 0; ret == 0 && i < image.width * image.height; i++) {
		bad += b[4 * i] > b[4 * i + 3] || b[4 * i + 1] > b[4 * i + 3] ||
			b[4 * i + 2] > b[4 * i + 3];
	}
	if (ret != 0 || image.width != 97 || bad > 0) {
		CHECK_FAIL("returned %d, %dx%d, %d pixels with colour above alpha", ret, image.width,
			image.height, bad);
	}
	veil_image_finish(&image);
	check_end();
}

static void test_shrink(void) {
	static const enum veil_image_filter filters[] = {
		VEIL_IMAGE_FILTER_LINEAR, VEIL_IMAGE_FILTER_SMOOTH, VEIL_IMAGE_FILTER_NEAREST,
	};
	for (size_t f = 0; f < sizeof(filters) / sizeof(filters[0]); f++) {
		test_shrink_checkerboard(4000, 3000, 1920, 1080, 1920, 1440, filters[f]);
		test_shrink_checkerboard(8000, 6000, 1920, 1080, 1920, 1440, filters[f]);
		test_shrink_checkerboard(3000, 6000, 1920, 1080, 1920, 3840, filters[f]);
		test_shrink_checkerboard(2001, 1000, 1000, 499, 1000, 500, filters[f]);
		test_shrink_solid(0xffd0a060, DRM_FORMAT_XRGB8888, filters[f]);
		test_shrink_solid(0x80402010, DRM_FORMAT_ARGB8888, filters[f]);
	}
	test_shrink_smooth_premultiplied();
	test_shrink_noop(800, 600, 1920, 1080);
	test_shrink_noop(1920, 1080, 1920, 1080);
	test_shrink_noop(1000, 4000, 1920, 1080);

	check_begin("shrink refuses bad sizes");
	struct veil_image image = make_image(10, 10, DRM_FORMAT_XRGB8888);
	if (veil_image_shrink_to_cover(&image, 0, 10, VEIL_IMAGE_FILTER_LINEAR) != -EINVAL ||
			veil_image_shrink_to_cover(&image, 10, -1, VEIL_IMAGE_FILTER_LINEAR) !=
			-EINVAL ||
			image.width != 10) {
		CHECK_FAIL("accepted");
	}
	veil_image_finish(&image);
	check_end();
}

/* GStreamer */

/* Runs a gst-launch style pipeline to its end; returns whether it got there. */
static bool run_pipeline(const char *description) {
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	if (pipeline == NULL || error != NULL) {
		fprintf(stderr, "cannot build '%s': %s\n", description,
			error ? error->message : "?");
		g_clear_error(&error);
		if (pipeline != NULL) {
			gst_object_unref(pipeline);
		}
		return false;
	}
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *msg = gst_bus_timed_pop_filtered(bus, 20 * GST_SECOND,
		GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	bool ok = msg != NULL && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS;
	if (msg != NULL && !ok) {
		gst_message_parse_error(msg, &error, NULL);
		fprintf(stderr, "'%s': %s\n", description, error->message);
		g_clear_error(&error);
	}
	if (msg != NULL) {
		gst_message_unref(msg);
	}
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	return ok;
}

/* A 64x48 image in four flat quadrants; expected holds premultiplied B, G, R, A. */
static const uint8_t quadrants[4][4] = { /* R, G, B, A */
	{ 0xff, 0x20, 0x20, 0xff }, { 0x20, 0xc0, 0x30, 0xff },
	{ 0x30, 0x50, 0xe0, 0xff }, { 0xf0, 0xf0, 0x40, 0xff },
};

static uint8_t *quadrant_png(bool with_alpha, size_t *len, uint8_t *expected) {
	int width = 64, height = 48;
	uint16_t *samples = malloc(sizeof(*samples) * width * height * 4);
	for (int y = 0; y < height; y++) {
		for (int x = 0; x < width; x++) {
			int q = (y >= height / 2) * 2 + (x >= width / 2);
			uint16_t *s = samples + ((size_t)y * width + x) * 4;
			unsigned a = quadrants[q][3];
			if (with_alpha) {
				a = (unsigned)(x * 4) & 0xff;
			}
			for (int c = 0; c < 3; c++) {
				s[c] = quadrants[q][c];
			}
			s[3] = (uint16_t)a;
			uint8_t *e = expected + ((size_t)y * width + x) * 4;
			e[0] = premul(s[2], a);
			e[1] = premul(s[1], a);
			e[2] = premul(s[0], a);
			e[3] = (uint8_t)a;
		}
	}
	struct png_spec spec = { .width = width, .height = height, .color_type = 6, .depth = 8,
		.samples = samples };
	uint8_t *png = encode_png(&spec, len);
	free(samples);
	return png;
}

/* Decodes path with veil_gst_image_load and compares with expected. */
static void check_gst_file(const char *path, int width, int height, uint32_t format,
		const uint8_t *expected, int tolerance) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		CHECK_FAIL("no %s", path);
		return;
	}
	lseek(fd, 5, SEEK_SET); /* the decoder reads from the start anyway */
	struct veil_image image = {0};
	char *message = NULL;
	double start = now();
	int ret = veil_gst_image_load(fd, &image, &message);
	double elapsed = now() - start;
	if (ret != 0) {
		CHECK_FAIL("veil_gst_image_load: %d (%s)", ret, message ? message : "no message");
	} else if (image.width != width || image.height != height || image.stride != width * 4) {
		CHECK_FAIL("size %dx%d stride %d", image.width, image.height, image.stride);
	} else if (image.drm_format != format) {
		CHECK_FAIL("format %.4s, expected %.4s", (const char *)&image.drm_format,
			(const char *)&format);
	} else {
		int worst = compare_pixels(&image, expected, tolerance);
		printf("ok %s: within %d of the source, %.3f s\n", path, worst, elapsed);
	}
	if (lseek(fd, 0, SEEK_CUR) != 5) {
		CHECK_FAIL("the fd's offset moved");
	}
	free(message);
	veil_image_finish(&image);
	close(fd);
}

static void expect_gst_failure(const char *what, const void *data, size_t len, int expected) {
	check_begin("gst: %s", what);
	int fd = open_data("test-png-gst-hostile", data, len);
	struct veil_image image = {0};
	char *message = NULL;
	double start = now();
	int ret = veil_gst_image_load(fd, &image, &message);
	double elapsed = now() - start;
	if (ret >= 0 || (expected != 0 && ret != expected)) {
		CHECK_FAIL("returned %d (%s), expected %d", ret, message ? message : "no message",
			expected);
	} else if (message == NULL || message[0] == '\0') {
		CHECK_FAIL("no message");
	} else if (image.data != NULL) {
		CHECK_FAIL("image set on failure");
	} else if (elapsed > 2 * slack()) {
		CHECK_FAIL("took %.3f s", elapsed);
	} else {
		printf("ok gst %s: %d %s (%.3f s)\n", what, ret, message, elapsed);
	}
	free(message);
	close(fd);
	check_end();
}

/* Sets the size in a JPEG's first SOF segment. */
static bool patch_jpeg_size(uint8_t *jpeg, size_t len, int width, int height) {
	for (size_t i = 2; i + 9 < len; i++) {
		if (jpeg[i] == 0xff && (jpeg[i + 1] == 0xc0 || jpeg[i + 1] == 0xc2)) {
			jpeg[i + 5] = (uint8_t)(height >> 8);
			jpeg[i + 6] = (uint8_t)height;
			jpeg[i + 7] = (uint8_t)(width >> 8);
			jpeg[i + 8] = (uint8_t)width;
			return true;
		}
	}
	return false;
}

/* Sets the size in a lossless WebP's VP8L header (and VP8X canvas, when there is one). */
static bool patch_webp_size(uint8_t *webp, size_t len, int width, int height) {
	bool patched = false;
	for (size_t i = 12; i + 8 + 5 <= len; i++) {
		if (memcmp(webp + i, "VP8L", 4) == 0 && webp[i + 8] == 0x2f) {
			uint8_t *p = webp + i + 9;
			uint32_t bits = (uint32_t)p[0] | p[1] << 8 | p[2] << 16 |
				(uint32_t)p[3] << 24;
			bits &= ~0x0fffffffu;
			bits |= (uint32_t)(width - 1) | (uint32_t)(height - 1) << 14;
			for (int b = 0; b < 4; b++) {
				p[b] = (uint8_t)(bits >> (8 * b));
			}
			patched = true;
		} else if (memcmp(webp + i, "VP8X", 4) == 0 && i + 8 + 10 <= len) {
			uint8_t *p = webp + i + 8 + 4;
			p[0] = (uint8_t)(width - 1);
			p[1] = (uint8_t)((width - 1) >> 8);
			p[2] = (uint8_t)((width - 1) >> 16);
			p[3] = (uint8_t)(height - 1);
			p[4] = (uint8_t)((height - 1) >> 8);
			p[5] = (uint8_t)((height - 1) >> 16);
		}
	}
	return patched;
}

/* Sets ImageWidth and ImageLength in a little-endian TIFF's first IFD. */
static bool patch_tiff_size(uint8_t *tiff, size_t len, uint32_t width, uint32_t height) {
	if (len < 8 || memcmp(tiff, "II*\0", 4) != 0) {
		return false;
	}
	uint32_t ifd = (uint32_t)tiff[4] | tiff[5] << 8 | tiff[6] << 16 | (uint32_t)tiff[7] << 24;
	if (ifd + 2 > len) {
		return false;
	}
	int n = tiff[ifd] | tiff[ifd + 1] << 8, patched = 0;
	for (int i = 0; i < n && ifd + 2 + 12 * (i + 1) <= len; i++) {
		uint8_t *e = tiff + ifd + 2 + 12 * i;
		int tag = e[0] | e[1] << 8, type = e[2] | e[3] << 8;
		if ((tag != 256 && tag != 257) || (type != 3 && type != 4)) {
			continue;
		}
		uint32_t v = tag == 256 ? width : height;
		for (int b = 0; b < (type == 3 ? 2 : 4); b++) {
			e[8 + b] = (uint8_t)(v >> (8 * b));
		}
		patched++;
	}
	return patched == 2;
}

static void test_gst(void) {
	uint8_t garbage[2048];
	for (size_t i = 0; i < sizeof(garbage); i++) {
		garbage[i] = (uint8_t)next_rand();
	}
	/* First, so that veil_gst_image_load is the one that initialises GStreamer. */
	expect_gst_failure("garbage bytes", garbage, sizeof(garbage), 0);
	if (!gst_is_initialized()) {
		check_begin("gst: initialised");
		CHECK_FAIL("veil_gst_image_load left GStreamer uninitialised");
		check_end();
		gst_init(NULL, NULL);
	}
	static const char text[] = "This is not a picture.\nJust some text, long enough for "
		"typefinding to call it text.\nAnother line.\n";
	expect_gst_failure("text file", text, sizeof(text) - 1, 0);
	expect_gst_failure("empty file", "", 0, 0);

	size_t len;
	uint8_t *expected = malloc(64 * 48 * 4);
	uint8_t *png = quadrant_png(false, &len, expected);
	write_file("test-png-quadrants.png", png, len);
	free(png);

	check_begin("gst: opaque PNG");
	check_gst_file("test-png-quadrants.png", 64, 48, DRM_FORMAT_XRGB8888, expected, 0);
	check_end();

	check_begin("gst: JPEG from jpegenc");
	if (!run_pipeline("filesrc location=test-png-quadrants.png ! pngdec ! videoconvert "
			"! video/x-raw,format=RGB ! jpegenc quality=95 "
			"! filesink location=test-png-quadrants.jpg")) {
		CHECK_FAIL("cannot make a JPEG");
	} else {
		/*
		 * Chroma at half resolution and DCT rounding: the quadrant interiors stay within
		 * a few levels, the edges between them blur, so compare the interiors only.
		 */
		struct veil_image image = {0};
		int fd = open("test-png-quadrants.jpg", O_RDONLY | O_CLOEXEC);
		char *message = NULL;
		int ret = veil_gst_image_load(fd, &image, &message);
		close(fd);
		if (ret != 0 || image.width != 64 || image.height != 48 ||
				image.drm_format != DRM_FORMAT_XRGB8888) {
			CHECK_FAIL("returned %d (%s), %dx%d %.4s", ret, message ? message : "",
				image.width, image.height, (const char *)&image.drm_format);
		} else {
			int worst = 0;
			for (int y = 0; y < 48; y++) {
				for (int x = 0; x < 64; x++) {
					if (abs(x - 32) < 6 || abs(y - 24) < 6) {
						continue;
					}
					const uint8_t *got = (const uint8_t *)image.data +
						(size_t)y * image.stride + x * 4;
					const uint8_t *want = expected + ((size_t)y * 64 + x) * 4;
					for (int c = 0; c < 4; c++) {
						int d = abs(got[c] - want[c]);
						worst = d > worst ? d : worst;
					}
				}
			}
			if (worst > 10) {
				CHECK_FAIL("quadrant interiors differ by up to %d", worst);
			} else {
				printf("ok JPEG: quadrant interiors within %d\n", worst);
			}
		}
		free(message);
		veil_image_finish(&image);
	}
	check_end();

	check_begin("gst: JPEG with EXIF orientation rotate-90");
	if (!run_pipeline("filesrc location=test-png-quadrants.png ! pngdec ! videoconvert "
			"! video/x-raw,format=RGB ! jpegenc quality=95 "
			"! taginject tags=\"image-orientation=(string)rotate-90\" ! jifmux "
			"! filesink location=test-png-rotated.jpg")) {
		CHECK_FAIL("cannot make a JPEG");
	} else {
		struct veil_image image = {0};
		int fd = open("test-png-rotated.jpg", O_RDONLY | O_CLOEXEC);
		char *message = NULL;
		int ret = veil_gst_image_load(fd, &image, &message);
		close(fd);
		if (ret != 0 || image.width != 48 || image.height != 64) {
			CHECK_FAIL("returned %d (%s), %dx%d", ret, message ? message : "", image.width,
				image.height);
		} else {
			/* Turned clockwise: the source's bottom-left quadrant is now top-left. */
			const uint8_t *got = (const uint8_t *)image.data + 8 * image.stride + 8 * 4;
			const uint8_t *want = quadrants[2];
			if (abs(got[2] - want[0]) > 10 || abs(got[1] - want[1]) > 10 ||
					abs(got[0] - want[2]) > 10) {
				CHECK_FAIL("top-left is %02x%02x%02x", got[2], got[1], got[0]);
			}
		}
		free(message);
		veil_image_finish(&image);
	}
	check_end();

	uint8_t *jpeg = read_file("test-png-quadrants.jpg", &len);
	if (jpeg != NULL) {
		if (patch_jpeg_size(jpeg, len, 60000, 60000)) {
			expect_gst_failure("JPEG claiming 60000x60000", jpeg, len, -EFBIG);
		}
		if (patch_jpeg_size(jpeg, len, 16000, 16000)) {
			expect_gst_failure("JPEG claiming 16000x16000 (pixel count)", jpeg, len,
				-EFBIG);
		}
		free(jpeg);
	}

	png = quadrant_png(true, &len, expected);
	write_file("test-png-alpha.png", png, len);
	free(png);
	check_begin("gst: PNG with alpha, premultiplied");
	check_gst_file("test-png-alpha.png", 64, 48, DRM_FORMAT_ARGB8888, expected, 0);
	check_end();

	GstElementFactory *webpenc = gst_element_factory_find("webpenc");
	GstElementFactory *webpdec = gst_element_factory_find("webpdec");
	if (webpenc != NULL && webpdec != NULL) {
		check_begin("gst: lossless WebP with alpha");
		if (!run_pipeline("filesrc location=test-png-alpha.png ! pngdec ! videoconvert "
				"! webpenc lossless=true quality=100 "
				"! filesink location=test-png-alpha.webp")) {
			CHECK_FAIL("cannot make a WebP");
		} else {
			check_gst_file("test-png-alpha.webp", 64, 48, DRM_FORMAT_ARGB8888, expected,
				1);
		}
		check_end();
		/*
		 * Nothing reports a WebP's size before webpdec: the raw caps are refused after it
		 * has decoded (into a frame GStreamer allocates), so only the answer is checked.
		 */
		size_t webp_len;
		uint8_t *webp = read_file("test-png-alpha.webp", &webp_len);
		if (webp != NULL && patch_webp_size(webp, webp_len, 16000, 16000)) {
			expect_gst_failure("WebP claiming 16000x16000 (pixel count)", webp,
				webp_len, -EFBIG);
		}
		free(webp);
	} else {
		check_skip("WebP: no webpenc/webpdec");
	}
	GstElementFactory *rsvgdec = gst_element_factory_find("rsvgdec");
	if (rsvgdec != NULL) {
		/*
		 * Nothing reports an SVG's size before rsvgdec renders it: the raw caps the limit
		 * filter refuses are what stops it.
		 */
		static const char svg_format[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"width=\"%d\" height=\"%d\"><rect width=\"100%%\" height=\"100%%\" "
			"fill=\"#3366cc\"/></svg>\n";
		char svg[256];
		check_begin("gst: SVG");
		int svg_len = snprintf(svg, sizeof(svg), svg_format, 40, 30);
		write_file("test-png.svg", svg, (size_t)svg_len);
		uint8_t *blue = malloc(40 * 30 * 4);
		for (int i = 0; i < 40 * 30; i++) {
			memcpy(blue + 4 * i, (uint8_t[]){ 0xcc, 0x66, 0x33, 0xff }, 4);
		}
		check_gst_file("test-png.svg", 40, 30, DRM_FORMAT_XRGB8888, blue, 0);
		free(blue);
		check_end();
		svg_len = snprintf(svg, sizeof(svg), svg_format, 20000, 100);
		expect_gst_failure("SVG of 20000x100", svg, (size_t)svg_len, -EFBIG);
		gst_object_unref(rsvgdec);
	} else {
		check_skip("SVG: no rsvgdec");
	}

	GstElementFactory *tiffenc = gst_element_factory_find("avenc_tiff");
	GstElementFactory *tiffdec = gst_element_factory_find("avdec_tiff");
	if (tiffenc != NULL && tiffdec != NULL) {
		check_begin("gst: TIFF with alpha");
		if (!run_pipeline("filesrc location=test-png-alpha.png ! pngdec ! videoconvert "
				"! avenc_tiff ! filesink location=test-png-alpha.tiff")) {
			CHECK_FAIL("cannot make a TIFF");
		} else {
			check_gst_file("test-png-alpha.tiff", 64, 48, DRM_FORMAT_ARGB8888, expected,
				1);
		}
		check_end();
		/* Refused from the header: avdec_tiff would allocate (and touch) 1 GB first. */
		size_t tiff_len;
		uint8_t *tiff = read_file("test-png-alpha.tiff", &tiff_len);
		if (tiff != NULL && patch_tiff_size(tiff, tiff_len, 16000, 16000)) {
			expect_gst_failure("TIFF claiming 16000x16000 (pixel count)", tiff,
				tiff_len, -EFBIG);
		}
		if (tiff != NULL && patch_tiff_size(tiff, tiff_len, 20000, 100)) {
			expect_gst_failure("TIFF claiming 20000x100", tiff, tiff_len, -EFBIG);
		}
		free(tiff);
	} else {
		check_skip("TIFF: no avenc_tiff/avdec_tiff");
	}
	if (tiffenc != NULL) {
		gst_object_unref(tiffenc);
	}
	if (tiffdec != NULL) {
		gst_object_unref(tiffdec);
	}
	if (webpenc != NULL) {
		gst_object_unref(webpenc);
	}
	if (webpdec != NULL) {
		gst_object_unref(webpdec);
	}
	free(expected);
}

int main(int argc, char *argv[]) {
	/* Groups to run: png, hostile, fd, shrink, gst; all when none is named. */
	bool all = argc < 2;
	const char *groups[] = { "png", "hostile", "fd", "shrink", "gst" };
	bool run[5];
	for (int g = 0; g < 5; g++) {
		run[g] = all;
		for (int i = 1; i < argc; i++) {
			if (strcmp(argv[i], groups[g]) == 0) {
				run[g] = true;
			}
		}
	}

	if (run[0]) {
		static const int grey_depths[] = { 1, 2, 4, 8, 16 };
		static const int palette_depths[] = { 1, 2, 4, 8 };
		for (int interlace = 0; interlace <= 1; interlace++) {
			for (int i = 0; i < 5; i++) {
				test_grey(grey_depths[i], interlace, false);
				test_grey(grey_depths[i], interlace, true);
			}
			for (int depth = 8; depth <= 16; depth += 8) {
				test_rgb(depth, interlace, false);
				test_rgb(depth, interlace, true);
				test_alpha(4, depth, interlace, false);
				test_alpha(6, depth, interlace, false);
				test_alpha(6, depth, interlace, true);
				test_alpha(4, depth, interlace, true);
			}
			for (int i = 0; i < 4; i++) {
				test_palette(palette_depths[i], interlace, 0);
				test_palette(palette_depths[i], interlace, 3);
				test_palette(palette_depths[i], interlace, 256);
			}
		}
		test_large_chunks();
		test_1x1();
		test_colour_chunks();
	}
	if (run[1]) {
		test_hostile();
	}
	if (run[2]) {
		test_fd_handling();
	}
	if (run[3]) {
		test_shrink();
	}
	if (run[4]) {
		test_gst();
	}

	if (check_failed == 0) {
		const char *files[] = { "test-png-case.png", "test-png-hostile.png",
			"test-png-offset.png", "test-png-gst-hostile", "test-png-quadrants.png",
			"test-png-quadrants.jpg", "test-png-alpha.png", "test-png-alpha.webp",
			"test-png-alpha.tiff", "test-png.svg", "test-png-rotated.jpg" };
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			unlink(files[i]);
		}
	}
	if (gst_is_initialized()) {
		gst_deinit();
	}
	return check_summary("png");
}
