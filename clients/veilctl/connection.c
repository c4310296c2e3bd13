/* The compositor's control global (zveil_control_manager_v1). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"

static void registry_handle_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct client *client = data;
	if (strcmp(interface, zveil_control_manager_v1_interface.name) == 0 &&
			client->manager == NULL) {
		client->version = version < 3 ? version : 3;
		client->manager = wl_registry_bind(registry, name,
			&zveil_control_manager_v1_interface, client->version);
	}
}

static void registry_handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	/* veilctl lives for one command; a global going meanwhile fails that command. */
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

/* Explains why the connection broke; libwayland has printed a protocol error's text. */
int veilctl_connection_lost(struct wl_display *display) {
	int err = wl_display_get_error(display);
	if (err == EPROTO) {
		const struct wl_interface *interface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
		fprintf(stderr, "veilctl: the compositor closed the connection for a protocol "
			"error (%s#%" PRIu32 ", code %" PRIu32 "): this is a bug in veilctl or in "
			"the compositor\n", interface != NULL ? interface->name : "unknown", id,
			code);
	} else {
		fprintf(stderr, "veilctl: lost the connection to the compositor: %s\n",
			strerror(err));
	}
	return EXIT_USAGE;
}

void veilctl_connect(struct client *client) {
	client->display = wl_display_connect(NULL);
	if (client->display == NULL) {
		const char *name = getenv("WAYLAND_DISPLAY");
		int err = errno;
		if (name == NULL) {
			fprintf(stderr, "veilctl: cannot connect to a Wayland compositor: "
				"WAYLAND_DISPLAY is not set (run veilctl in the compositor's session, "
				"or set WAYLAND_DISPLAY to its socket)\n");
		} else {
			fprintf(stderr, "veilctl: cannot connect to the compositor at "
				"WAYLAND_DISPLAY=%s: %s (is it running, and is XDG_RUNTIME_DIR the "
				"one it uses?)\n", name, strerror(err));
		}
		exit(EXIT_USAGE);
	}
	struct wl_registry *registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(registry, &registry_listener, client);
	if (wl_display_roundtrip(client->display) < 0) {
		exit(veilctl_connection_lost(client->display));
	}
	wl_registry_destroy(registry);
	if (client->manager == NULL) {
		fprintf(stderr, "veilctl: this compositor does not offer veil's control protocol "
			"(zveil_control_manager_v1): it does not draw wallpapers with veil, has not "
			"enabled the protocol, or does not trust this program (sandboxed programs are "
			"refused)\n");
		exit(EXIT_USAGE);
	}
}
