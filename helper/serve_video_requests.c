#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <gst/gst.h>
#include "helper/serve.h"
#include "helper/serve_video.h"
#include "util/message.h"

/*
 * The compositor's requests to a video's helper (serve_video.h), read by a thread of their own:
 * a dmabuf it was asked for goes straight to the streaming thread waiting for it, released
 * frames straight back to their pool; play or pause is left to the main thread.
 */

/*
 * A NEXT request, the reader: the slots released go back to the pool at once, the cap is set;
 * a change of play or pause is the main thread's, woken for it.
 */
static void take_request(struct veil_served_video *v, const struct veil_wire_request *request) {
	GstBuffer *unref[VEIL_WIRE_RELEASED];
	int n = 0;
	pthread_mutex_lock(&v->lock);
	for (uint32_t i = 0; i < request->n_released; i++) {
		int32_t id = request->released[i];
		if (id < 0 || id >= v->n_slots || !v->slots[id].held) {
			continue;
		}
		v->slots[id].held = false;
		if (v->slots[id].buffer != NULL) {
			unref[n++] = v->slots[id].buffer;
			v->slots[id].buffer = NULL;
		}
	}
	/* The cap is appsink's streaming thread's to read. */
	veil_video_rate_set_fps(&v->player.rate,
		request->fps > 0 && request->fps <= 1000 ? request->fps : 0);
	bool playing = request->playing != 0;
	bool wake = (playing != v->want_playing || request->seek != 0) && !v->want_waiting;
	v->want_playing = playing;
	if (request->seek != 0) {
		v->want_seek_ms = request->seek_ms;
	}
	v->want_waiting = v->want_waiting || wake;
	pthread_mutex_unlock(&v->lock);
	/* Back to the pool, outside the lock: a streaming thread may wait for one. */
	for (int i = 0; i < n; i++) {
		gst_buffer_unref(unref[i]);
	}
	if (n > 0) {
		pthread_mutex_lock(&v->lock);
		v->releases++;
		pthread_cond_broadcast(&v->released);
		pthread_mutex_unlock(&v->lock);
	}
	if (wake) {
		gst_element_post_message(v->player.pipeline, gst_message_new_application(
			GST_OBJECT(v->player.pipeline), gst_structure_new_empty("veil-next")));
	}
}

void veil_served_video_apply_requests(struct veil_served_video *v) {
	pthread_mutex_lock(&v->lock);
	v->want_waiting = false;
	bool playing = v->want_playing;
	/* A seek waits for the preroll: looping is armed then (serve_video.c), and it goes after. */
	int64_t seek_ms = v->prerolled ? v->want_seek_ms : -1;
	if (seek_ms >= 0) {
		v->want_seek_ms = -1;
	}
	pthread_mutex_unlock(&v->lock);
	if (seek_ms >= 0) {
		/* The frame there is sent even while paused: its preroll. */
		__atomic_store_n(&v->seek_preroll_ms, seek_ms, __ATOMIC_RELEASE);
		if (!veil_player_seek(&v->player, seek_ms)) {
			__atomic_store_n(&v->seek_preroll_ms, -1, __ATOMIC_RELEASE);
		}
	}
	if (playing != v->playing) {
		v->playing = playing;
		gst_element_set_state(v->player.pipeline, playing ? GST_STATE_PLAYING : GST_STATE_PAUSED);
	}
}

/*
 * The reader ends: a streaming thread waiting for a dmabuf it asked for fails at once, one
 * waiting for a frame to be released stops waiting.
 */
static void stop_reading(struct veil_served_video *v, bool ended) {
	pthread_mutex_lock(&v->lock);
	v->ended = ended;
	v->unread = true;
	pthread_cond_broadcast(&v->answered);
	pthread_cond_broadcast(&v->released);
	pthread_mutex_unlock(&v->lock);
}

/*
 * The reader thread: the compositor's requests until it closes its end (or sends nonsense),
 * which it tells the main thread on the bus.
 */
static void *read_requests(void *data) {
	struct veil_served_video *v = data;
	pthread_setname_np(pthread_self(), "veil-requests");
	uint32_t ops = 1u << VEIL_WIRE_NEXT | (v->remote != NULL ? 1u << VEIL_WIRE_MEMORY : 0);
	for (;;) {
		struct veil_wire_request request;
		int fd;
		int ret = veil_serve_receive(v->sock, ops, &request, &fd);
		if (ret == -EPIPE || ret == -ECONNRESET) {
			stop_reading(v, true);
			gst_element_post_message(v->player.pipeline, gst_message_new_application(
				GST_OBJECT(v->player.pipeline), gst_structure_new_empty("veil-ended")));
			return NULL;
		}
		if (ret == 0 && request.op == VEIL_WIRE_MEMORY) {
			ret = veil_served_video_take_memory(v, &request, fd);
		} else if (ret == 0) {
			take_request(v, &request);
		}
		if (ret < 0) {
			stop_reading(v, false);
			veil_served_video_refuse(v, ret,
				veil_message("the compositor sent a malformed request"));
			return NULL;
		}
	}
}

int veil_served_video_start_reader(struct veil_served_video *v, char **message) {
	int err = pthread_create(&v->reader, NULL, read_requests, v);
	if (err != 0) {
		veil_message_set(message, "cannot start a thread: %s", strerror(err));
		return -err;
	}
	return 0;
}
