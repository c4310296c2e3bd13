#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "decode/gst.h"
#include "module/command.h"
#include "module/control.h"
#include "module/decoders.h"
#include "module/package.h"
#include "module/policy.h"
#include "util/message.h"
#include "module/scene.h"
#include "module/slideshow.h"
#include "module/timed.h"
#include "module/timed_xml.h"
#include "module/state.h"
#include "module/wlr_check.h"
#include "util/worker.h"

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
	if (setting->has_transition) {
		return setting->transition;
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
static int set_default(struct veil_scene *scene, const char *name,
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

void veil_scene_changed(struct veil_scene *scene) {
	/* What outputs show changed: the videos' caps and holds follow. */
	veil_policy_apply(scene);
	wl_signal_emit_mutable(&scene->events.changed, scene);
}

/* A source's palette came (source/source.c): the status says it. */
static void handle_source_changed(struct veil_source_context *ctx) {
	struct veil_scene *scene = wl_container_of(ctx, scene, ctx);
	veil_scene_changed(scene);
}

static bool same_workspace(const char *a, const char *b) {
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

struct veil_setting *veil_scene_find_setting(struct veil_scene *scene, const char *name,
		const char *workspace) {
	struct veil_setting *setting;
	wl_list_for_each(setting, &scene->settings, link) {
		if (strcmp(setting->name, name) == 0 &&
				same_workspace(setting->workspace, workspace)) {
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
	scene->ctx.max_output_width = max_width;
	scene->ctx.max_output_height = max_height;
}

static void update_outputs(struct veil_scene *scene) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		veil_output_update(output);
	}
}

/* Tears down everything but the handle: on veil_scene_destroy, or when the display goes. */
static void scene_finish(struct veil_scene *scene) {
	if (scene->display == NULL) {
		return;
	}
	veil_control_destroy(scene->control);
	veil_state_destroy(scene);
	veil_span_finish(scene);
	veil_slideshow_destroy_all(scene);
	veil_timed_destroy_all(scene);
	veil_package_load_cancel(scene, NULL, NULL);
	struct veil_output *output, *tmp_output;
	wl_list_for_each_safe(output, tmp_output, &scene->outputs, link) {
		veil_output_destroy(output);
	}
	struct veil_setting *setting, *tmp_setting;
	wl_list_for_each_safe(setting, tmp_setting, &scene->settings, link) {
		veil_setting_remove(setting);
	}
	struct veil_transition_default *dflt, *tmp_dflt;
	wl_list_for_each_safe(dflt, tmp_dflt, &scene->transition_defaults, link) {
		default_destroy(dflt);
	}
	veil_policy_finish(scene);
	/* Waits for the jobs that still run and the teardowns of the sources just released. */
	veil_worker_destroy(scene->ctx.worker);
	scene->ctx.worker = NULL;
	assert(wl_list_empty(&scene->ctx.sources));
	veil_decoders_finish(scene);
	wl_list_remove(&scene->display_destroy.link);
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	scene->display = NULL;
	scene->renderer = NULL;
	scene->ctx.renderer = NULL;
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, display_destroy);
	scene_finish(scene);
}

static void handle_renderer_destroy(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, renderer_destroy);
	/* Frames already made stay valid: they are plain memory or dmabufs, not textures. */
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	scene->renderer = NULL;
	scene->ctx.renderer = NULL;
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
	copy->mode = setting->mode;
	copy->color = setting->color;
	copy->has_transition = setting->has_transition;
	copy->transition = setting->transition;
	copy->loopfade_ms = setting->loopfade_ms;
	copy->span = setting->span;
	copy->filter = setting->filter;
	copy->has_location = setting->has_location;
	copy->latitude = setting->latitude;
	copy->longitude = setting->longitude;
	copy->full_size = setting->full_size;
	copy->video = setting->video;
	return copy;
}

/* A copy of a setting with another source (one reference taken). */
static struct veil_setting *setting_with_source(const struct veil_setting *setting,
		struct veil_source *source) {
	struct veil_setting *copy = veil_setting_copy_words(setting);
	if (copy == NULL) {
		return NULL;
	}
	if ((setting->workspace != NULL && (copy->workspace = strdup(setting->workspace)) == NULL) ||
			(setting->path != NULL && (copy->path = strdup(setting->path)) == NULL) ||
			(setting->label != NULL && (copy->label = strdup(setting->label)) == NULL) ||
			(setting->fd >= 0 && (copy->fd = fcntl(setting->fd, F_DUPFD_CLOEXEC, 0)) < 0)) {
		veil_setting_unref(copy);
		return NULL;
	}
	/* The same picture from a new renderer: no reason to fade. */
	copy->has_transition = true;
	copy->transition.kind = VEIL_TRANSITION_NONE;
	copy->source = veil_source_ref(source);
	/* The dark picture goes along as it is (a video there keeps the old renderer's frames). */
	copy->dark = setting->dark != NULL ? veil_setting_ref(setting->dark) : NULL;
	return copy;
}

/*
 * After a new renderer: the settings whose sources made frames for the old one get a new
 * source of the same file, which loads like any other. Outputs show the old frames until the
 * new source's first one (module/output.c), then let the old source go.
 */
static void reopen_sources(struct veil_scene *scene) {
	struct {
		struct veil_source *old, *fresh;
	} *pairs = calloc((size_t)wl_list_length(&scene->settings) + 1, sizeof(*pairs));
	if (pairs == NULL) {
		wlr_log(WLR_ERROR, "veil: out of memory: videos keep their old renderer's frames");
		return;
	}
	size_t n_pairs = 0;
	struct veil_setting *setting, *tmp;
	wl_list_for_each_safe(setting, tmp, &scene->settings, link) {
		struct veil_source *old = setting->source;
		if (old == NULL || old->impl->reopen == NULL) {
			continue;
		}
		/* Settings that share a source share its successor. */
		size_t i = 0;
		while (i < n_pairs && pairs[i].old != old) {
			i++;
		}
		if (i == n_pairs) {
			old->stale = true;
			pairs[n_pairs].old = old;
			pairs[n_pairs++].fresh = old->impl->reopen(old);
		}
		struct veil_setting *copy = pairs[i].fresh != NULL ?
			setting_with_source(setting, pairs[i].fresh) : NULL;
		if (copy == NULL) {
			continue;
		}
		wl_list_insert(&setting->link, &copy->link);
		veil_setting_remove(setting);
	}
	update_outputs(scene);
	for (size_t i = 0; i < n_pairs; i++) {
		veil_source_unref(pairs[i].fresh);
	}
	free(pairs);
	veil_scene_changed(scene);
}

void veil_scene_set_renderer(struct veil_scene *scene, struct wlr_renderer *renderer) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || renderer == scene->renderer) {
		return;
	}
	wl_list_remove(&scene->renderer_destroy.link);
	wl_list_init(&scene->renderer_destroy.link);
	if (renderer != NULL) {
		wl_signal_add(&renderer->events.destroy, &scene->renderer_destroy);
	}
	scene->renderer = renderer;
	scene->ctx.renderer = renderer;
	wlr_log(WLR_INFO, "veil: the compositor has a new renderer");
	reopen_sources(scene);
}

