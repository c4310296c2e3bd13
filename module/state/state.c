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
 * bytes, checked by module/state/state_read.c, each remembered file looked at (a stat) for whether
 * it is still the same. Writes wait until then, so that the settings of a starting compositor do
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
#include "module/policy/policy.h"
#include "module/core/scene.h"
#include "module/show/slideshow.h"
#include "module/show/timed.h"
#include "module/state/state.h"
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

/* What of a name a restore brings back, which a later command may have replaced. */
enum restore_part {
	PART_SETTING = 1 << 0,
	PART_TRANSITION = 1 << 1,
	PART_FPS = 1 << 2,
	PART_BATTERY = 1 << 3,
};

/* A `restore` given before the file was read. */
struct restore_wait {
	struct wl_list link; /* veil_state.waiting */
	char *name;
	struct veil_command fallback;
	bool has_fallback;
	/*
	 * Given since (veil_state_supersede): commands for the same things, which win over what
	 * the file remembers. superseded: enum restore_part bits; spaces: the workspaces whose
	 * setting a command set or ended (an object used as a set), NULL for none.
	 */
	unsigned superseded;
	struct json_object *spaces;
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
	struct json_object *root; /* checked, with "verdict" members added */
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
	struct json_object *loaded; /* the file's root as read; NULL when unusable */
	char *load_why;
	struct wl_list waiting; /* restore_wait.link */
	struct wl_list results; /* restore_result.link */
	bool restoring; /* running what a restore brings back: not a later command */
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
	char color[8];
	snprintf(color, sizeof(color), "#%06" PRIx32, setting->color & 0xffffff);
	json_object_object_add(obj, "mode",
		json_object_new_string(veil_mode_name(setting->mode)));
	json_object_object_add(obj, "color", json_object_new_string(color));
	if (setting->mode == VEIL_MODE_SOLID_COLOR) {
		return obj;
	}
	struct json_object *show = setting->workspace == NULL ?
		veil_slideshow_state(scene, setting->name) : NULL;
	/* A timed background: its XML, and the command's transition (not a step's fade). */
	const char *timed = NULL;
	const struct veil_command *step = NULL;
	bool has_timed = setting->workspace == NULL &&
		veil_timed_state(scene, setting->name, &timed, &step);
	const char *path = has_timed ? timed : setting_path(setting);
	if (show != NULL) {
		json_object_object_add(obj, "slideshow", show);
	} else if (path != NULL) {
		struct json_object *file = json_object_new_object();
		json_object_object_add(file, "path", json_object_new_string(path));
		json_object_object_add(obj, "file", file);
	}
	if (has_timed && step->has_transition) {
		json_object_object_add(obj, "transition", transition_object(&step->transition));
	}
	/* `dark <file|#rrggbb>`: the dark scheme's picture, by its path, or its colour. */
	/* A wallpaper package's dark pictures are its own: its directory says it all. */
	const char *dark = setting->dark != NULL && setting->package == NULL ?
		setting_path(setting->dark) : NULL;
	char dark_color[8];
	if (setting->dark != NULL && setting->dark->mode == VEIL_MODE_SOLID_COLOR) {
		snprintf(dark_color, sizeof(dark_color), "#%06" PRIx32, setting->dark->color & 0xffffff);
		dark = dark_color;
	}
	if (show == NULL && dark != NULL && !has_timed) {
		json_object_object_add(obj, "dark", json_object_new_string(dark));
	}
	if (setting->has_transition && !has_timed) {
		json_object_object_add(obj, "transition", transition_object(&setting->transition));
	}
	json_object_object_add(obj, "span", json_object_new_boolean(setting->span));
	json_object_object_add(obj, "loopfade_ms", json_object_new_int(setting->loopfade_ms));
	if (setting->filter != VEIL_IMAGE_FILTER_SMOOTH) {
		/* Not the default: written, as its word. */
		json_object_object_add(obj, "filter",
			json_object_new_string(veil_image_filter_name(setting->filter)));
	}
	/* `location <lat> <lon>`: the setting's own place, not the compositor's. */
	bool has_location = has_timed ? step->has_location : setting->has_location;
	if (has_location) {
		struct json_object *place = json_object_new_array();
		json_object_array_add(place, json_object_new_double(has_timed ? step->latitude :
			setting->latitude));
		json_object_array_add(place, json_object_new_double(has_timed ? step->longitude :
			setting->longitude));
		json_object_object_add(obj, "location", place);
	}
	/* `veil pause`: a video stays paused, where it was. */
	struct veil_source *source = setting->source;
	if (source != NULL && source->paused) {
		json_object_object_add(obj, "paused", json_object_new_boolean(true));
	}
	/* A timed background's step is the background's to choose again. */
	int64_t position = source != NULL && !has_timed ? veil_source_get_position_ms(source) : -1;
	if (position >= 0) {
		json_object_object_add(obj, "position_ms", json_object_new_int64(position));
	}
	return obj;
}

