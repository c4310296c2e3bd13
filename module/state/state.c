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
#include "module/state/state.h"
#include "module/state/state_impl.h"
#include "util/ease.h"
#include "util/message.h"
#include "util/mode.h"
#include "util/worker.h"

/* ---- Reading, on a worker ---- */

/* Whether an entry's file (or directory) is still what was remembered: NULL if so, or why not. */
char *veil_state_verdict(struct json_object *entry) {
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

void veil_state_add_verdict(struct json_object *entry) {
	char *why = veil_state_verdict(entry);
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
	veil_state_each_entry(r->root, veil_state_add_verdict);

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


void veil_state_read_done(struct veil_job *job) {
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
		veil_state_run_restore(state, wait->name, wait->has_fallback ? &wait->fallback : NULL,
			wait->superseded, wait->spaces);
		veil_state_wait_destroy(wait);
	}
	veil_scene_changed(state->scene);
	veil_state_arm(state);
}

static const struct veil_job_impl read_impl = {
	.run = read_run,
	.done = veil_state_read_done,
	.discard = read_discard,
};

/* ---- Life ---- */

/*
 * The last write, on the compositor's thread as it stops: what changed since the last write
 * (within the last second, or a video's position since). unsure: a write was queued or under
 * way, which may not have reached the disk: written whatever the last text was.
 */
static void write_last(struct veil_state *state, bool unsure) {
	struct json_object *root = veil_state_snapshot(state->scene);
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (!unsure && state->last_text != NULL && strcmp(state->last_text, text) == 0) {
		json_object_put(root);
		return;
	}
	struct write_job w = { .root = root, .path = state->path };
	veil_state_write_run(&w.job);
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
	wl_list_remove(&state->command.link);
	wl_event_source_remove(state->timer);
	struct restore_wait *wait, *tmp_wait;
	wl_list_for_each_safe(wait, tmp_wait, &state->waiting, link) {
		veil_state_wait_destroy(wait);
	}
	struct restore_result *result, *tmp_result;
	wl_list_for_each_safe(result, tmp_result, &state->results, link) {
		veil_state_result_destroy(result);
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
		wl_event_loop_add_timer(scene->ctx.loop, veil_state_handle_timer, state) : NULL;
	if (state->timer == NULL) {
		veil_worker_destroy(state->worker);
		goto nomem;
	}
	/* Nothing is written within a second of the start, nor before the file is read. */
	clock_gettime(CLOCK_MONOTONIC, &state->last_write);
	state->scene_changed.notify = veil_state_handle_scene_changed;
	wl_signal_add(&scene->events.changed, &state->scene_changed);
	state->command.notify = veil_state_handle_command;
	wl_signal_add(&scene->events.command, &state->command);
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

