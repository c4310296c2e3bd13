#ifndef VEIL_TESTS_BENCH_STILL_OPEN_H
#define VEIL_TESTS_BENCH_STILL_OPEN_H

/* The still benchmarks' (colour-cost, scale-cost) opening of a file and choice of its decoder. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "decode/sniff.h"
#include "decode/still.h"

/*
 * Opens path and finds the still decoder veil would use for it. Returns the descriptor, or -1
 * after saying why on stderr.
 */
static inline int bench_still_open(const char *path,
		const struct veil_still_decoder **decoder) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	*decoder = veil_still_decoder_find(veil_media_sniff(fd, NULL), NULL);
	if (*decoder == NULL) {
		fprintf(stderr, "%s: no still decoder\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

#endif
