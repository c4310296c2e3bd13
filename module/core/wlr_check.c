#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <wlr/version.h>
#include "module/core/wlr_check.h"

/*
 * The minor version in the name of the library that defines fn, "libwlroots-0.NN.so...", or -1
 * when fn is not in such a library (wlroots linked statically into the compositor).
 *
 * libveil's calls to wlroots go to the first definition in the process's global scope: in a
 * compositor linked to another wlroots, that one, even though libveil's own libwlroots is
 * loaded beside it. The address of one of its functions, as libveil sees it, says which.
 */
static int minor_defining(void *fn) {
	Dl_info info;
	if (dladdr(fn, &info) == 0 || info.dli_fname == NULL) {
		return -1;
	}
	const char *base = strrchr(info.dli_fname, '/');
	base = base != NULL ? base + 1 : info.dli_fname;
	int minor = -1;
	if (sscanf(base, "libwlroots-0.%d.so", &minor) != 1) {
		return -1;
	}
	return minor;
}

bool veil_wlroots_check(void) {
	/* Every wlroots has this function; wlr_version_get_minor() came with 0.20. */
	void (*fn)(struct wlr_scene_node *, bool) = wlr_scene_node_set_enabled;
	void *address;
	memcpy(&address, &fn, sizeof(address));
	int minor = minor_defining(address);
	if (minor >= 0 && minor != WLR_VERSION_MINOR) {
		wlr_log(WLR_ERROR, "veil: built for wlroots 0.%d, but this compositor runs wlroots "
			"0.%d: not starting (rebuild veil against wlroots 0.%d)",
			WLR_VERSION_MINOR, minor, minor);
		return false;
	}
#if WLR_VERSION_MINOR >= 20
	/* A wlroots linked into the compositor statically, or one of another name. */
	if (wlr_version_get_major() != WLR_VERSION_MAJOR ||
			wlr_version_get_minor() != WLR_VERSION_MINOR) {
		wlr_log(WLR_ERROR, "veil: built for wlroots %d.%d, but this compositor runs wlroots "
			"%d.%d: not starting", WLR_VERSION_MAJOR, WLR_VERSION_MINOR,
			wlr_version_get_major(), wlr_version_get_minor());
		return false;
	}
#endif
	return true;
}
