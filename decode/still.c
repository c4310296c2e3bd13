#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "veil-config.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/read.h"

/*
 * One decoder a kind. A kind whose library this build lacks falls back to GStreamer when
 * GStreamer decodes it too (WebP, TIFF, JPEG: with the layouts it crashes on refused; SVG), else
 * is refused.
 */
static const struct veil_still_decoder decoders[] = {
	{ VEIL_MEDIA_PNG, "libpng", veil_png_check, veil_png_load, .in_place = true,
		.load_shrunk = veil_png_load_shrunk },
#if VEIL_HAVE_LIBHEIF
	{ VEIL_MEDIA_HEIF, "libheif", veil_heif_check, veil_heif_load, .in_place = false,
		.load_item = veil_heif_load_item, .load_shrunk = veil_heif_load_shrunk },
#endif
#if VEIL_HAVE_LIBWEBP
	{ VEIL_MEDIA_WEBP, "libwebp", veil_webp_check, veil_webp_load, .in_place = true },
#endif
#if VEIL_HAVE_LIBJPEG
	{ VEIL_MEDIA_JPEG, "libjpeg-turbo", veil_jpeg_check, veil_jpeg_load, .in_place = true,
		.load_cover = veil_jpeg_load_cover },
#endif
#if VEIL_HAVE_LIBTIFF
	{ VEIL_MEDIA_TIFF, "libtiff", veil_tiff_check, veil_tiff_load, .in_place = true },
#endif
#if VEIL_HAVE_LIBJXL
	{ VEIL_MEDIA_JXL, "libjxl", veil_jxl_check, veil_jxl_load, .in_place = false },
#endif
#if VEIL_HAVE_LIBRSVG
	{ VEIL_MEDIA_SVG, "librsvg", veil_svg_check, veil_svg_load, .in_place = true,
		.load_cover = veil_svg_load_cover },
#endif
	{ VEIL_MEDIA_IMAGE, "gstreamer", veil_gst_image_check, veil_gst_image_load,
		.in_place = false },
};

const struct veil_still_decoder *veil_still_decoder_gst(void) {
	return &decoders[sizeof(decoders) / sizeof(decoders[0]) - 1];
}

const struct veil_still_decoder *veil_still_decoder_find(enum veil_media_kind kind,
		char **message) {
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++) {
		if (decoders[i].kind == kind) {
			return &decoders[i];
		}
	}
	switch (kind) {
	case VEIL_MEDIA_WEBP:
	case VEIL_MEDIA_TIFF:
	case VEIL_MEDIA_JPEG:
	case VEIL_MEDIA_SVG:
		return veil_still_decoder_gst();
	case VEIL_MEDIA_HEIF:
		veil_message_set(message, "AVIF and HEIC images need veil built with libheif");
		return NULL;
	case VEIL_MEDIA_JXL:
		veil_message_set(message, "JPEG XL images need veil built with libjxl");
		return NULL;
	default:
		return NULL;
	}
}

int veil_still_decode(const struct veil_still_decoder *decoder, int fd, int cover_width,
		int cover_height, enum veil_image_filter filter, struct veil_image *image,
		int *original_width, int *original_height, const struct veil_still_decoder **used,
		int *shrink_error, struct veil_colour_result *colour, char **message) {
	return veil_still_decode_item(decoder, fd, 0, cover_width, cover_height, filter, image,
		original_width, original_height, used, shrink_error, colour, message);
}

int veil_still_decode_item(const struct veil_still_decoder *decoder, int fd, int item,
		int cover_width, int cover_height, enum veil_image_filter filter,
		struct veil_image *image, int *original_width, int *original_height,
		const struct veil_still_decoder **used, int *shrink_error,
		struct veil_colour_result *colour, char **message) {
	*shrink_error = 0;
	*colour = (struct veil_colour_result){0};
	*used = decoder;
	if (item != 0 && decoder->load_item == NULL) {
		veil_message_set(message, "only a HEIF file has images beside its own");
		return -EINVAL;
	}
	int file_width = 0, file_height = 0;
	int ret;
	if (item != 0) {
		ret = decoder->load_item(fd, item, image, message);
	} else if (decoder->load_shrunk != NULL && filter == VEIL_IMAGE_FILTER_SMOOTH &&
			cover_width > 0 && cover_height > 0) {
		ret = decoder->load_shrunk(fd, cover_width, cover_height, image, &file_width,
			&file_height, message);
	} else if (decoder->load_cover != NULL && cover_width > 0 && cover_height > 0) {
		ret = decoder->load_cover(fd, cover_width, cover_height, image, &file_width,
			&file_height, message);
	} else {
		ret = decoder->load(fd, image, message);
	}
	if (ret == -ENOTSUP && decoder->kind == VEIL_MEDIA_PNG) {
		/*
		 * No PNG after all (the file changed since it was sniffed). Not for the others:
		 * their -ENOTSUP is a feature of their format, which GStreamer would not have.
		 */
		if (message != NULL) {
			free(*message);
			*message = NULL;
		}
		decoder = veil_still_decoder_gst();
		ret = decoder->load(fd, image, message);
	}
	*used = decoder;
	if (ret < 0) {
		return ret;
	}
	*original_width = file_width > 0 ? file_width : image->width;
	*original_height = file_height > 0 ? file_height : image->height;
	/*
	 * Keep no more pixels than the largest output can show: an 8000x6000 photo on a 1080p
	 * output is kept at 1920x1440. center and tile show pixels one to one and keep them all.
	 */
	if (cover_width > 0 && cover_height > 0) {
		*shrink_error = veil_image_shrink_to_cover(image, cover_width, cover_height,
			filter);
	}
	/* After the shrink: the conversion's cost goes with the pixels kept, not the file's. */
	veil_colour_to_srgb(image, colour);
	return 0;
}

int veil_still_read_file(int fd, size_t max, const char *what, uint8_t **data, size_t *len,
		char **message) {
	*data = NULL;
	*len = 0;
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		veil_message_set(message, "cannot read the file: not a regular file");
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > max) {
		veil_message_set(message, "%s is %jd bytes, more than veil reads (%zu)", what,
			(intmax_t)st.st_size, max);
		return -EFBIG;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *buf = malloc(size > 0 ? size : 1);
	if (buf == NULL) {
		veil_message_set(message, "out of memory reading a %zu-byte file", size);
		return -ENOMEM;
	}
	ssize_t n = veil_read_at_message(fd, buf, size, 0, message);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	*data = buf;
	*len = (size_t)n;
	return 0;
}

bool veil_still_opaque(const uint8_t *pixels, int width, int height, int stride) {
	for (int y = 0; y < height; y++) {
		const uint8_t *row = pixels + (size_t)y * (size_t)stride;
		for (int x = 0; x < width; x++) {
			if (row[4 * x + 3] != 0xff) {
				return false;
			}
		}
	}
	return true;
}
