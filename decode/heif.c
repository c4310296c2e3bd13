#include <drm_fourcc.h>
#include <errno.h>
#include <libheif/heif.h>
#if LIBHEIF_HAVE_VERSION(1, 20, 0)
#include <libheif/heif_sequences.h>
/* A file of an image sequence and no still (msf1) shows its first picture. */
#define HAVE_SEQUENCES 1
#else
#define HAVE_SEQUENCES 0
struct heif_track;
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wlr/util/log.h>
#include "decode/colour.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"
#include "util/resample.h"

/*
 * AVIF and HEIC through libheif, which reads the file through a heif_reader over the fd (pread:
 * the fd's offset is left alone) and decodes with its plugins (dav1d or aom for AV1, libde265
 * for HEVC). libheif turns and mirrors the primary image as its irot and imir properties say;
 * HEIF files carry their orientation there, not in EXIF.
 */

/* What the check may read: ftyp and meta, the boxes libheif parses before any picture. */
#define CHECK_BUDGET (64 * 1024)

struct reader {
	int fd;
	int64_t size;
	int64_t position;
	size_t budget; /* bytes that may still be read; SIZE_MAX: no limit */
	bool over_budget;
	size_t refused; /* the largest read refused for the budget */
	int error; /* errno of a failed read */
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Loads libheif's plugins once, for the process's lifetime (heif_init() counts references). */
static void init_libheif(void) {
	struct heif_error err = heif_init(NULL);
	if (err.code != heif_error_Ok) {
		wlr_log(WLR_ERROR, "veil: heif.c: heif_init: %s", err.message);
	}
}

static int64_t reader_get_position(void *data) {
	struct reader *reader = data;
	return reader->position;
}

static int reader_read(void *dst, size_t size, void *data) {
	struct reader *reader = data;
	if (size > reader->budget) {
		reader->over_budget = true;
		if (size > reader->refused) {
			reader->refused = size;
		}
		return -1;
	}
	ssize_t n = veil_read_at(reader->fd, dst, size, (off_t)reader->position);
	if (n < 0) {
		reader->error = (int)-n;
		return -1;
	}
	if ((size_t)n < size) {
		return -1;
	}
	if (reader->budget != SIZE_MAX) {
		reader->budget -= size;
	}
	reader->position += (int64_t)size;
	return 0;
}

static int reader_seek(int64_t position, void *data) {
	struct reader *reader = data;
	if (position < 0 || position > reader->size) {
		return -1;
	}
	reader->position = position;
	return 0;
}

static enum heif_reader_grow_status reader_wait_for_file_size(int64_t target, void *data) {
	struct reader *reader = data;
	return target <= reader->size ? heif_reader_grow_status_size_reached :
		heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader reader_impl = {
	.reader_api_version = 1,
	.get_position = reader_get_position,
	.read = reader_read,
	.seek = reader_seek,
	.wait_for_file_size = reader_wait_for_file_size,
};

/*
 * The plugin libheif needs for the file's brand: NULL when it is there (or the brand does not
 * say which codec), else the Debian package that has one.
 */
static const char *missing_plugin(const char *format) {
	if (strcmp(format, "AVIF") == 0 && !heif_have_decoder_for_format(heif_compression_AV1)) {
		return "libheif-plugin-dav1d or libheif-plugin-aomdec";
	}
	if (strcmp(format, "HEIC") == 0 && !heif_have_decoder_for_format(heif_compression_HEVC)) {
		return "libheif-plugin-libde265";
	}
	return NULL;
}

/* What a person calls the file: AVIF or HEIC, from its brand. */
static const char *format_name(int fd) {
	uint8_t head[12];
	if (veil_read_at(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		return "HEIF";
	}
	heif_brand2 brand = heif_read_main_brand(head, (int)sizeof(head));
	if (brand == heif_brand2_avif || brand == heif_brand2_avis) {
		return "AVIF";
	}
	if (brand == heif_brand2_mif1 || brand == heif_brand2_mif2 || brand == heif_brand2_msf1) {
		return "HEIF";
	}
	return "HEIC";
}

static int error_to_errno(const struct reader *reader, struct heif_error err) {
	if (reader->error != 0) {
		return -reader->error;
	}
	if (err.code == heif_error_Memory_allocation_error &&
			err.subcode == heif_suberror_Security_limit_exceeded) {
		return -EFBIG;
	}
	if (err.code == heif_error_Memory_allocation_error) {
		return -ENOMEM;
	}
	if (err.code == heif_error_Unsupported_feature ||
			err.code == heif_error_Unsupported_filetype ||
			err.code == heif_error_Plugin_loading_error) {
		return -ENOTSUP;
	}
	return -EINVAL;
}

static void set_error_message(char **message, const struct reader *reader, const char *format,
		struct heif_error err) {
	if (reader->error != 0) {
		veil_message_set(message, "cannot read the %s file: %s", format,
			strerror(reader->error));
	} else if (err.code == heif_error_Memory_allocation_error &&
			err.subcode == heif_suberror_Security_limit_exceeded) {
		veil_message_set(message, "%s image is larger than veil's limit of %dx%d", format,
			VEIL_IMAGE_MAX_SIDE, VEIL_IMAGE_MAX_SIDE);
	} else if (err.code == heif_error_Unsupported_feature ||
			err.code == heif_error_Plugin_loading_error) {
		veil_message_set(message, "%s image veil's libheif cannot decode: %s", format,
			err.message);
	} else {
		/* libheif's messages may end in a space. */
		int len = (int)strlen(err.message);
		while (len > 0 && err.message[len - 1] == ' ') {
			len--;
		}
		veil_message_set(message, "corrupt or truncated %s file: %.*s", format, len,
			err.message);
	}
	/* libheif quotes the file's bytes (a box type): keep the sentence valid UTF-8. */
	if (message != NULL && *message != NULL) {
		veil_message_sanitize(*message);
	}
}

/*
 * Apple's dynamic wallpapers are grids of 512x512 tiles, each tile an item with properties of
 * its own: 145 items a 6016x6016 picture, 1160 for Catalina's 8 pictures and 2320 for 16 such
 * pictures, past libheif's default of 1000 items and 100 children in a box (ipco; timewall's
 * issues 156 and 178: files of 1160 items, and a 250 MB one past 100 children). Raised to what
 * 32 such pictures need (4640 items, their ipco's properties), and no further.
 */
#define MAX_ITEMS 5000
#define MAX_CHILDREN_PER_BOX 5000

static void raise_item_limits(struct heif_context *ctx) {
	struct heif_security_limits *limits = heif_context_get_security_limits(ctx);
	if (limits == NULL) {
		return;
	}
	if (limits->max_items != 0 && limits->max_items < MAX_ITEMS) {
		limits->max_items = MAX_ITEMS;
	}
	if (limits->max_children_per_box != 0 &&
			limits->max_children_per_box < MAX_CHILDREN_PER_BOX) {
		limits->max_children_per_box = MAX_CHILDREN_PER_BOX;
	}
}

/*
 * The file's primary image (item 0) or its item-th top-level image (from 1: an Apple dynamic
 * wallpaper's pictures, module/show/dynamic.c), its header read: the size is the displayed one
 * (irot applied).
 */
static int open_image(int fd, struct reader *reader, size_t budget, const char *format,
		int item, struct heif_context **ctx, struct heif_image_handle **handle,
		char **message) {
	*ctx = NULL;
	*handle = NULL;
	pthread_once(&init_once, init_libheif);
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	*reader = (struct reader){ .fd = fd, .size = st.st_size, .budget = budget };
	*ctx = heif_context_alloc();
	if (*ctx == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	/* libheif's own limit (in pixels) above veil's, so that veil's message names the size. */
	heif_context_set_maximum_image_size_limit(*ctx, VEIL_IMAGE_MAX_SIDE);
	raise_item_limits(*ctx);
	struct heif_error err = heif_context_read_from_reader(*ctx, &reader_impl, reader, NULL);
	if (err.code == heif_error_Ok && item > 0) {
		int n = heif_context_get_number_of_top_level_images(*ctx);
		if (item > n) {
			veil_message_set(message, "the %s file has no image %d (it has %d)", format,
				item - 1, n);
			return -EINVAL;
		}
		heif_item_id *ids = calloc((size_t)n, sizeof(*ids));
		if (ids == NULL) {
			veil_message_set(message, "out of memory");
			return -ENOMEM;
		}
		heif_context_get_list_of_top_level_image_IDs(*ctx, ids, n);
		err = heif_context_get_image_handle(*ctx, ids[item - 1], handle);
		free(ids);
	} else if (err.code == heif_error_Ok) {
		err = heif_context_get_primary_image_handle(*ctx, handle);
	}
	if (err.code != heif_error_Ok) {
		if (reader->over_budget) {
			return -EAGAIN;
		}
		set_error_message(message, reader, format, err);
		return error_to_errno(reader, err);
	}
	int width = heif_image_handle_get_width(*handle);
	int height = heif_image_handle_get_height(*handle);
	if (width <= 0 || height <= 0) {
		veil_message_set(message, "corrupt %s file: its image is %dx%d pixels", format, width,
			height);
		return -EINVAL;
	}
	char what[32];
	snprintf(what, sizeof(what), "%s image", format);
	return veil_image_check_size((uint64_t)width, (uint64_t)height, what, message);
}

static void close_primary(struct heif_context *ctx, struct heif_image_handle *handle) {
	if (handle != NULL) {
		heif_image_handle_release(handle);
	}
	if (ctx != NULL) {
		heif_context_free(ctx);
	}
}

/*
 * A file with no primary image but an image sequence (brand msf1: a burst, a short clip of
 * pictures): its first visual track, whose first picture veil shows, its size checked. 0, or a
 * negative errno with a sentence (replacing open_image()'s); -ENOENT when it has no sequence.
 */
static int open_sequence(struct heif_context *ctx, const char *format,
		struct heif_track **track, char **message) {
	*track = NULL;
#if HAVE_SEQUENCES
	if (ctx == NULL || !heif_context_has_sequence(ctx)) {
		return -ENOENT;
	}
	/* open_image()'s sentence ("no primary item") is not what happened. */
	if (message != NULL) {
		free(*message);
		*message = NULL;
	}
	*track = heif_context_get_track(ctx, 0);
	if (*track == NULL) {
		veil_message_set(message, "the %s file is an image sequence without pictures",
			format);
		return -EINVAL;
	}
	uint16_t width = 0, height = 0;
	struct heif_error err = heif_track_get_image_resolution(*track, &width, &height);
	if (err.code != heif_error_Ok || width == 0 || height == 0) {
		veil_message_set(message, "corrupt %s image sequence: its pictures are %ux%u pixels",
			format, (unsigned)width, (unsigned)height);
		return -EINVAL;
	}
	char what[40];
	snprintf(what, sizeof(what), "%s image sequence", format);
	return veil_image_check_size(width, height, what, message);
#else
	/* libheif before 1.20 reads no sequence: its "no primary item" stands. */
	return -ENOENT;
#endif
}

static void close_track(struct heif_track *track) {
#if HAVE_SEQUENCES
	if (track != NULL) {
		heif_track_release(track);
	}
#endif
}

int veil_heif_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	const char *format = format_name(fd);
	struct reader reader;
	struct heif_context *ctx;
	struct heif_image_handle *handle;
	struct heif_track *track = NULL;
	int ret = open_image(fd, &reader, CHECK_BUDGET, format, 0, &ctx, &handle, message);
	if (ret < 0 && ret != -EAGAIN && handle == NULL) {
		int seq = open_sequence(ctx, format, &track, message);
		ret = seq != -ENOENT ? seq : ret;
	}
	close_track(track);
	close_primary(ctx, handle);
	const char *plugin = ret == 0 || ret == -EAGAIN ? missing_plugin(format) : NULL;
	if (plugin != NULL) {
		veil_message_set(message, "%s images need a decoder plugin of libheif's that is not "
			"installed (%s)", format, plugin);
		return -ENOTSUP;
	}
	if (ret == -EAGAIN) {
		/* A header too large to read here: the worker reads it whole, and decides. */
		wlr_log(WLR_DEBUG, "veil: heif.c: %s header over %d bytes, checked when decoding",
			format, CHECK_BUDGET);
		return 0;
	}
	return ret;
}

static uint8_t premultiply(unsigned c, unsigned a, bool premultiplied) {
	if (premultiplied) {
		/* Already, as the file says (alpha's 'prem' reference): a colour above is clamped. */
		return (uint8_t)(c < a ? c : a);
	}
	return (uint8_t)((c * a + 127) / 255);
}

/* A row of libheif's R, G, B(, A) to premultiplied B, G, R, A; whether it is opaque. */
static bool convert_row(const uint8_t *s, bool alpha, bool premultiplied, uint8_t *d,
		int width) {
	int bpp = alpha ? 4 : 3;
	unsigned all = 0xff;
	for (int x = 0; x < width; x++, s += bpp, d += 4) {
		unsigned a = alpha ? s[3] : 0xff;
		all &= a;
		d[0] = premultiply(s[2], a, premultiplied);
		d[1] = premultiply(s[1], a, premultiplied);
		d[2] = premultiply(s[0], a, premultiplied);
		d[3] = (uint8_t)a;
	}
	return all == 0xff;
}

/*
 * libheif's picture to premultiplied B, G, R, A pixels at dst's size: converted whole, or, when
 * dst is smaller, each row converted into the `smooth` shrink as it goes (util/resample.h), with
 * no picture of the file's size beside libheif's. dst's pixels are allocated here. 0, or -ENOMEM.
 */
static int convert(const uint8_t *src, size_t src_stride, bool alpha, bool premultiplied,
		int width, int height, struct veil_image *dst) {
	dst->stride = dst->width * 4;
	dst->data = veil_pixels_alloc((size_t)dst->stride * (size_t)dst->height);
	if (dst->data == NULL) {
		return -ENOMEM;
	}
	bool opaque = true;
	struct veil_resample_rows *shrink = NULL;
	if (dst->width != width || dst->height != height) {
		shrink = veil_resample_rows_create(width, height, dst);
		if (shrink == NULL) {
			veil_pixels_free(dst->data);
			dst->data = NULL;
			return -ENOMEM;
		}
	}
	for (int y = 0; y < height; y++) {
		const uint8_t *s = src + (size_t)y * src_stride;
		uint8_t *d = shrink != NULL ? veil_resample_rows_next(shrink) :
			(uint8_t *)dst->data + (size_t)y * (size_t)dst->stride;
		opaque = convert_row(s, alpha, premultiplied, d, width) && opaque;
		if (shrink != NULL) {
			veil_resample_rows_push(shrink);
		}
	}
	veil_resample_rows_destroy(shrink);
	dst->drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888;
	return 0;
}

/*
 * The primary image's colour: its ICC profile ('colr' prof or rICC), else its nclx code points;
 * from the decoded image when there is no handle (a sequence's picture). false when out of
 * memory.
 */
static bool read_colour(const struct heif_image_handle *handle, const struct heif_image *img,
		struct veil_image_colour *colour) {
	size_t len = handle != NULL ? heif_image_handle_get_raw_color_profile_size(handle) :
		heif_image_get_raw_color_profile_size(img);
	if (len > 0) {
		if (len > VEIL_COLOUR_MAX_ICC) {
			colour->icc_len = len; /* refused, by its length alone */
			return true;
		}
		uint8_t *icc = malloc(len);
		if (icc == NULL) {
			return false;
		}
		struct heif_error err = handle != NULL ?
			heif_image_handle_get_raw_color_profile(handle, icc) :
			heif_image_get_raw_color_profile(img, icc);
		if (err.code == heif_error_Ok) {
			colour->icc = icc;
			colour->icc_len = len;
			return true;
		}
		free(icc);
	}
	struct heif_color_profile_nclx *nclx = NULL;
	struct heif_error err = handle != NULL ?
		heif_image_handle_get_nclx_color_profile(handle, &nclx) :
		heif_image_get_nclx_color_profile(img, &nclx);
	if (err.code == heif_error_Ok && nclx != NULL) {
		colour->has_cicp = true;
		colour->cicp_primaries = (uint8_t)nclx->color_primaries;
		colour->cicp_transfer = (uint8_t)nclx->transfer_characteristics;
		colour->cicp_matrix = (uint8_t)nclx->matrix_coefficients;
	}
	heif_nclx_color_profile_free(nclx);
	return true;
}

static int load_heif(int fd, int item, int cover_width, int cover_height,
		struct veil_image *image, int *file_width, int *file_height, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	const char *format = format_name(fd);
	struct reader reader;
	struct heif_context *ctx;
	struct heif_image_handle *handle;
	struct heif_decoding_options *options = NULL;
	struct heif_image *img = NULL;
	struct heif_track *track = NULL;
	int ret = open_image(fd, &reader, SIZE_MAX, format, item, &ctx, &handle, message);
	if (ret < 0 && item == 0 && handle == NULL) {
		int seq = open_sequence(ctx, format, &track, message);
		ret = seq != -ENOENT ? seq : ret;
	}
	if (ret < 0) {
		goto out;
	}
#if HAVE_SEQUENCES
	bool alpha = track != NULL ? heif_track_has_alpha_channel(track) != 0 :
		heif_image_handle_has_alpha_channel(handle) != 0;
#else
	bool alpha = heif_image_handle_has_alpha_channel(handle) != 0;
#endif
	options = heif_decoding_options_alloc();
	if (options == NULL) {
		veil_message_set(message, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	/* 10- and 12-bit AVIF and HEIC (HDR photos) to 8 bits a sample. */
	options->convert_hdr_to_8bit = 1;
	/*
	 * A file libheif can only half decode (a grid whose tiles' data lies past the file's
	 * end: "Extent in iloc box references data outside of file bounds") is refused, as a
	 * truncated JPEG or PNG is, rather than shown with holes: libheif then returns the
	 * warning it would have added to the picture as the error.
	 */
	options->strict_decoding = 1;
	enum heif_chroma chroma = alpha ? heif_chroma_interleaved_RGBA :
		heif_chroma_interleaved_RGB;
	struct heif_error err;
#if HAVE_SEQUENCES
	if (track != NULL) {
		err = heif_track_decode_next_image(track, &img, heif_colorspace_RGB, chroma,
			options);
	} else
#endif
	{
		err = heif_decode_image(handle, &img, heif_colorspace_RGB, chroma, options);
	}
	if (err.code == heif_error_Memory_allocation_error &&
			err.subcode == heif_suberror_Security_limit_exceeded && reader.error == 0) {
		/*
		 * The header's size was checked against veil's limit: the coded picture is not
		 * the one it declares (AVIF's truncated_elementary_stream.avif: 1024x768 declared,
		 * its cut AV1 data read as 2048x1536).
		 */
		veil_message_set(message, "corrupt or truncated %s file: its picture data does not "
			"hold the %dx%d picture it declares", format,
			handle != NULL ? heif_image_handle_get_width(handle) : 0,
			handle != NULL ? heif_image_handle_get_height(handle) : 0);
		ret = -EINVAL;
		goto out;
	}
	if (err.code != heif_error_Ok) {
		set_error_message(message, &reader, format, err);
		ret = error_to_errno(&reader, err);
		goto out;
	}
	int width = heif_image_get_primary_width(img);
	int height = heif_image_get_primary_height(img);
	size_t stride;
	const uint8_t *plane = heif_image_get_plane_readonly2(img, heif_channel_interleaved, &stride);
	ret = veil_image_check_size((uint64_t)(width > 0 ? width : 0),
		(uint64_t)(height > 0 ? height : 0), "decoded image", message);
	if (ret < 0) {
		goto out;
	}
	if (plane == NULL || width <= 0 || height <= 0 ||
			heif_image_get_bits_per_pixel_range(img, heif_channel_interleaved) != 8) {
		veil_message_set(message, "%s image decoded to a layout veil cannot convert", format);
		ret = -EINVAL;
		goto out;
	}
	*file_width = width;
	*file_height = height;
	struct veil_image kept = {0};
	veil_image_cover_size(width, height, cover_width, cover_height, &kept.width,
		&kept.height);
	ret = convert(plane, stride, alpha, alpha && heif_image_is_premultiplied_alpha(img) != 0,
		width, height, &kept);
	if (ret < 0) {
		veil_message_set(message, "out of memory for a %dx%d image", kept.width,
			kept.height);
		goto out;
	}
	*image = kept;
	if (!read_colour(handle, img, &image->colour)) {
		veil_image_finish(image);
		veil_message_set(message, "out of memory for the %s file's colour profile", format);
		ret = -ENOMEM;
	}

out:
	if (img != NULL) {
		heif_image_release(img);
	}
	if (options != NULL) {
		heif_decoding_options_free(options);
	}
	close_track(track);
	close_primary(ctx, handle);
	return ret;
}

int veil_heif_load_item(int fd, int item, struct veil_image *image, char **message) {
	int file_width, file_height;
	return load_heif(fd, item, 0, 0, image, &file_width, &file_height, message);
}

int veil_heif_load(int fd, struct veil_image *image, char **message) {
	return veil_heif_load_item(fd, 0, image, message);
}

int veil_heif_load_shrunk(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	*file_width = 0;
	*file_height = 0;
	return load_heif(fd, 0, cover_width, cover_height, image, file_width, file_height,
		message);
}

int veil_heif_read_xmp(int fd, size_t budget, char **xmp, size_t *size, int *n_images,
		char **message) {
	*xmp = NULL;
	*size = 0;
	*n_images = 0;
	if (message != NULL) {
		*message = NULL;
	}
	uint8_t head[12];
	if (veil_read_at(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
			heif_check_filetype(head, (int)sizeof(head)) == heif_filetype_no) {
		veil_message_set(message, "not a HEIF file");
		return -EINVAL;
	}
	const char *format = format_name(fd);
	struct reader reader;
	struct heif_context *ctx;
	struct heif_image_handle *handle;
	int ret = open_image(fd, &reader, budget, format, 0, &ctx, &handle, message);
	if (ret == -EAGAIN && reader.refused > VEIL_HEIF_MAX_XMP) {
		/* libheif reads an item's XMP (or Exif) whole while it parses the file. */
		veil_message_set(message, "its metadata is %zu KiB, over veil's limit of %d KiB",
			reader.refused / 1024, VEIL_HEIF_MAX_XMP / 1024);
		ret = -EFBIG;
	}
	if (ret < 0) {
		goto out;
	}
	*n_images = heif_context_get_number_of_top_level_images(ctx);
	int n = heif_image_handle_get_number_of_metadata_blocks(handle, "mime");
	heif_item_id ids[16];
	n = heif_image_handle_get_list_of_metadata_block_IDs(handle, "mime", ids,
		n < 16 ? n : 16);
	for (int i = 0; i < n; i++) {
		const char *type = heif_image_handle_get_metadata_content_type(handle, ids[i]);
		if (type == NULL || strcmp(type, "application/rdf+xml") != 0) {
			continue;
		}
		size_t len = heif_image_handle_get_metadata_size(handle, ids[i]);
		if (len > VEIL_HEIF_MAX_XMP) {
			veil_message_set(message, "its XMP is %zu KiB, over veil's limit of %d KiB",
				len / 1024, VEIL_HEIF_MAX_XMP / 1024);
			ret = -EFBIG;
			goto out;
		}
		if (len == 0) {
			continue;
		}
		char *data = malloc(len + 1);
		if (data == NULL) {
			veil_message_set(message, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		struct heif_error err = heif_image_handle_get_metadata(handle, ids[i], data);
		if (err.code != heif_error_Ok) {
			free(data);
			if (reader.over_budget) {
				ret = -EAGAIN;
				goto out;
			}
			set_error_message(message, &reader, format, err);
			ret = error_to_errno(&reader, err);
			goto out;
		}
		data[len] = '\0';
		*xmp = data;
		*size = len;
		break;
	}
	if (*xmp == NULL) {
		veil_message_set(message, "the %s file has no XMP metadata", format);
		ret = -ENOENT;
	}

out:
	close_primary(ctx, handle);
	return ret;
}
