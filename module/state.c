/*
 * The state file: what each setting name (an output's or "*") was told to show, kept across
 * restarts for `veil restore`.
 *
 * Writing: when the scene changes, the settings are written down as JSON on the compositor's
 * thread (in memory, a few hundred bytes a setting) and, when that differs from what was last
 * written, a worker writes it: it adds each file's size and modification time (a stat), writes a
 * temporary file in the same directory, fsyncs it, renames it over the state file and fsyncs the
 * directory, so that a crash or a power loss leaves the old file or the new one. At most one
 * write a second, one at a time; a failed write logs a line (once until a write works again)
 * and changes nothing else.
 *
 * Reading: once, on a worker, when the compositor names the file: at most VEIL_STATE_MAX_SIZE
 * bytes, checked by module/state_read.c, each remembered file looked at (a stat) for whether it
 * is still the same. Writes wait until then, so that the settings of a starting compositor do
 * not replace what `restore` is about to read; `restore` commands given meanwhile wait too.
 *
 * Both run on a worker of the state's own, one thread started by the read: a write neither waits
 * behind a decode nor makes the decoders' worker start a thread of its own later.
 */
#define _GNU_SOURCE /* O_CLOEXEC, mkostemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "module/scene.h"
#include "module/slideshow.h"
#include "module/state.h"
#include "util/ease.h"
#include "util/message.h"
#include "util/mode.h"
#include "util/worker.h"

#define DEBOUNCE_MS 1000

/* The outcome of a `restore`, for the status. */
struct restore_result {
	struct wl_list link; /* veil_state.results */
	char *name;
	bool restored;
	char *why;
};

/* A `restore` given before the file was read. */
struct restore_wait {
	struct wl_list link; /* veil_state.waiting */
	char *name;
	struct veil_command fallback;
	bool has_fallback;
};

struct write_job {
	struct veil_job job;
	struct veil_state *state; /* NULL once the state went */
	char *path;
	struct json_object *root;
	int err;
	const char *step; /* what failed */
};

struct read_job {
	struct veil_job job;
	struct veil_state *state;
	char *path;
	struct json_object *outputs; /* checked, with "verdict" members added */
	char *why; /* why the file is not used */
	bool missing;
};

struct veil_state {
	struct veil_scene *scene;
	char *path;
	/*
	 * A worker of its own, whose one thread starts with the read at start: a write never
	 * waits behind a decode, nor starts a thread of the decoders' worker later on.
	 */
	struct veil_worker *worker;
	struct wl_listener scene_changed;
	struct wl_event_source *timer;
	bool armed, dirty, failing;
	struct write_job *writing;
	struct read_job *reading;
	bool read_done;
	struct timespec last_write; /* CLOCK_MONOTONIC */
	char *last_text; /* the settings last handed to a write, before the stats */
	struct json_object *loaded; /* the file's settings as read; NULL when unusable */
	char *load_why;
	struct wl_list waiting; /* restore_wait.link */
	struct wl_list results; /* restore_result.link */
};

/* ---- What is written ---- */

static struct json_object *transition_object(const struct veil_transition_spec *spec) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "kind",
		json_object_new_string(veil_transition_name(spec->kind)));
	json_object_object_add(obj, "ms", json_object_new_int(spec->ms));
	if (spec->kind == VEIL_TRANSITION_WIPE || spec->kind == VEIL_TRANSITION_SLIDE) {
		json_object_object_add(obj, "from",
			json_object_new_string(veil_side_name(spec->side)));
	}
	if (spec->kind == VEIL_TRANSITION_GROW) {
		struct json_object *at = json_object_new_array();
		const struct veil_coord *coords[2] = { &spec->at_x, &spec->at_y };
		for (int i = 0; i < 2; i++) {
			char word[24];
			snprintf(word, sizeof(word), "%d%s", coords[i]->value,
				coords[i]->percent ? "%" : "");
			json_object_array_add(at, json_object_new_string(word));
		}
		json_object_object_add(obj, "at", at);
	}
	if (spec->ease.kind != VEIL_EASE_LINEAR) {
		char curve[64];
		veil_ease_format(&spec->ease, curve, sizeof(curve));
		json_object_object_add(obj, "ease", json_object_new_string(curve));
	}
	return obj;
}

