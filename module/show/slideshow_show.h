/*
 * A slideshow's insides, shared by module/show/slideshow.c (the running show: its lifecycle,
 * steps and timer) and module/show/slideshow_state.c (its status, its part of the state file,
 * its resume). Private to those two files.
 */
#ifndef VEIL_MODULE_SLIDESHOW_SHOW_H
#define VEIL_MODULE_SLIDESHOW_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <wayland-server-core.h>
#include "module/show/slideshow_order.h"
#include "module/words/command.h"

struct veil_scene;
struct veil_slideshow_scan;
struct veil_source;

struct veil_slideshow {
	struct wl_list link; /* veil_scene.slideshows */
	struct veil_scene *scene;
	char *name; /* an output name or "*" */
	char *dir; /* resolved */
	/* What each step sets: mode, colour, transition (path NULL). */
	struct veil_command step;

	struct veil_slide *slides; /* the last scan's, sorted */
	size_t n_slides;
	struct veil_slide_order order;
	struct veil_slide current; /* on screen; path NULL before the first step */

	struct veil_slideshow_scan *scan; /* running, NULL when none */
	bool rescan; /* asked for while one ran */

	/* The picture decoded ahead: one reference, its frame followed. */
	struct veil_source *ahead;
	struct veil_slide ahead_slide;
	int ahead_direction;
	struct wl_listener ahead_frame;

	bool step_wanted; /* change to the picture ahead once it is ready */
	int wanted_direction;
	bool deferred; /* the timer fired while hidden */
	bool empty; /* nothing in the directory can be shown: the error says so */
	char *error;

	struct wl_event_source *timer;
	bool has_due;
	struct timespec due; /* CLOCK_MONOTONIC */
	struct wl_event_source *idle; /* work out of a signal's emission */
	struct wl_listener scene_changed;
	/* `veil restore`: the first step shows this file if the directory still has it. */
	char *resume_path;
};

/* slideshow.c. Name's show in veil_scene.slideshows, NULL for none. */
struct veil_slideshow *veil_slideshow_find(struct veil_scene *scene, const char *name);

#endif
