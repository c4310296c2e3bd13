#define _GNU_SOURCE /* F_GET_SEALS, F_ADD_SEALS */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include "decode/gst.h"
#include "decode/isolate/remote_allocator.h"
#include "decode/isolate/sandbox.h"
#include "decode/isolate/serve.h"
#include "decode/video/choose.h"
#include "decode/video/elements.h"
#include "decode/video/loop_guard.h"
#include "decode/video/segment_chain.h"
#include "util/message.h"

/*
 * A video in veil-decoder (wire.h: a video streams):
 *
 *   filesrc (/proc/self/fd/N) ! decodebin ! videoconvert ! appsink (BGRx or BGRA)
 *
 * appsink paces the frames at their time and this process sends each as it comes. Frames are
 * decoded or converted into memfds of a pool offered to the element before appsink
 * (GstShmAllocator): each memfd is sent once, with the first frame in it, and a frame's buffer is
 * kept out of the pool until the compositor releases its slot, so that nothing writes a frame
 * on screen. A frame that did not come from the pool (an element that ignored it) is copied
 * into a memfd of this process's own, which is counted. The video loops with segment seeks
 * (gapless), or with a flushing seek after its end where the demuxer can't; loops that bring
 * nothing stop it (video/loop_guard.h).
 *
 * For a renderer that imports dmabufs (the request lists dmabuf_formats) appsink takes those
 * formats (a decoder's NV12 as it is) and the pool's memory is the compositor's: each buffer
 * the pool allocates is a dmabuf asked of the compositor (remote_allocator.h), and each frame
 * names the memory it is in. A frame elsewhere is copied into a buffer of that pool, counted.
 *
 * Threads: the main one waits on the bus and drives the pipeline (states, seeks); a reader
 * takes the compositor's requests off the socket: it answers a streaming thread's ask for a
 * dmabuf itself, as the main thread may be waiting for that very thread (a seek waits for the
 * stream lock a decoder holds while it allocates), and merges the others (released slots,
 * play or pause, the cap) for the main thread, which it wakes with a message on the bus.
 * appsink's streaming thread sends frames. The main and streaming threads send on the socket
 * (one datagram a message).
 */

#define MAX_SIDE 8192
/* Frames the pool holds: the compositor keeps two or three, appsink and convert one each. */
#define POOL_MIN 4
#define POOL_MAX 16
/* How long a streaming thread waits for a dmabuf it asked the compositor for. */
#define MEMORY_WAIT_S 10

struct slot {
	GstBuffer *buffer; /* a pool frame the compositor holds (a reference), else NULL */
	int fd; /* the pool memory's descriptor (GStreamer's), -1 for a copy slot */
	ino_t ino; /* its inode: a number closed and reused is another memfd */
	uint8_t *data; /* a copy slot's mapping (its memfd closed once sent) */
	size_t size;
	bool held;
};

struct video {
	int sock;
	char proc[64];
	GstElement *pipeline, *decodebin, *convert, *sink;
	GstBus *bus;
	GstAllocator *shm;
	/* Frames in the compositor's dmabufs: appsink's caps ("video/x-raw,format=..."), else NULL. */
	char *dmabuf_caps;
	GstAllocator *remote;

	pthread_mutex_t lock, ask_lock;
	/* Under lock. */
	struct slot slots[VEIL_WIRE_MAX_SLOTS];
	int n_slots;
	char decoder[32];
	bool linked;
	char unknown[64]; /* the type of a video stream no decoder takes (decodebin's unknown-type) */
	int fps;
	int refused; /* a streaming thread refused the stream (negative errno) */
	char *refused_message;
	/* The compositor's requests since the main thread last applied them, merged by the reader. */
	struct {
		bool waiting; /* a message on the bus says so */
		uint64_t released[VEIL_WIRE_MAX_SLOTS / 64]; /* a bit a slot */
		bool playing;
	} next;
	bool ended; /* the compositor closed its end */
	/* The compositor's dmabufs: their descriptors by index (slot), and one asked for. */
	int memories[VEIL_WIRE_MAX_SLOTS];
	int n_memories;
	bool asking; /* under ask_lock too: a decoder's threads may allocate at once */
	int answer; /* a descriptor, or a negative errno; -EINPROGRESS until the compositor answers */
	pthread_cond_t answered;
	GstBufferPool *pool; /* a reference: the remote pool offered last, for copies */

