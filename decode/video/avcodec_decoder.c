#include <stdint.h>
#include <string.h>
#include <gst/video/video.h>
#include <gst/video/gstvideodecoder.h>
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include "decode/video/avcodec_decoder.h"
#include "decode/video/threads.h"

/*
 * A GstVideoDecoder over libavcodec's send/receive calls, for what veil plays most: H.264, HEVC,
 * VP8 and VP9. It is there for memory (docs/measurements.md, "Memory of a video"):
 *
 * - gst-libav's plugin links libavfilter and libavformat, and through them flite's voices,
 *   gnutls, libplacebo, srt and more: 12 to 19 MiB of PSS in every process that decodes with
 *   it. This element links libavcodec and libavutil only, so a process that plays these codecs
 *   never loads libgstlibav.so.
 * - avdec copies every picture of a 1080-row stream out of libav's 1088-row pool into a pool of
 *   its own. Here each output buffer holds references to libav's own planes (one GstMemory a
 *   plane, read-only, the plane's AVBufferRef unreferenced when GStreamer frees it), with a
 *   GstVideoMeta for their offsets and strides. Downstream that does not take GstVideoMeta,
 *   or has memory of its own to fill (decide_allocation()), gets a copy in a frame of its
 *   pool.
 *
 * A GstVideoCodecFrame's system_frame_number goes through libav with the packet
 * (AV_CODEC_FLAG_COPY_OPAQUE) and names the frame a picture finishes. Frames libav will never
 * output (skipped, broken, or earlier than a picture already output) are released, so none
 * accumulate while a video loops. Threads follow threads.c's rule; a segment marked as a trick
 * mode (rate.c's frame rate cap) makes libav skip the frames no other refers to, as avdec does.
 */

GST_DEBUG_CATEGORY_STATIC(veil_avcodec_debug);
#define GST_CAT_DEFAULT veil_avcodec_debug

#define VEIL_TYPE_AVCODEC_DECODER (veil_avcodec_decoder_get_type())
G_DECLARE_FINAL_TYPE(VeilAvcodecDecoder, veil_avcodec_decoder, VEIL, AVCODEC_DECODER,
	GstVideoDecoder)

/* What the negotiated output was made from: a change negotiates again. */
struct output_key {
	enum AVPixelFormat format;
	int width, height;
	enum AVColorRange range;
	enum AVColorSpace matrix;
	enum AVColorPrimaries primaries;
	enum AVColorTransferCharacteristic transfer;
	AVRational sar;
};

struct _VeilAvcodecDecoder {
	GstVideoDecoder parent;
	AVCodecContext *context;
	AVPacket *packet;
	AVFrame *picture;
	GstVideoCodecState *input_state;
	struct output_key output;
	bool negotiated;
	bool video_meta; /* downstream takes GstVideoMeta: libav's planes as they are */
};

G_DEFINE_TYPE(VeilAvcodecDecoder, veil_avcodec_decoder, GST_TYPE_VIDEO_DECODER)

static const struct {
	const char *caps;
	enum AVCodecID id;
} codecs[] = {
	{ "video/x-h264", AV_CODEC_ID_H264 },
	{ "video/x-h265", AV_CODEC_ID_HEVC },
	{ "video/x-vp8", AV_CODEC_ID_VP8 },
	{ "video/x-vp9", AV_CODEC_ID_VP9 },
};

/* The pixel formats libav gives these codecs; yuvj* are the full-range forms of yuv*. */
static const struct {
	enum AVPixelFormat av;
	GstVideoFormat gst;
} formats[] = {
	{ AV_PIX_FMT_YUV420P, GST_VIDEO_FORMAT_I420 },
	{ AV_PIX_FMT_YUVJ420P, GST_VIDEO_FORMAT_I420 },
	{ AV_PIX_FMT_YUV422P, GST_VIDEO_FORMAT_Y42B },
	{ AV_PIX_FMT_YUVJ422P, GST_VIDEO_FORMAT_Y42B },
	{ AV_PIX_FMT_YUV444P, GST_VIDEO_FORMAT_Y444 },
	{ AV_PIX_FMT_YUVJ444P, GST_VIDEO_FORMAT_Y444 },
	{ AV_PIX_FMT_YUV420P10LE, GST_VIDEO_FORMAT_I420_10LE },
	{ AV_PIX_FMT_YUV422P10LE, GST_VIDEO_FORMAT_I422_10LE },
	{ AV_PIX_FMT_YUV444P10LE, GST_VIDEO_FORMAT_Y444_10LE },
	{ AV_PIX_FMT_YUV420P12LE, GST_VIDEO_FORMAT_I420_12LE },
	{ AV_PIX_FMT_YUV422P12LE, GST_VIDEO_FORMAT_I422_12LE },
	{ AV_PIX_FMT_YUV444P12LE, GST_VIDEO_FORMAT_Y444_12LE },
	{ AV_PIX_FMT_GBRP, GST_VIDEO_FORMAT_GBR },
	{ AV_PIX_FMT_GRAY8, GST_VIDEO_FORMAT_GRAY8 },
	{ AV_PIX_FMT_NV12, GST_VIDEO_FORMAT_NV12 },
};

