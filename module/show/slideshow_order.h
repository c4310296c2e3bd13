/*
 * Which picture of a slideshow comes next: the order of a directory's files (name, mtime) and a
 * shuffle without a repeat until every picture was shown. Pure: no file is read, no scene
 * touched; unit-tested on its own (tests/unit/test-slideshow-order.c).
 */
#ifndef VEIL_MODULE_SLIDESHOW_ORDER_H
#define VEIL_MODULE_SLIDESHOW_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "module/words/command.h"

struct veil_package;

/* One file of the directory. */
struct veil_slide {
	char *path; /* malloc()ed */
	int64_t mtime_ns;
	int64_t size;
	bool bad; /* cannot be shown: passed over */
	/* A package's metadata and pictures' folders as stat() saw them (slideshow_scan.c), or 0. */
	uint64_t stamp;
	/* A wallpaper package's directory: the package the scan read (one reference), else NULL. */
	struct veil_package *package;
};

/* Sorts for name and shuffle (by name), or mtime (oldest first, then by name). */
void veil_slides_sort(struct veil_slide *slides, size_t n, enum veil_slideshow_order order);
/* Frees the paths, the packages' references and the array; NULL is allowed. */
void veil_slides_free(struct veil_slide *slides, size_t n);

struct veil_slide_order {
	enum veil_slideshow_order order;
	uint64_t rng; /* xorshift64 state, never 0 */
	/* shuffle: the paths shown in this cycle, sorted (strcmp) for bsearch */
	char **seen;
	size_t n_seen, cap_seen;
	/* shuffle: the paths shown, newest last, for `previous` (at most HISTORY) */
	char **history;
	size_t n_history;
};

void veil_slide_order_init(struct veil_slide_order *o, enum veil_slideshow_order order,
	uint64_t seed);
void veil_slide_order_finish(struct veil_slide_order *o);

/*
 * The index of the slide to show after (direction 1) or before (-1) current (NULL: the first),
 * among slides sorted by veil_slides_sort() for the same order. Bad slides are passed over.
 * -1 when no slide can be shown. In name and mtime order, current need not be among slides
 * any more: the one after is the next by the sort key. In shuffle, "after" is a random slide
 * not shown in this cycle (a new cycle once all were), "before" the one shown before current.
 */
long veil_slide_order_pick(struct veil_slide_order *o, const struct veil_slide *slides,
	size_t n, const struct veil_slide *current, int direction);
/* The slide is on screen now; direction as given to pick(). */
void veil_slide_order_shown(struct veil_slide_order *o, const char *path, int direction);
/*
 * Where current stands, from 1 to *count (the slides that can be shown); 0 when it is not
 * among them. In shuffle, the position is how many of them this cycle has shown.
 */
void veil_slide_order_position(const struct veil_slide_order *o,
	const struct veil_slide *slides, size_t n, const char *current, int *position,
	int *count);

#endif
