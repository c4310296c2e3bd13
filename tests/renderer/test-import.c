/*
 * The importing test renderer, on its own: which memfd dmabufs it imports and which it refuses,
 * whether its YUV to RGB conversion matches the textbook formulas (computed here in double
 * precision from the published coefficients, not from the renderer's Kr/Kb derivation), and
 * whether its use-after-release detector fires.
 */
#define _GNU_SOURCE
#include <drm_fourcc.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/pass.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/render/wlr_texture.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include <gst/allocators/allocators.h>
#include "tests/renderer/import_renderer.h"
#include "tests/renderer/memfd_allocator.h"
#include "tests/unit/check.h"
#include "veil-config.h"


/* A dmabuf over memfds, as a decoder's pool would hand it over. */
struct test_dmabuf {
	struct wlr_buffer base;
	struct wlr_dmabuf_attributes attribs;
	int own_fds[WLR_DMABUF_MAX_PLANES];
	int n_own_fds;
};

static void test_dmabuf_destroy(struct wlr_buffer *wlr_buffer) {
	struct test_dmabuf *buffer = wl_container_of(wlr_buffer, buffer, base);
	wlr_buffer_finish(wlr_buffer);
	for (int i = 0; i < buffer->n_own_fds; i++) {
		close(buffer->own_fds[i]);
	}
	free(buffer);
}

static bool test_dmabuf_get_dmabuf(struct wlr_buffer *wlr_buffer,
		struct wlr_dmabuf_attributes *attribs) {
	struct test_dmabuf *buffer = wl_container_of(wlr_buffer, buffer, base);
	*attribs = buffer->attribs;
	return true;
}

static const struct wlr_buffer_impl test_dmabuf_impl = {
	.destroy = test_dmabuf_destroy,
	.get_dmabuf = test_dmabuf_get_dmabuf,
};

static int make_memfd(size_t size) {
	int fd = memfd_create("test-dmabuf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("memfd");
		exit(1);
	}
	return fd;
}

/* The attributes are filled by the caller; fds listed in own are closed with the buffer. */
static struct test_dmabuf *test_dmabuf_create(int width, int height) {
	struct test_dmabuf *buffer = calloc(1, sizeof(*buffer));
	wlr_buffer_init(&buffer->base, &test_dmabuf_impl, width, height);
	buffer->attribs.width = width;
	buffer->attribs.height = height;
	buffer->attribs.modifier = DRM_FORMAT_MOD_LINEAR;
	return buffer;
}

static void own_fd(struct test_dmabuf *buffer, int fd) {
	buffer->own_fds[buffer->n_own_fds++] = fd;
}

/* A data-pointer XRGB8888 buffer to render into. */
struct target {
	struct wlr_buffer base;
	uint32_t *data;
	int width, height;
};

static void target_destroy(struct wlr_buffer *wlr_buffer) {
	struct target *target = wl_container_of(wlr_buffer, target, base);
	wlr_buffer_finish(wlr_buffer);
	free(target->data);
	free(target);
}

static bool target_begin(struct wlr_buffer *wlr_buffer, uint32_t flags, void **data,
		uint32_t *format, size_t *stride) {
	struct target *target = wl_container_of(wlr_buffer, target, base);
	*data = target->data;
	*format = DRM_FORMAT_XRGB8888;
	*stride = (size_t)target->width * 4;
	return true;
}

static void target_end(struct wlr_buffer *wlr_buffer) {
}

static const struct wlr_buffer_impl target_impl = {
	.destroy = target_destroy,
	.begin_data_ptr_access = target_begin,
	.end_data_ptr_access = target_end,
};

static struct target *target_create(int width, int height) {
	struct target *target = calloc(1, sizeof(*target));
	target->data = calloc((size_t)width * height, 4);
	target->width = width;
	target->height = height;
	wlr_buffer_init(&target->base, &target_impl, width, height);
	return target;
}

enum matrix { M601, M709, M2020 };

