/*
 * A wlroots renderer for tests that imports dmabufs the way a GPU driver does, on machines
 * without a GPU. It advertises NV12, P010, YUV420, XRGB8888 and ARGB8888 dmabufs with the linear
 * modifier only, refuses what a driver refuses (plane count, offsets and strides past the end of
 * an fd, other modifiers, odd sizes of subsampled formats), reads the planes through mmap() of
 * their fds and converts YUV to RGB with the matrix and range of each render-pass texture.
 * Compositing is wlroots' pixman renderer's: data-pointer buffers (shm clients, veil's stills)
 * are its textures, converted dmabufs are handed to it as RGB.
 *
 * It watches the buffers it was given: a texture keeps its buffer locked; a dmabuf's bytes are
 * checksummed at import and must not change while the texture holds it; a texture used after
 * its renderer was destroyed, or one from another renderer, is a violation. Violations are
 * logged at error level and counted (import_renderer_violations()); with
 * VEIL_IMPORT_STRICT=1 in the environment the process aborts at the first.
 */
#ifndef TESTS_RENDERER_IMPORT_RENDERER_H
#define TESTS_RENDERER_IMPORT_RENDERER_H

#include <stdbool.h>
#include <stdint.h>

struct wlr_renderer;

enum import_yuv_matrix {
	IMPORT_YUV_BT601,
	IMPORT_YUV_BT709,
	IMPORT_YUV_BT2020,
};

struct import_renderer_stats {
	uint64_t dmabuf_imports; /* dmabuf textures made */
	uint64_t dmabuf_refusals; /* dmabufs refused at import */
	uint64_t data_ptr_textures; /* data-pointer (shm, still) textures made */
	uint64_t conversions; /* YUV or RGB dmabuf planes read and converted for a render pass */
};

struct wlr_renderer *import_renderer_create(void);
bool import_renderer_is(struct wlr_renderer *renderer);
/* Counters of one renderer; renderer must be an importing renderer. */
void import_renderer_get_stats(struct wlr_renderer *renderer,
	struct import_renderer_stats *stats);

/* Violations seen by every importing renderer of the process so far. */
uint64_t import_renderer_violations(void);
/* Whether a violation aborts the process (default: VEIL_IMPORT_STRICT=1 in the environment). */
void import_renderer_set_strict(bool strict);

#endif
