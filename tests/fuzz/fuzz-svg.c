/*
 * The SVG decoder (decode/svg.c) on any bytes, and its size logic on any sizes. Bytes 0 and 2,
 * each plus one (1 to 256: small, so that every input is drawn quickly), are a cover size; the
 * rest is the document, drawn as a still's worker draws it for fill: a failure with a sentence,
 * or pixels within veil's limits that cover the size, one side exactly. The first 24 bytes are
 * also two sizes and a cover for veil_svg_cover_size() alone: one side the cover's, the other at
 * least its own, never a side past INT32_MAX.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "decode/still.h"
#include "fuzz-image-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_size_logic(const uint8_t *data, size_t size) {
	if (size < 24) {
		return;
	}
	double width, height;
	int32_t cover[2];
	memcpy(&width, data, sizeof(width));
	memcpy(&height, data + 8, sizeof(height));
	memcpy(cover, data + 16, sizeof(cover));
	int64_t w = -1, h = -1;
	bool ok = veil_svg_cover_size(width, height, cover[0], cover[1], &w, &h);
	if (!(width > 0 && height > 0 && isfinite(width) && isfinite(height)) || cover[0] <= 0 ||
			cover[1] <= 0) {
		FUZZ_CHECK(!ok, "%gx%g covering %dx%d has a size", width, height, cover[0],
			cover[1]);
		return;
	}
	FUZZ_CHECK(ok, "%gx%g covering %dx%d has no size", width, height, cover[0], cover[1]);
	FUZZ_CHECK(w >= cover[0] && h >= cover[1] && w <= INT32_MAX && h <= INT32_MAX,
		"%gx%g covering %dx%d: %" PRId64 "x%" PRId64, width, height, cover[0], cover[1], w,
		h);
	FUZZ_CHECK(w == cover[0] || h == cover[1], "%gx%g covering %dx%d: %" PRId64 "x%" PRId64
		" fits neither side", width, height, cover[0], cover[1], w, h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	check_size_logic(data, size);
	if (size < 4) {
		return 0;
	}
	int cover_width = data[0] + 1, cover_height = data[2] + 1;
	int fd = fuzz_memfd(data + 4, size - 4);
	const struct veil_still_decoder *decoder = veil_still_decoder_find(VEIL_MEDIA_SVG, NULL);
	FUZZ_CHECK(decoder != NULL && decoder->load_cover != NULL, "no SVG decoder");
	char *message = NULL;
	int ret = decoder->check(fd, &message);
	struct veil_image image = {0};
	int file_width = 0, file_height = 0;
	if (ret == 0) {
		ret = decoder->load_cover(fd, cover_width, cover_height, &image, &file_width,
			&file_height, &message);
		FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) == 0, "librsvg moved the caller's offset");
	}
	if (ret < 0) {
		fuzz_check_failure(ret, message);
		FUZZ_CHECK(image.data == NULL, "a failure left pixels");
	} else {
		FUZZ_CHECK(message == NULL, "success with a message '%s'", message);
		fuzz_check_image(&image);
		FUZZ_CHECK(file_width > 0 && file_height > 0, "its own size %dx%d", file_width,
			file_height);
		FUZZ_CHECK((image.width == cover_width && image.height >= cover_height) ||
			(image.height == cover_height && image.width >= cover_width),
			"%dx%d drawn to cover %dx%d", image.width, image.height, cover_width,
			cover_height);
	}
	free(message);
	veil_image_finish(&image);
	close(fd);
	return 0;
}
