#include <stdlib.h>
#include <string.h>
#include "decode/video/choose.h"
#include "util/message.h"

static bool has_prefix(const char *str, const char *prefix) {
	return strncmp(str, prefix, strlen(prefix)) == 0;
}

enum veil_decoder_family veil_decoder_family(const char *name, const char *klass) {
	if (name == NULL || klass == NULL || strstr(klass, "Decoder") == NULL) {
		return VEIL_DECODER_NONE;
	}
	if (has_prefix(name, "vaapi")) {
		return VEIL_DECODER_VAAPI;
	}
	if (has_prefix(name, "va")) {
		return VEIL_DECODER_VA;
	}
	if (has_prefix(name, "v4l2")) {
		return VEIL_DECODER_V4L2;
	}
	if (has_prefix(name, "nv")) {
		return VEIL_DECODER_NVDEC;
	}
	if (strstr(klass, "Hardware") != NULL) {
		return VEIL_DECODER_OTHER_HARDWARE;
	}
	return VEIL_DECODER_SOFTWARE;
}

bool veil_decoder_is_hardware(const char *name, const char *klass) {
	enum veil_decoder_family family = veil_decoder_family(name, klass);
	return family != VEIL_DECODER_NONE && family != VEIL_DECODER_SOFTWARE;
}

bool veil_decoder_order(const struct veil_decoder_candidate *candidates, size_t n,
		size_t *order) {
	size_t k = 0;
	for (int hw = 1; hw >= 0; hw--) {
		for (size_t i = 0; i < n; i++) {
			if (veil_decoder_is_hardware(candidates[i].name, candidates[i].klass) ==
					(bool)hw) {
				order[k++] = i;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (order[i] != i) {
			return true;
		}
	}
	return false;
}

char *veil_decoder_skip_reason(const struct veil_decoder_candidate *candidate,
		const char *render_device) {
	if (veil_decoder_family(candidate->name, candidate->klass) != VEIL_DECODER_VA) {
		return NULL;
	}
	const char *path = candidate->device_path;
	if (render_device == NULL) {
		/* No DRM renderer: frames are copied to system memory anyway; any one GPU does. */
		if (strstr(candidate->name, "renderD") != NULL) {
			return veil_message("not the first VA device (%s) and the renderer has none",
				path != NULL ? path : "unknown");
		}
		return NULL;
	}
	if (path == NULL) {
		return veil_message("its device is unknown");
	}
	if (candidate->device == NULL || strcmp(candidate->device, render_device) != 0) {
		return veil_message("it runs on %s, the renderer on %s", path, render_device);
	}
	return NULL;
}
