#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>
#include "decode/anim.h"
#include "util/image.h"
#include "util/message.h"

/*
 * Animated GIF through giflib's record-level reader, one frame at a time: only the canvas, the
 * copy DISPOSE_PREVIOUS needs and one frame's pixels are in memory, whatever the number of
 * frames. open() walks every record once without decoding pixels (DGifGetCodeNext skips the
 * LZW data) to count frames and find the NETSCAPE2.0 loop count; playing past the last frame
 * opens the file again. Frames are clipped to the canvas; disposal to background clears to
 * transparent, as browsers do; the loop count N is N repetitions after the first play.
 */

struct veil_anim_decoder {
	const uint8_t *data;
	size_t len, pos;
	GifFileType *gif;
	int width, height, frames;
	int index; /* of the next frame */
	uint8_t *canvas; /* premultiplied B, G, R, A */
	uint8_t *saved; /* the canvas before a DISPOSE_PREVIOUS frame */
	GifPixelType *line;
	int line_size;
	/* What the frame shown last leaves behind. */
	int disposal;
	int x, y, w, h;
};

static int read_memory(GifFileType *gif, GifByteType *buf, int n) {
	struct veil_anim_decoder *dec = gif->UserData;
	size_t left = dec->len - dec->pos;
	size_t take = n < 0 ? 0 : (size_t)n < left ? (size_t)n : left;
	memcpy(buf, dec->data + dec->pos, take);
	dec->pos += take;
	return (int)take;
}

static void close_gif(struct veil_anim_decoder *dec) {
	if (dec->gif != NULL) {
		int err;
		DGifCloseFile(dec->gif, &err);
		dec->gif = NULL;
	}
}

static int open_gif(struct veil_anim_decoder *dec, char **message) {
	close_gif(dec);
	dec->pos = 0;
	int err = 0;
	dec->gif = DGifOpen(dec, read_memory, &err);
	if (dec->gif == NULL) {
		veil_message_set(message, "not a GIF file giflib reads (%s)", GifErrorString(err));
		return -EINVAL;
	}
	return 0;
}

static int gif_error(struct veil_anim_decoder *dec, int frame, char **message) {
	const char *why = GifErrorString(dec->gif->Error);
	veil_message_set(message, "GIF file is truncated or corrupt at frame %d (giflib: %s)",
		frame, why != NULL ? why : "unknown error");
	return -EINVAL;
}

/* Skips the LZW data of the image whose descriptor was just read. */
static bool skip_image(GifFileType *gif) {
	int code_size;
	GifByteType *block;
	if (DGifGetCode(gif, &code_size, &block) != GIF_OK) {
		return false;
	}
	while (block != NULL) {
		if (DGifGetCodeNext(gif, &block) != GIF_OK) {
			return false;
		}
	}
	return true;
}

/*
 * Reads an extension's blocks; a graphics control block goes to gcb (when not NULL), a
 * NETSCAPE2.0 loop count to *loops (when not NULL).
 */
static bool read_extension(GifFileType *gif, GraphicsControlBlock *gcb, int *loops) {
	int code;
	GifByteType *ext;
	if (DGifGetExtension(gif, &code, &ext) != GIF_OK) {
		return false;
	}
	bool netscape = false;
	bool first = true;
	while (ext != NULL) {
		if (first && code == GRAPHICS_EXT_FUNC_CODE && gcb != NULL && ext[0] == 4) {
			DGifExtensionToGCB(ext[0], ext + 1, gcb);
		} else if (first && code == APPLICATION_EXT_FUNC_CODE && ext[0] >= 11) {
			netscape = memcmp(ext + 1, "NETSCAPE2.0", 11) == 0 ||
				memcmp(ext + 1, "ANIMEXTS1.0", 11) == 0;
		} else if (!first && netscape && loops != NULL && ext[0] >= 3 && ext[1] == 1) {
			*loops = ext[2] | ext[3] << 8;
		}
		first = false;
		if (DGifGetExtensionNext(gif, &ext) != GIF_OK) {
			return false;
		}
	}
	return true;
}

static void gif_destroy(struct veil_anim_decoder *dec) {
	if (dec == NULL) {
		return;
	}
	close_gif(dec);
	free(dec->canvas);
	free(dec->saved);
	free(dec->line);
	free(dec);
}

