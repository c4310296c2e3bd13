/*
 * veil_scene_check(): a command validated as veil_scene_command() would take it, with no effect:
 * parsed, its files looked at (a header read at most), nothing stored or shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <veil/veil.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/show/show.h"
#include "module/words/command.h"
#include "util/message.h"

int veil_scene_check(struct veil_scene *scene, int argc, char *argv[], char **message) {
	veil_scene_assert_thread(scene);
	char *unused = NULL;
	if (message == NULL) {
		message = &unused;
	}
	*message = NULL;
	struct veil_command cmd = {0};
	int ret = veil_command_parse(argc, argv, &cmd, message);
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && cmd.span && scene != NULL &&
			scene->display != NULL && scene->output_layout == NULL) {
		/* As veil_scene_command() would say; without a scene, the command decides. */
		veil_message_set(message, "span needs the compositor's output layout, which it has "
			"not given veil (veil_scene_set_output_layout)");
		ret = -EINVAL;
	}
	bool directory = false, timed = false;
	struct veil_package *package = NULL;
	if (ret == 0) {
		struct veil_gnome_wallpaper listed;
		ret = veil_package_check(&cmd, &package, &listed, message);
		/*
		 * A package is shown as it is: its pictures are checked when an output picks one. A
		 * list's files are checked as its command's would be.
		 */
		bool list = ret > 0;
		if (list) {
			/* Its <filename> may be GNOME's XML again (desktop-base's <size> choices). */
			ret = listed.file != NULL && !veil_package_xml_name(listed.file) ?
				veil_source_check(listed.file, message) : 0;
			if (ret == 0 && listed.dark != NULL) {
				ret = veil_source_check(listed.dark, message);
			}
			veil_gnome_wallpaper_finish(&listed);
		}
		directory = package != NULL || list;
		veil_package_unref(package);
	}
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && !directory) {
		/* A show's path: a directory (no dark for it), or a timed background. */
		const struct veil_show_impl *show = NULL;
		ret = veil_show_claim(&cmd, &show, message);
		directory = show != NULL && show->directory;
		timed = show != NULL && !show->directory;
	}
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && cmd.mode != VEIL_MODE_SOLID_COLOR &&
			!directory && !timed) {
		ret = veil_source_check(cmd.path, message);
	}
	if (ret == 0 && directory && (cmd.dark_path != NULL || cmd.has_dark_color)) {
		veil_message_set(message, "dark names one picture: a slideshow of '%s' cannot have "
			"one", cmd.path);
		ret = -EINVAL;
	}
	if (ret == 0 && cmd.dark_path != NULL) {
		ret = veil_source_check(cmd.dark_path, message);
	}
	/* restore's fallback file: checked as if it were the command. */
	const struct veil_command *fallback = cmd.fallback;
	if (ret == 0 && cmd.kind == VEIL_COMMAND_RESTORE && fallback != NULL &&
			fallback->path != NULL) {
		ret = veil_show_claim_directory(fallback, &directory, message);
		if (ret == 0 && !directory) {
			ret = veil_source_check(fallback->path, message);
		}
	}
	veil_command_finish(&cmd);
	veil_message_sanitize(*message);
	free(unused);
	return ret;
}
