/*
 * util/ease.c, the cubic Bézier timing functions of CSS, and `random`'s pick
 * (module/core/transition/pick.c).
 *
 * The expected values of the named curves at 0.1, 0.25, 0.5, 0.75 and 0.9 were computed apart
 * from veil, by bisection on x(s) to 1e-15 in Python's floats (200 halvings), from the control
 * points CSS Easing Functions Level 1 gives each keyword; ease's 0.8024 at 0.5 is the figure
 * commonly published for CSS's `ease`. Tolerance 1e-5.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "module/core/transition/transition.h"
#include "util/ease.h"
#include "check.h"

#define TOLERANCE 1e-5

static double absolute(double v) {
	return v < 0.0 ? -v : v;
}

static struct veil_ease named(const char *name) {
	struct veil_ease ease;
	if (!CHECK(veil_ease_from_name(name, &ease), "%s", name)) {
		ease.kind = VEIL_EASE_LINEAR;
	}
	return ease;
}

static void expect_at(int line, const char *name, double t, double y) {
	struct veil_ease ease = named(name);
	double got = veil_ease_apply(&ease, t);
	CHECK_LINE(line, absolute(got - y) < TOLERANCE, "%s(%g) = %.9f, expected %.9f", name, t,
		got, y);
}

#define EXPECT_AT(name, t, y) expect_at(__LINE__, name, t, y)

static void test_samples(void) {
	/* CSS ease: cubic-bezier(0.25,0.1,0.25,1). */
	EXPECT_AT("ease", 0.1, 0.094796306);
	EXPECT_AT("ease", 0.25, 0.408510591);
	EXPECT_AT("ease", 0.5, 0.802403388);
	EXPECT_AT("ease", 0.75, 0.960458978);
	EXPECT_AT("ease", 0.9, 0.994316477);
	/* ease-in: cubic-bezier(0.42,0,1,1). */
	EXPECT_AT("in", 0.1, 0.017026610);
	EXPECT_AT("in", 0.25, 0.093464651);
	EXPECT_AT("in", 0.5, 0.315356813);
	EXPECT_AT("in", 0.75, 0.621861869);
	EXPECT_AT("in", 0.9, 0.839427846);
	/* ease-out: cubic-bezier(0,0,0.58,1). */
	EXPECT_AT("out", 0.1, 0.160572154);
	EXPECT_AT("out", 0.25, 0.378138131);
	EXPECT_AT("out", 0.5, 0.684643187);
	EXPECT_AT("out", 0.75, 0.906535349);
	EXPECT_AT("out", 0.9, 0.982973390);
	/* ease-in-out: cubic-bezier(0.42,0,0.58,1). */
	EXPECT_AT("in-out", 0.1, 0.019722454);
	EXPECT_AT("in-out", 0.25, 0.129161931);
	EXPECT_AT("in-out", 0.5, 0.5);
	EXPECT_AT("in-out", 0.75, 0.870838069);
	EXPECT_AT("in-out", 0.9, 0.980277546);
	EXPECT_AT("linear", 0.3, 0.3);
	EXPECT_AT("LINEAR", 0.77, 0.77);
}

static void test_shape(void) {
	const char *names[] = { "linear", "in", "out", "in-out", "ease" };
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct veil_ease ease = named(names[n]);
		CHECK(veil_ease_apply(&ease, 0.0) == 0.0, "%s at 0", names[n]);
		CHECK(veil_ease_apply(&ease, 1.0) == 1.0, "%s at 1", names[n]);
		CHECK(veil_ease_apply(&ease, -0.5) == 0.0, "%s before 0", names[n]);
		CHECK(veil_ease_apply(&ease, 7.0) == 1.0, "%s after 1", names[n]);
		/* Monotonic, within [0,1], no jump larger than the curve's steepest slope allows. */
		double last = 0.0;
		bool rising = true, inside = true, smooth = true;
		for (int i = 1; i <= 10000; i++) {
			double y = veil_ease_apply(&ease, i / 10000.0);
			rising = rising && y >= last - 1e-12;
			inside = inside && y >= 0.0 && y <= 1.0;
			smooth = smooth && y - last < 0.001;
			last = y;
		}
		CHECK(rising, "%s rises", names[n]);
		CHECK(inside, "%s stays within [0,1]", names[n]);
		CHECK(smooth, "%s has no jump", names[n]);
	}
	/* in-out is symmetric; in and out mirror each other (their control points do). */
	struct veil_ease in = named("in"), out = named("out"), in_out = named("in-out");
	for (int i = 0; i <= 100; i++) {
		double t = i / 100.0;
		CHECK(absolute(veil_ease_apply(&in_out, t) + veil_ease_apply(&in_out, 1.0 - t) - 1.0) <
			TOLERANCE, "in-out at %g", t);
		CHECK(absolute(veil_ease_apply(&in, t) + veil_ease_apply(&out, 1.0 - t) - 1.0) <
			TOLERANCE, "in and out at %g", t);
	}
	/* Flat in the middle (x'(0.5) = 0): Newton cannot settle there, bisection does. */
	struct veil_ease steep;
	CHECK(veil_ease_parse_bezier("cubic-bezier(1,0,0,1)", &steep) == 0);
	CHECK(absolute(veil_ease_apply(&steep, 0.5) - 0.5) < TOLERANCE, "%.9f",
		veil_ease_apply(&steep, 0.5));
	/* x = y: the identity, whatever the parameter. */
	struct veil_ease diagonal;
	CHECK(veil_ease_parse_bezier("cubic-bezier(0.3,0.3,0.7,0.7)", &diagonal) == 0);
	for (int i = 0; i <= 20; i++) {
		double t = i / 20.0;
		CHECK(absolute(veil_ease_apply(&diagonal, t) - t) < TOLERANCE, "diagonal at %g", t);
	}
	/* A y beyond 1: the curve overshoots (transition.c holds the picture at 1). */
	struct veil_ease back;
	CHECK(veil_ease_parse_bezier("cubic-bezier(0.3,1.6,0.7,1)", &back) == 0);
	CHECK(veil_ease_apply(&back, 0.6) > 1.0, "%.9f", veil_ease_apply(&back, 0.6));
}

