#ifndef VEIL_TESTS_UNIT_CHECK_H
#define VEIL_TESTS_UNIT_CHECK_H

/*
 * The checks of the unit tests that count each one: CHECK(cond) or CHECK(cond, "fmt", ...).
 * A failure prints the file, the line, the condition and the details; check_summary() prints
 * "<name>: N passed, N failed" and gives the exit status. One test program per file includes
 * this, so the counters are its own. check_skip() counts a case that cannot run here (a
 * GStreamer plugin missing): never a pass; the program then exits 77, meson's "skipped", unless
 * something failed.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed, check_skipped;

/* The details after the condition are optional. */
#define CHECK(cond, ...) check_at(!!(cond), __FILE__, __LINE__, #cond, " " __VA_ARGS__)
/* For a helper that checks on behalf of its caller: the caller's line. */
#define CHECK_LINE(line, cond, ...) check_at(!!(cond), __FILE__, (line), #cond, " " __VA_ARGS__)

__attribute__((format(printf, 5, 6), unused))
static bool check_at(bool ok, const char *file, int line, const char *what,
		const char *fmt, ...) {
	if (ok) {
		check_passed++;
		return true;
	}
	check_failed++;
	/* fmt starts with a space: the details, if any, follow the condition. */
	fprintf(stderr, "%s:%d: failed: %s:", file, line, what);
	va_list args;
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fprintf(stderr, "\n");
	return false;
}

/*
 * Cases, for a test whose checks are written as "if (bad) CHECK_FAIL(...)": check_begin() names
 * the case, each CHECK_FAIL() counts a failure that names it, check_end() counts the case passed
 * once when none of its checks failed.
 */
static char check_case[128];
static bool check_case_ok;

__attribute__((format(printf, 1, 2), unused))
static void check_begin(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	vsnprintf(check_case, sizeof(check_case), fmt, args);
	va_end(args);
	check_case_ok = true;
}

#define CHECK_FAIL(fmt, ...) (check_case_ok = check_at(false, __FILE__, __LINE__, check_case, \
	" " fmt, ##__VA_ARGS__))

__attribute__((unused))
static void check_end(void) {
	if (check_case_ok) {
		check_at(true, __FILE__, __LINE__, check_case, " ");
	}
}

__attribute__((format(printf, 1, 2), unused))
static void check_skip(const char *fmt, ...) {
	check_skipped++;
	printf("SKIP ");
	va_list args;
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
}

__attribute__((unused))
static int check_summary(const char *name) {
	if (check_skipped > 0) {
		printf("%s: %d passed, %d failed, %d skipped\n", name, check_passed, check_failed,
			check_skipped);
		return check_failed > 0 ? EXIT_FAILURE : 77;
	}
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed == 0 && check_passed > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
