/*
 * The settings table: what each name (an output's or "*", with or without a workspace) was told
 * to show, how a name resolves to a setting (exact name beats "*"), the transition defaults,
 * and the references that keep a setting alive while outputs show it.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include "module/core/package.h"
#include "module/core/scene.h"

struct veil_setting *veil_setting_ref(struct veil_setting *setting) {
	setting->refs++;
	return setting;
}

void veil_setting_unref(struct veil_setting *setting) {
	if (setting == NULL) {
		return;
	}
	assert(setting->refs > 0);
	if (--setting->refs > 0) {
		return;
	}
	/* Dropping the source's last reference also cancels a decode still running for it. */
	veil_source_unref(setting->source);
	veil_setting_unref(setting->dark);
	veil_package_detach(setting);
	if (setting->fd >= 0) {
		close(setting->fd);
	}
	veil_look_finish(&setting->look);
	free(setting->workspace);
	free(setting->path);
	free(setting->label);
	free(setting->name);
	free(setting);
}

void veil_setting_remove(struct veil_setting *setting) {
	wl_list_remove(&setting->link);
	wl_list_init(&setting->link);
	veil_setting_unref(setting);
}

static struct veil_transition_default *find_default(struct veil_scene *scene,
		const char *name) {
	struct veil_transition_default *dflt;
	wl_list_for_each(dflt, &scene->transition_defaults, link) {
		if (strcmp(dflt->name, name) == 0) {
			return dflt;
		}
	}
	return NULL;
}

static void default_destroy(struct veil_transition_default *dflt) {
	wl_list_remove(&dflt->link);
	free(dflt->name);
	free(dflt);
}

struct veil_transition_spec veil_output_resolve_transition(struct veil_output *output,
		const struct veil_setting *setting) {
	if (setting->look.has_transition) {
		return setting->look.transition;
	}
	struct veil_scene *scene = output->scene;
	struct veil_transition_default *dflt = find_default(scene, output->output->name);
	if (dflt == NULL) {
		dflt = find_default(scene, "*");
	}
	if (dflt != NULL) {
		return dflt->spec;
	}
	/* Without a word about it, a change is instant, as it always was. */
	return (struct veil_transition_spec){ .kind = VEIL_TRANSITION_NONE };
}

/* `output * veil transition` replaces the outputs' own defaults, as `output * veil off` does. */
int veil_scene_set_transition_default(struct veil_scene *scene, const char *name,
		const struct veil_transition_spec *spec) {
	bool wildcard = strcmp(name, "*") == 0;
	struct veil_transition_default *dflt, *tmp;
	wl_list_for_each_safe(dflt, tmp, &scene->transition_defaults, link) {
		if (wildcard || strcmp(dflt->name, name) == 0) {
			default_destroy(dflt);
		}
	}
	dflt = calloc(1, sizeof(*dflt));
	if (dflt == NULL || (dflt->name = strdup(name)) == NULL) {
		free(dflt);
		return -ENOMEM;
	}
	dflt->spec = *spec;
	wl_list_insert(&scene->transition_defaults, &dflt->link);
	return 0;
}

void veil_scene_transition_defaults_finish(struct veil_scene *scene) {
	struct veil_transition_default *dflt, *tmp_dflt;
	wl_list_for_each_safe(dflt, tmp_dflt, &scene->transition_defaults, link) {
		default_destroy(dflt);
	}
}

void veil_scene_changed(struct veil_scene *scene) {
	/* The policies listen first (module/policy/policy.c): the videos' caps and holds follow. */
	wl_signal_emit_mutable(&scene->events.changed, scene);
}

bool veil_same_workspace(const char *a, const char *b) {
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

struct veil_setting *veil_scene_find_setting(struct veil_scene *scene, const char *name,
		const char *workspace) {
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		if (strcmp(setting->name, name) == 0 &&
				veil_same_workspace(setting->workspace, workspace)) {
			return setting;
		}
	}
	return NULL;
}

/* A workspace setting whose file failed to load again counts as none. */
static struct veil_setting *find_usable(struct veil_scene *scene, const char *name,
		const char *workspace) {
	struct veil_setting *setting = veil_scene_find_setting(scene, name, workspace);
	return setting != NULL && !setting->failed ? setting : NULL;
}

struct veil_setting *veil_scene_resolve(struct veil_scene *scene, const char *name,
		const char *workspace) {
	struct veil_setting *setting = NULL;
	if (workspace != NULL) {
		setting = find_usable(scene, name, workspace);
		if (setting == NULL) {
			setting = find_usable(scene, "*", workspace);
		}
	}
	if (setting == NULL) {
		setting = veil_scene_find_setting(scene, name, NULL);
	}
	if (setting == NULL) {
		setting = veil_scene_find_setting(scene, "*", NULL);
	}
	/* The dark scheme's picture, where the setting has one. */
	return setting != NULL && scene->dark && setting->dark != NULL ? setting->dark : setting;
}

void veil_scene_update_max_size(struct veil_scene *scene) {
	int max_width = 0, max_height = 0;
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		int width, height;
		wlr_output_transformed_resolution(output->output, &width, &height);
		max_width = width > max_width ? width : max_width;
		max_height = height > max_height ? height : max_height;
	}
	bool grew = max_width > scene->max_output_width || max_height > scene->max_output_height;
	scene->max_output_width = max_width;
	scene->max_output_height = max_height;
	/*
	 * Pictures shrunk for a smaller size would be shown blurred, scaled up: the largest
	 * output's, a span's layout, or one output's that chose a package's picture, which can
	 * grow while the largest does not. What covers its size stays as it is.
	 */
	veil_scene_grow(scene);
	if (grew) {
		/* Shows holding pictures ahead (module/show/slideshow.c) hear of it. */
		veil_scene_changed(scene);
	}
}

void veil_scene_update_outputs(struct veil_scene *scene) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		veil_output_update(output);
	}
}

struct veil_setting *veil_setting_copy_words(const struct veil_setting *setting) {
	struct veil_setting *copy = calloc(1, sizeof(*copy));
	if (copy == NULL || (copy->name = strdup(setting->name)) == NULL) {
		free(copy);
		return NULL;
	}
	wl_list_init(&copy->link);
	copy->refs = 1;
	copy->fd = -1;
	copy->off = setting->off;
	if (veil_look_copy(&copy->look, &setting->look) < 0) {
		free(copy->name);
		free(copy);
		return NULL;
	}
	copy->full_size = setting->full_size;
	copy->video = setting->video;
	return copy;
}
