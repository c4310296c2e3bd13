#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include "decode/gst.h"
#include "source/video/video.h"
#include "util/message.h"

/*
 * What the pipeline says: errors and their sentences, and the wait for the first frame. Opening
 * waits (bounded, on a worker) for the first frame, so that a file that can't play fails there
 * and never replaces a wallpaper; later failures keep the last good frame.
 */

/* How long opening a video may take until its first frame is decoded. */
#define PREROLL_TIMEOUT (5 * GST_SECOND)
/* How long decodebin gets to pass an element's error on or to try another element. */
#define CHILD_ERROR_GRACE_US 300000

/* decodebin's missing-plugin message, read without libgstpbutils. */
static char *describe_missing(GstMessage *msg) {
	const GstStructure *s = gst_message_get_structure(msg);
	if (s == NULL || !gst_structure_has_name(s, "missing-plugin")) {
		return NULL;
	}
	const char *type = gst_structure_get_string(s, "type");
	const char *name = gst_structure_get_string(s, "name");
	char *detail = NULL;
	const GValue *value = gst_structure_get_value(s, "detail");
	if (value != NULL && G_VALUE_HOLDS(value, GST_TYPE_CAPS)) {
		const GstCaps *caps = gst_value_get_caps(value);
		if (caps != NULL && gst_caps_get_size(caps) > 0) {
			detail = strdup(gst_structure_get_name(gst_caps_get_structure(caps, 0)));
		}
	} else if (value != NULL && G_VALUE_HOLDS_STRING(value)) {
		detail = strdup(g_value_get_string(value));
	}
	/* name is GStreamer's description ("Dirac decoder"), detail the caps ("video/x-dirac"). */
	char *sentence = veil_message("No GStreamer %s for this video is installed: %s%s%s%s",
		type != NULL ? type : "plugin",
		name != NULL ? name : (detail != NULL ? detail : "unknown"),
		name != NULL && detail != NULL ? " (" : "",
		name != NULL && detail != NULL ? detail : "",
		name != NULL && detail != NULL ? ")" : "");
	free(detail);
	return sentence;
}

static bool src_linked(struct video_source *src) {
	pthread_mutex_lock(&src->player.lock);
	bool linked = src->player.linked;
	pthread_mutex_unlock(&src->player.lock);
	return linked;
}

/* What decodebin says when it exposes nothing. */
static bool is_missing_plugin_error(GstMessage *msg) {
	GError *gerr = NULL;
	gst_message_parse_error(msg, &gerr, NULL);
	bool missing = (gerr->domain == GST_CORE_ERROR &&
			gerr->code == GST_CORE_ERROR_MISSING_PLUGIN) ||
		(gerr->domain == GST_STREAM_ERROR &&
			gerr->code == GST_STREAM_ERROR_CODEC_NOT_FOUND);
	g_clear_error(&gerr);
	return missing;
}

static int take_refusal(struct video_source *src, char **message) {
	pthread_mutex_lock(&src->player.lock);
	int err = src->player.refused_err;
	char *refused = src->player.refused;
	src->player.refused = NULL;
	pthread_mutex_unlock(&src->player.lock);
	/* A missing decoder explains "no video stream" better than that does. */
	if (src->missing != NULL && err != -EFBIG) {
		free(refused);
		*message = strdup(src->missing);
		return -ENOTSUP;
	}
	*message = refused;
	return err < 0 ? err : -EINVAL;
}


/* Compositor thread, once loaded: what the pipeline says while it plays. */
static void handle_message(struct video_source *src, GstMessage *msg) {
	char *message = NULL;
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_ERROR:
		veil_player_describe_error(&src->player, msg, &message);
		veil_video_source_fail(src, message != NULL ? message : "The video can't be played");
		break;
	case GST_MESSAGE_APPLICATION:
		if (gst_message_has_name(msg, "veil-refused")) {
			take_refusal(src, &message);
			veil_video_source_fail(src, message != NULL ? message : "The video can't be played");
		}
		break;
	case GST_MESSAGE_WARNING:;
		GError *gerr = NULL;
		gst_message_parse_warning(msg, &gerr, NULL);
		wlr_log(WLR_INFO, "veil: %s: GStreamer warning from %s: %s", src->name,
			GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), gerr->message);
		g_clear_error(&gerr);
		break;
	case GST_MESSAGE_SEGMENT_DONE:
		veil_video_handle_loop_end(src, false);
		break;
	case GST_MESSAGE_EOS:
		veil_video_handle_loop_end(src, true);
		break;
	case GST_MESSAGE_ELEMENT:
		message = describe_missing(msg);
		if (message != NULL) {
			wlr_log(WLR_INFO, "veil: %s: %s", src->name, message);
		}
		break;
	case GST_MESSAGE_CLOCK_LOST:
		/* The standard cure: a new clock is chosen going through PAUSED. */
		if (src->target == GST_STATE_PLAYING) {
			gst_element_set_state(src->player.pipeline, GST_STATE_PAUSED);
			gst_element_set_state(src->player.pipeline, GST_STATE_PLAYING);
		}
		break;
	case GST_MESSAGE_LATENCY:
		gst_bin_recalculate_latency(GST_BIN(src->player.pipeline));
		break;
	default:
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

/*
 * decodebin exposes an element's always pad (y4mdec's raw video) only after starting the
 * element, and one that pulls its input pushes at once: into a pad that is not linked yet. The
 * element stops on not-linked, a moment before decodebin links it; its error may even be lost
 * (see bus_proxy). That is a race, not a broken file: autoplugging starts again (NULL, then
 * PAUSED), a few times at most. A flushing seek would not do: the element may have pushed its
 * EOS already, and appsink prerolled on it.
 */
