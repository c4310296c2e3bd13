#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <gst/gst.h>
#include "decode/video/choose.h"
#include "decode/video/hardware.h"

static gboolean is_hardware_video_decoder(GstPluginFeature *feature, gpointer data) {
	if (!GST_IS_ELEMENT_FACTORY(feature)) {
		return FALSE;
	}
	const char *klass = gst_element_factory_get_metadata(GST_ELEMENT_FACTORY(feature),
		GST_ELEMENT_METADATA_KLASS);
	return klass != NULL && strstr(klass, "Video") != NULL &&
		veil_decoder_is_hardware(GST_OBJECT_NAME(feature), klass);
}

char *veil_hardware_decoder_find(void) {
	GList *found = gst_registry_feature_filter(gst_registry_get(), is_hardware_video_decoder,
		TRUE, NULL);
	char *name = found != NULL ? strdup(GST_OBJECT_NAME(found->data)) : NULL;
	gst_plugin_feature_list_free(found);
	return name;
}

char *veil_hardware_drm_device(const struct stat *st) {
	if (!S_ISCHR(st->st_mode)) {
		return NULL;
	}
	char path[64];
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device", major(st->st_rdev),
		minor(st->st_rdev));
	return realpath(path, NULL);
}
