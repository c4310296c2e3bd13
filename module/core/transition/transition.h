/*
 * Inside module/core/transition/transition.c and the files of each kind (<kind>.c beside it): the
 * state of a running transition and what a kind does with it.
 */
#ifndef VEIL_MODULE_TRANSITION_H
#define VEIL_MODULE_TRANSITION_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <wayland-server-core.h>
#include "module/core/scene.h"

struct veil_transition;

/*
 * A kind of transition: how the new picture (the output's own rect and nodes, above the old
 * picture's copies) looks at a point of it.
 */
struct veil_transition_impl {
	/* Optional. Once the new picture is laid out: makes what apply() moves (kind_data). */
	void (*begin)(struct veil_transition *transition);
	/* The new picture at progress, from 0 (the old one alone shows) to 1 (never called). */
	void (*apply)(struct veil_transition *transition, float progress);
	/*
	 * Optional. Frees kind_data; the old tree and what begin() made in it are destroyed
	 * after (or were already, with the output's tree: then transition->old is NULL).
	 */
	void (*finish)(struct veil_transition *transition);
};

extern const struct veil_transition_impl veil_transition_fade_impl;
extern const struct veil_transition_impl veil_transition_wipe_impl;
extern const struct veil_transition_impl veil_transition_slide_impl;
extern const struct veil_transition_impl veil_transition_grow_impl;

struct veil_transition {
	struct veil_output *output;
	struct veil_transition_spec spec;
	const struct veil_transition_impl *impl;
	void *kind_data; /* the kind's own, made by begin() */
	struct timespec start;
	float progress; /* the time elapsed, as a fraction of spec.ms */
	float eased; /* progress through spec.ease, within [0,1]: what apply() was given */
	bool random; /* `transition random` picked spec's kind (and side) for this change */

	/* A child of the output's tree, below its rect and nodes; NULL once destroyed. */
	struct wlr_scene_tree *old;
	/* Copies of the old buffer nodes, in old; they go with it. */
	struct wlr_scene_buffer **buffers;
	int n_buffers;
	/* A video shown before: it plays on under the new picture (our reference). */
	struct veil_source *source;
	int width, height; /* of the old frames: a frame of another size is not put on them */
	bool viewing; /* counted in source->viewers */

	/* A stepped transition (VEIL_TRANSITION_STEPPED_MS): asks for a frame at the next step. */
	struct wl_event_source *step_timer;

	struct wl_listener source_frame;
	struct wl_listener old_destroy;
};

/*
 * module/core/transition/pick.c: `random`'s pick (pure): fade, wipe, grow or slide, never last (the
 * output's previous pick; VEIL_TRANSITION_NONE for none), each of the others as likely; *side
 * gets an edge for a wipe or a slide, each as likely. *state is an xorshift64* state (not 0).
 */
enum veil_transition_kind veil_transition_pick(uint64_t *state, enum veil_transition_kind last,
	enum veil_side *side);

/* The output's whole logical size, as its rect covers it (at least 1x1). */
void veil_transition_output_size(const struct veil_transition *transition, int *width,
	int *height);

#endif
