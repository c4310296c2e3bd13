/*
 * veil-decoder's pictures on their way to the compositor: veil_memfd_pixels_hand_over() seals a
 * block of its allocator as it is, or copies pixels the allocator had to take from the heap into
 * a new memfd, and the compositor's check (veil_decoder_map_memfd) accepts both with the same
 * pixels; it refuses a memfd that is not sealed, or sealed against resizing only when it needs
 * every seal, or shorter than the picture.
 */
#define _GNU_SOURCE /* memfd_create, F_SEAL_* */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "source/remote/map.h"
#include "helper/memfd_pixels.h"
#include "util/pixels.h"

#define SIZE (64 * 1024 + 12) /* not a whole number of pages */
#define ALL_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static void fill(uint8_t *data, size_t size, unsigned seed) {
	for (size_t i = 0; i < size; i++) {
		data[i] = (uint8_t)(i * 31 + seed);
	}
}

/* fd holds the pattern of seed, sealed against every change, and the compositor maps it. */
static void check_handed_over(int line, int fd, unsigned seed) {
	int seals = fcntl(fd, F_GET_SEALS);
	CHECK_LINE(line, seals >= 0 && (seals & (ALL_SEALS | F_SEAL_SEAL)) ==
		(ALL_SEALS | F_SEAL_SEAL), "seals 0x%x", seals);
	void *data = NULL;
	char *message = NULL;
	int ret = veil_decoder_map_memfd(fd, ALL_SEALS, SIZE, "picture", &data, &message);
	CHECK_LINE(line, ret == 0, "%d: %s", ret, message ? message : "");
	free(message);
	if (ret == 0) {
		uint8_t *want = malloc(SIZE);
		fill(want, SIZE, seed);
		CHECK_LINE(line, memcmp(data, want, SIZE) == 0, "the pixels changed on the way");
		free(want);
		munmap(data, SIZE);
	}
	/* Sealed: nobody can write it any more. */
	CHECK_LINE(line, write(fd, "x", 1) < 0, "a write to the sealed memfd went through");
	CHECK_LINE(line, ftruncate(fd, 1) < 0, "the sealed memfd shrank");
}

/* The compositor's check refuses fd with the sentence expected. */
static void check_refused(int line, int fd, int seals, size_t size, const char *expected) {
	void *data = NULL;
	char *message = NULL;
	int ret = veil_decoder_map_memfd(fd, seals, size, "picture", &data, &message);
	CHECK_LINE(line, ret == -EPROTO && data == NULL, "%d", ret);
	CHECK_LINE(line, message != NULL && strcmp(message, expected) == 0, "'%s', not '%s'",
		message ? message : "(none)", expected);
	free(message);
}

int main(void) {
	veil_memfd_pixels_install();

	/* A block of the allocator: handed over as it is. */
	uint8_t *block = veil_pixels_alloc(SIZE);
	CHECK(block != NULL);
	fill(block, SIZE, 1);
	int fd = -1;
	CHECK(veil_memfd_pixels_hand_over(block, SIZE, &fd) == 0 && fd >= 0);
	check_handed_over(__LINE__, fd, 1);
	close(fd);

	/* Heap pixels (the allocator's fallback): copied into a new memfd. */
	uint8_t *heap = malloc(SIZE);
	fill(heap, SIZE, 2);
	fd = -1;
	CHECK(veil_memfd_pixels_hand_over(heap, SIZE, &fd) == 0 && fd >= 0);
	check_handed_over(__LINE__, fd, 2);
	close(fd);

	/* What a hostile helper could send instead. */
	int plain = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	CHECK(plain >= 0 && ftruncate(plain, SIZE) == 0);
	check_refused(__LINE__, plain, ALL_SEALS, SIZE, "picture is not sealed against changes");
	CHECK(fcntl(plain, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
	check_refused(__LINE__, plain, ALL_SEALS, SIZE, "picture is not sealed against changes");
	check_refused(__LINE__, plain, F_SEAL_SHRINK | F_SEAL_GROW, SIZE + 1,
		"picture is 65548 bytes, fewer than 65549");
	void *data = NULL;
	char *message = NULL;
	CHECK(veil_decoder_map_memfd(plain, F_SEAL_SHRINK | F_SEAL_GROW, SIZE, "picture", &data,
		&message) == 0 && data != NULL);
	free(message);
	if (data != NULL) {
		munmap(data, SIZE);
	}
	close(plain);
	int pipes[2];
	CHECK(pipe(pipes) == 0);
	check_refused(__LINE__, pipes[0], ALL_SEALS, SIZE, "picture is not in a memory file");
	close(pipes[0]);
	close(pipes[1]);
	return check_summary("memfd");
}
