/*
 * What each `filter` costs the thread that shrinks a still (docs/measurements.md, "Scaling
 * quality"): for each file, decoded once, veil_image_shrink_to_cover() to cover 1920x1080 and
 * 3840x2160 with linear, smooth and nearest, on a fresh copy of the decoded pixels each round.
 * Run by hand:
 *
 *     tools/devroot build-scale/tests/bench/scale-cost [rounds] FILE...
 *
 * Prints each file's decode and, per size and filter, the median and best milliseconds of the
 * thread's CPU time over the rounds (11 unless given).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/sniff.h"
#include "decode/still.h"
#include "util/image.h"
#include "util/pixels.h"
#include "still_open.h"
#include "timing.h"

#define MAX_ROUNDS 101

static int bench(const char *path, int rounds) {
	const struct veil_still_decoder *decoder;
	int fd = bench_still_open(path, &decoder);
	if (fd < 0) {
		return -1;
	}
	struct veil_image decoded = {0};
	char *message = NULL;
	double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
	if (decoder->load(fd, &decoded, &message) < 0) {
		fprintf(stderr, "%s: %s\n", path, message != NULL ? message : "failed");
		free(message);
		close(fd);
		return -1;
	}
	printf("%s: %dx%d, decoded (%s) in %.1f ms\n", path, decoded.width, decoded.height,
		decoder->name, bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0);
	static const int sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };
	static const enum veil_image_filter filters[] = {
		VEIL_IMAGE_FILTER_LINEAR, VEIL_IMAGE_FILTER_SMOOTH, VEIL_IMAGE_FILTER_NEAREST,
	};
	size_t size = (size_t)decoded.stride * (size_t)decoded.height;
	int ret = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && ret == 0; s++) {
		for (size_t f = 0; f < sizeof(filters) / sizeof(filters[0]) && ret == 0; f++) {
			double ms[MAX_ROUNDS];
			int width = 0, height = 0;
			for (int i = 0; i < rounds; i++) {
				struct veil_image copy = decoded;
				copy.colour = (struct veil_image_colour){0};
				copy.data = veil_pixels_alloc(size);
				if (copy.data == NULL) {
					ret = -1;
					break;
				}
				memcpy(copy.data, decoded.data, size);
				t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
				ret = veil_image_shrink_to_cover(&copy, sizes[s][0], sizes[s][1],
					filters[f]);
				ms[i] = bench_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
				width = copy.width;
				height = copy.height;
				veil_image_finish(&copy);
				if (ret < 0) {
					fprintf(stderr, "%s: shrink failed: %d\n", path, ret);
					break;
				}
			}
			if (ret == 0) {
				char what[64];
				snprintf(what, sizeof(what), "%dx%d %s", width, height,
					veil_image_filter_name(filters[f]));
				bench_report(what, ms, rounds);
			}
		}
	}
	veil_image_finish(&decoded);
	close(fd);
	return ret;
}

int main(int argc, char *argv[]) {
	int first = 1, rounds = 11;
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
	int failed = 0;
	for (int i = first; i < argc; i++) {
		failed |= bench(argv[i], rounds) < 0;
	}
	return failed;
}
