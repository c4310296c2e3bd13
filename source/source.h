/*
 * A source turns one file into frames: a size, a current frame (a wlr_buffer) and a signal when
 * the frame changes. One source per distinct file, shared by every output that shows it, found
 * through the registry and freed when the last output lets go.
 */
#ifndef VEIL_SOURCE_SOURCE_H
#define VEIL_SOURCE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <wayland-server-core.h>
#include "util/image.h"
#include "util/palette.h"

struct wlr_buffer;
struct wlr_renderer;
struct veil_helper_spare;
struct veil_source;
struct veil_still_decoder;
struct veil_worker;

/*
 * The size a still or an animation is decoded to cover: shrunk (never enlarged) until it just
 * covers it; 0x0 keeps every pixel. The caller computes it (module/core: the largest output, a
 * span's layout, the outputs that chose a package's picture) and hands it to the open functions
 * as one value, which a struct keeps from being taken apart or swapped on the way.
 */
struct veil_cover {
	int width, height;
};

enum veil_source_kind {
	VEIL_SOURCE_IMAGE,
	VEIL_SOURCE_VIDEO,
};

/* What a source says of itself, for the status JSON and the control protocol alike. */
struct veil_source_info {
	const char *state; /* "loading", and for a video "playing", "paused" or "stopped" */
	char decoder[64]; /* "" while unknown */
	char colour[96]; /* a still's colour, what was done to it (decode/colour.h); "" if none */
	bool hardware;
	int original_width, original_height; /* of a still's file; 0 when unknown */
	/* A video's counters: frames taken, samples dropped, loops, wake-ups of the compositor. */
	bool counts;
	uint64_t frames, dropped, loops, wakeups;
	char pipeline[32]; /* "" when none */
	char format[64]; /* of the frames handed to the renderer, "" before the first */
	/*
	 * An animated image's (source/anim_source.c): its format ("gif", "apng", "webp"), frames
	 * in the file, frames kept decoded now, plays (0: for ever), the budget of kept frames.
	 * animation is NULL for other sources.
	 */
	const char *animation;
	int anim_frames, anim_kept, anim_plays, anim_budget_mib;
	/* A video's frames copied on the way to the renderer (a decoder that ignored veil's pool). */
	uint64_t copies;
	/* Factory names of the pipeline's elements that work on frames, space-separated. */
	char elements[256];
};

struct veil_source_impl {
	enum veil_source_kind kind;
	/* Frees everything; the registry has already unlinked the source. */
	void (*destroy)(struct veil_source *source);
	/* Called when whether any node shows the source changes: decode only while seen. */
	void (*set_visible)(struct veil_source *source, bool visible);
	/* The user's pause/resume. */
	void (*set_paused)(struct veil_source *source, bool paused);
	/* Fills in what the source says of itself (info is zeroed). */
	void (*get_info)(struct veil_source *source, struct veil_source_info *info);
	/*
	 * Optional. Whether some output showing the source owes a frame event (it committed and
	 * waits for the page flip): a frame that comes meanwhile can wait for frame_event(),
	 * which runs at that moment anyway, instead of waking the compositor.
	 */
	void (*set_frame_owed)(struct veil_source *source, bool owed);
	void (*frame_event)(struct veil_source *source);
	/*
	 * Optional. ctx->renderer was replaced and frames made for the old one may not suit the
	 * new one (a video asks its decoder for what the renderer imports): a new source of the
	 * same file (the same inode, whatever its path names now) made for the new renderer, with
	 * one reference, or NULL when that failed.
	 */
	struct veil_source *(*reopen)(struct veil_source *source);
	/*
	 * Optional. At most fps frames a second (0: every frame): frames beyond the cap are
	 * dropped before they are converted, and not decoded where the decoder can skip them.
	 */
	void (*set_fps)(struct veil_source *source, int fps);
	/*
	 * Optional (videos). Where in the stream the frame shown is, in milliseconds from its
	 * start (each loop from 0 again); -1 while unknown.
	 */
	int64_t (*get_position_ms)(struct veil_source *source);
	/*
	 * Optional (videos). Goes on from ms into the stream (a flushing seek, on a worker or in
	 * veil-decoder, never on the compositor's thread); before the first frame, the first frame
	 * shown is the one at ms. A position past the end ends the loop there (it starts again).
	 */
	void (*seek)(struct veil_source *source, int64_t ms);
};

