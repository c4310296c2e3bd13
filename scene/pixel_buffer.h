/* A wlr_buffer over pixels in memory that veil decoded itself (still images). */
#ifndef VEIL_SCENE_PIXEL_BUFFER_H
#define VEIL_SCENE_PIXEL_BUFFER_H

#include <stdint.h>
#include <stddef.h>

struct wlr_buffer;
struct veil_image;

/*
 * Wraps the image's pixels without copying them and takes them over: image->data is NULL
 * afterwards. As with every wlr_buffer, the creator locks it where it keeps it and gives up its
 * own reference with wlr_buffer_drop(); the pixels are freed once it is dropped and unlocked.
 * NULL on failure (the image is then untouched).
 */
struct wlr_buffer *veil_pixel_buffer_create(struct veil_image *image);

#endif
