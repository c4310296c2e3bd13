/*
 * CSS's cubic Bézier timing function: the curve from (0,0) to (1,1) with control points
 * (x1,y1) and (x2,y2), x the time fraction and y the progress. With x1 and x2 within [0,1],
 * x(s) rises monotonically with the parameter s, so each time fraction has one s: Newton's
 * method from s = t, and bisection where Newton does not settle.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "util/ease.h"

static const struct {
	const char *name;
	enum veil_ease_kind kind;
	double x1, y1, x2, y2;
} named[] = {
	{ "linear", VEIL_EASE_LINEAR, 0.0, 0.0, 1.0, 1.0 },
	{ "in", VEIL_EASE_IN, 0.42, 0.0, 1.0, 1.0 },
	{ "out", VEIL_EASE_OUT, 0.0, 0.0, 0.58, 1.0 },
	{ "in-out", VEIL_EASE_IN_OUT, 0.42, 0.0, 0.58, 1.0 },
	{ "ease", VEIL_EASE_EASE, 0.25, 0.1, 0.25, 1.0 },
};

#define N_NAMED (sizeof(named) / sizeof(named[0]))

bool veil_ease_from_name(const char *name, struct veil_ease *ease) {
	for (size_t i = 0; i < N_NAMED; i++) {
		if (strcasecmp(name, named[i].name) == 0) {
			*ease = (struct veil_ease){
				.kind = named[i].kind,
				.x1 = named[i].x1, .y1 = named[i].y1,
				.x2 = named[i].x2, .y2 = named[i].y2,
			};
			return true;
		}
	}
	return false;
}

static bool is_space(char c) {
	return c == ' ' || c == '\t';
}

static bool is_digit(char c) {
	return c >= '0' && c <= '9';
}

/* A decimal number at p: its end, or NULL. Digits past the ninth after the point count not. */
static const char *parse_number(const char *p, double *out) {
	bool negative = *p == '-';
	if (*p == '-' || *p == '+') {
		p++;
	}
	double value = 0.0;
	int digits = 0;
	for (; is_digit(*p); p++, digits++) {
		/* Past 1e9 the number is out of range anyway: it stops growing. */
		if (value < 1e9) {
			value = value * 10.0 + (*p - '0');
		}
	}
	if (*p == '.') {
		p++;
		double scale = 0.1;
		for (int n = 0; is_digit(*p); p++, n++, digits++) {
			if (n < 9) {
				value += scale * (*p - '0');
				scale *= 0.1;
			}
		}
	}
	if (digits == 0) {
		return NULL;
	}
	*out = negative ? -value : value;
	return p;
}

int veil_ease_parse_bezier(const char *text, struct veil_ease *ease) {
	static const char prefix[] = "cubic-bezier(";
	if (strncasecmp(text, prefix, sizeof(prefix) - 1) != 0) {
		return -EINVAL;
	}
	const char *p = text + sizeof(prefix) - 1;
	double v[4];
	for (int i = 0; i < 4; i++) {
		while (is_space(*p)) {
			p++;
		}
		if (i > 0) {
			/* A comma, spaces, or both between two numbers. */
			bool separated = is_space(p[-1]);
			if (*p == ',') {
				separated = true;
				p++;
				while (is_space(*p)) {
					p++;
				}
			}
			if (!separated) {
				return -EINVAL;
			}
		}
		p = parse_number(p, &v[i]);
		if (p == NULL) {
			return -EINVAL;
		}
	}
	while (is_space(*p)) {
		p++;
	}
	if (p[0] != ')' || p[1] != '\0') {
		return -EINVAL;
	}
	if (v[0] < 0.0 || v[0] > 1.0 || v[2] < 0.0 || v[2] > 1.0 ||
			v[1] < -VEIL_EASE_MAX_Y || v[1] > VEIL_EASE_MAX_Y ||
			v[3] < -VEIL_EASE_MAX_Y || v[3] > VEIL_EASE_MAX_Y) {
		return -ERANGE;
	}
	*ease = (struct veil_ease){
		.kind = VEIL_EASE_BEZIER,
		.x1 = v[0], .y1 = v[1], .x2 = v[2], .y2 = v[3],
	};
	return 0;
}

/* One coordinate of the curve at parameter s, its control points' coordinates a1 and a2. */
static double bezier(double a1, double a2, double s) {
	double u = 1.0 - s;
	return 3.0 * u * u * s * a1 + 3.0 * u * s * s * a2 + s * s * s;
}

static double bezier_slope(double a1, double a2, double s) {
	double u = 1.0 - s;
	return 3.0 * u * u * a1 + 6.0 * u * s * (a2 - a1) + 3.0 * s * s * (1.0 - a2);
}

static double absolute(double v) {
	return v < 0.0 ? -v : v;
}

/* The parameter s at which x(s) = t. */
static double solve_x(double x1, double x2, double t) {
	const double epsilon = 1e-9;
	double s = t;
	for (int i = 0; i < 8; i++) {
		double error = bezier(x1, x2, s) - t;
		if (absolute(error) < epsilon) {
			return s;
		}
		double slope = bezier_slope(x1, x2, s);
		if (absolute(slope) < 1e-6) {
			break;
		}
		s -= error / slope;
		if (s < 0.0 || s > 1.0) {
			break;
		}
	}
	/* x(s) is monotonic on [0,1]: bisection always finds it. */
	double lo = 0.0, hi = 1.0;
	s = t;
	for (int i = 0; i < 60; i++) {
		double x = bezier(x1, x2, s);
		if (absolute(x - t) < epsilon) {
			break;
		}
		if (x < t) {
			lo = s;
		} else {
			hi = s;
		}
		s = (lo + hi) / 2.0;
	}
	return s;
}

double veil_ease_apply(const struct veil_ease *ease, double t) {
	if (!(t > 0.0)) {
		return 0.0;
	}
	if (t >= 1.0) {
		return 1.0;
	}
	if (ease == NULL || ease->kind == VEIL_EASE_LINEAR) {
		return t;
	}
	double s = solve_x(ease->x1, ease->x2, t);
	return bezier(ease->y1, ease->y2, s);
}

/* value with at most six decimals, no trailing zeros: "0.25", "1", "-0.5". */
static void format_number(double value, char *buf, size_t size) {
	bool negative = value < 0.0;
	unsigned long long n = (unsigned long long)(absolute(value) * 1e6 + 0.5);
	unsigned long long whole = n / 1000000, frac = n % 1000000;
	char digits[8] = "";
	if (frac != 0) {
		snprintf(digits, sizeof(digits), ".%06llu", frac);
		size_t len = strlen(digits);
		while (digits[len - 1] == '0') {
			digits[--len] = '\0';
		}
	}
	snprintf(buf, size, "%s%llu%s", negative && n != 0 ? "-" : "", whole, digits);
}

void veil_ease_format(const struct veil_ease *ease, char *buf, size_t size) {
	if (ease->kind != VEIL_EASE_BEZIER) {
		for (size_t i = 0; i < N_NAMED; i++) {
			if (named[i].kind == ease->kind) {
				snprintf(buf, size, "%s", named[i].name);
				return;
			}
		}
	}
	char v[4][24];
	format_number(ease->x1, v[0], sizeof(v[0]));
	format_number(ease->y1, v[1], sizeof(v[1]));
	format_number(ease->x2, v[2], sizeof(v[2]));
	format_number(ease->y2, v[3], sizeof(v[3]));
	snprintf(buf, size, "cubic-bezier(%s,%s,%s,%s)", v[0], v[1], v[2], v[3]);
}
