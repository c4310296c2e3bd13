/*
 * veil's own resampler for `filter smooth`: Lanczos-3, one axis at a time, in fixed point.
 * pixman's separable convolution takes every tap of both axes at each pixel (width x height
 * multiplications), several times slower for the same result (docs/measurements.md).
 */
#ifndef VEIL_UTIL_RESAMPLE_H
#define VEIL_UTIL_RESAMPLE_H

#include "util/image.h"

/*
 * Shrinks src into dst (no side larger than src's; dst's size, stride and pixels given by the
 * caller, its format src's). Opaque pixels stay opaque, premultiplied ones keep no colour
 * above their alpha. 0, -EINVAL for a dst larger than src, or -ENOMEM.
 */
int veil_resample_lanczos3(const struct veil_image *src, const struct veil_image *dst);

#endif
