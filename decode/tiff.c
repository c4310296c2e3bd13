#include <drm_fourcc.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include "decode/colour.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * TIFF through libtiff's RGBA interface (TIFFRGBAImage), which reads every layout libtiff knows
 * (1 to 16 bits a sample, palette, grey, RGB, CMYK, YCbCr, separate planes, strips and tiles)
 * to 8-bit R, G, B, A words with associated alpha; the Orientation tag is followed (libtiff
 * flips, veil turns the four orientations that swap width and height).
 * What it cannot read (floating-point samples, 32-bit ones, raw photos) is refused in the check.
 * The first page is shown.
 */

/* What the check may read: the header and the first directory, with its tags' values. */
#define CHECK_BUDGET (64 * 1024)
/* libtiff's largest single allocation (strip or tile buffers): a generous strip. */
#define MAX_LIBTIFF_ALLOC ((tmsize_t)256 * 1024 * 1024)

struct file {
	int fd;
	uint64_t size;
	uint64_t position;
	size_t budget; /* bytes that may still be read; SIZE_MAX: no limit */
	bool over_budget;
	int error; /* errno of a failed read */
	char message[256]; /* libtiff's first error */
};

static tmsize_t file_read(thandle_t handle, void *buf, tmsize_t size) {
	struct file *file = handle;
	if (size < 0) {
		return -1;
	}
	if ((size_t)size > file->budget) {
		file->over_budget = true;
		return -1;
	}
	ssize_t n = veil_read_at(file->fd, buf, (size_t)size, (off_t)file->position);
	if (n < 0) {
		file->error = (int)-n;
		return -1;
	}
	if (file->budget != SIZE_MAX) {
		file->budget -= (size_t)n;
	}
	file->position += (uint64_t)n;
	return (tmsize_t)n;
}

static tmsize_t file_write(thandle_t handle, void *buf, tmsize_t size) {
	return -1;
}

static toff_t file_seek(thandle_t handle, toff_t offset, int whence) {
	struct file *file = handle;
	uint64_t base = whence == SEEK_CUR ? file->position :
		whence == SEEK_END ? file->size : 0;
	file->position = base + offset;
	return file->position;
}

static int file_close(thandle_t handle) {
	return 0;
}

static toff_t file_size(thandle_t handle) {
	struct file *file = handle;
	return file->size;
}

static int file_map(thandle_t handle, void **base, toff_t *size) {
	return 0;
}

static void file_unmap(thandle_t handle, void *base, toff_t size) {
}

__attribute__((format(printf, 4, 0)))
static int handle_error(TIFF *tif, void *data, const char *module, const char *fmt,
		va_list args) {
	struct file *file = data;
	if (file->message[0] == '\0') {
		vsnprintf(file->message, sizeof(file->message), fmt, args);
	}
	return 1;
}

/* Warnings are about tags libtiff skipped; stderr is the compositor's. */
static int handle_warning(TIFF *tif, void *data, const char *module, const char *fmt,
		va_list args) {
	return 1;
}

static int set_read_error(struct file *file, char **message) {
	if (file->error != 0) {
		veil_message_set(message, "cannot read the TIFF file: %s", strerror(file->error));
		return -file->error;
	}
	/* libtiff may quote the file's bytes (an ASCII tag): keep the sentence valid UTF-8. */
	veil_message_sanitize(file->message);
	veil_message_set(message, "corrupt or truncated TIFF file%s%s",
		file->message[0] != '\0' ? ": " : "", file->message);
	return -EINVAL;
}

/* The file's first directory read and checked: its size, that TIFFRGBAImage reads it. */
static int open_tiff(int fd, struct file *file, size_t budget, TIFF **tif_out, uint32_t *width,
		uint32_t *height, char **message) {
	*tif_out = NULL;
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	*file = (struct file){ .fd = fd, .size = (uint64_t)st.st_size, .budget = budget };
	TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
	if (options == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	TIFFOpenOptionsSetErrorHandlerExtR(options, handle_error, file);
	TIFFOpenOptionsSetWarningHandlerExtR(options, handle_warning, file);
	TIFFOpenOptionsSetMaxSingleMemAlloc(options, MAX_LIBTIFF_ALLOC);
	/* "m": no mapping; "O": strip offsets read when needed, not the whole table at once. */
	TIFF *tif = TIFFClientOpenExt("TIFF file", "rmO", file, file_read, file_write, file_seek,
		file_close, file_size, file_map, file_unmap, options);
	TIFFOpenOptionsFree(options);
	if (tif == NULL) {
		if (file->over_budget) {
			return -EAGAIN;
		}
		return set_read_error(file, message);
	}
	*tif_out = tif;
	uint32_t w = 0, h = 0;
	if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) ||
			w == 0 || h == 0) {
		veil_message_set(message, "corrupt TIFF file: it gives no size");
		return -EINVAL;
	}
	ret = veil_image_check_size(w, h, "TIFF image", message);
	if (ret < 0) {
		return ret;
	}
	/* A value of either form (count and pointer, or pointer alone) fits in these two. */
	uint64_t value[2];
	void *pointer;
	if (TIFFGetField(tif, TIFFTAG_DNGVERSION, &value, &pointer)) {
		veil_message_set(message, "TIFF raw photos (DNG) are not supported");
		return -ENOTSUP;
	}
	char reason[1024] = "";
	if (!TIFFRGBAImageOK(tif, reason)) {
		veil_message_sanitize(reason);
		veil_message_set(message, "TIFF layout veil's libtiff cannot read (%s)", reason);
		return -ENOTSUP;
	}
	*width = w;
	*height = h;
	return 0;
}

