/*
 * The still decoders of their own (libheif, libwebp, libtiff, libjxl, libjpeg-turbo: those
 * built) on any bytes, as veil_source_open uses them: the header check first, then, when it lets
 * the file through, the decode (at an output's size where the decoder can reduce, below).
 * Whatever the input, each must keep decode/image.h's contract: a failure with a sentence, or
 * pixels of the size checked, premultiplied; never more than the size limits.
 */
#define _GNU_SOURCE
#include "veil-config.h"
#include "decode/still.h"
#include "fuzz-image-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum veil_media_kind kinds[] = {
#if VEIL_HAVE_LIBHEIF
	VEIL_MEDIA_HEIF,
#endif
#if VEIL_HAVE_LIBWEBP
	VEIL_MEDIA_WEBP,
#endif
#if VEIL_HAVE_LIBTIFF
	VEIL_MEDIA_TIFF,
#endif
#if VEIL_HAVE_LIBJXL
	VEIL_MEDIA_JXL,
#endif
#if VEIL_HAVE_LIBJPEG
	VEIL_MEDIA_JPEG,
#endif
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	int fd = fuzz_memfd(data, size);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct veil_still_decoder *decoder = veil_still_decoder_find(kinds[i], NULL);
		FUZZ_CHECK(decoder != NULL, "no decoder for kind %d", (int)kinds[i]);
		char *message = NULL;
		int ret = decoder->check(fd, &message);
		if (ret < 0) {
			fuzz_check_failure(ret, message);
			free(message);
			continue;
		}
		FUZZ_CHECK(message == NULL, "%s: check passed with a message '%s'", decoder->name,
			message);
		/*
		 * Through load_cover where the decoder has one, as veil's worker decodes every
		 * still bigger than its output, to cover 256x256 (as fuzz-svg draws): a picture
		 * smaller than that is decoded whole by the same code. A 349-byte JPEG saying
		 * 11008x6144 at 12 bits a sample took 60 s whole under the sanitizers (the run's
		 * timeout is 30 s), mostly in the checks and the colour conversion over its 67
		 * million pixels, and 6 s at 1/4 (to cover 1920x1080, a slow unit past 10 s on a
		 * loaded machine); libjpeg-turbo's 1/8 takes 0.9 s.
		 */
		struct veil_image image = {0};
		int file_width, file_height;
		ret = decoder->load_cover != NULL ?
			decoder->load_cover(fd, 256, 256, &image, &file_width, &file_height,
				&message) :
			decoder->load(fd, &image, &message);
		FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) == 0, "%s moved the caller's offset",
			decoder->name);
		if (ret < 0) {
			fuzz_check_failure(ret, message);
			FUZZ_CHECK(image.data == NULL, "%s: failure left pixels", decoder->name);
		} else {
			FUZZ_CHECK(message == NULL, "%s: success with a message '%s'", decoder->name,
				message);
			fuzz_check_image(&image);
			/* The embedded profile or CICP through lcms2. */
			struct veil_colour_result colour;
			veil_colour_to_srgb(&image, &colour);
			FUZZ_CHECK(colour.said[0] != '\0', "%s: no word on the colour", decoder->name);
			fuzz_check_image(&image);
		}
		free(message);
		veil_image_finish(&image);
	}
	close(fd);
	return 0;
}
