#include <errno.h>
#include <jxl/decode.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "decode/anim.h"
#include "decode/image.h"
#include "util/image.h"
#include "util/message.h"

/*
 * Animated JPEG XL through libjxl, which composes each frame on the canvas itself (coalescing:
 * layers and blending, zero-duration frames merged into the next shown one). open reads every
 * frame's header (libjxl skips their pixels) for the count; next decodes the following frame
 * into the canvas as R, G, B, A, premultiplied and swapped to B, G, R, A in place, and rewinds
 * after the last. A lossy (XYB) animation is decoded into sRGB by libjxl; others come as stored
 * (animations are not colour-converted: docs/architecture.md). One thread: an animation's
 * frames are small beside a still's.
 */

struct veil_anim_decoder {
	JxlDecoder *dec;
	const uint8_t *data;
	size_t len;
	uint8_t *canvas;
	int width, height;
	uint32_t tps_numerator, tps_denominator;
	int index;
	bool at_end; /* the last frame was shown: the first is next */
};

/* What next() asks for: the colour encoding (to choose sRGB), each frame's header and pixels. */
#define FRAME_EVENTS (JXL_DEC_COLOR_ENCODING | JXL_DEC_FRAME | JXL_DEC_FULL_IMAGE)

static const JxlColorEncoding srgb = {
	.color_space = JXL_COLOR_SPACE_RGB,
	.white_point = JXL_WHITE_POINT_D65,
	.primaries = JXL_PRIMARIES_SRGB,
	.transfer_function = JXL_TRANSFER_FUNCTION_SRGB,
	.rendering_intent = JXL_RENDERING_INTENT_RELATIVE,
};

static const JxlPixelFormat rgba8 = {
	.num_channels = 4,
	.data_type = JXL_TYPE_UINT8,
	.endianness = JXL_NATIVE_ENDIAN,
	.align = 0,
};

bool veil_anim_jxl_sniff(const uint8_t *head, size_t len) {
	JxlSignature signature = JxlSignatureCheck(head, len);
	if (signature != JXL_SIG_CODESTREAM && signature != JXL_SIG_CONTAINER) {
		return false;
	}
	JxlDecoder *dec = JxlDecoderCreate(NULL);
	if (dec == NULL) {
		return false;
	}
	JxlBasicInfo info;
	bool animated = JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO) == JXL_DEC_SUCCESS &&
		JxlDecoderSetInput(dec, head, len) == JXL_DEC_SUCCESS &&
		JxlDecoderProcessInput(dec) == JXL_DEC_BASIC_INFO &&
		JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS && info.have_animation;
	JxlDecoderDestroy(dec);
	return animated;
}

/* From the start of the file: the events of next() subscribed, the input given. */
static bool restart(struct veil_anim_decoder *dec, int events) {
	JxlDecoderRewind(dec->dec);
	return JxlDecoderSubscribeEvents(dec->dec, events) == JXL_DEC_SUCCESS &&
		JxlDecoderSetUnpremultiplyAlpha(dec->dec, JXL_TRUE) == JXL_DEC_SUCCESS &&
		JxlDecoderSetInput(dec->dec, dec->data, dec->len) == JXL_DEC_SUCCESS;
}

static void jxl_destroy(struct veil_anim_decoder *dec) {
	if (dec == NULL) {
		return;
	}
	if (dec->dec != NULL) {
		JxlDecoderDestroy(dec->dec);
	}
	free(dec->canvas);
	free(dec);
}

static int stream_error(JxlDecoderStatus status, int frame, char **message) {
	if (status == JXL_DEC_NEED_MORE_INPUT) {
		veil_message_set(message, "animated JPEG XL file is truncated in frame %d", frame);
	} else {
		veil_message_set(message, "corrupt animated JPEG XL file: frame %d does not decode",
			frame);
	}
	return -EINVAL;
}

