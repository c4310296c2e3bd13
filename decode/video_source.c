#define _XOPEN_SOURCE 700 /* realpath */
#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/base/gsttypefindhelper.h>
#include <gst/video/video.h>
#include <json-c/json.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/log.h>
#include "decode/sniff.h"
#include "decode/source.h"
#include "decode/task_pool.h"
#include "util/message.h"
#include "scene/sample_buffer.h"

/*
 * A video: one GStreamer pipeline per file, shared by every output that shows it,
 *
 *   filesrc ! decodebin ! videoconvert ! appsink
 *
 * decodebin plugs a demuxer, a parser and a decoder (hardware first, VA only on the renderer's
 * GPU) and exposes raw video only; videoconvert converts only when the renderer can't take the
 * decoder's frames as they are (it is in passthrough otherwise and costs nothing); appsink paces
 * the frames at their presentation time and hands them over without a copy.
 *
 * Threads: GStreamer's streaming threads (our own task pool: they end with the pipeline) run the
 * appsink callbacks, which put the newest sample into a one-slot mailbox and write an eventfd
 * when the slot was empty, so the compositor wakes at most once a frame. The compositor thread
 * reads the eventfd, wraps the sample as a wlr_buffer (scene/sample_buffer.c) and sets it as the
 * source's frame. It also drains the pipeline's bus through the bus's poll fd. What the threads
 * share is under `lock`; the rest is marked with the one thread that uses it.
 *
 * Looping: segment seeks (gapless, running time keeps going), flushing seeks where the stream
 * can't do those. Opening waits (bounded) for the first frame, so that a file that can't play
 * fails there and never replaces a wallpaper; later failures keep the last good frame.
 */

/* Larger videos are refused, before a decoder allocates frames for them. */
#define MAX_SIDE 8192
/* How long opening a video may take until its first frame is decoded. */
#define PREROLL_TIMEOUT (5 * GST_SECOND)
/*
 * Frames veil keeps out of the decoder's pool at once: the mailbox, the source's frame and what
 * the renderer still reads (texture, scanout).
 */
#define HELD_FRAMES 3
/* How long decodebin gets to pass an element's error on or to try another element. */
#define CHILD_ERROR_GRACE_US 300000
/*
 * Loops this short, this many times in a row, are timestamps that don't advance (or a video of
 * a frame or so): looping stops on the last frame rather than wake the compositor for nothing.
 */
#define FAST_LOOP_US 20000
#define MAX_FAST_LOOPS 10
#define MAX_STILL_LOOPS 3

/* decodebin's GstAutoplugSelectResult; the enum is not in the installed headers. */
enum autoplug_select_result {
	AUTOPLUG_SELECT_TRY = 0,
	AUTOPLUG_SELECT_EXPOSE = 1,
	AUTOPLUG_SELECT_SKIP = 2,
};

struct video_source {
	struct veil_source base;

	GstElement *pipeline; /* owns decodebin, convert and sink */
	GstElement *decodebin, *convert, *sink;
	GstBus *bus;
	GstTaskPool *task_pool; /* the streaming threads */
	/* Our own descriptor of the file, opened again by filesrc through /proc/self/fd. */
	int file_fd;
	/* eventfd written by a streaming thread when the mailbox gets a sample. */
	int wake_fd;
	struct wl_event_source *wake_source, *bus_source;

	/* Fixed at creation, read by streaming threads. */
	char *render_device; /* sysfs device of the renderer's DRM node, NULL without one */
	GstAllocator *udmabuf; /* NULL unless the renderer takes dmabufs and /dev/udmabuf works */
	uint32_t *linear_formats; /* DRM formats the renderer imports as linear dmabufs */
	size_t n_linear_formats;

	/* Shared with the streaming threads. */
	pthread_mutex_t lock;
	GstSample *mailbox; /* the newest sample the compositor has not taken yet */
	uint64_t delivered; /* samples put into the mailbox */
	uint64_t dropped; /* samples replaced in the mailbox before the compositor took them */
	bool wake_written; /* wake_fd holds a wake-up the compositor has not read yet */
	/* Some output showing the video owes a frame event: a new sample waits for it. */
	bool frame_owed;
	/* The buffer delivered last (identity only, no reference): a preroll is rendered again. */
	const GstBuffer *last_buffer;
	GstClockTime last_pts;
	int refused_err; /* a streaming thread refused the stream (too large, ...) */
	char *refused;
	char *decoder; /* factory name of the video decoder in use, NULL for none (yet) */
	bool decoder_hw;
	unsigned decoder_serial;
	bool linked; /* a video pad of decodebin is linked */
	GstMessage *child_error; /* the first error of an element inside decodebin */

	/* The streaming thread of decodebin's video pad only (see handle_caps_probe). */
	bool caps_refused;

	/* Streaming thread only: running time at appsink (see handle_sink_probe). */
	GstSegment segment;
	bool have_segment;
	GstClockTime end_running_time; /* of the last buffer */
	bool logged_base_fix;

	/* Streaming thread only: the udmabuf pool offered to the decoder. */
	GstBufferPool *pool;
	GstCaps *pool_caps;
	GstVideoInfo pool_info;
	bool pool_activated; /* by us, to copy frames that did not come from it */
	bool logged_upload;

	/* Compositor thread only. */
	GstCaps *caps; /* of the frames, parsed into format */
	struct veil_sample_format format;
	char *missing; /* what decodebin reported missing */
	uint64_t frames, loops;
	uint64_t wakeups; /* times the streaming threads woke the compositor (wake_fd) */
	unsigned logged_decoder_serial; /* written under lock too */
	bool visible, paused;
	bool created, failed;
	bool push_mode; /* read through fdsrc: no segment seeks */
	bool segment_looping; /* segment seeks work: loops are gapless */
	bool eos_fallback_logged;
	gint64 last_loop_time;
	int fast_loops;
	uint64_t delivered_at_loop;
	int still_loops;
	bool moved; /* a loop brought more than one frame: a moving picture, not a still */
	GstState target;
};

static const struct veil_source_impl video_source_impl;

/*
 * Any thread, synchronously as a task is made: gives it our pool. Touches nothing but the task;
 * the message is still queued for the bus handler, which ignores it.
 */
static GstBusSyncReply handle_sync_message(GstBus *bus, GstMessage *msg, gpointer data) {
	struct video_source *src = data;
	veil_task_pool_adopt(src->task_pool, msg);
	return GST_BUS_PASS;
}

static struct video_source *video_source_from_source(struct veil_source *source) {
	assert(source->impl == &video_source_impl);
	struct video_source *src = wl_container_of(source, src, base);
	return src;
}

static bool init_gstreamer(char **message) {
	GError *gerr = NULL;
	if (!gst_init_check(NULL, NULL, &gerr)) {
		veil_message_set(message, "GStreamer cannot start: %s",
			gerr != NULL ? gerr->message : "unknown error");
		g_clear_error(&gerr);
		return false;
	}
	return true;
}

/* The sysfs device behind a DRM node: primary and render nodes of one GPU give the same. */
static char *drm_device_of_rdev(dev_t rdev) {
	char path[64];
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device", major(rdev), minor(rdev));
	return realpath(path, NULL);
}

static char *drm_device_of_fd(int fd) {
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		return NULL;
	}
	return drm_device_of_rdev(st.st_rdev);
}

