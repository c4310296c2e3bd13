/*
 * SVG through librsvg (decode/svg.c), from the sniff to veil_still_decode() as a still's worker
 * runs it, against rsvg-convert (the reference: the same library through its own program, read
 * back by ImageMagick). The documents are written here: rectangles of known colours, sizes
 * declared in every way an SVG declares them, and hostile ones (a huge canvas, a sliver, entity
 * expansion, deep nesting, references to other files) that must end as a sentence, quickly.
 * Files are written to the working directory.
 */
#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/image.h"
#include "decode/sniff.h"
#include "decode/still.h"
#include "check.h"

/* The case the checks after it belong to, for the log. */
static void begin(const char *name) {
	fprintf(stderr, "== %s\n", name);
}

static void write_text(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct result {
	int ret;
	struct veil_image image;
	int original_width, original_height;
	const char *decoder;
	char *message;
	double seconds;
};

/* The file through the sniff, the table and the whole decode, as veil's worker runs it. */
static struct result decode(const char *path, int cover_width, int cover_height) {
	struct result r = { .ret = -ENOENT, .decoder = "" };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!CHECK(fd >= 0, "cannot open %s", path)) {
		return r;
	}
	double start = now_s();
	enum veil_media_kind kind = veil_media_sniff(fd, NULL);
	if (!CHECK(kind == VEIL_MEDIA_SVG, "%s sniffed as kind %d", path, (int)kind)) {
		close(fd);
		return r;
	}
	const struct veil_still_decoder *decoder = veil_still_decoder_find(kind, NULL);
	r.ret = decoder->check(fd, &r.message);
	if (r.ret == 0) {
		const struct veil_still_decoder *used;
		int shrink_error;
		struct veil_colour_result colour;
		r.ret = veil_still_decode(decoder, fd, cover_width, cover_height,
			VEIL_IMAGE_FILTER_SMOOTH, &r.image, &r.original_width, &r.original_height,
			&used, &shrink_error, &colour, &r.message);
		r.decoder = used->name;
	}
	r.seconds = now_s() - start;
	close(fd);
	return r;
}

static void result_finish(struct result *r) {
	veil_image_finish(&r->image);
	free(r->message);
}

/* B, G, R, A in memory (premultiplied: these pictures are opaque where it is read). */
static const uint8_t *pixel(const struct veil_image *image, int x, int y) {
	return (const uint8_t *)image->data + (size_t)y * (size_t)image->stride + (size_t)x * 4;
}

static bool expect_size(const struct result *r, int width, int height, int file_width,
		int file_height) {
	if (!CHECK(r->ret == 0, "refused: %d %s", r->ret, r->message != NULL ? r->message : "")) {
		return false;
	}
	CHECK(strcmp(r->decoder, "librsvg") == 0, "decoded by %s", r->decoder);
	CHECK(r->original_width == file_width && r->original_height == file_height,
		"its own size is %dx%d, not %dx%d", r->original_width, r->original_height,
		file_width, file_height);
	return CHECK(r->image.width == width && r->image.height == height,
		"drawn at %dx%d, not %dx%d", r->image.width, r->image.height, width, height);
}

/*
 * Every pixel against rsvg-convert's at the same size (read by ImageMagick as R, G, B, A):
 * at most tolerance apart, and no more than one pixel in a thousand apart at all (the edges'
 * antialiasing, where both draw the same).
 */
