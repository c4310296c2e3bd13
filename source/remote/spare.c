#define _GNU_SOURCE /* pthread_setname_np */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <wlr/util/log.h>
#include "source/remote/spare.h"
#include "util/worker.h"

/*
 * Starting a helper costs more than the compositor's half of a decode: exec, then the dynamic
 * loader maps GStreamer's and the image libraries' (docs/measurements.md, "Decoding in a helper
 * process"). One helper waits for the next decode, started by the spare's thread (below the
 * compositor's priority, as workers are, which the helper inherits) some time after the last.
 */
struct veil_helper_spare {
	/* Fixed from create to destroy. */
	char *path; /* the veil-decoder executable */
	char **envp; /* its environment, the process's at create */
	int timeout_ms; /* one decode's time limit */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	/* Under lock. */
	struct veil_helper helper; /* pid 0: none */
	int64_t fill_at_ms; /* veil_helper_now_ms() to start one at; -1: none asked for */
	int64_t reap_at_ms; /* when to look at released helpers; -1: none released */
	bool ending;
};

/*
 * Descriptors a spare leaves free. It holds two while it waits (its socket and its pidfd) and
 * three while it starts; the wallpaper a command loads needs its own (the file, a helper's,
 * a pipeline's), and a process at its limit must give them to that, not to a spare.
 */
#define SPARE_FD_HEADROOM 32

/* Whether the process has headroom descriptors free under its limit. */
static bool descriptors_free(long headroom) {
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
		return true;
	}
	DIR *dir = opendir("/proc/self/fd");
	if (dir == NULL) {
		/* Without /proc nothing is known: only a process out of descriptors says no. */
		return errno != EMFILE && errno != ENFILE;
	}
	long open = -3; /* ".", ".." and the directory's own descriptor */
	while (readdir(dir) != NULL) {
		open++;
	}
	closedir(dir);
	return (rlim_t)(open + headroom) <= limit.rlim_cur;
}

static void wait_until(struct veil_helper_spare *spare, int64_t ms) {
	struct timespec ts = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};
	pthread_cond_timedwait(&spare->cond, &spare->lock, &ts);
}

/* The earlier of two veil_helper_now_ms() times, -1 being none. */
static int64_t earlier(int64_t a, int64_t b) {
	if (a < 0 || (b >= 0 && b < a)) {
		return b;
	}
	return a;
}

static void *spare_main(void *data) {
	struct veil_helper_spare *spare = data;
	pthread_setname_np(pthread_self(), "veil-spare");
	veil_thread_lower_priority();
	pthread_mutex_lock(&spare->lock);
	while (!spare->ending) {
		int64_t now = veil_helper_now_ms();
		if (spare->reap_at_ms >= 0 && now >= spare->reap_at_ms) {
			/* Not a wait: ended helpers are reaped, those past their grace killed. */
			spare->reap_at_ms = -1;
			pthread_mutex_unlock(&spare->lock);
			int64_t again = veil_helper_reap_released();
			pthread_mutex_lock(&spare->lock);
			/* A helper released meanwhile has asked for a time of its own. */
			spare->reap_at_ms = earlier(spare->reap_at_ms, again);
			continue;
		}
		if (spare->fill_at_ms < 0 || now < spare->fill_at_ms) {
			int64_t wake = earlier(spare->fill_at_ms, spare->reap_at_ms);
			if (wake < 0) {
				pthread_cond_wait(&spare->cond, &spare->lock);
			} else {
				wait_until(spare, wake);
			}
			continue;
		}
		spare->fill_at_ms = -1;
		if (spare->helper.pid > 0) {
			continue;
		}
		pthread_mutex_unlock(&spare->lock);
		if (!descriptors_free(SPARE_FD_HEADROOM)) {
			/* The next decode starts its own helper, if it can. */
			wlr_log(WLR_DEBUG, "veil: no spare veil-decoder: fewer than %d descriptors free",
				SPARE_FD_HEADROOM);
			pthread_mutex_lock(&spare->lock);
			continue;
		}
		struct veil_helper helper;
		char *message = NULL;
		int ret = veil_helper_start(&helper, spare->path, spare->envp, &message);
		if (ret < 0) {
			wlr_log(WLR_DEBUG, "veil: no spare veil-decoder: %s", message);
		}
		free(message);
		pthread_mutex_lock(&spare->lock);
		if (ret == 0) {
			/* Only this thread fills the spare: it is still empty. */
			spare->helper = helper;
		}
	}
	pthread_mutex_unlock(&spare->lock);
	return NULL;
}

