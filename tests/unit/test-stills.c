/*
 * The still decoders beside libpng: libheif (AVIF, HEIC), libwebp, libtiff and libjxl, each
 * through the table veil picks them from (sniff, check, load), as veil_source_open does.
 *
 * The pictures are four quadrants of known colours, encoded here by ffmpeg (AVIF, WebP),
 * heif-enc (HEIC), cjxl (JPEG XL) and a small TIFF writer of our own (16-bit RGB, any
 * Orientation tag); the
 * lossy ones are compared with a tolerance, at the centre of each quadrant. Cases whose encoder
 * is missing are skipped, and said so. Files are written to the working directory.
 */
#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "veil-config.h"
#include "decode/image.h"
#include "decode/sniff.h"
#include "decode/still.h"
#include "check.h"

#define WIDTH 64
#define HEIGHT 48

/* Top left, top right, bottom left, bottom right: R, G, B. */
static const uint8_t colours[4][3] = {
	{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 },
};

static void write_file(const char *path, const void *data, size_t len) {
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static uint8_t *read_file(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
	*len = fread(data, 1, (size_t)size, f);
	fclose(f);
	return data;
}

/* The colours' quadrants: component i (R, G, B) at x, y. */
static uint8_t quadrant(int x, int y, int i) {
	return colours[(y >= HEIGHT / 2) * 2 + (x >= WIDTH / 2)][i];
}

/* A WIDTH x HEIGHT binary PPM whose component i at x, y is pixel(x, y, i). */
static void write_ppm(const char *path, uint8_t (*pixel)(int x, int y, int i)) {
	char header[32];
	int n = snprintf(header, sizeof(header), "P6 %d %d 255\n", WIDTH, HEIGHT);
	size_t len = (size_t)n + WIDTH * HEIGHT * 3;
	uint8_t *data = malloc(len);
	memcpy(data, header, (size_t)n);
	uint8_t *p = data + n;
	for (int y = 0; y < HEIGHT; y++) {
		for (int x = 0; x < WIDTH; x++) {
			for (int i = 0; i < 3; i++) {
				*p++ = pixel(x, y, i);
			}
		}
	}
	write_file(path, data, len);
	free(data);
}

/* Runs an encoder through the shell; false when it is missing or fails. */
__attribute__((format(printf, 1, 2)))
static bool encode(const char *fmt, ...) {
	char cmd[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, args);
	va_end(args);
	char quiet[1100];
	snprintf(quiet, sizeof(quiet), "%s >/dev/null 2>&1", cmd);
	return system(quiet) == 0;
}

static void put16(uint8_t *p, uint16_t v, bool be) {
	p[be ? 0 : 1] = (uint8_t)(v >> 8);
	p[be ? 1 : 0] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v, bool be) {
	for (int i = 0; i < 4; i++) {
		p[be ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
	}
}

/*
 * An uncompressed RGB TIFF of bits (8 or 16) a sample, one strip, with an Orientation tag; the
 * pixels are the quadrants as stored (orientation says how to show them). width and height may
 * lie (for the size checks): the strip is then the quadrants' size.
 */
static uint8_t *make_tiff(int bits, bool be, int orientation, uint32_t width, uint32_t height,
		size_t *len) {
	size_t pixels_len = (size_t)WIDTH * HEIGHT * 3 * (size_t)bits / 8;
	enum { N_TAGS = 11 };
	size_t ifd = 8, bits_at = ifd + 2 + N_TAGS * 12 + 4, data_at = bits_at + 6;
	*len = data_at + pixels_len;
	uint8_t *t = calloc(1, *len);
	memcpy(t, be ? "MM" : "II", 2);
	put16(t + 2, 42, be);
	put32(t + 4, (uint32_t)ifd, be);
	put16(t + ifd, N_TAGS, be);
	struct { uint16_t tag, type; uint32_t count, value; } tags[N_TAGS] = {
		{ 256, 4, 1, width }, /* ImageWidth */
		{ 257, 4, 1, height }, /* ImageLength */
		{ 258, 3, 3, (uint32_t)bits_at }, /* BitsPerSample */
		{ 259, 3, 1, 1 }, /* Compression: none */
		{ 262, 3, 1, 2 }, /* PhotometricInterpretation: RGB */
		{ 273, 4, 1, (uint32_t)data_at }, /* StripOffsets */
		{ 274, 3, 1, (uint32_t)orientation }, /* Orientation */
		{ 277, 3, 1, 3 }, /* SamplesPerPixel */
		{ 278, 4, 1, height }, /* RowsPerStrip */
		{ 279, 4, 1, (uint32_t)pixels_len }, /* StripByteCounts */
		{ 284, 3, 1, 1 }, /* PlanarConfiguration: contiguous */
	};
	for (int i = 0; i < N_TAGS; i++) {
		uint8_t *e = t + ifd + 2 + 12 * i;
		put16(e, tags[i].tag, be);
		put16(e + 2, tags[i].type, be);
		put32(e + 4, tags[i].count, be);
		if (tags[i].type == 3 && tags[i].count == 1) {
			put16(e + 8, (uint16_t)tags[i].value, be);
		} else {
			put32(e + 8, tags[i].value, be);
		}
	}
	for (int i = 0; i < 3; i++) {
		put16(t + bits_at + 2 * i, (uint16_t)bits, be);
	}
	uint8_t *p = t + data_at;
	for (int y = 0; y < HEIGHT; y++) {
		for (int x = 0; x < WIDTH; x++) {
			const uint8_t *c = colours[(y >= HEIGHT / 2) * 2 + (x >= WIDTH / 2)];
			for (int i = 0; i < 3; i++) {
				if (bits == 16) {
					/* 8 to 16 bits exactly: 0xab to 0xabab. */
					put16(p, (uint16_t)(c[i] * 257), be);
					p += 2;
				} else {
					*p++ = c[i];
				}
			}
		}
	}
	return t;
}

/*
 * Sniffs, checks and loads path as veil_source_open does; 0 or the negative errno, *message set
 * on failure. *name is the decoder's name.
 */
static int load_path(const char *path, enum veil_media_kind want_kind, struct veil_image *image,
		const char **name, char **message, bool *by_check) {
	*message = NULL;
	*name = "";
	*by_check = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		CHECK_FAIL("cannot open %s", path);
		return -errno;
	}
	enum veil_media_kind kind = veil_media_sniff(fd, NULL);
	if (kind != want_kind) {
		CHECK_FAIL("sniffed as kind %d, expected %d", (int)kind, (int)want_kind);
	}
	const struct veil_still_decoder *decoder = veil_still_decoder_find(kind, message);
	if (decoder == NULL) {
		CHECK_FAIL("no decoder for kind %d: %s", (int)kind, *message != NULL ? *message : "");
		close(fd);
		return -ENOTSUP;
	}
	*name = decoder->name;
	int ret = decoder->check(fd, message);
	if (ret < 0) {
		*by_check = true;
	} else {
		free(*message);
		*message = NULL;
		ret = decoder->load(fd, image, message);
	}
	close(fd);
	return ret;
}

/*
 * Compares the centre of each quadrant with colours[order[i]] (the quadrant shown at i once the
 * orientation is applied), within tolerance.
 */
static void check_quadrants(const struct veil_image *image, int width, int height,
		const int order[4], int tolerance) {
	if (image->width != width || image->height != height) {
		CHECK_FAIL("decoded to %dx%d, expected %dx%d", image->width, image->height, width,
			height);
		return;
	}
	if (image->drm_format != DRM_FORMAT_XRGB8888) {
		CHECK_FAIL("an opaque image decoded to a format with alpha");
	}
	for (int q = 0; q < 4; q++) {
		int x = (q % 2) * width / 2 + width / 4;
		int y = (q / 2) * height / 2 + height / 4;
		const uint8_t *p = (const uint8_t *)image->data + (size_t)y * image->stride + 4 * x;
		const uint8_t *c = colours[order[q]];
		/* B, G, R in memory. */
		for (int i = 0; i < 3; i++) {
			if (abs(p[i] - c[2 - i]) > tolerance) {
				CHECK_FAIL("quadrant %d at %d,%d is B,G,R %d,%d,%d, expected %d,%d,%d", q, x, y,
					p[0], p[1], p[2], c[2], c[1], c[0]);
				return;
			}
		}
	}
}

static const int upright[4] = { 0, 1, 2, 3 };

static void check_file(const char *what, const char *path, enum veil_media_kind kind,
		const char *want_decoder, int width, int height, const int order[4], int tolerance) {
	check_begin("%s", what);
	struct veil_image image = {0};
	const char *name;
	char *message;
	bool by_check;
	int ret = load_path(path, kind, &image, &name, &message, &by_check);
	if (ret < 0) {
		CHECK_FAIL("%s failed (%d): %s", by_check ? "check" : "load", ret,
			message != NULL ? message : "(no message)");
	} else {
		if (strcmp(name, want_decoder) != 0) {
			CHECK_FAIL("decoded by %s, expected %s", name, want_decoder);
		}
		check_quadrants(&image, width, height, order, tolerance);
	}
	free(message);
	veil_image_finish(&image);
	check_end();
}

/*
 * A file veil must refuse: at the check (header) when at_check, else at the load, with a
 * message holding needle.
 */
static void expect_refused(const char *what, const char *path, enum veil_media_kind kind,
		bool at_check, int want_err, const char *needle) {
	check_begin("%s", what);
	struct veil_image image = {0};
	const char *name;
	char *message;
	bool by_check;
	int ret = load_path(path, kind, &image, &name, &message, &by_check);
	if (ret >= 0) {
		CHECK_FAIL("decoded to %dx%d, expected a failure", image.width, image.height);
	} else {
		if (by_check != at_check) {
			CHECK_FAIL("refused by the %s, expected the %s: %s", by_check ? "check" : "load",
				at_check ? "check" : "load", message != NULL ? message : "");
		}
		if (want_err != 0 && ret != want_err) {
			CHECK_FAIL("error %d (%s), expected %d", ret, message != NULL ? message : "",
				want_err);
		}
		if (message == NULL || message[0] == '\0') {
			CHECK_FAIL("no message");
		} else if (needle != NULL && strstr(message, needle) == NULL) {
			CHECK_FAIL("message '%s' does not say '%s'", message, needle);
		} else {
			printf("ok %s: %s\n", what, message);
		}
	}
	free(message);
	veil_image_finish(&image);
	check_end();
}

/* A copy of src cut to len bytes (len < 0: that many bytes fewer). */
static bool truncate_copy(const char *src, const char *dst, long len) {
	size_t size;
	uint8_t *data = read_file(src, &size);
	if (data == NULL) {
		return false;
	}
	size_t keep = len < 0 ? size - (size_t)(-len) : (size_t)len;
	write_file(dst, data, keep < size ? keep : size);
	free(data);
	return true;
}

#if VEIL_HAVE_LIBHEIF
/* Overwrites the 4 bytes after the first "ispe" box's version and flags (width, height). */
static bool patch_ispe(const char *src, const char *dst, uint32_t width, uint32_t height) {
	size_t size;
	uint8_t *data = read_file(src, &size);
	if (data == NULL) {
		return false;
	}
	bool found = false;
	for (size_t i = 0; i + 16 <= size; i++) {
		if (memcmp(data + i, "ispe", 4) == 0) {
			put32(data + i + 8, width, true);
			put32(data + i + 12, height, true);
			found = true;
			break;
		}
	}
	if (found) {
		write_file(dst, data, size);
	}
	free(data);
	return found;
}
#endif

/* Bytes this process has read so far (read, pread: /proc/self/io's rchar), or -1. */
static long long bytes_read(void) {
	FILE *f = fopen("/proc/self/io", "r");
	if (f == NULL) {
		return -1;
	}
	long long rchar = -1;
	char line[128];
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "rchar: %lld", &rchar) == 1) {
			break;
		}
	}
	fclose(f);
	return rchar;
}

