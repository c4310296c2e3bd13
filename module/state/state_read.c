/*
 * A state file's text, checked member by member: whatever the file says (it may be truncated,
 * hand-edited or written by someone else), what leaves here has the writer's types, and its
 * words go through the command parser before anything is shown.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "module/words/command.h"
#include "module/state/look_json.h"
#include "module/state/state.h"
#include "util/message.h"

/*
 * root, outputs, a setting, its file or slideshow, the slideshow's list of paths; root,
 * workspaces, a name, a workspace's setting, its transition, the transition's at
 */
#define MAX_DEPTH 6
#define MAX_SETTINGS 256
#define MAX_SEEN 4096
#define MAX_NAME 255

static int fail(char **why, int err, const char *what) {
	veil_message_set(why, "%s", what);
	return err;
}

static bool is_type(struct json_object *obj, const char *name, enum json_type type) {
	struct json_object *member;
	return !json_object_object_get_ex(obj, name, &member) ||
		json_object_is_type(member, type);
}

static bool is_path(struct json_object *str) {
	if (!json_object_is_type(str, json_type_string)) {
		return false;
	}
	const char *s = json_object_get_string(str);
	size_t len = (size_t)json_object_get_string_len(str);
	/* Absolute, no NUL inside, no longer than a path can be. */
	return len > 1 && len < PATH_MAX && s[0] == '/' && strlen(s) == len;
}

static const char *check_file(struct json_object *file) {
	struct json_object *path, *size, *mtime;
	if (!json_object_is_type(file, json_type_object)) {
		return "a file that is not an object";
	}
	if (!json_object_object_get_ex(file, "path", &path) || !is_path(path)) {
		return "a file without an absolute path";
	}
	if (json_object_object_get_ex(file, "size", &size) &&
			(!json_object_is_type(size, json_type_int) || json_object_get_int64(size) < 0)) {
		return "a file size that is not a number";
	}
	if (json_object_object_get_ex(file, "mtime_ns", &mtime) &&
			!json_object_is_type(mtime, json_type_int)) {
		return "a file time that is not a number";
	}
	return NULL;
}

static const char *check_slideshow(struct json_object *show) {
	struct json_object *dir, *seen, *file;
	if (!json_object_is_type(show, json_type_object)) {
		return "a slideshow that is not an object";
	}
	if (!json_object_object_get_ex(show, "directory", &dir) || !is_path(dir)) {
		return "a slideshow without an absolute directory";
	}
	if (!is_type(show, "every", json_type_int) || !is_type(show, "order", json_type_string) ||
			!is_type(show, "recursive", json_type_boolean)) {
		return "a slideshow's every, order or recursive of the wrong type";
	}
	if (json_object_object_get_ex(show, "file", &file) && file != NULL && !is_path(file)) {
		return "a slideshow's file that is not an absolute path";
	}
	if (json_object_object_get_ex(show, "seen", &seen)) {
		if (!json_object_is_type(seen, json_type_array) ||
				json_object_array_length(seen) > MAX_SEEN) {
			return "a slideshow's seen that is not a list of paths";
		}
		for (size_t i = 0; i < json_object_array_length(seen); i++) {
			if (!is_path(json_object_array_get_idx(seen, i))) {
				return "a slideshow's seen that is not a list of paths";
			}
		}
	}
	return NULL;
}

/* NULL when the setting has the writer's shape, else what is wrong with it. */
static const char *check_setting(struct json_object *entry) {
	struct json_object *member;
	if (!json_object_is_type(entry, json_type_object)) {
		return "a setting that is not an object";
	}
	if (!is_type(entry, "off", json_type_boolean) ||
			!is_type(entry, "paused", json_type_boolean)) {
		return "a setting's off or paused of the wrong type";
	}
	const char *why = veil_look_check_json(entry);
	if (why != NULL) {
		return why;
	}
	if (json_object_object_get_ex(entry, "position_ms", &member) &&
			(!json_object_is_type(member, json_type_int) ||
			json_object_get_int64(member) < 0)) {
		return "a video's position_ms that is not a number of milliseconds";
	}
	if (json_object_object_get_ex(entry, "file", &member)) {
		why = check_file(member);
	}
	if (why == NULL && json_object_object_get_ex(entry, "slideshow", &member)) {
		why = check_slideshow(member);
	}
	return why;
}

