/*
 * Apple's dynamic wallpapers: a HEIC file whose XMP (an rdf+xml metadata block of libheif's)
 * holds `apple_desktop:solar`, `apple_desktop:h24` or `apple_desktop:apr`, each the base64 of a
 * binary plist:
 *
 *   solar: { si: [ { a: sun altitude (degrees), z: sun azimuth (degrees from north),
 *                    i: image }, ... ], ap: { l: light image, d: dark image } }
 *   h24:   { ti: [ { t: time of day (0 to 1, a fraction of 24 h of local time), i: image },
 *                  ... ], ap: { l, d } }
 *   apr:   { l, d }
 *
 * Images are counted from 0 among the file's top-level images, in libheif's order. The file is
 * played by module/show/timed.c as a schedule of the kind module/show/timed_schedule.c plays, built
 * here a local day at a time: solar with a place (the image whose sun is nearest the sun's there
 * and then), else h24, else the light and dark images following the scheme.
 */
#ifndef VEIL_MODULE_DYNAMIC_H
#define VEIL_MODULE_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "module/show/timed_schedule.h"

/* An XMP packet is a few kilobytes; a plist of Apple's under one. */
#define VEIL_DYNAMIC_MAX_XMP (1 << 20)
/* At most this many entries in si or ti, and images in the file. */
#define VEIL_DYNAMIC_MAX_ENTRIES 1024

struct veil_dynamic_sun {
	double altitude; /* -90 to 90 */
	double azimuth; /* 0 to 360 */
	int image;
};

struct veil_dynamic_time {
	double day; /* 0 to 1 */
	int image;
};

struct veil_dynamic {
	int n_images; /* the file's top-level images */
	struct veil_dynamic_sun *solar; /* sorted as the file has them */
	size_t n_solar;
	struct veil_dynamic_time *h24; /* sorted by day */
	size_t n_h24;
	bool has_appearance;
	int light, dark;
};

enum veil_dynamic_mode {
	VEIL_DYNAMIC_SOLAR,
	VEIL_DYNAMIC_H24,
	VEIL_DYNAMIC_APPEARANCE,
	VEIL_DYNAMIC_NONE, /* solar only, and no place to follow the sun of */
};

/*
 * Whether the file at path is a HEIF whose XMP speaks of apple_desktop: read with a budget (its
 * header, a few KiB), for the compositor thread. false for anything else, and for a file whose
 * header does not fit the budget.
 */
bool veil_dynamic_probe(const char *path);
/*
 * The XMP packet (size bytes) of the file name (for messages), whose n_images top-level images
 * the plist's indexes must fall in, read into *dynamic: libxml2, glib's base64, libplist. 0, or
 * -EINVAL (-ENOMEM) with *message naming the file; *dynamic is empty on failure.
 */
int veil_dynamic_parse_xmp(const char *xmp, size_t size, const char *name, int n_images,
	struct veil_dynamic *dynamic, char **message);
/* The file at path read with libheif (on a worker) and its XMP parsed. Same result. */
int veil_dynamic_load(const char *path, struct veil_dynamic *dynamic, char **message);
void veil_dynamic_finish(struct veil_dynamic *dynamic);

/* What the file plays with or without a place. */
enum veil_dynamic_mode veil_dynamic_mode(const struct veil_dynamic *dynamic, bool has_location);
/* "solar", "h24", "appearance" or "none". */
const char *veil_dynamic_mode_name(enum veil_dynamic_mode mode);

/*
 * The image (from 0) for the sun at a place at when: the entry nearest the sun's altitude, an
 * entry on the other side of solar noon (its azimuth below 180 and the sun's not, or the other
 * way round) counted 10 degrees farther; the first in the file on a tie.
 */
int veil_dynamic_solar_image(const struct veil_dynamic *dynamic, double latitude,
	double longitude, time_t when);
/* The image of h24 at a fraction of the day: the last entry at or before it (wrapping). */
int veil_dynamic_h24_image(const struct veil_dynamic *dynamic, double day);

/*
 * The schedule of the local day starting at day_start (seconds since the epoch) and lasting
 * day_s seconds, for mode SOLAR or H24: each image static until fade_ms before the next change,
 * then faded into the next image (a fade at most half the image's time), changes to the second.
 * Slots name path and the images (items from 1); start is day_start as local time.
 */
int veil_dynamic_schedule(const struct veil_dynamic *dynamic, enum veil_dynamic_mode mode,
	double latitude, double longitude, const char *path, time_t day_start, int64_t day_s,
	int64_t fade_ms, struct veil_timed_schedule *schedule);

#endif