static struct json_object *setting_object(struct veil_scene *scene,
		const struct veil_setting *setting) {
	struct json_object *obj = json_object_new_object();
	if (setting->off) {
		json_object_object_add(obj, "off", json_object_new_boolean(true));
		return obj;
	}
	char color[8];
	snprintf(color, sizeof(color), "#%06" PRIx32, setting->color & 0xffffff);
	json_object_object_add(obj, "mode",
		json_object_new_string(veil_mode_name(setting->mode)));
	json_object_object_add(obj, "color", json_object_new_string(color));
	if (setting->mode == VEIL_MODE_SOLID_COLOR) {
		return obj;
	}
	struct json_object *show = veil_slideshow_state(scene, setting->name);
	if (show != NULL) {
		json_object_object_add(obj, "slideshow", show);
	} else if (setting->source != NULL && setting->source->path != NULL &&
			setting->source->path[0] == '/') {
		struct json_object *file = json_object_new_object();
		json_object_object_add(file, "path", json_object_new_string(setting->source->path));
		json_object_object_add(obj, "file", file);
	}
	/* `dark <file>`: the dark scheme's picture, by its path. */
	const struct veil_source *dark = setting->dark != NULL ? setting->dark->source : NULL;
	if (show == NULL && dark != NULL && dark->path != NULL && dark->path[0] == '/') {
		json_object_object_add(obj, "dark", json_object_new_string(dark->path));
	}
	if (setting->has_transition) {
		json_object_object_add(obj, "transition", transition_object(&setting->transition));
	}
	json_object_object_add(obj, "span", json_object_new_boolean(setting->span));
	json_object_object_add(obj, "loopfade_ms", json_object_new_int(setting->loopfade_ms));
	if (setting->filter != VEIL_IMAGE_FILTER_SMOOTH) {
		/* Not the default: written, as its word. */
		json_object_object_add(obj, "filter",
			json_object_new_string(veil_image_filter_name(setting->filter)));
	}
	/* `veil pause`: a video stays paused (not where it was: no position is kept yet). */
	if (setting->source != NULL && setting->source->paused) {
		json_object_object_add(obj, "paused", json_object_new_boolean(true));
	}
	return obj;
}

/* The settings as they are now; slideshows still reading their directory included. */
static struct json_object *snapshot(struct veil_scene *scene) {
	struct json_object *outputs = json_object_new_object();
	struct veil_setting *setting;
	wl_list_for_each_reverse(setting, &scene->settings, link) {
		/* A workspace's setting comes from the compositor's configuration again. */
		if (setting->workspace != NULL) {
			continue;
		}
		json_object_object_add(outputs, setting->name, setting_object(scene, setting));
	}
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "version", json_object_new_int(VEIL_STATE_VERSION));
	json_object_object_add(root, "outputs", outputs);
	return root;
}

/* ---- Writing, on a worker ---- */

