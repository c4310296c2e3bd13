/*
 * xray's picture (module/xray/xray_picture.c, util/blur.c) against ImageMagick: a picture
 * ImageMagick draws (plasma, a sharp white box, a black bar) is composed and blurred as the
 * worker does it, at a fifth a side for the default 20 px, scaled up bilinear as the pixman
 * renderer scales a buffer node, and compared with `convert IN -blur 0x<sigma>` of the whole
 * picture: PSNR at least 35 dB (at 1280x720 and 1080p; 4K is only timed), and along each
 * edge of the output (a band of 16 pixels, also for a picture of sharp squares) at most
 * EDGE_MEAN_MAX levels off on average. The copy the worker scales up to the output's size for
 * the pixman renderer is the renderer's own scale-up to a level. Also the worker's time at 1080p
 * and 4K (the thread's CPU time, median of 5), printed for docs/measurements.md, and a flat
 * picture staying flat.
 */
#include <drm_fourcc.h>
#include <math.h>
#include <pixman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/types/wlr_buffer.h>
#include "check.h"
#include "module/xray/xray_picture.h"
#include "scene/pixel_buffer.h"
#include "util/blur.h"
#include "util/image.h"
#include "util/pixels.h"

static bool run(const char *command) {
	char quiet[1024];
	snprintf(quiet, sizeof(quiet), "%s >/dev/null 2>&1", command);
	return system(quiet) == 0;
}

/* ImageMagick's `convert`, or `magick` where it is called that. */
static const char *magick(void) {
	return run("command -v magick") ? "magick" : "convert";
}

/* A raw BGRA file of w x h (ImageMagick's bgra:) as a veil_image, XRGB8888. */
static bool read_bgra(const char *path, int w, int h, struct veil_image *image) {
	size_t size = (size_t)w * h * 4;
	FILE *f = fopen(path, "rb");
	*image = (struct veil_image){
		.width = w, .height = h, .stride = 4 * w, .drm_format = DRM_FORMAT_XRGB8888,
		.data = veil_pixels_alloc(size),
	};
	bool ok = f != NULL && image->data != NULL && fread(image->data, 1, size, f) == size;
	if (f != NULL) {
		fclose(f);
	}
	return ok;
}

/*
 * The picture, and ImageMagick's blur of it unless ref is NULL (4K's takes a minute here):
 * plasma with a white box and a black bar, or squares: sharp 32-pixel squares of random
 * colours, whose edge rows differ most from the rows next to them.
 */
static bool make_picture(const char *path, int w, int h, double sigma, const char *ref,
		bool squares) {
	char cmd[1024], blur[128] = "", draw[256];
	if (ref != NULL) {
		snprintf(blur, sizeof(blur), "-blur 0x%g bgra:%s", sigma, ref);
	}
	if (squares) {
		snprintf(draw, sizeof(draw), "-size %dx%d xc: +noise Random -sample 3200%% "
			"-crop %dx%d+0+0 +repage", (w + 31) / 32, (h + 31) / 32, w, h);
	} else {
		snprintf(draw, sizeof(draw), "-size %dx%d plasma:red-blue -fill white -draw "
			"'rectangle %d,%d %d,%d' -fill black -draw 'rectangle %d,%d %d,%d'", w, h,
			w / 5, h / 4, w * 2 / 5, h * 3 / 5, w * 11 / 20, h / 7, w * 3 / 5, h * 6 / 7);
	}
	snprintf(cmd, sizeof(cmd), "%s -seed 7 %s -depth 8 %s bgra:%s %s", magick(), draw,
		ref != NULL ? "-write" : "", path, blur);
	return run(cmd);
}

/*
 * The worker's picture of image shown whole on a w x h output, sigma logical pixels; full: for
 * a renderer that rounds source boxes, scaled up to the output's size on the worker.
 */
