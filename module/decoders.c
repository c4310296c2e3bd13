#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include "veil-config.h"
#include "decode/video/hardware.h"
#if VEIL_DECODER_PROCESS
#include "decode/isolate/spare.h"
#endif
#include "module/decoders.h"
#include "module/scene.h"

/*
 * Stills are decoded in veil-decoder processes when veil is built with them
 * (-Ddecoder_process=true, the default), so that a crash in a decoder costs a wallpaper and not
 * the session; VEIL_DECODER=inprocess in the compositor's environment decodes them in its own
 * process instead (docs/integrating.md, "Where stills are decoded").
 */
static bool process_chosen(void) {
	const char *mode = getenv("VEIL_DECODER");
	bool chosen = VEIL_DECODER_PROCESS;
	if (mode != NULL && strcmp(mode, "inprocess") == 0) {
		chosen = false;
	} else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "process") != 0) {
		wlr_log(WLR_ERROR, "veil: VEIL_DECODER=%s is neither 'process' nor 'inprocess'",
			mode);
	} else if (mode != NULL && strcmp(mode, "process") == 0 && !VEIL_DECODER_PROCESS) {
		wlr_log(WLR_ERROR, "veil: VEIL_DECODER=process, but veil was built without "
			"veil-decoder (-Ddecoder_process=false): decoding in the compositor's process");
	}
	wlr_log(WLR_INFO, "veil: still images are decoded %s", chosen ?
		"in veil-decoder processes" : "in the compositor's process");
	return chosen;
}

/*
 * Where videos play, with veil-decoder for stills: VEIL_DECODER_VIDEO=process or inprocess, else
 * decided by the renderer and the decoders (enum veil_video_place; docs/integrating.md, "Where
 * stills and animations are decoded").
 */
static enum veil_video_place video_place_chosen(void) {
	const char *mode = getenv("VEIL_DECODER_VIDEO");
	if (mode == NULL || mode[0] == '\0') {
		return VEIL_VIDEO_AUTO;
	}
	if (strcmp(mode, "process") == 0) {
		return VEIL_VIDEO_PROCESS;
	}
	if (strcmp(mode, "inprocess") == 0) {
		return VEIL_VIDEO_INPROCESS;
	}
	wlr_log(WLR_ERROR, "veil: VEIL_DECODER_VIDEO=%s is neither 'process' nor 'inprocess'",
		mode);
	return VEIL_VIDEO_AUTO;
}

static bool create_spare(struct veil_scene *scene) {
#if VEIL_DECODER_PROCESS
	scene->ctx.decoder_spare = veil_helper_spare_create();
	if (scene->ctx.decoder_spare == NULL) {
		wlr_log(WLR_ERROR, "veil: cannot start the spare veil-decoder's thread: "
			"decoding in the compositor's process");
		return false;
	}
	/* Waiting before the first command, as after every decode: no decode starts a process. */
	veil_helper_spare_fill(scene->ctx.decoder_spare, 0);
	return true;
#else
	(void)scene;
	return false;
#endif
}

/*
 * With the helper: where videos play, VEIL_VIDEO_AUTO only while GStreamer has a hardware video
 * decoder (else they decode in software wherever they play, and play in the helper).
 */
static enum veil_video_place video_place_resolved(void) {
	enum veil_video_place place = video_place_chosen();
	if (place == VEIL_VIDEO_PROCESS) {
		wlr_log(WLR_INFO, "veil: videos are played in veil-decoder processes");
	} else if (place == VEIL_VIDEO_INPROCESS) {
		wlr_log(WLR_INFO, "veil: videos are played in the compositor's process");
	} else {
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
	}
	return place;
}

void veil_decoders_init(struct veil_scene *scene) {
	if (process_chosen() && create_spare(scene)) {
		scene->ctx.video_place = video_place_resolved();
	} else {
		wlr_log(WLR_INFO, "veil: videos are played in the compositor's process");
	}
}

void veil_decoders_finish(struct veil_scene *scene) {
#if VEIL_DECODER_PROCESS
	veil_helper_spare_destroy(scene->ctx.decoder_spare);
	scene->ctx.decoder_spare = NULL;
#else
	(void)scene;
#endif
}
