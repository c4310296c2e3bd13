#define _GNU_SOURCE /* F_GET_SEALS, F_ADD_SEALS */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "helper/remote_allocator.h"
#include "helper/serve.h"
#include "helper/serve_video.h"
#include "decode/video/colour_space.h"
#include "decode/video/elements.h"
#include "decode/video/threads.h"
#include "util/message.h"

/*
 * Each frame from appsink to the compositor (serve_video.h), on the streaming threads: the
 * slots the compositor knows them by, the pools they are decoded into (memfds of ours, or the
 * compositor's dmabufs, asked for one at a time), copies of those that came from elsewhere.
 */

/*
 * Frames a pool a decoder decodes into holds at first (it grows to POOL_MAX when more are
 * held): the compositor keeps two or three, appsink and the decoder one each.
 */
#define POOL_MIN 4
#define POOL_MAX 16
/*
 * The pool of frames converted as they are sent: two, the one the compositor shows and the one
 * converted next. The compositor releases the one before when it shows the one sent, at its
 * next frame event, before the next frame's time. A conversion that finds both held waits for
 * the release: at most RELEASE_WAIT_MS, longer than the compositor leaves a frame in the socket
 * when no frame event comes (LATE_MS, source/remote/video_client.c: a paused video's frame
 * after a seek); then the frame is dropped (the compositor is behind, and shows the newest it
 * has anyway). A third frame cost 7.9 MiB at 1080p and showed no frame more at 30 or 60 fps
 * (docs/measurements.md, "Memory of a video (issue 40)").
 */
#define CONVERT_POOL_FRAMES 2
#define RELEASE_WAIT_MS 150
/* How long a streaming thread waits for a dmabuf it asked the compositor for. */
#define MEMORY_WAIT_S 10

/* A slot for a frame in pool memory fd: the one it had, or a new one. */
static int pool_slot(struct veil_served_video *v, int fd, bool *is_new) {
	*is_new = false;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		return -errno;
	}
	int id = -1;
	for (int i = 0; i < v->n_slots; i++) {
		if (v->slots[i].fd == fd && v->slots[i].ino == st.st_ino) {
			return v->slots[i].held ? -EBUSY : i;
		}
		if (v->slots[i].fd == fd && !v->slots[i].held) {
			id = i; /* a pool replaced: the slot is sent its new memfd */
		}
	}
	if (id < 0 && v->n_slots >= VEIL_WIRE_MAX_SLOTS) {
		return -ENOSPC;
	}
	/* The compositor maps it whole: it must never shrink under that mapping. */
	int seals = fcntl(fd, F_GET_SEALS);
	int wanted = F_SEAL_SHRINK | F_SEAL_GROW;
	if (seals < 0 || ((seals & wanted) != wanted &&
			fcntl(fd, F_ADD_SEALS, wanted) != 0)) {
		return -EPERM;
	}
	*is_new = true;
	if (id < 0) {
		id = v->n_slots++;
	}
	v->slots[id] = (struct veil_served_slot){ .fd = fd, .ino = st.st_ino };
	return id;
}

/* A copy slot of size bytes the compositor does not hold; *fd: a new one's memfd to send. */
static int copy_slot(struct veil_served_video *v, size_t size, int *fd) {
	*fd = -1;
	for (int i = 0; i < v->n_slots; i++) {
		struct veil_served_slot *s = &v->slots[i];
		if (s->fd < 0 && !s->held && s->size == size) {
			return i;
		}
	}
	if (v->n_slots >= VEIL_WIRE_MAX_SLOTS) {
		return -ENOSPC;
	}
	uint8_t *data;
	int ret = veil_serve_slot_memfd(size, &data, fd);
	if (ret < 0) {
		return ret;
	}
	v->slots[v->n_slots] = (struct veil_served_slot){ .fd = -1, .data = data, .size = size };
	return v->n_slots++;
}

