#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <webp/demux.h>
#include "decode/anim.h"
#include "util/image.h"
#include "util/message.h"

/*
 * Animated WebP through libwebp's WebPAnimDecoder (libwebpdemux), which validates every chunk
 * when it opens and composes each frame on its canvas itself (disposal, blending), straight
 * to premultiplied B, G, R, A (MODE_bgrA). Its timestamps are each frame's end: a frame's delay
 * is the difference from the one before.
 */

struct veil_anim_decoder {
	WebPAnimDecoder *dec;
	int previous_end; /* timestamp of the frame before, ms */
	int index;
};

static void webp_destroy(struct veil_anim_decoder *dec) {
	if (dec == NULL) {
		return;
	}
	WebPAnimDecoderDelete(dec->dec);
	free(dec);
}

static int webp_open(const uint8_t *data, size_t len, struct veil_anim_decoder **out,
		struct veil_anim_info *info, char **message) {
	WebPAnimDecoderOptions options;
	if (!WebPAnimDecoderOptionsInit(&options)) {
		veil_message_set(message, "libwebp's animation decoder is not the one veil was "
			"built with");
		return -ENOTSUP;
	}
	options.color_mode = MODE_bgrA;
	options.use_threads = 0;
	WebPData webp_data = { .bytes = data, .size = len };
	/* The animation decoder allocates its canvas at once: its size is checked first. */
	WebPDemuxer *demux = WebPDemux(&webp_data);
	if (demux == NULL) {
		veil_message_set(message, "corrupt or truncated animated WebP file");
		return -EINVAL;
	}
	uint32_t canvas_width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
	uint32_t canvas_height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
	WebPDemuxDelete(demux);
	int ret = veil_image_check_size(canvas_width, canvas_height, "animated WebP image",
		message);
	if (ret < 0) {
		return ret;
	}
	struct veil_anim_decoder *dec = calloc(1, sizeof(*dec));
	if (dec == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	dec->dec = WebPAnimDecoderNew(&webp_data, &options);
	if (dec->dec == NULL) {
		free(dec);
		veil_message_set(message, "corrupt or truncated animated WebP file");
		return -EINVAL;
	}
	WebPAnimInfo anim;
	if (!WebPAnimDecoderGetInfo(dec->dec, &anim) || anim.frame_count == 0) {
		webp_destroy(dec);
		veil_message_set(message, "animated WebP file without frames");
		return -EINVAL;
	}
	if (anim.frame_count > VEIL_ANIM_MAX_FRAMES) {
		webp_destroy(dec);
		veil_message_set(message, "animated WebP file has %u frames, more than veil plays "
			"(%d)", anim.frame_count, VEIL_ANIM_MAX_FRAMES);
		return -EFBIG;
	}
	*info = (struct veil_anim_info){
		.width = (int)anim.canvas_width,
		.height = (int)anim.canvas_height,
		.frames = (int)anim.frame_count,
		.plays = anim.loop_count > INT32_MAX ? 0 : (int)anim.loop_count,
	};
	*out = dec;
	return 0;
}

static int webp_next(struct veil_anim_decoder *dec, const uint8_t **canvas, int *delay_ms,
		int *index, char **message) {
	if (!WebPAnimDecoderHasMoreFrames(dec->dec)) {
		WebPAnimDecoderReset(dec->dec);
		dec->previous_end = 0;
		dec->index = 0;
	}
	uint8_t *buf;
	int timestamp;
	if (!WebPAnimDecoderGetNext(dec->dec, &buf, &timestamp)) {
		veil_message_set(message, "corrupt animated WebP file: frame %d does not decode",
			dec->index + 1);
		return -EINVAL;
	}
	*canvas = buf;
	*delay_ms = veil_anim_delay((int64_t)timestamp - dec->previous_end);
	*index = dec->index++;
	dec->previous_end = timestamp;
	return 0;
}

const struct veil_anim_decoder_impl veil_anim_webp = {
	.format = VEIL_ANIM_WEBP,
	.format_name = "webp",
	.name = "libwebp",
	.open = webp_open,
	.next = webp_next,
	.destroy = webp_destroy,
};
