#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "decode/gst.h"
#include "decode/sniff.h"
#include "decode/task_pool.h"
#include "decode/video/avcodec_decoder.h"
#include "decode/video/choose.h"
#include "decode/video/hardware.h"
#include "decode/video/loop_guard.h"
#include "decode/video/player.h"
#include "decode/video/threads.h"
#include "util/message.h"
#include "veil-config.h"

/*
 * The player (player.h): building the pipeline, then what its streaming threads run while they
 * link decodebin's video pad, choose its decoder and refuse what veil does not show.
 */

/* decodebin's GstAutoplugSelectResult; the enum is not in the installed headers. */
enum autoplug_select_result {
	AUTOPLUG_SELECT_TRY = 0,
	AUTOPLUG_SELECT_EXPOSE = 1,
	AUTOPLUG_SELECT_SKIP = 2,
};

void veil_player_refuse(struct veil_player *player, int err, char *message) {
	pthread_mutex_lock(&player->lock);
	bool first = player->refused_err == 0;
	if (first) {
		player->refused_err = err;
		player->refused = message;
	}
	pthread_mutex_unlock(&player->lock);
	if (!first) {
		free(message);
		return;
	}
	GstStructure *s = gst_structure_new_empty("veil-refused");
	gst_element_post_message(player->pipeline,
		gst_message_new_application(GST_OBJECT(player->pipeline), s));
}

/* Streaming thread. Caps of any video stream (coded or raw) that give a size are checked. */
bool veil_player_check_size(struct veil_player *player, const GstCaps *caps) {
	if (caps == NULL || gst_caps_get_size(caps) == 0) {
		return true;
	}
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	int width = 0, height = 0;
	if (!gst_structure_get_int(s, "width", &width) ||
			!gst_structure_get_int(s, "height", &height)) {
		return true;
	}
	if (width <= VEIL_VIDEO_MAX_SIDE && height <= VEIL_VIDEO_MAX_SIDE) {
		return true;
	}
	veil_player_refuse(player, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d",
		width, height, VEIL_VIDEO_MAX_SIDE, VEIL_VIDEO_MAX_SIDE));
	return false;
}

/*
 * decodebin drops the errors of an element it is plugging until the element is PAUSED and
 * linked: an error the element's own streaming thread posts in between (a demuxer running in
 * pull mode finds the file corrupt at once) is lost, and the pipeline never prerolls. The bus of
 * each element decodebin adds is replaced by one that passes every message on, unchanged and
 * synchronously, and keeps the first error aside (player->child_error), posting an application
 * message "veil-child-error" for the owner.
 */
struct bus_proxy {
	struct veil_player *player;
	GstBus *parent; /* decodebin's child bus */
};

static GstBusSyncReply handle_child_message(GstBus *bus, GstMessage *msg, gpointer data) {
	struct bus_proxy *proxy = data;
	struct veil_player *player = proxy->player;
	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
		pthread_mutex_lock(&player->lock);
		bool first = player->child_error == NULL;
		if (first) {
			player->child_error = gst_message_ref(msg);
		}
		pthread_mutex_unlock(&player->lock);
		if (first) {
			GstStructure *s = gst_structure_new_empty("veil-child-error");
			gst_element_post_message(player->pipeline,
				gst_message_new_application(GST_OBJECT(player->pipeline), s));
		}
	}
	/* Returning DROP leaves our reference to us: it goes on with the message. */
	gst_bus_post(proxy->parent, msg);
	return GST_BUS_DROP;
}

static void free_bus_proxy(gpointer data) {
	struct bus_proxy *proxy = data;
	gst_object_unref(proxy->parent);
	free(proxy);
}

static void proxy_bus(struct veil_player *player, GstElement *element) {
	GstBus *parent = gst_element_get_bus(element);
	struct bus_proxy *proxy = calloc(1, sizeof(*proxy));
	if (parent == NULL || proxy == NULL) {
		if (parent != NULL) {
			gst_object_unref(parent);
		}
		free(proxy);
		return;
	}
	proxy->player = player;
	proxy->parent = parent;
	/* No async delivery: nothing is ever queued on it, and it needs no poll fds. */
	GstBus *bus = g_object_new(GST_TYPE_BUS, "enable-async", FALSE, NULL);
	gst_object_ref_sink(bus);
	gst_bus_set_sync_handler(bus, handle_child_message, proxy, free_bus_proxy);
	gst_element_set_bus(element, bus);
	gst_object_unref(bus);
}