/* Each remembered file's identity: its size and modification time now. */
static void add_identities(struct json_object *root) {
	struct json_object *outputs;
	if (!json_object_object_get_ex(root, "outputs", &outputs)) {
		return;
	}
	json_object_object_foreach(outputs, name, entry) {
		(void)name;
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

static void write_run(struct veil_job *job) {
	struct write_job *w = wl_container_of(job, w, job);
	add_identities(w->root);
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

static void arm(struct veil_state *state);

static void write_done(struct veil_job *job) {
	struct write_job *w = wl_container_of(job, w, job);
	struct veil_state *state = w->state;
	state->writing = NULL;
	if (w->err != 0 && !state->failing) {
		wlr_log(WLR_ERROR, "veil: cannot keep the wallpapers' state in %s: %s: %s "
			"(they are shown all the same; restore will find the state before)", w->path,
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
		arm(state);
	}
}

static const struct veil_job_impl write_impl = {
	.run = write_run,
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
static int handle_timer(void *data) {
	struct veil_state *state = data;
	state->armed = false;
	if (state->writing != NULL || !state->read_done) {
		return 0; /* their end arms it again */
	}
	state->dirty = false;
	struct json_object *root = snapshot(state->scene);
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
	free(state->last_text);
	state->last_text = copy;
	w->state = state;
	w->root = root;
	state->writing = w;
	clock_gettime(CLOCK_MONOTONIC, &state->last_write);
	veil_worker_submit(state->worker, &w->job, &write_impl);
	return 0;
}

/* A write within a second of the last one waits for the rest of that second. */
static void arm(struct veil_state *state) {
	state->dirty = true;
	if (state->armed || state->writing != NULL || !state->read_done) {
		return;
	}
	int64_t wait = DEBOUNCE_MS - ms_since(&state->last_write);
	state->armed = true;
	wl_event_source_timer_update(state->timer, wait > 0 ? (int)wait : 1);
}

static void handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_state *state = wl_container_of(listener, state, scene_changed);
	arm(state);
}

/* ---- Reading, on a worker ---- */

/* Whether an entry's file (or directory) is still what was remembered: NULL if so, or why not. */
static char *verdict(struct json_object *entry) {
	struct json_object *file, *show, *member;
	struct stat st;
	if (json_object_object_get_ex(entry, "slideshow", &show)) {
		json_object_object_get_ex(show, "directory", &member);
		const char *dir = json_object_get_string(member);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			return veil_message("the directory %s is gone", dir);
		}
		return NULL;
	}
	if (!json_object_object_get_ex(entry, "file", &file)) {
		return NULL; /* a colour, or off */
	}
	json_object_object_get_ex(file, "path", &member);
	const char *path = json_object_get_string(member);
	if (stat(path, &st) != 0) {
		return veil_message("%s is gone (%s)", path, strerror(errno));
	}
	struct json_object *size, *mtime;
	if (!json_object_object_get_ex(file, "size", &size) ||
			!json_object_object_get_ex(file, "mtime_ns", &mtime)) {
		return veil_message("%s was not known by its size and time", path);
	}
	int64_t now_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (json_object_get_int64(size) != st.st_size || json_object_get_int64(mtime) != now_ns) {
		return veil_message("%s changed since (its size or time differs)", path);
	}
	return NULL;
}

/*
 * The temporary files of writes that a crash cut short (<name>.XXXXXX, mkostemp's): no write
 * runs yet, so any there is left over.
 */
static void remove_leftovers(const char *path) {
	char *dir_path = strdup(path);
	if (dir_path == NULL) {
		return;
	}
	char *slash = strrchr(dir_path, '/');
	const char *base = slash != NULL ? slash + 1 : path;
	if (slash == dir_path) {
		dir_path[1] = '\0';
	} else if (slash != NULL) {
		*slash = '\0';
	}
	size_t base_len = strlen(base);
	DIR *dir = opendir(slash != NULL ? dir_path : ".");
	struct dirent *ent;
	while (dir != NULL && (ent = readdir(dir)) != NULL) {
		struct stat st;
		if (strlen(ent->d_name) == base_len + 7 &&
				strncmp(ent->d_name, base, base_len) == 0 &&
				ent->d_name[base_len] == '.' &&
				fstatat(dirfd(dir), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
			unlinkat(dirfd(dir), ent->d_name, 0);
		}
	}
	if (dir != NULL) {
		closedir(dir);
	}
	free(dir_path);
}

static void read_run(struct veil_job *job) {
	struct read_job *r = wl_container_of(job, r, job);
	remove_leftovers(r->path);
	int fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r->missing = errno == ENOENT;
		r->why = veil_message("cannot open it: %s", strerror(errno));
		return;
	}
	struct stat st;
	char *text = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r->why = veil_message("it is not a regular file");
		goto out;
	}
	if (st.st_size > VEIL_STATE_MAX_SIZE) {
		r->why = veil_message("it is larger than %d bytes", VEIL_STATE_MAX_SIZE);
		goto out;
	}
	/* One byte more than allowed: a file that grew meanwhile is seen too large. */
	text = malloc(VEIL_STATE_MAX_SIZE + 1);
	if (text == NULL) {
		r->why = veil_message("out of memory");
		goto out;
	}
	size_t len = 0;
	while (len <= VEIL_STATE_MAX_SIZE) {
		ssize_t n = read(fd, text + len, VEIL_STATE_MAX_SIZE + 1 - len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			r->why = veil_message("cannot read it: %s", strerror(errno));
			goto out;
		}
		if (n == 0) {
			break;
		}
		len += (size_t)n;
	}
	r->outputs = veil_state_parse(text, len, &r->why);
	if (r->outputs == NULL) {
		goto out;
	}
	json_object_object_foreach(r->outputs, name, entry) {
		(void)name;
		char *why = verdict(entry);
		if (why != NULL) {
			json_object_object_add(entry, "verdict", json_object_new_string(why));
			free(why);
		}
	}

out:
	free(text);
	close(fd);
}

static void read_free(struct read_job *r) {
	json_object_put(r->outputs);
	free(r->why);
	free(r->path);
	free(r);
}

static void read_discard(struct veil_job *job) {
	read_free(wl_container_of(job, (struct read_job *)NULL, job));
}

static void run_restore(struct veil_state *state, const char *name,
	const struct veil_command *fallback);

static void read_done(struct veil_job *job) {
	struct read_job *r = wl_container_of(job, r, job);
	struct veil_state *state = r->state;
	state->reading = NULL;
	state->read_done = true;
	if (r->outputs != NULL) {
		state->loaded = r->outputs;
		r->outputs = NULL;
	} else {
		state->load_why = veil_message("the state file %s is ignored: %s", r->path,
			r->why != NULL ? r->why : "out of memory");
		/*
		 * A missing file is the first start, not a problem; a restore waiting says why in
		 * its own line: said only there.
		 */
		if (!r->missing && wl_list_empty(&state->waiting)) {
			wlr_log(WLR_ERROR, "veil: %s", state->load_why);
		}
	}
	read_free(r);
	struct restore_wait *wait, *tmp;
	wl_list_for_each_safe(wait, tmp, &state->waiting, link) {
		run_restore(state, wait->name, wait->has_fallback ? &wait->fallback : NULL);
		wl_list_remove(&wait->link);
		veil_command_finish(&wait->fallback);
		free(wait->name);
		free(wait);
	}
	veil_scene_changed(state->scene);
	arm(state);
}

static const struct veil_job_impl read_impl = {
	.run = read_run,
	.done = read_done,
	.discard = read_discard,
};

/* ---- Restoring ---- */

static void set_result(struct veil_state *state, const char *name, bool restored,
		const char *why) {
	struct restore_result *result, *found = NULL;
	wl_list_for_each(result, &state->results, link) {
		if (strcmp(result->name, name) == 0) {
			found = result;
		}
	}
	if (found == NULL) {
		found = calloc(1, sizeof(*found));
		if (found == NULL || (found->name = strdup(name)) == NULL) {
			free(found);
			return;
		}
		wl_list_insert(&state->results, &found->link);
	}
	free(found->why);
	found->why = why != NULL ? strdup(why) : NULL;
	found->restored = restored;
}

/* The remembered setting of name, shown: 0, or a negative errno with *why. */
static int restore_remembered(struct veil_state *state, const char *name, char **why) {
	struct json_object *entry;
	if (state->loaded == NULL) {
		*why = strdup(state->load_why != NULL ? state->load_why : "no state file");
		return -ENOENT;
	}
	if (!json_object_object_get_ex(state->loaded, name, &entry)) {
		*why = veil_message("the state file remembers nothing for %s", name);
		return -ENOENT;
	}
	struct json_object *member;
	if (json_object_object_get_ex(entry, "verdict", &member)) {
		*why = strdup(json_object_get_string(member));
		return -ESTALE;
	}
	struct veil_command cmd;
	int ret = veil_state_command(entry, &cmd, why);
	if (ret < 0) {
		return ret;
	}
	char *message = NULL;
	ret = veil_scene_run(state->scene, name, &cmd, -1, NULL, &message);
	if (ret < 0) {
		*why = veil_message("it cannot be shown: %s", message != NULL ? message : "failed");
	}
	free(message);
	struct json_object *show, *paused;
	struct veil_setting *setting = ret == 0 ? veil_scene_resolve(state->scene, name, NULL) :
		NULL;
	if (setting != NULL && strcmp(setting->name, name) == 0 && setting->source != NULL &&
			json_object_object_get_ex(entry, "paused", &paused) &&
			json_object_get_boolean(paused)) {
		/* The video starts as it was left: paused (at its start). */
		veil_source_set_paused(setting->source, true);
	}
	if (ret == 0 && cmd.path != NULL && json_object_object_get_ex(entry, "slideshow", &show)) {
		struct json_object *file = NULL, *seen = NULL;
		json_object_object_get_ex(show, "file", &file);
		json_object_object_get_ex(show, "seen", &seen);
		size_t n = seen != NULL ? json_object_array_length(seen) : 0;
		const char **shown = calloc(n + 1, sizeof(*shown));
		/* The last of the sequence is the picture the show resumes with. */
		for (size_t i = 0; shown != NULL && i + 1 < n; i++) {
			shown[i] = json_object_get_string(json_object_array_get_idx(seen, i));
		}
		veil_slideshow_resume(state->scene, name, file != NULL ?
			json_object_get_string(file) : NULL, shown, n > 0 && shown != NULL ? n - 1 : 0);
		free(shown);
	}
	veil_command_finish(&cmd);
	return ret;
}

static void run_restore(struct veil_state *state, const char *name,
		const struct veil_command *fallback) {
	char *why = NULL;
	if (restore_remembered(state, name, &why) == 0) {
		wlr_log(WLR_INFO, "veil: output %s: restored what was set before (%s)", name,
			state->path);
		set_result(state, name, true, "the remembered setting, unchanged");
		return;
	}
	const char *reason = why != NULL ? why : "out of memory";
	if (fallback == NULL) {
		wlr_log(WLR_INFO, "veil: output %s: nothing restored: %s", name, reason);
		set_result(state, name, false, reason);
		free(why);
		return;
	}
	char *message = NULL;
	int ret = veil_scene_run(state->scene, name, fallback, -1, NULL, &message);
	wlr_log(ret == 0 ? WLR_INFO : WLR_ERROR, "veil: output %s: not restored (%s): %s the "
		"fallback%s%s", name, reason, ret == 0 ? "showing" : "cannot show",
		ret == 0 ? "" : ": ", ret == 0 ? "" : (message != NULL ? message : "failed"));
	set_result(state, name, false, reason);
	free(message);
	free(why);
}

int veil_state_restore(struct veil_scene *scene, const char *name,
		const struct veil_command *fallback, char **message) {
	struct veil_state *state = scene->state;
	if (state == NULL) {
		/* No state file: the fallback, as after a first start. */
		wlr_log(WLR_INFO, "veil: output %s: nothing restored: the compositor keeps no "
			"state file", name);
		return fallback != NULL ? veil_scene_run(scene, name, fallback, -1, NULL, message) :
			0;
	}
	if (state->read_done) {
		run_restore(state, name, fallback);
		return 0;
	}
	struct restore_wait *wait = calloc(1, sizeof(*wait));
	if (wait == NULL || (wait->name = strdup(name)) == NULL) {
		free(wait);
		veil_message_set(message, "Out of memory");
		return -ENOMEM;
	}
	if (fallback != NULL) {
		wait->fallback = *fallback;
		wait->fallback.path = fallback->path != NULL ? strdup(fallback->path) : NULL;
		wait->has_fallback = true;
	}
	/* A restore given again for the name replaces the one waiting. */
	struct restore_wait *other, *tmp;
	wl_list_for_each_safe(other, tmp, &state->waiting, link) {
		if (strcmp(other->name, name) == 0) {
			wl_list_remove(&other->link);
			veil_command_finish(&other->fallback);
			free(other->name);
			free(other);
		}
	}
	wl_list_insert(state->waiting.prev, &wait->link);
	return 0;
}

static void result_destroy(struct restore_result *result) {
	wl_list_remove(&result->link);
	free(result->name);
	free(result->why);
	free(result);
}

void veil_state_forget(struct veil_scene *scene, const char *name) {
	if (scene->state == NULL) {
		return;
	}
	struct restore_result *result, *tmp;
	wl_list_for_each_safe(result, tmp, &scene->state->results, link) {
		if (strcmp(result->name, name) == 0) {
			result_destroy(result);
		}
	}
}

void veil_state_status(struct veil_output *output, struct json_object *obj) {
	struct veil_state *state = output->scene->state;
	if (state == NULL) {
		return;
	}
	const struct restore_result *mine = NULL, *all = NULL, *result;
	wl_list_for_each(result, &state->results, link) {
		if (strcmp(result->name, output->output->name) == 0) {
			mine = result;
		} else if (strcmp(result->name, "*") == 0) {
			all = result;
		}
	}
	/* The setting the output shows decides whose restore it is. */
	const char *setting = output->setting != NULL ? output->setting->name : NULL;
	result = mine != NULL && (setting == NULL || strcmp(setting, "*") != 0) ? mine : all;
	if (result == NULL) {
		return;
	}
	json_object_object_add(obj, "restored", json_object_new_boolean(result->restored));
	json_object_object_add(obj, "restore_reason", result->why != NULL ?
		json_object_new_string(result->why) : NULL);
}

/* ---- Life ---- */

void veil_state_destroy(struct veil_scene *scene) {
	struct veil_state *state = scene->state;
	if (state == NULL) {
		return;
	}
	scene->state = NULL;
	if (state->writing != NULL) {
		veil_job_cancel(&state->writing->job);
	}
	if (state->reading != NULL) {
		veil_job_cancel(&state->reading->job);
	}
	/* A write under way finishes: the file is the old one or the new one. */
	veil_worker_destroy(state->worker);
	wl_list_remove(&state->scene_changed.link);
	wl_event_source_remove(state->timer);
	struct restore_wait *wait, *tmp_wait;
	wl_list_for_each_safe(wait, tmp_wait, &state->waiting, link) {
		wl_list_remove(&wait->link);
		veil_command_finish(&wait->fallback);
		free(wait->name);
		free(wait);
	}
	struct restore_result *result, *tmp_result;
	wl_list_for_each_safe(result, tmp_result, &state->results, link) {
		result_destroy(result);
	}
	json_object_put(state->loaded);
	free(state->load_why);
	free(state->last_text);
	free(state->path);
	free(state);
}

bool veil_scene_set_state_path(struct veil_scene *scene, const char *path) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL) {
		return false;
	}
	veil_state_destroy(scene);
	if (path == NULL || path[0] == '\0') {
		return true;
	}
	struct veil_state *state = calloc(1, sizeof(*state));
	struct read_job *r = calloc(1, sizeof(*r));
	if (state == NULL || r == NULL || (state->path = strdup(path)) == NULL ||
			(r->path = strdup(path)) == NULL) {
		goto nomem;
	}
	state->scene = scene;
	wl_list_init(&state->waiting);
	wl_list_init(&state->results);
	state->worker = veil_worker_create(scene->ctx.loop);
	state->timer = state->worker != NULL ?
		wl_event_loop_add_timer(scene->ctx.loop, handle_timer, state) : NULL;
	if (state->timer == NULL) {
		veil_worker_destroy(state->worker);
		goto nomem;
	}
	/* Nothing is written within a second of the start, nor before the file is read. */
	clock_gettime(CLOCK_MONOTONIC, &state->last_write);
	state->scene_changed.notify = handle_scene_changed;
	wl_signal_add(&scene->events.changed, &state->scene_changed);
	scene->state = state;
	r->state = state;
	state->reading = r;
	veil_worker_submit(state->worker, &r->job, &read_impl);
	return true;

nomem:
	if (r != NULL) {
		free(r->path);
		free(r);
	}
	if (state != NULL) {
		free(state->path);
		free(state);
	}
	wlr_log(WLR_ERROR, "veil: out of memory: no state file");
	return false;
}
