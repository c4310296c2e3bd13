/*
 * What every user of GStreamer in veil shares: starting it, running a pipeline's streaming
 * threads on veil's task pool, and one reading of GStreamer's errors as errnos.
 */
#ifndef VEIL_DECODE_GST_H
#define VEIL_DECODE_GST_H

#include <gst/gst.h>

/*
 * Initialises GStreamer once for the process (any thread; later calls return at once). Returns
 * 0, or -ENOTSUP with GStreamer's reason in *why (malloc()ed; why may be NULL).
 */
int veil_gst_init(char **why);

/*
 * Gives every task a pipeline makes to pool (see decode/task_pool.h), from the bus's sync
 * handler: set it on the pipeline's bus before the pipeline leaves NULL. The bus keeps a
 * reference to pool for as long as it keeps the handler.
 */
void veil_gst_bus_adopt_tasks(GstBus *bus, GstTaskPool *pool);

/*
 * A GStreamer error as a negative errno: what can't be read is -ENOTSUP, a resource that is not
 * there -ENOENT, one that fails -EIO, anything else (a broken stream) -EINVAL.
 */
int veil_gst_errno(const GError *gerr);

/*
 * EMFILE or ENFILE when the process has no descriptor to spare, else 0. GStreamer says only
 * "Could not open resource" (a file source, fdsrc's GstPoll) or nothing at all (a refused state
 * change) when that is why a pipeline failed: the caller asks while the failed pipeline still
 * holds its descriptors.
 */
int veil_gst_descriptor_shortage(void);

#endif
