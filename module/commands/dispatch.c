/*
 * The dispatcher: a parsed command (module/words/) runs through the handler of its kind, in the
 * table below. Handlers store settings through the core (module/core/store.c), as the shows'
 * steps do, and reach shows through their table (module/show/show.h) alone. What state/ does
 * of a command (a restore waiting for the file, the outcome it keeps, `restore` itself) it does
 * listening to the scene's command signal.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/policy/policy.h"
#include "module/show/show.h"
#include "module/commands/commands.h"
#include "module/commands/package_load.h"
#include "module/words/command.h"
#include "module/xray/xray.h"
#include "util/message.h"

typedef int (*handler_func)(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd, int fd, const char *label, char **message);

static int run(struct veil_scene *scene, const char *output_name,
	const struct veil_command *cmd, int fd, const char *label, char **message);

/* A path a show plays starts it (module/show/): 1; 0 for a file; or a negative errno. */
static int run_show(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	if (cmd->from_slideshow) {
		return 0;
	}
	const struct veil_show_impl *show = NULL;
	int ret = 0;
	if (fd >= 0 && cmd->has_slideshow) {
		veil_message_set(message, "every, order and recursive are for a directory of "
			"pictures, not for '%s'", label != NULL ? label : "a file");
		ret = -EINVAL;
	} else if (fd < 0) {
		ret = veil_show_claim(cmd, &show, message);
	}
	if (ret == 0 && show != NULL && show->directory &&
			(cmd->look.dark_path != NULL || cmd->look.has_dark_color)) {
		veil_message_set(message, "dark names one picture: a slideshow of '%s' cannot have "
			"one", cmd->path);
		ret = -EINVAL;
	} else if (ret == 0 && show != NULL) {
		/* The name's other shows end: this one takes over. */
		veil_show_stop(scene, output_name, false, show);
		ret = show->start(scene, output_name, cmd, message);
		if (ret == 0) {
			veil_scene_announce(scene, output_name, cmd, VEIL_SCENE_COMMAND_REPLACED,
				NULL);
			veil_scene_record_error(scene, output_name, NULL);
			return 1;
		}
	}
	if (ret < 0) {
		wlr_log(WLR_ERROR, "veil: output %s: %s", output_name,
			*message != NULL ? *message : "failed");
		veil_scene_record_error(scene, output_name, *message);
	}
	return ret;
}

static int handle_pause(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	bool paused = cmd->kind == VEIL_COMMAND_PAUSE;
	/* A package or GNOME's XML being read: what it stores gets the pause too. */
	veil_package_load_pause(scene, name, paused);
	return veil_scene_set_paused(scene, name, paused, message);
}

static int handle_transition(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	int ret = veil_scene_set_transition_default(scene, name, &cmd->look.transition);
	if (ret < 0) {
		veil_message_set(message, "Out of memory");
	}
	return ret;
}

static int handle_move(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	return veil_show_move(scene, name, cmd->kind == VEIL_COMMAND_NEXT ? 1 : -1, message);
}

/*
 * `restore`'s work is state/'s, which listens while the compositor keeps a state file. With
 * none, nothing listens: the fallback, as after a first start.
 */
static int handle_restore(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	struct veil_scene_command_event event = {
		.name = name,
		.cmd = cmd,
		.step = VEIL_SCENE_COMMAND_RESTORE,
		.message = message,
	};
	wl_signal_emit_mutable(&scene->events.command, &event);
	if (event.handled) {
		return event.ret;
	}
	wlr_log(WLR_INFO, "veil: output %s: nothing restored: the compositor keeps no state file",
		name);
	return cmd->fallback != NULL ?
		veil_scene_run(scene, name, cmd->fallback, -1, NULL, message) : 0;
}

static int handle_policy(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	int ret = veil_policy_set(scene, name, cmd);
	if (ret < 0) {
		veil_message_set(message, "Out of memory");
	}
	return ret;
}

