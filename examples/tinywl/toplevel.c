#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include "tinywl.h"

struct tw_popup {
	struct wlr_xdg_popup *xdg_popup;
	struct wl_listener commit;
	struct wl_listener destroy;
};

void toplevel_focus(struct tw_toplevel *toplevel) {
	if (toplevel == NULL) {
		return;
	}
	struct wlr_seat *seat = toplevel->server->seat;
	struct wlr_surface *surface = toplevel->xdg_toplevel->base->surface;
	struct wlr_surface *prev_surface = seat->keyboard_state.focused_surface;
	if (prev_surface == surface) {
		return;
	}
	if (prev_surface != NULL) {
		struct wlr_xdg_toplevel *prev = wlr_xdg_toplevel_try_from_wlr_surface(prev_surface);
		if (prev != NULL) {
			wlr_xdg_toplevel_set_activated(prev, false);
		}
	}
	wlr_scene_node_raise_to_top(&toplevel->scene_tree->node);
	wlr_xdg_toplevel_set_activated(toplevel->xdg_toplevel, true);

	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(seat, surface, keyboard->keycodes,
			keyboard->num_keycodes, &keyboard->modifiers);
	}
}

struct tw_toplevel *toplevel_at(struct tw_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy) {
	struct wlr_scene_node *node = wlr_scene_node_at(&server->scene->tree.node, lx, ly, sx, sy);
	/* Wallpapers are buffers without a surface: they never take the pointer. */
	if (node == NULL || node->type != WLR_SCENE_NODE_BUFFER) {
		return NULL;
	}
	struct wlr_scene_surface *scene_surface =
		wlr_scene_surface_try_from_buffer(wlr_scene_buffer_from_node(node));
	if (scene_surface == NULL) {
		return NULL;
	}
	*surface = scene_surface->surface;

	/* Only a toplevel's own tree carries data; popups and subsurfaces sit below it. */
	struct wlr_scene_tree *tree = node->parent;
	while (tree != NULL && tree->node.data == NULL) {
		tree = tree->node.parent;
	}
	return tree != NULL ? tree->node.data : NULL;
}

/* Covers the output with the toplevel's window geometry, asking the client for that size. */
static void place_fullscreen(struct tw_toplevel *toplevel) {
	struct wlr_box box;
	if (!output_get_box(toplevel->fullscreen_output, &box)) {
		return;
	}
	struct wlr_xdg_toplevel *xdg_toplevel = toplevel->xdg_toplevel;
	const struct wlr_box *geo = &xdg_toplevel->base->geometry;
	wlr_scene_node_set_position(&toplevel->scene_tree->node, box.x - geo->x, box.y - geo->y);
	/* Until the client has caught up with a smaller output, nothing spills onto the next one. */
	wlr_scene_subsurface_tree_set_clip(&toplevel->scene_tree->node,
		&(struct wlr_box){ geo->x, geo->y, box.width, box.height });
	if (xdg_toplevel->base->initialized && (xdg_toplevel->scheduled.width != box.width ||
			xdg_toplevel->scheduled.height != box.height)) {
		wlr_xdg_toplevel_set_size(xdg_toplevel, box.width, box.height);
	}
}

static struct tw_output *fullscreen_target(struct tw_toplevel *toplevel,
		struct wlr_output *requested) {
	struct tw_server *server = toplevel->server;
	struct tw_output *output;
	if (requested != NULL) {
		wl_list_for_each(output, &server->outputs, link) {
			if (output->wlr_output == requested && output->enabled) {
				return output;
			}
		}
	}
	if (toplevel->fullscreen_output != NULL) {
		return toplevel->fullscreen_output;
	}
	/* The output under the middle of the window, else the one under the pointer. */
	const struct wlr_box *geo = &toplevel->xdg_toplevel->base->geometry;
	const struct wlr_scene_node *node = &toplevel->scene_tree->node;
	output = output_at(server, node->x + geo->x + geo->width / 2.0,
		node->y + geo->y + geo->height / 2.0);
	if (output == NULL) {
		output = output_at(server, server->cursor->x, server->cursor->y);
	}
	if (output == NULL) {
		wl_list_for_each(output, &server->outputs, link) {
			if (output->enabled) {
				return output;
			}
		}
		return NULL;
	}
	return output;
}