#define SINK_CAPS \
	"video/x-h264, stream-format = (string) { avc, byte-stream }, alignment = (string) au; " \
	"video/x-h265, stream-format = (string) { hvc1, hev1, byte-stream }, " \
		"alignment = (string) au; " \
	"video/x-vp8, codec-alpha = (boolean) false; video/x-vp9, codec-alpha = (boolean) false"
#define SRC_CAPS GST_VIDEO_CAPS_MAKE("{ I420, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, " \
	"I420_12LE, I422_12LE, Y444_12LE, GBR, GRAY8, NV12 }")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS(SINK_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS(SRC_CAPS));

static GstVideoFormat video_format(enum AVPixelFormat format) {
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		if (formats[i].av == format) {
			return formats[i].gst;
		}
	}
	return GST_VIDEO_FORMAT_UNKNOWN;
}

static void close_codec(VeilAvcodecDecoder *self) {
	avcodec_free_context(&self->context);
	self->negotiated = false;
}

static bool open_codec(VeilAvcodecDecoder *self, GstVideoCodecState *state) {
	const GstStructure *s = gst_caps_get_structure(state->caps, 0);
	enum AVCodecID id = AV_CODEC_ID_NONE;
	for (size_t i = 0; i < G_N_ELEMENTS(codecs); i++) {
		if (gst_structure_has_name(s, codecs[i].caps)) {
			id = codecs[i].id;
		}
	}
	const AVCodec *codec = avcodec_find_decoder(id);
	if (codec == NULL) {
		GST_ELEMENT_ERROR(self, STREAM, CODEC_NOT_FOUND,
			("libavcodec has no decoder for %s", gst_structure_get_name(s)), (NULL));
		return false;
	}
	AVCodecContext *context = avcodec_alloc_context3(codec);
	if (context == NULL) {
		return false;
	}
	GstMapInfo map;
	if (state->codec_data != NULL && gst_buffer_map(state->codec_data, &map, GST_MAP_READ)) {
		/* avcC or hvcC: libav reads the parameter sets and the NAL length size from it. */
		context->extradata = av_mallocz(map.size + AV_INPUT_BUFFER_PADDING_SIZE);
		if (context->extradata != NULL) {
			memcpy(context->extradata, map.data, map.size);
			context->extradata_size = (int)map.size;
		}
		gst_buffer_unmap(state->codec_data, &map);
	}
	context->width = GST_VIDEO_INFO_WIDTH(&state->info);
	context->height = GST_VIDEO_INFO_HEIGHT(&state->info);
	context->flags |= AV_CODEC_FLAG_COPY_OPAQUE;
	/* threads.c's rule, the one avdec is given: slice threads up to 1080p60's pixel rate. */
	context->thread_count = 0;
	context->thread_type = veil_video_slice_threads_suffice(s) ? FF_THREAD_SLICE :
		FF_THREAD_FRAME | FF_THREAD_SLICE;
	int ret = avcodec_open2(context, codec, NULL);
	if (ret < 0) {
		char why[AV_ERROR_MAX_STRING_SIZE];
		av_strerror(ret, why, sizeof(why));
		GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("libavcodec cannot open its %s decoder: %s",
			codec->name, why), (NULL));
		avcodec_free_context(&context);
		return false;
	}
	GST_DEBUG_OBJECT(self, "opened %s, %s threads", codec->name,
		context->thread_type == FF_THREAD_SLICE ? "slice" : "frame");
	self->context = context;
	return true;
}

