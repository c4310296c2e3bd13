#include <pthread.h>
#include <stdlib.h>
#include <wlr/util/log.h>
#include "decode/isolate/spare.h"
#include "util/worker.h"

/*
 * Starting a helper costs more than the compositor's half of a decode: exec, then the dynamic
 * loader maps GStreamer's and the image libraries' (docs/measurements.md, "Decoding in a helper
 * process"). One helper waits, started after the last decode, for the next.
 */
struct veil_helper_spare {
	pthread_mutex_t lock;
	struct veil_helper helper; /* pid 0: none */
};

struct veil_helper_spare *veil_helper_spare_create(void) {
	struct veil_helper_spare *spare = calloc(1, sizeof(*spare));
	if (spare == NULL) {
		return NULL;
	}
	pthread_mutex_init(&spare->lock, NULL);
	spare->helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
	return spare;
}

void veil_helper_spare_destroy(struct veil_helper_spare *spare) {
	if (spare == NULL) {
		return;
	}
	if (spare->helper.pid > 0) {
		/* Waiting for a request, it would exit on the closed socket; don't wait for that. */
		veil_helper_kill(&spare->helper);
		veil_helper_end(&spare->helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	pthread_mutex_destroy(&spare->lock);
	free(spare);
}

int veil_helper_spare_take(struct veil_helper_spare *spare, struct veil_helper *helper,
		char **message) {
	if (spare != NULL) {
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
	}
	return veil_helper_start(helper, message);
}

void veil_helper_spare_fill(struct veil_helper_spare *spare) {
	if (spare == NULL) {
		return;
	}
	pthread_mutex_lock(&spare->lock);
	if (spare->helper.pid <= 0) {
		char *message = NULL;
		if (veil_helper_start(&spare->helper, &message) < 0) {
			spare->helper = (struct veil_helper){ .pidfd = -1, .sock = -1 };
		}
		free(message);
	}
	pthread_mutex_unlock(&spare->lock);
}

struct fill_job {
	struct veil_job job;
	struct veil_helper_spare *spare;
};

static void fill_run(struct veil_job *job) {
	struct fill_job *fill = wl_container_of(job, fill, job);
	veil_helper_spare_fill(fill->spare);
	free(fill);
}

/* Fire and forget: run() frees the job, and runs even when the worker is being destroyed. */
static const struct veil_job_impl fill_job_impl = {
	.run = fill_run,
};

void veil_helper_spare_fill_later(struct veil_helper_spare *spare, struct veil_worker *worker) {
	if (spare == NULL) {
		return;
	}
	struct fill_job *fill = calloc(1, sizeof(*fill));
	if (fill == NULL) {
		return; /* the first decode starts its own helper */
	}
	fill->spare = spare;
	veil_worker_submit(worker, &fill->job, &fill_job_impl);
}
