/*
 * A timed slideshow: GNOME's timed background XML played on its schedule.
 *
 * The file is read and parsed on a worker (module/show/timed_xml.c), and every picture it names is
 * checked there; a file that cannot be played leaves the wallpaper as it was, the error naming
 * the file. Then the slot due now is shown: a static slot's picture as a command would set it
 * (the command's transition, or the output's default); a transition slot as its `from` picture
 * faded into its `to` over the slot's duration, joined as far in as the clock is (a fade of
 * module/core/transition/transition.c started that long ago, stepped when long). Each change is a
 * command for the show's name, shown through veil_scene_apply() once the pictures it needs are
 * decoded; the pictures of the next change are opened ahead, so that it finds them decoded.
 *
 * One timer, for the next change: a timerfd on CLOCK_REALTIME at the change's wall time, with
 * TFD_TIMER_CANCEL_ON_SET. After a suspend it fires at the resume if the change is past (a
 * CLOCK_MONOTONIC timer would wait for the time asleep on top); when the clock is set it wakes
 * at once (ECANCELED). Either way what is due is worked out again from the clock and shown at
 * once. The start time is local time, made a time again at each change (mktime()): a DST
 * change moves nothing (durations are real seconds from the start, as in GNOME), a new TZ
 * applies from the next change. A test build's clock (veil_scene.clock) runs at the real
 * clock's pace from where it was set; its moves come through the scene's clock.jump signal.
 *
 * An Apple dynamic wallpaper (module/show/dynamic.c) is played the same way: its metadata read on
 * the worker, then a schedule of its images made for each local day (solar with a place, else
 * its h24 table), again when the day or the place changes; or, with neither, its light and dark
 * images set as a setting with `dark` would be, following the scheme.
 *
 * Here: the show's lifecycle, its load on a worker, the slot due and the timer, its status. Its
 * pictures are module/show/timed_pictures.c's, a dynamic wallpaper's days timed_dynamic.c's;
 * module/show/timed_show.h is what the three share.
 */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/show/dynamic.h"
#include "module/core/package_read.h"
#include "module/core/scene.h"
#include "module/show/show.h"
#include "module/show/timed.h"
#include "module/show/timed_show.h"
#include "module/show/timed_schedule.h"
#include "module/show/timed_xml.h"
#include "util/message.h"
#include "util/worker.h"

/* The file read and parsed on a worker. */
struct timed_load {
	struct veil_job job;
	struct veil_timed_show *show;
	char *path;
	bool is_dynamic;
	struct veil_timed_schedule schedule;
	struct veil_dynamic dynamic;
	int ret;
	char *error;
};

static struct veil_timed_show *find_show(struct veil_scene *scene, const char *name) {
	struct veil_timed_show *show;
	wl_list_for_each(show, &scene->timed_shows, link) {
		if (strcmp(show->name, name) == 0) {
			return show;
		}
	}
	return NULL;
}

static void update(struct veil_timed_show *show);

static void handle_idle(void *data) {
	struct veil_timed_show *show = data;
	show->idle = NULL;
	update(show);
}

void veil_timed_update_soon(struct veil_timed_show *show) {
	if (show->idle == NULL) {
		struct wl_event_loop *loop = wl_display_get_event_loop(show->scene->display);
		show->idle = wl_event_loop_add_idle(loop, handle_idle, show);
	}
}

