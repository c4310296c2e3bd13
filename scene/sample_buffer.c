#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/util/log.h>
#include "decode/video/colour_space.h"
#include "scene/sample_buffer.h"
#include "util/message.h"

/*
 * Ownership: the buffer holds one reference on sample. That reference keeps the GstBuffer and
 * its memories alive, and with them the dmabuf fds in dmabuf (borrowed from the memories: never
 * dup'ed, never closed here). frame is a read mapping of the same GstBuffer, made at most once
 * (at creation for system memory, at the first data pointer access for a dmabuf) and undone in
 * destroy. destroy runs on the compositor thread once the producer has dropped the buffer and the
 * last consumer (scene node, texture, scanout) has unlocked it; unreffing the sample there gives
 * the GstBuffer back to its pool, where the decoder reuses it.
 */
struct sample_buffer {
	struct wlr_buffer base;
	GstSample *sample;
	struct veil_sample_format fmt;

	bool has_dmabuf;
	struct wlr_dmabuf_attributes dmabuf;

	GstVideoFrame frame;
	bool mapped, map_failed;
};

static const struct wlr_buffer_impl sample_buffer_impl;

bool veil_sample_buffer_is(struct wlr_buffer *wlr_buffer) {
	return wlr_buffer->impl == &sample_buffer_impl;
}

static struct sample_buffer *sample_buffer_from_buffer(struct wlr_buffer *wlr_buffer) {
	assert(wlr_buffer->impl == &sample_buffer_impl);
	struct sample_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	return buffer;
}

bool veil_sample_buffer_get_colour_space(struct wlr_buffer *wlr_buffer,
		struct veil_colour_space *space, bool *yuv) {
	if (!veil_sample_buffer_is(wlr_buffer)) {
		return false;
	}
	const GstVideoInfo *info = &sample_buffer_from_buffer(wlr_buffer)->fmt.info;
	veil_colour_space_from_info(info, space);
	*yuv = GST_VIDEO_INFO_IS_YUV(info);
	return true;
}

GstSample *veil_sample_buffer_get_sample(struct wlr_buffer *wlr_buffer) {
	return sample_buffer_from_buffer(wlr_buffer)->sample;
}

/*
 * Single-plane RGB formats without alpha that wlroots reads through a data pointer (pixman takes
 * all of them; GPU renderers take the ones they list for WLR_BUFFER_CAP_DATA_PTR). DRM formats
 * are little-endian; the 16- and 30-bit ones have no big-endian equivalent.
 */
static bool is_data_ptr_format(uint32_t drm_format) {
	switch (drm_format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_RGBX8888:
	case DRM_FORMAT_BGRX8888:
		return true;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_BGR565:
	case DRM_FORMAT_XRGB2101010:
	case DRM_FORMAT_XBGR2101010:
		return true;
#endif
	default:
		return false;
	}
}

int veil_sample_format_from_caps(struct veil_sample_format *fmt, const GstCaps *caps,
		char **why) {
	*fmt = (struct veil_sample_format){0};
	if (why != NULL) {
		*why = NULL;
	}

	GstStructure *s = caps != NULL && gst_caps_get_size(caps) == 1 ?
		gst_caps_get_structure(caps, 0) : NULL;
	if (s == NULL || !gst_structure_has_name(s, "video/x-raw") || !gst_caps_is_fixed(caps)) {
		if (why != NULL) {
			char *str = caps != NULL ? gst_caps_to_string(caps) : NULL;
			*why = veil_message("caps %s are not one fixed raw video format",
				str != NULL ? str : "(none)");
			g_free(str);
		}
		return -ENOTSUP;
	}

	GstVideoFormat gst_format;
	if (gst_video_is_dma_drm_caps(caps)) {
		GstVideoInfoDmaDrm drm_info;
		if (!gst_video_info_dma_drm_from_caps(&drm_info, caps)) {
			goto invalid;
		}
		fmt->dma_drm = true;
		fmt->drm_format = drm_info.drm_fourcc;
		fmt->modifier = drm_info.drm_modifier;
		/*
		 * A GstVideoInfo with a real format gives the default layout of linear frames;
		 * other modifiers keep format DMA_DRM and need a GstVideoMeta on every frame.
		 */
		if (!gst_video_info_dma_drm_to_video_info(&drm_info, &fmt->info)) {
			fmt->info = drm_info.vinfo;
		}
		gst_format = gst_video_dma_drm_fourcc_to_format(drm_info.drm_fourcc);
	} else {
		if (!gst_video_info_from_caps(&fmt->info, caps)) {
			goto invalid;
		}
		gst_format = GST_VIDEO_INFO_FORMAT(&fmt->info);
		/* Plain caps (system memory or memory:DMABuf without DMA_DRM) mean linear. */
		fmt->drm_format = gst_video_dma_drm_fourcc_from_format(gst_format);
		fmt->modifier = DRM_FORMAT_MOD_LINEAR;
	}
	fmt->width = GST_VIDEO_INFO_WIDTH(&fmt->info);
	fmt->height = GST_VIDEO_INFO_HEIGHT(&fmt->info);
	if (fmt->width <= 0 || fmt->height <= 0) {
		goto invalid;
	}

	const GstVideoFormatInfo *finfo = gst_format != GST_VIDEO_FORMAT_UNKNOWN ?
		gst_video_format_get_info(gst_format) : NULL;
	if (fmt->drm_format == DRM_FORMAT_INVALID || finfo == NULL) {
		if (why != NULL) {
			char *str = gst_caps_to_string(caps);
			*why = veil_message("the video format of %s has no DRM equivalent", str);
			g_free(str);
		}
		return -ENOTSUP;
	}
	if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA(finfo)) {
		/*
		 * wlroots blends premultiplied alpha; GStreamer's is straight. Video is negotiated
		 * to opaque formats, so refusing is honest and costs nothing.
		 */
		if (why != NULL) {
			*why = veil_message("video format %s has an alpha channel",
				gst_video_format_to_string(gst_format));
		}
		return -ENOTSUP;
	}
	fmt->opaque = true;
	fmt->data_ptr = is_data_ptr_format(fmt->drm_format) &&
		fmt->modifier == DRM_FORMAT_MOD_LINEAR &&
		GST_VIDEO_INFO_FORMAT(&fmt->info) != GST_VIDEO_FORMAT_DMA_DRM;
	return 0;