/* The frame as it is, in pool memory: its slot, or a negative errno when it must be copied. */
static int place_in_pool(struct veil_served_video *v, GstBuffer *buffer, const GstVideoInfo *info,
		int stride, int *send_fd) {
	*send_fd = -1;
	if (gst_buffer_n_memory(buffer) != 1) {
		return -ENOTSUP;
	}
	GstMemory *mem = gst_buffer_peek_memory(buffer, 0);
	size_t offset, maxsize;
	gst_memory_get_sizes(mem, &offset, &maxsize);
	GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
	size_t plane = meta != NULL ? meta->offset[0] : GST_VIDEO_INFO_PLANE_OFFSET(info, 0);
	if (!gst_is_fd_memory(mem) || mem->offset + plane != 0 ||
			maxsize < (size_t)stride * (size_t)info->height) {
		return -ENOTSUP;
	}
	int fd = gst_fd_memory_get_fd(mem);
	bool is_new;
	int id = pool_slot(v, fd, &is_new);
	if (id < 0) {
		return id;
	}
	v->slots[id].buffer = gst_buffer_ref(buffer);
	v->slots[id].held = true;
	if (is_new) {
		*send_fd = fd;
	}
	return id;
}

static GstBufferPool *make_pool(struct veil_served_video *v, GstCaps *caps,
	const GstVideoInfo *info, guint min, guint max);

/*
 * The most buffers a pool may have. A decoder that decodes into it (avdec_h264, with no
 * converter between) adds the frames it keeps as references to the minimum: a maximum it can't
 * go past turns it away. The compositor bounds how many dmabufs it gives.
 */
static guint pool_max(const struct veil_served_video *v) {
	return v->remote != NULL ? 0 : POOL_MAX;
}

static bool pool_has_caps(GstBufferPool *pool, GstCaps *caps) {
	GstStructure *config = gst_buffer_pool_get_config(pool);
	GstCaps *pool_caps = NULL;
	gst_buffer_pool_config_get_params(config, &pool_caps, NULL, NULL, NULL);
	bool equal = pool_caps != NULL && gst_caps_is_equal(pool_caps, caps);
	gst_structure_free(config);
	return equal;
}

/* remote_allocator's ask, a streaming thread: a dmabuf of size bytes from the compositor. */
int veil_served_video_ask_memory(void *data, size_t size) {
	struct veil_served_video *v = data;
	if (size > INT32_MAX) {
		return -EFBIG;
	}
	/* One ask at a time: the answer carries no reference to its ask. */
	pthread_mutex_lock(&v->ask_lock);
	pthread_mutex_lock(&v->lock);
	v->asking = true;
	v->answer = -EINPROGRESS;
	pthread_mutex_unlock(&v->lock);
	struct veil_wire_reply reply = { .memory_size = (int32_t)size };
	int ret = veil_serve_send(v->sock, &reply, -1);
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += MEMORY_WAIT_S;
	pthread_mutex_lock(&v->lock);
	while (ret == 0 && v->answer == -EINPROGRESS) {
		if (v->unread) {
			ret = -EPIPE;
		} else if (pthread_cond_timedwait(&v->answered, &v->lock, &deadline) ==
				ETIMEDOUT) {
			ret = -ETIMEDOUT;
		}
	}
	int fd = ret < 0 ? ret : v->answer;
	v->asking = false;
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_unlock(&v->ask_lock);
	return fd;
}

/* A MEMORY request, the reader: the next dmabuf of the compositor's, or none. */
int veil_served_video_take_memory(struct veil_served_video *v,
		const struct veil_wire_request *request, int fd) {
	pthread_mutex_lock(&v->lock);
	bool expected = v->asking && v->answer == -EINPROGRESS;
	if (request->memory >= 0 && (request->memory != v->n_memories ||
			v->n_memories >= VEIL_WIRE_MAX_SLOTS)) {
		pthread_mutex_unlock(&v->lock);
		close(fd);
		return -EPROTO;
	}
	if (request->memory >= 0) {
		v->memories[v->n_memories++] = expected ? fd : -1;
	}
	if (expected) {
		v->answer = request->memory >= 0 ? fd : -ENOMEM;
		pthread_cond_broadcast(&v->answered);
	} else if (fd >= 0) {
		close(fd); /* asked too long ago: its index stays unused */
	}
	pthread_mutex_unlock(&v->lock);
	return 0;
}

