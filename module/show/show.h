/*
 * The shows: settings that change by themselves (a slideshow of a directory, a timed background),
 * each a struct veil_show_impl in one table. The rooms above (module/commands/, state/, control/,
 * veil.c) reach shows through this header alone: which show claims a command's path, start,
 * stop and move, each show's part of the status and of the state file, and its resume.
 */
#ifndef VEIL_MODULE_SHOW_H
#define VEIL_MODULE_SHOW_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct json_object;
struct veil_command;
struct veil_output;
struct veil_scene;

/* What the state file keeps of name's show (module/state/write.c). */
struct veil_show_state {
	const char *key; /* the show's key (struct veil_show_impl), set by veil_show_state() */
	/* The show's own part, written under key in place of the setting's file; or NULL. */
	struct json_object *part;
	/* Else the file (or directory) it plays, kept as the setting's file; NULL: the setting's. */
	const char *path;
	/* The command's words it plays with (transition, location); NULL: the setting's. */
	const struct veil_command *words;
};

struct veil_show_impl {
	/* How a refusal names what the show plays, and the shows themselves. */
	const char *path_is; /* "a timed background" */
	const char *shows; /* "timed backgrounds" */
	/* It plays a directory: one picture (dark) cannot be given to it. */
	bool directory;
	/* For a SET with a path: whether this show plays it (*yes). 0 or a negative errno. */
	int (*claims)(const struct veil_command *cmd, bool *yes, char **message);
	/* Starts a show of cmd->path for name, ending the one of this kind name had. */
	int (*start)(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
		char **message);
	/* A command for name replaced its setting: its show ends (every show with all). */
	void (*stop)(struct veil_scene *scene, const char *name, bool all);
	/* Optional. `veil next` (direction 1) or `veil previous` (-1). */
	int (*move)(struct veil_scene *scene, const char *name, int direction, char **message);
	/*
	 * Optional. Whether a regular file is one this show plays from its path (pictures named
	 * relative to it): a header read at most, for the compositor thread.
	 */
	bool (*plays_path)(const char *path);
	/* The name of the show's part in an output's status and in the state file ("timed"). */
	const char *key;
	/* Its part of output's status (under key); NULL when output shows none of it. */
	struct json_object *(*status)(struct veil_output *output);
	/* What the state file keeps of name's show; false when name has none. */
	bool (*state)(struct veil_scene *scene, const char *name, struct veil_show_state *state);
	/*
	 * Optional. `veil restore` (module/state/restore.c), right after start: the show picks up
	 * where its part of the state file (under key) says. 0, or a negative errno.
	 */
	int (*resume)(struct veil_scene *scene, const char *name, struct json_object *part);
	/* Optional. The compositor's location changed (veil_scene_set_location()). */
	void (*location_changed)(struct veil_scene *scene);
};

/*
 * A show of a kind that keeps no list of its own (every kind after slideshow and timed): the
 * first member of its struct, in veil_scene.shows.
 */
struct veil_show {
	struct wl_list link; /* veil_scene.shows */
	const struct veil_show_impl *impl;
	char *name; /* an output name or "*" */
};

/* The kinds that are one file each, and no more than that. */
extern const struct veil_show_impl veil_show_hourly; /* module/show/hourly.c */

/*
 * The show that claims cmd's path (*show, NULL for none), in the table's order: 0, or a
 * negative errno with *message from the show that refused it.
 */
int veil_show_claim(const struct veil_command *cmd, const struct veil_show_impl **show,
	char **message);
/* Like veil_show_claim(), among the shows that play a directory only. */
int veil_show_claim_directory(const struct veil_command *cmd, bool *yes, char **message);
/*
 * Ends name's shows (every show's with all, name NULL: when the scene goes), except of the kind
 * except (NULL: none).
 */
void veil_show_stop(struct veil_scene *scene, const char *name, bool all,
	const struct veil_show_impl *except);
/* Whether a show plays the regular file at path from its path (its descriptor is not enough). */
bool veil_show_plays_path(const char *path);
/* `veil next` / `veil previous` for name's show. */
int veil_show_move(struct veil_scene *scene, const char *name, int direction, char **message);
/* Each show's part of output's status, under its key (null when the output shows none of it). */
void veil_show_status(struct veil_output *output, struct json_object *obj);
/* What the state file keeps of name's show (*state); false when name has none. */
bool veil_show_state(struct veil_scene *scene, const char *name, struct veil_show_state *state);
/* `veil restore`: the show of each part of entry (a state file's setting) resumes. */
void veil_show_resume(struct veil_scene *scene, const char *name, struct json_object *entry);
/* The compositor's location changed: the shows that follow it hear of it. */
void veil_show_location_changed(struct veil_scene *scene);
/*
 * What each step of a show started by cmd sets (*step): cmd's words (mode, colour, transition,
 * location...), without the files, the fallback and the workspace it names.
 */
void veil_show_step_init(struct veil_command *step, const struct veil_command *cmd);
/* The wall clock shows follow, in ms: the scene's (util/wall_clock.h), else CLOCK_REALTIME. */
int64_t veil_show_now_ms(const struct veil_scene *scene);
/*
 * Sets the timerfd fd (CLOCK_REALTIME) to fire when the scene's clock reaches due_ms, now being
 * now_ms: TFD_TIMER_CANCEL_ON_SET, so that a clock set wakes it (ECANCELED). A test's clock runs
 * at the real pace from elsewhere. false (errno) when it cannot be set.
 */
bool veil_show_arm_timer(int fd, int64_t due_ms, int64_t now_ms);
/* Name's show of the kind impl in veil_scene.shows (name NULL: any), NULL for none. */
struct veil_show *veil_show_find(struct veil_scene *scene, const struct veil_show_impl *impl,
	const char *name);
/*
 * The show of the kind impl output shows, for its status: its name's, else "*"'s when the
 * output has no setting of its own; NULL for none, and while a workspace's picture shows.
 */
struct veil_show *veil_show_find_shown(struct veil_output *output,
	const struct veil_show_impl *impl);

#endif
