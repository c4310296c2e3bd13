#include <drm_fourcc.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "decode/anim.h"
#include "helper/sandbox.h"
#include "helper/serve.h"
#include "decode/still.h"
#include "util/image.h"
#include "util/message.h"

/*
 * An animation in veil-decoder: the same decoders as in the compositor (decode/anim_*.c), each
 * frame composed, then copied (or shrunk) straight into one of a few memfds it reuses once the
 * compositor has released the frame in it (wire.h: slots), sent with the first frame that uses
 * it. The compositor asks for each frame when it wants it, so the helper decodes nothing while
 * the animation is paused, covered, or every frame is kept.
 */

struct slot {
	uint8_t *data; /* mapped shared and writable; the memfd itself is closed once sent */
	size_t size;
	bool held; /* by the compositor: not to be written until it releases it */
};

struct slots {
	struct slot slot[VEIL_WIRE_MAX_SLOTS];
	int n;
};

/*
 * Waits for the compositor's next request and frees the slots it released: 0 for NEXT, -EPIPE
 * when it closed its end (it needs no more frames), another negative errno for anything else.
 */
static int receive_next(int sock, struct slots *slots) {
	struct veil_wire_request request;
	int fd;
	int ret = veil_serve_receive(sock, 1u << VEIL_WIRE_NEXT, &request, &fd);
	if (ret < 0) {
		return ret;
	}
	for (uint32_t i = 0; i < request.n_released; i++) {
		int32_t id = request.released[i];
		if (id >= 0 && id < slots->n) {
			slots->slot[id].held = false;
		}
	}
	return 0;
}

/*
 * A slot of size bytes the compositor does not hold: a released one, else a new memfd (in *fd,
 * to send with the frame) sealed against resizing, mapped and populated at once.
 */
static int take_slot(struct slots *slots, size_t size, int *id, int *fd, char **message) {
	*fd = -1;
	for (int i = 0; i < slots->n; i++) {
		if (!slots->slot[i].held && slots->slot[i].size == size) {
			*id = i;
			return 0;
		}
	}
	if (slots->n >= VEIL_WIRE_MAX_SLOTS) {
		veil_message_set(message, "the compositor holds every one of %d frames",
			VEIL_WIRE_MAX_SLOTS);
		return -ENOSPC;
	}
	uint8_t *data;
	int memfd;
	int ret = veil_serve_slot_memfd(size, &data, &memfd);
	if (ret < 0) {
		veil_message_set(message, "cannot make a frame's memfd of %zu bytes: %s", size,
			strerror(-ret));
		return ret;
	}
	*id = slots->n++;
	slots->slot[*id] = (struct slot){ .data = data, .size = size };
	*fd = memfd;
	return 0;
}

/* The next frame composed into a slot, described in *reply; *fd: the slot's memfd, if new. */
static int compose(const struct veil_anim_decoder_impl *impl, struct veil_anim_decoder *dec,
		const struct veil_anim_info *info, const struct veil_wire_request *request,
		struct slots *slots, struct veil_wire_reply *reply, int *fd, char **message) {
	const uint8_t *canvas;
	int delay_ms, index;
	int ret = impl->next(dec, &canvas, &delay_ms, &index, message);
	if (ret < 0) {
		return ret;
	}
	/* As veil_anim_frame_image() in the compositor: opaque or not, then shrunk to cover. */
	bool opaque = veil_still_opaque(canvas, info->width, info->height, info->width * 4);
	struct veil_image src = {
		.width = info->width,
		.height = info->height,
		.stride = info->width * 4,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = (void *)canvas,
	};
	struct veil_image dst = src;
	bool shrink = veil_image_cover_size(src.width, src.height, request->cover_width,
		request->cover_height, &dst.width, &dst.height);
	dst.stride = dst.width * 4;
	int id = -1; /* set by a take_slot() that succeeds */
	ret = take_slot(slots, (size_t)dst.stride * (size_t)dst.height, &id, fd, message);
	if (ret < 0) {
		return ret;
	}
	dst.data = slots->slot[id].data;
	if (!shrink) {
		memcpy(dst.data, canvas, (size_t)dst.stride * (size_t)dst.height);
	} else if (veil_image_scale_into(&src, &dst, veil_serve_filter(request)) < 0) {
		veil_message_set(message, "out of memory scaling a frame down");
		return -ENOMEM;
	}
	slots->slot[id].held = true;
	*reply = (struct veil_wire_reply){
		.width = dst.width,
		.height = dst.height,
		.stride = dst.stride,
		.drm_format = dst.drm_format,
		.original_width = info->width,
		.original_height = info->height,
		.frames = info->frames,
		.index = index,
		.delay_ms = delay_ms,
		.plays = info->plays,
		.slot = id,
	};
	snprintf(reply->decoder, sizeof(reply->decoder), "%s", impl->name);
	return 0;
}

int veil_serve_anim(int sock, const struct veil_wire_request *request, int fd) {
	char *message = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	struct veil_anim_decoder *dec = NULL;
	struct veil_anim_info info = {0};
	struct slots *slots = calloc(1, sizeof(*slots));
	const struct veil_anim_decoder_impl *impl =
		veil_anim_decoder_find((enum veil_anim_format)request->anim);
	int ret = 0;
	if (slots == NULL) {
		ret = -ENOMEM;
		veil_message_set(&message, "out of memory");
		goto fail;
	}
	if (impl == NULL) {
		ret = -ENOTSUP;
		veil_message_set(&message, "no decoder for this kind of animation");
		goto fail;
	}
	/*
	 * The file, read whole, and the decoder's canvas and its saved copy (each the size of the
	 * output's picture when the animation is that size) written without a page fault each
	 * 4 KiB.
	 */
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		veil_serve_prepare_heap((size_t)st.st_size + 2 * veil_serve_cover_bytes(request));
	}
	ret = veil_sandbox_enter(0, -1, &message);
	if (ret == 0) {
		ret = veil_anim_open_file(impl, fd, &data, &len, &dec, &info, &message);
	}
	while (ret == 0) {
		struct veil_wire_reply reply;
		int memfd = -1;
		ret = compose(impl, dec, &info, request, slots, &reply, &memfd, &message);
		if (ret < 0) {
			break;
		}
		int sent = veil_serve_send(sock, &reply, memfd);
		if (memfd >= 0) {
			close(memfd); /* the mapping keeps it */
		}
		if (sent == 0) {
			sent = receive_next(sock, slots);
		}
		if (sent < 0) {
			/* The compositor closed its end: every frame it wanted was sent. */
			ret = sent == -EPIPE || sent == -ECONNRESET ? 0 : 1;
			goto out;
		}
	}
fail:
	if (ret < 0) {
		ret = veil_serve_fail(sock, ret, message) == 0 ? 0 : 1;
	}
out:
	if (dec != NULL) {
		impl->destroy(dec);
	}
	free(data);
	free(slots);
	free(message);
	return ret;
}
