#include <assert.h>
#include <drm_fourcc.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/interface.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "tests/renderer/compat.h"
#include "tests/renderer/import_renderer.h"

/* What a late reader of a released mapping sees: bytes that decode to no sensible colour. */
#define POISON_BYTE 0xa5

/* One plane of a dmabuf format: bytes per sample and the subsampling of its grid. */
struct plane_desc {
	uint32_t cpp;
	uint32_t hsub, vsub;
};

enum format_kind {
	KIND_RGB, /* one plane, 32 bits a pixel, read as it is */
	KIND_SEMI_PLANAR, /* Y plane, then interleaved CbCr */
	KIND_PLANAR, /* Y, Cb, Cr planes */
};

struct format_desc {
	uint32_t format;
	enum format_kind kind;
	int n_planes;
	/* Significant bits of a sample, at the top of its little-endian container. */
	int bits;
	bool alpha;
	struct plane_desc planes[3];
};

/* What a driver would import; each with DRM_FORMAT_MOD_LINEAR only. */
static const struct format_desc formats[] = {
	{ DRM_FORMAT_NV12, KIND_SEMI_PLANAR, 2, 8, false, { { 1, 1, 1 }, { 2, 2, 2 } } },
	{ DRM_FORMAT_P010, KIND_SEMI_PLANAR, 2, 10, false, { { 2, 1, 1 }, { 4, 2, 2 } } },
	{ DRM_FORMAT_YUV420, KIND_PLANAR, 3, 8, false,
		{ { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } } },
	{ DRM_FORMAT_XRGB8888, KIND_RGB, 1, 8, false, { { 4, 1, 1 } } },
	{ DRM_FORMAT_ARGB8888, KIND_RGB, 1, 8, true, { { 4, 1, 1 } } },
};

/* Data-pointer (shm, still) formats: the two every compositor's wl_shm must have. */
static const uint32_t data_ptr_formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };

/* What the pixman renderer draws into. */
static const uint32_t render_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
};

struct import_renderer {
	struct wlr_renderer base;
	struct wlr_renderer *pixman;
	struct wlr_drm_format_set dmabuf_formats, data_ptr_formats, render_formats;
	struct wl_list textures; // import_texture.link
	struct import_renderer_stats stats;
	uint32_t formats_seen; // bit i: formats[i] was imported once already
	int last_yuv; // matrix * 2 + full range of the last YUV conversion, -1 before the first
	int last_space; // PQ * 2 + BT.2020 of the last texture, -1 before the first
};

struct plane_map {
	uint8_t *map; /* the whole fd, read-only, shared */
	size_t map_len;
	size_t offset;
	uint32_t stride;
	uint32_t width, height; /* in samples of this plane */
};

/* An XRGB8888/ARGB8888 wlr_buffer in our memory: what the pixman renderer samples. */
struct rgb_buffer {
	struct wlr_buffer base;
	uint32_t format;
	uint32_t stride;
	uint8_t *data;
};

struct import_texture {
	struct wlr_texture base;
	struct import_renderer *renderer; // NULL once the renderer is gone
	struct wl_list link; // import_renderer.textures, while not released
	struct wlr_buffer *buffer; // locked until released
	bool released;

	/* Data-pointer buffers: the pixman renderer's texture of the buffer. */
	struct wlr_texture *pixman_texture;

	/* Dmabufs. */
	const struct format_desc *desc;
	struct plane_map planes[3];
	uint64_t checksum;
	struct rgb_buffer *rgb;
	struct wlr_texture *rgb_texture;
};

struct import_pass {
	struct wlr_render_pass base;
	struct import_renderer *renderer;
	struct wlr_render_pass *pixman_pass;
};

static uint64_t violations;
static int strict = -1;

static void violation(const char *fmt, ...) _WLR_ATTRIB_PRINTF(1, 2);

static void violation(const char *fmt, ...) {
	char text[512];
	va_list args;
	va_start(args, fmt);
	vsnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	violations++;
	wlr_log(WLR_ERROR, "import renderer: VIOLATION #%" PRIu64 ": %s", violations, text);
	if (strict < 0) {
		const char *env = getenv("VEIL_IMPORT_STRICT");
		strict = env != NULL && strcmp(env, "1") == 0;
	}
	if (strict) {
		abort();
	}
}

