/*
 * The state file written: the settings as JSON on the compositor's thread when the scene changed
 * (at most one write a second), the file written on the state's worker (a temporary file,
 * fsync, rename, fsync of the directory). module/state/state.c says more.
 */
#define _GNU_SOURCE /* O_CLOEXEC, mkostemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/policy/policy.h"
#include "module/xray/xray.h"
#include "module/core/scene.h"
#include "module/show/show.h"
#include "module/state/look_json.h"
#include "module/state/state.h"
#include "module/state/state_impl.h"
#include "util/message.h"
#include "util/mode.h"
#include "util/worker.h"

/* ---- What is written ---- */

/* The file a setting shows, by its absolute path; NULL for none (a colour, a client's file). */
static const char *setting_path(const struct veil_setting *setting) {
	const struct veil_source *source = setting->source;
	if (source != NULL && source->path != NULL && source->path[0] == '/') {
		return source->path;
	}
	/* A workspace setting keeps its path while its source is let go (module/core/workspace.c). */
	return setting->path != NULL && setting->path[0] == '/' ? setting->path : NULL;
}

static struct json_object *setting_object(struct veil_scene *scene,
		const struct veil_setting *setting) {
	struct json_object *obj = json_object_new_object();
	if (setting->off) {
		json_object_object_add(obj, "off", json_object_new_boolean(true));
		return obj;
	}
	/* The setting's look, its strings borrowed, with what is written in place of its own. */
	struct veil_look look = setting->look;
	look.dark_path = NULL;
	look.has_dark_color = false;
	/* `dark #rrggbb`: the dark scheme's colour, the only dark a solid colour takes. */
	if (setting->dark != NULL && setting->dark->look.mode == VEIL_MODE_SOLID_COLOR) {
		look.has_dark_color = true;
		look.dark_color = setting->dark->look.color;
	}
	if (look.mode == VEIL_MODE_SOLID_COLOR) {
		veil_look_to_json(&look, VEIL_LOOK_JSON_STATE, obj);
		return obj;
	}
	/*
	 * A show: its own part (a slideshow's), or the file it plays (a timed background's XML) and
	 * the command's words it plays with (its transition and location, not a step's fade).
	 */
	struct veil_show_state show;
	bool has_show = setting->workspace == NULL && veil_show_state(scene, setting->name, &show);
	const struct veil_command *words = has_show ? show.words : NULL;
	if (words != NULL) {
		look.has_transition = words->look.has_transition;
		look.transition = words->look.transition;
		look.has_location = words->look.has_location;
		look.latitude = words->look.latitude;
		look.longitude = words->look.longitude;
	}
	/*
	 * `dark <file>`: the dark scheme's picture, by its absolute path (a wallpaper package's
	 * dark pictures are its own: its directory says it all). A show's steps have none.
	 */
	if (has_show) {
		look.has_dark_color = false;
	} else if (setting->dark != NULL && !look.has_dark_color && setting->package == NULL) {
		look.dark_path = (char *)setting_path(setting->dark);
	}
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATE, obj);
	const char *path = has_show && show.path != NULL ? show.path : setting_path(setting);
	if (has_show && show.part != NULL) {
		json_object_object_add(obj, show.key, show.part);
	} else if (path != NULL) {
		struct json_object *file = json_object_new_object();
		json_object_object_add(file, "path", json_object_new_string(path));
		json_object_object_add(obj, "file", file);
	}
	/* `veil pause`: a video stays paused, where it was. */
	struct veil_source *source = setting->source;
	if (source != NULL && source->paused) {
		json_object_object_add(obj, "paused", json_object_new_boolean(true));
	}
	/* A step of a show that keeps its path alone (timed) is the show's to choose again. */
	bool chosen = has_show && show.part == NULL;
	int64_t position = source != NULL && !chosen ? veil_source_get_position_ms(source) : -1;
	if (position >= 0) {
		json_object_object_add(obj, "position_ms", json_object_new_int64(position));
	}
	return obj;
}