static char *drm_device_of_path(const char *path) {
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISCHR(st.st_mode)) {
		return NULL;
	}
	return drm_device_of_rdev(st.st_rdev);
}

static bool is_hardware_decoder(GstElementFactory *factory) {
	const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
	if (klass == NULL || strstr(klass, "Decoder") == NULL) {
		return false;
	}
	const char *name = GST_OBJECT_NAME(factory);
	return strstr(klass, "Hardware") != NULL || g_str_has_prefix(name, "va") ||
		g_str_has_prefix(name, "v4l2") || g_str_has_prefix(name, "nv");
}

/* Elements of GStreamer's va plugin (not the old vaapi one). */
static bool is_va_decoder(GstElementFactory *factory) {
	const char *name = GST_OBJECT_NAME(factory);
	const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
	return g_str_has_prefix(name, "va") && !g_str_has_prefix(name, "vaapi") &&
		klass != NULL && strstr(klass, "Decoder") != NULL;
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

/* Streaming thread. Returns why a va decoder can't be used, NULL when it can. */
static char *va_decoder_mismatch(struct video_source *src, GstElementFactory *factory) {
	char *path = va_device_path(factory);
	char *why = NULL;
	if (src->render_device == NULL) {
		/* No DRM renderer: frames are copied to system memory anyway; any one GPU does. */
		if (strstr(GST_OBJECT_NAME(factory), "renderD") != NULL) {
			why = veil_message("not the first VA device (%s) and the renderer has none",
				path != NULL ? path : "unknown");
		}
	} else if (path == NULL) {
		why = veil_message("its device is unknown");
	} else {
		char *device = drm_device_of_path(path);
		if (device == NULL || strcmp(device, src->render_device) != 0) {
			why = veil_message("it runs on %s, the renderer on %s", path, src->render_device);
		}
		free(device);
	}
	g_free(path);
	return why;
}

/* Streaming thread: a stream is refused; the compositor thread learns it from the bus. */
static void refuse(struct video_source *src, int err, char *message) {
	pthread_mutex_lock(&src->lock);
	bool first = src->refused_err == 0;
	if (first) {
		src->refused_err = err;
		src->refused = message;
	}
	pthread_mutex_unlock(&src->lock);
	if (!first) {
		free(message);
		return;
	}
	GstStructure *s = gst_structure_new_empty("veil-refused");
	gst_element_post_message(src->pipeline,
		gst_message_new_application(GST_OBJECT(src->pipeline), s));
}

/* Streaming thread. Caps of any video stream (coded or raw) that give a size are checked. */
static bool check_size(struct video_source *src, const GstCaps *caps) {
	if (caps == NULL || gst_caps_get_size(caps) == 0) {
		return true;
	}
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	int width = 0, height = 0;
	if (!gst_structure_get_int(s, "width", &width) ||
			!gst_structure_get_int(s, "height", &height)) {
		return true;
	}
	if (width <= MAX_SIDE && height <= MAX_SIDE) {
		return true;
	}
	refuse(src, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d", width, height,
		MAX_SIDE, MAX_SIDE));
	return false;
}

/* decodebin, streaming thread: before a pad is plugged further. */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct video_source *src = data;
	/* A parser's caps give the coded size: refuse before a decoder allocates anything. */
	return check_size(src, caps);
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS
/* decodebin, streaming thread: hardware decoders first, rank order otherwise. */
static GValueArray *handle_autoplug_sort(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GValueArray *factories, gpointer data) {
	bool any = false;
	for (guint i = 0; i < factories->n_values && !any; i++) {
		any = is_hardware_decoder(g_value_get_object(g_value_array_get_nth(factories, i)));
	}
	if (!any) {
		return NULL; /* decodebin's own order */
	}
	GValueArray *sorted = g_value_array_new(factories->n_values);
	for (int hw = 1; hw >= 0; hw--) {
		for (guint i = 0; i < factories->n_values; i++) {
			GValue *value = g_value_array_get_nth(factories, i);
			if (is_hardware_decoder(g_value_get_object(value)) == (bool)hw) {
				g_value_array_append(sorted, value);
			}
		}
	}
	return sorted;
}
G_GNUC_END_IGNORE_DEPRECATIONS

/* decodebin, streaming thread: a factory is about to be tried. */
static int handle_autoplug_select(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GstElementFactory *factory, gpointer data) {
	struct video_source *src = data;
	if (!is_va_decoder(factory)) {
		return AUTOPLUG_SELECT_TRY;
	}
	/* A VA decoder on another GPU would hand dmabufs the renderer can't import. */
	char *why = va_decoder_mismatch(src, factory);
	if (why == NULL) {
		return AUTOPLUG_SELECT_TRY;
	}
	wlr_log(WLR_INFO, "%s: video decoder %s skipped: %s", src->base.path,
		GST_OBJECT_NAME(factory), why);
	free(why);
	return AUTOPLUG_SELECT_SKIP;
}

/*
 * decodebin drops the errors of an element it is plugging until the element is PAUSED and
 * linked: an error the element's own streaming thread posts in between (a demuxer running in
 * pull mode finds the file corrupt at once) is lost, and the pipeline never prerolls. The bus of
 * each element decodebin adds is replaced by one that passes every message on, unchanged and
 * synchronously, and keeps the first error aside (see wait_preroll).
 */
struct bus_proxy {
	struct video_source *src;
	GstBus *parent; /* decodebin's child bus */
};

