#define _GNU_SOURCE /* __WALL */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "veil-config.h"
#include "source/remote/process.h"
#include "wire/wire.h"
#include "util/message.h"

extern char **environ;

/* Helpers that answered and are still exiting, reaped later (at most this many kept). */
#define MAX_EXITING 16

static struct {
	pthread_mutex_t lock;
	struct {
		struct veil_helper helper; /* its socket closed */
		int64_t deadline_ms; /* killed if still running then */
	} helpers[MAX_EXITING];
	int count;
} exiting = { .lock = PTHREAD_MUTEX_INITIALIZER };

int64_t veil_helper_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether the helper behind pidfd has ended, and then reaps it (or the compositor did). */
static bool reaped(int pidfd) {
	siginfo_t info = {0};
	int r;
	do {
		r = waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | __WALL | WNOHANG);
	} while (r < 0 && errno == EINTR);
	/* Ended, or reaped by the compositor already (ECHILD). */
	return r < 0 || info.si_pid != 0;
}

int64_t veil_helper_reap_released(void) {
	int64_t now = veil_helper_now_ms();
	int64_t next = -1;
	pthread_mutex_lock(&exiting.lock);
	for (int i = 0; i < exiting.count;) {
		struct veil_helper *helper = &exiting.helpers[i].helper;
		if (reaped(helper->pidfd)) {
			close(helper->pidfd);
			exiting.helpers[i] = exiting.helpers[--exiting.count];
			continue;
		}
		if (now >= exiting.helpers[i].deadline_ms) {
			/* Its grace is over: killed, and looked at again shortly. */
			veil_helper_kill(helper);
			exiting.helpers[i].deadline_ms = now + VEIL_HELPER_KILLED_MS;
		}
		if (next < 0 || exiting.helpers[i].deadline_ms < next) {
			next = exiting.helpers[i].deadline_ms;
		}
		i++;
	}
	pthread_mutex_unlock(&exiting.lock);
	return next;
}

