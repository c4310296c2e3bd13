/*
 * The animation decoders (decode/anim_gif.c, anim_png.c, anim_webp.c: those built) on any
 * bytes, as source/anim_source.c uses them: open, then frames one after the other, past the
 * last (a second play starts). Whatever the input, each keeps decode/anim.h's contract: a
 * failure with a sentence, or a canvas within the size limits whose every pixel is
 * premultiplied, a frame index below the count, a delay no shorter than veil plays.
 */
#define _GNU_SOURCE
#include "veil-config.h"
#include "decode/anim.h"
#include "util/image.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frames looked at per input: past a short animation's end, not a long one's. */
#define MAX_FRAMES 24
/*
 * Pixels checked per input, about. A canvas of 8464x3071 checked whole in 24 frames took 14 s
 * under ASan, and libFuzzer reports a unit slower than 10 s as a failure.
 */
#define CHECKED_PIXELS ((size_t)1 << 23)

static const struct veil_anim_decoder_impl *const decoders[] = {
#if VEIL_HAVE_GIFLIB
	&veil_anim_gif,
#endif
#if VEIL_HAVE_LIBWEBP
	&veil_anim_webp,
#endif
	&veil_anim_png,
};

static void check_failure(const struct veil_anim_decoder_impl *impl, int ret,
		const char *message) {
	FUZZ_CHECK(ret < 0, "%s: ret %d", impl->name, ret);
	FUZZ_CHECK(message != NULL && fuzz_message_ok(message, false),
		"%s: failure %d without a proper sentence", impl->name, ret);
}

static void check_pixel(const struct veil_anim_decoder_impl *impl, const uint8_t *canvas,
		size_t p) {
	const uint8_t *px = canvas + p * 4;
	FUZZ_CHECK(px[0] <= px[3] && px[1] <= px[3] && px[2] <= px[3],
		"%s: pixel %zu (%u,%u,%u,%u) is not premultiplied", impl->name, p, px[0], px[1],
		px[2], px[3]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	/* The decoders read the caller's buffer: exactly size bytes of it, nothing past. */
	uint8_t *copy = malloc(size > 0 ? size : 1);
	memcpy(copy, data, size);
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++) {
		const struct veil_anim_decoder_impl *impl = decoders[i];
		struct veil_anim_decoder *dec = NULL;
		struct veil_anim_info info;
		char *message = NULL;
		int ret = impl->open(copy, size, &dec, &info, &message);
		if (ret < 0) {
			check_failure(impl, ret, message);
			free(message);
			continue;
		}
		FUZZ_CHECK(message == NULL, "%s: open passed with '%s'", impl->name, message);
		FUZZ_CHECK(info.width > 0 && info.height > 0 && info.width <= VEIL_IMAGE_MAX_SIDE &&
			info.height <= VEIL_IMAGE_MAX_SIDE &&
			(int64_t)info.width * info.height <= VEIL_IMAGE_MAX_PIXELS,
			"%s: canvas %dx%d", impl->name, info.width, info.height);
		FUZZ_CHECK(info.frames >= 1 && info.frames <= VEIL_ANIM_MAX_FRAMES && info.plays >= 0,
			"%s: %d frames, %d plays", impl->name, info.frames, info.plays);
		int n = info.frames + 1 < MAX_FRAMES ? info.frames + 1 : MAX_FRAMES;
		for (int f = 0; f < n; f++) {
			const uint8_t *canvas = NULL;
			int delay = 0, index = -1;
			ret = impl->next(dec, &canvas, &delay, &index, &message);
			if (ret < 0) {
				check_failure(impl, ret, message);
				break;
			}
			FUZZ_CHECK(index == f % info.frames, "%s: frame %d called %d", impl->name, f,
				index);
			FUZZ_CHECK(delay >= VEIL_ANIM_MIN_DELAY_MS, "%s: delay %d", impl->name, delay);
			/*
			 * Every pixel of a small canvas; a sample of a large one, its last pixel
			 * always (the sanitizers catch a canvas smaller than it says).
			 */
			size_t pixels = (size_t)info.width * (size_t)info.height;
			size_t step = pixels * (size_t)n > CHECKED_PIXELS ?
				pixels * (size_t)n / CHECKED_PIXELS + 1 : 1;
			for (size_t p = 0; p < pixels; p += step) {
				check_pixel(impl, canvas, p);
			}
			check_pixel(impl, canvas, pixels - 1);
		}
		free(message);
		impl->destroy(dec);
	}
	free(copy);
	return 0;
}
