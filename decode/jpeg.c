#include <drm_fourcc.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/tag/tag.h>
#include <jerror.h>
#include <jpeglib.h>
#include <wlr/util/log.h>
#include "decode/colour.h"
#include "decode/gst.h"
#include "decode/image.h"
#include "decode/still.h"
#include "util/message.h"
#include "util/pixels.h"
#include "util/read.h"

/*
 * JPEG through libjpeg-turbo's own API: 8-bit, 12-bit and lossless (2 to 16 bits) files, grey,
 * YCbCr, RGB, CMYK and YCCK, baseline, progressive or arithmetic-coded; at a reduced size
 * through its DCT scaling (1/8 to 8/8) when the picture is to be shrunk to less than half.
 *
 * - CMYK (and YCCK, which libjpeg turns into CMYK) becomes RGB as ImageMagick makes it, with
 *   no profile: R = (1 - C)(1 - K) and so on. A file with Adobe's APP14 marker (Photoshop's,
 *   and every CMYK file libjpeg writes) holds its inks inverted (255 is no ink). Its ICC
 *   profile is a CMYK one and is not handed on.
 * - The ICC profile of the others is read as for GStreamer's JPEGs (decode/colour.c).
 * - EXIF's orientation is read by GStreamer's EXIF reader (as jpegparse does for the
 *   GStreamer path), and the pixels are turned after decoding.
 * - Corrupt data libjpeg-turbo decodes through (bad Huffman codes, extraneous bytes, a broken
 *   progression) is shown as decoded, as the JPEG suites' reference pictures have it; a file
 *   that ends inside its picture's data is refused as truncated (libjpeg would make the rest
 *   grey), one that lacks only its end marker is shown.
 */

/* Reads of the file while decoding; the header check reads 1 KiB at a time. */
#define READ_BLOCK (64 * 1024)
#define CHECK_BLOCK 1024
/*
 * The bytes the header check may read: its tables and frame header, and a block after each
 * marker it skips unread (EXIF, an ICC profile's segments: 255 at most).
 */
#define CHECK_BUDGET (1024 * 1024)
/* A progressive file of more scans than this is refused: each scan passes over the picture. */
#define MAX_SCANS 1000
/* A reduced decode makes at least this many times what the shrink keeps (choose_scale). */
#define COVER_MARGIN 2
/* libjpeg's own memory: a 16384x8192 progressive 4:4:4 picture's coefficients need 768 MiB. */
#define MAX_MEMORY (1024L * 1024 * 1024)

struct jpeg_source {
	struct jpeg_source_mgr pub;
	int fd;
	off_t offset; /* of the byte after those in buffer */
	off_t budget; /* the bytes that may be read, 0: any */
	off_t read;
	JOCTET *buffer;
	size_t size;
};

struct jpeg {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr err;
	struct jpeg_progress_mgr progress;
	struct jpeg_source src;
	jmp_buf jump;
	char error[JMSG_LENGTH_MAX];
	bool own_error; /* error is veil's whole sentence, not libjpeg's */
	char warning[JMSG_LENGTH_MAX]; /* the first one */
	int warnings;
	bool eof; /* the file ended before its end marker */
	bool truncated; /* ... inside its picture's data */
	int read_errno;
};

static void error_exit(j_common_ptr cinfo) {
	struct jpeg *jpeg = (struct jpeg *)cinfo;
	if (jpeg->error[0] == '\0') {
		cinfo->err->format_message(cinfo, jpeg->error);
	}
	longjmp(jpeg->jump, 1);
}

static void emit_message(j_common_ptr cinfo, int level) {
	struct jpeg *jpeg = (struct jpeg *)cinfo;
	if (level >= 0) {
		return; /* trace messages */
	}
	/*
	 * The file ended (libjpeg then reads an end marker made up), and the entropy decoder
	 * found its data cut short: the picture's rest would be grey. A file that lacks only its
	 * end marker (or a progressive file cut between two scans) gives no second warning.
	 */
	if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
		jpeg->eof = true;
	} else if (cinfo->err->msg_code == JWRN_HIT_MARKER && jpeg->eof) {
		jpeg->truncated = true;
	}
	if (jpeg->warnings++ == 0) {
		cinfo->err->format_message(cinfo, jpeg->warning);
	}
}

