#include <stdlib.h>
#include "decode/task_pool.h"
#include "util/worker.h"

typedef struct {
	GstTaskPool parent;
} VeilTaskPool;
typedef struct {
	GstTaskPoolClass parent_class;
} VeilTaskPoolClass;
static GType veil_task_pool_get_type(void);
G_DEFINE_TYPE(VeilTaskPool, veil_task_pool, GST_TYPE_TASK_POOL)

struct task_job {
	GstTaskPoolFunction func;
	gpointer data;
};

static gpointer run_task_job(gpointer data) {
	struct task_job job = *(struct task_job *)data;
	free(data);
	/*
	 * Decoders run below the compositor; their own threads (libavcodec's) are made from here
	 * and inherit it.
	 */
	veil_thread_lower_priority();
	job.func(job.data);
	return NULL;
}

static void task_pool_prepare(GstTaskPool *pool, GError **error) {
	/* Nothing to prepare: threads are made per task. */
}

static void task_pool_cleanup(GstTaskPool *pool) {
	/* Every thread was joined with its task. */
}

static gpointer task_pool_push(GstTaskPool *pool, GstTaskPoolFunction func, gpointer data,
		GError **error) {
	struct task_job *job = malloc(sizeof(*job));
	if (job == NULL) {
		g_set_error_literal(error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN, "out of memory");
		return NULL;
	}
	*job = (struct task_job){ .func = func, .data = data };
	GThread *thread = g_thread_try_new("veil-stream", run_task_job, job, error);
	if (thread == NULL) {
		free(job);
	}
	return thread;
}

static void task_pool_join(GstTaskPool *pool, gpointer id) {
	if (id != NULL) {
		g_thread_join(id);
	}
}

static void task_pool_dispose_handle(GstTaskPool *pool, gpointer id) {
	if (id != NULL) {
		g_thread_unref(id);
	}
}

static void veil_task_pool_class_init(VeilTaskPoolClass *klass) {
	GstTaskPoolClass *pool_class = GST_TASK_POOL_CLASS(klass);
	pool_class->prepare = task_pool_prepare;
	pool_class->cleanup = task_pool_cleanup;
	pool_class->push = task_pool_push;
	pool_class->join = task_pool_join;
	pool_class->dispose_handle = task_pool_dispose_handle;
}

static void veil_task_pool_init(VeilTaskPool *pool) {
}

GstTaskPool *veil_task_pool_new(void) {
	GstTaskPool *pool = g_object_new(veil_task_pool_get_type(), NULL);
	gst_object_ref_sink(pool);
	return pool;
}

void veil_task_pool_adopt(GstTaskPool *pool, GstMessage *msg) {
	if (GST_MESSAGE_TYPE(msg) != GST_MESSAGE_STREAM_STATUS) {
		return;
	}
	GstStreamStatusType type;
	GstElement *owner;
	gst_message_parse_stream_status(msg, &type, &owner);
	const GValue *value = gst_message_get_stream_status_object(msg);
	if (type == GST_STREAM_STATUS_TYPE_CREATE && value != NULL &&
			G_VALUE_HOLDS(value, GST_TYPE_TASK)) {
		gst_task_set_pool(g_value_get_object(value), pool);
	}
}
