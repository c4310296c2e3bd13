/*
 * A change of wallpaper drawn in the scene: the old picture stays in a sub-tree below the
 * output's rect and nodes, which show the new one as the kind says (transition_<kind>.c), once
 * per output frame: an opacity that rises from 0 to 1 (fade, loopfade), a cut at a line that
 * moves from an edge (wipe), a move in from an edge (slide), a circle that grows (grow). When
 * it is whole, the sub-tree goes. No timer: the output's frame events, which the damage of each
 * step brings, drive it; once it ends nothing asks for another frame.
 *
 * A loopfade is a fade whose old picture is a video's last frame before its loop seam: the
 * copies hold that frame (they do not follow the video) while the new loop fades in above.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "module/core/transition/transition.h"

static void handle_source_frame(struct wl_listener *listener, void *data) {
	struct veil_transition *transition = wl_container_of(listener, transition, source_frame);
	struct wlr_buffer *frame = transition->source->frame;
	if (frame == NULL || frame->width != transition->width ||
			frame->height != transition->height) {
		return;
	}
	for (int i = 0; i < transition->n_buffers; i++) {
		veil_node_set_frame(transition->buffers[i], frame);
	}
}

static void handle_old_destroy(struct wl_listener *listener, void *data) {
	struct veil_transition *transition = wl_container_of(listener, transition, old_destroy);
	/* With the output's tree (the compositor destroyed it): the copies went too. */
	wl_list_remove(&transition->old_destroy.link);
	wl_list_init(&transition->old_destroy.link);
	transition->old = NULL;
	transition->n_buffers = 0;
}

static double elapsed_ms(const struct timespec *since) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) * 1000.0 +
		(double)(now.tv_nsec - since->tv_nsec) / 1e6;
}

/* A plain buffer node in the old tree showing what node shows. */
static struct wlr_scene_buffer *copy_buffer(struct wlr_scene_tree *parent,
		struct wlr_scene_buffer *node) {
	struct wlr_scene_buffer *copy = wlr_scene_buffer_create(parent, NULL);
	if (copy == NULL) {
		return NULL;
	}
	veil_node_set_frame(copy, node->buffer);
	/* The old picture's scaling, `filter nearest`'s included. */
	wlr_scene_buffer_set_filter_mode(copy, node->filter_mode);
	wlr_scene_buffer_set_source_box(copy, &node->src_box);
	wlr_scene_buffer_set_dest_size(copy, node->dst_width, node->dst_height);
	wlr_scene_buffer_set_transform(copy, node->transform);
	wlr_scene_node_set_position(&copy->node, node->node.x, node->node.y);
	wlr_scene_node_set_enabled(&copy->node, node->node.enabled);
	return copy;
}

/*
 * Copies the output's rect and nodes into the old tree. The copies are fully opaque: wlroots
 * culls what an opaque node covers only when its opacity is 1, and the new nodes above stay
 * below 1 until the end, so the copies are drawn under them.
 */
static bool copy_picture(struct veil_transition *transition) {
	struct veil_output *output = transition->output;
	struct wlr_scene_rect *rect = output->rect;
	if (rect->node.enabled) {
		struct wlr_scene_rect *copy = wlr_scene_rect_create(transition->old, rect->width,
			rect->height, rect->color);
		if (copy == NULL) {
			return false;
		}
		wlr_scene_node_set_position(&copy->node, rect->node.x, rect->node.y);
	}
	if (output->n_nodes == 0) {
		return true;
	}
	transition->buffers = calloc((size_t)output->n_nodes, sizeof(*transition->buffers));
	if (transition->buffers == NULL) {
		return false;
	}
	struct wlr_scene_node *node;
	wl_list_for_each(node, &output->tree->children, link) {
		if (node->type != WLR_SCENE_NODE_BUFFER || transition->n_buffers == output->n_nodes) {
			continue;
		}
		struct wlr_scene_buffer *buffer = wlr_scene_buffer_from_node(node);
		if (buffer->buffer == NULL) {
			continue;
		}
		struct wlr_scene_buffer *copy = copy_buffer(transition->old, buffer);
		if (copy == NULL) {
			return false;
		}
		transition->buffers[transition->n_buffers++] = copy;
		transition->width = buffer->buffer->width;
		transition->height = buffer->buffer->height;
	}
	return true;
}