struct veil_scene *veil_scene_create(struct wl_display *display, struct wlr_renderer *renderer) {
	return veil_scene_create_with_options(display, renderer, NULL);
}

struct veil_scene *veil_scene_create_with_options(struct wl_display *display,
		struct wlr_renderer *renderer, const struct veil_scene_options *given) {
	if (display == NULL || !veil_wlroots_check()) {
		return NULL;
	}
	/* A compositor built against an older veil.h passes fewer fields: the rest stay 0. */
	struct veil_scene_options options = {0};
	if (given != NULL) {
		size_t size = given->size < sizeof(options) ? given->size : sizeof(options);
		memcpy(&options, given, size);
	}
	char *why = NULL;
	if (veil_gst_init(&why) < 0) {
		wlr_log(WLR_ERROR, "veil: cannot initialise GStreamer: %s",
			why != NULL ? why : "out of memory");
		free(why);
		return NULL;
	}

	struct veil_scene *scene = calloc(1, sizeof(*scene));
	if (scene == NULL) {
		return NULL;
	}
	scene->thread = pthread_self();
	scene->display = display;
	scene->renderer = renderer;
	scene->ctx.loop = wl_display_get_event_loop(display);
	scene->ctx.renderer = renderer;
	scene->ctx.worker = veil_worker_create(scene->ctx.loop);
	if (scene->ctx.worker == NULL) {
		free(scene);
		return NULL;
	}
	wl_list_init(&scene->ctx.sources);
	scene->ctx.changed = handle_source_changed;
	veil_decoders_init(scene, &options);
	scene->workspace_pictures = options.workspace_pictures == 0 ?
		VEIL_WORKSPACE_PICTURES_DEFAULT : options.workspace_pictures < 0 ? 0 :
		options.workspace_pictures;
	wl_list_init(&scene->outputs);
	wl_list_init(&scene->settings);
	wl_list_init(&scene->transition_defaults);
	wl_list_init(&scene->slideshows);
	wl_list_init(&scene->timed_shows);
	wl_list_init(&scene->package_loads);
	wl_signal_init(&scene->events.changed);
	wl_signal_init(&scene->events.clock_jump);
	wl_list_init(&scene->layout_change.link);
	wl_list_init(&scene->layout_destroy.link);
	if (!veil_policy_init(scene, &options)) {
		veil_policy_finish(scene);
		veil_worker_destroy(scene->ctx.worker);
		veil_decoders_finish(scene);
		free(scene);
		return NULL;
	}

	scene->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &scene->display_destroy);
	scene->renderer_destroy.notify = handle_renderer_destroy;
	if (renderer != NULL) {
		wl_signal_add(&renderer->events.destroy, &scene->renderer_destroy);
	} else {
		wl_list_init(&scene->renderer_destroy.link);
	}
	return scene;
}

