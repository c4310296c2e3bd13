#include <stdlib.h>
#include <string.h>
#include "decode/video/avcodec_decoder.h"
#include "decode/video/rate.h"

/*
 * The frame rate cap (`veil fps <N>`, or on battery). A probe on videoconvert's sink pad keeps a
 * frame when its running time reaches the next due time and drops the others before they are
 * converted, shown or wake the compositor.
 *
 * Where the cap is at most half the stream's rate and the decoder is libav's (avdec_*, or veil's
 * own over libavcodec, avcodec_decoder.c), the decoder is also told not to decode the frames no
 * other frame refers to: a probe on its sink pad marks the segment it receives as a trick mode
 * (GST_SEGMENT_FLAG_TRICKMODE), for which both set AVDISCARD_NONREF (about half the frames of
 * an H.264 stream with B-frames are skipped, none of one without). avdec's own skip-frame
 * property cannot do it: its values are passed to libav as they are, all below
 * AVDISCARD_NONREF. The flag is taken off again at videoconvert's sink. Should the frames left
 * be fewer than the cap (a stream with more non-reference frames), skipping stops for good and
 * the probe alone caps.
 */

/* Timestamps are rounded to the nanosecond: a frame this early is on time. */
#define SLACK (GST_MSECOND)
/* How long skipping runs before the frames it leaves are counted. */
#define CHECK_WINDOW (2 * GST_SECOND)

void veil_video_rate_set_fps(struct veil_video_rate *rate, int fps) {
	__atomic_store_n(&rate->fps, fps, __ATOMIC_RELAXED);
}

/* The segment as it was, trick mode flag aside: the same running times. */
static GstEvent *segment_with_skip(const GstSegment *segment, guint32 seqnum, bool skip) {
	GstSegment copy;
	gst_segment_copy_into(segment, &copy);
	if (skip) {
		copy.flags |= GST_SEGMENT_FLAG_TRICKMODE;
	} else {
		copy.flags &= ~GST_SEGMENT_FLAG_TRICKMODE;
	}
	GstEvent *event = gst_event_new_segment(&copy);
	gst_event_set_seqnum(event, seqnum);
	return event;
}

/* The decoder's sink pad, the streaming thread that feeds it. */
static GstPadProbeReturn handle_decoder_probe(GstPad *pad, GstPadProbeInfo *info,
		gpointer data) {
	struct veil_video_rate *rate = data;
	bool want = __atomic_load_n(&rate->skip, __ATOMIC_RELAXED);
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) != GST_EVENT_SEGMENT) {
			return GST_PAD_PROBE_OK;
		}
		const GstSegment *segment;
		gst_event_parse_segment(event, &segment);
		gst_segment_copy_into(segment, &rate->decoder_segment);
		rate->decoder_seqnum = gst_event_get_seqnum(event);
		rate->have_decoder_segment = true;
		bool skipping = (segment->flags & GST_SEGMENT_FLAG_TRICKMODE) != 0;
		if (skipping != want) {
			GST_PAD_PROBE_INFO_DATA(info) = segment_with_skip(segment,
				rate->decoder_seqnum, want);
			gst_event_unref(event);
		}
		rate->decoder_skipping = want;
		return GST_PAD_PROBE_OK;
	}
	if (rate->have_decoder_segment && want != rate->decoder_skipping &&
			rate->decoder_segment.format == GST_FORMAT_TIME) {
		/* The same segment again, flag changed: the decoder changes its mind from here. */
		GstEvent *event = segment_with_skip(&rate->decoder_segment, rate->decoder_seqnum,
			want);
		rate->decoder_skipping = want;
		gst_pad_send_event(pad, event);
	}
	return GST_PAD_PROBE_OK;
}

void veil_video_rate_watch_decoder(struct veil_video_rate *rate, GstElement *decoder) {
	GstElementFactory *factory = gst_element_get_factory(decoder);
	if (factory == NULL || (strncmp(GST_OBJECT_NAME(factory), "avdec_", 6) != 0 &&
			strcmp(GST_OBJECT_NAME(factory), VEIL_AVCODEC_DECODER_NAME) != 0)) {
		return;
	}
	GstPad *pad = gst_element_get_static_pad(decoder, "sink");
	if (pad == NULL) {
		return;
	}
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
		handle_decoder_probe, rate, NULL);
	gst_object_unref(pad);
	__atomic_store_n(&rate->decoder_watched, true, __ATOMIC_RELAXED);
}

