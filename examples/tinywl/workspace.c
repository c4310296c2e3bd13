/*
 * Workspaces, as much of sway's as a wallpaper test bed needs: each output shows one; windows
 * open on the focused output's; `workspace <name>` switches, `rename workspace` renames, and
 * GET_WORKSPACES lists them. A switch hides the old workspace's windows, shows the new one's
 * and tells veil, all before the output's next frame: the frame that shows the windows shows
 * their wallpaper.
 */
#define _GNU_SOURCE /* strverscmp */
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "tinywl.h"

static struct tw_workspace *find(struct tw_server *server, const char *name) {
	struct tw_workspace *ws;
	wl_list_for_each(ws, &server->workspaces, link) {
		if (strcmp(ws->name, name) == 0) {
			return ws;
		}
	}
	return NULL;
}

static struct tw_workspace *create(struct tw_server *server, const char *name) {
	struct tw_workspace *ws = calloc(1, sizeof(*ws));
	if (ws == NULL || (ws->name = strdup(name)) == NULL) {
		free(ws);
		return NULL;
	}
	ws->server = server;
	ws->windows = wlr_scene_tree_create(server->window_layer);
	ws->fullscreen = wlr_scene_tree_create(server->fullscreen_layer);
	if (ws->windows == NULL || ws->fullscreen == NULL) {
		if (ws->windows != NULL) {
			wlr_scene_node_destroy(&ws->windows->node);
		}
		free(ws->name);
		free(ws);
		return NULL;
	}
	wlr_scene_node_set_enabled(&ws->windows->node, false);
	wlr_scene_node_set_enabled(&ws->fullscreen->node, false);
	/* In name order, as sway lists them. */
	struct tw_workspace *at;
	wl_list_for_each(at, &server->workspaces, link) {
		if (strverscmp(at->name, name) > 0) {
			break;
		}
	}
	wl_list_insert(at->link.prev, &ws->link);
	return ws;
}

static void set_visible(struct tw_workspace *ws, bool visible) {
	wlr_scene_node_set_enabled(&ws->windows->node, visible);
	wlr_scene_node_set_enabled(&ws->fullscreen->node, visible);
}

/* The lowest number no workspace has, as sway names a new output's first workspace. */
static struct tw_workspace *create_numbered(struct tw_server *server) {
	char name[16];
	for (int n = 1;; n++) {
		snprintf(name, sizeof(name), "%d", n);
		struct tw_workspace *ws = find(server, name);
		if (ws == NULL) {
			return create(server, name);
		}
		if (ws->output == NULL) {
			return ws;
		}
	}
}

/* Shows ws on output: windows, fullscreen windows and wallpaper, in one frame. */
static void show(struct tw_output *output, struct tw_workspace *ws) {
	struct tw_server *server = output->server;
	if (output->workspace == ws) {
		return;
	}
	if (ws->output != NULL) {
		/* Another output shows it: the caller switches that one. */
		return;
	}
	if (output->workspace != NULL) {
		set_visible(output->workspace, false);
		output->workspace->output = NULL;
		/* It stays on this output, hidden, until another output takes it. */
		output->workspace->last_output = output;
	}
	output->workspace = ws;
	ws->output = output;
	ws->last_output = output;
	set_visible(ws, true);
	veil_scene_output_set_workspace(server->veil, output->wlr_output, ws->name);
	toplevels_arrange(server);
}

void workspace_output_added(struct tw_output *output) {
	struct tw_server *server = output->server;
	if (output->workspace != NULL) {
		return;
	}
	/* A workspace this output showed before, else a new one. */
	struct tw_workspace *ws;
	wl_list_for_each(ws, &server->workspaces, link) {
		if (ws->output == NULL && ws->last_output == output) {
			show(output, ws);
			return;
		}
	}
	ws = create_numbered(server);
	if (ws == NULL) {
		wlr_log(WLR_ERROR, "%s: out of memory for a workspace", output->wlr_output->name);
		return;
	}
	show(output, ws);
}

void workspace_output_removed(struct tw_output *output) {
	struct tw_workspace *ws;
	wl_list_for_each(ws, &output->server->workspaces, link) {
		if (ws->last_output == output) {
			ws->last_output = NULL;
		}
	}
	if (output->workspace != NULL) {
		set_visible(output->workspace, false);
		output->workspace->output = NULL;
		output->workspace = NULL;
	}
}

struct tw_output *workspace_focused_output(struct tw_server *server) {
	struct tw_output *output = output_at(server, server->cursor->x, server->cursor->y);
	if (output != NULL && output->enabled) {
		return output;
	}
	wl_list_for_each(output, &server->outputs, link) {
		if (output->enabled) {
			return output;
		}
	}
	return NULL;
}

