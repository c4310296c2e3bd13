/*
 * Where the sun is, and when it rises and sets, at a place: NOAA's solar calculator (the
 * equations of its spreadsheets, after Meeus' Astronomical Algorithms), a pure function. Good to
 * about a minute for sunrise and sunset between the polar circles, somewhat worse close to
 * them, where the sun crosses the horizon at a grazing angle; the refraction of an average
 * atmosphere is in the sunrise and sunset (the sun's centre at 0.833° below the horizon) but not
 * in the elevation, which is geometric.
 *
 * Latitudes are degrees north (negative south), longitudes degrees east (negative west).
 */
#ifndef VEIL_UTIL_SUN_H
#define VEIL_UTIL_SUN_H

#include <stdbool.h>
#include <time.h>

struct veil_sun_position {
	double elevation; /* degrees above the horizon, -90 to 90 (the sun's centre, geometric) */
	double azimuth; /* degrees clockwise from north, 0 to 360 (90 is east) */
	double declination; /* degrees north of the celestial equator */
};

void veil_sun_position(double latitude, double longitude, time_t when,
	struct veil_sun_position *position);

enum veil_sun_day_kind {
	VEIL_SUN_RISES_AND_SETS,
	VEIL_SUN_POLAR_DAY, /* above the horizon all day: no sunrise, no sunset */
	VEIL_SUN_POLAR_NIGHT, /* below it all day */
};

struct veil_sun_day {
	enum veil_sun_day_kind kind;
	time_t noon; /* the sun's transit: its highest */
	time_t sunrise, sunset; /* only for VEIL_SUN_RISES_AND_SETS; else noon */
};

/*
 * The solar day at a place whose mean local noon (12:00 UTC less the longitude's 4 minutes a
 * degree) falls on the UTC date year-month-day: a place's civil date, for places whose time
 * zone is near their mean solar time. false for a latitude beyond ±90, a longitude beyond ±180
 * or an impossible date.
 */
bool veil_sun_day(double latitude, double longitude, int year, int month, int day,
	struct veil_sun_day *out);

#endif
