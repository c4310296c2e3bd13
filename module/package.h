/*
 * A wallpaper package shown as one wallpaper: one picture per output, the one that fits it
 * (util/fit.c), chosen again when the output's size, scale or transform changes.
 *
 * The setting a command stores for a package shows nothing itself: it holds one choice per
 * picture, each a setting of the same words showing that picture (its source opened only when
 * an output picks it, let go when none shows it), and its dark setting the dark pictures'. An
 * output resolves its setting (the dark one while the scheme is dark) and then the choice that
 * fits it: the choice is what the output shows, as it would show any setting.
 */
#ifndef VEIL_MODULE_PACKAGE_H
#define VEIL_MODULE_PACKAGE_H

#include <stdbool.h>
#include "module/package_read.h"

struct json_object;
struct veil_output;
struct veil_scene;
struct veil_setting;

struct veil_command;

/*
 * veil_scene_check()'s look at a command (stat() only): *package when its path is a wallpaper
 * package's directory, *xml for GNOME's XML (read when the command runs). A negative errno and
 * *message (one sentence naming the file) when the words are not for a package (dark, every,
 * order, recursive) or the XML cannot be opened.
 */
int veil_package_check(const struct veil_command *cmd, bool *package, bool *xml,
	char **message);
/*
 * Runs first for a command (module/package_load.c). 1 when its path is a package or GNOME's
 * XML, now read on a worker: the command runs again when it is read (cmd->package the package,
 * or cmd->package_read for a timed background; a list's file in its place), or its error goes
 * to the status. 0 and *package (one reference) for a command carrying a package read, or a
 * slideshow's step naming one; 0 and *package NULL for anything else; a negative errno and
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
 * Gives setting (a new one, without a source) a choice for each of the n pictures (of package,
 * which each choice references). False when memory is short.
 */
bool veil_package_attach(struct veil_setting *setting, struct veil_package *package,
	const struct veil_package_picture *pictures, size_t n);
/* Frees what veil_package_attach() gave (the setting goes). */
void veil_package_detach(struct veil_setting *setting);
/*
 * What the output shows for setting: setting itself, or the choice of a package's that fits the
 * output, its source opened (a choice whose file cannot be opened is passed over, and said).
 * When none can be shown, what the output shows now.
 */
struct veil_setting *veil_package_choose(struct veil_output *output,
	struct veil_setting *setting);
/*
 * A slideshow's package, opened ahead: the picture (malloc()ed) that the scene's largest output
 * would show now, in *picture; NULL when dir is no package. A negative errno and *message when
 * it cannot be shown.
 */
int veil_package_ahead(struct veil_scene *scene, const char *dir, char **picture,
	char **message);
/* The output's size, scale or transform changed: its picture is chosen again. */
void veil_package_output_changed(struct veil_output *output);
/* Lets go of the sources of choices no output shows or waits for. */
void veil_package_trim(struct veil_scene *scene);
/* The status's "package": its name, the picture shown and why; NULL when it shows none. */
struct json_object *veil_package_status(struct veil_output *output);

#endif
