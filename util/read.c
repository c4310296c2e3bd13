#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include "util/read.h"

ssize_t veil_read_at(int fd, void *buf, size_t len, off_t offset) {
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, offset + (off_t)done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			break;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}
