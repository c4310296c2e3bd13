/*
 * The nodes that show an output's wallpaper: a rect (the bars of fit and center, or a solid
 * colour) and one buffer node per copy of the frame, placed where scene/geometry.c says.
 */
#include <stdlib.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "scene/dmabuf_buffer.h"
#include "scene/pixel_buffer.h"
#include "scene/sample_buffer.h"
#include "scene/tile_buffer.h"

/*
 * Small images in tile mode need a node per copy. Beyond this many the image is refused: a
 * scene with thousands of nodes costs every frame of every client above the wallpaper.
 */
#define MAX_NODES 4096
/*
 * A still smaller than this is repeated into a buffer at least this large before it is tiled:
 * one pixman pass when it is set keeps a 16x16 pattern on a 4K output to a few dozen nodes.
 */
#define TILE_MIN_SIZE 512

/* One buffer node of an output. It lives as long as its scene node: freed from its destroy. */
struct veil_node {
	struct wl_list link; /* veil_output.nodes */
	struct veil_output *output;
	struct wlr_scene_buffer *buffer;
	bool visible; /* the scene shows it on some output */
	/* Where place_frame put it: a view may move and cut it (veil_output_set_view). */
	struct wlr_fbox src;
	int x, y, width, height;
	struct wl_listener outputs_update;
	struct wl_listener destroy;
};

void veil_output_update_viewing(struct veil_output *output) {
	bool visible = false;
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		visible = visible || node->visible;
	}
	if (output->source == NULL || visible == output->viewing) {
		return;
	}
	output->viewing = visible;
	veil_source_add_viewers(output->source, visible ? 1 : -1);
	/* The status says shown or hidden: watchers hear of the change. */
	veil_scene_changed(output->scene);
}

void veil_output_recount_visible(struct veil_output *output, bool reset) {
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		node->visible = !reset && node->buffer->primary_output != NULL;
	}
	if (!reset) {
		veil_output_update_viewing(output);
	}
}

static void handle_viewing_idle(void *data) {
	struct veil_output *output = data;
	output->viewing_idle = NULL;
	veil_output_update_viewing(output);
}

void veil_output_cancel_viewing_update(struct veil_output *output) {
	if (output->viewing_idle != NULL) {
		wl_event_source_remove(output->viewing_idle);
		output->viewing_idle = NULL;
	}
}

