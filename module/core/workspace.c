/*
 * Workspaces: which one each output shows (the compositor says, veil_scene_output_set_workspace),
 * the switch to its picture within that call, and which workspace pictures stay decoded.
 *
 * Settings for a workspace live in the scene's table beside the outputs' own (module/veil.c
 * resolves them). Each keeps its file so that its source can be let go (parked) while no output
 * shows the workspace or is near it, and loaded again when one comes near.
 */
#define _GNU_SOURCE /* strverscmp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "util/message.h"

bool veil_workspace_load(struct veil_scene *scene, struct veil_setting *setting) {
	if (setting->failed) {
		return false;
	}
	if (setting->n_choices > 0) {
		/* A wallpaper package: the output opens the picture it picks (module/core/package.c). */
		return true;
	}
	for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
		if (s->source != NULL || (s->path == NULL && s->fd < 0)) {
			/* Loaded, or a colour (no file). */
			continue;
		}
		int err = 0;
		char *message = NULL;
		struct veil_cover cover = veil_scene_cover(scene, &setting->look);
		if (s->fd >= 0) {
			char *label = strdup(s->label);
			s->source = label != NULL ? veil_source_open_fd(&scene->ctx, s->fd, label,
				s->full_size, setting->look.filter, cover, &err, &message) : NULL;
		} else {
			s->source = veil_source_open(&scene->ctx, s->path, s->full_size,
				setting->look.filter, cover, &err, &message);
		}
		if (s->source == NULL) {
			wlr_log(WLR_ERROR, "veil: workspace '%s': %s", setting->workspace,
				message != NULL ? message : "out of memory");
			free(message);
			setting->failed = true;
			return false;
		}
	}
	return true;
}

static void park(struct veil_setting *setting) {
	for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
		if (s->path == NULL && s->fd < 0) {
			continue;
		}
		/* The last reference cancels a decode still running and frees the frames. */
		veil_source_unref(s->source);
		s->source = NULL;
	}
}

/* Whether a workspace setting is for the output (its own name, or "*"). */
static bool applies(const struct veil_setting *setting, const struct veil_output *output) {
	return setting->workspace != NULL && (strcmp(setting->name, "*") == 0 ||
		strcmp(setting->name, output->output->name) == 0);
}

/* The workspace setting an output would show for ws (its own, else "*"'s), or NULL. */
static struct veil_setting *for_workspace(struct veil_output *output, const char *ws) {
	struct veil_scene *scene = output->scene;
	struct veil_setting *setting = veil_scene_find_setting(scene, output->output->name, ws);
	if (setting == NULL || setting->failed) {
		setting = veil_scene_find_setting(scene, "*", ws);
	}
	return setting != NULL && !setting->failed ? setting : NULL;
}

/*
 * The workspace names of settings for the output just before and after ws in strverscmp()'s
 * order (the order of sway's numbered workspaces): the ones a `workspace next|prev` goes to.
 */
static void neighbours(struct veil_output *output, const char *ws, const char **before,
		const char **after) {
	*before = *after = NULL;
	struct veil_setting *setting;
	wl_list_for_each(setting, &output->scene->settings, link) {
		if (!applies(setting, output) || setting->failed) {
			continue;
		}
		const char *name = setting->workspace;
		int order = strverscmp(name, ws);
		if (order < 0 && (*before == NULL || strverscmp(name, *before) > 0)) {
			*before = name;
		} else if (order > 0 && (*after == NULL || strverscmp(name, *after) < 0)) {
			*after = name;
		}
	}
}

/* Marks for keeping one more picture near the output; false once its budget is spent. */
static bool keep(struct veil_output *output, const char *ws, bool *kept, int *left) {
	struct veil_setting *setting = ws != NULL ? for_workspace(output, ws) : NULL;
	if (setting == NULL || *left <= 0) {
		return *left > 0;
	}
	int i = 0;
	struct veil_setting *s;
	wl_list_for_each(s, &output->scene->settings, link) {
		if (s == setting && !kept[i]) {
			kept[i] = true;
			(*left)--;
		}
		i++;
	}
	return *left > 0;
}

