#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <jxl/color_encoding.h>
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "decode/colour.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * JPEG XL through libjxl: bare codestreams and ISO BMFF containers alike, libjxl telling them
 * apart. libjxl writes R, G, B, A bytes straight into veil's block, turned as the file's
 * orientation says, which are then swapped and premultiplied in place; it decodes through
 * float planes of its own first (in_place false). An animation is played by anim_jxl.c; here,
 * as a still, it shows its first frame.
 */

/*
 * What the check reads first, and at most: the codestream's header, after any boxes a container
 * puts first.
 */
#define CHECK_FIRST 4096
#define CHECK_BUDGET (64 * 1024)
/* A 16384x8192 lossless JPEG XL of noise is about this large; larger files are not pictures. */
#define MAX_FILE_SIZE (512u * 1024 * 1024)
/* libjxl's threads beside the worker's own: the helper has few cores, the compositor's too. */
#define MAX_THREADS 2

static const JxlPixelFormat rgba8 = {
	.num_channels = 4,
	.data_type = JXL_TYPE_UINT8,
	.endianness = JXL_NATIVE_ENDIAN,
	.align = 0,
};

/* The size as shown: orientations 5 to 8 swap width and height. */
static void shown_size(const JxlBasicInfo *info, uint64_t *width, uint64_t *height) {
	bool swap = info->orientation >= JXL_ORIENT_TRANSPOSE;
	*width = swap ? info->ysize : info->xsize;
	*height = swap ? info->xsize : info->ysize;
}

static int check_info(JxlDecoder *dec, JxlBasicInfo *info, char **message) {
	if (JxlDecoderGetBasicInfo(dec, info) != JXL_DEC_SUCCESS) {
		veil_message_set(message, "corrupt JPEG XL file: libjxl cannot read its header");
		return -EINVAL;
	}
	uint64_t width, height;
	shown_size(info, &width, &height);
	return veil_image_check_size(width, height, "JPEG XL image", message);
}

/*
 * The first len bytes of a file of file_size bytes, up to the basic information (its size):
 * 0 with *info, -EAGAIN when the header goes on past those bytes, else a negative errno with a
 * sentence.
 */
static int read_info(const uint8_t *data, size_t len, uint64_t file_size, JxlBasicInfo *info,
		char **message) {
	JxlSignature signature = JxlSignatureCheck(data, len);
	if (signature == JXL_SIG_NOT_ENOUGH_BYTES) {
		veil_message_set(message, "JPEG XL file is truncated: %zu bytes", len);
		return -EINVAL;
	}
	if (signature != JXL_SIG_CODESTREAM && signature != JXL_SIG_CONTAINER) {
		veil_message_set(message, "not a JPEG XL file");
		return -ENOTSUP;
	}
	JxlDecoder *dec = JxlDecoderCreate(NULL);
	if (dec == NULL) {
		veil_message_set(message, "out of memory for libjxl's decoder");
		return -ENOMEM;
	}
	int ret;
	if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO) != JXL_DEC_SUCCESS ||
			JxlDecoderSetInput(dec, data, len) != JXL_DEC_SUCCESS) {
		veil_message_set(message, "libjxl's decoder refused veil's settings");
		ret = -ENOTSUP;
		goto out;
	}
	switch (JxlDecoderProcessInput(dec)) {
	case JXL_DEC_BASIC_INFO:
		ret = check_info(dec, info, message);
		break;
	case JXL_DEC_NEED_MORE_INPUT:
		if (len < file_size) {
			ret = -EAGAIN;
			break;
		}
		veil_message_set(message, "JPEG XL file is truncated: its %" PRIu64 " bytes end "
			"inside its header", file_size);
		ret = -EINVAL;
		break;
	default:
		veil_message_set(message, "corrupt JPEG XL file: libjxl cannot read its header");
		ret = -EINVAL;
		break;
	}
out:
	JxlDecoderDestroy(dec);
	return ret;
}

