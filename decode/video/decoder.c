#define _XOPEN_SOURCE 700 /* realpath */
#include <drm_fourcc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <gst/allocators/allocators.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/util/log.h>
#include "decode/video/choose.h"
#include "decode/video/video.h"
#include "util/message.h"

/*
 * Which decoder decodes, and into what: hardware decoders first, VA ones only on the renderer's
 * GPU, frames in what the renderer takes.
 */

/* decodebin's GstAutoplugSelectResult; the enum is not in the installed headers. */
enum autoplug_select_result {
	AUTOPLUG_SELECT_TRY = 0,
	AUTOPLUG_SELECT_EXPOSE = 1,
	AUTOPLUG_SELECT_SKIP = 2,
};

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

static const char *factory_klass(GstElementFactory *factory) {
	return gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
}

static bool is_hardware_decoder(GstElementFactory *factory) {
	return veil_decoder_is_hardware(GST_OBJECT_NAME(factory), factory_klass(factory));
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

/* Streaming thread. Caps of any video stream (coded or raw) that give a size are checked. */
bool veil_video_check_size(struct video_source *src, const GstCaps *caps) {
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
	veil_video_refuse(src, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d", width,
		height, MAX_SIDE, MAX_SIDE));
	return false;
}

/* decodebin, streaming thread: before a pad is plugged further. */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct video_source *src = data;
	/* A parser's caps give the coded size: refuse before a decoder allocates anything. */
	return veil_video_check_size(src, caps);
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

/* decodebin, streaming thread: a factory is about to be tried. */
static int handle_autoplug_select(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GstElementFactory *factory, gpointer data) {
	struct video_source *src = data;
	struct veil_decoder_candidate candidate = {
		.name = GST_OBJECT_NAME(factory),
		.klass = factory_klass(factory),
	};
	if (veil_decoder_family(candidate.name, candidate.klass) != VEIL_DECODER_VA) {
		return AUTOPLUG_SELECT_TRY;
	}
	char *path = va_device_path(factory);
	char *device = path != NULL ? drm_device_of_path(path) : NULL;
	candidate.device_path = path;
	candidate.device = device;
	char *why = veil_decoder_skip_reason(&candidate, src->render_device);
	free(device);
	g_free(path);
	if (why == NULL) {
		return AUTOPLUG_SELECT_TRY;
	}
	wlr_log(WLR_INFO, "veil: %s: video decoder %s skipped: %s", src->name,
		GST_OBJECT_NAME(factory), why);
	free(why);
	return AUTOPLUG_SELECT_SKIP;
}


/* Once per decoder: decodebin may replace one. */
void veil_video_log_decoder(struct video_source *src) {
	pthread_mutex_lock(&src->lock);
	bool changed = src->decoder_serial != src->logged_decoder_serial;
	src->logged_decoder_serial = src->decoder_serial;
	char *name = changed && src->decoder != NULL ? strdup(src->decoder) : NULL;
	bool hw = src->decoder_hw;
	pthread_mutex_unlock(&src->lock);
	if (name != NULL) {
		wlr_log(WLR_INFO, "veil: %s: video decoder: %s (%s)", src->name, name,
			hw ? "hardware" : "software");
		free(name);
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


void veil_video_inspect_renderer(struct video_source *src, struct wlr_renderer *renderer,
		GstAllocator *udmabuf) {
	const struct wlr_drm_format_set *formats = renderer != NULL ?
		wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF) : NULL;
	if (formats != NULL && formats->len > 0) {
		/* NULL when /dev/udmabuf can't be opened: frames then stay where decoders put them. */
		src->udmabuf = udmabuf != NULL ? gst_object_ref(udmabuf) : NULL;
		if (src->udmabuf == NULL) {
			wlr_log(WLR_INFO, "veil: %s: no udmabuf allocator (/dev/udmabuf): system-memory "
				"video frames go to the renderer as data", src->name);
		}
	}
	int drm_fd = renderer != NULL ? wlr_renderer_get_drm_fd(renderer) : -1;
	if (drm_fd >= 0) {
		src->render_device = drm_device_of_fd(drm_fd);
	}
	src->sink_caps = build_sink_caps(src, renderer);
	char *caps_str = gst_caps_to_string(src->sink_caps);
	wlr_log(WLR_DEBUG, "veil: %s: appsink caps %s", src->name, caps_str);
	g_free(caps_str);
}

void veil_video_choose_decoders(struct video_source *src) {
	g_signal_connect(src->decodebin, "autoplug-continue",
		G_CALLBACK(handle_autoplug_continue), src);
	g_signal_connect(src->decodebin, "autoplug-sort", G_CALLBACK(handle_autoplug_sort), src);
	g_signal_connect(src->decodebin, "autoplug-select",
		G_CALLBACK(handle_autoplug_select), src);
}

void veil_video_note_decoder(struct video_source *src, GstElement *element) {
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
