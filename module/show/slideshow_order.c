#define _GNU_SOURCE /* strverscmp */
#include <stdlib.h>
#include <string.h>
#include "module/core/package_read.h"
#include "module/show/slideshow_order.h"

/* How far back `previous` goes in a shuffle. */
#define HISTORY 64

static int by_name(const void *a, const void *b) {
	const struct veil_slide *sa = a, *sb = b;
	int c = strverscmp(sa->path, sb->path);
	return c != 0 ? c : strcmp(sa->path, sb->path);
}

static int by_mtime(const void *a, const void *b) {
	const struct veil_slide *sa = a, *sb = b;
	if (sa->mtime_ns != sb->mtime_ns) {
		return sa->mtime_ns < sb->mtime_ns ? -1 : 1;
	}
	return by_name(a, b);
}

static int (*compare_of(enum veil_slideshow_order order))(const void *, const void *) {
	return order == VEIL_SLIDESHOW_MTIME ? by_mtime : by_name;
}

void veil_slides_sort(struct veil_slide *slides, size_t n, enum veil_slideshow_order order) {
	if (n > 1) {
		qsort(slides, n, sizeof(*slides), compare_of(order));
	}
}

void veil_slides_free(struct veil_slide *slides, size_t n) {
	if (slides == NULL) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		free(slides[i].path);
		veil_package_unref(slides[i].package);
	}
	free(slides);
}

void veil_slide_order_init(struct veil_slide_order *o, enum veil_slideshow_order order,
		uint64_t seed) {
	*o = (struct veil_slide_order){ .order = order, .rng = seed != 0 ? seed : 0x9e3779b9 };
}

static void clear_seen(struct veil_slide_order *o) {
	for (size_t i = 0; i < o->n_seen; i++) {
		free(o->seen[i]);
	}
	o->n_seen = 0;
}

void veil_slide_order_finish(struct veil_slide_order *o) {
	clear_seen(o);
	free(o->seen);
	for (size_t i = 0; i < o->n_history; i++) {
		free(o->history[i]);
	}
	free(o->history);
	*o = (struct veil_slide_order){0};
}

static uint64_t next_random(struct veil_slide_order *o) {
	uint64_t x = o->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	o->rng = x;
	return x;
}

/* Where path is in seen, or where it would go (*found false). */
static size_t seen_index(const struct veil_slide_order *o, const char *path, bool *found) {
	size_t lo = 0, hi = o->n_seen;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(o->seen[mid], path);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	*found = false;
	return lo;
}

static bool was_seen(const struct veil_slide_order *o, const char *path) {
	bool found;
	seen_index(o, path, &found);
	return found;
}

static bool add_seen(struct veil_slide_order *o, const char *path) {
	bool found;
	size_t at = seen_index(o, path, &found);
	if (found) {
		return true;
	}
	if (o->n_seen == o->cap_seen) {
		size_t cap = o->cap_seen > 0 ? 2 * o->cap_seen : 16;
		char **seen = realloc(o->seen, cap * sizeof(*seen));
		if (seen == NULL) {
			return false;
		}
		o->seen = seen;
		o->cap_seen = cap;
	}
	char *copy = strdup(path);
	if (copy == NULL) {
		return false;
	}
	memmove(o->seen + at + 1, o->seen + at, (o->n_seen - at) * sizeof(*o->seen));
	o->seen[at] = copy;
	o->n_seen++;
	return true;
}

static long find_path(const struct veil_slide *slides, size_t n, const char *path) {
	for (size_t i = 0; i < n; i++) {
		if (!slides[i].bad && strcmp(slides[i].path, path) == 0) {
			return (long)i;
		}
	}
	return -1;
}

/* A random usable slide, not seen in this cycle and not current when avoid_current. */
static long pick_unseen(struct veil_slide_order *o, const struct veil_slide *slides, size_t n,
		const char *current, bool avoid_current) {
	size_t candidates = 0;
	for (size_t i = 0; i < n; i++) {
		bool skip = slides[i].bad || was_seen(o, slides[i].path) ||
			(avoid_current && current != NULL && strcmp(slides[i].path, current) == 0);
		candidates += !skip;
	}
	if (candidates == 0) {
		return -1;
	}
	size_t k = (size_t)(next_random(o) % candidates);
	for (size_t i = 0; i < n; i++) {
		bool skip = slides[i].bad || was_seen(o, slides[i].path) ||
			(avoid_current && current != NULL && strcmp(slides[i].path, current) == 0);
		if (!skip && k-- == 0) {
			return (long)i;
		}
	}
	return -1;
}

