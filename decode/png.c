#include <errno.h>
#include <inttypes.h>
#include <drm_fourcc.h>
#include <png.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "decode/colour.h"
#include "decode/image.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"
#include "util/resample.h"

/*
 * PNG files through libpng, into the pixels veil_image describes. libpng's own transformations
 * bring every colour type and bit depth to 8-bit B, G, R, A (or B, G, R, 0xff) bytes; the only
 * pass of our own premultiplies the colours and finds out whether the image is opaque after all.
 * Gamma, colour profiles and the like are ignored, as every other wallpaper tool does.
 */

static const uint8_t png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* Signature (8), then the IHDR chunk's length (4), type (4), width (4) and height (4). */
#define HEADER_LEN 24

/*
 * Reads the file from its start whatever the fd's offset, without moving that offset (pread), so
 * that the next decoder the caller tries sees the same file; pipes fall back to read().
 */
struct reader {
	int fd;
	bool use_read;
	off_t offset; /* of the next pread() */
	size_t start, end; /* unread bytes in buf */
	int error; /* errno of a failed read, or 0 */
	bool eof;
	uint8_t buf[64 * 1024];
};

struct png_load {
	struct reader reader;
	png_structp png;
	png_infop info;
	uint8_t *pixels;
	png_bytep *rows;
	struct veil_resample_rows *shrink; /* shrinking as it reads (load_shrunk) */
	int cover_width, cover_height; /* > 0: shrunk to cover this as it is read */
	int file_width, file_height; /* IHDR's */
	char error[256]; /* libpng's message for the error that ended decoding */
	struct veil_image_colour colour;
};

/*
 * What the file says of its colour, in the order PNG's third edition ranks it: cICP, iCCP,
 * sRGB, then gAMA and cHRM. false when out of memory.
 */
static bool read_colour(png_structp png, png_infop info, struct veil_image_colour *colour) {
#ifdef PNG_cICP_SUPPORTED
	png_byte primaries, transfer, matrix, full_range;
	if (png_get_cICP(png, info, &primaries, &transfer, &matrix, &full_range) != 0 &&
			matrix == 0) {
		colour->has_cicp = true;
		colour->cicp_primaries = primaries;
		colour->cicp_transfer = transfer;
		colour->cicp_matrix = matrix;
		return true;
	}
#endif
	png_charp name;
	int compression;
	png_bytep profile;
	png_uint_32 len;
	if (png_get_iCCP(png, info, &name, &compression, &profile, &len) != 0) {
		return veil_colour_set_icc(colour, profile, len);
	}
	int intent;
	if (png_get_sRGB(png, info, &intent) != 0) {
		colour->srgb = true;
		return true;
	}
	double gamma;
	if (png_get_gAMA(png, info, &gamma) != 0) {
		colour->has_gamma = true;
		colour->gamma = gamma;
	}
	double *xy = colour->chromaticities;
	if (png_get_cHRM(png, info, &xy[6], &xy[7], &xy[0], &xy[1], &xy[2], &xy[3], &xy[4],
			&xy[5]) != 0) {
		colour->has_chromaticities = true;
	}
	return true;
}

static ssize_t read_some(struct reader *reader, void *dst, size_t len) {
	while (true) {
		ssize_t n;
		if (reader->use_read) {
			n = read(reader->fd, dst, len);
		} else {
			n = pread(reader->fd, dst, len, reader->offset);
		}
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == ESPIPE && !reader->use_read) {
			reader->use_read = true;
			continue;
		}
		if (n < 0) {
			reader->error = errno;
		} else if (n == 0) {
			reader->eof = true;
		} else {
			reader->offset += n;
		}
		return n;
	}
}

/* Buffers at least len bytes (len <= sizeof(buf)) unless the file is shorter; returns how many. */
static size_t peek(struct reader *reader, size_t len) {
	if (reader->start > 0) {
		memmove(reader->buf, reader->buf + reader->start, reader->end - reader->start);
		reader->end -= reader->start;
		reader->start = 0;
	}
	while (reader->end < len) {
		ssize_t n = read_some(reader, reader->buf + reader->end,
			sizeof(reader->buf) - reader->end);
		if (n <= 0) {
			break;
		}
		reader->end += (size_t)n;
	}
	return reader->end;
}

