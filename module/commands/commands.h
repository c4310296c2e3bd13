/* The dispatcher (module/commands/): what control/ and state/ run commands through. */
#ifndef VEIL_MODULE_COMMANDS_H
#define VEIL_MODULE_COMMANDS_H

struct veil_command;
struct veil_scene;

/*
 * Carries out a parsed command for an output name or "*". With fd >= 0, a SET opens the file from
 * fd (the caller keeps fd) and label is what the status calls it; else it opens cmd->path.
 * Returns 0 or a negative errno with *message set.
 */
int veil_scene_run(struct veil_scene *scene, const char *output_name,
	const struct veil_command *cmd, int fd, const char *label, char **message);

#endif
