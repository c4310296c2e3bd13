/*
 * What the compositor and veil-decoder say to each other over their socketpair
 * (SOCK_SEQPACKET: one message a datagram). Both messages have a fixed size; the compositor
 * treats every field of a reply as untrusted (source/remote/client.c checks them all).
 *
 *   compositor -> helper: struct veil_wire_request, op DECODE, with the file's descriptor
 *                         (SCM_RIGHTS, read-only, opened by the compositor: the helper opens no
 *                         paths).
 *   helper -> compositor: struct veil_wire_reply; when status is 0, with one descriptor: a
 *                         memfd sealed against writes, growing and shrinking, holding
 *                         height rows of stride bytes of DRM_FORMAT_[AX]RGB8888 pixels.
 * A still is one request and one reply. An animation (anim is its format) is one reply a frame:
 * the first answers the DECODE request, each later one a NEXT request (no descriptor), until
 * the compositor closes its end. Its frames are recycled: each is in one of the helper's
 * memfds (slot), sealed against growing and shrinking only, sent with the frame that first
 * uses it; a NEXT request lists the slots whose frames the compositor no longer holds, and
 * only those may be written again.
 *
 * A video (kind VIDEO, anim NONE) streams: the helper plays it itself, paced by its pipeline's
 * clock and looping, and sends one reply a frame as it comes, the first once the video is
 * prerolled; frames are in slots as an animation's (the memfds its pipeline decodes into, sent
 * with the frame that first uses one). The compositor sends NEXT whenever it releases slots or
 * wants the video played, paused (playing), capped (fps) or moved to a position (seek); the
 * helper answers none of them. Each frame says where it is in the stream (position_ms).
 *
 * A video for a renderer that imports dmabufs: the DECODE request lists the formats the
 * compositor takes as linear dmabufs (dmabuf_formats), and the helper decodes into memory the
 * compositor allocated (its GPU's, or udmabufs: no copy, no conversion on the CPU). For each
 * buffer its pipeline's pool needs, the helper asks (a reply with memory_size, no frame) and
 * the compositor answers with a MEMORY request carrying one dmabuf of that size, or none when
 * it has none to give (memory -1). Each frame then names the memory it is in (memory 1, slot
 * the index of the memory in the order given), no descriptor, with its planes' layout.
 *
 * The helper is two processes: a monitor, started by the compositor, forks the process that
 * decodes (before either parses anything) and waits for it. When the decoding process ends
 * without a reply, the monitor sends one with status -ECHILD and how it ended (exit_signal or
 * exit_code): the compositor's own SIGCHLD handling (a waitpid(-1) loop) cannot take that from
 * veil. Then the helper exits: one helper a decode (a still, or an animation's every frame).
 */
#ifndef VEIL_WIRE_WIRE_H
#define VEIL_WIRE_WIRE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The CPU seconds a still's decoding process may use (SIGXCPU, then SIGKILL a second later):
 * the helper's limit, which the compositor names when a helper ends by it.
 */
#define VEIL_WIRE_MAX_CPU 30

#define VEIL_WIRE_MAGIC 0x6c696576u /* "veil" in memory on little-endian hosts */
#define VEIL_WIRE_VERSION 10u
/* The socket the helper is started with. */
#define VEIL_WIRE_FD 3
/* An animation's memfds: slots 0 to this - 1; a NEXT request releases at most RELEASED. */
#define VEIL_WIRE_MAX_SLOTS 512
#define VEIL_WIRE_RELEASED 16
/* Descriptors a message may carry at most (one is the most either side sends). */
#define VEIL_WIRE_MAX_FDS 4
/* A reply's text. */
#define VEIL_WIRE_TEXT 256
/* Formats in a DECODE request; planes of a frame. */
#define VEIL_WIRE_FORMATS 8
#define VEIL_WIRE_PLANES 4

enum veil_wire_op {
	VEIL_WIRE_DECODE, /* the first request, with the file */
	VEIL_WIRE_NEXT, /* an animation's next frame; a video's released slots and state */
	VEIL_WIRE_MEMORY, /* a video's: a dmabuf for its pool (or none: memory -1) */
};

