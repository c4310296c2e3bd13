/*
 * Apple dynamic wallpapers' files (module/show/dynamic.h): their XMP read with libheif
 * (decode/heif.c), for the probe on the compositor thread (a budget) and the load on a worker.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "veil-config.h"
#include "module/show/dynamic.h"
#include "util/message.h"
#if VEIL_HAVE_DYNAMIC
#include "decode/image.h"

/* The namespace of apple_desktop: properties. */
#define APPLE_NS "http://ns.apple.com/namespace/1.0/"
/*
 * What the probe reads of a file at first: its header and its XMP; at most VEIL_HEIF_MAX_XMP more
 * when a block of metadata is larger.
 */
#define PROBE_BUDGET (256 * 1024)

static int read_xmp(const char *path, size_t budget, char **xmp, size_t *size, int *n_images,
		char **message) {
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;
		return veil_message_fail(message, -err, "Cannot open '%s': %s", path, strerror(err));
	}
	int ret = veil_heif_read_xmp(fd, budget, xmp, size, n_images, message);
	close(fd);
	return ret;
}

bool veil_dynamic_probe(const char *path) {
	char *xmp = NULL, *message = NULL;
	size_t size;
	int n_images;
	int ret = read_xmp(path, PROBE_BUDGET, &xmp, &size, &n_images, &message);
	if (ret == -EAGAIN) {
		/*
		 * A block of metadata past the budget, which libheif reads whole (an XMP packet
		 * padded to hundreds of KiB): once more, with room for an XMP as large as veil reads.
		 */
		free(message);
		message = NULL;
		ret = read_xmp(path, PROBE_BUDGET + VEIL_HEIF_MAX_XMP, &xmp, &size, &n_images,
			&message);
	}
	/*
	 * An XMP too large to read is taken for a dynamic wallpaper's, so that the load refuses
	 * the file with a sentence rather than showing its primary image without one.
	 */
	bool dynamic = ret == -EFBIG ||
		(ret == 0 && memmem(xmp, size, APPLE_NS, strlen(APPLE_NS)) != NULL);
	free(xmp);
	free(message);
	return dynamic;
}

int veil_dynamic_load(const char *path, struct veil_dynamic *dynamic, char **message) {
	*dynamic = (struct veil_dynamic){0};
	char *xmp = NULL, *detail = NULL;
	size_t size;
	int n_images;
	int ret = read_xmp(path, SIZE_MAX, &xmp, &size, &n_images, &detail);
	if (ret < 0) {
		veil_message_set(message, "Cannot show '%s': %s", path,
			detail != NULL ? detail : strerror(-ret));
		free(detail);
		return ret;
	}
	ret = veil_dynamic_parse_xmp(xmp, size, path, n_images, dynamic, message);
	free(xmp);
	return ret;
}

#else

bool veil_dynamic_probe(const char *path) {
	return false;
}

int veil_dynamic_load(const char *path, struct veil_dynamic *dynamic, char **message) {
	return veil_dynamic_parse_xmp(NULL, 0, path, 0, dynamic, message);
}

#endif
