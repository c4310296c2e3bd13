#define _GNU_SOURCE /* SCHED_BATCH, gettid */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "util/worker.h"

/*
 * Two threads: a still can decode while a video prerolls, and on a 2-core machine a third
 * would only take time from the compositor and the decoders that play.
 */
#define MAX_THREADS 2
/* Workers and streaming threads run this much nicer than the compositor's main thread. */
#define NICE_OFFSET 10

enum job_state {
	JOB_QUEUED, /* in worker->queue: to run, or to discard when cancelled */
	JOB_RUNNING,
	JOB_FINISHED, /* in worker->finished: for done() on the compositor thread */
	JOB_DONE, /* done() has run or runs: it is the owner's again, not to be cancelled */
};

struct veil_worker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wl_list queue; /* veil_job.link */
	struct wl_list finished; /* veil_job.link */
	pthread_t threads[MAX_THREADS];
	int n_threads;
	int idle; /* threads waiting for a job */
	bool stopping;

	int wake_fd; /* written when finished gets its first job */
	bool wake_written; /* under lock */
	struct wl_event_source *wake_source;
};

void veil_thread_lower_priority(void) {
	errno = 0;
	int base = getpriority(PRIO_PROCESS, (id_t)getpid());
	if (base == -1 && errno != 0) {
		base = 0;
	}
	int nice = base + NICE_OFFSET > 19 ? 19 : base + NICE_OFFSET;
	/* On Linux the nice value is a thread's: this one and the threads it starts. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), nice) != 0) {
		wlr_log_errno(WLR_DEBUG, "veil: cannot lower a worker's priority");
	}
	/* SCHED_BATCH: the scheduler treats the thread as throughput work, never interactive. */
	struct sched_param param = { .sched_priority = 0 };
	pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
}

/* Under lock: queues a job's result for done(), waking the compositor once for all that wait. */
static void post_finished(struct veil_worker *worker, struct veil_job *job) {
	job->state = JOB_FINISHED;
	wl_list_insert(worker->finished.prev, &job->link);
	if (worker->wake_written) {
		return;
	}
	worker->wake_written = true;
	uint64_t one = 1;
	if (write(worker->wake_fd, &one, sizeof(one)) != sizeof(one)) {
		wlr_log_errno(WLR_ERROR, "veil: cannot wake the compositor");
	}
}

static void *worker_main(void *data) {
	struct veil_worker *worker = data;
	/* Told apart from decoders' threads, which end with their pipelines: these stay. */
	pthread_setname_np(pthread_self(), "veil-worker");
	veil_thread_lower_priority();
	pthread_mutex_lock(&worker->lock);
	while (true) {
		while (wl_list_empty(&worker->queue) && !worker->stopping) {
			worker->idle++;
			pthread_cond_wait(&worker->cond, &worker->lock);
			worker->idle--;
		}
		if (wl_list_empty(&worker->queue)) {
			break;
		}
		struct veil_job *job = wl_container_of(worker->queue.next, job, link);
		wl_list_remove(&job->link);
		wl_list_init(&job->link);
		job->state = JOB_RUNNING;
		bool cancelled = job->cancelled;
		/* A job without done() may be gone once run() returns: read nothing after it. */
		bool reports = job->impl->done != NULL;
		pthread_mutex_unlock(&worker->lock);

		if (cancelled) {
			job->impl->discard(job);
			pthread_mutex_lock(&worker->lock);
			continue;
		}
		job->impl->run(job);
		pthread_mutex_lock(&worker->lock);
		if (!reports) {
			continue;
		}
		if (job->cancelled) {
			pthread_mutex_unlock(&worker->lock);
			job->impl->discard(job);
			pthread_mutex_lock(&worker->lock);
			continue;
		}
		post_finished(worker, job);
	}
	pthread_mutex_unlock(&worker->lock);
	return NULL;
}

static int handle_wake(int fd, uint32_t mask, void *data) {
	struct veil_worker *worker = data;
	uint64_t count;
	if (read(worker->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "veil: cannot read the workers' eventfd");
	}
	pthread_mutex_lock(&worker->lock);
	worker->wake_written = false;
	/*
	 * One job at a time: done() may cancel another finished job, which then leaves the list
	 * before it is reached.
	 */
	while (!wl_list_empty(&worker->finished)) {
		struct veil_job *job = wl_container_of(worker->finished.next, job, link);
		wl_list_remove(&job->link);
		wl_list_init(&job->link);
		job->state = JOB_DONE;
		pthread_mutex_unlock(&worker->lock);
		job->impl->done(job);
		pthread_mutex_lock(&worker->lock);
	}
	pthread_mutex_unlock(&worker->lock);
	return 0;
}

