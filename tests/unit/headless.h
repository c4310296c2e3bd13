/*
 * What the unit tests that drive veil through its public API on wlroots' headless backend
 * share: an output made ready to render, and a wait for words in an output's status.
 * Included by the test's one source file after check.h, as check.h is.
 */
#ifndef VEIL_TEST_HEADLESS_H
#define VEIL_TEST_HEADLESS_H

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
#include <wlr/util/log.h>
#include <veil/veil.h>

/* A display with wlroots' headless backend, the pixman renderer, a scene and veil's. */
struct headless {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_scene *wlr_scene;
	struct veil_scene *scene;
};

/* Initialises output's rendering and enables it; returns whether the commit took it. */
static inline bool headless_enable(struct wlr_output *output, struct wlr_allocator *allocator,
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

/* Makes it all; returns whether every part was made (headless_finish() in any case). */
static inline bool headless_init(struct headless *h) {
	wlr_log_init(WLR_ERROR, NULL);
	h->display = wl_display_create();
	h->loop = wl_display_get_event_loop(h->display);
	h->backend = wlr_headless_backend_create(h->loop);
	h->renderer = wlr_pixman_renderer_create();
	h->allocator = h->backend != NULL && h->renderer != NULL ?
		wlr_allocator_autocreate(h->backend, h->renderer) : NULL;
	h->wlr_scene = wlr_scene_create();
	h->scene = veil_scene_create(h->display, h->renderer);
	return h->allocator != NULL && h->wlr_scene != NULL && h->scene != NULL;
}

/* A headless output of that size, ready to render and enabled; NULL on failure. */
static inline struct wlr_output *headless_add_output(struct headless *h, int width,
		int height) {
	struct wlr_output *output = wlr_headless_add_output(h->backend, width, height);
	return output != NULL && headless_enable(output, h->allocator, h->renderer) ?
		output : NULL;
}

static inline void headless_finish(struct headless *h) {
	veil_scene_destroy(h->scene);
	if (h->wlr_scene != NULL) {
		wlr_scene_node_destroy(&h->wlr_scene->tree.node);
	}
	wlr_allocator_destroy(h->allocator);
	wlr_renderer_destroy(h->renderer);
	wlr_backend_destroy(h->backend);
	wl_display_destroy(h->display);
}

/*
 * Runs the event loop until the output's status has want in it, for 5 s at most; returns
 * whether it came, printing the status when it did not. With a scene output, commits it at
 * each turn, as a compositor's frames would.
 */
static inline bool headless_wait_status(struct wl_event_loop *loop, struct veil_scene *scene,
		const char *name, struct wlr_scene_output *scene_output, const char *want) {
	for (int i = 0; i < 500; i++) {
		if (scene_output != NULL) {
			wlr_scene_output_commit(scene_output, NULL);
		}
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

#endif