struct veil_wire_request {
	uint32_t magic, version;
	uint32_t op; /* enum veil_wire_op */
	uint32_t kind; /* enum veil_media_kind of the decoder the header was checked with */
	uint32_t anim; /* enum veil_anim_format; VEIL_ANIM_NONE (0) for a still */
	int32_t cover_width, cover_height; /* shrink to cover this; 0: keep every pixel */
	uint32_t filter; /* DECODE of a still or an animation: enum veil_image_filter to shrink */
	/* NEXT: the slots the compositor released since its last request. */
	uint32_t n_released;
	int32_t released[VEIL_WIRE_RELEASED];
	/* NEXT of a video: whether it plays (else it pauses) and its frame rate cap (0: none). */
	int32_t playing, fps;
	/* DECODE of a video: DRM fourccs taken as linear dmabufs, best first, 0 after the last. */
	uint32_t dmabuf_formats[VEIL_WIRE_FORMATS];
	/* MEMORY: the memory's index (0, 1, ... in the order given), or -1: none to give. */
	int32_t memory;
	/*
	 * DECODE or NEXT of a video: with seek 1, go on from seek_ms into the stream (DECODE:
	 * the first frame sent is the one there). A NEXT without seek leaves the position alone.
	 */
	int32_t seek, seek_ms;
	/* DECODE of a still: its item-th top-level image (from 1, a HEIF's), 0 for its own. */
	int32_t item;
};

struct veil_wire_reply {
	uint32_t magic, version;
	int32_t status; /* 0, or a negative errno (then message says why) */
	int32_t width, height, stride;
	uint32_t drm_format;
	int32_t original_width, original_height;
	int32_t frames; /* a still's frames in the file; an animation's */
	/*
	 * An animation's frame: which one, how long it shows; how many plays (0: for ever); the
	 * slot it is in (a descriptor comes with it when the slot is new).
	 */
	int32_t index, delay_ms, plays, slot;
	/*
	 * A video's: times it started again from the beginning; frames copied into memfds. Its
	 * frame's delay_ms is how long the frame shows (0: unknown).
	 */
	int32_t loops, copies;
	/* With status -ECHILD: the decoding process ended on this signal, or with this code. */
	int32_t exit_signal, exit_code;
	/* A video's: a request for a dmabuf of this many bytes (no frame, no descriptor), or 0. */
	int32_t memory_size;
	/*
	 * A video's frame in a dmabuf of the compositor's (memory 1: slot is its index): its
	 * planes, each an offset into the memory and a stride (n_planes as drm_format has).
	 */
	int32_t memory, n_planes;
	int32_t offsets[VEIL_WIRE_PLANES], strides[VEIL_WIRE_PLANES];
	/*
	 * Its colour space, for the GPU (util/colour_space.h): the YUV matrix (0 BT.601,
	 * 1 BT.709, 2 BT.2020) and range (1: full), the transfer function (0 SDR, 1 PQ, 2 HLG),
	 * the primaries (0 BT.709, 1 BT.2020). A still's transfer and primaries too: an HDR
	 * still's pixels are kept as decoded (decode/colour.h), matrix and range are 0.
	 */
	int32_t matrix, full_range, transfer, primaries;
	char decoder[32]; /* NUL-terminated: "libpng", "gstreamer", ... */
	/*
	 * A still's colour, what was done to it (NUL-terminated: "Display P3 (ICC) -> sRGB"), and
	 * 1 when the file's profile could not be used (shown as sRGB; colour says why).
	 */
	char colour[96];
	int32_t colour_fallback;
	/*
	 * NUL-terminated, when status < 0; with a video's frame, the elements that work on its
	 * frames (factory names, space-separated: "qtdemux h264parse avdec_h264 ...").
	 */
	char message[VEIL_WIRE_TEXT];
	/* A video's frame: where it is in the stream (stream time, in ms), -1 when unknown. */
	int32_t position_ms;
};

/*
 * Sends one datagram of len bytes, with fd as SCM_RIGHTS when fd >= 0 (both sides' messages).
 * 0 or a negative errno.
 */
int veil_wire_send(int sock, const void *data, size_t len, int fd);

/*
 * Receives one datagram into data, of at most len bytes, and the descriptors that came with it
 * (close-on-exec, *nfds of them in fds). Returns its length (0 at the end of the stream, when
 * the other side closed its end), -EMSGSIZE for a datagram longer than len or with more than
 * VEIL_WIRE_MAX_FDS descriptors (none kept), or another negative errno. Blocks until one
 * comes. Both sides' messages: the caller checks the length and the descriptors it expects.
 */
int veil_wire_receive(int sock, void *data, size_t len, int fds[VEIL_WIRE_MAX_FDS], int *nfds);

/* Closes the descriptors a message came with; *nfds becomes 0. */
void veil_wire_close(int *fds, int *nfds);

#endif