/* The frames the base class holds that libav will never output: those earlier than pts, or all. */
static void release_pending(VeilAvcodecDecoder *self, GstClockTime pts, bool all) {
	GstVideoDecoder *dec = GST_VIDEO_DECODER(self);
	GList *frames = gst_video_decoder_get_frames(dec);
	for (GList *l = frames; l != NULL; l = l->next) {
		GstVideoCodecFrame *frame = l->data;
		if (all || (GST_CLOCK_TIME_IS_VALID(frame->pts) && frame->pts < pts)) {
			GST_LOG_OBJECT(self, "releasing frame %u, never output",
				frame->system_frame_number);
			gst_video_decoder_release_frame(dec, frame);
		} else {
			gst_video_codec_frame_unref(frame);
		}
	}
	g_list_free(frames);
}

static void set_colorimetry(VeilAvcodecDecoder *self, GstVideoInfo *info, const AVFrame *pic) {
	GstVideoColorimetry *c = &info->colorimetry;
	const GstStructure *s = gst_caps_get_structure(self->input_state->caps, 0);
	if (gst_structure_has_field(s, "colorimetry")) {
		*c = self->input_state->info.colorimetry;
	}
	/* libav's values are ISO/IEC 23001-8's (H.273), as GStreamer's _from_iso() take them. */
	if (pic->colorspace != AVCOL_SPC_UNSPECIFIED &&
			gst_video_color_matrix_from_iso(pic->colorspace) !=
				GST_VIDEO_COLOR_MATRIX_UNKNOWN) {
		c->matrix = gst_video_color_matrix_from_iso(pic->colorspace);
	}
	if (pic->color_primaries != AVCOL_PRI_UNSPECIFIED &&
			gst_video_color_primaries_from_iso(pic->color_primaries) !=
				GST_VIDEO_COLOR_PRIMARIES_UNKNOWN) {
		c->primaries = gst_video_color_primaries_from_iso(pic->color_primaries);
	}
	if (pic->color_trc != AVCOL_TRC_UNSPECIFIED &&
			gst_video_transfer_function_from_iso(pic->color_trc) !=
				GST_VIDEO_TRANSFER_UNKNOWN) {
		c->transfer = gst_video_transfer_function_from_iso(pic->color_trc);
	}
	bool yuvj = pic->format == AV_PIX_FMT_YUVJ420P || pic->format == AV_PIX_FMT_YUVJ422P ||
		pic->format == AV_PIX_FMT_YUVJ444P;
	if (yuvj || pic->color_range == AVCOL_RANGE_JPEG) {
		c->range = GST_VIDEO_COLOR_RANGE_0_255;
	} else if (pic->color_range == AVCOL_RANGE_MPEG) {
		c->range = GST_VIDEO_COLOR_RANGE_16_235;
	}
}

/* The output caps for pic, negotiated when they differ from the last picture's. */
static bool negotiate(VeilAvcodecDecoder *self, const AVFrame *pic, GstVideoFormat format) {
	struct output_key key = {
		.format = pic->format,
		.width = pic->width,
		.height = pic->height,
		.range = pic->color_range,
		.matrix = pic->colorspace,
		.primaries = pic->color_primaries,
		.transfer = pic->color_trc,
		.sar = pic->sample_aspect_ratio,
	};
	GstVideoDecoder *dec = GST_VIDEO_DECODER(self);
	if (self->negotiated && memcmp(&key, &self->output, sizeof(key)) == 0) {
		return true;
	}
	GstVideoCodecState *state = gst_video_decoder_set_output_state(dec, format, pic->width,
		pic->height, self->input_state);
	if (state == NULL) {
		return false;
	}
	set_colorimetry(self, &state->info, pic);
	const GstStructure *s = gst_caps_get_structure(self->input_state->caps, 0);
	if (!gst_structure_has_field(s, "pixel-aspect-ratio") && pic->sample_aspect_ratio.num > 0 &&
			pic->sample_aspect_ratio.den > 0) {
		GST_VIDEO_INFO_PAR_N(&state->info) = pic->sample_aspect_ratio.num;
		GST_VIDEO_INFO_PAR_D(&state->info) = pic->sample_aspect_ratio.den;
	}
	gst_video_codec_state_unref(state);
	if (!gst_video_decoder_negotiate(dec)) {
		self->negotiated = false;
		return false;
	}
	self->output = key;
	self->negotiated = true;
	return true;
}

static void unref_plane(gpointer data) {
	AVBufferRef *ref = data;
	av_buffer_unref(&ref);
}

