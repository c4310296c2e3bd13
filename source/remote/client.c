#define _GNU_SOURCE /* F_SEAL_*, sigabbrev_np */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <wlr/util/log.h>
#include "decode/anim.h"
#include "source/remote/client.h"
#include "source/remote/frame_pool.h"
#include "source/remote/map.h"
#include "source/remote/spare.h"
#include "wire/wire.h"
#include "util/message.h"

/* Why a helper ended without an answer, as the status shows it. */
static int describe_end(int status, char **message) {
	if (WIFEXITED(status)) {
		veil_message_set(message, "decoder exited with status %d without an answer",
			WEXITSTATUS(status));
		return -EIO;
	}
	if (!WIFSIGNALED(status)) {
		veil_message_set(message, "decoder ended without an answer");
		return -EIO;
	}
	int sig = WTERMSIG(status);
	const char *name = sigabbrev_np(sig);
	switch (sig) {
	case SIGABRT:
		veil_message_set(message, "decoder aborted (SIGABRT)");
		return -EIO;
	case SIGXCPU:
		veil_message_set(message, "decoder used more than %d s of CPU time (SIGXCPU)",
			VEIL_WIRE_MAX_CPU);
		return -ETIMEDOUT;
	case SIGSYS:
		veil_message_set(message, "decoder made a forbidden system call (SIGSYS)");
		return -EPERM;
	case SIGKILL:
		/* Not ours (we kill only after a timeout): the kernel's out-of-memory killer. */
		veil_message_set(message, "decoder ran out of memory (SIGKILL)");
		return -ENOMEM;
	default:
		veil_message_set(message, "decoder crashed (SIG%s)", name != NULL ? name : "?");
		return -EIO;
	}
}

/*
 * The reply and the descriptors that came with it (*nfds of them). 1 with a whole reply, 0 at
 * the end of the stream (the helper is gone), -ETIMEDOUT, or another negative errno.
 */
static int receive_reply(int sock, int ms, struct veil_wire_reply *reply,
		int fds[VEIL_WIRE_MAX_FDS], int *nfds, bool *malformed) {
	*nfds = 0;
	*malformed = false;
	int64_t deadline = veil_helper_now_ms() + ms;
	for (;;) {
		int64_t left = deadline - veil_helper_now_ms();
		if (ms > 0 && left <= 0) {
			return -ETIMEDOUT;
		}
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int r = poll(&pfd, 1, ms > 0 ? (int)left : 0);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			return -errno;
		}
		if (r > 0) {
			break;
		}
		if (ms == 0) {
			return -ETIMEDOUT; /* nothing ready, and nothing to wait for */
		}
	}
	int n = veil_wire_receive(sock, reply, sizeof(*reply), fds, nfds);
	if (n == 0 && *nfds == 0) {
		return 0;
	}
	if (n < 0 && n != -EMSGSIZE) {
		return n;
	}
	*malformed = (size_t)n != sizeof(*reply);
	return 1;
}

