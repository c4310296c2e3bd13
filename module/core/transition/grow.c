/*
 * grow: the new picture inside a circle that grows from a point (`at <x>,<y>`, in logical
 * pixels or percent of the output; the centre when not given) until it covers the output.
 *
 * The scene graph clips nothing to a circle: a buffer node shows a rectangle of its buffer.
 * The circle is drawn as STRIPS horizontal bands of equal height over the rows it spans on the
 * output, each band the new picture cut to the circle's width at the band's middle row (a
 * staircase: off by at most a band's height at the top and the bottom of the circle, by a
 * fraction of a pixel across its middle). One band is the output's own rect and nodes, cut by
 * veil_output_set_view; every other band has a copy of the rect and of each buffer node, made
 * once when the transition begins and moved and cut on each frame: a few dozen nodes that lock
 * the same buffers (no pixel is copied). A video shown in the circle goes on playing in every
 * band (the copies follow its frames).
 *
 * Cost: the bands are nodes in the scene for the transition's length, each drawn as a
 * rectangle (pixman: one composite per band and node), and each frame damages the circle's
 * bounding box. A picture made of many nodes (tile mode) gets fewer bands, so that the copies
 * stay under MAX_COPIES.
 */
#include <math.h>
#include <stdlib.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_scene.h>
#include "module/core/transition/transition.h"

#define STRIPS 48
#define MIN_STRIPS 8
#define MAX_COPIES 512

struct grow {
	struct veil_transition *transition;
	int n_strips;
	int own; /* the band the output's own nodes show, this frame */
	int n_pieces;
	/* The new picture's nodes, as laid out; their buffers are not ours to keep (no lock). */
	struct veil_piece *pieces;
	int width, height; /* of the frame they showed: a frame of another size is not put on */
	/* Per band: a copy of the rect (NULL without one) and n_pieces buffer copies. */
	struct wlr_scene_rect **rects;
	struct wlr_scene_buffer **copies; /* n_strips * n_pieces */
	/* A video shown in the circle: its frames go on the copies too. */
	struct veil_source *source;
	struct wl_listener source_frame;
};

static void handle_source_frame(struct wl_listener *listener, void *data) {
	struct grow *grow = wl_container_of(listener, grow, source_frame);
	struct wlr_buffer *frame = grow->source->frame;
	if (frame == NULL || grow->transition->old == NULL || frame->width != grow->width ||
			frame->height != grow->height) {
		return;
	}
	for (int i = 0; i < grow->n_strips * grow->n_pieces; i++) {
		if (grow->copies[i] != NULL) {
			veil_node_set_frame(grow->copies[i], frame);
		}
	}
}

static void make_copies(struct grow *grow) {
	struct veil_transition *transition = grow->transition;
	struct veil_output *output = transition->output;
	struct wlr_scene_rect *rect = output->rect;
	enum wlr_scale_filter_mode filter = veil_output_filter_mode(output);
	for (int s = 0; s < grow->n_strips; s++) {
		if (rect->node.enabled) {
			grow->rects[s] = wlr_scene_rect_create(transition->old, 0, 0, rect->color);
		}
		for (int p = 0; p < grow->n_pieces; p++) {
			const struct veil_piece *piece = &grow->pieces[p];
			if (piece->buffer == NULL) {
				continue;
			}
			struct wlr_scene_buffer *copy = wlr_scene_buffer_create(transition->old, NULL);
			if (copy != NULL) {
				veil_node_set_frame(copy, piece->buffer);
				/* Copies of the new picture: its setting's scaling. */
				wlr_scene_buffer_set_filter_mode(copy, filter);
				wlr_scene_node_set_enabled(&copy->node, false);
			}
			grow->copies[s * grow->n_pieces + p] = copy;
		}
	}
}

static void grow_begin(struct veil_transition *transition) {
	struct veil_output *output = transition->output;
	struct grow *grow = calloc(1, sizeof(*grow));
	if (grow == NULL || transition->old == NULL) {
		free(grow);
		return;
	}
	grow->transition = transition;
	wl_list_init(&grow->source_frame.link);
	grow->n_pieces = veil_output_get_pieces(output, NULL, 0);
	int per_strip = grow->n_pieces + 1;
	grow->n_strips = MAX_COPIES / per_strip < STRIPS ? MAX_COPIES / per_strip : STRIPS;
	if (grow->n_strips < MIN_STRIPS) {
		grow->n_strips = MIN_STRIPS;
	}
	grow->pieces = calloc((size_t)(grow->n_pieces > 0 ? grow->n_pieces : 1),
		sizeof(*grow->pieces));
	grow->rects = calloc((size_t)grow->n_strips, sizeof(*grow->rects));
	grow->copies = calloc((size_t)(grow->n_strips * (grow->n_pieces > 0 ? grow->n_pieces : 1)),
		sizeof(*grow->copies));
	if (grow->pieces == NULL || grow->rects == NULL || grow->copies == NULL) {
		/* Without memory: the output's own band alone, the rest comes at the end. */
		free(grow->pieces);
		free(grow->rects);
		free(grow->copies);
		grow->pieces = NULL;
		grow->rects = NULL;
		grow->copies = NULL;
		grow->n_pieces = 0;
		grow->n_strips = 1;
	} else {
		veil_output_get_pieces(output, grow->pieces, grow->n_pieces);
		for (int p = 0; p < grow->n_pieces; p++) {
			if (grow->pieces[p].buffer != NULL) {
				grow->width = grow->pieces[p].buffer->width;
				grow->height = grow->pieces[p].buffer->height;
			}
		}
		make_copies(grow);
	}
	/* Copies above the old picture's copies, below the output's own nodes. */
	struct veil_source *source = output->source;
	if (source != NULL && source->impl->kind == VEIL_SOURCE_VIDEO && grow->copies != NULL) {
		grow->source = veil_source_ref(source);
		grow->source_frame.notify = handle_source_frame;
		wl_signal_add(&source->events.frame, &grow->source_frame);
	}
	transition->kind_data = grow;
}

