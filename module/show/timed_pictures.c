/*
 * A timed show's pictures: each change's pictures held open until they are decoded, then set for
 * the show's name through the core (veil_scene_apply()), a transition slot as a fade joined as
 * far in as the clock is; a failure said on the show's outputs.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/show/timed_show.h"
#include "util/message.h"

void veil_timed_set_error(struct veil_timed_show *show, const char *error) {
	free(show->error);
	show->error = error != NULL ? strdup(error) : NULL;
	struct veil_output *output;
	wl_list_for_each(output, &show->scene->outputs, link) {
		if (strcmp(show->name, "*") == 0 || strcmp(show->name, output->output->name) == 0) {
			veil_output_set_error(output, error);
		}
	}
	veil_scene_changed(show->scene);
}

/* A failure of one of the show's pictures: said in the log and on the show's outputs. */
void veil_timed_fail(struct veil_timed_show *show, const char *why) {
	char *said = veil_message("'%s': %s", show->path, why);
	wlr_log(WLR_ERROR, "veil: timed %s: %s", show->name, said != NULL ? said : "");
	veil_timed_set_error(show, said);
	free(said);
}

void veil_timed_release(struct veil_timed_held *held) {
	if (held->source != NULL) {
		wl_list_remove(&held->frame.link);
		wl_list_init(&held->frame.link);
		veil_source_unref(held->source);
		held->source = NULL;
	}
	free(held->path);
	held->path = NULL;
	held->item = 0;
}

static void handle_held_frame(struct wl_listener *listener, void *data) {
	struct veil_timed_held *held = wl_container_of(listener, held, frame);
	/* In the source's emission: the change waiting for it runs once that is over. */
	if (held->show->waiting) {
		veil_timed_update_soon(held->show);
	}
}

static bool full_size(const struct veil_timed_show *show) {
	return show->step.look.mode == VEIL_MODE_CENTER || show->step.look.mode == VEIL_MODE_TILE ||
		show->step.look.mode == VEIL_MODE_INTEGER;
}

/* Keeps path open in held (already, or now); false with the error when it cannot be. */
bool veil_timed_hold(struct veil_timed_show *show, struct veil_timed_held *held,
		const char *path, int item) {
	if (path == NULL) {
		veil_timed_release(held);
		return true;
	}
	if (held->path != NULL && strcmp(held->path, path) == 0 && held->item == item) {
		return true;
	}
	veil_timed_release(held);
	int err = 0;
	char *message = NULL;
	struct veil_source *source = veil_source_open_item(&show->scene->ctx, path, item,
		full_size(show), show->step.look.filter,
		veil_scene_cover(show->scene, &show->step.look), &err, &message);
	if (source == NULL) {
		veil_timed_fail(show, message != NULL ? message : "out of memory");
		free(message);
		return false;
	}
	held->path = strdup(path);
	held->item = item;
	held->source = source;
	held->show = show;
	held->frame.notify = handle_held_frame;
	wl_signal_add(&source->events.frame, &held->frame);
	return true;
}

/* Whether a held picture is decoded; an error is said (the change is passed over). */
static bool ready(struct veil_timed_show *show, struct veil_timed_held *held, bool *failed) {
	if (held->source == NULL) {
		return true;
	}
	if (held->source->error != NULL) {
		veil_timed_fail(show, held->source->error);
		*failed = true;
		return false;
	}
	return held->source->frame != NULL;
}

/*
 * Holds two pictures (a path NULL for none) until both are decoded: true once they are, or
 * once one failed (*failed, said); false while they decode (the show waits, and their first
 * frames come back through handle_held_frame).
 */
bool veil_timed_hold_both(struct veil_timed_show *show, const char *a, int a_item, const char *b,
		int b_item, bool *failed) {
	*failed = !veil_timed_hold(show, &show->held[0], a, a_item) ||
		!veil_timed_hold(show, &show->held[1], b, b_item);
	bool ok = !*failed && ready(show, &show->held[0], failed) &&
		ready(show, &show->held[1], failed);
	if (!ok && !*failed) {
		show->waiting = true;
		veil_scene_changed(show->scene);
		return false;
	}
	show->waiting = false;
	return true;
}

