#include <stdio.h>
#include <string.h>
#include <gst/base/gstbasetransform.h>
#include "decode/video/elements.h"

/* Appends name to buf (space-separated); a name that does not fit is cut off with the rest. */
static void append_name(char *buf, size_t size, const char *name) {
	size_t len = strlen(buf);
	if (len + (len > 0) + strlen(name) + 1 > size) {
		return;
	}
	snprintf(buf + len, size - len, "%s%s", len > 0 ? " " : "", name);
}

/*
 * A bin's children in the order they were added (GstBin keeps the newest first), bins walked
 * into: for decodebin that is the order of the chain it plugged, source to decoder.
 */
static void describe_bin(GstBin *bin, char *buf, size_t size) {
	GST_OBJECT_LOCK(bin);
	GList *children = NULL;
	for (GList *l = bin->children; l != NULL; l = l->next) {
		children = g_list_prepend(children, gst_object_ref(l->data));
	}
	GST_OBJECT_UNLOCK(bin);

	for (GList *l = children; l != NULL; l = l->next) {
		GstElement *element = l->data;
		if (GST_IS_BIN(element)) {
			describe_bin(GST_BIN(element), buf, size);
			continue;
		}
		/* A transform in passthrough hands frames on untouched: videoconvert, mostly. */
		if (GST_IS_BASE_TRANSFORM(element) &&
				gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(element))) {
			continue;
		}
		GstElementFactory *factory = gst_element_get_factory(element);
		if (factory != NULL) {
			append_name(buf, size, GST_OBJECT_NAME(factory));
		}
	}
	g_list_free_full(children, gst_object_unref);
}

void veil_video_describe_elements(GstElement *pipeline, char *buf, size_t size) {
	if (size == 0) {
		return;
	}
	buf[0] = '\0';
	if (pipeline != NULL) {
		describe_bin(GST_BIN(pipeline), buf, size);
	}
}
