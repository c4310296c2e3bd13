#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include "decode/video/video.h"

/*
 * The frame rate cap (`veil fps <N>`, or on battery): a probe on videoconvert's sink pad keeps a
 * frame when its running time reaches the next due time and drops the others before they are
 * converted, shown or wake the compositor. After each kept frame, a QoS event goes upstream
 * saying that frames before the next due time are late: GStreamer's video decoders then drop
 * them without pushing them, and libav's (avdec_*) do not even decode those that no other frame
 * refers to (AVDISCARD_NONREF: about half the frames of an H.264 stream with B-frames).
 *
 * Everything but fps runs on the streaming thread of videoconvert's sink pad.
 */

/* Timestamps are rounded to the nanosecond: a frame this early is on time. */
#define SLACK (GST_MSECOND)

void veil_video_rate_set_fps(struct video_source *src, int fps) {
	__atomic_store_n(&src->rate.fps, fps, __ATOMIC_RELAXED);
}

/* Tells the decoder that frames before running time `earliest` are not wanted. */
static void send_qos(GstPad *pad, GstClockTime running_time, GstClockTime earliest) {
	GstClockTimeDiff diff = GST_CLOCK_DIFF(running_time, earliest);
	/*
	 * GstVideoDecoder takes timestamp + diff as the earliest running time for diff <= 0; a
	 * positive diff it would double: give it the due time as the timestamp instead.
	 */
	GstEvent *event = diff > 0 ?
		gst_event_new_qos(GST_QOS_TYPE_THROTTLE, 1.0, 0, earliest) :
		gst_event_new_qos(GST_QOS_TYPE_THROTTLE, 1.0, 0, running_time);
	gst_pad_push_event(pad, event);
}

static GstPadProbeReturn handle_rate_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct video_source *src = data;
	struct veil_video_rate *rate = &src->rate;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT) {
			const GstSegment *segment;
			gst_event_parse_segment(event, &segment);
			gst_segment_copy_into(segment, &rate->segment);
			rate->have_segment = true;
		} else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
			/* The decoder forgot its QoS state too. */
			rate->next = GST_CLOCK_TIME_NONE;
			rate->qos_sent = false;
		}
		return GST_PAD_PROBE_OK;
	}
	int fps = __atomic_load_n(&rate->fps, __ATOMIC_RELAXED);
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstClockTime pts = GST_BUFFER_PTS(buffer);
	GstClockTime running_time = rate->have_segment && GST_CLOCK_TIME_IS_VALID(pts) ?
		gst_segment_to_running_time(&rate->segment, GST_FORMAT_TIME, pts) :
		GST_CLOCK_TIME_NONE;
	if (!GST_CLOCK_TIME_IS_VALID(running_time)) {
		return GST_PAD_PROBE_OK;
	}
	if (fps <= 0) {
		if (rate->qos_sent) {
			/* Uncapped: nothing is late any more. */
			rate->qos_sent = false;
			send_qos(pad, running_time, running_time);
		}
		rate->next = GST_CLOCK_TIME_NONE;
		return GST_PAD_PROBE_OK;
	}
	GstClockTime interval = GST_SECOND / (GstClockTime)fps;
	GstClockTime next = rate->next;
	/* The first frame, or time went back (a stream that loops to its start): keep it. */
	bool keep = !GST_CLOCK_TIME_IS_VALID(next) || running_time + SLACK >= next ||
		running_time + 2 * interval < next;
	if (!keep) {
		return GST_PAD_PROBE_DROP;
	}
	/* Due times follow a grid, so that 20 on 30 keeps 20; a gap (a pause) restarts it. */
	if (GST_CLOCK_TIME_IS_VALID(next) && next <= running_time + SLACK &&
			next + interval > running_time) {
		rate->next = next + interval;
	} else {
		rate->next = running_time + interval;
	}
	if (rate->decoder_skip) {
		rate->qos_sent = true;
		send_qos(pad, running_time, rate->next - SLACK);
	}
	return GST_PAD_PROBE_OK;
}

void veil_video_rate_install(struct video_source *src) {
	struct veil_video_rate *rate = &src->rate;
	gst_segment_init(&rate->segment, GST_FORMAT_TIME);
	rate->next = GST_CLOCK_TIME_NONE;
	/* For measurements: VEIL_FPS_DECODER_SKIP=0 drops capped frames after decoding only. */
	const char *skip = getenv("VEIL_FPS_DECODER_SKIP");
	rate->decoder_skip = skip == NULL || strcmp(skip, "0") != 0;
	GstPad *pad = gst_element_get_static_pad(src->convert, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, handle_rate_probe, src, NULL);
	gst_object_unref(pad);
}