/* Rows of plane i of pic. */
static int plane_rows(const AVFrame *pic, int i) {
	const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(pic->format);
	bool chroma = (i == 1 || i == 2) && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
	return chroma ? AV_CEIL_RSHIFT(pic->height, desc->log2_chroma_h) : pic->height;
}

/* libav's planes as they are, each held by a reference of its own. */
static GstBuffer *wrap_picture(const AVFrame *pic, GstVideoFormat format,
		const GstVideoInfo *info) {
	GstBuffer *buffer = gst_buffer_new();
	guint n_planes = GST_VIDEO_INFO_N_PLANES(info);
	gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
	gint strides[GST_VIDEO_MAX_PLANES] = { 0 };
	gsize total = 0;
	for (guint i = 0; i < n_planes; i++) {
		AVBufferRef *plane = av_frame_get_plane_buffer(pic, (int)i);
		if (plane == NULL || pic->linesize[i] <= 0) {
			goto error;
		}
		gsize offset = (gsize)(pic->data[i] - plane->data);
		gsize size = (gsize)pic->linesize[i] * (gsize)plane_rows(pic, (int)i);
		if (offset + size > plane->size) {
			size = plane->size - offset;
		}
		AVBufferRef *ref = av_buffer_ref(plane);
		if (ref == NULL) {
			goto error;
		}
		gst_buffer_append_memory(buffer, gst_memory_new_wrapped(GST_MEMORY_FLAG_READONLY,
			ref->data, ref->size, offset, size, ref, unref_plane));
		offsets[i] = total;
		strides[i] = pic->linesize[i];
		total += size;
	}
	gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, format,
		(guint)pic->width, (guint)pic->height, n_planes, offsets, strides);
	return buffer;

error:
	gst_buffer_unref(buffer);
	return NULL;
}

/* Into a frame downstream allocated, for elements that take no GstVideoMeta. */
static GstFlowReturn copy_picture(VeilAvcodecDecoder *self, const AVFrame *pic,
		GstVideoCodecFrame *frame, const GstVideoInfo *info) {
	GstFlowReturn flow = gst_video_decoder_allocate_output_frame(GST_VIDEO_DECODER(self),
		frame);
	if (flow != GST_FLOW_OK) {
		return flow;
	}
	GstVideoFrame out;
	if (!gst_video_frame_map(&out, (GstVideoInfo *)info, frame->output_buffer,
			GST_MAP_WRITE)) {
		return GST_FLOW_ERROR;
	}
	for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES(&out); i++) {
		guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA(&out, i);
		int dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&out, i);
		int bytes = MIN(dst_stride, pic->linesize[i]);
		const guint8 *src = pic->data[i];
		for (int y = 0; y < plane_rows(pic, (int)i); y++) {
			memcpy(dst + (gsize)y * dst_stride, src + (gsize)y * pic->linesize[i], bytes);
		}
	}
	gst_video_frame_unmap(&out);
	return GST_FLOW_OK;
}

/* A picture libav output: the frame it belongs to, finished with it. */
static GstFlowReturn push_picture(VeilAvcodecDecoder *self, const AVFrame *pic) {
	GstVideoDecoder *dec = GST_VIDEO_DECODER(self);
	guint32 number = (guint32)(uintptr_t)pic->opaque;
	GstVideoCodecFrame *frame = number > 0 ? gst_video_decoder_get_frame(dec,
		(int)(number - 1)) : NULL;
	if (frame == NULL) {
		GST_DEBUG_OBJECT(self, "a picture of no frame (%u) left out", number);
		return GST_FLOW_OK;
	}
	GstVideoFormat format = video_format(pic->format);
	if (format == GST_VIDEO_FORMAT_UNKNOWN) {
		const char *name = av_get_pix_fmt_name(pic->format);
		GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("its pixel format, %s, is not one veil "
			"shows", name != NULL ? name : "unknown"), (NULL));
		gst_video_decoder_release_frame(dec, frame);
		return GST_FLOW_ERROR;
	}
	if (!negotiate(self, pic, format)) {
		gst_video_decoder_release_frame(dec, frame);
		return GST_FLOW_NOT_NEGOTIATED;
	}
	GstVideoCodecState *state = gst_video_decoder_get_output_state(dec);
	GstFlowReturn flow = GST_FLOW_OK;
	if (self->video_meta) {
		frame->output_buffer = wrap_picture(pic, format, &state->info);
		flow = frame->output_buffer != NULL ? GST_FLOW_OK : GST_FLOW_ERROR;
	} else {
		flow = copy_picture(self, pic, frame, &state->info);
	}
	gst_video_codec_state_unref(state);
	if (flow != GST_FLOW_OK) {
		gst_video_decoder_release_frame(dec, frame);
		return flow;
	}
	GstClockTime pts = frame->pts;
	flow = gst_video_decoder_finish_frame(dec, frame);
	/* libav outputs in presentation order: earlier frames still held were skipped. */
	if (GST_CLOCK_TIME_IS_VALID(pts)) {
		release_pending(self, pts, false);
	}
	return flow;
}

