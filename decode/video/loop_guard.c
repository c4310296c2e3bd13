#include "decode/video/loop_guard.h"
#include "util/message.h"

enum veil_loop_verdict veil_loop_guard_end(struct veil_loop_guard *guard, int64_t now_us,
		uint64_t frames, char **message) {
	if (frames == 0) {
		/* A stream cut before its first whole frame: nothing will ever come. */
		veil_message_set(message, "The video ends before its first frame "
			"(is the file truncated?)");
		return VEIL_LOOP_STOP;
	}
	guard->fast = now_us - guard->last_us < VEIL_FAST_LOOP_US ? guard->fast + 1 : 0;
	guard->last_us = now_us;
	if (guard->fast >= VEIL_MAX_FAST_LOOPS) {
		veil_message_set(message, "The video stopped on its last frame: %d loops took less "
			"than %d ms each (was the file changed while it played?)", VEIL_MAX_FAST_LOOPS,
			VEIL_FAST_LOOP_US / 1000);
		return VEIL_LOOP_STOP;
	}
	uint64_t brought = frames - guard->frames_at_loop;
	guard->frames_at_loop = frames;
	guard->still = brought <= 1 ? guard->still + 1 : 0;
	guard->moved = guard->moved || brought > 1;
	if (guard->still >= VEIL_MAX_STILL_LOOPS && guard->moved) {
		veil_message_set(message, "The video stopped on its last frame: its loops bring no "
			"new frames (was the file changed while it played?)");
		return VEIL_LOOP_STOP;
	}
	return guard->still >= VEIL_MAX_STILL_LOOPS ? VEIL_LOOP_STAY : VEIL_LOOP_AGAIN;
}
