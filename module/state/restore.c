/*
 * `veil restore`: what the state file remembers of a name shown again (its setting, show,
 * transition, fps and battery), unless a command given since replaced it; the outcome kept for
 * the status.
 */
#define _GNU_SOURCE /* O_CLOEXEC, mkostemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/policy/policy.h"
#include "module/commands/commands.h"
#include "module/core/scene.h"
#include "module/show/show.h"
#include "module/state/state.h"
#include "module/state/state_impl.h"
#include "util/ease.h"
#include "util/message.h"
#include "util/mode.h"
#include "util/worker.h"

void veil_state_wait_destroy(struct restore_wait *wait) {
	wl_list_remove(&wait->link);
	veil_command_finish(&wait->fallback);
	json_object_put(wait->spaces);
	free(wait->name);
	free(wait);
}


/* ---- Restoring ---- */

static void set_result(struct veil_state *state, const char *name, bool restored,
		const char *why) {
	struct restore_result *result, *found = NULL;
	wl_list_for_each(result, &state->results, link) {
		if (strcmp(result->name, name) == 0) {
			found = result;
		}
	}
	if (found == NULL) {
		found = calloc(1, sizeof(*found));
		if (found == NULL || (found->name = strdup(name)) == NULL) {
			free(found);
			return;
		}
		wl_list_insert(&state->results, &found->link);
	}
	free(found->why);
	found->why = why != NULL ? strdup(why) : NULL;
	found->restored = restored;
}

/*
 * A video comes back as it was left: at its position (a seek on veil's threads once it is
 * loaded), and paused if it was.
 */
static void resume_video(struct veil_setting *setting, struct json_object *entry) {
	struct json_object *member;
	if (setting == NULL || setting->source == NULL) {
		return;
	}
	if (json_object_object_get_ex(entry, "position_ms", &member)) {
		veil_source_seek(setting->source, json_object_get_int64(member));
	}
	if (json_object_object_get_ex(entry, "paused", &member) &&
			json_object_get_boolean(member)) {
		veil_source_set_paused(setting->source, true);
	}
}

/* The remembered setting of name, shown: 0, or a negative errno with *why. */
static int restore_remembered(struct veil_state *state, const char *name,
		const struct veil_command *fallback, char **why) {
	struct json_object *entry, *outputs = NULL;
	if (state->loaded == NULL) {
		*why = strdup(state->load_why != NULL ? state->load_why : "no state file");
		return -ENOENT;
	}
	json_object_object_get_ex(state->loaded, "outputs", &outputs);
	if (!json_object_object_get_ex(outputs, name, &entry)) {
		*why = veil_message("the state file remembers nothing for %s", name);
		return -ENOENT;
	}
	struct json_object *member;
	if (json_object_object_get_ex(entry, "verdict", &member)) {
		*why = strdup(json_object_get_string(member));
		return -ESTALE;
	}
	struct veil_command cmd;
	int ret = veil_state_command(entry, &cmd, why);
	if (ret < 0) {
		return ret;
	}
	/* A package is read on a worker: when the read fails, the fallback is shown then. */
	cmd.from_restore = true;
	cmd.fallback = (struct veil_command *)fallback;
	char *message = NULL;
	ret = veil_scene_run(state->scene, name, &cmd, -1, NULL, &message);
	cmd.fallback = NULL;
	if (ret < 0) {
		*why = veil_message("it cannot be shown: %s", message != NULL ? message : "failed");
	}
	free(message);
	if (ret == 0) {
		resume_video(veil_scene_find_setting(state->scene, name, NULL), entry);
	}
	if (ret == 0 && cmd.path != NULL) {
		veil_show_resume(state->scene, name, entry);
	}
	veil_command_finish(&cmd);
	return ret;
}

/* A remembered command the parser refused (why, taken): a line in the log. */
static void refused(const char *name, const char *what, char *why) {
	wlr_log(WLR_ERROR, "veil: output %s: the remembered %s is not restored: %s", name, what,
		why != NULL ? why : "out of memory");
	free(why);
}

