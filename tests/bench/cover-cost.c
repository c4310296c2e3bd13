/*
 * What a still costs the worker that decodes it for the modes that scale (docs/measurements.md,
 * "SVG at the output's size"): for each file and for covers of 1920x1080 and 3840x2160, the
 * whole of veil_still_decode() (the decoder's load_cover where it has one, else its load and
 * the shrink; then the colour), as a still's worker runs it in process. Run by hand:
 *
 *     tools/devroot build-rel/tests/bench/cover-cost [--gst] [rounds] FILE...
 *
 * --gst decodes through GStreamer whatever the file (an SVG as before librsvg: rsvgdec at the
 * document's own size, then the shrink).
 * Prints, per file and size, the size kept and the median and best milliseconds of the process's
 * CPU time (every thread's: librsvg's and GStreamer's run beside the caller's) and of the time
 * that passed over the rounds (7 unless given).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/still.h"
#include "still_open.h"
#include "timing.h"

#define MAX_ROUNDS 101

static int bench(const char *path, int rounds, bool gst) {
	const struct veil_still_decoder *decoder;
	int fd = bench_still_open(path, &decoder);
	if (fd < 0) {
		return -1;
	}
	if (gst) {
		decoder = veil_still_decoder_gst();
	}
	static const int sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };
	int ret = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && ret == 0; s++) {
		double cpu[MAX_ROUNDS], wall[MAX_ROUNDS];
		struct veil_image image = {0};
		int original_width = 0, original_height = 0;
		const struct veil_still_decoder *used = decoder;
		for (int i = 0; i < rounds && ret == 0; i++) {
			int shrink_error;
			struct veil_colour_result colour;
			char *message = NULL;
			veil_image_finish(&image);
			double c0 = bench_ms(CLOCK_PROCESS_CPUTIME_ID);
			double w0 = bench_ms(CLOCK_MONOTONIC);
			ret = veil_still_decode(decoder, fd, sizes[s][0], sizes[s][1],
				VEIL_IMAGE_FILTER_SMOOTH, &image, &original_width, &original_height,
				&used, &shrink_error, &colour, &message);
			cpu[i] = bench_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
			wall[i] = bench_ms(CLOCK_MONOTONIC) - w0;
			if (ret < 0) {
				fprintf(stderr, "%s: %s\n", path, message != NULL ? message : "failed");
			}
			free(message);
		}
		if (ret == 0) {
			/* (Sorted by the median: [0] is the best.) */
			double cpu_median = bench_median(cpu, (size_t)rounds);
			double wall_median = bench_median(wall, (size_t)rounds);
			printf("%s: %dx%d (%s) to cover %dx%d, kept at %dx%d: CPU %.1f ms "
				"(best %.1f), wall %.1f ms (best %.1f)\n", path, original_width,
				original_height, used->name, sizes[s][0], sizes[s][1], image.width,
				image.height, cpu_median, cpu[0], wall_median, wall[0]);
		}
		veil_image_finish(&image);
	}
	close(fd);
	return ret;
}

int main(int argc, char **argv) {
	int rounds = 7;
	int first = 1;
	bool gst = argc > 1 && strcmp(argv[1], "--gst") == 0;
	first += gst;
	if (argc > first && atoi(argv[first]) > 0) {
		rounds = atoi(argv[first]);
		first++;
	}
	if (rounds > MAX_ROUNDS || first >= argc) {
		fprintf(stderr, "usage: %s [--gst] [rounds <= %d] FILE...\n", argv[0],
			MAX_ROUNDS);
		return 2;
	}
	int ret = 0;
	for (int i = first; i < argc; i++) {
		ret |= bench(argv[i], rounds, gst) < 0;
	}
	return ret;
}