/* A check on the compositor thread reads the header, not the picture. */
static void expect_small_check(const char *what, const char *path, long long max) {
	check_begin("%s", what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		CHECK_FAIL("cannot open %s", path);
		check_end();
		return;
	}
	const struct veil_still_decoder *decoder =
		veil_still_decoder_find(veil_media_sniff(fd, NULL), NULL);
	char *message = NULL;
	long long before = bytes_read();
	int ret = decoder != NULL ? decoder->check(fd, &message) : -ENOTSUP;
	long long n = bytes_read() - before;
	if (ret < 0) {
		CHECK_FAIL("check failed (%d): %s", ret, message != NULL ? message : "");
	} else if (before < 0) {
		check_skip("%s: no /proc/self/io", check_case);
	} else if (n > max) {
		CHECK_FAIL("read %lld bytes of a %lld-byte file, more than %lld", n,
			(long long)st.st_size, max);
	} else {
		printf("ok %s: %lld bytes read of %lld\n", what, n, (long long)st.st_size);
	}
	free(message);
	close(fd);
	check_end();
}

#if VEIL_HAVE_LIBWEBP || VEIL_HAVE_LIBJXL
/* Half-transparent red, premultiplied: 128, 0, 0, 128 (B, G, R, A 0, 0, 128, 128). */
static void check_half_red(const char *path, enum veil_media_kind kind) {
	struct veil_image image = {0};
	const char *name;
	char *message;
	bool by_check;
	int ret = load_path(path, kind, &image, &name, &message, &by_check);
	if (ret < 0) {
		CHECK_FAIL("%s", message != NULL ? message : "failed");
	} else {
		const uint8_t *p = image.data;
		if (image.drm_format != DRM_FORMAT_ARGB8888 || p[0] > 1 || p[1] > 1 ||
				abs(p[2] - 128) > 2 || abs(p[3] - 128) > 2) {
			CHECK_FAIL("pixel B,G,R,A %d,%d,%d,%d, expected 0,0,128,128 premultiplied",
				p[0], p[1], p[2], p[3]);
		}
	}
	free(message);
	veil_image_finish(&image);
	check_end();
}
#endif

