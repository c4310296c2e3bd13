/*
 * Storing a setting and applying it: the one way a wallpaper reaches the outputs, whether a
 * command, a show's next picture or a restored state asked for it. Also pause and the scheme,
 * which act on what the outputs show.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "util/message.h"

/* Outputs a command names: the one with that name, or all of them for "*". */
static bool addresses(const char *name, const struct veil_output *output) {
	return strcmp(name, "*") == 0 || strcmp(name, output->output->name) == 0;
}

int veil_scene_set_paused(struct veil_scene *scene, const char *name, bool paused, char **message) {
	bool found = false;
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (!addresses(name, output)) {
			continue;
		}
		found = true;
		if (output->source != NULL && output->source->paused != paused) {
			veil_source_set_paused(output->source, paused);
		}
		/* A video still loading starts as it was told. */
		struct veil_source *pending = output->pending != NULL ?
			output->pending->source : NULL;
		if (pending != NULL && pending->paused != paused) {
			veil_source_set_paused(pending, paused);
		}
	}
	if (!found && strcmp(name, "*") != 0) {
		veil_message_set(message, "There is no output named '%s'", name);
		return -ENODEV;
	}
	return 0;
}

void veil_scene_record_error(struct veil_scene *scene, const char *name, const char *message) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (addresses(name, output)) {
			veil_output_set_error(output, message);
		}
	}
}

static bool setting_is_wildcard_off(const struct veil_setting *setting) {
	return setting->off && setting->workspace == NULL && strcmp(setting->name, "*") == 0;
}

/* What a workspace setting (and its dark picture) needs to load its files again. */
static bool workspace_origin(struct veil_setting *setting, const struct veil_command *cmd,
		int fd, const char *label) {
	bool full_size = cmd->look.mode == VEIL_MODE_CENTER || cmd->look.mode == VEIL_MODE_TILE ||
		cmd->look.mode == VEIL_MODE_INTEGER;
	for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
		if ((s->workspace = strdup(cmd->workspace)) == NULL) {
			return false;
		}
		s->full_size = full_size;
		/* A package's pictures: what the output shows is of the workspace too. */
		for (size_t i = 0; i < s->n_choices; i++) {
			if ((s->choices[i]->workspace = strdup(cmd->workspace)) == NULL) {
				return false;
			}
		}
	}
	if (setting->source == NULL) {
		return true;
	}
	setting->video = setting->source->impl->kind == VEIL_SOURCE_VIDEO;
	if (fd >= 0) {
		/* The descriptor itself is kept by veil_scene_store(), for every setting. */
		if ((setting->label = strdup(label != NULL ? label : "(file descriptor)")) == NULL) {
			return false;
		}
	} else if ((setting->path = strdup(cmd->path)) == NULL) {
		return false;
	}
	if (setting->dark != NULL && cmd->look.dark_path != NULL &&
			(setting->dark->path = strdup(cmd->look.dark_path)) == NULL) {
		return false;
	}
	return true;
}

/* A setting of the command's words showing source (whose reference it takes), or NULL. */
static struct veil_setting *setting_create(const char *name, const struct veil_command *cmd,
		struct veil_source *source) {
	struct veil_setting *setting = calloc(1, sizeof(*setting));
	if (setting == NULL || (setting->name = strdup(name)) == NULL) {
		free(setting);
		veil_source_unref(source);
		return NULL;
	}
	wl_list_init(&setting->link);
	setting->refs = 1;
	setting->fd = -1;
	setting->off = cmd->kind == VEIL_COMMAND_OFF;
	if (veil_look_copy(&setting->look, &cmd->look) < 0) {
		free(setting->name);
		free(setting);
		veil_source_unref(source);
		return NULL;
	}
	setting->source = source;
	return setting;
}

/*
 * Replaces name's setting with a new one, which takes over source's reference (and dark's: the
 * dark scheme's picture, or NULL); or, for a wallpaper package, shows package's pictures.
 */
