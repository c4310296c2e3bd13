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
#include "decode/isolate/remote_allocator.h"
#include "decode/isolate/sandbox.h"
#include "decode/isolate/serve.h"
#include "decode/isolate/serve_video.h"
#include "decode/video/choose.h"
#include "decode/video/elements.h"
#include "decode/video/loop_guard.h"
#include "decode/video/segment_chain.h"
#include "util/message.h"

/* The pipeline, and the main thread that drives it (serve_video.h). */

#define MAX_SIDE 8192

void veil_served_video_refuse(struct veil_served_video *v, int err, char *message) {
	pthread_mutex_lock(&v->lock);
	if (v->refused == 0) {
		v->refused = err;
		v->refused_message = message;
		message = NULL;
	}
	pthread_mutex_unlock(&v->lock);
	free(message);
	/* Wakes the main thread, which sends it. */
	gst_element_post_message(v->pipeline, gst_message_new_application(GST_OBJECT(v->pipeline),
		gst_structure_new_empty("veil-refused")));
}

/* decodebin: the factory of the video decoder, for the status. */
static void handle_element_added(GstBin *bin, GstElement *element, gpointer data) {
	struct veil_served_video *v = data;
	GstElementFactory *factory = gst_element_get_factory(element);
	const char *klass = factory != NULL ?
		gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : NULL;
	if (klass == NULL || strstr(klass, "Decoder") == NULL || strstr(klass, "Video") == NULL) {
		return;
	}
	pthread_mutex_lock(&v->lock);
	snprintf(v->decoder, sizeof(v->decoder), "%s", GST_OBJECT_NAME(factory));
	pthread_mutex_unlock(&v->lock);
}

/* decodebin's GstAutoplugSelectResult (not in the installed headers). */
enum autoplug_select_result {
	AUTOPLUG_SELECT_TRY = 0,
	AUTOPLUG_SELECT_SKIP = 2,
};

/* A size in caps (coded or raw) larger than MAX_SIDE: refused (0) before a decoder allocates. */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct veil_served_video *v = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	int width = 0, height = 0;
	if (s == NULL || !gst_structure_get_int(s, "width", &width) ||
			!gst_structure_get_int(s, "height", &height) ||
			(width <= MAX_SIDE && height <= MAX_SIDE)) {
		return TRUE;
	}
	veil_served_video_refuse(v, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d",
		width, height, MAX_SIDE, MAX_SIDE));
	return FALSE;
}

/*
 * Software decoders only: the sandbox has no render node (nor /dev at all), and a hardware
 * decoder's libraries would look for one.
 */
static int handle_autoplug_select(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GstElementFactory *factory, gpointer data) {
	const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
	return veil_decoder_is_hardware(GST_OBJECT_NAME(factory), klass) ?
		AUTOPLUG_SELECT_SKIP : AUTOPLUG_SELECT_TRY;
}

/* decodebin, streaming thread: links the first raw video stream no larger than MAX_SIDE. */
static void handle_pad_added(GstElement *decodebin, GstPad *pad, gpointer data) {
	struct veil_served_video *v = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (caps == NULL) {
		caps = gst_pad_query_caps(pad, NULL);
	}
	GstStructure *s = caps != NULL && !gst_caps_is_empty(caps) ?
		gst_caps_get_structure(caps, 0) : NULL;
	int width = 0, height = 0;
	bool video = s != NULL && gst_structure_has_name(s, "video/x-raw");
	if (video) {
		gst_structure_get_int(s, "width", &width);
		gst_structure_get_int(s, "height", &height);
	}
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
	if (!video) {
		return;
	}
	if (width > MAX_SIDE || height > MAX_SIDE) {
		veil_served_video_refuse(v, -EFBIG, veil_message("The video is %dx%d, larger than "
			"%dx%d", width, height, MAX_SIDE, MAX_SIDE));
		return;
	}
	pthread_mutex_lock(&v->lock);
	bool first = !v->linked;
	v->linked = true;
	pthread_mutex_unlock(&v->lock);
	if (!first) {
		return;
	}
	GstPad *sink_pad = gst_element_get_static_pad(v->convert, "sink");
	GstPadLinkReturn ret = gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
	if (GST_PAD_LINK_FAILED(ret)) {
		veil_served_video_refuse(v, -ENOTSUP, veil_message("The decoded video can't be linked (%s)",
			gst_pad_link_get_name(ret)));
	}
}

