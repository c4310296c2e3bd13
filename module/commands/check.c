/*
 * veil_scene_check(): a command validated as veil_scene_command() would take it, with no effect:
 * parsed, its files looked at (a header read at most), nothing stored or shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <veil/veil.h>
#include "module/commands/commands.h"
#include "module/commands/package_load.h"
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/show/show.h"
#include "module/words/command.h"
#include "util/message.h"

/* What veil_scene_command() would refuse of cmd, with no effect. */
static int check_parsed(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, char **message) {
	int ret = 0;
	if (cmd->kind == VEIL_COMMAND_SET && cmd->look.span && scene != NULL &&
			scene->display != NULL && scene->output_layout == NULL) {
		/* As veil_scene_command() would say; without a scene, the command decides. */
		veil_message_set(message, "span needs the compositor's output layout, which it has "
			"not given veil (veil_scene_set_output_layout)");
		ret = -EINVAL;
	}
	bool directory = false, timed = false;
	if (ret == 0) {
		/*
		 * A package or GNOME's XML is only stat()ed here: it is read on a worker when the
		 * command runs, and its pictures are checked when an output picks one.
		 */
		ret = veil_package_check(cmd, &directory, &timed, message);
	}
	if (ret == 0 && cmd->kind == VEIL_COMMAND_SET && !directory && !timed) {
		/* A show's path: a directory (no dark for it), or a timed background. */
		const struct veil_show_impl *show = NULL;
		ret = veil_show_claim(cmd, &show, message);
		directory = show != NULL && show->directory;
		timed = show != NULL && !show->directory;
	}
	if (ret == 0 && cmd->kind == VEIL_COMMAND_SET && cmd->look.mode != VEIL_MODE_SOLID_COLOR &&
			!directory && !timed) {
		ret = veil_source_check(cmd->path, message);
	}
	if (ret == 0 && directory && (cmd->look.dark_path != NULL || cmd->look.has_dark_color)) {
		veil_message_set(message, "dark names one picture: a slideshow of '%s' cannot have "
			"one", cmd->path);
		ret = -EINVAL;
	}
	if (ret == 0 && cmd->look.dark_path != NULL) {
		ret = veil_source_check(cmd->look.dark_path, message);
	}
	/* restore's fallback file: checked as if it were the command. */
	const struct veil_command *fallback = cmd->fallback;
	if (ret == 0 && cmd->kind == VEIL_COMMAND_RESTORE && fallback != NULL &&
			fallback->path != NULL) {
		ret = veil_show_claim_directory(fallback, &directory, message);
		if (ret == 0 && !directory) {
			ret = veil_source_check(fallback->path, message);
		}
	}
	return ret;
}

int veil_scene_check(struct veil_scene *scene, int argc, char *argv[], char **message) {
	return veil_scene_parsed(scene, NULL, argc, argv, message, check_parsed);
}