/* The settings as they are now; slideshows still reading their directory included. */
struct json_object *veil_state_snapshot(struct veil_scene *scene) {
	struct json_object *outputs = json_object_new_object();
	struct json_object *workspaces = json_object_new_object();
	struct veil_setting *setting;
	wl_list_for_each_reverse(setting, &scene->settings, link) {
		if (setting->workspace == NULL) {
			json_object_object_add(outputs, setting->name,
				setting_object(scene, setting));
			continue;
		}
		/* A client's file (a descriptor) has no path to find it by again. */
		if (setting->look.mode != VEIL_MODE_SOLID_COLOR && setting_path(setting) == NULL) {
			continue;
		}
		struct json_object *spaces;
		if (!json_object_object_get_ex(workspaces, setting->name, &spaces)) {
			spaces = json_object_new_object();
			json_object_object_add(workspaces, setting->name, spaces);
		}
		json_object_object_add(spaces, setting->workspace, setting_object(scene, setting));
	}
	struct json_object *transitions = json_object_new_object();
	struct veil_transition_default *dflt;
	wl_list_for_each_reverse(dflt, &scene->transition_defaults, link) {
		json_object_object_add(transitions, dflt->name, veil_state_transition_json(&dflt->spec));
	}
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "version", json_object_new_int(VEIL_STATE_VERSION));
	json_object_object_add(root, "outputs", outputs);
	json_object_object_add(root, "workspaces", workspaces);
	json_object_object_add(root, "transitions", transitions);
	json_object_object_add(root, "policies", veil_policy_state(scene));
	json_object_object_add(root, "xray", veil_xray_state(scene));
	return root;
}

/* ---- Writing, on a worker ---- */

/* A setting's file's identity: its size and modification time now. */
static void add_identity(struct json_object *entry) {
	struct json_object *file, *path;
	struct stat st;
	if (json_object_object_get_ex(entry, "file", &file) &&
			json_object_object_get_ex(file, "path", &path) &&
			stat(json_object_get_string(path), &st) == 0) {
		json_object_object_add(file, "size", json_object_new_int64(st.st_size));
		json_object_object_add(file, "mtime_ns", json_object_new_int64(
			(int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec));
	}
}

/* Runs fn on every remembered setting: the outputs' and the workspaces'. */
void veil_state_each_entry(struct json_object *root, void (*fn)(struct json_object *entry)) {
	struct json_object *outputs, *workspaces;
	if (json_object_object_get_ex(root, "outputs", &outputs)) {
		json_object_object_foreach(outputs, name, entry) {
			(void)name;
			fn(entry);
		}
	}
	if (json_object_object_get_ex(root, "workspaces", &workspaces)) {
		json_object_object_foreach(workspaces, owner, spaces) {
			(void)owner;
			json_object_object_foreach(spaces, ws, entry) {
				(void)ws;
				fn(entry);
			}
		}
	}
}

static int write_all(int fd, const char *data, size_t len) {
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -ENOSPC;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}


void veil_state_write_run(struct veil_job *job) {
	struct write_job *w = wl_container_of(job, w, job);
	veil_state_each_entry(w->root, add_identity);
	const char *text = json_object_to_json_string_ext(w->root, JSON_C_TO_STRING_PRETTY |
		JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	char *tmp = veil_message("%s.XXXXXX", w->path);
	char *dir = strdup(w->path);
	if (tmp == NULL || dir == NULL) {
		w->err = -ENOMEM;
		w->step = "out of memory";
		goto out;
	}
	char *slash = strrchr(dir, '/');
	if (slash == dir) {
		slash[1] = '\0';
	} else if (slash != NULL) {
		*slash = '\0';
	} else {
		strcpy(dir, ".");
	}
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		w->err = -errno;
		w->step = "cannot create a temporary file beside it";
		goto out;
	}
	fchmod(fd, 0600);
	w->err = write_all(fd, text, len);
	w->step = "cannot write it";
	if (w->err == 0 && (write_all(fd, "\n", 1) < 0 || fsync(fd) < 0)) {
		w->err = -errno;
		w->step = "cannot write it to the disk";
	}
	if (close(fd) < 0 && w->err == 0) {
		w->err = -errno;
		w->step = "cannot write it to the disk";
	}
	if (w->err == 0 && rename(tmp, w->path) < 0) {
		w->err = -errno;
		w->step = "cannot put it in place";
	}
	if (w->err != 0) {
		unlink(tmp);
		goto out;
	}
	/* The rename itself lasts once the directory is on the disk. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL) {
			w->err = -errno;
			w->step = "cannot write its directory to the disk";
		}
		close(dfd);
	}
	/* What a later restore (a configuration read again) reads, as if from the file. */
	veil_state_each_entry(w->root, veil_state_add_verdict);

out:
	free(tmp);
	free(dir);
}

static void write_free(struct write_job *w) {
	json_object_put(w->root);
	free(w->path);
	free(w);
}

static void write_discard(struct veil_job *job) {
	write_free(wl_container_of(job, (struct write_job *)NULL, job));
}


static void write_done(struct veil_job *job) {
	struct write_job *w = wl_container_of(job, w, job);
	struct veil_state *state = w->state;
	state->writing = NULL;
	if (w->err != 0 && !state->failing) {
		wlr_log(WLR_ERROR, "veil: cannot keep the wallpapers' state in %s: %s: %s "
			"(they are shown all the same; a restart will find the state before)", w->path,
			w->step, strerror(-w->err));
		/* Written again at the next change. */
		free(state->last_text);
		state->last_text = NULL;
	} else if (w->err == 0 && state->failing) {
		wlr_log(WLR_INFO, "veil: the wallpapers' state is kept in %s again", w->path);
	}
	if (w->err != 0) {
		free(state->last_text);
		state->last_text = NULL;
	}
	state->failing = w->err != 0;
	write_free(w);
	if (state->dirty) {
		veil_state_arm(state);
	}
}

static const struct veil_job_impl write_impl = {
	.run = veil_state_write_run,
	.done = write_done,
	.discard = write_discard,
};

static int64_t ms_since(const struct timespec *then) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - then->tv_sec) * 1000 +
		(now.tv_nsec - then->tv_nsec) / 1000000;
}

