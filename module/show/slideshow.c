/*
 * A slideshow: a directory's pictures on the outputs of one name, changed at an interval.
 *
 * Each step is a command, as a person would give it: `veil <file> <mode> <colour>` with the
 * show's transition (or none: the output's default), shown through veil_scene_apply(). The picture
 * after the one on screen is opened ahead (its source decodes on a worker and keeps its frame),
 * so that at the step the command finds it decoded and the change is at once. After each step
 * the directory is read again on a worker (module/show/slideshow_scan.c), which also checks each
 * new file as a command would; the next picture is then picked (module/show/slideshow_order.c) and
 * opened. Files that cannot be shown are logged and passed over.
 *
 * The timer wakes the compositor once per step. When it fires while no output of the show has
 * a visible node (covered, disabled, or no output), the step is deferred: nothing is decoded,
 * the timer is not armed again, and the step happens when an output shows the show again (the
 * scene's changed signal says so), then the interval starts anew.
 *
 * This file is the running show: its lifecycle, steps, timer and next/previous. What the show
 * says of itself (its status, its part of the state file) and `veil restore`'s resume, which
 * runs nothing and only sets where the first step starts, are module/show/slideshow_state.c;
 * the struct both files share is module/show/slideshow_show.h.
 */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/core/package.h"
#include "module/core/scene.h"
#include "module/show/slideshow.h"
#include "module/show/slideshow_order.h"
#include "module/show/slideshow_scan.h"
#include "module/show/slideshow_show.h"
#include "util/message.h"

static void advance(struct veil_slideshow *show);

static bool addresses(const char *name, const struct veil_output *output) {
	return strcmp(name, "*") == 0 || strcmp(name, output->output->name) == 0;
}

struct veil_slideshow *veil_slideshow_find(struct veil_scene *scene, const char *name) {
	struct veil_slideshow *show;
	wl_list_for_each(show, &scene->slideshows, link) {
		if (strcmp(show->name, name) == 0) {
			return show;
		}
	}
	return NULL;
}

/* Whether some output showing the show's setting has a visible node. */
static bool visible(const struct veil_slideshow *show) {
	struct veil_output *output;
	wl_list_for_each(output, &show->scene->outputs, link) {
		const struct veil_setting *setting = output->setting;
		if (setting != NULL && setting->workspace == NULL &&
				strcmp(setting->name, show->name) == 0 && output->viewing) {
			return true;
		}
	}
	return false;
}

static void set_error(struct veil_slideshow *show, char *error) {
	free(show->error);
	show->error = error;
	struct veil_output *output;
	wl_list_for_each(output, &show->scene->outputs, link) {
		if (addresses(show->name, output)) {
			veil_output_set_error(output, error);
		}
	}
	veil_scene_changed(show->scene);
}

static void schedule(struct veil_slideshow *show);

static void arm_timer(struct veil_slideshow *show) {
	int ms = show->step.slideshow.every_s * 1000;
	wl_event_source_timer_update(show->timer, ms);
	clock_gettime(CLOCK_MONOTONIC, &show->due);
	show->due.tv_sec += show->step.slideshow.every_s;
	show->has_due = true;
}

static void drop_ahead(struct veil_slideshow *show) {
	if (show->ahead == NULL) {
		return;
	}
	wl_list_remove(&show->ahead_frame.link);
	wl_list_init(&show->ahead_frame.link);
	veil_source_unref(show->ahead);
	show->ahead = NULL;
	free(show->ahead_slide.path);
	show->ahead_slide.path = NULL;
	veil_package_unref(show->ahead_slide.package);
	show->ahead_slide.package = NULL;
}

static void handle_ahead_frame(struct wl_listener *listener, void *data) {
	struct veil_slideshow *show = wl_container_of(listener, show, ahead_frame);
	/* In the source's emission: the step, or the next try, runs once it is over. */
	if (show->step_wanted || show->ahead->error != NULL) {
		schedule(show);
	}
}

