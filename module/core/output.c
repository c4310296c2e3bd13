#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "util/message.h"

/*
 * veil's state on one output: what it shows and what it waits for, following the output's
 * commits and frame events. Where the nodes go is module/core/layout.c's.
 */

/* Smaller videos would need too many nodes in tile mode (stills are repeated instead). */
#define MIN_TILED_VIDEO 64

static void handle_source_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, source_frame);
	if (output->source->error != NULL) {
		/* It stopped (its last good frame stays): the status and the protocol say why. */
		veil_scene_changed(output->scene);
	}
	struct wlr_buffer *frame = output->source->frame;
	if (frame == NULL) {
		return;
	}
	/* A new frame of the same size goes onto the nodes as they are: no geometry work. */
	if (!veil_output_show_frame(output, frame)) {
		veil_output_layout(output);
	}
}

/*
 * A video's loop seam, before its first frame of the new loop comes: with `loopfade`, its last
 * frame stays below and the new loop fades in over it.
 */
static void handle_source_loop(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, source_loop);
	const struct veil_setting *setting = output->setting;
	if (setting == NULL || setting->look.loopfade_ms <= 0 || !output->viewing) {
		return;
	}
	/* A loop shorter than its fade: the next seam starts from the end of the last fade. */
	if (output->transition != NULL &&
			veil_transition_kind(output->transition) == VEIL_TRANSITION_LOOPFADE) {
		veil_output_end_transition(output);
	}
	/* Another transition (to this video) runs: its end shows the video whole anyway. */
	if (output->transition != NULL) {
		return;
	}
	struct veil_transition_spec spec = {
		.kind = VEIL_TRANSITION_LOOPFADE,
		.ms = setting->look.loopfade_ms,
	};
	output->transition = veil_transition_create(output, &spec);
	if (output->transition == NULL) {
		return;
	}
	veil_transition_begin(output->transition);
	wlr_output_schedule_frame(output->output);
}

/*
 * Whether the output owes a frame event to the source it shows: a video's next frame then waits
 * for that event instead of waking the compositor (the output cannot show it sooner).
 */
static void set_owes_frame(struct veil_output *output, bool owes) {
	owes = owes && output->source != NULL;
	if (owes == output->owes_frame) {
		return;
	}
	output->owes_frame = owes;
	veil_source_add_owed(output->source, owes ? 1 : -1);
}

/*
 * After a commit or a frame event: wlroots sets frame_pending on a commit that leaves the output
 * on, and a frame event follows it. A disabled output gets none (its flag may be left over).
 */
static void follow_frame_pending(struct veil_output *output) {
	set_owes_frame(output, output->output->enabled && output->output->frame_pending);
}

static void set_source(struct veil_output *output, struct veil_source *source) {
	if (source == output->source) {
		return;
	}
	set_owes_frame(output, false);
	if (output->source != NULL) {
		if (output->viewing) {
			veil_source_add_viewers(output->source, -1);
			output->viewing = false;
		}
		wl_list_remove(&output->source_frame.link);
		wl_list_remove(&output->source_loop.link);
		veil_source_unref(output->source);
	}
	output->source = source;
	if (source != NULL) {
		veil_source_ref(source);
		wl_signal_add(&source->events.frame, &output->source_frame);
		wl_signal_add(&source->events.loop, &output->source_loop);
	} else {
		wl_list_init(&output->source_frame.link);
		wl_list_init(&output->source_loop.link);
	}
	/* Nodes still show the old frame; the layout that follows replaces it and counts viewing. */
	veil_output_recount_visible(output, true);
}

void veil_output_end_transition(struct veil_output *output) {
	if (output->transition == NULL) {
		return;
	}
	veil_transition_destroy(output->transition);
	output->transition = NULL;
	veil_output_set_opacity(output, 1.0f);
	veil_output_set_view(output, NULL, 0, 0);
}