/* decodebin, streaming thread, before no-more-pads: no decoder takes a stream. */
static void handle_unknown_type(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct veil_served_video *v = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	const char *name = s != NULL ? gst_structure_get_name(s) : NULL;
	if (name == NULL || !g_str_has_prefix(name, "video/")) {
		return;
	}
	pthread_mutex_lock(&v->lock);
	if (v->unknown[0] == '\0') {
		snprintf(v->unknown, sizeof(v->unknown), "%s", name);
	}
	pthread_mutex_unlock(&v->lock);
}

static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct veil_served_video *v = data;
	pthread_mutex_lock(&v->lock);
	bool linked = v->linked;
	char unknown[sizeof(v->unknown)];
	memcpy(unknown, v->unknown, sizeof(unknown));
	pthread_mutex_unlock(&v->lock);
	if (!linked && unknown[0] != '\0') {
		veil_served_video_refuse(v, -ENOTSUP, veil_message("No decoder for %s is installed "
			"(a GStreamer plugin is missing)", unknown));
	} else if (!linked) {
		veil_served_video_refuse(v, -EINVAL, veil_message("The file has no video stream"));
	}
}

static int build(struct veil_served_video *v, int file, char **message) {
	snprintf(v->proc, sizeof(v->proc), "/proc/self/fd/%d", file);
	v->pipeline = gst_pipeline_new(NULL);
	GstElement *src = gst_element_factory_make("filesrc", NULL);
	v->decodebin = gst_element_factory_make("decodebin", NULL);
	v->convert = gst_element_factory_make("videoconvert", NULL);
	v->sink = gst_element_factory_make("appsink", NULL);
	if (v->pipeline == NULL || src == NULL || v->decodebin == NULL || v->convert == NULL ||
			v->sink == NULL) {
		veil_message_set(message, "GStreamer lacks filesrc, decodebin, videoconvert or "
			"appsink");
		return -ENOTSUP;
	}
	g_object_set(src, "location", v->proc, NULL);
	GstCaps *caps = gst_caps_from_string(v->dmabuf_caps != NULL ? v->dmabuf_caps :
		"video/x-raw,format={BGRx,BGRA}");
	if (caps == NULL) {
		veil_message_set(message, "the compositor's formats make no caps");
		return -EINVAL;
	}
	g_object_set(v->sink, "caps", caps, "sync", TRUE, "max-buffers", 1u, "drop", FALSE,
		"enable-last-sample", FALSE, NULL);
	gst_caps_unref(caps);
	GstAppSinkCallbacks callbacks = {
		.new_preroll = veil_served_video_new_preroll,
		.new_sample = veil_served_video_new_sample,
		.propose_allocation = veil_served_video_propose_allocation,
	};
	gst_app_sink_set_callbacks(GST_APP_SINK(v->sink), &callbacks, v, NULL);
	veil_segment_chain_init(&v->chain, "the video");
	veil_segment_chain_attach(&v->chain, v->sink);
	gst_bin_add_many(GST_BIN(v->pipeline), src, v->decodebin, v->convert, v->sink, NULL);
	if (!gst_element_link(src, v->decodebin) || !gst_element_link(v->convert, v->sink)) {
		veil_message_set(message, "cannot link the video's pipeline");
		return -EIO;
	}
	g_signal_connect(v->decodebin, "autoplug-continue", G_CALLBACK(handle_autoplug_continue),
		v);
	g_signal_connect(v->decodebin, "autoplug-select", G_CALLBACK(handle_autoplug_select), v);
	g_signal_connect(v->decodebin, "element-added", G_CALLBACK(handle_element_added), v);
	g_signal_connect(v->decodebin, "pad-added", G_CALLBACK(handle_pad_added), v);
	g_signal_connect(v->decodebin, "unknown-type", G_CALLBACK(handle_unknown_type), v);
	g_signal_connect(v->decodebin, "no-more-pads", G_CALLBACK(handle_no_more_pads), v);
	v->bus = gst_element_get_bus(v->pipeline);
	return 0;
}

