/*
 * anim-decode FILE [PASSES]: decodes every frame of an animated GIF, APNG or WebP through
 * veil's own decoders (decode/anim_*.c), PASSES times (default 1), composing each frame on its
 * canvas and copying it out as veil's source does, then prints one line:
 *
 *   frames <n> cpu_s <user+system seconds> maxrss_kib <peak resident KiB>
 *
 * tests/bench/anim-gif.py runs it beside GStreamer's avdec_gif on the same files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "decode/anim.h"

static double seconds(struct timeval tv) {
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [PASSES]\n", argv[0]);
		return 2;
	}
	int passes = argc > 2 ? atoi(argv[2]) : 1;
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *data = malloc((size_t)len);
	if (data == NULL || fread(data, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 1;
	}
	fclose(f);
	enum veil_anim_format format = memcmp(data, "GIF8", 4) == 0 ? VEIL_ANIM_GIF :
		memcmp(data, "RIFF", 4) == 0 ? VEIL_ANIM_WEBP : VEIL_ANIM_PNG;
	const struct veil_anim_decoder_impl *impl = veil_anim_decoder_find(format);
	if (impl == NULL) {
		fprintf(stderr, "%s: no decoder in this build\n", argv[1]);
		return 1;
	}
	struct veil_anim_decoder *dec;
	struct veil_anim_info info;
	char *message = NULL;
	if (impl->open(data, (size_t)len, &dec, &info, &message) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], message);
		return 1;
	}
	size_t size = (size_t)info.width * (size_t)info.height * 4;
	uint8_t *copy = malloc(size);
	long frames = 0;
	for (int p = 0; p < passes; p++) {
		for (int i = 0; i < info.frames; i++) {
			const uint8_t *canvas;
			int delay, index;
			if (impl->next(dec, &canvas, &delay, &index, &message) < 0) {
				fprintf(stderr, "%s: %s\n", argv[1], message);
				return 1;
			}
			memcpy(copy, canvas, size);
			frames++;
		}
	}
	impl->destroy(dec);
	free(copy);
	free(data);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("frames %ld cpu_s %.4f maxrss_kib %ld\n", frames,
		seconds(ru.ru_utime) + seconds(ru.ru_stime), ru.ru_maxrss);
	return 0;
}
