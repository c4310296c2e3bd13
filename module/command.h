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
	/* `veil fps <N>|off`: a cap on a video's frame rate (module/policy_words.c). */
	VEIL_COMMAND_FPS,
	/* `veil battery <play|pause|fps N>`: what videos do on battery (module/policy_words.c). */
	VEIL_COMMAND_BATTERY,
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
	int fps; /* FPS: the cap, 0 for `fps off` */
	enum veil_battery_action battery; /* BATTERY */
	int battery_fps; /* BATTERY with VEIL_BATTERY_FPS */
};

/*
 * argv[0] is "veil". Returns 0, or a negative errno (-EINVAL for malformed words) and sets
 * *message to a malloc()ed sentence a person can act on. cmd is left empty on failure.
 */
int veil_command_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
void veil_command_finish(struct veil_command *cmd);
/*
 * module/policy_words.c: the words after `veil` when the first is `fps` or `battery` (argv[0]
 * is that word). Same contract as veil_command_parse.
 */
int veil_policy_words_parse(int argc, char *argv[], struct veil_command *cmd, char **message);
/* "fade", "wipe" or "none". */
const char *veil_transition_name(enum veil_transition_kind kind);

#endif