static void handle_node_outputs_update(struct wl_listener *listener, void *data) {
	struct veil_node *node = wl_container_of(listener, node, outputs_update);
	struct veil_output *output = node->output;
	const struct wlr_scene_outputs_update_event *event = data;
	node->visible = event->size > 0;
	if (output->viewing_idle != NULL) {
		return;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(output->scene->display);
	output->viewing_idle = wl_event_loop_add_idle(loop, handle_viewing_idle, output);
	if (output->viewing_idle == NULL) {
		/* Out of memory: follow the scene at once rather than not at all. */
		veil_output_update_viewing(output);
	}
}

static void handle_node_destroy(struct wl_listener *listener, void *data) {
	struct veil_node *node = wl_container_of(listener, node, destroy);
	struct veil_output *output = node->output;
	wl_list_remove(&node->outputs_update.link);
	wl_list_remove(&node->destroy.link);
	wl_list_remove(&node->link);
	output->n_nodes--;
	free(node);
	veil_output_update_viewing(output);
}

static bool add_node(struct veil_output *output) {
	struct veil_node *node = calloc(1, sizeof(*node));
	if (node == NULL) {
		return false;
	}
	node->buffer = wlr_scene_buffer_create(output->tree, NULL);
	if (node->buffer == NULL) {
		free(node);
		return false;
	}
	node->output = output;
	wlr_scene_buffer_set_opacity(node->buffer, output->opacity);
	node->outputs_update.notify = handle_node_outputs_update;
	wl_signal_add(&node->buffer->events.outputs_update, &node->outputs_update);
	node->destroy.notify = handle_node_destroy;
	wl_signal_add(&node->buffer->node.events.destroy, &node->destroy);
	wl_list_insert(output->nodes.prev, &node->link);
	output->n_nodes++;
	return true;
}

/* Makes n nodes; false (with none left) when memory is short. */
static bool resize_nodes(struct veil_output *output, int n) {
	while (output->n_nodes > n) {
		struct veil_node *last = wl_container_of(output->nodes.prev, last, link);
		wlr_scene_node_destroy(&last->buffer->node);
	}
	while (output->n_nodes < n) {
		if (!add_node(output)) {
			resize_nodes(output, 0);
			return false;
		}
	}
	return true;
}

void veil_output_release_tiled(struct veil_output *output) {
	wlr_buffer_unlock(output->tiled);
	wlr_buffer_unlock(output->tiled_from);
	output->tiled = output->tiled_from = NULL;
}

/* The frame the nodes show: the source's, or for a small still in tile mode a repeated one. */
static struct wlr_buffer *frame_to_show(struct veil_output *output, struct wlr_buffer *frame) {
	bool repeat = output->setting->look.mode == VEIL_MODE_TILE &&
		output->source->impl->kind == VEIL_SOURCE_IMAGE &&
		(frame->width < TILE_MIN_SIZE || frame->height < TILE_MIN_SIZE);
	if (!repeat) {
		veil_output_release_tiled(output);
		return frame;
	}
	if (output->tiled_from == frame) {
		return output->tiled;
	}
	veil_output_release_tiled(output);
	struct wlr_buffer *tiled = veil_tile_buffer_create(frame, TILE_MIN_SIZE, TILE_MIN_SIZE);
	if (tiled == NULL) {
		wlr_log(WLR_ERROR, "veil: output %s: cannot repeat a %dx%d frame for tile mode; "
			"one node per copy", output->output->name, frame->width, frame->height);
		return frame;
	}
	/* Our lock keeps it; the producer's reference goes with the drop. */
	output->tiled = wlr_buffer_lock(tiled);
	wlr_buffer_drop(tiled);
	output->tiled_from = wlr_buffer_lock(frame);
	return tiled;
}

void veil_node_set_frame(struct wlr_scene_buffer *buffer, struct wlr_buffer *frame) {
	struct veil_colour_space space;
	bool yuv = false;
	bool tagged = veil_sample_buffer_get_colour_space(frame, &space, &yuv) ||
		veil_dmabuf_buffer_get_colour_space(frame, &space, &yuv) ||
		veil_pixel_buffer_get_colour_space(frame, &space);
	/*
	 * A video's frame, or an HDR still, says what it is in; any other still (or a video
	 * converted to RGB on its way) is sRGB: the node may have been HDR.
	 */
	veil_compat_set_colour_space(buffer, tagged ? &space : NULL, yuv);
	wlr_scene_buffer_set_buffer_with_damage(buffer, frame, NULL);
}

bool veil_output_show_frame(struct veil_output *output, struct wlr_buffer *frame) {
	if (output->tiled != NULL || output->n_nodes == 0) {
		return false;
	}
	struct veil_node *first = wl_container_of(output->nodes.next, first, link);
	struct wlr_buffer *shown = first->buffer->buffer;
	if (shown == NULL || shown->width != frame->width || shown->height != frame->height) {
		return false;
	}
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		veil_node_set_frame(node->buffer, frame);
	}
	output->frames++;
	return true;
}

/* wlr_scene_rect takes a premultiplied colour: the alpha scales the channels too. */
static void color_to_float(uint32_t rgb, float alpha, float out[static 4]) {
	out[0] = (float)((rgb >> 16) & 0xff) / 255.0f * alpha;
	out[1] = (float)((rgb >> 8) & 0xff) / 255.0f * alpha;
	out[2] = (float)(rgb & 0xff) / 255.0f * alpha;
	out[3] = alpha;
}

bool veil_piece_clip(const struct veil_piece *piece, int dx, int dy, const struct wlr_box *clip,
		struct veil_piece *out) {
	int x0 = piece->x + dx, y0 = piece->y + dy;
	int x1 = x0 + piece->width, y1 = y0 + piece->height;
	int cx0 = x0 > clip->x ? x0 : clip->x;
	int cy0 = y0 > clip->y ? y0 : clip->y;
	int cx1 = x1 < clip->x + clip->width ? x1 : clip->x + clip->width;
	int cy1 = y1 < clip->y + clip->height ? y1 : clip->y + clip->height;
	if (cx1 <= cx0 || cy1 <= cy0 || piece->width <= 0 || piece->height <= 0) {
		return false;
	}
	/* Buffer pixels per logical pixel: the cut keeps the scale. */
	double sx = piece->src.width / piece->width, sy = piece->src.height / piece->height;
	*out = (struct veil_piece){
		.buffer = piece->buffer,
		.src = {
			.x = piece->src.x + (cx0 - x0) * sx,
			.y = piece->src.y + (cy0 - y0) * sy,
			.width = (cx1 - cx0) * sx,
			.height = (cy1 - cy0) * sy,
		},
		.x = cx0, .y = cy0, .width = cx1 - cx0, .height = cy1 - cy0,
	};
	return true;
}