struct tw_workspace *workspace_focused(struct tw_server *server) {
	struct tw_output *output = workspace_focused_output(server);
	return output != NULL ? output->workspace : NULL;
}

void workspaces_finish(struct tw_server *server) {
	struct tw_workspace *ws, *tmp;
	wl_list_for_each_safe(ws, tmp, &server->workspaces, link) {
		wl_list_remove(&ws->link);
		free(ws->name);
		free(ws);
	}
}

/* `workspace next|prev`: the focused output's neighbour in name order, wrapping. */
static struct tw_workspace *neighbour(struct tw_output *output, bool next) {
	struct tw_server *server = output->server;
	struct wl_list *at = &output->workspace->link;
	do {
		at = next ? at->next : at->prev;
		if (at == &server->workspaces) {
			continue;
		}
		struct tw_workspace *ws = wl_container_of(at, ws, link);
		if (ws->output == output || (ws->output == NULL && ws->last_output == output)) {
			return ws;
		}
	} while (at != &output->workspace->link);
	return output->workspace;
}

static char *join_args(int argc, char **argv) {
	size_t len = 1;
	for (int i = 0; i < argc; i++) {
		len += strlen(argv[i]) + 1;
	}
	char *joined = calloc(1, len);
	for (int i = 0; joined != NULL && i < argc; i++) {
		if (i > 0) {
			strcat(joined, " ");
		}
		strcat(joined, argv[i]);
	}
	return joined;
}

