#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include "decode/video/player.h"
#include "util/message.h"

/*
 * What the pipeline's bus says, for both of its owners (player.h): the sentences of its errors,
 * the restarts and the lost errors of its start, and what GStreamer asks of any application.
 * The owner keeps what is its own: the first frame, loop ends, and how a failure reaches the
 * compositor.
 */

/* How long decodebin gets to pass an element's error on or to try another element. */
#define CHILD_ERROR_GRACE_US 300000

/*
 * decodebin exposes an element's always pad (y4mdec's raw video) only after starting the
 * element, and one that pulls its input pushes at once: into a pad that is not linked yet. The
 * element stops on not-linked, a moment before decodebin links it; its error may even be lost
 * (see player.c's bus proxy). That is a race, not a broken file: autoplugging starts again
 * (NULL, then PAUSED), a few times at most. A flushing seek would not do: the element may have
 * pushed its EOS already, and appsink prerolled on it.
 */
#define MAX_RESTARTS 3

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

/* The refusal of a streaming thread, or the missing plugin that explains it better. */
static enum veil_player_event take_refusal(struct veil_player *player, int *err,
		char **message) {
	pthread_mutex_lock(&player->lock);
	int refused_err = player->refused_err;
	char *refused = player->refused;
	player->refused = NULL;
	pthread_mutex_unlock(&player->lock);
	/* A missing decoder explains "no video stream" better than that does. */
	if (player->missing != NULL && refused_err != -EFBIG) {
		free(refused);
		veil_message_set(message, "%s", player->missing);
		*err = -ENOTSUP;
	} else {
		free(*message);
		*message = refused;
		*err = refused_err < 0 ? refused_err : -EINVAL;
	}
	return VEIL_PLAYER_FAILED;
}

static bool restart_after_not_linked(struct veil_player *player, GstMessage *msg) {
	if (player->restarts >= MAX_RESTARTS ||
			!gst_object_has_as_ancestor(GST_MESSAGE_SRC(msg),
				GST_OBJECT(player->decodebin))) {
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
	player->restarts++;
	wlr_log(WLR_DEBUG, "veil: %s: not-linked while starting: autoplugging again", player->name);
	gst_element_set_state(player->pipeline, GST_STATE_NULL);
	/* The streaming threads are gone: start from nothing. */
	gst_bus_set_flushing(player->bus, TRUE);
	gst_bus_set_flushing(player->bus, FALSE);
	player->child_deadline = 0;
	veil_player_forget(player);
	return gst_element_set_state(player->pipeline, GST_STATE_PAUSED) !=
		GST_STATE_CHANGE_FAILURE;
}

/* The sentence of an error message, the likeliest cause first. */
static enum veil_player_event handle_error(struct veil_player *player, GstMessage *msg,
		bool starting, int *err, char **message) {
	pthread_mutex_lock(&player->lock);
	bool refused = player->refused_err != 0;
	bool linked = player->linked;
	char *unknown = player->unknown_type != NULL ? strdup(player->unknown_type) : NULL;
	pthread_mutex_unlock(&player->lock);
	enum veil_player_event event = VEIL_PLAYER_FAILED;
	/* A refusal or a missing plugin is why the stream failed: say that. */
	if (refused || player->missing != NULL) {
		event = take_refusal(player, err, message);
	} else if (starting && restart_after_not_linked(player, msg)) {
		event = VEIL_PLAYER_RESTARTED;
	} else if (!linked && is_missing_plugin_error(msg)) {
		/* Every stream was discarded: for a missing decoder, or none. */
		if (unknown != NULL) {
			veil_message_set(message, "No decoder for %s is installed "
				"(a GStreamer plugin is missing)", unknown);
			*err = -ENOTSUP;
		} else {
			veil_message_set(message, "The file has no video stream");
			*err = -EINVAL;
		}
	} else {
		*err = veil_player_describe_error(player, msg, message);
		if (*err >= 0) {
			*err = -EIO;
		}
	}
	free(unknown);
	return event;
}

/*
 * An element's error that decodebin did not pass on: lost (see player.c's bus proxy) if the
 * element is still in decodebin, filtered on purpose if decodebin removed the element to try
 * another.
 */
enum veil_player_event veil_player_handle_deadline(struct veil_player *player, int *err,
		char **message) {
	player->child_deadline = 0;
	pthread_mutex_lock(&player->lock);
	GstMessage *msg = player->child_error;
	player->child_error = NULL;
	pthread_mutex_unlock(&player->lock);
	if (msg == NULL) {
		return VEIL_PLAYER_HANDLED;
	}
	GstObject *element = GST_MESSAGE_SRC(msg);
	GST_OBJECT_LOCK(element);
	bool plugged = GST_OBJECT_PARENT(element) != NULL;
	GST_OBJECT_UNLOCK(element);
	enum veil_player_event event = VEIL_PLAYER_HANDLED;
	if (plugged) {
		wlr_log(WLR_DEBUG, "veil: %s: decodebin dropped an error of %s", player->name,
			GST_OBJECT_NAME(element));
		if (restart_after_not_linked(player, msg)) {
			event = VEIL_PLAYER_RESTARTED;
		} else {
			*err = veil_player_describe_error(player, msg, message);
			*err = *err < 0 ? *err : -EIO;
			event = VEIL_PLAYER_FAILED;
		}
	}
	gst_message_unref(msg);
	return event;
}

enum veil_player_event veil_player_handle_message(struct veil_player *player, GstMessage *msg,
		bool starting, int *err, char **message) {
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_ERROR:
		return handle_error(player, msg, starting, err, message);
	case GST_MESSAGE_APPLICATION:
		if (gst_message_has_name(msg, "veil-refused")) {
			return take_refusal(player, err, message);
		}
		if (gst_message_has_name(msg, "veil-child-error")) {
			/* Waited for only while starting: later, decodebin passes errors on. */
			if (starting) {
				player->child_deadline = g_get_monotonic_time() +
					CHILD_ERROR_GRACE_US;
			}
			return VEIL_PLAYER_HANDLED;
		}
		return VEIL_PLAYER_OWN;
	case GST_MESSAGE_ELEMENT:;
		char *missing = describe_missing(msg);
		if (missing == NULL) {
			return VEIL_PLAYER_OWN;
		}
		wlr_log(WLR_INFO, "veil: %s: %s", player->name, missing);
		if (player->missing == NULL) {
			player->missing = missing;
		} else {
			free(missing);
		}
		return VEIL_PLAYER_HANDLED;
	case GST_MESSAGE_WARNING:;
		GError *gerr = NULL;
		gst_message_parse_warning(msg, &gerr, NULL);
		wlr_log(WLR_INFO, "veil: %s: GStreamer warning from %s: %s", player->name,
			GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), gerr->message);
		g_clear_error(&gerr);
		return VEIL_PLAYER_HANDLED;
	case GST_MESSAGE_CLOCK_LOST:
		/* The standard cure: a new clock is chosen going through PAUSED. */
		if (GST_STATE_TARGET(player->pipeline) == GST_STATE_PLAYING) {
			gst_element_set_state(player->pipeline, GST_STATE_PAUSED);
			gst_element_set_state(player->pipeline, GST_STATE_PLAYING);
		}
		return VEIL_PLAYER_HANDLED;
	case GST_MESSAGE_LATENCY:
		gst_bin_recalculate_latency(GST_BIN(player->pipeline));
		return VEIL_PLAYER_HANDLED;
	default:
		return VEIL_PLAYER_OWN;
	}
}