static void compare_with_rsvg_convert(const char *svg, const struct veil_image *image,
		int tolerance) {
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rsvg-convert -w %d -h %d -o test-svg-ref.png %s && "
		"convert test-svg-ref.png -depth 8 RGBA:test-svg-ref.rgba", image->width,
		image->height, svg);
	if (!CHECK(system(cmd) == 0, "the reference failed: %s", cmd)) {
		return;
	}
	size_t len = (size_t)image->width * (size_t)image->height * 4;
	uint8_t *ref = malloc(len);
	FILE *f = fopen("test-svg-ref.rgba", "rb");
	size_t got = f != NULL ? fread(ref, 1, len, f) : 0;
	if (f != NULL) {
		fclose(f);
	}
	if (!CHECK(got == len, "the reference has %zu bytes, not %zu", got, len)) {
		free(ref);
		return;
	}
	int worst = 0;
	size_t differing = 0;
	for (int y = 0; y < image->height; y++) {
		for (int x = 0; x < image->width; x++) {
			const uint8_t *p = pixel(image, x, y);
			const uint8_t *q = ref + ((size_t)y * (size_t)image->width + (size_t)x) * 4;
			/* Ours B, G, R, A; the reference R, G, B, A. */
			int d[4] = { p[2] - q[0], p[1] - q[1], p[0] - q[2], p[3] - q[3] };
			bool differs = false;
			for (int c = 0; c < 4; c++) {
				int a = abs(d[c]);
				worst = a > worst ? a : worst;
				differs = differs || a != 0;
			}
			differing += differs;
		}
	}
	size_t total = (size_t)image->width * (size_t)image->height;
	CHECK(worst <= tolerance && differing * 1000 <= total,
		"%zu of %zu pixels differ from rsvg-convert's, by up to %d", differing, total, worst);
	free(ref);
}