static void mark_bad(struct veil_slideshow *show, const char *path) {
	for (size_t i = 0; i < show->n_slides; i++) {
		if (strcmp(show->slides[i].path, path) == 0) {
			show->slides[i].bad = true;
		}
	}
}

static bool full_size(const struct veil_slideshow *show) {
	return show->step.look.mode == VEIL_MODE_CENTER || show->step.look.mode == VEIL_MODE_TILE ||
		show->step.look.mode == VEIL_MODE_INTEGER;
}

/*
 * Opens a slide's picture to cover what the show's outputs need now (for a package read by the
 * scan, on a worker: its picture for the largest output); NULL with *message when it cannot be.
 */
static struct veil_source *open_slide(struct veil_slideshow *show, const char *path,
		const struct veil_package *package, char **message) {
	int err = 0;
	char *picture = NULL;
	struct veil_source *source = veil_package_ahead(show->scene, package, &picture,
		message) == 0 ? veil_source_open(&show->scene->ctx,
		picture != NULL ? picture : path, full_size(show), show->step.look.filter,
		veil_scene_cover(show->scene, &show->step.look), &err, message) : NULL;
	free(picture);
	return source;
}

/*
 * Opens the picture after (or before) the one on screen: its source starts decoding on a
 * worker. Files whose header is wrong are marked and passed over. False when none is left.
 */
static bool prepare_ahead(struct veil_slideshow *show, int direction) {
	drop_ahead(show);
	const struct veil_slide *current = show->current.path != NULL ? &show->current : NULL;
	for (size_t tries = 0; tries <= show->n_slides; tries++) {
		long at = -1;
		if (show->resume_path != NULL && current == NULL) {
			for (size_t i = 0; i < show->n_slides && at < 0; i++) {
				if (!show->slides[i].bad &&
						strcmp(show->slides[i].path, show->resume_path) == 0) {
					at = (long)i;
				}
			}
			free(show->resume_path);
			show->resume_path = NULL;
		}
		if (at < 0) {
			at = veil_slide_order_pick(&show->order, show->slides, show->n_slides,
				current, direction);
		}
		if (at < 0) {
			return false;
		}
		struct veil_slide *slide = &show->slides[at];
		char *message = NULL;
		struct veil_source *source = open_slide(show, slide->path, slide->package,
			&message);
		if (source == NULL) {
			wlr_log(WLR_ERROR, "veil: slideshow %s: skipping: %s", show->dir,
				message != NULL ? message : "out of memory");
			free(message);
			slide->bad = true;
			continue;
		}
		show->ahead_slide = *slide;
		show->ahead_slide.package = NULL;
		show->ahead_slide.path = strdup(slide->path);
		if (show->ahead_slide.path == NULL) {
			veil_source_unref(source);
			return false;
		}
		if (slide->package != NULL) {
			show->ahead_slide.package = veil_package_ref(slide->package);
		}
		show->ahead = source;
		show->ahead_direction = direction;
		wl_signal_add(&source->events.frame, &show->ahead_frame);
		return true;
	}
	return false;
}

static void submit_scan(struct veil_slideshow *show);

/* The picture ahead goes on screen: a command for the show's name, as a person's would. */
static bool apply(struct veil_slideshow *show) {
	struct veil_command cmd = show->step;
	cmd.path = show->ahead_slide.path;
	/* A package as the scan read it: the step reads nothing. */
	cmd.package = show->ahead_slide.package;
	cmd.from_slideshow = true;
	char *message = NULL;
	int ret = veil_scene_apply(show->scene, show->name, &cmd, &message);
	if (ret < 0) {
		wlr_log(WLR_ERROR, "veil: slideshow %s: skipping: %s", show->dir,
			message != NULL ? message : "failed");
		free(message);
		return false;
	}
	free(message);
	int direction = show->ahead_direction;
	free(show->current.path);
	show->current = show->ahead_slide;
	/* The setting holds the package now. */
	veil_package_unref(show->current.package);
	show->current.package = NULL;
	show->ahead_slide.path = NULL;
	show->ahead_slide.package = NULL;
	/* The setting holds the source now. */
	drop_ahead(show);
	veil_slide_order_shown(&show->order, show->current.path, direction);
	show->step_wanted = false;
	show->deferred = false;
	show->empty = false;
	free(show->error);
	show->error = NULL;
	wlr_log(WLR_DEBUG, "veil: slideshow %s: %s", show->dir, show->current.path);
	arm_timer(show);
	/* Files added or removed since: the next picture is picked from a new reading. */
	submit_scan(show);
	veil_scene_changed(show->scene);
	return true;
}