/* Whether the output shows a wallpaper or a colour now, which a transition could leave. */
static bool shows_something(const struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	return setting != NULL && !setting->off && output->output->enabled &&
		output->tree != NULL && output->tree->node.enabled;
}

/* Shows a setting (NULL: nothing) whose source has its first frame, or has none. */
static void show(struct veil_output *output, struct veil_setting *setting) {
	/* A change during a transition starts from its end: the last picture alone. */
	veil_output_end_transition(output);
	struct veil_transition *transition = NULL;
	/* A workspace switch says how its picture comes in; else the setting or the default. */
	bool switching = output->has_switch_transition;
	output->has_switch_transition = false;
	if (setting != NULL && !setting->off && shows_something(output)) {
		struct veil_transition_spec spec = switching ? output->switch_transition :
			veil_output_resolve_transition(output, setting);
		if (spec.kind != VEIL_TRANSITION_NONE && spec.ms > 0) {
			transition = veil_transition_create(output, &spec);
		}
	}

	struct veil_setting *old = output->setting;
	output->setting = setting != NULL ? veil_setting_ref(setting) : NULL;
	set_source(output, setting != NULL && !setting->off ? setting->source : NULL);
	/* The new picture is laid out above the old one, whole. */
	output->transition = transition;
	veil_output_layout(output);
	/* Nodes that stayed kept their visibility: count it for the new source. */
	veil_output_recount_visible(output, false);
	/* After the switch: the old setting may hold the old source's last reference. */
	veil_setting_unref(old);
	/* Outputs that span with this one: their canvas may have changed with it. */
	veil_span_refresh(output->scene);

	if (transition != NULL) {
		/* The new picture hidden at first: what shows now is the old one. */
		veil_transition_begin(transition);
		if (!veil_transition_visible(transition)) {
			/* Hidden or covered: nobody would see it. */
			veil_output_end_transition(output);
		} else {
			/* The frame events that follow drive it. */
			wlr_output_schedule_frame(output->output);
		}
	}
}

/* Why a loaded setting cannot be shown on the output, or NULL. */
static char *refusal(const struct veil_setting *setting) {
	const struct veil_source *source = setting->source;
	if (source == NULL) {
		return NULL;
	}
	if (source->frame == NULL) {
		return strdup(source->error != NULL ? source->error : "The wallpaper has no frame");
	}
	/* Each copy of a video is a node updated every frame: keep them few. */
	if (setting->look.mode == VEIL_MODE_TILE && source->impl->kind == VEIL_SOURCE_VIDEO &&
			(source->width < MIN_TILED_VIDEO || source->height < MIN_TILED_VIDEO)) {
		return veil_message("'%s' is %dx%d: too small to tile (a video needs %dx%d at "
			"least)", source->path, source->width, source->height, MIN_TILED_VIDEO,
			MIN_TILED_VIDEO);
	}
	return NULL;
}

/*
 * A setting whose source finished loading: shown, or, when it failed, the output keeps what it
 * showed and the error says why.
 */
static void settle(struct veil_output *output, struct veil_setting *setting) {
	char *why = setting != NULL ? refusal(setting) : NULL;
	if (why == NULL) {
		show(output, setting);
		return;
	}
	wlr_log(WLR_ERROR, "veil: output %s: %s%s%s%s", output->output->name,
		setting->workspace != NULL ? "workspace '" : "",
		setting->workspace != NULL ? setting->workspace : "",
		setting->workspace != NULL ? "': " : "", why);
	free(output->error);
	output->error = why;
	if (setting->workspace != NULL && setting->source != NULL &&
			setting->source->error != NULL) {
		/* The workspace falls back to the output's setting (or keeps what shows). */
		setting->failed = true;
		veil_output_update(output);
	}
}

static void drop_pending(struct veil_output *output) {
	if (output->pending == NULL) {
		return;
	}
	wl_list_remove(&output->pending_frame.link);
	wl_list_init(&output->pending_frame.link);
	veil_setting_unref(output->pending);
	output->pending = NULL;
}

