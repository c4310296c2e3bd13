#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clients/veilctl/snapshot_png.h"

struct png_error {
	char *buf;
	size_t size;
};

static void handle_png_error(png_structp png, png_const_charp message) {
	struct png_error *error = png_get_error_ptr(png);
	snprintf(error->buf, error->size, "%s", message);
	png_longjmp(png, 1);
}

static void handle_png_warning(png_structp png, png_const_charp message) {
	/* Nothing a person needs to hear about a file veilctl writes itself. */
}

/* The directory of path, for the temporary file (".": path has none). */
static char *directory_of(const char *path) {
	const char *slash = strrchr(path, '/');
	if (slash == NULL) {
		return strdup(".");
	}
	if (slash == path) {
		return strdup("/");
	}
	return strndup(path, (size_t)(slash - path));
}

static int write_file(FILE *file, const uint8_t *pixels, uint32_t width, uint32_t height,
		size_t stride, bool alpha, struct png_error *error) {
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error,
		handle_png_error, handle_png_warning);
	if (png == NULL) {
		snprintf(error->buf, error->size, "out of memory");
		return -1;
	}
	png_infop info = png_create_info_struct(png);
	if (info == NULL) {
		png_destroy_write_struct(&png, NULL);
		snprintf(error->buf, error->size, "out of memory");
		return -1;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return -1;
	}
	png_init_io(png, file);
	png_set_IHDR(png, info, width, height, 8,
		alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/* The compositor gives sRGB. */
	png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
	png_write_info(png, info);
	if (!alpha) {
		/* Each pixel's fourth byte is left out. */
		png_set_filler(png, 0, PNG_FILLER_AFTER);
	}
	for (uint32_t y = 0; y < height; y++) {
		png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
	}
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return 0;
}

int veilctl_write_png(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
		size_t stride, bool alpha, char *buf, size_t buf_size) {
	char message[256] = "";
	struct png_error error = { .buf = message, .size = sizeof(message) };
	char *dir = directory_of(path);
	char *tmp = NULL;
	if (dir == NULL || asprintf(&tmp, "%s/.veilctl-snapshot-XXXXXX", dir) < 0) {
		free(dir);
		snprintf(buf, buf_size, "cannot write '%s': out of memory", path);
		return -1;
	}
	free(dir);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(buf, buf_size, "cannot write '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	/* As a file the user makes: 0666 less the umask (mkstemp makes 0600). */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *file = fdopen(fd, "wb");
	if (file == NULL) {
		snprintf(buf, buf_size, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	int ret = write_file(file, pixels, width, height, stride, alpha, &error);
	if (ret == 0 && fflush(file) != 0) {
		snprintf(message, sizeof(message), "%s", strerror(errno));
		ret = -1;
	}
	if (fclose(file) != 0 && ret == 0) {
		snprintf(message, sizeof(message), "%s", strerror(errno));
		ret = -1;
	}
	if (ret < 0) {
		snprintf(buf, buf_size, "cannot write '%s': %s", path, message);
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		snprintf(buf, buf_size, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;

fail:
	unlink(tmp);
	free(tmp);
	return -1;
}
