#define _GNU_SOURCE /* F_GET_SEALS, sigabbrev_np, MSG_CMSG_CLOEXEC, __WALL */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "veil-config.h"
#include "decode/isolate/client.h"
#include "decode/isolate/sandbox.h"
#include "decode/isolate/wire.h"
#include "util/message.h"

extern char **environ;

/* How long a dying helper gets to exit before it is killed. */
#define EXIT_GRACE_MS 2000
/* Helpers that answered and are still exiting, reaped later (at most this many kept). */
#define MAX_EXITING 16

/*
 * A helper that has answered is not waited for: on a busy machine its exit (at the workers'
 * low priority) takes longer than its decode. Its pidfd waits here until it has ended.
 */
static struct {
	pthread_mutex_t lock;
	int pidfds[MAX_EXITING];
	int count;
} exiting = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Reaps the answered helpers that have ended since. */
static void reap_exiting(void) {
	pthread_mutex_lock(&exiting.lock);
	for (int i = 0; i < exiting.count;) {
		siginfo_t info = {0};
		int r = waitid(P_PIDFD, (id_t)exiting.pidfds[i], &info, WEXITED | __WALL | WNOHANG);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r == 0 && info.si_pid == 0) {
			i++; /* still running */
			continue;
		}
		/* Ended, or reaped by the compositor already (ECHILD). */
		close(exiting.pidfds[i]);
		exiting.pidfds[i] = exiting.pidfds[--exiting.count];
	}
	pthread_mutex_unlock(&exiting.lock);
}

/* Leaves an answered helper to end by itself; false when it must be waited for now. */
static bool leave_exiting(int pidfd) {
	reap_exiting();
	pthread_mutex_lock(&exiting.lock);
	bool kept = exiting.count < MAX_EXITING;
	if (kept) {
		exiting.pidfds[exiting.count++] = pidfd;
	}
	pthread_mutex_unlock(&exiting.lock);
	return kept;
}

const char *veil_decoder_helper_path(void) {
	const char *env = getenv("VEIL_DECODER_HELPER");
	return env != NULL && env[0] != '\0' ? env : VEIL_DECODER_PATH;
}

static int timeout_ms(void) {
	const char *env = getenv("VEIL_DECODER_TIMEOUT_MS");
	if (env != NULL) {
		char *end;
		long ms = strtol(env, &end, 10);
		if (end != env && *end == '\0' && ms > 0 && ms <= 600000) {
			return (int)ms;
		}
	}
	return VEIL_DECODER_TIMEOUT_MS;
}

static int64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* posix_spawn(), and a pidfd_open() of it where there is one (else *pidfd is -1). */
static int spawn_plain(const char *path, int sock, pid_t *pid, int *pidfd, char **message) {
	/* dup2 onto itself would leave close-on-exec set: move it out of the way first. */
	int moved = -1;
	if (sock == VEIL_WIRE_FD) {
		moved = fcntl(sock, F_DUPFD_CLOEXEC, VEIL_WIRE_FD + 1);
		if (moved < 0) {
			int err = errno;
			veil_message_set(message, "cannot start the decoder: %s", strerror(err));
			return -err;
		}
		sock = moved;
	}
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&actions);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&actions, sock, VEIL_WIRE_FD);
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	char *argv[] = { "veil-decoder", NULL };
	int err = posix_spawn(pid, path, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (moved >= 0) {
		close(moved);
	}
	if (err != 0) {
		veil_message_set(message, "cannot start the decoder %s: %s", path, strerror(err));
		return -err;
	}
	*pidfd = (int)syscall(SYS_pidfd_open, *pid, 0);
	return 0;
}

/*
 * Starts the helper with sock as its VEIL_WIRE_FD, and a pidfd to wait for and kill it by: the
 * compositor's own SIGCHLD handling (veil-tinywl's and labwc's waitpid(-1) loops) may reap it
 * first, and its pid could then be reused. How the decoding itself ended comes from the
 * helper's monitor (wire.h), not from this process's exit status.
 */