void veil_scene_destroy(struct veil_scene *scene) {
	veil_scene_assert_thread(scene);
	if (scene == NULL) {
		return;
	}
	scene_finish(scene);
	free(scene);
}

bool veil_scene_add_output(struct veil_scene *scene, struct wlr_output *wlr_output,
		struct wlr_scene_tree *parent) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || wlr_output == NULL || parent == NULL) {
		return false;
	}
	struct veil_output *output = veil_output_find(scene, wlr_output);
	if (output != NULL) {
		if (output->tree != NULL) {
			wlr_scene_node_reparent(&output->tree->node, parent);
			return true;
		}
		/* The compositor destroyed the old parent: start again in the new one. */
		veil_output_destroy(output);
	}
	return veil_output_create(scene, wlr_output, parent) != NULL;
}

void veil_scene_remove_output(struct veil_scene *scene, struct wlr_output *wlr_output) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || wlr_output == NULL) {
		return;
	}
	veil_output_destroy(veil_output_find(scene, wlr_output));
}

/* Outputs a command names: the one with that name, or all of them for "*". */
static bool addresses(const char *name, const struct veil_output *output) {
	return strcmp(name, "*") == 0 || strcmp(name, output->output->name) == 0;
}

static int set_pause(struct veil_scene *scene, const char *name, bool paused, char **message) {
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

static void record_error(struct veil_scene *scene, const char *name, const char *message) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (addresses(name, output)) {
			veil_output_set_error(output, message);
		}
	}
}

void veil_scene_record_error(struct veil_scene *scene, const char *name, const char *message) {
	record_error(scene, name, message);
}

static bool setting_is_wildcard_off(const struct veil_setting *setting) {
	return setting->off && setting->workspace == NULL && strcmp(setting->name, "*") == 0;
}