static int make(struct wlr_buffer *buffer, int w, int h, double sigma, bool full,
		struct veil_image *out, double *ms) {
	int reduction = veil_blur_reduction(sigma);
	struct veil_xray_request req = {
		.width = (w + reduction - 1) / reduction,
		.height = (h + reduction - 1) / reduction,
		.logical_width = w, .logical_height = h,
		.n_pieces = 1,
		.sigma = sigma / reduction,
		.reduction = reduction,
		.full_width = full ? w : 0,
		.full_height = full ? h : 0,
	};
	req.pieces[0] = (struct veil_xray_piece){ .width = w, .height = h };
	char *message = NULL;
	if (veil_frame_read_take(&req.pieces[0].read, buffer, &message) < 0) {
		fprintf(stderr, "frame_read_take: %s\n", message);
		free(message);
		return -1;
	}
	/* CPU time: the machines these run on are shared, wall time says more of them. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	int ret = veil_xray_picture_make(&req, out, &message);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	*ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	veil_frame_read_release(&req.pieces[0].read);
	if (ret < 0) {
		fprintf(stderr, "picture_make: %s\n", message);
	}
	free(message);
	return ret;
}

/*
 * small (its margin left out) scaled up to w x h with pixman's bilinear filter, as the renderer
 * draws the node.
 */
static uint32_t *scale_up(const struct veil_image *with_margin, int w, int h) {
	const int m = VEIL_XRAY_MARGIN;
	struct veil_image inner = *with_margin;
	inner.width -= 2 * m;
	inner.height -= 2 * m;
	inner.data = (uint8_t *)inner.data + (size_t)m * inner.stride + 4 * m;
	const struct veil_image *small = &inner;
	uint32_t *big = calloc((size_t)w * h, 4);
	pixman_image_t *src = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, small->width,
		small->height, small->data, small->stride);
	pixman_image_t *dst = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, w, h, big, w * 4);
	pixman_transform_t t;
	pixman_transform_init_scale(&t, pixman_double_to_fixed((double)small->width / w),
		pixman_double_to_fixed((double)small->height / h));
	pixman_image_set_transform(src, &t);
	pixman_image_set_filter(src, PIXMAN_FILTER_BILINEAR, NULL, 0);
	pixman_image_set_repeat(src, PIXMAN_REPEAT_PAD);
	pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, 0, 0, 0, 0, 0, 0, w, h);
	pixman_image_unref(src);
	pixman_image_unref(dst);
	return big;
}

static double psnr(const uint32_t *a, const uint8_t *ref, int w, int h) {
	double sum = 0;
	for (size_t i = 0; i < (size_t)w * h; i++) {
		for (int c = 0; c < 3; c++) {
			double d = (double)((a[i] >> (8 * c)) & 0xff) - ref[4 * i + c];
			sum += d * d;
		}
	}
	double mse = sum / ((double)w * h * 3);
	return mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 99;
}

/*
 * The shown picture a against ImageMagick's along each edge of the output: a band of 16 pixels
 * (its corners in both), mean and worst levels off over RGB and PSNR, printed for
 * docs/measurements.md; the worst band's mean is returned, and the worst level in *worst_all.
 */
static double edge_bands(const uint32_t *a, const uint8_t *ref, int w, int h, int *worst_all) {
	const int band = 16;
	static const char *names[] = {"top", "bottom", "left", "right"};
	double worst_mean = 0;
	*worst_all = 0;
	for (int e = 0; e < 4; e++) {
		int x0 = e == 3 ? w - band : 0, x1 = e == 2 ? band : w;
		int y0 = e == 1 ? h - band : 0, y1 = e == 0 ? band : h;
		double sum = 0, sq = 0;
		int worst = 0;
		for (int y = y0; y < y1; y++) {
			for (int x = x0; x < x1; x++) {
				size_t i = (size_t)y * w + x;
				for (int c = 0; c < 3; c++) {
					int d = abs((int)((a[i] >> (8 * c)) & 0xff) - ref[4 * i + c]);
					sum += d;
					sq += (double)d * d;
					worst = d > worst ? d : worst;
				}
			}
		}
		double n = (double)(x1 - x0) * (y1 - y0) * 3;
		double db = sq > 0 ? 10 * log10(255.0 * 255.0 * n / sq) : 99;
		printf("  %s %d px: %.2f levels off on average, %d at most, PSNR %.1f dB\n",
			names[e], band, sum / n, worst, db);
		worst_mean = sum / n > worst_mean ? sum / n : worst_mean;
		*worst_all = worst > *worst_all ? worst : *worst_all;
	}
	return worst_mean;
}

/*
 * The most an edge's band may be off ImageMagick, on average and at worst (levels, RGB). With
 * the reduced copy's own edge repeated outwards rather than the full picture's, the squares'
 * bottom band was 4.28 off on average and 23 at most, the plasma's left 1.45 and 6.
 */
#define EDGE_MEAN_MAX 1.2
#define EDGE_WORST_MAX 10

