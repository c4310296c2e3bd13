/*
 * The compositor's side of veil-decoder (wire/wire.h): one sandboxed process a decode,
 * started ahead of it (spare.h) from a worker thread, and treated as untrusted.
 */
#ifndef VEIL_SOURCE_REMOTE_CLIENT_H
#define VEIL_SOURCE_REMOTE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include "source/remote/frame_pool.h"
#include "wire/wire.h"
#include "decode/colour.h"
#include "decode/sniff.h"
#include "util/image.h"

/* Wall-clock limit on one decode unless the compositor sets another (veil_scene_options). */
#define VEIL_DECODER_TIMEOUT_MS 30000

struct veil_helper_spare;

struct veil_helper;

/*
 * Takes spare's helper (NULL: a new one) and sends it its first request with the file. A helper
 * that leaves that request unread for 5 s is not decoding (stuck since it started, or stopped
 * by someone): it is killed and another one gets the request, once. Blocks (a worker thread
 * only) up to those 5 s when the helper neither reads nor answers. Returns the milliseconds
 * left of the decoder's time limit (veil_helper_spare_timeout_ms()) for the answer, or a negative
 * errno with a sentence in *message (no helper then; spare is refilled, after the usual delay).
 */
int veil_decoder_begin(struct veil_helper_spare *spare, struct veil_helper *helper,
	const struct veil_wire_request *request, int fd, char **message);

/*
 * veil_still_decode() of the decoder of this kind, in veil-decoder: spare's helper when it has
 * one (NULL: a new one), and the next spare started after. Blocks (a worker thread
 * only) until the helper replies, dies or runs out of time. On success *image holds read-only
 * mapped pixels (mapped_size > 0) and decoder (size bytes) the library that decoded them. A
 * helper that crashed, hung or answered nonsense is a negative errno with a sentence in
 * *message: "decoder crashed (SIGSEGV)", "decoder took longer than 30 s", ...
 */
int veil_decoder_run(struct veil_helper_spare *spare, enum veil_media_kind kind, int fd,
	int item, int cover_width, int cover_height, enum veil_image_filter filter, struct veil_image *image,
	int *original_width, int *original_height, char *decoder, size_t size,
	struct veil_colour_result *colour, char **message);

/*
 * The reply of a helper on sock, within ms: every field checked against what veil itself would
 * make, the pixels mapped read-only into *image. What veil_decoder_run() returns; *answered
 * when a whole message came (a helper that has not answered is still running, or dead).
 */
int veil_decoder_receive(int sock, int ms, struct veil_image *image, int *original_width,
	int *original_height, char *decoder, size_t size, struct veil_colour_result *colour,
	bool *answered, char **message);

/* An animation's frame as the helper describes it, checked: 0 <= index < frames, delay >= 1. */
struct veil_decoder_frame {
	int frames, index, delay_ms, plays;
};

struct veil_frame_pool;

/*
 * The same for an animation's frame: its description into *frame and its pixels, in one of
 * the helper's memfds (pool), into *image (borrowed from the pool until the image is finished
 * or the buffer that takes it over goes).
 */
int veil_decoder_receive_frame(int sock, int ms, struct veil_frame_pool *pool,
	struct veil_image *image, int *original_width, int *original_height,
	struct veil_decoder_frame *frame, bool *answered, char **message);

/* A video's frame as the helper describes it (wire.h: a video streams). */
struct veil_decoder_video_frame {
	/* A frame in a dmabuf of the compositor's (memory.release set), not in image. */
	struct veil_memory_frame memory;
	/* VEIL_DECODER_MEMORY: the helper asks for a dmabuf of this many bytes. */
	int memory_size;
	int index, loops, copies;
	int duration_ms; /* how long it shows, as the helper says (0: unknown) */
	int position_ms; /* where it is in the stream, as the helper says (-1: unknown) */
	char decoder[32]; /* the video decoder's factory name, "gstreamer" before one is known */
	char elements[VEIL_WIRE_TEXT]; /* what its pipeline is made of, as the helper says */
};

/*
 * The same for a video's frame, ready on sock (the compositor thread waits for nothing: ms may
 * be 0), its pixels in one of the helper's memfds (pool) as an animation's, or in a dmabuf the
 * compositor gave it (frame->memory). Or VEIL_DECODER_MEMORY: the helper asks for a dmabuf
 * (frame->memory_size), answered with a MEMORY request.
 */
#define VEIL_DECODER_MEMORY 1
/* The largest dmabuf a helper may ask for: a frame of 8192x8192, 4 bytes a pixel. */
#define VEIL_DECODER_MAX_MEMORY (8192 * 8192 * 4)
int veil_decoder_receive_video_frame(int sock, int ms, struct veil_frame_pool *pool,
	struct veil_image *image, struct veil_decoder_video_frame *frame, bool *answered,
	char **message);

/* A receive's -ETIMEDOUT (ret) becomes a message naming the spare's time limit. */
void veil_decoder_name_timeout(const struct veil_helper_spare *spare, int ret, char **message);

#endif