static long pick_shuffle(struct veil_slide_order *o, const struct veil_slide *slides, size_t n,
		const struct veil_slide *current, int direction) {
	const char *path = current != NULL ? current->path : NULL;
	if (direction < 0) {
		/* history[n_history - 1] is current: the one before it still there. */
		for (size_t i = o->n_history; i-- > 1;) {
			long at = find_path(slides, n, o->history[i - 1]);
			if (at >= 0) {
				return at;
			}
		}
		return path != NULL ? find_path(slides, n, path) : -1;
	}
	long at = pick_unseen(o, slides, n, path, false);
	if (at >= 0) {
		return at;
	}
	/*
	 * Every picture was shown: the first of a new cycle, not the one on screen. The cycle
	 * starts when it is shown (a picked picture may never be): seen stays as it is till then.
	 */
	struct veil_slide_order fresh = { .rng = o->rng };
	at = pick_unseen(&fresh, slides, n, path, true);
	o->rng = fresh.rng;
	return at >= 0 ? at : (path != NULL ? find_path(slides, n, path) : -1);
}

long veil_slide_order_pick(struct veil_slide_order *o, const struct veil_slide *slides,
		size_t n, const struct veil_slide *current, int direction) {
	if (o->order == VEIL_SLIDESHOW_SHUFFLE) {
		return pick_shuffle(o, slides, n, current, direction);
	}
	int (*cmp)(const void *, const void *) = compare_of(o->order);
	long first = -1, last = -1, after = -1, before = -1;
	for (size_t i = 0; i < n; i++) {
		if (slides[i].bad) {
			continue;
		}
		if (first < 0) {
			first = (long)i;
		}
		last = (long)i;
		if (current == NULL) {
			continue;
		}
		int c = cmp(&slides[i], current);
		if (c > 0 && after < 0) {
			after = (long)i;
		}
		if (c < 0) {
			before = (long)i;
		}
	}
	if (direction >= 0) {
		/* After the last one, the first again. */
		return after >= 0 ? after : first;
	}
	return before >= 0 ? before : last;
}

void veil_slide_order_shown(struct veil_slide_order *o, const char *path, int direction) {
	if (o->order != VEIL_SLIDESHOW_SHUFFLE) {
		return;
	}
	/* Forward to a picture this cycle showed already: pick() found them all shown. */
	if (direction >= 0 && was_seen(o, path)) {
		clear_seen(o);
	}
	add_seen(o, path);
	if (direction < 0) {
		/* Back in the history: what came after the one shown now is forgotten. */
		while (o->n_history > 0 && strcmp(o->history[o->n_history - 1], path) != 0) {
			free(o->history[--o->n_history]);
		}
		if (o->n_history > 0) {
			return;
		}
	}
	if (o->history == NULL) {
		o->history = calloc(HISTORY, sizeof(*o->history));
		if (o->history == NULL) {
			return;
		}
	}
	if (o->n_history == HISTORY) {
		free(o->history[0]);
		memmove(o->history, o->history + 1, (HISTORY - 1) * sizeof(*o->history));
		o->n_history--;
	}
	char *copy = strdup(path);
	if (copy != NULL) {
		o->history[o->n_history++] = copy;
	}
}

void veil_slide_order_position(const struct veil_slide_order *o,
		const struct veil_slide *slides, size_t n, const char *current, int *position,
		int *count) {
	*position = 0;
	*count = 0;
	int shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (slides[i].bad) {
			continue;
		}
		(*count)++;
		if (o->order == VEIL_SLIDESHOW_SHUFFLE) {
			shown += was_seen(o, slides[i].path);
		} else if (current != NULL && strcmp(slides[i].path, current) == 0) {
			*position = *count;
		}
	}
	if (o->order == VEIL_SLIDESHOW_SHUFFLE && current != NULL &&
			find_path(slides, n, current) >= 0) {
		*position = shown;
	}
}
