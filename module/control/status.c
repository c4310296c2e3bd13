/*
 * What an output shows, as one typed state (veil_output_get_state) that the status JSON and the
 * control protocol's events are both written from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <veil/veil.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/control/status.h"
#include "scene/dmabuf_buffer.h"
#include "scene/pixel_buffer.h"
#include "scene/sample_buffer.h"
#include "veil-config.h"
#include "module/show/show.h"
#include "module/state/look_json.h"
#include "module/state/state.h"
#include "module/xray/xray.h"
#include "util/colour_space.h"
#include "util/message.h"

static enum veil_output_kind kind_of(const struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	if (setting == NULL) {
		return VEIL_OUTPUT_NONE;
	}
	if (setting->off) {
		return VEIL_OUTPUT_OFF;
	}
	if (setting->look.mode == VEIL_MODE_SOLID_COLOR) {
		return VEIL_OUTPUT_COLOR;
	}
	if (output->source == NULL) {
		return VEIL_OUTPUT_NONE;
	}
	return output->source->impl->kind == VEIL_SOURCE_VIDEO ?
		VEIL_OUTPUT_VIDEO : VEIL_OUTPUT_IMAGE;
}

/* What a person sees on the output: the wallpaper, a paused one, or nothing. */
static enum veil_output_shown shown_of(const struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	bool shown = output->tree != NULL && output->tree->node.enabled;
	if (setting == NULL || setting->off || !shown) {
		return VEIL_SHOWN_OFF;
	}
	if (output->source == NULL) {
		return VEIL_SHOWN_SHOWN;
	}
	if (output->source->paused || output->source->held) {
		return VEIL_SHOWN_PAUSED;
	}
	return output->viewing ? VEIL_SHOWN_SHOWN : VEIL_SHOWN_HIDDEN;
}

void veil_output_get_state(struct veil_output *output, struct veil_output_state *state) {
	*state = (struct veil_output_state){
		.name = output->output->name,
		.kind = kind_of(output),
		.shown = shown_of(output),
		.nodes = output->n_nodes,
		.frames = output->frames,
		.error = output->error,
		.workspace = output->workspace,
	};
	if (output->transition != NULL) {
		state->has_transition = true;
		state->transition = veil_transition_kind(output->transition);
		state->transition_progress = veil_transition_progress(output->transition);
		state->transition_eased = veil_transition_eased(output->transition);
		state->transition_spec = veil_transition_get_spec(output->transition);
		state->transition_random = veil_transition_is_random(output->transition);
	}
	if (output->pending != NULL && output->pending->source != NULL) {
		state->loading = output->pending->source->path;
	}
	const struct veil_setting *setting = output->setting;
	if (setting != NULL) {
		state->setting = setting->name;
		state->setting_workspace = setting->workspace;
		state->has_mode = !setting->off;
		state->mode = setting->look.mode;
		state->color = setting->look.color & 0xffffff;
	}
	struct veil_source *source = output->source;
	if (source != NULL) {
		state->source = source;
		state->file = source->path;
		state->width = source->width;
		state->height = source->height;
		state->paused = source->paused;
		state->held = source->held;
		state->viewers = source->viewers;
		if (state->error == NULL) {
			state->error = source->error;
		}
		if (source->impl->get_info != NULL) {
			source->impl->get_info(source, &state->info);
		}
	}
}

static const char *const kind_names[] = {
	[VEIL_OUTPUT_NONE] = "none",
	[VEIL_OUTPUT_OFF] = "off",
	[VEIL_OUTPUT_COLOR] = "color",
	[VEIL_OUTPUT_IMAGE] = "image",
	[VEIL_OUTPUT_VIDEO] = "video",
};

static const char *const shown_names[] = {
	[VEIL_SHOWN_OFF] = "off",
	[VEIL_SHOWN_SHOWN] = "shown",
	[VEIL_SHOWN_PAUSED] = "paused",
	[VEIL_SHOWN_HIDDEN] = "hidden",
};

static struct json_object *size_object(int width, int height) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "width", json_object_new_int(width));
	json_object_object_add(obj, "height", json_object_new_int(height));
	return obj;
}

