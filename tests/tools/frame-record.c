/*
 * frame-record: every frame an output renders, as the colours of a few of its pixels.
 *
 *   frame-record [--output NAME] [--frames N] [--refresh-mhz MHZ] --point X,Y [--point X,Y ...]
 *
 * A Wayland client of wlr-screencopy-unstable-v1 (version 3): it asks for a copy of the whole
 * output with copy_with_damage into one wl_shm buffer, and as soon as a copy is ready asks for
 * the next one. wlroots copies a frame when the compositor commits it (from the buffer that is
 * committed, before anything else is drawn), and only a commit that has damage since the
 * client's previous copy; the request itself makes the compositor draw at the next refresh, so
 * an idle output gives no copy and a changing one gives a copy of each frame it shows.
 *
 * For each copy one line on stdout:
 *
 *   frame <n> <sec>.<nsec> <received, ns> <blind, ns> <#rrggbb at each point, in order>
 *
 * <sec>.<nsec> is the ready event's time: the commit's, on CLOCK_MONOTONIC (wlroots' clock, as
 * Python's time.monotonic()); <received> is this client's CLOCK_MONOTONIC when the ready event
 * was read. First a line `output <name> <w>x<h> period <ns>`, then `ready` once the first copy
 * has come; at the end (after N frames, on SIGTERM or SIGINT, or when the output goes) a line
 * `end frames <n> failed <n> blind <n> longest-blind <ns>`. Points are in the output's buffer
 * pixels (a transformed or scaled output is copied as its buffer is).
 *
 * What it can miss: a frame committed between a copy and the next request. wlroots has the
 * client's next copy wait for the commit after that request arrives, so a frame committed
 * after frame k and before the request for k + 1 reached the compositor is never seen (its
 * damage is added to the next copy's, its pixels are lost). The protocol tells when each copied
 * frame was committed, and a wlroots output commits at most once a refresh period (after a
 * commit it waits for the backend's next frame event): so the request for k + 1 is in time
 * when it was sent less than a period after frame k's commit. <blind> is that delay (from
 * frame k's commit to this client's copy_with_damage for frame k + 1; 0 on the first line); a
 * delay of a period or more (less 1 ms, for the request's way through the socket) is counted
 * in `blind` as a frame that may have been missed. The period is the wl_output mode's refresh,
 * or --refresh-mhz when the output says 0 (wlroots' headless backend, which runs at 60 Hz).
 *
 * wlr-protocols' XML is not packaged in Debian (nor in the devroot), so the two interfaces'
 * messages are declared below from the protocol's documented signatures, as wayland-scanner
 * would generate them; the core interfaces come from libwayland-client.
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client.h"

/* ---- wlr-screencopy-unstable-v1, version 3 ---- */

static const struct wl_interface zwlr_screencopy_frame_v1_interface;

static const struct wl_interface *sc_types[] = {
	NULL, NULL, NULL, NULL,
	/* 4: capture_output */
	&zwlr_screencopy_frame_v1_interface, NULL, &wl_output_interface,
	/* 7: capture_output_region */
	&zwlr_screencopy_frame_v1_interface, NULL, &wl_output_interface, NULL, NULL, NULL, NULL,
	/* 14: copy, copy_with_damage */
	&wl_buffer_interface,
};

static const struct wl_message sc_manager_requests[] = {
	{"capture_output", "nio", sc_types + 4},
	{"capture_output_region", "nioiiii", sc_types + 7},
	{"destroy", "", sc_types + 0},
};

static const struct wl_interface zwlr_screencopy_manager_v1_interface = {
	"zwlr_screencopy_manager_v1", 3, 3, sc_manager_requests, 0, NULL,
};

static const struct wl_message sc_frame_requests[] = {
	{"copy", "o", sc_types + 14},
	{"destroy", "", sc_types + 0},
	{"copy_with_damage", "2o", sc_types + 14},
};

