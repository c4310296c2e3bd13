#ifndef VEIL_TESTS_UNIT_CHECK_H
#define VEIL_TESTS_UNIT_CHECK_H

/*
 * The checks of the unit tests that count each one: CHECK(cond) or CHECK(cond, "fmt", ...).
 * A failure prints the file, the line, the condition and the details; check_summary() prints
 * "<name>: N passed, N failed" and gives the exit status. One test program per file includes
 * this, so the counters are its own.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed;

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

__attribute__((unused))
static int check_summary(const char *name) {
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed == 0 && check_passed > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
