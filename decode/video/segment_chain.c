#include <wlr/util/log.h>
#include "decode/video/segment_chain.h"

void veil_segment_chain_init(struct veil_segment_chain *chain, const char *name) {
	*chain = (struct veil_segment_chain){ .name = name };
	gst_segment_init(&chain->segment, GST_FORMAT_TIME);
}

void veil_segment_chain_reset(struct veil_segment_chain *chain) {
	chain->have_segment = false;
	chain->end = 0;
}

/* A buffer: the running time where it ends, if later than any before. */
static void follow_buffer(struct veil_segment_chain *chain, GstBuffer *buffer) {
	if (!chain->have_segment || !GST_BUFFER_PTS_IS_VALID(buffer)) {
		return;
	}
	GstClockTime end = GST_BUFFER_PTS(buffer);
	if (GST_BUFFER_DURATION_IS_VALID(buffer)) {
		end += GST_BUFFER_DURATION(buffer);
	}
	if (GST_CLOCK_TIME_IS_VALID(chain->segment.stop) && end > chain->segment.stop) {
		end = chain->segment.stop;
	}
	GstClockTime running = gst_segment_to_running_time(&chain->segment, GST_FORMAT_TIME, end);
	if (GST_CLOCK_TIME_IS_VALID(running) && running > chain->end) {
		chain->end = running;
	}
}

/* A segment: moved after the last buffer's end when it would start before. */
static void chain_segment(struct veil_segment_chain *chain, GstPadProbeInfo *info) {
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	GstSegment segment;
	gst_event_copy_segment(event, &segment);
	if (segment.format != GST_FORMAT_TIME || segment.rate <= 0) {
		chain->have_segment = false;
		return;
	}
	GstClockTime start = gst_segment_to_running_time(&segment, GST_FORMAT_TIME, segment.start);
	if (chain->end > 0 && (!GST_CLOCK_TIME_IS_VALID(start) ||
			start + GST_MSECOND < chain->end)) {
		if (!chain->logged) {
			chain->logged = true;
			wlr_log(WLR_DEBUG, "veil: %s: a loop's segment went back in running time; moved",
				chain->name);
		}
		segment.base = chain->end;
		segment.offset = 0;
		GstEvent *moved = gst_event_new_segment(&segment);
		gst_event_set_seqnum(moved, gst_event_get_seqnum(event));
		gst_event_unref(event);
		info->data = moved;
	}
	chain->segment = segment;
	chain->have_segment = true;
}

static GstPadProbeReturn handle_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct veil_segment_chain *chain = data;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
		follow_buffer(chain, GST_PAD_PROBE_INFO_BUFFER(info));
		return GST_PAD_PROBE_OK;
	}
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
		/* A flushing seek starts running time again. */
		veil_segment_chain_reset(chain);
	} else if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT) {
		chain_segment(chain, info);
	}
	return GST_PAD_PROBE_OK;
}

void veil_segment_chain_attach(struct veil_segment_chain *chain, GstElement *sink) {
	GstPad *pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, handle_probe, chain, NULL);
	gst_object_unref(pad);
}
