#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "decode/gst.h"
#include "decode/task_pool.h"

int veil_gst_init(char **why) {
	if (why != NULL) {
		*why = NULL;
	}
	if (gst_is_initialized()) {
		return 0;
	}
	GError *gerr = NULL;
	if (gst_init_check(NULL, NULL, &gerr)) {
		return 0;
	}
	if (why != NULL) {
		*why = strdup(gerr != NULL ? gerr->message : "unknown error");
	}
	g_clear_error(&gerr);
	return -ENOTSUP;
}

/* Any thread, synchronously as a task is made; the message goes on to the bus as it is. */
static GstBusSyncReply handle_sync_message(GstBus *bus, GstMessage *msg, gpointer data) {
	veil_task_pool_adopt(data, msg);
	return GST_BUS_PASS;
}

void veil_gst_bus_adopt_tasks(GstBus *bus, GstTaskPool *pool) {
	gst_bus_set_sync_handler(bus, handle_sync_message, gst_object_ref(pool),
		gst_object_unref);
}

int veil_gst_errno(const GError *gerr) {
	if (gerr->domain == GST_RESOURCE_ERROR) {
		switch (gerr->code) {
		case GST_RESOURCE_ERROR_NOT_FOUND:
			return -ENOENT;
		case GST_RESOURCE_ERROR_NO_SPACE_LEFT:
			return -ENOSPC;
		default:
			return -EIO;
		}
	}
	if (gerr->domain == GST_CORE_ERROR) {
		switch (gerr->code) {
		case GST_CORE_ERROR_MISSING_PLUGIN:
		case GST_CORE_ERROR_NEGOTIATION:
			return -ENOTSUP;
		default:
			return -EINVAL;
		}
	}
	if (gerr->domain == GST_STREAM_ERROR) {
		switch (gerr->code) {
		case GST_STREAM_ERROR_TYPE_NOT_FOUND:
		case GST_STREAM_ERROR_CODEC_NOT_FOUND:
		case GST_STREAM_ERROR_WRONG_TYPE:
			return -ENOTSUP;
		default:
			return -EINVAL;
		}
	}
	return -EINVAL;
}

int veil_gst_descriptor_shortage(void) {
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return errno == EMFILE || errno == ENFILE ? errno : 0;
	}
	close(fd);
	return 0;
}
