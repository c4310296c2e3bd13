/*
 * What a slideshow says of itself, and where `veil restore` has it pick up: the "slideshow"
 * object of an output's status and the show's part of the state file, which share one object
 * (directory, file, position, order, recursive, every), and the resume from that part. Apart
 * from the running show (module/show/slideshow.c): these read the show, or set where its first
 * step starts, and run nothing of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include "module/core/scene.h"
#include "module/show/slideshow.h"
#include "module/show/slideshow_order.h"
#include "module/show/slideshow_show.h"

/*
 * What the status and the state file both say of a show: its directory, the file given, its
 * position (and, with count, how many pictures it has), its order, recursive and every.
 */
static struct json_object *show_object(struct veil_slideshow *show, const char *file,
		bool count) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "directory", json_object_new_string(show->dir));
	json_object_object_add(obj, "file", file != NULL ? json_object_new_string(file) : NULL);
	int position, n;
	veil_slide_order_position(&show->order, show->slides, show->n_slides, show->current.path,
		&position, &n);
	json_object_object_add(obj, "position", json_object_new_int(position));
	if (count) {
		json_object_object_add(obj, "count", json_object_new_int(n));
	}
	json_object_object_add(obj, "order",
		json_object_new_string(veil_slideshow_order_name(show->step.slideshow.order)));
	json_object_object_add(obj, "recursive",
		json_object_new_boolean(show->step.slideshow.recursive));
	json_object_object_add(obj, "every", json_object_new_int(show->step.slideshow.every_s));
	return obj;
}

struct json_object *veil_slideshow_status(struct veil_output *output) {
	if (output->setting != NULL && output->setting->workspace != NULL) {
		/* A workspace's picture shows, not the output's show. */
		return NULL;
	}
	struct veil_slideshow *show = veil_slideshow_find(output->scene, output->output->name);
	if (show == NULL && output->setting != NULL) {
		show = veil_slideshow_find(output->scene, output->setting->name);
	}
	if (show == NULL) {
		show = veil_slideshow_find(output->scene, "*");
		/* An output with a setting of its own shows no show of "*". */
		if (show != NULL && output->setting != NULL &&
				strcmp(output->setting->name, "*") != 0) {
			show = NULL;
		}
	}
	if (show == NULL) {
		return NULL;
	}
	struct json_object *obj = show_object(show, show->current.path, true);
	const char *state = show->empty ? "empty" : show->step_wanted ? "loading" :
		show->deferred ? "deferred" : "waiting";
	json_object_object_add(obj, "state", json_object_new_string(state));
	struct json_object *next = NULL;
	if (show->has_due && !show->step_wanted) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t ms = (int64_t)(show->due.tv_sec - now.tv_sec) * 1000 +
			(show->due.tv_nsec - now.tv_nsec) / 1000000;
		next = json_object_new_int64(ms > 0 ? ms : 0);
	}
	/* Milliseconds until the next change; null while it waits (deferred, loading). */
	json_object_object_add(obj, "next_change_ms", next);
	/* The next picture, once it is decoded: the step to it will be at once. */
	bool ready = show->ahead != NULL && show->ahead->frame != NULL &&
		show->ahead->error == NULL;
	json_object_object_add(obj, "ahead", ready ?
		json_object_new_string(show->ahead_slide.path) : NULL);
	return obj;
}

int veil_slideshow_resume(struct veil_scene *scene, const char *name, const char *file,
		const char *const *shown, size_t n_shown) {
	struct veil_slideshow *show = veil_slideshow_find(scene, name);
	if (show == NULL || show->current.path != NULL) {
		return -ENOENT;
	}
	for (size_t i = 0; i < n_shown; i++) {
		veil_slide_order_shown(&show->order, shown[i], 1);
	}
	free(show->resume_path);
	show->resume_path = file != NULL ? strdup(file) : NULL;
	return file != NULL && show->resume_path == NULL ? -ENOMEM : 0;
}

struct json_object *veil_slideshow_state(struct veil_scene *scene, const char *name) {
	struct veil_slideshow *show = veil_slideshow_find(scene, name);
	if (show == NULL) {
		return NULL;
	}
	const char *file = show->current.path != NULL ? show->current.path : show->resume_path;
	struct json_object *obj = show_object(show, file, false);
	if (show->step.slideshow.order == VEIL_SLIDESHOW_SHUFFLE) {
		/* The shuffle's sequence so far, the picture on screen last. */
		struct json_object *seen = json_object_new_array();
		for (size_t i = 0; i < show->order.n_history; i++) {
			json_object_array_add(seen, json_object_new_string(show->order.history[i]));
		}
		json_object_object_add(obj, "seen", seen);
	}
	return obj;
}
