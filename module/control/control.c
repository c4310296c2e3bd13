/*
 * The control global (veil-control-unstable-v1's server): created and removed with the scene,
 * each client's manager bound to it, the global's filter. What a manager asks is
 * module/control/requests.c's; status objects are module/control/status_events.c's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/control/control.h"
#include "module/control/control_impl.h"
#include "module/core/scene.h"

#define CONTROL_VERSION 3

/* A removed global is destroyed this much later (see remove_global). */
#define GLOBAL_DESTROY_DELAY_MS 5000

static void manager_handle_resource_destroy(struct wl_resource *resource) {
	wl_list_remove(wl_resource_get_link(resource));
}

static void manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id) {
	/* NULL while a removed global waits to be destroyed: the client gets an inert object. */
	struct veil_control *control = data;
	struct wl_resource *resource = wl_resource_create(client,
		&zveil_control_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &veil_control_manager_impl, control,
		manager_handle_resource_destroy);
	if (control != NULL) {
		wl_list_insert(&control->managers, wl_resource_get_link(resource));
	} else {
		wl_list_init(wl_resource_get_link(resource));
	}
}

/* ---- The global ---- */

/*
 * A global removed from the registry but not destroyed yet: a client may have sent a bind
 * before it heard of the removal, and binding a destroyed global kills its connection.
 */
struct removed_global {
	struct wl_global *global;
	struct wl_event_source *timer;
	struct wl_listener display_destroy;
};

static void removed_global_destroy(struct removed_global *removed) {
	wl_list_remove(&removed->display_destroy.link);
	wl_event_source_remove(removed->timer);
	wl_global_destroy(removed->global);
	free(removed);
}

static int handle_removed_timer(void *data) {
	removed_global_destroy(data);
	return 0;
}

static void handle_removed_display_destroy(struct wl_listener *listener, void *data) {
	struct removed_global *removed = wl_container_of(listener, removed, display_destroy);
	removed_global_destroy(removed);
}

static void remove_global(struct wl_display *display, struct wl_global *global) {
	wl_global_remove(global);
	wl_global_set_user_data(global, NULL);
	struct removed_global *removed = calloc(1, sizeof(*removed));
	if (removed == NULL) {
		goto destroy_now;
	}
	removed->global = global;
	removed->timer = wl_event_loop_add_timer(wl_display_get_event_loop(display),
		handle_removed_timer, removed);
	if (removed->timer == NULL) {
		free(removed);
		goto destroy_now;
	}
	wl_event_source_timer_update(removed->timer, GLOBAL_DESTROY_DELAY_MS);
	/* Added during the display's destruction, the listener still runs in it. */
	removed->display_destroy.notify = handle_removed_display_destroy;
	wl_display_add_destroy_listener(display, &removed->display_destroy);
	return;

destroy_now:
	wl_global_destroy(global);
}

void veil_control_destroy(struct veil_control *control) {
	if (control == NULL) {
		return;
	}
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &control->statuses) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		zveil_control_status_v1_send_failed(resource,
			ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor stopped drawing wallpapers with veil");
	}
	wl_resource_for_each_safe(resource, tmp, &control->managers) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
	if (control->idle != NULL) {
		wl_event_source_remove(control->idle);
	}
	wl_list_remove(&control->scene_changed.link);
	remove_global(control->scene->display, control->global);
	control->scene->control = NULL;
	free(control);
}

bool veil_scene_control_trusted(const struct wl_client *client, void *data) {
	struct wlr_security_context_manager_v1 *security_context = data;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	wl_client_get_credentials(client, &pid, &uid, &gid);
	/* Another user reached the socket somehow: not a client of this session. */
	if (uid != geteuid()) {
		return false;
	}
	/* Sandbox engines (Flatpak, ...) connect their clients through a security context. */
	return security_context == NULL ||
		wlr_security_context_manager_v1_lookup_client(security_context, client) == NULL;
}

bool veil_scene_filter_global(struct veil_scene *scene, const struct wl_client *client,
		const struct wl_global *global) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->control == NULL || global != scene->control->global) {
		return true;
	}
	return veil_control_allows(scene->control, client);
}

bool veil_scene_create_control(struct veil_scene *scene, veil_control_filter_func filter,
		void *data) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL) {
		return false;
	}
	if (scene->control != NULL) {
		wlr_log(WLR_ERROR, "veil: the control global exists already");
		return false;
	}
	struct veil_control *control = calloc(1, sizeof(*control));
	if (control == NULL) {
		return false;
	}
	control->scene = scene;
	control->filter = filter != NULL ? filter : veil_scene_control_trusted;
	control->filter_data = data;
	wl_list_init(&control->managers);
	wl_list_init(&control->statuses);
	control->global = wl_global_create(scene->display, &zveil_control_manager_v1_interface,
		CONTROL_VERSION, control, manager_bind);
	if (control->global == NULL) {
		free(control);
		return false;
	}
	control->scene_changed.notify = veil_control_handle_scene_changed;
	wl_signal_add(&scene->events.changed, &control->scene_changed);
	scene->control = control;
	return true;
}
