#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <veil/veil.h>
#include "module/scene.h"

static const char *kind_name(const struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	if (setting == NULL) {
		return "none";
	}
	if (setting->off) {
		return "off";
	}
	if (setting->mode == VEIL_MODE_SOLID_COLOR) {
		return "color";
	}
	if (output->source == NULL) {
		return "none";
	}
	return output->source->impl->kind == VEIL_SOURCE_VIDEO ? "video" : "image";
}

/* What a person sees on the output: the wallpaper, a paused one, or nothing. */
const char *veil_output_shown_state(const struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	bool shown = output->tree != NULL && output->tree->node.enabled;
	if (setting == NULL || setting->off || !shown) {
		return "off";
	}
	if (output->source == NULL) {
		return "shown";
	}
	if (output->source->paused) {
		return "paused";
	}
	return output->viewing ? "shown" : "hidden";
}

static struct json_object *size_object(int width, int height) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "width", json_object_new_int(width));
	json_object_object_add(obj, "height", json_object_new_int(height));
	return obj;
}

struct json_object *veil_output_status(struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "kind", json_object_new_string(kind_name(output)));
	/* While a new wallpaper loads, the rest of the object says what is shown meanwhile. */
	json_object_object_add(obj, "state", json_object_new_string(output->pending != NULL ?
		"loading" : veil_output_shown_state(output)));
	struct veil_source *pending = output->pending != NULL ? output->pending->source : NULL;
	json_object_object_add(obj, "loading",
		pending != NULL ? json_object_new_string(pending->path) : NULL);
	json_object_object_add(obj, "setting",
		setting != NULL ? json_object_new_string(setting->name) : NULL);

	if (setting != NULL && !setting->off) {
		char color[8];
		snprintf(color, sizeof(color), "#%06x", setting->color & 0xffffff);
		json_object_object_add(obj, "mode",
			json_object_new_string(veil_mode_name(setting->mode)));
		json_object_object_add(obj, "color", json_object_new_string(color));
	}

	struct veil_source *source = output->source;
	const char *error = output->error;
	if (source != NULL) {
		json_object_object_add(obj, "file", json_object_new_string(source->path));
		json_object_object_add(obj, "source_size",
			size_object(source->width, source->height));
		json_object_object_add(obj, "paused", json_object_new_boolean(source->paused));
		if (error == NULL) {
			error = source->error;
		}
		struct json_object *src = json_object_new_object();
		json_object_object_add(src, "outputs", json_object_new_int(source->viewers));
		if (source->impl->add_status != NULL) {
			source->impl->add_status(source, src);
		}
		json_object_object_add(obj, "source", src);
	}
	json_object_object_add(obj, "nodes", json_object_new_int(output->n_nodes));
	json_object_object_add(obj, "frames", json_object_new_uint64(output->frames));
	json_object_object_add(obj, "error", error != NULL ? json_object_new_string(error) : NULL);
	return obj;
}

static char *to_string(struct json_object *obj) {
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	char *copy = text != NULL ? strdup(text) : NULL;
	json_object_put(obj);
	return copy;
}

char *veil_scene_status_json(struct veil_scene *scene, const char *output_name) {
	if (scene == NULL) {
		return NULL;
	}
	if (output_name != NULL) {
		struct veil_output *output = veil_output_find_name(scene, output_name);
		return output != NULL ? to_string(veil_output_status(output)) : NULL;
	}
	struct json_object *all = json_object_new_object();
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		json_object_object_add(all, output->output->name, veil_output_status(output));
	}
	return to_string(all);
}