uint64_t import_renderer_violations(void) {
	return violations;
}

void import_renderer_set_strict(bool value) {
	strict = value;
}

static const struct format_desc *find_format(uint32_t format) {
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i].format == format) {
			return &formats[i];
		}
	}
	return NULL;
}

static const struct wlr_renderer_impl renderer_impl;
static const struct wlr_texture_impl texture_impl;
static const struct wlr_render_pass_impl pass_impl;

bool import_renderer_is(struct wlr_renderer *wlr_renderer) {
	return wlr_renderer->WLR_PRIVATE.impl == &renderer_impl;
}

static struct import_renderer *renderer_from_wlr(struct wlr_renderer *wlr_renderer) {
	assert(import_renderer_is(wlr_renderer));
	struct import_renderer *renderer = wl_container_of(wlr_renderer, renderer, base);
	return renderer;
}

void import_renderer_get_stats(struct wlr_renderer *wlr_renderer,
		struct import_renderer_stats *stats) {
	*stats = renderer_from_wlr(wlr_renderer)->stats;
}

/* rgb_buffer */

static const struct wlr_buffer_impl rgb_buffer_impl;

static void rgb_buffer_destroy(struct wlr_buffer *wlr_buffer) {
	struct rgb_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	wlr_buffer_finish(wlr_buffer);
	free(buffer->data);
	free(buffer);
}

static bool rgb_buffer_begin_data_ptr_access(struct wlr_buffer *wlr_buffer, uint32_t flags,
		void **data, uint32_t *format, size_t *stride) {
	struct rgb_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	*data = buffer->data;
	*format = buffer->format;
	*stride = buffer->stride;
	return true;
}

static void rgb_buffer_end_data_ptr_access(struct wlr_buffer *wlr_buffer) {
	/* The pixels stay where they are. */
}

static const struct wlr_buffer_impl rgb_buffer_impl = {
	.destroy = rgb_buffer_destroy,
	.begin_data_ptr_access = rgb_buffer_begin_data_ptr_access,
	.end_data_ptr_access = rgb_buffer_end_data_ptr_access,
};

static struct rgb_buffer *rgb_buffer_create(int width, int height, uint32_t format) {
	struct rgb_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	buffer->format = format;
	buffer->stride = (uint32_t)width * 4;
	buffer->data = calloc(height, buffer->stride);
	if (buffer->data == NULL) {
		free(buffer);
		return NULL;
	}
	wlr_buffer_init(&buffer->base, &rgb_buffer_impl, width, height);
	return buffer;
}

/* Reading the planes */

static const uint8_t *plane_row(const struct plane_map *plane, uint32_t y) {
	return plane->map + plane->offset + (size_t)plane->stride * y;
}

/* FNV-1a over the bytes of the plane that hold samples (padding is nobody's business). */
static uint64_t checksum_planes(const struct import_texture *texture) {
	uint64_t hash = 0xcbf29ce484222325ull;
	for (int i = 0; i < texture->desc->n_planes; i++) {
		const struct plane_map *plane = &texture->planes[i];
		size_t row_len = (size_t)plane->width * texture->desc->planes[i].cpp;
		for (uint32_t y = 0; y < plane->height; y++) {
			const uint8_t *row = plane_row(plane, y);
			for (size_t x = 0; x < row_len; x++) {
				hash ^= row[x];
				hash *= 0x100000001b3ull;
			}
		}
	}
	return hash;
}

/* Reads sample x of a row: 8 bits, or the top bits of a little-endian 16-bit container. */
static int read_sample(const uint8_t *row, uint32_t x, int bits) {
	if (bits == 8) {
		return row[x];
	}
	uint16_t v = (uint16_t)(row[2 * x] | row[2 * x + 1] << 8);
	return v >> (16 - bits);
}

static uint8_t to_byte(double v) {
	if (v <= 0.0) {
		return 0;
	}
	if (v >= 1.0) {
		return 255;
	}
	return (uint8_t)(v * 255.0 + 0.5);
}