static GstBusSyncReply handle_child_message(GstBus *bus, GstMessage *msg, gpointer data) {
	struct bus_proxy *proxy = data;
	struct video_source *src = proxy->src;
	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
		pthread_mutex_lock(&src->lock);
		bool first = src->child_error == NULL;
		if (first) {
			src->child_error = gst_message_ref(msg);
		}
		pthread_mutex_unlock(&src->lock);
		if (first) {
			GstStructure *s = gst_structure_new_empty("veil-child-error");
			gst_element_post_message(src->pipeline,
				gst_message_new_application(GST_OBJECT(src->pipeline), s));
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

static void proxy_bus(struct video_source *src, GstElement *element) {
	GstBus *parent = gst_element_get_bus(element);
	struct bus_proxy *proxy = calloc(1, sizeof(*proxy));
	if (parent == NULL || proxy == NULL) {
		if (parent != NULL) {
			gst_object_unref(parent);
		}
		free(proxy);
		return;
	}
	proxy->src = src;
	proxy->parent = parent;
	/* No async delivery: nothing is ever queued on it, and it needs no poll fds. */
	GstBus *bus = g_object_new(GST_TYPE_BUS, "enable-async", FALSE, NULL);
	gst_object_ref_sink(bus);
	gst_bus_set_sync_handler(bus, handle_child_message, proxy, free_bus_proxy);
	gst_element_set_bus(element, bus);
	gst_object_unref(bus);
}

/* The thread that adds it: an element was added somewhere inside the pipeline. */
static void handle_deep_element_added(GstBin *bin, GstBin *sub_bin, GstElement *element,
		gpointer data) {
	struct video_source *src = data;
	if (sub_bin == GST_BIN(src->decodebin) && !GST_IS_BIN(element)) {
		proxy_bus(src, element);
	}
	GstElementFactory *factory = gst_element_get_factory(element);
	if (factory == NULL) {
		return;
	}
	const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
	if (klass == NULL || strstr(klass, "Decoder") == NULL ||
			(strstr(klass, "Video") == NULL && strstr(klass, "Image") == NULL)) {
		return;
	}
	char *name = strdup(GST_OBJECT_NAME(factory));
	pthread_mutex_lock(&src->lock);
	free(src->decoder);
	src->decoder = name;
	src->decoder_hw = is_hardware_decoder(factory);
	src->decoder_serial++;
	pthread_mutex_unlock(&src->lock);
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
	src->caps_refused = !check_size(src, caps);
	return src->caps_refused ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
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
	bool size_ok = video && check_size(src, caps);
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
		refuse(src, -ENOTSUP, veil_message("The decoded video can't be linked (%s)",
			gst_pad_link_get_name(ret)));
	}
}

/*
 * appsink's pad, streaming thread. A loop's segment must start where the previous one ended in
 * running time, or appsink finds every frame late and shows the whole loop at once (no pacing,
 * a loop per frame time). qtdemux in pull mode gets it right; baseparse (H.264 without a
 * container) and demuxers in push mode give the new segment a base from the start, or none.
 * Where that happens, the segment is moved to where the last frame ended.
 */
static GstPadProbeReturn handle_sink_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct video_source *src = data;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
		GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
		if (!src->have_segment || !GST_BUFFER_PTS_IS_VALID(buffer)) {
			return GST_PAD_PROBE_OK;
		}
		GstClockTime end = GST_BUFFER_PTS(buffer);
		if (GST_BUFFER_DURATION_IS_VALID(buffer)) {
			end += GST_BUFFER_DURATION(buffer);
		}
		if (GST_CLOCK_TIME_IS_VALID(src->segment.stop) && end > src->segment.stop) {
			end = src->segment.stop;
		}
		GstClockTime running = gst_segment_to_running_time(&src->segment, GST_FORMAT_TIME,
			end);
		if (GST_CLOCK_TIME_IS_VALID(running) && running > src->end_running_time) {
			src->end_running_time = running;
		}
		return GST_PAD_PROBE_OK;
	}

	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
		/* A flushing seek starts running time again. */
		src->have_segment = false;
		src->end_running_time = 0;
		return GST_PAD_PROBE_OK;
	}
	if (GST_EVENT_TYPE(event) != GST_EVENT_SEGMENT) {
		return GST_PAD_PROBE_OK;
	}
	GstSegment segment;
	gst_event_copy_segment(event, &segment);
	if (segment.format != GST_FORMAT_TIME || segment.rate <= 0) {
		src->have_segment = false;
		return GST_PAD_PROBE_OK;
	}
	GstClockTime start = gst_segment_to_running_time(&segment, GST_FORMAT_TIME, segment.start);
	if (src->end_running_time > 0 && (!GST_CLOCK_TIME_IS_VALID(start) ||
			start + GST_MSECOND < src->end_running_time)) {
		if (!src->logged_base_fix) {
			src->logged_base_fix = true;
			wlr_log(WLR_DEBUG, "%s: a loop's segment went back in running time; moved",
				src->base.path);
		}
		segment.base = src->end_running_time;
		segment.offset = 0;
		GstEvent *moved = gst_event_new_segment(&segment);
		gst_event_set_seqnum(moved, gst_event_get_seqnum(event));
		gst_event_unref(event);
		info->data = moved;
	}
	src->segment = segment;
	src->have_segment = true;
	return GST_PAD_PROBE_OK;
}

/* decodebin, streaming thread: every stream it found is exposed (or discarded). */
static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct video_source *src = data;
	pthread_mutex_lock(&src->lock);
	bool linked = src->linked;
	pthread_mutex_unlock(&src->lock);
	if (!linked) {
		refuse(src, -EINVAL, veil_message("The file has no video stream"));
	}
}

static bool renderer_imports_linear(struct video_source *src, uint32_t drm_format) {
	for (size_t i = 0; i < src->n_linear_formats; i++) {
		if (src->linear_formats[i] == drm_format) {
			return true;
		}
	}
	return false;
}

/*
 * Streaming thread. Frames in system memory that the renderer imports as dmabufs: offer a pool
 * of udmabufs (memfd pages the GPU can import), so that the decoder writes where the GPU reads
 * and no upload copy is made. Without /dev/udmabuf, src->udmabuf is NULL and this steps aside.
 */
static void offer_udmabuf_pool(struct video_source *src, GstQuery *query) {
	GstCaps *caps = NULL;
	gboolean need_pool = FALSE;
	gst_query_parse_allocation(query, &caps, &need_pool);
	if (src->udmabuf == NULL || caps == NULL || gst_caps_get_size(caps) != 1) {
		return;
	}
	GstCapsFeatures *features = gst_caps_get_features(caps, 0);
	if (features != NULL && !gst_caps_features_is_equal(features,
			GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) {
		return;
	}
	GstVideoInfo info;
	if (!gst_video_info_from_caps(&info, caps)) {
		return;
	}
	uint32_t drm_format = gst_video_dma_drm_fourcc_from_format(GST_VIDEO_INFO_FORMAT(&info));
	if (!renderer_imports_linear(src, drm_format)) {
		return;
	}

	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	GstAllocationParams params;
	gst_allocation_params_init(&params);
	gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), HELD_FRAMES, 0);
	gst_buffer_pool_config_set_allocator(config, src->udmabuf, &params);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		wlr_log(WLR_ERROR, "%s: udmabuf pool refused its configuration", src->base.path);
		gst_object_unref(pool);
		return;
	}
	gst_query_add_allocation_pool(query, pool, GST_VIDEO_INFO_SIZE(&info), HELD_FRAMES, 0);
	gst_query_add_allocation_param(query, src->udmabuf, &params);

	/* The previous pool belongs to the caps before: the decoder has let go of it. */
	if (src->pool != NULL) {
		if (src->pool_activated) {
			gst_buffer_pool_set_active(src->pool, FALSE);
		}
		gst_object_unref(src->pool);
		gst_caps_unref(src->pool_caps);
	}
	src->pool = pool;
	src->pool_caps = gst_caps_ref(caps);
	src->pool_info = info;
	src->pool_activated = false;
	wlr_log(WLR_DEBUG, "%s: offered a udmabuf pool for %s", src->base.path,
		gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
}

/* appsink, streaming thread: the allocation query of the element before it. */
static gboolean handle_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data) {
	struct video_source *src = data;
	/* Decoders that pad or align planes hand their frames over as they are, with a meta. */
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	offer_udmabuf_pool(src, query);
	return TRUE;
}

/*
 * Streaming thread. A system-memory frame in a format only a dmabuf carries to the renderer (a
 * decoder that didn't use the pool we offered): one copy into a udmabuf of that pool.
 */