struct veil_helper_spare *veil_helper_spare_create(const char *path, int timeout_ms) {
	struct veil_helper_spare *spare = calloc(1, sizeof(*spare));
	if (spare == NULL) {
		return NULL;
	}
	spare->path = strdup(path);
	spare->envp = veil_helper_env_copy();
	if (spare->path == NULL || spare->envp == NULL) {
		goto error_copies;
	}
	spare->timeout_ms = timeout_ms;
	spare->helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
	spare->fill_at_ms = -1;
	spare->reap_at_ms = -1;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&spare->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&spare->lock, NULL);
	if (veil_thread_create(&spare->thread, NULL, spare_main, spare) != 0) {
		pthread_mutex_destroy(&spare->lock);
		pthread_cond_destroy(&spare->cond);
		goto error_copies;
	}
	return spare;

error_copies:
	veil_helper_env_free(spare->envp);
	free(spare->path);
	free(spare);
	return NULL;
}

void veil_helper_spare_destroy(struct veil_helper_spare *spare) {
	if (spare == NULL) {
		return;
	}
	pthread_mutex_lock(&spare->lock);
	spare->ending = true;
	pthread_cond_signal(&spare->cond);
	pthread_mutex_unlock(&spare->lock);
	/* At most one helper's start away: posix_spawn or clone3, not the helper's loading. */
	pthread_join(spare->thread, NULL);
	if (spare->helper.pid > 0) {
		/* Waiting for a request, it would exit on the closed socket; don't wait for that. */
		veil_helper_kill(&spare->helper);
		veil_helper_end(&spare->helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	/* The helpers that answered last, if they are still exiting. */
	veil_helper_end_released();
	pthread_cond_destroy(&spare->cond);
	pthread_mutex_destroy(&spare->lock);
	veil_helper_env_free(spare->envp);
	free(spare->path);
	free(spare);
}

int veil_helper_spare_timeout_ms(const struct veil_helper_spare *spare) {
	return spare->timeout_ms;
}

int veil_helper_spare_restart(struct veil_helper_spare *spare, struct veil_helper *helper,
		char **message) {
	return veil_helper_start(helper, spare->path, spare->envp, message);
}

int veil_helper_spare_take(struct veil_helper_spare *spare, struct veil_helper *helper,
		char **message) {
	pthread_mutex_lock(&spare->lock);
	*helper = spare->helper;
	spare->helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
	pthread_mutex_unlock(&spare->lock);
	if (helper->pid > 0) {
		if (veil_helper_alive(helper)) {
			return 0;
		}
		/* Killed while it waited (the out-of-memory killer, a user): a new one. */
		wlr_log(WLR_INFO, "veil: the spare veil-decoder (pid %d) has ended; "
			"starting another", (int)helper->pid);
		veil_helper_end(helper, 0);
	}
	return veil_helper_start(helper, spare->path, spare->envp, message);
}

void veil_helper_spare_release(struct veil_helper_spare *spare, struct veil_helper *helper) {
	veil_helper_release(helper);
	if (spare == NULL) {
		return;
	}
	/* Its exit takes a while on a busy machine: looked at when a spare would start. */
	int64_t at = veil_helper_now_ms() + VEIL_HELPER_SPARE_DELAY_MS;
	pthread_mutex_lock(&spare->lock);
	if (spare->reap_at_ms < 0 || at < spare->reap_at_ms) {
		spare->reap_at_ms = at;
		pthread_cond_signal(&spare->cond);
	}
	pthread_mutex_unlock(&spare->lock);
}

void veil_helper_spare_fill(struct veil_helper_spare *spare, int delay_ms) {
	if (spare == NULL) {
		return;
	}
	pthread_mutex_lock(&spare->lock);
	spare->fill_at_ms = veil_helper_now_ms() + delay_ms;
	pthread_cond_signal(&spare->cond);
	pthread_mutex_unlock(&spare->lock);
}
