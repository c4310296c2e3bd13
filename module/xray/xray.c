/*
 * xray: the blurred wallpaper behind translucent windows (include/veil/veil.h).
 *
 * Settings per output name or "*", resolved as policies are (the output's own, else "*"'s). Per
 * wlr_output with xray nodes, one blurred picture (a scene/pixel_buffer.c buffer) that every
 * node of that output shows a part of: a node is a tree of ours in the compositor's parent
 * holding a wlr_scene_buffer whose source box is the node's box in the picture's pixels, so a
 * move or a resize is a new source box and size, in the compositor's next frame, no blur.
 *
 * What the picture is of: the output's wallpaper nodes as the layout placed them (the pieces of
 * module/core/layout.c, and the colour rect), which are the picture a transition goes to, a
 * workspace's, the dark scheme's, a span's part. Each commit of the output compares them with
 * what the picture was made of (a few pointers and boxes); when they differ, the frames are
 * locked and a worker composes and blurs them (xray_picture.c). One job at a time: a change
 * while one runs starts the next when it is done (the last wins), and jobs start at most every
 * MIN_INTERVAL_MS (a video's or an animation's frames: 5 blurs a second). A change that comes
 * sooner waits for the output's first commit after that (a video's next frame: no wake-up of
 * its own); a timer LATE_MS later still makes it when no commit comes (a still that changed
 * once), and is disarmed, unfired, when a commit came first. Nothing is done while xray is off
 * for the output (its copy is let go), or while no node of it has a box and is visible.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "module/core/per_output.h"
#include "module/core/scene.h"
#include "module/words/command.h"
#include "module/xray/xray.h"
#include "module/xray/xray_picture.h"
#include "scene/pixel_buffer.h"
#include "util/blur.h"
#include "util/image.h"
#include "util/worker.h"

/* Blurs of one output start at most this often. */
#define MIN_INTERVAL_MS 200
/* How long after MIN_INTERVAL_MS a change waits for a commit before the timer makes it. */
#define LATE_MS 100

/* The words of a name's xray setting (veil_per_output.given). */
enum {
	XRAY_ON = 1 << 0,
	XRAY_BLUR = 1 << 1,
};

struct xray_setting {
	struct veil_per_output base; /* first; in veil_xray_room.settings */
	bool on;
	int blur;
};
static_assert(offsetof(struct xray_setting, base) == 0, "the entry comes first");

/* What an output's picture is made of: compared at each of its commits. */
struct look {
	int n_pieces;
	struct veil_piece pieces[VEIL_XRAY_MAX_PIECES];
	bool fill;
	uint32_t color;
	int fill_width, fill_height;
	int logical_width, logical_height;
	float scale;
	int blur;
};

struct xray_job;

