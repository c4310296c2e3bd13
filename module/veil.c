/*
 * The public handle: create and destroy the scene, its renderer and outputs, the scheme and the
 * place. It wires the rooms of module/ (docs/architecture.md, "Why these folders").
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "decode/gst.h"
#include "module/commands/package_load.h"
#include "module/control/control.h"
#include "module/core/decoders.h"
#include "module/core/scene.h"
#include "module/core/wlr_check.h"
#include "module/policy/policy.h"
#include "module/show/show.h"
#include "module/xray/xray.h"
#include "module/state/state.h"
#include "util/worker.h"

/* A source's palette came (source/source.c): the status says it. */
static void handle_source_changed(struct veil_source_context *ctx) {
	struct veil_scene *scene = wl_container_of(ctx, scene, ctx);
	veil_scene_changed(scene);
}

/* Tears down everything but the handle: on veil_scene_destroy, or when the display goes. */
static void scene_finish(struct veil_scene *scene) {
	if (scene->display == NULL) {
		return;
	}
	veil_control_destroy(scene->control);
	veil_state_destroy(scene);
	veil_span_finish(scene);
	veil_show_stop(scene, NULL, true, NULL);
	veil_package_load_cancel(scene, NULL, NULL);
	struct veil_output *output, *tmp_output;
	wl_list_for_each_safe(output, tmp_output, &scene->outputs, link) {
		veil_output_destroy(output);
	}
	struct veil_setting *setting, *tmp_setting;
	wl_list_for_each_safe(setting, tmp_setting, &scene->settings, link) {
		veil_setting_remove(setting);
	}
	veil_scene_transition_defaults_finish(scene);
	veil_policy_finish(scene);
	veil_xray_finish(scene);
	/* Waits for the jobs that still run and the teardowns of the sources just released. */
	veil_worker_destroy(scene->ctx.worker);
	scene->ctx.worker = NULL;
	assert(wl_list_empty(&scene->ctx.sources));
	veil_decoders_finish(scene);
	wl_list_remove(&scene->display_destroy.link);
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	scene->display = NULL;
	scene->renderer = NULL;
	scene->ctx.renderer = NULL;
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, display_destroy);
	scene_finish(scene);
}

static void handle_renderer_destroy(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, renderer_destroy);
	/* Frames already made stay valid: they are plain memory or dmabufs, not textures. */
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	scene->renderer = NULL;
	scene->ctx.renderer = NULL;
}

/* reopen_sources()'s again(): a source that made frames for the old renderer, made anew. */
static struct veil_source *reopen_source(struct veil_scene *scene,
		struct veil_setting *setting, struct veil_source *source) {
	if (source->impl->reopen == NULL) {
		return NULL;
	}
	source->stale = true;
	return source->impl->reopen(source);
}

/*
 * After a new renderer: the settings whose sources made frames for the old one get a new
 * source of the same file, which loads like any other. Outputs show the old frames until the
 * new source's first one (module/core/output.c), then let the old source go.
 */
static void reopen_sources(struct veil_scene *scene) {
	veil_scene_swap_sources(scene, reopen_source);
}

void veil_scene_set_renderer(struct veil_scene *scene, struct wlr_renderer *renderer) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || renderer == scene->renderer) {
		return;
	}
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	if (renderer != NULL) {
		wl_signal_add(&renderer->events.destroy, &scene->renderer_destroy);
	}
	scene->renderer = renderer;
	scene->ctx.renderer = renderer;
	wlr_log(WLR_INFO, "veil: the compositor has a new renderer");
	reopen_sources(scene);
}

struct veil_scene *veil_scene_create(struct wl_display *display, struct wlr_renderer *renderer) {
	return veil_scene_create_with_options(display, renderer, NULL);
}

