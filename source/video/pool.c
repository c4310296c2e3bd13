#include <stdint.h>
#include <gst/allocators/allocators.h>
#include <wlr/util/log.h>
#include "source/video/video.h"

/*
 * Frames veil keeps out of the decoder's pool at once: the mailbox, the source's frame and what
 * the renderer still reads (texture, scanout).
 */
#define HELD_FRAMES 3

static bool contains_format(const uint32_t *formats, size_t n, uint32_t drm_format) {
	for (size_t i = 0; i < n; i++) {
		if (formats[i] == drm_format) {
			return true;
		}
	}
	return false;
}

static void drop_pool(struct veil_video_pool *pool) {
	if (pool->pool == NULL) {
		return;
	}
	if (pool->activated) {
		gst_buffer_pool_set_active(pool->pool, FALSE);
	}
	gst_object_unref(pool->pool);
	gst_caps_unref(pool->caps);
	pool->pool = NULL;
	pool->caps = NULL;
	pool->activated = false;
}

/*
 * A pool of dmabuf memory from allocator for frames of caps, when they are in system memory and
 * in a format the renderer imports linearly; NULL otherwise. Fills info.
 */
static GstBufferPool *make_pool(GstAllocator *allocator, const uint32_t *linear_formats,
		size_t n_linear_formats, GstCaps *caps, GstVideoInfo *info, const char *name) {
	if (allocator == NULL || caps == NULL || gst_caps_get_size(caps) != 1) {
		return NULL;
	}
	GstCapsFeatures *features = gst_caps_get_features(caps, 0);
	if (features != NULL && !gst_caps_features_is_equal(features,
			GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) {
		return NULL;
	}
	if (!gst_video_info_from_caps(info, caps)) {
		return NULL;
	}
	uint32_t drm_format = gst_video_dma_drm_fourcc_from_format(GST_VIDEO_INFO_FORMAT(info));
	if (!contains_format(linear_formats, n_linear_formats, drm_format)) {
		return NULL;
	}
	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	GstAllocationParams params;
	gst_allocation_params_init(&params);
	gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(info), HELD_FRAMES, 0);
	gst_buffer_pool_config_set_allocator(config, allocator, &params);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		wlr_log(WLR_ERROR, "veil: %s: udmabuf pool refused its configuration", name);
		gst_object_unref(pool);
		return NULL;
	}
	return pool;
}

/* The pool for frames of caps from now on, replacing the one for the caps before. */
static void set_pool(struct veil_video_pool *pool, GstBufferPool *new_pool, GstCaps *caps,
		const GstVideoInfo *info) {
	/* The previous pool belongs to the caps before: the decoder has let go of it. */
	drop_pool(pool);
	pool->pool = new_pool;
	pool->caps = gst_caps_ref(caps);
	pool->info = *info;
}

/*
 * Frames in system memory that the renderer imports as dmabufs: the decoder writes where the GPU
 * reads. Without /dev/udmabuf, allocator is NULL and this steps aside.
 */
void veil_video_pool_offer(struct veil_video_pool *pool, GstAllocator *allocator,
		const uint32_t *linear_formats, size_t n_linear_formats, GstQuery *query,
		const char *name) {
	GstCaps *caps = NULL;
	gboolean need_pool = FALSE;
	gst_query_parse_allocation(query, &caps, &need_pool);
	GstVideoInfo info;
	GstBufferPool *new_pool = make_pool(allocator, linear_formats, n_linear_formats, caps,
		&info, name);
	if (new_pool == NULL) {
		return;
	}
	GstAllocationParams params;
	gst_allocation_params_init(&params);
	gst_query_add_allocation_pool(query, new_pool, GST_VIDEO_INFO_SIZE(&info), HELD_FRAMES,
		0);
	gst_query_add_allocation_param(query, allocator, &params);
	set_pool(pool, new_pool, caps, &info);
	wlr_log(WLR_DEBUG, "veil: %s: offered a udmabuf pool for %s", name,
		gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
}

/*
 * A system-memory frame in a format only a dmabuf carries to the renderer (a decoder that didn't
 * use the pool we offered): one copy into a udmabuf of that pool.
 */
GstSample *veil_video_pool_upload(struct veil_video_pool *pool, GstAllocator *allocator,
		const uint32_t *linear_formats, size_t n_linear_formats, GstSample *sample,
		const char *name, bool *copied_out) {
	*copied_out = false;
	GstBuffer *in = gst_sample_get_buffer(sample);
	GstCaps *caps = gst_sample_get_caps(sample);
	/*
	 * Frames whose element asked for no allocation (raw video straight from its demuxer) or
	 * for other caps than theirs: a pool for their caps, which only veil writes into.
	 */
	if (in != NULL && caps != NULL && gst_buffer_n_memory(in) > 0 &&
			!gst_is_dmabuf_memory(gst_buffer_peek_memory(in, 0)) &&
			(pool->caps == NULL || !gst_caps_is_equal(caps, pool->caps))) {
		GstVideoInfo info;
		GstBufferPool *new_pool = make_pool(allocator, linear_formats, n_linear_formats,
			caps, &info, name);
		if (new_pool != NULL) {
			set_pool(pool, new_pool, caps, &info);
		}
	}
	/* Single-plane RGB reaches the renderer as data just as well. */
	if (pool->pool == NULL || in == NULL || caps == NULL ||
			GST_VIDEO_INFO_IS_RGB(&pool->info) ||
			gst_is_dmabuf_memory(gst_buffer_peek_memory(in, 0)) ||
			!gst_caps_is_equal(caps, pool->caps)) {
		return sample;
	}
	if (!gst_buffer_pool_is_active(pool->pool)) {
		if (!gst_buffer_pool_set_active(pool->pool, TRUE)) {
			wlr_log(WLR_ERROR, "veil: %s: cannot activate the udmabuf pool", name);
			return sample;
		}
		pool->activated = true;
	}
	GstBuffer *out = NULL;
	if (gst_buffer_pool_acquire_buffer(pool->pool, &out, NULL) != GST_FLOW_OK) {
		return sample;
	}
	GstVideoFrame in_frame, out_frame;
	bool copied = false;
	if (gst_video_frame_map(&in_frame, &pool->info, in, GST_MAP_READ)) {
		if (gst_video_frame_map(&out_frame, &pool->info, out, GST_MAP_WRITE)) {
			copied = gst_video_frame_copy(&out_frame, &in_frame);
			gst_video_frame_unmap(&out_frame);
		}
		gst_video_frame_unmap(&in_frame);
	}
	if (!copied) {
		gst_buffer_unref(out);
		return sample;
	}
	if (!pool->logged_upload) {
		pool->logged_upload = true;
		wlr_log(WLR_INFO, "veil: %s: the decoder doesn't write into the udmabuf pool: one copy "
			"a frame", name);
	}
	gst_buffer_copy_into(out, in, GST_BUFFER_COPY_TIMESTAMPS, 0, (gsize)-1);
	GstSample *uploaded = gst_sample_new(out, caps, gst_sample_get_segment(sample), NULL);
	gst_buffer_unref(out);
	gst_sample_unref(sample);
	*copied_out = true;
	return uploaded;
}

void veil_video_pool_finish(struct veil_video_pool *pool) {
	drop_pool(pool);
}

gboolean veil_video_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data) {
	struct video_source *src = data;
	veil_video_pool_offer(&src->pool, src->udmabuf, src->linear_formats,
		src->n_linear_formats, query, src->name);
	return TRUE;
}
