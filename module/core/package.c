#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/words/command.h"
#include "module/core/package.h"
#include "module/core/scene.h"
#include "util/fit.h"
#include "util/message.h"

/* A list's <filename> that is a list again would be shown by a loop: refused. */
static int check_listed(const struct veil_gnome_wallpaper *wallpaper, const char *path,
		char **message) {
	if (wallpaper->file == NULL || !veil_package_xml_name(wallpaper->file)) {
		return 0;
	}
	struct veil_package *package = NULL;
	struct veil_gnome_wallpaper again;
	char *unused = NULL;
	int ret = veil_package_xml_read(wallpaper->file, &package, &again, &unused);
	bool loop = ret > 0 && package == NULL;
	veil_package_unref(package);
	veil_gnome_wallpaper_finish(&again);
	free(unused);
	return loop ? veil_message_fail(message, -EINVAL, "'%s' names another wallpaper list, "
		"'%s': veil shows a picture or a background, not a list of lists", path,
		wallpaper->file) : 0;
}

int veil_package_words_check(const struct veil_command *cmd, char **message) {
	/* A slideshow's step carries the show's words: a package there is one of its pictures. */
	bool show_words = cmd->has_slideshow && !cmd->from_slideshow;
	const char *refused = cmd->look.dark_path != NULL || cmd->look.has_dark_color ? "dark (its "
		"contents/images_dark/ is its dark picture)" : show_words ? "every, order or "
		"recursive (a package is one wallpaper)" : NULL;
	if (refused == NULL) {
		return 0;
	}
	return veil_message_fail(message, -EINVAL, "'%s' is a wallpaper package: not for %s",
		cmd->path, refused);
}

int veil_package_open(const struct veil_command *cmd, struct veil_package **package,
		struct veil_gnome_wallpaper *wallpaper, char **message) {
	*package = NULL;
	memset(wallpaper, 0, sizeof(*wallpaper));
	if (cmd->kind != VEIL_COMMAND_SET || cmd->path == NULL ||
			cmd->look.mode == VEIL_MODE_SOLID_COLOR || cmd->package_read) {
		return 0;
	}
	if (cmd->package != NULL) {
		/* Read on a worker already (the <size> choices of an XML too). */
		int ret = veil_package_words_check(cmd, message);
		if (ret == 0) {
			*package = veil_package_ref(cmd->package);
		}
		return ret;
	}
	if (veil_package_xml_name(cmd->path)) {
		/* GNOME's XML: a list (1), <size> choices (a package), or a timed background. */
		int ret = veil_package_xml_read(cmd->path, package, wallpaper, message);
		if (ret > 0 && *package == NULL) {
			ret = (cmd->look.dark_path != NULL || cmd->look.has_dark_color) &&
				wallpaper->dark != NULL ?
				veil_message_fail(message, -EINVAL, "'%s' names its own dark picture "
				"(<filename-dark>): dark is not for it", cmd->path) :
				check_listed(wallpaper, cmd->path, message);
			if (ret < 0) {
				veil_gnome_wallpaper_finish(wallpaper);
			}
			return ret < 0 ? ret : 1;
		}
		if (ret <= 0) {
			return ret;
		}
	} else if (!veil_package_detect(cmd->path)) {
		return 0;
	}
	int ret = veil_package_words_check(cmd, message);
	if (ret < 0) {
		veil_package_unref(*package);
		*package = NULL;
		return ret;
	}
	if (*package == NULL) {
		*package = veil_package_read(cmd->path, message);
	}
	return *package != NULL ? 0 : -EINVAL;
}

struct veil_command veil_package_list_command(const struct veil_command *cmd,
		const struct veil_gnome_wallpaper *listed) {
	struct veil_command shown = *cmd;
	shown.path = listed->file;
	shown.look.dark_path = listed->dark;
	shown.look.mode = cmd->look.has_mode ? cmd->look.mode : listed->mode;
	shown.look.color = !cmd->look.has_color && listed->has_color ? listed->color : cmd->look.color;
	return shown;
}

/* A choice: the parent's words, showing one picture. */
static struct veil_setting *choice_create(const struct veil_setting *parent,
		struct veil_package *package, const struct veil_package_picture *picture) {
	struct veil_setting *choice = veil_setting_copy_words(parent);
	if (choice == NULL || (choice->path = strdup(picture->path)) == NULL) {
		veil_setting_unref(choice);
		return NULL;
	}
	enum veil_mode mode = parent->look.mode;
	choice->full_size = mode == VEIL_MODE_CENTER || mode == VEIL_MODE_TILE ||
		mode == VEIL_MODE_INTEGER;
	choice->package = veil_package_ref(package);
	choice->picture = picture;
	return choice;
}

