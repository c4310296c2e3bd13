/*
 * veil_scene_create() in a compositor whose wlroots is or is not the one libveil was built for.
 * This program is built twice, against wlroots-0.19 and wlroots-0.20, and loads libveil (built
 * for one of them) with dlopen(), as a compositor linked to its own wlroots would: libveil's
 * calls into wlroots then go to the compositor's. It cannot include veil.h (which refuses the
 * other wlroots at compile time): the one function it needs is declared here.
 *
 * wlroots-runtime LIBVEIL refuse|accept
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/util/log.h>
#include <wlr/version.h>
#include "../unit/check.h"

struct veil_scene;
typedef struct veil_scene *(*create_func)(struct wl_display *, struct wlr_renderer *);
typedef void (*destroy_func)(struct veil_scene *);

static char refusal[512];

__attribute__((format(printf, 2, 0)))
static void log_line(enum wlr_log_importance importance, const char *fmt, va_list args) {
	char line[512];
	vsnprintf(line, sizeof(line), fmt, args);
	fprintf(stderr, "log: %s\n", line);
	if (strstr(line, "veil: built for wlroots") != NULL) {
		snprintf(refusal, sizeof(refusal), "%s", line);
	}
}

int main(int argc, char *argv[]) {
	if (argc != 3) {
		fprintf(stderr, "usage: %s LIBVEIL refuse|accept\n", argv[0]);
		return 2;
	}
	bool refuse = strcmp(argv[2], "refuse") == 0;
	wlr_log_init(WLR_DEBUG, log_line);
	printf("this program: wlroots %s\n", WLR_VERSION_STR);

	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK(lib != NULL, "%s", dlerror());
	if (lib == NULL) {
		return check_summary("wlroots-runtime");
	}
	create_func create = (create_func)dlsym(lib, "veil_scene_create");
	destroy_func destroy = (destroy_func)dlsym(lib, "veil_scene_destroy");
	CHECK(create != NULL && destroy != NULL);

	struct wl_display *display = wl_display_create();
	struct wlr_renderer *renderer = wlr_pixman_renderer_create();
	CHECK(display != NULL && renderer != NULL);
	struct veil_scene *scene = create(display, renderer);
	if (refuse) {
		CHECK(scene == NULL, "veil_scene_create() accepted wlroots %s", WLR_VERSION_STR);
		char want[64];
		snprintf(want, sizeof(want), "runs wlroots 0.%d", WLR_VERSION_MINOR);
		CHECK(strstr(refusal, want) != NULL, "no log line saying '%s'", want);
	} else {
		CHECK(scene != NULL, "veil_scene_create() refused wlroots %s", WLR_VERSION_STR);
		CHECK(refusal[0] == '\0', "it logged '%s'", refusal);
	}
	destroy(scene);
	wlr_renderer_destroy(renderer);
	wl_display_destroy(display);
	return check_summary("wlroots-runtime");
}
