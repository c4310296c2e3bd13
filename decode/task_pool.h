/*
 * Streaming threads that end with their pipeline. GStreamer's default task pool hands threads to
 * GLib's shared pool, which keeps idle ones for 15 s after a pipeline is gone: in a compositor
 * that switches wallpapers, threads would pile up and linger.
 */
#ifndef VEIL_DECODE_TASK_POOL_H
#define VEIL_DECODE_TASK_POOL_H

#include <gst/gst.h>

/* A pool that runs each task on a thread of its own, joined when the task is (at NULL). */
GstTaskPool *veil_task_pool_new(void);

/*
 * For a bus sync handler (any thread): gives a task that msg announces (STREAM_STATUS, CREATE)
 * to pool. Touches nothing else; other messages are ignored.
 */
void veil_task_pool_adopt(GstTaskPool *pool, GstMessage *msg);

#endif
