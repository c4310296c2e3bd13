/* The words of `output <name> veil ...`, parsed. Pure: touches no scene. */
#ifndef VEIL_MODULE_COMMAND_H
#define VEIL_MODULE_COMMAND_H

#include <stdbool.h>
#include <stdint.h>
#include "util/ease.h"
#include "util/image.h"
#include "util/mode.h"

struct veil_package;

enum veil_command_kind {
	VEIL_COMMAND_SET, /* a file, or a solid colour (mode VEIL_MODE_SOLID_COLOR) */
	VEIL_COMMAND_OFF,
	VEIL_COMMAND_PAUSE,
	VEIL_COMMAND_RESUME,
	/* `veil transition <kind> [<ms>]`: the default for later changes on these outputs. */
	VEIL_COMMAND_TRANSITION,
	/* `veil next` and `veil previous`: the slideshow on these outputs moves on or back. */
	VEIL_COMMAND_NEXT,
	VEIL_COMMAND_PREVIOUS,
	/* `veil fps <N>|off`: a cap on a video's frame rate (module/words/policy_words.c). */
	VEIL_COMMAND_FPS,
	/* `veil battery <play|pause|fps N>`: what videos do on battery (words/policy_words.c). */
	VEIL_COMMAND_BATTERY,
	/* `veil scheme light|dark`: which of their two pictures settings with `dark` show. */
	VEIL_COMMAND_SCHEME,
	/* `veil restore [FILE|#rrggbb words...]`: the remembered setting, else the fallback. */
	VEIL_COMMAND_RESTORE,
	/* `veil xray on|off`: the compositor's xray nodes show the blurred wallpaper or nothing. */
	VEIL_COMMAND_XRAY,
	/* `veil blur <px>`: how much xray blurs (module/words/xray_words.c). */
	VEIL_COMMAND_BLUR,
};

/* The order of a slideshow's pictures (module/show/slideshow_order.c). */
enum veil_slideshow_order {
	VEIL_SLIDESHOW_NAME, /* natural order of the names (strverscmp: 2.png before 10.png) */
	VEIL_SLIDESHOW_MTIME, /* oldest first */
	VEIL_SLIDESHOW_SHUFFLE, /* random, no picture twice until every one was shown */
};

/* Without `every`, a slideshow changes pictures this often; `every` is 1 s to 24 h. */
#define VEIL_SLIDESHOW_DEFAULT_EVERY_S 600
#define VEIL_SLIDESHOW_MAX_EVERY_S (24 * 3600)

/* A directory's words (module/words/slideshow_words.c): `every`, `order`, `recursive`. */
struct veil_slideshow_spec {
	int every_s;
	enum veil_slideshow_order order;
	bool recursive;
};

enum veil_battery_action {
	VEIL_BATTERY_PLAY, /* as on mains power */
	VEIL_BATTERY_PAUSE,
	VEIL_BATTERY_FPS, /* at most battery_fps frames a second */
};

/* Frame rate caps are 1 to this; 0 is no cap. */
#define VEIL_FPS_MAX 240

enum veil_transition_kind {
	VEIL_TRANSITION_NONE,
	VEIL_TRANSITION_FADE,
	VEIL_TRANSITION_WIPE, /* the new picture revealed from an edge (side) */
	VEIL_TRANSITION_GROW, /* the new picture in a circle that grows from a point */
	VEIL_TRANSITION_SLIDE, /* the new picture slides in from an edge (side) */
	/* Not a word of `transition`: a video's last frame fading into its first (`loopfade`). */
	VEIL_TRANSITION_LOOPFADE,
	/*
	 * `transition random`: a kind picked for each change (module/core/transition/transition.c),
	 * fade, wipe, grow or slide, never the one picked last on that output; never a running one's
	 * kind.
	 */
	VEIL_TRANSITION_RANDOM,
};

/* The edge a wipe or a slide comes from. */
enum veil_side {
	VEIL_SIDE_LEFT,
	VEIL_SIDE_RIGHT,
	VEIL_SIDE_TOP,
	VEIL_SIDE_BOTTOM,
};

/* A coordinate of `at <x> <y>`: logical pixels from the output's top left, or a percentage. */
struct veil_coord {
	int value;
	bool percent;
};

/* Without a duration, a transition takes this long; durations are at most MAX. */
#define VEIL_TRANSITION_DEFAULT_MS 500
#define VEIL_TRANSITION_MAX_MS 10000

struct veil_transition_spec {
	enum veil_transition_kind kind;
	int ms; /* 0 to VEIL_TRANSITION_MAX_MS */
	enum veil_side side; /* wipe (default left) and slide (default right) */
	/* grow: the circle's centre; not given: the output's centre (50%,50%). */
	struct veil_coord at_x, at_y;
	/* `ease <curve>`: how progress follows time; linear when not given (zeroed). */
	struct veil_ease ease;
	/*
	 * Whether `from` was given: a slide without it, in a workspace setting, comes from the
	 * side the switch goes to (module/core/workspace.c).
	 */
	bool side_given;
	/*
	 * Never set by the parser: the transition began this long ago (a timed slideshow joined
	 * during one of its fades, module/show/timed.c); it starts that far in.
	 */
	int skip_ms;
};

/*
 * A transition longer than this (a timed slideshow's, never the parser's) moves in 256 steps,
 * each only when it is due: a finer step would change no pixel, and the compositor sleeps
 * between them (module/core/transition/transition.c).
 */
#define VEIL_TRANSITION_STEPPED_MS 12800

/* `loopfade <ms>`: at most this long. */
#define VEIL_LOOPFADE_MAX_MS 10000