int veil_tiff_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct file *file = calloc(1, sizeof(*file));
	if (file == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	TIFF *tif;
	uint32_t width, height;
	int ret = open_tiff(fd, file, CHECK_BUDGET, &tif, &width, &height, message);
	if (tif != NULL) {
		TIFFClose(tif);
	}
	if (ret == -EAGAIN) {
		/* A directory too large to read here: the worker reads it, and decides. */
		ret = 0;
	}
	free(file);
	return ret;
}

/*
 * Orientations 5 to 8 (0th row on the left or right): the w x h picture as stored, into the
 * h x w one shown.
 */
static void turn(const uint32_t *src, uint32_t w, uint32_t h, uint16_t orientation,
		uint32_t *dst) {
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			uint32_t dx, dy;
			switch (orientation) {
			case ORIENTATION_LEFTTOP: /* transposed */
				dx = y, dy = x;
				break;
			case ORIENTATION_RIGHTTOP: /* turned a quarter clockwise to be shown */
				dx = h - 1 - y, dy = x;
				break;
			case ORIENTATION_RIGHTBOT: /* transversed */
				dx = h - 1 - y, dy = w - 1 - x;
				break;
			default: /* ORIENTATION_LEFTBOT: a quarter anticlockwise */
				dx = y, dy = w - 1 - x;
				break;
			}
			dst[(size_t)dy * h + dx] = src[(size_t)y * w + x];
		}
	}
}

int veil_tiff_load(int fd, struct veil_image *image, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	uint32_t *raster = NULL, *turned_pixels = NULL;
	struct file *file = calloc(1, sizeof(*file));
	if (file == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	TIFF *tif;
	uint32_t width, height;
	int ret = open_tiff(fd, file, SIZE_MAX, &tif, &width, &height, message);
	if (ret < 0) {
		goto out;
	}
	raster = veil_pixels_alloc((size_t)width * height * 4);
	if (raster == NULL) {
		veil_message_set(message, "out of memory for a %ux%u image", width, height);
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * libtiff's flips cover orientations 1 to 4. The others turn the picture a quarter: read
	 * as stored (libtiff flips nothing when asked for the file's own orientation) and turned
	 * below.
	 */
	uint16_t orientation = ORIENTATION_TOPLEFT;
	TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
	bool turned = orientation >= ORIENTATION_LEFTTOP && orientation <= ORIENTATION_LEFTBOT;
	/* stop_on_error: a strip that does not decode fails the image, not a grey band. */
	if (!TIFFReadRGBAImageOriented(tif, width, height, raster,
			turned ? orientation : ORIENTATION_TOPLEFT, 1)) {
		ret = set_read_error(file, message);
		goto out;
	}
	if (turned) {
		turned_pixels = veil_pixels_alloc((size_t)width * height * 4);
		if (turned_pixels == NULL) {
			veil_message_set(message, "out of memory for a %ux%u image", width, height);
			ret = -ENOMEM;
			goto out;
		}
		turn(raster, width, height, orientation, turned_pixels);
		veil_pixels_free(raster);
		raster = turned_pixels;
		turned_pixels = NULL;
		uint32_t w = width;
		width = height;
		height = w;
	}
	/*
	 * ABGR words (R in the low byte) to B, G, R, A bytes. Associated alpha is passed through
	 * as the file has it, where a colour may exceed its alpha: clamped, as premultiplied
	 * pixels must be.
	 */
	uint8_t *pixels = (uint8_t *)raster;
	size_t n_pixels = (size_t)width * height;
	for (size_t i = 0; i < n_pixels; i++) {
		uint32_t p = raster[i];
		uint8_t *d = pixels + 4 * i;
		uint8_t a = (uint8_t)TIFFGetA(p);
		uint8_t b = (uint8_t)TIFFGetB(p), g = (uint8_t)TIFFGetG(p), r = (uint8_t)TIFFGetR(p);
		d[0] = b < a ? b : a;
		d[1] = g < a ? g : a;
		d[2] = r < a ? r : a;
		d[3] = a;
	}
	bool opaque = veil_still_opaque(pixels, (int)width, (int)height, (int)width * 4);
	*image = (struct veil_image){
		.width = (int)width,
		.height = (int)height,
		.stride = (int)width * 4,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = raster,
	};
	raster = NULL;
	/* The first directory's embedded ICC profile (decode/colour.c). */
	uint32_t icc_len = 0;
	void *icc = NULL;
	if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_len, &icc) == 1 &&
			!veil_colour_set_icc(&image->colour, icc, icc_len)) {
		veil_image_finish(image);
		veil_message_set(message, "out of memory for the TIFF file's colour profile");
		ret = -ENOMEM;
	}

out:
	veil_pixels_free(turned_pixels);
	veil_pixels_free(raster);
	if (tif != NULL) {
		TIFFClose(tif);
	}
	free(file);
	return ret;
}