static struct json_object *string_or_null(const char *str) {
	return str != NULL && str[0] != '\0' ? json_object_new_string(str) : NULL;
}

/* An animated image's: what it is, and how much of it is kept decoded. */
static struct json_object *animation_status(const struct veil_source_info *info) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "format", json_object_new_string(info->animation));
	json_object_object_add(obj, "frames", json_object_new_int(info->anim_frames));
	json_object_object_add(obj, "kept", json_object_new_int(info->anim_kept));
	json_object_object_add(obj, "plays", json_object_new_int(info->anim_plays));
	json_object_object_add(obj, "budget_mib", json_object_new_int(info->anim_budget_mib));
	json_object_object_add(obj, "original_size",
		size_object(info->original_width, info->original_height));
	return obj;
}

/* "a b c" -> ["a", "b", "c"] */
static struct json_object *words_array(const char *words) {
	struct json_object *array = json_object_new_array();
	const char *p = words;
	while (*p != '\0') {
		size_t len = strcspn(p, " ");
		if (len > 0) {
			json_object_array_add(array, json_object_new_string_len(p, (int)len));
		}
		p += len + (p[len] == ' ');
	}
	return array;
}

/* What the renderer does with a buffer's colour space: see util/colour_space.h. */
static enum veil_colour_renderer colour_renderer(const struct veil_source *source) {
	struct wlr_renderer *renderer = source->ctx->renderer;
	if (VEIL_WLR_MINOR < 20) {
		return VEIL_COLOUR_RENDERER_NONE;
	}
	return renderer != NULL && wlr_renderer_is_pixman(renderer) ?
		VEIL_COLOUR_RENDERER_PIXMAN : VEIL_COLOUR_RENDERER_APPLIED;
}

/*
 * A video's colour, from its newest frame: nothing for SDR in BT.709's primaries, else what it
 * is and what becomes of it here ("BT.2020 PQ (HDR): given to the renderer as PQ ...").
 */
static struct json_object *video_colour(const struct veil_source *source) {
	struct veil_colour_space space;
	bool yuv;
	if (source->frame == NULL ||
			(!veil_sample_buffer_get_colour_space(source->frame, &space, &yuv) &&
			!veil_dmabuf_buffer_get_colour_space(source->frame, &space, &yuv))) {
		return NULL;
	}
	const char *fate = veil_colour_space_fate(&space, colour_renderer(source));
	if (fate[0] == '\0') {
		return NULL;
	}
	const char *primaries = space.primaries == VEIL_PRIMARIES_BT2020 ? "BT.2020" : "BT.709";
	const char *curve = space.transfer == VEIL_TRANSFER_PQ ? " PQ (HDR)" :
		space.transfer == VEIL_TRANSFER_HLG ? " HLG (HDR)" : " (SDR)";
	char *text = veil_message("%s%s: %s", primaries, curve, fate);
	struct json_object *obj = string_or_null(text);
	free(text);
	return obj;
}

/*
 * A still's colour: what its decoder did ("sP3 (ICC) -> sRGB"), and for an HDR still kept as
 * decoded ("BT.2020 PQ (CICP): HDR") what becomes of it here, as for a video.
 */
static struct json_object *still_colour(const struct veil_source *source, const char *said) {
	struct veil_colour_space space;
	if (source->frame == NULL || !veil_pixel_buffer_get_colour_space(source->frame, &space) ||
			space.transfer == VEIL_TRANSFER_SDR) {
		return json_object_new_string(said);
	}
	char *text = veil_message("%s, %s", said,
		veil_colour_space_fate(&space, colour_renderer(source)));
	struct json_object *obj = string_or_null(text);
	free(text);
	return obj;
}

