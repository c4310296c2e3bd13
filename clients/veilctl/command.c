/* set, off, pause, resume and the compositor's other words: one request, its result. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-client.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"
#include "util/mode_protocol.h"

struct result {
	bool received;
	bool ok;
	uint32_t reason;
	char *message;
};


static void result_handle_done(void *data, struct zveil_control_result_v1 *proxy) {
	struct result *result = data;
	result->received = true;
	result->ok = true;
	zveil_control_result_v1_destroy(proxy);
}

static void result_handle_failed(void *data, struct zveil_control_result_v1 *proxy,
		uint32_t reason, const char *message) {
	struct result *result = data;
	result->received = true;
	result->ok = false;
	result->reason = reason;
	result->message = veilctl_strdup(message);
	zveil_control_result_v1_destroy(proxy);
}

static const struct zveil_control_result_v1_listener result_listener = {
	.done = result_handle_done,
	.failed = result_handle_failed,
};

/* The words as a protocol array: each ends with a NUL. */
static void words_array(struct wl_array *array, char **words, int n) {
	wl_array_init(array);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(words[i]) + 1;
		void *p = wl_array_add(array, len);
		if (p == NULL) {
			veilctl_die_oom();
		}
		memcpy(p, words[i], len);
	}
}

static void need_version(const struct client *client, const char *what) {
	if (client->version < 2) {
		fprintf(stderr, "veilctl: this compositor's veil is too old for %s (its control "
			"protocol is version %" PRIu32 ", 2 is needed)\n", what, client->version);
		exit(EXIT_USAGE);
	}
}

int veilctl_command_run(struct client *client, const struct options *opts) {
	int fd = -1;
	char *label = NULL;
	if (opts->action == ACTION_SET && opts->file != NULL) {
		/* Opened before connecting: a typo costs the compositor nothing. */
		fd = veilctl_media_open(opts->file, &label);
	}
	veilctl_connect(client);

	struct zveil_control_result_v1 *proxy = NULL;
	struct wl_array words;
	struct stat st;
	bool directory = fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (opts->workspace != NULL) {
		/* `workspace <ws>` goes before the words: the compositor's parser reads them. */
		char **ws_words = calloc((size_t)opts->n_words + 4, sizeof(*ws_words));
		if (ws_words == NULL) {
			veilctl_die_oom();
		}
		int n = 0;
		ws_words[n++] = "workspace";
		ws_words[n++] = (char *)opts->workspace;
		if (opts->action == ACTION_OFF) {
			ws_words[n++] = "off";
		} else if (fd < 0) {
			ws_words[n++] = (char *)opts->color_word;
			ws_words[n++] = "solid_color";
		}
		for (int i = 0; opts->action == ACTION_SET && fd >= 0 && i < opts->n_words; i++) {
			ws_words[n++] = opts->words[i];
		}
		words_array(&words, ws_words, n);
		free(ws_words);
		need_version(client, "a workspace's wallpaper");
		proxy = fd >= 0 ?
			zveil_control_manager_v1_set_media(client->manager, opts->output, fd, label,
				&words) :
			zveil_control_manager_v1_run(client->manager, opts->output, &words);
		goto sent;
	}
	words_array(&words, opts->words, opts->n_words);
	switch (opts->action) {
	case ACTION_SET:
		if (fd >= 0 && (opts->has_options || directory)) {
			need_version(client, directory ? "a directory" : "options after the file");
			proxy = zveil_control_manager_v1_set_media(client->manager, opts->output,
				fd, label, &words);
		} else if (fd >= 0) {
			proxy = zveil_control_manager_v1_set_wallpaper(client->manager, opts->output,
				fd, label, veil_mode_to_protocol(opts->mode), opts->color);
		} else {
			proxy = zveil_control_manager_v1_set_color(client->manager, opts->output,
				opts->color);
		}
		break;
	case ACTION_OFF:
		proxy = zveil_control_manager_v1_off(client->manager, opts->output);
		break;
	case ACTION_PAUSE:
		proxy = zveil_control_manager_v1_pause(client->manager, opts->output);
		break;
	case ACTION_RESUME:
		proxy = zveil_control_manager_v1_resume(client->manager, opts->output);
		break;
	case ACTION_WORDS:
		need_version(client, "this command");
		proxy = zveil_control_manager_v1_run(client->manager, opts->output, &words);
		break;
	case ACTION_STATUS:
	case ACTION_WATCH:
	case ACTION_SNAPSHOT:
		abort();
	}
sent:
	wl_array_release(&words);
	if (proxy == NULL) {
		veilctl_die_oom();
	}
	struct result result = {0};
	zveil_control_result_v1_add_listener(proxy, &result_listener, &result);
	/* The request marshalled its own copy of fd. */
	if (fd >= 0) {
		close(fd);
	}
	while (!result.received) {
		if (wl_display_dispatch(client->display) < 0) {
			free(label);
			return veilctl_connection_lost(client->display);
		}
	}
	int status = EXIT_SUCCESS;
	if (!result.ok) {
		/* Decoders' messages may not say which file they mean. */
		if (label != NULL && strstr(result.message, label) == NULL) {
			fprintf(stderr, "veilctl: cannot show '%s': %s\n", label, result.message);
		} else {
			fprintf(stderr, "veilctl: %s\n", result.message);
		}
		if (result.reason == ZVEIL_CONTROL_RESULT_V1_REASON_BAD_MEDIA &&
				opts->file != NULL && strcmp(opts->file, "-") == 0) {
			fprintf(stderr, "The compositor reads the file itself, from its start and "
				"again later: give it a regular file, not a pipe or a socket.\n");
		}
		status = EXIT_REFUSED;
	}
	free(result.message);
	free(label);
	return status;
}
