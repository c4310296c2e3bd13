#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "decode/video/threads.h"

/*
 * How many threads decode and convert a video.
 *
 * libav's decoder. Left to itself, avdec starts one frame thread per core, and each frame thread
 * holds frames of its own: a frame decoded ahead for every thread, and the thread's copy of the
 * decoder's state. Up to 1080p60's pixel rate it decodes with slice threads instead
 * (thread-type slice): a stream cut into slices is decoded by as many threads at once, one of
 * one slice (x264's default) by one thread, which takes 1080p60 H.264 at a third of a core here.
 * On 2 cores that is 8.8 MiB less anonymous memory for 1080p30 H.264 than libav's two frame
 * threads, at no cost in CPU or frames (docs/measurements.md, "Memory of a video (issue 40)").
 * (max-threads 1, which saved as much, broke gapless loops and mid-stream caps changes in the
 * integration tests: issue 18.) Larger or faster streams keep libav's choice; so does a
 * gst-libav without thread-type, limited to two threads.
 *
 * The choice is set on the decoder's sink caps, which carry the stream's size and rate: avdec
 * reads thread-type and max-threads when it opens the codec for them; veil's own decoder
 * (avcodec_decoder.c) asks veil_video_slice_threads_suffice() when it opens its codec.
 *
 * videoconvert (to BGRx for pixman) works on one thread up to 1080p60's pixel rate and on two
 * beyond. Splitting a 1080p frame across two threads cost 0.25 ms of CPU a frame more than one
 * thread did (1.06 against 0.81 ms, `tests/bench/convert.py --per-frame`): the threads' hand-off
 * costs more than it spreads. Beyond 1080p60 two threads keep a margin on slower cores (a 4K
 * frame is four times the work; not measured). The count is set on the decoded
 * stream's caps, before videoconvert sees them: it reads n-threads when it makes its
 * converter for new caps.
 */

#define PIXELS_1080P30 (1920LL * 1088 * 30)

bool veil_video_slice_threads_suffice(const GstStructure *s) {
	int width = 0, height = 0, fps_n = 0, fps_d = 0;
	if (s == NULL || !gst_structure_get_int(s, "width", &width) ||
			!gst_structure_get_int(s, "height", &height) ||
			!gst_structure_get_fraction(s, "framerate", &fps_n, &fps_d) ||
			fps_n <= 0 || fps_d <= 0 || width <= 0 || height <= 0) {
		return false;
	}
	return (long long)width * height * fps_n / fps_d <= 2 * PIXELS_1080P30;
}

guint veil_video_convert_thread_count(GstCaps *caps) {
	const GstStructure *s = gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : NULL;
	return veil_video_slice_threads_suffice(s) ? 1u : 2u;
}

void veil_video_set_convert_threads(GstElement *convert, GstCaps *caps) {
	g_object_set(convert, "n-threads", veil_video_convert_thread_count(caps), NULL);
}

/* The decoder's sink pad, the thread that feeds it, before avdec sees the caps. */
static GstPadProbeReturn handle_caps(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
	GstElement *decoder = data;
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) {
		return GST_PAD_PROBE_OK;
	}
	GstCaps *caps;
	gst_event_parse_caps(event, &caps);
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	bool small = veil_video_slice_threads_suffice(s);
	if (g_object_class_find_property(G_OBJECT_GET_CLASS(decoder), "thread-type") != NULL) {
		/* GstLibAVVidDecThreadType: 0 auto (libav's choice), 2 slice. */
		gst_util_set_object_arg(G_OBJECT(decoder), "thread-type", small ? "slice" : "auto");
		g_object_set(decoder, "max-threads", 0, NULL);
	} else {
		g_object_set(decoder, "max-threads", small ? 2 : 0, NULL);
	}
	return GST_PAD_PROBE_OK;
}

void veil_video_limit_decoder_threads(GstElement *decoder) {
	GstElementFactory *factory = gst_element_get_factory(decoder);
	if (factory == NULL || strncmp(GST_OBJECT_NAME(factory), "avdec_", 6) != 0 ||
			g_object_class_find_property(G_OBJECT_GET_CLASS(decoder),
				"max-threads") == NULL) {
		return;
	}
	GstPad *pad = gst_element_get_static_pad(decoder, "sink");
	if (pad == NULL) {
		return;
	}
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, handle_caps, decoder, NULL);
	gst_object_unref(pad);
}
