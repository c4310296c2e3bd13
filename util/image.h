/*
 * Still images decoded to pixels the renderer takes as they are: DRM_FORMAT_ARGB8888 with
 * premultiplied alpha, or DRM_FORMAT_XRGB8888 when every pixel is opaque (which lets the scene
 * treat the wallpaper as opaque). Rows are 4-byte pixels stored B, G, R, A in memory on every
 * host: DRM formats are little-endian by definition.
 */
#ifndef VEIL_UTIL_IMAGE_H
#define VEIL_UTIL_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a decoder read of a still's colour from its file (decode/colour.c turns the pixels into
 * sRGB by it). All zero: nothing said, sRGB assumed.
 */
struct veil_image_colour {
	uint8_t *icc; /* malloc()ed: the embedded ICC profile, icc_len bytes; owned by the image */
	size_t icc_len;
	bool srgb; /* the file says sRGB outright (PNG's sRGB chunk) */
	/* CICP (ITU-T H.273) code points: an AVIF's or HEIC's nclx, a PNG's cICP. */
	bool has_cicp;
	uint8_t cicp_primaries, cicp_transfer, cicp_matrix;
	/* PNG's gAMA (the encoding's gamma, 0.45455 for 2.2) and cHRM (x, y of W, R, G, B). */
	bool has_gamma, has_chromaticities;
	double gamma;
	double chromaticities[8];
};

struct veil_image {
	int width, height;
	int stride; /* bytes per row */
	uint32_t drm_format; /* DRM_FORMAT_ARGB8888 or DRM_FORMAT_XRGB8888 */
	void *data; /* veil_pixels_alloc()ed, or mapped when mapped_size > 0; owned by it */
	/*
	 * 0, or the length of a read-only mmap() that data is (pixels a decoder process left in
	 * a sealed memfd, source/remote/client.c): munmap()ed rather than free()d.
	 */
	size_t mapped_size;
	/*
	 * When not NULL, the pixels are borrowed (a frame in the memfds an animation's
	 * veil-decoder reuses, source/remote/frame_pool.h): finishing the image, or the buffer
	 * that took it over, calls release(release_data) instead of freeing them.
	 */
	void (*release)(void *release_data);
	void *release_data;
	/*
	 * 0 or 1 for a still; for an animation a decoder shows as a still (an animated WebP), its
	 * number of frames, the pixels being the first. Scaling keeps only the pixels.
	 */
	int frames;
	/* A still's colour as its decoder read it, until decode/colour.c uses it up. */
	struct veil_image_colour colour;
};

/* Refuse images larger than this before allocating anything. */
#define VEIL_IMAGE_MAX_SIDE 16384
#define VEIL_IMAGE_MAX_PIXELS (16384 * 16384 / 2)

/* Frees, unmaps or releases the pixels; the image is all zero afterwards. */
void veil_image_finish(struct veil_image *image);
/* Frees or unmaps pixels of either kind above (data may be NULL). */
void veil_image_data_free(void *data, size_t mapped_size);

/*
 * 0 when a width x height picture is within the limits above, else -EFBIG with a sentence in
 * *message that names it as what ("PNG image", ...).
 */
int veil_image_check_size(uint64_t width, uint64_t height, const char *what, char **message);

/* How a still is scaled down on the worker: a setting's `filter` word. */
enum veil_image_filter {
	/*
	 * A Lanczos-3 kernel as wide as the reduction (util/resample.c): the default, zero, since
	 * it came within 35 to 51 dB of ImageMagick's Lanczos where the box was at 22 to 46, for
	 * 0.9 to 1.6 times the box's time on the worker (docs/scaling.md).
	 */
	VEIL_IMAGE_FILTER_SMOOTH = 0,
	/* Each pixel the average of the source pixels under it (a box filter): before 0.2.0's. */
	VEIL_IMAGE_FILTER_LINEAR,
	/* Each pixel one source pixel, the one under its centre: no smoothing (pixel art). */
	VEIL_IMAGE_FILTER_NEAREST,
};

/* Its word: "linear", "nearest", "smooth" (veilctl too, which has no pixman). */
static inline const char *veil_image_filter_name(enum veil_image_filter filter) {
	switch (filter) {
	case VEIL_IMAGE_FILTER_NEAREST:
		return "nearest";
	case VEIL_IMAGE_FILTER_LINEAR:
		return "linear";
	case VEIL_IMAGE_FILTER_SMOOTH:
	default:
		return "smooth";
	}
}

/*
 * Scales the image down (never up) with filter so that it is no larger than needed to cover
 * max_width x max_height while keeping its aspect ratio; a no-op when it already fits.
 * Returns 0 or a negative errno (the image is unchanged then).
 */
int veil_image_shrink_to_cover(struct veil_image *image, int max_width, int max_height,
	enum veil_image_filter filter);
/*
 * The size veil_image_shrink_to_cover() would keep of a width x height picture, in *out_width
 * and *out_height; whether it is smaller (false: kept as it is, or limits of 0).
 */
bool veil_image_cover_size(int width, int height, int max_width, int max_height,
	int *out_width, int *out_height);
/*
 * Scales src into dst with filter, dst's size, stride and pixels (of dst's size) given by the
 * caller; the format is src's. 0 or -ENOMEM.
 */
int veil_image_scale_into(const struct veil_image *src, const struct veil_image *dst,
	enum veil_image_filter filter);

#endif
