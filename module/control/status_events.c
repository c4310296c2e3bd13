/*
 * Status objects of veil-control-unstable-v1: a description of each output (its events, then
 * the rest of the status JSON a member at a time), sent again once idle after the scene changed.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include "module/control/control.h"
#include "module/control/control_impl.h"
#include "module/core/scene.h"
#include "module/control/status.h"
#include "util/mode_protocol.h"

/* At most max bytes of str, not cutting a UTF-8 sequence in two. */
size_t veil_control_clip_len(const char *str, size_t max) {
	size_t len = strlen(str);
	if (len <= max) {
		return len;
	}
	len = max;
	while (len > 0 && ((unsigned char)str[len] & 0xc0) == 0x80) {
		len--;
	}
	return len;
}

/* str, or a clipped copy of it in buf (MAX_STRING + 1 bytes). */
const char *veil_control_clip(const char *str, char *buf) {
	size_t len = veil_control_clip_len(str, MAX_STRING);
	if (str[len] == '\0') {
		return str;
	}
	memcpy(buf, str, len);
	buf[len] = '\0';
	return buf;
}

static uint32_t kind_to_protocol(enum veil_output_kind kind) {
	switch (kind) {
	case VEIL_OUTPUT_NONE:
		return ZVEIL_CONTROL_STATUS_V1_KIND_NONE;
	case VEIL_OUTPUT_OFF:
		return ZVEIL_CONTROL_STATUS_V1_KIND_OFF;
	case VEIL_OUTPUT_COLOR:
		return ZVEIL_CONTROL_STATUS_V1_KIND_COLOR;
	case VEIL_OUTPUT_IMAGE:
		return ZVEIL_CONTROL_STATUS_V1_KIND_IMAGE;
	case VEIL_OUTPUT_VIDEO:
		return ZVEIL_CONTROL_STATUS_V1_KIND_VIDEO;
	}
	return ZVEIL_CONTROL_STATUS_V1_KIND_NONE;
}

static uint32_t shown_to_protocol(enum veil_output_shown shown) {
	switch (shown) {
	case VEIL_SHOWN_OFF:
		return ZVEIL_CONTROL_STATUS_V1_STATE_OFF;
	case VEIL_SHOWN_SHOWN:
		return ZVEIL_CONTROL_STATUS_V1_STATE_SHOWN;
	case VEIL_SHOWN_PAUSED:
		return ZVEIL_CONTROL_STATUS_V1_STATE_PAUSED;
	case VEIL_SHOWN_HIDDEN:
		return ZVEIL_CONTROL_STATUS_V1_STATE_HIDDEN;
	}
	return ZVEIL_CONTROL_STATUS_V1_STATE_OFF;
}

static void split_u64(uint64_t value, uint32_t *hi, uint32_t *lo) {
	*hi = (uint32_t)(value >> 32);
	*lo = (uint32_t)value;
}