/* The timer: the settings are written if they changed since the last write. */
int veil_state_handle_timer(void *data) {
	struct veil_state *state = data;
	state->armed = false;
	if (state->writing != NULL || !state->read_done) {
		return 0; /* their end arms it again */
	}
	state->dirty = false;
	struct json_object *root = veil_state_snapshot(state->scene);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (state->last_text != NULL && strcmp(state->last_text, text) == 0) {
		json_object_put(root);
		return 0;
	}
	struct write_job *w = calloc(1, sizeof(*w));
	char *copy = strdup(text);
	if (w == NULL || copy == NULL || (w->path = strdup(state->path)) == NULL) {
		free(w);
		free(copy);
		json_object_put(root);
		wlr_log(WLR_ERROR, "veil: out of memory: the wallpapers' state is not written");
		return 0;
	}
	/*
	 * The worker writes a copy of its own (json-c's serialisation writes into the object).
	 * A restore from now on (sway's reload, labwc's reconfigure) brings back this, what was
	 * set last, not what the file said at start; not only once the write is done, which
	 * reaches the event loop after the file is in place.
	 */
	if (json_object_deep_copy(root, &w->root, NULL) != 0) {
		free(w->path);
		free(w);
		free(copy);
		json_object_put(root);
		wlr_log(WLR_ERROR, "veil: out of memory: the wallpapers' state is not written");
		return 0;
	}
	json_object_put(state->loaded);
	state->loaded = root;
	free(state->last_text);
	state->last_text = copy;
	w->state = state;
	state->writing = w;
	clock_gettime(CLOCK_MONOTONIC, &state->last_write);
	veil_worker_submit(state->worker, &w->job, &write_impl);
	return 0;
}

/* A write within a second of the last one waits for the rest of that second. */
void veil_state_arm(struct veil_state *state) {
	state->dirty = true;
	if (state->armed || state->writing != NULL || !state->read_done) {
		return;
	}
	int64_t wait = DEBOUNCE_MS - ms_since(&state->last_write);
	state->armed = true;
	wl_event_source_timer_update(state->timer, wait > 0 ? (int)wait : 1);
}

void veil_state_handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_state *state = wl_container_of(listener, state, scene_changed);
	veil_state_arm(state);
}

