/*
 * veil-control's snapshot: the picture an output's wallpaper shows, in a sealed memfd. The frame
 * is taken on the compositor thread (a lock on it, nothing copied); reading it back (mapping a
 * dmabuf, converting YUV), scaling it and filling the memfd run on the scene's worker, and the
 * event goes out when the job is done.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <errno.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "module/control/snapshot.h"
#include "scene/frame_read.h"
#include "util/image.h"
#include "util/message.h"
#include "util/worker.h"
#include "veil-control-unstable-v1-protocol.h"

/* libwayland refuses messages over 4096 bytes: messages quote paths and output names. */
#define MAX_MESSAGE 2048

struct snapshot_job {
	struct veil_job base;
	struct wl_resource *resource; /* NULL once the client destroyed it */
	bool solid; /* a colour setting's colour, else the frame in read */
	uint32_t color;
	struct veil_frame_read read;
	int max_width, max_height;

	/* The result: a sealed memfd, or err and message. */
	int fd;
	uint32_t format;
	int width, height, stride;
	int err;
	char *message;
};

static void send_failed(struct wl_resource *resource, uint32_t reason, const char *message) {
	char buf[MAX_MESSAGE + 1];
	snprintf(buf, sizeof(buf), "%s", message);
	zveil_control_snapshot_v1_send_failed(resource, reason, buf);
	/* The object stays until the client destroys it; it has no job any more. */
	wl_resource_set_user_data(resource, NULL);
}

static void snapshot_handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zveil_control_snapshot_v1_interface snapshot_impl = {
	.destroy = snapshot_handle_destroy,
};

static void snapshot_handle_resource_destroy(struct wl_resource *resource) {
	struct snapshot_job *job = wl_resource_get_user_data(resource);
	if (job != NULL) {
		/* The job runs on; its result is dropped in done(). */
		job->resource = NULL;
	}
}

struct wl_resource *veil_snapshot_resource_create(struct wl_client *client, int version,
		uint32_t id) {
	struct wl_resource *resource = wl_resource_create(client,
		&zveil_control_snapshot_v1_interface, version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(resource, &snapshot_impl, NULL,
		snapshot_handle_resource_destroy);
	return resource;
}

void veil_snapshot_fail(struct wl_resource *resource, uint32_t reason, const char *message) {
	send_failed(resource, reason, message);
}

/* ---- The worker's part ---- */

/* A memfd of size bytes, mapped for writing into *map. */
static int create_memfd(size_t size, void **map, char **message) {
	int fd = memfd_create("veil-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		int err = errno;
		veil_message_set(message, "cannot make a memory file: %s", strerror(err));
		return -err;
	}
	if (ftruncate(fd, (off_t)size) != 0) {
		int err = errno;
		veil_message_set(message, "cannot size a memory file to %zu bytes: %s", size,
			strerror(err));
		close(fd);
		return -err;
	}
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED) {
		int err = errno;
		veil_message_set(message, "cannot map a memory file: %s", strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

/* The client gets what it can rely on: no page goes, no byte changes. */
static int seal(int fd, char **message) {
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		int err = errno;
		veil_message_set(message, "cannot seal the memory file: %s", strerror(err));
		return -err;
	}
	return 0;
}

/* XRGB8888 or premultiplied ARGB8888 words to R, G, B, X/A bytes, the colour straight. */
static void write_rows(const struct veil_image *image, uint8_t *dst, bool alpha) {
	for (int y = 0; y < image->height; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)image->data +
			(size_t)y * (size_t)image->stride);
		uint8_t *out = dst + (size_t)y * (size_t)image->width * 4;
		for (int x = 0; x < image->width; x++) {
			uint32_t p = row[x];
			uint32_t a = alpha ? p >> 24 : 255;
			uint32_t rgb[3] = { (p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff };
			for (int c = 0; c < 3; c++) {
				uint32_t v = rgb[c];
				if (a == 0) {
					v = 0;
				} else if (a < 255) {
					v = (v * 255 + a / 2) / a;
					v = v > 255 ? 255 : v;
				}
				out[x * 4 + c] = (uint8_t)v;
			}
			out[x * 4 + 3] = (uint8_t)a;
		}
	}
}

static void snapshot_run(struct veil_job *base) {
	struct snapshot_job *job = wl_container_of(base, job, base);
	struct veil_image image = {0};
	bool alpha = false;
	void *map = NULL;
	size_t size = 0;
	if (job->solid) {
		job->width = job->max_width > 0 ? job->max_width : 1;
		job->height = job->max_height > 0 ? job->max_height : 1;
	} else {
		job->err = veil_frame_read_pixels(&job->read, job->max_width, job->max_height,
			&image, &job->message);
		if (job->err < 0) {
			return;
		}
		job->width = image.width;
		job->height = image.height;
		alpha = image.drm_format == DRM_FORMAT_ARGB8888;
	}
	job->stride = job->width * 4;
	job->format = alpha ? DRM_FORMAT_ABGR8888 : DRM_FORMAT_XBGR8888;
	size = (size_t)job->stride * (size_t)job->height;
	int fd = create_memfd(size, &map, &job->message);
	if (fd < 0) {
		job->err = fd;
		goto out;
	}
	if (job->solid) {
		uint8_t *bytes = map;
		for (size_t i = 0; i < size; i += 4) {
			bytes[i] = (uint8_t)(job->color >> 16);
			bytes[i + 1] = (uint8_t)(job->color >> 8);
			bytes[i + 2] = (uint8_t)job->color;
			bytes[i + 3] = 0xff;
		}
	} else {
		write_rows(&image, map, alpha);
	}
	munmap(map, size);
	job->err = seal(fd, &job->message);
	if (job->err < 0) {
		close(fd);
		goto out;
	}
	job->fd = fd;

out:
	veil_image_finish(&image);
}

static void snapshot_free(struct snapshot_job *job) {
	veil_frame_read_release(&job->read);
	if (job->fd >= 0) {
		close(job->fd);
	}
	free(job->message);
	free(job);
}

static void snapshot_done(struct veil_job *base) {
	struct snapshot_job *job = wl_container_of(base, job, base);
	struct wl_resource *resource = job->resource;
	if (resource != NULL) {
		if (job->err < 0) {
			char *sentence = veil_message("Cannot read back the picture: %s",
				job->message != NULL ? job->message : strerror(-job->err));
			send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE,
				sentence != NULL ? sentence : "Cannot read back the picture");
			free(sentence);
		} else {
			/* libwayland sends a duplicate of the descriptor: ours is closed below. */
			zveil_control_snapshot_v1_send_ready(resource, job->fd, job->format,
				(uint32_t)job->width, (uint32_t)job->height, (uint32_t)job->stride);
			wl_resource_set_user_data(resource, NULL);
		}
	}
	snapshot_free(job);
}