/* Every record once: the number of frames and the loop count. */
static int scan(struct veil_anim_decoder *dec, int *loops, char **message) {
	GifFileType *gif = dec->gif;
	*loops = -1;
	dec->frames = 0;
	while (true) {
		GifRecordType type;
		if (DGifGetRecordType(gif, &type) != GIF_OK) {
			return gif_error(dec, dec->frames + 1, message);
		}
		if (type == TERMINATE_RECORD_TYPE) {
			break;
		}
		if (type == EXTENSION_RECORD_TYPE) {
			if (!read_extension(gif, NULL, loops)) {
				return gif_error(dec, dec->frames + 1, message);
			}
		} else if (type == IMAGE_DESC_RECORD_TYPE) {
			if (DGifGetImageDesc(gif) != GIF_OK || !skip_image(gif)) {
				return gif_error(dec, dec->frames + 1, message);
			}
			if (++dec->frames > VEIL_ANIM_MAX_FRAMES) {
				veil_message_set(message, "GIF file has more than %d frames",
					VEIL_ANIM_MAX_FRAMES);
				return -EFBIG;
			}
			/* giflib keeps every descriptor it read: forget them as we go. */
			GifFreeSavedImages(gif);
			gif->ImageCount = 0;
		} else {
			return gif_error(dec, dec->frames + 1, message);
		}
	}
	if (dec->frames == 0) {
		veil_message_set(message, "GIF file has no frame");
		return -EINVAL;
	}
	return 0;
}

static int gif_open(const uint8_t *data, size_t len, struct veil_anim_decoder **out,
		struct veil_anim_info *info, char **message) {
	struct veil_anim_decoder *dec = calloc(1, sizeof(*dec));
	if (dec == NULL) {
		veil_message_set(message, "out of memory");
		return -ENOMEM;
	}
	dec->data = data;
	dec->len = len;
	int loops;
	int ret = open_gif(dec, message);
	if (ret < 0) {
		goto error;
	}
	dec->width = dec->gif->SWidth;
	dec->height = dec->gif->SHeight;
	if (dec->width <= 0 || dec->height <= 0) {
		veil_message_set(message, "GIF file has an empty canvas (%dx%d)", dec->width,
			dec->height);
		ret = -EINVAL;
		goto error;
	}
	ret = veil_image_check_size((uint64_t)dec->width, (uint64_t)dec->height, "GIF image",
		message);
	if (ret < 0) {
		goto error;
	}
	ret = scan(dec, &loops, message);
	if (ret < 0) {
		goto error;
	}
	ret = open_gif(dec, message);
	if (ret < 0) {
		goto error;
	}
	size_t canvas_size = (size_t)dec->width * (size_t)dec->height * 4;
	dec->canvas = calloc(1, canvas_size);
	if (dec->canvas == NULL) {
		veil_message_set(message, "out of memory for a %dx%d canvas", dec->width,
			dec->height);
		ret = -ENOMEM;
		goto error;
	}
	*info = (struct veil_anim_info){
		.width = dec->width,
		.height = dec->height,
		.frames = dec->frames,
		/* No loop extension: once. 0: for ever. N: N repetitions after the first play. */
		.plays = loops < 0 ? 1 : loops == 0 ? 0 : loops + 1,
	};
	*out = dec;
	return 0;

error:
	gif_destroy(dec);
	return ret;
}

/*
 * The frame's pixels (after its descriptor) straight onto the canvas, clipped to it: a GIF's
 * pixels are opaque or transparent (left as they are), so there is nothing to blend.
 */
static int read_pixels(struct veil_anim_decoder *dec, int transparent, char **message) {
	GifFileType *gif = dec->gif;
	const GifImageDesc *desc = &gif->Image;
	int w = desc->Width, h = desc->Height;
	const ColorMapObject *map = desc->ColorMap != NULL ? desc->ColorMap : gif->SColorMap;
	if (map == NULL || map->Colors == NULL) {
		veil_message_set(message, "GIF frame %d has no colour table", dec->index + 1);
		return -EINVAL;
	}
	if (dec->line_size < w) {
		GifPixelType *line = realloc(dec->line, (size_t)w);
		if (line == NULL) {
			veil_message_set(message, "out of memory for a %dx%d GIF frame", w, h);
			return -ENOMEM;
		}
		dec->line = line;
		dec->line_size = w;
	}
	/* The columns of the frame on the canvas: [x0, x1) of the line. */
	int x0 = desc->Left < dec->width ? 0 : w;
	int x1 = desc->Left < dec->width ? (dec->width - desc->Left < w ?
		dec->width - desc->Left : w) : w;
	static const int starts[] = { 0, 4, 2, 1 }, steps[] = { 8, 8, 4, 2 };
	int passes = desc->Interlace ? 4 : 1;
	for (int pass = 0; pass < passes; pass++) {
		int start = desc->Interlace ? starts[pass] : 0;
		int step = desc->Interlace ? steps[pass] : 1;
		for (int row = start; row < h; row += step) {
			if (DGifGetLine(gif, dec->line, w) != GIF_OK) {
				return gif_error(dec, dec->index + 1, message);
			}
			int y = desc->Top + row;
			if (y >= dec->height || x0 >= x1) {
				continue;
			}
			uint8_t *dst = dec->canvas + ((size_t)y * (size_t)dec->width +
				(size_t)desc->Left + (size_t)x0) * 4;
			for (int i = x0; i < x1; i++, dst += 4) {
				int c = dec->line[i];
				if (c == transparent) {
					continue;
				}
				if (c >= map->ColorCount) {
					/* Outside the table: transparent, as browsers show it. */
					dst[0] = dst[1] = dst[2] = dst[3] = 0;
					continue;
				}
				const GifColorType *rgb = &map->Colors[c];
				dst[0] = rgb->Blue;
				dst[1] = rgb->Green;
				dst[2] = rgb->Red;
				dst[3] = 255;
			}
		}
	}
	return 0;
}