/* A libav error on the stream: counted against max-errors as avdec's are. */
static GstFlowReturn decode_error(VeilAvcodecDecoder *self, int ret) {
	char why[AV_ERROR_MAX_STRING_SIZE];
	av_strerror(ret, why, sizeof(why));
	GstFlowReturn flow = GST_FLOW_OK;
	GST_VIDEO_DECODER_ERROR(self, 1, STREAM, DECODE, ("Could not decode stream."),
		("libavcodec: %s", why), flow);
	return flow;
}

/* Every picture libav has ready. */
static GstFlowReturn receive_pictures(VeilAvcodecDecoder *self) {
	for (;;) {
		int ret = avcodec_receive_frame(self->context, self->picture);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) {
			return GST_FLOW_OK;
		}
		if (ret < 0) {
			/* The next packet asks again: an error libav keeps returning cannot spin. */
			return decode_error(self, ret);
		}
		GstFlowReturn flow = push_picture(self, self->picture);
		av_frame_unref(self->picture);
		if (flow != GST_FLOW_OK) {
			return flow;
		}
	}
}

static GstFlowReturn handle_frame(GstVideoDecoder *dec, GstVideoCodecFrame *frame) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	guint32 number = frame->system_frame_number;
	if (self->context == NULL) {
		gst_video_decoder_release_frame(dec, frame);
		return GST_FLOW_NOT_NEGOTIATED;
	}
	/* rate.c's frame rate cap marks the segment: libav skips what no frame refers to. */
	self->context->skip_frame = (dec->input_segment.flags & GST_SEGMENT_FLAG_TRICKMODE) ?
		AVDISCARD_NONREF : AVDISCARD_DEFAULT;
	GstMapInfo map;
	if (!gst_buffer_map(frame->input_buffer, &map, GST_MAP_READ)) {
		gst_video_decoder_release_frame(dec, frame);
		return GST_FLOW_ERROR;
	}
	/* A copy: libav reads past the end of a packet, into padding it must own. */
	int ret = av_new_packet(self->packet, (int)map.size);
	if (ret == 0) {
		memcpy(self->packet->data, map.data, map.size);
	}
	gst_buffer_unmap(frame->input_buffer, &map);
	if (ret < 0) {
		gst_video_decoder_release_frame(dec, frame);
		return GST_FLOW_ERROR;
	}
	self->packet->pts = GST_CLOCK_TIME_IS_VALID(frame->pts) ? (int64_t)frame->pts :
		AV_NOPTS_VALUE;
	self->packet->opaque = (void *)(uintptr_t)(number + 1);
	if (GST_VIDEO_CODEC_FRAME_IS_SYNC_POINT(frame)) {
		self->packet->flags |= AV_PKT_FLAG_KEY;
	}
	/* The base class keeps the frame; push_picture() finds it again by its number. */
	gst_video_codec_frame_unref(frame);

	GstFlowReturn flow = GST_FLOW_OK;
	while ((ret = avcodec_send_packet(self->context, self->packet)) == AVERROR(EAGAIN)) {
		flow = receive_pictures(self);
		if (flow != GST_FLOW_OK) {
			break;
		}
	}
	av_packet_unref(self->packet);
	if (flow != GST_FLOW_OK) {
		return flow;
	}
	if (ret < 0) {
		GstVideoCodecFrame *failed = gst_video_decoder_get_frame(dec, (int)number);
		if (failed != NULL) {
			gst_video_decoder_release_frame(dec, failed);
		}
		return decode_error(self, ret);
	}
	return receive_pictures(self);
}

