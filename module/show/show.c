/*
 * The table of shows: a new kind of show is one file implementing struct veil_show_impl and
 * one line here. The order is the order of claims: a timed background's XML before a directory.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include "module/core/scene.h"
#include "module/core/package_read.h"
#include "module/show/dynamic.h"
#include "module/show/show.h"
#include "module/show/slideshow.h"
#include "module/show/timed.h"
#include "module/show/timed_xml.h"
#include "module/words/command.h"

/* A GNOME timed background's XML, or an Apple dynamic wallpaper (a timed show of its images). */
static bool timed_plays_path(const char *path) {
	return veil_package_xml_name(path) || veil_dynamic_probe(path);
}

static const struct veil_show_impl timed_impl = {
	.path_is = "a timed background",
	.shows = "timed backgrounds",
	.claims = veil_timed_check,
	.start = veil_timed_start,
	.stop = veil_timed_stop,
	.plays_path = timed_plays_path,
	.key = "timed",
	.status = veil_timed_status,
	.state = veil_timed_state,
	.location_changed = veil_timed_location_changed,
};

/* A slideshow keeps a part of its own: its directory, words, the picture shown, the shuffle's. */
static bool slideshow_state(struct veil_scene *scene, const char *name,
		struct veil_show_state *state) {
	state->part = veil_slideshow_state(scene, name);
	return state->part != NULL;
}

static int slideshow_resume(struct veil_scene *scene, const char *name,
		struct json_object *part) {
	struct json_object *file = NULL, *seen = NULL;
	json_object_object_get_ex(part, "file", &file);
	json_object_object_get_ex(part, "seen", &seen);
	size_t n = seen != NULL ? json_object_array_length(seen) : 0;
	const char **shown = calloc(n + 1, sizeof(*shown));
	/* The last of the sequence is the picture the show resumes with. */
	for (size_t i = 0; shown != NULL && i + 1 < n; i++) {
		shown[i] = json_object_get_string(json_object_array_get_idx(seen, i));
	}
	int ret = veil_slideshow_resume(scene, name, file != NULL ? json_object_get_string(file) :
		NULL, shown, n > 0 && shown != NULL ? n - 1 : 0);
	free(shown);
	return ret;
}

static const struct veil_show_impl slideshow_impl = {
	.path_is = "a directory",
	.shows = "slideshows",
	.directory = true,
	.claims = veil_slideshow_check,
	.start = veil_slideshow_start,
	.stop = veil_slideshow_stop,
	.move = veil_slideshow_move,
	.key = "slideshow",
	.status = veil_slideshow_status,
	.state = slideshow_state,
	.resume = slideshow_resume,
};

static const struct veil_show_impl *const shows[] = {
	&timed_impl,
	&veil_show_hourly,
	&slideshow_impl,
};

#define N_SHOWS (sizeof(shows) / sizeof(shows[0]))

int veil_show_claim(const struct veil_command *cmd, const struct veil_show_impl **show,
		char **message) {
	*show = NULL;
	for (size_t i = 0; i < N_SHOWS; i++) {
		bool yes = false;
		int ret = shows[i]->claims(cmd, &yes, message);
		if (ret < 0 || yes) {
			*show = ret < 0 ? NULL : shows[i];
			return ret;
		}
	}
	return 0;
}

int veil_show_claim_directory(const struct veil_command *cmd, bool *yes, char **message) {
	*yes = false;
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (!shows[i]->directory) {
			continue;
		}
		int ret = shows[i]->claims(cmd, yes, message);
		if (ret < 0 || *yes) {
			return ret;
		}
	}
	return 0;
}

void veil_show_stop(struct veil_scene *scene, const char *name, bool all,
		const struct veil_show_impl *except) {
	/* From the last kind to the first, as the dispatcher always ended them. */
	for (size_t i = N_SHOWS; i-- > 0;) {
		if (shows[i] != except) {
			shows[i]->stop(scene, name, all);
		}
	}
}

bool veil_show_plays_path(const char *path) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->plays_path != NULL && shows[i]->plays_path(path)) {
			return true;
		}
	}
	return false;
}

int veil_show_move(struct veil_scene *scene, const char *name, int direction, char **message) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->move != NULL) {
			return shows[i]->move(scene, name, direction, message);
		}
	}
	return -ENOENT;
}

void veil_show_step_init(struct veil_command *step, const struct veil_command *cmd) {
	*step = *cmd;
	step->path = NULL;
	step->look.dark_path = NULL;
	step->fallback = NULL;
	step->workspace = NULL;
	step->package = NULL;
	step->package_read = false;
}

int64_t veil_show_now_ms(const struct veil_scene *scene) {
	struct timespec now;
	veil_wall_clock_read(&scene->clock, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

bool veil_show_arm_timer(int fd, int64_t due_ms, int64_t now_ms) {
	struct timespec real;
	clock_gettime(CLOCK_REALTIME, &real);
	int64_t at = (int64_t)real.tv_sec * 1000 + real.tv_nsec / 1000000 + (due_ms - now_ms) + 1;
	struct itimerspec spec = {
		.it_value = { .tv_sec = at / 1000, .tv_nsec = (at % 1000) * 1000000 },
	};
	return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL) == 0;
}

struct veil_show *veil_show_find(struct veil_scene *scene, const struct veil_show_impl *impl,
		const char *name) {
	struct veil_show *show;
	wl_list_for_each(show, &scene->shows, link) {
		if (show->impl == impl && (name == NULL || strcmp(show->name, name) == 0)) {
			return show;
		}
	}
	return NULL;
}

struct veil_show *veil_show_find_shown(struct veil_output *output,
		const struct veil_show_impl *impl) {
	const struct veil_setting *setting = output->setting;
	if (setting != NULL && setting->workspace != NULL) {
		return NULL;
	}
	struct veil_show *show = veil_show_find(output->scene, impl, output->output->name);
	if (show == NULL && (setting == NULL || strcmp(setting->name, "*") == 0)) {
		show = veil_show_find(output->scene, impl, "*");
	}
	return show;
}

void veil_show_status(struct veil_output *output, struct json_object *obj) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		json_object_object_add(obj, shows[i]->key, shows[i]->status(output));
	}
}

bool veil_show_state(struct veil_scene *scene, const char *name, struct veil_show_state *state) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		*state = (struct veil_show_state){ .key = shows[i]->key };
		if (shows[i]->state(scene, name, state)) {
			return true;
		}
	}
	*state = (struct veil_show_state){0};
	return false;
}

void veil_show_resume(struct veil_scene *scene, const char *name, struct json_object *entry) {
	struct json_object *part;
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->resume != NULL &&
				json_object_object_get_ex(entry, shows[i]->key, &part)) {
			shows[i]->resume(scene, name, part);
		}
	}
}

void veil_show_location_changed(struct veil_scene *scene) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->location_changed != NULL) {
			shows[i]->location_changed(scene);
		}
	}
}
