/* The words every part of veil and veilctl share: mode names and colours. */
#ifndef VEIL_UTIL_MODE_H
#define VEIL_UTIL_MODE_H

#include <stdbool.h>
#include <stdint.h>

enum veil_mode {
	VEIL_MODE_STRETCH,
	VEIL_MODE_FILL,
	VEIL_MODE_FIT,
	VEIL_MODE_CENTER,
	VEIL_MODE_TILE,
	VEIL_MODE_SOLID_COLOR,
	/* The largest whole-number scale that fits (at least 1), centred, nearest-neighbour. */
	VEIL_MODE_INTEGER,
};

/* "fill" etc. to a mode, case-insensitively; false for anything else. */
bool veil_mode_from_name(const char *name, enum veil_mode *mode);
/* Its name; NULL for a number that is no mode. */
const char *veil_mode_name(enum veil_mode mode);

/* "#rrggbb" (also without '#', and "#rrggbbaa" with alpha ff) to 0xRRGGBB. */
bool veil_color_parse(const char *word, uint32_t *rgb);

#endif
