/* The replies to GET_OUTPUTS and GET_VERSION, with sway's field names and meanings. */
#include <json.h>
#include <stdlib.h>
#include <veil/veil.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output.h>
#include "compat.h"
#include "tinywl.h"

/* What swaymsg and i3 clients see as our version: the sway release whose IPC we speak. */
#define SWAY_IPC_MAJOR 1
#define SWAY_IPC_MINOR 12
#define SWAY_IPC_PATCH 0

static const char *subpixel_name(enum wl_output_subpixel subpixel) {
	switch (subpixel) {
	case WL_OUTPUT_SUBPIXEL_UNKNOWN:
		return "unknown";
	case WL_OUTPUT_SUBPIXEL_NONE:
		return "none";
	case WL_OUTPUT_SUBPIXEL_HORIZONTAL_RGB:
		return "rgb";
	case WL_OUTPUT_SUBPIXEL_HORIZONTAL_BGR:
		return "bgr";
	case WL_OUTPUT_SUBPIXEL_VERTICAL_RGB:
		return "vrgb";
	case WL_OUTPUT_SUBPIXEL_VERTICAL_BGR:
		return "vbgr";
	}
	return "unknown";
}

/* sway names rotations clockwise; wl_output counts them counter-clockwise. */
static const char *transform_name(enum wl_output_transform transform) {
	switch (transform) {
	case WL_OUTPUT_TRANSFORM_NORMAL:
		return "normal";
	case WL_OUTPUT_TRANSFORM_90:
		return "270";
	case WL_OUTPUT_TRANSFORM_180:
		return "180";
	case WL_OUTPUT_TRANSFORM_270:
		return "90";
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		return "flipped";
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		return "flipped-270";
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		return "flipped-180";
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		return "flipped-90";
	}
	return "normal";
}

static struct json_object *describe_mode(int width, int height, int refresh) {
	struct json_object *mode = json_object_new_object();
	json_object_object_add(mode, "width", json_object_new_int(width));
	json_object_object_add(mode, "height", json_object_new_int(height));
	json_object_object_add(mode, "refresh", json_object_new_int(refresh));
	return mode;
}

static struct json_object *describe_rect(const struct wlr_box *box) {
	struct json_object *rect = json_object_new_object();
	json_object_object_add(rect, "x", json_object_new_int(box->x));
	json_object_object_add(rect, "y", json_object_new_int(box->y));
	json_object_object_add(rect, "width", json_object_new_int(box->width));
	json_object_object_add(rect, "height", json_object_new_int(box->height));
	return rect;
}

static const char *or_unknown(const char *text) {
	return text != NULL ? text : "Unknown";
}

/* veil's own view of the output: what it shows, whether a frame is up, errors. */
static struct json_object *describe_veil(struct tw_server *server, const char *name) {
	if (server->veil == NULL) {
		return NULL;
	}
	char *text = veil_scene_status_json(server->veil, name);
	if (text == NULL) {
		return NULL;
	}
	struct json_object *status = json_tokener_parse(text);
	free(text);
	return status;
}

static struct json_object *describe_output(struct tw_output *output, int id, bool focused) {
	struct wlr_output *wlr_output = output->wlr_output;
	struct json_object *object = json_object_new_object();
	if (object == NULL) {
		return NULL;
	}

	json_object_object_add(object, "id", json_object_new_int(id));
	json_object_object_add(object, "type", json_object_new_string("output"));
	json_object_object_add(object, "name", json_object_new_string(wlr_output->name));
	json_object_object_add(object, "make", json_object_new_string(or_unknown(wlr_output->make)));
	json_object_object_add(object, "model",
		json_object_new_string(or_unknown(wlr_output->model)));
	json_object_object_add(object, "serial",
		json_object_new_string(or_unknown(wlr_output->serial)));
	json_object_object_add(object, "non_desktop", json_object_new_boolean(false));
	json_object_object_add(object, "active", json_object_new_boolean(output->enabled));
	bool power = output->enabled && wlr_output->enabled;
	json_object_object_add(object, "power", json_object_new_boolean(power));
	json_object_object_add(object, "dpms", json_object_new_boolean(power));
	json_object_object_add(object, "primary", json_object_new_boolean(false));
	json_object_object_add(object, "layout", json_object_new_string("output"));
	json_object_object_add(object, "orientation", json_object_new_string("none"));
	json_object_object_add(object, "scale", json_object_new_double(wlr_output->scale));
	json_object_object_add(object, "scale_filter", json_object_new_string("linear"));
	json_object_object_add(object, "subpixel_hinting",
		json_object_new_string(subpixel_name(wlr_output->subpixel)));
	json_object_object_add(object, "transform",
		json_object_new_string(transform_name(wlr_output->transform)));
	json_object_object_add(object, "current_workspace", NULL);

	struct json_object *modes = json_object_new_array();
	struct wlr_output_mode *mode;
	wl_list_for_each(mode, &wlr_output->modes, link) {
		json_object_array_add(modes, describe_mode(mode->width, mode->height, mode->refresh));
	}
	json_object_object_add(object, "modes", modes);
	/* Headless outputs have no mode list: their current mode is a custom one. */
	json_object_object_add(object, "current_mode",
		describe_mode(wlr_output->width, wlr_output->height, wlr_output->refresh));

	struct wlr_box box;
	output_get_box(output, &box);
	json_object_object_add(object, "rect", describe_rect(&box));
	json_object_object_add(object, "focused", json_object_new_boolean(focused));
	json_object_object_add(object, "adaptive_sync_status", json_object_new_string(
		wlr_output->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED ?
		"enabled" : "disabled"));
	json_object_object_add(object, "max_render_time", json_object_new_int(0));
	json_object_object_add(object, "allow_tearing", json_object_new_boolean(false));
	json_object_object_add(object, "hdr", json_object_new_boolean(false));
	struct json_object *features = json_object_new_object();
	json_object_object_add(features, "adaptive_sync",
		json_object_new_boolean(wlr_output->adaptive_sync_supported));
	json_object_object_add(features, "hdr", json_object_new_boolean(false));
	json_object_object_add(object, "features", features);

	json_object_object_add(object, "veil",
		describe_veil(output->server, wlr_output->name));
	return object;
}

struct json_object *json_describe_outputs(struct tw_server *server) {
	struct json_object *array = json_object_new_array();
	if (array == NULL) {
		return NULL;
	}
	/* sway's focused output holds the focused window; ours is the one under the pointer. */
	struct tw_output *focused = output_at(server, server->cursor->x, server->cursor->y);
	int id = 1;
	struct tw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		json_object_array_add(array, describe_output(output, id++, output == focused));
	}
	return array;
}

struct json_object *json_describe_version(struct tw_server *server) {
	struct json_object *version = json_object_new_object();
	if (version == NULL) {
		return NULL;
	}
	json_object_object_add(version, "human_readable",
		json_object_new_string("veil-tinywl " VEIL_VERSION));
	json_object_object_add(version, "variant", json_object_new_string("veil-tinywl"));
	json_object_object_add(version, "major", json_object_new_int(SWAY_IPC_MAJOR));
	json_object_object_add(version, "minor", json_object_new_int(SWAY_IPC_MINOR));
	json_object_object_add(version, "patch", json_object_new_int(SWAY_IPC_PATCH));
	json_object_object_add(version, "loaded_config_file_name", server->config_path != NULL ?
		json_object_new_string(server->config_path) : NULL);
	return version;
}
