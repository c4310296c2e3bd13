/*
 * A veil-decoder that misbehaves on request, for test-isolate.py and test-video-helper.py
 * (VEIL_DECODER_HELPER points the compositor at it). The request is in the file the compositor
 * hands over: a PNG (or an animated GIF: the modes "anim-*"; a video: "video-*", and
 * "video-memory-*" where the compositor gives its dmabufs) followed by "veil-hostile:WORD\n"
 * after its end, which the header checks do not look at. Without the marker it decodes as the
 * real helper does (the same code), so that the next command works. Every misbehaviour happens
 * inside the real sandbox.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS, close_range, memmem */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "helper/sandbox.h"
#include "helper/serve.h"

static char mode[32];

/* The word after the marker, if the file has one. */
static bool find_mode(int fd) {
	static char buf[1 << 20];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	const char marker[] = "veil-hostile:";
	char *at = memmem(buf, (size_t)n, marker, sizeof(marker) - 1);
	if (at == NULL) {
		return false;
	}
	at += sizeof(marker) - 1;
	size_t len = strcspn(at, "\n");
	if (len >= sizeof(mode)) {
		len = sizeof(mode) - 1;
	}
	memcpy(mode, at, len);
	mode[len] = '\0';
	return true;
}

/* A memfd of size bytes of grey, with the seals asked for. */
static int grey_memfd(size_t size, int seals) {
	int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		_exit(10);
	}
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		_exit(11);
	}
	memset(map, 0x80, size);
	munmap(map, size);
	if (seals != 0 && fcntl(fd, F_ADD_SEALS, seals) != 0) {
		_exit(12);
	}
	return fd;
}

#define SEALED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* A reply that claims a 64x64 grey image; the modes below spoil one thing each. */
static struct veil_wire_reply plausible(void) {
	struct veil_wire_reply reply = {
		.width = 64, .height = 64, .stride = 256, .drm_format = DRM_FORMAT_XRGB8888,
		.original_width = 64, .original_height = 64,
	};
	snprintf(reply.decoder, sizeof(reply.decoder), "hostile");
	return reply;
}