/* Where the toplevel's windowed tree goes: its workspace's, else the window layer. */
static struct wlr_scene_tree *windows_tree(struct tw_toplevel *toplevel) {
	return toplevel->workspace != NULL ? toplevel->workspace->windows :
		toplevel->server->window_layer;
}

static void set_fullscreen(struct tw_toplevel *toplevel, bool fullscreen,
		struct wlr_output *requested) {
	struct tw_server *server = toplevel->server;
	struct wlr_xdg_toplevel *xdg_toplevel = toplevel->xdg_toplevel;
	struct tw_output *output = fullscreen ? fullscreen_target(toplevel, requested) : NULL;

	if (output == NULL) {
		if (toplevel->fullscreen_output != NULL) {
			toplevel->fullscreen_output = NULL;
			wlr_scene_node_reparent(&toplevel->scene_tree->node, windows_tree(toplevel));
			wlr_scene_node_set_position(&toplevel->scene_tree->node,
				toplevel->saved_x, toplevel->saved_y);
			wlr_scene_subsurface_tree_set_clip(&toplevel->scene_tree->node, NULL);
			/* Let the client go back to the size it chose itself. */
			wlr_xdg_toplevel_set_size(xdg_toplevel, 0, 0);
		}
		wlr_xdg_toplevel_set_fullscreen(xdg_toplevel, false);
		return;
	}

	if (toplevel->fullscreen_output == NULL) {
		toplevel->saved_x = toplevel->scene_tree->node.x;
		toplevel->saved_y = toplevel->scene_tree->node.y;
		/* Above every window and every wallpaper. */
		wlr_scene_node_reparent(&toplevel->scene_tree->node,
			toplevel->workspace != NULL ? toplevel->workspace->fullscreen :
			server->fullscreen_layer);
	}
	toplevel->fullscreen_output = output;
	wlr_xdg_toplevel_set_fullscreen(xdg_toplevel, true);
	place_fullscreen(toplevel);
}

void toplevels_arrange(struct tw_server *server) {
	struct tw_toplevel *toplevel, *tmp;
	wl_list_for_each_safe(toplevel, tmp, &server->toplevels, link) {
		if (toplevel->fullscreen_output == NULL) {
			continue;
		}
		if (toplevel->fullscreen_output->enabled) {
			place_fullscreen(toplevel);
		} else {
			set_fullscreen(toplevel, false, NULL);
		}
	}
}

void toplevels_leave_output(struct tw_server *server, struct tw_output *output) {
	struct tw_toplevel *toplevel;
	wl_list_for_each(toplevel, &server->toplevels, link) {
		if (toplevel->fullscreen_output == output) {
			set_fullscreen(toplevel, false, NULL);
		}
	}
}

void toplevel_update_xray(struct tw_toplevel *toplevel) {
	if (toplevel->xray == NULL) {
		return;
	}
	/* The node sits at the window geometry's corner in the toplevel's tree. */
	const struct wlr_box *geo = &toplevel->xdg_toplevel->base->geometry;
	wlr_scene_node_set_position(veil_xray_node(toplevel->xray), geo->x, geo->y);
	int lx = 0, ly = 0;
	wlr_scene_node_coords(&toplevel->scene_tree->node, &lx, &ly);
	lx += geo->x;
	ly += geo->y;
	struct tw_output *output = toplevel->fullscreen_output;
	if (output == NULL) {
		output = output_at(toplevel->server, lx + geo->width / 2.0, ly + geo->height / 2.0);
	}
	struct wlr_box box;
	if (output == NULL || !output_get_box(output, &box)) {
		veil_xray_set_output(toplevel->xray, NULL);
		return;
	}
	veil_xray_set_output(toplevel->xray, output->wlr_output);
	veil_xray_set_box(toplevel->xray, &(struct wlr_box){
		.x = lx - box.x, .y = ly - box.y, .width = geo->width, .height = geo->height,
	});
}

