/*
 * Still images decoded to pixels the renderer takes as they are: DRM_FORMAT_ARGB8888 with
 * premultiplied alpha, or DRM_FORMAT_XRGB8888 when every pixel is opaque (which lets the scene
 * treat the wallpaper as opaque). Rows are 4-byte pixels stored B, G, R, A in memory on every
 * host: DRM formats are little-endian by definition.
 */
#ifndef VEIL_DECODE_IMAGE_H
#define VEIL_DECODE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct veil_image {
	int width, height;
	int stride; /* bytes per row */
	uint32_t drm_format; /* DRM_FORMAT_ARGB8888 or DRM_FORMAT_XRGB8888 */
	void *data; /* malloc()ed, owned by the image */
};

/* Refuse images larger than this before allocating anything. */
#define VEIL_IMAGE_MAX_SIDE 16384
#define VEIL_IMAGE_MAX_PIXELS (16384 * 16384 / 2)

void veil_image_finish(struct veil_image *image);

/*
 * Scales the image down (never up) so that it is no larger than needed to cover
 * max_width x max_height while keeping its aspect ratio; a no-op when it already fits.
 * Returns 0 or a negative errno (the image is unchanged then).
 */
int veil_image_shrink_to_cover(struct veil_image *image, int max_width, int max_height);

/*
 * Decoders. fd is an open, readable file positioned anywhere; it is not closed. On failure they
 * return a negative errno and, when message is not NULL, set *message to a malloc()ed sentence
 * for a person ("not a PNG file", "PNG image is 100000x100000, larger than 16384x16384", ...).
 *   -EINVAL  corrupt or truncated data
 *   -EFBIG   larger than VEIL_IMAGE_MAX_*
 *   -ENOTSUP not this decoder's format (veil_png_load: no PNG signature)
 *   -ENOMEM  out of memory
 *   -ETIMEDOUT GStreamer took too long; other negative errnos for read failures
 */
bool veil_png_sniff(const void *head, size_t len);
/*
 * The checks a decoder makes on the header alone (a few hundred bytes read, nothing decoded):
 * what can be refused while a command waits for its answer. 0 when decoding may start.
 */
int veil_png_check(int fd, char **message);
int veil_png_load(int fd, struct veil_image *image, char **message);
/* Any still image GStreamer can decode (JPEG, WebP, ...), through a short-lived pipeline. */
int veil_gst_image_check(int fd, char **message);
int veil_gst_image_load(int fd, struct veil_image *image, char **message);

#endif