static GstSample *upload_to_udmabuf(struct video_source *src, GstSample *sample) {
	GstBuffer *in = gst_sample_get_buffer(sample);
	GstCaps *caps = gst_sample_get_caps(sample);
	/* Single-plane RGB reaches the renderer as data just as well. */
	if (src->pool == NULL || in == NULL || caps == NULL ||
			GST_VIDEO_INFO_IS_RGB(&src->pool_info) ||
			gst_is_dmabuf_memory(gst_buffer_peek_memory(in, 0)) ||
			!gst_caps_is_equal(caps, src->pool_caps)) {
		return sample;
	}
	if (!gst_buffer_pool_is_active(src->pool)) {
		if (!gst_buffer_pool_set_active(src->pool, TRUE)) {
			wlr_log(WLR_ERROR, "%s: cannot activate the udmabuf pool", src->base.path);
			return sample;
		}
		src->pool_activated = true;
	}
	GstBuffer *out = NULL;
	if (gst_buffer_pool_acquire_buffer(src->pool, &out, NULL) != GST_FLOW_OK) {
		return sample;
	}
	GstVideoFrame in_frame, out_frame;
	bool copied = false;
	if (gst_video_frame_map(&in_frame, &src->pool_info, in, GST_MAP_READ)) {
		if (gst_video_frame_map(&out_frame, &src->pool_info, out, GST_MAP_WRITE)) {
			copied = gst_video_frame_copy(&out_frame, &in_frame);
			gst_video_frame_unmap(&out_frame);
		}
		gst_video_frame_unmap(&in_frame);
	}
	if (!copied) {
		gst_buffer_unref(out);
		return sample;
	}
	if (!src->logged_upload) {
		src->logged_upload = true;
		wlr_log(WLR_INFO, "%s: the decoder doesn't write into the udmabuf pool: one copy "
			"a frame", src->base.path);
	}
	gst_buffer_copy_into(out, in, GST_BUFFER_COPY_TIMESTAMPS, 0, (gsize)-1);
	GstSample *uploaded = gst_sample_new(out, caps, gst_sample_get_segment(sample), NULL);
	gst_buffer_unref(out);
	gst_sample_unref(sample);
	return uploaded;
}

/* Streaming thread: a frame to show. Takes the sample. */
static void deliver(struct video_source *src, GstSample *sample) {
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstClockTime pts = buffer != NULL ? GST_BUFFER_PTS(buffer) : GST_CLOCK_TIME_NONE;

	pthread_mutex_lock(&src->lock);
	/* A prerolled frame is rendered again when the pipeline plays: hand it over once. */
	bool again = buffer == src->last_buffer && pts == src->last_pts;
	src->last_buffer = buffer;
	src->last_pts = pts;
	pthread_mutex_unlock(&src->lock);
	if (again) {
		gst_sample_unref(sample);
		return;
	}

	sample = upload_to_udmabuf(src, sample);

	pthread_mutex_lock(&src->lock);
	GstSample *older = src->mailbox;
	src->mailbox = sample;
	src->delivered++;
	if (older != NULL) {
		src->dropped++;
	}
	/*
	 * One wake-up per frame at most, and none while an output owes a frame event: the
	 * compositor cannot show the frame before that event, and takes it then (frame_event).
	 * A sample still waiting when the next comes means the event is late: wake then.
	 */
	bool wake = !src->wake_written && (!src->frame_owed || older != NULL);
	src->wake_written = src->wake_written || wake;
	pthread_mutex_unlock(&src->lock);

	if (older != NULL) {
		gst_sample_unref(older);
	}
	if (!wake) {
		return;
	}
	uint64_t one = 1;
	if (write(src->wake_fd, &one, sizeof(one)) != sizeof(one)) {
		wlr_log_errno(WLR_ERROR, "%s: cannot wake the compositor", src->base.path);
	}
}

static GstFlowReturn handle_new_sample(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_sample(sink);
	if (sample != NULL) {
		deliver(data, sample);
	}
	return GST_FLOW_OK;
}

static GstFlowReturn handle_new_preroll(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_preroll(sink);
	if (sample != NULL) {
		deliver(data, sample);
	}
	return GST_FLOW_OK;
}

/* Compositor thread: stops the pipeline for good; the last good frame stays. */
static void fail(struct video_source *src, const char *message) {
	if (src->failed) {
		return;
	}
	src->failed = true;
	/* Joins the streaming threads; the bus handler may run this, never a streaming thread. */
	gst_element_set_state(src->pipeline, GST_STATE_NULL);
	pthread_mutex_lock(&src->lock);
	GstSample *sample = src->mailbox;
	src->mailbox = NULL;
	pthread_mutex_unlock(&src->lock);
	if (sample != NULL) {
		gst_sample_unref(sample);
	}
	if (src->created) {
		veil_source_set_error(&src->base, "%s", message);
	}
}

/* Compositor thread: says which decoder decodes, once per decoder (decodebin may replace one). */
static void log_decoder(struct video_source *src) {
	pthread_mutex_lock(&src->lock);
	bool changed = src->decoder_serial != src->logged_decoder_serial;
	src->logged_decoder_serial = src->decoder_serial;
	char *name = changed && src->decoder != NULL ? strdup(src->decoder) : NULL;
	bool hw = src->decoder_hw;
	pthread_mutex_unlock(&src->lock);
	if (name != NULL) {
		wlr_log(WLR_INFO, "%s: video decoder: %s (%s)", src->base.path, name,
			hw ? "hardware" : "software");
		free(name);
	}
}

/*
 * Compositor thread: takes the newest sample as the source's frame. Returns 0 or a negative errno
 * with a sentence in *message (the stream can't be shown).
 */
static int take_frame(struct video_source *src, char **message) {
	pthread_mutex_lock(&src->lock);
	GstSample *sample = src->mailbox;
	src->mailbox = NULL;
	pthread_mutex_unlock(&src->lock);
	if (sample == NULL) {
		return 0;
	}

	int ret = 0;
	GstCaps *caps = gst_sample_get_caps(sample);
	if (caps == NULL) {
		veil_message_set(message, "A video frame came without caps");
		ret = -EINVAL;
		goto out;
	}
	/* Samples share their pad's caps: parse them only when they change. */
	if (src->caps == NULL || (caps != src->caps && !gst_caps_is_equal(caps, src->caps))) {
		struct veil_sample_format format;
		char *why = NULL;
		ret = veil_sample_format_from_caps(&format, caps, &why);
		if (ret < 0) {
			veil_message_set(message, "The video can't be shown: %s",
				why != NULL ? why : "unsupported caps");
			free(why);
			goto out;
		}
		if (format.width > MAX_SIDE || format.height > MAX_SIDE) {
			veil_message_set(message, "The video is %dx%d, larger than %dx%d",
				format.width, format.height, MAX_SIDE, MAX_SIDE);
			ret = -EFBIG;
			goto out;
		}
		if (src->caps != NULL && (format.width != src->format.width ||
				format.height != src->format.height)) {
			wlr_log(WLR_INFO, "%s: video size changed from %dx%d to %dx%d",
				src->base.path, src->format.width, src->format.height,
				format.width, format.height);
		}
		gst_caps_replace(&src->caps, caps);
		src->format = format;
		src->base.opaque = format.opaque;
	}

	struct wlr_buffer *frame = veil_sample_buffer_create_with_format(sample, &src->format);
	if (frame == NULL) {
		veil_message_set(message, "A video frame can't be handed to the renderer");
		ret = -ENOTSUP;
		goto out;
	}
	/* Sets width and height from the frame: holders re-layout when the size changed. */
	veil_source_set_frame(&src->base, frame);
	wlr_buffer_drop(frame);
	src->frames++;

out:
	gst_sample_unref(sample);
	return ret;
}

/* Compositor thread: takes the newest sample, if there is one, onto the outputs. */
static void take_waiting_frame(struct video_source *src) {
	if (src->failed) {
		return;
	}
	char *message = NULL;
	if (take_frame(src, &message) < 0) {
		fail(src, message != NULL ? message : "The video can't be shown");
	}
	free(message);
	log_decoder(src);
}