/* The source's own fields: a still's decoder and size, a video's decoder and counters. */
static struct json_object *source_status(const struct veil_output_state *state) {
	const struct veil_source_info *info = &state->info;
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "outputs", json_object_new_int(state->viewers));
	if (info->counts) {
		struct json_object *colour = video_colour(state->source);
		if (colour != NULL) {
			json_object_object_add(obj, "colour", colour);
		}
		json_object_object_add(obj, "decoder", string_or_null(info->decoder));
		json_object_object_add(obj, "hardware", json_object_new_boolean(info->hardware));
		json_object_object_add(obj, "frames", json_object_new_uint64(info->frames));
		json_object_object_add(obj, "dropped", json_object_new_uint64(info->dropped));
		json_object_object_add(obj, "loops", json_object_new_uint64(info->loops));
		json_object_object_add(obj, "wakeups", json_object_new_uint64(info->wakeups));
		json_object_object_add(obj, "copies", json_object_new_uint64(info->copies));
	} else if (info->decoder[0] != '\0') {
		json_object_object_add(obj, "decoder", json_object_new_string(info->decoder));
		json_object_object_add(obj, "original_size",
			size_object(info->original_width, info->original_height));
		if (info->colour[0] != '\0') {
			json_object_object_add(obj, "colour",
				still_colour(state->source, info->colour));
		}
	}
	/* Where it is decoded, and why in the compositor's process when it was not asked for. */
	const char *reason = state->source->ctx->in_process_reason;
	if (state->source->isolated) {
		json_object_object_add(obj, "process", json_object_new_string("veil-decoder"));
	} else if (reason != NULL) {
		char *text = veil_message("in process (%s)", reason);
		json_object_object_add(obj, "process", string_or_null(text));
		free(text);
	} else {
		json_object_object_add(obj, "process", json_object_new_string("in process"));
	}
	if (info->animation != NULL) {
		json_object_object_add(obj, "animation", animation_status(info));
	}
	if (info->state != NULL) {
		json_object_object_add(obj, "state", json_object_new_string(info->state));
	}
	if (info->pipeline[0] != '\0') {
		json_object_object_add(obj, "pipeline", json_object_new_string(info->pipeline));
	}
	if (info->format[0] != '\0') {
		json_object_object_add(obj, "format", json_object_new_string(info->format));
	}
	if (info->elements[0] != '\0') {
		json_object_object_add(obj, "elements", words_array(info->elements));
	}
	return obj;
}

/* A wipe's or a slide's edge ("from"), a grow's centre ("at", as its words say it). */
static void add_transition_words(struct json_object *obj,
		const struct veil_transition_spec *spec, bool random) {
	if (spec == NULL) {
		return;
	}
	if (spec->kind == VEIL_TRANSITION_WIPE || spec->kind == VEIL_TRANSITION_SLIDE) {
		json_object_object_add(obj, "from",
			json_object_new_string(veil_side_name(spec->side)));
	}
	if (spec->kind == VEIL_TRANSITION_GROW) {
		char at[32];
		snprintf(at, sizeof(at), "%d%s %d%s", spec->at_x.value,
			spec->at_x.percent ? "%" : "", spec->at_y.value, spec->at_y.percent ? "%" : "");
		json_object_object_add(obj, "at", json_object_new_string(at));
	}
	char curve[96];
	veil_ease_format(&spec->ease, curve, sizeof(curve));
	json_object_object_add(obj, "ease", json_object_new_string(curve));
	/* `transition random` picked the kind above for this change. */
	json_object_object_add(obj, "random", json_object_new_boolean(random));
}

/*
 * The dominant colours of what is shown (util/palette.h), most pixels first: a picture's once
 * computed, a colour setting's colour; null otherwise.
 */
static struct json_object *palette_status(const struct veil_output_state *state) {
	struct veil_palette palette = {0};
	if (state->kind == VEIL_OUTPUT_COLOR) {
		palette.n = 1;
		palette.colors[0] = state->color;
	} else if (state->source != NULL) {
		palette = state->source->palette;
	}
	if (palette.n == 0) {
		return NULL;
	}
	struct json_object *array = json_object_new_array();
	for (int i = 0; i < palette.n; i++) {
		char color[8];
		snprintf(color, sizeof(color), "#%06x", palette.colors[i] & 0xffffff);
		json_object_array_add(array, json_object_new_string(color));
	}
	return array;
}