static void fail(struct jpeg *jpeg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct jpeg *jpeg, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	vsnprintf(jpeg->error, sizeof(jpeg->error), fmt, args);
	va_end(args);
	jpeg->own_error = true;
	longjmp(jpeg->jump, 1);
}

static void init_source(j_decompress_ptr cinfo) {
	(void)cinfo;
}

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
	struct jpeg *jpeg = (struct jpeg *)cinfo;
	struct jpeg_source *src = &jpeg->src;
	size_t want = src->size;
	if (src->budget > 0) {
		if (src->read >= src->budget) {
			fail(jpeg, "JPEG file's header is longer than veil reads (%jd bytes)",
				(intmax_t)src->budget);
		}
		if ((off_t)want > src->budget - src->read) {
			want = (size_t)(src->budget - src->read);
		}
	}
	ssize_t n = veil_read_at(src->fd, src->buffer, want, src->offset);
	if (n < 0) {
		jpeg->read_errno = (int)-n;
		fail(jpeg, "cannot read the file: %s", strerror((int)-n));
	}
	if (n == 0) {
		/* As libjpeg's own sources do: a warning, and an end of image made up. */
		WARNMS(cinfo, JWRN_JPEG_EOF);
		src->buffer[0] = 0xff;
		src->buffer[1] = JPEG_EOI;
		n = 2;
	} else {
		src->offset += n;
		src->read += n;
	}
	src->pub.next_input_byte = src->buffer;
	src->pub.bytes_in_buffer = (size_t)n;
	return TRUE;
}

/* Markers libjpeg does not read (EXIF, ICC profiles, comments) are skipped unread. */
static void skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
	struct jpeg_source_mgr *pub = cinfo->src;
	if (num_bytes <= 0) {
		return;
	}
	if ((size_t)num_bytes <= pub->bytes_in_buffer) {
		pub->next_input_byte += num_bytes;
		pub->bytes_in_buffer -= (size_t)num_bytes;
		return;
	}
	struct jpeg *jpeg = (struct jpeg *)cinfo;
	jpeg->src.offset += (off_t)((size_t)num_bytes - pub->bytes_in_buffer);
	pub->bytes_in_buffer = 0;
}

static void term_source(j_decompress_ptr cinfo) {
	(void)cinfo;
}

static void progress(j_common_ptr cinfo) {
	struct jpeg *jpeg = (struct jpeg *)cinfo;
	if (jpeg->cinfo.input_scan_number > MAX_SCANS) {
		fail(jpeg, "JPEG file has more than %d scans", MAX_SCANS);
	}
}

/*
 * Sets up jpeg (zeroed by the caller) to read fd; false without memory. Call inside the
 * setjmp() of jpeg->jump.
 */
static bool jpeg_init(struct jpeg *jpeg, int fd, size_t block, off_t budget) {
	jpeg->cinfo.err = jpeg_std_error(&jpeg->err);
	jpeg->err.error_exit = error_exit;
	jpeg->err.emit_message = emit_message;
	jpeg_create_decompress(&jpeg->cinfo);
	jpeg->cinfo.mem->max_memory_to_use = MAX_MEMORY;
	jpeg->progress.progress_monitor = progress;
	jpeg->cinfo.progress = &jpeg->progress;
	jpeg->src.buffer = malloc(block);
	if (jpeg->src.buffer == NULL) {
		return false;
	}
	jpeg->src.size = block;
	jpeg->src.fd = fd;
	jpeg->src.budget = budget;
	jpeg->src.pub.init_source = init_source;
	jpeg->src.pub.fill_input_buffer = fill_input_buffer;
	jpeg->src.pub.skip_input_data = skip_input_data;
	jpeg->src.pub.resync_to_restart = jpeg_resync_to_restart;
	jpeg->src.pub.term_source = term_source;
	jpeg->cinfo.src = &jpeg->src.pub;
	return true;
}