/* Only when the scene's worker is destroyed, on the compositor thread: the session ends. */
static void snapshot_discard(struct veil_job *base) {
	struct snapshot_job *job = wl_container_of(base, job, base);
	if (job->resource != NULL) {
		send_failed(job->resource, ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE,
			"The compositor stopped drawing wallpapers with veil");
	}
	snapshot_free(job);
}

static const struct veil_job_impl snapshot_job_impl = {
	.run = snapshot_run,
	.done = snapshot_done,
	.discard = snapshot_discard,
};

/* ---- Starting one (compositor thread) ---- */

/* The output a snapshot is of: the named one, or the only one. NULL after failing resource. */
static struct veil_output *find_output(struct veil_scene *scene, struct wl_resource *resource,
		const char *name) {
	uint32_t reason = ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT;
	if (name != NULL) {
		struct veil_output *output = veil_output_find_name(scene, name);
		if (output == NULL) {
			char *message = veil_message("There is no output named '%.200s'", name);
			send_failed(resource, reason, message != NULL ? message : "No such output");
			free(message);
		}
		return output;
	}
	int n = wl_list_length(&scene->outputs);
	struct veil_output *output;
	if (n == 1) {
		return wl_container_of(scene->outputs.next, output, link);
	}
	if (n == 0) {
		send_failed(resource, reason, "There is no output");
		return NULL;
	}
	char names[512] = "";
	wl_list_for_each(output, &scene->outputs, link) {
		size_t len = strlen(names);
		snprintf(names + len, sizeof(names) - len, "%s%s", len > 0 ? ", " : "",
			output->output->name);
	}
	char *message = veil_message("There are %d outputs: name one (%s)", n, names);
	send_failed(resource, reason, message != NULL ? message : "Name an output");
	free(message);
	return NULL;
}

void veil_snapshot_start(struct veil_scene *scene, struct wl_resource *resource,
		const char *output_name, uint32_t max_width, uint32_t max_height) {
	uint32_t not_shown = ZVEIL_CONTROL_RESULT_V1_REASON_NOT_SHOWN;
	char *message = NULL;
	if (max_width > VEIL_IMAGE_MAX_SIDE || max_height > VEIL_IMAGE_MAX_SIDE) {
		message = veil_message("A snapshot of %ux%u pixels is larger than veil's limit "
			"of %dx%d", max_width, max_height, VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
		send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE,
			message != NULL ? message : "Too large");
		goto out;
	}
	struct veil_output *output = find_output(scene, resource, output_name);
	if (output == NULL) {
		goto out;
	}
	const char *name = output->output->name;
	struct veil_setting *setting = output->setting;
	struct veil_source *source = output->source;
	struct snapshot_job *job = NULL;
	if (setting == NULL || setting->off) {
		message = veil_message("%s shows no wallpaper (%s)", name,
			setting == NULL ? "nothing is set for it" : "it is off");
		send_failed(resource, not_shown, message != NULL ? message : "Nothing shown");
		goto out;
	}
	if (setting->look.mode != VEIL_MODE_SOLID_COLOR && (source == NULL || source->frame == NULL)) {
		const char *why = source != NULL && source->error != NULL ? source->error :
			"its picture is still loading";
		message = veil_message("%s shows no picture yet: %s", name, why);
		send_failed(resource, not_shown, message != NULL ? message : "Nothing shown");
		goto out;
	}

	job = calloc(1, sizeof(*job));
	if (job == NULL) {
		send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE, "Out of memory");
		goto out;
	}
	job->fd = -1;
	job->max_width = (int)max_width;
	job->max_height = (int)max_height;
	if (setting->look.mode == VEIL_MODE_SOLID_COLOR) {
		job->solid = true;
		job->color = setting->look.color & 0xffffff;
	} else if (veil_frame_read_take(&job->read, source->frame, &message) < 0) {
		char *sentence = veil_message("Cannot read back what %s shows: %s", name, message);
		send_failed(resource, ZVEIL_CONTROL_RESULT_V1_REASON_FAILURE,
			sentence != NULL ? sentence : "Cannot read the frame back");
		free(sentence);
		free(job);
		goto out;
	}
	job->resource = resource;
	wl_resource_set_user_data(resource, job);
	veil_worker_submit(scene->ctx.worker, &job->base, &snapshot_job_impl);

out:
	free(message);
}