/* From the start again, looping: a segment seek, else (after the end) a flushing one. */
static void seek_start(struct veil_served_video *v, bool flush) {
	GstSeekFlags flags = GST_SEEK_FLAG_SEGMENT | (flush ? GST_SEEK_FLAG_FLUSH : 0);
	if (!gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, flags, 0)) {
		v->looping = false;
		if (flush) {
			gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
				0);
		}
	}
}

/*
 * The end of a loop (segment done, or the end of a stream that can't loop by segments): starts
 * it again, or not (MAX_*_LOOPS). 0, or a negative errno with a sentence: the video stops.
 */
static int loop_end(struct veil_served_video *v, bool eos, char **message) {
	switch (veil_loop_guard_end(&v->loop_guard, g_get_monotonic_time(),
			__atomic_load_n(&v->sent, __ATOMIC_RELAXED), message)) {
	case VEIL_LOOP_STOP:
		return -EIO;
	case VEIL_LOOP_STAY:
		return 0; /* one frame: it stays */
	case VEIL_LOOP_AGAIN:
		break;
	}
	if (eos || !v->looping) {
		gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0);
	} else {
		seek_start(v, false);
	}
	return 0;
}

/*
 * A bus message: 0, 1 when the compositor has closed its end, or a negative errno (with a
 * sentence) that ends the video.
 */
static int handle_message(struct veil_served_video *v, GstMessage *msg, char **message) {
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_ERROR: {
		GError *error = NULL;
		gst_message_parse_error(msg, &error, NULL);
		veil_message_set(message, "%s", error != NULL ? error->message : "GStreamer error");
		g_clear_error(&error);
		return -EIO;
	}
	case GST_MESSAGE_APPLICATION: {
		const GstStructure *s = gst_message_get_structure(msg);
		if (s != NULL && gst_structure_has_name(s, "veil-next")) {
			veil_served_video_apply_requests(v);
			return 0;
		}
		pthread_mutex_lock(&v->lock);
		int err = v->refused;
		bool ended = v->ended;
		*message = v->refused_message;
		v->refused_message = NULL;
		pthread_mutex_unlock(&v->lock);
		return err < 0 ? err : ended ? 1 : 0;
	}
	case GST_MESSAGE_ASYNC_DONE:
		if (!v->looping && GST_MESSAGE_SRC(msg) == GST_OBJECT(v->pipeline)) {
			/* Prerolled: every loop from now on is a segment seek. */
			v->looping = true;
			seek_start(v, true);
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

/* Until the compositor closes its end (0) or the video fails (a negative errno, a sentence). */
static int run(struct veil_served_video *v, char **message) {
	GPollFD bus_fd;
	gst_bus_get_pollfd(v->bus, &bus_fd);
	if (gst_element_set_state(v->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		veil_message_set(message, "the video's pipeline does not start");
		return -EIO;
	}
	int ret = veil_served_video_start_reader(v, message);
	if (ret < 0) {
		return ret;
	}
	for (;;) {
		struct pollfd pfd = { .fd = bus_fd.fd, .events = POLLIN };
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			return -errno;
		}
		GstMessage *msg;
		while ((msg = gst_bus_pop(v->bus)) != NULL) {
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
	v->next_running = GST_CLOCK_TIME_NONE;
	pthread_mutex_init(&v->lock, NULL);
	pthread_mutex_init(&v->ask_lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&v->answered, &attr);
	pthread_condattr_destroy(&attr);
	snprintf(v->decoder, sizeof(v->decoder), "gstreamer");
}

int veil_serve_video(int sock, const struct veil_wire_request *request, int fd) {
	struct veil_served_video *v = calloc(1, sizeof(*v));
	char *message = NULL;
	int ret = v != NULL ? 0 : -ENOMEM;
	if (v != NULL) {
		init_video(v, sock);
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