static bool bad_name(const char *name) {
	return strlen(name) == 0 || strlen(name) > MAX_NAME;
}

/* "workspaces": {name: {workspace: setting}}. */
static const char *check_workspaces(struct json_object *all) {
	if (!json_object_is_type(all, json_type_object) ||
			json_object_object_length(all) > MAX_SETTINGS) {
		return "workspaces that are not an object of settings";
	}
	int n = 0;
	json_object_object_foreach(all, name, spaces) {
		if (bad_name(name)) {
			return "a setting's name that is empty or too long";
		}
		if (!json_object_is_type(spaces, json_type_object)) {
			return "a name's workspaces that are not an object";
		}
		json_object_object_foreach(spaces, ws, entry) {
			if (bad_name(ws) || ++n > MAX_SETTINGS) {
				return "a workspace's name that is empty or too long, or too many";
			}
			const char *why = check_setting(entry);
			if (why != NULL) {
				return why;
			}
			if (json_object_object_get_ex(entry, "slideshow", NULL)) {
				return "a workspace's slideshow (a workspace shows one picture)";
			}
		}
	}
	return NULL;
}

/* "transitions": {name: transition}. */
static const char *check_transitions(struct json_object *all) {
	if (!json_object_is_type(all, json_type_object) ||
			json_object_object_length(all) > MAX_SETTINGS) {
		return "transitions that are not an object";
	}
	json_object_object_foreach(all, name, tr) {
		if (bad_name(name)) {
			return "a setting's name that is empty or too long";
		}
		const char *why = veil_state_check_transition(tr);
		if (why != NULL) {
			return why;
		}
	}
	return NULL;
}

/* "policies": {name: {"fps": N, "battery": word, "battery_fps": N}}. */
static const char *check_policies(struct json_object *all) {
	if (!json_object_is_type(all, json_type_object) ||
			json_object_object_length(all) > MAX_SETTINGS) {
		return "policies that are not an object";
	}
	json_object_object_foreach(all, name, policy) {
		if (bad_name(name)) {
			return "a setting's name that is empty or too long";
		}
		if (!json_object_is_type(policy, json_type_object) ||
				!is_type(policy, "fps", json_type_int) ||
				!is_type(policy, "battery", json_type_string) ||
				!is_type(policy, "battery_fps", json_type_int)) {
			return "a policy's fps, battery or battery_fps of the wrong type";
		}
	}
	return NULL;
}

/* "xray": {name: {"xray": bool, "blur": N}}. */
static const char *check_xray(struct json_object *all) {
	if (!json_object_is_type(all, json_type_object) ||
			json_object_object_length(all) > MAX_SETTINGS) {
		return "xray settings that are not an object";
	}
	json_object_object_foreach(all, name, xray) {
		if (bad_name(name)) {
			return "a setting's name that is empty or too long";
		}
		if (!json_object_is_type(xray, json_type_object) ||
				!is_type(xray, "xray", json_type_boolean) ||
				!is_type(xray, "blur", json_type_int)) {
			return "an xray or blur of the wrong type";
		}
	}
	return NULL;
}

