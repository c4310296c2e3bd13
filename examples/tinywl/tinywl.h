/*
 * veil-tinywl: a small scene-graph compositor that shows how a wlroots compositor hands its
 * outputs to veil. Each output gets a background tree below the windows; veil fills it.
 */
#ifndef TINYWL_TINYWL_H
#define TINYWL_TINYWL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/util/box.h>
#include <veil/veil.h>

struct json_object;
struct wlr_output;
struct wlr_surface;
struct wlr_xdg_toplevel;

/* Which renderer veil-tinywl makes (--renderer). */
enum tw_renderer_kind {
	TW_RENDERER_AUTO, // wlr_renderer_autocreate(): WLR_RENDERER decides
	TW_RENDERER_PIXMAN,
	TW_RENDERER_IMPORT, // tests/renderer's importing renderer (built with the tests only)
};

struct tw_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	enum tw_renderer_kind renderer_kind;
	struct veil_scene_options veil_options; /* from the command line */
	struct wlr_compositor *compositor;
	struct wlr_linux_dmabuf_v1 *linux_dmabuf;

	struct wlr_scene *scene;
	struct wlr_scene_output_layout *scene_layout;
	/* Stacking order, bottom to top: wallpapers, windows, fullscreen windows. */
	struct wlr_scene_tree *background_layer;
	struct wlr_scene_tree *window_layer;
	struct wlr_scene_tree *fullscreen_layer;

	struct veil_scene *veil;
	struct wlr_security_context_manager_v1 *security_context;

	struct wlr_output_layout *output_layout;
	struct wl_list outputs; // tw_output.link
	struct wl_listener new_output;
	struct wl_listener layout_change;
	bool outputs_ready; // the two listeners above are in place
	bool started; // the backend has started: new outputs are laid out at once

	struct wl_list workspaces; // tw_workspace.link, in strverscmp() order of names

	/* --xray: an xray node under each window (veil_xray_create()). */
	bool xray;
	struct wlr_xdg_shell *xdg_shell;
	struct wl_list toplevels; // tw_toplevel.link
	struct wl_listener new_xdg_toplevel;
	struct wl_listener new_xdg_popup;

	struct wlr_seat *seat;
	struct wl_list keyboards; // tw_keyboard.link
	struct wl_listener new_input;
	struct wl_listener request_cursor;
	struct wl_listener pointer_focus_change;
	struct wl_listener request_set_selection;

	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *cursor_mgr;
	struct wl_listener cursor_motion;
	struct wl_listener cursor_motion_absolute;
	struct wl_listener cursor_button;
	struct wl_listener cursor_axis;
	struct wl_listener cursor_frame;
	bool input_ready; // the seat and cursor listeners are in place

	struct tw_ipc *ipc;
	const char *wayland_socket;
	char *config_path; // absolute path of -c, or NULL
	char *config_text; // its contents, for GET_CONFIG
	bool terminating;

	struct wl_event_source *sigint;
	struct wl_event_source *sigterm;
	struct wl_event_source *sigchld;
	struct wl_event_source *sigusr1;
};

struct tw_output {
	struct wl_list link; // tw_server.outputs
	struct tw_server *server;
	struct wlr_output *wlr_output;
	struct wlr_scene_output *scene_output;
	/* Its origin follows the output's position in the layout; veil draws into it. */
	struct wlr_scene_tree *background;

	/* What sway calls "active": the output is in the layout. Power is wlr_output->enabled. */
	bool enabled;
	bool power;
	/* A position set by a command; else the layout places the output after the others. */
	bool has_position;
	int x, y;
	/* A mode asked for while the output was off, set when it is lit again. */
	bool pending_mode;
	bool mode_custom;
	int mode_width, mode_height, mode_refresh; // refresh in mHz, 0 for the default
	struct tw_workspace *workspace; // shown, NULL while the output is off

	struct wl_listener frame;
	struct wl_listener request_state;
	struct wl_listener destroy;
};

/* A workspace: its windows' trees, enabled while an output shows it. */
struct tw_workspace {
	struct wl_list link; // tw_server.workspaces
	struct tw_server *server;
	char *name;
	struct tw_output *output; // showing it, or NULL
	struct tw_output *last_output; // where it belongs while hidden (NULL: nowhere yet)
	struct wlr_scene_tree *windows; // in the window layer
	struct wlr_scene_tree *fullscreen; // in the fullscreen layer
};

struct tw_toplevel {
	struct wl_list link; // tw_server.toplevels
	struct tw_server *server;
	struct tw_workspace *workspace; // where it opened; NULL when no output showed one
	struct wlr_xdg_toplevel *xdg_toplevel;
	struct wlr_scene_tree *scene_tree;
	/* The output the toplevel covers while fullscreen, else NULL. */
	struct tw_output *fullscreen_output;
	int saved_x, saved_y; // position before going fullscreen
	/* --xray: the blurred wallpaper under the window, in its tree below the surface. */
	struct veil_xray *xray;

	struct wl_listener map;
	struct wl_listener commit;
	struct wl_listener destroy;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
};