struct veil_worker *veil_worker_create(struct wl_event_loop *loop) {
	struct veil_worker *worker = calloc(1, sizeof(*worker));
	if (worker == NULL) {
		return NULL;
	}
	worker->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (worker->wake_fd < 0) {
		wlr_log_errno(WLR_ERROR, "veil: cannot make the workers' eventfd");
		free(worker);
		return NULL;
	}
	worker->wake_source = wl_event_loop_add_fd(loop, worker->wake_fd, WL_EVENT_READABLE,
		handle_wake, worker);
	if (worker->wake_source == NULL) {
		close(worker->wake_fd);
		free(worker);
		return NULL;
	}
	pthread_mutex_init(&worker->lock, NULL);
	pthread_cond_init(&worker->cond, NULL);
	wl_list_init(&worker->queue);
	wl_list_init(&worker->finished);
	return worker;
}

void veil_worker_destroy(struct veil_worker *worker) {
	if (worker == NULL) {
		return;
	}
	pthread_mutex_lock(&worker->lock);
	worker->stopping = true;
	struct veil_job *job, *tmp;
	/* Jobs without done() (teardowns) still run: they free what they hold. */
	wl_list_for_each(job, &worker->queue, link) {
		job->cancelled = job->impl->done != NULL;
	}
	pthread_cond_broadcast(&worker->cond);
	pthread_mutex_unlock(&worker->lock);
	for (int i = 0; i < worker->n_threads; i++) {
		pthread_join(worker->threads[i], NULL);
	}
	/* Without threads (none could start), queued jobs are still here. */
	wl_list_for_each_safe(job, tmp, &worker->queue, link) {
		wl_list_remove(&job->link);
		job->impl->discard(job);
	}
	wl_list_for_each_safe(job, tmp, &worker->finished, link) {
		wl_list_remove(&job->link);
		job->impl->discard(job);
	}
	wl_event_source_remove(worker->wake_source);
	close(worker->wake_fd);
	pthread_cond_destroy(&worker->cond);
	pthread_mutex_destroy(&worker->lock);
	free(worker);
}

int veil_thread_create(pthread_t *thread, const pthread_attr_t *attr,
		void *(*start)(void *), void *data) {
	sigset_t blocked, old;
	sigfillset(&blocked);
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		sigdelset(&blocked, faults[i]);
	}
	pthread_sigmask(SIG_BLOCK, &blocked, &old);
	int err = pthread_create(thread, attr, start, data);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void veil_worker_submit(struct veil_worker *worker, struct veil_job *job,
		const struct veil_job_impl *impl) {
	assert(impl->run != NULL && (impl->done == NULL || impl->discard != NULL));
	job->impl = impl;
	job->worker = worker;
	job->cancelled = false;
	job->state = JOB_QUEUED;
	pthread_mutex_lock(&worker->lock);
	wl_list_insert(worker->queue.prev, &job->link);
	int queued = wl_list_length(&worker->queue);
	bool start = worker->idle < queued && worker->n_threads < MAX_THREADS;
	if (start) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		/* Decoders recurse and keep big frames on the stack less than GLib's threads do. */
		pthread_attr_setstacksize(&attr, 8 * 1024 * 1024);
		int err = veil_thread_create(&worker->threads[worker->n_threads], &attr, worker_main,
			worker);
		pthread_attr_destroy(&attr);
		if (err == 0) {
			worker->n_threads++;
		} else {
			wlr_log(WLR_ERROR, "veil: cannot start a worker thread: %s", strerror(err));
		}
	}
	bool stranded = worker->n_threads == 0;
	if (stranded) {
		wl_list_remove(&job->link);
		wl_list_init(&job->link);
		job->state = JOB_RUNNING;
	}
	pthread_cond_signal(&worker->cond);
	pthread_mutex_unlock(&worker->lock);
	if (!stranded) {
		return;
	}
	/* No thread at all: the work is done here rather than never; done() still comes later. */
	bool reports = impl->done != NULL;
	impl->run(job);
	if (reports) {
		pthread_mutex_lock(&worker->lock);
		post_finished(worker, job);
		pthread_mutex_unlock(&worker->lock);
	}
}

void veil_job_cancel(struct veil_job *job) {
	struct veil_worker *worker = job->worker;
	pthread_mutex_lock(&worker->lock);
	/* done() has taken its result: a discard() now would free it twice. */
	assert(job->state != JOB_DONE);
	if (job->state == JOB_DONE) {
		pthread_mutex_unlock(&worker->lock);
		return;
	}
	job->cancelled = true;
	if (job->state == JOB_FINISHED) {
		/* Its result waits for done(): discard it on a worker instead. */
		wl_list_remove(&job->link);
		job->state = JOB_QUEUED;
		wl_list_insert(&worker->queue, &job->link);
		pthread_cond_signal(&worker->cond);
	}
	pthread_mutex_unlock(&worker->lock);
}
