/* The state behind the public handle, shared by the files of module/. */
#ifndef VEIL_MODULE_SCENE_H
#define VEIL_MODULE_SCENE_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/addon.h>
#include <wlr/util/box.h>
#include "source/source.h"
#include "module/words/command.h"
#include "scene/geometry.h"
#include "util/wall_clock.h"

struct wlr_buffer;
struct wlr_output;
struct wlr_scene_tree;
struct wlr_scene_buffer;
struct json_object;
struct veil_package;
struct veil_package_picture;

/*
 * What a name (an output's or "*") was told to show. Referenced by the settings table while it is
 * in force and by the outputs that show it or wait for its first frame.
 */
struct veil_setting {
	struct wl_list link; /* veil_scene.settings, or empty once replaced */
	int refs;
	char *name; /* an output name or "*" */
	bool off; /* `veil off`: show nothing, also where "*" has a wallpaper */
	/*
	 * Its command's look (one copy: module/words/command.h), the same for its dark picture's
	 * and a package's choices.
	 */
	struct veil_look look;
	struct veil_source *source; /* one reference; NULL for off and solid_color */
	/*
	 * `dark <file>`: the same setting with the dark scheme's picture (one reference; not in the
	 * table), which veil_scene_resolve() gives while the scene is dark; NULL without one.
	 */
	struct veil_setting *dark;
	/*
	 * `veil workspace <ws> ...`: the workspace of the outputs named that this setting is for
	 * (module/core/workspace.c); NULL for the outputs whatever workspace they show.
	 */
	char *workspace;
	/*
	 * A workspace setting's file, for loading it again after its source was let go (parked)
	 * while no output showed it or was near it: the expanded path, or a descriptor of its own
	 * (a client's file) with the label the status shows. Unused (NULL, -1) otherwise.
	 */
	char *path;
	int fd;
	char *label;
	bool full_size;
	bool video; /* the file is a video (known once opened, also while parked) */
	/* The file could not be loaded again: the workspace falls back to the output's setting. */
	bool failed;
	/*
	 * A wallpaper package (module/core/package.c): this setting shows no file itself, each output
	 * shows the choice (one per picture, a setting of the same words) that fits it. A choice
	 * has package and picture (a picture of package) and no choices; its source is opened
	 * while an output shows it, and failed is set when its file cannot be opened.
	 */
	struct veil_package *package;
	struct veil_setting **choices;
	size_t n_choices;
	const struct veil_package_picture *picture;
};

/* `output <name> veil transition ...`: how later changes on outputs of that name look. */
struct veil_transition_default {
	struct wl_list link; /* veil_scene.transition_defaults */
	char *name; /* an output name or "*" */
	struct veil_transition_spec spec;
};

/* What happened to a command, in struct veil_scene_command_event. */
enum veil_scene_command_step {
	/* It is about to run (a person's, a restore's or a show's step). */
	VEIL_SCENE_COMMAND_RUN,
	/* What the name shows was replaced by it: a wallpaper set or off, or a show started. */
	VEIL_SCENE_COMMAND_REPLACED,
	/* Accepted, it failed later (a package read on a worker failed): why says why. */
	VEIL_SCENE_COMMAND_FAILED,
	/*
	 * `restore`: its work is a listener's (module/state/restore.c, while there is a state
	 * file), which sets handled, and ret with *message as a handler's reply.
	 */
	VEIL_SCENE_COMMAND_RESTORE,
};

/* veil_scene.events.command's data: a command for an output name (or "*"). */
struct veil_scene_command_event {
	const char *name;
	const struct veil_command *cmd;
	enum veil_scene_command_step step;
	const char *why; /* FAILED */
	/* RESTORE: the listener's reply (0, or a negative errno with *message set). */
	bool handled;
	int ret;
	char **message;
};

