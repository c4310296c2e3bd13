#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <veil/veil.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "tinywl.h"

static void handle_frame(struct wl_listener *listener, void *data) {
	struct tw_output *output = wl_container_of(listener, output, frame);

	wlr_scene_output_commit(output->scene_output, NULL);

	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(output->scene_output, &now);
}

static void handle_request_state(struct wl_listener *listener, void *data) {
	/* Nested backends ask for a new size when their window is resized. */
	struct tw_output *output = wl_container_of(listener, output, request_state);
	const struct wlr_output_event_request_state *event = data;
	wlr_output_commit_state(output->wlr_output, event->state);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct tw_output *output = wl_container_of(listener, output, destroy);
	struct tw_server *server = output->server;

	toplevels_leave_output(server, output);
	workspace_output_removed(output);
	/* veil's nodes live in our background tree: take them out before the tree goes. */
	if (server->veil != NULL) {
		veil_scene_remove_output(server->veil, output->wlr_output);
	}
	wlr_scene_node_destroy(&output->background->node);

	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->request_state.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->link);
	free(output);
}

/* Lays the output out and hands it to veil. */
static void manage(struct tw_output *output) {
	/* Positions the background tree through the layout's change event, before veil uses it. */
	output_set_enabled_in_layout(output, true);
	if (!veil_scene_add_output(output->server->veil, output->wlr_output, output->background)) {
		wlr_log(WLR_ERROR, "%s: veil cannot draw on this output", output->wlr_output->name);
	}
	workspace_output_added(output);
}

/* Compares names with their numbers as numbers: HEADLESS-2 before HEADLESS-10. */
static int compare_names(const char *a, const char *b) {
	while (*a != '\0' && *b != '\0') {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			char *end_a, *end_b;
			unsigned long na = strtoul(a, &end_a, 10), nb = strtoul(b, &end_b, 10);
			if (na != nb) {
				return na < nb ? -1 : 1;
			}
			a = end_a;
			b = end_b;
		} else if (*a != *b) {
			return (unsigned char)*a - (unsigned char)*b;
		} else {
			a++;
			b++;
		}
	}
	return (unsigned char)*a - (unsigned char)*b;
}

void outputs_start(struct tw_server *server) {
	/*
	 * The headless backend announces WLR_HEADLESS_OUTPUTS newest first; auto layout would put
	 * HEADLESS-1 rightmost. Sorting the outputs present at start puts them left to right.
	 */
	struct wl_list sorted;
	wl_list_init(&sorted);
	while (!wl_list_empty(&server->outputs)) {
		struct tw_output *smallest = NULL, *output;
		wl_list_for_each(output, &server->outputs, link) {
			if (smallest == NULL ||
					compare_names(output->wlr_output->name, smallest->wlr_output->name) < 0) {
				smallest = output;
			}
		}
		wl_list_remove(&smallest->link);
		wl_list_insert(sorted.prev, &smallest->link);
	}
	wl_list_insert_list(&server->outputs, &sorted);

	server->started = true;
	struct tw_output *output, *tmp;
	wl_list_for_each_safe(output, tmp, &server->outputs, link) {
		manage(output);
	}
}

void output_handle_new(struct wl_listener *listener, void *data) {
	struct tw_server *server = wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;

	if (!wlr_output_init_render(wlr_output, server->allocator, server->renderer)) {
		wlr_log(WLR_ERROR, "%s: cannot render to this output", wlr_output->name);
		return;
	}

	struct tw_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		wlr_log(WLR_ERROR, "out of memory");
		return;
	}
	output->server = server;
	output->wlr_output = wlr_output;

	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	struct wlr_output_mode *mode = wlr_output_preferred_mode(wlr_output);
	if (mode != NULL) {
		wlr_output_state_set_mode(&state, mode);
	}
	bool committed = wlr_output_commit_state(wlr_output, &state);
	wlr_output_state_finish(&state);
	if (!committed) {
		wlr_log(WLR_ERROR, "%s: cannot enable the output", wlr_output->name);
	}

	output->scene_output = wlr_scene_output_create(server->scene, wlr_output);
	output->background = wlr_scene_tree_create(server->background_layer);
	if (output->scene_output == NULL || output->background == NULL) {
		goto error;
	}

	output->frame.notify = handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->request_state.notify = handle_request_state;
	wl_signal_add(&wlr_output->events.request_state, &output->request_state);
	output->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);

	/* Appended, so that get_outputs lists outputs in the order they appeared. */
	wl_list_insert(server->outputs.prev, &output->link);
	output->power = true;

	if (server->started) {
		manage(output);
	} else {
		/* Laid out in order of name once the backend has made them all: see outputs_start(). */
		wlr_scene_node_set_enabled(&output->background->node, false);
	}
	return;

error:
	wlr_log(WLR_ERROR, "%s: cannot add the output to the scene", wlr_output->name);
	if (output->background != NULL) {
		wlr_scene_node_destroy(&output->background->node);
	}
	if (output->scene_output != NULL) {
		wlr_scene_output_destroy(output->scene_output);
	}
	free(output);
}

void output_handle_layout_change(struct wl_listener *listener, void *data) {
	struct tw_server *server = wl_container_of(listener, server, layout_change);

	/* Outputs move when others appear, go or change size: keep each wallpaper under its output. */
	struct tw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_box box;
		bool laid_out = output_get_box(output, &box);
		if (laid_out) {
			wlr_scene_node_set_position(&output->background->node, box.x, box.y);
		}
		wlr_scene_node_set_enabled(&output->background->node, laid_out);
	}
	toplevels_arrange(server);
}

struct tw_output *output_by_name(struct tw_server *server, const char *name) {
	struct tw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (strcmp(output->wlr_output->name, name) == 0) {
			return output;
		}
	}
	return NULL;
}

struct tw_output *output_at(struct tw_server *server, double lx, double ly) {
	struct wlr_output *wlr_output = wlr_output_layout_output_at(server->output_layout, lx, ly);
	if (wlr_output == NULL) {
		return NULL;
	}
	struct tw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (output->wlr_output == wlr_output) {
			return output;
		}
	}
	return NULL;
}

bool output_get_box(struct tw_output *output, struct wlr_box *box) {
	*box = (struct wlr_box){0};
	if (!output->enabled) {
		return false;
	}
	wlr_output_layout_get_box(output->server->output_layout, output->wlr_output, box);
	return !wlr_box_empty(box);
}

void output_set_enabled_in_layout(struct tw_output *output, bool enabled) {
	struct tw_server *server = output->server;

	if (!enabled) {
		output->enabled = false;
		/* Emits the layout's change event, which hides the background tree. */
		wlr_output_layout_remove(server->output_layout, output->wlr_output);
		return;
	}

	output->enabled = true;
	struct wlr_output_layout_output *l_output;
	if (output->has_position) {
		l_output = wlr_output_layout_add(server->output_layout, output->wlr_output,
			output->x, output->y);
	} else {
		l_output = wlr_output_layout_add_auto(server->output_layout, output->wlr_output);
	}
	if (l_output == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot add the output to the layout", output->wlr_output->name);
		output->enabled = false;
		return;
	}
	/* The scene forgets an output's position when it leaves the layout; tell it again. */
	wlr_scene_output_layout_add_output(server->scene_layout, l_output, output->scene_output);
}
