/*
 * Slideshows: `output <name|*> veil <directory> ...` shows the directory's pictures one after
 * another, each step a change of the name's setting (with the command's transition or the
 * output's default), the next picture decoded ahead, the directory read on a worker
 * (module/show/slideshow_scan.c) in the order of module/show/slideshow_order.c.
 */
#ifndef VEIL_MODULE_SLIDESHOW_H
#define VEIL_MODULE_SLIDESHOW_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct veil_command;
struct veil_output;
struct veil_scene;

/*
 * For a SET with a path: whether it names a directory (*directory), and whether the words fit
 * that (`every`, `order` and `recursive` need one). 0, or a negative errno with *message.
 */
int veil_slideshow_check(const struct veil_command *cmd, bool *directory, char **message);
/* Starts a show of cmd->path for name, ending the one name had. Returns at once. */
int veil_slideshow_start(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd, char **message);
/* A command for name replaced its setting: its show ends (every show with all). */
void veil_slideshow_stop(struct veil_scene *scene, const char *name, bool all);
/* `veil next` (direction 1) or `veil previous` (-1). */
int veil_slideshow_move(struct veil_scene *scene, const char *name, int direction,
	char **message);
/* The "slideshow" object of an output's status; NULL when it shows none. */
struct json_object *veil_slideshow_status(struct veil_output *output);
/*
 * `veil restore` (module/state/state.c), right after veil_slideshow_start(): the show's first step
 * shows file if the directory still has it (else the first by the order), a shuffle having
 * shown the paths of shown already (oldest first). 0, or -ENOENT without such a show.
 */
int veil_slideshow_resume(struct veil_scene *scene, const char *name, const char *file,
	const char *const *shown, size_t n_shown);
/* What the state file keeps of name's show (module/state/state.c); NULL when it has none. */
struct json_object *veil_slideshow_state(struct veil_scene *scene, const char *name);

#endif
