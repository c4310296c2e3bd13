/*
 * veil_png_load on any bytes, from a memfd (pread) and, for inputs that fit a pipe's buffer,
 * from a pipe too (the read() path): both must agree on the result and the pixels. A decoded
 * image is then scaled down with veil_image_shrink_to_cover, as a still for a small output is
 * (with each filter in turn, by the input's size).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include "decode/colour.h"
#include "fuzz-image-check.h"

#define PIPE_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int load_from_pipe(const uint8_t *data, size_t size, struct veil_image *image,
		char **message) {
	int fds[2];
	FUZZ_CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	/* Linux pipes hold 64 KiB: the whole input goes in before the decoder reads. */
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fds[1], data + done, size - done);
		FUZZ_CHECK(n > 0, "write to the pipe: %s", strerror(errno));
		done += (size_t)n;
	}
	close(fds[1]);
	int ret = veil_png_load(fds[0], image, message);
	close(fds[0]);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	int fd = fuzz_memfd(data, size);
	struct veil_image image = {0};
	char *message = NULL;
	int ret = veil_png_load(fd, &image, &message);
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

	if (size <= PIPE_MAX) {
		struct veil_image piped = {0};
		char *piped_message = NULL;
		int piped_ret = load_from_pipe(data, size, &piped, &piped_message);
		FUZZ_CHECK(piped_ret == ret, "memfd gave %d (%s), pipe %d (%s)", ret,
			message ? message : "", piped_ret, piped_message ? piped_message : "");
		if (ret == 0) {
			FUZZ_CHECK(piped.width == image.width && piped.height == image.height &&
				piped.drm_format == image.drm_format &&
				memcmp(piped.data, image.data,
					(size_t)image.stride * image.height) == 0,
				"memfd and pipe decoded different pixels");
		}
		veil_image_finish(&piped);
		free(piped_message);
	}

	if (ret == 0) {
		/* A small output of another shape: every decoded image is shrunk. */
		int r = veil_image_shrink_to_cover(&image, 7 + (int)(size % 23), 5 + (int)(size % 17),
			(enum veil_image_filter)(size % 3));
		FUZZ_CHECK(r == 0, "shrink_to_cover failed: %d", r);
		fuzz_check_image(&image);
		/* The file's colour chunks (iCCP, cICP, gAMA, cHRM) through lcms2. */
		struct veil_colour_result colour;
		veil_colour_to_srgb(&image, &colour);
		FUZZ_CHECK(colour.said[0] != '\0', "no word on the colour");
		fuzz_check_image(&image);
	}
	veil_image_finish(&image);
	free(message);
	return 0;
}