/* Draws texture 1:1 into target with the given YCbCr settings (0.20; 0.19 has none). */
static bool draw(struct wlr_renderer *renderer, struct target *target,
		struct wlr_texture *texture, enum matrix matrix, bool full) {
	struct wlr_render_pass *pass = wlr_renderer_begin_buffer_pass(renderer, &target->base,
		NULL);
	if (pass == NULL) {
		return false;
	}
	struct wlr_render_texture_options options = {
		.texture = texture,
		.blend_mode = WLR_RENDER_BLEND_MODE_NONE,
	};
#if VEIL_WLR_MINOR >= 20
	options.color_encoding = matrix == M709 ? WLR_COLOR_ENCODING_BT709 :
		matrix == M2020 ? WLR_COLOR_ENCODING_BT2020 : WLR_COLOR_ENCODING_BT601;
	options.color_range = full ? WLR_COLOR_RANGE_FULL : WLR_COLOR_RANGE_LIMITED;
#else
	(void)matrix;
	(void)full;
#endif
	wlr_render_pass_add_texture(pass, &options);
	return wlr_render_pass_submit(pass);
}

/*
 * The published YCbCr to R'G'B' equations for 8-bit samples: limited range with the 255/219 and
 * 255/224 scalings folded into the coefficients, full range with Y and Cb, Cr - 128 in 0..255.
 */
static void reference_rgb(enum matrix matrix, bool full, double y, double cb, double cr,
		int rgb[3]) {
	static const double coeffs[3][2][4] = {
		/* R from Cr, G from Cb, G from Cr, B from Cb; [limited, full] */
		[M601] = { { 1.596027, 0.391762, 0.812968, 2.017232 },
			{ 1.402, 0.344136, 0.714136, 1.772 } },
		[M709] = { { 1.792741, 0.213249, 0.532909, 2.112402 },
			{ 1.5748, 0.187324, 0.468124, 1.8556 } },
		[M2020] = { { 1.678674, 0.187326, 0.650424, 2.141772 },
			{ 1.4746, 0.164553, 0.571353, 1.8814 } },
	};
	const double *k = coeffs[matrix][full];
	double yy = full ? y : 1.164384 * (y - 16.0);
	double pb = cb - 128.0, pr = cr - 128.0;
	double v[3] = {
		yy + k[0] * pr,
		yy - k[1] * pb - k[2] * pr,
		yy + k[3] * pb,
	};
	for (int i = 0; i < 3; i++) {
		rgb[i] = (int)lround(fmin(255.0, fmax(0.0, v[i])));
	}
}

static uint32_t rng_state = 12345;

static uint32_t rng(void) {
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 16;
}

#define W 64
#define H 32

struct yuv_frame {
	uint8_t y[H][W];
	uint8_t cb[H / 2][W / 2], cr[H / 2][W / 2];
};

static void random_frame(struct yuv_frame *f) {
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			f->y[y][x] = (uint8_t)(rng() % 256);
		}
	}
	for (int y = 0; y < H / 2; y++) {
		for (int x = 0; x < W / 2; x++) {
			f->cb[y][x] = (uint8_t)(rng() % 256);
			f->cr[y][x] = (uint8_t)(rng() % 256);
		}
	}
}

/* NV12 in one memfd: Y at 0 with a padded stride, CbCr at a page-aligned offset. */
static struct test_dmabuf *make_nv12(const struct yuv_frame *f) {
	const uint32_t stride = W + 32, uv_offset = 8192;
	size_t size = uv_offset + (size_t)stride * H / 2;
	int fd = make_memfd(size);
	uint8_t *map = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
	for (int y = 0; y < H; y++) {
		memcpy(map + (size_t)y * stride, f->y[y], W);
	}
	for (int y = 0; y < H / 2; y++) {
		for (int x = 0; x < W / 2; x++) {
			map[uv_offset + (size_t)y * stride + 2 * x] = f->cb[y][x];
			map[uv_offset + (size_t)y * stride + 2 * x + 1] = f->cr[y][x];
		}
	}
	munmap(map, size);
	struct test_dmabuf *buffer = test_dmabuf_create(W, H);
	buffer->attribs.format = DRM_FORMAT_NV12;
	buffer->attribs.n_planes = 2;
	buffer->attribs.fd[0] = buffer->attribs.fd[1] = fd;
	buffer->attribs.stride[0] = buffer->attribs.stride[1] = stride;
	buffer->attribs.offset[1] = uv_offset;
	own_fd(buffer, fd);
	return buffer;
}

