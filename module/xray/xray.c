/*
 * xray: the blurred wallpaper behind translucent windows (include/veil/veil.h).
 *
 * Settings per output name or "*", resolved as policies are (the output's own, else "*"'s). Per
 * wlr_output with xray nodes, one blurred picture (a scene/pixel_buffer.c buffer) that every
 * node of that output shows a part of: a node is a tree of ours in the compositor's parent
 * holding a wlr_scene_buffer whose source box is the node's box in the picture's pixels, so a
 * move or a resize is a new source box and size, in the compositor's next frame, no blur.
 *
 * This file holds the settings, the nodes, the public functions, the room's lifecycle, the
 * status and the state; xray_output.c what makes and keeps each output's picture.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <json-c/json.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <veil/veil.h>
#include "module/core/per_output.h"
#include "module/core/scene.h"
#include "module/words/command.h"
#include "module/xray/xray.h"
#include "module/xray/xray_impl.h"
#include "module/xray/xray_picture.h"
#include "util/blur.h"

/* The words of a name's xray setting (veil_per_output.given). */
enum {
	XRAY_ON = 1 << 0,
	XRAY_BLUR = 1 << 1,
};

struct xray_setting {
	struct veil_per_output base; /* first; in veil_xray_room.settings */
	bool on;
	int blur;
};
static_assert(offsetof(struct xray_setting, base) == 0, "the entry comes first");

/* ---- Settings ---- */

/* The setting whose word applies to the output, or NULL. */
static struct xray_setting *resolve(struct veil_xray_room *room, struct wlr_output *output,
		unsigned word) {
	struct veil_per_output *entry = veil_per_output_resolve(&room->settings, output->name, word);
	return entry != NULL ? wl_container_of(entry, (struct xray_setting *)NULL, base) : NULL;
}

bool veil_xray_output_on(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_setting *setting = resolve(room, output, XRAY_ON);
	return setting != NULL && setting->on;
}

int veil_xray_output_blur(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_setting *setting = resolve(room, output, XRAY_BLUR);
	return setting != NULL ? setting->blur : VEIL_BLUR_DEFAULT;
}

/* ---- Nodes ---- */

/*
 * The pointer passes through a node to whatever is below it: the window above it takes its
 * input where its surface does, and where no surface does (outside its input region, a title
 * bar's rounded corner) the compositor finds the window or the wallpaper below, not veil.
 */
static bool refuse_input(struct wlr_scene_buffer *buffer, double *sx, double *sy) {
	return false;
}

/* The node's box cut to the output; false when nothing of it is on the output. */
static bool node_cut(const struct veil_xray *xray, struct wlr_box *cut) {
	if (xray->out == NULL || !xray->has_box || xray->out->picture == NULL) {
		return false;
	}
	struct wlr_box whole = {
		.width = xray->out->logical_width, .height = xray->out->logical_height,
	};
	return wlr_box_intersection(cut, &xray->box, &whole);
}

/* Shows the node's part of its output's picture, or nothing. */
void veil_xray_node_place(struct veil_xray *xray) {
	struct wlr_box cut;
	struct xray_output *out = xray->out;
	if (!node_cut(xray, &cut) || !veil_xray_output_on(out->room, out->output)) {
		wlr_scene_node_set_enabled(&xray->buffer->node, false);
		return;
	}
	if (xray->buffer->buffer != out->picture) {
		wlr_scene_buffer_set_buffer(xray->buffer, out->picture);
	}
	/* The copy has a margin all round (xray_picture.h): the output starts inside it. */
	const int m = VEIL_XRAY_MARGIN;
	double sx = (double)(out->picture->width - 2 * m) / out->logical_width;
	double sy = (double)(out->picture->height - 2 * m) / out->logical_height;
	struct wlr_fbox src = {
		.x = m + cut.x * sx, .y = m + cut.y * sy,
		.width = cut.width * sx, .height = cut.height * sy,
	};
	wlr_scene_buffer_set_source_box(xray->buffer, &src);
	wlr_scene_buffer_set_dest_size(xray->buffer, cut.width, cut.height);
	wlr_scene_node_set_position(&xray->buffer->node, cut.x - xray->box.x, cut.y - xray->box.y);
	wlr_scene_node_set_enabled(&xray->buffer->node, true);
}

void veil_xray_place_all(struct xray_output *out) {
	struct veil_xray *xray;
	wl_list_for_each(xray, &out->nodes, link) {
		veil_xray_node_place(xray);
	}
}