bool veil_package_attach(struct veil_setting *setting, struct veil_package *package,
		const struct veil_package_picture *pictures, size_t n) {
	setting->package = veil_package_ref(package);
	setting->path = strdup(package->dir);
	setting->choices = calloc(n, sizeof(*setting->choices));
	if (setting->path == NULL || setting->choices == NULL) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		setting->choices[i] = choice_create(setting, package, &pictures[i]);
		if (setting->choices[i] == NULL) {
			return false;
		}
		setting->n_choices++;
	}
	return true;
}

void veil_package_detach(struct veil_setting *setting) {
	for (size_t i = 0; i < setting->n_choices; i++) {
		veil_setting_unref(setting->choices[i]);
	}
	free(setting->choices);
	setting->choices = NULL;
	setting->n_choices = 0;
	veil_package_unref(setting->package);
	setting->package = NULL;
}

/* The output's size in buffer pixels, turned by its transform (a portrait one is tall). */
static void output_size(struct veil_output *output, int *width, int *height) {
	wlr_output_transformed_resolution(output->output, width, height);
}

/*
 * The size setting's picture must fit on output: the output's; with span, the canvas of the
 * outputs that show setting (module/core/span.c), at the largest of their scales.
 */
static void fit_size(const struct veil_setting *setting, struct veil_output *output,
		int *width, int *height) {
	if (!setting->look.span || !veil_span_size(output->scene, setting, width, height)) {
		output_size(output, width, height);
	}
}

/* The choice of setting that fits the output (choices that failed passed over), or -1. */
static int index_for(const struct veil_setting *setting, struct veil_output *output) {
	struct veil_fit_size sizes[VEIL_PACKAGE_PICTURES_MAX];
	size_t n = setting->n_choices < VEIL_PACKAGE_PICTURES_MAX ? setting->n_choices :
		VEIL_PACKAGE_PICTURES_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct veil_setting *choice = setting->choices[i];
		/* A size of 0 is passed over by the rule. */
		sizes[i] = choice->failed ? (struct veil_fit_size){ 0, 0 } : choice->picture->size;
	}
	int width, height;
	fit_size(setting, output, &width, &height);
	return veil_fit_choose(sizes, n, width, height);
}

/*
 * What the index-th choice's picture is decoded to cover: the outputs that choose it (not the
 * largest output of all: an ultrawide's picture is not kept at a portrait output's height);
 * 0x0 when none does.
 */
static struct veil_cover choice_cover(struct veil_scene *scene, struct veil_setting *setting,
		size_t index) {
	struct veil_cover cover = { 0, 0 };
	struct veil_output *other;
	wl_list_for_each(other, &scene->outputs, link) {
		struct veil_setting *resolved = veil_scene_resolve(scene, other->output->name,
			other->workspace);
		if (resolved != setting || index_for(setting, other) != (int)index) {
			continue;
		}
		int width, height;
		fit_size(setting, other, &width, &height);
		cover.width = width > cover.width ? width : cover.width;
		cover.height = height > cover.height ? height : cover.height;
	}
	return cover;
}

struct veil_cover veil_package_cover(struct veil_scene *scene,
		const struct veil_setting *choice) {
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
			for (size_t i = 0; i < s->n_choices; i++) {
				if (s->choices[i] == choice) {
					return choice_cover(scene, s, i);
				}
			}
		}
	}
	return (struct veil_cover){ 0, 0 };
}

/* Opens the index-th choice's picture, decoded to cover what choice_cover() says. */
static bool open_choice(struct veil_scene *scene, struct veil_setting *setting, int index,
		char **message) {
	struct veil_setting *choice = setting->choices[index];
	struct veil_cover cover = choice_cover(scene, setting, (size_t)index);
	if (cover.width <= 0 || cover.height <= 0) {
		cover = veil_scene_cover(scene, &choice->look);
	}
	int err = 0;
	choice->source = veil_source_open(&scene->ctx, choice->path, choice->full_size,
		choice->look.filter, cover, &err, message);
	return choice->source != NULL;
}

