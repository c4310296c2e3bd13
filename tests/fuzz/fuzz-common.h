/*
 * What the libFuzzer targets share: the input as a file (a memfd, as the decoders take an fd)
 * and checks that end the run with a report when a decoder breaks its own contract.
 */
#ifndef VEIL_FUZZ_COMMON_H
#define VEIL_FUZZ_COMMON_H

/* Each target defines _GNU_SOURCE (memfd_create, pipe2) before its first #include. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Stops the run: libFuzzer saves the input as a crash- file. */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "fuzz check failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

/* The input as a file of its own, offset 0. */
static inline int fuzz_memfd(const uint8_t *data, size_t size) {
	int fd = memfd_create("veil-fuzz", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		FUZZ_CHECK(n > 0, "write to the memfd: %s", strerror(errno));
		done += (size_t)n;
	}
	FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	return fd;
}

/*
 * Messages go into logs and into swaymsg's JSON replies: they must be short, valid UTF-8
 * sentences; with strict, also without control characters (those that quote the user's words).
 */
static inline bool fuzz_message_ok(const char *message, bool strict) {
	const unsigned char *p = (const unsigned char *)message;
	size_t len = strlen(message);
	if (len == 0 || len > 2048) {
		return false;
	}
	while (*p != '\0') {
		int n;
		if (strict && (*p < 0x20 || *p == 0x7f)) {
			return false;
		} else if (*p < 0x80) {
			n = 1;
		} else if (*p >= 0xc2 && *p <= 0xdf) {
			n = 2;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 3;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 4;
		} else {
			return false;
		}
		for (int i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80) {
				return false;
			}
		}
		p += n;
	}
	return true;
}

#endif