/* P010: the 8-bit values shifted to 10 bits, at the top of 16-bit little-endian words. */
static struct test_dmabuf *make_p010(const struct yuv_frame *f) {
	const uint32_t stride = W * 2;
	size_t y_size = (size_t)stride * H, uv_size = (size_t)stride * H / 2;
	int fd = make_memfd(y_size + uv_size);
	uint16_t *map = mmap(NULL, y_size + uv_size, PROT_WRITE, MAP_SHARED, fd, 0);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			map[y * W + x] = (uint16_t)(f->y[y][x] << 2 << 6);
		}
	}
	uint16_t *uv = map + y_size / 2;
	for (int y = 0; y < H / 2; y++) {
		for (int x = 0; x < W / 2; x++) {
			uv[y * W + 2 * x] = (uint16_t)(f->cb[y][x] << 2 << 6);
			uv[y * W + 2 * x + 1] = (uint16_t)(f->cr[y][x] << 2 << 6);
		}
	}
	munmap(map, y_size + uv_size);
	struct test_dmabuf *buffer = test_dmabuf_create(W, H);
	buffer->attribs.format = DRM_FORMAT_P010;
	buffer->attribs.n_planes = 2;
	buffer->attribs.fd[0] = buffer->attribs.fd[1] = fd;
	buffer->attribs.stride[0] = buffer->attribs.stride[1] = stride;
	buffer->attribs.offset[1] = y_size;
	own_fd(buffer, fd);
	return buffer;
}

/* YUV420 with each plane in an fd of its own. */
static struct test_dmabuf *make_yuv420(const struct yuv_frame *f) {
	struct test_dmabuf *buffer = test_dmabuf_create(W, H);
	buffer->attribs.format = DRM_FORMAT_YUV420;
	buffer->attribs.n_planes = 3;
	const uint8_t *planes[3] = { &f->y[0][0], &f->cb[0][0], &f->cr[0][0] };
	for (int i = 0; i < 3; i++) {
		int w = i == 0 ? W : W / 2, h = i == 0 ? H : H / 2;
		int fd = make_memfd((size_t)w * h + 100);
		uint8_t *map = mmap(NULL, (size_t)w * h + 100, PROT_WRITE, MAP_SHARED, fd, 0);
		memcpy(map + 100, planes[i], (size_t)w * h);
		munmap(map, (size_t)w * h + 100);
		buffer->attribs.fd[i] = fd;
		buffer->attribs.offset[i] = 100;
		buffer->attribs.stride[i] = w;
		own_fd(buffer, fd);
	}
	return buffer;
}

static struct test_dmabuf *make_rgb(uint32_t format, int width, int height, uint32_t pixel) {
	size_t size = (size_t)width * height * 4;
	int fd = make_memfd(size);
	uint32_t *map = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
	for (size_t i = 0; i < size / 4; i++) {
		map[i] = pixel;
	}
	munmap(map, size);
	struct test_dmabuf *buffer = test_dmabuf_create(width, height);
	buffer->attribs.format = format;
	buffer->attribs.n_planes = 1;
	buffer->attribs.fd[0] = fd;
	buffer->attribs.stride[0] = width * 4;
	own_fd(buffer, fd);
	return buffer;
}

/* Imports buffer and says whether it was taken; the buffer is dropped either way. */
static bool imports(struct wlr_renderer *renderer, struct test_dmabuf *buffer) {
	struct wlr_texture *texture = wlr_texture_from_buffer(renderer, &buffer->base);
	bool ok = texture != NULL;
	if (texture != NULL) {
		wlr_texture_destroy(texture);
	}
	wlr_buffer_drop(&buffer->base);
	return ok;
}

static void test_formats(struct wlr_renderer *renderer) {
	const struct wlr_drm_format_set *dmabuf =
		wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
	const uint32_t expected[] = { DRM_FORMAT_NV12, DRM_FORMAT_P010, DRM_FORMAT_YUV420,
		DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	CHECK(dmabuf != NULL && dmabuf->len == 5);
	for (size_t i = 0; dmabuf != NULL && i < 5; i++) {
		const struct wlr_drm_format *fmt = wlr_drm_format_set_get(dmabuf, expected[i]);
		CHECK(fmt != NULL && fmt->len == 1 && fmt->modifiers[0] == DRM_FORMAT_MOD_LINEAR,
			"%.4s", (const char *)&expected[i]);
	}
	const struct wlr_drm_format_set *data =
		wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DATA_PTR);
	CHECK(data != NULL && data->len == 2 &&
		wlr_drm_format_set_get(data, DRM_FORMAT_XRGB8888) != NULL &&
		wlr_drm_format_set_get(data, DRM_FORMAT_ARGB8888) != NULL &&
		wlr_drm_format_set_get(data, DRM_FORMAT_NV12) == NULL);
	CHECK(wlr_renderer_get_drm_fd(renderer) < 0);
}