enum veil_video_place {
	/*
	 * In process on a renderer that imports dmabufs, else in veil-decoder: chosen only when
	 * GStreamer has a hardware video decoder (it needs the GPU's render node, which the
	 * helper's sandbox does not give; module/core/decoders.c). Without one a video decodes in
	 * software wherever it plays and reaches the renderer the same way (converted to XRGB8888
	 * on the CPU for pixman; in the compositor's dmabufs, unconverted, for a GPU), the helper
	 * adds under a point of a core, and videos play in veil-decoder (VEIL_VIDEO_PROCESS).
	 */
	VEIL_VIDEO_AUTO,
	VEIL_VIDEO_PROCESS,
	VEIL_VIDEO_INPROCESS,
};

/* What every source needs from the compositor side. Owned by the scene. */
struct veil_source_context {
	struct wl_event_loop *loop;
	/* Where decoding, prerolling and teardown run: never on the compositor thread. */
	struct veil_worker *worker;
	struct wlr_renderer *renderer; /* may be NULL while the compositor has none */
	/*
	 * Stills and animations are decoded in veil-decoder processes (source/remote/client.c,
	 * anim_client.c), started ahead of need by this; NULL: in this process.
	 */
	struct veil_helper_spare *decoder_spare;
	/* Where videos play (source/remote/video_client.c in veil-decoder): needs the spare. */
	enum veil_video_place video_place;
	/* Why there is no spare though the compositor did not ask for that, for the status. */
	char *in_process_reason;
	struct wl_list sources; /* veil_source.link */
	/*
	 * Called when something a source says of itself changed without a new frame (its palette
	 * was computed): the scene's status changes. May be NULL.
	 */
	void (*changed)(struct veil_source_context *ctx);
};

struct veil_source {
	const struct veil_source_impl *impl;
	struct veil_source_context *ctx;
	struct wl_list link; /* veil_source_context.sources */
	int refs; /* settings and outputs holding the source */
	int viewers; /* outputs on which the source is visible now */
	int owed; /* outputs showing the source that owe a frame event */
	bool paused; /* by the user */
	bool held; /* paused by a policy (on battery): decodes only when neither is set */
	int fps; /* the frame rate cap, 0 for none (module/policy/policy.c) */
	/* Whether frames were scaled down when decoded (stills for stretch/fill/fit), and how. */
	bool shrunk;
	enum veil_image_filter filter;
	/* What a still or an animation was asked to cover when opened; 0x0: every pixel kept. */
	struct veil_cover cover;
	/* Made for a renderer the compositor replaced: new commands get a new source. */
	bool stale;
	/* Decoded in veil-decoder (else in the compositor's process). */
	bool isolated;

	/* Identity: the resolved path and the file it named when opened. */
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	/* A HEIF's item-th top-level image (from 1: module/show/dynamic.c), 0 for the file's own. */
	int item;
	struct timespec mtime;

	int width, height; /* of the frames; 0 until known */
	/* The newest frame, locked by the source (one lock), NULL until the first one. */
	struct wlr_buffer *frame;
	/* Every pixel of every frame is opaque (lets the scene skip what is below). */
	bool opaque;
	/* Frames may have transparent pixels, which show the setting's colour below them. */
	bool translucent;
	/*
	 * The dominant colours of the first frame (util/palette.h), computed on a worker once it
	 * comes; n is 0 until then, or when the frame could not be read.
	 */
	struct veil_palette palette;
	struct veil_palette_job *palette_job; /* under way, or NULL */
	bool palette_asked;
	/* Set when a source fails after it was created (a video's decoder error); malloc()ed. */
	char *error;
	int error_code; /* with error: a negative errno */

	struct {
		/* source->frame changed (or source->error was set); data: the source. */
		struct wl_signal frame;
		/*
		 * A video's loop seam: the next frame starts the video again, source->frame is
		 * still the last of the loop before; data: the source.
		 */
		struct wl_signal loop;
	} events;
};

/* For implementations. Takes ownership of path. */
void veil_source_init(struct veil_source *source, const struct veil_source_impl *impl,
	struct veil_source_context *ctx, char *path, const struct stat *st);
/* Replaces source->frame (taking a new lock on frame, which may be NULL) and emits frame. */
void veil_source_set_frame(struct veil_source *source, struct wlr_buffer *frame);
/*
 * Records an asynchronous failure, err (a negative errno) and a sentence, and emits frame so
 * that holders can show it.
 */
void veil_source_set_error(struct veil_source *source, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Finds the source of a file or opens one: a still image (PNG through libpng, others through
 * GStreamer) or a video. full_size keeps a still's every pixel (center and tile show them one
 * to one); otherwise a still is shrunk with filter to what covers cover (a source shrunk with
 * another filter, or to cover less, is not shared). The returned source holds one more
 * reference. On failure returns NULL
 * with a negative errno in *err and a sentence in *message (malloc()ed).
 *
 * Only what the file's first bytes tell is checked here (kind, header); decoding runs on the
 * context's worker. The source is loading until its first frame comes (frame and error NULL);
 * then, or when decoding fails (error set), it emits frame.
 */