static void dispose_previous_frame(struct veil_anim_decoder *dec) {
	size_t canvas_size = (size_t)dec->width * (size_t)dec->height * 4;
	switch (dec->disposal) {
	case DISPOSE_BACKGROUND:
		veil_anim_clear_rect(dec->canvas, dec->width, dec->height, dec->x, dec->y, dec->w,
			dec->h);
		break;
	case DISPOSE_PREVIOUS:
		if (dec->saved != NULL) {
			memcpy(dec->canvas, dec->saved, canvas_size);
		}
		break;
	default:
		break;
	}
	dec->disposal = DISPOSAL_UNSPECIFIED;
}

static int gif_next(struct veil_anim_decoder *dec, const uint8_t **canvas, int *delay_ms,
		int *index, char **message) {
	size_t canvas_size = (size_t)dec->width * (size_t)dec->height * 4;
	if (dec->index >= dec->frames) {
		int ret = open_gif(dec, message);
		if (ret < 0) {
			return ret;
		}
		dec->index = 0;
		dec->disposal = DISPOSAL_UNSPECIFIED;
		memset(dec->canvas, 0, canvas_size);
	}
	dispose_previous_frame(dec);
	GifFileType *gif = dec->gif;
	GraphicsControlBlock gcb = {
		.DisposalMode = DISPOSAL_UNSPECIFIED,
		.TransparentColor = NO_TRANSPARENT_COLOR,
	};
	while (true) {
		GifRecordType type;
		if (DGifGetRecordType(gif, &type) != GIF_OK) {
			return gif_error(dec, dec->index + 1, message);
		}
		if (type == EXTENSION_RECORD_TYPE) {
			if (!read_extension(gif, &gcb, NULL)) {
				return gif_error(dec, dec->index + 1, message);
			}
			continue;
		}
		if (type != IMAGE_DESC_RECORD_TYPE) {
			/* The scan counted this frame: the file changed under us, or giflib lies. */
			return gif_error(dec, dec->index + 1, message);
		}
		break;
	}
	if (DGifGetImageDesc(gif) != GIF_OK) {
		return gif_error(dec, dec->index + 1, message);
	}
	GifFreeSavedImages(gif);
	gif->ImageCount = 0;
	const GifImageDesc *desc = &gif->Image;
	uint64_t pixels = (uint64_t)desc->Width * (uint64_t)desc->Height;
	if (pixels > VEIL_IMAGE_MAX_PIXELS) {
		veil_message_set(message, "GIF frame %d is %dx%d, larger than veil reads",
			dec->index + 1, desc->Width, desc->Height);
		return -EFBIG;
	}
	if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
		if (dec->saved == NULL) {
			dec->saved = malloc(canvas_size);
			if (dec->saved == NULL) {
				veil_message_set(message, "out of memory");
				return -ENOMEM;
			}
		}
		memcpy(dec->saved, dec->canvas, canvas_size);
	}
	if (pixels == 0) {
		if (!skip_image(gif)) {
			return gif_error(dec, dec->index + 1, message);
		}
	} else {
		int ret = read_pixels(dec, gcb.TransparentColor, message);
		if (ret < 0) {
			return ret;
		}
	}
	dec->disposal = gcb.DisposalMode;
	dec->x = desc->Left;
	dec->y = desc->Top;
	dec->w = desc->Width;
	dec->h = desc->Height;
	*canvas = dec->canvas;
	*delay_ms = veil_anim_delay((int64_t)gcb.DelayTime * 10);
	*index = dec->index++;
	return 0;
}

const struct veil_anim_decoder_impl veil_anim_gif = {
	.format = VEIL_ANIM_GIF,
	.format_name = "gif",
	.name = "giflib",
	.open = gif_open,
	.next = gif_next,
	.destroy = gif_destroy,
};
