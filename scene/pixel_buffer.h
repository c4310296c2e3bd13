/* A wlr_buffer over pixels in memory that veil decoded itself (still images). */
#ifndef VEIL_SCENE_PIXEL_BUFFER_H
#define VEIL_SCENE_PIXEL_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "util/colour_space.h"

struct wlr_buffer;
struct veil_image;

/*
 * Wraps the image's pixels without copying them and takes them over: image->data is NULL
 * afterwards. As with every wlr_buffer, the creator locks it where it keeps it and gives up its
 * own reference with wlr_buffer_drop(); the pixels are freed once it is dropped and unlocked.
 * NULL on failure (the image is then untouched).
 */
struct wlr_buffer *veil_pixel_buffer_create(struct veil_image *image);

/*
 * What the pixels are in, when not sRGB: an HDR still's transfer function and primaries
 * (decode/colour.h), which every node showing the buffer tells the renderer. Set once, before
 * the buffer is shown.
 */
void veil_pixel_buffer_set_colour_space(struct wlr_buffer *buffer,
	const struct veil_colour_space *space);
/*
 * Whether buffer is one of these whose pixels are not sRGB (then *space says what they are
 * in): false for every other buffer, and for sRGB pixels.
 */
bool veil_pixel_buffer_get_colour_space(struct wlr_buffer *buffer,
	struct veil_colour_space *space);

#endif