/* The blurred picture of one wlr_output, shared by its nodes. */
struct xray_output {
	struct veil_xray_room *room;
	struct wlr_output *output;
	struct wl_list link; /* veil_xray_room.outputs */
	struct wl_list nodes; /* veil_xray.link */
	struct wlr_buffer *picture; /* locked; NULL until the first is made */
	struct look look; /* what picture (or the running job) is of */
	bool has_look;
	int logical_width, logical_height; /* what picture covers */
	struct xray_job *job; /* running, NULL for none */
	struct timespec started; /* the last job's start */
	struct wl_event_source *timer; /* the next job, when no commit comes */
	bool timer_armed;
	uint64_t blurs;
	double worker_ms; /* the last job's time on the worker */
	char *left_out; /* why the last job left a frame out (a GPU's layout), or NULL */
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct veil_xray_room {
	struct veil_scene *scene;
	struct wl_list settings; /* xray_setting.base.link */
	struct wl_list outputs; /* xray_output.link */
	struct wl_list orphans; /* veil_xray.link: nodes without an output */
};

struct veil_xray {
	struct veil_scene *scene;
	struct xray_output *out; /* NULL: no output, or the scene ended */
	struct wl_list link; /* out->nodes, or room->orphans */
	struct wlr_scene_tree *tree; /* ours, in the compositor's parent */
	struct wlr_scene_buffer *buffer;
	bool has_box;
	struct wlr_box box;
	struct wl_listener tree_destroy;
	struct wl_listener outputs_update;
};

struct xray_job {
	struct veil_job base;
	struct xray_output *out; /* NULL once the output went */
	struct veil_xray_request request;
	struct veil_image image;
	int err;
	char *message;
	double ms;
};

static void refresh(struct xray_output *out);

/* ---- Settings ---- */

/* The setting whose word applies to the output, or NULL. */
static struct xray_setting *resolve(struct veil_xray_room *room, struct wlr_output *output,
		unsigned word) {
	struct veil_per_output *entry = veil_per_output_resolve(&room->settings, output->name, word);
	return entry != NULL ? wl_container_of(entry, (struct xray_setting *)NULL, base) : NULL;
}

static bool output_on(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_setting *setting = resolve(room, output, XRAY_ON);
	return setting != NULL && setting->on;
}

static int output_blur(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_setting *setting = resolve(room, output, XRAY_BLUR);
	return setting != NULL ? setting->blur : VEIL_BLUR_DEFAULT;
}

/* ---- Nodes ---- */

/*
 * The pointer passes through a node to whatever is below it: the window above it takes its
 * input where its surface does, and where no surface does (outside its input region, a title
 * bar's rounded corner) the compositor finds the window or the wallpaper below, not veil.
 */
static bool refuse_input(struct wlr_scene_buffer *buffer, double *sx, double *sy) {
	return false;
}

/* The node's box cut to the output; false when nothing of it is on the output. */
static bool node_cut(const struct veil_xray *xray, struct wlr_box *cut) {
	if (xray->out == NULL || !xray->has_box || xray->out->picture == NULL) {
		return false;
	}
	struct wlr_box whole = {
		.width = xray->out->logical_width, .height = xray->out->logical_height,
	};
	return wlr_box_intersection(cut, &xray->box, &whole);
}

/* Shows the node's part of its output's picture, or nothing. */
static void node_place(struct veil_xray *xray) {
	struct wlr_box cut;
	struct xray_output *out = xray->out;
	if (!node_cut(xray, &cut) || !output_on(out->room, out->output)) {
		wlr_scene_node_set_enabled(&xray->buffer->node, false);
		return;
	}
	if (xray->buffer->buffer != out->picture) {
		wlr_scene_buffer_set_buffer(xray->buffer, out->picture);
	}
	/* The copy has a margin all round (xray_picture.h): the output starts inside it. */
	const int m = VEIL_XRAY_MARGIN;
	double sx = (double)(out->picture->width - 2 * m) / out->logical_width;
	double sy = (double)(out->picture->height - 2 * m) / out->logical_height;
	struct wlr_fbox src = {
		.x = m + cut.x * sx, .y = m + cut.y * sy,
		.width = cut.width * sx, .height = cut.height * sy,
	};
	wlr_scene_buffer_set_source_box(xray->buffer, &src);
	wlr_scene_buffer_set_dest_size(xray->buffer, cut.width, cut.height);
	wlr_scene_node_set_position(&xray->buffer->node, cut.x - xray->box.x, cut.y - xray->box.y);
	wlr_scene_node_set_enabled(&xray->buffer->node, true);
}

static void place_all(struct xray_output *out) {
	struct veil_xray *xray;
	wl_list_for_each(xray, &out->nodes, link) {
		node_place(xray);
	}
}

/*
 * Whether a picture is worth making: xray on and some node with a box on the output, in trees
 * the compositor shows, that is visible, or that shows nothing yet (it cannot be visible before
 * it has a picture).
 */
static bool wanted(struct xray_output *out) {
	if (!output_on(out->room, out->output) || !out->output->enabled) {
		return false;
	}
	struct wlr_box whole = {0}, cut;
	wlr_output_effective_resolution(out->output, &whole.width, &whole.height);
	struct veil_xray *xray;
	wl_list_for_each(xray, &out->nodes, link) {
		if (!xray->has_box || !wlr_box_intersection(&cut, &xray->box, &whole)) {
			continue;
		}
		/* In a tree the compositor hides: wlroots 0.19 keeps the primary_output it had. */
		int lx, ly;
		if (!wlr_scene_node_coords(&xray->tree->node, &lx, &ly)) {
			continue;
		}
		if (out->picture == NULL || xray->buffer->primary_output != NULL ||
				!xray->buffer->node.enabled) {
			return true;
		}
	}
	return false;
}

/* ---- The picture ---- */

static void job_free(struct xray_job *job) {
	for (int i = 0; i < job->request.n_pieces; i++) {
		veil_frame_read_release(&job->request.pieces[i].read);
	}
	veil_image_finish(&job->image);
	free(job->message);
	free(job);
}

static void job_run(struct veil_job *base) {
	struct xray_job *job = wl_container_of(base, job, base);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	job->err = veil_xray_picture_make(&job->request, &job->image, &job->message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	job->ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

static void job_done(struct veil_job *base) {
	struct xray_job *job = wl_container_of(base, job, base);
	struct xray_output *out = job->out;
	if (out == NULL) {
		job_free(job);
		return;
	}
	out->job = NULL;
	if (!output_on(out->room, out->output)) {
		/* Turned off meanwhile: nothing is kept. */
	} else if (job->err < 0) {
		wlr_log(WLR_ERROR, "veil: output %s: cannot blur the wallpaper for xray: %s",
			out->output->name, job->message != NULL ? job->message : strerror(-job->err));
	} else {
		struct wlr_buffer *picture = veil_pixel_buffer_create(&job->image);
		if (picture != NULL) {
			wlr_buffer_unlock(out->picture);
			out->picture = wlr_buffer_lock(picture);
			wlr_buffer_drop(picture);
			out->logical_width = (int)lround(job->request.logical_width);
			out->logical_height = (int)lround(job->request.logical_height);
			out->blurs++;
			out->worker_ms = job->ms;
			wlr_log(WLR_DEBUG, "veil: output %s: xray picture %dx%d blurred in %.1f ms",
				out->output->name, picture->width, picture->height, job->ms);
			place_all(out);
		}
	}
	job_free(job);
	/* What changed meanwhile: the last change wins. */
	refresh(out);
}

/* Only when the scene's worker is destroyed, on the compositor thread: the session ends. */
static void job_discard(struct veil_job *base) {
	struct xray_job *job = wl_container_of(base, job, base);
	job_free(job);
}

static const struct veil_job_impl job_impl = {
	.run = job_run,
	.done = job_done,
	.discard = job_discard,
};

/* What the output's wallpaper nodes show now. */
static void read_look(struct xray_output *out, struct look *look) {
	memset(look, 0, sizeof(*look));
	struct wlr_output *output = out->output;
	wlr_output_effective_resolution(output, &look->logical_width, &look->logical_height);
	look->scale = output->scale;
	look->blur = output_blur(out->room, output);
	struct veil_output *shown = veil_output_find(out->room->scene, output);
	if (shown == NULL || shown->tree == NULL || !shown->tree->node.enabled) {
		return;
	}
	struct veil_piece pieces[VEIL_XRAY_MAX_PIECES];
	int n = veil_output_get_pieces(shown, pieces, VEIL_XRAY_MAX_PIECES);
	n = n > VEIL_XRAY_MAX_PIECES ? VEIL_XRAY_MAX_PIECES : n;
	for (int i = 0; i < n; i++) {
		if (pieces[i].buffer != NULL) {
			look->pieces[look->n_pieces++] = pieces[i];
		}
	}
	if (shown->rect != NULL && shown->rect->node.enabled && shown->setting != NULL) {
		look->fill = true;
		look->color = shown->setting->look.color;
		look->fill_width = shown->rect_width;
		look->fill_height = shown->rect_height;
	}
}

static bool same_piece(const struct veil_piece *a, const struct veil_piece *b) {
	return a->buffer == b->buffer && a->src.x == b->src.x && a->src.y == b->src.y &&
		a->src.width == b->src.width && a->src.height == b->src.height && a->x == b->x &&
		a->y == b->y && a->width == b->width && a->height == b->height;
}

static bool same_look(const struct look *a, const struct look *b) {
	if (a->n_pieces != b->n_pieces || a->fill != b->fill || a->color != b->color ||
			a->fill_width != b->fill_width || a->fill_height != b->fill_height ||
			a->logical_width != b->logical_width ||
			a->logical_height != b->logical_height || a->scale != b->scale ||
			a->blur != b->blur) {
		return false;
	}
	for (int i = 0; i < a->n_pieces; i++) {
		if (!same_piece(&a->pieces[i], &b->pieces[i])) {
			return false;
		}
	}
	return true;
}

static long ms_since(const struct timespec *t) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static void start_job(struct xray_output *out, const struct look *look) {
	struct xray_job *job = calloc(1, sizeof(*job));
	if (job == NULL) {
		return;
	}
	job->out = out;
	struct veil_xray_request *req = &job->request;
	double reduction = veil_blur_reduction(look->blur * look->scale);
	req->logical_width = look->logical_width;
	req->logical_height = look->logical_height;
	req->width = (int)ceil(look->logical_width * look->scale / reduction);
	req->height = (int)ceil(look->logical_height * look->scale / reduction);
	req->width = req->width < 1 ? 1 : req->width;
	req->height = req->height < 1 ? 1 : req->height;
	req->sigma = look->blur * look->scale / reduction;
	req->fill = look->fill;
	req->color = look->color;
	req->fill_width = look->fill_width;
	req->fill_height = look->fill_height;
	char *left_out = NULL;
	for (int i = 0; i < look->n_pieces; i++) {
		const struct veil_piece *piece = &look->pieces[i];
		struct veil_xray_piece *dst = &req->pieces[req->n_pieces];
		char *message = NULL;
		if (veil_frame_read_take(&dst->read, piece->buffer, &message) < 0) {
			/* A frame veil cannot read on the CPU: left out (the colour shows). */
			if (left_out == NULL) {
				left_out = message != NULL ? message : strdup("the frame is unreadable");
			} else {
				free(message);
			}
			continue;
		}
		dst->src = piece->src;
		dst->x = piece->x;
		dst->y = piece->y;
		dst->width = piece->width;
		dst->height = piece->height;
		req->n_pieces++;
	}
	/* Said once when it starts or changes (a video's frames would say it 5 times a second). */
	if (left_out != NULL && (out->left_out == NULL || strcmp(left_out, out->left_out) != 0)) {
		wlr_log(WLR_ERROR, "veil: output %s: xray leaves the wallpaper out of the blurred "
			"copy: %s", out->output->name, left_out);
	}
	free(out->left_out);
	out->left_out = left_out;
	out->look = *look;
	out->has_look = true;
	out->job = job;
	clock_gettime(CLOCK_MONOTONIC, &out->started);
	if (out->timer_armed) {
		wl_event_source_timer_update(out->timer, 0);
		out->timer_armed = false;
	}
	veil_worker_submit(out->room->scene->ctx.worker, &job->base, &job_impl);
}

static void forget_picture(struct xray_output *out) {
	wlr_buffer_unlock(out->picture);
	out->picture = NULL;
	free(out->left_out);
	out->left_out = NULL;
	out->has_look = false;
	struct veil_xray *xray;
	wl_list_for_each(xray, &out->nodes, link) {
		wlr_scene_buffer_set_buffer(xray->buffer, NULL);
	}
}

static int handle_timer(void *data) {
	struct xray_output *out = data;
	out->timer_armed = false;
	refresh(out);
	return 0;
}

/* A change too soon after the last job: the timer, in case no commit comes after the interval. */
static void arm_timer(struct xray_output *out, long since) {
	if (out->timer_armed) {
		return;
	}
	if (out->timer == NULL) {
		out->timer = wl_event_loop_add_timer(out->room->scene->ctx.loop, handle_timer, out);
		if (out->timer == NULL) {
			return;
		}
	}
	wl_event_source_timer_update(out->timer, (int)(MIN_INTERVAL_MS - since + LATE_MS));
	out->timer_armed = true;
}

/* Makes a new picture when what the output shows changed and a node wants it. */
static void refresh(struct xray_output *out) {
	if (out->job != NULL || !wanted(out)) {
		return;
	}
	struct look look;
	read_look(out, &look);
	if (out->has_look && same_look(&look, &out->look)) {
		return;
	}
	long since = ms_since(&out->started);
	if (out->picture != NULL && since >= 0 && since < MIN_INTERVAL_MS) {
		arm_timer(out, since);
		return;
	}
	start_job(out, &look);
}

static void handle_commit(struct wl_listener *listener, void *data) {
	struct xray_output *out = wl_container_of(listener, out, commit);
	refresh(out);
}

static void out_destroy(struct xray_output *out) {
	struct veil_xray *xray, *tmp;
	wl_list_for_each_safe(xray, tmp, &out->nodes, link) {
		wl_list_remove(&xray->link);
		wl_list_insert(&out->room->orphans, &xray->link);
		xray->out = NULL;
		node_place(xray);
	}
	if (out->job != NULL) {
		out->job->out = NULL;
	}
	if (out->timer != NULL) {
		wl_event_source_remove(out->timer);
	}
	wlr_buffer_unlock(out->picture);
	free(out->left_out);
	wl_list_remove(&out->commit.link);
	wl_list_remove(&out->destroy.link);
	wl_list_remove(&out->link);
	free(out);
}

static void handle_output_destroy(struct wl_listener *listener, void *data) {
	struct xray_output *out = wl_container_of(listener, out, destroy);
	out_destroy(out);
}

static struct xray_output *out_find(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_output *out;
	wl_list_for_each(out, &room->outputs, link) {
		if (out->output == output) {
			return out;
		}
	}
	return NULL;
}

/* The output's shared picture, made when its first node comes. */
static struct xray_output *out_get(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_output *out = out_find(room, output);
	if (out != NULL) {
		return out;
	}
	out = calloc(1, sizeof(*out));
	if (out == NULL) {
		return NULL;
	}
	out->room = room;
	out->output = output;
	wl_list_init(&out->nodes);
	out->commit.notify = handle_commit;
	wl_signal_add(&output->events.commit, &out->commit);
	out->destroy.notify = handle_output_destroy;
	wl_signal_add(&output->events.destroy, &out->destroy);
	wl_list_insert(&room->outputs, &out->link);
	return out;
}

/* The last node of an output went: nothing is kept, nothing listens. */
static void out_release(struct xray_output *out) {
	if (out != NULL && wl_list_empty(&out->nodes)) {
		out_destroy(out);
	}
}

/* ---- The public functions ---- */

static void node_attach(struct veil_xray *xray, struct wlr_output *output) {
	struct veil_xray_room *room = xray->scene != NULL ? xray->scene->xray : NULL;
	struct xray_output *old = xray->out;
	struct xray_output *out = output != NULL && room != NULL ? out_get(room, output) : NULL;
	if (out == old && (out != NULL || output == NULL)) {
		return;
	}
	wl_list_remove(&xray->link);
	xray->out = out;
	if (out != NULL) {
		wl_list_insert(&out->nodes, &xray->link);
	} else {
		wl_list_init(&xray->link);
	}
	if (old != NULL) {
		out_release(old);
	}
	if (xray->buffer->buffer != NULL && (out == NULL || out->picture != xray->buffer->buffer)) {
		wlr_scene_buffer_set_buffer(xray->buffer, NULL);
	}
	node_place(xray);
	if (out != NULL) {
		refresh(out);
	}
}

static void handle_tree_destroy(struct wl_listener *listener, void *data) {
	struct veil_xray *xray = wl_container_of(listener, xray, tree_destroy);
	struct xray_output *out = xray->out;
	wl_list_remove(&xray->tree_destroy.link);
	wl_list_remove(&xray->outputs_update.link);
	wl_list_remove(&xray->link);
	free(xray);
	out_release(out);
}

static void handle_outputs_update(struct wl_listener *listener, void *data) {
	struct veil_xray *xray = wl_container_of(listener, xray, outputs_update);
	if (xray->out != NULL) {
		refresh(xray->out);
	}
}

struct veil_xray *veil_xray_create(struct veil_scene *scene, struct wlr_output *output,
		struct wlr_scene_tree *parent) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->xray == NULL || parent == NULL) {
		return NULL;
	}
	struct veil_xray *xray = calloc(1, sizeof(*xray));
	if (xray == NULL) {
		return NULL;
	}
	xray->scene = scene;
	xray->tree = wlr_scene_tree_create(parent);
	if (xray->tree == NULL) {
		goto error;
	}
	xray->buffer = wlr_scene_buffer_create(xray->tree, NULL);
	if (xray->buffer == NULL) {
		wlr_scene_node_destroy(&xray->tree->node);
		goto error;
	}
	wlr_scene_node_set_enabled(&xray->buffer->node, false);
	xray->buffer->point_accepts_input = refuse_input;
	xray->tree_destroy.notify = handle_tree_destroy;
	wl_signal_add(&xray->tree->node.events.destroy, &xray->tree_destroy);
	xray->outputs_update.notify = handle_outputs_update;
	wl_signal_add(&xray->buffer->events.outputs_update, &xray->outputs_update);
	wl_list_insert(&scene->xray->orphans, &xray->link);
	node_attach(xray, output);
	return xray;

error:
	free(xray);
	return NULL;
}

void veil_xray_set_box(struct veil_xray *xray, const struct wlr_box *box) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	xray->has_box = box != NULL && box->width > 0 && box->height > 0;
	xray->box = xray->has_box ? *box : (struct wlr_box){0};
	node_place(xray);
	if (xray->out != NULL) {
		refresh(xray->out);
	}
}

