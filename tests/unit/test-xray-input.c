/*
 * An xray node takes no pointer input, through the public API on a headless output: with a
 * solid colour as the wallpaper and `xray on`, a node is shown (the status's "shown") over a
 * rect standing for the window below, and wlr_scene_node_at() inside the node's box finds that
 * rect, not the node. A compositor finds a window by what is under the pointer; a node that
 * took input would hide the window below wherever the window above has no surface (outside its
 * input region, a title bar's rounded corner).
 */
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
#include <wlr/types/wlr_scene.h>
#include <wlr/util/box.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "check.h"

/* Commits the scene's output until its status has want in it; returns whether it came. */
static bool wait_status(struct wl_event_loop *loop, struct veil_scene *scene,
		struct wlr_scene_output *scene_output, const char *want) {
	const char *name = scene_output->output->name;
	for (int i = 0; i < 500; i++) {
		wlr_scene_output_commit(scene_output, NULL);
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

static void run(struct veil_scene *scene, const char *name, int argc, char *argv[]) {
	char *message = NULL;
	CHECK(veil_scene_command(scene, name, argc, argv, &message) == 0, "%s",
		message != NULL ? message : "");
	free(message);
}

int main(void) {
	wlr_log_init(WLR_ERROR, NULL);
	struct wl_display *display = wl_display_create();
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	struct wlr_backend *backend = wlr_headless_backend_create(loop);
	struct wlr_renderer *renderer = wlr_pixman_renderer_create();
	struct wlr_allocator *allocator = wlr_allocator_autocreate(backend, renderer);
	struct wlr_scene *wlr_scene = wlr_scene_create();
	struct wlr_output *output = wlr_headless_add_output(backend, 320, 240);
	struct veil_scene *scene = veil_scene_create(display, renderer);
	if (!CHECK(scene != NULL && allocator != NULL && output != NULL) ||
			!CHECK(enable(output, allocator, renderer))) {
		return check_summary("xray-input");
	}
	struct wlr_scene_output *scene_output = wlr_scene_output_create(wlr_scene, output);
	CHECK(veil_scene_add_output(scene, output, &wlr_scene->tree));
	run(scene, output->name, 3, (char *[]){ "veil", "#336699", "solid_color" });
	run(scene, output->name, 3, (char *[]){ "veil", "xray", "on" });

	/* The window below, then the window above: its tree, the xray node at its bottom. */
	struct wlr_scene_rect *below = wlr_scene_rect_create(&wlr_scene->tree, 200, 150,
		(float[4]){ 1, 0, 0, 1 });
	wlr_scene_node_set_position(&below->node, 20, 20);
	struct wlr_scene_tree *above = wlr_scene_tree_create(&wlr_scene->tree);
	wlr_scene_node_set_position(&above->node, 60, 40);
	struct veil_xray *xray = veil_xray_create(scene, output, above);
	if (!CHECK(xray != NULL)) {
		return check_summary("xray-input");
	}
	veil_xray_set_box(xray, &(struct wlr_box){ .x = 60, .y = 40, .width = 100, .height = 80 });
	CHECK(wait_status(loop, scene, scene_output, "\"shown\":1"));

	/* Inside the node's box and the rect: the rect, not the node. */
	double sx, sy;
	struct wlr_scene_node *hit = wlr_scene_node_at(&wlr_scene->tree.node, 100, 80, &sx, &sy);
	CHECK(hit == &below->node, "the node under the pointer is %s",
		hit == NULL ? "none" : hit->type == WLR_SCENE_NODE_BUFFER ? "a buffer" : "another");
	/* Inside the node's box, outside the rect: the wallpaper below (veil's node), not xray's. */
	hit = wlr_scene_node_at(&wlr_scene->tree.node, 150, 110, &sx, &sy);
	struct wlr_scene_node *node = veil_xray_node(xray);
	bool in_xray = false;
	for (struct wlr_scene_node *n = hit; n != NULL; n = n->parent != NULL ?
			&n->parent->node : NULL) {
		in_xray = in_xray || n == node;
	}
	CHECK(!in_xray, "the pointer found the xray node");

	veil_xray_destroy(xray);
	veil_scene_destroy(scene);
	wlr_scene_node_destroy(&wlr_scene->tree.node);
	wlr_allocator_destroy(allocator);
	wlr_renderer_destroy(renderer);
	wlr_backend_destroy(backend);
	wl_display_destroy(display);
	return check_summary("xray-input");
}
