/*
 * Animated images (GIF, APNG, animated WebP and JPEG XL): what the decoders share, and how a
 * file is told to be one. A decoder reads the whole file from memory (the caller's: it outlives the
 * decoder) and composes one frame after the other on a canvas of its own, with the frame's
 * disposal and blending, as premultiplied B, G, R, A bytes (DRM_FORMAT_ARGB8888 on every host).
 * source/anim_source.c plays them; decoders run on veil's workers only.
 */
#ifndef VEIL_DECODE_ANIM_H
#define VEIL_DECODE_ANIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/image.h"

enum veil_anim_format {
	VEIL_ANIM_NONE,
	VEIL_ANIM_GIF,
	VEIL_ANIM_PNG,
	VEIL_ANIM_WEBP,
	VEIL_ANIM_JXL,
};

/* Frames shorter than this play for ANIM_SHORT_DELAY_MS, as browsers do (GIFs of delay 0). */
#define VEIL_ANIM_MIN_DELAY_MS 11
#define VEIL_ANIM_SHORT_DELAY_MS 100
/* More frames than this are refused (a million frames of one pixel are no wallpaper). */
#define VEIL_ANIM_MAX_FRAMES 100000
/* As for a WebP still: larger files are not pictures. */
#define VEIL_ANIM_MAX_FILE_SIZE (512u * 1024 * 1024)

struct veil_anim_info {
	int width, height; /* the canvas */
	int frames; /* counted in the file, >= 1 */
	int plays; /* how many times it plays; 0: for ever */
};

struct veil_anim_decoder;

struct veil_anim_decoder_impl {
	enum veil_anim_format format;
	const char *format_name; /* "gif", "apng", "webp", "jxl" */
	const char *name; /* the library, for the status: "giflib", "libpng", "libwebp" */
	/*
	 * Reads the file's structure (every chunk or block, no pixel decoded beyond what the
	 * library needs to validate it). 0 and a decoder, or a negative errno and a sentence.
	 */
	int (*open)(const uint8_t *data, size_t len, struct veil_anim_decoder **out,
		struct veil_anim_info *info, char **message);
	/*
	 * Composes the next frame (the first after open, and again after the last) and points
	 * *canvas at width * height * 4 bytes that stay valid until the next call. *delay_ms is
	 * how long it shows (already raised from a short one), *index which frame it is.
	 */
	int (*next)(struct veil_anim_decoder *dec, const uint8_t **canvas, int *delay_ms,
		int *index, char **message);
	void (*destroy)(struct veil_anim_decoder *dec);
};

/* NULL when this build has no decoder for the format. */
const struct veil_anim_decoder_impl *veil_anim_decoder_find(enum veil_anim_format format);
/*
 * What the file's first bytes say (read here, 64 KiB at most): an animated GIF (a loop
 * extension, or two images in those bytes), APNG
 * (an acTL before the first IDAT) or animated WebP (VP8X's animation flag), else NONE.
 */
enum veil_anim_format veil_anim_detect(int fd);
/* The header's canvas size against veil's limits: 0 or a negative errno and a sentence. */
int veil_anim_check(int fd, enum veil_anim_format format, char **message);

/*
 * Reads the file at fd whole into *data (it must outlive the decoder: free it after) and opens
 * impl's decoder on it. 0, or a negative errno with a sentence (nothing to free then).
 */
int veil_anim_open_file(const struct veil_anim_decoder_impl *impl, int fd, uint8_t **data,
	size_t *len, struct veil_anim_decoder **dec, struct veil_anim_info *info, char **message);

/*
 * A composed canvas (width * height * 4 bytes, as next() gives it) as a picture of its own
 * (util/pixels.h's allocator: a memfd in veil-decoder), shrunk with filter to cover
 * cover_width x cover_height when both are > 0 (a failure to shrink keeps it whole, its error in
 * *shrink_error). 0, or -ENOMEM with a sentence.
 */
int veil_anim_frame_image(const uint8_t *canvas, int width, int height, int cover_width,
	int cover_height, enum veil_image_filter filter, struct veil_image *image,
	int *shrink_error, char **message);

/* A delay as the files give it (milliseconds), raised when too short to be meant. */
int veil_anim_delay(int64_t ms);

/* The decoders (decode/anim_gif.c, anim_png.c, anim_webp.c), each where its library is. */
extern const struct veil_anim_decoder_impl veil_anim_gif;
extern const struct veil_anim_decoder_impl veil_anim_png;
extern const struct veil_anim_decoder_impl veil_anim_webp;
extern const struct veil_anim_decoder_impl veil_anim_jxl;
/* Whether a JPEG XL file's first bytes (its header) say it is an animation (libjxl). */
bool veil_anim_jxl_sniff(const uint8_t *head, size_t len);

/*
 * Canvas helpers (decode/anim_canvas.c), on premultiplied B, G, R, A canvases of stride
 * width * 4. Rectangles are clipped to the canvas.
 */
void veil_anim_clear_rect(uint8_t *canvas, int width, int height, int x, int y, int w, int h);
/* Straight-alpha B, G, R, A pixels of a w x h frame onto the canvas at x, y: over or source. */
void veil_anim_put_rect(uint8_t *canvas, int width, int height, const uint8_t *frame, int x,
	int y, int w, int h, bool over);

#endif
