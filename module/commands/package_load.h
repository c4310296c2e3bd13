#ifndef VEIL_MODULE_COMMANDS_PACKAGE_LOAD_H
#define VEIL_MODULE_COMMANDS_PACKAGE_LOAD_H

#include <stdbool.h>

struct veil_command;
struct veil_package;
struct veil_scene;

/*
 * veil_scene_check()'s look at a command (stat() only): *package when its path is a wallpaper
 * package's directory, *xml for GNOME's XML (read when the command runs). A negative errno and
 * *message (one sentence naming the file) when the words are not for a package (dark, every,
 * order, recursive) or the XML cannot be opened.
 */
int veil_package_check(const struct veil_command *cmd, bool *package, bool *xml,
	char **message);
/*
 * Runs first for a command. 1 when its path is a package or GNOME's XML, now read on a worker:
 * the command runs again when it is read (cmd->package the package, or cmd->package_read for a
 * timed background; a list's file in its place), or its error goes to the status (a restore's
 * command, cmd->from_restore: its fallback is shown). 0 and *package (one reference) for a
 * command carrying a package read; 0 and *package NULL for anything else; a negative errno and
 * *message when the words are not for a package.
 */
int veil_package_load(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
	struct veil_package **package, char **message);
/*
 * The reads cmd (a SET or OFF for name) supersedes are dropped: their results never come. cmd
 * NULL: every read (the scene goes).
 */
void veil_package_load_cancel(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd);

/*
 * `veil pause` (paused) or `resume` for name: the reads whose result name shows get it too, given
 * again once their setting is stored (it applies to what the read stores, not only to the old).
 */
void veil_package_load_pause(struct veil_scene *scene, const char *name, bool paused);

#endif
