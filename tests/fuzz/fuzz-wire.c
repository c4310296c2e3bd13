/*
 * A hostile veil-decoder's reply: any bytes as the datagram, with the descriptors a helper may
 * attach (none, a memfd sealed or not, of any size, one too many, a pipe), read by the
 * compositor's side (veil_decoder_receive, source/remote/client.c). Whatever comes, it returns
 * an error with a message or pixels it mapped itself, and they are all readable.
 *
 * The input: byte 0 chooses the descriptors (bit 0 a memfd, bit 1 sealed, bit 2 a second
 * memfd, bit 3 a pipe instead) and whether the reply is read as an animation's frame (bit 4)
 * or a video's (bit 5, veil_decoder_receive_video_frame, as the compositor's thread reads one:
 * without waiting; with bit 6 the pool has two dmabufs of the compositor's, memfds of the same
 * size here, that a frame may name), bytes 1-4 the memfd's size (little-endian, at most
 * 256 MiB: it stays sparse), the rest is the datagram. A frame in a memory must have each
 * plane's last byte inside it (read through a mapping: a byte past the end is SIGBUS).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <drm_fourcc.h>
#include "source/remote/client.h"
#include "source/remote/frame_pool.h"
#include "wire/wire.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int make_memfd(uint32_t length, bool sealed) {
	int fd = memfd_create("veil-fuzz-pixels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	FUZZ_CHECK(ftruncate(fd, length) == 0, "ftruncate: %s", strerror(errno));
	if (sealed) {
		fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	}
	return fd;
}

static void send_reply(int sock, const uint8_t *payload, size_t len, const int *fds, int nfds) {
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control = {0};
	struct iovec iov = { .iov_base = (void *)payload, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds > 0) {
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	FUZZ_CHECK(sendmsg(sock, &msg, 0) == (ssize_t)len, "sendmsg: %s", strerror(errno));
}

/* Reads the last byte of each plane of a frame in a memory of length bytes. */
static void read_planes(const struct veil_memory_frame *frame, uint32_t length) {
	const struct wlr_dmabuf_attributes *d = &frame->dmabuf;
	FUZZ_CHECK(d->n_planes >= 1 && d->n_planes <= 3 && d->width > 0 && d->height > 0,
		"a memory frame of %d planes, %dx%d", d->n_planes, d->width, d->height);
	FUZZ_CHECK(length > 0, "a frame in a memory of no bytes");
	const volatile uint8_t *map = mmap(NULL, length, PROT_READ, MAP_SHARED, d->fd[0], 0);
	FUZZ_CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	bool yuv = d->format != DRM_FORMAT_XRGB8888 && d->format != DRM_FORMAT_ARGB8888;
	uint8_t sum = 0;
	for (int i = 0; i < d->n_planes; i++) {
		int sub = yuv && i > 0 ? 2 : 1;
		uint64_t rows = ((uint64_t)d->height + sub - 1) / sub;
		uint64_t last = d->offset[i] + (uint64_t)d->stride[i] * (rows - 1) + 1;
		FUZZ_CHECK(last <= length, "plane %d ends at %" PRIu64 ", past %u bytes", i, last,
			length);
		sum ^= map[last - 1];
	}
	(void)sum;
	munmap((void *)map, length);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 5) {
		return 0;
	}
	uint8_t flags = data[0];
	uint32_t length = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
		(uint32_t)data[4] << 24;
	length %= 256u << 20;
	const uint8_t *payload = data + 5;
	size_t len = size - 5;
	/* A datagram the size of a reply and more fits; a larger one is the kernel's to refuse. */
	if (len > 4096) {
		return 0;
	}

	int sv[2];
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0,
		"socketpair: %s", strerror(errno));
	int fds[2];
	int nfds = 0;
	if (flags & 8) {
		int p[2];
		FUZZ_CHECK(pipe2(p, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
		close(p[1]);
		fds[nfds++] = p[0];
	} else if (flags & 1) {
		fds[nfds++] = make_memfd(length, flags & 2);
		if (flags & 4) {
			fds[nfds++] = make_memfd(length, flags & 2);
		}
	}
	send_reply(sv[1], payload, len, fds, nfds);
	for (int i = 0; i < nfds; i++) {
		close(fds[i]);
	}

	struct veil_image image;
	int width = 0, height = 0;
	char decoder[32];
	bool answered;
	char *message = NULL;
	/* Bit 4: read as an animation's frame, into a pool of its own. */
	struct veil_decoder_frame frame = {0};
	struct veil_decoder_video_frame video = {0};
	struct veil_frame_pool *pool = NULL;
	int ret;
	snprintf(decoder, sizeof(decoder), "frame");
	if (flags & 32) {
		pool = veil_frame_pool_create();
		FUZZ_CHECK(pool != NULL, "out of memory");
		for (int i = 0; i < 2 && (flags & 64); i++) {
			FUZZ_CHECK(veil_frame_pool_add_memory(pool, make_memfd(length, false),
				length) == i, "a memory not given in order");
		}
		ret = veil_decoder_receive_video_frame(sv[0], 0, pool, &image, &video, &answered,
			&message);
		if (ret == VEIL_DECODER_MEMORY) {
			FUZZ_CHECK(video.memory_size > 0 && video.memory_size <= VEIL_DECODER_MAX_MEMORY,
				"a memory of %d bytes asked for", video.memory_size);
			close(sv[0]);
			close(sv[1]);
			veil_frame_pool_unref(pool);
			free(message);
			return 0;
		}
		if (ret == 0 && video.memory.release != NULL) {
			FUZZ_CHECK(image.data == NULL, "a frame in a memory and in pixels");
			read_planes(&video.memory, length);
			video.memory.release(video.memory.release_data);
			close(sv[0]);
			close(sv[1]);
			veil_frame_pool_unref(pool);
			free(message);
			return 0;
		}
		width = image.width;
		height = image.height;
		snprintf(decoder, sizeof(decoder), "%s", video.decoder);
	} else if (flags & 16) {
		pool = veil_frame_pool_create();
		FUZZ_CHECK(pool != NULL, "out of memory");
		ret = veil_decoder_receive_frame(sv[0], 5000, pool, &image, &width, &height, &frame,
			&answered, &message);
	} else {
		struct veil_colour_result colour;
		ret = veil_decoder_receive(sv[0], 5000, &image, &width, &height, decoder,
			sizeof(decoder), &colour, &answered, &message);
	}
	close(sv[0]);
	close(sv[1]);
	if (ret < 0) {
		FUZZ_CHECK(message != NULL && message[0] != '\0', "error %d without a message", ret);
		FUZZ_CHECK(image.data == NULL, "error %d with pixels", ret);
		veil_frame_pool_unref(pool);
		for (const char *c = message; *c != '\0'; c++) {
			FUZZ_CHECK(*c >= 0x20 || *c < 0, "a control character in the message");
		}
		free(message);
		return 0;
	}
	FUZZ_CHECK(answered, "pixels without an answer");
	FUZZ_CHECK(image.data != NULL && (image.mapped_size > 0 || image.release != NULL),
		"success without mapped pixels");
	FUZZ_CHECK(image.width > 0 && image.height > 0 && image.stride >= image.width * 4,
		"success with a size of %dx%d, stride %d", image.width, image.height, image.stride);
	/* (Only told: an SVG's own size may be smaller than the pixels drawn to cover an output.) */
	FUZZ_CHECK(width > 0 && height > 0, "an original size of %dx%d", width, height);
	FUZZ_CHECK(strnlen(decoder, sizeof(decoder)) < sizeof(decoder), "an unterminated name");
	if (flags & 32) {
		FUZZ_CHECK(video.index >= 0 && video.loops >= 0 && video.copies >= 0,
			"an impossible video frame accepted");
	} else if (flags & 16) {
		FUZZ_CHECK(frame.frames >= 1 && frame.index >= 0 && frame.index < frame.frames &&
			frame.delay_ms >= 1 && frame.plays >= 0, "an impossible frame accepted");
	}
	/* Every byte of every row can be read (a page missing would be SIGBUS here). */
	const volatile uint8_t *pixels = image.data;
	uint8_t sum = 0;
	for (int y = 0; y < image.height; y += 97) {
		sum ^= pixels[(size_t)y * image.stride + (size_t)image.width * 4 - 1];
	}
	(void)sum;
	veil_image_finish(&image);
	veil_frame_pool_unref(pool);
	free(message);
	return 0;
}