/*
 * How a wallpaper looks: the words of a SET that its setting keeps (module/core/setting.c), its
 * state file entry and its status write (module/state/look_json.c). A new look word is a member
 * here, its parsing, its handler and a row of look_json.c's table.
 */
struct veil_look {
	enum veil_mode mode; /* VEIL_MODE_FILL when not given */
	uint32_t color; /* 0xRRGGBB: the bars of fit/center, or the solid colour; 0 when not given */
	/* The mode, the colour were given (else a GNOME wallpaper list's own apply). */
	bool has_mode, has_color;
	/* Whether `transition ...` was given: how outputs move to it (else their default). */
	bool has_transition;
	struct veil_transition_spec transition;
	/* `span`, one picture across the outputs of the setting (module/core/span.c). */
	bool span;
	/* `loopfade <ms>`, a video's last frame fading into its first; 0 when not given. */
	int loopfade_ms;
	/*
	 * `filter linear|nearest|smooth`: how the worker shrinks a large still (nearest: the
	 * renderer too scales without smoothing); smooth (0) when not given.
	 */
	enum veil_image_filter filter;
	/*
	 * `location <lat> <lon>`, degrees north and east: the place whose sun an Apple solar
	 * wallpaper follows (module/show/dynamic.c). has_location false when not given.
	 */
	bool has_location;
	double latitude, longitude;
	/* `dark <file>`: the picture for the dark scheme, expanded and malloc()ed; or NULL. */
	char *dark_path;
	/* `dark #rrggbb`: the dark scheme shows this colour alone (dark_path is NULL). */
	bool has_dark_color;
	uint32_t dark_color;
};

/* *dst becomes src with a string of its own: 0, or -ENOMEM (dst left empty). */
int veil_look_copy(struct veil_look *dst, const struct veil_look *src);
/* Frees the look's strings; the look stays usable, without them. NULL is allowed. */
void veil_look_finish(struct veil_look *look);

struct veil_command {
	enum veil_command_kind kind;
	char *path; /* SET with a file: ~ and $VAR expanded, malloc()ed; NULL otherwise */
	/* SET: how it looks; TRANSITION: look.transition (has_transition always true). */
	struct veil_look look;
	bool dark; /* SCHEME: `scheme dark` (else light) */
	/* SET: whether a slideshow's words were given (then the path must be a directory). */
	bool has_slideshow;
	/* SET: for a directory; the defaults when none of its words were given. */
	struct veil_slideshow_spec slideshow;
	/* SET made by a slideshow's step: it does not end the show (module/show/slideshow.c). */
	bool from_slideshow;
	/*
	 * SET, never parsed: run by `veil restore`, with the restore's fallback (borrowed) in
	 * fallback: a package whose read fails shows it (module/commands/package_load.c).
	 */
	bool from_restore;
	/*
	 * SET, never parsed: path's (and look.dark_path's) item-th top-level image (from 1), 0 for
	 * the file's own picture: an Apple dynamic wallpaper's pictures (module/show/timed.c).
	 */
	int item, dark_item;
	int fps; /* FPS: the cap, 0 for `fps off` */
	bool xray; /* XRAY: `xray on` */
	int blur; /* BLUR: the standard deviation, 1 to VEIL_BLUR_MAX logical pixels */
	enum veil_battery_action battery; /* BATTERY */
	int battery_fps; /* BATTERY with VEIL_BATTERY_FPS */
	/* RESTORE: the SET shown when nothing can be restored (malloc()ed), NULL for none. */
	struct veil_command *fallback;
	/*
	 * `veil workspace <ws> ...`: the SET or OFF is for that workspace of the outputs named
	 * (malloc()ed); NULL for the outputs themselves.
	 */
	char *workspace;
	/*
	 * SET, never parsed: what a worker read for the command (module/commands/package_load.c), the
	 * package borrowed; package_read alone for GNOME's XML that is a timed background.
	 */
	struct veil_package *package;
	bool package_read;
};

/* A workspace's name in `veil workspace <ws>`: at most this many bytes. */
#define VEIL_WORKSPACE_NAME_MAX 255

/*
 * argv[0] is "veil". Returns 0, or a negative errno (-EINVAL for malformed words) and sets
 * *message to a malloc()ed sentence a person can act on. cmd is left empty on failure.
 */
int veil_command_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
/*
 * The words after a file that comes as a descriptor (the control protocol's set_media), read as
 * veil_command_parse() reads those after <file>; cmd->path stays NULL.
 */
int veil_command_parse_media(int argc, char *argv[], struct veil_command *cmd, char **message);
void veil_command_finish(struct veil_command *cmd);
/*
 * module/words/policy_words.c: the words after `veil` when the first is `fps` or `battery` (argv[0]
 * is that word). Same contract as veil_command_parse.
 */
int veil_policy_words_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
/*
 * module/words/xray_words.c: the words after `veil` when the first is `xray` or `blur` (argv[0]
 * is that word). Same contract as veil_command_parse.
 */
int veil_xray_words_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
/* "fade", "wipe", "grow", "slide", "loopfade", "random" or "none". */
const char *veil_transition_name(enum veil_transition_kind kind);
/* "left", "right", "top" or "bottom". */
const char *veil_side_name(enum veil_side side);

/*
 * module/words/slideshow_words.c: takes `every <n><s|m|h>`, `order <name|mtime|shuffle>` and
 * `recursive` off the end of a SET's words (*argc shrinks), in any order. spec gets the
 * defaults first; *given says whether any such word was there. 0, or -EINVAL with *message.
 */
int veil_slideshow_words_parse(int *argc, char *argv[], struct veil_slideshow_spec *spec,
	bool *given, char **message);
/* "name", "mtime" or "shuffle". */
const char *veil_slideshow_order_name(enum veil_slideshow_order order);

#endif