int veil_scene_store(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, struct veil_source *source,
		struct veil_source *dark, struct veil_package *package, int fd, const char *label) {
	/* Its reference is the table's. */
	struct veil_setting *setting = setting_create(name, cmd, source);
	if (setting == NULL) {
		veil_source_unref(dark);
		return -ENOMEM;
	}
	if (package != NULL && (!veil_package_attach(setting, package, package->light,
			package->n_light) || (package->n_dark > 0 &&
			((setting->dark = setting_create(name, cmd, NULL)) == NULL ||
			!veil_package_attach(setting->dark, package, package->dark,
			package->n_dark))))) {
		veil_setting_unref(setting);
		return -ENOMEM;
	}
	if (dark != NULL && (setting->dark = setting_create(name, cmd, dark)) == NULL) {
		veil_setting_unref(setting);
		return -ENOMEM;
	}
	if (cmd->look.has_dark_color) {
		/* `dark #rrggbb`: the dark scheme's setting is that colour alone. */
		struct veil_command color = *cmd;
		color.look.mode = VEIL_MODE_SOLID_COLOR;
		color.look.color = cmd->look.dark_color;
		if ((setting->dark = setting_create(name, &color, NULL)) == NULL) {
			veil_setting_unref(setting);
			return -ENOMEM;
		}
	}
	/*
	 * A client's file, kept to decode it again: for a larger output, and for a workspace's
	 * picture when its workspace comes back (workspace_origin()).
	 */
	if ((fd >= 0 && source != NULL && (setting->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) ||
			(cmd->workspace != NULL && !workspace_origin(setting, cmd, fd, label))) {
		veil_setting_unref(setting);
		return -ENOMEM;
	}

	/* Errors of the commands before are void; the layout below may record new ones. */
	veil_scene_record_error(scene, name, NULL);

	/*
	 * The settings the new one replaces leave the table first and are freed after the outputs
	 * moved on: a source they share with the new setting stays open, and no output points at
	 * a freed setting meanwhile.
	 */
	struct wl_list replaced;
	wl_list_init(&replaced);
	struct veil_setting *other, *tmp;
	wl_list_for_each_safe(other, tmp, &scene->settings, link) {
		/*
		 * `output * veil off` turns every output off, whatever it had of its own (but
		 * not the workspaces': they come first, and `veil workspace <ws> off` ends one).
		 */
		bool same = strcmp(other->name, name) == 0 &&
			veil_same_workspace(other->workspace, setting->workspace);
		if (same || (setting_is_wildcard_off(setting) && other->workspace == NULL)) {
			wl_list_remove(&other->link);
			wl_list_insert(&replaced, &other->link);
		}
	}
	if (cmd->workspace != NULL && cmd->kind == VEIL_COMMAND_OFF) {
		/* `veil workspace <ws> off` ends the workspace's setting: the output's shows. */
		veil_setting_unref(setting);
	} else {
		wl_list_insert(&scene->settings, &setting->link);
	}
	veil_scene_update_outputs(scene);
	/* Outputs that span with others: the canvas changes with who uses the setting. */
	veil_span_refresh(scene);
	wl_list_for_each_safe(other, tmp, &replaced, link) {
		veil_setting_remove(other);
	}
	return 0;
}

/*
 * Light or dark: outputs whose setting has a `dark` picture move to the scheme's, as to a new
 * setting (loading, then the setting's transition); the others keep theirs.
 */
void veil_scene_apply_dark(struct veil_scene *scene, bool dark) {
	if (scene->dark == dark) {
		return;
	}
	scene->dark = dark;
	wlr_log(WLR_INFO, "veil: the %s scheme", dark ? "dark" : "light");
	veil_scene_update_outputs(scene);
	veil_span_refresh(scene);
}

/* A copy of a setting (its dark picture aside) with another source (one reference taken). */
static struct veil_setting *setting_with_source(const struct veil_setting *setting,
		struct veil_source *source) {
	struct veil_setting *copy = veil_setting_copy_words(setting);
	if (copy == NULL) {
		return NULL;
	}
	if ((setting->workspace != NULL &&
			(copy->workspace = strdup(setting->workspace)) == NULL) ||
			(setting->path != NULL && (copy->path = strdup(setting->path)) == NULL) ||
			(setting->label != NULL &&
			(copy->label = strdup(setting->label)) == NULL) ||
			(setting->fd >= 0 &&
			(copy->fd = fcntl(setting->fd, F_DUPFD_CLOEXEC, 0)) < 0)) {
		veil_setting_unref(copy);
		return NULL;
	}
	copy->source = source != NULL ? veil_source_ref(source) : NULL;
	/* A package's choice: the same picture of the same package. */
	copy->package = setting->package != NULL ? veil_package_ref(setting->package) : NULL;
	copy->picture = setting->picture;
	return copy;
}

/* A source and what again() made of it (NULL: kept). */
struct source_pair {
	struct veil_source *old, *fresh;
};

/* What again() makes of source, asked once per source: settings that share it share that. */
static struct veil_source *successor(struct veil_scene *scene, struct veil_setting *setting,
		struct veil_source *source, veil_source_again_func again, struct source_pair *pairs,
		size_t *n_pairs) {
	if (source == NULL) {
		return NULL;
	}
	size_t i = 0;
	while (i < *n_pairs && pairs[i].old != source) {
		i++;
	}
	if (i == *n_pairs) {
		pairs[i].old = source;
		pairs[i].fresh = again(scene, setting, source);
		(*n_pairs)++;
	}
	return pairs[i].fresh;
}

/*
 * A package's choices (and its dark pictures') whose source again() renews are replaced in
 * their parent by copies with the new source: outputs find the copy when they choose again.
 */
static bool swap_choices(struct veil_scene *scene, struct veil_setting *setting,
		veil_source_again_func again, struct source_pair *pairs, size_t *n_pairs) {
	bool swapped = false;
	for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
		for (size_t i = 0; i < s->n_choices; i++) {
			struct veil_setting *choice = s->choices[i];
			struct veil_source *fresh = successor(scene, choice, choice->source, again,
				pairs, n_pairs);
			struct veil_setting *copy = fresh != NULL ?
				setting_with_source(choice, fresh) : NULL;
			if (copy == NULL) {
				continue;
			}
			s->choices[i] = copy;
			veil_setting_unref(choice);
			swapped = true;
		}
	}
	return swapped;
}