/* An error message as a sentence; the details GStreamer adds for developers go to the log. */
int veil_player_describe_error(struct veil_player *player, GstMessage *msg, char **message) {
	GError *gerr = NULL;
	char *debug = NULL;
	gst_message_parse_error(msg, &gerr, &debug);
	wlr_log(WLR_DEBUG, "veil: %s: GStreamer error from %s: %s (%s)", player->name,
		GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), gerr->message, debug != NULL ? debug : "");
	int err = veil_gst_errno(gerr);
	int shortage = gerr->domain == GST_RESOURCE_ERROR ? veil_gst_descriptor_shortage() : 0;
	if (shortage != 0) {
		veil_message_set(message, "Cannot open the video: %s (GStreamer: %s)",
			strerror(shortage), gerr->message);
		err = -shortage;
	} else if (gerr->domain == GST_STREAM_ERROR &&
			gerr->code == GST_STREAM_ERROR_TYPE_NOT_FOUND) {
		veil_message_set(message, "Not a video GStreamer can read");
	} else {
		veil_message_set(message, "The video can't be played: %s", gerr->message);
	}
	g_clear_error(&gerr);
	g_free(debug);
	return err;
}

/* ---- Which decoder decodes: hardware first, VA ones only on the renderer's GPU ---- */

static char *drm_device_of_path(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 ? veil_hardware_drm_device(&st) : NULL;
}

static const char *factory_klass(GstElementFactory *factory) {
	return gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
}

/*
 * The render node a va decoder runs on. The va plugin registers one element per device: the
 * first as vah264dec, the others as varenderD129h264dec; every one has a read-only device-path
 * property, readable without opening the device.
 */
static char *va_device_path(GstElementFactory *factory) {
	char *path = NULL;
	GstElement *element = gst_element_factory_create(factory, NULL);
	if (element != NULL) {
		gst_object_ref_sink(element);
		if (g_object_class_find_property(G_OBJECT_GET_CLASS(element), "device-path")) {
			g_object_get(element, "device-path", &path, NULL);
		}
		gst_object_unref(element);
	}
	if (path == NULL) {
		const char *render = strstr(GST_OBJECT_NAME(factory), "renderD");
		if (render != NULL) {
			int minor = atoi(render + strlen("renderD"));
			path = g_strdup_printf("/dev/dri/renderD%d", minor);
		}
	}
	return path;
}

/* decodebin, streaming thread: before a pad is plugged further. */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct veil_player *player = data;
	/* A parser's caps give the coded size: refuse before a decoder allocates anything. */
	return veil_player_check_size(player, caps);
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS
/* decodebin, streaming thread: hardware decoders first, rank order otherwise (choose.c). */
static GValueArray *handle_autoplug_sort(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GValueArray *factories, gpointer data) {
	guint n = factories->n_values;
	struct veil_decoder_candidate *candidates = calloc(n, sizeof(*candidates));
	size_t *order = calloc(n, sizeof(*order));
	GValueArray *sorted = NULL;
	if (candidates == NULL || order == NULL) {
		goto out; /* decodebin's own order */
	}
	for (guint i = 0; i < n; i++) {
		GstElementFactory *factory = g_value_get_object(g_value_array_get_nth(factories, i));
		candidates[i].name = GST_OBJECT_NAME(factory);
		candidates[i].klass = factory_klass(factory);
	}
	if (!veil_decoder_order(candidates, n, order)) {
		goto out;
	}
	sorted = g_value_array_new(n);
	for (guint i = 0; i < n; i++) {
		g_value_array_append(sorted, g_value_array_get_nth(factories, order[i]));
	}
out:
	free(candidates);
	free(order);
	return sorted;
}
G_GNUC_END_IGNORE_DEPRECATIONS

/*
 * decodebin, streaming thread: a factory is about to be tried. Without hardware (veil-decoder's
 * sandbox has no render node, nor /dev at all, and a hardware decoder's libraries would look for
 * one) every hardware decoder is skipped; with it, VA decoders of another GPU than the
 * renderer's are.
 */