struct veil_scene {
	/*
	 * First: the wall clock that timed shows follow (module/show/timed.c), which a test build of
	 * veil-tinywl (--fake-clock) sets through util/wall_clock.h; it emits clock.jump each
	 * time it moves it.
	 */
	struct veil_wall_clock clock;
	pthread_t thread; /* the compositor's: every public function runs on it */
	struct wl_display *display;
	struct wlr_renderer *renderer; /* NULL once destroyed */
	struct veil_source_context ctx;
	/* The largest output's size in buffer pixels (veil_scene_update_max_size()). */
	int max_output_width, max_output_height;
	struct wl_list outputs; /* veil_output.link */
	struct wl_list settings; /* veil_setting.link */
	/* `veil transition ...`: per output name or "*" (veil_transition_default.link, veil.c) */
	struct wl_list transition_defaults;
	struct wl_list slideshows; /* veil_slideshow.link (module/show/slideshow.c) */
	struct veil_control *control; /* the control global, NULL unless created */
	/* The compositor's, for `span` (module/core/span.c); NULL until given or once destroyed. */
	struct wlr_output_layout *output_layout;
	/* `veil fps ...`, `veil battery ...` (module/policy/policy.c); the power supply (power.c) */
	struct wl_list policies;
	struct veil_power *power;
	/* Listens first to events.changed: the videos' caps and holds follow what outputs show. */
	struct wl_listener policy_changed;
	/* `veil scheme dark`, veil_scene_set_dark(): settings with `dark` show that picture. */
	bool dark;
	/* veil_scene_set_location(): the place for settings without `location`. */
	bool has_location;
	double latitude, longitude;
	/* The state file (module/state/state.c); NULL unless the compositor named one. */
	struct veil_state *state;
	/*
	 * Pictures of workspaces an output does not show kept decoded for it, beyond the shown one
	 * (veil_scene_options.workspace_pictures; module/core/workspace.c).
	 */
	int workspace_pictures;
	struct wl_list timed_shows; /* veil_timed_show.link (module/show/timed.c) */
	struct wl_list shows; /* veil_show.link: the other kinds of module/show/show.h */
	struct wl_list package_loads; /* package_load.link (module/commands/package_load.c) */
	/* `veil xray`, `veil blur` and the compositor's xray nodes (module/xray/xray.c). */
	struct veil_xray_room *xray;

	struct {
		/* What an output shows or will show changed; data: the scene. */
		struct wl_signal changed;
		/* A command's steps (commands/), which state/ listens to; data: the event below. */
		struct wl_signal command;
	} events;

	struct wl_listener display_destroy;
	struct wl_listener renderer_destroy;
	struct wl_listener layout_change;
	struct wl_listener layout_destroy;
};
/* util/wall_clock.h reaches the clock from the scene pointer. */
static_assert(offsetof(struct veil_scene, clock) == 0, "the wall clock comes first");

/* veil_scene_options.workspace_pictures when the compositor leaves it 0. */
#define VEIL_WORKSPACE_PICTURES_DEFAULT 3
/* How many workspaces an output remembers having shown (module/core/workspace.c). */
#define VEIL_WORKSPACE_RECENT 16

/* veil's state on one wlr_output, hung on it with an addon. */
struct veil_output {
	struct veil_scene *scene;
	struct wlr_output *output;
	struct wlr_addon addon; /* on output->addons, owner: the veil_scene */
	struct wl_list link; /* veil_scene.outputs */

	struct wlr_scene_tree *tree; /* ours, in the compositor's parent */
	struct wlr_scene_rect *rect; /* bars of fit/center, or the solid colour */
	struct wl_list nodes; /* veil_node.link (module/core/layout.c): one per copy of the frame */
	int n_nodes;

	struct veil_setting *setting; /* shown (a reference); NULL: nothing */
	/*
	 * What resolves for this output now, while its source is loading (a reference): it
	 * replaces setting when its first frame comes. NULL when setting is what resolves.
	 */
	struct veil_setting *pending;
	struct veil_source *source; /* shown: one reference, NULL for none */
	/* tile mode, small still: the frame repeated into a larger one (our lock on each). */
	struct wlr_buffer *tiled, *tiled_from;
	bool viewing; /* counted in source->viewers */
	/*
	 * Set when the scene said a node became visible or hidden: viewing follows once the
	 * compositor is idle, so that a node shown for an instant while the compositor rearranges
	 * its scene (a client's commit, a restack) does not start and stop the video.
	 */
	struct wl_event_source *viewing_idle;
	char *error; /* the last failure on this output, NULL when the last command worked */
	uint64_t frames; /* frames put on this output's nodes */
	/* Counted in source->owed: committed, the output's frame event is still to come. */
	bool owes_frame;
	/* The rect's and nodes' opacity: 1, or lower while a transition fades them in. */
	float opacity;
	/*
	 * Where the rect and nodes show (veil_output_set_view): moved by (view_dx, view_dy) and
	 * cut to view_clip, while a wipe, a slide or a grow reveals them; not when !clipped.
	 */
	bool clipped;
	int view_dx, view_dy;
	struct wlr_box view_clip;
	int rect_width, rect_height; /* the rect's whole size, which a view cuts */
	/* Running: the old picture below the nodes (core/transition/transition.c); NULL otherwise. */
	struct veil_transition *transition;
	/* `transition random`: the kind picked last (NONE: none yet), the picker's state. */
	enum veil_transition_kind random_last;
	uint64_t random_state;
	/* `span`: the canvas the nodes were placed on; all 0 when they were not (core/span.c). */
	struct veil_canvas canvas;
	/* The workspace the compositor says the output shows (malloc()ed), NULL for none. */
	char *workspace;
	/* Workspaces shown before, the latest first (malloc()ed names; module/core/workspace.c). */
	char *recent[VEIL_WORKSPACE_RECENT];
	/* A workspace switch: how the next picture shown comes in (else the setting's way). */
	bool has_switch_transition;
	struct veil_transition_spec switch_transition;