static int spawn(int sock, pid_t *pid, int *pidfd, char **message) {
	const char *path = veil_decoder_helper_path();
	if (access(path, X_OK) != 0) {
		int err = errno;
		veil_message_set(message, "cannot start the decoder %s: %s", path, strerror(err));
		return -err;
	}
	char *argv[] = { "veil-decoder", NULL };
	int fd = -1;
	struct clone_args args = {
		.flags = CLONE_PIDFD,
		.pidfd = (uint64_t)(uintptr_t)&fd,
		.exit_signal = SIGCHLD,
	};
	long ret = syscall(SYS_clone3, &args, sizeof(args));
	if (ret < 0 && (errno == ENOSYS || errno == EPERM || errno == EINVAL)) {
		/* No clone3 (valgrind, older kernels, some container filters). */
		return spawn_plain(path, sock, pid, pidfd, message);
	}
	if (ret == 0) {
		/* The child: async-signal-safe calls only, then the helper. */
		if (sock == VEIL_WIRE_FD) {
			fcntl(sock, F_SETFD, 0);
		} else {
			dup2(sock, VEIL_WIRE_FD);
		}
		/* Signals as a new process has them, whatever the compositor ignores or blocks. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		for (int sig = 1; sig < NSIG; sig++) {
			sigaction(sig, &dfl, NULL);
		}
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execve(path, argv, environ);
		_exit(127);
	}
	if (ret < 0) {
		int err = errno;
		veil_message_set(message, "cannot start the decoder: %s", strerror(err));
		return -err;
	}
	*pid = (pid_t)ret;
	*pidfd = fd;
	return 0;
}

static void kill_helper(pid_t pid, int pidfd) {
	/* Its decoding process dies with it (PR_SET_PDEATHSIG). */
	if (pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	} else {
		/*
		 * Not reaped until veil waits for it, unless the compositor reaps every child:
		 * then the pid may be gone (or, rarely, reused). Only without pidfds.
		 */
		kill(pid, SIGKILL);
	}
}

/*
 * Waits up to ms for the helper to end (then kills it) and reaps it, unless the compositor
 * already did.
 */
static void reap(pid_t pid, int pidfd, int ms) {
	int64_t deadline = now_ms() + ms;
	if (pidfd < 0) {
		/* No pidfd: poll waitpid, then kill. */
		for (;;) {
			pid_t r = waitpid(pid, NULL, WNOHANG);
			if (r == pid || (r < 0 && errno != EINTR)) {
				return;
			}
			if (now_ms() >= deadline) {
				kill_helper(pid, pidfd);
				while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
					continue;
				}
				return;
			}
			struct timespec pause = { .tv_nsec = 2 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			kill_helper(pid, pidfd);
			break;
		}
		int r = poll(&pfd, 1, (int)left);
		if (r > 0 || (r < 0 && errno != EINTR)) {
			break;
		}
	}
	siginfo_t info;
	while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | __WALL) < 0 && errno == EINTR) {
		continue;
	}
}

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
			VEIL_SANDBOX_MAX_CPU);
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
 * The reply and the descriptors that came with it (at most 4 kept; *nfds of them). 1 with a
 * whole reply, 0 at the end of the stream (the helper is gone), -ETIMEDOUT, or another
 * negative errno.
 */
static int receive_reply(int sock, int ms, struct veil_wire_reply *reply, int fds[4],
		int *nfds, bool *malformed) {
	*nfds = 0;
	*malformed = false;
	int64_t deadline = now_ms() + ms;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			return -ETIMEDOUT;
		}
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			return -errno;
		}
		if (r > 0) {
			break;
		}
	}
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} control;
	/* One byte more than a reply: a longer datagram is seen as longer, not cut to size. */
	char buf[sizeof(*reply) + 1];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	ssize_t n;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		return -errno;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			continue;
		}
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < 4) {
				fds[(*nfds)++] = fd;
			} else {
				close(fd);
			}
		}
	}
	if (n == 0 && *nfds == 0) {
		return 0;
	}
	if ((size_t)n != sizeof(*reply) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		*malformed = true;
		return 1;
	}
	memcpy(reply, buf, sizeof(*reply));
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
 * Every field of a successful reply checked against what veil itself would make, and the
 * pixels mapped read-only. 0, or -EPROTO with what was wrong in *message.
 */
static int accept_pixels(const struct veil_wire_reply *reply, const int fds[4], int nfds,
		struct veil_image *image, int *original_width, int *original_height,
		char **message) {
	if (nfds != 1) {
		veil_message_set(message, "decoder answered with %d descriptors, not 1", nfds);
		return -EPROTO;
	}
	int64_t width = reply->width, height = reply->height, stride = reply->stride;
	if (width <= 0 || height <= 0 || width > VEIL_IMAGE_MAX_SIDE ||
			height > VEIL_IMAGE_MAX_SIDE || width * height > VEIL_IMAGE_MAX_PIXELS) {
		veil_message_set(message, "decoder answered an impossible size %" PRId64 "x%" PRId64,
			width, height);
		return -EPROTO;
	}
	if (stride < width * 4 || stride % 4 != 0 || stride > (int64_t)VEIL_IMAGE_MAX_SIDE * 4) {
		veil_message_set(message, "decoder answered a stride of %" PRId64 " bytes for %" PRId64
			" pixels a row", stride, width);
		return -EPROTO;
	}
	if (reply->drm_format != DRM_FORMAT_ARGB8888 && reply->drm_format != DRM_FORMAT_XRGB8888) {
		veil_message_set(message, "decoder answered an unknown pixel format 0x%08x",
			reply->drm_format);
		return -EPROTO;
	}
	if (reply->original_width < width || reply->original_height < height ||
			reply->original_width > VEIL_IMAGE_MAX_SIDE ||
			reply->original_height > VEIL_IMAGE_MAX_SIDE || reply->frames < 0) {
		veil_message_set(message, "decoder answered an impossible original size %dx%d",
			reply->original_width, reply->original_height);
		return -EPROTO;
	}
	int fd = fds[0];
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		veil_message_set(message, "decoder's pixels are not in a memory file");
		return -EPROTO;
	}
	int seals = fcntl(fd, F_GET_SEALS);
	int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	if (seals < 0 || (seals & needed) != needed) {
		veil_message_set(message, "decoder's pixels are not sealed against changes");
		return -EPROTO;
	}
	size_t size = (size_t)stride * (size_t)height;
	if ((uint64_t)st.st_size < size) {
		veil_message_set(message, "decoder's pixels are %jd bytes, fewer than %zu",
			(intmax_t)st.st_size, size);
		return -EPROTO;
	}
	/* Sealed against shrinking: no page of this mapping can vanish under the renderer. */
	void *data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		int err = errno;
		veil_message_set(message, "cannot map the decoder's pixels: %s", strerror(err));
		return -err;
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