struct json_object *veil_output_status(struct veil_output *output) {
	struct veil_output_state state;
	veil_output_get_state(output, &state);
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "kind", json_object_new_string(kind_names[state.kind]));
	/* While a new wallpaper loads, the rest of the object says what is shown meanwhile. */
	json_object_object_add(obj, "state", json_object_new_string(state.loading != NULL ?
		"loading" : shown_names[state.shown]));
	json_object_object_add(obj, "loading", string_or_null(state.loading));
	json_object_object_add(obj, "setting", string_or_null(state.setting));
	/* The workspace shown, the one whose setting shows (or null), every workspace's setting. */
	json_object_object_add(obj, "workspace", string_or_null(state.workspace));
	json_object_object_add(obj, "setting_workspace", string_or_null(state.setting_workspace));
	json_object_object_add(obj, "workspaces", veil_workspace_status(output));
	if (state.source != NULL) {
		json_object_object_add(obj, "file", json_object_new_string(state.file));
		json_object_object_add(obj, "source_size", size_object(state.width, state.height));
		/* Why it is paused: the user's command, or the battery policy; false: it is not. */
		json_object_object_add(obj, "paused", state.paused ?
			json_object_new_string("command") : state.held ?
			json_object_new_string("battery") : json_object_new_boolean(false));
		json_object_object_add(obj, "fps", state.source->fps > 0 ?
			json_object_new_int(state.source->fps) : NULL);
		/* A video's place in its stream (the frame shown), null while unknown or a still. */
		int64_t position = veil_source_get_position_ms(state.source);
		json_object_object_add(obj, "position_ms", position >= 0 ?
			json_object_new_int64(position) : NULL);
		json_object_object_add(obj, "source", source_status(&state));
	}
	json_object_object_add(obj, "palette", palette_status(&state));
	json_object_object_add(obj, "nodes", json_object_new_int(state.nodes));
	json_object_object_add(obj, "frames", json_object_new_uint64(state.frames));
	json_object_object_add(obj, "error", string_or_null(state.error));
	struct json_object *transition = NULL;
	if (state.has_transition) {
		transition = json_object_new_object();
		json_object_object_add(transition, "kind",
			json_object_new_string(veil_transition_name(state.transition)));
		json_object_object_add(transition, "progress",
			json_object_new_double(state.transition_progress));
		json_object_object_add(transition, "eased",
			json_object_new_double(state.transition_eased));
		add_transition_words(transition, state.transition_spec,
			state.transition_random);
	}
	json_object_object_add(obj, "transition", transition);
	struct json_object *span = veil_span_status(output);
	if (span != NULL) {
		json_object_object_add(obj, "span", span);
	}
	json_object_object_add(obj, "package", veil_package_status(output));
	veil_show_status(output, obj);
	veil_state_status(output, obj);
	/*
	 * The shown setting's look (mode and colour where a setting shows); `location` the
	 * setting's, else the compositor's (null: none).
	 */
	const struct veil_setting *setting = output->setting;
	struct veil_look look = setting != NULL ? setting->look : (struct veil_look){0};
	if (!look.has_location && output->scene->has_location) {
		look.has_location = true;
		look.latitude = output->scene->latitude;
		look.longitude = output->scene->longitude;
	}
	veil_look_to_json(&look, state.has_mode ? VEIL_LOOK_JSON_STATUS :
		VEIL_LOOK_JSON_STATUS_UNSET, obj);
	/* `veil scheme`: the whole scene's; a setting with `dark` shows its second picture. */
	json_object_object_add(obj, "scheme",
		json_object_new_string(output->scene->dark ? "dark" : "light"));
	json_object_object_add(obj, "xray", veil_xray_status(output->scene, output->output));
	return obj;
}

static char *to_string(struct json_object *obj) {
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	char *copy = text != NULL ? strdup(text) : NULL;
	json_object_put(obj);
	return copy;
}

char *veil_scene_status_json(struct veil_scene *scene, const char *output_name) {
	veil_scene_assert_thread(scene);
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
