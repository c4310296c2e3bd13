#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <gst/allocators/allocators.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/util/log.h>
#include "decode/video/hardware.h"
#include "source/video/video.h"
#include "util/message.h"

/*
 * What the renderer takes: appsink's caps, the dmabuf formats a udmabuf pool may hold, and the
 * GPU the VA decoders must run on (the choice itself is the player's, player.c).
 */

static char *drm_device_of_fd(int fd) {
	struct stat st;
	return fstat(fd, &st) == 0 ? veil_hardware_drm_device(&st) : NULL;
}

/* Once per decoder: decodebin may replace one. */
void veil_video_log_decoder(struct video_source *src) {
	pthread_mutex_lock(&src->player.lock);
	bool changed = src->player.decoder_serial != src->logged_decoder_serial;
	src->logged_decoder_serial = src->player.decoder_serial;
	char *name = changed && src->player.decoder != NULL ? strdup(src->player.decoder) : NULL;
	bool hw = src->player.decoder_hw;
	pthread_mutex_unlock(&src->player.lock);
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
		"width", GST_TYPE_INT_RANGE, 1, VEIL_VIDEO_MAX_SIDE,
		"height", GST_TYPE_INT_RANGE, 1, VEIL_VIDEO_MAX_SIDE,
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
