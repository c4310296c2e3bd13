/*
 * The compositor's side of an animation decoded in veil-decoder (serve_anim.c): one sandboxed
 * helper for as long as the animation needs frames, asked for each frame in turn from veil's
 * workers, and treated as untrusted as a still's is (client.h).
 */
#ifndef VEIL_SOURCE_REMOTE_ANIM_CLIENT_H
#define VEIL_SOURCE_REMOTE_ANIM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include "decode/anim.h"
#include "source/remote/client.h"
#include "source/remote/process.h"
#include "wire/wire.h"

/*
 * Frames an animation may keep when decoded in veil-decoder: each is a mapping of one of its
 * memfds (wire.h's slots), and a few are left for the frames on their way.
 */
#define VEIL_ANIM_HELPER_MAX_KEPT (VEIL_WIRE_MAX_SLOTS - 16)

struct veil_anim_helper {
	struct veil_helper helper; /* pid 0 before the first frame and after the end */
	bool started;
	struct veil_frame_pool *pool; /* the helper's memfds, while it runs */
	/* The first frame's: every later one must agree. */
	int width, height, original_width, original_height, frames, plays;
	int next_index;
};

/* Compositor thread, with the decode's other state. */
void veil_anim_helper_init(struct veil_anim_helper *ah);

/*
 * A worker: the next frame, mapped read-only into *image and described in *frame. The first
 * call takes spare's helper (or starts one) and hands it the file (fd) with the format and
 * the size to shrink to cover; *original_width and *original_height are the canvas's. The
 * pixels are borrowed from the helper's memfds (frame_pool.h) until *image is finished or the
 * buffer that takes it over goes; the next request tells the helper which it may reuse. Every
 * frame is checked against the first (size, frame count, plays) and must be the one after the
 * last. On failure (a crash, a hang past veil_helper_spare_timeout_ms(), nonsense) the helper is
 * ended and a negative errno comes with a sentence: the next call starts again from frame 0.
 */
int veil_anim_helper_next(struct veil_anim_helper *ah, struct veil_helper_spare *spare,
	enum veil_anim_format format, int fd, int cover_width, int cover_height,
	enum veil_image_filter filter, struct veil_image *image, int *original_width,
	int *original_height, struct veil_decoder_frame *frame, char **message);

/* Whether a helper is running: ending it must then happen on a worker. */
bool veil_anim_helper_running(const struct veil_anim_helper *ah);

/*
 * A worker: closes the helper's socket (it exits by itself) and leaves it to the spare's thread
 * to reap (veil_helper_spare_release()).
 */
void veil_anim_helper_end(struct veil_anim_helper *ah, struct veil_helper_spare *spare);

#endif