static void view_node(struct veil_output *output, struct veil_node *node) {
	struct veil_piece piece = {
		.src = node->src, .x = node->x, .y = node->y,
		.width = node->width, .height = node->height,
	};
	struct veil_piece cut = piece;
	bool shown = !output->clipped || veil_piece_clip(&piece, output->view_dx,
		output->view_dy, &output->view_clip, &cut);
	/* A dest size of 0 would mean the buffer's own: a node wholly cut away goes. */
	wlr_scene_node_set_enabled(&node->buffer->node, shown);
	if (!shown) {
		return;
	}
	wlr_scene_buffer_set_source_box(node->buffer, &cut.src);
	wlr_scene_buffer_set_dest_size(node->buffer, cut.width, cut.height);
	wlr_scene_node_set_position(&node->buffer->node, cut.x, cut.y);
}

/* The rect: at (0, 0), rect_width x rect_height, cut by the view. */
static void view_rect(struct veil_output *output) {
	struct veil_piece piece = {
		.src = { .width = 1, .height = 1 },
		.width = output->rect_width, .height = output->rect_height,
	};
	struct veil_piece cut = piece;
	if (output->clipped && !veil_piece_clip(&piece, output->view_dx, output->view_dy,
			&output->view_clip, &cut)) {
		cut.width = cut.height = 0;
	}
	wlr_scene_node_set_position(&output->rect->node, cut.x, cut.y);
	wlr_scene_rect_set_size(output->rect, cut.width, cut.height);
}

void veil_output_set_view(struct veil_output *output, const struct wlr_box *clip, int dx,
		int dy) {
	output->clipped = clip != NULL;
	output->view_clip = clip != NULL ? *clip : (struct wlr_box){0};
	output->view_dx = clip != NULL ? dx : 0;
	output->view_dy = clip != NULL ? dy : 0;
	if (output->tree == NULL) {
		return;
	}
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		if (node->width > 0) {
			view_node(output, node);
		}
	}
	view_rect(output);
}

int veil_output_get_pieces(struct veil_output *output, struct veil_piece *pieces, int max) {
	int n = 0;
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		if (n < max) {
			pieces[n] = (struct veil_piece){
				.buffer = node->buffer->buffer, .src = node->src, .x = node->x,
				.y = node->y, .width = node->width, .height = node->height,
			};
		}
		n++;
	}
	return n;
}

void veil_output_set_opacity(struct veil_output *output, float opacity) {
	output->opacity = opacity;
	if (output->tree == NULL) {
		return;
	}
	struct veil_node *node;
	wl_list_for_each(node, &output->nodes, link) {
		wlr_scene_buffer_set_opacity(node->buffer, opacity);
	}
	if (output->setting != NULL) {
		float color[4];
		color_to_float(output->setting->look.color, opacity, color);
		wlr_scene_rect_set_color(output->rect, color);
	}
}

static void hide(struct veil_output *output) {
	resize_nodes(output, 0);
	wlr_scene_node_set_enabled(&output->tree->node, false);
}

/*
 * The rect: as large as a stretched frame (at fractional scales a logical pixel more than the
 * truncated logical size, or the last physical column stays bare), shown where the frame leaves
 * parts of the output to the colour.
 */
static bool place_rect(struct veil_output *output, const struct veil_geometry_in *in,
		bool framed) {
	struct veil_geometry_in cover_in = *in;
	cover_in.mode = VEIL_MODE_STRETCH;
	cover_in.canvas = NULL; /* the colour covers the output, spanning or not */
	struct veil_tile cover;
	if (veil_geometry_compute(&cover_in, &cover, 1) != 1) {
		return false;
	}
	float color[4];
	color_to_float(output->setting->look.color, output->opacity, color);
	output->rect_width = cover.width;
	output->rect_height = cover.height;
	view_rect(output);
	wlr_scene_rect_set_color(output->rect, color);
	enum veil_mode mode = output->setting->look.mode;
	bool bars = mode != VEIL_MODE_STRETCH && mode != VEIL_MODE_FILL;
	/* Transparent pixels of an animation show the colour, as the bars do. */
	bool translucent = framed && output->source != NULL && output->source->translucent;
	wlr_scene_node_set_enabled(&output->rect->node, bars || !framed || translucent);
	return true;
}

