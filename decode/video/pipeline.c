#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "decode/gst.h"
#include "decode/sniff.h"
#include "decode/task_pool.h"
#include "decode/video/video.h"
#include "util/message.h"

/*
 * Building the pipeline (the load job, on a worker) and the callbacks its streaming threads run
 * to link decodebin's video pad.
 */

/* The thread that adds it: an element was added somewhere inside the pipeline. */
static void handle_deep_element_added(GstBin *bin, GstBin *sub_bin, GstElement *element,
		gpointer data) {
	struct video_source *src = data;
	if (sub_bin == GST_BIN(src->decodebin) && !GST_IS_BIN(element)) {
		veil_video_proxy_bus(src, element);
	}
	veil_video_note_decoder(src, element);
	veil_video_rate_watch_decoder(src, element);
	veil_video_limit_decoder_threads(src, element);
}

/*
 * decodebin's video pad, its streaming thread: the first to see a decoder's output caps, before
 * anything downstream allocates for them. Caps that are refused are dropped, and so is every
 * frame after them: the decoder gets not-negotiated and stops (frames of the refused size must
 * not reach videoconvert, which still has the caps before).
 */
static GstPadProbeReturn handle_caps_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct video_source *src = data;
	if (info->type & (GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST)) {
		if (!src->caps_refused) {
			return GST_PAD_PROBE_OK;
		}
		gst_mini_object_unref(GST_PAD_PROBE_INFO_DATA(info));
		GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GST_FLOW_NOT_NEGOTIATED;
		return GST_PAD_PROBE_HANDLED;
	}
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) {
		return GST_PAD_PROBE_OK;
	}
	GstCaps *caps = NULL;
	gst_event_parse_caps(event, &caps);
	src->caps_refused = !veil_video_check_size(src, caps);
	if (src->caps_refused) {
		return GST_PAD_PROBE_DROP;
	}
	veil_video_set_convert_threads(src, caps);
	return GST_PAD_PROBE_OK;
}

/* decodebin, streaming thread: a decoded stream is ready. Only the first video one is shown. */
static void handle_pad_added(GstElement *decodebin, GstPad *pad, gpointer data) {
	struct video_source *src = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (caps == NULL) {
		caps = gst_pad_query_caps(pad, NULL);
	}
	bool video = caps != NULL && !gst_caps_is_empty(caps) &&
		gst_structure_has_name(gst_caps_get_structure(caps, 0), "video/x-raw");
	bool size_ok = video && veil_video_check_size(src, caps);
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
	if (!size_ok) {
		return;
	}

	pthread_mutex_lock(&src->lock);
	bool first = !src->linked;
	src->linked = true;
	pthread_mutex_unlock(&src->lock);
	if (!first) {
		return;
	}

	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_BUFFER |
		GST_PAD_PROBE_TYPE_BUFFER_LIST, handle_caps_probe, src, NULL);
	GstPad *sink_pad = gst_element_get_static_pad(src->convert, "sink");
	GstPadLinkReturn ret = gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
	if (GST_PAD_LINK_FAILED(ret)) {
		veil_video_refuse(src, -ENOTSUP, veil_message("The decoded video can't be linked (%s)",
			gst_pad_link_get_name(ret)));
	}
}

/*
 * decodebin, streaming thread, before no-more-pads: no decoder takes a stream. Kept to name it:
 * decodebin's missing-plugin message and its error come in either order with the refusal.
 */
static void handle_unknown_type(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct video_source *src = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	const char *name = s != NULL ? gst_structure_get_name(s) : NULL;
	if (name == NULL || !g_str_has_prefix(name, "video/")) {
		return;
	}
	pthread_mutex_lock(&src->lock);
	if (src->unknown_type == NULL) {
		src->unknown_type = strdup(name);
	}
	pthread_mutex_unlock(&src->lock);
}

/* decodebin, streaming thread: every stream it found is exposed (or discarded). */
static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct video_source *src = data;
	pthread_mutex_lock(&src->lock);
	bool linked = src->linked;
	char *unknown = src->unknown_type != NULL ? strdup(src->unknown_type) : NULL;
	pthread_mutex_unlock(&src->lock);
	if (!linked && unknown != NULL) {
		veil_video_refuse(src, -ENOTSUP, veil_message("No decoder for %s is installed "
			"(a GStreamer plugin is missing)", unknown));
	} else if (!linked) {
		veil_video_refuse(src, -EINVAL, veil_message("The file has no video stream"));
	}
	free(unknown);
}

/* appsink, streaming thread: the allocation query of the element before it. */
static gboolean handle_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data) {
	struct video_source *src = data;
	/* Decoders that pad or align planes hand their frames over as they are, with a meta. */
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	veil_video_pool_offer(&src->pool, src->udmabuf, src->linear_formats,
		src->n_linear_formats, query, src->name);
	return TRUE;
}

/*
 * The file is read through /proc/self/fd/N of a descriptor of ours: filesrc opens that link to
 * the very inode we were given, even once the file is deleted or replaced, and (unlike fdsrc,
 * which only pushes) lets demuxers pull. Demuxers handle segment seeks, which gapless looping
 * needs, only in pull mode: in push mode qtdemux loses the running time at every loop.
 */
