/*
 * The smallest compositor that shows wallpapers with an installed veil: compiled by
 * tests/install/run.sh with `pkg-config --cflags --libs veil` alone, against the installed
 * headers and library, and run against the installed libveil and veil-decoder.
 *
 * tiny-compositor STILL #rrggbb VIDEO GREY HELPER: a headless output of 320x240, rendered by
 * pixman through the scene. The still must cover the output in #rrggbb, the video (one grey
 * level, GREY as 0-255 after conversion) must play, and a child process of this compositor must
 * be HELPER (the veil-decoder libveil found by itself). Prints one line per check.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>

/* DRM_FORMAT_XRGB8888 and ARGB8888 (drm_fourcc.h), what pixman's buffers hold here. */
#define FOURCC(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
	(uint32_t)(d) << 24)
#define XRGB8888 FOURCC('X', 'R', '2', '4')
#define ARGB8888 FOURCC('A', 'R', '2', '4')

static int failed;

static void check(bool ok, const char *what, const char *detail) {
	printf("%s: %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] != '\0' ? ": " : "", detail);
	if (!ok) {
		failed++;
	}
}

struct server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_scene *scene;
	struct wlr_scene_output *scene_output;
	struct wlr_output *output;
	struct veil_scene *veil;
};

/* Renders the output once; returns the pixel at its centre as 0xRRGGBB, or -1. */
static long render_centre(struct server *server) {
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	long pixel = -1;
	if (wlr_scene_output_build_state(server->scene_output, &state, NULL) &&
			state.buffer != NULL) {
		void *data;
		uint32_t format;
		size_t stride;
		if (wlr_buffer_begin_data_ptr_access(state.buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ,
				&data, &format, &stride)) {
			if (format == XRGB8888 || format == ARGB8888) {
				const uint8_t *row = (const uint8_t *)data +
					(size_t)(state.buffer->height / 2) * stride;
				uint32_t px;
				memcpy(&px, row + (state.buffer->width / 2) * 4, 4);
				pixel = px & 0xffffff;
			}
			wlr_buffer_end_data_ptr_access(state.buffer);
		}
		wlr_output_commit_state(server->output, &state);
	}
	wlr_output_state_finish(&state);
	return pixel;
}

/* Dispatches events and renders until the output's status has all of want; the last status. */
static char *wait_status(struct server *server, const char *const want[], int seconds) {
	char *json = NULL;
	for (int i = 0; i < seconds * 50; i++) {
		free(json);
		json = veil_scene_status_json(server->veil, server->output->name);
		bool all = json != NULL;
		for (int w = 0; all && want[w] != NULL; w++) {
			all = strstr(json, want[w]) != NULL;
		}
		if (all) {
			return json;
		}
		wl_event_loop_dispatch(server->loop, 20);
		render_centre(server);
	}
	return json;
}

static bool close_to(long pixel, long want, int tolerance) {
	if (pixel < 0) {
		return false;
	}
	for (int shift = 0; shift < 24; shift += 8) {
		int a = (pixel >> shift) & 0xff, b = (want >> shift) & 0xff;
		if (abs(a - b) > tolerance) {
			return false;
		}
	}
	return true;
}

static bool set_wallpaper(struct server *server, const char *file) {
	char *argv[] = { "veil", (char *)file, "fill" };
	char *message = NULL;
	int ret = veil_scene_command(server->veil, server->output->name, 3, argv, &message);
	check(ret == 0, "veil_scene_command", message != NULL ? message : file);
	free(message);
	return ret == 0;
}

/* Whether a child process of this one runs the program at path. */
static bool child_runs(const char *path, char *seen, size_t size) {
	DIR *proc = opendir("/proc");
	bool found = false;
	seen[0] = '\0';
	for (struct dirent *d; proc != NULL && (d = readdir(proc)) != NULL;) {
		char file[PATH_MAX], buf[512], exe[PATH_MAX];
		snprintf(file, sizeof(file), "/proc/%s/stat", d->d_name);
		FILE *f = fopen(file, "r");
		if (f == NULL) {
			continue;
		}
		int ppid = -1;
		char *close_paren = NULL;
		if (fgets(buf, sizeof(buf), f) != NULL && (close_paren = strrchr(buf, ')')) != NULL) {
			sscanf(close_paren + 1, " %*c %d", &ppid);
		}
		fclose(f);
		if (ppid != getpid()) {
			continue;
		}
		snprintf(file, sizeof(file), "/proc/%s/exe", d->d_name);
		ssize_t len = readlink(file, exe, sizeof(exe) - 1);
		if (len < 0) {
			continue;
		}
		exe[len] = '\0';
		size_t used = strlen(seen);
		snprintf(seen + used, size - used, "%s%s", used > 0 ? " " : "", exe);
		found = found || strcmp(exe, path) == 0;
	}
	if (proc != NULL) {
		closedir(proc);
	}
	return found;
}