/* What a workspace setting (and its dark picture) needs to load its files again. */
static bool workspace_origin(struct veil_setting *setting, const struct veil_command *cmd,
		int fd, const char *label) {
	bool full_size = cmd->mode == VEIL_MODE_CENTER || cmd->mode == VEIL_MODE_TILE ||
		cmd->mode == VEIL_MODE_INTEGER;
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
		setting->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		setting->label = strdup(label != NULL ? label : "(file descriptor)");
		if (setting->fd < 0 || setting->label == NULL) {
			return false;
		}
	} else if ((setting->path = strdup(cmd->path)) == NULL) {
		return false;
	}
	if (setting->dark != NULL && cmd->dark_path != NULL &&
			(setting->dark->path = strdup(cmd->dark_path)) == NULL) {
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
	setting->mode = cmd->mode;
	setting->color = cmd->color;
	setting->has_transition = cmd->has_transition;
	setting->transition = cmd->transition;
	setting->span = cmd->span;
	setting->loopfade_ms = cmd->loopfade_ms;
	setting->filter = cmd->filter;
	setting->has_location = cmd->has_location;
	setting->latitude = cmd->latitude;
	setting->longitude = cmd->longitude;
	setting->source = source;
	return setting;
}

/*
 * Replaces name's setting with a new one, which takes over source's reference (and dark's: the
 * dark scheme's picture, or NULL); or, for a wallpaper package, shows package's pictures.
 */
static int store_setting(struct veil_scene *scene, const char *name,
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
	if (cmd->has_dark_color) {
		/* `dark #rrggbb`: the dark scheme's setting is that colour alone. */
		struct veil_command color = *cmd;
		color.mode = VEIL_MODE_SOLID_COLOR;
		color.color = cmd->dark_color;
		if ((setting->dark = setting_create(name, &color, NULL)) == NULL) {
			veil_setting_unref(setting);
			return -ENOMEM;
		}
	}
	if (cmd->workspace != NULL && !workspace_origin(setting, cmd, fd, label)) {
		veil_setting_unref(setting);
		return -ENOMEM;
	}

	/* Errors of the commands before are void; the layout below may record new ones. */
	record_error(scene, name, NULL);

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
			same_workspace(other->workspace, setting->workspace);
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
	update_outputs(scene);
	/* Outputs that span with others: the canvas changes with who uses the setting. */
	veil_span_refresh(scene);
	wl_list_for_each_safe(other, tmp, &replaced, link) {
		veil_setting_remove(other);
	}
	return 0;
}

/* A directory starts a slideshow (module/slideshow.c): 1; 0 for a file; or a negative errno. */
static int run_directory(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	if (cmd->from_slideshow) {
		return 0;
	}
	bool directory = false, timed = false;
	int ret = 0;
	if (fd < 0) {
		ret = veil_timed_check(cmd, &timed, message);
	}
	if (ret == 0 && timed) {
		/* A GNOME timed background (module/timed.c): the slideshow of a directory ends. */
		veil_slideshow_stop(scene, output_name, false);
		ret = veil_timed_start(scene, output_name, cmd, message);
		if (ret == 0) {
			veil_state_forget(scene, output_name);
			record_error(scene, output_name, NULL);
			return 1;
		}
	} else if (ret < 0) {
		/* Said below. */
	} else if (fd >= 0 && cmd->has_slideshow) {
		veil_message_set(message, "every, order and recursive are for a directory of "
			"pictures, not for '%s'", label != NULL ? label : "a file");
		ret = -EINVAL;
	} else if (fd < 0) {
		ret = veil_slideshow_check(cmd, &directory, message);
	}
	if (ret == 0 && directory && (cmd->dark_path != NULL || cmd->has_dark_color)) {
		veil_message_set(message, "dark names one picture: a slideshow of '%s' cannot have "
			"one", cmd->path);
		ret = -EINVAL;
	} else if (ret == 0 && directory) {
		veil_timed_stop(scene, output_name, false);
		ret = veil_slideshow_start(scene, output_name, cmd, message);
		if (ret == 0) {
			veil_state_forget(scene, output_name);
			record_error(scene, output_name, NULL);
			return 1;
		}
	}
	if (ret < 0) {
		wlr_log(WLR_ERROR, "veil: output %s: %s", output_name,
			*message != NULL ? *message : "failed");
		record_error(scene, output_name, *message);
	}
	return ret;
}

