/*
 * Inside module/xray/: the structs xray.c (settings, nodes, the room) and xray_output.c (each
 * output's blurred picture) share, and what each calls of the other. Private to module/xray/.
 */
#ifndef VEIL_MODULE_XRAY_IMPL_H
#define VEIL_MODULE_XRAY_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/box.h>
#include "module/core/scene.h"
#include "module/xray/xray_picture.h"

struct wlr_output;
struct wlr_buffer;
struct wlr_scene_tree;
struct wlr_scene_buffer;

/* What an output's picture is made of: compared at each of its commits. */
struct look {
	int n_pieces;
	struct veil_piece pieces[VEIL_XRAY_MAX_PIECES];
	bool fill;
	uint32_t color;
	int fill_width, fill_height;
	int logical_width, logical_height;
	float scale;
	int blur;
	bool full; /* made at the output's logical size: the renderer rounds source boxes */
};

struct xray_job;

/* The blurred picture of one wlr_output, shared by its nodes. */
struct xray_output {
	struct veil_xray_room *room;
	struct wlr_output *output;
	struct wl_list link; /* veil_xray_room.outputs */
	struct wl_list nodes; /* veil_xray.link */
	struct wlr_buffer *picture; /* locked; NULL until the first is made */
	struct look look; /* what picture (or the running job) is of */
	bool has_look;
	int logical_width, logical_height; /* what picture covers */
	int blurred_width, blurred_height; /* the size it was blurred at (before a scale-up) */
	struct xray_job *job; /* running, NULL for none */
	struct timespec started; /* the last job's start */
	struct wl_event_source *timer; /* the next job, when no commit comes */
	bool timer_armed;
	uint64_t blurs;
	double worker_ms; /* the last job's time on the worker */
	char *left_out; /* why the last job left a frame out (a GPU's layout), or NULL */
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct veil_xray_room {
	struct veil_scene *scene;
	struct wl_list settings; /* xray_setting.base.link */
	struct wl_list outputs; /* xray_output.link */
	struct wl_list orphans; /* veil_xray.link: nodes without an output */
};

struct veil_xray {
	struct veil_scene *scene;
	struct xray_output *out; /* NULL: no output, or the scene ended */
	struct wl_list link; /* out->nodes, or room->orphans */
	struct wlr_scene_tree *tree; /* ours, in the compositor's parent */
	struct wlr_scene_buffer *buffer;
	bool has_box;
	struct wlr_box box;
	struct wl_listener tree_destroy;
	struct wl_listener outputs_update;
};

/* xray.c: the settings that apply to an output (its own, else "*"'s). */
bool veil_xray_output_on(struct veil_xray_room *room, struct wlr_output *output);
int veil_xray_output_blur(struct veil_xray_room *room, struct wlr_output *output);
/* xray.c: shows the node's part of its output's picture, or nothing; every node of out. */
void veil_xray_node_place(struct veil_xray *xray);
void veil_xray_place_all(struct xray_output *out);

/* xray_output.c: makes a new picture when what the output shows changed and a node wants it. */
void veil_xray_refresh(struct xray_output *out);
/* xray_output.c: lets the picture go (xray off); the nodes show nothing. */
void veil_xray_forget_picture(struct xray_output *out);
/* xray_output.c: the output's shared picture, found, made when its first node comes, freed. */
struct xray_output *veil_xray_out_find(struct veil_xray_room *room, struct wlr_output *output);
struct xray_output *veil_xray_out_get(struct veil_xray_room *room, struct wlr_output *output);
void veil_xray_out_destroy(struct xray_output *out);
/* xray_output.c: the last node of an output went: nothing is kept, nothing listens. */
void veil_xray_out_release(struct xray_output *out);

#endif
