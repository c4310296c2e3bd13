#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "util/message.h"
#include "module/scene.h"
#include "scene/sample_buffer.h"
#include "scene/tile_buffer.h"

/*
 * Small images in tile mode need a node per copy. Beyond this many the image is refused: a
 * scene with thousands of nodes costs every frame of every client above the wallpaper.
 */
#define MAX_TILES 4096
/*
 * A still smaller than this is repeated into a buffer at least this large before it is tiled:
 * one pixman pass when it is set keeps a 16x16 pattern on a 4K output to a few dozen nodes.
 */
#define TILE_MIN_SIZE 512
/* Smaller videos would need too many nodes in tile mode (stills are repeated instead). */
#define MIN_TILED_VIDEO 64

static void tile_finish(struct veil_tile_node *tile) {
	wl_list_remove(&tile->outputs_update.link);
	if (tile->buffer != NULL) {
		wlr_scene_node_destroy(&tile->buffer->node);
	}
}

/* The output shows its source where any of its nodes is visible: decode only then. */
static void update_viewing(struct veil_output *output) {
	bool visible = false;
	for (int i = 0; i < output->n_tiles; i++) {
		visible = visible || output->tiles[i].visible;
	}
	if (output->source == NULL || visible == output->viewing) {
		return;
	}
	output->viewing = visible;
	veil_source_add_viewers(output->source, visible ? 1 : -1);
}

static void handle_tile_outputs_update(struct wl_listener *listener, void *data) {
	struct veil_tile_node *tile = wl_container_of(listener, tile, outputs_update);
	const struct wlr_scene_outputs_update_event *event = data;
	tile->visible = event->size > 0;
	update_viewing(tile->output);
}

static void destroy_tiles(struct veil_output *output) {
	for (int i = 0; i < output->n_tiles; i++) {
		tile_finish(&output->tiles[i]);
	}
	free(output->tiles);
	output->tiles = NULL;
	output->n_tiles = 0;
	update_viewing(output);
}

/* Grows or shrinks the node list to n. The list is reallocated: listeners are re-added. */
static bool resize_tiles(struct veil_output *output, int n) {
	if (n == output->n_tiles) {
		return true;
	}
	for (int i = n; i < output->n_tiles; i++) {
		tile_finish(&output->tiles[i]);
	}
	for (int i = 0; i < output->n_tiles && i < n; i++) {
		wl_list_remove(&output->tiles[i].outputs_update.link);
	}
	struct veil_tile_node *tiles = NULL;
	if (n > 0) {
		tiles = realloc(output->tiles, (size_t)n * sizeof(*tiles));
		if (tiles == NULL) {
			/* Keep the nodes that are left consistent: drop them all. */
			int kept = output->n_tiles < n ? output->n_tiles : n;
			for (int i = 0; i < kept; i++) {
				wlr_scene_node_destroy(&output->tiles[i].buffer->node);
			}
			free(output->tiles);
			output->tiles = NULL;
			output->n_tiles = 0;
			update_viewing(output);
			return false;
		}
	} else {
		free(output->tiles);
	}
	int old = output->n_tiles;
	output->tiles = tiles;
	output->n_tiles = n;
	for (int i = 0; i < n; i++) {
		struct veil_tile_node *tile = &tiles[i];
		if (i >= old) {
			*tile = (struct veil_tile_node){ .output = output };
			tile->buffer = wlr_scene_buffer_create(output->tree, NULL);
		}
		tile->outputs_update.notify = handle_tile_outputs_update;
		if (tile->buffer != NULL) {
			wl_signal_add(&tile->buffer->events.outputs_update, &tile->outputs_update);
		} else {
			wl_list_init(&tile->outputs_update.link);
		}
	}
	update_viewing(output);
	return true;
}

static void release_tiled(struct veil_output *output) {
	wlr_buffer_unlock(output->tiled);
	wlr_buffer_unlock(output->tiled_from);
	output->tiled = output->tiled_from = NULL;
}