/* ---- The public functions ---- */

static void node_attach(struct veil_xray *xray, struct wlr_output *output) {
	struct veil_xray_room *room = xray->scene != NULL ? xray->scene->xray : NULL;
	struct xray_output *old = xray->out;
	struct xray_output *out = output != NULL && room != NULL ?
		veil_xray_out_get(room, output) : NULL;
	if (out == old && (out != NULL || output == NULL)) {
		return;
	}
	wl_list_remove(&xray->link);
	xray->out = out;
	if (out != NULL) {
		wl_list_insert(&out->nodes, &xray->link);
	} else {
		wl_list_init(&xray->link);
	}
	if (old != NULL) {
		veil_xray_out_release(old);
	}
	if (xray->buffer->buffer != NULL && (out == NULL || out->picture != xray->buffer->buffer)) {
		wlr_scene_buffer_set_buffer(xray->buffer, NULL);
	}
	veil_xray_node_place(xray);
	if (out != NULL) {
		veil_xray_refresh(out);
	}
}

static void handle_tree_destroy(struct wl_listener *listener, void *data) {
	struct veil_xray *xray = wl_container_of(listener, xray, tree_destroy);
	struct xray_output *out = xray->out;
	wl_list_remove(&xray->tree_destroy.link);
	wl_list_remove(&xray->outputs_update.link);
	wl_list_remove(&xray->link);
	free(xray);
	veil_xray_out_release(out);
}

static void handle_outputs_update(struct wl_listener *listener, void *data) {
	struct veil_xray *xray = wl_container_of(listener, xray, outputs_update);
	if (xray->out != NULL) {
		veil_xray_refresh(xray->out);
	}
}

struct veil_xray *veil_xray_create(struct veil_scene *scene, struct wlr_output *output,
		struct wlr_scene_tree *parent) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->xray == NULL || parent == NULL) {
		return NULL;
	}
	struct veil_xray *xray = calloc(1, sizeof(*xray));
	if (xray == NULL) {
		return NULL;
	}
	xray->scene = scene;
	xray->tree = wlr_scene_tree_create(parent);
	if (xray->tree == NULL) {
		goto error;
	}
	xray->buffer = wlr_scene_buffer_create(xray->tree, NULL);
	if (xray->buffer == NULL) {
		wlr_scene_node_destroy(&xray->tree->node);
		goto error;
	}
	wlr_scene_node_set_enabled(&xray->buffer->node, false);
	xray->buffer->point_accepts_input = refuse_input;
	xray->tree_destroy.notify = handle_tree_destroy;
	wl_signal_add(&xray->tree->node.events.destroy, &xray->tree_destroy);
	xray->outputs_update.notify = handle_outputs_update;
	wl_signal_add(&xray->buffer->events.outputs_update, &xray->outputs_update);
	wl_list_insert(&scene->xray->orphans, &xray->link);
	node_attach(xray, output);
	return xray;

error:
	free(xray);
	return NULL;
}

void veil_xray_set_box(struct veil_xray *xray, const struct wlr_box *box) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	xray->has_box = box != NULL && box->width > 0 && box->height > 0;
	xray->box = xray->has_box ? *box : (struct wlr_box){0};
	veil_xray_node_place(xray);
	if (xray->out != NULL) {
		veil_xray_refresh(xray->out);
	}
}

void veil_xray_set_output(struct veil_xray *xray, struct wlr_output *output) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	if (xray->scene == NULL || xray->scene->xray == NULL) {
		output = NULL;
	}
	if (output == NULL) {
		struct xray_output *old = xray->out;
		wl_list_remove(&xray->link);
		xray->out = NULL;
		wl_list_init(&xray->link);
		veil_xray_out_release(old);
		wlr_scene_buffer_set_buffer(xray->buffer, NULL);
		veil_xray_node_place(xray);
		return;
	}
	node_attach(xray, output);
}

struct wlr_scene_node *veil_xray_node(struct veil_xray *xray) {
	return xray != NULL ? &xray->tree->node : NULL;
}

void veil_xray_destroy(struct veil_xray *xray) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	/* handle_tree_destroy() frees it. */
	wlr_scene_node_destroy(&xray->tree->node);
}

/* ---- The room ---- */

bool veil_xray_init(struct veil_scene *scene) {
	struct veil_xray_room *room = calloc(1, sizeof(*room));
	if (room == NULL) {
		return false;
	}
	room->scene = scene;
	wl_list_init(&room->settings);
	wl_list_init(&room->outputs);
	wl_list_init(&room->orphans);
	scene->xray = room;
	return true;
}

