#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/fit.h"

static bool covers(const struct veil_fit_size *s, int width, int height) {
	return s->width >= width && s->height >= height;
}

int veil_fit_choose(const struct veil_fit_size *sizes, size_t n, int width, int height) {
	if (width <= 0 || height <= 0) {
		/* No output size yet: the largest. */
		int best = -1;
		for (size_t i = 0; i < n; i++) {
			const struct veil_fit_size *s = &sizes[i];
			if (s->width > 0 && s->height > 0 && (best < 0 || (int64_t)s->width * s->height >
					(int64_t)sizes[best].width * sizes[best].height)) {
				best = (int)i;
			}
		}
		return best;
	}
	double want = (double)width / height;
	/* Pass 0: pictures that cover the output; pass 1, when none does: all. */
	for (int pass = 0; pass < 2; pass++) {
		int best = -1;
		double best_distance = INFINITY;
		for (size_t i = 0; i < n; i++) {
			const struct veil_fit_size *s = &sizes[i];
			if (s->width <= 0 || s->height <= 0 || (pass == 0 && !covers(s, width, height))) {
				continue;
			}
			double distance = fabs(want - (double)s->width / s->height);
			if (distance < best_distance) {
				best = (int)i;
				best_distance = distance;
			} else if (distance == best_distance &&
					abs(s->width - width) < abs(sizes[best].width - width)) {
				best = (int)i;
			}
		}
		if (best >= 0) {
			return best;
		}
	}
	return -1;
}

static int gcd(int a, int b) {
	while (b != 0) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void veil_fit_why(const struct veil_fit_size *picture, int width, int height, char *buf,
		size_t size) {
	char ratio[32];
	int d = gcd(picture->width, picture->height);
	if (d > 0 && picture->width / d <= 64 && picture->height / d <= 64) {
		snprintf(ratio, sizeof(ratio), "%d:%d", picture->width / d, picture->height / d);
	} else {
		snprintf(ratio, sizeof(ratio), "%.2f:1", (double)picture->width /
			(picture->height > 0 ? picture->height : 1));
	}
	if (covers(picture, width, height)) {
		snprintf(buf, size, "%s, at least %dx%d", ratio, width, height);
	} else {
		snprintf(buf, size, "%s, none as large as %dx%d", ratio, width, height);
	}
}

bool veil_fit_size_from_name(const char *name, struct veil_fit_size *size) {
	/* digits 'x' digits '.' extension, nothing else: "1920x1080.png" */
	const char *p = name;
	long v[2];
	for (int k = 0; k < 2; k++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
		char *end;
		v[k] = strtol(p, &end, 10);
		if (end - p > 6 || v[k] <= 0) {
			return false;
		}
		p = end;
		if (k == 0 && *p++ != 'x') {
			return false;
		}
	}
	if (*p != '.' || p[1] == '\0' || strchr(p + 1, '/') != NULL) {
		return false;
	}
	size->width = (int)v[0];
	size->height = (int)v[1];
	return true;
}
