/*
 * veil's workers: threads below the compositor's priority for the work that must never run on its
 * thread (decoding stills, building and prerolling pipelines, tearing them down). A job runs on a
 * worker; its result comes back on the compositor's event loop through one eventfd, where done()
 * hands it over. A job cancelled on the compositor thread never reaches done(): discard() frees
 * it instead, on a worker. The last command wins by cancelling the jobs it supersedes.
 */
#ifndef VEIL_UTIL_WORKER_H
#define VEIL_UTIL_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <wayland-server-core.h>

struct veil_job;
struct veil_worker;

struct veil_job_impl {
	/* A worker thread: the work. */
	void (*run)(struct veil_job *job);
	/*
	 * The compositor thread, after run(), unless the job was cancelled: hands the result over
	 * and frees the job. NULL for jobs whose run() frees them (fire and forget: a teardown).
	 */
	void (*done)(struct veil_job *job);
	/*
	 * Frees a cancelled job: after run(), or instead of it when it had not started. On a worker,
	 * or on the thread that destroys the worker. Required when done is set.
	 */
	void (*discard)(struct veil_job *job);
};

/* Embedded in whatever the job works on; the worker owns it from submit until done/discard. */
struct veil_job {
	const struct veil_job_impl *impl;
	/* Private to util/worker.c. */
	struct veil_worker *worker;
	struct wl_list link;
	int state;
	bool cancelled;
};

/* Starts no thread yet: the first job does. Returns NULL when memory or descriptors are short. */
struct veil_worker *veil_worker_create(struct wl_event_loop *loop);
/*
 * Cancels the jobs not started yet, waits for the running ones and joins the threads; every
 * job not handed to done() is discarded. Blocks: for the end of the compositor's session. NULL
 * is allowed.
 */
void veil_worker_destroy(struct veil_worker *worker);

/* Compositor thread. Queues job (initialised here) with impl. */
void veil_worker_submit(struct veil_worker *worker, struct veil_job *job,
	const struct veil_job_impl *impl);
/*
 * Compositor thread, for a submitted job whose done() has not run: done() never will, and
 * discard() frees it on a worker. Returns at once.
 */
void veil_job_cancel(struct veil_job *job);

/*
 * The calling thread runs below the compositor from now on (nice +10 relative to the process,
 * SCHED_BATCH): for workers and for the decoders' streaming threads, whose own threads
 * (libavcodec's, for one) inherit it.
 */
void veil_thread_lower_priority(void);

/*
 * pthread_create() for veil's own threads. The compositor's signals (SIGTERM, SIGINT, SIGCHLD,
 * ... which it may take through a signalfd after blocking them on its own thread only) must
 * never land on them, and they may start before it blocks them: the thread starts with every
 * signal blocked but those a fault raises, and so do the threads it starts (GStreamer's
 * streaming threads, veil-decoder's processes until they reset their mask).
 */
int veil_thread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
	void *data);

#endif