enum wlr_scale_filter_mode veil_output_filter_mode(const struct veil_output *output) {
	/* `filter nearest`, and `integer`'s whole-number scales: no smoothing. */
	const struct veil_setting *setting = output->setting;
	bool nearest = setting != NULL && (setting->look.filter == VEIL_IMAGE_FILTER_NEAREST ||
		setting->look.mode == VEIL_MODE_INTEGER);
	return nearest ? WLR_SCALE_FILTER_NEAREST : WLR_SCALE_FILTER_BILINEAR;
}

/* The buffer nodes, one per copy of the frame the mode needs. */
static void place_frame(struct veil_output *output, const struct veil_geometry_in *in,
		struct wlr_buffer *frame) {
	struct veil_tile small[16];
	struct veil_tile *tiles = small;
	int n = veil_geometry_compute(in, small, 16);
	if (n > 16 && n <= MAX_NODES) {
		tiles = calloc((size_t)n, sizeof(*tiles));
		if (tiles == NULL) {
			veil_output_set_error(output, "Out of memory while placing the wallpaper");
			hide(output);
			return;
		}
		n = veil_geometry_compute(in, tiles, n);
	}
	if (n < 0 || n > MAX_NODES) {
		if (n > MAX_NODES) {
			wlr_log(WLR_ERROR, "veil: output %s: tiling %dx%d needs %d nodes, more than %d",
				output->output->name, frame->width, frame->height, n, MAX_NODES);
			veil_output_set_error(output, "The image is too small to tile on this output");
		}
		hide(output);
		goto out;
	}
	if (!resize_nodes(output, n)) {
		veil_output_set_error(output, "Out of memory while placing the wallpaper");
		goto out;
	}
	int i = 0;
	struct veil_node *node;
	enum wlr_scale_filter_mode filter = veil_output_filter_mode(output);
	wl_list_for_each(node, &output->nodes, link) {
		const struct veil_tile *t = &tiles[i++];
		wlr_scene_buffer_set_filter_mode(node->buffer, filter);
		struct wlr_fbox src = {
			.x = t->src_x, .y = t->src_y, .width = t->src_width, .height = t->src_height,
		};
		veil_node_set_frame(node->buffer, frame);
		node->src = src;
		node->x = t->x;
		node->y = t->y;
		node->width = t->width;
		node->height = t->height;
		view_node(output, node);
	}
	output->frames++;

out:
	if (tiles != small) {
		free(tiles);
	}
}

void veil_output_layout(struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	if (output->tree == NULL) {
		return;
	}
	if (setting == NULL || setting->off || !output->output->enabled) {
		output->canvas = (struct veil_canvas){0};
		veil_output_release_tiled(output);
		hide(output);
		return;
	}

	struct wlr_buffer *frame = output->source != NULL ? output->source->frame : NULL;
	if (frame != NULL) {
		frame = frame_to_show(output, frame);
	} else {
		veil_output_release_tiled(output);
	}
	struct veil_geometry_in in = {
		.mode = setting->look.mode,
		.image_width = frame != NULL ? frame->width : 1,
		.image_height = frame != NULL ? frame->height : 1,
		.scale = output->output->scale,
	};
	wlr_output_transformed_resolution(output->output, &in.output_width, &in.output_height);
	/* `span`: the frame is placed on the canvas of the outputs that use the setting. */
	struct veil_canvas canvas;
	if (veil_span_canvas(output, &canvas)) {
		in.canvas = &canvas;
	}
	output->canvas = canvas;
	if (in.output_width <= 0 || in.output_height <= 0 ||
			!place_rect(output, &in, frame != NULL)) {
		hide(output);
		return;
	}
	wlr_scene_node_set_enabled(&output->tree->node, true);
	if (frame == NULL) {
		/* A solid colour. */
		resize_nodes(output, 0);
		return;
	}
	place_frame(output, &in, frame);
}
