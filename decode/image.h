/*
 * The decoders of still images: libpng, libheif (AVIF, HEIC), libwebp, libtiff and libjpeg-turbo
 * when veil is built with them, and GStreamer for the other formats.
 */
#ifndef VEIL_DECODE_IMAGE_H
#define VEIL_DECODE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/image.h"

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
/*
 * The same, shrunk by `smooth` to cover cover_width x cover_height as its rows are read, with
 * no picture of the file's size in memory (an interlaced file is read whole, and not shrunk).
 */
int veil_png_load_shrunk(int fd, int cover_width, int cover_height, struct veil_image *image,
	int *file_width, int *file_height, char **message);
/* Any still image GStreamer can decode (JPEG, WebP, ...), through a short-lived pipeline. */
int veil_gst_image_check(int fd, char **message);
int veil_gst_image_load(int fd, struct veil_image *image, char **message);
/*
 * AVIF and HEIC (any HEIF file with a primary image libheif's plugins decode), turned and
 * mirrored as the file says (irot, imir).
 */
int veil_heif_check(int fd, char **message);
int veil_heif_load(int fd, struct veil_image *image, char **message);
/* The item-th top-level image (from 1; 0 is the primary), for Apple dynamic wallpapers. */
int veil_heif_load_item(int fd, int item, struct veil_image *image, char **message);
/*
 * The primary image shrunk by `smooth` to cover cover_width x cover_height as libheif's rows
 * are converted: no converted picture of the file's size (libheif has no smaller decode of HEVC
 * or AV1; its own planes stay whole).
 */
int veil_heif_load_shrunk(int fd, int cover_width, int cover_height, struct veil_image *image,
	int *file_width, int *file_height, char **message);
/* An XMP packet is at most this long for veil. */
#define VEIL_HEIF_MAX_XMP (1 << 20)
/*
 * The XMP packet (rdf+xml metadata) of a HEIF file's primary image, malloc()ed and NUL-ended
 * (*size bytes before the NUL), and the number of its top-level images; at most budget bytes of
 * the file read (SIZE_MAX: no limit). 0; -EAGAIN when over budget; -ENOENT when it has no XMP;
 * -EFBIG when its XMP (or, over budget, a block of metadata libheif reads whole while it
 * parses the file) is over VEIL_HEIF_MAX_XMP; else a negative errno with *message.
 */
int veil_heif_read_xmp(int fd, size_t budget, char **xmp, size_t *size, int *n_images,
	char **message);
/* WebP, still or animated: of an animated one, the first frame. */
int veil_webp_check(int fd, char **message);
int veil_webp_load(int fd, struct veil_image *image, char **message);
/*
 * JPEG through libjpeg-turbo (8-bit, 12-bit, lossless; grey, YCbCr, RGB, CMYK, YCCK), turned as
 * its EXIF orientation says. load_cover decodes at the smallest DCT scale (n/8) whose picture
 * is twice what the shrink to cover_width x cover_height keeps, and whole when that fails.
 */
int veil_jpeg_check(int fd, char **message);
int veil_jpeg_load(int fd, struct veil_image *image, char **message);
int veil_jpeg_load_cover(int fd, int cover_width, int cover_height, struct veil_image *image,
	int *file_width, int *file_height, char **message);
/* TIFF through libtiff's RGBA interface (any bit depth it reads), its first page. */
int veil_tiff_check(int fd, char **message);
int veil_tiff_load(int fd, struct veil_image *image, char **message);
/*
 * JPEG XL through libjxl, bare codestream or container, turned as its orientation says; of an
 * animation (played by anim_jxl.c), the first frame.
 */
int veil_jxl_check(int fd, char **message);
int veil_jxl_load(int fd, struct veil_image *image, char **message);
/* libjxl's straight R, G, B, A to premultiplied B, G, R, A, in place; whether all opaque. */
bool veil_jxl_to_bgra(uint8_t *pixels, size_t n);
/*
 * SVG through librsvg, drawn at its own size (load) or at the size that covers cover_width x
 * cover_height, up or down, keeping its aspect ratio (load_cover: *file_* its own size). Its own
 * size is its width and height in pixels (96 dpi), else its viewBox's, else this square.
 */
#define VEIL_SVG_DEFAULT_SIDE 1024
int veil_svg_check(int fd, char **message);
int veil_svg_load(int fd, struct veil_image *image, char **message);
int veil_svg_load_cover(int fd, int cover_width, int cover_height, struct veil_image *image,
	int *file_width, int *file_height, char **message);
/*
 * The size a width x height document is drawn at to cover cover_width x cover_height: one side
 * the cover's, the other rounded up; false (nothing set) for sizes that are not positive.
 */
bool veil_svg_cover_size(double width, double height, int cover_width, int cover_height,
	int64_t *out_width, int64_t *out_height);

#endif