static const struct wl_message sc_frame_events[] = {
	{"buffer", "uuuu", sc_types + 0},
	{"flags", "u", sc_types + 0},
	{"ready", "uuu", sc_types + 0},
	{"failed", "", sc_types + 0},
	{"damage", "2uuuu", sc_types + 0},
	{"linux_dmabuf", "3uuu", sc_types + 0},
	{"buffer_done", "3", sc_types + 0},
};

static const struct wl_interface zwlr_screencopy_frame_v1_interface = {
	"zwlr_screencopy_frame_v1", 3, 3, sc_frame_requests, 7, sc_frame_events,
};

enum {
	SC_MANAGER_CAPTURE_OUTPUT = 0,
	SC_MANAGER_DESTROY = 2,
	SC_FRAME_DESTROY = 1,
	SC_FRAME_COPY_WITH_DAMAGE = 2,
	SC_FRAME_FLAG_Y_INVERT = 1,
};

struct sc_frame_listener {
	void (*buffer)(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width,
		uint32_t height, uint32_t stride);
	void (*flags)(void *data, struct wl_proxy *frame, uint32_t flags);
	void (*ready)(void *data, struct wl_proxy *frame, uint32_t tv_sec_hi, uint32_t tv_sec_lo,
		uint32_t tv_nsec);
	void (*failed)(void *data, struct wl_proxy *frame);
	void (*damage)(void *data, struct wl_proxy *frame, uint32_t x, uint32_t y, uint32_t width,
		uint32_t height);
	void (*linux_dmabuf)(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width,
		uint32_t height);
	void (*buffer_done)(void *data, struct wl_proxy *frame);
};

/* ---- the recorder ---- */

#define MAX_POINTS 16

struct point {
	int x, y;
};

struct output {
	struct wl_output *wl_output;
	char *name;
	int32_t refresh_mhz;
	struct wl_list link;
};

struct recorder {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_shm *shm;
	struct wl_proxy *manager;
	struct wl_list outputs; /* output.link */
	struct output *output;
	const char *output_name;

	struct point points[MAX_POINTS];
	int n_points;
	long max_frames;
	int32_t refresh_mhz_given;
	int64_t period_ns;

	/* The buffer the frames are copied into, made on the first buffer event. */
	struct wl_buffer *buffer;
	void *pixels;
	size_t size;
	uint32_t format, width, height, stride;

	/* The copy in flight. */
	struct wl_proxy *frame;
	uint32_t frame_format, frame_width, frame_height, frame_stride;
	bool frame_shm, frame_y_invert;
	int64_t copy_sent_ns;

	long frames, failed, blind;
	int64_t last_commit_ns, longest_blind_ns;
	bool done;
	int status;
};

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(struct recorder *rec, const char *what) {
	fprintf(stderr, "frame-record: %s\n", what);
	rec->status = 1;
	rec->done = true;
}

static void request_copy(struct recorder *rec);

static void frame_buffer(void *data, struct wl_proxy *frame, uint32_t format, uint32_t width,
		uint32_t height, uint32_t stride) {
	struct recorder *rec = data;
	rec->frame_shm = true;
	rec->frame_format = format;
	rec->frame_width = width;
	rec->frame_height = height;
	rec->frame_stride = stride;
}

static void frame_flags(void *data, struct wl_proxy *frame, uint32_t flags) {
	struct recorder *rec = data;
	rec->frame_y_invert = flags & SC_FRAME_FLAG_Y_INVERT;
}

static bool make_buffer(struct recorder *rec) {
	void *pixels;
	size_t size;
	rec->buffer = client_shm_buffer(rec->shm, "frame-record", (int32_t)rec->frame_width,
		(int32_t)rec->frame_height, (int32_t)rec->frame_stride, rec->frame_format, &pixels,
		&size);
	if (rec->buffer == NULL) {
		return false;
	}
	rec->pixels = pixels;
	rec->size = size;
	rec->format = rec->frame_format;
	rec->width = rec->frame_width;
	rec->height = rec->frame_height;
	rec->stride = rec->frame_stride;
	return true;
}