static int handle_autoplug_select(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GstElementFactory *factory, gpointer data) {
	struct veil_player *player = data;
	struct veil_decoder_candidate candidate = {
		.name = GST_OBJECT_NAME(factory),
		.klass = factory_klass(factory),
	};
	if (!player->hardware) {
		return veil_decoder_is_hardware(candidate.name, candidate.klass) ?
			AUTOPLUG_SELECT_SKIP : AUTOPLUG_SELECT_TRY;
	}
	if (veil_decoder_family(candidate.name, candidate.klass) != VEIL_DECODER_VA) {
		return AUTOPLUG_SELECT_TRY;
	}
	char *path = va_device_path(factory);
	char *device = path != NULL ? drm_device_of_path(path) : NULL;
	candidate.device_path = path;
	candidate.device = device;
	char *why = veil_decoder_skip_reason(&candidate, player->render_device);
	free(device);
	g_free(path);
	if (why == NULL) {
		return AUTOPLUG_SELECT_TRY;
	}
	wlr_log(WLR_INFO, "veil: %s: video decoder %s skipped: %s", player->name,
		GST_OBJECT_NAME(factory), why);
	free(why);
	return AUTOPLUG_SELECT_SKIP;
}

/* The thread that adds it: records element as the decoder in use if it is a video decoder. */
static void note_decoder(struct veil_player *player, GstElement *element) {
	GstElementFactory *factory = gst_element_get_factory(element);
	if (factory == NULL) {
		return;
	}
	const char *klass = factory_klass(factory);
	if (klass == NULL || strstr(klass, "Decoder") == NULL ||
			(strstr(klass, "Video") == NULL && strstr(klass, "Image") == NULL)) {
		return;
	}
	char *name = strdup(GST_OBJECT_NAME(factory));
	pthread_mutex_lock(&player->lock);
	free(player->decoder);
	player->decoder = name;
	player->decoder_hw = veil_decoder_is_hardware(GST_OBJECT_NAME(factory), klass);
	player->decoder_serial++;
	pthread_mutex_unlock(&player->lock);
}

/* ---- Linking decodebin's video pad ---- */

/* The thread that adds it: an element was added somewhere inside the pipeline. */
static void handle_deep_element_added(GstBin *bin, GstBin *sub_bin, GstElement *element,
		gpointer data) {
	struct veil_player *player = data;
	if (sub_bin == GST_BIN(player->decodebin) && !GST_IS_BIN(element)) {
		proxy_bus(player, element);
	}
	note_decoder(player, element);
	veil_video_rate_watch_decoder(&player->rate, element);
	veil_video_limit_decoder_threads(element);
}

/*
 * decodebin's video pad, its streaming thread: the first to see a decoder's output caps, before
 * anything downstream allocates for them. Caps that are refused are dropped, and so is every
 * frame after them: the decoder gets not-negotiated and stops (frames of the refused size must
 * not reach videoconvert, which still has the caps before).
 */
static GstPadProbeReturn handle_caps_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct veil_player *player = data;
	if (info->type & (GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST)) {
		if (!player->caps_refused) {
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
	player->caps_refused = !veil_player_check_size(player, caps);
	if (player->caps_refused) {
		return GST_PAD_PROBE_DROP;
	}
	veil_video_set_convert_threads(player->convert, caps);
	return GST_PAD_PROBE_OK;
}

/* decodebin, streaming thread: a decoded stream is ready. Only the first video one is shown. */
static void handle_pad_added(GstElement *decodebin, GstPad *pad, gpointer data) {
	struct veil_player *player = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (caps == NULL) {
		caps = gst_pad_query_caps(pad, NULL);
	}
	bool video = caps != NULL && !gst_caps_is_empty(caps) &&
		gst_structure_has_name(gst_caps_get_structure(caps, 0), "video/x-raw");
	bool size_ok = video && veil_player_check_size(player, caps);
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
	if (!size_ok) {
		return;
	}

	pthread_mutex_lock(&player->lock);
	bool first = !player->linked;
	player->linked = true;
	pthread_mutex_unlock(&player->lock);
	if (!first) {
		return;
	}

	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_BUFFER |
		GST_PAD_PROBE_TYPE_BUFFER_LIST, handle_caps_probe, player, NULL);
	GstPad *sink_pad = gst_element_get_static_pad(player->convert, "sink");
	GstPadLinkReturn ret = gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
	if (GST_PAD_LINK_FAILED(ret)) {
		veil_player_refuse(player, -ENOTSUP, veil_message("The decoded video can't be "
			"linked (%s)", gst_pad_link_get_name(ret)));
	}
}

/*
 * decodebin, streaming thread, before no-more-pads: no decoder takes a stream. Kept to name it:
 * decodebin's missing-plugin message and its error come in either order with the refusal.
 */