/* `random`: the kind, and the side of a wipe or a slide, for this change (pick.c). */
static void pick_random(struct veil_transition *transition) {
	struct veil_output *output = transition->output;
	if (output->random_state == 0) {
		/* Seeded once per output: the clock and where the output lives. */
		output->random_state = (uint64_t)transition->start.tv_nsec ^
			((uint64_t)transition->start.tv_sec << 32) ^ (uint64_t)(uintptr_t)output;
	}
	struct veil_transition_spec *spec = &transition->spec;
	spec->kind = veil_transition_pick(&output->random_state, output->random_last, &spec->side);
	transition->random = true;
	spec->at_x = (struct veil_coord){ .value = 50, .percent = true };
	spec->at_y = spec->at_x;
	output->random_last = spec->kind;
}

struct veil_transition *veil_transition_create(struct veil_output *output,
		const struct veil_transition_spec *spec) {
	struct veil_transition *transition = calloc(1, sizeof(*transition));
	if (transition == NULL) {
		return NULL;
	}
	transition->output = output;
	transition->spec = *spec;
	clock_gettime(CLOCK_MONOTONIC, &transition->start);
	if (spec->skip_ms > 0 && spec->skip_ms < spec->ms) {
		/* Joined midway: it began that long ago. */
		int64_t ns = (int64_t)transition->start.tv_sec * 1000000000 +
			transition->start.tv_nsec - (int64_t)spec->skip_ms * 1000000;
		transition->start.tv_sec = ns / 1000000000;
		transition->start.tv_nsec = ns % 1000000000;
	}
	if (spec->kind == VEIL_TRANSITION_RANDOM) {
		pick_random(transition);
	}
	switch (transition->spec.kind) {
	case VEIL_TRANSITION_WIPE:
		transition->impl = &veil_transition_wipe_impl;
		break;
	case VEIL_TRANSITION_SLIDE:
		transition->impl = &veil_transition_slide_impl;
		break;
	case VEIL_TRANSITION_GROW:
		transition->impl = &veil_transition_grow_impl;
		break;
	case VEIL_TRANSITION_FADE:
	case VEIL_TRANSITION_LOOPFADE:
	case VEIL_TRANSITION_NONE:
	case VEIL_TRANSITION_RANDOM:
		transition->impl = &veil_transition_fade_impl;
		break;
	}
	wl_list_init(&transition->source_frame.link);
	wl_list_init(&transition->old_destroy.link);

	transition->old = wlr_scene_tree_create(output->tree);
	if (transition->old == NULL) {
		goto error;
	}
	transition->old_destroy.notify = handle_old_destroy;
	wl_signal_add(&transition->old->node.events.destroy, &transition->old_destroy);
	wlr_scene_node_lower_to_bottom(&transition->old->node);
	if (!copy_picture(transition)) {
		goto error;
	}

	/* A loopfade's copies hold the last frame of the loop: the new loop plays above. */
	struct veil_source *source = output->source;
	if (source != NULL && source->impl->kind == VEIL_SOURCE_VIDEO &&
			transition->n_buffers > 0 && spec->kind != VEIL_TRANSITION_LOOPFADE) {
		transition->source = veil_source_ref(source);
		transition->source_frame.notify = handle_source_frame;
		wl_signal_add(&source->events.frame, &transition->source_frame);
		/* A video nobody views stops: this one plays on until the new picture is whole. */
		transition->viewing = true;
		veil_source_add_viewers(source, 1);
	}
	return transition;

error:
	wlr_log(WLR_ERROR, "veil: output %s: out of memory: the wallpaper changes at once",
		output->output->name);
	veil_transition_destroy(transition);
	return NULL;
}

void veil_transition_destroy(struct veil_transition *transition) {
	if (transition == NULL) {
		return;
	}
	if (transition->impl != NULL && transition->impl->finish != NULL) {
		transition->impl->finish(transition);
	}
	if (transition->source != NULL) {
		if (transition->viewing) {
			veil_source_add_viewers(transition->source, -1);
		}
		wl_list_remove(&transition->source_frame.link);
		veil_source_unref(transition->source);
	}
	if (transition->old != NULL) {
		/* The copies go with it and release the old frames. */
		wlr_scene_node_destroy(&transition->old->node);
	}
	wl_list_remove(&transition->old_destroy.link);
	if (transition->step_timer != NULL) {
		wl_event_source_remove(transition->step_timer);
	}
	free(transition->buffers);
	free(transition);
}

