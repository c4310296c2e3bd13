/*
 * util/palette.c on pictures made here: a solid colour gives exactly it; two, three or five
 * flat colours give exactly those, most pixels first; fully transparent pixels are left out
 * and premultiplied ones made straight; a noisy picture gives five colours, the same twice;
 * a picture with no opaque pixel gives none.
 */
#include <drm_fourcc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "util/image.h"
#include "util/palette.h"

#define SIDE 64

static uint32_t pixels[SIDE * SIDE];

static struct veil_image image_of(uint32_t format) {
	return (struct veil_image){
		.width = SIDE,
		.height = SIDE,
		.stride = SIDE * 4,
		.drm_format = format,
		.data = pixels,
	};
}

/* Columns [0, widths[0]) of colours[0], then the next, ... */
static void columns(const uint32_t *colours, const int *widths, int n) {
	for (int y = 0; y < SIDE; y++) {
		int x = 0;
		for (int i = 0; i < n; i++) {
			for (int k = 0; k < widths[i] && x < SIDE; k++, x++) {
				pixels[y * SIDE + x] = 0xff000000u | colours[i];
			}
		}
	}
}

static void check_exact(const uint32_t *colours, const int *widths, int n, int line) {
	columns(colours, widths, n);
	struct veil_image image = image_of(DRM_FORMAT_XRGB8888);
	struct veil_palette palette;
	CHECK_LINE(line, veil_palette_compute(&image, &palette) == 0);
	CHECK_LINE(line, palette.n == n, "%d colours, not %d", palette.n, n);
	for (int i = 0; i < n && i < palette.n; i++) {
		CHECK_LINE(line, palette.colors[i] == colours[i], "colour %d: %06x, not %06x", i,
			palette.colors[i], colours[i]);
	}
}

int main(void) {
	check_exact((const uint32_t[]){ 0x0c964d }, (const int[]){ SIDE }, 1, __LINE__);
	check_exact((const uint32_t[]){ 0xe6c814, 0x142878 }, (const int[]){ 40, 24 }, 2,
		__LINE__);
	check_exact((const uint32_t[]){ 0x203040, 0xffffff, 0x000000 },
		(const int[]){ 30, 20, 14 }, 3, __LINE__);
	check_exact((const uint32_t[]){ 0xc83c28, 0x2878c8, 0xf0dc5a, 0x1ea046, 0x783296 },
		(const int[]){ 22, 16, 13, 8, 5 }, 5, __LINE__);

	/* Transparent pixels: none counted; half-transparent ones made straight. */
	for (int i = 0; i < SIDE * SIDE; i++) {
		pixels[i] = i % 2 == 0 ? 0x00000000u : 0x80402010u; /* 0x804020 at alpha 0x80 */
	}
	struct veil_image image = image_of(DRM_FORMAT_ARGB8888);
	struct veil_palette palette;
	CHECK(veil_palette_compute(&image, &palette) == 0);
	CHECK(palette.n == 1 && palette.colors[0] == 0x804020, "%d colours, %06x", palette.n,
		palette.colors[0]);
	memset(pixels, 0, sizeof(pixels));
	CHECK(veil_palette_compute(&image, &palette) == 0 && palette.n == 0,
		"a picture with no opaque pixel: %d colours", palette.n);

	/* Noise: five colours, twice the same. */
	srand(31);
	for (int i = 0; i < SIDE * SIDE; i++) {
		pixels[i] = 0xff000000u | ((uint32_t)rand() & 0xffffff);
	}
	image = image_of(DRM_FORMAT_XRGB8888);
	struct veil_palette again;
	CHECK(veil_palette_compute(&image, &palette) == 0 && palette.n == 5);
	CHECK(veil_palette_compute(&image, &again) == 0 && memcmp(&palette, &again,
		sizeof(palette)) == 0, "the same picture, the same palette");
	return check_summary("palette");
}