static void handle_unknown_type(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct veil_player *player = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	const char *name = s != NULL ? gst_structure_get_name(s) : NULL;
	if (name == NULL || !g_str_has_prefix(name, "video/")) {
		return;
	}
	pthread_mutex_lock(&player->lock);
	if (player->unknown_type == NULL) {
		player->unknown_type = strdup(name);
	}
	pthread_mutex_unlock(&player->lock);
}

/* decodebin, streaming thread: every stream it found is exposed (or discarded). */
static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct veil_player *player = data;
	pthread_mutex_lock(&player->lock);
	bool linked = player->linked;
	char *unknown = player->unknown_type != NULL ? strdup(player->unknown_type) : NULL;
	pthread_mutex_unlock(&player->lock);
	if (!linked && unknown != NULL) {
		veil_player_refuse(player, -ENOTSUP, veil_message("No decoder for %s is installed "
			"(a GStreamer plugin is missing)", unknown));
	} else if (!linked) {
		veil_player_refuse(player, -EINVAL, veil_message("The file has no video stream"));
	}
	free(unknown);
}

/* appsink, streaming thread: the frames go to the sink. */
static GstFlowReturn handle_new_sample(GstAppSink *sink, gpointer data) {
	struct veil_player *player = data;
	return player->sink_impl.new_sample(sink, player->sink_impl.data);
}

static GstFlowReturn handle_new_preroll(GstAppSink *sink, gpointer data) {
	struct veil_player *player = data;
	return player->sink_impl.new_preroll(sink, player->sink_impl.data);
}

/* appsink, streaming thread: the allocation query of the element before it. */
static gboolean handle_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data) {
	struct veil_player *player = data;
	/* Decoders that pad or align planes hand their frames over as they are, with a meta. */
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	return player->sink_impl.propose_allocation(sink, query, player->sink_impl.data);
}

/* ---- Building ---- */

/*
 * The file is read through /proc/self/fd/N of a descriptor of ours: filesrc opens that link to
 * the very inode we were given, even once the file is deleted or replaced, and (unlike fdsrc,
 * which only pushes) lets demuxers pull. Demuxers handle segment seeks, which gapless looping
 * needs, only in pull mode: in push mode qtdemux loses the running time at every loop.
 */
static GstElement *make_file_source(struct veil_player *player) {
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", player->file_fd);
	GstElement *element = NULL;
	/*
	 * A parser that outputs raw video in pull mode (y4mdec) starts pushing before decodebin has
	 * linked its pad: "not-linked" on about one start in three on a loaded machine. Such
	 * streams are read in push mode, where decodebin's typefind feeds them after linking.
	 */
	const char *type;
	veil_media_sniff(player->file_fd, &type);
	bool pull = strcmp(type, "application/x-yuv4mpeg") != 0;
	if (pull && access(proc, R_OK) == 0) {
		element = gst_element_factory_make("filesrc", NULL);
		if (element != NULL) {
			g_object_set(element, "location", proc, NULL);
			return element;
		}
	}
	wlr_log(WLR_INFO, "veil: %s: %s: reading through fdsrc, looping with flushing seeks",
		player->name, pull ? "no /proc/self/fd" : "raw video in its container");
	player->push_mode = true;
	element = gst_element_factory_make("fdsrc", NULL);
	if (element != NULL) {
		/* fdsrc starts where the descriptor is; ours shares the caller's offset. */
		lseek(player->file_fd, 0, SEEK_SET);
		g_object_set(element, "fd", player->file_fd, NULL);
	}
	return element;
}

static void unref_floating(GstElement **element) {
	if (*element != NULL) {
		gst_object_unref(gst_object_ref_sink(*element));
		*element = NULL;
	}
}

void veil_player_init(struct veil_player *player) {
	pthread_mutex_init(&player->lock, NULL);
}