/* Works out what is due now, shows it once its pictures are decoded, sets the timer. */
static void update(struct veil_timed_show *show) {
	if (!show->loaded) {
		return;
	}
	int64_t now = veil_show_now_ms(show->scene);
	if (show->is_dynamic && !veil_timed_dynamic_day(show, now)) {
		return;
	}
	struct veil_timed_schedule *schedule = &show->schedule;
	int64_t start;
	if (!veil_timed_start_ms(schedule, &start)) {
		char *said = veil_message("'%s': the start time is not a time in this time zone",
			show->path);
		veil_timed_set_error(show, said);
		free(said);
		return;
	}
	struct veil_timed_point point;
	veil_timed_at(schedule, start, now, &point);
	const struct veil_timed_slot *slot = &schedule->slots[point.slot];
	int64_t slot_start = point.next_ms - slot->duration_ms;
	show->next_ms = point.next_ms;
	if (!veil_show_arm_timer(show->timer_fd, point.next_ms, now)) {
		wlr_log_errno(WLR_ERROR, "veil: timed %s: cannot set the timer", show->name);
	}

	bool done = show->applied && show->applied_slot == point.slot &&
		show->applied_start_ms == slot_start;
	if (!done) {
		bool failed;
		if (!veil_timed_hold_both(show, slot->from, slot->from_item,
				veil_timed_held_to(slot), slot->to_item, &failed)) {
			return;
		}
		if (!failed && veil_timed_apply(show, slot, &point)) {
			if (show->error != NULL) {
				veil_timed_set_error(show, NULL);
			}
			wlr_log(WLR_DEBUG, "veil: timed %s: slot %zu of %s", show->name,
				point.slot + 1, show->path);
		}
		/* A failed change is passed over: the next one is tried at its time. */
		show->applied = true;
		show->applied_slot = point.slot;
		show->applied_start_ms = slot_start;
	}
	/* The next change's pictures, decoded ahead (the settings hold those shown now). */
	const struct veil_timed_slot *next = &schedule->slots[(point.slot + 1) %
		schedule->n_slots];
	veil_timed_release(&show->held[0]);
	veil_timed_release(&show->held[1]);
	veil_timed_hold(show, &show->held[2], next->from, next->from_item);
	veil_timed_hold(show, &show->held[3], veil_timed_held_to(next), next->to_item);
	veil_scene_changed(show->scene);
}

static int handle_timer(int fd, uint32_t mask, void *data) {
	struct veil_timed_show *show = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno == ECANCELED) {
		/* The clock was set: the fade running may be at the wrong place too. */
		wlr_log(WLR_INFO, "veil: timed %s: the clock was set", show->name);
		show->applied = false;
	}
	update(show);
	return 0;
}

static void handle_clock_jump(struct wl_listener *listener, void *data) {
	struct veil_timed_show *show = wl_container_of(listener, show, clock_jump);
	show->applied = false;
	veil_timed_update_soon(show);
}

static void load_free(struct timed_load *load) {
	veil_timed_schedule_finish(&load->schedule);
	veil_dynamic_finish(&load->dynamic);
	free(load->error);
	free(load->path);
	free(load);
}

static void show_destroy(struct veil_timed_show *show);

static void load_run(struct veil_job *job) {
	struct timed_load *load = wl_container_of(job, load, job);
	if (load->is_dynamic) {
		load->ret = veil_dynamic_load(load->path, &load->dynamic, &load->error);
	} else {
		load->ret = veil_timed_xml_load(load->path, &load->schedule, &load->error);
	}
}

static void load_done(struct veil_job *job) {
	struct timed_load *load = wl_container_of(job, load, job);
	struct veil_timed_show *show = load->show;
	show->load = NULL;
	if (load->ret < 0) {
		const char *why = load->error != NULL ? load->error : "out of memory";
		wlr_log(WLR_ERROR, "veil: output %s: %s", show->name, why);
		/* The wallpaper stays; the error says why the file is not played. */
		veil_timed_set_error(show, why);
		load_free(load);
		show_destroy(show);
		return;
	}
	show->schedule = load->schedule;
	load->schedule = (struct veil_timed_schedule){0};
	show->dynamic = load->dynamic;
	load->dynamic = (struct veil_dynamic){0};
	load_free(load);
	show->loaded = true;
	if (show->is_dynamic) {
		wlr_log(WLR_INFO, "veil: output %s: dynamic wallpaper %s, %d images, %zu solar and "
			"%zu time entries%s", show->name, show->path, show->dynamic.n_images,
			show->dynamic.n_solar, show->dynamic.n_h24,
			show->dynamic.has_appearance ? ", light and dark" : "");
	} else {
		wlr_log(WLR_INFO, "veil: output %s: timed background %s, %zu slots over %.0f s",
			show->name, show->path, show->schedule.n_slots,
			(double)show->schedule.cycle_ms / 1000.0);
	}
	update(show);
}

