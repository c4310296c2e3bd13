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
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <veil/veil.h>
#include "check.h"
#include "headless.h"

static int command(struct veil_scene *scene, const char *file, char **message) {
	char *argv[] = { "veil", (char *)file, "fill", "span" };
	return veil_scene_command(scene, "*", 4, argv, message);
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: test-span-layout WALLPAPER.png\n");
		return 2;
	}
	struct headless h = {0};
	bool made = headless_init(&h);
	struct wlr_output *out1 = made ? headless_add_output(&h, 320, 240) : NULL;
	struct wlr_output *out2 = made ? headless_add_output(&h, 200, 100) : NULL;
	if (!CHECK(made && out1 != NULL && out2 != NULL)) {
		return check_summary("span-layout");
	}
	CHECK(veil_scene_add_output(h.scene, out1, &h.wlr_scene->tree));
	CHECK(veil_scene_add_output(h.scene, out2, &h.wlr_scene->tree));

	/* No layout given: refused with a sentence, and nothing loads. */
	char *message = NULL;
	CHECK(command(h.scene, argv[1], &message) == -EINVAL);
	CHECK(message != NULL && strstr(message, "span needs the compositor's output layout"),
		"%s", message != NULL ? message : "(null)");
	free(message);
	/* The dry run says the same. */
	char *check_argv[] = { "veil", argv[1], "fill", "span" };
	message = NULL;
	CHECK(veil_scene_check(h.scene, 4, check_argv, &message) == -EINVAL);
	CHECK(message != NULL && strstr(message, "output layout"), "%s", message ? message : "");
	free(message);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"kind\":\"none\""));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL,
		"span needs the compositor's output layout"));

	struct wlr_output_layout *layout = wlr_output_layout_create(h.display);
	veil_scene_set_output_layout(h.scene, layout);
	wlr_output_layout_add(layout, out1, 0, 0);
	wlr_output_layout_add(layout, out2, 320, 0);
	message = NULL;
	CHECK(command(h.scene, argv[1], &message) == 0, "%s", message != NULL ? message : "");
	free(message);
	message = NULL;
	CHECK(veil_scene_check(h.scene, 4, check_argv, &message) == 0, "%s", message ? message : "");
	free(message);
	const char *both = "\"span\":{\"x\":0,\"y\":0,\"width\":520,\"height\":240}";
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"kind\":\"image\""));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, both));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, both));
	/* The 1920x1080 still decoded to cover the canvas, not the largest output (320x240). */
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL,
		"\"source_size\":{\"width\":520,"));

	/* The layout's change signal: moved, removed, added back. */
	wlr_output_layout_add(layout, out2, 400, 200);
	const char *moved = "\"span\":{\"x\":0,\"y\":0,\"width\":600,\"height\":300}";
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, moved));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, moved));
	wlr_output_layout_remove(layout, out2);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL,
		"\"span\":{\"x\":0,\"y\":0,\"width\":320,\"height\":240}"));
	/* Outside the layout: spanning, but no canvas. */
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, "\"span\":{}"));
	wlr_output_layout_add(layout, out2, -200, 0);
	const char *left = "\"span\":{\"x\":-200,\"y\":0,\"width\":520,\"height\":240}";
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, left));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, left));

	/* Destroyed under veil: forgotten, and span is refused again. */
	wlr_output_layout_destroy(layout);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"span\":{}"));
	message = NULL;
	CHECK(command(h.scene, argv[1], &message) == -EINVAL);
	free(message);

	headless_finish(&h);
	return check_summary("span-layout");
}