	/* appsink's streaming thread. */
	bool sent_first;
	int loops; /* frames went back in time: the video started again (the seam) */
	const GstBuffer *last;
	GstClockTime last_pts, next_running;
	int32_t index;
	uint64_t copies;
	GstCaps *described; /* a reference: the caps the pipeline was last described at */
	char elements[VEIL_WIRE_TEXT];
	/* Each loop after the last in running time, as in process (segment_chain.h). */
	struct veil_segment_chain chain;

	uint64_t sent; /* frames sent: atomic, read by the main thread at each loop's end */

	pthread_t reader; /* never joined: the process exits when the video ends */

	/* Main thread. */
	bool playing, looping;
	struct veil_loop_guard loop_guard; /* as in process: loops that bring nothing stop it */
};

static void refuse(struct video *v, int err, char *message) {
	pthread_mutex_lock(&v->lock);
	if (v->refused == 0) {
		v->refused = err;
		v->refused_message = message;
		message = NULL;
	}
	pthread_mutex_unlock(&v->lock);
	free(message);
	/* Wakes the main thread, which sends it. */
	gst_element_post_message(v->pipeline, gst_message_new_application(GST_OBJECT(v->pipeline),
		gst_structure_new_empty("veil-refused")));
}

/* A slot for a frame in pool memory fd: the one it had, or a new one. */
static int pool_slot(struct video *v, int fd, bool *is_new) {
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
	v->slots[id] = (struct slot){ .fd = fd, .ino = st.st_ino };
	return id;
}