/* server.c */
/* Creates everything but the sockets; on failure, server_finish() releases what was made. */
bool server_init(struct tw_server *server);
/* Destroys clients, veil, outputs and the display, in the order wlroots needs. */
void server_finish(struct tw_server *server);
/* Leaves the event loop, also when called before it runs. */
void server_terminate(struct tw_server *server);
/* Creates an output on the headless (or nested) backend, as sway's create_output does. */
bool server_create_output(struct tw_server *server);
/* Whether this build has the importing test renderer (veil-tinywl built with the tests). */
bool server_has_import_renderer(void);
#if TINYWL_HAVE_FAKE_CLOCK
/* fake_clock.c (built with the tests): the wall clock veil's timed backgrounds follow. */
bool fake_clock_parse(const char *word, double *seconds);
/* Sets the clock (before the scene exists: for it, once it does); a move tells veil. */
void fake_clock_set(struct tw_server *server, double seconds);
/* Hands the clock set before to the new scene. */
void fake_clock_attach(struct tw_server *server);
#endif
/*
 * Replaces the renderer and the allocator while running, as sway does after a GPU reset: import
 * becomes pixman, anything else import (pixman when the importing renderer is not built).
 */
bool server_swap_renderer(struct tw_server *server);

/* output.c */
void output_handle_new(struct wl_listener *listener, void *data);
void output_handle_layout_change(struct wl_listener *listener, void *data);
/* Lays out the outputs the backend made while starting, left to right by name. */
void outputs_start(struct tw_server *server);
struct tw_output *output_by_name(struct tw_server *server, const char *name);
struct tw_output *output_at(struct tw_server *server, double lx, double ly);
/* The output's box in layout coordinates; false (and an empty box) when it is not laid out. */
bool output_get_box(struct tw_output *output, struct wlr_box *box);
/* Puts the output in the layout (at its position, or automatically) or takes it out. */
void output_set_enabled_in_layout(struct tw_output *output, bool enabled);

/* toplevel.c */
void toplevel_handle_new(struct wl_listener *listener, void *data);
void popup_handle_new(struct wl_listener *listener, void *data);
void toplevel_focus(struct tw_toplevel *toplevel);
struct tw_toplevel *toplevel_at(struct tw_server *server, double lx, double ly,
	struct wlr_surface **surface, double *sx, double *sy);
/* Tells the toplevel's xray node (--xray) the output and box it covers now. */
void toplevel_update_xray(struct tw_toplevel *toplevel);
/* `move position X Y`: the focused window's top left to (X, Y) in layout coordinates. */
struct cmd_result;
struct cmd_result cmd_move_position(struct tw_server *server, int argc, char **argv);
/* Keeps fullscreen toplevels on their output after the layout changed. */
void toplevels_arrange(struct tw_server *server);
/* Returns fullscreen toplevels of a disappearing output to their windowed state. */
void toplevels_leave_output(struct tw_server *server, struct tw_output *output);

/* workspace.c */
/* Gives a lit output a workspace (the one it showed before, else a new numbered one). */
void workspace_output_added(struct tw_output *output);
/* The output goes dark or away: its workspace is hidden. */
void workspace_output_removed(struct tw_output *output);
/* The output under the pointer, else the first lit one; NULL when none is lit. */
struct tw_output *workspace_focused_output(struct tw_server *server);
struct tw_workspace *workspace_focused(struct tw_server *server);
void workspaces_finish(struct tw_server *server);
struct cmd_result;
struct cmd_result cmd_workspace(struct tw_server *server, int argc, char **argv);
struct cmd_result cmd_rename(struct tw_server *server, int argc, char **argv);
struct cmd_result cmd_focus(struct tw_server *server, int argc, char **argv);
struct cmd_result cmd_move(struct tw_server *server, int argc, char **argv);
struct json_object *json_describe_workspaces(struct tw_server *server);

/* input.c */
bool input_init(struct tw_server *server);
/* Removes the seat's and the cursor's listeners. */
void input_finish(struct tw_server *server);
/* Destroys the cursor, once the backend (and every pointer on it) is gone. */
void input_destroy_cursor(struct tw_server *server);

/* ipc.c */
struct tw_ipc *ipc_create(struct tw_server *server);
const char *ipc_get_path(struct tw_ipc *ipc);
void ipc_destroy(struct tw_ipc *ipc);

/* commands.c: sway's command language, limited to what a wallpaper test bed needs. */
enum cmd_status {
	CMD_SUCCESS,
	CMD_FAILURE, // the command was understood but could not be done
	CMD_INVALID, // the command could not be parsed; sway stops at such a command
};

struct cmd_result {
	enum cmd_status status;
	char *error; // NULL on success
};

/* Runs a RUN_COMMAND payload (commands separated by ';', ',' or newlines). A JSON array. */
struct json_object *commands_run_ipc(struct tw_server *server, const char *text);
/* Runs one configuration line; quotes are stripped and escapes resolved as in a sway config. */
struct cmd_result commands_run_line(struct tw_server *server, const char *line);
/* Runs a config file; prints what failed to stderr and returns false when anything did. */
bool commands_run_file(struct tw_server *server, const char *path);
struct cmd_result cmd_result_new(enum cmd_status status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* output_command.c */
struct cmd_result cmd_output(struct tw_server *server, int argc, char **argv);

/* json.c */
struct json_object *json_describe_outputs(struct tw_server *server);
struct json_object *json_describe_version(struct tw_server *server);

#endif
