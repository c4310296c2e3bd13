/* status: the descriptions the compositor sends, each taken whole at its done event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"

static void output_status_finish(struct output_status *output) {
	free(output->name);
	free(output->setting);
	free(output->label);
	free(output->decoder);
	free(output->error);
	for (size_t i = 0; i < output->n_details; i++) {
		free(output->details[i].name);
		free(output->details[i].value);
	}
	free(output->details);
}

static void outputs_free(struct output_status **outputs, size_t *n) {
	for (size_t i = 0; i < *n; i++) {
		output_status_finish(&(*outputs)[i]);
	}
	free(*outputs);
	*outputs = NULL;
	*n = 0;
}

void veilctl_status_clear(struct status *status) {
	outputs_free(&status->outputs, &status->n_outputs);
	outputs_free(&status->building, &status->n_building);
}

/* The output the events describe now; NULL for events before any output (ignored). */
static struct output_status *current(struct status *status) {
	return status->n_building > 0 ? &status->building[status->n_building - 1] : NULL;
}

static void status_handle_output(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct status *status = data;
	/* Part of the next description, which replaces the last as a whole at its done. */
	struct output_status *outputs = realloc(status->building,
		(status->n_building + 1) * sizeof(*outputs));
	if (outputs == NULL) {
		veilctl_die_oom();
	}
	status->building = outputs;
	status->building[status->n_building++] = (struct output_status){ .name = veilctl_strdup(name) };
}

static void status_handle_wallpaper(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t kind, uint32_t state, const char *setting) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->kind = kind;
		output->state = state;
		free(output->setting);
		output->setting = veilctl_strdup(setting);
	}
}

static void status_handle_mode(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t mode, uint32_t color) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->has_mode = true;
		output->mode = mode;
		output->color = color;
	}
}

static void status_handle_media(void *data, struct zveil_control_status_v1 *proxy,
		const char *label, uint32_t width, uint32_t height) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->label);
		output->label = veilctl_strdup(label);
		output->width = width;
		output->height = height;
	}
}

static void status_handle_decoder(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->decoder);
		output->decoder = veilctl_strdup(name);
	}
}

static void status_handle_frames(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t shown_hi, uint32_t shown_lo, uint32_t dropped_hi, uint32_t dropped_lo) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->shown = (uint64_t)shown_hi << 32 | shown_lo;
		output->dropped = (uint64_t)dropped_hi << 32 | dropped_lo;
	}
}

static void status_handle_error(void *data, struct zveil_control_status_v1 *proxy,
		const char *message) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->error);
		output->error = veilctl_strdup(message);
	}
}

static void status_handle_detail(void *data, struct zveil_control_status_v1 *proxy,
		const char *name, const char *value) {
	struct output_status *output = current(data);
	if (output == NULL) {
		return;
	}
	struct detail *details = realloc(output->details,
		(output->n_details + 1) * sizeof(*details));
	if (details == NULL) {
		veilctl_die_oom();
	}
	output->details = details;
	details[output->n_details++] = (struct detail){
		.name = veilctl_strdup(name),
		.value = veilctl_strdup(value),
	};
}

static void status_handle_done(void *data, struct zveil_control_status_v1 *proxy) {
	struct status *status = data;
	/* The description just received replaces the last (a description of no outputs too). */
	outputs_free(&status->outputs, &status->n_outputs);
	status->outputs = status->building;
	status->n_outputs = status->n_building;
	status->building = NULL;
	status->n_building = 0;
	status->descriptions++;
}

static void status_handle_failed(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t reason, const char *message) {
	struct status *status = data;
	status->failed = true;
	status->reason = reason;
	free(status->message);
	status->message = veilctl_strdup(message);
}

static const struct zveil_control_status_v1_listener status_listener = {
	.output = status_handle_output,
	.wallpaper = status_handle_wallpaper,
	.mode = status_handle_mode,
	.media = status_handle_media,
	.decoder = status_handle_decoder,
	.frames = status_handle_frames,
	.error = status_handle_error,
	.detail = status_handle_detail,
	.done = status_handle_done,
	.failed = status_handle_failed,
};

bool veilctl_status_has_output(const struct status *status, const char *name) {
	for (size_t i = 0; i < status->n_outputs; i++) {
		if (strcmp(status->outputs[i].name, name) == 0) {
			return true;
		}
	}
	return false;
}

/* Connects and asks for the status object, whose descriptions go into status. */
struct zveil_control_status_v1 *veilctl_status_open(struct client *client,
		struct status *status) {
	veilctl_connect(client);
	struct zveil_control_status_v1 *proxy =
		zveil_control_manager_v1_get_status(client->manager);
	if (proxy == NULL) {
		veilctl_die_oom();
	}
	zveil_control_status_v1_add_listener(proxy, &status_listener, status);
	return proxy;
}

int veilctl_status_run(struct client *client, const struct options *opts) {
	struct status status = {0};
	struct zveil_control_status_v1 *proxy = veilctl_status_open(client, &status);

	int ret = EXIT_SUCCESS;
	int printed = 0;
	while (!status.failed) {
		if (wl_display_dispatch(client->display) < 0) {
			ret = veilctl_connection_lost(client->display);
			goto out;
		}
		if (status.descriptions == printed) {
			continue;
		}
		printed = status.descriptions;
		if (opts->output != NULL && !veilctl_status_has_output(&status, opts->output)) {
			fprintf(stderr, "veilctl: there is no output named '%s'\n", opts->output);
			ret = EXIT_REFUSED;
			goto out;
		}
		if (opts->json) {
			veilctl_status_print_json(&status, opts->output);
		} else {
			if (printed > 1) {
				putchar('\n');
			}
			veilctl_status_print_text(&status, opts->output);
		}
		fflush(stdout);
		if (!opts->watch) {
			goto out;
		}
	}
	fprintf(stderr, "veilctl: %s\n", status.message);
	ret = EXIT_REFUSED;

out:
	zveil_control_status_v1_destroy(proxy);
	veilctl_status_clear(&status);
	free(status.message);
	return ret;
}