/*
 * YCbCr to R'G'B' as a GPU's sampler conversion does it: normalise with the range, then the
 * matrix of the luma coefficients Kr and Kb. Chroma is taken from the sample covering the pixel
 * (no filtering between chroma sites).
 */
static void convert_yuv(struct import_texture *texture, enum import_yuv_matrix matrix,
		bool full_range) {
	const struct format_desc *desc = texture->desc;
	double kr = 0.299, kb = 0.114;
	if (matrix == IMPORT_YUV_BT709) {
		kr = 0.2126;
		kb = 0.0722;
	} else if (matrix == IMPORT_YUV_BT2020) {
		kr = 0.2627;
		kb = 0.0593;
	}
	double kg = 1.0 - kr - kb;
	double scale = 1 << (desc->bits - 8);
	double max = (1 << desc->bits) - 1;
	double y_off = full_range ? 0.0 : 16.0 * scale;
	double y_div = full_range ? max : 219.0 * scale;
	double c_off = 128.0 * scale;
	double c_div = full_range ? max : 224.0 * scale;

	struct rgb_buffer *rgb = texture->rgb;
	const struct plane_map *luma = &texture->planes[0];
	for (uint32_t y = 0; y < luma->height; y++) {
		const uint8_t *y_row = plane_row(luma, y);
		const uint8_t *cb_row = plane_row(&texture->planes[1], y / 2);
		const uint8_t *cr_row = desc->kind == KIND_PLANAR ?
			plane_row(&texture->planes[2], y / 2) : NULL;
		uint32_t *out = (uint32_t *)(rgb->data + (size_t)rgb->stride * y);
		for (uint32_t x = 0; x < luma->width; x++) {
			int yv = read_sample(y_row, x, desc->bits);
			int cb, cr;
			if (desc->kind == KIND_SEMI_PLANAR) {
				cb = read_sample(cb_row, 2 * (x / 2), desc->bits);
				cr = read_sample(cb_row, 2 * (x / 2) + 1, desc->bits);
			} else {
				cb = read_sample(cb_row, x / 2, desc->bits);
				cr = read_sample(cr_row, x / 2, desc->bits);
			}
			double ey = (yv - y_off) / y_div;
			double pb = (cb - c_off) / c_div;
			double pr = (cr - c_off) / c_div;
			double r = ey + 2.0 * (1.0 - kr) * pr;
			double g = ey - 2.0 * kb * (1.0 - kb) / kg * pb - 2.0 * kr * (1.0 - kr) / kg * pr;
			double b = ey + 2.0 * (1.0 - kb) * pb;
			out[x] = 0xff000000u | (uint32_t)to_byte(r) << 16 |
				(uint32_t)to_byte(g) << 8 | to_byte(b);
		}
	}
}

static void copy_rgb(struct import_texture *texture) {
	const struct plane_map *plane = &texture->planes[0];
	for (uint32_t y = 0; y < plane->height; y++) {
		memcpy(texture->rgb->data + (size_t)texture->rgb->stride * y, plane_row(plane, y),
			(size_t)plane->width * 4);
	}
}

/*
 * Reads the dmabuf through its mappings into the RGB buffer the pixman renderer samples, as a
 * GPU reads it at every draw. The bytes must be those of the import: the buffer is locked.
 */
static void read_dmabuf(struct import_texture *texture, enum import_yuv_matrix matrix,
		bool full_range) {
	if (texture->desc->kind == KIND_RGB) {
		copy_rgb(texture);
	} else {
		convert_yuv(texture, matrix, full_range);
	}
	if (texture->renderer != NULL) {
		texture->renderer->stats.conversions++;
	}
	if (!texture->released && checksum_planes(texture) != texture->checksum) {
		violation("dmabuf %p (%.4s %ux%u) changed while a texture held it locked: its "
			"producer reused it too early", (void *)texture->buffer,
			(const char *)&texture->desc->format, texture->base.width, texture->base.height);
		texture->checksum = checksum_planes(texture);
	}
}

/* Textures */

