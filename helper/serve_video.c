#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include "decode/gst.h"
#include "helper/remote_allocator.h"
#include "helper/sandbox.h"
#include "helper/serve.h"
#include "helper/serve_video.h"
#include "decode/video/elements.h"
#include "decode/video/player.h"
#include "util/message.h"

/* The pipeline, and the main thread that drives it (serve_video.h). */

void veil_served_video_refuse(struct veil_served_video *v, int err, char *message) {
	veil_player_refuse(&v->player, err, message);
}

/* The one player (decode/video/player.h), its frames to the compositor (serve_video_frames.c). */
static int build(struct veil_served_video *v, int file, char **message) {
	/* pixman's frames: any decoder's, converted as each is sent (serve_video_frames.c). */
	GstCaps *caps = gst_caps_from_string(v->dmabuf_caps != NULL ? v->dmabuf_caps :
		"video/x-raw");
	if (caps == NULL) {
		veil_message_set(message, "the compositor's formats make no caps");
		return -EINVAL;
	}
	v->player.name = "the video";
	v->player.file_fd = file;
	v->player.sink_caps = caps;
	/* Software decoders only: the sandbox has no render node (nor /dev at all). */
	v->player.hardware = false;
	v->player.sink_impl = (struct veil_player_sink){
		.new_sample = veil_served_video_new_sample,
		.new_preroll = veil_served_video_new_preroll,
		.propose_allocation = veil_served_video_propose_allocation,
		.data = v,
		/* One frame waits: the decoder waits for the compositor rather than decode for none. */
		.max_buffers = 1,
		.drop = false,
	};
	int ret = veil_player_build(&v->player, message);
	gst_caps_unref(caps);
	v->player.sink_caps = NULL;
	return ret;
}

/*
 * The end of a loop (segment done, or the end of a stream that can't loop by segments): the
 * player starts it again, or not (video/loop_guard.h). 0, or a negative errno with a sentence:
 * the video stops.
 */
static int loop_end(struct veil_served_video *v, bool eos, char **message) {
	return veil_player_loop_end(&v->player, eos, __atomic_load_n(&v->sent, __ATOMIC_RELAXED),
		message) == VEIL_LOOP_STOP ? -EIO : 0;
}

static bool has_ended(struct veil_served_video *v) {
	pthread_mutex_lock(&v->lock);
	bool ended = v->ended;
	pthread_mutex_unlock(&v->lock);
	return ended;
}

/*
 * A bus message: 0, 1 when the compositor has closed its end, or a negative errno (with a
 * sentence) that ends the video. What the in-process player does too is the player's
 * (veil_player_handle_message()); the failure goes to the compositor on the wire.
 */
static int handle_message(struct veil_served_video *v, GstMessage *msg, char **message) {
	int err = 0;
	switch (veil_player_handle_message(&v->player, msg, !v->prerolled, &err, message)) {
	case VEIL_PLAYER_FAILED:
		return err;
	case VEIL_PLAYER_HANDLED:
		return 0;
	case VEIL_PLAYER_RESTARTED:
		/* Before any frame was sent; the restart flushed the bus, "veil-ended" too. */
		return has_ended(v) ? 1 : 0;
	case VEIL_PLAYER_OWN:
		break;
	}
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_APPLICATION:
		if (gst_message_has_name(msg, "veil-next")) {
			veil_served_video_apply_requests(v);
			return 0;
		}
		return has_ended(v) ? 1 : 0;
	case GST_MESSAGE_ASYNC_DONE:
		if (!v->prerolled && GST_MESSAGE_SRC(msg) == GST_OBJECT(v->player.pipeline)) {
			/* Prerolled: every loop from now on is a segment seek, where it can be. */
			v->prerolled = true;
			veil_player_start_looping(&v->player);
			/* A position asked for with the file, or before the preroll. */
			veil_served_video_apply_requests(v);
		}
		return 0;
	case GST_MESSAGE_SEGMENT_DONE:
		return loop_end(v, false, message);
	case GST_MESSAGE_EOS:
		return loop_end(v, true, message);
	default:
		return 0;
	}
}

/* Milliseconds until the player's wait for a lost error ends (while starting), else -1. */
static int poll_timeout(struct veil_served_video *v) {
	if (v->prerolled || v->player.child_deadline == 0) {
		return -1;
	}
	int64_t left = v->player.child_deadline - g_get_monotonic_time();
	return left > 0 ? (int)((left + 999) / 1000) : 0;
}