static void read_data(png_structp png, png_bytep out, size_t len) {
	struct png_load *load = png_get_io_ptr(png);
	struct reader *reader = &load->reader;
	while (len > 0) {
		if (reader->start == reader->end) {
			ssize_t n = read_some(reader, reader->buf, sizeof(reader->buf));
			if (n <= 0) {
				png_error(png, n < 0 ? "read error" : "unexpected end of file");
			}
			reader->start = 0;
			reader->end = (size_t)n;
		}
		size_t n = reader->end - reader->start;
		if (n > len) {
			n = len;
		}
		memcpy(out, reader->buf + reader->start, n);
		reader->start += n;
		out += n;
		len -= n;
	}
}

static void handle_error(png_structp png, png_const_charp msg) {
	struct png_load *load = png_get_error_ptr(png);
	snprintf(load->error, sizeof(load->error), "%s", msg);
	png_longjmp(png, 1);
}

/*
 * Warnings are about ancillary data libpng skipped (a bad CRC on a text chunk, an odd colour
 * profile): nothing a person setting a wallpaper can act on, and stderr is the compositor's.
 */
static void handle_warning(png_structp png, png_const_charp msg) {
}

static uint32_t read_be32(const uint8_t *p) {
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t mul_div_255(unsigned value, unsigned alpha) {
	/* value * alpha / 255, rounded to nearest, without a division. */
	unsigned t = value * alpha + 128;
	return (uint8_t)((t + (t >> 8)) >> 8);
}

/* Premultiplies B, G, R, A pixels in place; returns whether every pixel is opaque. */
static bool premultiply(uint8_t *pixels, size_t n_pixels) {
	bool opaque = true;
	for (size_t i = 0; i < n_pixels; i++) {
		uint8_t *p = pixels + 4 * i;
		unsigned alpha = p[3];
		if (alpha == 0xff) {
			continue;
		}
		opaque = false;
		p[0] = mul_div_255(p[0], alpha);
		p[1] = mul_div_255(p[1], alpha);
		p[2] = mul_div_255(p[2], alpha);
	}
	return opaque;
}

/* The picture made, its pixels and colour moved from *load to *image. */
static int hand_over(struct png_load *load, int width, int height, bool opaque,
		struct veil_image *image) {
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = load->pixels,
		.colour = load->colour,
	};
	load->pixels = NULL;
	load->colour = (struct veil_image_colour){0};
	return 0;
}

/*
 * The rows as libpng reads them, each premultiplied and fed to the `smooth` shrink, which keeps
 * the few rows its kernel spans: no picture of the file's size is ever allocated. The pixels are
 * those of a whole read shrunk by veil_image_shrink_to_cover() after it. Called where decode()
 * may longjmp() from, with what must be freed in *load.
 */
static int decode_shrunk(struct png_load *load, int width, int height, int kept_width,
		int kept_height, bool has_alpha, struct veil_image *image, char **message) {
	size_t stride = (size_t)kept_width * 4;
	load->pixels = veil_pixels_alloc(stride * (size_t)kept_height);
	struct veil_image kept = {
		.width = kept_width,
		.height = kept_height,
		.stride = (int)stride,
		.data = load->pixels,
	};
	load->shrink = load->pixels != NULL ?
		veil_resample_rows_create(width, height, &kept) : NULL;
	if (load->shrink == NULL) {
		veil_message_set(message, "out of memory for a %dx%d image", kept_width,
			kept_height);
		return -ENOMEM;
	}
	bool opaque = true;
	for (int y = 0; y < height; y++) {
		uint8_t *row = veil_resample_rows_next(load->shrink);
		png_read_row(load->png, row, NULL);
		if (has_alpha && !premultiply(row, (size_t)width)) {
			opaque = false;
		}
		veil_resample_rows_push(load->shrink);
	}
	png_read_end(load->png, NULL);
	return hand_over(load, kept_width, kept_height, opaque, image);
}

