#define _GNU_SOURCE /* madvise */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "decode/anim.h"
#include "decode/gst.h"
#include "helper/memfd_pixels.h"
#include "helper/sandbox.h"
#include "helper/serve.h"
#include "decode/still.h"
#include "util/image.h"
#include "util/message.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

int veil_serve_receive(int sock, uint32_t ops, struct veil_wire_request *request, int *fd) {
	*fd = -1;
	int fds[VEIL_WIRE_MAX_FDS];
	int nfds;
	int n = veil_wire_receive(sock, request, sizeof(*request), fds, &nfds);
	if (n == 0 && nfds == 0) {
		return -EPIPE; /* the compositor closed the socket: no request (more) */
	}
	if (n < 0) {
		return n == -EMSGSIZE ? -EPROTO : n;
	}
	/* DECODE comes with the file, NEXT with nothing, MEMORY with its dmabuf unless refused. */
	bool known = (size_t)n == sizeof(*request) && request->op < 32 &&
		(ops & (1u << request->op)) != 0;
	int expected = !known ? -1 : request->op == VEIL_WIRE_DECODE ? 1 :
		request->op == VEIL_WIRE_MEMORY && request->memory >= 0 ? 1 : 0;
	if (!known || nfds != expected || request->magic != VEIL_WIRE_MAGIC ||
			request->version != VEIL_WIRE_VERSION ||
			request->n_released > VEIL_WIRE_RELEASED ||
			(request->seek != 0 && (request->seek != 1 || request->seek_ms < 0))) {
		veil_wire_close(fds, &nfds);
		return -EPROTO;
	}
	if (nfds == 1) {
		*fd = fds[0];
	}
	return 0;
}

int veil_serve_send(int sock, struct veil_wire_reply *reply, int pixels_fd) {
	reply->magic = VEIL_WIRE_MAGIC;
	reply->version = VEIL_WIRE_VERSION;
	return veil_wire_send(sock, reply, sizeof(*reply), pixels_fd);
}

int veil_serve_fail(int sock, int status, const char *message) {
	struct veil_wire_reply reply = { .status = status };
	snprintf(reply.message, sizeof(reply.message), "%s",
		message != NULL ? message : strerror(-status));
	return veil_serve_send(sock, &reply, -1);
}

/* The picture's pixels as a sealed memfd; image->data is gone with them. */
static int hand_over(struct veil_image *image, int *out, char **message) {
	size_t size = (size_t)image->stride * (size_t)image->height;
	int ret = veil_memfd_pixels_hand_over(image->data, size, out);
	image->data = NULL;
	if (ret < 0) {
		veil_message_set(message, "cannot hand over %zu bytes of pixels: %s", size,
			strerror(-ret));
	}
	return ret;
}

int veil_serve_slot_memfd(size_t size, uint8_t **data, int *fd) {
	int memfd = memfd_create("veil-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0) {
		return -errno;
	}
	void *map = MAP_FAILED;
	if (ftruncate(memfd, (off_t)size) == 0 &&
			fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) {
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	}
	if (map == MAP_FAILED) {
		int err = errno;
		close(memfd);
		return -err;
	}
	/* One call instead of a page fault every 4 KiB (veil_serve_prepare_heap, below). */
	madvise(map, size, MADV_POPULATE_WRITE);
	*data = map;
	*fd = memfd;
	return 0;
}

int veil_serve_fork(int sock, int file) {
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0) {
		return -errno;
	}
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			_exit(1); /* the monitor is gone already */
		}
		return 0;
	}
	close(file);
	char *message = NULL;
	if (veil_sandbox_enter_monitor(&message) < 0) {
		fprintf(stderr, "veil-decoder: monitor: %s\n", message);
		free(message);
	}
	int status = 0;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			_exit(1);
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		_exit(0); /* it replied */
	}
	struct veil_wire_reply reply = { .status = -ECHILD };
	if (WIFSIGNALED(status)) {
		reply.exit_signal = WTERMSIG(status);
	} else {
		reply.exit_code = WEXITSTATUS(status);
	}
	veil_serve_send(sock, &reply, -1);
	_exit(0);
}

/* glibc's largest M_MMAP_THRESHOLD on 64-bit hosts: larger blocks are always mmap()ed. */
#define HEAP_BLOCK_MAX (32u << 20)

/*
 * The decoding process is new: each page of its heap faults in the first time it is written,
 * one at a time, about 15 us each on the machine measured (30 ms for a 1080p picture's 8 MiB;
 * populating the same in one call took 2 ms; docs/measurements.md). The pixels veil keeps are
 * in memfds populated at once (memfd_pixels.c), but libheif and GStreamer decode into planes of
 * their own first, and animations into a canvas: for them a block of the size they will take is
 * made ready at once before the decode: big blocks come from the heap (not from mmap()s of their
 * own that free() would give back), the heap keeps what is freed, and a block that size is
 * populated and freed for the decoder to take. On kernels without MADV_POPULATE_WRITE nothing
 * is gained and nothing lost.
 */
