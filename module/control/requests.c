/*
 * The control manager's requests: a wallpaper, a colour, off, pause and resume, a client's
 * media, any command's words, a snapshot; each answered by a result object before it returns.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <veil/veil.h>
#include "module/words/command.h"
#include "module/control/control.h"
#include "module/control/control_impl.h"
#include "module/commands/commands.h"
#include "module/core/scene.h"
#include "module/control/snapshot.h"
#include "module/show/show.h"
#include "util/message.h"
#include "util/mode_protocol.h"

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
	zveil_control_result_v1_send_failed(result, reason, veil_control_clip(message, buf));
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
	struct veil_control *control = veil_control_from_manager(manager_resource);
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
	if (!veil_control_allows(control, client)) {
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
		label_copy = strndup(label, veil_control_clip_len(label, MAX_LABEL));
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
	struct veil_command cmd = { .kind = VEIL_COMMAND_SET, .look.color = color };
	/* solid_color has a request of its own. */
	if (!veil_mode_from_protocol(mode, &cmd.look.mode) || cmd.look.mode == VEIL_MODE_SOLID_COLOR) {
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
		.look.mode = VEIL_MODE_SOLID_COLOR,
		.look.color = color,
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
	struct veil_control *control = veil_control_from_manager(manager_resource);
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
	if (!veil_control_allows(control, client)) {
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

const struct zveil_control_manager_v1_interface veil_control_manager_impl = {
	.destroy = manager_handle_destroy,
	.set_wallpaper = manager_handle_set_wallpaper,
	.set_color = manager_handle_set_color,
	.off = manager_handle_off,
	.pause = manager_handle_pause,
	.resume = manager_handle_resume,
	.get_status = veil_control_get_status,
	.set_media = manager_handle_set_media,
	.run = manager_handle_run,
	.snapshot = manager_handle_snapshot,
};