static void handle_pending_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, pending_frame);
	struct veil_setting *setting = output->pending;
	if (setting->source->frame == NULL && setting->source->error == NULL) {
		return;
	}
	/* Ours now: the swap below may run listeners that look at pending. */
	output->pending = NULL;
	wl_list_remove(&output->pending_frame.link);
	wl_list_init(&output->pending_frame.link);
	settle(output, setting);
	veil_setting_unref(setting);
	/* The picture it replaced may be one no output is near any more. */
	veil_workspace_trim(output->scene);
	veil_scene_changed(output->scene);
}

/* What resolves for the output now, its source loaded if it was let go. */
static struct veil_setting *resolve(struct veil_output *output) {
	struct veil_scene *scene = output->scene;
	for (;;) {
		struct veil_setting *setting = veil_scene_resolve(scene, output->output->name,
			output->workspace);
		/* A workspace setting that cannot load now is passed over: the next one shows. */
		if (setting == NULL || setting->workspace == NULL ||
				veil_workspace_load(scene, setting)) {
			/* A wallpaper package: the picture that fits this output. */
			return veil_package_choose(output, setting);
		}
	}
}

static void update(struct veil_output *output, const struct veil_transition_spec *switch_spec) {
	struct veil_setting *setting = resolve(output);
	if (setting == (output->pending != NULL ? output->pending : output->setting)) {
		/* Another output's command: nothing to redo, nothing to damage here. */
		return;
	}
	/* The last command wins: a wallpaper still loading for this output is not wanted now. */
	drop_pending(output);
	output->has_switch_transition = switch_spec != NULL;
	if (switch_spec != NULL) {
		output->switch_transition = *switch_spec;
	}
	if (setting == output->setting) {
		output->has_switch_transition = false;
		return;
	}
	struct veil_source *source = setting != NULL && !setting->off ? setting->source : NULL;
	if (source != NULL && source->frame == NULL && source->error == NULL) {
		/* What the output shows stays until the new wallpaper's first frame is ready. */
		output->pending = veil_setting_ref(setting);
		wl_signal_add(&source->events.frame, &output->pending_frame);
		return;
	}
	settle(output, setting);
}

void veil_output_update(struct veil_output *output) {
	update(output, NULL);
}

void veil_output_update_switch(struct veil_output *output,
		const struct veil_transition_spec *spec) {
	update(output, spec);
}

void veil_output_set_error(struct veil_output *output, const char *error) {
	free(output->error);
	output->error = error != NULL ? strdup(error) : NULL;
}

static void handle_output_commit(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, output_commit);
	const struct wlr_output_event_commit *event = data;
	follow_frame_pending(output);
	uint32_t relevant = WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_SCALE |
		WLR_OUTPUT_STATE_TRANSFORM | WLR_OUTPUT_STATE_ENABLED;
	if (!(event->state->committed & relevant)) {
		return;
	}
	veil_scene_update_max_size(output->scene);
	/* A new size or a disabled output: the new picture shows at once. */
	veil_output_end_transition(output);
	veil_output_layout(output);
	/* A wallpaper package's picture that fits the new size. */
	veil_package_output_changed(output);
}

static void handle_output_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, output_frame);
	if (output->transition != NULL) {
		/* Each step damages the nodes: the compositor draws it and the next event comes. */
		if (!veil_transition_step(output->transition) ||
				!veil_transition_visible(output->transition)) {
			veil_output_end_transition(output);
		}
	}
	if (!output->owes_frame) {
		return;
	}
	/* A frame that waited for this event goes up now: the compositor commits it next. */
	veil_source_frame_event(output->source);
	/*
	 * Still owed when the compositor committed in this event already (its listener ran
	 * first): the next frame event is the one to wait for then.
	 */
	follow_frame_pending(output);
}