static void read_wake(struct video_source *src) {
	uint64_t count;
	if (read(src->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "%s: cannot read the frame eventfd", src->base.path);
	}
	pthread_mutex_lock(&src->lock);
	src->wake_written = false;
	pthread_mutex_unlock(&src->lock);
}

static int handle_wake(int fd, uint32_t mask, void *data) {
	struct video_source *src = data;
	src->wakeups++;
	read_wake(src);
	take_waiting_frame(src);
	return 0;
}

static void video_source_frame_event(struct veil_source *source) {
	take_waiting_frame(video_source_from_source(source));
}

static void video_source_set_frame_owed(struct veil_source *source, bool owed) {
	struct video_source *src = video_source_from_source(source);
	pthread_mutex_lock(&src->lock);
	src->frame_owed = owed;
	bool waiting = !owed && src->mailbox != NULL && !src->wake_written;
	pthread_mutex_unlock(&src->lock);
	/* No event will come for a sample that waited for one: take it now. */
	if (waiting) {
		take_waiting_frame(src);
	}
}

static int errno_of_gerror(const GError *gerr) {
	if (gerr->domain == GST_RESOURCE_ERROR) {
		return gerr->code == GST_RESOURCE_ERROR_NOT_FOUND ? -ENOENT : -EIO;
	}
	if (gerr->domain == GST_CORE_ERROR) {
		return gerr->code == GST_CORE_ERROR_MISSING_PLUGIN ||
			gerr->code == GST_CORE_ERROR_NEGOTIATION ? -ENOTSUP : -EINVAL;
	}
	if (gerr->domain == GST_STREAM_ERROR) {
		return gerr->code == GST_STREAM_ERROR_CODEC_NOT_FOUND ||
			gerr->code == GST_STREAM_ERROR_WRONG_TYPE ? -ENOTSUP : -EINVAL;
	}
	return -EINVAL;
}

/* An error message as a sentence; the details GStreamer adds for developers go to the log. */
static int describe_error(struct video_source *src, GstMessage *msg, char **message) {
	GError *gerr = NULL;
	char *debug = NULL;
	gst_message_parse_error(msg, &gerr, &debug);
	wlr_log(WLR_DEBUG, "%s: GStreamer error from %s: %s (%s)", src->base.path,
		GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), gerr->message, debug != NULL ? debug : "");
	int err = errno_of_gerror(gerr);
	if (gerr->domain == GST_STREAM_ERROR && gerr->code == GST_STREAM_ERROR_TYPE_NOT_FOUND) {
		veil_message_set(message, "Not a video GStreamer can read");
	} else {
		veil_message_set(message, "The video can't be played: %s", gerr->message);
	}
	g_clear_error(&gerr);
	g_free(debug);
	return err;
}

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
	pthread_mutex_lock(&src->lock);
	bool linked = src->linked;
	pthread_mutex_unlock(&src->lock);
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
	pthread_mutex_lock(&src->lock);
	int err = src->refused_err;
	char *refused = src->refused;
	src->refused = NULL;
	pthread_mutex_unlock(&src->lock);
	/* A missing decoder explains "no video stream" better than that does. */
	if (src->missing != NULL && err != -EFBIG) {
		free(refused);
		*message = strdup(src->missing);
		return -ENOTSUP;
	}
	*message = refused;
	return err < 0 ? err : -EINVAL;
}

static bool seek_to_start(struct video_source *src, GstSeekFlags flags) {
	return gst_element_seek(src->pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, 0,
		GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
}

/*
 * Compositor thread, after the first frame: arms gapless looping. A flushing segment seek makes
 * the pipeline post SEGMENT_DONE instead of EOS at the end; a non-flushing segment seek from
 * there continues without a gap, and running time (so appsink's pacing) stays monotonic.
 */
static void start_looping(struct video_source *src) {
	bool seekable = false;
	GstQuery *query = gst_query_new_seeking(GST_FORMAT_TIME);
	if (gst_element_query(src->pipeline, query)) {
		gboolean can_seek = FALSE;
		gst_query_parse_seeking(query, NULL, &can_seek, NULL, NULL);
		seekable = can_seek;
	}
	gst_query_unref(query);
	if (seekable && !src->push_mode &&
			seek_to_start(src, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT)) {
		src->segment_looping = true;
		return;
	}
	wlr_log(WLR_INFO, "%s: no segment seeking here; the video restarts with a flushing seek "
		"at its end", src->base.path);
}

static void handle_loop_end(struct video_source *src, bool eos) {
	src->loops++;
	/*
	 * A loop takes the video's duration. Loops that take nothing (no duration, timestamps a
	 * demuxer gets wrong) would spin the compositor's thread: stop on the last frame instead.
	 */
	gint64 time = g_get_monotonic_time();
	src->fast_loops = time - src->last_loop_time < FAST_LOOP_US ? src->fast_loops + 1 : 0;
	src->last_loop_time = time;
	if (src->fast_loops >= MAX_FAST_LOOPS) {
		/*
		 * Also what a file cut short or rewritten while it plays looks like: the demuxer's
		 * index points past the end. Say so in the status, and stop the threads.
		 */
		char *message = veil_message("The video stopped on its last frame: %d loops took "
			"less than %d ms each (was the file changed while it played?)", MAX_FAST_LOOPS,
			FAST_LOOP_US / 1000);
		fail(src, message != NULL ? message : "The video stopped on its last frame");
		free(message);
		return;
	}
	/* A video of one frame: looping would decode that frame again and again. */
	pthread_mutex_lock(&src->lock);
	uint64_t frames = src->delivered - src->delivered_at_loop;
	src->delivered_at_loop = src->delivered;
	pthread_mutex_unlock(&src->lock);
	src->still_loops = frames <= 1 ? src->still_loops + 1 : 0;
	src->moved = src->moved || frames > 1;
	if (src->still_loops >= MAX_STILL_LOOPS && src->moved) {
		/* It moved before: the file was cut short or rewritten in place while it played. */
		fail(src, "The video stopped on its last frame: its loops bring no new frames "
			"(was the file changed while it played?)");
		return;
	}
	if (src->still_loops >= MAX_STILL_LOOPS) {
		wlr_log(WLR_INFO, "%s: one frame a loop: it stays, without looping", src->base.path);
		return;
	}
	if (!eos && src->segment_looping) {
		if (seek_to_start(src, GST_SEEK_FLAG_SEGMENT)) {
			return;
		}
		src->segment_looping = false;
		wlr_log(WLR_INFO, "%s: segment seek failed; restarting with a flushing seek",
			src->base.path);
	}
	if (eos && !src->eos_fallback_logged) {
		src->eos_fallback_logged = true;
		wlr_log(WLR_INFO, "%s: end of stream; looping with flushing seeks", src->base.path);
	}
	if (!seek_to_start(src, GST_SEEK_FLAG_FLUSH)) {
		wlr_log(WLR_ERROR, "%s: cannot seek back to the start; the last frame stays",
			src->base.path);
	}
}

static void handle_message(struct video_source *src, GstMessage *msg) {
	char *message = NULL;
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_ERROR:
		describe_error(src, msg, &message);
		fail(src, message != NULL ? message : "The video can't be played");
		break;
	case GST_MESSAGE_APPLICATION:
		if (gst_message_has_name(msg, "veil-refused")) {
			take_refusal(src, &message);
			fail(src, message != NULL ? message : "The video can't be played");
		}
		break;
	case GST_MESSAGE_WARNING:;
		GError *gerr = NULL;
		gst_message_parse_warning(msg, &gerr, NULL);
		wlr_log(WLR_INFO, "%s: GStreamer warning from %s: %s", src->base.path,
			GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), gerr->message);
		g_clear_error(&gerr);
		break;
	case GST_MESSAGE_SEGMENT_DONE:
		handle_loop_end(src, false);
		break;
	case GST_MESSAGE_EOS:
		handle_loop_end(src, true);
		break;
	case GST_MESSAGE_ELEMENT:
		message = describe_missing(msg);
		if (message != NULL) {
			wlr_log(WLR_INFO, "%s: %s", src->base.path, message);
		}
		break;
	case GST_MESSAGE_CLOCK_LOST:
		/* The standard cure: a new clock is chosen going through PAUSED. */
		if (src->target == GST_STATE_PLAYING) {
			gst_element_set_state(src->pipeline, GST_STATE_PAUSED);
			gst_element_set_state(src->pipeline, GST_STATE_PLAYING);
		}
		break;
	case GST_MESSAGE_LATENCY:
		gst_bin_recalculate_latency(GST_BIN(src->pipeline));
		break;
	default:
		break;
	}
	free(message);
}