static void load_discard(struct veil_job *job) {
	struct timed_load *load = wl_container_of(job, load, job);
	load_free(load);
}

static const struct veil_job_impl load_impl = {
	.run = load_run,
	.done = load_done,
	.discard = load_discard,
};

static void show_destroy(struct veil_timed_show *show) {
	if (show->load != NULL) {
		veil_job_cancel(&show->load->job);
	}
	for (size_t i = 0; i < sizeof(show->held) / sizeof(show->held[0]); i++) {
		veil_timed_release(&show->held[i]);
	}
	if (show->timer != NULL) {
		wl_event_source_remove(show->timer);
	}
	if (show->timer_fd >= 0) {
		close(show->timer_fd);
	}
	if (show->idle != NULL) {
		wl_event_source_remove(show->idle);
	}
	wl_list_remove(&show->clock_jump.link);
	wl_list_remove(&show->link);
	veil_timed_schedule_finish(&show->schedule);
	veil_dynamic_finish(&show->dynamic);
	free(show->shown);
	free(show->error);
	free(show->path);
	free(show->name);
	free(show);
}

/* An Apple dynamic wallpaper: a HEIF whose XMP speaks of apple_desktop (a step's never). */
static bool is_dynamic(const struct veil_command *cmd) {
	return cmd->path != NULL && !cmd->from_slideshow && cmd->item == 0 &&
		veil_dynamic_probe(cmd->path);
}

int veil_timed_check(const struct veil_command *cmd, bool *timed, char **message) {
	*timed = cmd->path != NULL && veil_package_xml_name(cmd->path);
	if (!*timed && is_dynamic(cmd)) {
		*timed = true;
		if (cmd->look.dark_path != NULL || cmd->look.has_dark_color) {
			return veil_message_fail(message, -EINVAL, "'%s' is an Apple dynamic "
				"wallpaper: it has its own light and dark pictures, dark is not for it",
				cmd->path);
		}
		return cmd->has_slideshow ? veil_message_fail(message, -EINVAL, "'%s' is an Apple "
			"dynamic wallpaper: every, order and recursive are for a directory of "
			"pictures", cmd->path) : 0;
	}
	if (!*timed) {
		return 0;
	}
	if (cmd->has_slideshow) {
		return veil_message_fail(message, -EINVAL, "'%s' is a timed background: every, order "
			"and recursive are for a directory of pictures", cmd->path);
	}
	if (cmd->look.dark_path != NULL || cmd->look.has_dark_color) {
		return veil_message_fail(message, -EINVAL, "'%s' is a timed background: dark names "
			"one picture, not for a timed background", cmd->path);
	}
	if (access(cmd->path, R_OK) != 0) {
		int err = errno;
		return veil_message_fail(message, -err, "Cannot open '%s': %s", cmd->path,
			strerror(err));
	}
	return 0;
}

int veil_timed_start(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
		char **message) {
	struct veil_timed_show *show = calloc(1, sizeof(*show));
	struct timed_load *load = calloc(1, sizeof(*load));
	if (show == NULL || load == NULL) {
		free(show);
		free(load);
		goto nomem;
	}
	wl_list_init(&show->link);
	wl_list_init(&show->clock_jump.link);
	for (size_t i = 0; i < sizeof(show->held) / sizeof(show->held[0]); i++) {
		wl_list_init(&show->held[i].frame.link);
	}
	show->scene = scene;
	veil_show_step_init(&show->step, cmd);
	show->name = strdup(name);
	show->path = realpath(cmd->path, NULL);
	show->timer_fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	struct wl_event_loop *loop = wl_display_get_event_loop(scene->display);
	if (show->timer_fd >= 0) {
		show->timer = wl_event_loop_add_fd(loop, show->timer_fd, WL_EVENT_READABLE,
			handle_timer, show);
	}
	load->show = show;
	load->path = show->path != NULL ? strdup(show->path) : NULL;
	show->is_dynamic = !veil_package_xml_name(cmd->path);
	load->is_dynamic = show->is_dynamic;
	if (show->name == NULL || show->path == NULL || show->timer == NULL || load->path == NULL) {
		free(load->path);
		free(load);
		show_destroy(show);
		goto nomem;
	}
	/* The shows this name had end: the new one takes over once its first picture is ready. */
	veil_timed_stop(scene, name, false);
	wl_list_insert(&scene->timed_shows, &show->link);
	show->clock_jump.notify = handle_clock_jump;
	wl_signal_add(&scene->clock.jump, &show->clock_jump);
	show->load = load;
	veil_worker_submit(scene->ctx.worker, &load->job, &load_impl);
	wlr_log(WLR_INFO, "veil: output %s: timed background %s", name, show->path);
	return 0;

nomem:
	veil_message_set(message, "Out of memory");
	return -ENOMEM;
}

