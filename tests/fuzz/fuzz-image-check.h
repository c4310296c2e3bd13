/* The contract of a decoded veil_image (decode/image.h), checked on every pixel. */
#ifndef VEIL_FUZZ_IMAGE_CHECK_H
#define VEIL_FUZZ_IMAGE_CHECK_H

#include <drm_fourcc.h>
#include "decode/image.h"
#include "fuzz-common.h"

static inline void fuzz_check_image(const struct veil_image *image) {
	FUZZ_CHECK(image->data != NULL, "no pixels");
	FUZZ_CHECK(image->width > 0 && image->height > 0 &&
		image->width <= VEIL_IMAGE_MAX_SIDE && image->height <= VEIL_IMAGE_MAX_SIDE &&
		(int64_t)image->width * image->height <= VEIL_IMAGE_MAX_PIXELS,
		"size %dx%d", image->width, image->height);
	FUZZ_CHECK(image->stride == image->width * 4, "stride %d for width %d", image->stride,
		image->width);
	bool opaque = image->drm_format == DRM_FORMAT_XRGB8888;
	FUZZ_CHECK(opaque || image->drm_format == DRM_FORMAT_ARGB8888, "format 0x%08x",
		image->drm_format);
	/* Reads every byte: the sanitizers catch a buffer smaller than its size says. */
	for (int y = 0; y < image->height; y++) {
		const uint8_t *row = (const uint8_t *)image->data + (size_t)y * image->stride;
		for (int x = 0; x < image->width; x++) {
			const uint8_t *p = row + 4 * x;
			if (opaque) {
				FUZZ_CHECK(p[3] == 0xff, "XRGB pixel %d,%d with alpha %u", x, y, p[3]);
			} else {
				FUZZ_CHECK(p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3],
					"pixel %d,%d (%u,%u,%u,%u) is not premultiplied", x, y, p[0],
					p[1], p[2], p[3]);
			}
		}
	}
}

/*
 * A decoder's failure. -ETIMEDOUT is one too: decoding runs in the compositor's event loop, and
 * no input the fuzzer makes (16 KiB at most) should freeze it for the decoder's 5 s deadline.
 */
static inline void fuzz_check_failure(int ret, const char *message) {
	FUZZ_CHECK(ret != -ETIMEDOUT, "the decode hit veil's deadline: %s",
		message != NULL ? message : "no message");
	FUZZ_CHECK(ret == -EINVAL || ret == -EFBIG || ret == -ENOTSUP || ret == -ENOMEM ||
		ret == -EIO, "unexpected errno %d (%s)", ret,
		message != NULL ? message : "no message");
	FUZZ_CHECK(message != NULL, "failure %d without a message", ret);
	FUZZ_CHECK(fuzz_message_ok(message, false), "bad message '%s'", message);
}

#endif