/* A reply as it is, with one descriptor: veil_serve_send() would fill in the magic. */
static int send_raw(int sock, const struct veil_wire_reply *reply, int fd) {
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	memset(&control, 0, sizeof(control));
	struct iovec iov = { .iov_base = (void *)reply, .iov_len = sizeof(*reply) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* A real invalid write (not raise()): through a pointer the compiler cannot see is bad. */
static void crash(void) {
	int *volatile address = (int *)(uintptr_t)8;
	*address = 1;
}

/*
 * An animation's frame: grey, 64x64, one of three of 100 ms each, playing for ever, in slot
 * (a new memfd with the seals given, or none when seals is -1).
 */
static int send_frame(int sock, int index, int slot, int seals) {
	struct veil_wire_reply reply = plausible();
	reply.frames = 3;
	reply.index = index;
	reply.delay_ms = 100;
	reply.slot = slot;
	return veil_serve_send(sock, &reply, seals >= 0 ? grey_memfd(256 * 64, seals) : -1);
}

/* The compositor's request for the next frame. */
static int wait_next(int sock) {
	struct veil_wire_request request;
	int fd;
	return veil_serve_receive(sock, 1u << VEIL_WIRE_NEXT, &request, &fd) == 0 ? 0 : -1;
}

/* The animation modes: a first good frame, then the misbehaviour at the second. */
static int misbehave_anim(int sock) {
	if (send_frame(sock, 0, 0, F_SEAL_SHRINK | F_SEAL_GROW) != 0 || wait_next(sock) != 0) {
		return 1;
	}
	if (strcmp(mode, "anim-segv") == 0) {
		crash();
	} else if (strcmp(mode, "anim-loop") == 0) {
		for (volatile unsigned long spin = 0;; spin = spin + 1) {
		}
	} else if (strcmp(mode, "anim-skip") == 0) {
		return send_frame(sock, 2, 1, SEALED);
	} else if (strcmp(mode, "anim-held") == 0) {
		return send_frame(sock, 1, 0, -1); /* slot 0: the frame on screen */
	} else if (strcmp(mode, "anim-no-memory") == 0) {
		return send_frame(sock, 1, 5, -1);
	} else if (strcmp(mode, "anim-unsealed") == 0) {
		return send_frame(sock, 1, 1, 0);
	} else if (strcmp(mode, "anim-resize") == 0) {
		struct veil_wire_reply reply = plausible();
		reply.frames = 3;
		reply.index = 1;
		reply.delay_ms = 100;
		reply.width = reply.original_width = 32;
		reply.stride = 128;
		reply.slot = 1;
		return veil_serve_send(sock, &reply, grey_memfd(128 * 64, SEALED));
	} else if (strcmp(mode, "anim-delay") == 0) {
		struct veil_wire_reply reply = plausible();
		reply.frames = 3;
		reply.index = 1;
		reply.delay_ms = 0;
		reply.slot = 1;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	}
	fprintf(stderr, "hostile-decoder: unknown animation mode '%s'\n", mode);
	return veil_serve_fail(sock, -EINVAL, "unknown hostile mode");
}

/*
 * Asks the compositor for a dmabuf of size bytes (wire.h: MEMORY) and waits for it: its
 * descriptor, -1 when refused, -2 when the compositor said something else.
 */
static int ask_memory(int sock, int size) {
	struct veil_wire_reply reply = { .memory_size = size };
	struct veil_wire_request request;
	int fd;
	if (veil_serve_send(sock, &reply, -1) != 0) {
		return -2;
	}
	/* The compositor's NEXT requests (slots released, play) may come first. */
	do {
		if (veil_serve_receive(sock, 1u << VEIL_WIRE_MEMORY | 1u << VEIL_WIRE_NEXT, &request,
				&fd) != 0) {
			return -2;
		}
	} while (request.op != VEIL_WIRE_MEMORY);
	return request.memory >= 0 ? fd : -1;
}

/*
 * The memory modes (a renderer that imports dmabufs: the compositor offers its own): a first
 * good frame, grey XRGB8888 in the compositor's dmabuf 0, the first request, then a frame in
 * a dmabuf it never gave, or with a plane past the end of the one it gave, or asking for
 * dmabufs (small ones, or of 256 MiB) on and on, refused or not (then it says how many it got,
 * if the compositor is still listening).
 */
static int misbehave_memory(int sock) {
	int fd = ask_memory(sock, 256 * 64);
	if (fd < 0) {
		return 1;
	}
	void *map = mmap(NULL, 256 * 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		return 1;
	}
	memset(map, 0x80, 256 * 64);
	munmap(map, 256 * 64);
	struct veil_wire_reply reply = plausible();
	reply.delay_ms = 1000;
	reply.memory = 1;
	reply.n_planes = 1;
	reply.strides[0] = 256;
	if (veil_serve_send(sock, &reply, -1) != 0 || wait_next(sock) != 0) {
		return 1;
	}
	reply.index = 1;
	if (strcmp(mode, "video-memory-slot") == 0) {
		reply.slot = 5;
		return veil_serve_send(sock, &reply, -1);
	} else if (strcmp(mode, "video-memory-plane") == 0) {
		int given = ask_memory(sock, 256 * 64);
		reply.slot = 1;
		reply.offsets[0] = 256; /* the last row past the end */
		return given < 0 ? 1 : veil_serve_send(sock, &reply, -1);
	} else if (strcmp(mode, "video-memory-greedy") == 0 ||
			strcmp(mode, "video-memory-huge") == 0) {
		/* Many small ones, or the largest there may be (256 MiB; never touched here). */
		int size = strcmp(mode, "video-memory-huge") == 0 ? 8192 * 8192 * 4 : 256 * 64;
		int given = 1;
		/* Asking on when refused, as fast as the compositor answers, up to 1000 asks. */
		for (int asks = 0; asks < 1000; asks++) {
			int given_fd = ask_memory(sock, size);
			if (given_fd == -2) {
				break;
			}
			given += given_fd >= 0;
		}
		char msg[64];
		snprintf(msg, sizeof(msg), "given %d dmabufs", given);
		return veil_serve_fail(sock, -ENOMEM, msg);
	}
	fprintf(stderr, "hostile-decoder: unknown memory mode '%s'\n", mode);
	return veil_serve_fail(sock, -EINVAL, "unknown hostile mode");
}

/*
 * The video modes: a first good frame (grey, slot 0, shown for a second), the compositor's
 * first request (play), then the misbehaviour, with the video on screen.
 */
static int misbehave_video(int sock) {
	struct veil_wire_reply reply = plausible();
	reply.delay_ms = 1000;
	if (veil_serve_send(sock, &reply, grey_memfd(256 * 64, F_SEAL_SHRINK | F_SEAL_GROW)) != 0 ||
			wait_next(sock) != 0) {
		return 1;
	}
	reply.index = 1;
	reply.slot = 1;
	if (strcmp(mode, "video-segv") == 0) {
		crash();
	} else if (strcmp(mode, "video-exit") == 0) {
		_exit(3);
	} else if (strcmp(mode, "video-held") == 0) {
		reply.slot = 0; /* the frame on screen */
		return veil_serve_send(sock, &reply, -1);
	} else if (strcmp(mode, "video-no-memory") == 0) {
		reply.slot = 5;
		return veil_serve_send(sock, &reply, -1);
	} else if (strcmp(mode, "video-unsealed") == 0) {
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, 0));
	} else if (strcmp(mode, "video-loops") == 0) {
		reply.loops = -1;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "video-duration") == 0) {
		reply.delay_ms = -1000;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "video-loop") == 0) {
		/* Playing, and never another frame: a decoder stuck in a loop (no CPU limit here). */
		for (volatile unsigned long spin = 0;; spin = spin + 1) {
		}
	} else if (strcmp(mode, "video-garbage") == 0) {
		return write(sock, "garbage", 7) == 7 ? 0 : 1;
	}
	fprintf(stderr, "hostile-decoder: unknown video mode '%s'\n", mode);
	return veil_serve_fail(sock, -EINVAL, "unknown hostile mode");
}