	struct wl_listener source_frame;
	/* a video's loop seam, faded over (module/core/transition/transition.c) */
	struct wl_listener source_loop;
	struct wl_listener pending_frame; /* on pending->source */
	struct wl_listener output_commit;
	struct wl_listener output_frame;
	struct wl_listener tree_destroy;
};

struct veil_output *veil_output_create(struct veil_scene *scene, struct wlr_output *output,
	struct wlr_scene_tree *parent);
void veil_output_destroy(struct veil_output *output);
struct veil_output *veil_output_find(struct veil_scene *scene, struct wlr_output *output);
struct veil_output *veil_output_find_name(struct veil_scene *scene, const char *name);
/* module/core/layout.c: places the nodes for the setting, the frame and the output's geometry. */
void veil_output_layout(struct veil_output *output);
/* Puts a new frame of the same size onto the nodes as they are; false when a layout is needed. */
bool veil_output_show_frame(struct veil_output *output, struct wlr_buffer *frame);
/* Counts the output in its source's viewers when some node is visible. */
void veil_output_update_viewing(struct veil_output *output);
/* Drops a pending update of viewing (the output goes). */
void veil_output_cancel_viewing_update(struct veil_output *output);
/* After the source changed: forget what nodes were visible (reset), or read it again. */
void veil_output_recount_visible(struct veil_output *output, bool reset);
void veil_output_release_tiled(struct veil_output *output);
/* Sets the opacity of the rect and the nodes (and of nodes made later). */
void veil_output_set_opacity(struct veil_output *output, float opacity);
/*
 * Moves the rect and the nodes by (dx, dy) and shows only what falls in clip, in the output's
 * logical coordinates (also for nodes placed later); clip NULL: where they belong, whole.
 */
void veil_output_set_view(struct veil_output *output, const struct wlr_box *clip, int dx, int dy);

/* A node's place, as the layout put it: at (x, y), width x height, showing src of buffer. */
struct veil_piece {
	struct wlr_buffer *buffer;
	struct wlr_fbox src;
	int x, y, width, height;
};
/*
 * The output's buffer nodes as the layout placed them (not as a view cuts them): fills up to
 * max pieces, returns how many nodes there are. The buffers are the nodes' now, not locked.
 */
int veil_output_get_pieces(struct veil_output *output, struct veil_piece *pieces, int max);
/* A piece moved by (dx, dy) and cut to clip: false when nothing of it is left. */
bool veil_piece_clip(const struct veil_piece *piece, int dx, int dy, const struct wlr_box *clip,
	struct veil_piece *out);
/*
 * How the output's buffer nodes scale, by its setting: nearest for `filter nearest` and mode
 * integer, else bilinear. Every node veil makes for the output (copies too) takes it.
 */
enum wlr_scale_filter_mode veil_output_filter_mode(const struct veil_output *output);
/* Puts a frame on a buffer node; a YUV dmabuf also tells the renderer how to convert it. */
void veil_node_set_frame(struct wlr_scene_buffer *buffer, struct wlr_buffer *frame);
/* Ends a running transition at once (the new picture alone shows); no transition is fine. */
void veil_output_end_transition(struct veil_output *output);

/*
 * module/core/transition/transition.c: a change of wallpaper drawn in the scene. create() copies
 * what the output's rect and nodes show now into a sub-tree below them (the same buffers: no pixel
 * is copied), a video going on playing there; the caller then lays the new picture out on the
 * output's own nodes and step() fades them in, once per output frame. destroy() drops the old
 * picture. NULL is allowed.
 */
struct veil_transition *veil_transition_create(struct veil_output *output,
	const struct veil_transition_spec *spec);
