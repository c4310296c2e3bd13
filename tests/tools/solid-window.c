/*
 * solid-window: an xdg-shell window of one opaque colour, for the tests that need a real
 * client's window of a known colour that does not cover its output.
 *
 *   solid-window --color RRGGBB [--alpha AA] [--size WxH] [--app-id ID] [--app-id-shown ID]
 *       [--count]
 *
 * It draws its default size (--size, 320x240 unless given) when the compositor leaves the size
 * to it (a configure of 0x0, or a floating window on sway), else the size configured. It
 * commits only when configured (no frame loop: an idle window gives the compositor nothing to
 * draw), prints `shown` once the compositor has drawn its first frame (the frame callback of
 * that commit) and runs until SIGTERM or SIGINT, or until the compositor closes it.
 *
 * --alpha AA: a translucent window instead, ARGB8888 of that alpha (hex, premultiplied), for
 * the tests of what shows through a window (xray).
 *
 * --app-id-shown ID: once shown, the app_id (and title) become ID, as a client that sets its
 * app_id after mapping does (the compositor's window rules on app_id apply late).
 *
 * --count: a new frame at each frame callback instead, its colour's green and blue channels a
 * counter (RR, then the counter's high and low byte), so that a recorder of the output can tell
 * whether it saw every frame: each frame the compositor draws shows the counter one higher.
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client.h"
#include "xdg-shell-client-protocol.h"

struct window {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_buffer *buffer;
	struct wl_callback *first_frame;
	uint32_t color;
	bool has_alpha;
	uint32_t alpha;
	bool count;
	const char *app_id_shown; /* the app_id once shown, or NULL */
	uint32_t counter;
	struct wl_callback *next_frame;
	int default_width, default_height;
	int width, height; /* of the buffer attached, 0 before */
	int pending_width, pending_height;
	bool shown, closed;
};

static void buffer_release(void *data, struct wl_buffer *buffer) {
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

/* A new buffer of the colour; the one before is destroyed when the compositor releases it. */
static struct wl_buffer *make_buffer(struct window *win, int width, int height) {
	void *data;
	size_t size;
	struct wl_buffer *buffer = client_shm_buffer(win->shm, "solid-window", width, height,
		width * 4, win->has_alpha ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888, &data,
		&size);
	if (buffer == NULL) {
		return NULL;
	}
	uint32_t pixel = 0xff000000 | win->color;
	if (win->has_alpha) {
		uint32_t a = win->alpha, c = win->color;
		uint32_t r = (((c >> 16) & 0xff) * a + 127) / 255;
		uint32_t g = (((c >> 8) & 0xff) * a + 127) / 255;
		uint32_t b = ((c & 0xff) * a + 127) / 255;
		pixel = a << 24 | r << 16 | g << 8 | b;
	}
	uint32_t *pixels = data;
	for (size_t i = 0; i < size / 4; i++) {
		pixels[i] = pixel;
	}
	munmap(data, size);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	return buffer;
}

static void count_frame_done(void *data, struct wl_callback *callback, uint32_t time);

static const struct wl_callback_listener count_frame_listener = {
	.done = count_frame_done,
};

/* The next counter value: a new buffer (the old one is released and destroyed), and the next
 * frame callback. */
static void draw_next_count(struct window *win) {
	win->counter = (win->counter + 1) & 0xffff;
	win->color = (win->color & 0xff0000) | win->counter;
	struct wl_buffer *buffer = make_buffer(win, win->width, win->height);
	if (buffer == NULL) {
		fprintf(stderr, "solid-window: cannot make a buffer\n");
		win->closed = true;
		return;
	}
	win->next_frame = wl_surface_frame(win->surface);
	wl_callback_add_listener(win->next_frame, &count_frame_listener, win);
	wl_surface_attach(win->surface, buffer, 0, 0);
	wl_surface_damage_buffer(win->surface, 0, 0, win->width, win->height);
	wl_surface_commit(win->surface);
}

static void count_frame_done(void *data, struct wl_callback *callback, uint32_t time) {
	struct window *win = data;
	wl_callback_destroy(callback);
	win->next_frame = NULL;
	draw_next_count(win);
}

static void first_frame_done(void *data, struct wl_callback *callback, uint32_t time) {
	struct window *win = data;
	wl_callback_destroy(callback);
	win->first_frame = NULL;
	win->shown = true;
	printf("shown %dx%d\n", win->width, win->height);
	fflush(stdout);
	if (win->app_id_shown != NULL) {
		xdg_toplevel_set_app_id(win->toplevel, win->app_id_shown);
		xdg_toplevel_set_title(win->toplevel, win->app_id_shown);
		printf("app_id %s\n", win->app_id_shown);
		fflush(stdout);
	}
	if (win->count) {
		draw_next_count(win);
	}
}

static const struct wl_callback_listener first_frame_listener = {
	.done = first_frame_done,
};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial) {
	struct window *win = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	int width = win->pending_width > 0 ? win->pending_width : win->default_width;
	int height = win->pending_height > 0 ? win->pending_height : win->default_height;
	if (width != win->width || height != win->height) {
		struct wl_buffer *buffer = make_buffer(win, width, height);
		if (buffer == NULL) {
			fprintf(stderr, "solid-window: cannot make a %dx%d buffer\n", width, height);
			win->closed = true;
			return;
		}
		wl_surface_attach(win->surface, buffer, 0, 0);
		wl_surface_damage_buffer(win->surface, 0, 0, width, height);
		win->width = width;
		win->height = height;
	}
	if (!win->shown && win->first_frame == NULL) {
		win->first_frame = wl_surface_frame(win->surface);
		wl_callback_add_listener(win->first_frame, &first_frame_listener, win);
	}
	wl_surface_commit(win->surface);
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
		int32_t height, struct wl_array *states) {
	struct window *win = data;
	win->pending_width = width;
	win->pending_height = height;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
	struct window *win = data;
	win->closed = true;
}