static GstElement *make_file_source(struct video_source *src) {
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src->file_fd);
	GstElement *element = NULL;
	/*
	 * A parser that outputs raw video in pull mode (y4mdec) starts pushing before decodebin has
	 * linked its pad: "not-linked" on about one start in three on a loaded machine. Such
	 * streams are read in push mode, where decodebin's typefind feeds them after linking.
	 */
	const char *type;
	veil_media_sniff(src->file_fd, &type);
	bool pull = strcmp(type, "application/x-yuv4mpeg") != 0;
	if (pull && access(proc, R_OK) == 0) {
		element = gst_element_factory_make("filesrc", NULL);
		if (element != NULL) {
			g_object_set(element, "location", proc, NULL);
			return element;
		}
	}
	wlr_log(WLR_INFO, "veil: %s: %s: reading through fdsrc, looping with flushing seeks",
		src->name, pull ? "no /proc/self/fd" : "raw video in its container");
	src->push_mode = true;
	element = gst_element_factory_make("fdsrc", NULL);
	if (element != NULL) {
		/* fdsrc starts where the descriptor is; ours shares the caller's offset. */
		lseek(src->file_fd, 0, SEEK_SET);
		g_object_set(element, "fd", src->file_fd, NULL);
	}
	return element;
}

int veil_video_build_pipeline(struct video_source *src, char **message) {
	src->pipeline = gst_pipeline_new(NULL);
	GstElement *file = make_file_source(src);
	src->decodebin = gst_element_factory_make("decodebin", NULL);
	src->convert = gst_element_factory_make("videoconvert", NULL);
	src->sink = gst_element_factory_make("appsink", NULL);
	if (src->pipeline == NULL || file == NULL || src->decodebin == NULL ||
			src->convert == NULL || src->sink == NULL) {
		veil_message_set(message, "GStreamer lacks %s",
			file == NULL ? "filesrc (coreelements)" :
			src->decodebin == NULL ? "decodebin (gst-plugins-base)" :
			src->convert == NULL ? "videoconvert (gst-plugins-base)" :
			src->sink == NULL ? "appsink (gst-plugins-base)" : "a pipeline");
		if (file != NULL) {
			gst_object_unref(gst_object_ref_sink(file));
		}
		if (src->decodebin != NULL) {
			gst_object_unref(gst_object_ref_sink(src->decodebin));
		}
		if (src->convert != NULL) {
			gst_object_unref(gst_object_ref_sink(src->convert));
		}
		if (src->sink != NULL) {
			gst_object_unref(gst_object_ref_sink(src->sink));
		}
		src->decodebin = src->convert = src->sink = NULL;
		return -ENOTSUP;
	}
	gst_bin_add_many(GST_BIN(src->pipeline), file, src->decodebin, src->convert, src->sink,
		NULL);

	GstCaps *video = gst_caps_from_string("video/x-raw(ANY)");
	/* Stop at raw video, and don't even plug decoders for streams that can't become it. */
	g_object_set(src->decodebin, "caps", video, "expose-all-streams", FALSE, NULL);
	gst_caps_unref(video);
	veil_video_choose_decoders(src);
	g_signal_connect(src->decodebin, "pad-added", G_CALLBACK(handle_pad_added), src);
	g_signal_connect(src->decodebin, "unknown-type", G_CALLBACK(handle_unknown_type), src);
	g_signal_connect(src->decodebin, "no-more-pads", G_CALLBACK(handle_no_more_pads), src);
	g_signal_connect(src->pipeline, "deep-element-added",
		G_CALLBACK(handle_deep_element_added), src);

	/* Until the stream's size and rate are known (decode/video/threads.c). */
	g_object_set(src->convert, "n-threads", 2, NULL);
	veil_video_rate_install(src);

	/*
	 * sync paces frames at their presentation time; no last-sample and a short queue keep
	 * frames in the decoder's pool; the callbacks pull every frame at once anyway.
	 */
	g_object_set(src->sink, "caps", src->sink_caps, "sync", TRUE, "max-buffers", 2,
		"drop", TRUE, "enable-last-sample", FALSE, "emit-signals", FALSE, "qos", FALSE,
		NULL);
	GstAppSinkCallbacks callbacks = {
		.new_preroll = veil_video_handle_new_preroll,
		.new_sample = veil_video_handle_new_sample,
		.propose_allocation = handle_propose_allocation,
	};
	gst_app_sink_set_callbacks(GST_APP_SINK(src->sink), &callbacks, src, NULL);
	veil_segment_chain_init(&src->chain, src->name);
	veil_segment_chain_attach(&src->chain, src->sink);

	if (!gst_element_link(file, src->decodebin) ||
			!gst_element_link(src->convert, src->sink)) {
		veil_message_set(message, "Cannot link the video pipeline");
		return -EINVAL;
	}
	src->bus = gst_element_get_bus(src->pipeline);
	/*
	 * The bus makes its descriptor when it is made, and has none when the process ran out of
	 * them (GStreamer logs a critical): then veil could neither wait for the first frame nor
	 * watch the pipeline, so say what is wrong now.
	 */
	GPollFD pollfd = { .fd = -1 };
	gst_bus_get_pollfd(src->bus, &pollfd);
	if (pollfd.fd < 0) {
		veil_message_set(message, "Cannot start the video: %s", strerror(EMFILE));
		return -EMFILE;
	}
	src->task_pool = veil_task_pool_new();
	veil_gst_bus_adopt_tasks(src->bus, src->task_pool);
	return 0;
}