void veil_xray_set_output(struct veil_xray *xray, struct wlr_output *output) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	if (xray->scene == NULL || xray->scene->xray == NULL) {
		output = NULL;
	}
	if (output == NULL) {
		struct xray_output *old = xray->out;
		wl_list_remove(&xray->link);
		xray->out = NULL;
		wl_list_init(&xray->link);
		out_release(old);
		wlr_scene_buffer_set_buffer(xray->buffer, NULL);
		node_place(xray);
		return;
	}
	node_attach(xray, output);
}

struct wlr_scene_node *veil_xray_node(struct veil_xray *xray) {
	return xray != NULL ? &xray->tree->node : NULL;
}

void veil_xray_destroy(struct veil_xray *xray) {
	if (xray == NULL) {
		return;
	}
	veil_scene_assert_thread(xray->scene);
	/* handle_tree_destroy() frees it. */
	wlr_scene_node_destroy(&xray->tree->node);
}

/* ---- The room ---- */

bool veil_xray_init(struct veil_scene *scene) {
	struct veil_xray_room *room = calloc(1, sizeof(*room));
	if (room == NULL) {
		return false;
	}
	room->scene = scene;
	wl_list_init(&room->settings);
	wl_list_init(&room->outputs);
	wl_list_init(&room->orphans);
	scene->xray = room;
	return true;
}