static void toplevel_configure_bounds(void *data, struct xdg_toplevel *toplevel, int32_t width,
		int32_t height) {
}

static void toplevel_wm_capabilities(void *data, struct xdg_toplevel *toplevel,
		struct wl_array *capabilities) {
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
	.configure_bounds = toplevel_configure_bounds,
	.wm_capabilities = toplevel_wm_capabilities,
};

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct window *win = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		win->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		win->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		win->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface,
			version < 4 ? version : 4);
		xdg_wm_base_add_listener(win->wm_base, &wm_base_listener, win);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static int usage(void) {
	fprintf(stderr, "usage: solid-window --color RRGGBB [--alpha AA] [--size WxH] "
		"[--app-id ID] [--app-id-shown ID] [--count]\n");
	return 2;
}

int main(int argc, char **argv) {
	struct window win = {.default_width = 320, .default_height = 240};
	const char *app_id = "veil-solid-window";
	bool have_color = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--count") == 0) {
			win.count = true;
			continue;
		}
		if (i + 1 >= argc) {
			return usage();
		}
		const char *val = argv[++i];
		char *end;
		if (strcmp(argv[i - 1], "--color") == 0) {
			unsigned long c = strtoul(val[0] == '#' ? val + 1 : val, &end, 16);
			if (*end != '\0' || c > 0xffffff) {
				return usage();
			}
			win.color = (uint32_t)c;
			have_color = true;
		} else if (strcmp(argv[i - 1], "--alpha") == 0) {
			unsigned long a = strtoul(val, &end, 16);
			if (*end != '\0' || a > 0xff) {
				return usage();
			}
			win.alpha = (uint32_t)a;
			win.has_alpha = true;
		} else if (strcmp(argv[i - 1], "--size") == 0) {
			if (sscanf(val, "%dx%d", &win.default_width, &win.default_height) != 2 ||
					win.default_width <= 0 || win.default_height <= 0 ||
					win.default_width > 16384 || win.default_height > 16384) {
				return usage();
			}
		} else if (strcmp(argv[i - 1], "--app-id") == 0) {
			app_id = val;
		} else if (strcmp(argv[i - 1], "--app-id-shown") == 0) {
			win.app_id_shown = val;
		} else {
			return usage();
		}
	}
	if (!have_color) {
		return usage();
	}
	if (win.count) {
		win.color &= 0xff0000;
	}

	int sfd = client_signals("solid-window");
	if (sfd < 0) {
		return 1;
	}

	int status = 1;
	win.display = wl_display_connect(NULL);
	if (win.display == NULL) {
		fprintf(stderr, "solid-window: cannot connect to the Wayland display\n");
		goto out_signal;
	}
	struct wl_registry *registry = wl_display_get_registry(win.display);
	wl_registry_add_listener(registry, &registry_listener, &win);
	if (wl_display_roundtrip(win.display) < 0) {
		goto out_lost;
	}
	if (win.compositor == NULL || win.shm == NULL || win.wm_base == NULL) {
		fprintf(stderr, "solid-window: the compositor lacks wl_compositor, wl_shm or "
			"xdg_wm_base\n");
		goto out_display;
	}
	win.surface = wl_compositor_create_surface(win.compositor);
	win.xdg_surface = xdg_wm_base_get_xdg_surface(win.wm_base, win.surface);
	xdg_surface_add_listener(win.xdg_surface, &xdg_surface_listener, &win);
	win.toplevel = xdg_surface_get_toplevel(win.xdg_surface);
	xdg_toplevel_add_listener(win.toplevel, &toplevel_listener, &win);
	xdg_toplevel_set_app_id(win.toplevel, app_id);
	xdg_toplevel_set_title(win.toplevel, app_id);
	wl_surface_commit(win.surface);

	if (client_run(win.display, sfd, &win.closed) != CLIENT_DONE) {
		goto out_lost;
	}
	status = 0;
	goto out_display;

out_lost:
	fprintf(stderr, "solid-window: the connection to the compositor is gone\n");
out_display:
	wl_display_disconnect(win.display);
out_signal:
	close(sfd);
	return status;
}