static int handle_bus(int fd, uint32_t mask, void *data) {
	struct video_source *src = data;
	/* Pop everything: the fd stays readable while messages are queued. */
	GstMessage *msg;
	while ((msg = gst_bus_pop(src->bus)) != NULL) {
		if (!src->failed) {
			handle_message(src, msg);
		}
		gst_message_unref(msg);
	}
	return 0;
}

/*
 * Compositor thread, at creation: waits (bounded) until the first frame is decoded or the
 * stream fails. Returns 0 or a negative errno with a sentence in *message.
 */
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
			!gst_object_has_as_ancestor(GST_MESSAGE_SRC(msg), GST_OBJECT(src->decodebin))) {
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
	wlr_log(WLR_DEBUG, "%s: not-linked while starting: autoplugging again", src->base.path);
	gst_element_set_state(src->pipeline, GST_STATE_NULL);
	/* The streaming threads are gone: start from nothing. */
	gst_bus_set_flushing(src->bus, TRUE);
	gst_bus_set_flushing(src->bus, FALSE);
	pthread_mutex_lock(&src->lock);
	src->linked = false;
	GstMessage *child_error = src->child_error;
	src->child_error = NULL;
	GstSample *sample = src->mailbox;
	src->mailbox = NULL;
	src->last_buffer = NULL;
	pthread_mutex_unlock(&src->lock);
	if (child_error != NULL) {
		gst_message_unref(child_error);
	}
	if (sample != NULL) {
		gst_sample_unref(sample);
	}
	src->caps_refused = false;
	src->have_segment = false;
	src->end_running_time = 0;
	return gst_element_set_state(src->pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
}

/*
 * An element's error that decodebin did not pass on: lost (see bus_proxy) if the element is
 * still in decodebin, filtered on purpose if decodebin removed the element to try another.
 */
static int check_child_error(struct video_source *src, int *restarts, char **message) {
	pthread_mutex_lock(&src->lock);
	GstMessage *msg = src->child_error;
	src->child_error = NULL;
	pthread_mutex_unlock(&src->lock);
	if (msg == NULL) {
		return 1;
	}
	GstObject *element = GST_MESSAGE_SRC(msg);
	GST_OBJECT_LOCK(element);
	bool plugged = GST_OBJECT_PARENT(element) != NULL;
	GST_OBJECT_UNLOCK(element);
	int ret = 1;
	if (plugged) {
		wlr_log(WLR_DEBUG, "%s: decodebin dropped an error of %s", src->base.path,
			GST_OBJECT_NAME(element));
		if (!restart_after_not_linked(src, msg, restarts)) {
			ret = describe_error(src, msg, message);
		}
	}
	gst_message_unref(msg);
	return ret;
}

static int wait_preroll(struct video_source *src, char **message) {
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
		GstMessage *msg = left > 0 ? gst_bus_timed_pop_filtered(src->bus,
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
			pthread_mutex_lock(&src->lock);
			ret = src->mailbox != NULL ? 0 : 1;
			pthread_mutex_unlock(&src->lock);
			break;
		case GST_MESSAGE_ERROR:
			/* A refusal or a missing plugin is why the stream failed: say that. */
			pthread_mutex_lock(&src->lock);
			bool refused = src->refused_err != 0;
			pthread_mutex_unlock(&src->lock);
			if (refused || src->missing != NULL) {
				ret = take_refusal(src, message);
			} else if (restart_after_not_linked(src, msg, &restarts)) {
				child_deadline = 0;
			} else if (!src_linked(src) && is_missing_plugin_error(msg)) {
				/* Every stream was discarded, none of them for a missing decoder. */
				veil_message_set(message, "The file has no video stream");
				ret = -EINVAL;
			} else {
				ret = describe_error(src, msg, message);
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

static void add_format_list(GstCaps *caps, GstCapsFeatures *features, const char *field,
		GValue *list) {
	if (gst_value_list_get_size(list) == 0) {
		g_value_unset(list);
		if (features != NULL) {
			gst_caps_features_free(features);
		}
		return;
	}
	GstStructure *s = gst_structure_new("video/x-raw",
		"width", GST_TYPE_INT_RANGE, 1, MAX_SIDE,
		"height", GST_TYPE_INT_RANGE, 1, MAX_SIDE,
		NULL);
	if (features != NULL) {
		gst_structure_set(s, "format", G_TYPE_STRING, "DMA_DRM", NULL);
	}
	gst_structure_take_value(s, field, list);
	gst_caps_append_structure_full(caps, s, features);
}

static void append_string(GValue *list, const char *str) {
	GValue value = G_VALUE_INIT;
	g_value_init(&value, G_TYPE_STRING);
	g_value_set_string(&value, str);
	gst_value_list_append_and_take_value(list, &value);
}

/* Opaque formats only: wlroots blends premultiplied alpha, GStreamer's is straight. */
static bool opaque_gst_format(GstVideoFormat format) {
	const GstVideoFormatInfo *info = format != GST_VIDEO_FORMAT_UNKNOWN ?
		gst_video_format_get_info(format) : NULL;
	return info != NULL && !GST_VIDEO_FORMAT_INFO_HAS_ALPHA(info);
}

/*
 * What appsink accepts, best first. A renderer that imports dmabufs gets the decoder's frames as
 * they are (NV12, P010, ... with the renderer's modifiers: the GPU converts them while it
 * samples); with /dev/udmabuf also system-memory frames in formats it imports linearly (the
 * decoder then writes into udmabufs). Last, and for pixman the only one: XRGB8888 in system
 * memory, read through a data pointer.
 */
static GstCaps *build_sink_caps(struct video_source *src, struct wlr_renderer *renderer) {
	GstCaps *caps = gst_caps_new_empty();
	const struct wlr_drm_format_set *dmabuf_formats = renderer != NULL ?
		wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF) : NULL;
	if (dmabuf_formats != NULL && dmabuf_formats->len > 0) {
		GValue drm_formats = G_VALUE_INIT, linear = G_VALUE_INIT;
		g_value_init(&drm_formats, GST_TYPE_LIST);
		g_value_init(&linear, GST_TYPE_LIST);
		for (size_t i = 0; i < dmabuf_formats->len; i++) {
			const struct wlr_drm_format *fmt = &dmabuf_formats->formats[i];
			GstVideoFormat gst_format = gst_video_dma_drm_fourcc_to_format(fmt->format);
			if (!opaque_gst_format(gst_format)) {
				continue;
			}
			for (size_t j = 0; j < fmt->len; j++) {
				uint64_t modifier = fmt->modifiers[j];
				/* GStreamer's DMA_DRM caps name explicit modifiers only. */
				if (modifier == DRM_FORMAT_MOD_INVALID) {
					continue;
				}
				char *str = gst_video_dma_drm_fourcc_to_string(fmt->format, modifier);
				if (str != NULL) {
					append_string(&drm_formats, str);
					g_free(str);
				}
				if (modifier == DRM_FORMAT_MOD_LINEAR && src->udmabuf != NULL) {
					append_string(&linear, gst_video_format_to_string(gst_format));
					uint32_t *formats = realloc(src->linear_formats,
						(src->n_linear_formats + 1) * sizeof(*formats));
					if (formats != NULL) {
						formats[src->n_linear_formats++] = fmt->format;
						src->linear_formats = formats;
					}
				}
			}
		}
		add_format_list(caps, gst_caps_features_new_single(
			GST_CAPS_FEATURE_MEMORY_DMABUF), "drm-format", &drm_formats);
		add_format_list(caps, NULL, "format", &linear);
	}

	/*
	 * BGRx is XRGB8888, which every renderer reads and every display plane scans out;
	 * videoconvert makes it from anything, and costs nothing when the decoder gives it.
	 */
	GValue formats = G_VALUE_INIT;
	g_value_init(&formats, GST_TYPE_LIST);
	append_string(&formats, "BGRx");
	add_format_list(caps, NULL, "format", &formats);
	return caps;
}

/* What the renderer can take, looked at once: its DRM device and whether it imports dmabufs. */
/*
 * For tests only: an allocator used instead of the udmabuf one (a memfd-backed dmabuf allocator,
 * where /dev/udmabuf is missing), so that the pool path runs somewhere. Not in any header.
 */
void veil_video_source_set_test_allocator(GstAllocator *allocator);
static GstAllocator *test_allocator;

void veil_video_source_set_test_allocator(GstAllocator *allocator) {
	gst_object_replace((GstObject **)&test_allocator, GST_OBJECT(allocator));
}

static void inspect_renderer(struct video_source *src, struct wlr_renderer *renderer) {
	if (renderer == NULL) {
		return;
	}
	int drm_fd = wlr_renderer_get_drm_fd(renderer);
	if (drm_fd >= 0) {
		src->render_device = drm_device_of_fd(drm_fd);
	}
	const struct wlr_drm_format_set *formats =
		wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
	if (formats == NULL || formats->len == 0) {
		return;
	}
	/* NULL when /dev/udmabuf can't be opened: frames then stay where decoders put them. */
	src->udmabuf = test_allocator != NULL ? gst_object_ref(test_allocator) :
		gst_udmabuf_allocator_get();
	if (src->udmabuf == NULL) {
		wlr_log(WLR_INFO, "%s: no udmabuf allocator (/dev/udmabuf): system-memory "
			"video frames go to the renderer as data", src->base.path);
	}
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
	wlr_log(WLR_INFO, "%s: %s: reading through fdsrc, looping with flushing seeks",
		src->base.path, pull ? "no /proc/self/fd" : "raw video in its container");
	src->push_mode = true;
	element = gst_element_factory_make("fdsrc", NULL);
	if (element != NULL) {
		/* fdsrc starts where the descriptor is; ours shares the caller's offset. */
		lseek(src->file_fd, 0, SEEK_SET);
		g_object_set(element, "fd", src->file_fd, NULL);
	}
	return element;
}

static int build_pipeline(struct video_source *src, char **message) {
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
	g_signal_connect(src->decodebin, "autoplug-continue",
		G_CALLBACK(handle_autoplug_continue), src);
	g_signal_connect(src->decodebin, "autoplug-sort", G_CALLBACK(handle_autoplug_sort), src);
	g_signal_connect(src->decodebin, "autoplug-select",
		G_CALLBACK(handle_autoplug_select), src);
	g_signal_connect(src->decodebin, "pad-added", G_CALLBACK(handle_pad_added), src);
	g_signal_connect(src->decodebin, "no-more-pads", G_CALLBACK(handle_no_more_pads), src);
	g_signal_connect(src->pipeline, "deep-element-added",
		G_CALLBACK(handle_deep_element_added), src);

	/*
	 * Converting 4K60 to RGB on one core doesn't keep up (measured in the client-daemon days);
	 * the threads idle when videoconvert passes frames through.
	 */
	g_object_set(src->convert, "n-threads", 2, NULL);

	GstCaps *caps = build_sink_caps(src, src->base.ctx->renderer);
	char *caps_str = gst_caps_to_string(caps);
	wlr_log(WLR_DEBUG, "%s: appsink caps %s", src->base.path, caps_str);
	g_free(caps_str);
	/*
	 * sync paces frames at their presentation time; no last-sample and a short queue keep
	 * frames in the decoder's pool; the callbacks pull every frame at once anyway.
	 */
	g_object_set(src->sink, "caps", caps, "sync", TRUE, "max-buffers", 2, "drop", TRUE,
		"enable-last-sample", FALSE, "emit-signals", FALSE, "qos", FALSE, NULL);
	gst_caps_unref(caps);
	GstAppSinkCallbacks callbacks = {
		.new_preroll = handle_new_preroll,
		.new_sample = handle_new_sample,
		.propose_allocation = handle_propose_allocation,
	};
	gst_app_sink_set_callbacks(GST_APP_SINK(src->sink), &callbacks, src, NULL);
	GstPad *sink_pad = gst_element_get_static_pad(src->sink, "sink");
	gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, handle_sink_probe, src, NULL);
	gst_object_unref(sink_pad);

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
	gst_bus_set_sync_handler(src->bus, handle_sync_message, src, NULL);
	return 0;
}

static void update_state(struct video_source *src) {
	if (src->failed || !src->created) {
		return;
	}
	GstState want = src->visible && !src->paused ? GST_STATE_PLAYING : GST_STATE_PAUSED;
	if (want == src->target) {
		return;
	}
	src->target = want;
	/* Asynchronous: PAUSED blocks the streaming thread at the sink, nothing more is decoded. */
	if (gst_element_set_state(src->pipeline, want) == GST_STATE_CHANGE_FAILURE) {
		fail(src, "The video pipeline refused to change state");
	}
}

static void video_source_set_visible(struct veil_source *source, bool visible) {
	struct video_source *src = video_source_from_source(source);
	src->visible = visible;
	update_state(src);
}

static void video_source_set_paused(struct veil_source *source, bool paused) {
	struct video_source *src = video_source_from_source(source);
	src->paused = paused;
	update_state(src);
}

static void video_source_add_status(struct veil_source *source, struct json_object *obj) {
	struct video_source *src = video_source_from_source(source);
	pthread_mutex_lock(&src->lock);
	char *decoder = src->decoder != NULL ? strdup(src->decoder) : NULL;
	bool hw = src->decoder_hw;
	uint64_t dropped = src->dropped;
	pthread_mutex_unlock(&src->lock);

	json_object_object_add(obj, "decoder",
		decoder != NULL ? json_object_new_string(decoder) : NULL);
	json_object_object_add(obj, "hardware", json_object_new_boolean(hw));
	json_object_object_add(obj, "frames", json_object_new_int64((int64_t)src->frames));
	json_object_object_add(obj, "dropped", json_object_new_int64((int64_t)dropped));
	json_object_object_add(obj, "loops", json_object_new_int64((int64_t)src->loops));
	json_object_object_add(obj, "wakeups", json_object_new_int64((int64_t)src->wakeups));
	json_object_object_add(obj, "state", json_object_new_string(src->failed ? "stopped" :
		src->target == GST_STATE_PLAYING ? "playing" : "paused"));
	json_object_object_add(obj, "pipeline",
		json_object_new_string(GST_OBJECT_NAME(src->pipeline)));
	if (src->caps != NULL) {
		char *format = src->format.dma_drm ?
			gst_video_dma_drm_fourcc_to_string(src->format.drm_format,
				src->format.modifier) :
			g_strdup(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&src->format.info)));
		json_object_object_add(obj, "format", json_object_new_string(format));
		g_free(format);
	}
	free(decoder);
}

