/*
 * What a still's colour profile costs the thread that decodes it (docs/measurements.md, "Colour
 * profiles"): for each file, the whole decode as veil runs it (veil_still_decode(), shrunk to
 * cover 1920x1080, the conversion included) and, apart, veil_colour_to_srgb() alone on the
 * decoded pixels. Run by hand:
 *
 *     tools/devroot build-colour/tests/bench/colour-cost [rounds] FILE...
 *
 * Prints each file's median and best milliseconds of the thread's CPU time over the rounds (21
 * unless given) and what the status would say of its colour.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/colour.h"
#include "decode/sniff.h"
#include "decode/still.h"
#include "util/pixels.h"
#include "still_open.h"
#include "timing.h"

#define MAX_ROUNDS 201

static int bench(const char *path, int rounds) {
	const struct veil_still_decoder *decoder;
	int fd = bench_still_open(path, &decoder);
	if (fd < 0) {
		return -1;
	}
	double decode_ms[MAX_ROUNDS], convert_ms[MAX_ROUNDS];
	struct veil_colour_result colour = {0};
	int width = 0, height = 0;
	for (int i = 0; i < rounds; i++) {
		struct veil_image image = {0};
		const struct veil_still_decoder *used;
		int shrink_error;
		char *message = NULL;
		double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
		int ret = veil_still_decode(decoder, fd, 1920, 1080, VEIL_IMAGE_FILTER_LINEAR, &image,
			&width, &height, &used, &shrink_error, &colour, &message);
		decode_ms[i] = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", path, message != NULL ? message : "failed");
			free(message);
			close(fd);
			return -1;
		}
		veil_image_finish(&image);
	}
	/* The conversion alone: the decoder's pixels and colour, converted on a fresh copy. */
	struct veil_image decoded = {0};
	char *message = NULL;
	if (decoder->load(fd, &decoded, &message) < 0) {
		fprintf(stderr, "%s: %s\n", path, message != NULL ? message : "failed");
		free(message);
		close(fd);
		return -1;
	}
	veil_image_shrink_to_cover(&decoded, 1920, 1080, VEIL_IMAGE_FILTER_LINEAR);
	size_t size = (size_t)decoded.stride * (size_t)decoded.height;
	for (int i = 0; i < rounds; i++) {
		struct veil_image copy = decoded;
		copy.data = veil_pixels_alloc(size);
		memcpy(copy.data, decoded.data, size);
		copy.colour.icc = NULL;
		if (decoded.colour.icc != NULL) {
			copy.colour.icc = malloc(decoded.colour.icc_len);
			memcpy(copy.colour.icc, decoded.colour.icc, decoded.colour.icc_len);
		}
		struct veil_colour_result result;
		double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
		veil_colour_to_srgb(&copy, &result);
		convert_ms[i] = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		veil_image_finish(&copy);
	}
	printf("%s: %dx%d kept at %dx%d, colour \"%s\"\n", path, width, height, decoded.width,
		decoded.height, colour.said);
	bench_report("veil_still_decode", decode_ms, rounds);
	bench_report("veil_colour_to_srgb alone", convert_ms, rounds);
	veil_image_finish(&decoded);
	close(fd);
	return 0;
}

int main(int argc, char *argv[]) {
	int first = 1, rounds = 21;
	if (argc > 2 && atoi(argv[1]) > 0) {
		rounds = atoi(argv[1]);
		first = 2;
	}
	if (rounds > MAX_ROUNDS) {
		rounds = MAX_ROUNDS;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [rounds] FILE...\n", argv[0]);
		return 2;
	}
	int status = 0;
	for (int i = first; i < argc; i++) {
		if (bench(argv[i], rounds) < 0) {
			status = 1;
		}
	}
	return status;
}