struct cmd_result cmd_move_position(struct tw_server *server, int argc, char **argv) {
	char *end_x, *end_y;
	long x = argc == 2 ? strtol(argv[0], &end_x, 10) : 0;
	long y = argc == 2 ? strtol(argv[1], &end_y, 10) : 0;
	if (argc != 2 || *end_x != '\0' || *end_y != '\0' || labs(x) > 100000 ||
			labs(y) > 100000) {
		return cmd_result_new(CMD_INVALID, "Expected `move position <x> <y>`");
	}
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	struct wlr_xdg_toplevel *xdg_toplevel = focused != NULL ?
		wlr_xdg_toplevel_try_from_wlr_surface(focused) : NULL;
	/* The focused window; without a keyboard (headless), the newest. */
	struct tw_toplevel *toplevel = NULL, *each;
	wl_list_for_each(each, &server->toplevels, link) {
		if (each->xdg_toplevel == xdg_toplevel || (xdg_toplevel == NULL && toplevel == NULL)) {
			toplevel = each;
		}
	}
	if (toplevel == NULL || toplevel->fullscreen_output != NULL) {
		return cmd_result_new(CMD_FAILURE, "No focused window that is not fullscreen");
	}
	/* Workspace trees sit at the layout's origin: the tree's position is the layout's. */
	const struct wlr_box *geo = &toplevel->xdg_toplevel->base->geometry;
	wlr_scene_node_set_position(&toplevel->scene_tree->node, (int)x - geo->x, (int)y - geo->y);
	toplevel_update_xray(toplevel);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static void handle_map(struct wl_listener *listener, void *data) {
	struct tw_toplevel *toplevel = wl_container_of(listener, toplevel, map);
	toplevel_focus(toplevel);
}

static void handle_commit(struct wl_listener *listener, void *data) {
	struct tw_toplevel *toplevel = wl_container_of(listener, toplevel, commit);
	struct wlr_xdg_toplevel *xdg_toplevel = toplevel->xdg_toplevel;

	if (xdg_toplevel->base->initial_commit) {
		/* The first configure: fullscreen if the client asked before mapping, else its size. */
		if (xdg_toplevel->requested.fullscreen) {
			set_fullscreen(toplevel, true, xdg_toplevel->requested.fullscreen_output);
		} else {
			wlr_xdg_toplevel_set_size(xdg_toplevel, 0, 0);
		}
		return;
	}
	if (toplevel->fullscreen_output != NULL) {
		/* The window geometry may have changed with this commit. */
		place_fullscreen(toplevel);
	}
	toplevel_update_xray(toplevel);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct tw_toplevel *toplevel = wl_container_of(listener, toplevel, destroy);

	/* The scene tree goes by itself with the xdg_surface; the xray node is in it. */
	veil_xray_destroy(toplevel->xray);
	wl_list_remove(&toplevel->map.link);
	wl_list_remove(&toplevel->commit.link);
	wl_list_remove(&toplevel->destroy.link);
	wl_list_remove(&toplevel->request_maximize.link);
	wl_list_remove(&toplevel->request_fullscreen.link);
	wl_list_remove(&toplevel->link);
	free(toplevel);
}

static void handle_request_maximize(struct wl_listener *listener, void *data) {
	/* Not supported, but xdg-shell wants a configure in reply once the surface is set up. */
	struct tw_toplevel *toplevel = wl_container_of(listener, toplevel, request_maximize);
	if (toplevel->xdg_toplevel->base->initialized) {
		wlr_xdg_surface_schedule_configure(toplevel->xdg_toplevel->base);
	}
}

static void handle_request_fullscreen(struct wl_listener *listener, void *data) {
	struct tw_toplevel *toplevel = wl_container_of(listener, toplevel, request_fullscreen);
	struct wlr_xdg_toplevel *xdg_toplevel = toplevel->xdg_toplevel;
	/* Before the initial commit the request is answered by the first configure. */
	if (!xdg_toplevel->base->initialized) {
		return;
	}
	set_fullscreen(toplevel, xdg_toplevel->requested.fullscreen,
		xdg_toplevel->requested.fullscreen_output);
}

void toplevel_handle_new(struct wl_listener *listener, void *data) {
	struct tw_server *server = wl_container_of(listener, server, new_xdg_toplevel);
	struct wlr_xdg_toplevel *xdg_toplevel = data;

	struct tw_toplevel *toplevel = calloc(1, sizeof(*toplevel));
	if (toplevel == NULL) {
		wlr_log(WLR_ERROR, "out of memory");
		wl_resource_post_no_memory(xdg_toplevel->resource);
		return;
	}
	toplevel->server = server;
	toplevel->xdg_toplevel = xdg_toplevel;
	/* It opens on the focused output's workspace, as in sway. */
	toplevel->workspace = workspace_focused(server);
	toplevel->scene_tree = wlr_scene_xdg_surface_create(windows_tree(toplevel),
		xdg_toplevel->base);
	if (toplevel->scene_tree == NULL) {
		free(toplevel);
		wl_resource_post_no_memory(xdg_toplevel->resource);
		return;
	}
	toplevel->scene_tree->node.data = toplevel;
	if (server->xray && server->veil != NULL) {
		/* Below the window's surfaces; it shows nothing until the window has a box. */
		toplevel->xray = veil_xray_create(server->veil, NULL, toplevel->scene_tree);
		if (toplevel->xray != NULL) {
			wlr_scene_node_lower_to_bottom(veil_xray_node(toplevel->xray));
		}
	}
	/* Popups find their parent's tree here. */
	xdg_toplevel->base->data = toplevel->scene_tree;

	struct wlr_surface *surface = xdg_toplevel->base->surface;
	toplevel->map.notify = handle_map;
	wl_signal_add(&surface->events.map, &toplevel->map);
	toplevel->commit.notify = handle_commit;
	wl_signal_add(&surface->events.commit, &toplevel->commit);
	toplevel->destroy.notify = handle_destroy;
	wl_signal_add(&xdg_toplevel->events.destroy, &toplevel->destroy);
	toplevel->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&xdg_toplevel->events.request_maximize, &toplevel->request_maximize);
	toplevel->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&xdg_toplevel->events.request_fullscreen, &toplevel->request_fullscreen);

	wl_list_insert(&server->toplevels, &toplevel->link);
}