/*
 * veil_source_unref has released the frame, path and error. Also undoes a creation that failed
 * half-way: every field is checked.
 */
static void video_source_destroy(struct veil_source *source) {
	struct video_source *src = video_source_from_source(source);
	/* NULL first: it joins the streaming threads, nothing touches src after it. */
	if (src->pipeline != NULL) {
		gst_element_set_state(src->pipeline, GST_STATE_NULL);
	}
	if (src->wake_source != NULL) {
		wl_event_source_remove(src->wake_source);
	}
	if (src->bus_source != NULL) {
		wl_event_source_remove(src->bus_source);
	}
	if (src->wake_fd >= 0) {
		close(src->wake_fd);
	}
	if (src->bus != NULL) {
		gst_bus_set_flushing(src->bus, TRUE); /* frees what is queued */
		gst_object_unref(src->bus);
	}
	if (src->pipeline != NULL) {
		gst_object_unref(src->pipeline);
	}
	if (src->task_pool != NULL) {
		gst_object_unref(src->task_pool);
	}
	if (src->file_fd >= 0) {
		close(src->file_fd);
	}
	if (src->mailbox != NULL) {
		gst_sample_unref(src->mailbox);
	}
	if (src->child_error != NULL) {
		gst_message_unref(src->child_error);
	}
	if (src->pool != NULL) {
		if (src->pool_activated) {
			gst_buffer_pool_set_active(src->pool, FALSE);
		}
		gst_object_unref(src->pool);
		gst_caps_unref(src->pool_caps);
	}
	if (src->udmabuf != NULL) {
		gst_object_unref(src->udmabuf);
	}
	if (src->caps != NULL) {
		gst_caps_unref(src->caps);
	}
	free(src->linear_formats);
	free(src->render_device);
	free(src->refused);
	free(src->decoder);
	free(src->missing);
	pthread_mutex_destroy(&src->lock);
	free(src);
	/*
	 * GStreamer also runs short jobs (gst_element_call_async) on GLib's shared pool, which keeps
	 * idle threads 15 s: end the idle ones now; whoever needs one again gets a new one.
	 */
	g_thread_pool_stop_unused_threads();
#ifdef __GLIBC__
	/*
	 * The decoder's threads freed their frames into glibc arenas of their own, which keep
	 * them (tens of MiB after a 1080p pipeline, measured in the switch soak): give the free
	 * pages back. Once per video closed, and the walk is short.
	 */
	malloc_trim(0);
#endif
}