static void frame_buffer_done(void *data, struct wl_proxy *frame) {
	struct recorder *rec = data;
	if (!rec->frame_shm) {
		fail(rec, "the compositor offers no wl_shm buffer for the output");
		return;
	}
	if (rec->buffer != NULL && (rec->format != rec->frame_format ||
			rec->width != rec->frame_width || rec->height != rec->frame_height ||
			rec->stride != rec->frame_stride)) {
		fail(rec, "the output's size or format changed while recording");
		return;
	}
	if (rec->buffer == NULL) {
		switch (rec->frame_format) {
		case WL_SHM_FORMAT_XRGB8888:
		case WL_SHM_FORMAT_ARGB8888:
		case WL_SHM_FORMAT_XBGR8888:
		case WL_SHM_FORMAT_ABGR8888:
			break;
		default:
			fail(rec, "the output's copies are in a format this recorder does not read");
			return;
		}
		for (int i = 0; i < rec->n_points; i++) {
			if (rec->points[i].x >= (int)rec->frame_width ||
					rec->points[i].y >= (int)rec->frame_height) {
				fail(rec, "a point is outside the output");
				return;
			}
		}
		if (!make_buffer(rec)) {
			fail(rec, "cannot make a shared-memory buffer");
			return;
		}
		printf("output %s %" PRIu32 "x%" PRIu32 " period %" PRId64 "\n",
			rec->output->name ? rec->output->name : "?", rec->width, rec->height,
			rec->period_ns);
		fflush(stdout);
	}
	rec->copy_sent_ns = now_ns();
	wl_proxy_marshal_flags(frame, SC_FRAME_COPY_WITH_DAMAGE, NULL,
		wl_proxy_get_version(frame), 0, rec->buffer);
}

/* The pixel at a point as #rrggbb (the buffer's first row is the bottom one when y-inverted). */
static void print_point(struct recorder *rec, struct point p) {
	int y = rec->frame_y_invert ? (int)rec->height - 1 - p.y : p.y;
	const uint8_t *px = (const uint8_t *)rec->pixels + (size_t)y * rec->stride + (size_t)p.x * 4;
	uint32_t v = (uint32_t)px[0] | (uint32_t)px[1] << 8 | (uint32_t)px[2] << 16 |
		(uint32_t)px[3] << 24;
	unsigned r, g, b;
	if (rec->format == WL_SHM_FORMAT_XRGB8888 || rec->format == WL_SHM_FORMAT_ARGB8888) {
		r = (v >> 16) & 0xff;
		g = (v >> 8) & 0xff;
		b = v & 0xff;
	} else {
		r = v & 0xff;
		g = (v >> 8) & 0xff;
		b = (v >> 16) & 0xff;
	}
	printf(" #%02x%02x%02x", r, g, b);
}

static void frame_ready(void *data, struct wl_proxy *frame, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec) {
	struct recorder *rec = data;
	int64_t received = now_ns();
	uint64_t sec = (uint64_t)tv_sec_hi << 32 | tv_sec_lo;
	int64_t commit = (int64_t)sec * 1000000000 + tv_nsec;
	int64_t blind = 0;
	if (rec->frames > 0) {
		blind = rec->copy_sent_ns - rec->last_commit_ns;
		if (blind > rec->longest_blind_ns) {
			rec->longest_blind_ns = blind;
		}
		if (blind >= rec->period_ns - 1000000) {
			rec->blind++;
		}
	}
	wl_proxy_marshal_flags(frame, SC_FRAME_DESTROY, NULL, wl_proxy_get_version(frame),
		WL_MARSHAL_FLAG_DESTROY);
	rec->frame = NULL;
	rec->last_commit_ns = commit;
	rec->frames++;
	/* The next request first: the pixels of this one stay until its copy_with_damage. */
	bool last = rec->max_frames > 0 && rec->frames >= rec->max_frames;
	if (!last) {
		request_copy(rec);
	}

	printf("frame %ld %" PRIu64 ".%09" PRIu32 " %" PRId64 " %" PRId64, rec->frames, sec,
		tv_nsec, received, blind);
	for (int i = 0; i < rec->n_points; i++) {
		print_point(rec, rec->points[i]);
	}
	printf("\n");
	if (rec->frames == 1) {
		printf("ready\n");
	}
	fflush(stdout);
	if (last) {
		rec->done = true;
	}
}