/* The frame the nodes show: the source's, or for a small still in tile mode a repeated one. */
static struct wlr_buffer *frame_to_show(struct veil_output *output, struct wlr_buffer *frame) {
	bool repeat = output->setting->mode == VEIL_MODE_TILE &&
		output->source->impl->kind == VEIL_SOURCE_IMAGE &&
		(frame->width < TILE_MIN_SIZE || frame->height < TILE_MIN_SIZE);
	if (!repeat) {
		release_tiled(output);
		return frame;
	}
	if (output->tiled_from == frame) {
		return output->tiled;
	}
	release_tiled(output);
	struct wlr_buffer *tiled = veil_tile_buffer_create(frame, TILE_MIN_SIZE, TILE_MIN_SIZE);
	if (tiled == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot repeat a %dx%d frame for tile mode; one node per copy",
			output->output->name, frame->width, frame->height);
		return frame;
	}
	/* Our lock keeps it; the producer's reference goes with the drop. */
	output->tiled = wlr_buffer_lock(tiled);
	wlr_buffer_drop(tiled);
	output->tiled_from = wlr_buffer_lock(frame);
	return tiled;
}

/* Puts a frame on a node; a YUV dmabuf also tells the renderer how to convert it. */
static void show_frame(struct wlr_scene_buffer *node, struct wlr_buffer *frame) {
	enum veil_yuv_matrix matrix;
	bool full_range;
	if (veil_sample_buffer_get_yuv(frame, &matrix, &full_range)) {
		veil_compat_set_yuv(node, matrix, full_range);
	}
	wlr_scene_buffer_set_buffer_with_damage(node, frame, NULL);
}

static void color_to_float(uint32_t rgb, float out[static 4]) {
	out[0] = (float)((rgb >> 16) & 0xff) / 255.0f;
	out[1] = (float)((rgb >> 8) & 0xff) / 255.0f;
	out[2] = (float)(rgb & 0xff) / 255.0f;
	out[3] = 1.0f;
}

static void hide(struct veil_output *output) {
	destroy_tiles(output);
	if (output->tree != NULL) {
		wlr_scene_node_set_enabled(&output->tree->node, false);
	}
}

/* Places the nodes for the setting, the source's current frame and the output's geometry. */
static void layout(struct veil_output *output) {
	const struct veil_setting *setting = output->setting;
	if (output->tree == NULL) {
		return;
	}
	if (setting == NULL || setting->off || !output->output->enabled) {
		release_tiled(output);
		hide(output);
		return;
	}

	struct wlr_buffer *frame = output->source != NULL ? output->source->frame : NULL;
	if (frame != NULL) {
		frame = frame_to_show(output, frame);
	} else {
		release_tiled(output);
	}
	struct veil_geometry_in in = {
		.mode = setting->mode,
		.image_width = frame != NULL ? frame->width : 1,
		.image_height = frame != NULL ? frame->height : 1,
		.scale = output->output->scale,
	};
	wlr_output_transformed_resolution(output->output, &in.output_width, &in.output_height);
	if (in.output_width <= 0 || in.output_height <= 0) {
		hide(output);
		return;
	}
	/*
	 * The rect covers what a stretched frame would: at fractional scales that is a logical
	 * pixel more than the truncated logical size, or the last physical column stays bare.
	 */
	struct veil_geometry_in cover_in = in;
	cover_in.mode = VEIL_MODE_STRETCH;
	struct veil_tile cover;
	if (veil_geometry_compute(&cover_in, &cover, 1) != 1) {
		hide(output);
		return;
	}

	float color[4];
	color_to_float(setting->color, color);
	wlr_scene_rect_set_size(output->rect, cover.width, cover.height);
	wlr_scene_rect_set_color(output->rect, color);
	/* Bars and tiles leave parts of the output to the colour; stretch and fill cover it. */
	bool bars = setting->mode != VEIL_MODE_STRETCH && setting->mode != VEIL_MODE_FILL;
	wlr_scene_node_set_enabled(&output->rect->node, bars || frame == NULL);
	wlr_scene_node_set_enabled(&output->tree->node, true);

	if (frame == NULL) {
		/* A solid colour, or a source without a frame yet. */
		destroy_tiles(output);
		return;
	}

	struct veil_tile small[16];
	struct veil_tile *tiles = small;
	int n = veil_geometry_compute(&in, small, 16);
	if (n > 16 && n <= MAX_TILES) {
		tiles = calloc((size_t)n, sizeof(*tiles));
		if (tiles == NULL) {
			veil_output_set_error(output, "Out of memory while placing the wallpaper");
			hide(output);
			return;
		}
		n = veil_geometry_compute(&in, tiles, n);
	}
	if (n < 0 || n > MAX_TILES) {
		if (n > MAX_TILES) {
			wlr_log(WLR_ERROR, "%s: tiling %dx%d needs %d nodes, more than %d",
				output->output->name, frame->width, frame->height, n, MAX_TILES);
			veil_output_set_error(output, "The image is too small to tile on this output");
		}
		hide(output);
		goto out;
	}
	if (!resize_tiles(output, n)) {
		veil_output_set_error(output, "Out of memory while placing the wallpaper");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct wlr_scene_buffer *buffer = output->tiles[i].buffer;
		if (buffer == NULL) {
			continue;
		}
		const struct veil_tile *t = &tiles[i];
		struct wlr_fbox src = {
			.x = t->src_x, .y = t->src_y, .width = t->src_width, .height = t->src_height,
		};
		show_frame(buffer, frame);
		wlr_scene_buffer_set_source_box(buffer, &src);
		wlr_scene_buffer_set_dest_size(buffer, t->width, t->height);
		wlr_scene_node_set_position(&buffer->node, t->x, t->y);
	}
	output->frames++;

out:
	if (tiles != small) {
		free(tiles);
	}
}

