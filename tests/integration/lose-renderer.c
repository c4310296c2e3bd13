/*
 * Preloaded (LD_PRELOAD) into a patched sway or labwc by their tests: a GPU reset on demand.
 * The headless backend has no GPU, so its renderer is never lost by itself; this library makes
 * the compositor's renderer emit its "lost" event, as wlroots does after a reset, and the
 * compositor's own handle_renderer_lost() does the rest (a new renderer and allocator,
 * veil_scene_set_renderer(), the old renderer destroyed).
 *
 *   SIGUSR2  the renderer that wlr_renderer_autocreate() last gave the compositor emits "lost".
 *   SIGUSR1  veil_scene_status_json(scene, NULL) is written to $VEIL_TEST_STATUS_FILE (through
 *            a temporary file and rename()), for a compositor whose own status lacks a field.
 *
 * The functions it wraps pass their arguments and results through unchanged. Signals reach the
 * compositor's thread through a pipe on its event loop (whichever thread the kernel picks, the
 * handler only writes the signal's number there), so the event is emitted between two
 * dispatches, like wlroots' own. Each step is written to stderr (the compositor's log), starting
 * with "lose-renderer:", so that a test can tell that it happened.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/render/wlr_renderer.h>

struct veil_scene;

static struct wlr_renderer *current;
static struct veil_scene *scene;
static struct wl_event_source *source;
static struct wl_listener display_destroy;
static int pipe_fds[2] = { -1, -1 };
static int losses;

static void *next(const char *name) {
	void *sym = dlsym(RTLD_NEXT, name);
	if (sym == NULL) {
		fprintf(stderr, "lose-renderer: no %s after this library\n", name);
		abort();
	}
	return sym;
}

static void on_signal(int signo) {
	int saved = errno;
	unsigned char byte = (unsigned char)signo;
	if (pipe_fds[1] >= 0 && write(pipe_fds[1], &byte, 1) < 0) {
		/* The pipe is full: requests are already waiting. */
	}
	errno = saved;
}

static void lose(void) {
	if (current == NULL) {
		fprintf(stderr, "lose-renderer: SIGUSR2, but the compositor has no renderer\n");
		return;
	}
	losses++;
	fprintf(stderr, "lose-renderer: loss %d: renderer %p emits lost\n", losses,
		(void *)current);
	/* As wlroots' GLES2 and Vulkan renderers emit it. */
	wl_signal_emit_mutable(&current->events.lost, NULL);
	fprintf(stderr, "lose-renderer: loss %d: lost emitted\n", losses);
}

static void write_status(void) {
	const char *path = getenv("VEIL_TEST_STATUS_FILE");
	if (path == NULL || path[0] == '\0') {
		fprintf(stderr, "lose-renderer: SIGUSR1, but VEIL_TEST_STATUS_FILE is not set\n");
		return;
	}
	char *(*status_json)(struct veil_scene *, const char *) =
		(char *(*)(struct veil_scene *, const char *))next("veil_scene_status_json");
	char *json = scene != NULL ? status_json(scene, NULL) : NULL;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL) {
		fprintf(stderr, "lose-renderer: cannot write %s: %s\n", tmp, strerror(errno));
		free(json);
		return;
	}
	fputs(json != NULL ? json : "null", f);
	fputc('\n', f);
	free(json);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "lose-renderer: cannot write %s: %s\n", path, strerror(errno));
	}
}

static int handle_pipe(int fd, uint32_t mask, void *data) {
	(void)mask;
	(void)data;
	unsigned char bytes[16];
	ssize_t n;
	while ((n = read(fd, bytes, sizeof(bytes))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (bytes[i] == SIGUSR2) {
				lose();
			} else if (bytes[i] == SIGUSR1) {
				write_status();
			}
		}
	}
	return 0;
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	(void)listener;
	(void)data;
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	wl_list_remove(&display_destroy.link);
	wl_event_source_remove(source);
	source = NULL;
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	pipe_fds[0] = pipe_fds[1] = -1;
}

struct wl_display *wl_display_create(void) {
	struct wl_display *(*real)(void) = (struct wl_display *(*)(void))next("wl_display_create");
	struct wl_display *display = real();
	if (display == NULL || source != NULL) {
		return display;
	}
	if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "lose-renderer: pipe2: %s\n", strerror(errno));
		return display;
	}
	source = wl_event_loop_add_fd(wl_display_get_event_loop(display), pipe_fds[0],
		WL_EVENT_READABLE, handle_pipe, NULL);
	display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &display_destroy);
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	fprintf(stderr, "lose-renderer: ready (SIGUSR2: lose the renderer, SIGUSR1: status)\n");
	return display;
}

/* One per renderer the compositor made: says when it goes. */
struct watch {
	struct wl_listener destroy;
	struct wlr_renderer *renderer;
};

static void handle_renderer_destroy(struct wl_listener *listener, void *data) {
	(void)data;
	struct watch *watch = wl_container_of(listener, watch, destroy);
	fprintf(stderr, "lose-renderer: renderer %p destroyed\n", (void *)watch->renderer);
	if (current == watch->renderer) {
		current = NULL;
	}
	wl_list_remove(&watch->destroy.link);
	free(watch);
}

struct wlr_renderer *wlr_renderer_autocreate(struct wlr_backend *backend) {
	struct wlr_renderer *(*real)(struct wlr_backend *) =
		(struct wlr_renderer *(*)(struct wlr_backend *))next("wlr_renderer_autocreate");
	struct wlr_renderer *renderer = real(backend);
	if (renderer == NULL) {
		return NULL;
	}
	struct watch *watch = calloc(1, sizeof(*watch));
	if (watch == NULL) {
		abort();
	}
	watch->renderer = renderer;
	watch->destroy.notify = handle_renderer_destroy;
	wl_signal_add(&renderer->events.destroy, &watch->destroy);
	current = renderer;
	fprintf(stderr, "lose-renderer: the compositor made renderer %p\n", (void *)renderer);
	return renderer;
}

struct veil_scene *veil_scene_create(struct wl_display *display,
		struct wlr_renderer *renderer) {
	struct veil_scene *(*real)(struct wl_display *, struct wlr_renderer *) =
		(struct veil_scene *(*)(struct wl_display *, struct wlr_renderer *))
		next("veil_scene_create");
	scene = real(display, renderer);
	return scene;
}

void veil_scene_destroy(struct veil_scene *doomed) {
	void (*real)(struct veil_scene *) = (void (*)(struct veil_scene *))
		next("veil_scene_destroy");
	if (doomed == scene) {
		scene = NULL;
	}
	real(doomed);
}
