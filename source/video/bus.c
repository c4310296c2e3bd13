#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include "decode/gst.h"
#include "source/video/video.h"
#include "util/message.h"

/*
 * What the pipeline says: the wait for the first frame, then the compositor thread's handler.
 * What both of the player's owners share is the player's (veil_player_handle_message()); here
 * is how it reaches the compositor. Opening waits (bounded, on a worker) for the first frame,
 * so that a file that can't play fails there and never replaces a wallpaper; later failures
 * keep the last good frame.
 */

/* How long opening a video may take until its first frame is decoded. */
#define PREROLL_TIMEOUT (5 * GST_SECOND)

/* Compositor thread, once loaded: what the pipeline says while it plays. */
static void handle_message(struct video_source *src, GstMessage *msg) {
	int err = 0;
	char *message = NULL;
	switch (veil_player_handle_message(&src->player, msg, false, &err, &message)) {
	case VEIL_PLAYER_FAILED:
		veil_video_source_fail(src, message != NULL ? message : "The video can't be played");
		break;
	case VEIL_PLAYER_OWN:
		if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_SEGMENT_DONE) {
			veil_video_handle_loop_end(src, false);
		} else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) {
			veil_video_handle_loop_end(src, true);
		}
		break;
	case VEIL_PLAYER_HANDLED:
	case VEIL_PLAYER_RESTARTED: /* only while starting */
		break;
	}
	free(message);
}

int veil_video_handle_bus(int fd, uint32_t mask, void *data) {
	struct video_source *src = data;
	/* Pop everything: the fd stays readable while messages are queued. */
	GstMessage *msg;
	while ((msg = gst_bus_pop(src->player.bus)) != NULL) {
		if (!src->failed) {
			handle_message(src, msg);
		}
		gst_message_unref(msg);
	}
	return 0;
}

/* The owner's part of a message while starting: 1 to wait on, else 0 or a negative errno. */
static int handle_starting(struct video_source *src, GstMessage *msg, char **message) {
	int err = 0;
	switch (veil_player_handle_message(&src->player, msg, true, &err, message)) {
	case VEIL_PLAYER_FAILED:
		return err;
	case VEIL_PLAYER_RESTARTED:
		veil_video_mailbox_reset(&src->mailbox);
		return 1;
	case VEIL_PLAYER_HANDLED:
		return 1;
	case VEIL_PLAYER_OWN:
		break;
	}
	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ASYNC_DONE) {
		/* Prerolled on an EOS (after a race above) brings no frame: wait on. */
		pthread_mutex_lock(&src->mailbox.lock);
		int ret = src->mailbox.sample != NULL ? 0 : 1;
		pthread_mutex_unlock(&src->mailbox.lock);
		return ret;
	}
	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) {
		veil_message_set(message, "The video has no frames");
		return -EINVAL;
	}
	return 1;
}

int veil_video_wait_preroll(struct video_source *src, char **message) {
	gint64 deadline = g_get_monotonic_time() + PREROLL_TIMEOUT / GST_USECOND;
	GstMessageType types = GST_MESSAGE_ERROR | GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_EOS |
		GST_MESSAGE_ELEMENT | GST_MESSAGE_APPLICATION;
	while (true) {
		gint64 time = g_get_monotonic_time();
		gint64 child_deadline = src->player.child_deadline;
		if (child_deadline != 0 && time >= child_deadline) {
			int err = 0;
			switch (veil_player_handle_deadline(&src->player, &err, message)) {
			case VEIL_PLAYER_FAILED:
				return err;
			case VEIL_PLAYER_RESTARTED:
				veil_video_mailbox_reset(&src->mailbox);
				break;
			case VEIL_PLAYER_HANDLED:
			case VEIL_PLAYER_OWN:
				break;
			}
			continue;
		}
		gint64 until = child_deadline != 0 && child_deadline < deadline ?
			child_deadline : deadline;
		gint64 left = until - time;
		GstMessage *msg = left > 0 ? gst_bus_timed_pop_filtered(src->player.bus,
			(GstClockTime)left * GST_USECOND, types) : NULL;
		if (msg == NULL && child_deadline != 0) {
			continue;
		}
		if (msg == NULL) {
			veil_message_set(message, "The video's first frame took more than %d s",
				(int)(PREROLL_TIMEOUT / GST_SECOND));
			return -ETIMEDOUT;
		}
		int ret = handle_starting(src, msg, message);
		gst_message_unref(msg);
		if (ret <= 0) {
			return ret;
		}
	}
}