/*
 * Sets path (its item-th image) for the show's name, with dark_item of path as its dark picture
 * when not 0; spec NULL: the command's own transition. sizes: the <size> choices path is the
 * largest of, each output showing the one that fits it (module/core/package.c); or NULL.
 */
bool veil_timed_set_picture(struct veil_timed_show *show, const char *path, int item,
		int dark_item, const struct veil_transition_spec *spec, struct veil_package *sizes) {
	struct veil_command cmd = show->step;
	cmd.package = sizes;
	cmd.path = (char *)path;
	cmd.item = item;
	cmd.look.dark_path = dark_item != 0 ? (char *)path : NULL;
	cmd.dark_item = dark_item;
	cmd.from_slideshow = true;
	if (spec != NULL) {
		cmd.look.has_transition = true;
		cmd.look.transition = *spec;
	}
	char *message = NULL;
	int ret = veil_scene_apply(show->scene, show->name, &cmd, &message);
	if (ret < 0) {
		veil_timed_fail(show, message != NULL ? message : "failed");
		free(message);
		return false;
	}
	free(message);
	free(show->shown);
	show->shown = strdup(path);
	show->shown_item = item;
	return true;
}

/* A static slot's picture already shows: a fade towards it that still runs ends now. */
static void end_fades(struct veil_timed_show *show) {
	struct veil_output *output;
	wl_list_for_each(output, &show->scene->outputs, link) {
		const struct veil_setting *setting = output->setting;
		if (output->transition != NULL && setting != NULL && setting->workspace == NULL &&
				strcmp(setting->name, show->name) == 0) {
			veil_output_end_transition(output);
		}
	}
}

/*
 * The slot's picture decoded ahead of its change: none for <size> choices, which each output
 * opens as it picks one.
 */
const char *veil_timed_held_to(const struct veil_timed_slot *slot) {
	return slot->n_sizes > 0 ? NULL : slot->to;
}

/* Puts the slot due on screen (its pictures decoded). */
bool veil_timed_apply(struct veil_timed_show *show, const struct veil_timed_slot *slot,
		const struct veil_timed_point *point) {
	bool same = show->shown != NULL && strcmp(show->shown, slot->to) == 0 &&
		show->shown_item == slot->to_item;
	if (slot->kind == VEIL_TIMED_STATIC) {
		if (same) {
			end_fades(show);
			return true;
		}
		struct veil_package *sizes = slot->n_sizes > 0 ?
			veil_package_create(show->path, slot->sizes, slot->n_sizes) : NULL;
		if (slot->n_sizes > 0 && sizes == NULL) {
			veil_timed_fail(show, "out of memory");
			return false;
		}
		bool ok = veil_timed_set_picture(show, slot->to, slot->to_item, 0, NULL, sizes);
		veil_package_unref(sizes);
		return ok;
	}
	if (show->shown == NULL || strcmp(show->shown, slot->from) != 0 ||
			show->shown_item != slot->from_item) {
		/* Joined during the fade (or the clock jumped into it): from whole first. */
		struct veil_transition_spec cut = { .kind = VEIL_TRANSITION_NONE };
		if (!veil_timed_set_picture(show, slot->from, slot->from_item, 0, &cut, NULL)) {
			return false;
		}
	}
	struct veil_transition_spec fade = {
		.kind = VEIL_TRANSITION_FADE,
		.ms = slot->duration_ms > INT_MAX ? INT_MAX : (int)slot->duration_ms,
		.skip_ms = point->into_ms > INT_MAX ? INT_MAX : (int)point->into_ms,
	};
	if (show->step.look.has_transition) {
		fade.ease = show->step.look.transition.ease;
	}
	return veil_timed_set_picture(show, slot->to, slot->to_item, 0, &fade, NULL);
}
