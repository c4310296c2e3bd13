/*
 * module/show/slideshow_order.c: name order (natural), mtime order, wrapping, bad files passed
 * over, files added and removed between picks, a shuffle that shows every picture once per cycle,
 * and `previous`. Pure functions: no files, no scene.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "module/show/slideshow_order.h"
#include "check.h"

static struct veil_slide *make(const char *const names[], const int64_t mtimes[], size_t n) {
	struct veil_slide *slides = calloc(n, sizeof(*slides));
	for (size_t i = 0; i < n; i++) {
		slides[i].path = strdup(names[i]);
		slides[i].mtime_ns = mtimes != NULL ? mtimes[i] : 0;
	}
	return slides;
}

/* Shows the picked slide as the slideshow does: returns its path (static copy). */
static const char *advance(struct veil_slide_order *o, struct veil_slide *slides, size_t n,
		struct veil_slide *current, int direction) {
	static char shown[256];
	long at = veil_slide_order_pick(o, slides, n, current->path != NULL ? current : NULL,
		direction);
	if (at < 0) {
		return NULL;
	}
	free(current->path);
	*current = slides[at];
	current->path = strdup(slides[at].path);
	veil_slide_order_shown(o, current->path, direction);
	snprintf(shown, sizeof(shown), "%s", current->path);
	return shown;
}

static void test_name_order(void) {
	const char *names[] = { "/d/img10.png", "/d/img2.png", "/d/img1.png", "/d/b.jpg" };
	struct veil_slide *slides = make(names, NULL, 4);
	veil_slides_sort(slides, 4, VEIL_SLIDESHOW_NAME);
	const char *expect[] = { "/d/b.jpg", "/d/img1.png", "/d/img2.png", "/d/img10.png" };
	for (int i = 0; i < 4; i++) {
		CHECK(strcmp(slides[i].path, expect[i]) == 0, "%d: %s, not %s", i, slides[i].path,
			expect[i]);
	}
	struct veil_slide_order o;
	veil_slide_order_init(&o, VEIL_SLIDESHOW_NAME, 1);
	struct veil_slide current = {0};
	for (int i = 0; i < 6; i++) {
		const char *p = advance(&o, slides, 4, &current, 1);
		CHECK(p != NULL && strcmp(p, expect[i % 4]) == 0, "step %d: %s", i, p);
	}
	/* current is img1 (step 5): previous gives b, then img10 (wraps), then img2. */
	const char *back[] = { "/d/b.jpg", "/d/img10.png", "/d/img2.png" };
	for (int i = 0; i < 3; i++) {
		const char *p = advance(&o, slides, 4, &current, -1);
		CHECK(p != NULL && strcmp(p, back[i]) == 0, "back %d: %s", i, p);
	}
	int position, count;
	veil_slide_order_position(&o, slides, 4, current.path, &position, &count);
	CHECK(position == 3 && count == 4, "position %d of %d", position, count);

	/* A bad file is passed over, and not counted. */
	slides[0].bad = true; /* b.jpg */
	const char *p = advance(&o, slides, 4, &current, 1);
	CHECK(p != NULL && strcmp(p, "/d/img10.png") == 0, "after img2: %s", p);
	veil_slide_order_position(&o, slides, 4, current.path, &position, &count);
	CHECK(position == 3 && count == 3, "b is bad: position %d of %d", position, count);

	/* img1 renamed img1b: after img10, b is passed over and the new name comes. */
	free(slides[1].path);
	slides[1].path = strdup("/d/img1b.png");
	p = advance(&o, slides, 4, &current, 1);
	CHECK(p != NULL && strcmp(p, "/d/img1b.png") == 0, "added file next: %s", p);
	slides[1].bad = slides[2].bad = slides[3].bad = true;
	CHECK(veil_slide_order_pick(&o, slides, 4, &current, 1) == -1, "nothing usable: -1");

	free(current.path);
	veil_slide_order_finish(&o);
	veil_slides_free(slides, 4);
}

