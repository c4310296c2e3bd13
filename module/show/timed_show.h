/*
 * A timed show's insides, shared by module/show/timed.c (its lifecycle, load and schedule), its
 * pictures (timed_pictures.c) and an Apple dynamic wallpaper's days (timed_dynamic.c). Private
 * to those three files.
 */
#ifndef VEIL_MODULE_TIMED_SHOW_H
#define VEIL_MODULE_TIMED_SHOW_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include "module/show/dynamic.h"
#include "module/show/timed_schedule.h"
#include "module/words/command.h"

struct veil_source;
struct veil_transition_spec;
struct veil_package;
struct timed_load;

/* A picture a change needs, kept open (decoding, then decoded) until the change. */
struct veil_timed_held {
	struct veil_timed_show *show;
	struct veil_source *source; /* one reference, NULL when none */
	char *path;
	int item;
	struct wl_listener frame;
};

struct veil_timed_show {
	struct wl_list link; /* veil_scene.timed_shows */
	struct veil_scene *scene;
	char *name; /* an output name or "*" */
	char *path; /* the XML, resolved */
	/* What each change sets: mode, colour, the command's transition (path NULL). */
	struct veil_command step;
	struct veil_timed_schedule schedule;
	/* An Apple dynamic wallpaper: its metadata, and what it plays now (module/show/dynamic.c). */
	bool is_dynamic;
	struct veil_dynamic dynamic;
	enum veil_dynamic_mode mode;
	bool has_place;
	double latitude, longitude;
	int64_t day_start_ms; /* the day schedule is for; 0 when none is made */
	bool loaded;
	struct timed_load *load; /* running, NULL when none */

	int timer_fd;
	struct wl_event_source *timer;
	struct wl_event_source *idle;
	struct wl_listener clock_jump;
	/* The change due and the next one: from and to of each. */
	struct veil_timed_held held[4];

	/* The slot last put on screen, and the time it started (scene clock, ms). */
	bool applied;
	size_t applied_slot;
	int64_t applied_start_ms;
	char *shown; /* the picture last set, NULL before the first */
	int shown_item;
	bool waiting; /* the change due waits for its pictures */
	int64_t next_ms; /* when the next change is due (scene clock, ms) */
	char *error;
};

/* timed.c: what is due worked out again once the current event is over. */
void veil_timed_update_soon(struct veil_timed_show *show);

/* timed_pictures.c. The show's error (NULL: none) on its outputs' status. */
void veil_timed_set_error(struct veil_timed_show *show, const char *error);
/* A failure of one of the show's pictures: said in the log and on the show's outputs. */
void veil_timed_fail(struct veil_timed_show *show, const char *why);
/* Lets a held picture go (none held is fine). */
void veil_timed_release(struct veil_timed_held *held);
/* Keeps path open in held (already, or now); false with the error when it cannot be. */
bool veil_timed_hold(struct veil_timed_show *show, struct veil_timed_held *held, const char *path,
	int item);
/*
 * Holds two pictures (a path NULL for none) until both are decoded: true once they are, or
 * once one failed (*failed, said); false while they decode (the show waits, and their first
 * frames bring veil_timed_update_soon()).
 */
bool veil_timed_hold_both(struct veil_timed_show *show, const char *a, int a_item, const char *b,
	int b_item, bool *failed);
/*
 * Sets path (its item-th image) for the show's name, with dark_item of path as its dark picture
 * when not 0; spec NULL: the command's own transition. sizes: the <size> choices path is the
 * largest of, each output showing the one that fits it (module/core/package.c); or NULL.
 */
bool veil_timed_set_picture(struct veil_timed_show *show, const char *path, int item,
	int dark_item, const struct veil_transition_spec *spec, struct veil_package *sizes);
/* The slot's picture decoded ahead of its change (NULL for <size> choices). */
const char *veil_timed_held_to(const struct veil_timed_slot *slot);
/* Puts the slot due on screen (its pictures decoded). */
bool veil_timed_apply(struct veil_timed_show *show, const struct veil_timed_slot *slot,
	const struct veil_timed_point *point);

/*
 * timed_dynamic.c. A dynamic wallpaper's schedule for the local day of now (made again when the
 * day, the place or the mode changed). false when it plays none: its appearance, or an error.
 */
bool veil_timed_dynamic_day(struct veil_timed_show *show, int64_t now);

#endif