static int compare_doubles(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * PSNR of the whole path against ImageMagick (compare), and the worker's median time of 5.
 * full: the worker scales the copy up (pixman's renderer); it must be the reduced copy scaled
 * up as the renderer would, to a level.
 */
static void check_size(int w, int h, double sigma, bool timed, bool compare, bool full,
		bool squares) {
	char path[64], ref_path[64];
	snprintf(path, sizeof(path), "test-blur-%dx%d%s.bgra", w, h, squares ? "-squares" : "");
	snprintf(ref_path, sizeof(ref_path), "test-blur-%dx%d%s-%g.bgra", w, h,
		squares ? "-squares" : "", sigma);
	struct veil_image image, ref = {0};
	if (!CHECK(make_picture(path, w, h, sigma, compare ? ref_path : NULL, squares),
			"ImageMagick draws %dx%d", w, h) || !CHECK(read_bgra(path, w, h, &image)) ||
			(compare && !CHECK(read_bgra(ref_path, w, h, &ref)))) {
		return;
	}
	struct wlr_buffer *buffer = veil_pixel_buffer_create(&image);
	if (!CHECK(buffer != NULL)) {
		return;
	}
	double times[5];
	int runs = timed ? 5 : 1;
	struct veil_image out = {0};
	for (int i = 0; i < runs; i++) {
		veil_image_finish(&out);
		if (!CHECK(make(buffer, w, h, sigma, full, &out, &times[i]) == 0)) {
			wlr_buffer_drop(buffer);
			return;
		}
	}
	CHECK(out.drm_format == DRM_FORMAT_XRGB8888, "an opaque picture stays opaque");
	const int m = VEIL_XRAY_MARGIN;
	struct veil_image small = {0};
	uint32_t *big = NULL;
	if (full && CHECK(out.width == w + 2 * m && out.height == h + 2 * m,
			"%dx%d: the copy is the output's size", w, h) &&
			CHECK(make(buffer, w, h, sigma, false, &small, &(double){0}) == 0)) {
		/* The worker's scale-up against the renderer's, row by row (out has a margin). */
		uint32_t *want = scale_up(&small, w, h);
		int worst = 0;
		for (int y = 0; y < h; y++) {
			const uint8_t *row = (const uint8_t *)out.data + (size_t)(y + m) * out.stride;
			for (int x = 0; x < w; x++) {
				uint32_t a = ((const uint32_t *)row)[x + m], b = want[(size_t)y * w + x];
				for (int c = 0; c < 3; c++) {
					int d = abs((int)((a >> (8 * c)) & 0xff) - (int)((b >> (8 * c)) & 0xff));
					worst = d > worst ? d : worst;
				}
			}
		}
		CHECK(worst <= 1, "%dx%d scaled up on the worker: %d levels off the renderer's "
			"scale-up", w, h, worst);
		big = want;
	} else if (compare && !full) {
		big = scale_up(&out, w, h);
	}
	veil_image_finish(&small);
	double db = 0;
	if (compare && big != NULL) {
		db = psnr(big, ref.data, w, h);
		CHECK(db >= 35.0, "%dx%d, sigma %g: PSNR %.1f dB against ImageMagick", w, h, sigma,
			db);
		printf("%dx%d%s sigma %g%s, along the edges:\n", w, h, squares ? " squares" : "",
			sigma, full ? " (scaled up)" : "");
		int edge_worst;
		double edge = edge_bands(big, ref.data, w, h, &edge_worst);
		CHECK(edge <= EDGE_MEAN_MAX && edge_worst <= EDGE_WORST_MAX, "%dx%d%s: along an "
			"edge %.2f levels off ImageMagick on average, %d at most", w, h,
			squares ? " squares" : "", edge, edge_worst);
	}
	free(big);
	qsort(times, (size_t)runs, sizeof(times[0]), compare_doubles);
	char said[32] = "not compared";
	if (compare) {
		snprintf(said, sizeof(said), "%.1f dB", db);
	}
	printf("%dx%d%s sigma %g: %s %dx%d, PSNR %s, worker %.1f ms of CPU%s\n", w, h,
		squares ? " squares" : "", sigma, full ? "scaled up to" : "blurred",
		out.width - 2 * m, out.height - 2 * m, said, times[runs / 2],
		timed ? " (median of 5)" : "");
	veil_image_finish(&out);
	veil_image_finish(&ref);
	wlr_buffer_drop(buffer);
	remove(path);
	remove(ref_path);
}

/* A flat picture blurs to itself, edges included (they repeat, or are carried, outwards). */
static void check_flat(void) {
	struct veil_image image = {
		.width = 50, .height = 30, .stride = 200, .drm_format = DRM_FORMAT_ARGB8888,
		.data = veil_pixels_alloc(200 * 30),
	};
	uint32_t *px = image.data;
	for (int i = 0; i < 50 * 30; i++) {
		px[i] = 0x80402010;
	}
	CHECK(veil_blur_image(&image, 7.5) == 0);
	CHECK(veil_blur_image_reduced(&image, 4, 5) == 0);
	int off = 0;
	for (int i = 0; i < 50 * 30; i++) {
		off += px[i] != 0x80402010;
	}
	CHECK(off == 0, "%d pixels changed (the reduced blur's estimated edge included)", off);
	veil_image_finish(&image);
	CHECK(veil_blur_reduction(20) == 5 && veil_blur_reduction(1) == 1 &&
		veil_blur_reduction(200) == 8);
}

int main(void) {
	if (!run("command -v convert") && !run("command -v magick")) {
		fprintf(stderr, "ImageMagick is not installed\n");
		return 1;
	}
	check_flat();
	check_size(1280, 720, 20, false, true, false, false);
	check_size(1280, 720, 20, false, true, false, true);
	check_size(1280, 720, 6, false, true, false, false);
	check_size(1920, 1080, 20, true, true, false, false);
	check_size(1920, 1080, 20, true, true, true, false);
	check_size(1920, 1080, 20, false, true, false, true);
	check_size(3840, 2160, 20, true, false, false, false);
	check_size(3840, 2160, 20, true, false, true, false);
	return check_summary("blur");
}
