/*
 * What writing a picture into memory costs the first time and the next, in the two places veil
 * decodes a still: a memfd made, sized and populated as veil-decoder's pixel allocator does
 * (helper/memfd_pixels.c), and heap memory the process has written before (the
 * compositor's worker reuses its heap). Run by hand (docs/measurements.md):
 *
 *     tools/devroot build-bench/tests/bench/first-write [MiB] [rounds]
 *
 * For each round, in turn: a new memfd of MiB (8: a 1920x1080 XRGB8888 picture), populated
 * with MADV_POPULATE_WRITE, then written whole twice (memset); and a heap block written twice.
 * Prints each round's milliseconds and the medians.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "timing.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define MAX_ROUNDS 101

static double now_ms(void) {
	return bench_ms(CLOCK_MONOTONIC);
}

static double median(double *v, int n) {
	return bench_median(v, (size_t)n);
}

/* Two writes of size bytes at data: their times in ms. */
static void write_twice(unsigned char *data, size_t size, int round, double *first,
		double *second) {
	double t0 = now_ms();
	memset(data, round & 0xff, size);
	double t1 = now_ms();
	memset(data, ~round & 0xff, size);
	double t2 = now_ms();
	*first = t1 - t0;
	*second = t2 - t1;
}

int main(int argc, char *argv[]) {
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 8;
	int rounds = argc > 2 ? atoi(argv[2]) : 11;
	if (mib == 0 || mib > 1024 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: first-write [MiB 1-1024] [rounds 1-%d]\n", MAX_ROUNDS);
		return 2;
	}
	size_t size = mib << 20;
	unsigned char *heap = malloc(size);
	if (heap == NULL) {
		return 1;
	}
	memset(heap, 0, size); /* written once: the heap of a process that decoded before */
	static double populate[MAX_ROUNDS], memfd1[MAX_ROUNDS], memfd2[MAX_ROUNDS];
	static double heap1[MAX_ROUNDS], heap2[MAX_ROUNDS];
	printf("round  memfd: populate  first write  second | heap: write  again (ms, %zu MiB)\n",
		mib);
	for (int i = 0; i < rounds; i++) {
		int fd = memfd_create("first-write", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
			perror("memfd");
			return 1;
		}
		double t0 = now_ms();
		unsigned char *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (data == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(data, size, MADV_POPULATE_WRITE);
		populate[i] = now_ms() - t0;
		write_twice(data, size, i, &memfd1[i], &memfd2[i]);
		munmap(data, size);
		close(fd);
		write_twice(heap, size, i, &heap1[i], &heap2[i]);
		printf("%5d  %15.2f  %11.2f  %6.2f | %11.2f  %5.2f\n", i + 1, populate[i], memfd1[i],
			memfd2[i], heap1[i], heap2[i]);
	}
	printf("median %14.2f  %11.2f  %6.2f | %11.2f  %5.2f\n", median(populate, rounds),
		median(memfd1, rounds), median(memfd2, rounds), median(heap1, rounds),
		median(heap2, rounds));
	free(heap);
	return 0;
}