int veil_player_build(struct veil_player *player, char **message) {
#if VEIL_HAVE_LIBAVCODEC
	/* Before decodebin lists its factories: libav's codecs without gst-libav. */
	veil_avcodec_decoder_register();
#endif
	player->pipeline = gst_pipeline_new(NULL);
	GstElement *file = make_file_source(player);
	player->decodebin = gst_element_factory_make("decodebin", NULL);
	player->convert = gst_element_factory_make("videoconvert", NULL);
	player->sink = gst_element_factory_make("appsink", NULL);
	if (player->pipeline == NULL || file == NULL || player->decodebin == NULL ||
			player->convert == NULL || player->sink == NULL) {
		veil_message_set(message, "GStreamer lacks %s",
			file == NULL ? "filesrc (coreelements)" :
			player->decodebin == NULL ? "decodebin (gst-plugins-base)" :
			player->convert == NULL ? "videoconvert (gst-plugins-base)" :
			player->sink == NULL ? "appsink (gst-plugins-base)" : "a pipeline");
		unref_floating(&file);
		unref_floating(&player->decodebin);
		unref_floating(&player->convert);
		unref_floating(&player->sink);
		return -ENOTSUP;
	}
	gst_bin_add_many(GST_BIN(player->pipeline), file, player->decodebin, player->convert,
		player->sink, NULL);

	GstCaps *video = gst_caps_from_string("video/x-raw(ANY)");
	/* Stop at raw video, and don't even plug decoders for streams that can't become it. */
	g_object_set(player->decodebin, "caps", video, "expose-all-streams", FALSE, NULL);
	gst_caps_unref(video);
	g_signal_connect(player->decodebin, "autoplug-continue",
		G_CALLBACK(handle_autoplug_continue), player);
	if (player->hardware) {
		g_signal_connect(player->decodebin, "autoplug-sort",
			G_CALLBACK(handle_autoplug_sort), player);
	}
	g_signal_connect(player->decodebin, "autoplug-select",
		G_CALLBACK(handle_autoplug_select), player);
	g_signal_connect(player->decodebin, "pad-added", G_CALLBACK(handle_pad_added), player);
	g_signal_connect(player->decodebin, "unknown-type", G_CALLBACK(handle_unknown_type),
		player);
	g_signal_connect(player->decodebin, "no-more-pads", G_CALLBACK(handle_no_more_pads),
		player);
	g_signal_connect(player->pipeline, "deep-element-added",
		G_CALLBACK(handle_deep_element_added), player);

	/* Until the stream's size and rate are known (decode/video/threads.c). */
	g_object_set(player->convert, "n-threads", 2, NULL);
	veil_video_rate_install(&player->rate, player->convert);

	/*
	 * sync paces frames at their presentation time; no last-sample keeps frames in the
	 * decoder's pool; the sink's callbacks pull every frame at once.
	 */
	g_object_set(player->sink, "caps", player->sink_caps, "sync", TRUE,
		"max-buffers", player->sink_impl.max_buffers, "drop", player->sink_impl.drop,
		"enable-last-sample", FALSE, "emit-signals", FALSE, "qos", FALSE, NULL);
	GstAppSinkCallbacks callbacks = {
		.new_preroll = handle_new_preroll,
		.new_sample = handle_new_sample,
		.propose_allocation = handle_propose_allocation,
	};
	gst_app_sink_set_callbacks(GST_APP_SINK(player->sink), &callbacks, player, NULL);
	veil_segment_chain_init(&player->chain, player->name);
	veil_segment_chain_attach(&player->chain, player->sink);

	if (!gst_element_link(file, player->decodebin) ||
			!gst_element_link(player->convert, player->sink)) {
		veil_message_set(message, "Cannot link the video pipeline");
		return -EINVAL;
	}
	player->bus = gst_element_get_bus(player->pipeline);
	/*
	 * The bus makes its descriptor when it is made, and has none when the process ran out of
	 * them (GStreamer logs a critical): then the owner could neither wait for the first frame
	 * nor watch the pipeline, so say what is wrong now.
	 */
	GPollFD pollfd = { .fd = -1 };
	gst_bus_get_pollfd(player->bus, &pollfd);
	if (pollfd.fd < 0) {
		veil_message_set(message, "Cannot start the video: %s", strerror(EMFILE));
		return -EMFILE;
	}
	player->task_pool = veil_task_pool_new();
	veil_gst_bus_adopt_tasks(player->bus, player->task_pool);
	return 0;
}

void veil_player_forget(struct veil_player *player) {
	pthread_mutex_lock(&player->lock);
	player->linked = false;
	GstMessage *child_error = player->child_error;
	player->child_error = NULL;
	pthread_mutex_unlock(&player->lock);
	if (child_error != NULL) {
		gst_message_unref(child_error);
	}
	player->caps_refused = false;
	veil_segment_chain_reset(&player->chain);
}