static struct import_texture *texture_from_wlr(struct wlr_texture *wlr_texture) {
	assert(wlr_texture->impl == &texture_impl);
	struct import_texture *texture = wl_container_of(wlr_texture, texture, base);
	return texture;
}

/*
 * Replaces each mapping with anonymous pages full of POISON_BYTE, at the same address: whoever
 * reads through it after the release gets garbage rather than a frame that looks right.
 */
static void poison_mappings(struct import_texture *texture) {
	for (int i = 0; i < 3; i++) {
		struct plane_map *plane = &texture->planes[i];
		if (plane->map == NULL) {
			continue;
		}
		void *map = mmap(plane->map, plane->map_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (map == MAP_FAILED) {
			wlr_log_errno(WLR_ERROR, "import renderer: cannot poison a mapping");
			continue;
		}
		memset(map, POISON_BYTE, plane->map_len);
		mprotect(map, plane->map_len, PROT_READ);
	}
}

/*
 * Gives the buffer back: checks that its bytes did not change while we held it, poisons our
 * view of it (its producer may now write into it) and unlocks it. The texture object stays
 * until its owner destroys it.
 */
static void texture_release(struct import_texture *texture) {
	if (texture->released) {
		return;
	}
	if (texture->desc != NULL) {
		if (checksum_planes(texture) != texture->checksum) {
			violation("dmabuf %p (%.4s %ux%u) changed while a texture held it locked",
				(void *)texture->buffer, (const char *)&texture->desc->format,
				texture->base.width, texture->base.height);
		}
		poison_mappings(texture);
	}
	if (texture->pixman_texture != NULL) {
		wlr_texture_destroy(texture->pixman_texture);
		texture->pixman_texture = NULL;
	}
	if (texture->rgb_texture != NULL) {
		wlr_texture_destroy(texture->rgb_texture);
		texture->rgb_texture = NULL;
	}
	if (texture->rgb != NULL) {
		wlr_buffer_drop(&texture->rgb->base);
		texture->rgb = NULL;
	}
	wlr_buffer_unlock(texture->buffer);
	texture->buffer = NULL;
	wl_list_remove(&texture->link);
	wl_list_init(&texture->link);
	texture->released = true;
}

static void texture_destroy(struct wlr_texture *wlr_texture) {
	struct import_texture *texture = texture_from_wlr(wlr_texture);
	texture_release(texture);
	for (int i = 0; i < 3; i++) {
		if (texture->planes[i].map != NULL) {
			munmap(texture->planes[i].map, texture->planes[i].map_len);
		}
	}
	free(texture);
}

/* The pixman texture to draw for texture, up to date with its buffer; NULL once released. */
static struct wlr_texture *texture_get_pixman(struct import_texture *texture,
		enum import_yuv_matrix matrix, bool full_range) {
	if (texture->released) {
		return NULL;
	}
	if (texture->desc == NULL) {
		return texture->pixman_texture;
	}
	read_dmabuf(texture, matrix, full_range);
	return texture->rgb_texture;
}

static bool texture_read_pixels(struct wlr_texture *wlr_texture,
		const struct wlr_texture_read_pixels_options *options) {
	struct import_texture *texture = texture_from_wlr(wlr_texture);
	struct wlr_texture *pixman = texture_get_pixman(texture, IMPORT_YUV_BT601, false);
	return pixman != NULL && wlr_texture_read_pixels(pixman, options);
}

static uint32_t texture_preferred_read_format(struct wlr_texture *wlr_texture) {
	struct import_texture *texture = texture_from_wlr(wlr_texture);
	if (texture->pixman_texture != NULL) {
		return wlr_texture_preferred_read_format(texture->pixman_texture);
	}
	return DRM_FORMAT_XRGB8888;
}

static const struct wlr_texture_impl texture_impl = {
	.read_pixels = texture_read_pixels,
	.preferred_read_format = texture_preferred_read_format,
	.destroy = texture_destroy,
};

static struct import_texture *texture_create(struct import_renderer *renderer,
		struct wlr_buffer *buffer) {
	struct import_texture *texture = calloc(1, sizeof(*texture));
	if (texture == NULL) {
		wlr_log_errno(WLR_ERROR, "import renderer: allocation failed");
		return NULL;
	}
	wlr_texture_init(&texture->base, &renderer->base, &texture_impl, buffer->width,
		buffer->height);
	texture->renderer = renderer;
	wl_list_init(&texture->link);
	return texture;
}

/* Why a driver would refuse this dmabuf, or NULL when it imports it. */
static const char *check_dmabuf(const struct wlr_dmabuf_attributes *attribs,
		const struct format_desc *desc, off_t sizes[]) {
	if (desc == NULL) {
		return "format not advertised";
	}
	if (attribs->modifier != DRM_FORMAT_MOD_LINEAR) {
		return "modifier not advertised (linear only)";
	}
	if (attribs->n_planes != desc->n_planes) {
		return "wrong number of planes for the format";
	}
	if (attribs->width <= 0 || attribs->height <= 0 || attribs->width > 16384 ||
			attribs->height > 16384) {
		return "size out of range";
	}
	if (desc->kind != KIND_RGB && (attribs->width % 2 != 0 || attribs->height % 2 != 0)) {
		return "odd size for a subsampled format";
	}
	for (int i = 0; i < desc->n_planes; i++) {
		const struct plane_desc *pd = &desc->planes[i];
		if (attribs->fd[i] < 0) {
			return "plane without an fd";
		}
		/* How a driver learns a dmabuf's size; the fd's offset is nobody's. */
		sizes[i] = lseek(attribs->fd[i], 0, SEEK_END);
		if (sizes[i] < 0) {
			return "fd has no size (lseek failed)";
		}
		lseek(attribs->fd[i], 0, SEEK_SET);
		uint64_t row = (uint64_t)(attribs->width / pd->hsub) * pd->cpp;
		uint64_t rows = (uint64_t)(attribs->height / pd->vsub);
		if (attribs->stride[i] < row) {
			return "stride shorter than a row";
		}
		uint64_t end = (uint64_t)attribs->offset[i] +
			(uint64_t)attribs->stride[i] * (rows - 1) + row;
		if (end > (uint64_t)sizes[i]) {
			return "plane extends past the end of its fd";
		}
	}
	return NULL;
}

static struct wlr_texture *import_dmabuf(struct import_renderer *renderer,
		struct wlr_buffer *buffer, const struct wlr_dmabuf_attributes *attribs) {
	const struct format_desc *desc = find_format(attribs->format);
	off_t sizes[WLR_DMABUF_MAX_PLANES] = {0};
	const char *why = check_dmabuf(attribs, desc, sizes);
	if (why != NULL) {
		renderer->stats.dmabuf_refusals++;
		wlr_log(WLR_ERROR, "import renderer: refused dmabuf %.4s 0x%" PRIx64 " %dx%d, "
			"%d planes: %s", (const char *)&attribs->format, attribs->modifier,
			attribs->width, attribs->height, attribs->n_planes, why);
		return NULL;
	}

	struct import_texture *texture = texture_create(renderer, buffer);
	if (texture == NULL) {
		return NULL;
	}
	texture->desc = desc;
	for (int i = 0; i < desc->n_planes; i++) {
		struct plane_map *plane = &texture->planes[i];
		plane->map_len = (size_t)sizes[i];
		plane->map = mmap(NULL, plane->map_len, PROT_READ, MAP_SHARED, attribs->fd[i], 0);
		if (plane->map == MAP_FAILED) {
			plane->map = NULL;
			wlr_log_errno(WLR_ERROR, "import renderer: cannot map plane %d", i);
			renderer->stats.dmabuf_refusals++;
			goto error;
		}
		plane->offset = attribs->offset[i];
		plane->stride = attribs->stride[i];
		plane->width = (uint32_t)attribs->width / desc->planes[i].hsub;
		plane->height = (uint32_t)attribs->height / desc->planes[i].vsub;
	}
	texture->rgb = rgb_buffer_create(attribs->width, attribs->height,
		desc->alpha ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888);
	if (texture->rgb == NULL) {
		goto error;
	}
	texture->rgb_texture = wlr_texture_from_buffer(renderer->pixman, &texture->rgb->base);
	if (texture->rgb_texture == NULL) {
		goto error;
	}

	texture->checksum = checksum_planes(texture);
	texture->buffer = wlr_buffer_lock(buffer);
	wl_list_insert(&renderer->textures, &texture->link);
	renderer->stats.dmabuf_imports++;

	/* Once per format: tests read from the log that the dmabuf path ran, and with what. */
	uint32_t bit = 1u << (desc - formats);
	if (!(renderer->formats_seen & bit)) {
		renderer->formats_seen |= bit;
		wlr_log(WLR_INFO, "import renderer: first %.4s dmabuf imported: %dx%d, %d planes, "
			"strides %u/%u/%u, offsets %u/%u/%u", (const char *)&desc->format,
			attribs->width, attribs->height, attribs->n_planes, attribs->stride[0],
			attribs->stride[1], attribs->stride[2], attribs->offset[0], attribs->offset[1],
			attribs->offset[2]);
	}
	return &texture->base;

error:
	/* Not locked yet: release would unlock what we never locked. */
	texture->released = true;
	if (texture->rgb != NULL) {
		wlr_buffer_drop(&texture->rgb->base);
		texture->rgb = NULL;
	}
	texture_destroy(&texture->base);
	return NULL;
}

static bool is_data_ptr_format(uint32_t format) {
	for (size_t i = 0; i < sizeof(data_ptr_formats) / sizeof(data_ptr_formats[0]); i++) {
		if (data_ptr_formats[i] == format) {
			return true;
		}
	}
	return false;
}

static struct wlr_texture *wrap_data_ptr(struct import_renderer *renderer,
		struct wlr_buffer *buffer) {
	void *data;
	uint32_t format;
	size_t stride;
	if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data,
			&format, &stride)) {
		wlr_log(WLR_ERROR, "import renderer: buffer is neither a dmabuf nor readable data");
		return NULL;
	}
	wlr_buffer_end_data_ptr_access(buffer);
	if (!is_data_ptr_format(format)) {
		wlr_log(WLR_ERROR, "import renderer: refused data-pointer buffer in %.4s "
			"(only XRGB8888 and ARGB8888 are uploaded)", (const char *)&format);
		return NULL;
	}

	struct import_texture *texture = texture_create(renderer, buffer);
	if (texture == NULL) {
		return NULL;
	}
	texture->pixman_texture = wlr_texture_from_buffer(renderer->pixman, buffer);
	if (texture->pixman_texture == NULL) {
		free(texture);
		return NULL;
	}
	texture->buffer = wlr_buffer_lock(buffer);
	wl_list_insert(&renderer->textures, &texture->link);
	renderer->stats.data_ptr_textures++;
	return &texture->base;
}

