/*
 * util/fit.c: which picture of a wallpaper package (or of a GNOME <size> list) an output gets.
 * The sizes are those KDE Plasma 6's packages ship (plasma-workspace-wallpapers 6.7: Kite's
 * landscape ones, Coast's 7680x2160 and 1440x2960, Mountain's 1080x1920); outputs landscape,
 * ultrawide, portrait (a 1080x1920 mode, or 1920x1080 turned by transform 90: the caller gives
 * the transformed size), and scale 2 (a 1280x720 logical output is 2560x1440 buffer pixels).
 */
#include <string.h>
#include "util/fit.h"
#include "check.h"

/* Sizes from plasma-workspace-wallpapers 6.7's contents/images/ directories. */
static const struct veil_fit_size plasma[] = {
	{ 1080, 1920 }, { 1280, 1024 }, { 1366, 768 }, { 1440, 2960 }, { 1920, 1080 },
	{ 2560, 1440 }, { 2560, 1600 }, { 3840, 2160 }, { 5120, 2880 }, { 7680, 2160 },
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *pick(const struct veil_fit_size *sizes, size_t n, int w, int h) {
	static char buf[32];
	int i = veil_fit_choose(sizes, n, w, h);
	if (i < 0) {
		return "none";
	}
	snprintf(buf, sizeof(buf), "%dx%d", sizes[i].width, sizes[i].height);
	return buf;
}

#define PICK(w, h, want) do { \
	const char *got = pick(plasma, N(plasma), (w), (h)); \
	CHECK(strcmp(got, (want)) == 0, "%dx%d: %s, want %s", (w), (h), got, (want)); \
} while (0)

static void test_flow(void) {
	/* Landscape: the ratio first, then the nearest width at least as large. */
	PICK(1920, 1080, "1920x1080");
	PICK(1280, 720, "1920x1080");
	PICK(1366, 768, "1366x768");
	PICK(1920, 1200, "2560x1600");
	/* Scale 2: 1280x720 logical is 2560x1440 buffer pixels. */
	PICK(2560, 1440, "2560x1440");
	/* 4K and beyond: 5120x2880 covers 4K's 16:9 as 3840x2160 does; the nearest width wins. */
	PICK(3840, 2160, "3840x2160");
	PICK(4096, 2304, "5120x2880");
	/* Ultrawide: 32:9 outputs get the 32:9 picture ... */
	PICK(5120, 1440, "7680x2160");
	PICK(3840, 1080, "7680x2160");
	/*
	 * ... and 21:9 ones (2.39) the 16:9 picture, whose ratio is nearer (1.78 against 3.56): the
	 * nearest width among the 16:9 ones that cover the output.
	 */
	PICK(3440, 1440, "3840x2160");
	PICK(2560, 1080, "2560x1440");
	/* Portrait: a 1080x1920 mode, or 1920x1080 turned by transform 90 (the same size). */
	PICK(1080, 1920, "1080x1920");
	PICK(1440, 2560, "1440x2960");
	/* Larger than every picture: the nearest ratio among all, then the nearest width. */
	PICK(8000, 4500, "5120x2880");
	PICK(2000, 4000, "1440x2960");
	/* 5:4 */
	PICK(1280, 1024, "1280x1024");
	/* No output size yet: the largest (by area). */
	PICK(0, 0, "7680x2160");
}

static void test_ties_and_edges(void) {
	/* The same ratio at three widths: the one nearest the output's among those covering it. */
	const struct veil_fit_size same[] = { { 3840, 2160 }, { 1920, 1080 }, { 2560, 1440 } };
	CHECK(veil_fit_choose(same, 3, 2000, 1125) == 2);
	CHECK(veil_fit_choose(same, 3, 1024, 576) == 1);
	/* None covers: the nearest width among those of the best ratio. */
	CHECK(veil_fit_choose(same, 3, 7680, 4320) == 0);
	/* A picture covering the output is preferred to a smaller one of its exact ratio. */
	const struct veil_fit_size cover[] = { { 1280, 800 }, { 2560, 1440 } };
	CHECK(veil_fit_choose(cover, 2, 1920, 1200) == 1);
	/* Nothing, and nonsense sizes. */
	CHECK(veil_fit_choose(NULL, 0, 1920, 1080) == -1);
	const struct veil_fit_size bad[] = { { 0, 1080 }, { -5, 5 } };
	CHECK(veil_fit_choose(bad, 2, 1920, 1080) == -1);
}

static void test_why(void) {
	char buf[80];
	struct veil_fit_size s = { 1920, 1080 };
	veil_fit_why(&s, 1920, 1080, buf, sizeof(buf));
	CHECK(strcmp(buf, "16:9, at least 1920x1080") == 0, "%s", buf);
	s = (struct veil_fit_size){ 7680, 2160 };
	veil_fit_why(&s, 2560, 1080, buf, sizeof(buf));
	CHECK(strcmp(buf, "32:9, at least 2560x1080") == 0, "%s", buf);
	s = (struct veil_fit_size){ 1440, 2960 };
	veil_fit_why(&s, 1440, 2560, buf, sizeof(buf));
	CHECK(strcmp(buf, "18:37, at least 1440x2560") == 0, "%s", buf);
	s = (struct veil_fit_size){ 5120, 2880 };
	veil_fit_why(&s, 8000, 4500, buf, sizeof(buf));
	CHECK(strcmp(buf, "16:9, none as large as 8000x4500") == 0, "%s", buf);
}

static void test_names(void) {
	struct veil_fit_size s;
	CHECK(veil_fit_size_from_name("1920x1080.png", &s) && s.width == 1920 && s.height == 1080);
	CHECK(veil_fit_size_from_name("5120x2880.svg", &s) && s.width == 5120);
	CHECK(veil_fit_size_from_name("1440x2960.jpg", &s) && s.height == 2960);
	CHECK(!veil_fit_size_from_name("screenshot.png", &s));
	CHECK(!veil_fit_size_from_name("1920x1080", &s));
	CHECK(!veil_fit_size_from_name("1920x.png", &s));
	CHECK(!veil_fit_size_from_name("x1080.png", &s));
	CHECK(!veil_fit_size_from_name("0x1080.png", &s));
	CHECK(!veil_fit_size_from_name("-1920x1080.png", &s));
	CHECK(!veil_fit_size_from_name("99999999x1080.png", &s));
	CHECK(!veil_fit_size_from_name("1920x1080.", &s));
}

int main(void) {
	test_flow();
	test_ties_and_edges();
	test_why();
	test_names();
	return check_summary("fit");
}
