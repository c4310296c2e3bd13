/*
 * NOAA's solar calculator, from the equations its spreadsheets publish: the sun's mean longitude
 * and anomaly, the equation of centre, the apparent longitude, the obliquity, hence the
 * declination and the equation of time, all as polynomials in Julian centuries since J2000.0.
 * Sunrise and sunset are found by the hour angle at which the sun's centre is 0.833° below the
 * horizon, evaluated again at the time found (the sun moves in a day: three passes settle it to
 * well under a second).
 */
#include <math.h>
#include "util/sun.h"

#define PI 3.14159265358979323846
/* The sun's centre at sunrise and sunset: refraction (34') and its half-diameter (16'). */
#define HORIZON_DEG (-0.833)

static double rad(double deg) {
	return deg * PI / 180.0;
}

static double deg(double rad) {
	return rad * 180.0 / PI;
}

/* Into [0, 360). */
static double wrap360(double deg) {
	deg = fmod(deg, 360.0);
	return deg < 0.0 ? deg + 360.0 : deg;
}

static double clamp1(double v) {
	return v < -1.0 ? -1.0 : v > 1.0 ? 1.0 : v;
}

struct sun {
	double declination; /* radians */
	double equation_of_time; /* minutes: apparent solar time less mean solar time */
};

/* At a Julian day (UT). */
static void sun_at(double julian_day, struct sun *sun) {
	double t = (julian_day - 2451545.0) / 36525.0;
	double mean_longitude = wrap360(280.46646 + t * (36000.76983 + t * 0.0003032));
	double mean_anomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t);
	double eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t);
	double m = rad(mean_anomaly);
	double centre = sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t)) +
		sin(2.0 * m) * (0.019993 - 0.000101 * t) + sin(3.0 * m) * 0.000289;
	double true_longitude = mean_longitude + centre;
	double omega = rad(125.04 - 1934.136 * t);
	double apparent_longitude = true_longitude - 0.00569 - 0.00478 * sin(omega);
	double mean_obliquity = 23.0 + (26.0 + (21.448 - t * (46.815 + t * (0.00059 -
		t * 0.001813))) / 60.0) / 60.0;
	double obliquity = rad(mean_obliquity + 0.00256 * cos(omega));
	sun->declination = asin(sin(obliquity) * sin(rad(apparent_longitude)));

	double y = tan(obliquity / 2.0);
	y *= y;
	double l0 = rad(mean_longitude);
	sun->equation_of_time = 4.0 * deg(y * sin(2.0 * l0) - 2.0 * eccentricity * sin(m) +
		4.0 * eccentricity * y * sin(m) * cos(2.0 * l0) - 0.5 * y * y * sin(4.0 * l0) -
		1.25 * eccentricity * eccentricity * sin(2.0 * m));
}

static double julian_day(time_t when) {
	return (double)when / 86400.0 + 2440587.5;
}

void veil_sun_position(double latitude, double longitude, time_t when,
		struct veil_sun_position *position) {
	struct sun sun;
	sun_at(julian_day(when), &sun);
	/* Minutes since 00:00 UTC; true solar time at the place; the hour angle (0 at noon). */
	double minutes = (double)(((long long)when % 86400 + 86400) % 86400) / 60.0;
	double solar = fmod(minutes + sun.equation_of_time + 4.0 * longitude, 1440.0);
	if (solar < 0.0) {
		solar += 1440.0;
	}
	double hour_angle = rad(solar / 4.0 - 180.0);
	double phi = rad(latitude), delta = sun.declination;
	double cos_zenith = clamp1(sin(phi) * sin(delta) + cos(phi) * cos(delta) * cos(hour_angle));
	position->elevation = 90.0 - deg(acos(cos_zenith));
	/* From the south, westward (atan2 keeps the poles and the zenith finite), then from north. */
	double azimuth = deg(atan2(sin(hour_angle), cos(hour_angle) * sin(phi) -
		tan(delta) * cos(phi)));
	position->azimuth = wrap360(azimuth + 180.0);
	position->declination = deg(delta);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (March-based years). */
static long long days_from_civil(long long year, int month, int day) {
	year -= month <= 2;
	long long era = (year >= 0 ? year : year - 399) / 400;
	long long year_of_era = year - era * 400;
	long long day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	long long day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 +
		day_of_year;
	return era * 146097 + day_of_era - 719468;
}

static bool valid_date(int year, int month, int day) {
	static const int lengths[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 ||
			day > lengths[month - 1]) {
		return false;
	}
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return month != 2 || day <= 28 || leap;
}

/*
 * The cosine of the hour angle at which the sun's centre is at the sunrise altitude: beyond 1
 * it never rises, below -1 it never sets.
 */
static double rise_cosine(double latitude, double declination) {
	double phi = rad(latitude);
	return (sin(rad(HORIZON_DEG)) - sin(phi) * sin(declination)) /
		(cos(phi) * cos(declination));
}

bool veil_sun_day(double latitude, double longitude, int year, int month, int day,
		struct veil_sun_day *out) {
	if (!(latitude >= -90.0 && latitude <= 90.0 && longitude >= -180.0 &&
			longitude <= 180.0) || !valid_date(year, month, day)) {
		return false;
	}
	long long midnight_days = days_from_civil(year, month, day);
	double jd0 = (double)midnight_days + 2440587.5;
	struct sun sun;

	/* Noon: minutes after 00:00 UTC, from mean noon, the equation of time at the noon found. */
	double noon = 720.0 - 4.0 * longitude;
	for (int i = 0; i < 3; i++) {
		sun_at(jd0 + noon / 1440.0, &sun);
		noon = 720.0 - 4.0 * longitude - sun.equation_of_time;
	}
	time_t base = (time_t)(midnight_days * 86400);
	out->noon = base + (time_t)llround(noon * 60.0);
	out->sunrise = out->sunset = out->noon;

	/* At the poles the hour angle means nothing: the sun's height is the declination. */
	double c = latitude > 89.9999 || latitude < -89.9999 ?
		(sin(rad(HORIZON_DEG)) < (latitude > 0 ? 1.0 : -1.0) * sin(sun.declination) ? -2.0 :
		2.0) : rise_cosine(latitude, sun.declination);
	if (c > 1.0) {
		out->kind = VEIL_SUN_POLAR_NIGHT;
		return true;
	}
	if (c < -1.0) {
		out->kind = VEIL_SUN_POLAR_DAY;
		return true;
	}
	out->kind = VEIL_SUN_RISES_AND_SETS;

	/* Each at its own time: the declination and the equation of time there. */
	for (int side = -1; side <= 1; side += 2) {
		double t = noon + side * 4.0 * deg(acos(c));
		for (int i = 0; i < 3; i++) {
			sun_at(jd0 + t / 1440.0, &sun);
			double ha = deg(acos(clamp1(rise_cosine(latitude, sun.declination))));
			t = 720.0 - 4.0 * longitude - sun.equation_of_time + side * 4.0 * ha;
		}
		time_t when = base + (time_t)llround(t * 60.0);
		if (side < 0) {
			out->sunrise = when;
		} else {
			out->sunset = when;
		}
	}
	return true;
}
