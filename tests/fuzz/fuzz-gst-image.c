/*
 * veil_gst_image_load on any bytes from a memfd: veil's own header parsing (WebP, TIFF), the
 * short-lived decodebin pipeline with its size limits, the probe and the copy out of the
 * appsink's sample. Whatever GStreamer's decoders make of the input must come back as an image
 * that keeps the contract, or as a failure with a sentence; never a crash, a hang or a leak.
 */
#include <gst/gst.h>
#include "fuzz-image-check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	/* Plugins may be scanned in a child; a registry in the build keeps runs independent. */
	gst_init(NULL, NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
	}
	veil_image_finish(&image);
	free(message);
	return 0;
}