static const struct veil_source_impl video_source_impl = {
	.kind = VEIL_SOURCE_VIDEO,
	.destroy = video_source_destroy,
	.set_visible = video_source_set_visible,
	.set_paused = video_source_set_paused,
	.add_status = video_source_add_status,
	.set_frame_owed = video_source_set_frame_owed,
	.frame_event = video_source_frame_event,
};

struct veil_source *veil_video_source_create(struct veil_source_context *ctx, int fd,
		char *path, const struct stat *st, int *err, char **message) {
	*err = 0;
	*message = NULL;
	if (!init_gstreamer(message)) {
		*err = -ENOTSUP;
		free(path);
		return NULL;
	}
	struct video_source *src = calloc(1, sizeof(*src));
	if (src == NULL) {
		*err = -ENOMEM;
		veil_message_set(message, "Out of memory");
		free(path);
		return NULL;
	}
	/* Nothing looks at the registry before this returns; a failure unlinks the source again. */
	veil_source_init(&src->base, &video_source_impl, ctx, path, st);
	src->file_fd = -1;
	src->wake_fd = -1;
	src->target = GST_STATE_PAUSED;
	pthread_mutex_init(&src->lock, NULL);

	int ret;
	src->file_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	src->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (src->file_fd < 0 || src->wake_fd < 0) {
		ret = -errno;
		veil_message_set(message, "Cannot open the video: %s", strerror(errno));
		goto error;
	}
	inspect_renderer(src, ctx->renderer);
	ret = build_pipeline(src, message);
	if (ret < 0) {
		goto error;
	}

	/* PAUSED prerolls: the first frame is decoded, or the stream fails, before we return. */
	if (gst_element_set_state(src->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		/* The element that failed has posted why. */
		ret = wait_preroll(src, message);
		if (ret == 0) {
			ret = -EINVAL;
			veil_message_set(message, "The video pipeline cannot start");
		}
		goto error;
	}
	ret = wait_preroll(src, message);
	if (ret < 0) {
		goto error;
	}
	/* The frame is taken here; the wake-up the streaming thread wrote is stale. */
	read_wake(src);
	ret = take_frame(src, message);
	if (ret < 0) {
		goto error;
	}
	if (src->base.frame == NULL) {
		ret = -EINVAL;
		veil_message_set(message, "The video gave no frame");
		goto error;
	}

	src->wake_source = wl_event_loop_add_fd(ctx->loop, src->wake_fd, WL_EVENT_READABLE,
		handle_wake, src);
	GPollFD pollfd;
	gst_bus_get_pollfd(src->bus, &pollfd);
	src->bus_source = wl_event_loop_add_fd(ctx->loop, pollfd.fd, WL_EVENT_READABLE,
		handle_bus, src);
	if (src->wake_source == NULL || src->bus_source == NULL) {
		ret = -ENOMEM;
		veil_message_set(message, "Cannot watch the video pipeline");
		goto error;
	}

	log_decoder(src);
	if (src->logged_decoder_serial == 0) {
		wlr_log(WLR_INFO, "%s: video decoder: none (raw video)", path);
	}
	start_looping(src);
	src->created = true;
	wlr_log(WLR_INFO, "%s: %dx%d video, pipeline %s", path, src->base.width, src->base.height,
		GST_OBJECT_NAME(src->pipeline));
	/* Decoding starts when an output shows it (set_visible). */
	return &src->base;

error:
	wlr_log(WLR_DEBUG, "%s: %s", path, *message != NULL ? *message : "cannot open");
	*err = ret < 0 ? ret : -EINVAL;
	wl_list_remove(&src->base.link);
	wlr_buffer_unlock(src->base.frame);
	free(src->base.path);
	free(src->base.error);
	video_source_destroy(&src->base);
	return NULL;
}
