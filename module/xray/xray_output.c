/*
 * xray's picture of one wlr_output, shared by its nodes (xray.c): the look compared at each
 * commit, the jobs on the worker, the timer, the output's commit and destroy listeners.
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
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "module/core/scene.h"
#include "module/xray/xray_impl.h"
#include "module/xray/xray_picture.h"
#include "scene/pixel_buffer.h"
#include "util/blur.h"
#include "util/image.h"
#include "util/worker.h"

/* Blurs of one output start at most this often. */
#define MIN_INTERVAL_MS 200
/* How long after MIN_INTERVAL_MS a change waits for a commit before the timer makes it. */
#define LATE_MS 100

struct xray_job {
	struct veil_job base;
	struct xray_output *out; /* NULL once the output went */
	struct veil_xray_request request;
	struct veil_image image;
	int err;
	char *message;
	double ms;
};

/*
 * Whether a picture is worth making: xray on and some node with a box on the output, in trees
 * the compositor shows, that is visible, or that shows nothing yet (it cannot be visible before
 * it has a picture).
 */
static bool wanted(struct xray_output *out) {
	if (!veil_xray_output_on(out->room, out->output) || !out->output->enabled) {
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
	if (!veil_xray_output_on(out->room, out->output)) {
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
			out->blurred_width = job->request.width;
			out->blurred_height = job->request.height;
			out->blurs++;
			out->worker_ms = job->ms;
			wlr_log(WLR_DEBUG, "veil: output %s: xray picture %dx%d blurred in %.1f ms",
				out->output->name, picture->width, picture->height, job->ms);
			veil_xray_place_all(out);
		}
	}
	job_free(job);
	/* What changed meanwhile: the last change wins. */
	veil_xray_refresh(out);
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
	look->blur = veil_xray_output_blur(out->room, output);
	/*
	 * wlroots' pixman renderer rounds a buffer's source box to whole pixels: a node's box in a
	 * reduced copy (a fifth of 203 is 40.6) would show its patch 1 to 3 pixels off. Its copy is
	 * scaled up on the worker to the output's logical size, where every box is whole (and the
	 * renderer copies it rather than scaling it each frame). GPU renderers sample fractional
	 * boxes: the reduced copy.
	 */
	struct wlr_renderer *renderer = out->room->scene->renderer;
	look->full = renderer != NULL && wlr_renderer_is_pixman(renderer);
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
			a->blur != b->blur || a->full != b->full) {
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
	req->reduction = reduction;
	if (look->full) {
		req->full_width = look->logical_width;
		req->full_height = look->logical_height;
	}
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

void veil_xray_forget_picture(struct xray_output *out) {
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
	veil_xray_refresh(out);
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
void veil_xray_refresh(struct xray_output *out) {
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
	veil_xray_refresh(out);
}

void veil_xray_out_destroy(struct xray_output *out) {
	struct veil_xray *xray, *tmp;
	wl_list_for_each_safe(xray, tmp, &out->nodes, link) {
		wl_list_remove(&xray->link);
		wl_list_insert(&out->room->orphans, &xray->link);
		xray->out = NULL;
		veil_xray_node_place(xray);
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
	veil_xray_out_destroy(out);
}

struct xray_output *veil_xray_out_find(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_output *out;
	wl_list_for_each(out, &room->outputs, link) {
		if (out->output == output) {
			return out;
		}
	}
	return NULL;
}

/* The output's shared picture, made when its first node comes. */
struct xray_output *veil_xray_out_get(struct veil_xray_room *room, struct wlr_output *output) {
	struct xray_output *out = veil_xray_out_find(room, output);
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
void veil_xray_out_release(struct xray_output *out) {
	if (out != NULL && wl_list_empty(&out->nodes)) {
		veil_xray_out_destroy(out);
	}
}
