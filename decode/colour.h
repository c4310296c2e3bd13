/*
 * A still's colour: what its file says (an ICC profile, CICP code points, PNG's sRGB, gAMA and
 * cHRM chunks, as each decoder reads them into image->colour) turned into sRGB pixels with
 * lcms2, on the thread that decodes the still (a worker, or veil-decoder).
 */
#ifndef VEIL_DECODE_COLOUR_H
#define VEIL_DECODE_COLOUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/colour_space.h"
#include "util/image.h"

/* Embedded profiles larger than this are not read (no real RGB profile comes close). */
#define VEIL_COLOUR_MAX_ICC (4 * 1024 * 1024)
/* The status's text: "Display P3 (ICC) -> sRGB", "sRGB", "none (sRGB assumed)", ... */
#define VEIL_COLOUR_TEXT 96

struct veil_colour_result {
	char said[VEIL_COLOUR_TEXT];
	/* The file's colour could not be used (a broken profile): shown as sRGB; said says why. */
	bool fell_back;
	/*
	 * What the pixels are in: all zero (sRGB) but for an HDR still (CICP transfer PQ or HLG
	 * in BT.709's or BT.2020's primaries), whose pixels are kept as decoded and whose buffer
	 * carries this to the renderer (scene/pixel_buffer.h); said is then "BT.2020 PQ (CICP):
	 * HDR", which the status goes on with what the renderer does with it.
	 */
	struct veil_colour_space space;
};

/*
 * Converts image's pixels (DRM_FORMAT_[AX]RGB8888, premultiplied) to sRGB in place by what
 * image->colour says, then frees and clears image->colour. Pictures that say nothing, or say
 * sRGB, are left alone, and so are HDR ones that the renderer can be told of (result->space).
 * Never fails: a profile that cannot be used leaves the pixels as they are (sRGB assumed) with
 * result->fell_back set.
 */
void veil_colour_to_srgb(struct veil_image *image, struct veil_colour_result *result);

/*
 * Takes a copy of an embedded ICC profile into colour (nothing when data is NULL or len is 0);
 * a profile over VEIL_COLOUR_MAX_ICC is kept as its length only, which veil_colour_to_srgb()
 * refuses. false when out of memory.
 */
bool veil_colour_set_icc(struct veil_image_colour *colour, const void *data, size_t len);

/*
 * The ICC profile of a JPEG file (its APP2 "ICC_PROFILE" segments, joined in their order),
 * read from fd with pread() up to the first scan: a malloc()ed copy in colour. 0 when the file
 * has none or is no JPEG, else a negative errno (a read error, out of memory).
 */
int veil_colour_read_jpeg_icc(int fd, struct veil_image_colour *colour);

#endif
