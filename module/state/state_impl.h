/* Inside module/state/: the state's structs and what its files share. */
#ifndef VEIL_MODULE_STATE_IMPL_H
#define VEIL_MODULE_STATE_IMPL_H

#include <stdbool.h>
#include <time.h>
#include <json-c/json.h>
#include <wayland-server-core.h>
#include "module/words/command.h"
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
	PART_XRAY = 1 << 4,
	PART_BLUR = 1 << 5,
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
	struct wl_listener command; /* veil_scene.events.command: restore.c */
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

void veil_state_arm(struct veil_state *state);
void veil_state_each_entry(struct json_object *root, void (*fn)(struct json_object *entry));
void veil_state_handle_scene_changed(struct wl_listener *listener, void *data);
void veil_state_handle_command(struct wl_listener *listener, void *data);
int veil_state_handle_timer(void *data);
struct json_object *veil_state_snapshot(struct veil_scene *scene);
void veil_state_write_run(struct veil_job *job);
void veil_state_add_verdict(struct json_object *entry);
void veil_state_read_done(struct veil_job *job);
char *veil_state_verdict(struct json_object *entry);
void veil_state_result_destroy(struct restore_result *result);
void veil_state_run_restore(struct veil_state *state, const char *name,
	const struct veil_command *fallback, unsigned superseded, struct json_object *spaces);
void veil_state_wait_destroy(struct restore_wait *wait);

#endif