/* A remembered command of name run again; a line in the log when it cannot be. */
static void run_again(struct veil_state *state, const char *name, const char *what,
		struct veil_command *cmd) {
	char *message = NULL;
	if (veil_scene_run(state->scene, name, cmd, -1, NULL, &message) < 0) {
		wlr_log(WLR_ERROR, "veil: output %s: the remembered %s is not restored: %s", name,
			what, message != NULL ? message : "failed");
	}
	free(message);
	veil_command_finish(cmd);
}

/*
 * What else name had besides its setting: its `transition` default, its `fps` and `battery`
 * policies, its `xray` and `blur`, and its workspace settings (each whose file is unchanged). Each is run as the
 * user's command would be; one that cannot be is left out with a line in the log.
 */
static void restore_extras(struct veil_state *state, const char *name, unsigned superseded,
		struct json_object *spaces) {
	struct json_object *member, *entry;
	struct veil_command cmd;
	char *why = NULL;
	if (!(superseded & PART_TRANSITION) &&
			json_object_object_get_ex(state->loaded, "transitions", &member) &&
			json_object_object_get_ex(member, name, &entry)) {
		if (veil_state_transition_command(entry, &cmd, &why) == 0) {
			run_again(state, name, "transition", &cmd);
		} else {
			refused(name, "transition", why);
			why = NULL;
		}
	}
	for (int battery = 0; battery < 2; battery++) {
		const char *what = battery ? "battery policy" : "fps cap";
		if (superseded & (battery ? PART_BATTERY : PART_FPS)) {
			continue;
		}
		if (!json_object_object_get_ex(state->loaded, "policies", &member) ||
				!json_object_object_get_ex(member, name, &entry)) {
			break;
		}
		int ret = veil_state_policy_command(entry, battery, &cmd, &why);
		if (ret == 0) {
			run_again(state, name, what, &cmd);
		} else if (ret < 0) {
			refused(name, what, why);
			why = NULL;
		}
	}
	for (int blur = 0; blur < 2; blur++) {
		const char *what = blur ? "blur" : "xray";
		if (superseded & (blur ? PART_BLUR : PART_XRAY)) {
			continue;
		}
		if (!json_object_object_get_ex(state->loaded, "xray", &member) ||
				!json_object_object_get_ex(member, name, &entry)) {
			break;
		}
		int ret = veil_state_xray_command(entry, blur, &cmd, &why);
		if (ret == 0) {
			run_again(state, name, what, &cmd);
		} else if (ret < 0) {
			refused(name, what, why);
			why = NULL;
		}
	}
	struct json_object *remembered;
	if (!json_object_object_get_ex(state->loaded, "workspaces", &member) ||
			!json_object_object_get_ex(member, name, &remembered)) {
		return;
	}
	json_object_object_foreach(remembered, ws, ws_entry) {
		struct json_object *stale;
		if (spaces != NULL && json_object_object_get_ex(spaces, ws, NULL)) {
			continue; /* set or ended since */
		}
		if (json_object_object_get_ex(ws_entry, "verdict", &stale)) {
			wlr_log(WLR_INFO, "veil: output %s: workspace '%s' not restored: %s", name, ws,
				json_object_get_string(stale));
			continue;
		}
		if (veil_state_command(ws_entry, &cmd, &why) < 0) {
			wlr_log(WLR_ERROR, "veil: output %s: workspace '%s' not restored: %s", name, ws,
				why != NULL ? why : "out of memory");
			free(why);
			why = NULL;
			continue;
		}
		cmd.workspace = strdup(ws);
		if (cmd.workspace == NULL) {
			veil_command_finish(&cmd);
			continue;
		}
		char *what = veil_message("setting of workspace '%s'", ws);
		run_again(state, name, what != NULL ? what : "workspace setting", &cmd);
		free(what);
		resume_video(veil_scene_find_setting(state->scene, name, ws), ws_entry);
	}
}