/*
 * A dmabuf is imported, never read through a data pointer even when it has one: the point is
 * that its bytes go through its fds. Anything else must be data in an shm format.
 */
static struct wlr_texture *renderer_texture_from_buffer(struct wlr_renderer *wlr_renderer,
		struct wlr_buffer *buffer) {
	struct import_renderer *renderer = renderer_from_wlr(wlr_renderer);
	struct wlr_dmabuf_attributes attribs;
	if (wlr_buffer_get_dmabuf(buffer, &attribs)) {
		return import_dmabuf(renderer, buffer, &attribs);
	}
	return wrap_data_ptr(renderer, buffer);
}

/* Render passes: the pixman renderer's, fed with pixman textures. */

static struct import_pass *pass_from_wlr(struct wlr_render_pass *wlr_pass) {
	assert(wlr_pass->impl == &pass_impl);
	struct import_pass *pass = wl_container_of(wlr_pass, pass, base);
	return pass;
}

static bool pass_submit(struct wlr_render_pass *wlr_pass) {
	struct import_pass *pass = pass_from_wlr(wlr_pass);
	bool ok = wlr_render_pass_submit(pass->pixman_pass);
	free(pass);
	return ok;
}

static void pass_add_texture(struct wlr_render_pass *wlr_pass,
		const struct wlr_render_texture_options *options) {
	struct import_pass *pass = pass_from_wlr(wlr_pass);
	if (options->texture->impl != &texture_impl) {
		violation("a render pass was given a texture of another kind of renderer");
		return;
	}
	struct import_texture *texture = texture_from_wlr(options->texture);
	if (texture->renderer != pass->renderer) {
		violation("a render pass was given texture %p of another renderer%s",
			(void *)texture, texture->renderer == NULL ? " (destroyed)" : "");
	}

	enum import_yuv_matrix matrix;
	bool full_range;
	compat_get_yuv(options, &matrix, &full_range);
	if (texture->desc != NULL && texture->desc->kind != KIND_RGB &&
			pass->renderer->last_yuv != (int)matrix * 2 + full_range) {
		/* Said on each change: tests read which conversion veil's frames got. */
		static const char *names[] = { "BT.601", "BT.709", "BT.2020" };
		pass->renderer->last_yuv = (int)matrix * 2 + full_range;
		wlr_log(WLR_INFO, "import renderer: converting YUV as %s, %s range", names[matrix],
			full_range ? "full" : "limited");
	}
	bool pq, bt2020;
	compat_get_colour_space(options, &pq, &bt2020);
	if (pass->renderer->last_space != (int)pq * 2 + bt2020) {
		/* Said on each change: tests read what the scene told the renderer of HDR video. */
		pass->renderer->last_space = (int)pq * 2 + bt2020;
		wlr_log(WLR_INFO, "import renderer: transfer function %s, primaries %s",
			pq ? "PQ" : "sRGB", bt2020 ? "BT.2020" : "sRGB");
	}
	struct wlr_texture *pixman = texture->renderer == pass->renderer ?
		texture_get_pixman(texture, matrix, full_range) : NULL;
	if (pixman == NULL) {
		/* Drawn in magenta, so that the screenshot shows it too. */
		struct wlr_box box;
		wlr_render_texture_options_get_dst_box(options, &box);
		if (texture->released) {
			violation("a render pass read texture %p after its buffer was released",
				(void *)texture);
		}
		if (!wlr_box_empty(&box)) {
			wlr_render_pass_add_rect(pass->pixman_pass, &(struct wlr_render_rect_options){
				.box = box,
				.color = { .r = 1.0f, .g = 0.0f, .b = 1.0f, .a = 1.0f },
				.clip = options->clip,
			});
		}
		return;
	}
	struct wlr_render_texture_options pixman_options = *options;
	pixman_options.texture = pixman;
	compat_clear_yuv(&pixman_options);
	wlr_render_pass_add_texture(pass->pixman_pass, &pixman_options);
}