/* The index of the compositor's dmabuf a memory is, or -1. Under lock. */
static int memory_slot(struct veil_served_video *v, GstMemory *mem) {
	if (!veil_remote_allocator_owns(v->remote, mem)) {
		return -1;
	}
	int fd = gst_fd_memory_get_fd(mem);
	/* The newest first: a descriptor closed with its memory may be a later one's number. */
	for (int i = v->n_memories - 1; i >= 0; i--) {
		if (v->memories[i] == fd) {
			return i;
		}
	}
	return -1;
}

/*
 * The frame as it is, in the compositor's dmabuf (its planes into reply): its slot, -EBUSY for
 * the frame the compositor holds, or another negative errno when it must be copied. Under lock.
 */
static int place_in_memory(struct veil_served_video *v, GstBuffer *buffer, const GstVideoInfo *info,
		struct veil_wire_reply *reply) {
	if (gst_buffer_n_memory(buffer) != 1) {
		return -ENOTSUP;
	}
	GstMemory *mem = gst_buffer_peek_memory(buffer, 0);
	int id = memory_slot(v, mem);
	if (id < 0) {
		return -ENOTSUP;
	}
	if (v->slots[id].held) {
		return -EBUSY;
	}
	GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
	int n_planes = (int)GST_VIDEO_INFO_N_PLANES(info);
	if (n_planes > VEIL_WIRE_PLANES) {
		return -ENOTSUP;
	}
	reply->n_planes = n_planes;
	for (int i = 0; i < n_planes; i++) {
		size_t offset = meta != NULL ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(info, i);
		int stride = meta != NULL ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(info, i);
		if (mem->offset + offset > INT32_MAX) {
			return -ENOTSUP;
		}
		reply->offsets[i] = (int32_t)(mem->offset + offset);
		reply->strides[i] = stride;
	}
	reply->memory = 1;
	reply->stride = reply->strides[0];
	struct veil_colour_space space;
	veil_colour_space_from_info(info, &space);
	reply->matrix = (int32_t)space.matrix;
	reply->full_range = space.full_range;
	reply->transfer = (int32_t)space.transfer;
	reply->primaries = (int32_t)space.primaries;
	v->slots[id] = (struct veil_served_slot){
		.buffer = gst_buffer_ref(buffer),
		.fd = -1,
		.held = true,
	};
	if (id >= v->n_slots) {
		v->n_slots = id + 1;
	}
	return id;
}

/*
 * A frame from outside the remote pool (an element that ignored it) copied into a buffer of
 * that pool, if one is free (else it is dropped: -EAGAIN). Not under lock.
 */