static int handle_xray(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	int ret = veil_xray_set(scene, name, cmd);
	if (ret < 0) {
		veil_message_set(message, "Out of memory");
	}
	return ret;
}

static int handle_scheme(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	/* The whole scene's, whichever output the command names. */
	veil_scene_apply_dark(scene, cmd->dark);
	return 0;
}

/* A workspace shows one picture or video: a path a show would play is refused. */
static int refuse_show_for_workspace(const struct veil_command *cmd, char **message) {
	const struct veil_show_impl *show = NULL;
	int ret = veil_show_claim(cmd, &show, message);
	if (ret == 0 && show != NULL) {
		veil_message_set(message, "'%s' is %s: a workspace shows one picture or video "
			"(%s are for whole outputs)", cmd->path, show->path_is, show->shows);
		ret = -EINVAL;
	}
	return ret;
}

/* A wallpaper (SET) or none (OFF) for the name: its sources opened, then stored. */
static int handle_set(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	int ret = 0;
	struct veil_source *source = NULL, *dark = NULL;
	struct veil_package *package = NULL;
	ret = veil_scene_check_span(scene, output_name, cmd, message);
	if (ret < 0) {
		return ret;
	}
	if (cmd->kind == VEIL_COMMAND_SET) {
		/*
		 * A wallpaper package (module/core/package.c): one picture chosen per output. It and
		 * GNOME's XML are read on a worker first (package_load.c): 1, the command runs again
		 * when they are read.
		 */
		ret = fd < 0 ? veil_package_load(scene, output_name, cmd, &package, message) : 0;
		if (ret < 0) {
			wlr_log(WLR_ERROR, "veil: output %s: %s", output_name, *message);
			veil_scene_record_error(scene, output_name, *message);
			return ret;
		}
		if (ret > 0) {
			return 0;
		}
	}
	if (cmd->kind == VEIL_COMMAND_SET && package == NULL) {
		if (cmd->workspace != NULL && fd < 0 && cmd->look.mode != VEIL_MODE_SOLID_COLOR) {
			ret = refuse_show_for_workspace(cmd, message);
			if (ret < 0) {
				return ret;
			}
		}
		ret = run_show(scene, output_name, cmd, fd, label, message);
		if (ret != 0) {
			/* A show started (1), or the words were wrong for the path. */
			return ret < 0 ? ret : 0;
		}
		if (cmd->look.mode != VEIL_MODE_SOLID_COLOR) {
			ret = veil_scene_open(scene, output_name, cmd, fd, label, &source, &dark,
				message);
			if (ret < 0) {
				return ret;
			}
		}
	}
	if (!cmd->from_slideshow && cmd->workspace == NULL) {
		/*
		 * What a restore showed is replaced: the status no longer speaks of it (unless this
		 * is the restore's own package, read).
		 */
		if (!cmd->from_restore) {
			veil_scene_announce(scene, output_name, cmd, VEIL_SCENE_COMMAND_REPLACED,
				NULL);
		}
		/* The name's shows end; `output * veil off` ends them all. */
		veil_show_stop(scene, output_name, cmd->kind == VEIL_COMMAND_OFF &&
			strcmp(output_name, "*") == 0, NULL);
	}
	ret = veil_scene_store(scene, output_name, cmd, source, dark, package, fd, label);
	veil_package_unref(package);
	if (ret == -ENOMEM) {
		veil_message_set(message, "Out of memory");
	}
	/* Pictures of workspaces no output is near may go; the new one may be near one. */
	veil_workspace_trim(scene);
	return ret;
}

