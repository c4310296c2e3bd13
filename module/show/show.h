/*
 * The shows: settings that change by themselves (a slideshow of a directory, a timed background),
 * each a struct veil_show_impl in one table. The dispatcher (module/commands/) reaches shows
 * through this header alone: which show claims a command's path, start, stop and move.
 */
#ifndef VEIL_MODULE_SHOW_H
#define VEIL_MODULE_SHOW_H

#include <stdbool.h>

struct veil_command;
struct veil_scene;

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
};

/*
 * The show that claims cmd's path (*show, NULL for none), in the table's order: 0, or a
 * negative errno with *message from the show that refused it.
 */
int veil_show_claim(const struct veil_command *cmd, const struct veil_show_impl **show,
	char **message);
/* Like veil_show_claim(), among the shows that play a directory only. */
int veil_show_claim_directory(const struct veil_command *cmd, bool *yes, char **message);
/* Ends name's shows (every show's with all), except of the kind except (NULL: none). */
void veil_show_stop(struct veil_scene *scene, const char *name, bool all,
	const struct veil_show_impl *except);
/* Whether a show plays the regular file at path from its path (its descriptor is not enough). */
bool veil_show_plays_path(const char *path);
/* `veil next` / `veil previous` for name's show. */
int veil_show_move(struct veil_scene *scene, const char *name, int direction, char **message);

#endif
