#include <stdlib.h>
#include <wlr/util/log.h>
#include "decode/video/video.h"
#include "util/message.h"

/*
 * Looping: segment seeks (gapless, running time keeps going), flushing seeks where the stream
 * can't do those.
 */

static bool seek_to_start(struct video_source *src, GstSeekFlags flags) {
	return gst_element_seek(src->pipeline, 1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, 0,
		GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
}

/*
 * The load job, after the first frame: arms gapless looping. A flushing segment seek makes
 * the pipeline post SEGMENT_DONE instead of EOS at the end; a non-flushing segment seek from
 * there continues without a gap, and running time (so appsink's pacing) stays monotonic.
 */
void veil_video_start_looping(struct video_source *src) {
	bool seekable = false;
	GstQuery *query = gst_query_new_seeking(GST_FORMAT_TIME);
	if (gst_element_query(src->pipeline, query)) {
		gboolean can_seek = FALSE;
		gst_query_parse_seeking(query, NULL, &can_seek, NULL, NULL);
		seekable = can_seek;
	}
	gst_query_unref(query);
	if (seekable && !src->push_mode &&
			seek_to_start(src, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_SEGMENT)) {
		src->segment_looping = true;
		return;
	}
	wlr_log(WLR_INFO, "veil: %s: no segment seeking here; the video restarts with a flushing seek "
		"at its end", src->name);
}

void veil_video_handle_loop_end(struct video_source *src, bool eos) {
	src->loops++;
	/* Loops that take nothing, or bring nothing, would spin the compositor's thread. */
	char *message = NULL;
	switch (veil_loop_guard_end(&src->loop_guard, g_get_monotonic_time(),
			veil_video_mailbox_delivered(&src->mailbox), &message)) {
	case VEIL_LOOP_STOP:
		veil_video_source_fail(src, message != NULL ? message :
			"The video stopped on its last frame");
		free(message);
		return;
	case VEIL_LOOP_STAY:
		wlr_log(WLR_INFO, "veil: %s: one frame a loop: it stays, without looping", src->name);
		return;
	case VEIL_LOOP_AGAIN:
		break;
	}
	if (!eos && src->segment_looping) {
		if (seek_to_start(src, GST_SEEK_FLAG_SEGMENT)) {
			return;
		}
		src->segment_looping = false;
		wlr_log(WLR_INFO, "veil: %s: segment seek failed; restarting with a flushing seek",
			src->name);
	}
	if (eos && !src->eos_fallback_logged) {
		src->eos_fallback_logged = true;
		wlr_log(WLR_INFO, "veil: %s: end of stream; looping with flushing seeks", src->name);
	}
	if (!seek_to_start(src, GST_SEEK_FLAG_FLUSH)) {
		wlr_log(WLR_ERROR, "veil: %s: cannot seek back to the start; the last frame stays",
			src->name);
	}
}