static void expect_parse_at(int line, const char *text, int ret, double x1, double y1,
		double x2, double y2) {
	struct veil_ease ease = { .kind = VEIL_EASE_IN };
	int got = veil_ease_parse_bezier(text, &ease);
	CHECK_LINE(line, got == ret, "'%s': %d, expected %d", text, got, ret);
	if (ret == 0 && got == 0) {
		CHECK_LINE(line, ease.kind == VEIL_EASE_BEZIER && absolute(ease.x1 - x1) < 1e-9 &&
			absolute(ease.y1 - y1) < 1e-9 && absolute(ease.x2 - x2) < 1e-9 &&
			absolute(ease.y2 - y2) < 1e-9, "'%s': %g %g %g %g", text, ease.x1, ease.y1,
			ease.x2, ease.y2);
	} else if (got != 0) {
		CHECK_LINE(line, ease.kind == VEIL_EASE_IN, "'%s' changed the curve", text);
	}
}

#define EXPECT_PARSE(text, ret, ...) expect_parse_at(__LINE__, text, ret, __VA_ARGS__)

static void test_parse(void) {
	EXPECT_PARSE("cubic-bezier(0.25,0.1,0.25,1)", 0, 0.25, 0.1, 0.25, 1.0);
	EXPECT_PARSE("CUBIC-BEZIER(.25, .1, .25, 1.0)", 0, 0.25, 0.1, 0.25, 1.0);
	EXPECT_PARSE("cubic-bezier(0.25 0.1 0.25 1)", 0, 0.25, 0.1, 0.25, 1.0);
	EXPECT_PARSE("cubic-bezier( 0 , -2.5 , 1 , +3 )", 0, 0.0, -2.5, 1.0, 3.0);
	EXPECT_PARSE("cubic-bezier(0,10,1,-10)", 0, 0.0, 10.0, 1.0, -10.0);
	EXPECT_PARSE("cubic-bezier(0.123456789,0,1,1)", 0, 0.123456789, 0.0, 1.0, 1.0);
	/* x outside [0,1] would make time run backwards: refused, as CSS does. */
	EXPECT_PARSE("cubic-bezier(1.1,0,0.5,1)", -ERANGE, 0, 0, 0, 0);
	EXPECT_PARSE("cubic-bezier(0.5,0,-0.01,1)", -ERANGE, 0, 0, 0, 0);
	EXPECT_PARSE("cubic-bezier(0.5,10.5,0.5,1)", -ERANGE, 0, 0, 0, 0);
	EXPECT_PARSE("cubic-bezier(0.5,0,0.5,99999999999999999999)", -ERANGE, 0, 0, 0, 0);
	/* Not the form. */
	const char *bad[] = {
		"cubic-bezier(0.25,0.1,0.25)", "cubic-bezier(0.25,0.1,0.25,1,1)",
		"cubic-bezier(0.25,0.1,0.25,1", "cubic-bezier 0.25,0.1,0.25,1)",
		"cubic-bezier(0.25,,0.1,0.25,1)", "cubic-bezier(1e-1,0,1,1)", "cubic-bezier(a,b,c,d)",
		"cubic-bezier(0.25,0.1,0.25,1))", "cubic-bezier(0.25,0.1,0.25,1) x",
		"cubic-bezier(-,0,1,1)", "cubic-bezier(.,0,1,1)", "cubic-bezier(0.5.5,0,1,1)",
		"cubic-bezier()", "cubic-bezier(", "bezier(0,0,1,1)", "", "cubic-bezier(0;0;1;1)",
		"cubic-bezier(0,0,1,1)\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_PARSE(bad[i], -EINVAL, 0, 0, 0, 0);
	}
	struct veil_ease ease;
	CHECK(!veil_ease_from_name("ease-in", &ease), "CSS's long names are not veil's words");
	CHECK(!veil_ease_from_name("", &ease));
}