static void restore_setting(struct veil_state *state, const char *name,
		const struct veil_command *fallback);

/*
 * The setting first (no default transition for the first picture), then the rest; what a
 * command given since the restore replaced (superseded, spaces) is left as that command made it.
 */
void veil_state_run_restore(struct veil_state *state, const char *name,
		const struct veil_command *fallback, unsigned superseded, struct json_object *spaces) {
	state->restoring = true;
	if (superseded & PART_SETTING) {
		wlr_log(WLR_INFO, "veil: output %s: its remembered setting is not restored: a "
			"command given after restore replaced it", name);
	} else {
		restore_setting(state, name, fallback);
	}
	if (state->loaded != NULL) {
		restore_extras(state, name, superseded, spaces);
	}
	state->restoring = false;
}

/* name's remembered setting cannot be shown (reason): the fallback instead, else none. */
static void fall_back(struct veil_state *state, const char *name,
		const struct veil_command *fallback, const char *reason) {
	if (fallback == NULL) {
		wlr_log(WLR_INFO, "veil: output %s: nothing restored: %s", name, reason);
		set_result(state, name, false, reason);
		return;
	}
	char *message = NULL;
	int ret = veil_scene_run(state->scene, name, fallback, -1, NULL, &message);
	wlr_log(ret == 0 ? WLR_INFO : WLR_ERROR, "veil: output %s: not restored (%s): %s the "
		"fallback%s%s", name, reason, ret == 0 ? "showing" : "cannot show",
		ret == 0 ? "" : ": ", ret == 0 ? "" : (message != NULL ? message : "failed"));
	set_result(state, name, false, reason);
	free(message);
}

static void restore_setting(struct veil_state *state, const char *name,
		const struct veil_command *fallback) {
	char *why = NULL;
	if (restore_remembered(state, name, fallback, &why) == 0) {
		wlr_log(WLR_INFO, "veil: output %s: restored what was set before (%s)", name,
			state->path);
		set_result(state, name, true, "the remembered setting, unchanged");
		return;
	}
	fall_back(state, name, fallback, why != NULL ? why : "out of memory");
	free(why);
}

/*
 * What a restore of name ran cannot be shown after all (a package whose read on a worker failed,
 * message saying why): fallback (NULL: none) is shown instead, as when the remembered setting
 * cannot be opened, and the status says why.
 */
static void restore_failed(struct veil_state *state, const char *name,
		const struct veil_command *fallback, const char *message) {
	char *why = veil_message("it cannot be shown: %s", message);
	bool restoring = state->restoring;
	state->restoring = true;
	fall_back(state, name, fallback, why != NULL ? why : message);
	state->restoring = restoring;
	free(why);
}

/* `veil restore`: the remembered setting of name, or fallback (NULL: none). */
static int restore(struct veil_state *state, const char *name,
		const struct veil_command *fallback, char **message) {
	if (state->read_done) {
		veil_state_run_restore(state, name, fallback, 0, NULL);
		return 0;
	}
	struct restore_wait *wait = calloc(1, sizeof(*wait));
	if (wait == NULL || (wait->name = strdup(name)) == NULL) {
		free(wait);
		veil_message_set(message, "Out of memory");
		return -ENOMEM;
	}
	if (fallback != NULL) {
		wait->fallback = *fallback;
		wait->fallback.path = fallback->path != NULL ? strdup(fallback->path) : NULL;
		wait->has_fallback = true;
	}
	/* A restore given again for the name replaces the one waiting. */
	struct restore_wait *other, *tmp;
	wl_list_for_each_safe(other, tmp, &state->waiting, link) {
		if (strcmp(other->name, name) == 0) {
			veil_state_wait_destroy(other);
		}
	}
	wl_list_insert(state->waiting.prev, &wait->link);
	return 0;
}

void veil_state_result_destroy(struct restore_result *result) {
	wl_list_remove(&result->link);
	free(result->name);
	free(result->why);
	free(result);
}

