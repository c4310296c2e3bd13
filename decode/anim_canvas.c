#include <stdint.h>
#include <string.h>
#include "decode/anim.h"

/*
 * What the three decoders share when they compose frames: clearing a frame's rectangle
 * (disposal to background: transparent, as browsers do) and putting a frame's pixels on the
 * canvas, replacing them (APNG's blend source) or over them (alpha blending).
 */

int veil_anim_delay(int64_t ms) {
	if (ms < VEIL_ANIM_MIN_DELAY_MS) {
		return VEIL_ANIM_SHORT_DELAY_MS;
	}
	/* A day is long enough for any frame; the timer takes an int of milliseconds. */
	return ms > 86400000 ? 86400000 : (int)ms;
}

/* Clips x, y, w, h to the canvas; false when nothing is left. */
static bool clip(int width, int height, int *x, int *y, int *w, int *h, int *skip_x,
		int *skip_y) {
	int64_t x0 = *x, y0 = *y, x1 = (int64_t)*x + *w, y1 = (int64_t)*y + *h;
	*skip_x = x0 < 0 ? (int)-x0 : 0;
	*skip_y = y0 < 0 ? (int)-y0 : 0;
	x0 = x0 < 0 ? 0 : x0;
	y0 = y0 < 0 ? 0 : y0;
	x1 = x1 > width ? width : x1;
	y1 = y1 > height ? height : y1;
	if (x1 <= x0 || y1 <= y0) {
		return false;
	}
	*x = (int)x0;
	*y = (int)y0;
	*w = (int)(x1 - x0);
	*h = (int)(y1 - y0);
	return true;
}

void veil_anim_clear_rect(uint8_t *canvas, int width, int height, int x, int y, int w, int h) {
	int skip_x, skip_y;
	if (!clip(width, height, &x, &y, &w, &h, &skip_x, &skip_y)) {
		return;
	}
	for (int row = 0; row < h; row++) {
		memset(canvas + ((size_t)(y + row) * (size_t)width + (size_t)x) * 4, 0,
			(size_t)w * 4);
	}
}

static inline uint8_t mul(unsigned a, unsigned b) {
	unsigned t = a * b + 128;
	return (uint8_t)((t + (t >> 8)) >> 8);
}

void veil_anim_put_rect(uint8_t *canvas, int width, int height, const uint8_t *frame, int x,
		int y, int w, int h, bool over) {
	int frame_w = w;
	int skip_x, skip_y;
	if (!clip(width, height, &x, &y, &w, &h, &skip_x, &skip_y)) {
		return;
	}
	for (int row = 0; row < h; row++) {
		const uint8_t *src = frame + ((size_t)(row + skip_y) * (size_t)frame_w +
			(size_t)skip_x) * 4;
		uint8_t *dst = canvas + ((size_t)(y + row) * (size_t)width + (size_t)x) * 4;
		for (int i = 0; i < w; i++, src += 4, dst += 4) {
			unsigned a = src[3];
			if (a == 255) {
				memcpy(dst, src, 4);
			} else if (!over) {
				dst[0] = mul(src[0], a);
				dst[1] = mul(src[1], a);
				dst[2] = mul(src[2], a);
				dst[3] = (uint8_t)a;
			} else if (a != 0) {
				/* Premultiplied over: dst = src * a + dst * (1 - a). */
				unsigned inv = 255 - a;
				dst[0] = (uint8_t)(mul(src[0], a) + mul(dst[0], inv));
				dst[1] = (uint8_t)(mul(src[1], a) + mul(dst[1], inv));
				dst[2] = (uint8_t)(mul(src[2], a) + mul(dst[2], inv));
				dst[3] = (uint8_t)(a + mul(dst[3], inv));
			}
		}
	}
}