struct veil_scene *veil_scene_create_with_options(struct wl_display *display,
		struct wlr_renderer *renderer, const struct veil_scene_options *given) {
	if (display == NULL || !veil_wlroots_check()) {
		return NULL;
	}
	/* A compositor built against an older veil.h passes fewer fields: the rest stay 0. */
	struct veil_scene_options options = {0};
	if (given != NULL) {
		size_t size = given->size < sizeof(options) ? given->size : sizeof(options);
		memcpy(&options, given, size);
	}
	char *why = NULL;
	if (veil_gst_init(&why) < 0) {
		wlr_log(WLR_ERROR, "veil: cannot initialise GStreamer: %s",
			why != NULL ? why : "out of memory");
		free(why);
		return NULL;
	}

	struct veil_scene *scene = calloc(1, sizeof(*scene));
	if (scene == NULL) {
		return NULL;
	}
	scene->thread = pthread_self();
	scene->display = display;
	scene->renderer = renderer;
	scene->ctx.loop = wl_display_get_event_loop(display);
	scene->ctx.renderer = renderer;
	scene->ctx.worker = veil_worker_create(scene->ctx.loop);
	if (scene->ctx.worker == NULL) {
		free(scene);
		return NULL;
	}
	wl_list_init(&scene->ctx.sources);
	scene->ctx.changed = handle_source_changed;
	veil_decoders_init(scene, &options);
	scene->workspace_pictures = options.workspace_pictures == 0 ?
		VEIL_WORKSPACE_PICTURES_DEFAULT : options.workspace_pictures < 0 ? 0 :
		options.workspace_pictures;
	wl_list_init(&scene->outputs);
	wl_list_init(&scene->settings);
	wl_list_init(&scene->transition_defaults);
	wl_list_init(&scene->slideshows);
	wl_list_init(&scene->timed_shows);
	wl_list_init(&scene->shows);
	wl_list_init(&scene->package_loads);
	wl_signal_init(&scene->events.changed);
	wl_signal_init(&scene->events.command);
	wl_signal_init(&scene->clock.jump);
	wl_list_init(&scene->layout_change.link);
	wl_list_init(&scene->layout_destroy.link);
	if (!veil_policy_init(scene, &options) || !veil_xray_init(scene)) {
		veil_policy_finish(scene);
		veil_worker_destroy(scene->ctx.worker);
		veil_decoders_finish(scene);
		free(scene);
		return NULL;
	}

	scene->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &scene->display_destroy);
	scene->renderer_destroy.notify = handle_renderer_destroy;
	if (renderer != NULL) {
		wl_signal_add(&renderer->events.destroy, &scene->renderer_destroy);
	} else {
		wl_list_init(&scene->renderer_destroy.link);
	}
	return scene;
}

void veil_scene_destroy(struct veil_scene *scene) {
	veil_scene_assert_thread(scene);
	if (scene == NULL) {
		return;
	}
	scene_finish(scene);
	free(scene);
}

bool veil_scene_add_output(struct veil_scene *scene, struct wlr_output *wlr_output,
		struct wlr_scene_tree *parent) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || wlr_output == NULL || parent == NULL) {
		return false;
	}
	struct veil_output *output = veil_output_find(scene, wlr_output);
	if (output != NULL) {
		if (output->tree != NULL) {
			wlr_scene_node_reparent(&output->tree->node, parent);
			return true;
		}
		/* The compositor destroyed the old parent: start again in the new one. */
		veil_output_destroy(output);
	}
	return veil_output_create(scene, wlr_output, parent) != NULL;
}

void veil_scene_remove_output(struct veil_scene *scene, struct wlr_output *wlr_output) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || wlr_output == NULL) {
		return;
	}
	veil_output_destroy(veil_output_find(scene, wlr_output));
}

void veil_scene_set_dark(struct veil_scene *scene, bool dark) {
	if (scene == NULL || scene->display == NULL) {
		return;
	}
	veil_scene_apply_dark(scene, dark);
	veil_scene_changed(scene);
}

void veil_scene_set_location(struct veil_scene *scene, double latitude, double longitude) {
	if (scene == NULL || scene->display == NULL || !(latitude >= -90.0 && latitude <= 90.0) ||
			!(longitude >= -180.0 && longitude <= 180.0)) {
		return;
	}
	if (scene->has_location && scene->latitude == latitude &&
			scene->longitude == longitude) {
		return;
	}
	scene->has_location = true;
	scene->latitude = latitude;
	scene->longitude = longitude;
	wlr_log(WLR_INFO, "veil: the compositor's location is %.4f, %.4f", latitude, longitude);
	veil_show_location_changed(scene);
	veil_scene_changed(scene);
}
