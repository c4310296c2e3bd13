/*
 * A command naming a wallpaper package or GNOME's XML, read on one of veil's workers: the
 * package's metadata.json (up to 256 KiB) and its listings, or the XML (up to 64 KiB parsed)
 * that says whether it is a list, <size> choices or a timed background. The compositor's thread
 * only stat()s the path. When the read is done the command runs again with what was read; a
 * failure is said in the status and the wallpaper on screen stays. A later command for the same
 * name (and workspace) cancels the read: the last command wins.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "module/commands/commands.h"
#include "module/commands/package_load.h"
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/words/command.h"
#include "util/message.h"
#include "util/worker.h"

struct package_load {
	struct veil_job job;
	struct wl_list link; /* veil_scene.package_loads */
	struct veil_scene *scene;
	char *name;
	/* The command's copy: path, dark_path and workspace its own. */
	struct veil_command cmd;
	/* What the worker read. */
	int ret;
	struct veil_package *package;
	struct veil_gnome_wallpaper listed;
	char *message;
	/* `veil pause|resume` given while it was read: given again, in order, once it is stored. */
	struct load_pause *pauses;
	size_t n_pauses;
};

struct load_pause {
	char *name;
	bool paused;
};

static void load_free(struct package_load *load) {
	if (load == NULL) {
		return;
	}
	veil_package_unref(load->package);
	veil_gnome_wallpaper_finish(&load->listed);
	free(load->message);
	for (size_t i = 0; i < load->n_pauses; i++) {
		free(load->pauses[i].name);
	}
	free(load->pauses);
	veil_command_finish(&load->cmd);
	free(load->name);
	free(load);
}

static void load_run(struct veil_job *job) {
	struct package_load *load = wl_container_of(job, load, job);
	/* A list (1), a package (0 and load->package) or a timed background (0). */
	load->ret = veil_package_open(&load->cmd, &load->package, &load->listed,
		&load->message);
}

/* The command again, with what was read: as if it had just been given. */
static void load_done(struct veil_job *job) {
	struct package_load *load = wl_container_of(job, load, job);
	struct veil_scene *scene = load->scene;
	wl_list_remove(&load->link);
	wl_list_init(&load->link);
	struct veil_command cmd = load->cmd;
	char *message = NULL;
	if (load->ret < 0) {
		const char *why = load->message != NULL ? load->message : "Out of memory";
		message = strdup(why);
		veil_scene_name_workspace(&cmd, &message);
		veil_message_sanitize(message);
		wlr_log(WLR_ERROR, "veil: output %s: %s", load->name,
			message != NULL ? message : why);
		/* The wallpaper on screen stays; the status says why. */
		veil_scene_record_error(scene, load->name, message != NULL ? message : why);
		/* Said on the command signal: for a restore's package, state/ shows its fallback. */
		veil_scene_announce(scene, load->name, &cmd, VEIL_SCENE_COMMAND_FAILED,
			message != NULL ? message : why);
		free(message);
		load_free(load);
		veil_scene_changed(scene);
		return;
	}
	if (load->ret > 0) {
		/* GNOME's list: its light and dark files in its mode, as `dark <file>`. */
		cmd = veil_package_list_command(&load->cmd, &load->listed);
	} else if (load->package != NULL) {
		cmd.package = load->package;
	} else {
		/* A timed background: module/show/timed.c reads it again, on a worker too. */
		cmd.package_read = true;
	}
	int ret = veil_scene_run(scene, load->name, &cmd, -1, NULL, &message);
	for (size_t i = 0; ret == 0 && i < load->n_pauses; i++) {
		free(message);
		message = NULL;
		veil_scene_set_paused(scene, load->pauses[i].name, load->pauses[i].paused,
			&message);
	}
	free(message);
	load_free(load);
	veil_scene_changed(scene);
}

static void load_discard(struct veil_job *job) {
	struct package_load *load = wl_container_of(job, load, job);
	load_free(load);
}

static const struct veil_job_impl load_impl = {
	.run = load_run,
	.done = load_done,
	.discard = load_discard,
};

/* What the compositor's thread can tell of GNOME's XML before it is read: that it opens. */
static int check_xml(const struct veil_command *cmd, char **message) {
	if (cmd->has_slideshow && !cmd->from_slideshow) {
		/* A list, <size> choices and a timed background alike. */
		return veil_message_fail(message, -EINVAL, "'%s' is GNOME's XML: every, order and "
			"recursive are for a directory of pictures", cmd->path);
	}
	if (access(cmd->path, R_OK) != 0) {
		int err = errno;
		return veil_message_fail(message, -err, "Cannot open '%s': %s", cmd->path,
			strerror(err));
	}
	return 0;
}

