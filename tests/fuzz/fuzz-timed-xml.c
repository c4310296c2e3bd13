/*
 * veil_timed_xml_parse and the schedule maths: a timed background's XML as a broken or hostile
 * file may hold it. Beyond the sanitizers' findings, a run stops when the reader breaks its
 * contract: a refusal without a sentence naming the file, or a schedule it accepted that the
 * maths cannot play (no slots, durations that do not add up to the cycle, a slot at a time
 * outside the schedule, a next change not after now).
 */
#define _GNU_SOURCE
#include "fuzz-common.h"
#include "module/show/timed_schedule.h"
#include "module/show/timed_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct veil_timed_schedule s;
	char *message = NULL;
	int ret = veil_timed_xml_parse((const char *)data, size, "/f/t.xml", "/f", &s, &message);
	if (ret < 0) {
		FUZZ_CHECK(message != NULL && strstr(message, "/f/t.xml") != NULL,
			"a refusal that does not name the file: %s", message != NULL ? message : "");
		FUZZ_CHECK(s.slots == NULL && s.n_slots == 0, "a refusal that left slots");
		free(message);
		return 0;
	}
	FUZZ_CHECK(message == NULL, "accepted with a message: %s", message);
	FUZZ_CHECK(s.n_slots > 0 && s.n_slots <= VEIL_TIMED_MAX_SLOTS, "%zu slots", s.n_slots);
	int64_t sum = 0;
	for (size_t i = 0; i < s.n_slots; i++) {
		const struct veil_timed_slot *slot = &s.slots[i];
		FUZZ_CHECK(slot->duration_ms >= 1, "slot %zu lasts %lld ms", i,
			(long long)slot->duration_ms);
		FUZZ_CHECK(slot->to != NULL && slot->to[0] == '/', "slot %zu: a picture '%s'", i,
			slot->to != NULL ? slot->to : "(none)");
		FUZZ_CHECK((slot->kind == VEIL_TIMED_STATIC) == (slot->from == NULL),
			"slot %zu: from and kind disagree", i);
		sum += slot->duration_ms;
	}
	FUZZ_CHECK(sum == s.cycle_ms && sum <= VEIL_TIMED_MAX_CYCLE_MS, "cycle %lld, sum %lld",
		(long long)s.cycle_ms, (long long)sum);
	const int64_t start = 1700000000000;
	const int64_t times[] = { start, start - 1, start + s.cycle_ms, start + 12345678,
		start - 98765432101, start + 98765432101 };
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		struct veil_timed_point p;
		veil_timed_at(&s, start, times[i], &p);
		FUZZ_CHECK(p.slot < s.n_slots, "slot %zu of %zu", p.slot, s.n_slots);
		FUZZ_CHECK(p.into_ms >= 0 && p.into_ms < s.slots[p.slot].duration_ms,
			"%lld ms into a slot of %lld", (long long)p.into_ms,
			(long long)s.slots[p.slot].duration_ms);
		FUZZ_CHECK(p.next_ms > times[i] && p.next_ms - times[i] ==
			s.slots[p.slot].duration_ms - p.into_ms, "next change %lld at %lld",
			(long long)p.next_ms, (long long)times[i]);
	}
	veil_timed_schedule_finish(&s);
	return 0;
}