/* End of stream or of a segment: what libav holds comes out, then it takes packets again. */
static GstFlowReturn drain(GstVideoDecoder *dec) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	if (self->context == NULL) {
		return GST_FLOW_OK;
	}
	GstFlowReturn flow = GST_FLOW_OK;
	if (avcodec_send_packet(self->context, NULL) == 0) {
		flow = receive_pictures(self);
	}
	avcodec_flush_buffers(self->context);
	release_pending(self, GST_CLOCK_TIME_NONE, true);
	return flow;
}

static gboolean flush(GstVideoDecoder *dec) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	if (self->context != NULL) {
		avcodec_flush_buffers(self->context);
	}
	return TRUE;
}

static bool same_buffer(GstBuffer *a, GstBuffer *b) {
	if (a == NULL || b == NULL) {
		return a == b;
	}
	gsize size = gst_buffer_get_size(a);
	if (size != gst_buffer_get_size(b)) {
		return false;
	}
	GstMapInfo map;
	if (!gst_buffer_map(a, &map, GST_MAP_READ)) {
		return false;
	}
	bool same = gst_buffer_memcmp(b, 0, map.data, map.size) == 0;
	gst_buffer_unmap(a, &map);
	return same;
}

/*
 * Whether the open codec takes the stream of new caps as it is: the same codec, stream format,
 * codec data and thread choice. libav follows a new size within the stream itself, so a raw
 * H.264 file that changes size, or starts again at each loop, does not reopen the codec.
 */
static bool codec_takes(GstVideoCodecState *old, GstVideoCodecState *state) {
	const GstStructure *a = gst_caps_get_structure(old->caps, 0);
	const GstStructure *b = gst_caps_get_structure(state->caps, 0);
	return gst_structure_has_name(b, gst_structure_get_name(a)) &&
		g_strcmp0(gst_structure_get_string(a, "stream-format"),
			gst_structure_get_string(b, "stream-format")) == 0 &&
		same_buffer(old->codec_data, state->codec_data) &&
		veil_video_slice_threads_suffice(a) == veil_video_slice_threads_suffice(b);
}

static gboolean set_format(GstVideoDecoder *dec, GstVideoCodecState *state) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	if (self->context != NULL && codec_takes(self->input_state, state)) {
		gst_video_codec_state_unref(self->input_state);
		self->input_state = gst_video_codec_state_ref(state);
		self->negotiated = false;
		return TRUE;
	}
	if (self->context != NULL) {
		/* New caps mid-stream: the pictures of the old ones first. */
		drain(dec);
		close_codec(self);
	}
	if (self->input_state != NULL) {
		gst_video_codec_state_unref(self->input_state);
	}
	self->input_state = gst_video_codec_state_ref(state);
	return open_codec(self, state);
}

/*
 * libav's planes go downstream as they are when it takes GstVideoMeta and has no memory of its
 * own to fill: veil-decoder's conversion for pixman. Downstream with an allocator of its own
 * (veil-decoder's memfds for frames pixman shows as they are, the compositor's dmabufs for a
 * GPU renderer) gets each picture copied into a frame of its pool, the copy avdec makes too.
 */
static gboolean decide_allocation(GstVideoDecoder *dec, GstQuery *query) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	if (!GST_VIDEO_DECODER_CLASS(veil_avcodec_decoder_parent_class)->decide_allocation(dec,
			query)) {
		return FALSE;
	}
	GstAllocator *allocator = NULL;
	if (gst_query_get_n_allocation_params(query) > 0) {
		gst_query_parse_nth_allocation_param(query, 0, &allocator, NULL);
	}
	bool own_memory = allocator != NULL && allocator->mem_type != NULL &&
		strcmp(allocator->mem_type, GST_ALLOCATOR_SYSMEM) != 0;
	if (allocator != NULL) {
		gst_object_unref(allocator);
	}
	self->video_meta = !own_memory &&
		gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	GST_DEBUG_OBJECT(self, "%s", self->video_meta ? "libav's pictures pushed as they are" :
		"pictures copied into downstream's frames");
	return TRUE;
}

static gboolean start(GstVideoDecoder *dec) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	self->packet = av_packet_alloc();
	self->picture = av_frame_alloc();
	return self->packet != NULL && self->picture != NULL;
}

static gboolean stop(GstVideoDecoder *dec) {
	VeilAvcodecDecoder *self = VEIL_AVCODEC_DECODER(dec);
	close_codec(self);
	av_packet_free(&self->packet);
	av_frame_free(&self->picture);
	if (self->input_state != NULL) {
		gst_video_codec_state_unref(self->input_state);
		self->input_state = NULL;
	}
	return TRUE;
}