#if !VEIL_HAVE_LIBHEIF || !VEIL_HAVE_LIBJXL
/* A kind this build has no decoder for: sniffed, refused with a sentence naming library. */
static void expect_no_decoder(const char *path, enum veil_media_kind want_kind,
		const char *library) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum veil_media_kind kind = veil_media_sniff(fd, NULL);
	char *message = NULL;
	if (kind != want_kind) {
		CHECK_FAIL("sniffed as kind %d", (int)kind);
	} else if (veil_still_decoder_find(kind, &message) != NULL) {
		CHECK_FAIL("a decoder without %s", library);
	} else if (message == NULL || strstr(message, library) == NULL) {
		CHECK_FAIL("message '%s' does not name %s", message != NULL ? message : "", library);
	}
	free(message);
	close(fd);
	check_end();
}
#endif

static void test_heif(void) {
#if VEIL_HAVE_LIBHEIF
	check_begin("AVIF encode");
	if (!encode("ffmpeg -y -i test-stills.ppm -c:v libaom-av1 -still-picture 1 "
			"-pix_fmt yuv444p -crf 12 -cpu-used 8 test-stills.avif")) {
		check_skip("%s: ffmpeg cannot encode AVIF (libaom-av1)", check_case);
	} else {
		check_file("AVIF 4:4:4", "test-stills.avif", VEIL_MEDIA_HEIF, "libheif", WIDTH,
			HEIGHT, upright, 24);
		/* The meta box is most of so small a file: cut into, it is known at the check. */
		truncate_copy("test-stills.avif", "test-stills-cut.avif", -100);
		expect_refused("AVIF truncated in its meta box", "test-stills-cut.avif",
			VEIL_MEDIA_HEIF, true, -EINVAL, "AVIF");
		/* Cut in its picture data: the header is sound, decoding fails. */
		truncate_copy("test-stills.avif", "test-stills-cut.avif", -10);
		expect_refused("AVIF truncated in its data", "test-stills-cut.avif",
			VEIL_MEDIA_HEIF, false, -EINVAL, "AVIF");
		truncate_copy("test-stills.avif", "test-stills-cut.avif", 40);
		expect_refused("AVIF cut in its header", "test-stills-cut.avif", VEIL_MEDIA_HEIF,
			true, -EINVAL, "AVIF");
		patch_ispe("test-stills.avif", "test-stills-big.avif", 16000, 16000);
		expect_refused("AVIF 16000x16000", "test-stills-big.avif", VEIL_MEDIA_HEIF, true,
			-EFBIG, "16000x16000");
		patch_ispe("test-stills.avif", "test-stills-big.avif", 100000, 100000);
		expect_refused("AVIF 100000x100000", "test-stills-big.avif", VEIL_MEDIA_HEIF, true,
			-EFBIG, "limit");
	}
	check_begin("HEIC encode");
	if (!encode("ffmpeg -y -i test-stills.ppm test-stills.png && "
			"heif-enc -q 95 -o test-stills.heic test-stills.png && "
			"heif-enc -q 95 --rotate-cw 90 -o test-stills-rot.heic test-stills.png")) {
		check_skip("%s: heif-enc cannot encode HEIC (libheif-examples, "
			"libheif-plugin-x265)", check_case);
	} else {
		check_file("HEIC", "test-stills.heic", VEIL_MEDIA_HEIF, "libheif", WIDTH, HEIGHT,
			upright, 40);
		/* Turned a quarter clockwise by irot: the bottom left comes to the top left. */
		static const int cw90[4] = { 2, 0, 3, 1 };
		check_file("HEIC with irot 90", "test-stills-rot.heic", VEIL_MEDIA_HEIF, "libheif",
			HEIGHT, WIDTH, cw90, 40);
		if (encode("ffmpeg -y -f lavfi -i 'nullsrc=s=1024x768,geq=random(1)*255:128:128' "
				"-frames:v 1 test-stills-noise.png && heif-enc -q 100 "
				"-o test-stills-noise.heic test-stills-noise.png")) {
			expect_small_check("HEIC check reads its header only", "test-stills-noise.heic",
				16 * 1024);
		}
		truncate_copy("test-stills.heic", "test-stills-cut.heic", -200);
		expect_refused("HEIC truncated", "test-stills-cut.heic", VEIL_MEDIA_HEIF, false,
			-EINVAL, "HEIC");
	}
#else
	/* Nothing else decodes them: refused with a sentence that says why. */
	check_begin("AVIF without libheif");
	if (!encode("ffmpeg -y -i test-stills.ppm -c:v libaom-av1 -still-picture 1 "
			"-cpu-used 8 test-stills.avif")) {
		check_skip("%s: ffmpeg cannot encode AVIF (libaom-av1)", check_case);
		return;
	}
	expect_no_decoder("test-stills.avif", VEIL_MEDIA_HEIF, "libheif");
#endif
}