/*
 * Light or dark: outputs whose setting has a `dark` picture move to the scheme's, as to a new
 * setting (loading, then the setting's transition); the others keep theirs.
 */
static void set_dark(struct veil_scene *scene, bool dark) {
	if (scene->dark == dark) {
		return;
	}
	scene->dark = dark;
	wlr_log(WLR_INFO, "veil: the %s scheme", dark ? "dark" : "light");
	update_outputs(scene);
	veil_span_refresh(scene);
}

void veil_scene_set_dark(struct veil_scene *scene, bool dark) {
	if (scene == NULL || scene->display == NULL) {
		return;
	}
	set_dark(scene, dark);
	veil_scene_changed(scene);
}

void veil_scene_set_location(struct veil_scene *scene, double latitude, double longitude) {
	if (scene == NULL || scene->display == NULL || !(latitude >= -90.0 && latitude <= 90.0) ||
			!(longitude >= -180.0 && longitude <= 180.0)) {
		return;
	}
	if (scene->has_location && scene->latitude == latitude &&
			scene->longitude == longitude) {
		return;
	}
	scene->has_location = true;
	scene->latitude = latitude;
	scene->longitude = longitude;
	wlr_log(WLR_INFO, "veil: the compositor's location is %.4f, %.4f", latitude, longitude);
	veil_timed_location_changed(scene);
	veil_scene_changed(scene);
}

