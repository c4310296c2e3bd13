/*
 * A wlr_buffer backed by a decoded video frame (a GstSample), without copying it: system memory
 * is read through a data pointer (pixman renders from it, a GPU renderer uploads it), DMABuf
 * memory is handed to the renderer as dmabuf attributes (a GPU renderer imports it).
 */
#ifndef VEIL_SCENE_SAMPLE_BUFFER_H
#define VEIL_SCENE_SAMPLE_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include "scene/compat.h"

struct wlr_buffer;

/*
 * How the frames of one set of caps are handed to wlroots. Parsing caps costs more than wrapping
 * a frame, so a producer parses them once per caps change and wraps every frame with them.
 */
struct veil_sample_format {
	/*
	 * Layout of system-memory frames and the default layout of linear dmabufs; its colorimetry
	 * (matrix, range) is what a YUV dmabuf needs on wlroots 0.20's scene buffers.
	 */
	GstVideoInfo info;
	int width, height;
	uint32_t drm_format; /* DRM fourcc, DRM_FORMAT_INVALID when it has none */
	uint64_t modifier; /* DRM_FORMAT_MOD_LINEAR unless DMA_DRM caps say otherwise */
	bool dma_drm; /* video/x-raw(memory:DMABuf), format=DMA_DRM */
	/* drm_format is a single-plane RGB format wlroots reads through a data pointer. */
	bool data_ptr;
	/* Every pixel is opaque (no alpha channel). */
	bool opaque;
};

/*
 * Fills fmt from caps. Returns 0, or -ENOTSUP with a malloc()ed sentence in *why (when why is not
 * NULL) for caps no wlroots renderer can take as they are: not raw video, a format with alpha
 * (wlroots wants premultiplied alpha, GStreamer's is straight), or one with no DRM equivalent.
 */
int veil_sample_format_from_caps(struct veil_sample_format *fmt, const GstCaps *caps,
	char **why);

/*
 * Wraps a frame; takes a reference of its own on sample. Returns NULL when the frame can't be
 * handed to wlroots (see veil_sample_format_from_caps, or memory that is neither mappable system
 * memory nor DMABuf). The caller owns the returned buffer: lock it where needed, then
 * wlr_buffer_drop() it.
 */
struct wlr_buffer *veil_sample_buffer_create(GstSample *sample);
/* The same with caps already parsed; fmt is copied, it must describe the sample's caps. */
struct wlr_buffer *veil_sample_buffer_create_with_format(GstSample *sample,
	const struct veil_sample_format *fmt);

bool veil_sample_buffer_is(struct wlr_buffer *buffer);
/*
 * Whether buffer is a video frame of these, and then its colour space and whether it is YUV (a
 * dmabuf: system-memory YUV is never wrapped), for the renderer's conversion.
 */
bool veil_sample_buffer_get_colour_space(struct wlr_buffer *buffer,
	struct veil_colour_space *space, bool *yuv);
/* The sample behind a sample buffer (not a new reference). */
GstSample *veil_sample_buffer_get_sample(struct wlr_buffer *buffer);

#endif
