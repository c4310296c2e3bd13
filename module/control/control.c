#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/words/command.h"
#include "module/control/control.h"
#include "module/commands/commands.h"
#include "module/core/scene.h"
#include "module/control/status.h"
#include "module/control/snapshot.h"
#include "module/show/show.h"
#include "util/message.h"
#include "veil-control-unstable-v1-protocol.h"
#include "util/mode_protocol.h"

#define CONTROL_VERSION 3

/*
 * The longest string put in an event. libwayland refuses messages over 4096 bytes by closing
 * the client's connection; labels and messages quote client strings, so they are clipped.
 */
#define MAX_STRING 2048
/* The most words a set_media or run request may carry: a command has a dozen at most. */
#define MAX_WORDS 64
/* The longest label kept for a client's file: status events quote it. */
#define MAX_LABEL 512

/* A removed global is destroyed this much later (see remove_global). */
#define GLOBAL_DESTROY_DELAY_MS 5000

struct veil_control {
	struct veil_scene *scene;
	struct wl_global *global;
	veil_control_filter_func filter;
	void *filter_data;
	/*
	 * Bound managers and status objects, through wl_resource_get_link(): when the control goes,
	 * their user data is cleared so that no resource points to it.
	 */
	struct wl_list managers;
	struct wl_list statuses;
	struct wl_event_source *idle; /* descriptions to send when idle, or NULL */

	struct wl_listener scene_changed;
};

/* NULL for an inert manager, whose control is gone. */
static struct veil_control *control_from_manager(struct wl_resource *resource) {
	return wl_resource_get_user_data(resource);
}

static bool client_allowed(struct veil_control *control, const struct wl_client *client) {
	return control->filter(client, control->filter_data);
}

/* At most max bytes of str, not cutting a UTF-8 sequence in two. */
static size_t clip_len(const char *str, size_t max) {
	size_t len = strlen(str);
	if (len <= max) {
		return len;
	}
	len = max;
	while (len > 0 && ((unsigned char)str[len] & 0xc0) == 0x80) {
		len--;
	}
	return len;
}

/* str, or a clipped copy of it in buf (MAX_STRING + 1 bytes). */
static const char *clip(const char *str, char *buf) {
	size_t len = clip_len(str, MAX_STRING);
	if (str[len] == '\0') {
		return str;
	}
	memcpy(buf, str, len);
	buf[len] = '\0';
	return buf;
}

/* ---- Status objects ---- */

static uint32_t kind_to_protocol(enum veil_output_kind kind) {
	switch (kind) {
	case VEIL_OUTPUT_NONE:
		return ZVEIL_CONTROL_STATUS_V1_KIND_NONE;
	case VEIL_OUTPUT_OFF:
		return ZVEIL_CONTROL_STATUS_V1_KIND_OFF;
	case VEIL_OUTPUT_COLOR:
		return ZVEIL_CONTROL_STATUS_V1_KIND_COLOR;
	case VEIL_OUTPUT_IMAGE:
		return ZVEIL_CONTROL_STATUS_V1_KIND_IMAGE;
	case VEIL_OUTPUT_VIDEO:
		return ZVEIL_CONTROL_STATUS_V1_KIND_VIDEO;
	}
	return ZVEIL_CONTROL_STATUS_V1_KIND_NONE;
}

static uint32_t shown_to_protocol(enum veil_output_shown shown) {
	switch (shown) {
	case VEIL_SHOWN_OFF:
		return ZVEIL_CONTROL_STATUS_V1_STATE_OFF;
	case VEIL_SHOWN_SHOWN:
		return ZVEIL_CONTROL_STATUS_V1_STATE_SHOWN;
	case VEIL_SHOWN_PAUSED:
		return ZVEIL_CONTROL_STATUS_V1_STATE_PAUSED;
	case VEIL_SHOWN_HIDDEN:
		return ZVEIL_CONTROL_STATUS_V1_STATE_HIDDEN;
	}
	return ZVEIL_CONTROL_STATUS_V1_STATE_OFF;
}

static void split_u64(uint64_t value, uint32_t *hi, uint32_t *lo) {
	*hi = (uint32_t)(value >> 32);
	*lo = (uint32_t)value;
}