int veil_jxl_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct stat st;
	int ret = veil_read_stat(fd, &st, message);
	if (ret < 0) {
		return ret;
	}
	uint8_t *head = malloc(CHECK_BUDGET);
	if (head == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	/* The first bytes hold the header (54 in GNOME's files); boxes before it need more. */
	static const size_t reads[] = { CHECK_FIRST, CHECK_BUDGET };
	ret = -EAGAIN;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]) && ret == -EAGAIN; i++) {
		ssize_t n = veil_read_at_message(fd, head, reads[i], 0, message);
		if (n < 0) {
			ret = (int)n;
			break;
		}
		JxlBasicInfo info;
		ret = read_info(head, (size_t)n, (uint64_t)st.st_size, &info, message);
	}
	free(head);
	/* A header past the budget (large boxes first): the worker reads it, and decides. */
	return ret == -EAGAIN ? 0 : ret;
}

/*
 * A colour encoding as CICP code points (H.273), where colour.c has a name for it; false for
 * the others (custom primaries or white, other curves), which go as libjxl's ICC profile.
 */
static bool encoding_to_cicp(const JxlColorEncoding *enc, struct veil_image_colour *colour) {
	if ((enc->color_space != JXL_COLOR_SPACE_RGB && enc->color_space != JXL_COLOR_SPACE_GRAY) ||
			enc->rendering_intent > JXL_RENDERING_INTENT_ABSOLUTE) {
		return false;
	}
	uint8_t primaries;
	if (enc->color_space == JXL_COLOR_SPACE_GRAY) {
		/* Grey has no primaries: its white and curve are all there is. */
		primaries = enc->white_point == JXL_WHITE_POINT_D65 ? 1 : 0;
	} else if (enc->primaries == JXL_PRIMARIES_P3) {
		primaries = enc->white_point == JXL_WHITE_POINT_D65 ? 12 :
			enc->white_point == JXL_WHITE_POINT_DCI ? 11 : 0;
	} else if (enc->white_point != JXL_WHITE_POINT_D65) {
		primaries = 0;
	} else if (enc->primaries == JXL_PRIMARIES_SRGB) {
		primaries = 1;
	} else if (enc->primaries == JXL_PRIMARIES_2100) {
		primaries = 9;
	} else {
		primaries = 0;
	}
	uint8_t transfer;
	switch (enc->transfer_function) {
	case JXL_TRANSFER_FUNCTION_709:
		transfer = 1;
		break;
	case JXL_TRANSFER_FUNCTION_LINEAR:
		transfer = 8;
		break;
	case JXL_TRANSFER_FUNCTION_SRGB:
		transfer = 13;
		break;
	case JXL_TRANSFER_FUNCTION_PQ:
		transfer = 16;
		break;
	case JXL_TRANSFER_FUNCTION_HLG:
		transfer = 18;
		break;
	case JXL_TRANSFER_FUNCTION_GAMMA:
		/* gamma is the encoding's exponent: 1/2.2 and 1/2.8 have code points. */
		transfer = fabs(enc->gamma - 1 / 2.2) < 1e-4 ? 4 :
			fabs(enc->gamma - 1 / 2.8) < 1e-4 ? 5 : 0;
		break;
	default:
		transfer = 0;
		break;
	}
	if (primaries == 0 || transfer == 0) {
		return false;
	}
	colour->has_cicp = true;
	colour->cicp_primaries = primaries;
	colour->cicp_transfer = transfer;
	colour->cicp_matrix = 0; /* RGB */
	return true;
}

/*
 * The colour the pixels come in, at the colour encoding event. An XYB picture (lossy) may be
 * decoded into any space: into its original's, with sRGB's curve rather than a linear or
 * gamma one (8 bits would band), PQ and HLG kept for the renderer; into sRGB when the original
 * is an ICC profile (libjxl converts XYB itself, with no colour management of its own). The
 * others come as stored. Then what they are in, as colour.c reads it: CICP code points where
 * they have them, else libjxl's ICC profile of the pixels (the file's own, or one libjxl writes
 * for the encoding). false when out of memory.
 */
