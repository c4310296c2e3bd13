/*
 * A timed slideshow's schedule, as GNOME's timed background XML gives it (module/show/timed_xml.c
 * reads one): a start time in local time, then slots played one after another and the whole
 * repeated for ever, in both directions from the start: a static slot shows one picture, a
 * transition slot fades from one picture to another over its whole duration. Pure: the maths of
 * which slot is due at a time, and when the next one starts.
 */
#ifndef VEIL_MODULE_TIMED_SCHEDULE_H
#define VEIL_MODULE_TIMED_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "module/core/package_read.h"

enum veil_timed_slot_kind {
	VEIL_TIMED_STATIC,
	VEIL_TIMED_TRANSITION,
};

struct veil_timed_slot {
	enum veil_timed_slot_kind kind;
	int64_t duration_ms; /* > 0 */
	/* STATIC: to is the picture (from NULL); TRANSITION: from fades into to. malloc()ed. */
	char *from, *to;
	/*
	 * The top-level image (from 1) of from and to, for an Apple dynamic wallpaper's slots
	 * (module/show/dynamic.c); 0: the file's own picture.
	 */
	int from_item, to_item;
	/*
	 * STATIC: its <file>'s <size> choices (to is the largest), of which each output shows the
	 * one that fits it, as a package's (module/core/package.c); NULL and 0 when it has none.
	 */
	struct veil_package_picture *sizes;
	size_t n_sizes;
};

/* A cycle is at most this long, and a slot at least 1 ms. */
#define VEIL_TIMED_MAX_CYCLE_MS ((int64_t)366 * 24 * 3600 * 1000)
/* At most this many slots. */
#define VEIL_TIMED_MAX_SLOTS 4096

struct veil_timed_schedule {
	/* <starttime>: local time, as mktime() reads it (tm_isdst -1: the zone's rule decides). */
	struct tm start;
	struct veil_timed_slot *slots;
	size_t n_slots;
	int64_t cycle_ms; /* the sum of the slots' durations, > 0 */
};

/* Where a schedule is at a time. */
struct veil_timed_point {
	size_t slot; /* the slot due */
	int64_t into_ms; /* how far into it, 0 to its duration - 1 */
	int64_t next_ms; /* the time the next slot starts, in the same milliseconds as now */
	float progress; /* into_ms / duration: a transition's share of `to` */
};

/*
 * The slot due at now_ms, for a schedule starting at start_ms (both milliseconds since the
 * epoch): the cycle repeats before the start as after it. The schedule must have slots.
 */
void veil_timed_at(const struct veil_timed_schedule *schedule, int64_t start_ms, int64_t now_ms,
	struct veil_timed_point *point);
/*
 * The start time in milliseconds since the epoch, in the local time zone of now (mktime()):
 * false when it is not a time (mktime() fails).
 */
bool veil_timed_start_ms(const struct veil_timed_schedule *schedule, int64_t *start_ms);
/* Frees the slots (the schedule itself is the caller's). */
void veil_timed_schedule_finish(struct veil_timed_schedule *schedule);

#endif