/* Members of the JSON status that the other events carry already. */
static bool has_event(const char *name) {
	static const char *const carried[] = {
		"kind", "state", "setting", "mode", "color", "file", "source_size", "frames", "error",
	};
	for (size_t i = 0; i < sizeof(carried) / sizeof(carried[0]); i++) {
		if (strcmp(name, carried[i]) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * The rest of what the status JSON says of an output, a member at a time. A member too long for
 * one message is left out rather than cut into JSON that does not parse.
 */
static void send_details(struct wl_resource *resource, struct veil_output *output) {
	struct json_object *status = veil_output_status(output);
	if (status == NULL) {
		return;
	}
	json_object_object_foreach(status, name, value) {
		if (has_event(name)) {
			continue;
		}
		const char *json = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN);
		if (json != NULL && strlen(json) <= MAX_STRING && strlen(name) <= MAX_LABEL) {
			zveil_control_status_v1_send_detail(resource, name, json);
		}
	}
	json_object_put(status);
}

/* One output's events: the state the status JSON is written from, so that they never disagree. */
static void send_output(struct wl_resource *resource, struct veil_output *output) {
	char buf[MAX_STRING + 1];
	struct veil_output_state state;
	veil_output_get_state(output, &state);
	zveil_control_status_v1_send_output(resource, clip(state.name, buf));
	zveil_control_status_v1_send_wallpaper(resource, kind_to_protocol(state.kind),
		shown_to_protocol(state.shown),
		state.setting != NULL ? clip(state.setting, buf) : NULL);
	if (state.has_mode) {
		zveil_control_status_v1_send_mode(resource, veil_mode_to_protocol(state.mode),
			state.color);
	}
	if (state.source != NULL) {
		/* The file's own size, not that of the frames a still was shrunk to. */
		bool original = state.info.original_width > 0;
		zveil_control_status_v1_send_media(resource, clip(state.file, buf),
			(uint32_t)(original ? state.info.original_width : state.width),
			(uint32_t)(original ? state.info.original_height : state.height));
		if (state.info.decoder[0] != '\0') {
			zveil_control_status_v1_send_decoder(resource,
				clip(state.info.decoder, buf));
		}
	}
	/* Video sources count the late frames they drop; stills have no such count. */
	uint32_t shown_hi, shown_lo, dropped_hi, dropped_lo;
	split_u64(state.frames, &shown_hi, &shown_lo);
	split_u64(state.info.dropped, &dropped_hi, &dropped_lo);
	zveil_control_status_v1_send_frames(resource, shown_hi, shown_lo, dropped_hi, dropped_lo);
	if (state.error != NULL) {
		zveil_control_status_v1_send_error(resource, clip(state.error, buf));
	}
	if (wl_resource_get_version(resource) >= ZVEIL_CONTROL_STATUS_V1_DETAIL_SINCE_VERSION) {
		send_details(resource, output);
	}
}

static void send_description(struct veil_control *control, struct wl_resource *resource) {
	struct veil_output *output;
	wl_list_for_each(output, &control->scene->outputs, link) {
		send_output(resource, output);
	}
	zveil_control_status_v1_send_done(resource);
}

static void handle_idle(void *data) {
	struct veil_control *control = data;
	/* libwayland frees an idle source after its callback. */
	control->idle = NULL;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &control->statuses) {
		send_description(control, resource);
	}
}

/*
 * Something an output shows changed (a command, a wallpaper that finished loading or failed, an
 * output that came or went): status objects get a new description once the compositor is idle,
 * however many changes come before. Not for frames: a new video frame changes nothing a
 * description says but counters.
 */
static void handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_control *control = wl_container_of(listener, control, scene_changed);
	if (control->idle != NULL || wl_list_empty(&control->statuses)) {
		return;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(control->scene->display);
	control->idle = wl_event_loop_add_idle(loop, handle_idle, control);
	if (control->idle == NULL) {
		wlr_log(WLR_ERROR, "veil: cannot schedule status events");
	}
}

static void status_handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zveil_control_status_v1_interface status_impl = {
	.destroy = status_handle_destroy,
};

static void status_handle_resource_destroy(struct wl_resource *resource) {
	/* An inert status object has an empty link of its own. */
	wl_list_remove(wl_resource_get_link(resource));
}

static void manager_handle_get_status(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id) {
	struct veil_control *control = control_from_manager(manager_resource);
	struct wl_resource *resource = wl_resource_create(client,
		&zveil_control_status_v1_interface, wl_resource_get_version(manager_resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &status_impl, NULL,
		status_handle_resource_destroy);
	wl_list_init(wl_resource_get_link(resource));

	if (control == NULL) {
		zveil_control_status_v1_send_failed(resource,
			ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor no longer draws wallpapers with veil");
		return;
	}
	if (!client_allowed(control, client)) {
		zveil_control_status_v1_send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_DENIED,
			"The compositor does not let this program see or change wallpapers");
		return;
	}
	wl_list_insert(&control->statuses, wl_resource_get_link(resource));
	send_description(control, resource);
}

/* ---- Commands ---- */

static uint32_t failure_reason(const struct veil_command *cmd, int fd, int err) {
	if (err == -ENODEV) {
		return ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT;
	}
	if (err == -ENOMEM) {
		return ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE;
	}
	if (cmd->kind == VEIL_COMMAND_SET && fd >= 0) {
		return ZVEIL_CONTROL_RESULT_V1_REASON_BAD_MEDIA;
	}
	return ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE;
}

static void send_failed(struct wl_resource *result, uint32_t reason, const char *message) {
	char buf[MAX_STRING + 1];
	zveil_control_result_v1_send_failed(result, reason, clip(message, buf));
}

/* A request's result object, answered before the request returns; NULL when out of memory. */
static struct wl_resource *create_result(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id) {
	struct wl_resource *result = wl_resource_create(client,
		&zveil_control_result_v1_interface, wl_resource_get_version(manager_resource), id);
	if (result == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(result, NULL, NULL, NULL);
	return result;
}

/* Words the parser refused: nothing runs, the client hears why. */
static void answer_parse_error(struct wl_client *client, struct wl_resource *manager_resource,
		uint32_t id, int err, const char *message) {
	struct wl_resource *result = create_result(client, manager_resource, id);
	if (result == NULL) {
		return;
	}
	send_failed(result, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE,
		message != NULL ? message : strerror(-err));
	wl_resource_destroy(result);
}

/*
 * For a descriptor of what is played from its path, the path, checked to name the same file: a
 * directory when the request takes one (a slideshow reads it again at each step), a GNOME
 * timed background (whose pictures are named relative to it) or an Apple dynamic wallpaper (a
 * timed show of the file's images). *path stays NULL for anything
 * else, which is played from the descriptor. 0 or a negative errno with *message.
 */
static int played_path(int fd, bool directories, char **path, char **message) {
	struct stat st, named;
	*path = NULL;
	if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || (directories && S_ISDIR(st.st_mode)))) {
		return 0;
	}
	const char *what = S_ISDIR(st.st_mode) ? "directory" : "timed background";
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, target, sizeof(target) - 1);
	if (len > 0) {
		target[len] = '\0';
	}
	if (S_ISREG(st.st_mode) && (len <= 0 ||
			!veil_show_plays_path(target))) {
		return 0;
	}
	if (len <= 0 || target[0] != '/') {
		*message = veil_message("Cannot find the %s given: %s", what,
			len < 0 ? strerror(errno) : "it has no path");
		return -ENOENT;
	}
	if (stat(target, &named) != 0 || named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
		*message = veil_message("The %s '%s' was moved or removed", what, target);
		return -ENOENT;
	}
	*path = strdup(target);
	return *path != NULL ? 0 : -ENOMEM;
}