struct cmd_result cmd_workspace(struct tw_server *server, int argc, char **argv) {
	if (argc < 1) {
		return cmd_result_new(CMD_INVALID, "Expected `workspace <name>|next|prev`");
	}
	struct tw_output *output = workspace_focused_output(server);
	if (output == NULL || output->workspace == NULL) {
		return cmd_result_new(CMD_FAILURE, "No output shows a workspace");
	}
	if (argc == 1 && (strcmp(argv[0], "next") == 0 || strcmp(argv[0], "prev") == 0)) {
		show(output, neighbour(output, strcmp(argv[0], "next") == 0));
		return cmd_result_new(CMD_SUCCESS, NULL);
	}
	if (strcmp(argv[0], "number") == 0) {
		argc--;
		argv++;
	}
	char *name = join_args(argc, argv);
	if (name == NULL || name[0] == '\0') {
		free(name);
		return cmd_result_new(CMD_INVALID, "Expected `workspace <name>`");
	}
	struct tw_workspace *ws = find(server, name);
	if (ws == NULL) {
		ws = create(server, name);
	}
	free(name);
	if (ws == NULL) {
		return cmd_result_new(CMD_FAILURE, "Out of memory");
	}
	/* A workspace another output shows: that output gets the focus, as in sway. */
	show(ws->output != NULL ? ws->output : output, ws);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

/* `move workspace to output <name>`: the focused output's workspace, windows and all. */
struct cmd_result cmd_move(struct tw_server *server, int argc, char **argv) {
	if (argc > 0 && strcmp(argv[0], "position") == 0) {
		return cmd_move_position(server, argc - 1, argv + 1);
	}
	if (argc != 4 || strcmp(argv[0], "workspace") != 0 || strcmp(argv[1], "to") != 0 ||
			strcmp(argv[2], "output") != 0) {
		return cmd_result_new(CMD_INVALID, "Expected `move workspace to output <name>`");
	}
	struct tw_output *from = workspace_focused_output(server);
	struct tw_output *to = output_by_name(server, argv[3]);
	struct wlr_box from_box, to_box;
	if (to == NULL || !output_get_box(to, &to_box)) {
		return cmd_result_new(CMD_FAILURE, "There is no lit output named '%s'", argv[3]);
	}
	if (from == NULL || from->workspace == NULL || !output_get_box(from, &from_box)) {
		return cmd_result_new(CMD_FAILURE, "No output shows a workspace");
	}
	if (from == to) {
		return cmd_result_new(CMD_SUCCESS, NULL);
	}
	struct tw_workspace *ws = from->workspace;
	from->workspace = NULL;
	ws->output = NULL;
	/* Its windows keep their place on the output. */
	struct tw_toplevel *toplevel;
	wl_list_for_each(toplevel, &server->toplevels, link) {
		if (toplevel->workspace == ws && toplevel->fullscreen_output == NULL) {
			struct wlr_scene_node *node = &toplevel->scene_tree->node;
			wlr_scene_node_set_position(node, node->x + to_box.x - from_box.x,
				node->y + to_box.y - from_box.y);
		} else if (toplevel->workspace == ws) {
			toplevel->fullscreen_output = to;
		}
	}
	show(to, ws);
	wl_list_for_each(toplevel, &server->toplevels, link) {
		toplevel_update_xray(toplevel);
	}
	/* The output it left shows another: one it had, else a new one. */
	workspace_output_added(from);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

/* `focus output <name>`: the pointer goes to the output's middle, as sway warps it. */
struct cmd_result cmd_focus(struct tw_server *server, int argc, char **argv) {
	if (argc != 2 || strcmp(argv[0], "output") != 0) {
		return cmd_result_new(CMD_INVALID, "Expected `focus output <name>`");
	}
	struct tw_output *output = output_by_name(server, argv[1]);
	struct wlr_box box;
	if (output == NULL || !output_get_box(output, &box)) {
		return cmd_result_new(CMD_FAILURE, "There is no lit output named '%s'", argv[1]);
	}
	wlr_cursor_warp(server->cursor, NULL, box.x + box.width / 2.0, box.y + box.height / 2.0);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

/* `rename workspace [<old>] to <new>` */
struct cmd_result cmd_rename(struct tw_server *server, int argc, char **argv) {
	if (argc < 3 || strcmp(argv[0], "workspace") != 0) {
		return cmd_result_new(CMD_INVALID, "Expected `rename workspace [<old>] to <new>`");
	}
	int to = 1;
	while (to < argc && strcmp(argv[to], "to") != 0) {
		to++;
	}
	if (to >= argc - 1) {
		return cmd_result_new(CMD_INVALID, "Expected `rename workspace [<old>] to <new>`");
	}
	char *old_name = to > 1 ? join_args(to - 1, argv + 1) : NULL;
	char *new_name = join_args(argc - to - 1, argv + to + 1);
	struct tw_workspace *ws = old_name != NULL ? find(server, old_name) :
		workspace_focused(server);
	struct cmd_result result;
	if (new_name == NULL || (to > 1 && old_name == NULL)) {
		result = cmd_result_new(CMD_FAILURE, "Out of memory");
	} else if (ws == NULL) {
		result = cmd_result_new(CMD_FAILURE, "There is no workspace with that name");
	} else if (find(server, new_name) != NULL) {
		result = cmd_result_new(CMD_FAILURE, "Workspace '%s' already exists", new_name);
	} else {
		/* veil's settings for the old name follow it, then the output shows the new. */
		veil_scene_rename_workspace(server->veil, ws->name, new_name);
		free(ws->name);
		ws->name = new_name;
		new_name = NULL;
		wl_list_remove(&ws->link);
		struct tw_workspace *at;
		wl_list_for_each(at, &server->workspaces, link) {
			if (strverscmp(at->name, ws->name) > 0) {
				break;
			}
		}
		wl_list_insert(at->link.prev, &ws->link);
		if (ws->output != NULL) {
			veil_scene_output_set_workspace(server->veil, ws->output->wlr_output,
				ws->name);
		}
		result = cmd_result_new(CMD_SUCCESS, NULL);
	}
	free(old_name);
	free(new_name);
	return result;
}

struct json_object *json_describe_workspaces(struct tw_server *server) {
	struct json_object *array = json_object_new_array();
	struct tw_output *focused = workspace_focused_output(server);
	int id = 1000;
	struct tw_workspace *ws;
	wl_list_for_each(ws, &server->workspaces, link) {
		struct json_object *obj = json_object_new_object();
		json_object_object_add(obj, "id", json_object_new_int(id++));
		json_object_object_add(obj, "type", json_object_new_string("workspace"));
		json_object_object_add(obj, "name", json_object_new_string(ws->name));
		/* sway's num: the number the name starts with, else -1. */
		char *end;
		long num = strtol(ws->name, &end, 10);
		json_object_object_add(obj, "num", json_object_new_int(
			end != ws->name && num >= 0 && num <= INT32_MAX ? (int)num : -1));
		struct tw_output *output = ws->output != NULL ? ws->output : ws->last_output;
		json_object_object_add(obj, "output", output != NULL ?
			json_object_new_string(output->wlr_output->name) : NULL);
		json_object_object_add(obj, "visible", json_object_new_boolean(ws->output != NULL));
		json_object_object_add(obj, "focused", json_object_new_boolean(
			ws->output != NULL && ws->output == focused));
		json_object_object_add(obj, "urgent", json_object_new_boolean(false));
		json_object_array_add(array, obj);
	}
	return array;
}
