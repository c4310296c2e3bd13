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
