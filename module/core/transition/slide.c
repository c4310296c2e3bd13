/*
 * slide: the new picture moves in from an edge (`from <left|right|top|bottom>`, right when not
 * given) over the old one, which stays. The output's nodes and rect are moved and cut to the
 * output (veil_output_set_view), so that nothing shows on a neighbouring output: no node is
 * added.
 */
#include "module/core/transition/transition.h"

static void slide_apply(struct veil_transition *transition, float progress) {
	int width, height;
	veil_transition_output_size(transition, &width, &height);
	/* How far the picture still has to go. */
	int dx = (int)((1.0f - progress) * (float)width + 0.5f);
	int dy = (int)((1.0f - progress) * (float)height + 0.5f);
	struct wlr_box clip = { .width = width, .height = height };
	switch (transition->spec.side) {
	case VEIL_SIDE_LEFT:
		veil_output_set_view(transition->output, &clip, -dx, 0);
		break;
	case VEIL_SIDE_RIGHT:
		veil_output_set_view(transition->output, &clip, dx, 0);
		break;
	case VEIL_SIDE_TOP:
		veil_output_set_view(transition->output, &clip, 0, -dy);
		break;
	case VEIL_SIDE_BOTTOM:
		veil_output_set_view(transition->output, &clip, 0, dy);
		break;
	}
}

const struct veil_transition_impl veil_transition_slide_impl = {
	.apply = slide_apply,
};