static void pass_add_rect(struct wlr_render_pass *wlr_pass,
		const struct wlr_render_rect_options *options) {
	struct import_pass *pass = pass_from_wlr(wlr_pass);
	wlr_render_pass_add_rect(pass->pixman_pass, options);
}

static const struct wlr_render_pass_impl pass_impl = {
	.submit = pass_submit,
	.add_texture = pass_add_texture,
	.add_rect = pass_add_rect,
};

static struct wlr_render_pass *renderer_begin_buffer_pass(struct wlr_renderer *wlr_renderer,
		struct wlr_buffer *buffer, const struct wlr_buffer_pass_options *options) {
	struct import_renderer *renderer = renderer_from_wlr(wlr_renderer);
	struct import_pass *pass = calloc(1, sizeof(*pass));
	if (pass == NULL) {
		return NULL;
	}
	pass->pixman_pass = wlr_renderer_begin_buffer_pass(renderer->pixman, buffer, options);
	if (pass->pixman_pass == NULL) {
		free(pass);
		return NULL;
	}
	wlr_render_pass_init(&pass->base, &pass_impl);
	pass->renderer = renderer;
	return &pass->base;
}

/* The renderer */

static const struct wlr_drm_format_set *renderer_get_texture_formats(
		struct wlr_renderer *wlr_renderer, uint32_t buffer_caps) {
	struct import_renderer *renderer = renderer_from_wlr(wlr_renderer);
	/*
	 * Asked for dmabufs (linux-dmabuf, veil's video caps): what the "driver" imports. Asked
	 * for data (wl_shm, stills): XRGB8888 and ARGB8888 only, no YUV, like a GPU's uploads.
	 */
	if (buffer_caps & WLR_BUFFER_CAP_DMABUF) {
		return &renderer->dmabuf_formats;
	}
	if (buffer_caps & WLR_BUFFER_CAP_DATA_PTR) {
		return &renderer->data_ptr_formats;
	}
	return NULL;
}

