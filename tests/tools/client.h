/* What the test clients share: their signals, their event loop, a buffer in shared memory. */
#ifndef VEIL_TESTS_TOOLS_CLIENT_H
#define VEIL_TESTS_TOOLS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wl_buffer;
struct wl_display;
struct wl_shm;

/* Blocks SIGTERM and SIGINT and returns a signalfd that reads them; -1 (said on stderr). */
int client_signals(const char *name);

enum client_end {
	CLIENT_DONE, /* *done became true, or a signal came */
	CLIENT_LOST, /* the compositor went */
	CLIENT_FAILED, /* poll failed */
};

/* Dispatches the display's events until *done, a signal on signal_fd, or the end. */
enum client_end client_run(struct wl_display *display, int signal_fd, const bool *done);

/*
 * A width x height buffer of format in a memfd named name, mapped at *pixels (size bytes,
 * the caller's to munmap()); NULL when memory is short.
 */
struct wl_buffer *client_shm_buffer(struct wl_shm *shm, const char *name, int32_t width,
	int32_t height, int32_t stride, uint32_t format, void **pixels, size_t *size);

#endif