static void expect_format_at(int line, const char *text, const char *shown) {
	struct veil_ease ease;
	char buf[96];
	if (!veil_ease_from_name(text, &ease) &&
			!CHECK_LINE(line, veil_ease_parse_bezier(text, &ease) == 0, "%s", text)) {
		return;
	}
	veil_ease_format(&ease, buf, sizeof(buf));
	CHECK_LINE(line, strcmp(buf, shown) == 0, "'%s' shown as '%s', expected '%s'", text, buf,
		shown);
}

#define EXPECT_FORMAT(text, shown) expect_format_at(__LINE__, text, shown)

static void test_format(void) {
	EXPECT_FORMAT("linear", "linear");
	EXPECT_FORMAT("In", "in");
	EXPECT_FORMAT("out", "out");
	EXPECT_FORMAT("in-out", "in-out");
	EXPECT_FORMAT("ease", "ease");
	EXPECT_FORMAT("cubic-bezier(0.25 0.1 0.25 1.000)", "cubic-bezier(0.25,0.1,0.25,1)");
	EXPECT_FORMAT("cubic-bezier(0,-0.5,1,-0)", "cubic-bezier(0,-0.5,1,0)");
	EXPECT_FORMAT("cubic-bezier(0.1234567,10,0.000001,-10)",
		"cubic-bezier(0.123457,10,0.000001,-10)");
	/* The default (a zeroed spec) is linear. */
	struct veil_ease zero = { 0 };
	char buf[96];
	veil_ease_format(&zero, buf, sizeof(buf));
	CHECK(strcmp(buf, "linear") == 0, "%s", buf);
	CHECK(veil_ease_apply(&zero, 0.37) == 0.37);
	CHECK(veil_ease_apply(NULL, 0.37) == 0.37);
}

static void test_pick(void) {
	uint64_t state = 0;
	enum veil_transition_kind last = VEIL_TRANSITION_NONE;
	int kinds[VEIL_TRANSITION_RANDOM + 1] = { 0 }, sides[4] = { 0 };
	bool repeated = false, other = false;
	const int n = 20000;
	for (int i = 0; i < n; i++) {
		enum veil_side side = (enum veil_side)-1;
		enum veil_transition_kind kind = veil_transition_pick(&state, last, &side);
		repeated = repeated || kind == last;
		other = other || (kind != VEIL_TRANSITION_FADE && kind != VEIL_TRANSITION_WIPE &&
			kind != VEIL_TRANSITION_GROW && kind != VEIL_TRANSITION_SLIDE) ||
			(unsigned)side > VEIL_SIDE_BOTTOM;
		if (!other) {
			kinds[kind]++;
			sides[side]++;
		}
		last = kind;
	}
	CHECK(!repeated, "a kind picked twice in a row");
	CHECK(!other, "a kind other than fade, wipe, grow, slide, or a side beyond the four");
	/* Without repeats each kind still comes a quarter of the time: 5000 ± 5 %. */
	const enum veil_transition_kind four[] = { VEIL_TRANSITION_FADE, VEIL_TRANSITION_WIPE,
		VEIL_TRANSITION_GROW, VEIL_TRANSITION_SLIDE };
	for (int i = 0; i < 4; i++) {
		CHECK(kinds[four[i]] > n / 4 - n / 20 && kinds[four[i]] < n / 4 + n / 20,
			"%s %d times of %d", veil_transition_name(four[i]), kinds[four[i]], n);
		CHECK(sides[i] > n / 4 - n / 20 && sides[i] < n / 4 + n / 20, "side %s %d times",
			veil_side_name((enum veil_side)i), sides[i]);
	}
	/* The first pick may be any of the four; after one, the other three. */
	uint64_t a = 1;
	enum veil_side side;
	int seen = 0;
	for (int i = 0; i < 200; i++) {
		seen |= 1 << veil_transition_pick(&a, VEIL_TRANSITION_GROW, &side);
	}
	CHECK(seen == ((1 << VEIL_TRANSITION_FADE) | (1 << VEIL_TRANSITION_WIPE) |
		(1 << VEIL_TRANSITION_SLIDE)), "after grow: %#x", seen);
}

int main(void) {
	test_samples();
	test_shape();
	test_parse();
	test_format();
	test_pick();
	return check_summary("ease");
}