static int misbehave(int sock, int file) {
	struct veil_wire_reply reply = plausible();
	/* One line a start: the test counts them (a file that failed is not retried). */
	fprintf(stderr, "hostile-decoder: started for '%s'\n", mode);
	if (strncmp(mode, "anim-", 5) == 0) {
		return misbehave_anim(sock);
	}
	if (strncmp(mode, "video-memory-", 13) == 0) {
		return misbehave_memory(sock);
	}
	if (strncmp(mode, "video-", 6) == 0) {
		return misbehave_video(sock);
	}
	if (strcmp(mode, "segv") == 0) {
		crash();
	} else if (strcmp(mode, "abort") == 0) {
		abort();
	} else if (strcmp(mode, "alloc") == 0) {
		/* Until the address-space limit (lowered to 1 GiB: fewer mappings) says no. */
		struct rlimit rl = { .rlim_cur = (rlim_t)1 << 30, .rlim_max = (rlim_t)1 << 30 };
		setrlimit(RLIMIT_AS, &rl);
		size_t total = 0;
		for (;;) {
			/*
			 * mmap, not malloc: meson test's MALLOC_PERTURB_ would have malloc() fill
			 * every byte. One byte touched a chunk: address space is what is limited.
			 */
			size_t chunk = (size_t)64 << 20;
			char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				break;
			}
			p[chunk - 1] = 1;
			total += chunk;
		}
		char msg[96];
		snprintf(msg, sizeof(msg), "out of memory after %zu MiB", total >> 20);
		return veil_serve_fail(sock, -ENOMEM, msg);
	} else if (strcmp(mode, "loop") == 0) {
		for (volatile unsigned long spin = 0;; spin = spin + 1) {
		}
	} else if (strcmp(mode, "read-file") == 0) {
		/* A file of the user's the compositor could read, and its directory's entries. */
		const char *secret = getenv("VEIL_TEST_SECRET");
		if (secret == NULL) {
			return veil_serve_fail(sock, -EINVAL, "no VEIL_TEST_SECRET to read");
		}
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", secret);
		char *slash = strrchr(dir, '/');
		if (slash != NULL && slash != dir) {
			*slash = '\0';
		}
		int file_fd = open(secret, O_RDONLY | O_CLOEXEC);
		int file_err = errno;
		int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int dir_err = errno;
		char msg[160];
		if (file_fd >= 0 || dir_fd >= 0) {
			snprintf(msg, sizeof(msg), "the sandbox let it open the %s",
				file_fd >= 0 ? "file" : "directory");
			return veil_serve_fail(sock, -EPERM, msg);
		}
		snprintf(msg, sizeof(msg),
			"the sandbox refused the file (%s) and its directory (%s)",
			strerror(file_err), strerror(dir_err));
		return veil_serve_fail(sock, -EACCES, msg);
	} else if (strcmp(mode, "exit") == 0) {
		_exit(3);
	} else if (strcmp(mode, "garbage") == 0) {
		char junk[sizeof(reply) - 3];
		for (size_t i = 0; i < sizeof(junk); i++) {
			junk[i] = (char)(i * 37 + 11);
		}
		return write(sock, junk, sizeof(junk)) < 0 ? -errno : 0;
	} else if (strcmp(mode, "magic") == 0) {
		/* A whole reply with its pixels, from some other protocol. */
		reply.magic = 0xdeadbeefu;
		reply.version = VEIL_WIRE_VERSION;
		return send_raw(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "lie-size") == 0) {
		reply.width = 1920;
		reply.height = 1080;
		reply.stride = 7680;
		reply.original_width = 1920;
		reply.original_height = 1080;
		return veil_serve_send(sock, &reply, grey_memfd(4096, SEALED));
	} else if (strcmp(mode, "no-fd") == 0) {
		return veil_serve_send(sock, &reply, -1);
	} else if (strcmp(mode, "unsealed") == 0) {
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, 0));
	} else if (strcmp(mode, "small") == 0) {
		return veil_serve_send(sock, &reply, grey_memfd(256 * 63, SEALED));
	} else if (strcmp(mode, "short-stride") == 0) {
		reply.stride = 252;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "huge") == 0) {
		reply.width = 100000;
		reply.stride = 400000;
		reply.original_width = 100000;
		return veil_serve_send(sock, &reply, grey_memfd(4096, SEALED));
	} else if (strcmp(mode, "format") == 0) {
		reply.drm_format = DRM_FORMAT_NV12;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "not-memfd") == 0) {
		/* The file it was given: a real file, not sealed. */
		return veil_serve_send(sock, &reply, file);
	} else if (strcmp(mode, "status") == 0) {
		reply.status = 7;
		return veil_serve_send(sock, &reply, grey_memfd(256 * 64, SEALED));
	} else if (strcmp(mode, "control-chars") == 0) {
		reply.status = -EINVAL;
		snprintf(reply.message, sizeof(reply.message), "bad\x1b[31m\n\x01 bytes \xff\xfe");
		memset(reply.decoder, 'x', sizeof(reply.decoder)); /* no NUL */
		return veil_serve_send(sock, &reply, -1);
	}
	fprintf(stderr, "hostile-decoder: unknown mode '%s'\n", mode);
	return veil_serve_fail(sock, -EINVAL, "unknown hostile mode");
}

