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
};

enum veil_transition_kind {
	VEIL_TRANSITION_NONE,
	VEIL_TRANSITION_FADE,
	VEIL_TRANSITION_WIPE, /* the new picture revealed from an edge (side) */
	VEIL_TRANSITION_GROW, /* the new picture in a circle that grows from a point */
	VEIL_TRANSITION_SLIDE, /* the new picture slides in from an edge (side) */
	/* Not a word of `transition`: a video's last frame fading into its first (`loopfade`). */
	VEIL_TRANSITION_LOOPFADE,
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
};

/* `loopfade <ms>`: at most this long. */
#define VEIL_LOOPFADE_MAX_MS 10000

struct veil_command {
	enum veil_command_kind kind;
	char *path; /* SET with a file: ~ and $VAR expanded, malloc()ed; NULL otherwise */
	enum veil_mode mode; /* SET; VEIL_MODE_FILL when not given */
	uint32_t color; /* 0xRRGGBB: the bars of fit/center, or the solid colour; 0 when not given */
	/* SET: whether `transition ...` was given; always true for TRANSITION. */
	bool has_transition;
	struct veil_transition_spec transition;
	/* SET: `loopfade <ms>`, a video's last frame fading into its first; 0 when not given. */
	int loopfade_ms;
};

/*
 * argv[0] is "veil". Returns 0, or a negative errno (-EINVAL for malformed words) and sets
 * *message to a malloc()ed sentence a person can act on. cmd is left empty on failure.
 */
int veil_command_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
void veil_command_finish(struct veil_command *cmd);
/* "fade", "wipe", "grow", "slide", "loopfade" or "none". */
const char *veil_transition_name(enum veil_transition_kind kind);
/* "left", "right", "top" or "bottom". */
const char *veil_side_name(enum veil_side side);

#endif