int main(int argc, char *argv[]) {
	if (argc != 6) {
		fprintf(stderr, "usage: %s STILL #rrggbb VIDEO GREY HELPER\n", argv[0]);
		return 2;
	}
	long still_colour = strtol(argv[2] + 1, NULL, 16);
	long grey = strtol(argv[4], NULL, 10);
	const char *helper = argv[5];
	wlr_log_init(WLR_INFO, NULL);

	struct server server = {0};
	server.display = wl_display_create();
	server.loop = wl_display_get_event_loop(server.display);
	struct wlr_backend *backend = wlr_headless_backend_create(server.loop);
	struct wlr_renderer *renderer = wlr_pixman_renderer_create();
	struct wlr_allocator *allocator = wlr_allocator_autocreate(backend, renderer);
	server.scene = wlr_scene_create();
	struct wlr_scene_tree *background = wlr_scene_tree_create(&server.scene->tree);
	server.output = wlr_headless_add_output(backend, 320, 240);
	if (backend == NULL || renderer == NULL || allocator == NULL || server.output == NULL) {
		check(false, "headless backend, pixman renderer and an output", "");
		return 1;
	}
	wlr_output_init_render(server.output, allocator, renderer);
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	wlr_output_commit_state(server.output, &state);
	wlr_output_state_finish(&state);
	server.scene_output = wlr_scene_output_create(server.scene, server.output);
	wlr_backend_start(backend);

	/* Five calls: create, add the output, a command, the status, destroy. */
	server.veil = veil_scene_create(server.display, renderer);
	check(server.veil != NULL, "veil_scene_create", "");
	if (server.veil == NULL) {
		return 1;
	}
	check(veil_scene_add_output(server.veil, server.output, background),
		"veil_scene_add_output", "");

	char detail[PATH_MAX * 4];
	if (set_wallpaper(&server, argv[1])) {
		const char *want[] = { "\"kind\":\"image\"", "\"state\":\"shown\"",
			"\"loading\":null", NULL };
		char *json = wait_status(&server, want, 20);
		check(json != NULL && strstr(json, "\"state\":\"shown\"") != NULL,
			"the still is shown", json != NULL ? json : "no status");
		free(json);
		long pixel = render_centre(&server);
		snprintf(detail, sizeof(detail), "#%06lx, want %s", pixel, argv[2]);
		check(close_to(pixel, still_colour, 2), "the still's colour on screen", detail);
	}

	if (set_wallpaper(&server, argv[3])) {
		const char *want[] = { "\"kind\":\"video\"", "\"state\":\"shown\"",
			"\"loading\":null", NULL };
		char *json = wait_status(&server, want, 30);
		check(json != NULL && strstr(json, "\"kind\":\"video\"") != NULL &&
			strstr(json, "\"state\":\"shown\"") != NULL, "the video is shown",
			json != NULL ? json : "no status");
		free(json);
		/* It plays on: the frames put on the output's nodes go up. */
		const char *more[] = { "\"frames\":", NULL };
		json = wait_status(&server, more, 1);
		char *frames = json != NULL ? strstr(json, "\"frames\":") : NULL;
		long before = frames != NULL ? strtol(frames + 9, NULL, 10) : -1;
		free(json);
		/* At least three more frames within 10 s (a 10 fps video: 1 s on a quiet machine). */
		long after = -1;
		json = NULL;
		for (int i = 0; i < 500 && (before < 0 || after < before + 3); i++) {
			wl_event_loop_dispatch(server.loop, 20);
			render_centre(&server);
			free(json);
			json = veil_scene_status_json(server.veil, server.output->name);
			frames = json != NULL ? strstr(json, "\"frames\":") : NULL;
			after = frames != NULL ? strtol(frames + 9, NULL, 10) : -1;
		}
		snprintf(detail, sizeof(detail), "frames %ld then %ld", before, after);
		check(before >= 0 && after >= before + 3, "the video plays", detail);
		free(json);
		long pixel = render_centre(&server);
		long want_grey = grey << 16 | grey << 8 | grey;
		snprintf(detail, sizeof(detail), "#%06lx, want #%06lx", pixel, want_grey);
		check(close_to(pixel, want_grey, 6), "the video's colour on screen", detail);
		char seen[PATH_MAX * 3];
		bool found = child_runs(helper, seen, sizeof(seen));
		snprintf(detail, sizeof(detail), "children: %s", seen[0] != '\0' ? seen : "none");
		check(found, "the video plays in the installed veil-decoder", detail);
	}

	veil_scene_destroy(server.veil);
	wlr_scene_node_destroy(&server.scene->tree.node);
	wlr_backend_destroy(backend);
	wlr_allocator_destroy(allocator);
	wlr_renderer_destroy(renderer);
	wl_display_destroy(server.display);
	printf("%s\n", failed == 0 ? "all passed" : "some failed");
	return failed == 0 ? 0 : 1;
}
