/*
 * veil's own resampler for `filter smooth`: Lanczos-3, one axis at a time, in fixed point.
 * pixman's separable convolution takes every tap of both axes at each pixel (width x height
 * multiplications), several times slower for the same result (docs/measurements.md).
 */
#ifndef VEIL_UTIL_RESAMPLE_H
#define VEIL_UTIL_RESAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "util/image.h"

/*
 * Shrinks src into dst (no side larger than src's; dst's size, stride and pixels given by the
 * caller, its format src's). Opaque pixels stay opaque, premultiplied ones keep no colour
 * above their alpha. 0, -EINVAL for a dst larger than src, or -ENOMEM.
 */
int veil_resample_lanczos3(const struct veil_image *src, const struct veil_image *dst);

/*
 * The same shrink, to the same pixels, fed the source rows one by one as a decoder makes them
 * (B, G, R, A premultiplied, src_width * 4 bytes each): it keeps only the rows the kernel spans
 * (6 * src_height / dst->height + 1, at most src_height), never the whole picture. Alpha is
 * kept as computed (ARGB8888); an opaque source gives 0xff everywhere, as the opaque shrink.
 * NULL for a dst larger than the source, or out of memory.
 */
struct veil_resample_rows *veil_resample_rows_create(int src_width, int src_height,
	const struct veil_image *dst);
void veil_resample_rows_destroy(struct veil_resample_rows *rows);
/* Where the next source row goes; then veil_resample_rows_push() makes what it completes. */
uint8_t *veil_resample_rows_next(struct veil_resample_rows *rows);
void veil_resample_rows_push(struct veil_resample_rows *rows);
/* Whether every row of dst is made (every source row was pushed). */
bool veil_resample_rows_done(const struct veil_resample_rows *rows);

#endif