static void jpeg_finish(struct jpeg *jpeg) {
	jpeg_destroy_decompress(&jpeg->cinfo);
	free(jpeg->src.buffer);
	jpeg->src.buffer = NULL;
}

/* What libjpeg said, as the end of a sentence; file's bytes it quotes kept valid UTF-8. */
static void set_error(struct jpeg *jpeg, char **message) {
	if (jpeg->own_error) {
		veil_message_set(message, "%s", jpeg->error);
	} else if (jpeg->truncated) {
		veil_message_set(message, "JPEG file is truncated: its data ends before its "
			"picture does");
	} else if (jpeg->eof) {
		veil_message_set(message, "JPEG file is truncated (%s)", jpeg->error);
	} else {
		veil_message_set(message, "corrupt JPEG file: %s", jpeg->error);
	}
	if (message != NULL && *message != NULL) {
		veil_message_sanitize(*message);
	}
}

static int error_errno(const struct jpeg *jpeg) {
	if (jpeg->read_errno != 0) {
		return -jpeg->read_errno;
	}
	if (jpeg->err.msg_code == JERR_OUT_OF_MEMORY) {
		return -ENOMEM;
	}
	return -EINVAL;
}

int veil_jpeg_check(int fd, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	struct jpeg *jpeg = calloc(1, sizeof(*jpeg));
	if (jpeg == NULL) {
		veil_message_set(message, "out of memory reading a JPEG header");
		return -ENOMEM;
	}
	int ret = 0;
	if (setjmp(jpeg->jump) != 0) {
		set_error(jpeg, message);
		ret = error_errno(jpeg);
		goto out;
	}
	if (!jpeg_init(jpeg, fd, CHECK_BLOCK, CHECK_BUDGET)) {
		veil_message_set(message, "out of memory reading a JPEG header");
		ret = -ENOMEM;
		goto out;
	}
	jpeg_read_header(&jpeg->cinfo, TRUE);
	if (jpeg->eof) {
		veil_message_set(message, "JPEG file is truncated in its header");
		ret = -EINVAL;
		goto out;
	}
	ret = veil_image_check_size(jpeg->cinfo.image_width, jpeg->cinfo.image_height,
		"JPEG image", message);

out:
	jpeg_finish(jpeg);
	free(jpeg);
	return ret;
}

/*
 * EXIF's orientation as a horizontal flip, then clockwise quarter turns (GStreamer's
 * "flip-rotate-90" and the like): from the first APP1 "Exif" marker saved.
 */
static void read_orientation(j_decompress_ptr cinfo, bool *flip, int *turns) {
	*flip = false;
	*turns = 0;
	const jpeg_saved_marker_ptr first = cinfo->marker_list;
	for (jpeg_saved_marker_ptr m = first; m != NULL; m = m->next) {
		if (m->marker != JPEG_APP0 + 1 || m->data_length < 14 ||
				memcmp(m->data, "Exif\0\0", 6) != 0) {
			continue;
		}
		if (veil_gst_init(NULL) < 0) {
			return;
		}
		gst_tag_register_musicbrainz_tags(); /* registers libgsttag's tags */
		GstBuffer *buf = gst_buffer_new_memdup(m->data + 6, m->data_length - 6);
		GstTagList *tags = gst_tag_list_from_exif_buffer_with_tiff_header(buf);
		gst_buffer_unref(buf);
		gchar *value = NULL;
		if (tags != NULL && gst_tag_list_get_string(tags, GST_TAG_IMAGE_ORIENTATION,
				&value)) {
			const char *turn = value;
			if (strncmp(turn, "flip-", 5) == 0) {
				*flip = true;
				turn += 5;
			}
			int degrees = 0;
			if (sscanf(turn, "rotate-%d", &degrees) == 1 && degrees % 90 == 0 &&
					degrees >= 0 && degrees < 360) {
				*turns = degrees / 90;
			} else {
				*flip = false;
			}
		}
		g_free(value);
		if (tags != NULL) {
			gst_tag_list_unref(tags);
		}
		return;
	}
}

