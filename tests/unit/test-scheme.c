/*
 * veil_scene_set_dark() through the public API, on a headless output: a setting with `dark`
 * shows its second picture while the scene is dark and its first again when it is light; the
 * status says the scheme; a setting without `dark` keeps its picture. The wallpaper is a PNG
 * given on the command line (examples/wallpaper.png); the dark picture is a copy of it named
 * night.png (another file: the status's "file" tells them apart). No scene output: nothing is
 * drawn, the status alone is checked (the pixels are test-transition-scheme.py's).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "check.h"

/* Waits until the output's status has want in it; returns whether it came. */
static bool wait_status(struct wl_event_loop *loop, struct veil_scene *scene, const char *name,
		const char *want) {
	for (int i = 0; i < 500; i++) {
		char *json = veil_scene_status_json(scene, name);
		bool found = json != NULL && strstr(json, want) != NULL;
		if (found || i == 499) {
			if (!found) {
				fprintf(stderr, "%s: no %s in %s\n", name, want, json);
			}
			free(json);
			return found;
		}
		free(json);
		wl_event_loop_dispatch(loop, 10);
	}
	return false;
}

static bool copy_file(const char *from, const char *to) {
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	bool ok = in != NULL && out != NULL;
	char buf[65536];
	size_t n;
	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		ok = fwrite(buf, 1, n, out) == n;
	}
	if (in != NULL) {
		fclose(in);
	}
	if (out != NULL) {
		ok = fclose(out) == 0 && ok;
	}
	return ok;
}

static bool enable(struct wlr_output *output, struct wlr_allocator *allocator,
		struct wlr_renderer *renderer) {
	if (!wlr_output_init_render(output, allocator, renderer)) {
		return false;
	}
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	bool ok = wlr_output_commit_state(output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

static int run(struct veil_scene *scene, const char *name, int argc, char *argv[]) {
	char *message = NULL;
	int ret = veil_scene_command(scene, name, argc, argv, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	free(message);
	return ret;
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: test-scheme WALLPAPER.png\n");
		return 2;
	}
	char dir[] = "/tmp/veil-test-scheme-XXXXXX";
	if (!CHECK(mkdtemp(dir) != NULL)) {
		return check_summary("scheme");
	}
	char night[sizeof(dir) + 16];
	snprintf(night, sizeof(night), "%s/night.png", dir);
	CHECK(copy_file(argv[1], night));

	wlr_log_init(WLR_ERROR, NULL);
	struct wl_display *display = wl_display_create();
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	struct wlr_backend *backend = wlr_headless_backend_create(loop);
	struct wlr_renderer *renderer = wlr_pixman_renderer_create();
	struct wlr_allocator *allocator = wlr_allocator_autocreate(backend, renderer);
	struct wlr_scene *wlr_scene = wlr_scene_create();
	struct wlr_output *out1 = wlr_headless_add_output(backend, 320, 240);
	struct wlr_output *out2 = wlr_headless_add_output(backend, 200, 100);
	struct veil_scene *scene = veil_scene_create(display, renderer);
	if (!CHECK(scene != NULL && allocator != NULL && out1 != NULL && out2 != NULL) ||
			!CHECK(enable(out1, allocator, renderer) && enable(out2, allocator, renderer))) {
		return check_summary("scheme");
	}
	CHECK(veil_scene_add_output(scene, out1, &wlr_scene->tree));
	CHECK(veil_scene_add_output(scene, out2, &wlr_scene->tree));

	char *with_dark[] = { "veil", argv[1], "fill", "dark", night };
	char *without[] = { "veil", argv[1], "fit" };
	run(scene, out1->name, 5, with_dark);
	run(scene, out2->name, 3, without);
	/* json-c writes / as \/: the names' ends tell the files apart. */
	const char *light_file = "wallpaper.png\",", *dark_file = "night.png\",";
	CHECK(wait_status(loop, scene, out1->name, light_file));
	CHECK(wait_status(loop, scene, out1->name, "\"scheme\":\"light\""));

	veil_scene_set_dark(scene, true);
	CHECK(wait_status(loop, scene, out1->name, dark_file));
	CHECK(wait_status(loop, scene, out1->name, "\"loading\":null"));
	CHECK(wait_status(loop, scene, out1->name, "\"scheme\":\"dark\""));
	CHECK(wait_status(loop, scene, out2->name, "\"scheme\":\"dark\""));
	CHECK(wait_status(loop, scene, out2->name, light_file));
	/* Again: nothing to do. */
	veil_scene_set_dark(scene, true);
	CHECK(wait_status(loop, scene, out1->name, dark_file));

	veil_scene_set_dark(scene, false);
	CHECK(wait_status(loop, scene, out1->name, light_file));
	CHECK(wait_status(loop, scene, out1->name, "\"scheme\":\"light\""));
	CHECK(wait_status(loop, scene, out2->name, light_file));

	/* A NULL scene (veil_scene_create() failed) is no crash. */
	veil_scene_set_dark(NULL, true);

	veil_scene_destroy(scene);
	wlr_scene_node_destroy(&wlr_scene->tree.node);
	wlr_allocator_destroy(allocator);
	wlr_renderer_destroy(renderer);
	wlr_backend_destroy(backend);
	wl_display_destroy(display);
	unlink(night);
	rmdir(dir);
	return check_summary("scheme");
}