static void veil_avcodec_decoder_class_init(VeilAvcodecDecoderClass *klass) {
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstVideoDecoderClass *decoder_class = GST_VIDEO_DECODER_CLASS(klass);
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);
	gst_element_class_set_static_metadata(element_class, "veil's libavcodec video decoder",
		"Codec/Decoder/Video", "Decodes H.264, HEVC, VP8 and VP9 with libavcodec, "
		"pushing libav's pictures without a copy", "veil");
	decoder_class->start = start;
	decoder_class->stop = stop;
	decoder_class->set_format = set_format;
	decoder_class->handle_frame = handle_frame;
	decoder_class->flush = flush;
	decoder_class->drain = drain;
	decoder_class->finish = drain;
	decoder_class->decide_allocation = decide_allocation;
}

static void veil_avcodec_decoder_init(VeilAvcodecDecoder *self) {
	GstVideoDecoder *dec = GST_VIDEO_DECODER(self);
	gst_video_decoder_set_packetized(dec, TRUE);
	gst_video_decoder_set_needs_format(dec, TRUE);
	gst_video_decoder_set_use_default_pad_acceptcaps(dec, TRUE);
	GST_PAD_SET_ACCEPT_TEMPLATE(GST_VIDEO_DECODER_SINK_PAD(dec));
}

/* libav's messages (a broken slice, a missing reference) to GStreamer's log, not stderr. */
static void log_to_gst(void *avcl, int level, const char *fmt, va_list args) {
	if (level > av_log_get_level()) {
		return;
	}
	GstDebugLevel gst_level = level <= AV_LOG_ERROR ? GST_LEVEL_WARNING :
		level <= AV_LOG_INFO ? GST_LEVEL_INFO : GST_LEVEL_DEBUG;
	if (gst_level > gst_debug_category_get_threshold(veil_avcodec_debug)) {
		return;
	}
	gst_debug_log_valist(veil_avcodec_debug, gst_level, "libavcodec", "", 0, NULL, fmt,
		args);
}

/*
 * GStreamer applies GST_PLUGIN_FEATURE_RANK when it starts, before this element exists: its
 * entry there ("veilavdec:NONE" leaves every codec to avdec) is read here.
 */
static guint rank_from_environment(guint rank) {
	static const struct {
		const char *name;
		guint rank;
	} names[] = {
		{ "NONE", GST_RANK_NONE },
		{ "MARGINAL", GST_RANK_MARGINAL },
		{ "SECONDARY", GST_RANK_SECONDARY },
		{ "PRIMARY", GST_RANK_PRIMARY },
		{ "MAX", G_MAXINT },
	};
	const char *env = g_getenv("GST_PLUGIN_FEATURE_RANK");
	if (env == NULL) {
		return rank;
	}
	char **entries = g_strsplit(env, ",", 0);
	for (char **entry = entries; *entry != NULL; entry++) {
		char **pair = g_strsplit(*entry, ":", 2);
		if (pair[0] != NULL && pair[1] != NULL &&
				strcmp(g_strstrip(pair[0]), VEIL_AVCODEC_DECODER_NAME) == 0) {
			const char *value = g_strstrip(pair[1]);
			char *end = NULL;
			guint64 number = g_ascii_strtoull(value, &end, 10);
			if (end != value && *end == '\0' && number <= G_MAXINT) {
				rank = (guint)number;
			}
			for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
				if (g_ascii_strcasecmp(value, names[i].name) == 0) {
					rank = names[i].rank;
				}
			}
		}
		g_strfreev(pair);
	}
	g_strfreev(entries);
	return rank;
}

bool veil_avcodec_decoder_register(void) {
	static gsize once = 0;
	if (g_once_init_enter(&once)) {
		GST_DEBUG_CATEGORY_INIT(veil_avcodec_debug, VEIL_AVCODEC_DECODER_NAME, 0,
			"veil's libavcodec video decoder");
		av_log_set_callback(log_to_gst);
		gboolean ok = gst_element_register(NULL, VEIL_AVCODEC_DECODER_NAME,
			rank_from_environment(GST_RANK_PRIMARY + 1), VEIL_TYPE_AVCODEC_DECODER);
		g_once_init_leave(&once, ok ? 1 : 2);
	}
	return once == 1;
}