static bool choose_colour(JxlDecoder *dec, const JxlBasicInfo *info,
		struct veil_image_colour *colour) {
	JxlColorEncoding enc;
	if (!info->uses_original_profile) {
		bool grey = info->num_color_channels == 1;
		if (JxlDecoderGetColorAsEncodedProfile(dec, JXL_COLOR_PROFILE_TARGET_ORIGINAL,
				&enc) != JXL_DEC_SUCCESS || enc.color_space == JXL_COLOR_SPACE_XYB ||
				enc.color_space == JXL_COLOR_SPACE_UNKNOWN) {
			enc = (JxlColorEncoding){
				.color_space = grey ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB,
				.white_point = JXL_WHITE_POINT_D65,
				.primaries = JXL_PRIMARIES_SRGB,
				.transfer_function = JXL_TRANSFER_FUNCTION_SRGB,
				.rendering_intent = JXL_RENDERING_INTENT_RELATIVE,
			};
		} else if (enc.transfer_function != JXL_TRANSFER_FUNCTION_PQ &&
				enc.transfer_function != JXL_TRANSFER_FUNCTION_HLG) {
			enc.transfer_function = JXL_TRANSFER_FUNCTION_SRGB;
		}
		/* Refused only for settings libjxl cannot make: the default output then. */
		JxlDecoderSetPreferredColorProfile(dec, &enc);
	}
	if (JxlDecoderGetColorAsEncodedProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, &enc) ==
			JXL_DEC_SUCCESS && encoding_to_cicp(&enc, colour)) {
		return true;
	}
	size_t len;
	if (JxlDecoderGetICCProfileSize(dec, JXL_COLOR_PROFILE_TARGET_DATA, &len) !=
			JXL_DEC_SUCCESS || len == 0) {
		return true; /* nothing said: sRGB */
	}
	if (len > VEIL_COLOUR_MAX_ICC) {
		colour->icc_len = len; /* refused, by its length alone */
		return true;
	}
	uint8_t *icc = malloc(len);
	if (icc == NULL) {
		return false;
	}
	if (JxlDecoderGetColorAsICCProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, icc, len) ==
			JXL_DEC_SUCCESS) {
		colour->icc = icc;
		colour->icc_len = len;
	} else {
		free(icc);
	}
	return true;
}

bool veil_jxl_to_bgra(uint8_t *pixels, size_t n) {
	bool opaque = true;
	for (size_t i = 0; i < n; i++, pixels += 4) {
		unsigned a = pixels[3];
		uint8_t r = pixels[0];
		if (a == 0xff) {
			pixels[0] = pixels[2];
			pixels[2] = r;
			continue;
		}
		opaque = false;
		pixels[0] = (uint8_t)((pixels[2] * a + 127) / 255);
		pixels[1] = (uint8_t)((pixels[1] * a + 127) / 255);
		pixels[2] = (uint8_t)((r * a + 127) / 255);
	}
	return opaque;
}

