/* The dispatcher (module/commands/): what control/ and state/ run commands through. */
#ifndef VEIL_MODULE_COMMANDS_H
#define VEIL_MODULE_COMMANDS_H

#include <stdbool.h>

#include "module/core/scene.h"

/* What veil_scene_parsed() does with a command the parser took. */
typedef int (*veil_scene_parsed_func)(struct veil_scene *scene, const char *output_name,
	const struct veil_command *cmd, char **message);

/*
 * Carries out a parsed command for an output name or "*". With fd >= 0, a SET opens the file from
 * fd (the caller keeps fd) and label is what the status calls it; else it opens cmd->path.
 * Returns 0 or a negative errno with *message set.
 */
int veil_scene_run(struct veil_scene *scene, const char *output_name,
	const struct veil_command *cmd, int fd, const char *label, char **message);
/*
 * veil_scene_command() and veil_scene_check(): on the compositor thread, argv parsed and, when
 * the parser takes it, handed to then. *message (message may be NULL) is the parser's or then's
 * sentence, made valid UTF-8 for the JSON replies. Returns 0 or a negative errno.
 */
int veil_scene_parsed(struct veil_scene *scene, const char *output_name, int argc,
	char *argv[], char **message, veil_scene_parsed_func then);
/*
 * Emits the scene's command signal (module/core/scene.h): step happened to cmd for name (why:
 * what failed, for VEIL_SCENE_COMMAND_FAILED; else NULL).
 */
void veil_scene_announce(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd, enum veil_scene_command_step step, const char *why);
/*
 * A command for a workspace failed: its *message (non-NULL) names the workspace in front
 * ("Workspace '2': ..."). false, *message unchanged, for a command not for a workspace.
 */
bool veil_scene_name_workspace(const struct veil_command *cmd, char **message);

#endif