static int jxl_open(const uint8_t *data, size_t len, struct veil_anim_decoder **out,
		struct veil_anim_info *info, char **message) {
	struct veil_anim_decoder *dec = calloc(1, sizeof(*dec));
	if (dec == NULL || (dec->dec = JxlDecoderCreate(NULL)) == NULL) {
		free(dec);
		veil_message_set(message, "out of memory for libjxl's decoder");
		return -ENOMEM;
	}
	dec->data = data;
	dec->len = len;
	int ret = 0;
	if (!restart(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME)) {
		veil_message_set(message, "libjxl's decoder refused veil's settings");
		ret = -ENOTSUP;
		goto fail;
	}
	JxlBasicInfo basic;
	int frames = 0;
	for (;;) {
		JxlDecoderStatus status = JxlDecoderProcessInput(dec->dec);
		if (status == JXL_DEC_BASIC_INFO) {
			if (JxlDecoderGetBasicInfo(dec->dec, &basic) != JXL_DEC_SUCCESS ||
					!basic.have_animation || basic.animation.tps_numerator == 0 ||
					basic.animation.tps_denominator == 0) {
				veil_message_set(message, "corrupt animated JPEG XL file: its header "
					"has no animation");
				ret = -EINVAL;
				goto fail;
			}
			/* Before any frame: the canvas, as libjxl will allocate its own. */
			uint64_t w = basic.orientation >= JXL_ORIENT_TRANSPOSE ? basic.ysize :
				basic.xsize;
			uint64_t h = basic.orientation >= JXL_ORIENT_TRANSPOSE ? basic.xsize :
				basic.ysize;
			ret = veil_image_check_size(w, h, "animated JPEG XL image", message);
			if (ret < 0) {
				goto fail;
			}
			dec->width = (int)w;
			dec->height = (int)h;
		} else if (status == JXL_DEC_FRAME) {
			JxlFrameHeader header;
			if (JxlDecoderGetFrameHeader(dec->dec, &header) != JXL_DEC_SUCCESS) {
				ret = stream_error(JXL_DEC_ERROR, frames + 1, message);
				goto fail;
			}
			if (++frames > VEIL_ANIM_MAX_FRAMES) {
				veil_message_set(message, "animated JPEG XL file has more than %d frames, "
					"more than veil plays", VEIL_ANIM_MAX_FRAMES);
				ret = -EFBIG;
				goto fail;
			}
			/* Not the end of the input: a container may have boxes after it. */
			if (header.is_last) {
				break;
			}
		} else {
			ret = stream_error(status, frames + 1, message);
			goto fail;
		}
	}
	dec->canvas = malloc((size_t)dec->width * (size_t)dec->height * 4);
	if (dec->canvas == NULL) {
		veil_message_set(message, "out of memory for a %dx%d canvas", dec->width,
			dec->height);
		ret = -ENOMEM;
		goto fail;
	}
	dec->tps_numerator = basic.animation.tps_numerator;
	dec->tps_denominator = basic.animation.tps_denominator;
	if (!restart(dec, FRAME_EVENTS)) {
		veil_message_set(message, "libjxl's decoder refused veil's settings");
		ret = -ENOTSUP;
		goto fail;
	}
	*info = (struct veil_anim_info){
		.width = dec->width,
		.height = dec->height,
		.frames = frames,
		.plays = basic.animation.num_loops > INT32_MAX ? 0 :
			(int)basic.animation.num_loops,
	};
	*out = dec;
	return 0;

fail:
	jxl_destroy(dec);
	return ret;
}

static int jxl_next(struct veil_anim_decoder *dec, const uint8_t **canvas, int *delay_ms,
		int *index, char **message) {
	size_t size = (size_t)dec->width * (size_t)dec->height * 4;
	if (dec->at_end) {
		if (!restart(dec, FRAME_EVENTS)) {
			veil_message_set(message, "libjxl's decoder refused veil's settings");
			return -ENOTSUP;
		}
		dec->index = 0;
		dec->at_end = false;
	}
	JxlFrameHeader header = {0};
	for (;;) {
		JxlDecoderStatus status = JxlDecoderProcessInput(dec->dec);
		if (status == JXL_DEC_COLOR_ENCODING) {
			/* Refused, and then without effect, for pictures not in XYB. */
			JxlDecoderSetPreferredColorProfile(dec->dec, &srgb);
		} else if (status == JXL_DEC_FRAME) {
			if (JxlDecoderGetFrameHeader(dec->dec, &header) != JXL_DEC_SUCCESS) {
				return stream_error(JXL_DEC_ERROR, dec->index + 1, message);
			}
		} else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
			size_t want = 0;
			if (JxlDecoderImageOutBufferSize(dec->dec, &rgba8, &want) != JXL_DEC_SUCCESS ||
					want != size || JxlDecoderSetImageOutBuffer(dec->dec, &rgba8,
					dec->canvas, size) != JXL_DEC_SUCCESS) {
				veil_message_set(message, "animated JPEG XL frame %d decodes to a layout "
					"veil cannot take", dec->index + 1);
				return -EINVAL;
			}
		} else if (status == JXL_DEC_FULL_IMAGE) {
			break;
		} else {
			return stream_error(status, dec->index + 1, message);
		}
	}
	veil_jxl_to_bgra(dec->canvas, (size_t)dec->width * (size_t)dec->height);
	/* Ticks of tps_denominator / tps_numerator seconds; both are 32 bits. */
	double ms = (double)header.duration * 1000.0 * dec->tps_denominator /
		dec->tps_numerator;
	*canvas = dec->canvas;
	*delay_ms = veil_anim_delay(ms < (double)INT32_MAX ? (int64_t)ms : INT32_MAX);
	*index = dec->index++;
	dec->at_end = header.is_last;
	return 0;
}

const struct veil_anim_decoder_impl veil_anim_jxl = {
	.format = VEIL_ANIM_JXL,
	.format_name = "jxl",
	.name = "libjxl",
	.open = jxl_open,
	.next = jxl_next,
	.destroy = jxl_destroy,
};