static void handle_tree_destroy(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, tree_destroy);
	/* Before the tree forgets its children: the transition's sub-tree goes first. */
	veil_transition_destroy(output->transition);
	output->transition = NULL;
	output->opacity = 1.0f;
	output->clipped = false;
	/* The compositor destroyed the parent: the nodes go with it (each frees itself). */
	wl_list_remove(&output->tree_destroy.link);
	wl_list_init(&output->tree_destroy.link);
	output->tree = NULL;
	output->rect = NULL;
}

static void addon_destroy(struct wlr_addon *addon) {
	struct veil_output *output = wl_container_of(addon, output, addon);
	veil_output_destroy(output);
}

static const struct wlr_addon_interface output_addon_impl = {
	.name = "veil_output",
	.destroy = addon_destroy,
};

struct veil_output *veil_output_find(struct veil_scene *scene, struct wlr_output *wlr_output) {
	struct wlr_addon *addon = wlr_addon_find(&wlr_output->addons, scene, &output_addon_impl);
	if (addon == NULL) {
		return NULL;
	}
	struct veil_output *output = wl_container_of(addon, output, addon);
	return output;
}

struct veil_output *veil_output_find_name(struct veil_scene *scene, const char *name) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (strcmp(output->output->name, name) == 0) {
			return output;
		}
	}
	return NULL;
}

struct veil_output *veil_output_create(struct veil_scene *scene, struct wlr_output *wlr_output,
		struct wlr_scene_tree *parent) {
	struct veil_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		return NULL;
	}
	output->scene = scene;
	output->output = wlr_output;
	output->opacity = 1.0f;
	wl_list_init(&output->nodes);
	output->tree = wlr_scene_tree_create(parent);
	if (output->tree == NULL) {
		free(output);
		return NULL;
	}
	const float black[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
	output->rect = wlr_scene_rect_create(output->tree, 0, 0, black);
	if (output->rect == NULL) {
		wlr_scene_node_destroy(&output->tree->node);
		free(output);
		return NULL;
	}
	wlr_scene_node_set_enabled(&output->tree->node, false);

	wl_list_init(&output->source_frame.link);
	output->source_frame.notify = handle_source_frame;
	wl_list_init(&output->source_loop.link);
	output->source_loop.notify = handle_source_loop;
	wl_list_init(&output->pending_frame.link);
	output->pending_frame.notify = handle_pending_frame;
	output->output_commit.notify = handle_output_commit;
	wl_signal_add(&wlr_output->events.commit, &output->output_commit);
	output->output_frame.notify = handle_output_frame;
	wl_signal_add(&wlr_output->events.frame, &output->output_frame);
	output->tree_destroy.notify = handle_tree_destroy;
	wl_signal_add(&output->tree->node.events.destroy, &output->tree_destroy);
	wlr_addon_init(&output->addon, &wlr_output->addons, scene, &output_addon_impl);
	wl_list_insert(scene->outputs.prev, &output->link);

	veil_scene_update_max_size(scene);
	veil_output_update(output);
	veil_scene_changed(scene);
	return output;
}

void veil_output_destroy(struct veil_output *output) {
	if (output == NULL) {
		return;
	}
	veil_output_end_transition(output);
	if (output->tree != NULL) {
		/* Its nodes go with it, and handle_tree_destroy forgets it. */
		wlr_scene_node_destroy(&output->tree->node);
	}
	drop_pending(output);
	set_source(output, NULL);
	veil_output_cancel_viewing_update(output);
	veil_workspace_output_finish(output);
	veil_setting_unref(output->setting);
	output->setting = NULL;
	veil_output_release_tiled(output);
	wl_list_remove(&output->source_frame.link);
	wl_list_remove(&output->source_loop.link);
	wl_list_remove(&output->pending_frame.link);
	wl_list_remove(&output->output_commit.link);
	wl_list_remove(&output->output_frame.link);
	wl_list_remove(&output->tree_destroy.link);
	wlr_addon_finish(&output->addon);
	wl_list_remove(&output->link);
	veil_scene_changed(output->scene);
	free(output->error);
	free(output);
}