static bool names_file(const struct veil_command *cmd) {
	return cmd->kind == VEIL_COMMAND_SET && cmd->path != NULL &&
		cmd->look.mode != VEIL_MODE_SOLID_COLOR;
}

int veil_package_check(const struct veil_command *cmd, bool *package, bool *xml,
		char **message) {
	*package = false;
	*xml = false;
	if (!names_file(cmd)) {
		return 0;
	}
	if (veil_package_xml_name(cmd->path)) {
		*xml = true;
		return check_xml(cmd, message);
	}
	*package = veil_package_detect(cmd->path);
	return *package ? veil_package_words_check(cmd, message) : 0;
}

/* cmd's strings and a restore's fallback, copied (veil_command_finish() frees them). */
static bool copy_command(struct veil_command *copy, const struct veil_command *cmd) {
	*copy = *cmd;
	copy->fallback = NULL;
	copy->path = cmd->path != NULL ? strdup(cmd->path) : NULL;
	bool look = veil_look_copy(&copy->look, &cmd->look) == 0;
	copy->workspace = cmd->workspace != NULL ? strdup(cmd->workspace) : NULL;
	if (cmd->from_restore && cmd->fallback != NULL &&
			((copy->fallback = calloc(1, sizeof(*copy->fallback))) == NULL ||
			!copy_command(copy->fallback, cmd->fallback))) {
		return false;
	}
	return (cmd->path == NULL || copy->path != NULL) && look &&
		(cmd->workspace == NULL || copy->workspace != NULL);
}

int veil_package_load(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
		struct veil_package **package, char **message) {
	*package = NULL;
	if (!names_file(cmd)) {
		return 0;
	}
	if (cmd->package != NULL) {
		/* Read on a worker (the <size> choices of an XML too): shown now. */
		int ret = veil_package_words_check(cmd, message);
		if (ret == 0) {
			*package = veil_package_ref(cmd->package);
		}
		return ret;
	}
	if (cmd->package_read) {
		return 0;
	}
	bool xml = veil_package_xml_name(cmd->path);
	if (!xml && !veil_package_detect(cmd->path)) {
		return 0;
	}
	int ret = xml ? check_xml(cmd, message) : veil_package_words_check(cmd, message);
	if (ret < 0) {
		return ret;
	}
	struct package_load *load = calloc(1, sizeof(*load));
	if (load == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	wl_list_init(&load->link);
	load->scene = scene;
	if ((load->name = strdup(name)) == NULL || !copy_command(&load->cmd, cmd)) {
		load_free(load);
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	wl_list_insert(&scene->package_loads, &load->link);
	veil_worker_submit(scene->ctx.worker, &load->job, &load_impl);
	wlr_log(WLR_DEBUG, "veil: output %s: reading %s on a worker", name, cmd->path);
	return 1;
}

static bool same(const char *a, const char *b) {
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

void veil_package_load_cancel(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd) {
	/* `output * veil off` ends every output's wallpaper (not the workspaces'). */
	bool every = cmd != NULL && cmd->kind == VEIL_COMMAND_OFF && cmd->workspace == NULL &&
		strcmp(name, "*") == 0;
	struct package_load *load, *tmp;
	wl_list_for_each_safe(load, tmp, &scene->package_loads, link) {
		if (cmd == NULL || (same(load->cmd.workspace, cmd->workspace) &&
				(every || strcmp(load->name, name) == 0))) {
			wl_list_remove(&load->link);
			wl_list_init(&load->link);
			veil_job_cancel(&load->job);
		}
	}
}

/* A pause for name is one for what the read of load stores: for which name, else NULL. */
static const char *pause_name(const struct package_load *load, const char *name) {
	if (strcmp(name, "*") == 0) {
		return load->name;
	}
	return strcmp(load->name, "*") == 0 || strcmp(load->name, name) == 0 ? name : NULL;
}

void veil_package_load_pause(struct veil_scene *scene, const char *name, bool paused) {
	struct package_load *load;
	wl_list_for_each(load, &scene->package_loads, link) {
		const char *which = pause_name(load, name);
		if (which == NULL) {
			continue;
		}
		struct load_pause *pauses = realloc(load->pauses,
			(load->n_pauses + 1) * sizeof(*pauses));
		if (pauses == NULL) {
			continue;
		}
		load->pauses = pauses;
		if ((pauses[load->n_pauses].name = strdup(which)) == NULL) {
			continue;
		}
		pauses[load->n_pauses++].paused = paused;
		wlr_log(WLR_DEBUG, "veil: output %s: %s once %s is read", which,
			paused ? "paused" : "playing", load->cmd.path);
	}
}
