#ifndef VEIL_TESTS_BENCH_TIMING_H
#define VEIL_TESTS_BENCH_TIMING_H

/*
 * The C benchmarks' clock and medians (colour-cost, scale-cost, first-write): one program of
 * each includes this.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*
 * Milliseconds on a clock: CLOCK_THREAD_CPUTIME_ID for what this thread spends, whatever else
 * the machine runs; CLOCK_MONOTONIC for the time that passes.
 */
static inline double bench_ms(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int bench_compare(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts ms[n] in place and gives its median (the upper one of an even count). */
static inline double bench_median(double *ms, size_t n) {
	qsort(ms, n, sizeof(*ms), bench_compare);
	return ms[n / 2];
}

/* One line: what, the median and the best of rounds figures (sorted in place). */
static inline void bench_report(const char *what, double *ms, int rounds) {
	double median = bench_median(ms, (size_t)rounds);
	printf("  %-28s median %8.2f ms  best %8.2f ms\n", what, median, ms[0]);
}

#endif