/* The handler of each kind of command: a new word is a parser entry and a line here. */
static const handler_func handlers[] = {
	[VEIL_COMMAND_SET] = handle_set,
	[VEIL_COMMAND_OFF] = handle_set,
	[VEIL_COMMAND_PAUSE] = handle_pause,
	[VEIL_COMMAND_RESUME] = handle_pause,
	[VEIL_COMMAND_TRANSITION] = handle_transition,
	[VEIL_COMMAND_NEXT] = handle_move,
	[VEIL_COMMAND_PREVIOUS] = handle_move,
	[VEIL_COMMAND_RESTORE] = handle_restore,
	[VEIL_COMMAND_FPS] = handle_policy,
	[VEIL_COMMAND_BATTERY] = handle_policy,
	[VEIL_COMMAND_SCHEME] = handle_scheme,
	[VEIL_COMMAND_XRAY] = handle_xray,
	[VEIL_COMMAND_BLUR] = handle_xray,
};

static int run(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	*message = NULL;
	if (scene == NULL || scene->display == NULL) {
		veil_message_set(message, "veil is not running");
		return -ENODEV;
	}
	if (output_name == NULL || output_name[0] == '\0') {
		veil_message_set(message, "Missing output name: use `output <name|*> veil ...`");
		return -EINVAL;
	}
	size_t kind = (size_t)cmd->kind;
	assert(kind < sizeof(handlers) / sizeof(handlers[0]) && handlers[kind] != NULL);
	return handlers[kind](scene, output_name, cmd, fd, label, message);
}

int veil_scene_run(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	if (scene != NULL && scene->display != NULL && output_name != NULL) {
		veil_scene_announce(scene, output_name, cmd, VEIL_SCENE_COMMAND_RUN, NULL);
		if (!cmd->from_slideshow && (cmd->kind == VEIL_COMMAND_SET ||
				cmd->kind == VEIL_COMMAND_OFF || cmd->kind == VEIL_COMMAND_RESTORE)) {
			/* A package or XML still being read for the name is superseded. */
			veil_package_load_cancel(scene, output_name, cmd);
		}
	}
	int ret = run(scene, output_name, cmd, fd, label, message);
	/* Which setting failed: the workspace keeps what it had (or the output's). */
	if (ret < 0 && veil_scene_name_workspace(cmd, message) && scene != NULL &&
			scene->display != NULL) {
		veil_scene_record_error(scene, output_name, *message);
	}
	/* Messages name files, whose names need not be UTF-8; replies are JSON. */
	veil_message_sanitize(*message);
	return ret;
}

void veil_scene_announce(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, enum veil_scene_command_step step,
		const char *why) {
	struct veil_scene_command_event event = {
		.name = name,
		.cmd = cmd,
		.step = step,
		.why = why,
	};
	wl_signal_emit_mutable(&scene->events.command, &event);
}

bool veil_scene_name_workspace(const struct veil_command *cmd, char **message) {
	char *said = cmd->workspace != NULL && *message != NULL ?
		veil_message("Workspace '%s': %s", cmd->workspace, *message) : NULL;
	if (said == NULL) {
		return false;
	}
	free(*message);
	*message = said;
	return true;
}

int veil_scene_parsed(struct veil_scene *scene, const char *output_name, int argc,
		char *argv[], char **message, veil_scene_parsed_func then) {
	veil_scene_assert_thread(scene);
	char *unused = NULL;
	if (message == NULL) {
		message = &unused;
	}
	*message = NULL;
	struct veil_command cmd = {0};
	int ret = veil_command_parse(argc, argv, &cmd, message);
	if (ret == 0) {
		ret = then(scene, output_name, &cmd, message);
	}
	veil_command_finish(&cmd);
	veil_message_sanitize(*message);
	free(unused);
	return ret;
}

static int run_parsed(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, char **message) {
	int ret = veil_scene_run(scene, output_name, cmd, -1, NULL, message);
	/* A NULL scene (veil_scene_create() failed) answers "veil is not running". */
	if (scene != NULL) {
		veil_scene_changed(scene);
	}
	return ret;
}

int veil_scene_command(struct veil_scene *scene, const char *output_name,
		int argc, char *argv[], char **message) {
	return veil_scene_parsed(scene, output_name, argc, argv, message, run_parsed);
}
