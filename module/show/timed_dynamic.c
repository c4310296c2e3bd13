/*
 * An Apple dynamic wallpaper played as a timed show (module/show/dynamic.c reads it): a schedule
 * of its images made for each local day, solar at the setting's place (else the compositor's),
 * else its h24 table; with neither, its light and dark images set once, as a setting with
 * `dark`, following the scheme.
 */
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "module/show/timed.h"
#include "module/show/timed_show.h"
#include "util/message.h"

/* Without a `transition`, a dynamic wallpaper's images fade into each other over a minute. */
#define DYNAMIC_FADE_MS 60000

/* The place a dynamic wallpaper follows: the setting's `location`, else the compositor's. */
static void find_place(struct veil_timed_show *show) {
	show->has_place = show->step.look.has_location || show->scene->has_location;
	show->latitude = show->step.look.has_location ? show->step.look.latitude :
		show->scene->latitude;
	show->longitude = show->step.look.has_location ? show->step.look.longitude :
		show->scene->longitude;
}

/* A dynamic wallpaper's light and dark images, set once (the scheme switches them). */
static void apply_appearance(struct veil_timed_show *show) {
	struct itimerspec off = {0};
	timerfd_settime(show->timer_fd, 0, &off, NULL);
	show->next_ms = 0;
	int light = show->dynamic.light + 1, dark = show->dynamic.dark + 1;
	/* A clock set or a day gone by changes nothing here: the scheme picks the picture. */
	if (show->applied || (show->shown != NULL && show->shown_item == light &&
			show->error == NULL)) {
		show->applied = true;
		return;
	}
	bool failed;
	if (!veil_timed_hold_both(show, show->path, light, show->path, dark, &failed)) {
		return;
	}
	if (!failed && veil_timed_set_picture(show, show->path, light, dark, NULL, NULL) &&
			show->error != NULL) {
		veil_timed_set_error(show, NULL);
	}
	show->applied = true;
	veil_timed_release(&show->held[0]);
	veil_timed_release(&show->held[1]);
	veil_scene_changed(show->scene);
}

/*
 * A dynamic wallpaper's schedule for the local day of now (made again when the day, the place
 * or the mode changed). false when it plays none: its appearance, or an error.
 */
bool veil_timed_dynamic_day(struct veil_timed_show *show, int64_t now) {
	find_place(show);
	enum veil_dynamic_mode mode = veil_dynamic_mode(&show->dynamic, show->has_place);
	if (mode != show->mode) {
		show->mode = mode;
		show->applied = false;
		show->day_start_ms = 0;
	}
	if (mode == VEIL_DYNAMIC_APPEARANCE) {
		apply_appearance(show);
		return false;
	}
	if (mode == VEIL_DYNAMIC_NONE) {
		char *said = veil_message("'%s': its dynamic wallpaper follows the sun, and there is "
			"no place to follow it at (`location <lat> <lon>`)", show->path);
		veil_timed_set_error(show, said);
		free(said);
		return false;
	}
	time_t t = (time_t)(now / 1000 - (now % 1000 < 0 ? 1 : 0));
	struct tm tm;
	localtime_r(&t, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	time_t day_start = mktime(&tm);
	tm.tm_mday++;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	time_t day_end = mktime(&tm);
	if (day_start == (time_t)-1 || day_end <= day_start) {
		return false;
	}
	if (show->schedule.n_slots > 0 && show->day_start_ms == (int64_t)day_start * 1000) {
		return true;
	}
	int64_t fade = DYNAMIC_FADE_MS;
	if (show->step.look.has_transition) {
		fade = show->step.look.transition.kind == VEIL_TRANSITION_NONE ? 0 :
			show->step.look.transition.ms;
	}
	struct veil_timed_schedule schedule;
	if (veil_dynamic_schedule(&show->dynamic, mode, show->latitude, show->longitude,
			show->path, day_start, (int64_t)(day_end - day_start), fade, &schedule) < 0) {
		veil_timed_fail(show, "out of memory");
		return false;
	}
	veil_timed_schedule_finish(&show->schedule);
	show->schedule = schedule;
	show->day_start_ms = (int64_t)day_start * 1000;
	/* The slots are new: what shows is compared by picture, not by slot. */
	show->applied = false;
	wlr_log(WLR_DEBUG, "veil: timed %s: %s schedule of %zu slots for the day from %lld",
		show->name, veil_dynamic_mode_name(mode), schedule.n_slots, (long long)day_start);
	return true;
}

void veil_timed_location_changed(struct veil_scene *scene) {
	struct veil_timed_show *show;
	wl_list_for_each(show, &scene->timed_shows, link) {
		if (show->is_dynamic && !show->step.look.has_location) {
			show->day_start_ms = 0;
			show->applied = false;
			veil_timed_update_soon(show);
		}
	}
}