void veil_timed_stop(struct veil_scene *scene, const char *name, bool all) {
	struct veil_timed_show *show, *tmp;
	wl_list_for_each_safe(show, tmp, &scene->timed_shows, link) {
		if (all || strcmp(show->name, name) == 0) {
			show_destroy(show);
		}
	}
}

bool veil_timed_state(struct veil_scene *scene, const char *name, struct veil_show_state *state) {
	struct veil_timed_show *show = find_show(scene, name);
	if (show == NULL) {
		return false;
	}
	state->path = show->path;
	state->words = &show->step;
	return true;
}

struct json_object *veil_timed_status(struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	if (setting != NULL && setting->workspace != NULL) {
		return NULL;
	}
	struct veil_timed_show *show = find_show(output->scene, output->output->name);
	if (show == NULL && (setting == NULL || strcmp(setting->name, "*") == 0)) {
		show = find_show(output->scene, "*");
	}
	if (show == NULL) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "file", json_object_new_string(show->path));
	const char *state = !show->loaded ? "loading" : show->waiting ? "decoding" : "playing";
	json_object_object_add(obj, "state", json_object_new_string(state));
	if (!show->loaded) {
		return obj;
	}
	if (show->is_dynamic) {
		char mode[96];
		if (show->mode == VEIL_DYNAMIC_SOLAR) {
			snprintf(mode, sizeof(mode), "solar (%.2f, %.2f)", show->latitude,
				show->longitude);
		} else if (show->mode == VEIL_DYNAMIC_APPEARANCE) {
			snprintf(mode, sizeof(mode), "appearance (no location)");
		} else {
			snprintf(mode, sizeof(mode), "%s", veil_dynamic_mode_name(show->mode));
		}
		json_object_object_add(obj, "dynamic", json_object_new_string(mode));
		if (show->mode == VEIL_DYNAMIC_APPEARANCE || show->schedule.n_slots == 0) {
			return obj;
		}
	}
	const struct veil_timed_schedule *schedule = &show->schedule;
	json_object_object_add(obj, "slots", json_object_new_int((int)schedule->n_slots));
	json_object_object_add(obj, "cycle_s",
		json_object_new_double((double)schedule->cycle_ms / 1000.0));
	int64_t start, now = veil_show_now_ms(show->scene);
	if (veil_timed_start_ms(schedule, &start)) {
		struct veil_timed_point point;
		veil_timed_at(schedule, start, now, &point);
		const struct veil_timed_slot *slot = &schedule->slots[point.slot];
		/* Counted from 1, in the file's order. */
		json_object_object_add(obj, "slot", json_object_new_int((int)point.slot + 1));
		json_object_object_add(obj, "slot_kind", json_object_new_string(
			slot->kind == VEIL_TIMED_STATIC ? "static" : "transition"));
		json_object_object_add(obj, "slot_progress", json_object_new_double(point.progress));
		json_object_object_add(obj, "next_change_ms",
			json_object_new_int64(point.next_ms - now));
	}
	/* The wall clock the schedule follows, in seconds since the epoch. */
	json_object_object_add(obj, "clock", json_object_new_double((double)now / 1000.0));
	return obj;
}