void veil_transition_destroy(struct veil_transition *transition);
/* Sets the new picture's first look (opacity or share 0), once it is laid out. */
void veil_transition_begin(struct veil_transition *transition);
/* On the output's frame event: the new picture's look for now; false once it is whole. */
bool veil_transition_step(struct veil_transition *transition);
/* Whether some old or new node is visible on an output (false: nothing to animate). */
bool veil_transition_visible(struct veil_transition *transition);
enum veil_transition_kind veil_transition_kind(const struct veil_transition *transition);
/* From 0 to 1. */
float veil_transition_progress(const struct veil_transition *transition);
/* The progress through the transition's curve (`ease`): what the picture shows. */
float veil_transition_eased(const struct veil_transition *transition);
const struct veil_transition_spec *veil_transition_get_spec(
	const struct veil_transition *transition);
/* Whether `transition random` picked its kind (and side). */
bool veil_transition_is_random(const struct veil_transition *transition);

/*
 * module/core/span.c: one picture across outputs. The canvas of a spanning setting on an output is
 * the bounding box, in layout coordinates, of the enabled outputs of the compositor's layout
 * whose setting it is; false when the output does not span (no layout, not in it, no span).
 */
bool veil_span_canvas(struct veil_output *output, struct veil_canvas *canvas);
/*
 * The canvas of the outputs that use setting, in buffer pixels at the largest of their scales
 * (a spanning package's picture is chosen for it); false when none is in the layout.
 */
bool veil_span_size(struct veil_scene *scene, const struct veil_setting *setting, int *width,
	int *height);
/* Lays out again every output that shows a spanning setting (the canvas may have changed). */
void veil_span_refresh(struct veil_scene *scene);
/* The size, in physical pixels, a still shown across the whole layout is decoded for. */
void veil_span_max_size(struct veil_scene *scene, int *width, int *height);
/* The status's "span": the canvas box, or NULL when the output does not span. */
struct json_object *veil_span_status(struct veil_output *output);
/* Stops following the layout (the scene goes). */
void veil_span_finish(struct veil_scene *scene);

/* Shows what the settings say for this output now. */
void veil_output_update(struct veil_output *output);
/* The same after a workspace switch, the new picture coming in as spec says. */
void veil_output_update_switch(struct veil_output *output,
	const struct veil_transition_spec *spec);
void veil_output_set_error(struct veil_output *output, const char *error);
/* The error of every output name addresses ("*": all); NULL clears it. */
void veil_scene_record_error(struct veil_scene *scene, const char *name, const char *message);

struct veil_command;
/*
 * module/core/store.c. Shows cmd's look (a SET or OFF) for name: opens what it shows (a file
 * and its dark picture, a package's pictures, GNOME's list's files), stores it and moves the
 * outputs of that name to it. What a show's step calls: it ends no show and leaves the state
 * file's restores alone, which the dispatcher (module/commands/) does for a person's command.
 * 0, or a negative errno with *message set (the error also on the outputs' status).
 */
int veil_scene_apply(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
	char **message);
/* `span` without the compositor's output layout: -EINVAL with *message (and the status). */
int veil_scene_check_span(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd, char **message);
/*
 * The sources a SET shows (source, and dark's picture when cmd has one), opened for the name's
 * outputs: from fd when >= 0 (label: what the status calls it), else cmd->path. 0, or a
 * negative errno with *message (logged, and on the status).
 */
/*
 * The size a still of a setting with these words is decoded to cover: the largest output's, and
 * with span the whole layout's where that is larger. A package's choice covers the outputs that
 * choose it instead (veil_package_cover()).
 */
struct veil_cover veil_scene_cover(struct veil_scene *scene, const struct veil_look *look);
int veil_scene_open(struct veil_scene *scene, const char *name, const struct veil_command *cmd,
	int fd, const char *label, struct veil_source **source, struct veil_source **dark,
	char **message);

/*
 * module/core/store.c. Replaces name's setting with a new one of cmd's words, which takes over
 * source's reference (and dark's: the dark scheme's picture, or NULL); or, for a wallpaper
 * package, shows package's pictures. The outputs of that name move to it. 0 or -ENOMEM.
 */
int veil_scene_store(struct veil_scene *scene, const char *name,
	const struct veil_command *cmd, struct veil_source *source,
	struct veil_source *dark, struct veil_package *package, int fd, const char *label);
/* Pauses or resumes what the outputs of name show: 0, or -ENODEV with *message. */
int veil_scene_set_paused(struct veil_scene *scene, const char *name, bool paused,
	char **message);