bool veil_transition_visible(struct veil_transition *transition) {
	struct veil_output *output = transition->output;
	if (!output->output->enabled || output->tree == NULL || !output->tree->node.enabled) {
		return false;
	}
	bool any_buffer = false;
	for (int i = 0; i < transition->n_buffers; i++) {
		any_buffer = true;
		if (transition->buffers[i]->primary_output != NULL) {
			return true;
		}
	}
	/* New nodes a wipe has not reached yet are disabled: they tell nothing. */
	struct wlr_scene_node *node;
	wl_list_for_each(node, &output->tree->children, link) {
		if (node->type != WLR_SCENE_NODE_BUFFER || !node->enabled) {
			continue;
		}
		any_buffer = true;
		if (wlr_scene_buffer_from_node(node)->primary_output != NULL) {
			return true;
		}
	}
	/* Colour to colour: a rect says not where it shows; the frames that come drive it. */
	return !any_buffer;
}

void veil_transition_output_size(const struct veil_transition *transition, int *width,
		int *height) {
	const struct veil_output *output = transition->output;
	*width = output->rect_width > 0 ? output->rect_width : 1;
	*height = output->rect_height > 0 ? output->rect_height : 1;
}

void veil_transition_begin(struct veil_transition *transition) {
	if (transition->impl->begin != NULL) {
		transition->impl->begin(transition);
	}
	transition->progress = 0.0f;
	transition->eased = 0.0f;
	transition->impl->apply(transition, 0.0f);
}

/*
 * The one place where time becomes the progress a kind draws: the curve of `ease` (linear
 * unless given), kept within [0,1] (a cubic-bezier() whose y leaves it holds at the end).
 */
static float ease_progress(const struct veil_transition *transition, float progress) {
	double eased = veil_ease_apply(&transition->spec.ease, progress);
	return eased < 0.0 ? 0.0f : eased > 1.0 ? 1.0f : (float)eased;
}

static int handle_step_timer(void *data) {
	struct veil_transition *transition = data;
	wlr_output_schedule_frame(transition->output->output);
	return 0;
}

/*
 * A long transition's step: the progress is held at whole 256ths, and the output's frame is
 * asked for when the next one is due rather than at every frame. False when the step is
 * already shown (nothing to draw until the timer).
 */
static bool stepped(struct veil_transition *transition, double ms, float *progress) {
	const int steps = 256;
	int at = (int)(ms * steps / transition->spec.ms);
	*progress = (float)at / (float)steps;
	double next_ms = (double)(at + 1) * transition->spec.ms / steps - ms;
	if (transition->step_timer == NULL) {
		struct wl_event_loop *loop =
			wl_display_get_event_loop(transition->output->scene->display);
		transition->step_timer = wl_event_loop_add_timer(loop, handle_step_timer,
			transition);
	}
	if (transition->step_timer != NULL) {
		wl_event_source_timer_update(transition->step_timer, (int)next_ms + 1);
	}
	return *progress != transition->progress;
}

bool veil_transition_step(struct veil_transition *transition) {
	double ms = elapsed_ms(&transition->start);
	float progress = transition->spec.ms > 0 ? (float)(ms / transition->spec.ms) : 1.0f;
	if (progress >= 1.0f || progress < 0.0f) {
		transition->progress = 1.0f;
		transition->eased = 1.0f;
		return false;
	}
	if (transition->spec.ms > VEIL_TRANSITION_STEPPED_MS) {
		if (!stepped(transition, ms, &progress)) {
			return true;
		}
		transition->progress = progress;
		transition->eased = ease_progress(transition, progress);
		transition->impl->apply(transition, transition->eased);
		/* Its damage brings one frame; the timer the next step's. */
		return true;
	}
	/* A tiny first step still changes the look from 0, so its damage brings a frame. */
	transition->progress = progress > 0.0f ? progress : 0.001f;
	transition->eased = ease_progress(transition, transition->progress);
	transition->impl->apply(transition, transition->eased);
	/*
	 * The damage of a step brings the next frame event, but a step may move no pixel (a slow
	 * wipe on a fast output): ask for the event anyway, while the transition runs.
	 */
	wlr_output_schedule_frame(transition->output->output);
	return true;
}

enum veil_transition_kind veil_transition_kind(const struct veil_transition *transition) {
	return transition->spec.kind;
}

float veil_transition_progress(const struct veil_transition *transition) {
	return transition->progress;
}

float veil_transition_eased(const struct veil_transition *transition) {
	return transition->eased;
}

const struct veil_transition_spec *veil_transition_get_spec(
		const struct veil_transition *transition) {
	return &transition->spec;
}

bool veil_transition_is_random(const struct veil_transition *transition) {
	return transition->random;
}
