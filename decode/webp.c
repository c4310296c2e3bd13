#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include "decode/colour.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * WebP through libwebp, which decodes straight to premultiplied B, G, R, A (MODE_bgrA). A still
 * whose header declares no alpha (VP8L's alpha hint, VP8X's flag) is opaque, as dwebp and
 * ImageMagick show it: a lossless stream may still decode to some alpha below 255 (an
 * out-of-range palette index is transparent black), which is dropped, the colours kept as they
 * are (MODE_BGRA, alpha set to 255). An animated WebP shows its first frame, composited on its
 * canvas by libwebpdemux's animation decoder (the image says how many frames it has: the status
 * says it is the first of them), until veil plays animations. libwebp gives no orientation: an
 * EXIF chunk's is ignored.
 */

/* RIFF header (12) and the first chunk's header and the bytes libwebp needs for the size. */
#define HEADER_LEN 64
/* A 16384x8192 lossless WebP of noise is about this large; larger files are not pictures. */
#define MAX_FILE_SIZE (512u * 1024 * 1024)

static uint32_t read_le32(const uint8_t *p) {
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int status_to_errno(VP8StatusCode status) {
	switch (status) {
	case VP8_STATUS_OUT_OF_MEMORY:
		return -ENOMEM;
	case VP8_STATUS_UNSUPPORTED_FEATURE:
		return -ENOTSUP;
	default:
		return -EINVAL;
	}
}

static void set_status_message(char **message, VP8StatusCode status) {
	switch (status) {
	case VP8_STATUS_OUT_OF_MEMORY:
		veil_message_set(message, "out of memory decoding the WebP file");
		break;
	case VP8_STATUS_UNSUPPORTED_FEATURE:
		veil_message_set(message, "WebP file uses a feature libwebp does not support");
		break;
	case VP8_STATUS_NOT_ENOUGH_DATA:
		veil_message_set(message, "WebP file is truncated");
		break;
	default:
		veil_message_set(message, "corrupt WebP file (libwebp status %d)", (int)status);
		break;
	}
}

/*
 * The header's promises: the RIFF size against the file's (a file cut short is known at once),
 * then libwebp's reading of the canvas size and features.
 */
static int check_header(const uint8_t *head, size_t len, uint64_t file_size,
		WebPBitstreamFeatures *features, char **message) {
	if (len < 12 || memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WEBP", 4) != 0) {
		veil_message_set(message, "not a WebP file");
		return -ENOTSUP;
	}
	uint64_t riff_size = (uint64_t)read_le32(head + 4) + 8;
	if (riff_size > file_size) {
		veil_message_set(message, "WebP file is truncated: its header says %" PRIu64
			" bytes, the file has %" PRIu64, riff_size, file_size);
		return -EINVAL;
	}
	VP8StatusCode status = WebPGetFeatures(head, len, features);
	if (status != VP8_STATUS_OK) {
		set_status_message(message, status);
		return status_to_errno(status);
	}
	return veil_image_check_size((uint64_t)features->width, (uint64_t)features->height,
		"WebP image", message);
}

int veil_webp_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	uint8_t head[HEADER_LEN];
	ssize_t n = veil_read_at_message(fd, head, sizeof(head), 0, message);
	if (n < 0) {
		return (int)n;
	}
	WebPBitstreamFeatures features;
	return check_header(head, (size_t)n, (uint64_t)st.st_size, &features, message);
}

/* The first frame of an animation, on its canvas (the frame may cover only part of it). */
static int load_first_frame(const uint8_t *data, size_t len, uint8_t *pixels, int width,
		int height, int *frames, char **message) {
	WebPAnimDecoderOptions options;
	if (!WebPAnimDecoderOptionsInit(&options)) {
		veil_message_set(message, "libwebp's animation decoder is not the one veil was built "
			"with");
		return -ENOTSUP;
	}
	options.color_mode = MODE_bgrA;
	options.use_threads = 0;
	WebPData webp_data = { .bytes = data, .size = len };
	WebPAnimDecoder *dec = WebPAnimDecoderNew(&webp_data, &options);
	if (dec == NULL) {
		veil_message_set(message, "corrupt or truncated animated WebP file");
		return -EINVAL;
	}
	int ret = 0;
	WebPAnimInfo info;
	uint8_t *frame;
	int timestamp;
	if (!WebPAnimDecoderGetInfo(dec, &info) || (int)info.canvas_width != width ||
			(int)info.canvas_height != height) {
		veil_message_set(message, "corrupt animated WebP file: its canvas changed size");
		ret = -EINVAL;
	} else if (!WebPAnimDecoderGetNext(dec, &frame, &timestamp)) {
		veil_message_set(message, "corrupt or truncated animated WebP file: its first frame "
			"does not decode");
		ret = -EINVAL;
	} else {
		memcpy(pixels, frame, (size_t)width * (size_t)height * 4);
		*frames = info.frame_count > INT32_MAX ? INT32_MAX : (int)info.frame_count;
	}
	WebPAnimDecoderDelete(dec);
	return ret;
}