/* Nothing can be shown: the wallpaper stays, the error names the directory. */
static void report_empty(struct veil_slideshow *show, const char *why) {
	show->empty = true;
	char *error = why != NULL ? strdup(why) : veil_message("'%s' has no image or video veil "
		"can show", show->dir);
	wlr_log(WLR_ERROR, "veil: slideshow for %s: %s", show->name,
		error != NULL ? error : "nothing to show");
	set_error(show, error);
	/* Looked at again at the interval (one wake-up), in case pictures come. */
	arm_timer(show);
}

/* Moves on to the picture ahead once the step is wanted and the picture is ready. */
static void advance(struct veil_slideshow *show) {
	while (show->step_wanted) {
		if (show->ahead == NULL || show->ahead_direction != show->wanted_direction) {
			if (!prepare_ahead(show, show->wanted_direction)) {
				/* A new reading of the directory decides. */
				submit_scan(show);
				return;
			}
		}
		struct veil_source *source = show->ahead;
		if (source->error != NULL) {
			/* The header was right, the decoding failed: passed over. */
			wlr_log(WLR_ERROR, "veil: slideshow %s: skipping: %s", show->dir,
				source->error);
			mark_bad(show, show->ahead_slide.path);
			drop_ahead(show);
			continue;
		}
		if (source->frame == NULL) {
			/* Still decoding: its frame event comes back here. */
			return;
		}
		struct stat st;
		if (stat(show->ahead_slide.path, &st) != 0) {
			/* Removed since it was decoded: not shown. */
			mark_bad(show, show->ahead_slide.path);
			drop_ahead(show);
			continue;
		}
		if (!apply(show)) {
			mark_bad(show, show->ahead_slide.path);
			drop_ahead(show);
		}
	}
}

static void handle_scan_done(struct veil_slideshow_scan *scan, void *data) {
	struct veil_slideshow *show = data;
	show->scan = NULL;
	for (size_t i = 0; i < scan->n_skipped; i++) {
		wlr_log(WLR_ERROR, "veil: slideshow %s: skipping: %s", show->dir,
			scan->skipped[i]);
	}
	veil_slides_free(show->slides, show->n_slides);
	show->slides = scan->slides;
	show->n_slides = scan->n_slides;
	scan->slides = NULL;
	scan->n_slides = 0;
	char *why = scan->error;
	scan->error = NULL;
	veil_slideshow_scan_destroy(scan);

	size_t usable = 0;
	for (size_t i = 0; i < show->n_slides; i++) {
		usable += !show->slides[i].bad;
	}
	if (show->rescan) {
		show->rescan = false;
		submit_scan(show);
	}
	if (why != NULL || usable == 0) {
		drop_ahead(show);
		report_empty(show, why);
		free(why);
		return;
	}
	if (show->empty) {
		/* Pictures again: the next step shows one. */
		show->empty = false;
		set_error(show, NULL);
	}
	if (show->step_wanted) {
		advance(show);
	} else if (show->ahead == NULL) {
		/* Decoded ahead, for the next step. */
		prepare_ahead(show, 1);
	}
}

static void submit_scan(struct veil_slideshow *show) {
	if (show->scan != NULL) {
		show->rescan = true;
		return;
	}
	struct veil_slideshow_scan *scan = veil_slideshow_scan_create(show->dir,
		show->step.slideshow.recursive, show->step.slideshow.order, show->slides,
		show->n_slides, handle_scan_done, show);
	if (scan == NULL) {
		wlr_log(WLR_ERROR, "veil: slideshow %s: out of memory", show->dir);
		return;
	}
	show->scan = scan;
	veil_slideshow_scan_submit(show->scene->ctx.worker, scan);
}