void veil_xray_finish(struct veil_scene *scene) {
	struct veil_xray_room *room = scene->xray;
	if (room == NULL) {
		return;
	}
	struct xray_output *out, *tmp_out;
	wl_list_for_each_safe(out, tmp_out, &room->outputs, link) {
		out_destroy(out);
	}
	/* The nodes stay the compositor's; they forget the room. */
	struct veil_xray *xray, *tmp;
	wl_list_for_each_safe(xray, tmp, &room->orphans, link) {
		wl_list_remove(&xray->link);
		wl_list_init(&xray->link);
		xray->scene = NULL;
	}
	veil_per_output_finish(&room->settings);
	free(room);
	scene->xray = NULL;
}

int veil_xray_set(struct veil_scene *scene, const char *name, const struct veil_command *cmd) {
	struct veil_xray_room *room = scene->xray;
	bool on = cmd->kind == VEIL_COMMAND_XRAY;
	struct veil_per_output *entry = veil_per_output_set(&room->settings, name,
		on ? XRAY_ON : XRAY_BLUR, sizeof(struct xray_setting));
	if (entry == NULL) {
		return -ENOMEM;
	}
	struct xray_setting *setting = wl_container_of(entry, setting, base);
	if (on) {
		setting->on = cmd->xray;
	} else {
		setting->blur = cmd->blur;
	}
	struct xray_output *out;
	wl_list_for_each(out, &room->outputs, link) {
		if (!output_on(room, out->output)) {
			/* Off: the copy goes, and is made again (of what shows then) when on. */
			forget_picture(out);
		}
		place_all(out);
		refresh(out);
	}
	return 0;
}