/* videoconvert's sink pad: whether the decoder should skip, and whether it skips too much. */
static void update_skip(struct veil_video_rate *rate, int fps, GstClockTime running_time) {
	bool want = fps > 0 && !rate->skip_failed && rate->stream_fps_d > 0 &&
		(gint64)fps * 2 * rate->stream_fps_d <= (gint64)rate->stream_fps_n &&
		__atomic_load_n(&rate->decoder_watched, __ATOMIC_RELAXED);
	bool was = __atomic_load_n(&rate->skip, __ATOMIC_RELAXED);
	if (want != was) {
		__atomic_store_n(&rate->skip, want, __ATOMIC_RELAXED);
		rate->check_start = GST_CLOCK_TIME_NONE;
	}
	if (!want) {
		return;
	}
	/* Counted from the first frame after the switch: the decoder had frames in flight. */
	if (!GST_CLOCK_TIME_IS_VALID(rate->check_start) || running_time < rate->check_start) {
		rate->check_start = running_time;
		rate->check_frames = 0;
		return;
	}
	rate->check_frames++;
	GstClockTime span = running_time - rate->check_start;
	if (span < CHECK_WINDOW) {
		return;
	}
	/* A frame a second of slack: the timestamps of the frames left need not be even. */
	if (rate->check_frames * GST_SECOND < (guint64)(fps - 1) * span) {
		rate->skip_failed = true;
		__atomic_store_n(&rate->skip, false, __ATOMIC_RELAXED);
	}
	rate->check_start = running_time;
	rate->check_frames = 0;
}

/* Whether two segments map timestamps to the same running times. */
static bool same_times(const GstSegment *a, const GstSegment *b) {
	return a->format == b->format && a->rate == b->rate && a->start == b->start &&
		a->stop == b->stop && a->time == b->time && a->base == b->base &&
		a->offset == b->offset;
}

static GstPadProbeReturn handle_rate_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	struct veil_video_rate *rate = data;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT) {
			const GstSegment *segment;
			gst_event_parse_segment(event, &segment);
			guint32 seqnum = gst_event_get_seqnum(event);
			if (rate->have_segment && seqnum == rate->segment_seqnum &&
					same_times(segment, &rate->segment)) {
				/*
				 * The decoder's segment again, sent for its flag: nothing changes
				 * downstream, where it would look like a loop going back in time.
				 */
				return GST_PAD_PROBE_DROP;
			}
			rate->segment_seqnum = seqnum;
			gst_segment_copy_into(segment, &rate->segment);
			rate->segment.flags &= ~GST_SEGMENT_FLAG_TRICKMODE;
			rate->have_segment = true;
			if (segment->flags & GST_SEGMENT_FLAG_TRICKMODE) {
				/* Ours, for the decoder: what follows plays as usual. */
				GST_PAD_PROBE_INFO_DATA(info) = segment_with_skip(segment,
					gst_event_get_seqnum(event), false);
				gst_event_unref(event);
			}
		} else if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
			GstCaps *caps;
			gst_event_parse_caps(event, &caps);
			const GstStructure *s = gst_caps_get_structure(caps, 0);
			if (s == NULL || !gst_structure_get_fraction(s, "framerate",
					&rate->stream_fps_n, &rate->stream_fps_d)) {
				rate->stream_fps_n = rate->stream_fps_d = 0;
			}
		} else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
			rate->next = GST_CLOCK_TIME_NONE;
			rate->check_start = GST_CLOCK_TIME_NONE;
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
	update_skip(rate, fps, running_time);
	if (fps <= 0) {
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
	return GST_PAD_PROBE_OK;
}

void veil_video_rate_install(struct veil_video_rate *rate, GstElement *convert) {
	gst_segment_init(&rate->segment, GST_FORMAT_TIME);
	rate->next = GST_CLOCK_TIME_NONE;
	rate->check_start = GST_CLOCK_TIME_NONE;
	GstPad *pad = gst_element_get_static_pad(convert, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, handle_rate_probe, rate, NULL);
	gst_object_unref(pad);
}
