/*
 * fade (and loopfade): the new picture's opacity rises from 0 to 1 over the old one. One
 * opacity per frame on the output's nodes and the rect's premultiplied colour; nothing else.
 */
#include "module/core/transition/transition.h"

static void fade_apply(struct veil_transition *transition, float progress) {
	veil_output_set_opacity(transition->output, progress);
}

const struct veil_transition_impl veil_transition_fade_impl = {
	.apply = fade_apply,
};