/*
 * The w x h picture turned: flipped horizontally when flip, then turned clockwise turns
 * quarters. A new block of veil_pixels_alloc(), or NULL without memory.
 */
static uint32_t *orient(const uint32_t *src, int w, int h, bool flip, int turns) {
	uint32_t *dst = veil_pixels_alloc((size_t)w * (size_t)h * 4);
	if (dst == NULL) {
		return NULL;
	}
	int dw = turns % 2 == 0 ? w : h;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			int fx = flip ? w - 1 - x : x;
			int dx, dy;
			switch (turns) {
			case 1:
				dx = h - 1 - y;
				dy = fx;
				break;
			case 2:
				dx = w - 1 - fx;
				dy = h - 1 - y;
				break;
			case 3:
				dx = y;
				dy = w - 1 - fx;
				break;
			default:
				dx = fx;
				dy = y;
				break;
			}
			dst[(size_t)dy * (size_t)dw + (size_t)dx] =
				src[(size_t)y * (size_t)w + (size_t)x];
		}
	}
	return dst;
}

/* One row of samples of any precision to 8 bits, B, G, R, 255. */
struct row_format {
	int components; /* 1 grey, 3 RGB, 4 CMYK */
	int precision; /* bits of a sample */
	bool inverted; /* CMYK inks stored as Adobe's (255: none) */
};

static inline unsigned sample8(const void *row, int i, int precision) {
	if (precision <= 8) {
		unsigned v = ((const JSAMPLE *)row)[i];
		unsigned max = (1u << precision) - 1;
		return precision == 8 ? v : (v * 255 + max / 2) / max;
	}
	unsigned v = precision <= 12 ? (unsigned)((const J12SAMPLE *)row)[i] :
		(unsigned)((const J16SAMPLE *)row)[i];
	unsigned max = (1u << precision) - 1;
	return (v * 255 + max / 2) / max;
}

static void convert_row(const struct row_format *f, const void *row, uint8_t *out, int width) {
	for (int x = 0; x < width; x++, out += 4) {
		int i = x * f->components;
		if (f->components == 1) {
			out[0] = out[1] = out[2] = (uint8_t)sample8(row, i, f->precision);
		} else if (f->components == 3) {
			out[2] = (uint8_t)sample8(row, i, f->precision);
			out[1] = (uint8_t)sample8(row, i + 1, f->precision);
			out[0] = (uint8_t)sample8(row, i + 2, f->precision);
		} else {
			unsigned k = sample8(row, i + 3, f->precision);
			k = f->inverted ? k : 255 - k;
			for (int c = 0; c < 3; c++) {
				unsigned v = sample8(row, i + c, f->precision);
				v = f->inverted ? v : 255 - v;
				out[2 - c] = (uint8_t)((v * k + 127) / 255);
			}
		}
		out[3] = 0xff;
	}
}

/*
 * The DCT scale (n/8) whose picture is the smallest that is twice what the shrink to
 * cover_width x cover_height keeps of the file's (its size as shown: turned when turned).
 * Whether it is less than 8/8. Twice: libjpeg's scaling keeps the lowest n x n coefficients of
 * each 8x8 block, which lets through detail from above its limit (aliasing); the Lanczos
 * shrink that follows removes what is left of it. A 6000x4000 picture for 1920x1080 is then
 * decoded at 6/8: a zone plate 48.5 dB against ImageMagick's Lanczos fill (whole: 51.2; at the
 * smallest scale that covers, 3/8: 27.1), a photo-like texture 51.0 (51.2; 46.2), for 0.55 of
 * the whole decode's time (docs/scaling.md).
 */
static bool choose_scale(j_decompress_ptr cinfo, int cover_width, int cover_height,
		bool turned) {
	int w = (int)cinfo->image_width, h = (int)cinfo->image_height;
	int keep_w, keep_h;
	if (cover_width <= 0 || cover_height <= 0 || !veil_image_cover_size(turned ? h : w,
			turned ? w : h, cover_width, cover_height, &keep_w, &keep_h)) {
		return false;
	}
	if (turned) {
		int t = keep_w;
		keep_w = keep_h;
		keep_h = t;
	}
	for (unsigned n = 1; n <= 8; n++) {
		cinfo->scale_num = n;
		cinfo->scale_denom = 8;
		jpeg_calc_output_dimensions(cinfo);
		if ((int)cinfo->output_width >= COVER_MARGIN * keep_w &&
				(int)cinfo->output_height >= COVER_MARGIN * keep_h) {
			return n < 8;
		}
	}
	cinfo->scale_num = 1;
	cinfo->scale_denom = 1;
	return false;
}