int main(int argc, char *argv[]) {
	close_range(VEIL_WIRE_FD + 1, ~0u, 0);
	/*
	 * VEIL_TEST_STALL_ONCE: the first helper to find that file removes it and never reads its
	 * request (a helper stuck since it started, or stopped); the next ones work.
	 */
	const char *stall = getenv("VEIL_TEST_STALL_ONCE");
	if (stall != NULL && unlink(stall) == 0) {
		fprintf(stderr, "hostile-decoder: stalls before its request\n");
		for (;;) {
			pause();
		}
	}
	struct veil_wire_request request;
	int fd;
	if (veil_serve_receive(VEIL_WIRE_FD, 1u << VEIL_WIRE_DECODE, &request, &fd) < 0) {
		return 2;
	}
	/* The same monitor as the real helper's: it reports how the misbehaving process ended. */
	if (veil_serve_fork(VEIL_WIRE_FD, fd) < 0) {
		return 3;
	}
	if (!find_mode(fd)) {
		_exit(veil_serve_decode(VEIL_WIRE_FD, &request, fd));
	}
	char *message = NULL;
	if (veil_sandbox_enter(VEIL_SANDBOX_MAX_CPU, -1, &message) < 0) {
		fprintf(stderr, "hostile-decoder: %s\n", message);
		_exit(4);
	}
	_exit(misbehave(VEIL_WIRE_FD, fd) == 0 ? 0 : 1);
}