struct veil_source *veil_source_open(struct veil_source_context *ctx, const char *path,
	bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);
/*
 * The same for a file already open (a client's fd, for instance): fd stays the caller's. name is
 * what the status shows for it; it is taken over, also on failure.
 */
struct veil_source *veil_source_open_fd(struct veil_source_context *ctx, int fd, char *name,
	bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);
/*
 * The item-th top-level image (from 1) of a HEIF file, as veil_source_open() opens the file's
 * own picture (item 0: the same): an Apple dynamic wallpaper's pictures (module/show/dynamic.c).
 */
struct veil_source *veil_source_open_item(struct veil_source_context *ctx, const char *path,
	int item, bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);
/*
 * Whether the source's frames cover width x height: kept whole, or shrunk (or being shrunk) to
 * cover that size at least. A source that does not is not shared with a new open, which wants
 * the larger picture.
 */
bool veil_source_covers(const struct veil_source *source, struct veil_cover cover);
/*
 * A new source of the same file as a still's or an animation's, shrunk to cover cover: for a
 * source that does not (veil_source_covers()). The file is file_fd when >= 0 (stays the
 * caller's), else found again by the source's path; it must be the file as it was opened. NULL
 * with a sentence logged when it changed or went: the caller keeps the old source then.
 */
struct veil_source *veil_source_open_again(struct veil_source *source, int file_fd,
	struct veil_cover cover);
/* The checks of veil_source_open() without opening a source: 0 or a negative errno. */
int veil_source_check(const char *path, char **message);
struct veil_source *veil_source_ref(struct veil_source *source);
/* NULL is allowed. */
void veil_source_unref(struct veil_source *source);
/* One more (delta 1) or one fewer (-1) output shows the source; decoding follows. */
void veil_source_add_viewers(struct veil_source *source, int delta);
void veil_source_set_paused(struct veil_source *source, bool paused);
/* Paused by a policy, not by the user (module/policy/policy.c): the status tells them apart. */
void veil_source_set_held(struct veil_source *source, bool held);
/* A cap on the frames a second a video decodes and shows; 0 for none. */
void veil_source_set_fps(struct veil_source *source, int fps);
/* A video's position (impl->get_position_ms), -1 when unknown or not a video. */
int64_t veil_source_get_position_ms(struct veil_source *source);
/* A video goes on from ms into its stream (impl->seek); nothing for other sources. */
void veil_source_seek(struct veil_source *source, int64_t ms);
/*
 * An output showing the source committed (delta 1) and owes a frame event, or no longer does
 * (-1: its frame event came, or it stopped showing the source).
 */
void veil_source_add_owed(struct veil_source *source, int delta);
/* An output showing the source had its frame event: the moment to take a waiting frame. */
void veil_source_frame_event(struct veil_source *source);

/*
 * Constructors, called by veil_source_open with an open fd (not closed by them). They take
 * path over, also when they fail (free it then).
 */
struct veil_source *veil_image_source_create(struct veil_source_context *ctx, int fd,
	char *path, const struct stat *st, const struct veil_still_decoder *decoder, int item,
	bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);
struct veil_source *veil_video_source_create(struct veil_source_context *ctx, int fd,
	char *path, const struct stat *st, int *err, char **message);
struct veil_anim_decoder_impl;
/* An animated GIF, APNG or WebP (decode/anim.h), played by veil's own timer. */
/*
 * A video where the context plays it (enum veil_video_place): in veil-decoder or in process.
 * For the constructors' reopen() too.
 */
struct veil_source *veil_video_open(struct veil_source_context *ctx, int fd, char *path,
	const struct stat *st, int *err, char **message);
/*
 * A video's reopen(): the same file (file_fd, the source's own descriptor, whatever its path
 * names now), played where the context plays videos now.
 */
struct veil_source *veil_video_reopen(struct veil_source *source, int file_fd);
/* A video played in veil-decoder (source/remote/video_client.c). */
struct veil_source *veil_video_helper_source_create(struct veil_source_context *ctx, int fd,
	char *path, const struct stat *st, int *err, char **message);
struct veil_source *veil_anim_source_create(struct veil_source_context *ctx, int fd,
	char *path, const struct stat *st, const struct veil_anim_decoder_impl *impl,
	bool full_size, enum veil_image_filter filter, struct veil_cover cover, int *err,
	char **message);

#endif