struct json_object *veil_state_parse(const char *text, size_t len, char **why) {
	*why = NULL;
	if (len == 0) {
		fail(why, -EINVAL, "it is empty");
		return NULL;
	}
	if (len > VEIL_STATE_MAX_SIZE) {
		veil_message_set(why, "it is larger than %d bytes", VEIL_STATE_MAX_SIZE);
		return NULL;
	}
	if (memchr(text, '\0', len) != NULL) {
		fail(why, -EINVAL, "it is not text (a NUL byte)");
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
	if (tok == NULL) {
		fail(why, -ENOMEM, "out of memory");
		return NULL;
	}
	struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error err = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (root == NULL || err != json_tokener_success) {
		veil_message_set(why, "it is not whole JSON (%s)", err == json_tokener_continue ?
			"it ends too early" : json_tokener_error_desc(err));
		json_object_put(root);
		return NULL;
	}
	/* Only white space may follow the object. */
	for (size_t i = used; i < len; i++) {
		if (strchr(" \t\r\n", text[i]) == NULL) {
			fail(why, -EINVAL, "something follows its JSON object");
			json_object_put(root);
			return NULL;
		}
	}
	struct json_object *version, *outputs;
	if (!json_object_is_type(root, json_type_object) ||
			!json_object_object_get_ex(root, "version", &version) ||
			!json_object_is_type(version, json_type_int)) {
		fail(why, -EINVAL, "it is not a veil state (no version)");
		goto bad;
	}
	if (json_object_get_int64(version) != VEIL_STATE_VERSION) {
		veil_message_set(why, "it is of version %lld, not %d",
			(long long)json_object_get_int64(version), VEIL_STATE_VERSION);
		goto bad;
	}
	if (!json_object_object_get_ex(root, "outputs", &outputs) ||
			!json_object_is_type(outputs, json_type_object) ||
			json_object_object_length(outputs) > MAX_SETTINGS) {
		fail(why, -EINVAL, "its outputs are not an object of settings");
		goto bad;
	}
	json_object_object_foreach(outputs, name, entry) {
		const char *wrong = bad_name(name) ?
			"a setting's name that is empty or too long" : check_setting(entry);
		if (wrong != NULL) {
			veil_message_set(why, "it has %s", wrong);
			goto bad;
		}
	}
	/* Members a version 1 file may lack (written since): each checked when there. */
	static const struct {
		const char *name;
		const char *(*check)(struct json_object *obj);
	} optional[] = {
		{ "workspaces", check_workspaces },
		{ "transitions", check_transitions },
		{ "policies", check_policies },
		{ "xray", check_xray },
	};
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		struct json_object *member;
		const char *wrong = json_object_object_get_ex(root, optional[i].name, &member) ?
			optional[i].check(member) : NULL;
		if (wrong != NULL) {
			veil_message_set(why, "it has %s", wrong);
			goto bad;
		}
	}
	return root;

bad:
	json_object_put(root);
	return NULL;
}

static const char *get_string(struct json_object *obj, const char *name) {
	struct json_object *member;
	return json_object_object_get_ex(obj, name, &member) &&
		json_object_is_type(member, json_type_string) ? json_object_get_string(member) : NULL;
}

static bool get_bool(struct json_object *obj, const char *name) {
	struct json_object *member;
	return json_object_object_get_ex(obj, name, &member) && json_object_get_boolean(member);
}

static int64_t get_int(struct json_object *obj, const char *name, int64_t otherwise) {
	struct json_object *member;
	return json_object_object_get_ex(obj, name, &member) &&
		json_object_is_type(member, json_type_int) ? json_object_get_int64(member) : otherwise;
}

/* The words parsed as a command of kind, or a negative errno with *why. */
static int parse_words(struct veil_state_words *w, enum veil_command_kind kind,
		struct veil_command *cmd, char **why) {
	char *message = NULL;
	int ret = veil_command_parse(w->argc, w->argv, cmd, &message);
	if (ret < 0) {
		veil_message_set(why, "its words are refused: %s",
			message != NULL ? message : "out of memory");
		free(message);
		return ret;
	}
	free(message);
	if (cmd->kind != kind) {
		veil_command_finish(cmd);
		return fail(why, -EINVAL, "its words are not what they should be");
	}
	return 0;
}

int veil_state_transition_command(struct json_object *tr, struct veil_command *cmd,
		char **why) {
	*why = NULL;
	struct veil_state_words w = { .argc = 0 };
	veil_state_words_add(&w, "veil");
	veil_state_words_add(&w, "transition");
	veil_state_words_add_transition(&w, tr);
	return parse_words(&w, VEIL_COMMAND_TRANSITION, cmd, why);
}

