#define _GNU_SOURCE /* dladdr, secure_getenv */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "veil-config.h"
#include "decode/video/hardware.h"
#if VEIL_DECODER_PROCESS
#include "source/remote/client.h"
#include "source/remote/spare.h"
#endif
#include "module/core/decoders.h"
#include "module/core/scene.h"
#include "util/message.h"

/*
 * Where the scene's wallpapers are decoded, decided once, on the compositor's thread, at
 * veil_scene_create_with_options(): the options, then the environment's overrides (read here
 * and nowhere else), then what the build has and what GStreamer can decode on hardware.
 */

/* An override of the environment: "process" or "inprocess"; anything else is logged. */
static const char *override(const char *name) {
	const char *value = secure_getenv(name);
	if (value == NULL || value[0] == '\0') {
		return NULL;
	}
	if (strcmp(value, "process") != 0 && strcmp(value, "inprocess") != 0) {
		wlr_log(WLR_ERROR, "veil: %s=%s is neither 'process' nor 'inprocess': ignored", name,
			value);
		return NULL;
	}
	return value;
}

/* Whether path (resolved) lies inside dir (resolved). */
static bool inside(const char *path, const char *dir) {
	size_t len = strlen(dir);
	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/*
 * Whether this libveil runs from its build tree (uninstalled: a test, veil-tinywl from build/,
 * a compositor linked against the build tree): the object that holds this code, the shared
 * library or a program that linked it statically, lies under the build root.
 */
static bool running_uninstalled(void) {
	Dl_info info;
	char object[PATH_MAX], root[PATH_MAX];
	if (dladdr((void *)running_uninstalled, &info) == 0 || info.dli_fname == NULL ||
			realpath(info.dli_fname, object) == NULL) {
		/* The main program's name may be relative to a directory left since. */
		ssize_t len = readlink("/proc/self/exe", object, sizeof(object) - 1);
		if (len <= 0) {
			return false;
		}
		object[len] = '\0';
	}
	return realpath(VEIL_BUILD_ROOT, root) != NULL && inside(object, root);
}

#if VEIL_DECODER_PROCESS
/*
 * The veil-decoder to run: the compositor's choice, $VEIL_DECODER_HELPER, the build tree's while
 * libveil runs from it, else the installed one.
 */
static const char *helper_path(const struct veil_scene_options *options) {
	if (options->decoder_path != NULL && options->decoder_path[0] != '\0') {
		return options->decoder_path;
	}
	const char *env = secure_getenv("VEIL_DECODER_HELPER");
	if (env != NULL && env[0] != '\0') {
		return env;
	}
	return running_uninstalled() ? VEIL_DECODER_BUILD_PATH : VEIL_DECODER_PATH;
}

/*
 * Starts the spare helper's thread when the helper at its path can be run; else says why, once,
 * and how to mend it, and keeps the reason for the status.
 */
static bool start_spare(struct veil_scene *scene, const struct veil_scene_options *options) {
	const char *path = helper_path(options);
	if (access(path, X_OK) != 0) {
		int err = errno;
		scene->ctx.in_process_reason = veil_message("veil-decoder not found at %s: %s",
			path, strerror(err));
		wlr_log(WLR_ERROR, "veil: %s: decoding in the compositor's process, where a crash "
			"in a decoder ends the session (install veil with meson install, or give the "
			"helper's path in veil_scene_options.decoder_path or VEIL_DECODER_HELPER)",
			scene->ctx.in_process_reason);
		return false;
	}
	int timeout_ms = options->decoder_timeout_ms > 0 ? options->decoder_timeout_ms :
		VEIL_DECODER_TIMEOUT_MS;
	scene->ctx.decoder_spare = veil_helper_spare_create(path, timeout_ms);
	if (scene->ctx.decoder_spare == NULL) {
		scene->ctx.in_process_reason = veil_message("veil-decoder's thread cannot start");
		wlr_log(WLR_ERROR, "veil: cannot start the spare veil-decoder's thread: "
			"decoding in the compositor's process");
		return false;
	}
	/* Waiting before the first command, as after every decode: no decode starts a process. */
	veil_helper_spare_fill(scene->ctx.decoder_spare, 0);
	wlr_log(WLR_INFO, "veil: still images are decoded in veil-decoder processes (%s)", path);
	return true;
}
#endif

/*
 * With the helper: where videos play, VEIL_VIDEO_AUTO only while GStreamer has a hardware video
 * decoder (else they decode in software wherever they play, and play in the helper).
 */
static enum veil_video_place video_place_resolved(enum veil_video_place place) {
	if (place == VEIL_VIDEO_PROCESS) {
		wlr_log(WLR_INFO, "veil: videos are played in veil-decoder processes");
		return place;
	}
	if (place == VEIL_VIDEO_INPROCESS) {
		wlr_log(WLR_INFO, "veil: videos are played in the compositor's process");
		return place;
	}
	char *hardware = veil_hardware_decoder_find();
	if (hardware != NULL) {
		wlr_log(WLR_INFO, "veil: videos are played in the compositor's process on a "
			"renderer that imports dmabufs (hardware decoders such as %s need the "
			"GPU), else in veil-decoder processes", hardware);
	} else {
		wlr_log(WLR_INFO, "veil: videos are played in veil-decoder processes (no "
			"hardware video decoder: they decode in software wherever they play)");
		place = VEIL_VIDEO_PROCESS;
	}
	free(hardware);
	return place;
}

void veil_decoders_init(struct veil_scene *scene, const struct veil_scene_options *options) {
	enum veil_decoding decoding = options->decoding;
	enum veil_video_place videos = decoding == VEIL_DECODING_ISOLATED ?
		VEIL_VIDEO_PROCESS : VEIL_VIDEO_AUTO;
	const char *all = override("VEIL_DECODER");
	if (all != NULL) {
		decoding = strcmp(all, "inprocess") == 0 ? VEIL_DECODING_IN_PROCESS :
			decoding == VEIL_DECODING_IN_PROCESS ? VEIL_DECODING_DEFAULT : decoding;
	}
	const char *video = override("VEIL_DECODER_VIDEO");
	if (video != NULL) {
		videos = strcmp(video, "inprocess") == 0 ? VEIL_VIDEO_INPROCESS : VEIL_VIDEO_PROCESS;
	}
	if (decoding != VEIL_DECODING_IN_PROCESS) {
#if VEIL_DECODER_PROCESS
		if (start_spare(scene, options)) {
			scene->ctx.video_place = video_place_resolved(videos);
			return;
		}
#else
		(void)videos;
		scene->ctx.in_process_reason = veil_message("veil was built without veil-decoder");
		wlr_log(WLR_ERROR, "veil: veil was built without veil-decoder "
			"(-Ddecoder_process=false): decoding in the compositor's process");
#endif
	}
	/* Chosen (the options, VEIL_DECODER=inprocess), or the helper cannot run: said as always. */
	wlr_log(WLR_INFO, "veil: still images are decoded in the compositor's process");
	wlr_log(WLR_INFO, "veil: videos are played in the compositor's process");
}

void veil_decoders_finish(struct veil_scene *scene) {
#if VEIL_DECODER_PROCESS
	veil_helper_spare_destroy(scene->ctx.decoder_spare);
	scene->ctx.decoder_spare = NULL;
#endif
	free(scene->ctx.in_process_reason);
	scene->ctx.in_process_reason = NULL;
}
