/*
 * Easing curves for transitions: CSS's cubic Bézier timing functions (CSS Easing Functions
 * Level 1), a pure function of the time fraction. Locale-free: numbers are read and written here,
 * not by strtod() or printf(), which follow the compositor's LC_NUMERIC.
 */
#ifndef VEIL_UTIL_EASE_H
#define VEIL_UTIL_EASE_H

#include <stdbool.h>
#include <stddef.h>

enum veil_ease_kind {
	VEIL_EASE_LINEAR, /* the default: progress is the time fraction */
	VEIL_EASE_IN, /* CSS ease-in: cubic-bezier(0.42,0,1,1) */
	VEIL_EASE_OUT, /* CSS ease-out: cubic-bezier(0,0,0.58,1) */
	VEIL_EASE_IN_OUT, /* CSS ease-in-out: cubic-bezier(0.42,0,0.58,1) */
	VEIL_EASE_EASE, /* CSS ease: cubic-bezier(0.25,0.1,0.25,1) */
	VEIL_EASE_BEZIER, /* cubic-bezier(x1,y1,x2,y2) as given */
};

/* A y of cubic-bezier() is at most this far from 0 (CSS sets no bound; x is within [0,1]). */
#define VEIL_EASE_MAX_Y 10.0

struct veil_ease {
	enum veil_ease_kind kind;
	/* The control points P1 and P2 (P0 is (0,0), P3 (1,1)); set for every kind but linear. */
	double x1, y1, x2, y2;
};

/* "linear", "in", "out", "in-out" or "ease" (ASCII, any case). */
bool veil_ease_from_name(const char *name, struct veil_ease *ease);
/*
 * "cubic-bezier(x1,y1,x2,y2)": four decimal numbers (an optional '-', digits, an optional
 * fraction; no exponent) separated by commas, spaces or both. 0, -EINVAL when the text is not of
 * that form, -ERANGE when x1 or x2 is outside [0,1] or a y beyond VEIL_EASE_MAX_Y.
 */
int veil_ease_parse_bezier(const char *text, struct veil_ease *ease);
/*
 * The curve's y at the time fraction t (clamped to [0,1]): x(s) = t solved for the Bézier
 * parameter s, then y(s). May leave [0,1] when a y control point does.
 */
double veil_ease_apply(const struct veil_ease *ease, double t);
/* "linear", "in", "out", "in-out", "ease" or "cubic-bezier(0.1,0.7,1,0.1)" (shortest decimals). */
void veil_ease_format(const struct veil_ease *ease, char *buf, size_t size);

#endif
