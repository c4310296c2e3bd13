#define _GNU_SOURCE /* F_GET_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "source/remote/map.h"
#include "util/message.h"

int veil_decoder_map_memfd(int fd, int seals, size_t size, const char *what, void **data,
		char **message) {
	*data = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		veil_message_set(message, "%s is not in a memory file", what);
		return -EPROTO;
	}
	int has = fcntl(fd, F_GET_SEALS);
	if (has < 0 || (has & seals) != seals) {
		veil_message_set(message, "%s is not sealed against %s", what,
			(seals & F_SEAL_WRITE) ? "changes" : "resizing");
		return -EPROTO;
	}
	if ((uint64_t)st.st_size < size) {
		veil_message_set(message, "%s is %jd bytes, fewer than %zu", what,
			(intmax_t)st.st_size, size);
		return -EPROTO;
	}
	/*
	 * Populated here, on a worker: else the compositor's thread takes the page faults when it
	 * first reads the pixels (one per 16 pages; 106 of them on its thread in 8 s of switching
	 * 1080p PNGs, none with this: docs/measurements.md).
	 */
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		int err = errno;
		veil_message_set(message, "cannot map the %s: %s", what, strerror(err));
		return -err;
	}
	*data = map;
	return 0;
}