/* A copy slot of size bytes the compositor does not hold; *fd: a new one's memfd to send. */
static int copy_slot(struct video *v, size_t size, int *fd) {
	*fd = -1;
	for (int i = 0; i < v->n_slots; i++) {
		struct slot *s = &v->slots[i];
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
	v->slots[v->n_slots] = (struct slot){ .fd = -1, .data = data, .size = size };
	return v->n_slots++;
}

/* The frame as it is, in pool memory: its slot, or a negative errno when it must be copied. */
static int place_in_pool(struct video *v, GstBuffer *buffer, const GstVideoInfo *info,
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

static GstBufferPool *make_pool(struct video *v, GstCaps *caps, const GstVideoInfo *info);

/*
 * The most buffers a pool may have. A decoder that decodes into it (avdec_h264, with no
 * converter between) adds the frames it keeps as references to the minimum: a maximum it can't
 * go past turns it away. The compositor bounds how many dmabufs it gives.
 */
static guint pool_max(const struct video *v) {
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
static int ask_memory(void *data, size_t size) {
	struct video *v = data;
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
		if (pthread_cond_timedwait(&v->answered, &v->lock, &deadline) == ETIMEDOUT) {
			ret = -ETIMEDOUT;
		}
	}
	int fd = ret < 0 ? ret : v->answer;
	v->asking = false;
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_unlock(&v->ask_lock);
	return fd;
}

/* A MEMORY request, the main thread: the next dmabuf of the compositor's, or none. */
static int take_memory(struct video *v, const struct veil_wire_request *request, int fd) {
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
static int memory_slot(struct video *v, GstMemory *mem) {
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
static int place_in_memory(struct video *v, GstBuffer *buffer, const GstVideoInfo *info,
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
	reply->matrix = info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709 ? 1 :
		info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT2020 ? 2 : 0;
	reply->full_range = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
	v->slots[id] = (struct slot){ .buffer = gst_buffer_ref(buffer), .fd = -1, .held = true };
	if (id >= v->n_slots) {
		v->n_slots = id + 1;
	}
	return id;
}

/*
 * A frame from outside the remote pool (an element that ignored it) copied into a buffer of
 * that pool, if one is free (else it is dropped: -EAGAIN). Not under lock.
 */
static int copy_to_memory(struct video *v, GstBuffer *buffer, GstCaps *caps,
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
		pool = make_pool(v, caps, info);
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
static int place_copy(struct video *v, GstBuffer *buffer, const GstVideoInfo *info,
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

/* The frame rate cap: whether a frame at this running time is dropped. */
static bool over_cap(struct video *v, GstSample *sample, GstBuffer *buffer, int fps) {
	const GstSegment *segment = gst_sample_get_segment(sample);
	if (fps <= 0 || segment == NULL || !GST_BUFFER_PTS_IS_VALID(buffer)) {
		v->next_running = GST_CLOCK_TIME_NONE;
		return false;
	}
	GstClockTime running = gst_segment_to_running_time(segment, GST_FORMAT_TIME,
		GST_BUFFER_PTS(buffer));
	if (GST_CLOCK_TIME_IS_VALID(v->next_running) && running != GST_CLOCK_TIME_NONE &&
			running < v->next_running && v->next_running - running < 2 * GST_SECOND) {
		return true;
	}
	/* Half a millisecond early still counts: a 30 fps video capped at 30 keeps every frame. */
	v->next_running = running + GST_SECOND / (GstClockTime)fps - GST_MSECOND / 2;
	return false;
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
static int place(struct video *v, GstBuffer *buffer, GstCaps *caps, const GstVideoInfo *info,
		struct veil_wire_reply *reply, int *fd, bool *close_fd) {
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

static GstFlowReturn send_sample(struct video *v, GstSample *sample) {
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstCaps *caps = gst_sample_get_caps(sample);
	GstVideoInfo info;
	if (buffer == NULL || caps == NULL || !gst_video_info_from_caps(&info, caps)) {
		return GST_FLOW_OK;
	}
	/* The preroll's buffer is rendered again once playing. */
	if (buffer == v->last && GST_BUFFER_PTS(buffer) == v->last_pts) {
		return GST_FLOW_OK;
	}
	pthread_mutex_lock(&v->lock);
	int fps = v->fps;
	char decoder[sizeof(v->decoder)];
	memcpy(decoder, v->decoder, sizeof(decoder));
	pthread_mutex_unlock(&v->lock);
	if (v->sent_first && over_cap(v, sample, buffer, fps)) {
		return GST_FLOW_OK;
	}
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
	int fd;
	bool close_fd;
	int id = place(v, buffer, caps, &info, &reply, &fd, &close_fd);
	if (id == -EBUSY || id == -EAGAIN) {
		return GST_FLOW_OK; /* the frame the compositor holds, again; no memory free */
	}
	if (id < 0) {
		refuse(v, id, veil_message("cannot hand a frame over: %s", strerror(-id)));
		return GST_FLOW_ERROR;
	}
	reply.slot = id;
	reply.copies = v->copies > INT32_MAX ? INT32_MAX : (int32_t)v->copies;
	snprintf(reply.decoder, sizeof(reply.decoder), "%s", decoder);
	/* The chain is plugged by the first frame; videoconvert converts or not by the caps. */
	if (caps != v->described) {
		gst_caps_replace(&v->described, caps);
		veil_video_describe_elements(v->pipeline, v->elements, sizeof(v->elements));
	}
	memcpy(reply.message, v->elements, sizeof(reply.message));
	v->index = v->index == INT32_MAX ? 0 : v->index + 1;
	__atomic_add_fetch(&v->sent, 1, __ATOMIC_RELAXED);
	v->sent_first = true;
	v->last = buffer;
	v->last_pts = GST_BUFFER_PTS(buffer);
	int ret = veil_serve_send(v->sock, &reply, fd);
	if (close_fd && fd >= 0) {
		close(fd);
	}
	/* The compositor gone: the main thread sees it and exits. */
	return ret == 0 ? GST_FLOW_OK : GST_FLOW_EOS;
}

static GstFlowReturn handle_new_sample(GstAppSink *sink, gpointer data) {
	GstSample *sample = gst_app_sink_pull_sample(sink);
	if (sample == NULL) {
		return GST_FLOW_EOS;
	}
	GstFlowReturn ret = send_sample(data, sample);
	gst_sample_unref(sample);
	return ret;
}

/* Only the first preroll is sent (at once, played or not); later ones are played again. */
static GstFlowReturn handle_new_preroll(GstAppSink *sink, gpointer data) {
	struct video *v = data;
	GstSample *sample = gst_app_sink_pull_preroll(sink);
	if (sample == NULL) {
		return GST_FLOW_OK;
	}
	GstFlowReturn ret = v->sent_first ? GST_FLOW_OK : send_sample(v, sample);
	gst_sample_unref(sample);
	return ret;
}

/*
 * A pool for frames of caps in memfds, or in the compositor's dmabufs (then kept for copies,
 * v->pool); NULL when it takes no such configuration.
 */
static GstBufferPool *make_pool(struct video *v, GstCaps *caps, const GstVideoInfo *info) {
	GstAllocator *allocator = v->remote != NULL ? v->remote : v->shm;
	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, (guint)info->size, POOL_MIN,
		pool_max(v));
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
static gboolean handle_propose_allocation(GstAppSink *sink, GstQuery *query, gpointer data) {
	struct video *v = data;
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	GstCaps *caps;
	gboolean need_pool;
	gst_query_parse_allocation(query, &caps, &need_pool);
	GstVideoInfo info;
	if (caps == NULL || !gst_video_info_from_caps(&info, caps)) {
		return TRUE;
	}
	GstBufferPool *pool = make_pool(v, caps, &info);
	if (pool != NULL) {
		gst_query_add_allocation_pool(query, pool, (guint)info.size, POOL_MIN, pool_max(v));
		gst_query_add_allocation_param(query, v->remote != NULL ? v->remote : v->shm, NULL);
		gst_object_unref(pool);
	}
	return TRUE;
}

/* decodebin: the factory of the video decoder, for the status. */
static void handle_element_added(GstBin *bin, GstElement *element, gpointer data) {
	struct video *v = data;
	GstElementFactory *factory = gst_element_get_factory(element);
	const char *klass = factory != NULL ?
		gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : NULL;
	if (klass == NULL || strstr(klass, "Decoder") == NULL || strstr(klass, "Video") == NULL) {
		return;
	}
	pthread_mutex_lock(&v->lock);
	snprintf(v->decoder, sizeof(v->decoder), "%s", GST_OBJECT_NAME(factory));
	pthread_mutex_unlock(&v->lock);
}

/* decodebin's GstAutoplugSelectResult (not in the installed headers). */
enum autoplug_select_result {
	AUTOPLUG_SELECT_TRY = 0,
	AUTOPLUG_SELECT_SKIP = 2,
};

/* A size in caps (coded or raw) larger than MAX_SIDE: refused (0) before a decoder allocates. */
static gboolean handle_autoplug_continue(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct video *v = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	int width = 0, height = 0;
	if (s == NULL || !gst_structure_get_int(s, "width", &width) ||
			!gst_structure_get_int(s, "height", &height) ||
			(width <= MAX_SIDE && height <= MAX_SIDE)) {
		return TRUE;
	}
	refuse(v, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d", width, height,
		MAX_SIDE, MAX_SIDE));
	return FALSE;
}

/*
 * Software decoders only: the sandbox has no render node (nor /dev at all), and a hardware
 * decoder's libraries would look for one.
 */
static int handle_autoplug_select(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		GstElementFactory *factory, gpointer data) {
	const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
	return veil_decoder_is_hardware(GST_OBJECT_NAME(factory), klass) ?
		AUTOPLUG_SELECT_SKIP : AUTOPLUG_SELECT_TRY;
}

/* decodebin, streaming thread: links the first raw video stream no larger than MAX_SIDE. */
static void handle_pad_added(GstElement *decodebin, GstPad *pad, gpointer data) {
	struct video *v = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (caps == NULL) {
		caps = gst_pad_query_caps(pad, NULL);
	}
	GstStructure *s = caps != NULL && !gst_caps_is_empty(caps) ?
		gst_caps_get_structure(caps, 0) : NULL;
	int width = 0, height = 0;
	bool video = s != NULL && gst_structure_has_name(s, "video/x-raw");
	if (video) {
		gst_structure_get_int(s, "width", &width);
		gst_structure_get_int(s, "height", &height);
	}
	if (caps != NULL) {
		gst_caps_unref(caps);
	}
	if (!video) {
		return;
	}
	if (width > MAX_SIDE || height > MAX_SIDE) {
		refuse(v, -EFBIG, veil_message("The video is %dx%d, larger than %dx%d", width,
			height, MAX_SIDE, MAX_SIDE));
		return;
	}
	pthread_mutex_lock(&v->lock);
	bool first = !v->linked;
	v->linked = true;
	pthread_mutex_unlock(&v->lock);
	if (!first) {
		return;
	}
	GstPad *sink_pad = gst_element_get_static_pad(v->convert, "sink");
	GstPadLinkReturn ret = gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
	if (GST_PAD_LINK_FAILED(ret)) {
		refuse(v, -ENOTSUP, veil_message("The decoded video can't be linked (%s)",
			gst_pad_link_get_name(ret)));
	}
}

/* decodebin, streaming thread, before no-more-pads: no decoder takes a stream. */
static void handle_unknown_type(GstElement *decodebin, GstPad *pad, GstCaps *caps,
		gpointer data) {
	struct video *v = data;
	const GstStructure *s = caps != NULL && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	const char *name = s != NULL ? gst_structure_get_name(s) : NULL;
	if (name == NULL || !g_str_has_prefix(name, "video/")) {
		return;
	}
	pthread_mutex_lock(&v->lock);
	if (v->unknown[0] == '\0') {
		snprintf(v->unknown, sizeof(v->unknown), "%s", name);
	}
	pthread_mutex_unlock(&v->lock);
}

static void handle_no_more_pads(GstElement *decodebin, gpointer data) {
	struct video *v = data;
	pthread_mutex_lock(&v->lock);
	bool linked = v->linked;
	char unknown[sizeof(v->unknown)];
	memcpy(unknown, v->unknown, sizeof(unknown));
	pthread_mutex_unlock(&v->lock);
	if (!linked && unknown[0] != '\0') {
		refuse(v, -ENOTSUP, veil_message("No decoder for %s is installed (a GStreamer "
			"plugin is missing)", unknown));
	} else if (!linked) {
		refuse(v, -EINVAL, veil_message("The file has no video stream"));
	}
}

static int build(struct video *v, int file, char **message) {
	snprintf(v->proc, sizeof(v->proc), "/proc/self/fd/%d", file);
	v->pipeline = gst_pipeline_new(NULL);
	GstElement *src = gst_element_factory_make("filesrc", NULL);
	v->decodebin = gst_element_factory_make("decodebin", NULL);
	v->convert = gst_element_factory_make("videoconvert", NULL);
	v->sink = gst_element_factory_make("appsink", NULL);
	if (v->pipeline == NULL || src == NULL || v->decodebin == NULL || v->convert == NULL ||
			v->sink == NULL) {
		veil_message_set(message, "GStreamer lacks filesrc, decodebin, videoconvert or "
			"appsink");
		return -ENOTSUP;
	}
	g_object_set(src, "location", v->proc, NULL);
	GstCaps *caps = gst_caps_from_string(v->dmabuf_caps != NULL ? v->dmabuf_caps :
		"video/x-raw,format={BGRx,BGRA}");
	if (caps == NULL) {
		veil_message_set(message, "the compositor's formats make no caps");
		return -EINVAL;
	}
	g_object_set(v->sink, "caps", caps, "sync", TRUE, "max-buffers", 1u, "drop", FALSE,
		"enable-last-sample", FALSE, NULL);
	gst_caps_unref(caps);
	GstAppSinkCallbacks callbacks = {
		.new_preroll = handle_new_preroll,
		.new_sample = handle_new_sample,
		.propose_allocation = handle_propose_allocation,
	};
	gst_app_sink_set_callbacks(GST_APP_SINK(v->sink), &callbacks, v, NULL);
	veil_segment_chain_init(&v->chain, "the video");
	veil_segment_chain_attach(&v->chain, v->sink);
	gst_bin_add_many(GST_BIN(v->pipeline), src, v->decodebin, v->convert, v->sink, NULL);
	if (!gst_element_link(src, v->decodebin) || !gst_element_link(v->convert, v->sink)) {
		veil_message_set(message, "cannot link the video's pipeline");
		return -EIO;
	}
	g_signal_connect(v->decodebin, "autoplug-continue", G_CALLBACK(handle_autoplug_continue),
		v);
	g_signal_connect(v->decodebin, "autoplug-select", G_CALLBACK(handle_autoplug_select), v);
	g_signal_connect(v->decodebin, "element-added", G_CALLBACK(handle_element_added), v);
	g_signal_connect(v->decodebin, "pad-added", G_CALLBACK(handle_pad_added), v);
	g_signal_connect(v->decodebin, "unknown-type", G_CALLBACK(handle_unknown_type), v);
	g_signal_connect(v->decodebin, "no-more-pads", G_CALLBACK(handle_no_more_pads), v);
	v->bus = gst_element_get_bus(v->pipeline);
	return 0;
}

/* A NEXT request, the reader: merged into what the main thread applies next. */
static void merge_request(struct video *v, const struct veil_wire_request *request) {
	pthread_mutex_lock(&v->lock);
	for (uint32_t i = 0; i < request->n_released; i++) {
		int32_t id = request->released[i];
		if (id >= 0 && id < VEIL_WIRE_MAX_SLOTS) {
			v->next.released[id / 64] |= UINT64_C(1) << (id % 64);
		}
	}
	/* The cap is appsink's streaming thread's to read, at once. */
	v->fps = request->fps > 0 && request->fps <= 1000 ? request->fps : 0;
	v->next.playing = request->playing != 0;
	bool wake = !v->next.waiting;
	v->next.waiting = true;
	pthread_mutex_unlock(&v->lock);
	if (wake) {
		gst_element_post_message(v->pipeline, gst_message_new_application(
			GST_OBJECT(v->pipeline), gst_structure_new_empty("veil-next")));
	}
}

/* The main thread: the slots released since, back to the pool; played or paused. */
static void apply_requests(struct video *v) {
	GstBuffer *unref[VEIL_WIRE_MAX_SLOTS];
	int n = 0;
	pthread_mutex_lock(&v->lock);
	for (int id = 0; id < v->n_slots; id++) {
		if (!(v->next.released[id / 64] & UINT64_C(1) << (id % 64)) || !v->slots[id].held) {
			continue;
		}
		v->slots[id].held = false;
		if (v->slots[id].buffer != NULL) {
			unref[n++] = v->slots[id].buffer;
			v->slots[id].buffer = NULL;
		}
	}
	memset(v->next.released, 0, sizeof(v->next.released));
	v->next.waiting = false;
	bool playing = v->next.playing;
	pthread_mutex_unlock(&v->lock);
	/* Back to the pool, outside the lock: a streaming thread may wait for one. */
	for (int i = 0; i < n; i++) {
		gst_buffer_unref(unref[i]);
	}
	if (playing != v->playing) {
		v->playing = playing;
		gst_element_set_state(v->pipeline, playing ? GST_STATE_PLAYING : GST_STATE_PAUSED);
	}
}

/* From the start again, looping: a segment seek, else (after the end) a flushing one. */
static void seek_start(struct video *v, bool flush) {
	GstSeekFlags flags = GST_SEEK_FLAG_SEGMENT | (flush ? GST_SEEK_FLAG_FLUSH : 0);
	if (!gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, flags, 0)) {
		v->looping = false;
		if (flush) {
			gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
				0);
		}
	}
}

/*
 * The end of a loop (segment done, or the end of a stream that can't loop by segments): starts
 * it again, or not (MAX_*_LOOPS). 0, or a negative errno with a sentence: the video stops.
 */
static int loop_end(struct video *v, bool eos, char **message) {
	switch (veil_loop_guard_end(&v->loop_guard, g_get_monotonic_time(),
			__atomic_load_n(&v->sent, __ATOMIC_RELAXED), message)) {
	case VEIL_LOOP_STOP:
		return -EIO;
	case VEIL_LOOP_STAY:
		return 0; /* one frame: it stays */
	case VEIL_LOOP_AGAIN:
		break;
	}
	if (eos || !v->looping) {
		gst_element_seek_simple(v->pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0);
	} else {
		seek_start(v, false);
	}
	return 0;
}

/*
 * A bus message: 0, 1 when the compositor has closed its end, or a negative errno (with a
 * sentence) that ends the video.
 */
static int handle_message(struct video *v, GstMessage *msg, char **message) {
	switch (GST_MESSAGE_TYPE(msg)) {
	case GST_MESSAGE_ERROR: {
		GError *error = NULL;
		gst_message_parse_error(msg, &error, NULL);
		veil_message_set(message, "%s", error != NULL ? error->message : "GStreamer error");
		g_clear_error(&error);
		return -EIO;
	}
	case GST_MESSAGE_APPLICATION: {
		const GstStructure *s = gst_message_get_structure(msg);
		if (s != NULL && gst_structure_has_name(s, "veil-next")) {
			apply_requests(v);
			return 0;
		}
		pthread_mutex_lock(&v->lock);
		int err = v->refused;
		bool ended = v->ended;
		*message = v->refused_message;
		v->refused_message = NULL;
		pthread_mutex_unlock(&v->lock);
		return err < 0 ? err : ended ? 1 : 0;
	}
	case GST_MESSAGE_ASYNC_DONE:
		if (!v->looping && GST_MESSAGE_SRC(msg) == GST_OBJECT(v->pipeline)) {
			/* Prerolled: every loop from now on is a segment seek. */
			v->looping = true;
			seek_start(v, true);
		}
		return 0;
	case GST_MESSAGE_SEGMENT_DONE:
		return loop_end(v, false, message);
	case GST_MESSAGE_EOS:
		return loop_end(v, true, message);
	default:
		return 0;
	}
}

/*
 * The reader thread: the compositor's requests until it closes its end (or sends nonsense),
 * which it tells the main thread on the bus.
 */
static void *read_requests(void *data) {
	struct video *v = data;
	uint32_t ops = 1u << VEIL_WIRE_NEXT | (v->remote != NULL ? 1u << VEIL_WIRE_MEMORY : 0);
	for (;;) {
		struct veil_wire_request request;
		int fd;
		int ret = veil_serve_receive(v->sock, ops, &request, &fd);
		if (ret == -EPIPE || ret == -ECONNRESET) {
			pthread_mutex_lock(&v->lock);
			v->ended = true;
			pthread_mutex_unlock(&v->lock);
			gst_element_post_message(v->pipeline, gst_message_new_application(
				GST_OBJECT(v->pipeline), gst_structure_new_empty("veil-ended")));
			return NULL;
		}
		if (ret == 0 && request.op == VEIL_WIRE_MEMORY) {
			ret = take_memory(v, &request, fd);
		} else if (ret == 0) {
			merge_request(v, &request);
		}
		if (ret < 0) {
			refuse(v, ret, veil_message("the compositor sent a malformed request"));
			return NULL;
		}
	}
}

/* Until the compositor closes its end (0) or the video fails (a negative errno, a sentence). */
static int run(struct video *v, char **message) {
	GPollFD bus_fd;
	gst_bus_get_pollfd(v->bus, &bus_fd);
	if (gst_element_set_state(v->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
		veil_message_set(message, "the video's pipeline does not start");
		return -EIO;
	}
	int err = pthread_create(&v->reader, NULL, read_requests, v);
	if (err != 0) {
		veil_message_set(message, "cannot start a thread: %s", strerror(err));
		return -err;
	}
	for (;;) {
		struct pollfd pfd = { .fd = bus_fd.fd, .events = POLLIN };
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			return -errno;
		}
		GstMessage *msg;
		while ((msg = gst_bus_pop(v->bus)) != NULL) {
			int ret = handle_message(v, msg, message);
			gst_message_unref(msg);
			if (ret != 0) {
				return ret < 0 ? ret : 0;
			}
		}
	}
}

/*
 * appsink's caps for the formats the compositor takes as dmabufs ("video/x-raw,format={...}"),
 * best first; NULL when it takes none GStreamer knows.
 */
static char *dmabuf_caps(const struct veil_wire_request *request) {
	char list[VEIL_WIRE_FORMATS * 16] = "";
	size_t len = 0;
	for (int i = 0; i < VEIL_WIRE_FORMATS && request->dmabuf_formats[i] != 0; i++) {
		GstVideoFormat format = gst_video_dma_drm_fourcc_to_format(request->dmabuf_formats[i]);
		const char *name = format != GST_VIDEO_FORMAT_UNKNOWN ?
			gst_video_format_to_string(format) : NULL;
		if (name != NULL && len + strlen(name) + 2 < sizeof(list)) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
				len > 0 ? "," : "", name);
		}
	}
	return len > 0 ? veil_message("video/x-raw,format={%s}", list) : NULL;
}

static void init_video(struct video *v, int sock) {
	v->sock = sock;
	v->last_pts = GST_CLOCK_TIME_NONE;
	v->next_running = GST_CLOCK_TIME_NONE;
	pthread_mutex_init(&v->lock, NULL);
	pthread_mutex_init(&v->ask_lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&v->answered, &attr);
	pthread_condattr_destroy(&attr);
	snprintf(v->decoder, sizeof(v->decoder), "gstreamer");
}

int veil_serve_video(int sock, const struct veil_wire_request *request, int fd) {
	struct video *v = calloc(1, sizeof(*v));
	char *message = NULL;
	int ret = v != NULL ? 0 : -ENOMEM;
	if (v != NULL) {
		init_video(v, sock);
	}
	/* The registry and the plugins are read before the sandbox, as for a still. */
	if (ret == 0) {
		ret = veil_gst_init(&message);
	}
	/* Frames in the compositor's dmabufs, for a renderer that imports them. */
	if (ret == 0 && request->dmabuf_formats[0] != 0) {
		v->dmabuf_caps = dmabuf_caps(request);
		v->remote = v->dmabuf_caps != NULL ? veil_remote_allocator_new(ask_memory, v) : NULL;
	}
	if (ret == 0) {
		gst_shm_allocator_init_once();
		v->shm = gst_shm_allocator_get();
		ret = v->shm != NULL ? 0 : -ENOTSUP;
		if (ret < 0) {
			veil_message_set(&message, "GStreamer has no memfd allocator");
		}
	}
	/* No CPU limit (it plays as long as it is shown); the file may be opened again. */
	if (ret == 0) {
		ret = veil_sandbox_enter(0, fd, &message);
	}
	if (ret == 0) {
		ret = build(v, fd, &message);
	}
	if (ret == 0) {
		ret = run(v, &message);
	}
	if (ret < 0) {
		ret = veil_serve_fail(sock, ret, message != NULL ? message : strerror(-ret));
		ret = ret == 0 || ret == -EPIPE ? 0 : 1;
	}
	free(message);
	/* The pipeline and the reader are left running: the caller exits at once. */
	return ret;
}