static int run(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	*message = NULL;
	if (scene == NULL || scene->display == NULL) {
		veil_message_set(message, "veil is not running");
		return -ENODEV;
	}
	if (output_name == NULL || output_name[0] == '\0') {
		veil_message_set(message, "Missing output name: use `output <name|*> veil ...`");
		return -EINVAL;
	}

	int ret = 0;
	struct veil_source *source = NULL, *dark = NULL;
	struct veil_package *package = NULL;
	if (cmd->kind == VEIL_COMMAND_SET && cmd->span && scene->output_layout == NULL) {
		veil_message_set(message, "span needs the compositor's output layout, which it has "
			"not given veil (veil_scene_set_output_layout)");
		record_error(scene, output_name, *message);
		return -EINVAL;
	}
	switch (cmd->kind) {
	case VEIL_COMMAND_PAUSE:
	case VEIL_COMMAND_RESUME:
		return set_pause(scene, output_name, cmd->kind == VEIL_COMMAND_PAUSE, message);
	case VEIL_COMMAND_TRANSITION:
		ret = set_default(scene, output_name, &cmd->transition);
		if (ret < 0) {
			veil_message_set(message, "Out of memory");
		}
		return ret;
	case VEIL_COMMAND_NEXT:
	case VEIL_COMMAND_PREVIOUS:
		return veil_slideshow_move(scene, output_name, cmd->kind == VEIL_COMMAND_NEXT ?
			1 : -1, message);
	case VEIL_COMMAND_RESTORE:
		return veil_state_restore(scene, output_name, cmd->fallback, message);
	case VEIL_COMMAND_FPS:
	case VEIL_COMMAND_BATTERY:
		ret = veil_policy_set(scene, output_name, cmd);
		if (ret < 0) {
			veil_message_set(message, "Out of memory");
		}
		return ret;
	case VEIL_COMMAND_SCHEME:
		/* The whole scene's, whichever output the command names. */
		set_dark(scene, cmd->dark);
		return 0;
	case VEIL_COMMAND_OFF:
		break;
	case VEIL_COMMAND_SET:
		/*
		 * A wallpaper package (module/package.c): one picture chosen per output. It and
		 * GNOME's XML are read on a worker first (module/package_load.c): 1.
		 */
		ret = fd < 0 ? veil_package_load(scene, output_name, cmd, &package, message) : 0;
		if (ret < 0) {
			wlr_log(WLR_ERROR, "veil: output %s: %s", output_name, *message);
			record_error(scene, output_name, *message);
			return ret;
		}
		if (ret > 0) {
			return 0;
		}
		if (package != NULL) {
			break;
		}
		if (cmd->workspace != NULL && fd < 0 && cmd->mode != VEIL_MODE_SOLID_COLOR) {
			bool directory = false, timed = false;
			ret = veil_timed_check(cmd, &timed, message);
			if (ret == 0 && timed) {
				veil_message_set(message, "'%s' is a timed background: a workspace "
					"shows one picture or video (timed backgrounds are for whole "
					"outputs)", cmd->path);
				ret = -EINVAL;
			}
			if (ret == 0) {
				ret = veil_slideshow_check(cmd, &directory, message);
			}
			if (ret == 0 && directory) {
				veil_message_set(message, "'%s' is a directory: a workspace shows one "
					"picture or video (slideshows are for whole outputs)", cmd->path);
				ret = -EINVAL;
			}
			if (ret < 0) {
				return ret;
			}
		}
		ret = run_directory(scene, output_name, cmd, fd, label, message);
		if (ret != 0) {
			/* A slideshow started (1), or the words were wrong for the path. */
			return ret < 0 ? ret : 0;
		}
		if (cmd->mode == VEIL_MODE_SOLID_COLOR) {
			break;
		}
		bool full_size = cmd->mode == VEIL_MODE_CENTER || cmd->mode == VEIL_MODE_TILE ||
			cmd->mode == VEIL_MODE_INTEGER;
		/* Across outputs, a still is decoded for the whole layout rather than one output. */
		int max_width = scene->ctx.max_output_width;
		int max_height = scene->ctx.max_output_height;
		if (cmd->span) {
			int w, h;
			veil_span_max_size(scene, &w, &h);
			scene->ctx.max_output_width = w > max_width ? w : max_width;
			scene->ctx.max_output_height = h > max_height ? h : max_height;
		}
		if (fd >= 0) {
			char *name = strdup(label != NULL ? label : "(file descriptor)");
			source = name != NULL ?
				veil_source_open_fd(&scene->ctx, fd, name, full_size, cmd->filter,
				&ret, message) :
				NULL;
		} else {
			source = veil_source_open_item(&scene->ctx, cmd->path, cmd->item, full_size,
				cmd->filter, &ret, message);
		}
		if (source != NULL && cmd->dark_path != NULL) {
			dark = veil_source_open_item(&scene->ctx, cmd->dark_path, cmd->dark_item,
				full_size, cmd->filter, &ret, message);
			if (dark == NULL) {
				veil_source_unref(source);
				source = NULL;
			}
		}
		scene->ctx.max_output_width = max_width;
		scene->ctx.max_output_height = max_height;
		if (source == NULL) {
			if (ret == 0) {
				ret = -ENOMEM;
			}
			wlr_log(WLR_ERROR, "veil: output %s: %s", output_name,
				*message != NULL ? *message : "failed");
			record_error(scene, output_name, *message);
			return ret;
		}
		break;
	}
	if (!cmd->from_slideshow && cmd->workspace == NULL) {
		/* What a restore showed is replaced: the status no longer speaks of it. */
		veil_state_forget(scene, output_name);
		/* The name's slideshow ends; `output * veil off` ends them all. */
		veil_slideshow_stop(scene, output_name, cmd->kind == VEIL_COMMAND_OFF &&
			strcmp(output_name, "*") == 0);
		veil_timed_stop(scene, output_name, cmd->kind == VEIL_COMMAND_OFF &&
			strcmp(output_name, "*") == 0);
	}
	ret = store_setting(scene, output_name, cmd, source, dark, package, fd, label);
	veil_package_unref(package);
	if (ret == -ENOMEM) {
		veil_message_set(message, "Out of memory");
	}
	/* Pictures of workspaces no output is near may go; the new one may be near one. */
	veil_workspace_trim(scene);
	return ret;
}