static void test_imports_and_refusals(struct wlr_renderer *renderer) {
	struct yuv_frame f;
	random_frame(&f);
	CHECK(imports(renderer, make_nv12(&f)));
	CHECK(imports(renderer, make_p010(&f)));
	CHECK(imports(renderer, make_yuv420(&f)));
	CHECK(imports(renderer, make_rgb(DRM_FORMAT_XRGB8888, 7, 5, 0xff102030)));
	CHECK(imports(renderer, make_rgb(DRM_FORMAT_ARGB8888, 8, 8, 0x80402010)));

	struct test_dmabuf *b;
	/* Wrong plane counts. */
	b = make_nv12(&f);
	b->attribs.n_planes = 1;
	CHECK(!imports(renderer, b), "NV12 with one plane");
	b = make_yuv420(&f);
	b->attribs.n_planes = 2;
	CHECK(!imports(renderer, b), "YUV420 with two planes");
	b = make_rgb(DRM_FORMAT_XRGB8888, 8, 8, 0);
	b->attribs.n_planes = 2;
	b->attribs.fd[1] = b->attribs.fd[0];
	b->attribs.stride[1] = 32;
	CHECK(!imports(renderer, b), "XRGB8888 with two planes");
	/* Offsets, strides and sizes past the end of the fd. */
	b = make_nv12(&f);
	b->attribs.offset[1] = 1 << 20;
	CHECK(!imports(renderer, b), "chroma offset past the end");
	b = make_nv12(&f);
	b->attribs.offset[1] += 33;
	CHECK(!imports(renderer, b), "chroma's last row one byte past the end");
	b = make_nv12(&f);
	b->attribs.stride[0] = W - 1;
	CHECK(!imports(renderer, b), "stride shorter than a row");
	b = make_nv12(&f);
	b->attribs.stride[1] = 1 << 16;
	CHECK(!imports(renderer, b), "stride making the plane larger than the fd");
	b = make_yuv420(&f);
	b->attribs.offset[2] = 0xfffffff0u;
	CHECK(!imports(renderer, b), "offset near 4 GiB");
	b = make_rgb(DRM_FORMAT_XRGB8888, 8, 8, 0);
	b->attribs.height = 9;
	CHECK(!imports(renderer, b), "height larger than the fd holds");
	/* Modifiers and formats not advertised. */
	b = make_nv12(&f);
	b->attribs.modifier = DRM_FORMAT_MOD_INVALID;
	CHECK(!imports(renderer, b), "implicit modifier");
	b = make_nv12(&f);
	b->attribs.modifier = I915_FORMAT_MOD_Y_TILED;
	CHECK(!imports(renderer, b), "tiled modifier");
	b = make_rgb(DRM_FORMAT_XRGB8888, 8, 8, 0);
	b->attribs.modifier = DRM_FORMAT_MOD_VENDOR_NONE + 12345;
	CHECK(!imports(renderer, b), "unknown modifier");
	b = make_rgb(DRM_FORMAT_XRGB8888, 8, 8, 0);
	b->attribs.format = DRM_FORMAT_RGB565;
	CHECK(!imports(renderer, b), "RGB565 not advertised");
	b = make_nv12(&f);
	b->attribs.format = DRM_FORMAT_NV21;
	CHECK(!imports(renderer, b), "NV21 not advertised");
	/* Odd sizes of subsampled formats (the fd is large enough for them). */
	b = make_nv12(&f);
	b->attribs.width = W - 1;
	CHECK(!imports(renderer, b), "NV12 odd width");
	b = make_yuv420(&f);
	b->attribs.height = H - 1;
	CHECK(!imports(renderer, b), "YUV420 odd height");
	/* A plane without an fd. */
	b = make_yuv420(&f);
	b->attribs.fd[1] = -1;
	CHECK(!imports(renderer, b), "plane without fd");
	b = make_nv12(&f);
	b->attribs.width = 0;
	CHECK(!imports(renderer, b), "zero width");

	struct import_renderer_stats stats;
	import_renderer_get_stats(renderer, &stats);
	CHECK(stats.dmabuf_imports == 5 && stats.dmabuf_refusals == 18,
		"%llu imports, %llu refusals", (unsigned long long)stats.dmabuf_imports,
		(unsigned long long)stats.dmabuf_refusals);
}