/* Quadrants red, green, blue, white, with a black disc in the middle (antialiased edges). */
static const char quadrants[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!-- written by test-svg -->\n"
	"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" "
	"viewBox=\"0 0 400 300\" preserveAspectRatio=\"none\">\n"
	"<rect x=\"0\" y=\"0\" width=\"200\" height=\"150\" fill=\"#ff0000\"/>\n"
	"<rect x=\"200\" y=\"0\" width=\"200\" height=\"150\" fill=\"#00ff00\"/>\n"
	"<rect x=\"0\" y=\"150\" width=\"200\" height=\"150\" fill=\"#0000ff\"/>\n"
	"<rect x=\"200\" y=\"150\" width=\"200\" height=\"150\" fill=\"#ffffff\"/>\n"
	"<circle cx=\"200\" cy=\"150\" r=\"37\" fill=\"#000000\"/>\n"
	"</svg>\n";

static void write_quadrants(const char *path, const char *width, const char *height) {
	char text[1024];
	snprintf(text, sizeof(text), quadrants, width, height);
	write_text(path, text);
}

static void check_colours(const struct veil_image *image) {
	static const uint8_t bgr[4][3] = {
		{ 0, 0, 255 }, { 0, 255, 0 }, { 255, 0, 0 }, { 255, 255, 255 },
	};
	for (int q = 0; q < 4; q++) {
		int x = image->width / 8 + (q % 2) * image->width / 2;
		int y = image->height / 8 + (q / 2) * image->height / 2;
		const uint8_t *p = pixel(image, x, y);
		CHECK(memcmp(p, bgr[q], 3) == 0 && p[3] == 255,
			"quadrant %d is B, G, R, A %d, %d, %d, %d", q, p[0], p[1], p[2], p[3]);
	}
	CHECK(image->drm_format == DRM_FORMAT_XRGB8888, "an opaque picture is not XRGB8888");
}

static void test_render(void) {
	write_quadrants("test-svg-quadrants.svg", "400", "300");
	begin("400x300 SVG covering 1920x1080: drawn at 1920x1440, as rsvg-convert draws it");
	struct result r = decode("test-svg-quadrants.svg", 1920, 1080);
	if (expect_size(&r, 1920, 1440, 400, 300)) {
		check_colours(&r.image);
		compare_with_rsvg_convert("test-svg-quadrants.svg", &r.image, 2);
	}
	result_finish(&r);

	begin("400x300 SVG covering 300x300: drawn at 400x300, not shrunk after");
	r = decode("test-svg-quadrants.svg", 300, 300);
	if (expect_size(&r, 400, 300, 400, 300)) {
		compare_with_rsvg_convert("test-svg-quadrants.svg", &r.image, 2);
	}
	result_finish(&r);

	begin("400x300 SVG with no cover (center, tile): drawn at its own size");
	r = decode("test-svg-quadrants.svg", 0, 0);
	if (expect_size(&r, 400, 300, 400, 300)) {
		check_colours(&r.image);
		compare_with_rsvg_convert("test-svg-quadrants.svg", &r.image, 2);
	}
	result_finish(&r);

	/* GNOME's and desktop-base's wallpapers are this size. */
	write_quadrants("test-svg-4096.svg", "4096", "4096");
	begin("4096x4096 SVG covering 1920x1080: drawn at 1920x1920, never at 4096x4096");
	r = decode("test-svg-4096.svg", 1920, 1080);
	if (expect_size(&r, 1920, 1920, 4096, 4096)) {
		check_colours(&r.image);
		compare_with_rsvg_convert("test-svg-4096.svg", &r.image, 2);
	}
	result_finish(&r);

	begin("4096x4096 SVG covering 3840x2160: drawn at 3840x3840");
	r = decode("test-svg-4096.svg", 3840, 2160);
	expect_size(&r, 3840, 3840, 4096, 4096);
	result_finish(&r);

	write_quadrants("test-svg-mm.svg", "160mm", "90mm");
	begin("160mm x 90mm SVG (605x340 at 96 dpi) covering 3840x2160: drawn at 3840x2160");
	r = decode("test-svg-mm.svg", 3840, 2160);
	expect_size(&r, 3840, 2160, 605, 341);
	result_finish(&r);

	write_quadrants("test-svg-percent.svg", "100%", "100%");
	begin("SVG of 100% x 100% takes its viewBox's size (400x300)");
	r = decode("test-svg-percent.svg", 0, 0);
	expect_size(&r, 400, 300, 400, 300);
	result_finish(&r);

	write_text("test-svg-nosize.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\">"
		"<rect width=\"100%\" height=\"100%\" fill=\"#00ff00\"/></svg>");
	begin("SVG with neither a size nor a viewBox: drawn at 1024x1024");
	r = decode("test-svg-nosize.svg", 0, 0);
	if (expect_size(&r, VEIL_SVG_DEFAULT_SIDE, VEIL_SVG_DEFAULT_SIDE,
			VEIL_SVG_DEFAULT_SIDE, VEIL_SVG_DEFAULT_SIDE)) {
		const uint8_t *p = pixel(&r.image, 512, 512);
		CHECK(p[1] == 255 && p[0] == 0 && p[2] == 0, "not green");
	}
	result_finish(&r);

	/* A gzipped document, sniffed through its first inflated bytes. */
	begin("SVGZ: the quadrants gzipped");
	if (CHECK(system("gzip -c test-svg-quadrants.svg > test-svg-quadrants.svgz") == 0)) {
		r = decode("test-svg-quadrants.svgz", 1920, 1080);
		if (expect_size(&r, 1920, 1440, 400, 300)) {
			check_colours(&r.image);
		}
		result_finish(&r);
	}
}

/*
 * The quadrants with every element in a namespace prefix, as XSLT and Python's ElementTree write
 * SVG (<svg:svg xmlns:svg=...>, <ns0:svg xmlns:ns0=...>): sniffed as SVG and drawn as
 * rsvg-convert draws them. A root whose local name only begins with svg is not SVG.
 */
static void test_prefixed(void) {
	static const char *const prefixes[] = { "svg", "ns0" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		const char *x = prefixes[i];
		char text[2048], path[64], name[96];
		snprintf(text, sizeof(text),
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<%s:svg xmlns:%s=\"http://www.w3.org/2000/svg\" width=\"400\" "
			"height=\"300\" viewBox=\"0 0 400 300\">\n"
			"<%s:rect x=\"0\" y=\"0\" width=\"200\" height=\"150\" fill=\"#ff0000\"/>\n"
			"<%s:rect x=\"200\" y=\"0\" width=\"200\" height=\"150\" "
			"fill=\"#00ff00\"/>\n"
			"<%s:rect x=\"0\" y=\"150\" width=\"200\" height=\"150\" "
			"fill=\"#0000ff\"/>\n"
			"<%s:rect x=\"200\" y=\"150\" width=\"200\" height=\"150\" "
			"fill=\"#ffffff\"/>\n"
			"<%s:circle cx=\"200\" cy=\"150\" r=\"37\" fill=\"#000000\"/>\n"
			"</%s:svg>\n", x, x, x, x, x, x, x, x);
		snprintf(path, sizeof(path), "test-svg-prefix-%s.svg", x);
		write_text(path, text);
		snprintf(name, sizeof(name), "<%s:svg> root covering 1920x1080: drawn as rsvg-convert "
			"draws it", x);
		begin(name);
		struct result r = decode(path, 1920, 1080);
		if (expect_size(&r, 1920, 1440, 400, 300)) {
			check_colours(&r.image);
			compare_with_rsvg_convert(path, &r.image, 2);
		}
		result_finish(&r);
	}

	begin("<x:svgz> root: not SVG");
	write_text("test-svg-prefix-not.svg", "<?xml version=\"1.0\"?>\n"
		"<x:svgz xmlns:x=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>\n");
	int fd = open("test-svg-prefix-not.svg", O_RDONLY | O_CLOEXEC);
	if (CHECK(fd >= 0, "cannot open test-svg-prefix-not.svg")) {
		enum veil_media_kind kind = veil_media_sniff(fd, NULL);
		CHECK(kind != VEIL_MEDIA_SVG, "<x:svgz> sniffed as SVG");
		close(fd);
	}
}

/* A refusal with a sentence that says why (contains words), well within seconds. */
static void expect_refused(const char *path, int cover_width, int cover_height, int err,
		const char *words, double seconds) {
	struct result r = decode(path, cover_width, cover_height);
	if (CHECK(r.ret != 0, "drawn at %dx%d", r.image.width, r.image.height)) {
		CHECK(err == 0 || r.ret == err, "refused with %d, not %d (%s)", r.ret, err,
			r.message);
		CHECK(r.message != NULL && strstr(r.message, words) != NULL,
			"the sentence '%s' does not say '%s'", r.message, words);
		CHECK(r.image.data == NULL, "pixels left after a failure");
		fprintf(stderr, "  %s: \"%s\" in %.3f s\n", path, r.message, r.seconds);
	}
	CHECK(r.seconds <= seconds, "took %.2f s", r.seconds);
	result_finish(&r);
}

static void test_hostile(void) {
	write_text("test-svg-huge.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"1000000\" height=\"1000000\"><rect width=\"1000000\" height=\"1000000\" "
		"fill=\"#0000ff\"/></svg>");
	begin("1000000x1000000 canvas at its own size: refused, nothing allocated");
	expect_refused("test-svg-huge.svg", 0, 0, -EFBIG, "1000000x1000000", 5);

	begin("1000000x1000000 canvas covering 1920x1080: drawn at 1920x1920");
	struct result r = decode("test-svg-huge.svg", 1920, 1080);
	if (expect_size(&r, 1920, 1920, 1000000, 1000000)) {
		const uint8_t *p = pixel(&r.image, 960, 960);
		CHECK(p[0] == 255 && p[1] == 0 && p[2] == 0, "not blue");
	}
	result_finish(&r);

	write_text("test-svg-sliver.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"1000000\" height=\"10\"/>");
	begin("1000000x10 sliver covering 1920x1080: refused (108000000 pixels wide)");
	expect_refused("test-svg-sliver.svg", 1920, 1080, -EFBIG, "to cover 1920x1080", 5);

	/* Billion laughs: ten levels of ten, 10^9 "lol"s once expanded. */
	char laughs[4096];
	int n = snprintf(laughs, sizeof(laughs), "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n"
		"<!ENTITY lol0 \"lol\">\n");
	for (int i = 1; i < 10; i++) {
		n += snprintf(laughs + n, sizeof(laughs) - (size_t)n, "<!ENTITY lol%d \"", i);
		for (int j = 0; j < 10; j++) {
			n += snprintf(laughs + n, sizeof(laughs) - (size_t)n, "&lol%d;", i - 1);
		}
		n += snprintf(laughs + n, sizeof(laughs) - (size_t)n, "\">\n");
	}
	snprintf(laughs + n, sizeof(laughs) - (size_t)n, "]>\n<svg xmlns=\"http://www.w3.org/"
		"2000/svg\" width=\"100\" height=\"100\"><text y=\"50\">&lol9;</text></svg>\n");
	write_text("test-svg-laughs.svg", laughs);
	begin("billion laughs: refused by libxml2's entity limits, in under 2 s");
	expect_refused("test-svg-laughs.svg", 1920, 1080, -EINVAL, "corrupt SVG file", 2);

	/* 100000 nested groups: libxml2 stops at 256 levels. */
	size_t depth = 100000;
	size_t len = 128 + depth * 7 + 16;
	char *nested = malloc(len);
	size_t at = (size_t)snprintf(nested, len, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"100\" height=\"100\">");
	for (size_t i = 0; i < depth; i++) {
		memcpy(nested + at, "<g>", 3);
		at += 3;
	}
	for (size_t i = 0; i < depth; i++) {
		memcpy(nested + at, "</g>", 4);
		at += 4;
	}
	snprintf(nested + at, len - at, "</svg>");
	write_text("test-svg-nested.svg", nested);
	free(nested);
	begin("100000 nested <g>: refused, in under 2 s");
	expect_refused("test-svg-nested.svg", 1920, 1080, -EINVAL, "corrupt SVG file", 2);

	/* An external entity naming a file by its absolute path: librsvg defines none. */
	char cwd[1024], entity[2048];
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		exit(1);
	}
	write_text("test-svg-red.css", "rect { fill: #ff0000 !important; }\n");
	snprintf(entity, sizeof(entity), "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [<!ENTITY c "
		"SYSTEM \"file://%s/test-svg-red.css\">]>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"64\" height=\"64\"><style>&c;</style></svg>\n", cwd);
	write_text("test-svg-entity.svg", entity);
	begin("external entity of another file: refused, the file not read");
	expect_refused("test-svg-entity.svg", 0, 0, -EINVAL, "not defined", 2);

	write_text("test-svg-notxml.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect");
	begin("truncated SVG: refused as corrupt");
	expect_refused("test-svg-notxml.svg", 1920, 1080, -EINVAL, "corrupt SVG file", 2);
}

