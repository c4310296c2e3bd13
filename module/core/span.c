/*
 * `span`: one picture across several outputs. The outputs that use a spanning setting form a
 * canvas, the bounding box of their boxes in the compositor's wlr_output_layout; each output
 * shows its part of the same frame (scene/canvas.c places it). veil follows the layout's change
 * signal: an output added, moved, resized or removed changes the canvas of the others.
 */
#include <limits.h>
#include <math.h>
#include <json-c/json.h>
#include <veil/veil.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/util/box.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"

/* Whether an output of the layout is part of the setting's canvas. */
static bool uses(struct veil_scene *scene, struct wlr_output *wlr_output,
		const struct veil_setting *setting) {
	if (!wlr_output->enabled) {
		return false;
	}
	/*
	 * The setting that resolves for it (also while its first frame loads, so that the canvas
	 * does not change when it comes), or the one it still shows while another loads.
	 */
	struct veil_output *output = veil_output_find(scene, wlr_output);
	if (veil_scene_resolve(scene, wlr_output->name,
			output != NULL ? output->workspace : NULL) == setting) {
		return true;
	}
	return output != NULL && output->setting == setting;
}

/* Extends a box to the outputs that use setting; *scale: the largest of theirs (0: none). */
static void extend(struct veil_scene *scene, const struct veil_setting *setting, int *x0, int *y0,
		int *x1, int *y1, float *scale) {
	*scale = 0;
	struct wlr_output_layout_output *l_output;
	wl_list_for_each(l_output, &scene->output_layout->outputs, link) {
		if (!uses(scene, l_output->output, setting)) {
			continue;
		}
		struct wlr_box box;
		wlr_output_layout_get_box(scene->output_layout, l_output->output, &box);
		if (wlr_box_empty(&box)) {
			continue;
		}
		*x0 = box.x < *x0 ? box.x : *x0;
		*y0 = box.y < *y0 ? box.y : *y0;
		*x1 = box.x + box.width > *x1 ? box.x + box.width : *x1;
		*y1 = box.y + box.height > *y1 ? box.y + box.height : *y1;
		*scale = l_output->output->scale > *scale ? l_output->output->scale : *scale;
	}
}

bool veil_span_size(struct veil_scene *scene, const struct veil_setting *setting, int *width,
		int *height) {
	if (scene->output_layout == NULL) {
		return false;
	}
	int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
	float scale;
	extend(scene, setting, &x0, &y0, &x1, &y1, &scale);
	if (x1 <= x0 || y1 <= y0) {
		return false;
	}
	*width = (int)lroundf((float)(x1 - x0) * scale);
	*height = (int)lroundf((float)(y1 - y0) * scale);
	return true;
}

bool veil_span_canvas(struct veil_output *output, struct veil_canvas *canvas) {
	struct veil_scene *scene = output->scene;
	const struct veil_setting *setting = output->setting;
	*canvas = (struct veil_canvas){0};
	if (scene->output_layout == NULL || setting == NULL || !setting->look.span || setting->off) {
		return false;
	}
	struct wlr_box own;
	wlr_output_layout_get_box(scene->output_layout, output->output, &own);
	if (wlr_box_empty(&own)) {
		return false;
	}
	int x0 = own.x, y0 = own.y, x1 = own.x + own.width, y1 = own.y + own.height;
	float scale;
	extend(scene, setting, &x0, &y0, &x1, &y1, &scale);
	*canvas = (struct veil_canvas){
		.x = x0, .y = y0, .width = x1 - x0, .height = y1 - y0,
		.output_x = own.x, .output_y = own.y,
	};
	return true;
}

static bool same_canvas(const struct veil_canvas *a, const struct veil_canvas *b) {
	return a->x == b->x && a->y == b->y && a->width == b->width && a->height == b->height &&
		a->output_x == b->output_x && a->output_y == b->output_y;
}

void veil_span_refresh(struct veil_scene *scene) {
	struct veil_output *output;
	wl_list_for_each(output, &scene->outputs, link) {
		struct veil_canvas canvas;
		veil_span_canvas(output, &canvas);
		/* Only where the canvas moved: a layout costs a damaged output. */
		if (!same_canvas(&canvas, &output->canvas)) {
			veil_output_layout(output);
		}
	}
}

void veil_span_max_size(struct veil_scene *scene, int *width, int *height) {
	*width = *height = 0;
	if (scene->output_layout == NULL) {
		return;
	}
	struct wlr_box all;
	wlr_output_layout_get_box(scene->output_layout, NULL, &all);
	float scale = 1.0f;
	struct wlr_output_layout_output *l_output;
	wl_list_for_each(l_output, &scene->output_layout->outputs, link) {
		scale = l_output->output->scale > scale ? l_output->output->scale : scale;
	}
	*width = (int)((float)all.width * scale + 0.5f);
	*height = (int)((float)all.height * scale + 0.5f);
}

struct json_object *veil_span_status(struct veil_output *output) {
	struct veil_canvas canvas;
	if (output->setting == NULL || !output->setting->look.span) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	/* A spanning setting on an output outside the layout shows alone: no canvas. */
	if (veil_span_canvas(output, &canvas)) {
		json_object_object_add(obj, "x", json_object_new_int(canvas.x));
		json_object_object_add(obj, "y", json_object_new_int(canvas.y));
		json_object_object_add(obj, "width", json_object_new_int(canvas.width));
		json_object_object_add(obj, "height", json_object_new_int(canvas.height));
	}
	return obj;
}

static void handle_layout_change(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, layout_change);
	veil_span_refresh(scene);
}

static void forget_layout(struct veil_scene *scene) {
	wl_list_remove(&scene->layout_change.link);
	wl_list_init(&scene->layout_change.link);
	wl_list_remove(&scene->layout_destroy.link);
	wl_list_init(&scene->layout_destroy.link);
	scene->output_layout = NULL;
}

static void handle_layout_destroy(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, layout_destroy);
	forget_layout(scene);
	/* Spanning settings show on each output alone from now on. */
	veil_span_refresh(scene);
}

void veil_span_finish(struct veil_scene *scene) {
	forget_layout(scene);
}

void veil_scene_set_output_layout(struct veil_scene *scene, struct wlr_output_layout *layout) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->display == NULL || layout == scene->output_layout) {
		return;
	}
	forget_layout(scene);
	scene->output_layout = layout;
	if (layout != NULL) {
		scene->layout_change.notify = handle_layout_change;
		wl_signal_add(&layout->events.change, &scene->layout_change);
		scene->layout_destroy.notify = handle_layout_destroy;
		wl_signal_add(&layout->events.destroy, &scene->layout_destroy);
	}
	veil_span_refresh(scene);
}
