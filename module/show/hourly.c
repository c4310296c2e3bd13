/*
 * An hourly show: `output <name|*> veil <directory>` of 24 pictures named by the hour, 00.jpg to
 * 23.jpg (any picture format, one file per hour and nothing else but hidden files), shows the
 * picture of the hour of the wall clock's local time and changes on the hour, with the command's
 * transition (or the output's default). A directory holding anything else is a slideshow's.
 *
 * The whole show is this file and its line in module/show/show.c's table: it stores each hour's
 * picture through the core (veil_scene_apply()), keeps its shows in veil_scene.shows, and gives
 * the status its "hourly" part and the state file the directory and the command's words. Its
 * timer is a timerfd on CLOCK_REALTIME at the hour's wall time with TFD_TIMER_CANCEL_ON_SET, as
 * module/show/timed.c's: after a suspend it fires at the resume, a clock set or a test's clock
 * moved (the scene's clock.jump) works out the hour again.
 */
#define _GNU_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "module/show/show.h"
#include "util/message.h"

#define HOURS 24

struct hourly_show {
	struct veil_show base;
	struct veil_scene *scene;
	char *dir; /* resolved */
	/* What each hour sets: mode, colour, the command's transition (path NULL). */
	struct veil_command step;
	char *names[HOURS]; /* each hour's file, in dir */
	int hour; /* the hour shown, -1 before the first */
	int64_t next_ms; /* when the next hour begins (scene clock, ms) */
	int timer_fd;
	struct wl_event_source *timer;
	struct wl_listener clock_jump;
};

/*
 * The files of dir by their hour (names, NULL when not wanted): true when it holds one for each
 * hour and no other file. Reads at most 25 names, for the compositor thread.
 */
static bool list_hours(const char *dir, char *names[HOURS]) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		return false;
	}
	bool seen[HOURS] = {0};
	int n = 0;
	bool ok = true;
	struct dirent *entry;
	while (ok && (entry = readdir(d)) != NULL) {
		const char *name = entry->d_name;
		if (name[0] == '.') {
			continue;
		}
		int hour = (name[0] - '0') * 10 + (name[1] - '0');
		ok = name[0] >= '0' && name[0] <= '2' && name[1] >= '0' && name[1] <= '9' &&
			name[2] == '.' && name[3] != '\0' && hour < HOURS && !seen[hour] &&
			entry->d_type != DT_DIR && ++n <= HOURS;
		if (ok) {
			seen[hour] = true;
			if (names != NULL && (names[hour] = strdup(name)) == NULL) {
				ok = false;
			}
		}
	}
	closedir(d);
	return ok && n == HOURS;
}

static bool is_hourly(const struct veil_command *cmd) {
	struct stat st;
	return cmd->path != NULL && !cmd->from_slideshow && !cmd->has_slideshow &&
		cmd->item == 0 && stat(cmd->path, &st) == 0 && S_ISDIR(st.st_mode) &&
		list_hours(cmd->path, NULL);
}

static int claims(const struct veil_command *cmd, bool *yes, char **message) {
	*yes = is_hourly(cmd);
	if (*yes && (cmd->look.dark_path != NULL || cmd->look.has_dark_color)) {
		return veil_message_fail(message, -EINVAL, "'%s' is a directory of pictures by the "
			"hour: dark names one picture, not for it", cmd->path);
	}
	return 0;
}