/*
 * References to other files are not followed: a red picture beside the document, referred to
 * by a relative path, an absolute path and a file: URL, over a green background, leaves it
 * green. (The same document through rsvg-convert, which gives librsvg a base, shows the red.)
 */
static void test_references(void) {
	if (!CHECK(system("convert -size 64x64 xc:'#ff0000' test-svg-red.png") == 0,
			"ImageMagick cannot write the red picture")) {
		return;
	}
	char cwd[1024];
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		exit(1);
	}
	/* How each names the picture: relative, by its absolute path, by a file: URL. */
	static const struct {
		const char *name, *prefix;
		bool absolute;
	} forms[] = {
		{ "relative", "", false },
		{ "absolute path", "", true },
		{ "file: URL", "file://", true },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char href[1200], text[4096];
		snprintf(href, sizeof(href), "%s%s%stest-svg-red.png", forms[i].prefix,
			forms[i].absolute ? cwd : "", forms[i].absolute ? "/" : "");
		snprintf(text, sizeof(text), "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"64\" height=\"64\">"
			"<rect width=\"64\" height=\"64\" fill=\"#00ff00\"/>"
			"<image width=\"64\" height=\"64\" href=\"%s\" xlink:href=\"%s\"/></svg>",
			href, href);
		write_text("test-svg-ref-file.svg", text);
		char name[160];
		snprintf(name, sizeof(name), "<image href> of another file (%s) is not read",
			forms[i].name);
		begin(name);
		struct result r = decode("test-svg-ref-file.svg", 0, 0);
		if (expect_size(&r, 64, 64, 64, 64)) {
			const uint8_t *p = pixel(&r.image, 32, 32);
			CHECK(p[0] == 0 && p[1] == 255 && p[2] == 0,
				"B, G, R %d, %d, %d: the referenced picture was read", p[0], p[1], p[2]);
		}
		result_finish(&r);
		/* The test is worth something only if the reference would have loaded. */
		CHECK(i != 0 || system("rsvg-convert -o test-svg-ref-file.png "
			"test-svg-ref-file.svg && test \"$(convert test-svg-ref-file.png "
			"-format '%[pixel:p{32,32}]' info:)\" = 'srgb(255,0,0)'") == 0,
			"rsvg-convert, given the base, does not show the red picture either");
	}
}