void veil_workspace_trim(struct veil_scene *scene) {
	int n = wl_list_length(&scene->settings);
	bool *kept = calloc((size_t)n + 1, sizeof(*kept));
	bool *near = calloc((size_t)n + 1, sizeof(*near));
	if (kept == NULL || near == NULL) {
		/* Nothing is let go: more memory held, nothing wrong shown. */
		free(kept);
		free(near);
		return;
	}
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		memset(kept, 0, (size_t)n * sizeof(*kept));
		int left = scene->workspace_pictures;
		/* The shown workspace's picture does not count against the budget. */
		struct veil_setting *shown = output->workspace != NULL ?
			for_workspace(output, output->workspace) : NULL;
		int i = 0;
		struct veil_setting *s;
		wl_list_for_each(s, &scene->settings, link) {
			kept[i++] = s == shown;
		}
		if (output->workspace != NULL) {
			const char *before, *after;
			neighbours(output, output->workspace, &before, &after);
			keep(output, after, kept, &left);
			keep(output, before, kept, &left);
		}
		for (int r = 0; r < VEIL_WORKSPACE_RECENT && output->recent[r] != NULL &&
				keep(output, output->recent[r], kept, &left); r++) {
			continue;
		}
		for (i = 0; i < n; i++) {
			near[i] = near[i] || kept[i];
		}
	}

	int i = 0;
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		bool in_use = near[i++];
		/* What an output shows or waits for keeps its source, near or not. */
		wl_list_for_each(output, &scene->outputs, link) {
			in_use = in_use || output->setting == setting || output->pending == setting ||
				(setting->dark != NULL && (output->setting == setting->dark ||
				output->pending == setting->dark));
		}
		if (setting->workspace == NULL || setting->failed) {
			continue;
		}
		if (in_use) {
			/* Decoding starts now, on veil's threads: the switch finds it ready. */
			veil_workspace_load(scene, setting);
		} else {
			park(setting);
		}
	}
	free(kept);
	free(near);
	/* A package's pictures that no output shows any more. */
	veil_package_trim(scene);
}

/* Puts ws first among the output's latest workspaces. */
static void remember(struct veil_output *output, const char *ws) {
	int at = 0;
	while (at < VEIL_WORKSPACE_RECENT - 1 && output->recent[at] != NULL &&
			strcmp(output->recent[at], ws) != 0) {
		at++;
	}
	char *name = output->recent[at] != NULL && strcmp(output->recent[at], ws) == 0 ?
		output->recent[at] : strdup(ws);
	if (name == NULL) {
		return;
	}
	if (name != output->recent[at]) {
		/* The oldest goes when the list is full. */
		free(output->recent[at]);
	}
	memmove(output->recent + 1, output->recent, (size_t)at * sizeof(*output->recent));
	output->recent[0] = name;
}

/* How the new workspace's picture comes in: its setting's transition, else none. */
static struct veil_transition_spec switch_spec(struct veil_output *output, const char *from,
		const char *to) {
	struct veil_transition_spec spec = { .kind = VEIL_TRANSITION_NONE };
	struct veil_setting *setting = to != NULL ? for_workspace(output, to) : NULL;
	if (setting == NULL || !setting->look.has_transition) {
		return spec;
	}
	spec = setting->look.transition;
	if (spec.kind == VEIL_TRANSITION_SLIDE && !spec.side_given && from != NULL) {
		/* As phones and GNOME move their backgrounds: the next comes in from the right. */
		spec.side = strverscmp(to, from) >= 0 ? VEIL_SIDE_RIGHT : VEIL_SIDE_LEFT;
	}
	return spec;
}

