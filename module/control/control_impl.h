/*
 * The control global's insides, shared by module/control/control.c (the global, its managers),
 * status_events.c (status objects, a description of each output) and requests.c (the
 * manager's requests: commands, media, snapshots). Private to module/control/.
 */
#ifndef VEIL_MODULE_CONTROL_IMPL_H
#define VEIL_MODULE_CONTROL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <veil/veil.h>
#include "module/control/control.h"
#include "veil-control-unstable-v1-protocol.h"

/*
 * The longest string put in an event. libwayland refuses messages over 4096 bytes by closing
 * the client's connection; labels and messages quote client strings, so they are clipped.
 */
#define MAX_STRING 2048
/* The most words a set_media or run request may carry: a command has a dozen at most. */
#define MAX_WORDS 64
/* The longest label kept for a client's file: status events quote it. */
#define MAX_LABEL 512

struct veil_control {
	struct veil_scene *scene;
	struct wl_global *global;
	veil_control_filter_func filter;
	void *filter_data;
	/*
	 * Bound managers and status objects, through wl_resource_get_link(): when the control goes,
	 * their user data is cleared so that no resource points to it.
	 */
	struct wl_list managers;
	struct wl_list statuses;
	struct wl_event_source *idle; /* descriptions to send when idle, or NULL */

	struct wl_listener scene_changed;
};

/* NULL for an inert manager, whose control is gone. */
static inline struct veil_control *veil_control_from_manager(struct wl_resource *resource) {
	return wl_resource_get_user_data(resource);
}

static inline bool veil_control_allows(struct veil_control *control,
		const struct wl_client *client) {
	return control->filter(client, control->filter_data);
}

/* At most max bytes of str, not cutting a UTF-8 sequence in two. */
size_t veil_control_clip_len(const char *str, size_t max);
/* str, or a clipped copy of it in buf (MAX_STRING + 1 bytes). */
const char *veil_control_clip(const char *str, char *buf);

/* status_events.c: the manager's get_status; the scene's changed signal. */
void veil_control_get_status(struct wl_client *client, struct wl_resource *manager_resource,
	uint32_t id);
void veil_control_handle_scene_changed(struct wl_listener *listener, void *data);

/* requests.c: what a manager does. */
extern const struct zveil_control_manager_v1_interface veil_control_manager_impl;

#endif