void veil_helper_end_released(void) {
	pthread_mutex_lock(&exiting.lock);
	for (int i = 0; i < exiting.count; i++) {
		veil_helper_kill(&exiting.helpers[i].helper);
		veil_helper_end(&exiting.helpers[i].helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	exiting.count = 0;
	pthread_mutex_unlock(&exiting.lock);
}

/* Leaves an answered helper to end by itself; false when it must be waited for now. */
static bool leave_exiting(const struct veil_helper *helper) {
	veil_helper_reap_released();
	pthread_mutex_lock(&exiting.lock);
	bool kept = exiting.count < MAX_EXITING;
	if (kept) {
		exiting.helpers[exiting.count].helper = *helper;
		exiting.helpers[exiting.count].deadline_ms =
			veil_helper_now_ms() + VEIL_HELPER_EXIT_GRACE_MS;
		exiting.count++;
	}
	pthread_mutex_unlock(&exiting.lock);
	return kept;
}

/* posix_spawn(), and a pidfd_open() of it where there is one (else *pidfd is -1). */
static int spawn_plain(const char *path, char *const envp[], int sock, pid_t *pid, int *pidfd,
		char **message) {
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
	int err = posix_spawn(pid, path, &actions, &attr, argv, envp);
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

/* Starts the helper with sock as its VEIL_WIRE_FD, and a pidfd to wait for and kill it by. */
static int spawn(const char *path, char *const envp[], int sock, pid_t *pid, int *pidfd,
		char **message) {
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
		return spawn_plain(path, envp, sock, pid, pidfd, message);
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
		execve(path, argv, envp);
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

int veil_helper_start(struct veil_helper *helper, const char *path, char *const envp[],
		char **message) {
	*helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		int err = errno;
		veil_message_set(message, "cannot start the decoder: %s", strerror(err));
		return -err;
	}
	int ret = spawn(path, envp, sv[1], &helper->pid, &helper->pidfd, message);
	close(sv[1]);
	if (ret < 0) {
		close(sv[0]);
		return ret;
	}
	helper->sock = sv[0];
	return 0;
}

char **veil_helper_env_copy(void) {
	size_t n = 0;
	while (environ != NULL && environ[n] != NULL) {
		n++;
	}
	char **envp = calloc(n + 1, sizeof(*envp));
	if (envp == NULL) {
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		envp[i] = strdup(environ[i]);
		if (envp[i] == NULL) {
			veil_helper_env_free(envp);
			return NULL;
		}
	}
	return envp;
}

void veil_helper_env_free(char **envp) {
	if (envp == NULL) {
		return;
	}
	for (char **e = envp; *e != NULL; e++) {
		free(*e);
	}
	free(envp);
}

bool veil_helper_alive(const struct veil_helper *helper) {
	siginfo_t info = {0};
	int r;
	/* WNOWAIT: looked at, not reaped; veil_helper_end() reaps it. */
	do {
		r = helper->pidfd >= 0 ?
			waitid(P_PIDFD, (id_t)helper->pidfd, &info, WEXITED | __WALL | WNOHANG | WNOWAIT) :
			waitid(P_PID, (id_t)helper->pid, &info, WEXITED | __WALL | WNOHANG | WNOWAIT);
	} while (r < 0 && errno == EINTR);
	/* ECHILD: the compositor reaped it. */
	return r == 0 && info.si_pid == 0;
}

void veil_helper_kill(const struct veil_helper *helper) {
	if (helper->pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, helper->pidfd, SIGKILL, NULL, 0);
	} else if (helper->pid > 0) {
		/*
		 * Not reaped until veil waits for it, unless the compositor reaps every child:
		 * then the pid may be gone (or, rarely, reused). Only without pidfds.
		 */
		kill(helper->pid, SIGKILL);
	}
}

/* Waits up to ms for the helper to end (then kills it) and reaps it. */
static void reap(const struct veil_helper *helper, int ms) {
	int64_t deadline = veil_helper_now_ms() + ms;
	if (helper->pidfd < 0) {
		/* No pidfd: poll waitpid, then kill. */
		for (;;) {
			pid_t r = waitpid(helper->pid, NULL, WNOHANG);
			if (r == helper->pid || (r < 0 && errno != EINTR)) {
				return;
			}
			if (veil_helper_now_ms() >= deadline) {
				veil_helper_kill(helper);
				while (waitpid(helper->pid, NULL, 0) < 0 && errno == EINTR) {
					continue;
				}
				return;
			}
			struct timespec pause = { .tv_nsec = 2 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
	struct pollfd pfd = { .fd = helper->pidfd, .events = POLLIN };
	for (;;) {
		int64_t left = deadline - veil_helper_now_ms();
		if (left <= 0) {
			veil_helper_kill(helper);
			break;
		}
		int r = poll(&pfd, 1, (int)left);
		if (r > 0 || (r < 0 && errno != EINTR)) {
			break;
		}
	}
	siginfo_t info;
	while (waitid(P_PIDFD, (id_t)helper->pidfd, &info, WEXITED | __WALL) < 0 &&
			errno == EINTR) {
		continue;
	}
}

void veil_helper_end(struct veil_helper *helper, int ms) {
	if (helper->sock >= 0) {
		close(helper->sock);
	}
	if (helper->pid > 0) {
		reap(helper, ms);
	}
	if (helper->pidfd >= 0) {
		close(helper->pidfd);
	}
	*helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
}

void veil_helper_release(struct veil_helper *helper) {
	if (helper->sock >= 0) {
		close(helper->sock);
		helper->sock = -1;
	}
	if (helper->pidfd >= 0 && leave_exiting(helper)) {
		*helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
		return;
	}
	veil_helper_end(helper, VEIL_HELPER_EXIT_GRACE_MS);
}