/* Straight B, G, R, A pixels made opaque: the alpha libwebp gives dropped, as dwebp's RGB does. */
static void drop_alpha(uint8_t *pixels, int width, int height, size_t stride) {
	for (int y = 0; y < height; y++) {
		uint8_t *row = pixels + (size_t)y * stride;
		for (int x = 0; x < width; x++) {
			row[4 * x + 3] = 0xff;
		}
	}
}

/* The ICCP chunk of an extended WebP, through libwebpdemux. false when out of memory. */
static bool read_colour(const uint8_t *data, size_t len, struct veil_image_colour *colour) {
	WebPData webp_data = { .bytes = data, .size = len };
	WebPDemuxer *demux = WebPDemux(&webp_data);
	if (demux == NULL) {
		return true;
	}
	bool ok = true;
	WebPChunkIterator chunk;
	if ((WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG) != 0 &&
			WebPDemuxGetChunk(demux, "ICCP", 1, &chunk)) {
		ok = veil_colour_set_icc(colour, chunk.chunk.bytes, chunk.chunk.size);
		WebPDemuxReleaseChunkIterator(&chunk);
	}
	WebPDemuxDelete(demux);
	return ok;
}

int veil_webp_load(int fd, struct veil_image *image, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	uint8_t *data;
	size_t len;
	int ret = veil_still_read_file(fd, MAX_FILE_SIZE, "WebP file", &data, &len, message);
	if (ret < 0) {
		return ret;
	}
	uint8_t *pixels = NULL;
	WebPBitstreamFeatures features;
	ret = check_header(data, len, len, &features, message);
	if (ret < 0) {
		goto out;
	}
	int width = features.width, height = features.height;
	size_t stride = (size_t)width * 4;
	pixels = veil_pixels_alloc(stride * (size_t)height);
	if (pixels == NULL) {
		veil_message_set(message, "out of memory for a %dx%d image", width, height);
		ret = -ENOMEM;
		goto out;
	}
	int frames = 1;
	if (features.has_animation) {
		ret = load_first_frame(data, len, pixels, width, height, &frames, message);
		if (ret < 0) {
			goto out;
		}
	} else {
		WebPDecoderConfig config;
		if (!WebPInitDecoderConfig(&config)) {
			veil_message_set(message, "libwebp is not the one veil was built with");
			ret = -ENOTSUP;
			goto out;
		}
		config.output.colorspace = features.has_alpha ? MODE_bgrA : MODE_BGRA;
		config.output.is_external_memory = 1;
		config.output.u.RGBA.rgba = pixels;
		config.output.u.RGBA.stride = (int)stride;
		config.output.u.RGBA.size = stride * (size_t)height;
		VP8StatusCode status = WebPDecode(data, len, &config);
		WebPFreeDecBuffer(&config.output);
		if (status != VP8_STATUS_OK) {
			set_status_message(message, status);
			ret = status_to_errno(status);
			goto out;
		}
		if (!features.has_alpha) {
			drop_alpha(pixels, width, height, stride);
		}
	}
	/*
	 * A still without alpha declared is opaque (made so above); an animation's canvas, or a
	 * still with alpha declared, is opaque if every pixel is.
	 */
	bool opaque = (!features.has_animation && !features.has_alpha) ||
		veil_still_opaque(pixels, width, height, (int)stride);
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = (int)stride,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = pixels,
		.frames = frames,
	};
	pixels = NULL;
	if (!read_colour(data, len, &image->colour)) {
		veil_image_finish(image);
		veil_message_set(message, "out of memory for the WebP file's colour profile");
		ret = -ENOMEM;
	}

out:
	veil_pixels_free(pixels);
	free(data);
	return ret;
}
