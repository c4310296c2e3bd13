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
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/box.h>
#include <veil/veil.h>
#include "check.h"
#include "headless.h"

static void run(struct veil_scene *scene, const char *name, int argc, char *argv[]) {
	char *message = NULL;
	CHECK(veil_scene_command(scene, name, argc, argv, &message) == 0, "%s",
		message != NULL ? message : "");
	free(message);
}

int main(void) {
	struct headless h = {0};
	bool made = headless_init(&h);
	struct wlr_output *output = made ? headless_add_output(&h, 320, 240) : NULL;
	if (!CHECK(made && output != NULL)) {
		return check_summary("xray-input");
	}
	struct wlr_scene_output *scene_output = wlr_scene_output_create(h.wlr_scene, output);
	CHECK(veil_scene_add_output(h.scene, output, &h.wlr_scene->tree));
	run(h.scene, output->name, 3, (char *[]){ "veil", "#336699", "solid_color" });
	run(h.scene, output->name, 3, (char *[]){ "veil", "xray", "on" });

	/* The window below, then the window above: its tree, the xray node at its bottom. */
	struct wlr_scene_rect *below = wlr_scene_rect_create(&h.wlr_scene->tree, 200, 150,
		(float[4]){ 1, 0, 0, 1 });
	wlr_scene_node_set_position(&below->node, 20, 20);
	struct wlr_scene_tree *above = wlr_scene_tree_create(&h.wlr_scene->tree);
	wlr_scene_node_set_position(&above->node, 60, 40);
	struct veil_xray *xray = veil_xray_create(h.scene, output, above);
	if (!CHECK(xray != NULL)) {
		return check_summary("xray-input");
	}
	veil_xray_set_box(xray, &(struct wlr_box){ .x = 60, .y = 40, .width = 100, .height = 80 });
	CHECK(headless_wait_status(h.loop, h.scene, output->name, scene_output, "\"shown\":1"));

	/* Inside the node's box and the rect: the rect, not the node. */
	double sx, sy;
	struct wlr_scene_node *hit = wlr_scene_node_at(&h.wlr_scene->tree.node, 100, 80, &sx, &sy);
	CHECK(hit == &below->node, "the node under the pointer is %s",
		hit == NULL ? "none" : hit->type == WLR_SCENE_NODE_BUFFER ? "a buffer" : "another");
	/* Inside the node's box, outside the rect: the wallpaper below (veil's node), not xray's. */
	hit = wlr_scene_node_at(&h.wlr_scene->tree.node, 150, 110, &sx, &sy);
	struct wlr_scene_node *node = veil_xray_node(xray);
	bool in_xray = false;
	for (struct wlr_scene_node *n = hit; n != NULL; n = n->parent != NULL ?
			&n->parent->node : NULL) {
		in_xray = in_xray || n == node;
	}
	CHECK(!in_xray, "the pointer found the xray node");

	veil_xray_destroy(xray);
	headless_finish(&h);
	return check_summary("xray-input");
}
