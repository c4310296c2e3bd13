/* Which slot of a timed slideshow is due when (module/show/timed_schedule.h). */
#include <stdlib.h>
#include "module/show/timed_schedule.h"

void veil_timed_at(const struct veil_timed_schedule *schedule, int64_t start_ms, int64_t now_ms,
		struct veil_timed_point *point) {
	int64_t cycle = schedule->cycle_ms;
	/* The position in the cycle, within [0, cycle) also before the start. */
	int64_t offset = (now_ms - start_ms) % cycle;
	if (offset < 0) {
		offset += cycle;
	}
	int64_t cycle_start = now_ms - offset;
	int64_t at = 0;
	size_t i = 0;
	for (; i + 1 < schedule->n_slots; i++) {
		if (offset < at + schedule->slots[i].duration_ms) {
			break;
		}
		at += schedule->slots[i].duration_ms;
	}
	const struct veil_timed_slot *slot = &schedule->slots[i];
	point->slot = i;
	point->into_ms = offset - at;
	point->next_ms = cycle_start + at + slot->duration_ms;
	point->progress = (float)((double)point->into_ms / (double)slot->duration_ms);
}

bool veil_timed_start_ms(const struct veil_timed_schedule *schedule, int64_t *start_ms) {
	struct tm tm = schedule->start;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31)) {
		return false;
	}
	*start_ms = (int64_t)t * 1000;
	return true;
}

void veil_timed_schedule_finish(struct veil_timed_schedule *schedule) {
	for (size_t i = 0; i < schedule->n_slots; i++) {
		free(schedule->slots[i].from);
		free(schedule->slots[i].to);
		for (size_t k = 0; k < schedule->slots[i].n_sizes; k++) {
			free(schedule->slots[i].sizes[k].path);
		}
		free(schedule->slots[i].sizes);
	}
	free(schedule->slots);
	schedule->slots = NULL;
	schedule->n_slots = 0;
	schedule->cycle_ms = 0;
}
