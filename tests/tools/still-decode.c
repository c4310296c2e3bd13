/*
 * still-decode [--full] FILE OUT.ppm [COVER_WIDTH COVER_HEIGHT]: a still through veil's own
 * decoding path (sniff, the decoder's check, veil_still_decode(): the decode, at a reduced size
 * where the decoder can, the shrink to cover with `smooth`, the colour to sRGB), as the
 * compositor's worker and veil-decoder run it. Writes the pixels kept as a binary PPM and one
 * line of JSON on stdout: the decoder, the sizes, the colour, the worker's CPU and wall time.
 * --full: the whole decode even where the decoder has a reduced one (the bench's A/B).
 * A file veil refuses: exit status 2, the sentence in the JSON's "error".
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "decode/image.h"
#include "decode/sniff.h"
#include "decode/still.h"

static double now(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A JSON string of text (which veil keeps valid UTF-8): quotes and controls escaped. */
static void print_string(const char *text) {
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\') {
			printf("\\%c", *c);
		} else if (*c < 0x20) {
			printf("\\u%04x", *c);
		} else {
			putchar(*c);
		}
	}
	putchar('"');
}

static int refused(const char *stage, int ret, char *message) {
	printf("{\"stage\": \"%s\", \"errno\": %d, \"error\": ", stage, -ret);
	print_string(message != NULL ? message : "");
	printf("}\n");
	free(message);
	return 2;
}

static bool write_ppm(const char *path, const struct veil_image *image) {
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		return false;
	}
	fprintf(f, "P6\n%d %d\n255\n", image->width, image->height);
	uint8_t *row = malloc((size_t)image->width * 3);
	for (int y = 0; y < image->height; y++) {
		const uint8_t *p = (const uint8_t *)image->data + (size_t)y * image->stride;
		for (int x = 0; x < image->width; x++) {
			row[3 * x] = p[4 * x + 2];
			row[3 * x + 1] = p[4 * x + 1];
			row[3 * x + 2] = p[4 * x];
		}
		fwrite(row, 1, (size_t)image->width * 3, f);
	}
	free(row);
	return fclose(f) == 0;
}

int main(int argc, char **argv) {
	bool full = argc > 1 && strcmp(argv[1], "--full") == 0;
	argv += full;
	argc -= full;
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: still-decode [--full] FILE OUT.ppm [COVER_WIDTH "
			"COVER_HEIGHT]\n");
		return 1;
	}
	int cover_width = argc == 5 ? atoi(argv[3]) : 0;
	int cover_height = argc == 5 ? atoi(argv[4]) : 0;
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	char *message = NULL;
	enum veil_media_kind kind = veil_media_sniff(fd, NULL);
	const struct veil_still_decoder *found = veil_still_decoder_find(kind, &message);
	if (found == NULL) {
		return refused("sniff", -22, message);
	}
	int ret = found->check(fd, &message);
	if (ret < 0) {
		return refused("check", ret, message);
	}
	struct veil_still_decoder whole = *found;
	if (full) {
		whole.load_cover = NULL;
	}
	struct veil_image image = {0};
	int original_width, original_height, shrink_error;
	const struct veil_still_decoder *used;
	struct veil_colour_result colour;
	double cpu = now(CLOCK_THREAD_CPUTIME_ID), wall = now(CLOCK_MONOTONIC);
	ret = veil_still_decode(&whole, fd, cover_width, cover_height, VEIL_IMAGE_FILTER_SMOOTH,
		&image, &original_width, &original_height, &used, &shrink_error, &colour, &message);
	cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu;
	wall = now(CLOCK_MONOTONIC) - wall;
	close(fd);
	if (ret < 0) {
		return refused("load", ret, message);
	}
	printf("{\"decoder\": \"%s\", \"width\": %d, \"height\": %d, \"file_width\": %d, "
		"\"file_height\": %d, \"cpu_ms\": %.1f, \"wall_ms\": %.1f, \"colour\": ",
		used->name, image.width, image.height, original_width, original_height, cpu, wall);
	print_string(colour.said);
	printf(", \"fell_back\": %s}\n", colour.fell_back ? "true" : "false");
	free(message);
	bool written = write_ppm(argv[2], &image);
	veil_image_finish(&image);
	return written ? 0 : 1;
}