/* The error the status of name's outputs shows (NULL: none). */
void veil_scene_record_error(struct veil_scene *scene, const char *name, const char *message);
/*
 * Light or dark: outputs whose setting has a `dark` picture move to the scheme's, as to a new
 * setting (loading, then the setting's transition); the others keep theirs.
 */
void veil_scene_apply_dark(struct veil_scene *scene, bool dark);
/* Every output shows what the settings say now. */
void veil_scene_update_outputs(struct veil_scene *scene);
/*
 * A new source of the same file for one the setting (or a dark picture) holds, with one
 * reference; NULL to keep it.
 */
typedef struct veil_source *(*veil_source_again_func)(struct veil_scene *scene,
	struct veil_setting *setting, struct veil_source *source);
/*
 * The settings (and dark pictures) whose source again() renews are replaced by copies with the
 * new source, shown as a new wallpaper is: what each output shows stays until the new source's
 * first frame, which comes in without a transition. Settings sharing a source share the new
 * one. A wallpaper package's pictures that outputs chose are replaced in its choices the same
 * way; the others open when chosen.
 */
void veil_scene_swap_sources(struct veil_scene *scene, veil_source_again_func again);
/*
 * An output's size changed: stills and animations shrunk to cover less than they should now
 * (veil_scene_cover(), veil_package_cover()) are decoded again on the worker to cover it,
 * through veil_scene_swap_sources(); nothing else is touched.
 */
void veil_scene_grow(struct veil_scene *scene);
/* Whether two workspace names (NULL: none) are the same. */
bool veil_same_workspace(const char *a, const char *b);
/* `output * veil transition` replaces the outputs' own defaults, as `output * veil off` does. */
int veil_scene_set_transition_default(struct veil_scene *scene, const char *name,
	const struct veil_transition_spec *spec);
/* Frees the transition defaults (the scene goes). */
void veil_scene_transition_defaults_finish(struct veil_scene *scene);

/*
 * How an output moves to a setting: the setting's own transition, else the default for the
 * output's name, else for "*", else none (module/core/setting.c keeps the defaults).
 */
struct veil_transition_spec veil_output_resolve_transition(struct veil_output *output,
	const struct veil_setting *setting);

/*
 * The setting that applies to an output name showing a workspace (NULL: none): the output's
 * for the workspace, else "*"'s for it, else the output's own, else "*"'s, else NULL. A
 * workspace setting whose file failed to load again is passed over.
 */
struct veil_setting *veil_scene_resolve(struct veil_scene *scene, const char *name,
	const char *workspace);
/* The setting stored for exactly this name and workspace (NULL: the name's own), or NULL. */
struct veil_setting *veil_scene_find_setting(struct veil_scene *scene, const char *name,
	const char *workspace);
/*
 * module/core/workspace.c: a workspace setting's source, loaded again if it was let go; false (and
 * setting->failed set, the failure logged) when the file cannot be loaded now.
 */
bool veil_workspace_load(struct veil_scene *scene, struct veil_setting *setting);
/*
 * Keeps decoded what outputs show and the pictures of workspaces near theirs (the neighbours
 * and the latest shown, veil_scene.workspace_pictures per output), and lets the others go.
 */
void veil_workspace_trim(struct veil_scene *scene);
/* Forgets an output's workspaces (it goes). */
void veil_workspace_output_finish(struct veil_output *output);
/* The status's "workspaces": the workspace settings that apply to the output. */
struct json_object *veil_workspace_status(struct veil_output *output);
struct veil_setting *veil_setting_ref(struct veil_setting *setting);
/*
 * A new setting (one reference, in no list) of the same words as setting: name, off, its look
 * (veil_look_copy); no source, file, dark setting or workspace. NULL without memory.
 */
struct veil_setting *veil_setting_copy_words(const struct veil_setting *setting);
/* NULL is allowed. */
void veil_setting_unref(struct veil_setting *setting);
/* Takes the setting out of the table; outputs that show it keep it until they move on. */
void veil_setting_remove(struct veil_setting *setting);
/* Emits the scene's changed signal. */
void veil_scene_changed(struct veil_scene *scene);
/*
 * Recomputes the largest output size stills are decoded for, then veil_scene_grow() (an output
 * that grew need not be the largest); when the largest grew, the changed signal too.
 */
void veil_scene_update_max_size(struct veil_scene *scene);

/* A public function's first word: veil is the compositor thread's alone (veil.h). */
static inline void veil_scene_assert_thread(const struct veil_scene *scene) {
	assert(scene == NULL || pthread_equal(pthread_self(), scene->thread));
	(void)scene;
}

#endif