/* Converts f through the renderer and compares every pixel with the reference. */
static void check_conversion(struct wlr_renderer *renderer, struct test_dmabuf *buffer,
		const struct yuv_frame *f, enum matrix matrix, bool full, const char *what) {
	struct target *target = target_create(W, H);
	struct wlr_texture *texture = wlr_texture_from_buffer(renderer, &buffer->base);
	CHECK(texture != NULL, "%s", what);
	if (texture == NULL) {
		wlr_buffer_drop(&target->base);
		wlr_buffer_drop(&buffer->base);
		return;
	}
	CHECK(draw(renderer, target, texture, matrix, full), "%s", what);
	int worst = 0, worst_x = 0, worst_y = 0;
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			int ref[3];
			reference_rgb(matrix, full, f->y[y][x], f->cb[y / 2][x / 2], f->cr[y / 2][x / 2],
				ref);
			uint32_t px = target->data[y * W + x];
			int got[3] = { (int)(px >> 16 & 0xff), (int)(px >> 8 & 0xff), (int)(px & 0xff) };
			for (int c = 0; c < 3; c++) {
				if (abs(got[c] - ref[c]) > worst) {
					worst = abs(got[c] - ref[c]);
					worst_x = x;
					worst_y = y;
				}
			}
		}
	}
	CHECK(worst <= 2, "%s: off by %d at %d,%d", what, worst, worst_x, worst_y);
	wlr_texture_destroy(texture);
	wlr_buffer_drop(&target->base);
	wlr_buffer_drop(&buffer->base);
}

static void test_conversion(struct wlr_renderer *renderer) {
	struct yuv_frame f;
	random_frame(&f);
	static const char *names[] = { "BT.601", "BT.709", "BT.2020" };
#if VEIL_WLR_MINOR >= 20
	const int n_matrices = 3;
#else
	/* 0.19 can't say: everything is BT.601, limited. */
	const int n_matrices = 1;
#endif
	for (int m = 0; m < n_matrices; m++) {
		for (int full = 0; full < (VEIL_WLR_MINOR >= 20 ? 2 : 1); full++) {
			char what[64];
			snprintf(what, sizeof(what), "NV12 %s %s", names[m], full ? "full" : "limited");
			check_conversion(renderer, make_nv12(&f), &f, m, full, what);
			snprintf(what, sizeof(what), "YUV420 %s %s", names[m], full ? "full" : "limited");
			check_conversion(renderer, make_yuv420(&f), &f, m, full, what);
		}
		char what[64];
		snprintf(what, sizeof(what), "P010 %s limited", names[m]);
		check_conversion(renderer, make_p010(&f), &f, m, false, what);
	}

	/* RGB dmabufs are read as they are. */
	struct target *target = target_create(8, 8);
	struct test_dmabuf *rgb = make_rgb(DRM_FORMAT_XRGB8888, 8, 8, 0x00123456);
	struct wlr_texture *texture = wlr_texture_from_buffer(renderer, &rgb->base);
	CHECK(texture != NULL && draw(renderer, target, texture, M601, false) &&
		(target->data[9] & 0xffffff) == 0x123456, "%08x", target->data[9]);
	if (texture != NULL) {
		wlr_texture_destroy(texture);
	}
	wlr_buffer_drop(&rgb->base);
	wlr_buffer_drop(&target->base);
}

