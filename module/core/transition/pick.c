/*
 * `transition random`: a kind for each change, never the one picked before on the output (a
 * change of wallpaper should look like a change of transition too), and a side for a wipe or a
 * slide. grow comes from the output's centre. Pure: the caller keeps the generator's state.
 */
#include "module/core/transition/transition.h"

/* xorshift64* (Vigna): enough for picking among four. */
static uint64_t next(uint64_t *state) {
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

enum veil_transition_kind veil_transition_pick(uint64_t *state, enum veil_transition_kind last,
		enum veil_side *side) {
	static const enum veil_transition_kind kinds[] = {
		VEIL_TRANSITION_FADE,
		VEIL_TRANSITION_WIPE,
		VEIL_TRANSITION_GROW,
		VEIL_TRANSITION_SLIDE,
	};
	enum veil_transition_kind choices[4];
	int n = 0;
	for (int i = 0; i < 4; i++) {
		if (kinds[i] != last) {
			choices[n++] = kinds[i];
		}
	}
	if (*state == 0) {
		*state = UINT64_C(0x9E3779B97F4A7C15);
	}
	/* The high bits are the generator's best. */
	enum veil_transition_kind kind = choices[(next(state) >> 32) % (uint64_t)n];
	*side = (enum veil_side)((next(state) >> 32) % 4);
	return kind;
}