invalid:
	if (why != NULL) {
		char *str = gst_caps_to_string(caps);
		*why = veil_message("invalid video caps %s", str);
		g_free(str);
	}
	return -EINVAL;
}

static void sample_buffer_destroy(struct wlr_buffer *wlr_buffer) {
	struct sample_buffer *buffer = sample_buffer_from_buffer(wlr_buffer);
	wlr_buffer_finish(wlr_buffer);
	if (buffer->mapped) {
		gst_video_frame_unmap(&buffer->frame);
	}
	gst_sample_unref(buffer->sample);
	free(buffer);
}

static bool map_frame(struct sample_buffer *buffer) {
	if (buffer->mapped) {
		return true;
	}
	if (buffer->map_failed) {
		return false;
	}
	GstBuffer *gst_buffer = gst_sample_get_buffer(buffer->sample);
	if (!gst_video_frame_map(&buffer->frame, &buffer->fmt.info, gst_buffer, GST_MAP_READ)) {
		buffer->map_failed = true;
		return false;
	}
	buffer->mapped = true;
	return true;
}

static bool sample_buffer_get_dmabuf(struct wlr_buffer *wlr_buffer,
		struct wlr_dmabuf_attributes *attribs) {
	struct sample_buffer *buffer = sample_buffer_from_buffer(wlr_buffer);
	if (!buffer->has_dmabuf) {
		return false;
	}
	*attribs = buffer->dmabuf;
	return true;
}

static bool sample_buffer_begin_data_ptr_access(struct wlr_buffer *wlr_buffer, uint32_t flags,
		void **data, uint32_t *format, size_t *stride) {
	struct sample_buffer *buffer = sample_buffer_from_buffer(wlr_buffer);
	/* Decoded frames are shared with the decoder's pool and other consumers. */
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) {
		return false;
	}
	if (!buffer->fmt.data_ptr || !map_frame(buffer)) {
		return false;
	}
	*data = GST_VIDEO_FRAME_PLANE_DATA(&buffer->frame, 0);
	*format = buffer->fmt.drm_format;
	*stride = GST_VIDEO_FRAME_PLANE_STRIDE(&buffer->frame, 0);
	return true;
}

static void sample_buffer_end_data_ptr_access(struct wlr_buffer *wlr_buffer) {
	/* The mapping lives as long as the buffer: nothing to undo per access. */
}

static const struct wlr_buffer_impl sample_buffer_impl = {
	.destroy = sample_buffer_destroy,
	.get_dmabuf = sample_buffer_get_dmabuf,
	.begin_data_ptr_access = sample_buffer_begin_data_ptr_access,
	.end_data_ptr_access = sample_buffer_end_data_ptr_access,
};

/*
 * Per plane: the dmabuf memory holding the plane's first byte, and where that byte is in the
 * memory's fd. Offsets and strides come from the GstVideoMeta when there is one (decoders pad
 * and align planes), else from the default layout of the caps.
 */