static void frame_failed(void *data, struct wl_proxy *frame) {
	struct recorder *rec = data;
	wl_proxy_marshal_flags(frame, SC_FRAME_DESTROY, NULL, wl_proxy_get_version(frame),
		WL_MARSHAL_FLAG_DESTROY);
	rec->frame = NULL;
	rec->failed++;
	if (rec->output == NULL || rec->failed > 100) {
		fail(rec, "the copies keep failing");
		return;
	}
	request_copy(rec);
}

static void frame_damage(void *data, struct wl_proxy *frame, uint32_t x, uint32_t y,
		uint32_t width, uint32_t height) {
}

static void frame_linux_dmabuf(void *data, struct wl_proxy *frame, uint32_t format,
		uint32_t width, uint32_t height) {
}

static const struct sc_frame_listener frame_listener = {
	.buffer = frame_buffer,
	.flags = frame_flags,
	.ready = frame_ready,
	.failed = frame_failed,
	.damage = frame_damage,
	.linux_dmabuf = frame_linux_dmabuf,
	.buffer_done = frame_buffer_done,
};

static void request_copy(struct recorder *rec) {
	rec->frame_shm = false;
	rec->frame_y_invert = false;
	rec->frame = wl_proxy_marshal_flags(rec->manager, SC_MANAGER_CAPTURE_OUTPUT,
		&zwlr_screencopy_frame_v1_interface, wl_proxy_get_version(rec->manager), 0, NULL,
		0, rec->output->wl_output);
	wl_proxy_add_listener(rec->frame, (void (**)(void))&frame_listener, rec);
}

/* ---- globals ---- */

static void output_geometry(void *data, struct wl_output *wl_output, int32_t x, int32_t y,
		int32_t pw, int32_t ph, int32_t subpixel, const char *make, const char *model,
		int32_t transform) {
}

static void output_mode(void *data, struct wl_output *wl_output, uint32_t flags, int32_t w,
		int32_t h, int32_t refresh) {
	struct output *output = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		output->refresh_mhz = refresh;
	}
}

static void output_done(void *data, struct wl_output *wl_output) {
}

static void output_scale(void *data, struct wl_output *wl_output, int32_t factor) {
}

static void output_name(void *data, struct wl_output *wl_output, const char *name) {
	struct output *output = data;
	free(output->name);
	output->name = strdup(name);
}

static void output_description(void *data, struct wl_output *wl_output, const char *desc) {
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
	.name = output_name,
	.description = output_description,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct recorder *rec = data;
	if (strcmp(interface, wl_shm_interface.name) == 0) {
		rec->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, zwlr_screencopy_manager_v1_interface.name) == 0 &&
			version >= 3) {
		rec->manager = wl_registry_bind(registry, name,
			&zwlr_screencopy_manager_v1_interface, 3);
	} else if (strcmp(interface, wl_output_interface.name) == 0 && version >= 4) {
		struct output *output = calloc(1, sizeof(*output));
		if (output == NULL) {
			return;
		}
		output->wl_output = wl_registry_bind(registry, name, &wl_output_interface, 4);
		wl_output_add_listener(output->wl_output, &output_listener, output);
		wl_list_insert(rec->outputs.prev, &output->link);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* ---- main ---- */

static int usage(void) {
	fprintf(stderr, "usage: frame-record [--output NAME] [--frames N] [--refresh-mhz MHZ] "
		"--point X,Y [--point X,Y ...]\n");
	return 2;
}

static bool parse_args(struct recorder *rec, int argc, char **argv) {
	rec->refresh_mhz_given = 60000;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (val == NULL) {
			return false;
		}
		i++;
		if (strcmp(arg, "--output") == 0) {
			rec->output_name = val;
		} else if (strcmp(arg, "--frames") == 0) {
			rec->max_frames = strtol(val, &end, 10);
			if (*end != '\0' || rec->max_frames < 0) {
				return false;
			}
		} else if (strcmp(arg, "--refresh-mhz") == 0) {
			long mhz = strtol(val, &end, 10);
			if (*end != '\0' || mhz <= 0 || mhz > 1000000) {
				return false;
			}
			rec->refresh_mhz_given = (int32_t)mhz;
		} else if (strcmp(arg, "--point") == 0) {
			struct point p;
			if (rec->n_points == MAX_POINTS ||
					sscanf(val, "%d,%d", &p.x, &p.y) != 2 || p.x < 0 || p.y < 0) {
				return false;
			}
			rec->points[rec->n_points++] = p;
		} else {
			return false;
		}
	}
	return rec->n_points > 0;
}