static void test_webp(void) {
#if VEIL_HAVE_LIBWEBP
	check_begin("WebP encode");
	if (!encode("ffmpeg -y -i test-stills.ppm -c:v libwebp -lossless 1 test-stills-ll.webp && "
			"ffmpeg -y -i test-stills.ppm -c:v libwebp -quality 95 test-stills.webp")) {
		check_skip("%s: ffmpeg cannot encode WebP (libwebp)", check_case);
		return;
	}
	check_file("WebP lossless", "test-stills-ll.webp", VEIL_MEDIA_WEBP, "libwebp", WIDTH,
		HEIGHT, upright, 0);
	check_file("WebP lossy", "test-stills.webp", VEIL_MEDIA_WEBP, "libwebp", WIDTH, HEIGHT,
		upright, 40);

	check_begin("WebP alpha");
	if (encode("ffmpeg -y -f lavfi -i color=c=red@0.5:s=16x16,format=rgba -frames:v 1 "
			"-c:v libwebp -lossless 1 test-stills-alpha.webp")) {
		check_half_red("test-stills-alpha.webp", VEIL_MEDIA_WEBP);
	} else {
		check_skip("%s: ffmpeg cannot encode WebP with alpha", check_case);
	}

	/* Animated: the first frame (the quadrants), whatever follows (blue). */
	check_begin("WebP animated encode");
	if (encode("ffmpeg -y -loop 1 -t 1 -i test-stills.ppm -f lavfi -i color=c=blue:s=%dx%d:d=1 "
			"-filter_complex '[0][1]concat=n=2,fps=2' -frames:v 4 -c:v libwebp_anim "
			"-lossless 1 -loop 0 test-stills-anim.webp", WIDTH, HEIGHT)) {
		/* ffmpeg's animated WebP goes through YUV even when lossless: a tolerance. */
		check_file("WebP animated: its first frame", "test-stills-anim.webp",
			VEIL_MEDIA_WEBP, "libwebp", WIDTH, HEIGHT, upright, 24);
		check_begin("WebP animated: its frames counted");
		struct veil_image image = {0};
		const char *name;
		char *message;
		bool by_check;
		if (load_path("test-stills-anim.webp", VEIL_MEDIA_WEBP, &image, &name, &message,
				&by_check) == 0 && image.frames < 2) {
			CHECK_FAIL("%d frames, expected more than one", image.frames);
		}
		free(message);
		veil_image_finish(&image);
		check_end();
	} else {
		check_skip("%s: ffmpeg cannot encode animated WebP", check_case);
	}

	truncate_copy("test-stills.webp", "test-stills-cut.webp", -30);
	expect_refused("WebP truncated", "test-stills-cut.webp", VEIL_MEDIA_WEBP, true, -EINVAL,
		"truncated");
	/* Past the RIFF size libwebp finds no picture: what it says, at the load. */
	size_t len;
	uint8_t *data = read_file("test-stills.webp", &len);
	for (size_t i = 40; i < len; i += 3) {
		data[i] ^= 0x5a;
	}
	write_file("test-stills-bad.webp", data, len);
	free(data);
	expect_refused("WebP corrupt", "test-stills-bad.webp", VEIL_MEDIA_WEBP, false, 0, "WebP");

	/* An animation's canvas of 16384x16384: VP8X alone, refused before anything is decoded. */
	uint8_t vp8x[30] = "RIFF\x16\0\0\0WEBPVP8X\x0a\0\0\0\x02\0\0\0";
	put32(vp8x + 24, 0, false);
	vp8x[24] = 0xff, vp8x[25] = 0x3f, vp8x[26] = 0; /* width - 1 = 16383 */
	vp8x[27] = 0xff, vp8x[28] = 0x3f, vp8x[29] = 0; /* height - 1 = 16383 */
	write_file("test-stills-big.webp", vp8x, sizeof(vp8x));
	expect_refused("WebP 16384x16384", "test-stills-big.webp", VEIL_MEDIA_WEBP, true, -EFBIG,
		"16384x16384");
#else
	/* GStreamer's webpdec instead. */
	check_begin("WebP encode");
	if (!encode("ffmpeg -y -i test-stills.ppm -c:v libwebp -lossless 1 test-stills-ll.webp")) {
		check_skip("%s: ffmpeg cannot encode WebP (libwebp)", check_case);
		return;
	}
	check_file("WebP lossless through GStreamer", "test-stills-ll.webp", VEIL_MEDIA_WEBP,
		"gstreamer", WIDTH, HEIGHT, upright, 0);
#endif
}

