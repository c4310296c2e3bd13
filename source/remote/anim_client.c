#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include "source/remote/anim_client.h"
#include "source/remote/frame_pool.h"
#include "source/remote/spare.h"
#include "wire/wire.h"
#include "util/image.h"
#include "util/message.h"

void veil_anim_helper_init(struct veil_anim_helper *ah) {
	*ah = (struct veil_anim_helper){ .helper = { .pidfd = -1, .sock = -1 } };
}

bool veil_anim_helper_running(const struct veil_anim_helper *ah) {
	return ah->started;
}

void veil_anim_helper_end(struct veil_anim_helper *ah, struct veil_helper_spare *spare) {
	if (ah->started) {
		veil_helper_spare_release(spare, &ah->helper);
	}
	/* Frames still shown keep their memfds mapped: the pool goes with the last of them. */
	veil_frame_pool_unref(ah->pool);
	veil_anim_helper_init(ah);
}

/* A frame that does not belong to the animation the first one described. */
static int check_frame(struct veil_anim_helper *ah, const struct veil_image *image,
		int original_width, int original_height, const struct veil_decoder_frame *frame,
		char **message) {
	if (ah->next_index == 0 && frame->index == 0 && ah->frames == 0) {
		ah->width = image->width;
		ah->height = image->height;
		ah->original_width = original_width;
		ah->original_height = original_height;
		ah->frames = frame->frames;
		ah->plays = frame->plays;
	} else if (image->width != ah->width || image->height != ah->height ||
			original_width != ah->original_width ||
			original_height != ah->original_height || frame->frames != ah->frames ||
			frame->plays != ah->plays) {
		veil_message_set(message, "decoder answered a frame of another animation");
		return -EPROTO;
	}
	if (frame->index != ah->next_index) {
		veil_message_set(message, "decoder answered frame %d, not %d", frame->index,
			ah->next_index);
		return -EPROTO;
	}
	ah->next_index = (frame->index + 1) % ah->frames;
	return 0;
}

int veil_anim_helper_next(struct veil_anim_helper *ah, struct veil_helper_spare *spare,
		enum veil_anim_format format, int fd, int cover_width, int cover_height,
		enum veil_image_filter filter, struct veil_image *image, int *original_width,
		int *original_height, struct veil_decoder_frame *frame, char **message) {
	*image = (struct veil_image){0};
	struct veil_wire_request request = {
		.magic = VEIL_WIRE_MAGIC,
		.version = VEIL_WIRE_VERSION,
		.op = VEIL_WIRE_NEXT,
	};
	int ms = veil_helper_spare_timeout_ms(spare);
	if (!ah->started) {
		ah->pool = veil_frame_pool_create();
		if (ah->pool == NULL) {
			veil_message_set(message, "out of memory");
			return -ENOMEM;
		}
		request.op = VEIL_WIRE_DECODE;
		request.kind = VEIL_MEDIA_VIDEO;
		request.anim = (uint32_t)format;
		request.cover_width = cover_width;
		request.cover_height = cover_height;
		request.filter = (uint32_t)filter;
		ms = veil_decoder_begin(spare, &ah->helper, &request, fd, message);
		if (ms < 0) {
			veil_frame_pool_unref(ah->pool);
			ah->pool = NULL;
			return ms;
		}
		ah->started = true;
		ah->frames = 0;
		ah->next_index = 0;
	} else {
		request.n_released = (uint32_t)veil_frame_pool_take_released(ah->pool,
			request.released, VEIL_WIRE_RELEASED);
		/* A helper dead before it read the request is told apart below, by its end. */
		veil_wire_send(ah->helper.sock, &request, sizeof(request), -1);
	}
	bool answered;
	int ret = veil_decoder_receive_frame(ah->helper.sock, ms, ah->pool, image,
		original_width, original_height, frame, &answered, message);
	veil_decoder_name_timeout(spare, ret, message);
	if (ret == 0) {
		ret = check_frame(ah, image, *original_width, *original_height, frame, message);
		if (ret < 0) {
			veil_image_finish(image);
		}
	}
	if (ret < 0) {
		/* Nothing more from this one: it may never exit by itself. */
		veil_helper_kill(&ah->helper);
		veil_helper_end(&ah->helper, VEIL_HELPER_EXIT_GRACE_MS);
		veil_frame_pool_unref(ah->pool);
		veil_anim_helper_init(ah);
		/* The next animation's helper, a while after this one failed. */
		veil_helper_spare_fill(spare, VEIL_HELPER_SPARE_DELAY_MS);
	} else if (request.op == VEIL_WIRE_DECODE) {
		veil_helper_spare_fill(spare, VEIL_HELPER_SPARE_DELAY_MS);
	}
	return ret;
}