/*
 * Whether libjpeg refused what was asked of it (an IDCT size, a combination of features) rather
 * than the file's data: the one kind of failure a decode at another scale may not meet. Errors
 * of the markers or the entropy-coded data do not depend on the scale (the scale changes only
 * the inverse DCT and what follows it) and would come again, after as much work, in a whole
 * decode.
 */
static bool refused_request(const struct jpeg *jpeg) {
	switch (jpeg->err.msg_code) {
	case JERR_BAD_DCTSIZE:
	case JERR_NOTIMPL:
	case JERR_NOT_COMPILED:
	case JERR_CONVERSION_NOTIMPL:
		return !jpeg->own_error && jpeg->read_errno == 0;
	default:
		return false;
	}
}

/*
 * *retry_whole: the decode was at a reduced scale and failed in a way a whole decode might not
 * (refused_request()).
 */
static int decode(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, bool *retry_whole, char **message) {
	*retry_whole = false;
	/* Set once the scale is chosen: a failure after it may be the scale's. */
	volatile bool scaled = false;
	struct jpeg *jpeg = calloc(1, sizeof(*jpeg));
	if (jpeg == NULL) {
		veil_message_set(message, "out of memory decoding a JPEG file");
		return -ENOMEM;
	}
	/* What the jump back may free: volatile, as setjmp() wants. */
	uint8_t *volatile pixels = NULL;
	void *volatile row = NULL;
	int ret = 0;
	if (setjmp(jpeg->jump) != 0) {
		set_error(jpeg, message);
		ret = error_errno(jpeg);
		*retry_whole = scaled && refused_request(jpeg);
		goto out;
	}
	if (!jpeg_init(jpeg, fd, READ_BLOCK, 0)) {
		veil_message_set(message, "out of memory decoding a JPEG file");
		ret = -ENOMEM;
		goto out;
	}
	j_decompress_ptr cinfo = &jpeg->cinfo;
	jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
	jpeg_read_header(cinfo, TRUE);
	ret = veil_image_check_size(cinfo->image_width, cinfo->image_height, "JPEG image",
		message);
	if (ret < 0) {
		goto out;
	}
	bool flip;
	int turns;
	read_orientation(cinfo, &flip, &turns);

	struct row_format format = {
		.precision = cinfo->data_precision,
		.inverted = cinfo->saw_Adobe_marker,
	};
	bool cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
	/* 8-bit grey, YCbCr and RGB straight into the pixels, as B, G, R, 255. */
	bool direct = format.precision == 8 && !cmyk;
	if (direct) {
		cinfo->out_color_space = JCS_EXT_BGRA;
	} else if (cmyk) {
		cinfo->out_color_space = JCS_CMYK;
		format.components = 4;
	} else if (cinfo->jpeg_color_space == JCS_GRAYSCALE) {
		cinfo->out_color_space = JCS_GRAYSCALE;
		format.components = 1;
	} else {
		cinfo->out_color_space = JCS_RGB;
		format.components = 3;
	}
	scaled = choose_scale(cinfo, cover_width, cover_height, turns % 2 == 1);
	jpeg_start_decompress(cinfo);
	int width = (int)cinfo->output_width, height = (int)cinfo->output_height;
	size_t stride = (size_t)width * 4;
	pixels = veil_pixels_alloc(stride * (size_t)height);
	if (pixels == NULL) {
		veil_message_set(message, "out of memory for a %dx%d image", width, height);
		ret = -ENOMEM;
		goto out;
	}
	if (!direct) {
		size_t bytes = format.precision <= 8 ? 1 : 2;
		row = malloc((size_t)width * (size_t)format.components * bytes);
		if (row == NULL) {
			veil_message_set(message, "out of memory for a %dx%d image", width, height);
			ret = -ENOMEM;
			goto out;
		}
	}
	while (cinfo->output_scanline < cinfo->output_height) {
		uint8_t *out = pixels + (size_t)cinfo->output_scanline * stride;
		JDIMENSION got;
		if (direct) {
			JSAMPROW rows[1] = { out };
			got = jpeg_read_scanlines(cinfo, rows, 1);
		} else if (format.precision <= 8) {
			JSAMPROW rows[1] = { row };
			got = jpeg_read_scanlines(cinfo, rows, 1);
		} else if (format.precision <= 12) {
			J12SAMPROW rows[1] = { row };
			got = jpeg12_read_scanlines(cinfo, rows, 1);
		} else {
			J16SAMPROW rows[1] = { row };
			got = jpeg16_read_scanlines(cinfo, rows, 1);
		}
		if (got == 0) {
			break;
		}
		if (!direct) {
			convert_row(&format, row, out, width);
		}
	}
	if (!jpeg->truncated) {
		jpeg_finish_decompress(cinfo);
	}
	if (jpeg->truncated) {
		set_error(jpeg, message);
		ret = -EINVAL;
		goto out;
	}
	if (jpeg->warnings > 0) {
		char *warning = veil_message("%s", jpeg->warning);
		wlr_log(WLR_INFO, "veil: JPEG file with %d warnings, shown as decoded: %s",
			jpeg->warnings, warning != NULL ? veil_message_sanitize(warning) : "");
		free(warning);
	}
	if (flip || turns != 0) {
		uint32_t *turned = orient((const uint32_t *)pixels, width, height, flip, turns);
		if (turned == NULL) {
			veil_message_set(message, "out of memory for a %dx%d image", width, height);
			ret = -ENOMEM;
			goto out;
		}
		veil_pixels_free(pixels);
		pixels = (uint8_t *)turned;
		if (turns % 2 == 1) {
			int t = width;
			width = height;
			height = t;
			stride = (size_t)width * 4;
		}
	}
	*file_width = (int)(turns % 2 == 1 ? cinfo->image_height : cinfo->image_width);
	*file_height = (int)(turns % 2 == 1 ? cinfo->image_width : cinfo->image_height);
	*image = (struct veil_image){
		.width = width,
		.height = height,
		.stride = (int)stride,
		.drm_format = DRM_FORMAT_XRGB8888,
		.data = pixels,
		.frames = 1,
	};
	pixels = NULL;
	/* A CMYK file's profile is a CMYK one: its pixels are RGB by now. */
	if (!cmyk && veil_colour_read_jpeg_icc(fd, &image->colour) == -ENOMEM) {
		veil_image_finish(image);
		veil_message_set(message, "out of memory for the JPEG file's colour profile");
		ret = -ENOMEM;
	}

out:
	veil_pixels_free(pixels);
	free(row);
	jpeg_finish(jpeg);
	free(jpeg);
	return ret;
}

int veil_jpeg_load(int fd, struct veil_image *image, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	int width, height;
	bool retry_whole;
	return decode(fd, 0, 0, image, &width, &height, &retry_whole, message);
}

int veil_jpeg_load_cover(int fd, int cover_width, int cover_height, struct veil_image *image,
		int *file_width, int *file_height, char **message) {
	if (message != NULL) {
		*message = NULL;
	}
	bool retry_whole;
	int ret = decode(fd, cover_width, cover_height, image, file_width, file_height,
		&retry_whole, message);
	if (ret < 0 && retry_whole) {
		/* libjpeg refused the reduced size: the whole decode is tried. */
		wlr_log(WLR_INFO, "veil: JPEG's DCT-scaled decode failed (%s), decoding it whole",
			message != NULL && *message != NULL ? *message : "no message");
		if (message != NULL) {
			free(*message);
			*message = NULL;
		}
		ret = decode(fd, 0, 0, image, file_width, file_height, &retry_whole, message);
	}
	return ret;
}