/* Members of the JSON status that the other events carry already. */
static bool has_event(const char *name) {
	static const char *const carried[] = {
		"kind", "state", "setting", "mode", "color", "file", "source_size", "frames", "error",
	};
	for (size_t i = 0; i < sizeof(carried) / sizeof(carried[0]); i++) {
		if (strcmp(name, carried[i]) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * The rest of what the status JSON says of an output, a member at a time. A member too long for
 * one message is left out rather than cut into JSON that does not parse.
 */
static void send_details(struct wl_resource *resource, struct veil_output *output) {
	struct json_object *status = veil_output_status(output);
	if (status == NULL) {
		return;
	}
	json_object_object_foreach(status, name, value) {
		if (has_event(name)) {
			continue;
		}
		const char *json = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN);
		if (json != NULL && strlen(json) <= MAX_STRING && strlen(name) <= MAX_LABEL) {
			zveil_control_status_v1_send_detail(resource, name, json);
		}
	}
	json_object_put(status);
}

/* One output's events: the state the status JSON is written from, so that they never disagree. */
static void send_output(struct wl_resource *resource, struct veil_output *output) {
	char buf[MAX_STRING + 1];
	struct veil_output_state state;
	veil_output_get_state(output, &state);
	zveil_control_status_v1_send_output(resource, veil_control_clip(state.name, buf));
	zveil_control_status_v1_send_wallpaper(resource, kind_to_protocol(state.kind),
		shown_to_protocol(state.shown),
		state.setting != NULL ? veil_control_clip(state.setting, buf) : NULL);
	if (state.has_mode) {
		zveil_control_status_v1_send_mode(resource, veil_mode_to_protocol(state.mode),
			state.color);
	}
	if (state.source != NULL) {
		/* The file's own size, not that of the frames a still was shrunk to. */
		bool original = state.info.original_width > 0;
		zveil_control_status_v1_send_media(resource, veil_control_clip(state.file, buf),
			(uint32_t)(original ? state.info.original_width : state.width),
			(uint32_t)(original ? state.info.original_height : state.height));
		if (state.info.decoder[0] != '\0') {
			zveil_control_status_v1_send_decoder(resource,
				veil_control_clip(state.info.decoder, buf));
		}
	}
	/* Video sources count the late frames they drop; stills have no such count. */
	uint32_t shown_hi, shown_lo, dropped_hi, dropped_lo;
	split_u64(state.frames, &shown_hi, &shown_lo);
	split_u64(state.info.dropped, &dropped_hi, &dropped_lo);
	zveil_control_status_v1_send_frames(resource, shown_hi, shown_lo, dropped_hi, dropped_lo);
	if (state.error != NULL) {
		zveil_control_status_v1_send_error(resource, veil_control_clip(state.error, buf));
	}
	if (wl_resource_get_version(resource) >= ZVEIL_CONTROL_STATUS_V1_DETAIL_SINCE_VERSION) {
		send_details(resource, output);
	}
}

static void send_description(struct veil_control *control, struct wl_resource *resource) {
	struct veil_output *output;
	wl_list_for_each(output, &control->scene->outputs, link) {
		send_output(resource, output);
	}
	zveil_control_status_v1_send_done(resource);
}

static void handle_idle(void *data) {
	struct veil_control *control = data;
	/* libwayland frees an idle source after its callback. */
	control->idle = NULL;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &control->statuses) {
		send_description(control, resource);
	}
}

/*
 * Something an output shows changed (a command, a wallpaper that finished loading or failed, an
 * output that came or went): status objects get a new description once the compositor is idle,
 * however many changes come before. Not for frames: a new video frame changes nothing a
 * description says but counters.
 */
void veil_control_handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_control *control = wl_container_of(listener, control, scene_changed);
	if (control->idle != NULL || wl_list_empty(&control->statuses)) {
		return;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(control->scene->display);
	control->idle = wl_event_loop_add_idle(loop, handle_idle, control);
	if (control->idle == NULL) {
		wlr_log(WLR_ERROR, "veil: cannot schedule status events");
	}
}

static void status_handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zveil_control_status_v1_interface status_impl = {
	.destroy = status_handle_destroy,
};

static void status_handle_resource_destroy(struct wl_resource *resource) {
	/* An inert status object has an empty link of its own. */
	wl_list_remove(wl_resource_get_link(resource));
}

void veil_control_get_status(struct wl_client *client,
		struct wl_resource *manager_resource, uint32_t id) {
	struct veil_control *control = veil_control_from_manager(manager_resource);
	struct wl_resource *resource = wl_resource_create(client,
		&zveil_control_status_v1_interface, wl_resource_get_version(manager_resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &status_impl, NULL,
		status_handle_resource_destroy);
	wl_list_init(wl_resource_get_link(resource));

	if (control == NULL) {
		zveil_control_status_v1_send_failed(resource,
			ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor no longer draws wallpapers with veil");
		return;
	}
	if (!veil_control_allows(control, client)) {
		zveil_control_status_v1_send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_DENIED,
			"The compositor does not let this program see or change wallpapers");
		return;
	}
	wl_list_insert(&control->statuses, wl_resource_get_link(resource));
	send_description(control, resource);
}