/*
 * The part that libpng may longjmp() out of. Everything that must survive the jump (allocations
 * to free, libpng's message) lives in *load, never in local variables changed after setjmp().
 */
static int decode(struct png_load *load, struct veil_image *image, char **message) {
	png_structp png = load->png;
	png_infop info = load->info;
	if (setjmp(png_jmpbuf(png))) {
		struct reader *reader = &load->reader;
		if (reader->error != 0) {
			veil_message_set(message, "cannot read the PNG file: %s",
				strerror(reader->error));
			return -reader->error;
		}
		if (reader->eof) {
			veil_message_set(message, "PNG file is truncated");
			return -EINVAL;
		}
		if (strstr(load->error, "user limit") != NULL) {
			/* Not reached after check_header(), unless libpng's limits differ. */
			veil_message_set(message, "PNG image is larger than veil's limit of %dx%d",
				VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
			return -EFBIG;
		}
		if (strstr(load->error, "Out of memory") != NULL ||
				strstr(load->error, "out of memory") != NULL) {
			veil_message_set(message, "out of memory decoding the PNG file");
			return -ENOMEM;
		}
		veil_message_set(message, "corrupt PNG file: %s", load->error);
		return -EINVAL;
	}

	png_read_info(png, info);
	if (!read_colour(png, info, &load->colour)) {
		veil_message_set(message, "out of memory for the PNG file's colour profile");
		return -ENOMEM;
	}
	png_uint_32 width, height;
	int bit_depth, color_type, interlace;
	png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
	int ret = veil_image_check_size(width, height, "PNG image", message);
	if (ret < 0) {
		return ret;
	}
	load->file_width = (int)width;
	load->file_height = (int)height;

	bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
		png_get_valid(png, info, PNG_INFO_tRNS) != 0;
	/* Palette to RGB, grey below 8 bits to 8 bits, tRNS to an alpha channel. */
	png_set_expand(png);
	/* Rounds 16-bit samples to the nearest 8-bit value (strip_16 would truncate). */
	png_set_scale_16(png);
	png_set_gray_to_rgb(png);
	/* DRM formats are little-endian words 0xAARRGGBB: B, G, R, A bytes on every host. */
	png_set_bgr(png);
	if (!has_alpha) {
		png_set_filler(png, 0xff, PNG_FILLER_AFTER);
	}
	png_set_interlace_handling(png);
	png_read_update_info(png, info);

	size_t stride = (size_t)width * 4;
	if (png_get_rowbytes(png, info) != stride) {
		veil_message_set(message, "PNG image has a layout veil cannot convert");
		return -EINVAL;
	}
	int kept_width, kept_height;
	/* An interlaced picture's rows are complete only at its last pass: read whole. */
	if (load->cover_width > 0 && interlace == PNG_INTERLACE_NONE &&
			veil_image_cover_size((int)width, (int)height, load->cover_width,
				load->cover_height, &kept_width, &kept_height)) {
		return decode_shrunk(load, (int)width, (int)height, kept_width, kept_height,
			has_alpha, image, message);
	}
	load->pixels = veil_pixels_alloc(stride * height);
	load->rows = malloc(height * sizeof(*load->rows));
	if (load->pixels == NULL || load->rows == NULL) {
		veil_message_set(message, "out of memory for a %" PRIu32 "x%" PRIu32 " image",
			(uint32_t)width, (uint32_t)height);
		return -ENOMEM;
	}
	for (png_uint_32 y = 0; y < height; y++) {
		load->rows[y] = load->pixels + y * stride;
	}
	png_read_image(png, load->rows);
	/* Reading up to IEND tells a complete file from one cut short after its pixels. */
	png_read_end(png, NULL);

	bool opaque = !has_alpha || premultiply(load->pixels, (size_t)width * height);
	return hand_over(load, (int)width, (int)height, opaque, image);
}

bool veil_png_sniff(const void *head, size_t len) {
	return len >= sizeof(png_signature) &&
		memcmp(head, png_signature, sizeof(png_signature)) == 0;
}

/* Looks at the signature and IHDR before libpng does, to answer -ENOTSUP or -EFBIG at once. */
static int check_header(struct reader *reader, char **message) {
	size_t len = peek(reader, HEADER_LEN);
	if (reader->error != 0) {
		veil_message_set(message, "cannot read the file: %s", strerror(reader->error));
		return -reader->error;
	}
	if (len == 0) {
		veil_message_set(message, "the file is empty");
		return -EINVAL;
	}
	size_t sig_len = len < sizeof(png_signature) ? len : sizeof(png_signature);
	if (memcmp(reader->buf, png_signature, sig_len) != 0) {
		veil_message_set(message, "not a PNG file");
		return -ENOTSUP;
	}
	if (len < HEADER_LEN) {
		veil_message_set(message, "PNG file is truncated");
		return -EINVAL;
	}
	/* PNG's first chunk is IHDR, 13 bytes long: anything else is no PNG libpng would read. */
	if (read_be32(reader->buf + 8) != 13 || memcmp(reader->buf + 12, "IHDR", 4) != 0) {
		veil_message_set(message, "corrupt PNG file: it does not start with its header");
		return -EINVAL;
	}
	uint32_t width = read_be32(reader->buf + 16);
	uint32_t height = read_be32(reader->buf + 20);
	if (width == 0 || height == 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX) {
		veil_message_set(message, "corrupt PNG file: its header gives a size of %ux%u",
			width, height);
		return -EINVAL;
	}
	return veil_image_check_size(width, height, "PNG image", message);
}

int veil_png_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct reader *reader = calloc(1, sizeof(*reader));
	if (reader == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	reader->fd = fd;
	int ret = check_header(reader, message);
	free(reader);
	return ret;
}

static int load_png(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		veil_message_set(message, "cannot read the file: %s", strerror(EISDIR));
		return -EISDIR;
	}

	struct png_load *load = calloc(1, sizeof(*load));
	if (load == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	load->reader.fd = fd;
	load->cover_width = cover_width;
	load->cover_height = cover_height;

	ret = check_header(&load->reader, message);
	if (ret < 0) {
		goto out;
	}

	load->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, load, handle_error,
		handle_warning);
	if (load->png == NULL) {
		veil_message_set(message, "cannot set up libpng");
		ret = -ENOMEM;
		goto out;
	}
	load->info = png_create_info_struct(load->png);
	if (load->info == NULL) {
		veil_message_set(message, "cannot set up libpng");
		ret = -ENOMEM;
		goto out;
	}
	png_set_read_fn(load->png, load, read_data);
	/* The header was checked, but libpng sees every IHDR it reads, whatever we peeked at. */
	png_set_user_limits(load->png, VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
	/*
	 * Skips every chunk but IHDR, PLTE, tRNS, IDAT and IEND (and the colour chunks below): we
	 * ignore text, and libpng would otherwise keep up to 1000 text chunks, each inflated to up
	 * to the malloc limit below, which stays for chunks that get through regardless.
	 */
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
	png_set_keep_unknown_chunks(load->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
	/* ... but the colour chunks (decode/colour.c). */
	static const png_byte colour_chunks[] = "iCCP\0sRGB\0gAMA\0cHRM\0cICP";
	png_set_keep_unknown_chunks(load->png, PNG_HANDLE_CHUNK_AS_DEFAULT, colour_chunks,
		(int)(sizeof(colour_chunks) / 5));
#endif
	png_set_chunk_malloc_max(load->png, 8 * 1024 * 1024);

	ret = decode(load, image, message);
	*file_width = load->file_width;
	*file_height = load->file_height;

out:
	if (load->png != NULL) {
		png_destroy_read_struct(&load->png, load->info != NULL ? &load->info : NULL, NULL);
	}
	free(load->rows);
	veil_resample_rows_destroy(load->shrink);
	veil_pixels_free(load->pixels);
	free(load->colour.icc);
	free(load);
	return ret;
}

int veil_png_load(int fd, struct veil_image *image, char **message) {
	int file_width, file_height;
	return load_png(fd, 0, 0, image, &file_width, &file_height, message);
}

int veil_png_load_shrunk(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	*file_width = 0;
	*file_height = 0;
	return load_png(fd, cover_width, cover_height, image, file_width, file_height, message);
}