static void handle_source_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, source_frame);
	if (output->source->error != NULL) {
		/* It stopped (its last good frame stays): the status and the protocol say why. */
		veil_scene_changed(output->scene);
	}
	struct wlr_buffer *frame = output->source->frame;
	if (frame == NULL) {
		return;
	}
	/* A new frame of the same size goes onto the nodes as they are: no geometry work. */
	bool same_size = output->tiled == NULL && output->n_tiles > 0 && output->tiles[0].buffer != NULL &&
		output->tiles[0].buffer->buffer != NULL &&
		output->tiles[0].buffer->buffer->width == frame->width &&
		output->tiles[0].buffer->buffer->height == frame->height;
	if (!same_size) {
		layout(output);
		return;
	}
	for (int i = 0; i < output->n_tiles; i++) {
		if (output->tiles[i].buffer != NULL) {
			show_frame(output->tiles[i].buffer, frame);
		}
	}
	output->frames++;
}

/*
 * Whether the output owes a frame event to the source it shows: a video's next frame then waits
 * for that event instead of waking the compositor (the output cannot show it sooner).
 */
static void set_owes_frame(struct veil_output *output, bool owes) {
	owes = owes && output->source != NULL;
	if (owes == output->owes_frame) {
		return;
	}
	output->owes_frame = owes;
	veil_source_add_owed(output->source, owes ? 1 : -1);
}

/*
 * After a commit or a frame event: wlroots sets frame_pending on a commit that leaves the output
 * on, and a frame event follows it. A disabled output gets none (its flag may be left over).
 */
static void follow_frame_pending(struct veil_output *output) {
	set_owes_frame(output, output->output->enabled && output->output->frame_pending);
}

static void set_source(struct veil_output *output, struct veil_source *source) {
	if (source == output->source) {
		return;
	}
	set_owes_frame(output, false);
	if (output->source != NULL) {
		if (output->viewing) {
			veil_source_add_viewers(output->source, -1);
			output->viewing = false;
		}
		wl_list_remove(&output->source_frame.link);
		veil_source_unref(output->source);
	}
	output->source = source;
	if (source != NULL) {
		veil_source_ref(source);
		wl_signal_add(&source->events.frame, &output->source_frame);
	} else {
		wl_list_init(&output->source_frame.link);
	}
	/* Nodes still show the old frame; the layout that follows replaces it and counts viewing. */
	for (int i = 0; i < output->n_tiles; i++) {
		output->tiles[i].visible = false;
	}
}