int main(int argc, char **argv) {
	struct recorder rec = {0};
	wl_list_init(&rec.outputs);
	if (!parse_args(&rec, argc, argv)) {
		return usage();
	}

	int sfd = client_signals("frame-record");
	if (sfd < 0) {
		return 1;
	}

	int status = 1;
	rec.display = wl_display_connect(NULL);
	if (rec.display == NULL) {
		fprintf(stderr, "frame-record: cannot connect to the Wayland display\n");
		goto out_signal;
	}
	rec.registry = wl_display_get_registry(rec.display);
	wl_registry_add_listener(rec.registry, &registry_listener, &rec);
	/* The globals, then the outputs' names and modes. */
	if (wl_display_roundtrip(rec.display) < 0 || wl_display_roundtrip(rec.display) < 0) {
		fprintf(stderr, "frame-record: the compositor closed the connection\n");
		goto out_display;
	}
	if (rec.shm == NULL || rec.manager == NULL) {
		fprintf(stderr, "frame-record: the compositor lacks %s\n", rec.shm == NULL ?
			"wl_shm" : "zwlr_screencopy_manager_v1 version 3");
		goto out_display;
	}
	struct output *output;
	wl_list_for_each(output, &rec.outputs, link) {
		if (rec.output_name == NULL || (output->name != NULL &&
				strcmp(output->name, rec.output_name) == 0)) {
			rec.output = output;
			break;
		}
	}
	if (rec.output == NULL) {
		fprintf(stderr, "frame-record: no output %s\n",
			rec.output_name ? rec.output_name : "at all");
		goto out_display;
	}
	int32_t mhz = rec.output->refresh_mhz > 0 ? rec.output->refresh_mhz :
		rec.refresh_mhz_given;
	rec.period_ns = (int64_t)1000000000000 / mhz;

	request_copy(&rec);
	switch (client_run(rec.display, sfd, &rec.done)) {
	case CLIENT_DONE:
		break;
	case CLIENT_LOST:
		goto out_lost;
	case CLIENT_FAILED:
		perror("frame-record: poll");
		goto out_display;
	}
	status = rec.status;
	goto out_end;

out_lost:
	/* The compositor went (it exits at the end of a run): what was recorded stands. */
	fprintf(stderr, "frame-record: the connection to the compositor is gone\n");
	status = rec.status;
out_end:
	printf("end frames %ld failed %ld blind %ld longest-blind %" PRId64 "\n", rec.frames,
		rec.failed, rec.blind, rec.longest_blind_ns);
	fflush(stdout);
out_display:
	if (rec.pixels != NULL) {
		munmap(rec.pixels, rec.size);
	}
	struct output *tmp;
	wl_list_for_each_safe(output, tmp, &rec.outputs, link) {
		wl_list_remove(&output->link);
		free(output->name);
		free(output);
	}
	wl_display_disconnect(rec.display);
out_signal:
	close(sfd);
	return status;
}