/* The centre in logical pixels. */
static double coord(const struct veil_coord *c, int size) {
	return c->percent ? (double)c->value * size / 100.0 : (double)c->value;
}

/* Band s's copies show the new picture in box (an empty box: nothing). */
static void cut_copies(struct grow *grow, int s, const struct wlr_box *box) {
	const struct veil_output *output = grow->transition->output;
	if (grow->transition->old == NULL) {
		/* The compositor destroyed the output's tree: the copies went with it. */
		return;
	}
	if (grow->rects != NULL && grow->rects[s] != NULL) {
		struct veil_piece whole = {
			.src = { .width = 1, .height = 1 },
			.width = output->rect_width, .height = output->rect_height,
		};
		struct veil_piece cut = {0};
		veil_piece_clip(&whole, 0, 0, box, &cut);
		wlr_scene_node_set_position(&grow->rects[s]->node, cut.x, cut.y);
		wlr_scene_rect_set_size(grow->rects[s], cut.width, cut.height);
	}
	for (int p = 0; grow->copies != NULL && p < grow->n_pieces; p++) {
		struct wlr_scene_buffer *copy = grow->copies[s * grow->n_pieces + p];
		if (copy == NULL) {
			continue;
		}
		struct veil_piece cut;
		bool shown = veil_piece_clip(&grow->pieces[p], 0, 0, box, &cut);
		wlr_scene_node_set_enabled(&copy->node, shown);
		if (!shown) {
			continue;
		}
		wlr_scene_buffer_set_source_box(copy, &cut.src);
		wlr_scene_buffer_set_dest_size(copy, cut.width, cut.height);
		wlr_scene_node_set_position(&copy->node, cut.x, cut.y);
	}
}

static void grow_apply(struct veil_transition *transition, float progress) {
	struct grow *grow = transition->kind_data;
	int width, height;
	veil_transition_output_size(transition, &width, &height);
	double cx = coord(&transition->spec.at_x, width);
	double cy = coord(&transition->spec.at_y, height);
	/* The radius reaches the farthest corner at 1. */
	double far_x = fmax(cx, width - cx), far_y = fmax(cy, height - cy);
	double r = progress * sqrt(far_x * far_x + far_y * far_y);

	int top = (int)floor(fmax(0.0, cy - r));
	int bottom = (int)ceil(fmin((double)height, cy + r));
	int n_strips = grow != NULL ? grow->n_strips : 1;
	int band = bottom > top ? (bottom - top + n_strips - 1) / n_strips : 1;
	/* The output's own nodes show the band of the centre (or the nearest one). */
	int own = band > 0 ? (int)((fmin(fmax(cy, top), bottom - 1) - top) / band) : 0;
	own = own < 0 ? 0 : own >= n_strips ? n_strips - 1 : own;

	for (int s = 0; s < n_strips; s++) {
		struct wlr_box box = {0};
		int y0 = top + s * band;
		int y1 = y0 + band < bottom ? y0 + band : bottom;
		double mid = (y0 + y1) / 2.0 - cy;
		if (y1 > y0 && fabs(mid) < r) {
			double half = sqrt(r * r - mid * mid);
			int x0 = (int)lround(cx - half), x1 = (int)lround(cx + half);
			if (x1 > x0) {
				box = (struct wlr_box){ .x = x0, .y = y0, .width = x1 - x0,
					.height = y1 - y0 };
			}
		}
		if (s == own) {
			veil_output_set_view(transition->output, &box, 0, 0);
		} else if (grow != NULL) {
			cut_copies(grow, s, &box);
		}
	}
}

static void grow_finish(struct veil_transition *transition) {
	struct grow *grow = transition->kind_data;
	if (grow == NULL) {
		return;
	}
	if (grow->source != NULL) {
		wl_list_remove(&grow->source_frame.link);
		veil_source_unref(grow->source);
	}
	/* The copies are in the old tree: they go with it. */
	free(grow->pieces);
	free(grow->rects);
	free(grow->copies);
	free(grow);
	transition->kind_data = NULL;
}

const struct veil_transition_impl veil_transition_grow_impl = {
	.begin = grow_begin,
	.apply = grow_apply,
	.finish = grow_finish,
};