/* Shows a setting (NULL: nothing) whose source has its first frame, or has none. */
static void show(struct veil_output *output, struct veil_setting *setting) {
	struct veil_setting *old = output->setting;
	output->setting = setting != NULL ? veil_setting_ref(setting) : NULL;
	set_source(output, setting != NULL && !setting->off ? setting->source : NULL);
	layout(output);
	/* Tiles that kept their node kept their visibility: count it for the new source. */
	for (int i = 0; i < output->n_tiles; i++) {
		struct wlr_scene_buffer *buffer = output->tiles[i].buffer;
		output->tiles[i].visible = buffer != NULL && buffer->primary_output != NULL;
	}
	update_viewing(output);
	/* After the switch: the old setting may hold the old source's last reference. */
	veil_setting_unref(old);
}

/* Why a loaded setting cannot be shown on the output, or NULL. */
static char *refusal(const struct veil_setting *setting) {
	const struct veil_source *source = setting->source;
	if (source == NULL) {
		return NULL;
	}
	if (source->frame == NULL) {
		return strdup(source->error != NULL ? source->error : "The wallpaper has no frame");
	}
	/* Each copy of a video is a node updated every frame: keep them few. */
	if (setting->mode == VEIL_MODE_TILE && source->impl->kind == VEIL_SOURCE_VIDEO &&
			(source->width < MIN_TILED_VIDEO || source->height < MIN_TILED_VIDEO)) {
		return veil_message("'%s' is %dx%d: too small to tile (a video needs %dx%d at "
			"least)", source->path, source->width, source->height, MIN_TILED_VIDEO,
			MIN_TILED_VIDEO);
	}
	return NULL;
}

/*
 * A setting whose source finished loading: shown, or, when it failed, the output keeps what it
 * showed and the error says why.
 */
static void settle(struct veil_output *output, struct veil_setting *setting) {
	char *why = setting != NULL ? refusal(setting) : NULL;
	if (why == NULL) {
		show(output, setting);
		return;
	}
	wlr_log(WLR_ERROR, "veil: output %s: %s", output->output->name, why);
	free(output->error);
	output->error = why;
}

static void drop_pending(struct veil_output *output) {
	if (output->pending == NULL) {
		return;
	}
	wl_list_remove(&output->pending_frame.link);
	wl_list_init(&output->pending_frame.link);
	veil_setting_unref(output->pending);
	output->pending = NULL;
}

static void handle_pending_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, pending_frame);
	struct veil_setting *setting = output->pending;
	if (setting->source->frame == NULL && setting->source->error == NULL) {
		return;
	}
	/* Ours now: the swap below may run listeners that look at pending. */
	output->pending = NULL;
	wl_list_remove(&output->pending_frame.link);
	wl_list_init(&output->pending_frame.link);
	settle(output, setting);
	veil_setting_unref(setting);
	veil_scene_changed(output->scene);
}

void veil_output_update(struct veil_output *output) {
	struct veil_setting *setting = veil_scene_resolve(output->scene, output->output->name);
	if (setting == (output->pending != NULL ? output->pending : output->setting)) {
		/* Another output's command: nothing to redo, nothing to damage here. */
		return;
	}
	/* The last command wins: a wallpaper still loading for this output is not wanted now. */
	drop_pending(output);
	if (setting == output->setting) {
		return;
	}
	struct veil_source *source = setting != NULL && !setting->off ? setting->source : NULL;
	if (source != NULL && source->frame == NULL && source->error == NULL) {
		/* What the output shows stays until the new wallpaper's first frame is ready. */
		output->pending = veil_setting_ref(setting);
		wl_signal_add(&source->events.frame, &output->pending_frame);
		return;
	}
	settle(output, setting);
}

void veil_output_set_error(struct veil_output *output, const char *error) {
	free(output->error);
	output->error = error != NULL ? strdup(error) : NULL;
}

static void handle_output_commit(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, output_commit);
	const struct wlr_output_event_commit *event = data;
	follow_frame_pending(output);
	uint32_t relevant = WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_SCALE |
		WLR_OUTPUT_STATE_TRANSFORM | WLR_OUTPUT_STATE_ENABLED;
	if (!(event->state->committed & relevant)) {
		return;
	}
	veil_scene_update_max_size(output->scene);
	layout(output);
}