static void test_tiff(void) {
#if VEIL_HAVE_LIBTIFF
	size_t len;
	uint8_t *t = make_tiff(16, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills.tiff", t, len);
	free(t);
	check_file("TIFF 16-bit RGB, little-endian", "test-stills.tiff", VEIL_MEDIA_TIFF,
		"libtiff", WIDTH, HEIGHT, upright, 0);
	t = make_tiff(16, true, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills-be.tiff", t, len);
	free(t);
	check_file("TIFF 16-bit RGB, big-endian", "test-stills-be.tiff", VEIL_MEDIA_TIFF,
		"libtiff", WIDTH, HEIGHT, upright, 0);
	t = make_tiff(8, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills-8.tiff", t, len);
	free(t);
	check_file("TIFF 8-bit RGB", "test-stills-8.tiff", VEIL_MEDIA_TIFF, "libtiff", WIDTH,
		HEIGHT, upright, 0);
	/* Orientation 3: stored bottom right first, shown turned half a turn. */
	t = make_tiff(16, false, 3, WIDTH, HEIGHT, &len);
	write_file("test-stills-rot.tiff", t, len);
	free(t);
	static const int half_turn[4] = { 3, 2, 1, 0 };
	check_file("TIFF Orientation 3", "test-stills-rot.tiff", VEIL_MEDIA_TIFF, "libtiff",
		WIDTH, HEIGHT, half_turn, 0);

	/* 5 to 8 swap width and height: libtiff reads them as stored, veil turns them. */
	static const struct {
		int orientation;
		int order[4];
	} turns[] = {
		{ 5, { 0, 2, 1, 3 } }, /* transposed */
		{ 6, { 2, 0, 3, 1 } }, /* a quarter clockwise: the bottom left comes to the top left */
		{ 7, { 3, 1, 2, 0 } }, /* transversed */
		{ 8, { 1, 3, 0, 2 } }, /* a quarter anticlockwise */
	};
	for (size_t i = 0; i < sizeof(turns) / sizeof(turns[0]); i++) {
		t = make_tiff(16, false, turns[i].orientation, WIDTH, HEIGHT, &len);
		write_file("test-stills-rot.tiff", t, len);
		free(t);
		char what[64];
		snprintf(what, sizeof(what), "TIFF Orientation %d", turns[i].orientation);
		check_file(what, "test-stills-rot.tiff", VEIL_MEDIA_TIFF, "libtiff", HEIGHT, WIDTH,
			turns[i].order, 0);
	}

	t = make_tiff(16, false, 1, 20000, 100, &len);
	write_file("test-stills-big.tiff", t, len);
	free(t);
	expect_refused("TIFF 20000x100", "test-stills-big.tiff", VEIL_MEDIA_TIFF, true, -EFBIG,
		"20000x100");
	t = make_tiff(16, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills-cut.tiff", t, len / 2);
	free(t);
	expect_refused("TIFF truncated", "test-stills-cut.tiff", VEIL_MEDIA_TIFF, false, -EINVAL,
		"TIFF");
	t = make_tiff(16, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills-cut.tiff", t, 60);
	free(t);
	expect_refused("TIFF cut in its directory", "test-stills-cut.tiff", VEIL_MEDIA_TIFF, true,
		-EINVAL, "TIFF");
	/* 32-bit samples: no layout TIFFRGBAImage reads. */
	t = make_tiff(16, false, 1, WIDTH, HEIGHT, &len);
	for (int i = 0; i < 3; i++) {
		put16(t + 8 + 2 + 11 * 12 + 4 + 2 * i, 32, false);
	}
	write_file("test-stills-32.tiff", t, len);
	free(t);
	expect_refused("TIFF 32-bit samples", "test-stills-32.tiff", VEIL_MEDIA_TIFF, true,
		-ENOTSUP, "TIFF");
#else
	/* GStreamer's avdec_tiff instead, for the layouts it does not crash on: not 16-bit RGB. */
	size_t len;
	uint8_t *t = make_tiff(8, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills-8.tiff", t, len);
	free(t);
	check_file("TIFF 8-bit RGB through GStreamer", "test-stills-8.tiff", VEIL_MEDIA_TIFF,
		"gstreamer", WIDTH, HEIGHT, upright, 0);
	t = make_tiff(16, false, 1, WIDTH, HEIGHT, &len);
	write_file("test-stills.tiff", t, len);
	free(t);
	expect_refused("TIFF 16-bit RGB without libtiff", "test-stills.tiff", VEIL_MEDIA_TIFF,
		true, -ENOTSUP, "TIFF layout");
	(void)truncate_copy;
#endif
}

#if VEIL_HAVE_LIBJXL
/* Pixels no two alike in a row or column, R, G, B. */
static uint8_t gradient(int x, int y, int i) {
	return (uint8_t)(i == 0 ? x * 3 + y : i == 1 ? y * 5 + x / 2 : (x * 7) ^ (y * 11));
}

/* Through veil_still_decode, as veil-decoder decodes: every pixel, the colour's word. */
static void check_gradient(const char *what, const char *path) {
	check_begin("%s", what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum veil_media_kind kind = fd >= 0 ? veil_media_sniff(fd, NULL) : VEIL_MEDIA_UNKNOWN;
	const struct veil_still_decoder *decoder = veil_still_decoder_find(kind, NULL);
	if (fd < 0 || kind != VEIL_MEDIA_JXL || decoder == NULL) {
		CHECK_FAIL("%s: not opened or not sniffed as JPEG XL (kind %d)", path, (int)kind);
		if (fd >= 0) {
			close(fd);
		}
		check_end();
		return;
	}
	struct veil_image image = {0};
	int width, height, shrink_error;
	const struct veil_still_decoder *used;
	struct veil_colour_result colour;
	char *message = NULL;
	int ret = veil_still_decode(decoder, fd, 0, 0, VEIL_IMAGE_FILTER_SMOOTH, &image, &width,
		&height, &used, &shrink_error, &colour, &message);
	close(fd);
	if (ret < 0) {
		CHECK_FAIL("decode failed (%d): %s", ret, message != NULL ? message : "");
	} else if (image.width != WIDTH || image.height != HEIGHT ||
			image.drm_format != DRM_FORMAT_XRGB8888 || strcmp(used->name, "libjxl") != 0) {
		CHECK_FAIL("decoded by %s to %dx%d, format %#x", used->name, image.width, image.height,
			image.drm_format);
	} else {
		int wrong = 0;
		for (int y = 0; y < HEIGHT; y++) {
			const uint8_t *row = (const uint8_t *)image.data + (size_t)y * image.stride;
			for (int x = 0; x < WIDTH; x++) {
				const uint8_t *p = row + 4 * x;
				if (p[0] != gradient(x, y, 2) || p[1] != gradient(x, y, 1) ||
						p[2] != gradient(x, y, 0) || p[3] != 0xff) {
					if (wrong++ == 0) {
						CHECK_FAIL("pixel %d,%d is B,G,R,A %d,%d,%d,%d, expected %d,%d,%d",
							x, y, p[0], p[1], p[2], p[3], gradient(x, y, 2),
							gradient(x, y, 1), gradient(x, y, 0));
					}
				}
			}
		}
		if (wrong > 0) {
			CHECK_FAIL("%d of %d pixels differ", wrong, WIDTH * HEIGHT);
		} else if (strstr(colour.said, "sRGB") == NULL || colour.fell_back) {
			CHECK_FAIL("colour said '%s'", colour.said);
		} else {
			printf("ok %s: %d pixels exact, colour '%s'\n", what, WIDTH * HEIGHT,
				colour.said);
		}
	}
	free(message);
	veil_image_finish(&image);
	check_end();
}

/* A bare codestream's header declaring width x height, then pad bytes of 0x55. */
static void write_jxl_header(const char *path, uint32_t width, uint32_t height, size_t pad) {
	uint8_t data[256];
	memset(data, 0x55, sizeof(data));
	memset(data + 2, 0, 16);
	data[0] = 0xff;
	data[1] = 0x0a;
	size_t bit = 16;
	struct {
		uint32_t value;
		int bits;
	} fields[] = {
		{ 0, 1 }, /* not small */
		{ 3, 2 }, { height - 1, 30 }, /* U32's fourth distribution: 30 bits + 1 */
		{ 0, 3 }, /* no ratio: the width follows */
		{ 3, 2 }, { width - 1, 30 },
		{ 1, 1 }, /* all_default image metadata */
	};
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		for (int i = 0; i < fields[f].bits; i++, bit++) {
			if ((fields[f].value >> i) & 1) {
				data[bit / 8] |= (uint8_t)(1u << (bit % 8));
			}
		}
	}
	size_t len = (bit + 7) / 8 + pad;
	write_file(path, data, len < sizeof(data) ? len : sizeof(data));
}
#endif

static void test_jxl(void) {
#if VEIL_HAVE_LIBJXL
	check_begin("JPEG XL encode");
	write_ppm("test-stills-grad.ppm", gradient);
	if (!encode("cjxl -d 0 test-stills-grad.ppm test-stills-grad.jxl && "
			"cjxl -d 0 --container=1 test-stills-grad.ppm test-stills-grad-box.jxl && "
			"cjxl -d 1 test-stills.ppm test-stills.jxl")) {
		CHECK_FAIL("cjxl cannot encode (libjxl-tools)");
		check_end();
		return;
	}
	check_end();
	check_gradient("JPEG XL lossless codestream, every pixel", "test-stills-grad.jxl");
	check_gradient("JPEG XL lossless container, every pixel", "test-stills-grad-box.jxl");
	check_file("JPEG XL lossy (XYB)", "test-stills.jxl", VEIL_MEDIA_JXL, "libjxl", WIDTH,
		HEIGHT, upright, 12);
	check_begin("JPEG XL alpha");
	if (encode("ffmpeg -y -f lavfi -i color=c=red@0.5:s=16x16,format=rgba -frames:v 1 "
			"test-stills-alpha.png && cjxl -d 0 test-stills-alpha.png test-stills-alpha.jxl")) {
		check_half_red("test-stills-alpha.jxl", VEIL_MEDIA_JXL);
	} else {
		CHECK_FAIL("ffmpeg or cjxl cannot make the half-transparent picture");
		check_end();
	}
	if (encode("ffmpeg -y -f lavfi -i 'nullsrc=s=1024x768,geq=random(1)*255:128:128' "
			"-frames:v 1 test-stills-noise.png && cjxl -d 1 --container=1 "
			"test-stills-noise.png test-stills-noise.jxl")) {
		/* Its first 4 KiB, and /proc/self/io's own text. */
		expect_small_check("JPEG XL check reads its header only", "test-stills-noise.jxl",
			4096 + 1024);
	} else {
		check_begin("JPEG XL noise encode");
		CHECK_FAIL("ffmpeg or cjxl cannot make the noise picture");
		check_end();
	}
	truncate_copy("test-stills-grad-box.jxl", "test-stills-cut.jxl", -40);
	expect_refused("JPEG XL truncated in its picture", "test-stills-cut.jxl", VEIL_MEDIA_JXL,
		false, -EINVAL, "truncated");
	truncate_copy("test-stills-grad.jxl", "test-stills-cut.jxl", 3);
	expect_refused("JPEG XL truncated in its header", "test-stills-cut.jxl", VEIL_MEDIA_JXL,
		true, -EINVAL, "truncated");
	/* The whole header, no picture: the size alone is refused, before any decoding. */
	write_jxl_header("test-stills-big.jxl", 100000, 100000, 0);
	expect_refused("JPEG XL declaring 100000x100000", "test-stills-big.jxl", VEIL_MEDIA_JXL,
		true, -EFBIG, "100000x100000");
	write_jxl_header("test-stills-big.jxl", 16385, 64, 0);
	expect_refused("JPEG XL declaring 16385x64", "test-stills-big.jxl", VEIL_MEDIA_JXL, true,
		-EFBIG, "16385x64");
	/* A sound header, then bytes no frame is made of (djxl: "Failed to decode image"). */
	write_jxl_header("test-stills-bad.jxl", 64, 48, 200);
	expect_refused("JPEG XL corrupt", "test-stills-bad.jxl", VEIL_MEDIA_JXL, false, -EINVAL,
		"corrupt JPEG XL");
#else
	check_begin("JPEG XL without libjxl");
	static const uint8_t codestream[] = { 0xff, 0x0a, 0, 0, 0, 0 };
	write_file("test-stills-big.jxl", codestream, sizeof(codestream));
	expect_no_decoder("test-stills-big.jxl", VEIL_MEDIA_JXL, "libjxl");
#endif
}

int main(int argc, char *argv[]) {
	write_ppm("test-stills.ppm", quadrant);
	test_heif();
	test_webp();
	test_tiff();
	test_jxl();
	if (check_failed == 0) {
		const char *files[] = { "test-stills.ppm", "test-stills.png", "test-stills.avif",
			"test-stills-cut.avif", "test-stills-big.avif", "test-stills.heic",
			"test-stills-rot.heic", "test-stills-cut.heic", "test-stills-ll.webp",
			"test-stills.webp", "test-stills-alpha.webp", "test-stills-anim.webp",
			"test-stills-cut.webp", "test-stills-bad.webp", "test-stills-big.webp",
			"test-stills.tiff", "test-stills-be.tiff", "test-stills-8.tiff",
			"test-stills-rot.tiff", "test-stills-big.tiff", "test-stills-cut.tiff",
			"test-stills-32.tiff", "test-stills-noise.png", "test-stills-noise.heic",
			"test-stills-grad.ppm", "test-stills-grad.jxl", "test-stills-grad-box.jxl",
			"test-stills.jxl", "test-stills-cut.jxl", "test-stills-big.jxl",
			"test-stills-bad.jxl", "test-stills-noise.jxl", "test-stills-alpha.png",
			"test-stills-alpha.jxl" };
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			unlink(files[i]);
		}
	}
	return check_summary("stills");
}