static void popup_handle_commit(struct wl_listener *listener, void *data) {
	struct tw_popup *popup = wl_container_of(listener, popup, commit);
	if (popup->xdg_popup->base->initial_commit) {
		wlr_xdg_surface_schedule_configure(popup->xdg_popup->base);
	}
}

static void popup_handle_destroy(struct wl_listener *listener, void *data) {
	struct tw_popup *popup = wl_container_of(listener, popup, destroy);
	wl_list_remove(&popup->commit.link);
	wl_list_remove(&popup->destroy.link);
	free(popup);
}

void popup_handle_new(struct wl_listener *listener, void *data) {
	struct wlr_xdg_popup *xdg_popup = data;

	struct tw_popup *popup = calloc(1, sizeof(*popup));
	if (popup == NULL) {
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	popup->xdg_popup = xdg_popup;

	/*
	 * A popup without an xdg parent would need another shell (layer-shell) to place it; this
	 * compositor has none, so such a popup is configured but never shown.
	 */
	struct wlr_xdg_surface *parent = xdg_popup->parent != NULL ?
		wlr_xdg_surface_try_from_wlr_surface(xdg_popup->parent) : NULL;
	if (parent != NULL && parent->data != NULL) {
		xdg_popup->base->data = wlr_scene_xdg_surface_create(parent->data, xdg_popup->base);
	}

	popup->commit.notify = popup_handle_commit;
	wl_signal_add(&xdg_popup->base->surface->events.commit, &popup->commit);
	popup->destroy.notify = popup_handle_destroy;
	wl_signal_add(&xdg_popup->events.destroy, &popup->destroy);
}