int veil_scene_run(struct veil_scene *scene, const char *output_name,
		const struct veil_command *cmd, int fd, const char *label, char **message) {
	if (scene != NULL && scene->display != NULL && output_name != NULL) {
		veil_state_supersede(scene, output_name, cmd);
		if (!cmd->from_slideshow && (cmd->kind == VEIL_COMMAND_SET ||
				cmd->kind == VEIL_COMMAND_OFF || cmd->kind == VEIL_COMMAND_RESTORE)) {
			/* A package or XML still being read for the name is superseded. */
			veil_package_load_cancel(scene, output_name, cmd);
		}
	}
	int ret = run(scene, output_name, cmd, fd, label, message);
	if (ret < 0 && cmd->workspace != NULL && *message != NULL) {
		/* Which setting failed: the workspace keeps what it had (or the output's). */
		char *said = veil_message("Workspace '%s': %s", cmd->workspace, *message);
		if (said != NULL) {
			free(*message);
			*message = said;
			if (scene != NULL && scene->display != NULL) {
				record_error(scene, output_name, said);
			}
		}
	}
	/* Messages name files, whose names need not be UTF-8; replies are JSON. */
	veil_message_sanitize(*message);
	return ret;
}

int veil_scene_command(struct veil_scene *scene, const char *output_name,
		int argc, char *argv[], char **message) {
	veil_scene_assert_thread(scene);
	char *unused = NULL;
	if (message == NULL) {
		message = &unused;
	}
	*message = NULL;
	struct veil_command cmd = {0};
	int ret = veil_command_parse(argc, argv, &cmd, message);
	if (ret == 0) {
		ret = veil_scene_run(scene, output_name, &cmd, -1, NULL, message);
		/* A NULL scene (veil_scene_create() failed) answers "veil is not running". */
		if (scene != NULL) {
			veil_scene_changed(scene);
		}
	}
	veil_command_finish(&cmd);
	free(unused);
	return ret;
}

int veil_scene_check(struct veil_scene *scene, int argc, char *argv[], char **message) {
	veil_scene_assert_thread(scene);
	char *unused = NULL;
	if (message == NULL) {
		message = &unused;
	}
	*message = NULL;
	struct veil_command cmd = {0};
	int ret = veil_command_parse(argc, argv, &cmd, message);
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && cmd.span && scene != NULL &&
			scene->display != NULL && scene->output_layout == NULL) {
		/* As veil_scene_command() would say; without a scene, the command decides. */
		veil_message_set(message, "span needs the compositor's output layout, which it has "
			"not given veil (veil_scene_set_output_layout)");
		ret = -EINVAL;
	}
	bool directory = false, timed = false;
	if (ret == 0) {
		/*
		 * A package or GNOME's XML is only stat()ed here: it is read on a worker when the
		 * command runs, and its pictures are checked when an output picks one.
		 */
		ret = veil_package_check(&cmd, &directory, &timed, message);
	}
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && !directory && !timed) {
		ret = veil_timed_check(&cmd, &timed, message);
	}
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && !timed && !directory) {
		ret = veil_slideshow_check(&cmd, &directory, message);
	}
	if (ret == 0 && cmd.kind == VEIL_COMMAND_SET && cmd.mode != VEIL_MODE_SOLID_COLOR &&
			!directory && !timed) {
		ret = veil_source_check(cmd.path, message);
	}
	if (ret == 0 && directory && (cmd.dark_path != NULL || cmd.has_dark_color)) {
		veil_message_set(message, "dark names one picture: a slideshow of '%s' cannot have "
			"one", cmd.path);
		ret = -EINVAL;
	}
	if (ret == 0 && cmd.dark_path != NULL) {
		ret = veil_source_check(cmd.dark_path, message);
	}
	/* restore's fallback file: checked as if it were the command. */
	const struct veil_command *fallback = cmd.fallback;
	if (ret == 0 && cmd.kind == VEIL_COMMAND_RESTORE && fallback != NULL &&
			fallback->path != NULL) {
		ret = veil_slideshow_check(fallback, &directory, message);
		if (ret == 0 && !directory) {
			ret = veil_source_check(fallback->path, message);
		}
	}
	veil_command_finish(&cmd);
	veil_message_sanitize(*message);
	free(unused);
	return ret;
}