static void test_use_after_release(void) {
	struct wlr_renderer *renderer = import_renderer_create();
	struct yuv_frame f;
	random_frame(&f);

	/* The texture holds the buffer locked, and lets go of it when destroyed. */
	struct test_dmabuf *buffer = make_nv12(&f);
	struct wlr_texture *texture = wlr_texture_from_buffer(renderer, &buffer->base);
	CHECK(texture != NULL && buffer->base.n_locks == 1);
	uint64_t before = import_renderer_violations();
	wlr_texture_destroy(texture);
	CHECK(buffer->base.n_locks == 0 && import_renderer_violations() == before);
	wlr_buffer_drop(&buffer->base);

	/* A producer writing into a buffer a texture still holds: seen at release... */
	buffer = make_nv12(&f);
	texture = wlr_texture_from_buffer(renderer, &buffer->base);
	uint8_t *map = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, buffer->attribs.fd[0], 0);
	map[5] ^= 0xff;
	before = import_renderer_violations();
	wlr_texture_destroy(texture);
	CHECK(import_renderer_violations() == before + 1, "write while locked, at release");
	wlr_buffer_drop(&buffer->base);

	/* ...and at the draw that reads it. */
	buffer = make_nv12(&f);
	texture = wlr_texture_from_buffer(renderer, &buffer->base);
	munmap(map, 4096);
	map = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, buffer->attribs.fd[0], 0);
	map[7] ^= 0xff;
	struct target *target = target_create(W, H);
	before = import_renderer_violations();
	draw(renderer, target, texture, M601, false);
	CHECK(import_renderer_violations() == before + 1, "write while locked, at draw");
	wlr_texture_destroy(texture);
	CHECK(import_renderer_violations() == before + 1, "reported once");
	munmap(map, 4096);
	wlr_buffer_drop(&buffer->base);

	/*
	 * A texture that outlives its renderer: its buffer is released (unlocked, our mapping
	 * poisoned); drawing it later is a late read, drawn magenta.
	 */
	buffer = make_nv12(&f);
	texture = wlr_texture_from_buffer(renderer, &buffer->base);
	before = import_renderer_violations();
	wlr_renderer_destroy(renderer);
	CHECK(import_renderer_violations() == before + 1 && buffer->base.n_locks == 0,
		"texture outliving its renderer");
	struct wlr_renderer *other = import_renderer_create();
	before = import_renderer_violations();
	draw(other, target, texture, M601, false);
	CHECK(import_renderer_violations() == before + 2, "late read of a released texture: %d",
		(int)(import_renderer_violations() - before));
	CHECK((target->data[3 * W + 3] & 0xffffff) == 0xff00ff, "%08x", target->data[3 * W + 3]);
	wlr_texture_destroy(texture);
	wlr_buffer_drop(&buffer->base);
	wlr_buffer_drop(&target->base);
	wlr_renderer_destroy(other);
}

/*
 * The memfd allocator: dmabuf memories over memfds of the size asked (with prefix and padding),
 * sealed against shrinking, writable through GStreamer's mapping and readable through the fd;
 * registered, it is found by name.
 */
static void test_memfd_allocator(void) {
	gst_init(NULL, NULL);
	GstAllocator *allocator = memfd_dmabuf_allocator_new();
	GstAllocationParams params;
	gst_allocation_params_init(&params);
	params.prefix = 64;
	params.padding = 32;
	GstMemory *mem = gst_allocator_alloc(allocator, 10000, &params);
	CHECK(mem != NULL && gst_is_dmabuf_memory(mem));
	if (mem != NULL) {
		int fd = gst_dmabuf_memory_get_fd(mem);
		CHECK(lseek(fd, 0, SEEK_END) == 64 + 10000 + 32 && mem->offset == 64 &&
			mem->size == 10000);
		CHECK((fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK) != 0);
		GstMapInfo map;
		if (gst_memory_map(mem, &map, GST_MAP_WRITE)) {
			memset(map.data, 0x5a, map.size);
			gst_memory_unmap(mem, &map);
		}
		uint8_t byte = 0;
		CHECK(pread(fd, &byte, 1, 64 + 9999) == 1 && byte == 0x5a);
		gst_memory_unref(mem);
	}
	gst_object_unref(allocator);

	CHECK(memfd_dmabuf_allocator_register("test-memfd-pool"));
	GstAllocator *found = gst_allocator_find("test-memfd-pool");
	CHECK(found != NULL && GST_IS_DMABUF_ALLOCATOR(found));
	if (found != NULL) {
		gst_object_unref(found);
	}
}

int main(void) {
	wlr_log_init(WLR_INFO, NULL);
	import_renderer_set_strict(false);
	struct wlr_renderer *renderer = import_renderer_create();
	if (renderer == NULL) {
		fprintf(stderr, "cannot create the importing renderer\n");
		return 1;
	}
	test_formats(renderer);
	test_imports_and_refusals(renderer);
	test_conversion(renderer);
	CHECK(import_renderer_violations() == 0);
	wlr_renderer_destroy(renderer);
	test_use_after_release();
	test_memfd_allocator();
	return check_summary("import");
}
