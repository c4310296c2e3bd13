/*
 * wipe: the new picture, where it belongs, shown up to a line that moves from an edge (`from
 * <left|right|top|bottom>`, left when not given) to the other. The output's nodes and rect are
 * cut (a narrower source box and dest size, veil_output_set_view): no node is added.
 */
#include "module/core/transition/transition.h"

static int share(float progress, int size) {
	int n = (int)(progress * (float)size + 0.5f);
	return n < 0 ? 0 : n > size ? size : n;
}

static void wipe_apply(struct veil_transition *transition, float progress) {
	int width, height;
	veil_transition_output_size(transition, &width, &height);
	struct wlr_box clip = { .width = width, .height = height };
	switch (transition->spec.side) {
	case VEIL_SIDE_LEFT:
		clip.width = share(progress, width);
		break;
	case VEIL_SIDE_RIGHT:
		clip.width = share(progress, width);
		clip.x = width - clip.width;
		break;
	case VEIL_SIDE_TOP:
		clip.height = share(progress, height);
		break;
	case VEIL_SIDE_BOTTOM:
		clip.height = share(progress, height);
		clip.y = height - clip.height;
		break;
	}
	veil_output_set_view(transition->output, &clip, 0, 0);
}

const struct veil_transition_impl veil_transition_wipe_impl = {
	.apply = wipe_apply,
};