void veil_player_finish(struct veil_player *player) {
	if (player->pipeline != NULL) {
		gst_element_set_state(player->pipeline, GST_STATE_NULL);
	}
	if (player->bus != NULL) {
		gst_bus_set_flushing(player->bus, TRUE); /* frees what is queued */
		gst_object_unref(player->bus);
	}
	if (player->pipeline != NULL) {
		gst_object_unref(player->pipeline);
	}
	if (player->task_pool != NULL) {
		gst_object_unref(player->task_pool);
	}
	if (player->child_error != NULL) {
		gst_message_unref(player->child_error);
	}
	free(player->refused);
	free(player->decoder);
	free(player->unknown_type);
	free(player->missing);
	pthread_mutex_destroy(&player->lock);
}

/* ---- Looping: segment seeks (gapless, running time keeps going), else flushing seeks ---- */

static bool seek_to_start(struct veil_player *player, GstSeekFlags flags) {
	return gst_element_seek(player->pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, 0,
		GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
}

/*
 * A flushing segment seek makes the pipeline post SEGMENT_DONE instead of EOS at the end; a
 * non-flushing segment seek from there continues without a gap, and running time (so
 * appsink's pacing) stays monotonic.
 */
void veil_player_start_looping(struct veil_player *player) {
	bool seekable = false;
	GstQuery *query = gst_query_new_seeking(GST_FORMAT_TIME);
	if (gst_element_query(player->pipeline, query)) {
		gboolean can_seek = FALSE;
		gst_query_parse_seeking(query, NULL, &can_seek, NULL, NULL);
		seekable = can_seek;
	}
	gst_query_unref(query);
	if (seekable && !player->push_mode &&
			seek_to_start(player, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT)) {
		player->segment_looping = true;
		return;
	}
	wlr_log(WLR_INFO, "veil: %s: no segment seeking here; the video restarts with a flushing "
		"seek at its end", player->name);
}

bool veil_player_seek(struct veil_player *player, int64_t ms) {
	GstSeekFlags flags = GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE;
	if (player->segment_looping) {
		/* The loop after this one stays gapless: SEGMENT_DONE again at the end. */
		flags |= GST_SEEK_FLAG_SEGMENT;
	}
	bool ok = gst_element_seek(player->pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET,
		(gint64)ms * GST_MSECOND, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
	if (!ok) {
		wlr_log(WLR_INFO, "veil: %s: cannot go to %" PRId64 " ms; it plays from where it is",
			player->name, ms);
	}
	return ok;
}

int64_t veil_player_sample_position_ms(GstSample *sample) {
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	const GstSegment *segment = gst_sample_get_segment(sample);
	if (buffer == NULL || !GST_BUFFER_PTS_IS_VALID(buffer)) {
		return -1;
	}
	GstClockTime time = GST_BUFFER_PTS(buffer);
	if (segment != NULL && segment->format == GST_FORMAT_TIME) {
		time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, time);
	}
	return GST_CLOCK_TIME_IS_VALID(time) ? (int64_t)(time / GST_MSECOND) : -1;
}

enum veil_loop_verdict veil_player_loop_end(struct veil_player *player, bool eos,
		uint64_t frames, char **message) {
	/* Loops that take nothing, or bring nothing, would spin whoever drives the pipeline. */
	enum veil_loop_verdict verdict = veil_loop_guard_end(&player->loop_guard,
		g_get_monotonic_time(), frames, message);
	if (verdict == VEIL_LOOP_STAY) {
		wlr_log(WLR_INFO, "veil: %s: one frame a loop: it stays, without looping",
			player->name);
	}
	if (verdict != VEIL_LOOP_AGAIN) {
		return verdict;
	}
	if (!eos && player->segment_looping) {
		if (seek_to_start(player, GST_SEEK_FLAG_SEGMENT)) {
			return verdict;
		}
		player->segment_looping = false;
		wlr_log(WLR_INFO, "veil: %s: segment seek failed; restarting with a flushing seek",
			player->name);
	}
	if (eos && !player->eos_fallback_logged) {
		player->eos_fallback_logged = true;
		wlr_log(WLR_INFO, "veil: %s: end of stream; looping with flushing seeks",
			player->name);
	}
	if (!seek_to_start(player, GST_SEEK_FLAG_FLUSH)) {
		wlr_log(WLR_ERROR, "veil: %s: cannot seek back to the start; the last frame stays",
			player->name);
	}
	return verdict;
}
