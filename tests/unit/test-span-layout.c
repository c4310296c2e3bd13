/*
 * veil_scene_set_output_layout() through the public API, on two headless outputs: `span`
 * without a layout fails with a sentence and changes nothing; with one, the status's canvas is
 * the outputs' bounding box and follows the layout's change signal (an output moved, removed,
 * added back); a still is decoded for the canvas; a layout destroyed under veil is forgotten.
 * The scene has no scene outputs: the nodes are placed but nothing is shown. The wallpaper is
 * a PNG given on the command line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "check.h"

static int command(struct veil_scene *scene, const char *file, char **message) {
	char *argv[] = { "veil", (char *)file, "fill", "span" };
	return veil_scene_command(scene, "*", 4, argv, message);
}

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

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: test-span-layout WALLPAPER.png\n");
		return 2;
	}
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
		return check_summary("span-layout");
	}
	CHECK(veil_scene_add_output(scene, out1, &wlr_scene->tree));
	CHECK(veil_scene_add_output(scene, out2, &wlr_scene->tree));

	/* No layout given: refused with a sentence, and nothing loads. */
	char *message = NULL;
	CHECK(command(scene, argv[1], &message) == -EINVAL);
	CHECK(message != NULL && strstr(message, "span needs the compositor's output layout"),
		"%s", message != NULL ? message : "(null)");
	free(message);
	/* The dry run says the same. */
	char *check_argv[] = { "veil", argv[1], "fill", "span" };
	message = NULL;
	CHECK(veil_scene_check(scene, 4, check_argv, &message) == -EINVAL);
	CHECK(message != NULL && strstr(message, "output layout"), "%s", message ? message : "");
	free(message);
	CHECK(wait_status(loop, scene, out1->name, "\"kind\":\"none\""));
	CHECK(wait_status(loop, scene, out1->name, "span needs the compositor's output layout"));

	struct wlr_output_layout *layout = wlr_output_layout_create(display);
	veil_scene_set_output_layout(scene, layout);
	wlr_output_layout_add(layout, out1, 0, 0);
	wlr_output_layout_add(layout, out2, 320, 0);
	message = NULL;
	CHECK(command(scene, argv[1], &message) == 0, "%s", message != NULL ? message : "");
	free(message);
	message = NULL;
	CHECK(veil_scene_check(scene, 4, check_argv, &message) == 0, "%s", message ? message : "");
	free(message);
	const char *both = "\"span\":{\"x\":0,\"y\":0,\"width\":520,\"height\":240}";
	CHECK(wait_status(loop, scene, out1->name, "\"kind\":\"image\""));
	CHECK(wait_status(loop, scene, out1->name, both));
	CHECK(wait_status(loop, scene, out2->name, both));
	/* The 1920x1080 still decoded to cover the canvas, not the largest output (320x240). */
	CHECK(wait_status(loop, scene, out1->name, "\"source_size\":{\"width\":520,"));

	/* The layout's change signal: moved, removed, added back. */
	wlr_output_layout_add(layout, out2, 400, 200);
	const char *moved = "\"span\":{\"x\":0,\"y\":0,\"width\":600,\"height\":300}";
	CHECK(wait_status(loop, scene, out1->name, moved));
	CHECK(wait_status(loop, scene, out2->name, moved));
	wlr_output_layout_remove(layout, out2);
	CHECK(wait_status(loop, scene, out1->name,
		"\"span\":{\"x\":0,\"y\":0,\"width\":320,\"height\":240}"));
	/* Outside the layout: spanning, but no canvas. */
	CHECK(wait_status(loop, scene, out2->name, "\"span\":{}"));
	wlr_output_layout_add(layout, out2, -200, 0);
	const char *left = "\"span\":{\"x\":-200,\"y\":0,\"width\":520,\"height\":240}";
	CHECK(wait_status(loop, scene, out1->name, left));
	CHECK(wait_status(loop, scene, out2->name, left));

	/* Destroyed under veil: forgotten, and span is refused again. */
	wlr_output_layout_destroy(layout);
	CHECK(wait_status(loop, scene, out1->name, "\"span\":{}"));
	message = NULL;
	CHECK(command(scene, argv[1], &message) == -EINVAL);
	free(message);

	veil_scene_destroy(scene);
	wlr_scene_node_destroy(&wlr_scene->tree.node);
	wlr_backend_destroy(backend);
	wlr_allocator_destroy(allocator);
	wlr_renderer_destroy(renderer);
	wl_display_destroy(display);
	return check_summary("span-layout");
}
