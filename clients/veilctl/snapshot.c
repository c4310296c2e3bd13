/* snapshot: the picture an output's wallpaper shows, as a PNG. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-client.h>
#include <drm_fourcc.h>
#include "clients/veilctl/snapshot_png.h"
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"

struct snapshot {
	bool received;
	bool ok;
	int fd;
	uint32_t format, width, height, stride;
	uint32_t reason;
	char *message;
};

static void snapshot_handle_ready(void *data, struct zveil_control_snapshot_v1 *proxy,
		int32_t fd, uint32_t format, uint32_t width, uint32_t height, uint32_t stride) {
	struct snapshot *snap = data;
	snap->received = true;
	snap->ok = true;
	snap->fd = fd;
	snap->format = format;
	snap->width = width;
	snap->height = height;
	snap->stride = stride;
}

static void snapshot_handle_failed(void *data, struct zveil_control_snapshot_v1 *proxy,
		uint32_t reason, const char *message) {
	struct snapshot *snap = data;
	snap->received = true;
	snap->reason = reason;
	snap->message = veilctl_strdup(message);
}

static const struct zveil_control_snapshot_v1_listener snapshot_listener = {
	.ready = snapshot_handle_ready,
	.failed = snapshot_handle_failed,
};

/* Checks what the compositor sent and writes it out. */
static int write_snapshot(const struct snapshot *snap, const char *file) {
	bool alpha = snap->format == DRM_FORMAT_ABGR8888;
	struct stat st;
	if ((!alpha && snap->format != DRM_FORMAT_XBGR8888) || snap->width == 0 ||
			snap->height == 0 || snap->width > 16384 || snap->height > 16384 ||
			snap->stride / 4 < snap->width || fstat(snap->fd, &st) != 0 ||
			(uint64_t)st.st_size < (uint64_t)snap->stride * snap->height) {
		fprintf(stderr, "veilctl: the compositor sent a picture veilctl cannot read "
			"(format 0x%08" PRIx32 ", %" PRIu32 "x%" PRIu32 ", stride %" PRIu32 ")\n",
			snap->format, snap->width, snap->height, snap->stride);
		return EXIT_REFUSED;
	}
	size_t size = (size_t)snap->stride * snap->height;
	void *pixels = mmap(NULL, size, PROT_READ, MAP_PRIVATE, snap->fd, 0);
	if (pixels == MAP_FAILED) {
		fprintf(stderr, "veilctl: cannot map the picture: %s\n", strerror(errno));
		return EXIT_REFUSED;
	}
	char message[PATH_MAX + 256];
	int ret = veilctl_write_png(file, pixels, snap->width, snap->height, snap->stride, alpha,
		message, sizeof(message));
	munmap(pixels, size);
	if (ret < 0) {
		fprintf(stderr, "veilctl: %s\n", message);
		return EXIT_USAGE;
	}
	return EXIT_SUCCESS;
}

int veilctl_snapshot_run(struct client *client, const struct options *opts) {
	veilctl_connect(client);
	if (client->version < 3) {
		fprintf(stderr, "veilctl: this compositor's veil is too old for snapshot (its "
			"control protocol is version %" PRIu32 ", 3 is needed)\n", client->version);
		return EXIT_USAGE;
	}
	struct zveil_control_snapshot_v1 *proxy = zveil_control_manager_v1_snapshot(
		client->manager, opts->output, opts->max_width, opts->max_height);
	if (proxy == NULL) {
		veilctl_die_oom();
	}
	struct snapshot snap = { .fd = -1 };
	zveil_control_snapshot_v1_add_listener(proxy, &snapshot_listener, &snap);
	while (!snap.received) {
		if (wl_display_dispatch(client->display) < 0) {
			zveil_control_snapshot_v1_destroy(proxy);
			return veilctl_connection_lost(client->display);
		}
	}
	zveil_control_snapshot_v1_destroy(proxy);
	int ret;
	if (snap.ok) {
		ret = write_snapshot(&snap, opts->file);
		close(snap.fd);
	} else {
		fprintf(stderr, "veilctl: %s\n", snap.message);
		ret = EXIT_REFUSED;
	}
	free(snap.message);
	return ret;
}