struct json_object *veil_xray_status(struct veil_scene *scene, struct wlr_output *output) {
	struct veil_xray_room *room = scene->xray;
	if (room == NULL) {
		return NULL;
	}
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "on", json_object_new_boolean(output_on(room, output)));
	json_object_object_add(obj, "blur", json_object_new_int(output_blur(room, output)));
	struct xray_output *out = out_find(room, output);
	int nodes = 0, shown = 0;
	if (out != NULL) {
		struct veil_xray *xray;
		wl_list_for_each(xray, &out->nodes, link) {
			nodes++;
			shown += xray->buffer->node.enabled;
		}
	}
	json_object_object_add(obj, "nodes", json_object_new_int(nodes));
	json_object_object_add(obj, "shown", json_object_new_int(shown));
	if (out != NULL && out->picture != NULL) {
		struct json_object *size = json_object_new_array();
		json_object_array_add(size, json_object_new_int(out->picture->width -
			2 * VEIL_XRAY_MARGIN));
		json_object_array_add(size, json_object_new_int(out->picture->height -
			2 * VEIL_XRAY_MARGIN));
		json_object_object_add(obj, "size", size);
	}
	json_object_object_add(obj, "blurs", json_object_new_int64(
		out != NULL ? (int64_t)out->blurs : 0));
	if (out != NULL && out->blurs > 0) {
		json_object_object_add(obj, "worker_ms", json_object_new_double(out->worker_ms));
	}
	if (out != NULL && out->left_out != NULL) {
		json_object_object_add(obj, "left_out", json_object_new_string(out->left_out));
	}
	return obj;
}

struct json_object *veil_xray_state(struct veil_scene *scene) {
	struct json_object *all = json_object_new_object();
	if (scene->xray == NULL) {
		return all;
	}
	struct xray_setting *setting;
	wl_list_for_each_reverse(setting, &scene->xray->settings, base.link) {
		struct json_object *obj = json_object_new_object();
		if (setting->base.given & XRAY_ON) {
			json_object_object_add(obj, "xray", json_object_new_boolean(setting->on));
		}
		if (setting->base.given & XRAY_BLUR) {
			json_object_object_add(obj, "blur", json_object_new_int(setting->blur));
		}
		json_object_object_add(all, setting->base.name, obj);
	}
	return all;
}