static const struct wlr_drm_format_set *renderer_get_render_formats(
		struct wlr_renderer *wlr_renderer) {
	struct import_renderer *renderer = renderer_from_wlr(wlr_renderer);
	return &renderer->render_formats;
}

static int renderer_get_drm_fd(struct wlr_renderer *wlr_renderer) {
	return -1;
}

static void renderer_destroy(struct wlr_renderer *wlr_renderer) {
	struct import_renderer *renderer = renderer_from_wlr(wlr_renderer);
	/*
	 * wlroots' users drop their textures when the renderer's destroy signal fires; those
	 * left are leaked. Like a lost GPU, we let go of their buffers now, and the objects stay
	 * (poisoned) for their owners to destroy.
	 */
	struct import_texture *texture, *tmp;
	wl_list_for_each_safe(texture, tmp, &renderer->textures, link) {
		violation("texture %p (%ux%u) outlives its renderer", (void *)texture,
			texture->base.width, texture->base.height);
		texture_release(texture);
		texture->renderer = NULL;
	}
	wlr_renderer_destroy(renderer->pixman);
	wlr_drm_format_set_finish(&renderer->dmabuf_formats);
	wlr_drm_format_set_finish(&renderer->data_ptr_formats);
	wlr_drm_format_set_finish(&renderer->render_formats);
	free(renderer);
}