static void step(struct veil_slideshow *show, int direction) {
	show->step_wanted = true;
	show->wanted_direction = direction;
	show->deferred = false;
	advance(show);
	veil_scene_changed(show->scene);
}

static int handle_timer(void *data) {
	struct veil_slideshow *show = data;
	show->has_due = false;
	if (!visible(show)) {
		/* Nobody would see it: the step waits until an output shows the show again. */
		show->deferred = true;
		veil_scene_changed(show->scene);
		return 0;
	}
	step(show, 1);
	return 0;
}

/*
 * The picture ahead failed to decode before its step: the one after it is opened, so that the
 * step still finds a decoded picture.
 */
static void replace_failed_ahead(struct veil_slideshow *show) {
	while (show->ahead != NULL && show->ahead->error != NULL) {
		int direction = show->ahead_direction;
		wlr_log(WLR_ERROR, "veil: slideshow %s: skipping: %s", show->dir,
			show->ahead->error);
		mark_bad(show, show->ahead_slide.path);
		if (!prepare_ahead(show, direction)) {
			drop_ahead(show);
		}
	}
}

static void handle_idle(void *data) {
	struct veil_slideshow *show = data;
	show->idle = NULL;
	if (show->deferred && visible(show)) {
		step(show, 1);
		return;
	}
	if (!show->step_wanted) {
		replace_failed_ahead(show);
		return;
	}
	advance(show);
}

static void schedule(struct veil_slideshow *show) {
	if (show->idle != NULL) {
		return;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(show->scene->display);
	show->idle = wl_event_loop_add_idle(loop, handle_idle, show);
}

/*
 * The outputs grew: a picture ahead shrunk for the smaller size would be shown scaled up at the
 * step, or decoded then. It is decoded again now to cover the new size (the same slide: the
 * order is not disturbed), and the step stays at once; the old one is let go. When the file
 * cannot be opened again the picture ahead is dropped, and the step opens the next one.
 */
static void grow_ahead(struct veil_slideshow *show) {
	struct veil_source *old = show->ahead;
	if (old == NULL || old->error != NULL ||
			veil_source_covers(old, veil_scene_cover(show->scene, &show->step.look))) {
		return;
	}
	char *message = NULL;
	struct veil_source *fresh = open_slide(show, show->ahead_slide.path,
		show->ahead_slide.package, &message);
	if (fresh == NULL) {
		wlr_log(WLR_ERROR, "veil: slideshow %s: the picture ahead is not decoded again "
			"for the larger output: %s", show->dir,
			message != NULL ? message : "out of memory");
		free(message);
		drop_ahead(show);
		return;
	}
	wl_list_remove(&show->ahead_frame.link);
	show->ahead = fresh;
	wl_signal_add(&fresh->events.frame, &show->ahead_frame);
	veil_source_unref(old);
}

static void handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_slideshow *show = wl_container_of(listener, show, scene_changed);
	grow_ahead(show);
	if (show->deferred && visible(show)) {
		schedule(show);
	}
}

static void show_destroy(struct veil_slideshow *show) {
	if (show == NULL) {
		return;
	}
	if (show->scan != NULL) {
		veil_slideshow_scan_cancel(show->scan);
	}
	drop_ahead(show);
	if (show->timer != NULL) {
		wl_event_source_remove(show->timer);
	}
	if (show->idle != NULL) {
		wl_event_source_remove(show->idle);
	}
	wl_list_remove(&show->scene_changed.link);
	wl_list_remove(&show->link);
	veil_slides_free(show->slides, show->n_slides);
	veil_slide_order_finish(&show->order);
	free(show->current.path);
	free(show->resume_path);
	free(show->error);
	free(show->dir);
	free(show->name);
	free(show);
}

