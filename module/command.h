/* The words of `output <name> veil ...`, parsed. Pure: touches no scene. */
#ifndef VEIL_MODULE_COMMAND_H
#define VEIL_MODULE_COMMAND_H

#include <stdbool.h>
#include <stdint.h>
#include "util/mode.h"

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
};

/* The order of a slideshow's pictures (module/slideshow_order.c). */
enum veil_slideshow_order {
	VEIL_SLIDESHOW_NAME, /* natural order of the names (strverscmp: 2.png before 10.png) */
	VEIL_SLIDESHOW_MTIME, /* oldest first */
	VEIL_SLIDESHOW_SHUFFLE, /* random, no picture twice until every one was shown */
};

/* Without `every`, a slideshow changes pictures this often; `every` is 1 s to 24 h. */
#define VEIL_SLIDESHOW_DEFAULT_EVERY_S 600
#define VEIL_SLIDESHOW_MAX_EVERY_S (24 * 3600)

/* A directory's words (module/slideshow_words.c): `every`, `order`, `recursive`. */
struct veil_slideshow_spec {
	int every_s;
	enum veil_slideshow_order order;
	bool recursive;
};

enum veil_transition_kind {
	VEIL_TRANSITION_NONE,
	VEIL_TRANSITION_FADE,
	VEIL_TRANSITION_WIPE, /* the new picture revealed from the left */
};

/* Without a duration, a transition takes this long; durations are at most MAX. */
#define VEIL_TRANSITION_DEFAULT_MS 500
#define VEIL_TRANSITION_MAX_MS 10000

struct veil_transition_spec {
	enum veil_transition_kind kind;
	int ms; /* 0 to VEIL_TRANSITION_MAX_MS */
};

struct veil_command {
	enum veil_command_kind kind;
	char *path; /* SET with a file: ~ and $VAR expanded, malloc()ed; NULL otherwise */
	enum veil_mode mode; /* SET; VEIL_MODE_FILL when not given */
	uint32_t color; /* 0xRRGGBB: the bars of fit/center, or the solid colour; 0 when not given */
	/* SET: whether `transition ...` was given; always true for TRANSITION. */
	bool has_transition;
	struct veil_transition_spec transition;
	/* SET: whether a slideshow's words were given (then the path must be a directory). */
	bool has_slideshow;
	/* SET: for a directory; the defaults when none of its words were given. */
	struct veil_slideshow_spec slideshow;
	/* SET made by a slideshow's step: it does not end the show (module/slideshow.c). */
	bool from_slideshow;
};

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
/* "fade", "wipe" or "none". */
const char *veil_transition_name(enum veil_transition_kind kind);

/*
 * module/slideshow_words.c: takes `every <n><s|m|h>`, `order <name|mtime|shuffle>` and
 * `recursive` off the end of a SET's words (*argc shrinks), in any order. spec gets the
 * defaults first; *given says whether any such word was there. 0, or -EINVAL with *message.
 */
int veil_slideshow_words_parse(int *argc, char *argv[], struct veil_slideshow_spec *spec,
	bool *given, char **message);
/* "name", "mtime" or "shuffle". */
const char *veil_slideshow_order_name(enum veil_slideshow_order order);

#endif
