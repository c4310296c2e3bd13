#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client.h"

int client_signals(const char *name) {
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "%s: signalfd: %m\n", name);
	}
	return sfd;
}

enum client_end client_run(struct wl_display *display, int signal_fd, const bool *done) {
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(display), .events = POLLIN },
		{ .fd = signal_fd, .events = POLLIN },
	};
	while (!*done) {
		while (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0) {
				return CLIENT_LOST;
			}
		}
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			return CLIENT_LOST;
		}
		if (poll(fds, 2, -1) < 0) {
			wl_display_cancel_read(display);
			if (errno == EINTR) {
				continue;
			}
			return CLIENT_FAILED;
		}
		if (fds[0].revents & POLLIN) {
			if (wl_display_read_events(display) < 0) {
				return CLIENT_LOST;
			}
		} else {
			wl_display_cancel_read(display);
		}
		if (wl_display_dispatch_pending(display) < 0 ||
				(fds[0].revents & (POLLHUP | POLLERR))) {
			return CLIENT_LOST;
		}
		if (fds[1].revents & POLLIN) {
			break;
		}
	}
	return CLIENT_DONE;
}

struct wl_buffer *client_shm_buffer(struct wl_shm *shm, const char *name, int32_t width,
		int32_t height, int32_t stride, uint32_t format, void **pixels, size_t *size) {
	*size = (size_t)stride * (size_t)height;
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0) {
		return NULL;
	}
	struct wl_buffer *buffer = NULL;
	if (ftruncate(fd, (off_t)*size) < 0) {
		goto out;
	}
	*pixels = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*pixels == MAP_FAILED) {
		*pixels = NULL;
		goto out;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)*size);
	buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, format);
	wl_shm_pool_destroy(pool);
out:
	close(fd);
	return buffer;
}