/*
 * Runs a command for a client and answers it on a new result object: a SET with a path plays
 * that path, else fd's file. fd stays the caller's.
 * Everything happens before this returns, so no result object outlives its request.
 */
static void run_command(struct wl_client *client, struct wl_resource *manager_resource,
		uint32_t id, const char *output_name, const struct veil_command *cmd, int fd,
		const char *label) {
	struct veil_control *control = control_from_manager(manager_resource);
	struct wl_resource *result = create_result(client, manager_resource, id);
	if (result == NULL) {
		return;
	}

	char *label_copy = NULL, *message = NULL;
	if (control == NULL) {
		send_failed(result, ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor no longer draws wallpapers with veil");
		goto out;
	}
	if (!client_allowed(control, client)) {
		send_failed(result, ZVEIL_CONTROL_RESULT_V1_REASON_DENIED,
			"The compositor does not let this program change wallpapers");
		goto out;
	}
	if (output_name != NULL && output_name[0] == '\0') {
		send_failed(result, ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT,
			"The output name is empty: name an output, or leave it out for all of them");
		goto out;
	}
	/* An empty label lets veil choose one; long ones are clipped, as the protocol allows. */
	if (label != NULL && label[0] != '\0') {
		label_copy = strndup(label, clip_len(label, MAX_LABEL));
		if (label_copy == NULL) {
			send_failed(result, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE, "Out of memory");
			goto out;
		}
	}

	/* A slideshow or a timed background is played by the path found from the descriptor. */
	int ret = veil_scene_run(control->scene, output_name != NULL ? output_name : "*", cmd,
		cmd->path != NULL ? -1 : fd, label_copy, &message);
	if (ret == 0) {
		zveil_control_result_v1_send_done(result);
	} else {
		send_failed(result, failure_reason(cmd, fd, ret),
			message != NULL ? message : strerror(-ret));
	}
	/* A failure may have recorded an error on outputs: that changes descriptions too. */
	veil_scene_changed(control->scene);

out:
	free(message);
	free(label_copy);
	wl_resource_destroy(result);
}

static void manager_handle_set_wallpaper(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output, int32_t fd,
		const char *label, uint32_t mode, uint32_t color) {
	struct veil_command cmd = { .kind = VEIL_COMMAND_SET, .color = color };
	/* solid_color has a request of its own. */
	if (!veil_mode_from_protocol(mode, &cmd.mode) || cmd.mode == VEIL_MODE_SOLID_COLOR) {
		wl_resource_post_error(manager_resource, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_MODE,
			"set_wallpaper: mode %" PRIu32 " is not stretch, fill, fit, center, tile or "
			"integer", mode);
		goto out;
	}
	if (color > 0xffffff) {
		wl_resource_post_error(manager_resource,
			ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_COLOR,
			"set_wallpaper: color 0x%" PRIx32 " is not 0xRRGGBB", color);
		goto out;
	}
	char *message = NULL;
	int ret = played_path(fd, false, &cmd.path, &message);
	if (ret < 0) {
		answer_parse_error(client, manager_resource, id, ret, message);
	} else {
		run_command(client, manager_resource, id, output, &cmd, fd, label);
	}
	free(message);
	free(cmd.path);

out:
	/* libwayland handed us a descriptor of our own; sources keep their own copies. */
	close(fd);
}

static void manager_handle_set_color(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output,
		uint32_t color) {
	if (color > 0xffffff) {
		wl_resource_post_error(manager_resource,
			ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_COLOR,
			"set_color: color 0x%" PRIx32 " is not 0xRRGGBB", color);
		return;
	}
	struct veil_command cmd = {
		.kind = VEIL_COMMAND_SET,
		.mode = VEIL_MODE_SOLID_COLOR,
		.color = color,
	};
	run_command(client, manager_resource, id, output, &cmd, -1, NULL);
}

static void manager_handle_off(struct wl_client *client, struct wl_resource *manager_resource,
		uint32_t id, const char *output) {
	struct veil_command cmd = { .kind = VEIL_COMMAND_OFF };
	run_command(client, manager_resource, id, output, &cmd, -1, NULL);
}

static void manager_handle_pause(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output) {
	struct veil_command cmd = { .kind = VEIL_COMMAND_PAUSE };
	run_command(client, manager_resource, id, output, &cmd, -1, NULL);
}

static void manager_handle_resume(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output) {
	struct veil_command cmd = { .kind = VEIL_COMMAND_RESUME };
	run_command(client, manager_resource, id, output, &cmd, -1, NULL);
}

/*
 * A words array as NULL-terminated argv pointing into the array: each word ends with a NUL, the
 * last byte is one. Posts invalid_words and returns false otherwise.
 */
static bool split_words(struct wl_resource *manager_resource, const struct wl_array *array,
		char *argv[static MAX_WORDS], int *argc) {
	const char *data = array->data;
	*argc = 0;
	if (array->size == 0) {
		return true;
	}
	if (data[array->size - 1] != '\0') {
		wl_resource_post_error(manager_resource, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_WORDS,
			"words must end with a NUL byte");
		return false;
	}
	for (size_t at = 0; at < array->size; at += strlen(data + at) + 1) {
		if (*argc == MAX_WORDS) {
			wl_resource_post_error(manager_resource,
				ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_WORDS,
				"more than %d words", MAX_WORDS);
			return false;
		}
		argv[(*argc)++] = (char *)data + at;
	}
	return true;
}

static void manager_handle_set_media(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output, int32_t fd,
		const char *label, struct wl_array *array) {
	char *argv[MAX_WORDS];
	int argc;
	char *message = NULL;
	struct veil_command cmd;
	if (!split_words(manager_resource, array, argv, &argc)) {
		goto out;
	}
	int ret = veil_command_parse_media(argc, argv, &cmd, &message);
	if (ret < 0) {
		answer_parse_error(client, manager_resource, id, ret, message);
		goto out;
	}
	ret = played_path(fd, true, &cmd.path, &message);
	if (ret < 0) {
		answer_parse_error(client, manager_resource, id, ret, message);
	} else {
		run_command(client, manager_resource, id, output, &cmd, fd, label);
	}
	veil_command_finish(&cmd);

out:
	free(message);
	close(fd);
}

static void manager_handle_run(struct wl_client *client, struct wl_resource *manager_resource,
		uint32_t id, const char *output, struct wl_array *array) {
	char *argv[MAX_WORDS + 1];
	int argc;
	char *message = NULL;
	struct veil_command cmd;
	argv[0] = "veil";
	if (!split_words(manager_resource, array, argv + 1, &argc)) {
		return;
	}
	int ret = veil_command_parse(argc + 1, argv, &cmd, &message);
	if (ret == 0 && (cmd.path != NULL || (cmd.fallback != NULL &&
			cmd.fallback->path != NULL))) {
		veil_command_finish(&cmd);
		answer_parse_error(client, manager_resource, id, -EINVAL, "A file goes through "
			"set_media, opened by the client: the compositor opens no path for a client");
		return;
	}
	if (ret < 0) {
		answer_parse_error(client, manager_resource, id, ret, message);
	} else {
		run_command(client, manager_resource, id, output, &cmd, -1, NULL);
		veil_command_finish(&cmd);
	}
	free(message);
}

static void manager_handle_snapshot(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id, const char *output,
		uint32_t max_width, uint32_t max_height) {
	struct veil_control *control = control_from_manager(manager_resource);
	struct wl_resource *resource = veil_snapshot_resource_create(client,
		wl_resource_get_version(manager_resource), id);
	if (resource == NULL) {
		return;
	}
	if (control == NULL) {
		veil_snapshot_fail(resource, ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor no longer draws wallpapers with veil");
		return;
	}
	if (!client_allowed(control, client)) {
		veil_snapshot_fail(resource, ZVEIL_CONTROL_RESULT_V1_REASON_DENIED,
			"The compositor does not let this program see its wallpapers");
		return;
	}
	if (output != NULL && output[0] == '\0') {
		veil_snapshot_fail(resource, ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT,
			"The output name is empty: name an output, or leave it out for the only one");
		return;
	}
	veil_snapshot_start(control->scene, resource, output, max_width, max_height);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zveil_control_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.set_wallpaper = manager_handle_set_wallpaper,
	.set_color = manager_handle_set_color,
	.off = manager_handle_off,
	.pause = manager_handle_pause,
	.resume = manager_handle_resume,
	.get_status = manager_handle_get_status,
	.set_media = manager_handle_set_media,
	.run = manager_handle_run,
	.snapshot = manager_handle_snapshot,
};

static void manager_handle_resource_destroy(struct wl_resource *resource) {
	wl_list_remove(wl_resource_get_link(resource));
}

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id) {
	/* NULL while a removed global waits to be destroyed: the client gets an inert object. */
	struct veil_control *control = data;
	struct wl_resource *resource = wl_resource_create(client,
		&zveil_control_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, control,
		manager_handle_resource_destroy);
	if (control != NULL) {
		wl_list_insert(&control->managers, wl_resource_get_link(resource));
	} else {
		wl_list_init(wl_resource_get_link(resource));
	}
}

/* ---- The global ---- */

/*
 * A global removed from the registry but not destroyed yet: a client may have sent a bind
 * before it heard of the removal, and binding a destroyed global kills its connection.
 */
struct removed_global {
	struct wl_global *global;
	struct wl_event_source *timer;
	struct wl_listener display_destroy;
};

static void removed_global_destroy(struct removed_global *removed) {
	wl_list_remove(&removed->display_destroy.link);
	wl_event_source_remove(removed->timer);
	wl_global_destroy(removed->global);
	free(removed);
}

static int handle_removed_timer(void *data) {
	removed_global_destroy(data);
	return 0;
}

static void handle_removed_display_destroy(struct wl_listener *listener, void *data) {
	struct removed_global *removed = wl_container_of(listener, removed, display_destroy);
	removed_global_destroy(removed);
}

static void remove_global(struct wl_display *display, struct wl_global *global) {
	wl_global_remove(global);
	wl_global_set_user_data(global, NULL);
	struct removed_global *removed = calloc(1, sizeof(*removed));
	if (removed == NULL) {
		goto destroy_now;
	}
	removed->global = global;
	removed->timer = wl_event_loop_add_timer(wl_display_get_event_loop(display),
		handle_removed_timer, removed);
	if (removed->timer == NULL) {
		free(removed);
		goto destroy_now;
	}
	wl_event_source_timer_update(removed->timer, GLOBAL_DESTROY_DELAY_MS);
	/* Added during the display's destruction, the listener still runs in it. */
	removed->display_destroy.notify = handle_removed_display_destroy;
	wl_display_add_destroy_listener(display, &removed->display_destroy);
	return;

destroy_now:
	wl_global_destroy(global);
}

void veil_control_destroy(struct veil_control *control) {
	if (control == NULL) {
		return;
	}
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &control->statuses) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		zveil_control_status_v1_send_failed(resource,
			ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor stopped drawing wallpapers with veil");
	}
	wl_resource_for_each_safe(resource, tmp, &control->managers) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
	if (control->idle != NULL) {
		wl_event_source_remove(control->idle);
	}
	wl_list_remove(&control->scene_changed.link);
	remove_global(control->scene->display, control->global);
	control->scene->control = NULL;
	free(control);
}