static void handle_output_frame(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, output_frame);
	if (!output->owes_frame) {
		return;
	}
	/* A frame that waited for this event goes up now: the compositor commits it next. */
	veil_source_frame_event(output->source);
	/*
	 * Still owed when the compositor committed in this event already (its listener ran
	 * first): the next frame event is the one to wait for then.
	 */
	follow_frame_pending(output);
}

static void handle_tree_destroy(struct wl_listener *listener, void *data) {
	struct veil_output *output = wl_container_of(listener, output, tree_destroy);
	/* The compositor destroyed the parent: the nodes go with it; forget them first. */
	for (int i = 0; i < output->n_tiles; i++) {
		wl_list_remove(&output->tiles[i].outputs_update.link);
		wl_list_init(&output->tiles[i].outputs_update.link);
		output->tiles[i].buffer = NULL;
	}
	destroy_tiles(output);
	wl_list_remove(&output->tree_destroy.link);
	wl_list_init(&output->tree_destroy.link);
	output->tree = NULL;
	output->rect = NULL;
}

static void addon_destroy(struct wlr_addon *addon) {
	struct veil_output *output = wl_container_of(addon, output, addon);
	veil_output_destroy(output);
}

static const struct wlr_addon_interface output_addon_impl = {
	.name = "veil_output",
	.destroy = addon_destroy,
};

struct veil_output *veil_output_find(struct veil_scene *scene, struct wlr_output *wlr_output) {
	struct wlr_addon *addon = wlr_addon_find(&wlr_output->addons, scene, &output_addon_impl);
	if (addon == NULL) {
		return NULL;
	}
	struct veil_output *output = wl_container_of(addon, output, addon);
	return output;
}

struct veil_output *veil_output_find_name(struct veil_scene *scene, const char *name) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		if (strcmp(output->output->name, name) == 0) {
			return output;
		}
	}
	return NULL;
}

struct veil_output *veil_output_create(struct veil_scene *scene, struct wlr_output *wlr_output,
		struct wlr_scene_tree *parent) {
	struct veil_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		return NULL;
	}
	output->scene = scene;
	output->output = wlr_output;
	output->tree = wlr_scene_tree_create(parent);
	if (output->tree == NULL) {
		free(output);
		return NULL;
	}
	const float black[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
	output->rect = wlr_scene_rect_create(output->tree, 0, 0, black);
	if (output->rect == NULL) {
		wlr_scene_node_destroy(&output->tree->node);
		free(output);
		return NULL;
	}
	wlr_scene_node_set_enabled(&output->tree->node, false);

	wl_list_init(&output->source_frame.link);
	output->source_frame.notify = handle_source_frame;
	wl_list_init(&output->pending_frame.link);
	output->pending_frame.notify = handle_pending_frame;
	output->output_commit.notify = handle_output_commit;
	wl_signal_add(&wlr_output->events.commit, &output->output_commit);
	output->output_frame.notify = handle_output_frame;
	wl_signal_add(&wlr_output->events.frame, &output->output_frame);
	output->tree_destroy.notify = handle_tree_destroy;
	wl_signal_add(&output->tree->node.events.destroy, &output->tree_destroy);
	wlr_addon_init(&output->addon, &wlr_output->addons, scene, &output_addon_impl);
	wl_list_insert(scene->outputs.prev, &output->link);

	veil_scene_update_max_size(scene);
	veil_output_update(output);
	veil_scene_changed(scene);
	return output;
}

void veil_output_destroy(struct veil_output *output) {
	if (output == NULL) {
		return;
	}
	if (output->tree != NULL) {
		/* Destroying our tree runs handle_tree_destroy, which forgets the nodes. */
		wlr_scene_node_destroy(&output->tree->node);
	}
	drop_pending(output);
	set_source(output, NULL);
	veil_setting_unref(output->setting);
	output->setting = NULL;
	release_tiled(output);
	wl_list_remove(&output->source_frame.link);
	wl_list_remove(&output->pending_frame.link);
	wl_list_remove(&output->output_commit.link);
	wl_list_remove(&output->output_frame.link);
	wl_list_remove(&output->tree_destroy.link);
	wlr_addon_finish(&output->addon);
	wl_list_remove(&output->link);
	veil_scene_changed(output->scene);
	free(output->error);
	free(output);
}