void veil_xray_finish(struct veil_scene *scene) {
	struct veil_xray_room *room = scene->xray;
	if (room == NULL) {
		return;
	}
	struct xray_output *out, *tmp_out;
	wl_list_for_each_safe(out, tmp_out, &room->outputs, link) {
		veil_xray_out_destroy(out);
	}
	/* The nodes stay the compositor's; they forget the room. */
	struct veil_xray *xray, *tmp;
	wl_list_for_each_safe(xray, tmp, &room->orphans, link) {
		wl_list_remove(&xray->link);
		wl_list_init(&xray->link);
		xray->scene = NULL;
	}
	veil_per_output_finish(&room->settings);
	free(room);
	scene->xray = NULL;
}

int veil_xray_set(struct veil_scene *scene, const char *name, const struct veil_command *cmd) {
	struct veil_xray_room *room = scene->xray;
	bool on = cmd->kind == VEIL_COMMAND_XRAY;
	struct veil_per_output *entry = veil_per_output_set(&room->settings, name,
		on ? XRAY_ON : XRAY_BLUR, sizeof(struct xray_setting));
	if (entry == NULL) {
		return -ENOMEM;
	}
	struct xray_setting *setting = wl_container_of(entry, setting, base);
	if (on) {
		setting->on = cmd->xray;
	} else {
		setting->blur = cmd->blur;
	}
	struct xray_output *out;
	wl_list_for_each(out, &room->outputs, link) {
		if (!veil_xray_output_on(room, out->output)) {
			/* Off: the copy goes, and is made again (of what shows then) when on. */
			veil_xray_forget_picture(out);
		}
		veil_xray_place_all(out);
		veil_xray_refresh(out);
	}
	return 0;
}

struct json_object *veil_xray_status(struct veil_scene *scene, struct wlr_output *output) {
	struct veil_xray_room *room = scene->xray;
	if (room == NULL) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "on", json_object_new_boolean(veil_xray_output_on(room, output)));
	json_object_object_add(obj, "blur", json_object_new_int(veil_xray_output_blur(room, output)));
	struct xray_output *out = veil_xray_out_find(room, output);
	int nodes = 0, shown = 0;
	if (out != NULL) {
		struct veil_xray *xray;
		wl_list_for_each(xray, &out->nodes, link) {
			nodes++;
			shown += xray->buffer->node.enabled;
		}
	}
	json_object_object_add(obj, "nodes", json_object_new_int(nodes));
	json_object_object_add(obj, "shown", json_object_new_int(shown));
	if (out != NULL && out->picture != NULL) {
		struct json_object *size = json_object_new_array();
		json_object_array_add(size, json_object_new_int(out->blurred_width));
		json_object_array_add(size, json_object_new_int(out->blurred_height));
		json_object_object_add(obj, "size", size);
		int width = out->picture->width - 2 * VEIL_XRAY_MARGIN;
		int height = out->picture->height - 2 * VEIL_XRAY_MARGIN;
		if (width != out->blurred_width || height != out->blurred_height) {
			struct json_object *scaled = json_object_new_array();
			json_object_array_add(scaled, json_object_new_int(width));
			json_object_array_add(scaled, json_object_new_int(height));
			json_object_object_add(obj, "scaled_to", scaled);
		}
	}
	json_object_object_add(obj, "blurs", json_object_new_int64(
		out != NULL ? (int64_t)out->blurs : 0));
	if (out != NULL && out->blurs > 0) {
		json_object_object_add(obj, "worker_ms", json_object_new_double(out->worker_ms));
	}
	if (out != NULL && out->left_out != NULL) {
		json_object_object_add(obj, "left_out", json_object_new_string(out->left_out));
	}
	return obj;
}

struct json_object *veil_xray_state(struct veil_scene *scene) {
	struct json_object *all = json_object_new_object();
	if (scene->xray == NULL) {
		return all;
	}
	struct xray_setting *setting;
	wl_list_for_each_reverse(setting, &scene->xray->settings, base.link) {
		struct json_object *obj = json_object_new_object();
		if (setting->base.given & XRAY_ON) {
			json_object_object_add(obj, "xray", json_object_new_boolean(setting->on));
		}
		if (setting->base.given & XRAY_BLUR) {
			json_object_object_add(obj, "blur", json_object_new_int(setting->blur));
		}
		json_object_object_add(all, setting->base.name, obj);
	}
	return all;
}
