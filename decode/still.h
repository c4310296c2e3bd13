/*
 * The still decoders, one per kind of file veil_media_sniff() tells apart, and what they share:
 * the size limits, whole reads at an offset, the pixels' last touches.
 */
#ifndef VEIL_DECODE_STILL_H
#define VEIL_DECODE_STILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "decode/colour.h"
#include "decode/sniff.h"
#include "util/image.h"

struct veil_still_decoder {
	enum veil_media_kind kind;
	const char *name; /* the library, as the status's "decoder" shows it */
	/* The header alone, on the compositor thread: a few KiB read at most (decode/image.h). */
	int (*check)(int fd, char **message);
	/* The whole decode, on a worker. */
	int (*load)(int fd, struct veil_image *image, char **message);
	/*
	 * The library writes the picture straight into the block of veil_pixels_alloc() that load
	 * returns, with no picture-sized buffer of its own (libpng, libwebp, libtiff; not libheif
	 * or GStreamer, which decode into their own planes first).
	 */
	bool in_place;
	/*
	 * The item-th top-level image (from 1) rather than the file's own: HEIF only (an Apple
	 * dynamic wallpaper's pictures), NULL for the others.
	 */
	int (*load_item)(int fd, int item, struct veil_image *image, char **message);
	/*
	 * Optional: the whole decode at a reduced size where the format allows it (JPEG's DCT
	 * scaling, a vector picture rendered at the size it is shown), used instead of load when
	 * the picture is to be shrunk to cover cover_width x cover_height (both > 0). The picture
	 * made covers that size whenever the file's does (never smaller than the shrink after it
	 * would keep); *file_width and *file_height are the file's own size, for the status.
	 * NULL for decoders that decode every pixel whatever the size.
	 */
	int (*load_cover)(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message);
	/*
	 * Optional, for filter smooth: the decode shrunk to cover as it is read, the pixels those
	 * of load then veil_image_shrink_to_cover(), without the file's size in memory (PNG).
	 */
	int (*load_shrunk)(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message);
};

/*
 * The decoder of the kind of still sniffed, or NULL for videos, sound, unknown files, and kinds
 * this build has no decoder for (message then, when not NULL, says so).
 */
const struct veil_still_decoder *veil_still_decoder_find(enum veil_media_kind kind,
	char **message);
/* GStreamer's, the decoder of last resort. */
const struct veil_still_decoder *veil_still_decoder_gst(void);

/*
 * The whole decode of a still, the same in the compositor's process and in veil-decoder:
 * decoder->load (GStreamer's when a "PNG" turns out to be none), then, when cover_width and
 * cover_height are > 0, veil_image_shrink_to_cover() with filter (kept whole when that fails,
 * *shrink_error then negative), then veil_colour_to_srgb() on the pixels kept (what it did in
 * *colour). *used is the decoder that ran; original_* the decoded size. 0, or a negative errno
 * with a sentence in *message.
 */
int veil_still_decode(const struct veil_still_decoder *decoder, int fd, int cover_width,
	int cover_height, enum veil_image_filter filter, struct veil_image *image,
	int *original_width, int *original_height, const struct veil_still_decoder **used,
	int *shrink_error, struct veil_colour_result *colour, char **message);
/* The same for the item-th top-level image of a HEIF file (0: its own, as above). */
int veil_still_decode_item(const struct veil_still_decoder *decoder, int fd, int item,
	int cover_width, int cover_height, enum veil_image_filter filter, struct veil_image *image,
	int *original_width, int *original_height, const struct veil_still_decoder **used,
	int *shrink_error, struct veil_colour_result *colour, char **message);


/*
 * The whole file into a malloc()ed buffer, refused (-EFBIG) over max bytes; what names the
 * format in messages ("WebP file").
 */
int veil_still_read_file(int fd, size_t max, const char *what, uint8_t **data, size_t *len,
	char **message);

/* Whether every pixel of B, G, R, A pixels (premultiplied or not) is opaque. */
bool veil_still_opaque(const uint8_t *pixels, int width, int height, int stride);

#endif
