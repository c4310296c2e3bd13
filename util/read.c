#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "util/message.h"
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

int veil_read_stat(int fd, struct stat *st, char **message) {
	if (fstat(fd, st) != 0) {
		int err = errno;
		veil_message_set(message, "cannot read the file: %s", strerror(err));
		return -err;
	}
	return 0;
}

ssize_t veil_read_at_message(int fd, void *buf, size_t len, off_t offset, char **message) {
	ssize_t n = veil_read_at(fd, buf, len, offset);
	if (n < 0) {
		veil_message_set(message, "cannot read the file: %s", strerror((int)-n));
	}
	return n;
}
