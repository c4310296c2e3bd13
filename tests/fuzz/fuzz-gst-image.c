/*
 * veil_gst_image_load on any bytes from a memfd: veil's own header parsing (WebP, TIFF), the
 * short-lived decodebin pipeline with its size limits, the probe and the copy out of the
 * appsink's sample. Whatever GStreamer's decoders make of the input must come back as an image
 * that keeps the contract, or as a failure with a sentence; never a crash, a hang or a leak.
 */
#define _GNU_SOURCE
#include <gst/gst.h>
#include "decode/colour.h"
#include "fuzz-image-check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	gst_init(NULL, NULL);
	return 0;
}

/*
 * Whether veil would hand these bytes to GStreamer at all: veil_image_source_create tries
 * libpng first and goes on only when it answers -ENOTSUP, which it does for a non-empty file
 * that does not start with (a prefix of) the PNG signature. PNGs thus never reach GStreamer's
 * pngdec, which leaks its frame on a libpng error (see docs/reliability.md).
 */
static bool reaches_gstreamer(const uint8_t *data, size_t size) {
	static const uint8_t png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	if (size == 0) {
		return false;
	}
	size_t n = size < sizeof(png_signature) ? size : sizeof(png_signature);
	return memcmp(data, png_signature, n) != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (!reaches_gstreamer(data, size)) {
		return -1; /* not kept in the corpus */
	}
	int fd = fuzz_memfd(data, size);
	struct veil_image image = {0};
	char *message = NULL;
	int ret = veil_gst_image_load(fd, &image, &message);
	FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) == 0, "the decoder moved the caller's offset");
	close(fd);

	if (ret < 0) {
		fuzz_check_failure(ret, message);
		FUZZ_CHECK(image.data == NULL, "failure left pixels");
	} else {
		FUZZ_CHECK(ret == 0, "positive return %d", ret);
		FUZZ_CHECK(message == NULL, "success with a message '%s'", message);
		fuzz_check_image(&image);
		/* A JPEG's APP2 profile through lcms2. */
		struct veil_colour_result colour;
		veil_colour_to_srgb(&image, &colour);
		FUZZ_CHECK(colour.said[0] != '\0', "no word on the colour");
		fuzz_check_image(&image);
	}
	veil_image_finish(&image);
	free(message);
	return 0;
}