void veil_serve_prepare_heap(size_t size) {
	if (size == 0 || size > HEAP_BLOCK_MAX) {
		return;
	}
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_BLOCK_MAX);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_BLOCK_MAX));
	uint8_t *block = malloc(size);
	if (block == NULL) {
		return;
	}
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)block + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)block + size) & ~(page - 1);
	if (end > start) {
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	}
	free(block);
}

size_t veil_serve_cover_bytes(const struct veil_wire_request *request) {
	if (request->cover_width <= 0 || request->cover_height <= 0 ||
			request->cover_width > VEIL_IMAGE_MAX_SIDE ||
			request->cover_height > VEIL_IMAGE_MAX_SIDE) {
		return 0;
	}
	return (size_t)request->cover_width * (size_t)request->cover_height * 4;
}

enum veil_image_filter veil_serve_filter(const struct veil_wire_request *request) {
	switch (request->filter) {
	case VEIL_IMAGE_FILTER_NEAREST:
		return VEIL_IMAGE_FILTER_NEAREST;
	case VEIL_IMAGE_FILTER_LINEAR:
		return VEIL_IMAGE_FILTER_LINEAR;
	default:
		/* Smooth, and anything else the compositor would not send: the default. */
		return VEIL_IMAGE_FILTER_SMOOTH;
	}
}

int veil_serve_decode(int sock, const struct veil_wire_request *request, int fd) {
	if (request->anim != VEIL_ANIM_NONE) {
		return veil_serve_anim(sock, request, fd);
	}
	if (request->kind == VEIL_MEDIA_VIDEO) {
		return veil_serve_video(sock, request, fd);
	}
	char *message = NULL;
	int ret = 0;
	veil_memfd_pixels_install();
	const struct veil_still_decoder *decoder =
		veil_still_decoder_find((enum veil_media_kind)request->kind, &message);
	if (decoder == NULL) {
		ret = veil_serve_fail(sock, -ENOTSUP,
			message != NULL ? message : "no decoder for this kind");
		free(message);
		return ret == 0 ? 0 : 1;
	}
	if (!decoder->in_place) {
		/* The picture, and an eighth more for the decoder's other buffers. */
		size_t size = veil_serve_cover_bytes(request);
		veil_serve_prepare_heap(size + size / 8);
	}
	/*
	 * GStreamer reads its registry (and may rebuild it) before the sandbox closes: both are
	 * the user's own trusted files. PNGs and the like do without it (a "PNG" that is none
	 * falls back to GStreamer, which then starts inside the sandbox).
	 */
	if (decoder == veil_still_decoder_gst()) {
		ret = veil_gst_init(&message);
	}
	if (ret == 0) {
		ret = veil_sandbox_enter(VEIL_SANDBOX_MAX_CPU, -1, &message);
	}
	if (ret < 0) {
		ret = veil_serve_fail(sock, ret, message);
		free(message);
		return ret == 0 ? 0 : 1;
	}

	struct veil_image image = {0};
	int original_width = 0, original_height = 0, shrink_error = 0;
	struct veil_colour_result colour;
	const struct veil_still_decoder *used = decoder;
	ret = request->item < 0 ? -EINVAL : veil_still_decode_item(decoder, fd, request->item,
		request->cover_width, request->cover_height,
		veil_serve_filter(request), &image,
		&original_width, &original_height, &used, &shrink_error, &colour, &message);
	struct veil_wire_reply reply = { .status = ret };
	snprintf(reply.decoder, sizeof(reply.decoder), "%s", used->name);
	snprintf(reply.colour, sizeof(reply.colour), "%s", colour.said);
	reply.colour_fallback = colour.fell_back;
	reply.transfer = (int32_t)colour.space.transfer;
	reply.primaries = (int32_t)colour.space.primaries;
	int pixels = -1;
	if (ret == 0) {
		if (shrink_error < 0) {
			fprintf(stderr, "veil-decoder: cannot scale down (%d), keeping it whole\n",
				shrink_error);
		}
		ret = hand_over(&image, &pixels, &message);
		reply.status = ret;
	}
	if (ret == 0) {
		reply.width = image.width;
		reply.height = image.height;
		reply.stride = image.stride;
		reply.drm_format = image.drm_format;
		reply.original_width = original_width;
		reply.original_height = original_height;
		reply.frames = image.frames;
	} else {
		snprintf(reply.message, sizeof(reply.message), "%s",
			message != NULL ? message : strerror(-ret));
	}
	veil_image_finish(&image);
	free(message);
	ret = veil_serve_send(sock, &reply, pixels);
	return ret == 0 ? 0 : 1;
}