int veil_decoder_run(enum veil_media_kind kind, int fd, int cover_width, int cover_height,
		struct veil_image *image, int *original_width, int *original_height, char *decoder,
		size_t size, char **message) {
	*image = (struct veil_image){0};
	snprintf(decoder, size, "veil-decoder");
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		int err = errno;
		veil_message_set(message, "cannot start the decoder: %s", strerror(err));
		return -err;
	}
	pid_t pid = 0;
	int pidfd = -1;
	bool answered = false;
	int ret = spawn(sv[1], &pid, &pidfd, message);
	close(sv[1]);
	if (ret < 0) {
		close(sv[0]);
		return ret;
	}
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.kind = (uint32_t)kind,
		.cover_width = cover_width,
		.cover_height = cover_height,
	};
	int fds[4];
	int nfds = 0;
	bool malformed = false;
	struct veil_wire_reply reply;
	int ms = timeout_ms();
	/* A helper dead before it read the request is told apart below, by its end. */
	veil_wire_send(sv[0], &request, sizeof(request), fd);
	int got = receive_reply(sv[0], ms, &reply, fds, &nfds, &malformed);
	close(sv[0]);
	if (got == -ETIMEDOUT) {
		kill_helper(pid, pidfd);
		reap(pid, pidfd, EXIT_GRACE_MS);
		if (ms % 1000 == 0) {
			veil_message_set(message, "decoder took longer than %d s", ms / 1000);
		} else {
			veil_message_set(message, "decoder took longer than %d ms", ms);
		}
		ret = -ETIMEDOUT;
		goto out;
	}
	if (got <= 0) {
		reap(pid, pidfd, EXIT_GRACE_MS);
		veil_message_set(message, "decoder ended without an answer");
		ret = -EIO;
		goto out;
	}
	answered = true;
	if (malformed || reply.magic != VEIL_WIRE_MAGIC || reply.version != VEIL_WIRE_VERSION) {
		veil_message_set(message, "decoder answered a malformed message");
		ret = -EPROTO;
		goto out;
	}
	copy_field(decoder, size, reply.decoder, sizeof(reply.decoder));
	if (reply.status == -ECHILD) {
		/* The monitor's word on how the decoding process ended. */
		if (reply.exit_signal > 0 && reply.exit_signal < NSIG) {
			ret = describe_end(W_EXITCODE(0, reply.exit_signal), message);
		} else if (reply.exit_signal == 0 && reply.exit_code >= 0 &&
				reply.exit_code <= 255) {
			ret = describe_end(W_EXITCODE(reply.exit_code, 0), message);
		} else {
			veil_message_set(message, "decoder answered a malformed message");
			ret = -EPROTO;
		}
		goto out;
	}
	if (reply.status < 0) {
		char text[sizeof(reply.message)];
		copy_field(text, sizeof(text), reply.message, sizeof(reply.message));
		ret = reply.status >= -4095 ? reply.status : -EIO;
		if (ret == -ENOMEM) {
			veil_message_set(message, "decoder ran out of memory (%s)", text);
		} else {
			veil_message_set(message, "%s", text[0] != '\0' ? text : strerror(-ret));
		}
		goto out;
	}
	if (reply.status > 0) {
		veil_message_set(message, "decoder answered a malformed message");
		ret = -EPROTO;
		goto out;
	}
	ret = accept_pixels(&reply, fds, nfds, image, original_width, original_height, message);

out:
	if (answered) {
		/*
		 * Its monitor exits by itself (or reports a death we no longer need); one that
		 * answered nonsense is killed first, it may never exit.
		 */
		if (ret == -EPROTO) {
			kill_helper(pid, pidfd);
		}
		if (pidfd >= 0 && leave_exiting(pidfd)) {
			pidfd = -1;
		} else {
			reap(pid, pidfd, EXIT_GRACE_MS);
		}
	}
	if (pidfd >= 0) {
		close(pidfd);
	}
	for (int i = 0; i < nfds; i++) {
		close(fds[i]);
	}
	return ret;
}