/* The whole decode of data, up to its first frame's picture, into *image. */
static int decode(JxlDecoder *dec, const uint8_t *data, size_t len, struct veil_image *image,
		char **message) {
	if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING |
			JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
			JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE) != JXL_DEC_SUCCESS ||
			JxlDecoderSetInput(dec, data, len) != JXL_DEC_SUCCESS) {
		veil_message_set(message, "libjxl's decoder refused veil's settings");
		return -ENOTSUP;
	}
	/*
	 * The input is not closed: libjxl asking for more then means the file ends too soon, which
	 * a closed input would have made an error like any other.
	 */
	JxlBasicInfo info = {0};
	struct veil_image_colour colour = {0};
	uint8_t *pixels = NULL;
	int width = 0, height = 0;
	int ret = 0;
	for (;;) {
		JxlDecoderStatus status = JxlDecoderProcessInput(dec);
		if (status == JXL_DEC_BASIC_INFO) {
			ret = check_info(dec, &info, message);
			if (ret < 0) {
				goto fail;
			}
			uint64_t w, h;
			shown_size(&info, &w, &h);
			width = (int)w;
			height = (int)h;
		} else if (status == JXL_DEC_COLOR_ENCODING) {
			if (!choose_colour(dec, &info, &colour)) {
				veil_message_set(message, "out of memory for the JPEG XL file's colour "
					"profile");
				ret = -ENOMEM;
				goto fail;
			}
		} else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
			size_t size = 0;
			size_t want = (size_t)width * (size_t)height * 4;
			if (JxlDecoderImageOutBufferSize(dec, &rgba8, &size) != JXL_DEC_SUCCESS ||
					size != want || pixels != NULL) {
				veil_message_set(message, "JPEG XL image decodes to a layout veil "
					"cannot take");
				ret = -EINVAL;
				goto fail;
			}
			pixels = veil_pixels_alloc(want);
			if (pixels == NULL) {
				veil_message_set(message, "out of memory for a %dx%d image", width,
					height);
				ret = -ENOMEM;
				goto fail;
			}
			if (JxlDecoderSetImageOutBuffer(dec, &rgba8, pixels, want) !=
					JXL_DEC_SUCCESS) {
				veil_message_set(message, "libjxl refused veil's pixel buffer");
				ret = -EINVAL;
				goto fail;
			}
		} else if (status == JXL_DEC_FULL_IMAGE) {
			break;
		} else if (status == JXL_DEC_NEED_MORE_INPUT) {
			veil_message_set(message, "JPEG XL file is truncated: its %zu bytes end "
				"before its %s", len, pixels != NULL ? "picture does" :
				"picture begins");
			ret = -EINVAL;
			goto fail;
		} else if (status == JXL_DEC_SUCCESS) {
			veil_message_set(message, "JPEG XL file has no picture");
			ret = -EINVAL;
			goto fail;
		} else {
			veil_message_set(message, "corrupt JPEG XL file: libjxl cannot decode %s",
				pixels != NULL ? "its picture" : "its first frame's header");
			ret = -EINVAL;
			goto fail;
		}
	}
	bool opaque = veil_jxl_to_bgra(pixels, (size_t)width * (size_t)height);
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = width * 4,
		.drm_format = opaque ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888,
		.data = pixels,
		.colour = colour,
	};
	return 0;

fail:
	veil_pixels_free(pixels);
	free(colour.icc);
	return ret;
}

int veil_jxl_load(int fd, struct veil_image *image, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	uint8_t *data;
	size_t len;
	int ret = veil_still_read_file(fd, MAX_FILE_SIZE, "JPEG XL file", &data, &len, message);
	if (ret < 0) {
		return ret;
	}
	JxlDecoder *dec = NULL;
	void *runner = NULL;
	/* The header alone first: a bomb's size is refused before libjxl allocates for it. */
	JxlBasicInfo info;
	ret = read_info(data, len, len, &info, message);
	if (ret < 0) {
		goto out;
	}
	dec = JxlDecoderCreate(NULL);
	size_t threads = JxlThreadParallelRunnerDefaultNumWorkerThreads();
	runner = JxlThreadParallelRunnerCreate(NULL, threads < MAX_THREADS ? threads :
		MAX_THREADS);
	if (dec == NULL || runner == NULL) {
		veil_message_set(message, "out of memory for libjxl's decoder");
		ret = -ENOMEM;
		goto out;
	}
	if (JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) !=
			JXL_DEC_SUCCESS) {
		veil_message_set(message, "libjxl's decoder refused its threads");
		ret = -ENOTSUP;
		goto out;
	}
	ret = decode(dec, data, len, image, message);

out:
	if (dec != NULL) {
		JxlDecoderDestroy(dec);
	}
	if (runner != NULL) {
		JxlThreadParallelRunnerDestroy(runner);
	}
	free(data);
	return ret;
}