/* How many sources the settings may hold: each one's, its dark picture's and their choices'. */
static size_t count_sources(struct veil_scene *scene) {
	size_t n = 0;
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
			n += 1 + s->n_choices;
		}
	}
	return n;
}

void veil_scene_swap_sources(struct veil_scene *scene, veil_source_again_func again) {
	struct source_pair *pairs = calloc(count_sources(scene) + 1, sizeof(*pairs));
	if (pairs == NULL) {
		wlr_log(WLR_ERROR, "veil: out of memory: the outputs keep the pictures they show");
		return;
	}
	size_t n_pairs = 0;
	bool swapped = false;
	struct veil_setting *setting, *tmp;
	wl_list_for_each_safe(setting, tmp, &scene->settings, link) {
		struct veil_setting *dark = setting->dark;
		if (setting->failed) {
			continue;
		}
		if (setting->n_choices > 0) {
			/* A package: the pictures outputs chose (the others open when chosen). */
			swapped = swap_choices(scene, setting, again, pairs, &n_pairs) || swapped;
			continue;
		}
		struct veil_source *fresh = successor(scene, setting, setting->source, again,
			pairs, &n_pairs);
		struct veil_source *fresh_dark = dark != NULL ? successor(scene, dark,
			dark->source, again, pairs, &n_pairs) : NULL;
		if (fresh == NULL && fresh_dark == NULL) {
			continue;
		}
		struct veil_setting *copy = setting_with_source(setting,
			fresh != NULL ? fresh : setting->source);
		if (copy == NULL) {
			continue;
		}
		copy->dark = fresh_dark != NULL ? setting_with_source(dark, fresh_dark) :
			dark != NULL ? veil_setting_ref(dark) : NULL;
		if (dark != NULL && copy->dark == NULL) {
			veil_setting_unref(copy);
			continue;
		}
		wl_list_insert(&setting->link, &copy->link);
		veil_setting_remove(setting);
		swapped = true;
	}
	if (swapped) {
		/* The same picture again: no reason to fade, whatever the setting's transition. */
		const struct veil_transition_spec none = { .kind = VEIL_TRANSITION_NONE };
		struct veil_output *output;
		wl_list_for_each(output, &scene->outputs, link) {
			veil_output_update_switch(output, &none);
		}
		veil_span_refresh(scene);
	}
	for (size_t i = 0; i < n_pairs; i++) {
		veil_source_unref(pairs[i].fresh);
	}
	free(pairs);
	if (swapped) {
		veil_workspace_trim(scene);
		veil_scene_changed(scene);
	}
}

struct veil_cover veil_scene_cover(struct veil_scene *scene, const struct veil_look *look) {
	struct veil_cover cover = { scene->max_output_width, scene->max_output_height };
	if (look->span) {
		int w, h;
		veil_span_max_size(scene, &w, &h);
		cover.width = w > cover.width ? w : cover.width;
		cover.height = h > cover.height ? h : cover.height;
	}
	return cover;
}

