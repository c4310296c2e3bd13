/*
 * veil_scene_set_renderer(): a compositor replaces its renderer (after a GPU reset) while a
 * video plays and a still shows on two headless outputs. The video restarts from the same
 * file for the new renderer, keeping its old frames on screen until the new pipeline's first
 * one; the still stays as it is; the old renderer can be destroyed at once; nothing is left
 * loading or in error. Media: a raw YUV4MPEG2 video written here, a PNG given on the command
 * line.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "check.h"

/* 64x48, 10 frames of flat grey levels: a video y4mdec reads without any decoder. */
static bool write_y4m(const char *path) {
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		return false;
	}
	fprintf(f, "YUV4MPEG2 W64 H48 F10:1 Ip A1:1 C420jpeg\n");
	unsigned char plane[64 * 48];
	for (int i = 0; i < 10; i++) {
		fprintf(f, "FRAME\n");
		memset(plane, 40 + 20 * i, sizeof(plane));
		fwrite(plane, 1, sizeof(plane), f);
		memset(plane, 128, sizeof(plane) / 2);
		fwrite(plane, 1, sizeof(plane) / 2, f);
	}
	return fclose(f) == 0;
}

/*
 * The output's status JSON (malloc()ed) once it shows a file, loads nothing and has the
 * palette of its first frame (computed on a worker after the frame came).
 */
static char *wait_settled(struct wl_event_loop *loop, struct veil_scene *scene,
		const char *name) {
	for (int i = 0; i < 1000; i++) {
		char *json = veil_scene_status_json(scene, name);
		if (json != NULL && strstr(json, "\"loading\":null") != NULL &&
				strstr(json, "\"file\":") != NULL &&
				strstr(json, "\"palette\":[") != NULL) {
			return json;
		}
		free(json);
		wl_event_loop_dispatch(loop, 10);
	}
	return veil_scene_status_json(scene, name);
}

/* The value of "key":"..." in json, copied into buf. */
static const char *field(const char *json, const char *key, char *buf, size_t size) {
	char pattern[64];
	snprintf(pattern, sizeof(pattern), "\"%s\":\"", key);
	const char *p = json != NULL ? strstr(json, pattern) : NULL;
	if (p == NULL) {
		return "";
	}
	p += strlen(pattern);
	size_t len = strcspn(p, "\"");
	len = len < size - 1 ? len : size - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

static bool run(struct veil_scene *scene, const char *output, const char *file) {
	char *argv[] = { "veil", (char *)file, "fill" };
	char *message = NULL;
	int ret = veil_scene_command(scene, output, 3, argv, &message);
	if (ret != 0) {
		fprintf(stderr, "veil %s: %s\n", file, message != NULL ? message : "failed");
	}
	free(message);
	return ret == 0;
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: test-renderer WALLPAPER.png\n");
		return 2;
	}
	wlr_log_init(WLR_ERROR, NULL);
	char name[64], video[PATH_MAX];
	snprintf(name, sizeof(name), "veil-test-renderer-%d.y4m", (int)getpid());
	if (!write_y4m(name) || realpath(name, video) == NULL) {
		fprintf(stderr, "cannot write %s\n", name);
		return 1;
	}

	struct wl_display *display = wl_display_create();
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	struct wlr_backend *backend = wlr_headless_backend_create(loop);
	struct wlr_renderer *first = wlr_pixman_renderer_create();
	struct wlr_scene *wlr_scene = wlr_scene_create();
	struct wlr_output *out1 = wlr_headless_add_output(backend, 320, 240);
	struct wlr_output *out2 = wlr_headless_add_output(backend, 320, 240);
	struct veil_scene *scene = veil_scene_create(display, first);
	if (!CHECK(scene != NULL && out1 != NULL && out2 != NULL)) {
		return 1;
	}
	CHECK(veil_scene_add_output(scene, out1, &wlr_scene->tree));
	CHECK(veil_scene_add_output(scene, out2, &wlr_scene->tree));
	CHECK(run(scene, out1->name, video));
	CHECK(run(scene, out2->name, argv[1]));

	char *v1 = wait_settled(loop, scene, out1->name);
	char *s1 = wait_settled(loop, scene, out2->name);
	char pipeline1[64], pipeline2[64], buf[256];
	field(v1, "pipeline", pipeline1, sizeof(pipeline1));
	CHECK(strstr(v1, "\"kind\":\"video\"") != NULL && pipeline1[0] != '\0');
	CHECK(strstr(s1, "\"kind\":\"image\"") != NULL);

	/* A GPU reset, as sway handles it: a new renderer, then the old one goes. */
	struct wlr_renderer *second = wlr_pixman_renderer_create();
	veil_scene_set_renderer(scene, second);
	char *during = veil_scene_status_json(scene, out1->name);
	/* The video restarts in the background: its old frames stay meanwhile. */
	CHECK(strstr(during, "\"state\":\"loading\"") != NULL);
	CHECK(strstr(during, name) != NULL);
	wlr_renderer_destroy(first);

	char *v2 = wait_settled(loop, scene, out1->name);
	char *s2 = wait_settled(loop, scene, out2->name);
	field(v2, "pipeline", pipeline2, sizeof(pipeline2));
	CHECK(strstr(v2, "\"kind\":\"video\"") != NULL && strstr(v2, "\"error\":null") != NULL);
	if (!CHECK(pipeline2[0] != '\0' && strcmp(pipeline1, pipeline2) != 0)) {
		fprintf(stderr, "  before %s\n  after %s\n", v1, v2);
	}
	/* The still's frame is a data pointer any renderer reads: it stays as it was. */
	CHECK(strcmp(s1, s2) == 0);
	/* A later command for the same file opens it for the new renderer too. */
	CHECK(run(scene, out2->name, video));
	char *both = wait_settled(loop, scene, out2->name);
	CHECK(strcmp(field(both, "pipeline", buf, sizeof(buf)), pipeline2) == 0);

	free(v1);
	free(s1);
	free(during);
	free(v2);
	free(s2);
	free(both);
	veil_scene_destroy(scene);
	wlr_renderer_destroy(second);
	wlr_scene_node_destroy(&wlr_scene->tree.node);
	wlr_backend_destroy(backend);
	wl_display_destroy(display);
	unlink(video);
	return check_summary("renderer");
}