/*
 * A command for name (or "*") is about to run: a `restore` still waiting for the file leaves
 * alone what it sets (a setting, a workspace's, a transition default, an fps or battery
 * policy): the later command wins, as it would had the file been read already.
 */
static void supersede(struct veil_state *state, const char *name,
		const struct veil_command *cmd) {
	if (state->restoring || wl_list_empty(&state->waiting)) {
		return;
	}
	unsigned part;
	switch (cmd->kind) {
	case VEIL_COMMAND_SET:
	case VEIL_COMMAND_OFF:
		if (cmd->from_slideshow) {
			return;
		}
		part = PART_SETTING;
		break;
	case VEIL_COMMAND_TRANSITION:
		part = PART_TRANSITION;
		break;
	case VEIL_COMMAND_FPS:
		part = PART_FPS;
		break;
	case VEIL_COMMAND_BATTERY:
		part = PART_BATTERY;
		break;
	case VEIL_COMMAND_XRAY:
		part = PART_XRAY;
		break;
	case VEIL_COMMAND_BLUR:
		part = PART_BLUR;
		break;
	default:
		return;
	}
	/*
	 * "*"'s transition, fps, battery and off replace the outputs' own; its other settings
	 * and workspace settings do not (the output's own come first).
	 */
	bool wildcard = strcmp(name, "*") == 0 && cmd->workspace == NULL &&
		(part != PART_SETTING || cmd->kind == VEIL_COMMAND_OFF);
	struct restore_wait *wait;
	wl_list_for_each(wait, &state->waiting, link) {
		if (!wildcard && strcmp(wait->name, name) != 0) {
			continue;
		}
		if (cmd->workspace == NULL) {
			wait->superseded |= part;
			continue;
		}
		if (wait->spaces == NULL) {
			wait->spaces = json_object_new_object();
		}
		json_object_object_add(wait->spaces, cmd->workspace, NULL);
	}
}

/* A command replaced name's setting: the outcome of its restore is forgotten. */
static void forget(struct veil_state *state, const char *name) {
	struct restore_result *result, *tmp;
	wl_list_for_each_safe(result, tmp, &state->results, link) {
		if (strcmp(result->name, name) == 0) {
			veil_state_result_destroy(result);
		}
	}
}

void veil_state_handle_command(struct wl_listener *listener, void *data) {
	struct veil_state *state = wl_container_of(listener, state, command);
	struct veil_scene_command_event *event = data;
	switch (event->step) {
	case VEIL_SCENE_COMMAND_RUN:
		supersede(state, event->name, event->cmd);
		break;
	case VEIL_SCENE_COMMAND_REPLACED:
		forget(state, event->name);
		break;
	case VEIL_SCENE_COMMAND_FAILED:
		if (event->cmd->from_restore) {
			restore_failed(state, event->name, event->cmd->fallback, event->why);
		}
		break;
	case VEIL_SCENE_COMMAND_RESTORE:
		event->handled = true;
		event->ret = restore(state, event->name, event->cmd->fallback, event->message);
		break;
	}
}

void veil_state_status(struct veil_output *output, struct json_object *obj) {
	struct veil_state *state = output->scene->state;
	if (state == NULL) {
		return;
	}
	const struct restore_result *mine = NULL, *all = NULL, *result;
	wl_list_for_each(result, &state->results, link) {
		if (strcmp(result->name, output->output->name) == 0) {
			mine = result;
		} else if (strcmp(result->name, "*") == 0) {
			all = result;
		}
	}
	/* The setting the output shows decides whose restore it is. */
	const char *setting = output->setting != NULL ? output->setting->name : NULL;
	result = mine != NULL && (setting == NULL || strcmp(setting, "*") != 0) ? mine : all;
	if (result == NULL) {
		return;
	}
	json_object_object_add(obj, "restored", json_object_new_boolean(result->restored));
	json_object_object_add(obj, "restore_reason", result->why != NULL ?
		json_object_new_string(result->why) : NULL);
}

