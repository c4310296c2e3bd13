/*
 * A video in veil-decoder (wire.h: a video streams):
 *
 *   filesrc (/proc/self/fd/N) ! decodebin ! videoconvert ! appsink (BGRx or BGRA)
 *
 * the one player of decode/video/player.h, as in the compositor's process, with software
 * decoders only; its frames go to the compositor over the wire (serve_video_frames.c). appsink
 * paces the frames at their time and this process sends each as it comes. appsink takes the
 * decoder's frames as they are (videoconvert passes them through): each is converted to BGRx
 * when its time comes, into a memfd of a pool of this process's (GstShmAllocator), so that
 * two converted frames are in flight (the one on screen, the one sent) rather than one more
 * waiting for its time. A decoder that gives BGRx or BGRA itself decodes into memfds of a pool
 * offered to it. Each memfd is sent once, with the first frame in it, and a frame's buffer is
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
 * stream lock a decoder holds while it allocates), gives the frames the compositor released
 * back to their pool and sets the cap; only play or pause, which the main thread applies, wakes
 * that thread too (a message on the bus): one wake-up a frame, as when it read them itself.
 * appsink's streaming thread sends frames. The main and streaming threads send on the socket
 * (one datagram a message).
 *
 * In three files: serve_video.c, the pipeline and the main thread; serve_video_frames.c, each
 * frame from appsink to the compositor and the pools it is decoded into; serve_video_requests.c,
 * the reader.
 */
#ifndef VEIL_HELPER_SERVE_VIDEO_H
#define VEIL_HELPER_SERVE_VIDEO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "wire/wire.h"
#include "decode/video/player.h"
#include "decode/video/segment_chain.h"

struct veil_served_slot {
	GstBuffer *buffer; /* a pool frame the compositor holds (a reference), else NULL */
	int fd; /* the pool memory's descriptor (GStreamer's), -1 for a copy slot */
	ino_t ino; /* its inode: a number closed and reused is another memfd */
	uint8_t *data; /* a copy slot's mapping (its memfd closed once sent) */
	size_t size;
	bool held;
};

struct veil_served_video {
	int sock;
	/* The pipeline and what its streaming threads learn, as in process (player.h). */
	struct veil_player player;
	GstAllocator *shm;
	/* Frames in the compositor's dmabufs: appsink's caps ("video/x-raw,format=..."), else NULL. */
	char *dmabuf_caps;
	GstAllocator *remote;

	pthread_mutex_t lock, ask_lock;
	/* Under lock. */
	struct veil_served_slot slots[VEIL_WIRE_MAX_SLOTS];
	int n_slots;
	/* Play or pause, as the compositor last asked: the main thread's to apply. */
	bool want_playing;
	bool want_waiting; /* a message on the bus says it changed */
	/* A position to go on from (ms), -1 for none: the main thread's to apply once prerolled. */
	int64_t want_seek_ms;
	bool ended; /* the compositor closed its end */
	bool unread; /* the reader is gone (ended, or a malformed request): no answer will come */
	/* The compositor's dmabufs: their descriptors by index (slot), and one asked for. */
	int memories[VEIL_WIRE_MAX_SLOTS];
	int n_memories;
	bool asking; /* under ask_lock too: a decoder's threads may allocate at once */
	int answer; /* a descriptor, or a negative errno; -EINPROGRESS until the compositor answers */
	pthread_cond_t answered;
	/* Slots released, counted: a conversion may wait for one (serve_video_frames.c). */
	uint64_t releases;
	pthread_cond_t released;
	GstBufferPool *pool; /* a reference: the remote pool offered last, for copies */

	/*
	 * The position of a seek under way (atomic, ms), -1 for none: its preroll is sent, as the
	 * first one is (other prerolls are frames played again, or of a seek it replaced). Set by
	 * the main thread before the seek, cleared by the streaming thread that sends the frame.
	 */
	int64_t seek_preroll_ms;

	/* appsink's streaming thread. */
	bool sent_first;
	int loops; /* frames went back in time: the video started again (the seam) */
	const GstBuffer *last;
	GstClockTime last_pts;
	int32_t index;
	uint64_t copies;
	GstCaps *described; /* a reference: the caps the pipeline was last described at */
	/*
	 * The decoder's frames converted to BGRx (BGRA) for pixman as each is sent, into a pool
	 * of memfds of their own: the converter and the pool for frames of convert_caps.
	 */
	GstCaps *convert_caps;
	GstVideoConverter *converter;
	GstVideoInfo convert_info;
	GstBufferPool *convert_pool;
	char elements[VEIL_WIRE_TEXT];

	uint64_t sent; /* frames sent: atomic, read by the main thread at each loop's end */

	pthread_t reader; /* never joined: the process exits when the video ends */

	/* Main thread. */
	bool playing;
	bool prerolled; /* the first ASYNC_DONE came: looping is armed (player.h) */
};

/* serve_video.c, any thread: the stream is refused (err < 0, message taken); the video ends. */
void veil_served_video_refuse(struct veil_served_video *v, int err, char *message);

/* serve_video_frames.c: appsink's callbacks (data: the video), on its streaming thread. */
GstFlowReturn veil_served_video_new_sample(GstAppSink *sink, gpointer data);
GstFlowReturn veil_served_video_new_preroll(GstAppSink *sink, gpointer data);
gboolean veil_served_video_propose_allocation(GstAppSink *sink, GstQuery *query,
	gpointer data);
/* remote_allocator.h's ask (data: the video): a streaming thread waits for the answer. */
int veil_served_video_ask_memory(void *data, size_t size);
/* A MEMORY request, the reader: the answer to the ask, fd taken. 0, or -EPROTO. */
int veil_served_video_take_memory(struct veil_served_video *v,
	const struct veil_wire_request *request, int fd);

/* serve_video_requests.c: the reader, started once; 0 or a negative errno with a sentence. */
int veil_served_video_start_reader(struct veil_served_video *v, char **message);
/* The main thread, at the reader's message on the bus: played or paused, as last asked. */
void veil_served_video_apply_requests(struct veil_served_video *v);

#endif