void veil_scene_output_set_workspace(struct veil_scene *scene, struct wlr_output *wlr_output,
		const char *workspace) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || wlr_output == NULL) {
		return;
	}
	struct veil_output *output = veil_output_find(scene, wlr_output);
	if (output == NULL) {
		return;
	}
	const char *old = output->workspace;
	if (old == NULL ? workspace == NULL : workspace != NULL && strcmp(old, workspace) == 0) {
		return;
	}
	char *name = NULL;
	if (workspace != NULL && (name = strdup(workspace)) == NULL) {
		wlr_log(WLR_ERROR, "veil: out of memory: output %s keeps its workspace's wallpaper",
			wlr_output->name);
		return;
	}
	struct veil_transition_spec spec = switch_spec(output, old, name);
	if (old != NULL) {
		remember(output, old);
	}
	free(output->workspace);
	output->workspace = name;
	/* In this call: the compositor commits the new workspace's windows and picture together. */
	veil_output_update_switch(output, &spec);
	veil_workspace_trim(scene);
	veil_scene_changed(scene);
}

static bool rename_string(char **str, const char *old_name, const char *new_name) {
	if (*str == NULL || strcmp(*str, old_name) != 0) {
		return true;
	}
	char *name = strdup(new_name);
	if (name == NULL) {
		return false;
	}
	free(*str);
	*str = name;
	return true;
}

void veil_scene_rename_workspace(struct veil_scene *scene, const char *old_name,
		const char *new_name) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || old_name == NULL || new_name == NULL ||
			strcmp(old_name, new_name) == 0) {
		return;
	}
	/* new_name's own settings give way to those the renamed workspace brings. */
	struct veil_setting *setting, *tmp;
	wl_list_for_each_safe(setting, tmp, &scene->settings, link) {
		if (setting->workspace != NULL && strcmp(setting->workspace, new_name) == 0 &&
				veil_scene_find_setting(scene, setting->name, old_name) != NULL) {
			veil_setting_remove(setting);
		}
	}
	bool ok = true;
	wl_list_for_each(setting, &scene->settings, link) {
		for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
			ok = rename_string(&s->workspace, old_name, new_name) && ok;
		}
	}
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		ok = rename_string(&output->workspace, old_name, new_name) && ok;
		for (int r = 0; r < VEIL_WORKSPACE_RECENT; r++) {
			ok = rename_string(&output->recent[r], old_name, new_name) && ok;
		}
	}
	if (!ok) {
		wlr_log(WLR_ERROR, "veil: out of memory: renaming workspace '%s' to '%s'",
			old_name, new_name);
	}
	wl_list_for_each(output, &scene->outputs, link) {
		veil_output_update(output);
	}
	veil_workspace_trim(scene);
	veil_scene_changed(scene);
}

void veil_workspace_output_finish(struct veil_output *output) {
	free(output->workspace);
	output->workspace = NULL;
	for (int r = 0; r < VEIL_WORKSPACE_RECENT; r++) {
		free(output->recent[r]);
		output->recent[r] = NULL;
	}
}

struct json_object *veil_workspace_status(struct veil_output *output) {
	struct veil_scene *scene = output->scene;
	struct json_object *obj = json_object_new_object();
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		if (!applies(setting, output)) {
			continue;
		}
		/* The output's own setting for a workspace hides "*"'s. */
		struct veil_setting *own = veil_scene_find_setting(scene, output->output->name,
			setting->workspace);
		if (own != NULL && own != setting) {
			continue;
		}
		struct json_object *ws = json_object_new_object();
		json_object_object_add(ws, "setting", json_object_new_string(setting->name));
		json_object_object_add(ws, "kind", json_object_new_string(
			setting->look.mode == VEIL_MODE_SOLID_COLOR ? "color" :
			setting->video ? "video" : "image"));
		if (setting->look.mode == VEIL_MODE_SOLID_COLOR) {
			char color[8];
			snprintf(color, sizeof(color), "#%06x", setting->look.color & 0xffffff);
			json_object_object_add(ws, "color", json_object_new_string(color));
		} else {
			const char *file = setting->source != NULL ? setting->source->path :
				setting->path != NULL ? setting->path : setting->label;
			json_object_object_add(ws, "file", file != NULL ?
				json_object_new_string(file) : NULL);
		}
		/* Its first frame is ready: a switch to it shows it at once. */
		json_object_object_add(ws, "decoded", json_object_new_boolean(
			setting->source != NULL && setting->source->frame != NULL));
		json_object_object_add(ws, "failed", json_object_new_boolean(setting->failed));
		json_object_object_add(obj, setting->workspace, ws);
	}
	return obj;
}