bool veil_scene_control_trusted(const struct wl_client *client, void *data) {
	struct wlr_security_context_manager_v1 *security_context = data;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	wl_client_get_credentials(client, &pid, &uid, &gid);
	/* Another user reached the socket somehow: not a client of this session. */
	if (uid != geteuid()) {
		return false;
	}
	/* Sandbox engines (Flatpak, ...) connect their clients through a security context. */
	return security_context == NULL ||
		wlr_security_context_manager_v1_lookup_client(security_context, client) == NULL;
}

bool veil_scene_filter_global(struct veil_scene *scene, const struct wl_client *client,
		const struct wl_global *global) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->control == NULL || global != scene->control->global) {
		return true;
	}
	return client_allowed(scene->control, client);
}

bool veil_scene_create_control(struct veil_scene *scene, veil_control_filter_func filter,
		void *data) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL) {
		return false;
	}
	if (scene->control != NULL) {
		wlr_log(WLR_ERROR, "veil: the control global exists already");
		return false;
	}
	struct veil_control *control = calloc(1, sizeof(*control));
	if (control == NULL) {
		return false;
	}
	control->scene = scene;
	control->filter = filter != NULL ? filter : veil_scene_control_trusted;
	control->filter_data = data;
	wl_list_init(&control->managers);
	wl_list_init(&control->statuses);
	control->global = wl_global_create(scene->display, &zveil_control_manager_v1_interface,
		CONTROL_VERSION, control, manager_bind);
	if (control->global == NULL) {
		free(control);
		return false;
	}
	control->scene_changed.notify = handle_scene_changed;
	wl_signal_add(&scene->events.changed, &control->scene_changed);
	scene->control = control;
	return true;
}