static void test_mtime_order(void) {
	const char *names[] = { "/d/a.png", "/d/b.png", "/d/c.png", "/d/d.png" };
	const int64_t mtimes[] = { 40, 10, 30, 10 };
	struct veil_slide *slides = make(names, mtimes, 4);
	veil_slides_sort(slides, 4, VEIL_SLIDESHOW_MTIME);
	const char *expect[] = { "/d/b.png", "/d/d.png", "/d/c.png", "/d/a.png" };
	struct veil_slide_order o;
	veil_slide_order_init(&o, VEIL_SLIDESHOW_MTIME, 1);
	struct veil_slide current = {0};
	for (int i = 0; i < 5; i++) {
		const char *p = advance(&o, slides, 4, &current, 1);
		CHECK(p != NULL && strcmp(p, expect[i % 4]) == 0, "step %d: %s", i, p);
	}
	free(current.path);
	veil_slide_order_finish(&o);
	veil_slides_free(slides, 4);
}

static void test_shuffle(void) {
	enum { N = 37 };
	const char *names[N];
	char buf[N][32];
	for (int i = 0; i < N; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/d/%02d.png", i);
		names[i] = buf[i];
	}
	struct veil_slide *slides = make(names, NULL, N);
	veil_slides_sort(slides, N, VEIL_SLIDESHOW_SHUFFLE);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct veil_slide_order o;
		veil_slide_order_init(&o, VEIL_SLIDESHOW_SHUFFLE, seed * 7919);
		struct veil_slide current = {0};
		char prev_last[32] = "";
		for (int cycle = 0; cycle < 3; cycle++) {
			int seen[N] = {0};
			bool in_order = true;
			for (int i = 0; i < N; i++) {
				const char *p = advance(&o, slides, N, &current, 1);
				if (!CHECK(p != NULL, "seed %d: a pick", (int)seed)) {
					break;
				}
				int k = atoi(p + 3);
				seen[k]++;
				in_order = in_order && k == i;
				if (i == 0) {
					CHECK(strcmp(p, prev_last) != 0, "a new cycle does not "
						"repeat the last picture: %s", p);
				}
				int position, count;
				veil_slide_order_position(&o, slides, N, current.path, &position,
					&count);
				CHECK(position == i + 1 && count == N, "seed %d cycle %d: position "
					"%d of %d at %d", (int)seed, cycle, position, count, i);
				snprintf(prev_last, sizeof(prev_last), "%s", p);
			}
			for (int k = 0; k < N; k++) {
				CHECK(seen[k] == 1, "seed %d cycle %d: %02d shown %d times", (int)seed,
					cycle, k, seen[k]);
			}
			CHECK(!in_order, "seed %d: shuffled, not in name order", (int)seed);
		}
		/* previous walks back the history. */
		char last3[3][32];
		for (int i = 0; i < 3; i++) {
			snprintf(last3[i], sizeof(last3[i]), "%s", advance(&o, slides, N, &current, 1));
		}
		const char *p = advance(&o, slides, N, &current, -1);
		CHECK(p != NULL && strcmp(p, last3[1]) == 0, "previous: %s, not %s", p, last3[1]);
		p = advance(&o, slides, N, &current, -1);
		CHECK(p != NULL && strcmp(p, last3[0]) == 0, "previous again: %s, not %s", p,
			last3[0]);
		free(current.path);
		veil_slide_order_finish(&o);
	}

	/* One picture: it stays; none usable: -1. */
	struct veil_slide_order o;
	veil_slide_order_init(&o, VEIL_SLIDESHOW_SHUFFLE, 5);
	struct veil_slide current = {0};
	const char *p = advance(&o, slides, 1, &current, 1);
	CHECK(p != NULL && strcmp(p, slides[0].path) == 0, "one: %s", p);
	p = advance(&o, slides, 1, &current, 1);
	CHECK(p != NULL && strcmp(p, slides[0].path) == 0, "one again: %s", p);
	slides[0].bad = true;
	CHECK(veil_slide_order_pick(&o, slides, 1, NULL, 1) == -1, "none usable: -1");
	free(current.path);
	veil_slide_order_finish(&o);
	veil_slides_free(slides, N);
}

int main(void) {
	test_name_order();
	test_mtime_order();
	test_shuffle();
	return check_summary("slideshow-order");
}