struct veil_setting *veil_package_choose(struct veil_output *output,
		struct veil_setting *setting) {
	if (setting == NULL || setting->package == NULL || setting->n_choices == 0) {
		return setting;
	}
	int width, height;
	output_size(output, &width, &height);
	if (width <= 0 || height <= 0) {
		/* No mode yet: the choice waits for the commit that gives one. */
		return output->pending != NULL ? output->pending : output->setting;
	}
	for (;;) {
		int index = index_for(setting, output);
		if (index < 0) {
			/* Every picture failed (each was said): what shows stays. */
			return output->pending != NULL ? output->pending : output->setting;
		}
		struct veil_setting *choice = setting->choices[index];
		char *message = NULL;
		if (choice->source != NULL || open_choice(output->scene, setting, index, &message)) {
			return choice;
		}
		/* Passed over, the next best shown: the sentence names the file. */
		wlr_log(WLR_ERROR, "veil: output %s: %s", output->output->name,
			message != NULL ? message : "out of memory");
		veil_output_set_error(output, message);
		free(message);
		choice->failed = true;
	}
}

int veil_package_ahead(struct veil_scene *scene, const struct veil_package *package,
		char **picture, char **message) {
	*picture = NULL;
	if (package == NULL) {
		return 0;
	}
	bool dark = scene->dark && package->n_dark > 0;
	const struct veil_package_picture *pictures = dark ? package->dark : package->light;
	size_t n = dark ? package->n_dark : package->n_light;
	struct veil_fit_size sizes[VEIL_PACKAGE_PICTURES_MAX];
	for (size_t i = 0; i < n; i++) {
		sizes[i] = pictures[i].size;
	}
	int index = veil_fit_choose(sizes, n, scene->max_output_width, scene->max_output_height);
	int ret = 0;
	if (index >= 0 && (*picture = strdup(pictures[index].path)) == NULL) {
		veil_message_set(message, "Out of memory");
		ret = -ENOMEM;
	}
	return ret;
}

void veil_package_output_changed(struct veil_output *output) {
	struct veil_setting *resolved = veil_scene_resolve(output->scene, output->output->name,
		output->workspace);
	if (resolved == NULL || resolved->n_choices == 0 || !output->output->enabled) {
		return;
	}
	veil_output_update(output);
	veil_workspace_trim(output->scene);
	veil_scene_changed(output->scene);
}

static bool shown_anywhere(struct veil_scene *scene, const struct veil_setting *choice) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (output->setting == choice || output->pending == choice) {
			return true;
		}
	}
	return false;
}

void veil_package_trim(struct veil_scene *scene) {
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		for (struct veil_setting *s = setting; s != NULL; s = s->dark) {
			for (size_t i = 0; i < s->n_choices; i++) {
				struct veil_setting *choice = s->choices[i];
				if (choice->source != NULL && !shown_anywhere(scene, choice)) {
					/* The last reference frees its frame (a decode running stops). */
					veil_source_unref(choice->source);
					choice->source = NULL;
				}
			}
		}
	}
}

struct json_object *veil_package_status(struct veil_output *output) {
	const struct veil_setting *choice = output->setting;
	if (choice == NULL || choice->picture == NULL) {
		return NULL;
	}
	const struct veil_package_picture *picture = choice->picture;
	struct veil_setting *parent = veil_scene_resolve(output->scene, output->output->name,
		output->workspace);
	int width, height;
	fit_size(parent != NULL ? parent : choice, output, &width, &height);
	char why[96];
	veil_fit_why(&picture->size, width, height, why, sizeof(why));
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "name", json_object_new_string(choice->package->name));
	json_object_object_add(obj, "dir", json_object_new_string(choice->package->dir));
	json_object_object_add(obj, "picture", json_object_new_string(picture->path));
	json_object_object_add(obj, "why", json_object_new_string(why));
	json_object_object_add(obj, "pictures", json_object_new_int((int)(
		output->scene->dark && choice->package->n_dark > 0 ? choice->package->n_dark :
		choice->package->n_light)));
	/*
	 * The choice goes by the size in the name, as Plasma's does; the picture is shown at the
	 * size the file has. Where they differ, the status says so.
	 */
	struct veil_source *source = choice->source;
	struct veil_source_info info = { 0 };
	if (source != NULL && source->frame != NULL && source->impl->get_info != NULL) {
		source->impl->get_info(source, &info);
	}
	char *note = NULL;
	if (info.original_width > 0 && (info.original_width != picture->size.width ||
			info.original_height != picture->size.height)) {
		note = veil_message("'%s' is %dx%d, not the %dx%d its name says: chosen by its "
			"name, shown at its own size", picture->path, info.original_width,
			info.original_height, picture->size.width, picture->size.height);
	}
	json_object_object_add(obj, "note", note != NULL ? json_object_new_string(note) : NULL);
	free(note);
	return obj;
}