/* A NUL-terminated copy of a string field of at most size bytes, printable only. */
static void copy_field(char *dst, size_t dst_size, const char *src, size_t size) {
	size_t len = strnlen(src, size);
	if (len >= dst_size) {
		len = dst_size - 1;
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
	veil_message_sanitize(dst);
}

/*
 * The picture's fields of a successful reply checked against what veil itself would make. 0,
 * or -EPROTO with what was wrong in *message.
 */
static int check_picture(const struct veil_wire_reply *reply, char **message) {
	/* A video's frame in the compositor's dmabuf: its planes are checked with its memory. */
	bool memory = reply->memory != 0;
	int64_t width = reply->width, height = reply->height, stride = reply->stride;
	if (width <= 0 || height <= 0 || width > VEIL_IMAGE_MAX_SIDE ||
			height > VEIL_IMAGE_MAX_SIDE || width * height > VEIL_IMAGE_MAX_PIXELS) {
		veil_message_set(message, "decoder answered an impossible size %" PRId64 "x%" PRId64,
			width, height);
		return -EPROTO;
	}
	if (!memory && (stride < width * 4 || stride % 4 != 0 ||
			stride > (int64_t)VEIL_IMAGE_MAX_SIDE * 4)) {
		veil_message_set(message, "decoder answered a stride of %" PRId64 " bytes for %" PRId64
			" pixels a row", stride, width);
		return -EPROTO;
	}
	if (!memory && reply->drm_format != DRM_FORMAT_ARGB8888 &&
			reply->drm_format != DRM_FORMAT_XRGB8888) {
		veil_message_set(message, "decoder answered an unknown pixel format 0x%08x",
			reply->drm_format);
		return -EPROTO;
	}
	/*
	 * The file's own size is only told (the status): an SVG's may be smaller than the pixels
	 * drawn to cover an output, or larger than veil's limits (nothing that size is made).
	 */
	if (reply->original_width <= 0 || reply->original_height <= 0 || reply->frames < 0) {
		veil_message_set(message, "decoder answered an impossible original size %dx%d",
			reply->original_width, reply->original_height);
		return -EPROTO;
	}
	return 0;
}

/* A still's pixels: one memfd sealed against every change. */
static int accept_pixels(const struct veil_wire_reply *reply,
		const int fds[VEIL_WIRE_MAX_FDS], int nfds, struct veil_image *image,
		int *original_width, int *original_height, char **message) {
	if (nfds != 1) {
		veil_message_set(message, "decoder answered with %d descriptors, not 1", nfds);
		return -EPROTO;
	}
	int64_t width = reply->width, height = reply->height, stride = reply->stride;
	size_t size = (size_t)stride * (size_t)height;
	void *data;
	int ret = veil_decoder_map_memfd(fds[0], F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE, size,
		"decoder's picture", &data, message);
	if (ret < 0) {
		return ret;
	}
	*image = (struct veil_image){
		.width = (int)width,
		.height = (int)height,
		.stride = (int)stride,
		.drm_format = reply->drm_format,
		.data = data,
		.mapped_size = size,
		.frames = reply->frames,
	};
	*original_width = reply->original_width;
	*original_height = reply->original_height;
	return 0;
}

/* An animation's frame: 0, or -EPROTO with what was wrong. */
static int accept_frame(const struct veil_wire_reply *reply, struct veil_decoder_frame *frame,
		char **message) {
	if (reply->frames < 1 || reply->frames > VEIL_ANIM_MAX_FRAMES || reply->index < 0 ||
			reply->index >= reply->frames || reply->delay_ms < 1 || reply->plays < 0) {
		veil_message_set(message, "decoder answered an impossible frame (%d of %d, %d ms, "
			"%d plays)", reply->index, reply->frames, reply->delay_ms, reply->plays);
		return -EPROTO;
	}
	*frame = (struct veil_decoder_frame){
		.frames = reply->frames,
		.index = reply->index,
		.delay_ms = reply->delay_ms,
		.plays = reply->plays,
	};
	return 0;
}

void veil_decoder_name_timeout(const struct veil_helper_spare *spare, int ret,
		char **message) {
	if (ret != -ETIMEDOUT) {
		return;
	}
	/* Every wait on a helper is a part of its time limit: the limit is what the user is told. */
	if (message != NULL) {
		free(*message); /* the receive's own words, without the limit */
	}
	int ms = veil_helper_spare_timeout_ms(spare);
	if (ms % 1000 == 0) {
		veil_message_set(message, "decoder took longer than %d s", ms / 1000);
	} else {
		veil_message_set(message, "decoder took longer than %d ms", ms);
	}
}

/*
 * A whole, well-formed, successful reply with its picture's fields checked, and the descriptors
 * that came with it (the caller closes them); or a negative errno with a sentence, the
 * descriptors closed. *answered when a whole message came.
 */
static int receive_checked(int sock, int ms, bool video, struct veil_wire_reply *reply,
		int fds[VEIL_WIRE_MAX_FDS], int *nfds, char *decoder, size_t size, bool *answered,
		char **message) {
	*answered = false;
	*nfds = 0;
	bool malformed = false;
	int ret;
	int got = receive_reply(sock, ms, reply, fds, nfds, &malformed);
	if (got == -ETIMEDOUT) {
		/* The caller names the limit (veil_decoder_name_timeout()). */
		veil_message_set(message, "decoder took longer than its time limit");
		return -ETIMEDOUT;
	}
	if (got <= 0) {
		veil_message_set(message, "decoder ended without an answer");
		return -EIO;
	}
	*answered = true;
	if (malformed || reply->magic != VEIL_WIRE_MAGIC || reply->version != VEIL_WIRE_VERSION) {
		veil_message_set(message, "decoder answered a malformed message");
		ret = -EPROTO;
		goto fail;
	}
	copy_field(decoder, size, reply->decoder, sizeof(reply->decoder));
	if (reply->status == -ECHILD) {
		/* The monitor's word on how the decoding process ended. */
		if (reply->exit_signal > 0 && reply->exit_signal < NSIG) {
			ret = describe_end(W_EXITCODE(0, reply->exit_signal), message);
		} else if (reply->exit_signal == 0 && reply->exit_code >= 0 &&
				reply->exit_code <= 255) {
			ret = describe_end(W_EXITCODE(reply->exit_code, 0), message);
		} else {
			veil_message_set(message, "decoder answered a malformed message");
			ret = -EPROTO;
		}
		goto fail;
	}
	if (reply->status < 0) {
		char text[sizeof(reply->message)];
		copy_field(text, sizeof(text), reply->message, sizeof(reply->message));
		ret = reply->status >= -4095 ? reply->status : -EIO;
		if (ret == -ENOMEM) {
			veil_message_set(message, "decoder ran out of memory (%s)", text);
		} else {
			veil_message_set(message, "%s", text[0] != '\0' ? text : strerror(-ret));
		}
		goto fail;
	}
	if (reply->status > 0) {
		veil_message_set(message, "decoder answered a malformed message");
		ret = -EPROTO;
		goto fail;
	}
	/* Only a video's helper asks for memory, or decodes into it. */
	if (!video && (reply->memory_size != 0 || reply->memory != 0)) {
		veil_message_set(message, "decoder answered a malformed message");
		ret = -EPROTO;
		goto fail;
	}
	ret = reply->memory_size != 0 ? 0 : check_picture(reply, message);
	if (ret == 0) {
		return 0;
	}
fail:
	veil_wire_close(fds, nfds);
	return ret;
}

int veil_decoder_receive(int sock, int ms, struct veil_image *image, int *original_width,
		int *original_height, char *decoder, size_t size, struct veil_colour_result *colour,
		bool *answered, char **message) {
	*image = (struct veil_image){0};
	*colour = (struct veil_colour_result){0};
	struct veil_wire_reply reply;
	int fds[VEIL_WIRE_MAX_FDS];
	int nfds;
	int ret = receive_checked(sock, ms, false, &reply, fds, &nfds, decoder, size, answered,
		message);
	/* A still's: RGB, so no matrix nor range; SDR or an HDR still's curve and primaries. */
	if (ret == 0 && (reply.matrix != 0 || reply.full_range != 0 ||
			!veil_colour_space_valid(0, 0, reply.transfer, reply.primaries))) {
		veil_message_set(message, "decoder answered an impossible colour space (%d, %d, %d, "
			"%d)", reply.matrix, reply.full_range, reply.transfer, reply.primaries);
		ret = -EPROTO;
	}
	if (ret == 0) {
		/* Text from the helper, as untrusted as the rest: what prints, quotes and all. */
		copy_field(colour->said, sizeof(colour->said), reply.colour, sizeof(reply.colour));
		colour->fell_back = reply.colour_fallback != 0;
		colour->space = (struct veil_colour_space){
			.transfer = (enum veil_transfer)reply.transfer,
			.primaries = (enum veil_primaries)reply.primaries,
		};
		ret = accept_pixels(&reply, fds, nfds, image, original_width, original_height,
			message);
	}
	veil_wire_close(fds, &nfds);
	return ret;
}

int veil_decoder_receive_frame(int sock, int ms, struct veil_frame_pool *pool,
		struct veil_image *image, int *original_width, int *original_height,
		struct veil_decoder_frame *frame, bool *answered, char **message) {
	*image = (struct veil_image){0};
	struct veil_wire_reply reply;
	int fds[VEIL_WIRE_MAX_FDS];
	int nfds;
	char decoder[sizeof(reply.decoder)];
	int ret = receive_checked(sock, ms, false, &reply, fds, &nfds, decoder, sizeof(decoder),
		answered, message);
	if (ret == 0) {
		ret = accept_frame(&reply, frame, message);
	}
	if (ret == 0 && nfds > 1) {
		veil_message_set(message, "decoder answered with %d descriptors, not 0 or 1", nfds);
		ret = -EPROTO;
	}
	if (ret == 0) {
		ret = veil_frame_pool_accept(pool, reply.slot, nfds == 1 ? fds[0] : -1, reply.width,
			reply.height, reply.stride, reply.drm_format, image, message);
	}
	if (ret == 0) {
		*original_width = reply.original_width;
		*original_height = reply.original_height;
	}
	veil_wire_close(fds, &nfds);
	return ret;
}

int veil_decoder_receive_video_frame(int sock, int ms, struct veil_frame_pool *pool,
		struct veil_image *image, struct veil_decoder_video_frame *frame, bool *answered,
		char **message) {
	*image = (struct veil_image){0};
	struct veil_wire_reply reply;
	int fds[VEIL_WIRE_MAX_FDS];
	int nfds;
	frame->memory = (struct veil_memory_frame){0};
	int ret = receive_checked(sock, ms, true, &reply, fds, &nfds, frame->decoder,
		sizeof(frame->decoder), answered, message);
	if (ret == 0 && reply.memory_size != 0) {
		if (reply.memory_size < 0 || reply.memory_size > VEIL_DECODER_MAX_MEMORY || nfds != 0) {
			veil_message_set(message, "decoder asked for a memory of %d bytes",
				reply.memory_size);
			ret = -EPROTO;
		} else {
			frame->memory_size = reply.memory_size;
			ret = VEIL_DECODER_MEMORY;
		}
		veil_wire_close(fds, &nfds);
		return ret;
	}
	if (ret == 0 && (reply.index < 0 || reply.loops < 0 || reply.copies < 0 ||
			reply.delay_ms < 0 || nfds > 1 || (reply.memory != 0 && nfds != 0) ||
			reply.memory < 0 || reply.memory > 1 || !veil_colour_space_valid(reply.matrix,
			reply.full_range, reply.transfer, reply.primaries) || reply.position_ms < -1)) {
		veil_message_set(message, "decoder answered an impossible video frame (%d, %d loops, "
			"%d ms, %d descriptors)", reply.index, reply.loops, reply.delay_ms, nfds);
		ret = -EPROTO;
	}
	if (ret == 0 && reply.memory != 0) {
		ret = veil_frame_pool_accept_memory(pool, reply.slot, reply.width, reply.height,
			reply.drm_format, reply.n_planes, reply.offsets, reply.strides,
			&frame->memory, message);
		frame->memory.space = (struct veil_colour_space){
			.matrix = (enum veil_yuv_matrix)reply.matrix,
			.full_range = reply.full_range == 1,
			.transfer = (enum veil_transfer)reply.transfer,
			.primaries = (enum veil_primaries)reply.primaries,
		};
	} else if (ret == 0) {
		ret = veil_frame_pool_accept(pool, reply.slot, nfds == 1 ? fds[0] : -1, reply.width,
			reply.height, reply.stride, reply.drm_format, image, message);
	}
	if (ret == 0) {
		frame->index = reply.index;
		frame->loops = reply.loops;
		frame->copies = reply.copies;
		frame->duration_ms = reply.delay_ms;
		frame->position_ms = reply.position_ms;
		copy_field(frame->elements, sizeof(frame->elements), reply.message,
			sizeof(reply.message));
	}
	veil_wire_close(fds, &nfds);
	return ret;
}

/* A helper that leaves its first request unread this long is started again (below). */
#define UNREAD_MS 5000

/* Whether the peer has not read all that was sent on sock (AF_UNIX: bytes not yet taken). */
static bool request_unread(int sock) {
	int queued = 0;
	return ioctl(sock, SIOCOUTQ, &queued) == 0 && queued > 0;
}

/* Whether sock has something to read (a reply, or the helper's end) within ms. */
static bool readable_within(int sock, int ms) {
	int64_t deadline = veil_helper_now_ms() + ms;
	for (;;) {
		int64_t left = deadline - veil_helper_now_ms();
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int r = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		return r != 0;
	}
}

int veil_decoder_begin(struct veil_helper_spare *spare, struct veil_helper *helper,
		const struct veil_wire_request *request, int fd, char **message) {
	int ret = veil_helper_spare_take(spare, helper, message);
	if (ret < 0) {
		goto fail;
	}
	int ms = veil_helper_spare_timeout_ms(spare);
	int64_t start = veil_helper_now_ms();
	/* A helper dead before it read the request is told apart later, by its end. */
	veil_wire_send(helper->sock, request, sizeof(*request), fd);
	if (ms > UNREAD_MS && !readable_within(helper->sock, UNREAD_MS) &&
			request_unread(helper->sock)) {
		/*
		 * A helper that has not even read its request is not decoding: stuck since it
		 * started (or stopped by someone). Another one, once, for the rest of the time.
		 */
		wlr_log(WLR_ERROR, "veil: veil-decoder (pid %d) left its request unread for "
			"%d ms: starting another", (int)helper->pid, UNREAD_MS);
		veil_helper_kill(helper);
		veil_helper_end(helper, VEIL_HELPER_EXIT_GRACE_MS);
		ret = veil_helper_spare_restart(spare, helper, message);
		if (ret < 0) {
			goto fail;
		}
		veil_wire_send(helper->sock, request, sizeof(*request), fd);
	}
	int64_t left = ms - (veil_helper_now_ms() - start);
	return left > 0 ? (int)left : 1;

fail:
	veil_helper_spare_fill(spare, VEIL_HELPER_SPARE_DELAY_MS);
	return ret;
}

int veil_decoder_run(struct veil_helper_spare *spare, enum veil_media_kind kind, int fd,
		int item, int cover_width, int cover_height, enum veil_image_filter filter,
		struct veil_image *image, int *original_width,
		int *original_height, char *decoder, size_t size, struct veil_colour_result *colour,
		char **message) {
	*image = (struct veil_image){0};
	snprintf(decoder, size, "veil-decoder");
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.op = VEIL_WIRE_DECODE,
		.kind = (uint32_t)kind,
		.item = item,
		.cover_width = cover_width,
		.cover_height = cover_height,
		.filter = (uint32_t)filter,
	};
	struct veil_helper helper;
	int ms = veil_decoder_begin(spare, &helper, &request, fd, message);
	if (ms < 0) {
		return ms;
	}
	bool answered;
	int ret = veil_decoder_receive(helper.sock, ms, image, original_width, original_height,
		decoder, size, colour, &answered, message);
	veil_decoder_name_timeout(spare, ret, message);
	/*
	 * A helper that answered exits by itself (its monitor, after the reply); one that
	 * answered nonsense or ran out of time is killed first, it may never exit.
	 */
	if (ret == -EPROTO || ret == -ETIMEDOUT) {
		veil_helper_kill(&helper);
	}
	if (answered) {
		veil_helper_spare_release(spare, &helper);
	} else {
		veil_helper_end(&helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	/* The next decode's helper, once this picture is on screen. */
	veil_helper_spare_fill(spare, VEIL_HELPER_SPARE_DELAY_MS);
	return ret;
}