/* The hour of local time at ms, and when the next one begins (*next_ms). */
static int hour_at(int64_t ms, int64_t *next_ms) {
	time_t t = (time_t)(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
	struct tm tm;
	localtime_r(&t, &tm);
	int hour = tm.tm_hour;
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_hour++;
	tm.tm_isdst = -1;
	time_t next = mktime(&tm);
	/* A time zone with no next hour (never): an hour from now. */
	*next_ms = next > t ? (int64_t)next * 1000 : ms + 3600 * 1000;
	return hour;
}

/* The hour's picture shown (decoded by the core, the old one kept meanwhile); the timer set. */
static int update(struct hourly_show *show, char **message) {
	int64_t now = veil_show_now_ms(show->scene);
	int hour = hour_at(now, &show->next_ms);
	if (!veil_show_arm_timer(show->timer_fd, show->next_ms, now)) {
		wlr_log_errno(WLR_ERROR, "veil: hourly %s: cannot set the timer", show->base.name);
	}
	if (hour == show->hour) {
		return 0;
	}
	char *path = veil_message("%s/%s", show->dir, show->names[hour]);
	if (path == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	struct veil_command cmd = show->step;
	cmd.path = path;
	cmd.from_slideshow = true;
	int ret = veil_scene_apply(show->scene, show->base.name, &cmd, message);
	free(path);
	/* A picture that cannot be shown is passed over: the next hour's is tried at its time. */
	show->hour = hour;
	if (ret == 0) {
		wlr_log(WLR_DEBUG, "veil: hourly %s: %s of %s", show->base.name,
			show->names[hour], show->dir);
	}
	return ret;
}

static void update_later(struct hourly_show *show) {
	char *message = NULL;
	if (update(show, &message) < 0) {
		wlr_log(WLR_ERROR, "veil: hourly %s: %s", show->base.name,
			message != NULL ? message : "failed");
	}
	free(message);
}

static int handle_timer(int fd, uint32_t mask, void *data) {
	struct hourly_show *show = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno == ECANCELED) {
		wlr_log(WLR_INFO, "veil: hourly %s: the clock was set", show->base.name);
	}
	update_later(show);
	return 0;
}

static void handle_clock_jump(struct wl_listener *listener, void *data) {
	struct hourly_show *show = wl_container_of(listener, show, clock_jump);
	update_later(show);
}

static void show_destroy(struct hourly_show *show) {
	if (show->timer != NULL) {
		wl_event_source_remove(show->timer);
	}
	if (show->timer_fd >= 0) {
		close(show->timer_fd);
	}
	wl_list_remove(&show->clock_jump.link);
	wl_list_remove(&show->base.link);
	for (int i = 0; i < HOURS; i++) {
		free(show->names[i]);
	}
	free(show->dir);
	free(show->base.name);
	free(show);
}

static void stop(struct veil_scene *scene, const char *name, bool all) {
	struct veil_show *show, *tmp;
	wl_list_for_each_safe(show, tmp, &scene->shows, link) {
		if (show->impl == &veil_show_hourly && (all || strcmp(show->name, name) == 0)) {
			show_destroy((struct hourly_show *)show);
		}
	}
}

static int start(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
		char **message) {
	struct hourly_show *show = calloc(1, sizeof(*show));
	if (show == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	wl_list_init(&show->base.link);
	wl_list_init(&show->clock_jump.link);
	show->base.impl = &veil_show_hourly;
	show->base.name = strdup(name);
	show->scene = scene;
	show->hour = -1;
	veil_show_step_init(&show->step, cmd);
	show->dir = realpath(cmd->path, NULL);
	show->timer_fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	struct wl_event_loop *loop = wl_display_get_event_loop(scene->display);
	if (show->timer_fd >= 0) {
		show->timer = wl_event_loop_add_fd(loop, show->timer_fd, WL_EVENT_READABLE,
			handle_timer, show);
	}
	int ret = -ENOMEM;
	if (show->base.name == NULL || show->dir == NULL || show->timer == NULL) {
		veil_message_set(message, "Out of memory");
		goto err;
	}
	if (!list_hours(show->dir, show->names)) {
		/* Changed since it was claimed. */
		ret = veil_message_fail(message, -ENOENT, "'%s' no longer holds a picture for "
			"each hour", cmd->path);
		goto err;
	}
	/* The first hour's picture is set as a command's would be: a bad one refuses the show. */
	ret = update(show, message);
	if (ret < 0) {
		goto err;
	}
	stop(scene, name, false);
	wl_list_insert(&scene->shows, &show->base.link);
	show->clock_jump.notify = handle_clock_jump;
	wl_signal_add(&scene->clock.jump, &show->clock_jump);
	wlr_log(WLR_INFO, "veil: output %s: hourly pictures of %s", name, show->dir);
	return 0;

err:
	show_destroy(show);
	return ret;
}

static struct json_object *show_status(struct veil_output *output) {
	struct hourly_show *show =
		(struct hourly_show *)veil_show_find_shown(output, &veil_show_hourly);
	if (show == NULL || show->hour < 0) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "directory", json_object_new_string(show->dir));
	json_object_object_add(obj, "hour", json_object_new_int(show->hour));
	json_object_object_add(obj, "next_change_ms",
		json_object_new_int64(show->next_ms - veil_show_now_ms(show->scene)));
	return obj;
}

/* The state file keeps the directory and the command's words: restored, it plays the hour due. */
static bool show_state(struct veil_scene *scene, const char *name,
		struct veil_show_state *state) {
	struct hourly_show *show =
		(struct hourly_show *)veil_show_find(scene, &veil_show_hourly, name);
	if (show == NULL) {
		return false;
	}
	state->path = show->dir;
	state->words = &show->step;
	return true;
}

const struct veil_show_impl veil_show_hourly = {
	.path_is = "a directory of pictures by the hour",
	.shows = "hourly shows",
	.claims = claims,
	.start = start,
	.stop = stop,
	.key = "hourly",
	.status = show_status,
	.state = show_state,
};
