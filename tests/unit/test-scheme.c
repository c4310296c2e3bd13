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
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <veil/veil.h>
#include "check.h"
#include "headless.h"

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

	struct headless h = {0};
	bool made = headless_init(&h);
	struct wlr_output *out1 = made ? headless_add_output(&h, 320, 240) : NULL;
	struct wlr_output *out2 = made ? headless_add_output(&h, 200, 100) : NULL;
	if (!CHECK(made && out1 != NULL && out2 != NULL)) {
		return check_summary("scheme");
	}
	CHECK(veil_scene_add_output(h.scene, out1, &h.wlr_scene->tree));
	CHECK(veil_scene_add_output(h.scene, out2, &h.wlr_scene->tree));

	char *with_dark[] = { "veil", argv[1], "fill", "dark", night };
	char *without[] = { "veil", argv[1], "fit" };
	run(h.scene, out1->name, 5, with_dark);
	run(h.scene, out2->name, 3, without);
	/* json-c writes / as \/: the names' ends tell the files apart. */
	const char *light_file = "wallpaper.png\",", *dark_file = "night.png\",";
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, light_file));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"scheme\":\"light\""));

	veil_scene_set_dark(h.scene, true);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, dark_file));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"loading\":null"));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"scheme\":\"dark\""));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, "\"scheme\":\"dark\""));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, light_file));
	/* Again: nothing to do. */
	veil_scene_set_dark(h.scene, true);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, dark_file));

	veil_scene_set_dark(h.scene, false);
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, light_file));
	CHECK(headless_wait_status(h.loop, h.scene, out1->name, NULL, "\"scheme\":\"light\""));
	CHECK(headless_wait_status(h.loop, h.scene, out2->name, NULL, light_file));

	/* A NULL h.scene (veil_scene_create() failed) is no crash. */
	veil_scene_set_dark(NULL, true);

	headless_finish(&h);
	unlink(night);
	rmdir(dir);
	return check_summary("scheme");
}