/*
 * The other ways a document names a file: a CSS @import (the style sheet would turn the square
 * red) and an XInclude (the included text would be a red square of its own), relative to the
 * document. Neither is read; rsvg-convert, which gives librsvg a base, reads both.
 */
static void test_other_references(void) {
	write_text("test-svg-red.css", "rect { fill: #ff0000 !important; }\n");
	write_text("test-svg-red-rect.svg", "<rect xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"64\" height=\"64\" fill=\"#ff0000\"/>\n");
	static const struct {
		const char *name, *text;
	} cases[] = {
		{ "CSS @import", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" "
			"height=\"64\"><style>@import url(\"test-svg-red.css\");</style>"
			"<rect width=\"64\" height=\"64\" fill=\"#00ff00\"/></svg>\n" },
		{ "XInclude", "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			"xmlns:xi=\"http://www.w3.org/2001/XInclude\" width=\"64\" height=\"64\">"
			"<rect width=\"64\" height=\"64\" fill=\"#00ff00\"/>"
			"<xi:include href=\"test-svg-red-rect.svg\"/></svg>\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[128];
		snprintf(name, sizeof(name), "%s of another file is not read", cases[i].name);
		begin(name);
		write_text("test-svg-other.svg", cases[i].text);
		struct result r = decode("test-svg-other.svg", 0, 0);
		if (expect_size(&r, 64, 64, 64, 64)) {
			const uint8_t *p = pixel(&r.image, 32, 32);
			CHECK(p[0] == 0 && p[1] == 255 && p[2] == 0,
				"B, G, R %d, %d, %d: the other file was read", p[0], p[1], p[2]);
		}
		result_finish(&r);
		CHECK(system("rsvg-convert -o test-svg-other.png test-svg-other.svg && "
			"test \"$(convert test-svg-other.png -format '%[pixel:p{32,32}]' "
			"info:)\" = 'srgb(255,0,0)'") == 0,
			"rsvg-convert, given the base, does not read the other file either");
	}
}

static void test_sizes(void) {
	begin("veil_svg_cover_size");
	static const struct {
		double width, height;
		int cover_width, cover_height;
		int64_t out_width, out_height;
	} cases[] = {
		{ 4096, 4096, 1920, 1080, 1920, 1920 },
		{ 4096, 4096, 3840, 2160, 3840, 3840 },
		{ 1920, 1080, 1920, 1080, 1920, 1080 },
		{ 1920.0000001, 1080, 1920, 1080, 1920, 1080 },
		{ 800, 600, 3840, 2160, 3840, 2880 },
		{ 1080, 1920, 1920, 1080, 1920, 3414 },
		{ 1e6, 1, 1920, 1080, 1080000000, 1080 },
		{ 1e300, 1, 1920, 1080, INT32_MAX, 1080 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t w = 0, h = 0;
		bool ok = veil_svg_cover_size(cases[i].width, cases[i].height,
			cases[i].cover_width, cases[i].cover_height, &w, &h);
		CHECK(ok && w == cases[i].out_width && h == cases[i].out_height,
			"%gx%g covering %dx%d: %" PRId64 "x%" PRId64 ", not %" PRId64 "x%" PRId64,
			cases[i].width, cases[i].height, cases[i].cover_width,
			cases[i].cover_height, w, h, cases[i].out_width, cases[i].out_height);
		int sw = 0, sh = 0;
		CHECK(w > VEIL_IMAGE_MAX_SIDE || h > VEIL_IMAGE_MAX_SIDE ||
			!veil_image_cover_size((int)w, (int)h, cases[i].cover_width,
			cases[i].cover_height, &sw, &sh),
			"%" PRId64 "x%" PRId64 " would be shrunk again, to %dx%d", w, h, sw, sh);
	}
	int64_t w, h;
	CHECK(!veil_svg_cover_size(0, 100, 1920, 1080, &w, &h) &&
		!veil_svg_cover_size(100, 100, 0, 1080, &w, &h), "a size of 0 has a cover size");
}

int main(void) {
	test_sizes();
	test_render();
	test_prefixed();
	test_hostile();
	test_references();
	test_other_references();
	return check_summary("svg");
}
