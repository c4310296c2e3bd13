/*
 * What a slideshow's scan of a directory costs its worker (docs/measurements.md, "A slideshow
 * of packages"): the first scan, then each later scan handed the last one's slides, as the show
 * does after every step. Run by hand:
 *
 *     tools/devroot build-rel/tests/bench/scan-cost [rounds] DIR
 *
 * Prints the files found, the packages among them, and the median and best milliseconds of
 * the process's CPU time (the worker's: the caller waits in the event loop) and of the time that
 * passed, for the first scan and for the later ones (7 unless given).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-server-core.h>
#include "module/show/slideshow_scan.h"
#include "timing.h"

#define MAX_ROUNDS 101

static void scan_done(struct veil_slideshow_scan *scan, void *data) {
	struct veil_slideshow_scan **result = data;
	*result = scan;
}

/* One scan of dir handed *slides, which it then replaces. */
static int scan_once(struct wl_event_loop *loop, struct veil_worker *worker, const char *dir,
		struct veil_slide **slides, size_t *n_slides, double *cpu, double *wall) {
	struct veil_slideshow_scan *result = NULL;
	double c0 = bench_ms(CLOCK_PROCESS_CPUTIME_ID);
	double w0 = bench_ms(CLOCK_MONOTONIC);
	struct veil_slideshow_scan *scan = veil_slideshow_scan_create(dir, false,
		VEIL_SLIDESHOW_NAME, *slides, *n_slides, scan_done, &result);
	if (scan == NULL) {
		return -1;
	}
	veil_slideshow_scan_submit(worker, scan);
	while (result == NULL) {
		wl_event_loop_dispatch(loop, -1);
	}
	*cpu = bench_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
	*wall = bench_ms(CLOCK_MONOTONIC) - w0;
	veil_slides_free(*slides, *n_slides);
	*slides = result->slides;
	*n_slides = result->n_slides;
	result->slides = NULL;
	result->n_slides = 0;
	int ret = result->error != NULL ? -1 : 0;
	if (ret < 0) {
		fprintf(stderr, "%s\n", result->error);
	}
	veil_slideshow_scan_destroy(result);
	return ret;
}

int main(int argc, char **argv) {
	int rounds = argc > 2 ? atoi(argv[1]) : 7;
	if (argc < 2 || argc > 3 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s [rounds <= %d] DIR\n", argv[0], MAX_ROUNDS);
		return 2;
	}
	const char *dir = argv[argc - 1];
	struct wl_event_loop *loop = wl_event_loop_create();
	struct veil_worker *worker = loop != NULL ? veil_worker_create(loop) : NULL;
	if (worker == NULL) {
		fprintf(stderr, "no event loop or worker\n");
		wl_event_loop_destroy(loop);
		return 1;
	}
	struct veil_slide *slides = NULL;
	size_t n_slides = 0;
	double first_cpu, first_wall, cpu[MAX_ROUNDS], wall[MAX_ROUNDS];
	int ret = scan_once(loop, worker, dir, &slides, &n_slides, &first_cpu, &first_wall);
	for (int i = 0; i < rounds && ret == 0; i++) {
		ret = scan_once(loop, worker, dir, &slides, &n_slides, &cpu[i], &wall[i]);
	}
	if (ret == 0) {
		size_t packages = 0, bad = 0;
		for (size_t i = 0; i < n_slides; i++) {
			packages += slides[i].package != NULL;
			bad += slides[i].bad;
		}
		printf("%s: %zu files, %zu packages read, %zu bad\n", dir, n_slides, packages, bad);
		printf("  first scan: CPU %.2f ms, wall %.2f ms\n", first_cpu, first_wall);
		bench_report("later scans, CPU", cpu, rounds);
		bench_report("later scans, wall", wall, rounds);
	}
	veil_slides_free(slides, n_slides);
	veil_worker_destroy(worker);
	wl_event_loop_destroy(loop);
	return ret != 0;
}
