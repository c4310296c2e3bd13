#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "wire/wire.h"

int veil_wire_send(int sock, const void *data, size_t len, int fd) {
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	memset(&control, 0, sizeof(control));
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fd >= 0) {
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	ssize_t n;
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

int veil_wire_receive(int sock, void *data, size_t len, int fds[VEIL_WIRE_MAX_FDS], int *nfds) {
	*nfds = 0;
	union {
		char buf[CMSG_SPACE(VEIL_WIRE_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	/*
	 * A peer that closed with messages of ours unread resets the connection: the error comes
	 * once, before whatever it sent last (a video's helper that died while requests waited,
	 * and its monitor's word on how), which is read next.
	 */
	ssize_t n;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && (errno == EINTR || errno == ECONNRESET));
	if (n < 0) {
		return -errno;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			continue;
		}
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			fds[(*nfds)++] = fd; /* the control buffer holds no more than the array */
		}
	}
	/* Longer than a message, or with more descriptors than room (the kernel closed those). */
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		veil_wire_close(fds, nfds);
		return -EMSGSIZE;
	}
	return (int)n;
}

void veil_wire_close(int *fds, int *nfds) {
	for (int i = 0; i < *nfds; i++) {
		close(fds[i]);
	}
	*nfds = 0;
}