static bool fill_dmabuf(struct sample_buffer *buffer) {
	GstBuffer *gst_buffer = gst_sample_get_buffer(buffer->sample);
	const struct veil_sample_format *fmt = &buffer->fmt;
	GstVideoMeta *meta = gst_buffer_get_video_meta(gst_buffer);

	int n_planes;
	if (meta != NULL) {
		n_planes = meta->n_planes;
	} else if (GST_VIDEO_INFO_FORMAT(&fmt->info) != GST_VIDEO_FORMAT_DMA_DRM) {
		n_planes = GST_VIDEO_INFO_N_PLANES(&fmt->info);
	} else {
		wlr_log(WLR_ERROR, "veil: dmabuf frame with modifier 0x%" PRIx64 " has no video meta",
			fmt->modifier);
		return false;
	}
	if (n_planes <= 0 || n_planes > WLR_DMABUF_MAX_PLANES) {
		wlr_log(WLR_ERROR, "veil: dmabuf frame has %d planes", n_planes);
		return false;
	}

	struct wlr_dmabuf_attributes *attribs = &buffer->dmabuf;
	*attribs = (struct wlr_dmabuf_attributes){
		.width = fmt->width,
		.height = fmt->height,
		.format = fmt->drm_format,
		.modifier = fmt->modifier,
		.n_planes = n_planes,
	};
	for (int i = 0; i < n_planes; i++) {
		gsize offset = meta != NULL ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(&fmt->info, i);
		gint stride = meta != NULL ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(&fmt->info, i);
		guint idx, len;
		gsize skip;
		if (!gst_buffer_find_memory(gst_buffer, offset, 1, &idx, &len, &skip)) {
			wlr_log(WLR_ERROR, "veil: dmabuf frame: plane %d at %zu is outside the buffer",
				i, (size_t)offset);
			return false;
		}
		GstMemory *mem = gst_buffer_peek_memory(gst_buffer, idx);
		if (!gst_is_dmabuf_memory(mem)) {
			wlr_log(WLR_ERROR, "veil: dmabuf frame: plane %d is not in dmabuf memory", i);
			return false;
		}
		gsize fd_offset = mem->offset + skip;
		if (stride <= 0 || fd_offset > UINT32_MAX) {
			wlr_log(WLR_ERROR, "veil: dmabuf frame: plane %d has offset %zu, stride %d",
				i, (size_t)fd_offset, stride);
			return false;
		}
		attribs->fd[i] = gst_dmabuf_memory_get_fd(mem);
		attribs->offset[i] = fd_offset;
		attribs->stride[i] = stride;
	}
	return true;
}

struct wlr_buffer *veil_sample_buffer_create_with_format(GstSample *sample,
		const struct veil_sample_format *fmt) {
	GstBuffer *gst_buffer = gst_sample_get_buffer(sample);
	if (gst_buffer == NULL || gst_buffer_n_memory(gst_buffer) == 0) {
		wlr_log(WLR_ERROR, "veil: video sample has no buffer");
		return NULL;
	}

	struct sample_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		wlr_log_errno(WLR_ERROR, "veil: allocation failed");
		return NULL;
	}
	buffer->sample = gst_sample_ref(sample);
	buffer->fmt = *fmt;

	if (gst_is_dmabuf_memory(gst_buffer_peek_memory(gst_buffer, 0))) {
		buffer->has_dmabuf = fill_dmabuf(buffer);
	}
	/*
	 * A dmabuf is mapped only if a consumer asks for its data pointer (a GPU renderer imports
	 * it instead); system memory is mapped now, so that an unmappable frame is refused here
	 * rather than failing in the renderer.
	 */
	if (!buffer->has_dmabuf && (!fmt->data_ptr || !map_frame(buffer))) {
		wlr_log(WLR_ERROR, "veil: video frame (%s, %s memory) can't be handed to wlroots",
			gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&fmt->info)),
			gst_is_dmabuf_memory(gst_buffer_peek_memory(gst_buffer, 0)) ?
				"dmabuf" : "system");
		gst_sample_unref(buffer->sample);
		free(buffer);
		return NULL;
	}

	wlr_buffer_init(&buffer->base, &sample_buffer_impl, fmt->width, fmt->height);
	return &buffer->base;
}

struct wlr_buffer *veil_sample_buffer_create(GstSample *sample) {
	struct veil_sample_format fmt;
	char *why = NULL;
	if (veil_sample_format_from_caps(&fmt, gst_sample_get_caps(sample), &why) < 0) {
		wlr_log(WLR_ERROR, "veil: video frame refused: %s", why != NULL ? why : "out of memory");
		free(why);
		return NULL;
	}
	return veil_sample_buffer_create_with_format(sample, &fmt);
}