static const struct wlr_renderer_impl renderer_impl = {
	.get_texture_formats = renderer_get_texture_formats,
	.get_render_formats = renderer_get_render_formats,
	.destroy = renderer_destroy,
	.get_drm_fd = renderer_get_drm_fd,
	.texture_from_buffer = renderer_texture_from_buffer,
	.begin_buffer_pass = renderer_begin_buffer_pass,
};

struct wlr_renderer *import_renderer_create(void) {
	struct import_renderer *renderer = calloc(1, sizeof(*renderer));
	if (renderer == NULL) {
		wlr_log_errno(WLR_ERROR, "import renderer: allocation failed");
		return NULL;
	}
	renderer->pixman = wlr_pixman_renderer_create();
	if (renderer->pixman == NULL) {
		free(renderer);
		return NULL;
	}
	wl_list_init(&renderer->textures);
	renderer->last_yuv = -1;
	renderer->last_space = -1;

	bool ok = true;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		ok = ok && wlr_drm_format_set_add(&renderer->dmabuf_formats, formats[i].format,
			DRM_FORMAT_MOD_LINEAR);
	}
	for (size_t i = 0; i < sizeof(data_ptr_formats) / sizeof(data_ptr_formats[0]); i++) {
		ok = ok && wlr_drm_format_set_add(&renderer->data_ptr_formats, data_ptr_formats[i],
			DRM_FORMAT_MOD_INVALID);
	}
	/* Render targets come from the shm allocator: implicit (INVALID) or linear layouts. */
	for (size_t i = 0; i < sizeof(render_formats) / sizeof(render_formats[0]); i++) {
		ok = ok && wlr_drm_format_set_add(&renderer->render_formats, render_formats[i],
			DRM_FORMAT_MOD_INVALID) &&
			wlr_drm_format_set_add(&renderer->render_formats, render_formats[i],
				DRM_FORMAT_MOD_LINEAR);
	}

	/* It renders into what pixman renders into: buffers with a data pointer. */
	wlr_renderer_init(&renderer->base, &renderer_impl, renderer->pixman->render_buffer_caps);
	compat_set_color_encodings(&renderer->base);
	if (!ok) {
		wlr_renderer_destroy(&renderer->base);
		return NULL;
	}
	wlr_log(WLR_INFO, "import renderer: imports linear NV12, P010, YUV420, XRGB8888, ARGB8888 "
		"dmabufs through their fds; composites with pixman");
	return &renderer->base;
}