static int copy_to_memory(struct veil_served_video *v, GstBuffer *buffer, GstCaps *caps,
		const GstVideoInfo *info, GstBuffer **copy) {
	*copy = NULL;
	pthread_mutex_lock(&v->lock);
	GstBufferPool *pool = v->pool != NULL ? gst_object_ref(v->pool) : NULL;
	pthread_mutex_unlock(&v->lock);
	/* No element asked for one (raw video from its demuxer): a pool of our own. */
	if (pool == NULL || !pool_has_caps(pool, caps)) {
		if (pool != NULL) {
			gst_object_unref(pool);
		}
		pool = make_pool(v, caps, info, POOL_MIN, pool_max(v));
	}
	if (pool == NULL) {
		return -ENOTSUP;
	}
	GstBufferPoolAcquireParams params = { .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
	int ret = 0;
	if (!gst_buffer_pool_is_active(pool) && !gst_buffer_pool_set_active(pool, TRUE)) {
		ret = -ENOMEM;
	} else if (gst_buffer_pool_acquire_buffer(pool, copy, &params) != GST_FLOW_OK) {
		ret = -EAGAIN;
	}
	gst_object_unref(pool);
	if (ret < 0) {
		return ret;
	}
	GstVideoFrame src, dst;
	if (!gst_video_frame_map(&src, (GstVideoInfo *)info, buffer, GST_MAP_READ)) {
		ret = -EIO;
	} else {
		if (!gst_video_frame_map(&dst, (GstVideoInfo *)info, *copy, GST_MAP_WRITE)) {
			ret = -EIO;
		} else {
			ret = gst_video_frame_copy(&dst, &src) ? 0 : -EIO;
			gst_video_frame_unmap(&dst);
		}
		gst_video_frame_unmap(&src);
	}
	if (ret < 0) {
		gst_buffer_unref(*copy);
		*copy = NULL;
	}
	return ret;
}

/* A copy of the frame, rows of width * 4 bytes, in a copy slot. */
static int place_copy(struct veil_served_video *v, GstBuffer *buffer, const GstVideoInfo *info,
		int *send_fd) {
	size_t row = (size_t)info->width * 4;
	int id = copy_slot(v, row * (size_t)info->height, send_fd);
	if (id < 0) {
		return id;
	}
	GstVideoFrame frame;
	if (!gst_video_frame_map(&frame, (GstVideoInfo *)info, buffer, GST_MAP_READ)) {
		return -EIO;
	}
	const uint8_t *src = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
	int src_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
	uint8_t *dst = v->slots[id].data;
	for (size_t y = 0; y < (size_t)info->height; y++) {
		memcpy(dst + y * row, src + y * (size_t)src_stride, row);
	}
	gst_video_frame_unmap(&frame);
	v->slots[id].held = true;
	v->copies++;
	return id;
}

/* The formats pixman takes as they are, from memfds. */
static bool is_pixman_format(GstVideoFormat format) {
	return format == GST_VIDEO_FORMAT_BGRx || format == GST_VIDEO_FORMAT_BGRA;
}

/* A converter and a pool of memfds for frames of caps (info), the ones before dropped. */
static int start_converting(struct veil_served_video *v, GstCaps *caps,
		const GstVideoInfo *info) {
	if (v->converter != NULL) {
		gst_video_converter_free(v->converter);
		v->converter = NULL;
	}
	if (v->convert_pool != NULL) {
		/* Frames the compositor holds go back to it, and are freed, when released. */
		gst_buffer_pool_set_active(v->convert_pool, FALSE);
		gst_clear_object(&v->convert_pool);
	}
	gst_caps_replace(&v->convert_caps, NULL);
	const GstVideoFormatInfo *finfo = info->finfo;
	GstVideoInfo *out = &v->convert_info;
	if (!gst_video_info_set_format(out, GST_VIDEO_FORMAT_INFO_HAS_ALPHA(finfo) ?
			GST_VIDEO_FORMAT_BGRA : GST_VIDEO_FORMAT_BGRx, info->width, info->height)) {
		return -EINVAL;
	}
	out->fps_n = info->fps_n;
	out->fps_d = info->fps_d;
	out->par_n = info->par_n;
	out->par_d = info->par_d;
	GstStructure *config = gst_structure_new("GstVideoConverter",
		GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, veil_video_convert_thread_count(caps),
		NULL);
	v->converter = gst_video_converter_new((GstVideoInfo *)info, out, config);
	GstCaps *out_caps = gst_video_info_to_caps(out);
	v->convert_pool = v->converter != NULL && out_caps != NULL ?
		make_pool(v, out_caps, out, CONVERT_POOL_FRAMES, CONVERT_POOL_FRAMES) : NULL;
	if (out_caps != NULL) {
		gst_caps_unref(out_caps);
	}
	if (v->convert_pool == NULL || !gst_buffer_pool_set_active(v->convert_pool, TRUE)) {
		return -ENOMEM;
	}
	gst_caps_replace(&v->convert_caps, caps);
	return 0;
}

/* A frame of the pool of converted frames, waiting RELEASE_WAIT_MS at most for a release. */
static bool acquire_converted(struct veil_served_video *v, GstBuffer **buffer) {
	pthread_mutex_lock(&v->lock);
	uint64_t seen = v->releases;
	pthread_mutex_unlock(&v->lock);
	GstBufferPoolAcquireParams params = { .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
	if (gst_buffer_pool_acquire_buffer(v->convert_pool, buffer, &params) == GST_FLOW_OK) {
		return true;
	}
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_nsec += RELEASE_WAIT_MS * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&v->lock);
	while (v->releases == seen && !v->unread) {
		if (pthread_cond_timedwait(&v->released, &v->lock, &deadline) == ETIMEDOUT) {
			break;
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (gst_buffer_pool_acquire_buffer(v->convert_pool, buffer, &params) == GST_FLOW_OK) {
		return true;
	}
	*buffer = NULL;
	return false;
}

/*
 * The decoder's frame converted for pixman, as it is sent: into a memfd of the pool of
 * converted frames (*converted, its info in v->convert_info), or -EAGAIN (dropped) when the
 * compositor holds every frame the pool may have. appsink's streaming thread.
 */
static int convert(struct veil_served_video *v, GstBuffer *buffer, GstCaps *caps,
		const GstVideoInfo *info, GstBuffer **converted) {
	*converted = NULL;
	if (v->convert_caps == NULL || !gst_caps_is_equal(caps, v->convert_caps)) {
		int ret = start_converting(v, caps, info);
		if (ret < 0) {
			return ret;
		}
	}
	if (!acquire_converted(v, converted)) {
		return -EAGAIN;
	}
	GstVideoFrame src, dst;
	int ret = 0;
	if (!gst_video_frame_map(&src, (GstVideoInfo *)info, buffer, GST_MAP_READ)) {
		ret = -EIO;
	} else {
		if (!gst_video_frame_map(&dst, &v->convert_info, *converted, GST_MAP_WRITE)) {
			ret = -EIO;
		} else {
			gst_video_converter_frame(v->converter, &src, &dst);
			gst_video_frame_unmap(&dst);
		}
		gst_video_frame_unmap(&src);
	}
	if (ret < 0) {
		gst_buffer_unref(*converted);
		*converted = NULL;
		return ret;
	}
	GST_BUFFER_PTS(*converted) = GST_BUFFER_PTS(buffer);
	GST_BUFFER_DURATION(*converted) = GST_BUFFER_DURATION(buffer);
	return 0;
}

/* How long a frame shows, in ms (0: unknown): the compositor awaits the next that much longer. */
static int32_t frame_duration_ms(GstBuffer *buffer, const GstVideoInfo *info) {
	GstClockTime duration = GST_BUFFER_DURATION(buffer);
	if (!GST_CLOCK_TIME_IS_VALID(duration) && GST_VIDEO_INFO_FPS_N(info) > 0) {
		duration = gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(info),
			GST_VIDEO_INFO_FPS_N(info));
	}
	if (!GST_CLOCK_TIME_IS_VALID(duration)) {
		return 0;
	}
	return duration / GST_MSECOND > INT32_MAX ? INT32_MAX : (int32_t)(duration / GST_MSECOND);
}

/*
 * Places the frame for the compositor: in the compositor's dmabufs (planes into reply), else in
 * a memfd of the pool or a copy; *fd a memfd to send with it. Its slot, -EBUSY for the frame
 * the compositor holds, -EAGAIN for one dropped, or another negative errno.
 */
static int place(struct veil_served_video *v, GstBuffer *buffer, GstCaps *caps,
		const GstVideoInfo *info, struct veil_wire_reply *reply, int *fd, bool *close_fd) {
	*fd = -1;
	*close_fd = false;
	if (v->remote != NULL) {
		pthread_mutex_lock(&v->lock);
		int id = place_in_memory(v, buffer, info, reply);
		pthread_mutex_unlock(&v->lock);
		if (id != -ENOTSUP) {
			return id;
		}
		GstBuffer *copy;
		id = copy_to_memory(v, buffer, caps, info, &copy);
		if (id < 0) {
			return id;
		}
		pthread_mutex_lock(&v->lock);
		id = place_in_memory(v, copy, info, reply);
		v->copies += id >= 0;
		pthread_mutex_unlock(&v->lock);
		gst_buffer_unref(copy); /* the slot holds it */
		return id;
	}
	GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
	reply->stride = meta != NULL ? meta->stride[0] : GST_VIDEO_INFO_PLANE_STRIDE(info, 0);
	pthread_mutex_lock(&v->lock);
	int id = place_in_pool(v, buffer, info, reply->stride, fd);
	if (id != -EBUSY && id < 0) {
		reply->stride = info->width * 4;
		id = place_copy(v, buffer, info, fd);
		*close_fd = true; /* the mapping keeps it */
	}
	pthread_mutex_unlock(&v->lock);
	return id;
}

static GstFlowReturn send_sample(struct veil_served_video *v, GstSample *sample) {
	GstBuffer *decoded = gst_sample_get_buffer(sample);
	GstCaps *caps = gst_sample_get_caps(sample);
	GstVideoInfo info;
	if (decoded == NULL || caps == NULL || !gst_video_info_from_caps(&info, caps)) {
		return GST_FLOW_OK;
	}
	/* The preroll's buffer is rendered again once playing. */
	if (decoded == v->last && GST_BUFFER_PTS(decoded) == v->last_pts) {
		return GST_FLOW_OK;
	}
	GstBuffer *buffer = decoded;
	GstBuffer *converted = NULL;
	if (v->remote == NULL && !is_pixman_format(GST_VIDEO_INFO_FORMAT(&info))) {
		int ret = convert(v, decoded, caps, &info, &converted);
		if (ret == -EAGAIN) {
			return GST_FLOW_OK; /* no memory free: dropped */
		}
		if (ret < 0) {
			veil_served_video_refuse(v, ret, veil_message("cannot convert a frame: %s",
				strerror(-ret)));
			return GST_FLOW_ERROR;
		}
		buffer = converted;
		info = v->convert_info;
	}
	char decoder[sizeof(((struct veil_wire_reply *)NULL)->decoder)];
	pthread_mutex_lock(&v->player.lock);
	snprintf(decoder, sizeof(decoder), "%s",
		v->player.decoder != NULL ? v->player.decoder : "gstreamer");
	pthread_mutex_unlock(&v->player.lock);
	/*
	 * The first frame of a loop: earlier than the last one sent. Told here, not when the bus
	 * says the segment is done: frames of the loop before are still on their way then.
	 */
	if (GST_BUFFER_PTS_IS_VALID(buffer) && GST_CLOCK_TIME_IS_VALID(v->last_pts) &&
			GST_BUFFER_PTS(buffer) < v->last_pts) {
		v->loops = v->loops == INT32_MAX ? v->loops : v->loops + 1;
	}
	struct veil_wire_reply reply = {
		.width = info.width,
		.height = info.height,
		.drm_format = gst_video_dma_drm_fourcc_from_format(GST_VIDEO_INFO_FORMAT(&info)),
		.original_width = info.width,
		.original_height = info.height,
		.index = v->index,
		.delay_ms = frame_duration_ms(buffer, &info),
		.loops = v->loops,
	};
	int64_t position = veil_player_sample_position_ms(sample);
	reply.position_ms = position > INT32_MAX ? INT32_MAX : (int32_t)position;
	int fd;
	bool close_fd;
	int id = place(v, buffer, caps, &info, &reply, &fd, &close_fd);
	if (converted != NULL) {
		gst_buffer_unref(converted); /* its slot holds it */
	}
	if (id == -EBUSY || id == -EAGAIN) {
		return GST_FLOW_OK; /* the frame the compositor holds, again; no memory free */
	}
	if (id < 0) {
		veil_served_video_refuse(v, id, veil_message("cannot hand a frame over: %s",
			strerror(-id)));
		return GST_FLOW_ERROR;
	}
	reply.slot = id;
	reply.copies = v->copies > INT32_MAX ? INT32_MAX : (int32_t)v->copies;
	snprintf(reply.decoder, sizeof(reply.decoder), "%s", decoder);
	/* The chain is plugged by the first frame; videoconvert converts or not by the caps. */
	if (caps != v->described) {
		gst_caps_replace(&v->described, caps);
		veil_video_describe_elements(v->player.pipeline, v->elements, sizeof(v->elements));
		/* videoconvert's converter, here: it passes the decoder's frames through. */
		if (converted != NULL && strlen(v->elements) + sizeof(" videoconvert") <=
				sizeof(v->elements)) {
			strcat(v->elements, " videoconvert");
		}
	}
	memcpy(reply.message, v->elements, sizeof(reply.message));
	v->index = v->index == INT32_MAX ? 0 : v->index + 1;
	__atomic_add_fetch(&v->sent, 1, __ATOMIC_RELAXED);
	v->sent_first = true;
	v->last = decoded;
	v->last_pts = GST_BUFFER_PTS(decoded);
	int ret = veil_serve_send(v->sock, &reply, fd);
	if (close_fd && fd >= 0) {
		close(fd);
	}
	/* The compositor gone: the main thread sees it and exits. */
	return ret == 0 ? GST_FLOW_OK : GST_FLOW_EOS;
}

GstFlowReturn veil_served_video_new_sample(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_sample(sink);
	if (sample == NULL) {
		return GST_FLOW_EOS;
	}
	GstFlowReturn ret = send_sample(data, sample);
	gst_sample_unref(sample);
	return ret;
}

/* A frame this much before a position sought is the one there (a frame lasts less). */
#define SEEK_SLACK_MS 500

/*
 * The first preroll is sent (at once, played or not), and the one after a seek to a position
 * (a paused video shows it); later ones are played again.
 */
GstFlowReturn veil_served_video_new_preroll(GstAppSink *sink, gpointer data) {
	struct veil_served_video *v = data;
	GstSample *sample = gst_app_sink_pull_preroll(sink);
	if (sample == NULL) {
		return GST_FLOW_OK;
	}
	/* Not a preroll of the seek to 0 that arms looping, which may come just before. */
	int64_t target = __atomic_load_n(&v->seek_preroll_ms, __ATOMIC_ACQUIRE);
	int64_t position = veil_player_sample_position_ms(sample);
	bool wanted = target >= 0 && (position < 0 || position + SEEK_SLACK_MS >= target);
	if (wanted) {
		__atomic_store_n(&v->seek_preroll_ms, -1, __ATOMIC_RELEASE);
	}
	GstFlowReturn ret = !v->sent_first || wanted ? send_sample(v, sample) : GST_FLOW_OK;
	gst_sample_unref(sample);
	return ret;
}

/*
 * A pool for frames of caps in memfds, or in the compositor's dmabufs (then kept for copies,
 * v->pool); NULL when it takes no such configuration.
 */
static GstBufferPool *make_pool(struct veil_served_video *v, GstCaps *caps,
		const GstVideoInfo *info, guint min, guint max) {
	GstAllocator *allocator = v->remote != NULL ? v->remote : v->shm;
	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, (guint)info->size, min, max);
	gst_buffer_pool_config_set_allocator(config, allocator, NULL);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		gst_object_unref(pool);
		return NULL;
	}
	if (v->remote != NULL) {
		pthread_mutex_lock(&v->lock);
		gst_object_replace((GstObject **)&v->pool, GST_OBJECT(pool));
		pthread_mutex_unlock(&v->lock);
	}
	return pool;
}

/* Offers the pool of memfds (or of the compositor's dmabufs) to the element before appsink. */
gboolean veil_served_video_propose_allocation(GstAppSink *sink, GstQuery *query,
		gpointer data) {
	struct veil_served_video *v = data;
	GstCaps *caps;
	gboolean need_pool;
	gst_query_parse_allocation(query, &caps, &need_pool);
	GstVideoInfo info;
	if (caps == NULL || !gst_video_info_from_caps(&info, caps)) {
		return TRUE;
	}
	/* Frames to convert come from the decoder's own pool (convert() below). */
	if (v->remote == NULL && !is_pixman_format(GST_VIDEO_INFO_FORMAT(&info))) {
		return TRUE;
	}
	GstBufferPool *pool = make_pool(v, caps, &info, POOL_MIN, pool_max(v));
	if (pool != NULL) {
		gst_query_add_allocation_pool(query, pool, (guint)info.size, POOL_MIN, pool_max(v));
		gst_query_add_allocation_param(query, v->remote != NULL ? v->remote : v->shm, NULL);
		gst_object_unref(pool);
	}
	return TRUE;
}