int veil_slideshow_check(const struct veil_command *cmd, bool *directory, char **message) {
	*directory = false;
	struct stat st;
	int found = cmd->path != NULL ? stat(cmd->path, &st) : -1;
	if (found != 0 && cmd->path != NULL && cmd->has_slideshow) {
		int err = errno;
		veil_message_set(message, "Cannot open the directory '%s': %s", cmd->path,
			strerror(err));
		return -err;
	}
	if (found == 0 && S_ISDIR(st.st_mode)) {
		if (access(cmd->path, R_OK | X_OK) != 0) {
			int err = errno;
			veil_message_set(message, "Cannot read the directory '%s': %s", cmd->path,
				strerror(err));
			return -err;
		}
		*directory = true;
		return 0;
	}
	if (cmd->has_slideshow) {
		veil_message_set(message, "'%s' is not a directory: every, order and recursive are "
			"for a directory of pictures", cmd->path != NULL ? cmd->path : "#rrggbb");
		return -ENOTDIR;
	}
	return 0;
}

int veil_slideshow_start(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd, char **message) {
	struct veil_slideshow *show = calloc(1, sizeof(*show));
	if (show == NULL) {
		goto nomem;
	}
	wl_list_init(&show->link);
	wl_list_init(&show->ahead_frame.link);
	show->ahead_frame.notify = handle_ahead_frame;
	wl_list_init(&show->scene_changed.link);
	show->scene = scene;
	show->step = *cmd;
	show->step.path = NULL;
	show->name = strdup(name);
	show->dir = realpath(cmd->path, NULL);
	struct wl_event_loop *loop = wl_display_get_event_loop(scene->display);
	show->timer = wl_event_loop_add_timer(loop, handle_timer, show);
	if (show->name == NULL || show->dir == NULL || show->timer == NULL) {
		show_destroy(show);
		goto nomem;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	veil_slide_order_init(&show->order, cmd->slideshow.order,
		(uint64_t)now.tv_nsec * 2654435761u ^ (uint64_t)now.tv_sec ^ (uint64_t)getpid());

	/* The show this name had ends: the new one takes over once its first picture is ready. */
	veil_slideshow_stop(scene, name, false);
	wl_list_insert(&scene->slideshows, &show->link);
	show->scene_changed.notify = handle_scene_changed;
	wl_signal_add(&scene->events.changed, &show->scene_changed);
	wlr_log(WLR_INFO, "veil: output %s: slideshow of %s, every %d s, order %s%s", name,
		show->dir, cmd->slideshow.every_s, veil_slideshow_order_name(cmd->slideshow.order),
		cmd->slideshow.recursive ? ", recursive" : "");
	/* The first picture: once the directory is read and it is decoded. */
	show->step_wanted = true;
	show->wanted_direction = 1;
	submit_scan(show);
	return 0;

nomem:
	veil_message_set(message, "Out of memory");
	return -ENOMEM;
}

void veil_slideshow_stop(struct veil_scene *scene, const char *name, bool all) {
	struct veil_slideshow *show, *tmp;
	wl_list_for_each_safe(show, tmp, &scene->slideshows, link) {
		if (all || strcmp(show->name, name) == 0) {
			show_destroy(show);
		}
	}
}

int veil_slideshow_move(struct veil_scene *scene, const char *name, int direction,
		char **message) {
	bool found = false;
	struct veil_slideshow *show, *tmp;
	if (strcmp(name, "*") == 0) {
		wl_list_for_each_safe(show, tmp, &scene->slideshows, link) {
			step(show, direction);
			found = true;
		}
	} else {
		show = veil_slideshow_find(scene, name);
		struct veil_output *output = veil_output_find_name(scene, name);
		if (show == NULL && output != NULL && output->setting != NULL &&
				output->setting->workspace == NULL) {
			/* The output shows the show of "*". */
			show = veil_slideshow_find(scene, output->setting->name);
		}
		if (show != NULL) {
			step(show, direction);
			found = true;
		}
	}
	if (!found) {
		veil_message_set(message, "There is no slideshow on '%s': `veil <directory>` "
			"starts one", name);
		return -ENOENT;
	}
	return 0;
}
