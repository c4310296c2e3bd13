/*
 * Timed slideshows: `output <name|*> veil <file.xml> ...` plays a GNOME timed background
 * (module/show/timed_xml.c) on its schedule (module/show/timed_schedule.c): the picture due now,
 * faded into the next over each of its transitions, one timer for the next change.
 */
#ifndef VEIL_MODULE_TIMED_H
#define VEIL_MODULE_TIMED_H

#include <stdbool.h>

struct json_object;
struct veil_command;
struct veil_output;
struct veil_scene;

/*
 * For a SET with a path: whether it names a timed background (*timed), and whether the words
 * fit that (no `dark`, no slideshow words). 0, or a negative errno with *message.
 */
int veil_timed_check(const struct veil_command *cmd, bool *timed, char **message);
/*
 * Starts a show of cmd->path for name, ending the shows name had. Returns at once: the file is
 * read on a worker, its errors come later (the outputs' error, the log); the wallpaper stays
 * until its first picture is decoded.
 */
int veil_timed_start(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
	char **message);
/* A command for name replaced its setting: its show ends (every show with all). */
void veil_timed_stop(struct veil_scene *scene, const char *name, bool all);
/*
 * What the state file keeps of name's show (module/state/write.c): the XML's path and the
 * command's words (its transition, its location); false when name has no show.
 */
struct veil_show_state;
bool veil_timed_state(struct veil_scene *scene, const char *name, struct veil_show_state *state);
/* The "timed" object of an output's status; NULL when it shows none. */
struct json_object *veil_timed_status(struct veil_output *output);
/* veil_scene_set_location(): dynamic wallpapers without `location` follow the new place. */
void veil_timed_location_changed(struct veil_scene *scene);

#endif