/* Until the compositor closes its end (0) or the video fails (a negative errno, a sentence). */
static int run(struct veil_served_video *v, char **message) {
	GPollFD bus_fd;
	gst_bus_get_pollfd(v->player.bus, &bus_fd);
	if (gst_element_set_state(v->player.pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		veil_message_set(message, "the video's pipeline does not start");
		return -EIO;
	}
	int ret = veil_served_video_start_reader(v, message);
	if (ret < 0) {
		return ret;
	}
	for (;;) {
		struct pollfd pfd = { .fd = bus_fd.fd, .events = POLLIN };
		if (poll(&pfd, 1, poll_timeout(v)) < 0 && errno != EINTR) {
			return -errno;
		}
		if (poll_timeout(v) == 0) {
			int err = 0;
			enum veil_player_event event =
				veil_player_handle_deadline(&v->player, &err, message);
			if (event == VEIL_PLAYER_FAILED) {
				return err;
			} else if (event == VEIL_PLAYER_RESTARTED && has_ended(v)) {
				return 0;
			}
		}
		GstMessage *msg;
		while ((msg = gst_bus_pop(v->player.bus)) != NULL) {
			ret = handle_message(v, msg, message);
			gst_message_unref(msg);
			if (ret != 0) {
				return ret < 0 ? ret : 0;
			}
		}
	}
}

/*
 * appsink's caps for the formats the compositor takes as dmabufs ("video/x-raw,format={...}"),
 * best first; NULL when it takes none GStreamer knows.
 */
static char *dmabuf_caps(const struct veil_wire_request *request) {
	char list[VEIL_WIRE_FORMATS * 16] = "";
	size_t len = 0;
	for (int i = 0; i < VEIL_WIRE_FORMATS && request->dmabuf_formats[i] != 0; i++) {
		GstVideoFormat format = gst_video_dma_drm_fourcc_to_format(request->dmabuf_formats[i]);
		const char *name = format != GST_VIDEO_FORMAT_UNKNOWN ?
			gst_video_format_to_string(format) : NULL;
		if (name != NULL && len + strlen(name) + 2 < sizeof(list)) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
				len > 0 ? "," : "", name);
		}
	}
	return len > 0 ? veil_message("video/x-raw,format={%s}", list) : NULL;
}

static void init_video(struct veil_served_video *v, int sock) {
	v->sock = sock;
	v->last_pts = GST_CLOCK_TIME_NONE;
	v->want_seek_ms = -1;
	v->seek_preroll_ms = -1;
	pthread_mutex_init(&v->lock, NULL);
	pthread_mutex_init(&v->ask_lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&v->answered, &attr);
	pthread_cond_init(&v->released, &attr);
	pthread_condattr_destroy(&attr);
	veil_player_init(&v->player);
}

int veil_serve_video(int sock, const struct veil_wire_request *request, int fd) {
	struct veil_served_video *v = calloc(1, sizeof(*v));
	char *message = NULL;
	int ret = v != NULL ? 0 : -ENOMEM;
	if (v != NULL) {
		init_video(v, sock);
		if (request->seek != 0) {
			v->want_seek_ms = request->seek_ms;
		}
	}
	/* The registry and the plugins are read before the sandbox, as for a still. */
	if (ret == 0) {
		ret = veil_gst_init(&message);
	}
	/* Frames in the compositor's dmabufs, for a renderer that imports them. */
	if (ret == 0 && request->dmabuf_formats[0] != 0) {
		v->dmabuf_caps = dmabuf_caps(request);
		v->remote = v->dmabuf_caps != NULL ?
			veil_remote_allocator_new(veil_served_video_ask_memory, v) : NULL;
	}
	if (ret == 0) {
		gst_shm_allocator_init_once();
		v->shm = gst_shm_allocator_get();
		ret = v->shm != NULL ? 0 : -ENOTSUP;
		if (ret < 0) {
			veil_message_set(&message, "GStreamer has no memfd allocator");
		}
	}
	/* No CPU limit (it plays as long as it is shown); the file may be opened again. */
	if (ret == 0) {
		ret = veil_sandbox_enter(0, fd, &message);
	}
	if (ret == 0) {
		ret = build(v, fd, &message);
	}
	if (ret == 0) {
		ret = run(v, &message);
	}
	if (ret < 0) {
		ret = veil_serve_fail(sock, ret, message != NULL ? message : strerror(-ret));
		ret = ret == 0 || ret == -EPIPE ? 0 : 1;
	}
	free(message);
	/* The pipeline and the reader are left running: the caller exits at once. */
	return ret;
}