/* The settings as they are now; slideshows still reading their directory included. */
static struct json_object *snapshot(struct veil_scene *scene) {
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
		if (setting->mode != VEIL_MODE_SOLID_COLOR && setting_path(setting) == NULL) {
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
		json_object_object_add(transitions, dflt->name, transition_object(&dflt->spec));
	}
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "version", json_object_new_int(VEIL_STATE_VERSION));
	json_object_object_add(root, "outputs", outputs);
	json_object_object_add(root, "workspaces", workspaces);
	json_object_object_add(root, "transitions", transitions);
	json_object_object_add(root, "policies", veil_policy_state(scene));
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
static void each_entry(struct json_object *root, void (*fn)(struct json_object *entry)) {
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

static void add_verdict(struct json_object *entry);

static void write_run(struct veil_job *job) {
	struct write_job *w = wl_container_of(job, w, job);
	each_entry(w->root, add_identity);
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
	each_entry(w->root, add_verdict);

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
	if (w->err == 0) {
		/*
		 * A restore from now on (sway's reload, labwc's reconfigure) brings back what was
		 * written last, not what the file said at start.
		 */
		json_object_put(state->loaded);
		state->loaded = json_object_get(w->root);
	}
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

static void wait_destroy(struct restore_wait *wait) {
	wl_list_remove(&wait->link);
	veil_command_finish(&wait->fallback);
	json_object_put(wait->spaces);
	free(wait->name);
	free(wait);
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

static void add_verdict(struct json_object *entry) {
	char *why = verdict(entry);
	if (why != NULL) {
		json_object_object_add(entry, "verdict", json_object_new_string(why));
		free(why);
	}
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
	r->root = veil_state_parse(text, len, &r->why);
	if (r->root == NULL) {
		goto out;
	}
	each_entry(r->root, add_verdict);

out:
	free(text);
	close(fd);
}

static void read_free(struct read_job *r) {
	json_object_put(r->root);
	free(r->why);
	free(r->path);
	free(r);
}

static void read_discard(struct veil_job *job) {
	read_free(wl_container_of(job, (struct read_job *)NULL, job));
}

static void run_restore(struct veil_state *state, const char *name,
	const struct veil_command *fallback, unsigned superseded, struct json_object *spaces);

static void read_done(struct veil_job *job) {
	struct read_job *r = wl_container_of(job, r, job);
	struct veil_state *state = r->state;
	state->reading = NULL;
	state->read_done = true;
	if (r->root != NULL) {
		state->loaded = r->root;
		r->root = NULL;
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
		run_restore(state, wait->name, wait->has_fallback ? &wait->fallback : NULL,
			wait->superseded, wait->spaces);
		wait_destroy(wait);
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

/*
 * A video comes back as it was left: at its position (a seek on veil's threads once it is
 * loaded), and paused if it was.
 */
static void resume_video(struct veil_setting *setting, struct json_object *entry) {
	struct json_object *member;
	if (setting == NULL || setting->source == NULL) {
		return;
	}
	if (json_object_object_get_ex(entry, "position_ms", &member)) {
		veil_source_seek(setting->source, json_object_get_int64(member));
	}
	if (json_object_object_get_ex(entry, "paused", &member) &&
			json_object_get_boolean(member)) {
		veil_source_set_paused(setting->source, true);
	}
}

/* The remembered setting of name, shown: 0, or a negative errno with *why. */
static int restore_remembered(struct veil_state *state, const char *name, char **why) {
	struct json_object *entry, *outputs = NULL;
	if (state->loaded == NULL) {
		*why = strdup(state->load_why != NULL ? state->load_why : "no state file");
		return -ENOENT;
	}
	json_object_object_get_ex(state->loaded, "outputs", &outputs);
	if (!json_object_object_get_ex(outputs, name, &entry)) {
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
	struct json_object *show;
	if (ret == 0) {
		resume_video(veil_scene_find_setting(state->scene, name, NULL), entry);
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

/* A remembered command the parser refused (why, taken): a line in the log. */
static void refused(const char *name, const char *what, char *why) {
	wlr_log(WLR_ERROR, "veil: output %s: the remembered %s is not restored: %s", name, what,
		why != NULL ? why : "out of memory");
	free(why);
}

/* A remembered command of name run again; a line in the log when it cannot be. */
static void run_again(struct veil_state *state, const char *name, const char *what,
		struct veil_command *cmd) {
	char *message = NULL;
	if (veil_scene_run(state->scene, name, cmd, -1, NULL, &message) < 0) {
		wlr_log(WLR_ERROR, "veil: output %s: the remembered %s is not restored: %s", name,
			what, message != NULL ? message : "failed");
	}
	free(message);
	veil_command_finish(cmd);
}

/*
 * What else name had besides its setting: its `transition` default, its `fps` and `battery`
 * policies, and its workspace settings (each whose file is unchanged). Each is run as the
 * user's command would be; one that cannot be is left out with a line in the log.
 */
static void restore_extras(struct veil_state *state, const char *name, unsigned superseded,
		struct json_object *spaces) {
	struct json_object *member, *entry;
	struct veil_command cmd;
	char *why = NULL;
	if (!(superseded & PART_TRANSITION) &&
			json_object_object_get_ex(state->loaded, "transitions", &member) &&
			json_object_object_get_ex(member, name, &entry)) {
		if (veil_state_transition_command(entry, &cmd, &why) == 0) {
			run_again(state, name, "transition", &cmd);
		} else {
			refused(name, "transition", why);
			why = NULL;
		}
	}
	for (int battery = 0; battery < 2; battery++) {
		const char *what = battery ? "battery policy" : "fps cap";
		if (superseded & (battery ? PART_BATTERY : PART_FPS)) {
			continue;
		}
		if (!json_object_object_get_ex(state->loaded, "policies", &member) ||
				!json_object_object_get_ex(member, name, &entry)) {
			break;
		}
		int ret = veil_state_policy_command(entry, battery, &cmd, &why);
		if (ret == 0) {
			run_again(state, name, what, &cmd);
		} else if (ret < 0) {
			refused(name, what, why);
			why = NULL;
		}
	}
	struct json_object *remembered;
	if (!json_object_object_get_ex(state->loaded, "workspaces", &member) ||
			!json_object_object_get_ex(member, name, &remembered)) {
		return;
	}
	json_object_object_foreach(remembered, ws, ws_entry) {
		struct json_object *stale;
		if (spaces != NULL && json_object_object_get_ex(spaces, ws, NULL)) {
			continue; /* set or ended since */
		}
		if (json_object_object_get_ex(ws_entry, "verdict", &stale)) {
			wlr_log(WLR_INFO, "veil: output %s: workspace '%s' not restored: %s", name, ws,
				json_object_get_string(stale));
			continue;
		}
		if (veil_state_command(ws_entry, &cmd, &why) < 0) {
			wlr_log(WLR_ERROR, "veil: output %s: workspace '%s' not restored: %s", name, ws,
				why != NULL ? why : "out of memory");
			free(why);
			why = NULL;
			continue;
		}
		cmd.workspace = strdup(ws);
		if (cmd.workspace == NULL) {
			veil_command_finish(&cmd);
			continue;
		}
		char *what = veil_message("setting of workspace '%s'", ws);
		run_again(state, name, what != NULL ? what : "workspace setting", &cmd);
		free(what);
		resume_video(veil_scene_find_setting(state->scene, name, ws), ws_entry);
	}
}

static void restore_setting(struct veil_state *state, const char *name,
		const struct veil_command *fallback);

/*
 * The setting first (no default transition for the first picture), then the rest; what a
 * command given since the restore replaced (superseded, spaces) is left as that command made it.
 */
static void run_restore(struct veil_state *state, const char *name,
		const struct veil_command *fallback, unsigned superseded, struct json_object *spaces) {
	state->restoring = true;
	if (superseded & PART_SETTING) {
		wlr_log(WLR_INFO, "veil: output %s: its remembered setting is not restored: a "
			"command given after restore replaced it", name);
	} else {
		restore_setting(state, name, fallback);
	}
	if (state->loaded != NULL) {
		restore_extras(state, name, superseded, spaces);
	}
	state->restoring = false;
}

static void restore_setting(struct veil_state *state, const char *name,
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
		run_restore(state, name, fallback, 0, NULL);
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
			wait_destroy(other);
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

void veil_state_supersede(struct veil_scene *scene, const char *name,
		const struct veil_command *cmd) {
	struct veil_state *state = scene->state;
	if (state == NULL || state->restoring || wl_list_empty(&state->waiting)) {
		return;
	}
	unsigned part;
	switch (cmd->kind) {
	case VEIL_COMMAND_SET:
	case VEIL_COMMAND_OFF:
		if (cmd->from_slideshow) {
			return;
		}
		part = PART_SETTING;
		break;
	case VEIL_COMMAND_TRANSITION:
		part = PART_TRANSITION;
		break;
	case VEIL_COMMAND_FPS:
		part = PART_FPS;
		break;
	case VEIL_COMMAND_BATTERY:
		part = PART_BATTERY;
		break;
	default:
		return;
	}
	/*
	 * "*"'s transition, fps, battery and off replace the outputs' own; its other settings
	 * and workspace settings do not (the output's own come first).
	 */
	bool wildcard = strcmp(name, "*") == 0 && cmd->workspace == NULL &&
		(part != PART_SETTING || cmd->kind == VEIL_COMMAND_OFF);
	struct restore_wait *wait;
	wl_list_for_each(wait, &state->waiting, link) {
		if (!wildcard && strcmp(wait->name, name) != 0) {
			continue;
		}
		if (cmd->workspace == NULL) {
			wait->superseded |= part;
			continue;
		}
		if (wait->spaces == NULL) {
			wait->spaces = json_object_new_object();
		}
		json_object_object_add(wait->spaces, cmd->workspace, NULL);
	}
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

/*
 * The last write, on the compositor's thread as it stops: what changed since the last write
 * (within the last second, or a video's position since). unsure: a write was queued or under
 * way, which may not have reached the disk: written whatever the last text was.
 */
static void write_last(struct veil_state *state, bool unsure) {
	struct json_object *root = snapshot(state->scene);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (!unsure && state->last_text != NULL && strcmp(state->last_text, text) == 0) {
		json_object_put(root);
		return;
	}
	struct write_job w = { .root = root, .path = state->path };
	write_run(&w.job);
	if (w.err != 0) {
		wlr_log(WLR_ERROR, "veil: cannot keep the wallpapers' state in %s as the compositor "
			"stops: %s: %s", w.path, w.step, strerror(-w.err));
	}
	json_object_put(root);
}

void veil_state_destroy(struct veil_scene *scene) {
	struct veil_state *state = scene->state;
	if (state == NULL) {
		return;
	}
	bool unsure = state->writing != NULL;
	if (state->writing != NULL) {
		veil_job_cancel(&state->writing->job);
	}
	if (state->reading != NULL) {
		veil_job_cancel(&state->reading->job);
	}
	/* A write under way finishes: the file is the old one or the new one. */
	veil_worker_destroy(state->worker);
	/*
	 * Then the last one, here: a small file, once. Not before the file was read: what the
	 * compositor shows then is not yet what the user set (a restore waits for the read).
	 */
	if (state->read_done) {
		write_last(state, unsure);
	}
	scene->state = NULL;
	wl_list_remove(&state->scene_changed.link);
	wl_event_source_remove(state->timer);
	struct restore_wait *wait, *tmp_wait;
	wl_list_for_each_safe(wait, tmp_wait, &state->waiting, link) {
		wait_destroy(wait);
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