int veil_state_policy_command(struct json_object *policy, bool battery,
		struct veil_command *cmd, char **why) {
	*why = NULL;
	struct veil_state_words w = { .argc = 0 };
	veil_state_words_add(&w, "veil");
	if (!battery) {
		struct json_object *fps;
		if (!json_object_object_get_ex(policy, "fps", &fps)) {
			return 1;
		}
		veil_state_words_add(&w, "fps");
		if (json_object_get_int64(fps) == 0) {
			veil_state_words_add(&w, "off");
		} else {
			veil_state_words_add_number(&w, json_object_get_int64(fps), "");
		}
		return parse_words(&w, VEIL_COMMAND_FPS, cmd, why);
	}
	const char *action = get_string(policy, "battery");
	if (action == NULL) {
		return 1;
	}
	veil_state_words_add(&w, "battery");
	veil_state_words_add(&w, action);
	if (strcmp(action, "fps") == 0) {
		veil_state_words_add_number(&w, get_int(policy, "battery_fps", 0), "");
	}
	return parse_words(&w, VEIL_COMMAND_BATTERY, cmd, why);
}

int veil_state_xray_command(struct json_object *xray, bool blur, struct veil_command *cmd,
		char **why) {
	*why = NULL;
	struct veil_state_words w = { .argc = 0 };
	struct json_object *member;
	veil_state_words_add(&w, "veil");
	if (!json_object_object_get_ex(xray, blur ? "blur" : "xray", &member)) {
		return 1;
	}
	if (blur) {
		veil_state_words_add(&w, "blur");
		veil_state_words_add_number(&w, json_object_get_int64(member), "");
		return parse_words(&w, VEIL_COMMAND_BLUR, cmd, why);
	}
	veil_state_words_add(&w, "xray");
	veil_state_words_add(&w, json_object_get_boolean(member) ? "on" : "off");
	return parse_words(&w, VEIL_COMMAND_XRAY, cmd, why);
}

int veil_state_command(struct json_object *entry, struct veil_command *cmd, char **why) {
	*why = NULL;
	struct veil_state_words w = { .argc = 0 };
	veil_state_words_add(&w, "veil");
	struct json_object *file = NULL, *show = NULL;
	json_object_object_get_ex(entry, "file", &file);
	json_object_object_get_ex(entry, "slideshow", &show);
	const char *mode = get_string(entry, "mode");
	const char *color = get_string(entry, "color");
	const char *dark = get_string(entry, "dark");
	const char *path = NULL;
	if (get_bool(entry, "off")) {
		veil_state_words_add(&w, "off");
	} else if (mode != NULL && strcmp(mode, "solid_color") == 0) {
		veil_state_words_add(&w, color != NULL ? color : "#000000");
		veil_state_words_add(&w, "solid_color");
		if (dark != NULL) {
			/* A colour's dark is a colour, a word the parser checks. */
			veil_state_words_add(&w, "dark");
			veil_state_words_add(&w, dark);
		}
	} else {
		path = show != NULL ? get_string(show, "directory") :
			file != NULL ? get_string(file, "path") : NULL;
		if (path == NULL) {
			return fail(why, -EINVAL, "the setting names no file");
		}
		/* The parser expands ~ and $VAR in names: the path is put in after it. */
		veil_state_words_add(&w, "/");
		veil_state_words_add(&w, mode != NULL ? mode : "fill");
		veil_state_words_add(&w, color);
		if (show != NULL) {
			veil_state_words_add(&w, "every");
			veil_state_words_add_number(&w, get_int(show, "every",
				VEIL_SLIDESHOW_DEFAULT_EVERY_S), "s");
			veil_state_words_add(&w, "order");
			veil_state_words_add(&w, get_string(show, "order") != NULL ?
				get_string(show, "order") : "name");
			if (get_bool(show, "recursive")) {
				veil_state_words_add(&w, "recursive");
			}
		}
		/* The rest of the look: dark, transition and the words the parser takes off the end. */
		veil_look_from_json(entry, &w);
	}
	int ret = parse_words(&w, get_bool(entry, "off") ? VEIL_COMMAND_OFF : VEIL_COMMAND_SET,
		cmd, why);
	if (ret < 0) {
		return ret;
	}
	if (path != NULL) {
		free(cmd->path);
		cmd->path = strdup(path);
		if (cmd->path == NULL) {
			return fail(why, -ENOMEM, "out of memory");
		}
	}
	if (dark != NULL && cmd->look.dark_path != NULL) {
		free(cmd->look.dark_path);
		cmd->look.dark_path = strdup(dark);
		if (cmd->look.dark_path == NULL) {
			veil_command_finish(cmd);
			return fail(why, -ENOMEM, "out of memory");
		}
	}
	return 0;
}