#define MAX_RESTARTS 3

static bool restart_after_not_linked(struct video_source *src, GstMessage *msg, int *restarts) {
	if (*restarts >= MAX_RESTARTS ||
			!gst_object_has_as_ancestor(GST_MESSAGE_SRC(msg),
				GST_OBJECT(src->player.decodebin))) {
		return false;
	}
	char *debug = NULL;
	gst_message_parse_error(msg, NULL, &debug);
	/* GStreamer says why a task stopped only in the debug text: "reason not-linked (-1)". */
	bool not_linked = debug != NULL && strstr(debug, "not-linked") != NULL;
	g_free(debug);
	if (!not_linked) {
		return false;
	}
	(*restarts)++;
	wlr_log(WLR_DEBUG, "veil: %s: not-linked while starting: autoplugging again", src->name);
	gst_element_set_state(src->player.pipeline, GST_STATE_NULL);
	/* The streaming threads are gone: start from nothing. */
	gst_bus_set_flushing(src->player.bus, TRUE);
	gst_bus_set_flushing(src->player.bus, FALSE);
	veil_player_forget(&src->player);
	veil_video_mailbox_reset(&src->mailbox);
	return gst_element_set_state(src->player.pipeline, GST_STATE_PAUSED) !=
		GST_STATE_CHANGE_FAILURE;
}

/*
 * An element's error that decodebin did not pass on: lost (see bus_proxy) if the element is
 * still in decodebin, filtered on purpose if decodebin removed the element to try another.
 */
static int check_child_error(struct video_source *src, int *restarts, char **message) {
	pthread_mutex_lock(&src->player.lock);
	GstMessage *msg = src->player.child_error;
	src->player.child_error = NULL;
	pthread_mutex_unlock(&src->player.lock);
	if (msg == NULL) {
		return 1;
	}
	GstObject *element = GST_MESSAGE_SRC(msg);
	GST_OBJECT_LOCK(element);
	bool plugged = GST_OBJECT_PARENT(element) != NULL;
	GST_OBJECT_UNLOCK(element);
	int ret = 1;
	if (plugged) {
		wlr_log(WLR_DEBUG, "veil: %s: decodebin dropped an error of %s", src->name,
			GST_OBJECT_NAME(element));
		if (!restart_after_not_linked(src, msg, restarts)) {
			ret = veil_player_describe_error(&src->player, msg, message);
		}
	}
	gst_message_unref(msg);
	return ret;
}

int veil_video_wait_preroll(struct video_source *src, char **message) {
	gint64 deadline = g_get_monotonic_time() + PREROLL_TIMEOUT / GST_USECOND;
	/* After an element's error: when decodebin has neither passed it on nor moved on. */
	gint64 child_deadline = 0;
	int restarts = 0;
	GstMessageType types = GST_MESSAGE_ERROR | GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_EOS |
		GST_MESSAGE_ELEMENT | GST_MESSAGE_APPLICATION;
	while (true) {
		gint64 time = g_get_monotonic_time();
		if (child_deadline != 0 && time >= child_deadline) {
			child_deadline = 0;
			int ret = check_child_error(src, &restarts, message);
			if (ret <= 0) {
				return ret;
			}
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
		int ret = 1;
		switch (GST_MESSAGE_TYPE(msg)) {
		case GST_MESSAGE_ASYNC_DONE:;
			/* Prerolled on an EOS (after a race above) brings no frame: wait on. */
			pthread_mutex_lock(&src->mailbox.lock);
			ret = src->mailbox.sample != NULL ? 0 : 1;
			pthread_mutex_unlock(&src->mailbox.lock);
			break;
		case GST_MESSAGE_ERROR:
			/* A refusal or a missing plugin is why the stream failed: say that. */
			pthread_mutex_lock(&src->player.lock);
			bool refused = src->player.refused_err != 0;
			pthread_mutex_unlock(&src->player.lock);
			if (refused || src->missing != NULL) {
				ret = take_refusal(src, message);
			} else if (restart_after_not_linked(src, msg, &restarts)) {
				child_deadline = 0;
			} else if (!src_linked(src) && is_missing_plugin_error(msg)) {
				/* Every stream was discarded: for a missing decoder, or none. */
				pthread_mutex_lock(&src->player.lock);
				char *unknown = src->player.unknown_type != NULL ?
					strdup(src->player.unknown_type) : NULL;
				pthread_mutex_unlock(&src->player.lock);
				if (unknown != NULL) {
					veil_message_set(message, "No decoder for %s is installed "
						"(a GStreamer plugin is missing)", unknown);
					ret = -ENOTSUP;
				} else {
					veil_message_set(message, "The file has no video stream");
					ret = -EINVAL;
				}
				free(unknown);
			} else {
				ret = veil_player_describe_error(&src->player, msg, message);
			}
			break;
		case GST_MESSAGE_APPLICATION:
			if (gst_message_has_name(msg, "veil-refused")) {
				ret = take_refusal(src, message);
			} else if (gst_message_has_name(msg, "veil-child-error")) {
				child_deadline = g_get_monotonic_time() + CHILD_ERROR_GRACE_US;
			}
			break;
		case GST_MESSAGE_EOS:
			veil_message_set(message, "The video has no frames");
			ret = -EINVAL;
			break;
		case GST_MESSAGE_ELEMENT:;
			char *missing = describe_missing(msg);
			if (missing != NULL && src->missing == NULL) {
				src->missing = missing;
			} else {
				free(missing);
			}
			break;
		default:
			break;
		}
		gst_message_unref(msg);
		if (ret <= 0) {
			return ret;
		}
	}
}
