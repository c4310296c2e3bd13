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
#include "module/core/package_read.h"
#include "source/source.h"
#include "module/words/command.h"

struct json_object;
struct veil_output;
struct veil_scene;
struct veil_setting;

struct veil_command;

/*
 * Reads what the command's path is (on a worker: module/commands/package_load.c; a slideshow's
 * step carries the package its scan read): 0 and *package NULL when it is not a package,
 * 0 and the package (one reference) when it is a Plasma package's directory, GNOME's XML of
 * <size> choices, or cmd->package (read before); 1 for a gnome-background-properties list, whose
 * wallpaper (to finish) the caller shows instead; or a negative errno and *message (one sentence
 * naming the file) when it cannot be shown: its metadata.json is not JSON, it has no pictures, or
 * the words are not for a package.
 */
int veil_package_open(const struct veil_command *cmd, struct veil_package **package,
	struct veil_gnome_wallpaper *wallpaper, char **message);
/*
 * The words a package cannot take (dark, every, order, recursive): a negative errno and
 * *message naming cmd's path, else 0.
 */
int veil_package_words_check(const struct veil_command *cmd, char **message);

/*
 * Gives setting (a new one, without a source) a choice for each of the n pictures (of package,
 * which each choice references). False when memory is short.
 */
/*
 * What a gnome-background-properties list shows: cmd's words with the list's light and dark
 * files, in its mode and colour unless cmd names them (its strings point into listed).
 */
struct veil_command veil_package_list_command(const struct veil_command *cmd,
	const struct veil_gnome_wallpaper *listed);

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
 * A slideshow's package (read by its scan), opened ahead: the picture (malloc()ed) that the
 * scene's largest output would show now, in *picture; NULL when package is NULL. A negative
 * errno and *message when memory is short.
 */
int veil_package_ahead(struct veil_scene *scene, const struct veil_package *package,
	char **picture, char **message);
/*
 * What a package's choice (a setting in some setting's choices) is decoded to cover: the outputs
 * that choose it now, 0x0 when none does (or it is no choice of the scene's settings).
 */
struct veil_cover veil_package_cover(struct veil_scene *scene,
	const struct veil_setting *choice);
/* The output's size, scale or transform changed: its picture is chosen again. */
void veil_package_output_changed(struct veil_output *output);
/* Lets go of the sources of choices no output shows or waits for. */
void veil_package_trim(struct veil_scene *scene);
/* The status's "package": its name, the picture shown and why; NULL when it shows none. */
struct json_object *veil_package_status(struct veil_output *output);

#endif