/* veil_scene_grow()'s again(): a still or an animation shrunk for a smaller size, decoded anew. */
static struct veil_source *open_larger(struct veil_scene *scene, struct veil_setting *setting,
		struct veil_source *source) {
	struct veil_cover cover = setting->picture != NULL ? veil_package_cover(scene, setting) :
		veil_scene_cover(scene, &setting->look);
	if (cover.width <= 0 || cover.height <= 0 || veil_source_covers(source, cover)) {
		/* Covered, or a package's picture no output chose: it is let go. */
		return NULL;
	}
	/* A client's file, which the setting keeps open: its path names nothing. */
	struct veil_source *fresh = veil_source_open_again(source, setting->fd, cover);
	if (fresh != NULL) {
		wlr_log(WLR_INFO, "veil: %s: decoding again to cover %dx%d (it covered %dx%d)",
			source->path, cover.width, cover.height, source->cover.width,
			source->cover.height);
	}
	return fresh;
}

void veil_scene_grow(struct veil_scene *scene) {
	veil_scene_swap_sources(scene, open_larger);
}

int veil_scene_check_span(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, char **message) {
	if (cmd->kind != VEIL_COMMAND_SET || !cmd->look.span || scene->output_layout != NULL) {
		return 0;
	}
	veil_message_set(message, "span needs the compositor's output layout, which it has "
		"not given veil (veil_scene_set_output_layout)");
	veil_scene_record_error(scene, name, *message);
	return -EINVAL;
}

int veil_scene_open(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label,
		struct veil_source **source, struct veil_source **dark, char **message) {
	int ret = 0;
	bool full_size = cmd->look.mode == VEIL_MODE_CENTER || cmd->look.mode == VEIL_MODE_TILE ||
		cmd->look.mode == VEIL_MODE_INTEGER;
	/* Across outputs, a still is decoded for the whole layout rather than one output. */
	struct veil_cover cover = veil_scene_cover(scene, &cmd->look);
	if (fd >= 0) {
		char *name = strdup(label != NULL ? label : "(file descriptor)");
		*source = name != NULL ?
			veil_source_open_fd(&scene->ctx, fd, name, full_size, cmd->look.filter,
			cover, &ret, message) :
			NULL;
	} else {
		*source = veil_source_open_item(&scene->ctx, cmd->path, cmd->item, full_size,
			cmd->look.filter, cover, &ret, message);
	}
	if (*source != NULL && cmd->look.dark_path != NULL) {
		*dark = veil_source_open_item(&scene->ctx, cmd->look.dark_path, cmd->dark_item,
			full_size, cmd->look.filter, cover, &ret, message);
		if (*dark == NULL) {
			veil_source_unref(*source);
			*source = NULL;
		}
	}
	if (*source == NULL) {
		if (ret == 0) {
			ret = -ENOMEM;
		}
		wlr_log(WLR_ERROR, "veil: output %s: %s", output_name,
			*message != NULL ? *message : "failed");
		veil_scene_record_error(scene, output_name, *message);
		return ret;
	}
	return 0;
}

int veil_scene_apply(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
		char **message) {
	*message = NULL;
	struct veil_source *source = NULL, *dark = NULL;
	struct veil_package *package = NULL;
	struct veil_gnome_wallpaper listed;
	int ret = veil_scene_check_span(scene, name, cmd, message);
	if (ret == 0 && cmd->kind == VEIL_COMMAND_SET) {
		/* A wallpaper package (module/core/package.c): one picture chosen per output. */
		ret = veil_package_open(cmd, &package, &listed, message);
		if (ret < 0) {
			wlr_log(WLR_ERROR, "veil: output %s: %s", name, *message);
			veil_scene_record_error(scene, name, *message);
		} else if (ret > 0) {
			/* GNOME's list: its light and dark files in its mode, as `dark <file>`. */
			struct veil_command shown = veil_package_list_command(cmd, &listed);
			ret = veil_scene_apply(scene, name, &shown, message);
			veil_gnome_wallpaper_finish(&listed);
			return ret;
		} else if (package == NULL && cmd->look.mode != VEIL_MODE_SOLID_COLOR) {
			ret = veil_scene_open(scene, name, cmd, -1, NULL, &source, &dark, message);
		}
	}
	if (ret == 0) {
		ret = veil_scene_store(scene, name, cmd, source, dark, package, -1, NULL);
		if (ret == -ENOMEM) {
			veil_message_set(message, "Out of memory");
		}
		/* Pictures of workspaces no output is near may go; the new one may be near one. */
		veil_workspace_trim(scene);
	}
	veil_package_unref(package);
	/* Messages name files, whose names need not be UTF-8; replies are JSON. */
	veil_message_sanitize(*message);
	return ret;
}
