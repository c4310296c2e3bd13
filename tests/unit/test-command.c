/*
 * veil_command_parse and veil_color_parse: every form of `veil ...`, expansion of ~ and $VAR,
 * and hostile words. Prints one line per failure and a summary; exits non-zero on failure.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <veil/veil.h>
#include "module/words/command.h"
#include "check.h"

/* An argument list for the parser: ARGV("veil", "a.png") gives the count and the array. */
#define ARGV(...) (int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)), \
	(char *[]){ __VA_ARGS__ }

static char *concat(const char *a, const char *b) {
	char *s = malloc(strlen(a) + strlen(b) + 1);
	if (s == NULL) {
		abort();
	}
	strcpy(s, a);
	strcat(s, b);
	return s;
}

/* A message is a sentence for a person: short, printable, valid UTF-8 (checked loosely). */
static bool is_readable(const char *message) {
	if (message == NULL || message[0] == '\0' || strlen(message) > 400) {
		return false;
	}
	for (const unsigned char *p = (const unsigned char *)message; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == 0xff || *p == 0xfe) {
			return false;
		}
	}
	return true;
}

static void expect_set_at(int line, int argc, char *argv[], const char *path,
		enum veil_mode mode, uint32_t color) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret,
		message ? message : "(no message)")) {
		free(message);
		return;
	}
	CHECK_LINE(line, message == NULL, "a message on success");
	CHECK_LINE(line, cmd.kind == VEIL_COMMAND_SET, "kind %d, not SET", cmd.kind);
	CHECK_LINE(line, cmd.look.mode == mode, "mode %d, not %d", cmd.look.mode, mode);
	CHECK_LINE(line, cmd.look.color == color, "colour %06x, not %06x", cmd.look.color, color);
	if (path == NULL) {
		CHECK_LINE(line, cmd.path == NULL, "path '%s', not NULL", cmd.path);
	} else {
		CHECK_LINE(line, cmd.path != NULL && strcmp(cmd.path, path) == 0,
			"path '%s', not '%s'",
			cmd.path ? cmd.path : "(null)", path);
	}
	veil_command_finish(&cmd);
	CHECK_LINE(line, cmd.path == NULL, "path left after finish");
	veil_command_finish(&cmd);
}

static void expect_kind_at(int line, int argc, char *argv[], enum veil_command_kind kind) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	CHECK_LINE(line, ret == 0, "returned %d: %s", ret, message ? message : "(no message)");
	CHECK_LINE(line, cmd.kind == kind && cmd.path == NULL, "kind %d, not %d", cmd.kind, kind);
	free(message);
	veil_command_finish(&cmd);
}

/* Expects err, an empty cmd and a readable message that has part in it. */
static void expect_error_at(int line, int argc, char *argv[], int err, const char *part) {
	struct veil_command cmd = { .path = (char *)"garbage" };
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	CHECK_LINE(line, ret == err, "returned %d, not %d (%s)", ret, err,
		message ? message : "(no message)");
	CHECK_LINE(line, cmd.path == NULL, "path '%s' on failure", cmd.path ? cmd.path : "");
	CHECK_LINE(line, is_readable(message), "unreadable message '%s'",
		message ? message : "(null)");
	CHECK_LINE(line, message != NULL && strstr(message, part) != NULL,
		"message '%s' lacks '%s'",
		message ? message : "(null)", part);
	if (cmd.path == NULL) {
		veil_command_finish(&cmd);
	}
	free(message);

	/* A caller that wants no message still gets the errno. */
	ret = veil_command_parse(argc, argv, &cmd, NULL);
	CHECK_LINE(line, ret == err && cmd.path == NULL, "returned %d without a message", ret);
}

#define expect_set(argv, path, mode, color) expect_set_at(__LINE__, argv, path, mode, color)
#define expect_kind(argv, kind) expect_kind_at(__LINE__, argv, kind)
#define expect_error(argv, err, part) expect_error_at(__LINE__, argv, err, part)

static void expect_transition_at(int line, int argc, char *argv[],
		enum veil_command_kind kind, const char *path, enum veil_mode mode,
		enum veil_transition_kind transition, int ms) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret,
		message ? message : "(no message)")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.kind == kind, "kind %d, not %d", cmd.kind, kind);
	CHECK_LINE(line, cmd.look.mode == mode, "mode %d, not %d", cmd.look.mode, mode);
	CHECK_LINE(line, (path == NULL && cmd.path == NULL) ||
		(path != NULL && cmd.path != NULL && strcmp(path, cmd.path) == 0),
		"path '%s', not '%s'", cmd.path ? cmd.path : "(null)", path ? path : "(null)");
	CHECK_LINE(line, cmd.look.has_transition, "no transition");
	CHECK_LINE(line, cmd.look.transition.kind == transition && cmd.look.transition.ms == ms,
		"transition %d %d ms, not %d %d ms", cmd.look.transition.kind, cmd.look.transition.ms,
		transition, ms);
	veil_command_finish(&cmd);
}

#define expect_transition(argv, kind, path, mode, transition, ms) \
	expect_transition_at(__LINE__, argv, kind, path, mode, transition, ms)

static void test_transitions(void) {
	const enum veil_command_kind set = VEIL_COMMAND_SET, dflt = VEIL_COMMAND_TRANSITION;
	const enum veil_mode fill = VEIL_MODE_FILL;
	expect_transition(ARGV("veil", "a.png", "transition", "fade"), set, "a.png", fill,
		VEIL_TRANSITION_FADE, VEIL_TRANSITION_DEFAULT_MS);
	expect_transition(ARGV("veil", "a.png", "fit", "#102030", "transition", "fade", "2000"),
		set, "a.png", VEIL_MODE_FIT, VEIL_TRANSITION_FADE, 2000);
	expect_transition(ARGV("veil", "a.png", "Transition", "FADE", "0"), set, "a.png", fill,
		VEIL_TRANSITION_FADE, 0);
	expect_transition(ARGV("veil", "a.png", "tile", "transition", "fade", "10000"), set,
		"a.png", VEIL_MODE_TILE, VEIL_TRANSITION_FADE, 10000);
	expect_transition(ARGV("veil", "a.png", "transition", "none"), set, "a.png", fill,
		VEIL_TRANSITION_NONE, 0);
	expect_transition(ARGV("veil", "#102030", "solid_color", "transition", "fade", "300"),
		set, NULL, VEIL_MODE_SOLID_COLOR, VEIL_TRANSITION_FADE, 300);
	/* The file name's words end at the last `transition`. */
	expect_transition(ARGV("veil", "my", "transition", "x.png", "transition", "fade"), set,
		"my transition x.png", fill, VEIL_TRANSITION_FADE, VEIL_TRANSITION_DEFAULT_MS);
	expect_transition(ARGV("veil", "transition", "fade"), dflt, NULL, fill,
		VEIL_TRANSITION_FADE, VEIL_TRANSITION_DEFAULT_MS);
	expect_transition(ARGV("veil", "transition", "fade", "300"), dflt, NULL, fill,
		VEIL_TRANSITION_FADE, 300);
	expect_transition(ARGV("veil", "TRANSITION", "none"), dflt, NULL, fill,
		VEIL_TRANSITION_NONE, 0);

	/* Without the word, none is recorded: the output's default applies. */
	struct veil_command cmd;
	CHECK(veil_command_parse(ARGV("veil", "a.png", "fit"), &cmd, NULL) == 0);
	CHECK(!cmd.look.has_transition);
	veil_command_finish(&cmd);

	expect_error(ARGV("veil", "transition"), -EINVAL, "needs a kind");
	expect_error(ARGV("veil", "a.png", "transition"), -EINVAL, "needs a kind");
	expect_error(ARGV("veil", "transition", "spin"), -EINVAL, "Unknown transition 'spin'");
	expect_transition(ARGV("veil", "a.png", "transition", "wipe", "800"), set, "a.png", fill,
		VEIL_TRANSITION_WIPE, 800);
	expect_transition(ARGV("veil", "transition", "Wipe"), dflt, NULL, fill,
		VEIL_TRANSITION_WIPE, VEIL_TRANSITION_DEFAULT_MS);
	expect_error(ARGV("veil", "a.png", "transition", "dissolve", "100"), -EINVAL,
		"Unknown transition 'dissolve'");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "10001"), -EINVAL,
		"Invalid transition duration '10001'");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "-1"), -EINVAL,
		"Invalid transition duration");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "1.5"), -EINVAL,
		"Invalid transition duration");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "500ms"), -EINVAL,
		"Invalid transition duration");
	expect_error(ARGV("veil", "a.png", "transition", "fade", ""), -EINVAL,
		"Invalid transition duration");
	expect_error(ARGV("veil", "transition", "fade", "99999999999999999999999"), -EINVAL,
		"Invalid transition duration");
	expect_error(ARGV("veil", "transition", "none", "300"), -EINVAL, "takes no duration");
	expect_error(ARGV("veil", "transition", "fade", "300", "x"), -EINVAL,
		"Unexpected word 'x'");
	expect_error(ARGV("veil", "off", "transition", "fade"), -EINVAL, "takes no arguments");
	expect_error(ARGV("veil", "transition", "fade\x01"), -EINVAL, "Unknown transition 'fade?'");
}

/* `from <side>`, `at <x>,<y>` and `loopfade <ms>`. */
static void test_transition_options(void) {
	struct veil_command cmd;
	char *message = NULL;

	CHECK(veil_command_parse(ARGV("veil", "a.png", "fit", "transition", "wipe", "800", "from",
		"Top"), &cmd, &message) == 0, "%s", message ? message : "");
	CHECK(cmd.look.transition.kind == VEIL_TRANSITION_WIPE && cmd.look.transition.ms == 800 &&
		cmd.look.transition.side == VEIL_SIDE_TOP && cmd.look.mode == VEIL_MODE_FIT);
	CHECK(strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	/* The words after the kind in any order; each kind's default side. */
	CHECK(veil_command_parse(ARGV("veil", "transition", "slide", "from", "bottom", "300"),
		&cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_TRANSITION &&
		cmd.look.transition.kind == VEIL_TRANSITION_SLIDE && cmd.look.transition.ms == 300 &&
		cmd.look.transition.side == VEIL_SIDE_BOTTOM);
	CHECK(veil_command_parse(ARGV("veil", "transition", "slide"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.side == VEIL_SIDE_RIGHT);
	CHECK(veil_command_parse(ARGV("veil", "transition", "wipe"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.side == VEIL_SIDE_LEFT);

	CHECK(veil_command_parse(ARGV("veil", "a.png", "transition", "grow", "4000", "at",
		"10,20%"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.kind == VEIL_TRANSITION_GROW && cmd.look.transition.ms == 4000 &&
		cmd.look.transition.at_x.value == 10 && !cmd.look.transition.at_x.percent &&
		cmd.look.transition.at_y.value == 20 && cmd.look.transition.at_y.percent);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a b.png", "fill", "transition", "grow", "4000", "at",
		"100%", "0"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.at_x.value == 100 && cmd.look.transition.at_x.percent &&
		cmd.look.transition.at_y.value == 0 && !cmd.look.transition.at_y.percent &&
		cmd.look.transition.ms == 4000 && strcmp(cmd.path, "a b.png") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "transition", "grow"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.at_x.value == 50 && cmd.look.transition.at_x.percent &&
		cmd.look.transition.at_y.value == 50 && cmd.look.transition.at_y.percent);

	expect_error(ARGV("veil", "transition", "wipe", "from"), -EINVAL, "wipe from where?");
	expect_error(ARGV("veil", "transition", "wipe", "from", "up"), -EINVAL,
		"wipe from where?");
	expect_error(ARGV("veil", "transition", "fade", "from", "top"), -EINVAL,
		"Unexpected word 'from'");
	expect_error(ARGV("veil", "transition", "grow", "from", "top"), -EINVAL,
		"Unexpected word 'from'");
	expect_error(ARGV("veil", "transition", "slide", "at", "1,2"), -EINVAL,
		"Unexpected word 'at'");
	expect_error(ARGV("veil", "transition", "grow", "at", "12"), -EINVAL, "grow at where?");
	expect_error(ARGV("veil", "transition", "grow", "at", "12", "y"), -EINVAL,
		"grow at where?");
	expect_error(ARGV("veil", "transition", "grow", "at", "1,2", "3", "4"), -EINVAL,
		"Unexpected word '4'");
	expect_error(ARGV("veil", "transition", "grow", "at", "101%,1"), -EINVAL,
		"grow at where?");
	expect_error(ARGV("veil", "transition", "grow", "at", "-1,1"), -EINVAL, "grow at where?");
	expect_error(ARGV("veil", "transition", "grow", "at", ",1"), -EINVAL, "grow at where?");
	expect_error(ARGV("veil", "transition", "wipe", "1", "2"), -EINVAL, "Unexpected word '2'");

	/* loopfade, before or after the transition. */
	CHECK(veil_command_parse(ARGV("veil", "v.mp4", "fill", "loopfade", "600"), &cmd,
		NULL) == 0);
	CHECK(cmd.look.loopfade_ms == 600 && !cmd.look.has_transition &&
		cmd.look.mode == VEIL_MODE_FILL && strcmp(cmd.path, "v.mp4") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "v.mp4", "loopfade", "600", "transition", "grow",
		"900", "at", "1,2"), &cmd, NULL) == 0);
	CHECK(cmd.look.loopfade_ms == 600 && cmd.look.has_transition && cmd.look.transition.ms == 900 &&
		strcmp(cmd.path, "v.mp4") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "v.mp4", "transition", "fade", "loopfade", "10"),
		&cmd, NULL) == 0);
	CHECK(cmd.look.loopfade_ms == 10 && cmd.look.has_transition &&
		cmd.look.transition.ms == VEIL_TRANSITION_DEFAULT_MS);
	veil_command_finish(&cmd);
	expect_error(ARGV("veil", "v.mp4", "loopfade", "10001"), -EINVAL,
		"Invalid loopfade duration '10001'");
	expect_error(ARGV("veil", "v.mp4", "loopfade", "x"), -EINVAL, "Invalid loopfade duration");
	expect_error(ARGV("veil", "pause", "loopfade", "100"), -EINVAL, "takes no arguments");

	/* filter, among loopfade and the transition in any order. */
	CHECK(veil_command_parse(ARGV("veil", "a.png", "stretch", "filter", "nearest"), &cmd,
		NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_NEAREST && cmd.look.mode == VEIL_MODE_STRETCH &&
		strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "filter", "Nearest", "transition", "fade",
		"loopfade", "10"), &cmd, NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_NEAREST && cmd.look.has_transition &&
		cmd.look.loopfade_ms == 10 &&
		strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "fit", "#102030", "filter", "linear"),
		&cmd, NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_LINEAR && cmd.look.mode == VEIL_MODE_FIT &&
		cmd.look.color == 0x102030);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "fill", "filter", "smooth"), &cmd,
		NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_SMOOTH && cmd.look.mode == VEIL_MODE_FILL &&
		strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "loopfade", "5", "filter", "SMOOTH",
		"span"), &cmd, NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_SMOOTH && cmd.look.loopfade_ms == 5 &&
		cmd.look.span && strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "fill"), &cmd, NULL) == 0);
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_SMOOTH, "smooth unless asked");
	veil_command_finish(&cmd);
	expect_error(ARGV("veil", "a.png", "filter", "lanczos"), -EINVAL,
		"Invalid filter 'lanczos': expected linear, nearest or smooth");

	/* location, among the other options in any order; its degrees range-checked. */
	CHECK(veil_command_parse(ARGV("veil", "d.heic", "fill", "location", "51.48", "-0.5"), &cmd,
		NULL) == 0);
	CHECK(cmd.look.has_location && cmd.look.latitude == 51.48 && cmd.look.longitude == -0.5 &&
		cmd.look.mode == VEIL_MODE_FILL && strcmp(cmd.path, "d.heic") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "d.heic", "location", "-90", "180", "transition",
		"fade", "300", "filter", "linear"), &cmd, NULL) == 0);
	CHECK(cmd.look.has_location && cmd.look.latitude == -90 && cmd.look.longitude == 180 &&
		cmd.look.has_transition && cmd.look.transition.ms == 300 &&
		cmd.look.filter == VEIL_IMAGE_FILTER_LINEAR);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "d.heic", "fill"), &cmd, NULL) == 0);
	CHECK(!cmd.look.has_location, "no location unless given");
	veil_command_finish(&cmd);
	expect_error(ARGV("veil", "d.heic", "location", "90.5", "0"), -EINVAL,
		"Invalid location latitude '90.5': expected degrees from -90 (south) to 90 (north)");
	expect_error(ARGV("veil", "d.heic", "location", "0", "-180.01"), -EINVAL,
		"Invalid location longitude '-180.01'");
	expect_error(ARGV("veil", "d.heic", "location", "nan", "0"), -EINVAL,
		"Invalid location latitude 'nan'");
	expect_error(ARGV("veil", "d.heic", "location", "1e999", "0"), -EINVAL,
		"Invalid location latitude");
	expect_error(ARGV("veil", "pause", "location", "1", "2"), -EINVAL, "takes no arguments");
	free(message);
}

/* `ease <curve>` after any kind but none, and `random`. */
static void expect_ease_at(int line, int argc, char *argv[], enum veil_transition_kind kind,
		int ms, enum veil_ease_kind ease, const char *path) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret, message ? message : "")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.look.has_transition && cmd.look.transition.kind == kind &&
		cmd.look.transition.ms == ms && cmd.look.transition.ease.kind == ease,
		"transition %d %d ms ease %d, not %d %d ms ease %d", cmd.look.transition.kind,
		cmd.look.transition.ms, cmd.look.transition.ease.kind, kind, ms, ease);
	CHECK_LINE(line, path == NULL ? cmd.path == NULL :
		cmd.path != NULL && strcmp(cmd.path, path) == 0, "path %s", cmd.path);
	veil_command_finish(&cmd);
}

#define expect_ease(argv, kind, ms, ease, path) \
	expect_ease_at(__LINE__, argv, kind, ms, ease, path)

static void test_transition_ease(void) {
	const enum veil_transition_kind fade = VEIL_TRANSITION_FADE;
	const int dms = VEIL_TRANSITION_DEFAULT_MS;
	/* Not given: linear, today's behaviour. */
	expect_ease(ARGV("veil", "a.png", "transition", "fade"), fade, dms, VEIL_EASE_LINEAR,
		"a.png");
	expect_ease(ARGV("veil", "a.png", "transition", "fade", "300", "ease", "in"), fade, 300,
		VEIL_EASE_IN, "a.png");
	expect_ease(ARGV("veil", "a.png", "transition", "fade", "ease", "OUT", "300"), fade, 300,
		VEIL_EASE_OUT, "a.png");
	expect_ease(ARGV("veil", "transition", "wipe", "ease", "in-out", "from", "top", "800"),
		VEIL_TRANSITION_WIPE, 800, VEIL_EASE_IN_OUT, NULL);
	expect_ease(ARGV("veil", "transition", "grow", "ease", "linear", "at", "1", "2"),
		VEIL_TRANSITION_GROW, dms, VEIL_EASE_LINEAR, NULL);
	/* `ease` alone: CSS's ease, before another option, a duration or the end. */
	expect_ease(ARGV("veil", "transition", "fade", "ease"), fade, dms, VEIL_EASE_EASE, NULL);
	expect_ease(ARGV("veil", "transition", "fade", "ease", "700"), fade, 700, VEIL_EASE_EASE,
		NULL);
	expect_ease(ARGV("veil", "transition", "slide", "ease", "from", "left"),
		VEIL_TRANSITION_SLIDE, dms, VEIL_EASE_EASE, NULL);
	expect_ease(ARGV("veil", "transition", "fade", "ease", "ease"), fade, dms, VEIL_EASE_EASE,
		NULL);
	/* cubic-bezier in one word (veilctl, or quoted in sway), or as sway splits it at spaces. */
	expect_ease(ARGV("veil", "a.png", "fit", "transition", "fade", "ease",
		"cubic-bezier(0.1,0.7,1,0.1)", "900"), fade, 900, VEIL_EASE_BEZIER, "a.png");
	expect_ease(ARGV("veil", "a.png", "transition", "fade", "900", "ease", "cubic-bezier(0.1",
		"0.7", "1", "0.1)"), fade, 900, VEIL_EASE_BEZIER, "a.png");
	expect_ease(ARGV("veil", "a.png", "transition", "fade", "ease", "cubic-bezier(0.1,", "0.7,",
		"1,", "0.1)", "900"), fade, 900, VEIL_EASE_BEZIER, "a.png");
	/* The longest transition words: eleven after the file name. */
	expect_ease(ARGV("veil", "my", "a.png", "transition", "grow", "900", "at", "10", "20",
		"ease", "cubic-bezier(0.1", "0.7", "1", "0.1)"), VEIL_TRANSITION_GROW, 900,
		VEIL_EASE_BEZIER, "my a.png");
	struct veil_command cmd;
	CHECK(veil_command_parse(ARGV("veil", "a.png", "transition", "slide", "ease",
		"cubic-bezier(0.25 0.1 0.25 1)", "from", "top"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.ease.x1 == 0.25 && cmd.look.transition.ease.y1 == 0.1 &&
		cmd.look.transition.ease.x2 == 0.25 && cmd.look.transition.ease.y2 == 1.0 &&
		cmd.look.transition.side == VEIL_SIDE_TOP && strcmp(cmd.path, "a.png") == 0);
	veil_command_finish(&cmd);
	/* random: a duration and a curve; its side and centre are picked or the centre. */
	expect_ease(ARGV("veil", "transition", "random"), VEIL_TRANSITION_RANDOM, dms,
		VEIL_EASE_LINEAR, NULL);
	expect_ease(ARGV("veil", "d", "transition", "Random", "1200", "ease", "out"),
		VEIL_TRANSITION_RANDOM, 1200, VEIL_EASE_OUT, "d");

	expect_error(ARGV("veil", "transition", "fade", "ease", "bounce"), -EINVAL,
		"Unknown curve 'bounce': expected linear, in, out, in-out, ease or cubic-bezier");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "ease", "ease-in"), -EINVAL,
		"Unknown curve 'ease-in'");
	expect_error(ARGV("veil", "transition", "fade", "ease", "cubic-bezier(1.5,0,0,1)"), -EINVAL,
		"x1 and x2 must be from 0 to 1");
	expect_error(ARGV("veil", "transition", "fade", "ease", "cubic-bezier(0,0,-1,1)"), -EINVAL,
		"x1 and x2 must be from 0 to 1");
	expect_error(ARGV("veil", "transition", "fade", "ease", "cubic-bezier(0,0,1)"), -EINVAL,
		"Invalid curve 'cubic-bezier(0,0,1)'");
	expect_error(ARGV("veil", "transition", "fade", "ease", "cubic-bezier(0", "0", "1", "1"),
		-EINVAL, "Invalid curve 'cubic-bezier(0 0 1 1'");
	expect_error(ARGV("veil", "transition", "fade", "ease", "cubic-bezier"), -EINVAL,
		"Invalid curve");
	expect_error(ARGV("veil", "transition", "fade", "ease", "in", "ease", "out"), -EINVAL,
		"Unexpected word 'ease'");
	expect_error(ARGV("veil", "transition", "none", "ease", "in"), -EINVAL, "takes no");
	expect_error(ARGV("veil", "transition", "random", "from", "top"), -EINVAL,
		"Unexpected word 'from'");
	expect_error(ARGV("veil", "transition", "random", "at", "1", "2"), -EINVAL,
		"Unexpected word 'at'");
	expect_error(ARGV("veil", "a.png", "transition", "fade", "ease", "in", "x"), -EINVAL,
		"Invalid transition duration 'x'");
}

/* `dark <file>` after a file, and `veil scheme light|dark`. */
static void expect_dark_at(int line, int argc, char *argv[], const char *path,
		const char *dark_path, enum veil_mode mode) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret, message ? message : "")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.kind == VEIL_COMMAND_SET && cmd.look.mode == mode, "kind %d mode %d",
		cmd.kind, cmd.look.mode);
	CHECK_LINE(line, cmd.path != NULL && strcmp(cmd.path, path) == 0, "path %s", cmd.path);
	CHECK_LINE(line, dark_path == NULL ? cmd.look.dark_path == NULL : cmd.look.dark_path != NULL &&
		strcmp(cmd.look.dark_path, dark_path) == 0, "dark %s", cmd.look.dark_path);
	veil_command_finish(&cmd);
	CHECK_LINE(line, cmd.path == NULL && cmd.look.dark_path == NULL, "left after finish");
}

#define expect_dark(argv, path, dark, mode) expect_dark_at(__LINE__, argv, path, dark, mode)

static void test_dark(void) {
	const enum veil_mode fill = VEIL_MODE_FILL;
	expect_dark(ARGV("veil", "a.png", "fill", "dark", "b.png"), "a.png", "b.png", fill);
	expect_dark(ARGV("veil", "a.png", "DARK", "b.png"), "a.png", "b.png", fill);
	expect_dark(ARGV("veil", "a.png"), "a.png", NULL, fill);
	/* Names of several words on both sides, a colour, a transition and span after. */
	expect_dark(ARGV("veil", "my", "a.png", "fit", "#102030", "dark", "night", "b.png",
		"span", "transition", "fade", "300"), "my a.png", "night b.png", VEIL_MODE_FIT);
	expect_dark(ARGV("veil", "a.png", "tile", "dark", "b c.png", "loopfade", "100"), "a.png",
		"b c.png", VEIL_MODE_TILE);
	/* A file called dark is given first, or with a directory. */
	expect_dark(ARGV("veil", "dark"), "dark", NULL, fill);
	expect_dark(ARGV("veil", "dark", "fill"), "dark", NULL, fill);
	expect_dark(ARGV("veil", "a.png", "dark", "./dark"), "a.png", "./dark", fill);
	/* Expanded as the file is. */
	const char *home = getenv("HOME");
	if (home != NULL && home[0] == '/') {
		char *want = concat(home, "/b.png");
		expect_dark(ARGV("veil", "a.png", "dark", "~/b.png"), "a.png", want, fill);
		free(want);
	}
	struct veil_command cmd;
	CHECK(veil_command_parse(ARGV("veil", "a.png", "dark", "b.png", "transition", "wipe",
		"ease", "in"), &cmd, NULL) == 0);
	CHECK(cmd.look.has_transition && cmd.look.transition.kind == VEIL_TRANSITION_WIPE &&
		cmd.look.transition.ease.kind == VEIL_EASE_IN && strcmp(cmd.look.dark_path, "b.png") == 0);
	veil_command_finish(&cmd);

	expect_error(ARGV("veil", "a.png", "dark"), -EINVAL, "dark needs a file");
	expect_error(ARGV("veil", "a.png", "fill", "dark", "transition", "fade"), -EINVAL,
		"dark needs a file");
	expect_error(ARGV("veil", "#102030", "solid_color", "dark", "b.png"), -EINVAL,
		"dark of a colour is a colour");
	/* `dark #rrggbb`: a colour, after a colour or a file. */
	CHECK(veil_command_parse(ARGV("veil", "#102030", "solid_color", "dark", "#0A0B0C"), &cmd,
		NULL) == 0);
	CHECK(cmd.look.mode == VEIL_MODE_SOLID_COLOR && cmd.look.color == 0x102030 &&
		cmd.look.has_dark_color && cmd.look.dark_color == 0x0a0b0c && cmd.look.dark_path == NULL);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "a.png", "fit", "#102030", "dark", "#000001",
		"transition", "fade"), &cmd, NULL) == 0);
	CHECK(strcmp(cmd.path, "a.png") == 0 && cmd.look.mode == VEIL_MODE_FIT &&
		cmd.look.has_dark_color && cmd.look.dark_color == 0x000001 &&
		cmd.look.dark_path == NULL && cmd.look.has_transition);
	veil_command_finish(&cmd);
	expect_dark(ARGV("veil", "a.png", "dark", "./#000001"), "a.png", "./#000001", fill);
	expect_error(ARGV("veil", "a.png", "dark", "#00000g"), -EINVAL,
		"Invalid colour '#00000g' after dark");
	expect_error(ARGV("veil", "walls", "every", "10m", "dark", "#000000"), -EINVAL,
		"not for a slideshow");
	expect_error(ARGV("veil", "walls", "every", "10m", "dark", "b.png"), -EINVAL,
		"not for a slideshow");
	expect_error(ARGV("veil", "off", "dark", "b.png"), -EINVAL, "takes no arguments");
	expect_error(ARGV("veil", "a.png", "fill", "dark", "$(id)"), -EINVAL, "");

	/* veil scheme light|dark */
	CHECK(veil_command_parse(ARGV("veil", "scheme", "dark"), &cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_SCHEME && cmd.dark && cmd.path == NULL);
	CHECK(veil_command_parse(ARGV("veil", "Scheme", "LIGHT"), &cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_SCHEME && !cmd.dark);
	expect_error(ARGV("veil", "scheme"), -EINVAL, "use `veil scheme light|dark`");
	expect_error(ARGV("veil", "scheme", "dim"), -EINVAL, "Unknown scheme 'dim'");
	expect_error(ARGV("veil", "scheme", "dark", "now"), -EINVAL, "Unexpected word 'now'");
	expect_dark(ARGV("veil", "./scheme", "fill"), "./scheme", NULL, fill);
}

/* `veil workspace <ws> ...`: a SET or an OFF for one workspace, in the words of any. */
static void test_workspace(void) {
	struct veil_command cmd;
	CHECK(veil_command_parse(ARGV("veil", "workspace", "2:web", "my", "a.png", "fit",
		"#102030", "transition", "slide", "300"), &cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.workspace != NULL &&
		strcmp(cmd.workspace, "2:web") == 0 && strcmp(cmd.path, "my a.png") == 0 &&
		cmd.look.mode == VEIL_MODE_FIT && cmd.look.color == 0x102030 && cmd.look.has_transition &&
		cmd.look.transition.kind == VEIL_TRANSITION_SLIDE && !cmd.look.transition.side_given);
	veil_command_finish(&cmd);
	CHECK(cmd.workspace == NULL && cmd.path == NULL);
	CHECK(veil_command_parse(ARGV("veil", "workspace", "1", "a.png", "transition", "slide",
		"from", "left"), &cmd, NULL) == 0);
	CHECK(cmd.look.transition.side_given && cmd.look.transition.side == VEIL_SIDE_LEFT);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "WORKSPACE", "3", "off"), &cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_OFF && strcmp(cmd.workspace, "3") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(ARGV("veil", "workspace", "3", "#203040", "solid_color"), &cmd,
		NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.mode == VEIL_MODE_SOLID_COLOR &&
		cmd.look.color == 0x203040 && strcmp(cmd.workspace, "3") == 0);
	veil_command_finish(&cmd);
	/* A file called workspace is given as ./workspace. */
	expect_dark(ARGV("veil", "./workspace", "fill"), "./workspace", NULL, VEIL_MODE_FILL);

	expect_error(ARGV("veil", "workspace"), -EINVAL, "Missing workspace name");
	expect_error(ARGV("veil", "workspace", "2"), -EINVAL, "Missing wallpaper");
	expect_error(ARGV("veil", "workspace", "", "a.png"), -EINVAL, "Invalid workspace name");
	expect_error(ARGV("veil", "workspace", "a\tb", "a.png"), -EINVAL, "control character");
	expect_error(ARGV("veil", "workspace", "2", "pause"), -EINVAL,
		"Workspace '2' takes a wallpaper or off");
	expect_error(ARGV("veil", "workspace", "2", "transition", "fade"), -EINVAL,
		"takes a wallpaper or off");
	expect_error(ARGV("veil", "workspace", "2", "workspace", "3", "a.png"), -EINVAL,
		"takes a wallpaper or off");
	expect_error(ARGV("veil", "workspace", "2", "a.png", "bogus"), -EINVAL, "Unknown mode");
	expect_error(ARGV("veil", "restore", "workspace", "2", "a.png"), -EINVAL,
		"restore's fallback");
	char long_name[VEIL_WORKSPACE_NAME_MAX + 2];
	memset(long_name, 'w', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	expect_error(ARGV("veil", "workspace", long_name, "a.png"), -EINVAL,
		"Invalid workspace name");

	/* From a descriptor (veilctl -W): `workspace <ws>` before the words after the file. */
	CHECK(veil_command_parse_media(2, (char *[]){ "workspace", "5", NULL }, &cmd, NULL) == 0);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.path == NULL && strcmp(cmd.workspace, "5") == 0);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse_media(4, (char *[]){ "workspace", "5", "fit", "#000000", NULL },
		&cmd, NULL) == 0);
	CHECK(cmd.look.mode == VEIL_MODE_FIT && strcmp(cmd.workspace, "5") == 0);
	veil_command_finish(&cmd);
}

/* A directory's words: `every`, `order`, `recursive`, in any order, before `transition`. */
static void expect_slideshow_at(int line, int argc, char *argv[], const char *path,
		enum veil_mode mode, int every_s, enum veil_slideshow_order order, bool recursive,
		bool given) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret, message ? message : "")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.kind == VEIL_COMMAND_SET, "kind %d", cmd.kind);
	CHECK_LINE(line, cmd.path != NULL && strcmp(cmd.path, path) == 0, "path '%s'", cmd.path);
	CHECK_LINE(line, cmd.look.mode == mode, "mode %d", cmd.look.mode);
	CHECK_LINE(line, cmd.has_slideshow == given, "has_slideshow %d", cmd.has_slideshow);
	CHECK_LINE(line, cmd.slideshow.every_s == every_s, "every %d s, not %d",
		cmd.slideshow.every_s, every_s);
	CHECK_LINE(line, cmd.slideshow.order == order, "order %d", cmd.slideshow.order);
	CHECK_LINE(line, cmd.slideshow.recursive == recursive, "recursive %d",
		cmd.slideshow.recursive);
	veil_command_finish(&cmd);
}
#define expect_slideshow(argv, path, mode, every, order, recursive, given) \
	expect_slideshow_at(__LINE__, argv, path, mode, every, order, recursive, given)

static void test_slideshow_words(void) {
	expect_slideshow(ARGV("veil", "/pics"), "/pics", VEIL_MODE_FILL,
		VEIL_SLIDESHOW_DEFAULT_EVERY_S, VEIL_SLIDESHOW_NAME, false, false);
	expect_slideshow(ARGV("veil", "/pics", "every", "30s"), "/pics", VEIL_MODE_FILL, 30,
		VEIL_SLIDESHOW_NAME, false, true);
	expect_slideshow(ARGV("veil", "/pics", "fit", "#101010", "every", "10m", "order",
		"shuffle", "recursive"), "/pics", VEIL_MODE_FIT, 600, VEIL_SLIDESHOW_SHUFFLE, true,
		true);
	expect_slideshow(ARGV("veil", "/pics", "recursive", "order", "mtime", "every", "1h",
		"transition", "fade", "300"), "/pics", VEIL_MODE_FILL, 3600, VEIL_SLIDESHOW_MTIME,
		true, true);
	expect_slideshow(ARGV("veil", "/pics", "stretch", "every", "45"), "/pics",
		VEIL_MODE_STRETCH, 45, VEIL_SLIDESHOW_NAME, false, true);
	expect_slideshow(ARGV("veil", "/pics", "EVERY", "2H", "ORDER", "Name"), "/pics",
		VEIL_MODE_FILL, 7200, VEIL_SLIDESHOW_NAME, false, true);
	expect_slideshow(ARGV("veil", "/pics", "every", "24h"), "/pics", VEIL_MODE_FILL,
		24 * 3600, VEIL_SLIDESHOW_NAME, false, true);
	/* A file named like a word is still a file name when nothing follows it. */
	expect_set(ARGV("veil", "recursive"), "recursive", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "every", "fill"), "every", VEIL_MODE_FILL, 0);

	expect_error(ARGV("veil", "/pics", "every", "0s"), -EINVAL, "Invalid interval");
	expect_error(ARGV("veil", "/pics", "every", "25h"), -EINVAL, "Invalid interval");
	expect_error(ARGV("veil", "/pics", "every", "10x"), -EINVAL, "Invalid interval");
	expect_error(ARGV("veil", "/pics", "every", "99999999999999999999s"), -EINVAL,
		"Invalid interval");
	expect_error(ARGV("veil", "/pics", "order", "random"), -EINVAL, "Unknown order");
	expect_error(ARGV("veil", "/pics", "every"), -EINVAL, "Unknown mode");
	expect_error(ARGV("veil", "/pics", "every", "1m", "every", "2m"), -EINVAL, "twice");
	expect_error(ARGV("veil", "/pics", "recursive", "recursive"), -EINVAL, "twice");

	expect_kind(ARGV("veil", "next"), VEIL_COMMAND_NEXT);
	expect_kind(ARGV("veil", "Previous"), VEIL_COMMAND_PREVIOUS);
	expect_error(ARGV("veil", "next", "2"), -EINVAL, "takes no arguments");
}

static void expect_policy_at(int line, int argc, char *argv[], enum veil_command_kind kind,
		int fps, enum veil_battery_action battery, int battery_fps) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret,
		message ? message : "(no message)")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.kind == kind, "kind %d, not %d", cmd.kind, kind);
	CHECK_LINE(line, cmd.path == NULL, "a path");
	if (kind == VEIL_COMMAND_FPS) {
		CHECK_LINE(line, cmd.fps == fps, "fps %d, not %d", cmd.fps, fps);
	} else {
		CHECK_LINE(line, cmd.battery == battery, "battery %d, not %d", cmd.battery,
			battery);
		CHECK_LINE(line, cmd.battery_fps == battery_fps, "battery fps %d, not %d",
			cmd.battery_fps, battery_fps);
	}
	veil_command_finish(&cmd);
}

#define expect_policy(argv, kind, fps, battery, battery_fps) \
	expect_policy_at(__LINE__, argv, kind, fps, battery, battery_fps)

/* `veil fps <N>|off` and `veil battery play|pause|fps <N>` (module/words/policy_words.c). */
static void test_policy_words(void) {
	const enum veil_command_kind fps = VEIL_COMMAND_FPS, battery = VEIL_COMMAND_BATTERY;
	expect_policy(ARGV("veil", "fps", "15"), fps, 15, 0, 0);
	expect_policy(ARGV("veil", "FPS", "1"), fps, 1, 0, 0);
	expect_policy(ARGV("veil", "fps", "240"), fps, 240, 0, 0);
	expect_policy(ARGV("veil", "fps", "030"), fps, 30, 0, 0);
	expect_policy(ARGV("veil", "fps", "off"), fps, 0, 0, 0);
	expect_policy(ARGV("veil", "fps", "OFF"), fps, 0, 0, 0);
	expect_policy(ARGV("veil", "battery", "play"), battery, 0, VEIL_BATTERY_PLAY, 0);
	expect_policy(ARGV("veil", "battery", "Pause"), battery, 0, VEIL_BATTERY_PAUSE, 0);
	expect_policy(ARGV("veil", "battery", "fps", "10"), battery, 0, VEIL_BATTERY_FPS, 10);

	expect_error(ARGV("veil", "fps"), -EINVAL, "fps needs a frame rate or off");
	expect_error(ARGV("veil", "fps", "0"), -EINVAL, "Invalid frame rate '0'");
	expect_error(ARGV("veil", "fps", "241"), -EINVAL, "Invalid frame rate '241'");
	expect_error(ARGV("veil", "fps", "99999999999999999999999"), -EINVAL,
		"Invalid frame rate");
	expect_error(ARGV("veil", "fps", "-1"), -EINVAL, "Invalid frame rate '-1'");
	expect_error(ARGV("veil", "fps", "15.5"), -EINVAL, "Invalid frame rate '15.5'");
	expect_error(ARGV("veil", "fps", ""), -EINVAL, "Invalid frame rate ''");
	expect_error(ARGV("veil", "fps", "1\x01"), -EINVAL, "Invalid frame rate '1?'");
	expect_error(ARGV("veil", "fps", "15", "x"), -EINVAL, "Unexpected word 'x'");
	expect_error(ARGV("veil", "battery"), -EINVAL, "battery needs");
	expect_error(ARGV("veil", "battery", "stop"), -EINVAL, "Unknown battery action 'stop'");
	expect_error(ARGV("veil", "battery", "fps"), -EINVAL, "`battery fps` needs a frame rate");
	expect_error(ARGV("veil", "battery", "fps", "off"), -EINVAL, "Invalid frame rate 'off'");
	expect_error(ARGV("veil", "battery", "fps", "0"), -EINVAL, "Invalid frame rate '0'");
	expect_error(ARGV("veil", "battery", "pause", "now"), -EINVAL, "Unexpected word 'now'");
	expect_error(ARGV("veil", "battery", "fps", "10", "x"), -EINVAL, "Unexpected word 'x'");
}

static void expect_xray_at(int line, int argc, char *argv[], enum veil_command_kind kind,
		bool on, int blur) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (!CHECK_LINE(line, ret == 0, "returned %d: %s", ret,
		message ? message : "(no message)")) {
		free(message);
		return;
	}
	CHECK_LINE(line, cmd.kind == kind, "kind %d, not %d", cmd.kind, kind);
	CHECK_LINE(line, cmd.xray == on && cmd.blur == blur, "xray %d blur %d", cmd.xray, cmd.blur);
	veil_command_finish(&cmd);
}

#define expect_xray(argv, kind, on, blur) expect_xray_at(__LINE__, argv, kind, on, blur)

/* `veil xray on|off` and `veil blur <px>` (module/words/xray_words.c). */
static void test_xray_words(void) {
	const enum veil_command_kind xray = VEIL_COMMAND_XRAY, blur = VEIL_COMMAND_BLUR;
	expect_xray(ARGV("veil", "xray", "on"), xray, true, 0);
	expect_xray(ARGV("veil", "XRAY", "Off"), xray, false, 0);
	expect_xray(ARGV("veil", "blur", "20"), blur, false, 20);
	expect_xray(ARGV("veil", "blur", "1"), blur, false, 1);
	expect_xray(ARGV("veil", "blur", "200"), blur, false, 200);
	expect_xray(ARGV("veil", "blur", "30px"), blur, false, 30);

	expect_error(ARGV("veil", "xray"), -EINVAL, "xray takes one word, on or off");
	expect_error(ARGV("veil", "xray", "yes"), -EINVAL, "Unknown xray word 'yes'");
	expect_error(ARGV("veil", "xray", "on", "now"), -EINVAL, "xray takes one word");
	expect_error(ARGV("veil", "blur"), -EINVAL, "blur takes one number");
	expect_error(ARGV("veil", "blur", "0"), -EINVAL, "Blur '0' is out of range");
	expect_error(ARGV("veil", "blur", "201"), -EINVAL, "Blur '201' is out of range");
	expect_error(ARGV("veil", "blur", "1000000"), -EINVAL, "out of range");
	expect_error(ARGV("veil", "blur", "99999999999999999999999"), -EINVAL, "out of range");
	expect_error(ARGV("veil", "blur", "-5"), -EINVAL, "Invalid blur '-5'");
	expect_error(ARGV("veil", "blur", "2.5"), -EINVAL, "Invalid blur '2.5'");
	expect_error(ARGV("veil", "blur", "px"), -EINVAL, "Invalid blur 'px'");
	expect_error(ARGV("veil", "blur", ""), -EINVAL, "Invalid blur ''");
	expect_error(ARGV("veil", "workspace", "2", "xray", "on"), -EINVAL,
		"takes a wallpaper or off");
}

static void test_colors(void) {
	static const struct {
		const char *word;
		bool ok;
		uint32_t rgb;
	} cases[] = {
		{ "#123456", true, 0x123456 },
		{ "123456", true, 0x123456 },
		{ "#abcdef", true, 0xabcdef },
		{ "#ABCDEF", true, 0xabcdef },
		{ "#aBcDeF", true, 0xabcdef },
		{ "#000000", true, 0x000000 },
		{ "#ffffff", true, 0xffffff },
		{ "#123456ff", true, 0x123456 },
		{ "#123456FF", true, 0x123456 },
		{ "#12345680", false, 0 },
		{ "#12345600", false, 0 },
		{ "123456ff", false, 0 },
		{ "#12345", false, 0 },
		{ "#1234567", false, 0 },
		{ "#123456f", false, 0 },
		{ "#123456fff", false, 0 },
		{ "#12g456", false, 0 },
		{ "#fff", false, 0 },
		{ "##123456", false, 0 },
		{ "#+12345", false, 0 },
		{ "# 12345", false, 0 },
		{ "#-12345", false, 0 },
		{ "0x1234", false, 0 },
		{ "#123456 ", false, 0 },
		{ " #123456", false, 0 },
		{ "", false, 0 },
		{ "#", false, 0 },
		{ "red", false, 0 },
		{ "\xff\xff\xff\xff\xff\xff", false, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t rgb = 0xdeadbe;
		bool ok = veil_color_parse(cases[i].word, &rgb);
		CHECK(ok == cases[i].ok, "veil_color_parse('%s') gave %d",
			cases[i].word, ok);
		if (cases[i].ok) {
			CHECK(rgb == cases[i].rgb, "'%s' gave %06x", cases[i].word,
				rgb);
		} else {
			CHECK(rgb == 0xdeadbe, "'%s' wrote %06x on failure",
				cases[i].word, rgb);
		}
	}
	CHECK(!veil_color_parse(NULL, NULL));
	CHECK(veil_color_parse("#010203", NULL));
}

static void test_forms(void) {
	expect_set(ARGV("veil", "a.png"), "a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("VEIL", "a.png"), "a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "/walls/a.png", "stretch"), "/walls/a.png", VEIL_MODE_STRETCH, 0);
	expect_set(ARGV("veil", "/walls/a.png", "fill"), "/walls/a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "/walls/a.png", "fit"), "/walls/a.png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "/walls/a.png", "center"), "/walls/a.png", VEIL_MODE_CENTER, 0);
	expect_set(ARGV("veil", "/walls/a.png", "tile"), "/walls/a.png", VEIL_MODE_TILE, 0);
	expect_set(ARGV("veil", "a.png", "FIT"), "a.png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "a.png", "Center"), "a.png", VEIL_MODE_CENTER, 0);
	expect_set(ARGV("veil", "a.png", "fit", "#102030"), "a.png", VEIL_MODE_FIT, 0x102030);
	expect_set(ARGV("veil", "a.png", "center", "A0B0C0"), "a.png", VEIL_MODE_CENTER, 0xa0b0c0);
	expect_set(ARGV("veil", "a.png", "fit", "#102030ff"), "a.png", VEIL_MODE_FIT, 0x102030);
	/* No mode: fill, and a trailing #rrggbb is the colour. */
	expect_set(ARGV("veil", "a.png", "#102030"), "a.png", VEIL_MODE_FILL, 0x102030);
	expect_set(ARGV("veil", "#123456", "fit"), "#123456", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "#123456", "#654321"), "#123456", VEIL_MODE_FILL, 0x654321);
	expect_set(ARGV("veil", "#102030", "solid_color"), NULL, VEIL_MODE_SOLID_COLOR, 0x102030);
	expect_set(ARGV("veil", "#ABCDEF", "SOLID_COLOR"), NULL, VEIL_MODE_SOLID_COLOR, 0xabcdef);
	expect_set(ARGV("veil", "102030", "solid_color"), NULL, VEIL_MODE_SOLID_COLOR, 0x102030);
	expect_set(ARGV("veil", "#000000", "solid_color"), NULL, VEIL_MODE_SOLID_COLOR, 0);

	expect_kind(ARGV("veil", "off"), VEIL_COMMAND_OFF);
	expect_kind(ARGV("veil", "OFF"), VEIL_COMMAND_OFF);
	expect_kind(ARGV("veil", "pause"), VEIL_COMMAND_PAUSE);
	expect_kind(ARGV("veil", "Pause"), VEIL_COMMAND_PAUSE);
	expect_kind(ARGV("veil", "resume"), VEIL_COMMAND_RESUME);
	/* A file named like a keyword is given with a directory. */
	expect_set(ARGV("veil", "./off"), "./off", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "./fill", "fit"), "./fill", VEIL_MODE_FIT, 0);
}

static void test_errors(void) {
	expect_error(ARGV("veil"), -EINVAL, "Missing file name: use `veil <file> [mode] [#rrggbb] "
		"[dark <file|#rrggbb>] [span] [transition <fade|wipe|grow|slide|random|none> [<ms>] ...] "
		"[loopfade <ms>] [filter linear|nearest|smooth] [location <lat> <lon>]`");
	expect_error(ARGV("veil", ""), -EINVAL, "Missing file name");
	expect_error(ARGV("veil", "", "fill"), -EINVAL, "Missing file name");
	expect_error(ARGV("veil", "fill"), -EINVAL, "Missing file name");
	expect_error(ARGV("veil", "fit", "#123456"), -EINVAL, "Missing file name");
	expect_error(ARGV("veil", "#123456"), -EINVAL, "`veil #123456 solid_color`");
	expect_error(ARGV("veil", "a.png", "filll"), -EINVAL,
		"Unknown mode 'filll': expected stretch, fill, fit, center, tile, integer or solid_color");
	expect_error(ARGV("veil", "#123456", "solid"), -EINVAL, "Unknown mode 'solid'");
	expect_error(ARGV("veil", "a.png", "solid-color"), -EINVAL, "Unknown mode 'solid-color'");
	expect_error(ARGV("veil", "a.png", "#12345"), -EINVAL,
		"Invalid colour '#12345': expected #rrggbb");
	expect_error(ARGV("veil", "a.png", "fit", "#12345"), -EINVAL, "Invalid colour '#12345'");
	expect_error(ARGV("veil", "a.png", "fit", "red"), -EINVAL, "Invalid colour 'red'");
	expect_error(ARGV("veil", "a.png", "fit", "#12345680"), -EINVAL, "Invalid colour");
	expect_error(ARGV("veil", "a.png", "fit", "#123456", "x"), -EINVAL,
		"Unexpected word 'x' after the colour");
	expect_error(ARGV("veil", "a.png", "#123456", "x"), -EINVAL,
		"Unexpected word 'x' after the colour");
	expect_error(ARGV("veil", "a.png", "#123456", "fit"), -EINVAL,
		"Unexpected word 'fit' after the colour");
	expect_error(ARGV("veil", "solid_color"), -EINVAL,
		"solid_color needs a colour: `veil #rrggbb solid_color`");
	expect_error(ARGV("veil", "a", "#123456", "solid_color"), -EINVAL,
		"Unexpected word 'solid_color'");
	expect_error(ARGV("veil", "a", "b", "solid_color"), -EINVAL, "solid_color needs a colour");
	expect_error(ARGV("veil", "#12345", "solid_color"), -EINVAL, "Invalid colour '#12345'");
	expect_error(ARGV("veil", "red", "solid_color"), -EINVAL, "Invalid colour 'red'");
	expect_error(ARGV("veil", "#123456", "solid_color", "fit"), -EINVAL,
		"Unexpected word 'fit' after solid_color");
	expect_error(ARGV("veil", "off", "now"), -EINVAL, "`veil off` takes no arguments");
	expect_error(ARGV("veil", "OFF", ""), -EINVAL, "`veil off` takes no arguments");
	expect_error(ARGV("veil", "pause", "x"), -EINVAL, "`veil pause` takes no arguments");
	expect_error(ARGV("veil", "resume", "x"), -EINVAL, "`veil resume` takes no arguments");
}

static void test_spaces(void) {
	/* Unquoted, sway splits a name into words: they are joined back with single spaces. */
	expect_set(ARGV("veil", "my", "file.png", "fit"), "my file.png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "my", "file.png"), "my file.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a", "b", "c.png", "#010203"), "a b c.png", VEIL_MODE_FILL,
		0x010203);
	expect_set(ARGV("veil", "a", "b", "c.png", "tile", "#010203"), "a b c.png",
		VEIL_MODE_TILE, 0x010203);
	/* Quoted, a name is one word, and its spaces are kept as they are. */
	expect_set(ARGV("veil", "my  file.png"), "my  file.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", " lead.png", "fit"), " lead.png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "trail.png ", "fit"), "trail.png ", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "sunset beach"), "sunset beach", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "sunset", "beach", "fill"), "sunset beach", VEIL_MODE_FILL, 0);
	expect_error(ARGV("veil", "sunset", "beach"), -EINVAL, "add the mode");
	/* Shell quotes and backslashes inside the words still work. */
	expect_set(ARGV("veil", "'a  b.png'"), "a  b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\"a  b.png\""), "a  b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "my\" \"file.png"), "my file.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a\\ b.png"), "a b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "it\\'s.png"), "it's.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\"it's.png\""), "it's.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "back\\\\slash.png"), "back\\slash.png", VEIL_MODE_FILL, 0);
}

static void test_expansion(void) {
	CHECK(setenv("HOME", "/home/veil user", 1) == 0);
	CHECK(setenv("VEIL_TEST_DIR", "/srv/walls", 1) == 0);
	CHECK(setenv("VEIL_TEST_SPACES", "a  b", 1) == 0);
	CHECK(setenv("VEIL_TEST_EMPTY", "", 1) == 0);
	CHECK(setenv("VEIL_TEST_NEWLINE", "a\nb", 1) == 0);
	CHECK(unsetenv("VEIL_TEST_UNSET") == 0);
	const char *home = getenv("HOME");
	const char *dir = getenv("VEIL_TEST_DIR");

	char *expected = concat(home, "/Pictures/a.png");
	expect_set(ARGV("veil", "~/Pictures/a.png"), expected, VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "~/Pictures/a.png", "fit"), expected, VEIL_MODE_FIT, 0);
	free(expected);
	expect_set(ARGV("veil", "~"), home, VEIL_MODE_FILL, 0);
	expected = concat(home, "/My Pictures/a b.png");
	expect_set(ARGV("veil", "~/My", "Pictures/a", "b.png", "center"), expected,
		VEIL_MODE_CENTER, 0);
	expect_set(ARGV("veil", "~/My Pictures/a b.png"), expected, VEIL_MODE_FILL, 0);
	free(expected);
	/* ~ only counts at the start, and quoted or escaped it is literal. */
	expect_set(ARGV("veil", "a~b.png"), "a~b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\\~/a.png"), "~/a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "'~/a.png'"), "~/a.png", VEIL_MODE_FILL, 0);

	expected = concat(dir, "/a.png");
	expect_set(ARGV("veil", "$VEIL_TEST_DIR/a.png"), expected, VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "${VEIL_TEST_DIR}/a.png", "tile"), expected, VEIL_MODE_TILE, 0);
	expect_set(ARGV("veil", "\"$VEIL_TEST_DIR\"/a.png"), expected, VEIL_MODE_FILL, 0);
	free(expected);
	expected = concat(dir, "/a b.png");
	expect_set(ARGV("veil", "$VEIL_TEST_DIR/a", "b.png"), expected, VEIL_MODE_FILL, 0);
	free(expected);
	expected = concat(dir, "x.png");
	expect_set(ARGV("veil", "${VEIL_TEST_DIR}x.png"), expected, VEIL_MODE_FILL, 0);
	free(expected);
	/* Unquoted, a value is split into words, which are joined back; quoted, it is kept. */
	expect_set(ARGV("veil", "$VEIL_TEST_SPACES.png"), "a b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\"$VEIL_TEST_SPACES\".png"), "a  b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "'$VEIL_TEST_DIR'"), "$VEIL_TEST_DIR", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\\$VEIL_TEST_DIR"), "$VEIL_TEST_DIR", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "$VEIL_TEST_EMPTY/a.png"), "/a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "''a.png"), "a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\"\"$VEIL_TEST_DIR"), dir, VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a", "", "b.png"), "a b.png", VEIL_MODE_FILL, 0);

	expect_error(ARGV("veil", "$VEIL_TEST_UNSET/a.png"), -EINVAL,
		"Variable 'VEIL_TEST_UNSET' in file name '$VEIL_TEST_UNSET/a.png' is not set");
	expect_error(ARGV("veil", "${VEIL_TEST_UNSET}/a.png", "fit"), -EINVAL,
		"'VEIL_TEST_UNSET'");
	expect_error(ARGV("veil", "$VEIL_TEST_DIR/$VEIL_TEST_UNSET"), -EINVAL,
		"'VEIL_TEST_UNSET'");
	expect_error(ARGV("veil", "${VEIL_TEST_UNSET:-/a.png}"), -EINVAL, "'VEIL_TEST_UNSET'");
	expect_error(ARGV("veil", "$VEIL_TEST_EMPTY"), -EINVAL, "empty once expanded");
	expect_error(ARGV("veil", "''"), -EINVAL, "empty once expanded");
	expect_set(ARGV("veil", "$VEIL_TEST_NEWLINE.png", "fit"), "a b.png", VEIL_MODE_FIT, 0);
	expect_error(ARGV("veil", "\"$VEIL_TEST_NEWLINE\".png"), -EINVAL, "control character");

	/* Relative names stay relative: the caller resolves them. */
	expect_set(ARGV("veil", "walls/a.png"), "walls/a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "../a.png"), "../a.png", VEIL_MODE_FILL, 0);
}

/* Words a shell would act on are literal in a file name, or refused with a reason. */
static void test_shell_syntax(void) {
	expect_error(ARGV("veil", "$(rm -rf /)"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "$(rm", "-rf", "/)", "fit"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "`rm -rf /`"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "a`id`.png", "fill"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "\"$(id)\""), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "'$(id)'"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "\\$(id)"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "${VEIL_TEST_DIR:-$(id)}"), -EINVAL, "command substitution");
	expect_error(ARGV("veil", "$((1+2))"), -EINVAL, "command substitution");

	expect_set(ARGV("veil", "a;b.png"), "a;b.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a.png;", "rm", "-rf", "~", "fit"), "a.png; rm -rf ~",
		VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "a|b&c.png"), "a|b&c.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "<a>(b){c}.png"), "<a>(b){c}.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a && b.png", "fit"), "a && b.png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "#a.png"), "#a.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "a=b!c%d^e.png"), "a=b!c%d^e.png", VEIL_MODE_FILL, 0);
	/* No positional or special parameters: they would be the compositor's own. */
	expect_set(ARGV("veil", "$1$$$@$*$#$?$0$-$!.png"), "$1$$$@$*$#$?$0$-$!.png",
		VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "${1}.png"), "${1}.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "\"${1}\".png"), "${1}.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "cost$"), "cost$", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "$", "a.png"), "$ a.png", VEIL_MODE_FILL, 0);

	expect_error(ARGV("veil", "it's.png"), -EINVAL, "has a ' without its pair");
	expect_error(ARGV("veil", "\"a.png"), -EINVAL, "has a \" without its pair");
	expect_error(ARGV("veil", "a.png\\"), -EINVAL, "ends in a backslash");
	expect_error(ARGV("veil", "${VEIL_TEST_DIR"), -EINVAL, "has a ${ without its }");
	expect_error(ARGV("veil", "${VEIL_TEST_DIR!}"), -EINVAL, "not valid shell syntax");
}

/* Globbing would pick files from the compositor's directory: patterns stay literal. */
static void test_no_glob(void) {
	char dir[] = "/tmp/veil-test-command-XXXXXX";
	char cwd[PATH_MAX];
	if (!CHECK(mkdtemp(dir) != NULL) || !CHECK(getcwd(cwd, sizeof(cwd)) != NULL) ||
			!CHECK(chdir(dir) == 0)) {
		return;
	}
	FILE *f1 = fopen("x1.png", "w");
	FILE *f2 = fopen("x2.png", "w");
	CHECK(f1 != NULL && f2 != NULL);
	if (f1 != NULL) {
		fclose(f1);
	}
	if (f2 != NULL) {
		fclose(f2);
	}
	expect_set(ARGV("veil", "*.png"), "*.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "x?.png"), "x?.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "x[12].png", "fit"), "x[12].png", VEIL_MODE_FIT, 0);
	expect_set(ARGV("veil", "x1.png"), "x1.png", VEIL_MODE_FILL, 0);
	CHECK(unlink("x1.png") == 0);
	CHECK(unlink("x2.png") == 0);
	CHECK(chdir(cwd) == 0);
	CHECK(rmdir(dir) == 0);
}

static void test_hostile(void) {
	struct veil_command cmd;
	char *message = NULL;

	/* Not a veil command at all, or broken argument vectors. */
	CHECK(veil_command_parse(0, NULL, &cmd, &message) == -EINVAL && cmd.path == NULL);
	CHECK(is_readable(message));
	free(message);
	CHECK(veil_command_parse(0, (char *[]){ NULL }, &cmd, &message) == -EINVAL);
	free(message);
	expect_error(ARGV(NULL), -EINVAL, "Not a veil command");
	expect_error(ARGV(NULL, "a.png"), -EINVAL, "Not a veil command");
	expect_error(ARGV("bg", "a.png"), -EINVAL, "Not a veil command");
	expect_error(ARGV("", "a.png"), -EINVAL, "Not a veil command");
	expect_error(ARGV("veil", NULL), -EINVAL, "missing");
	expect_error(ARGV("veil", "a.png", NULL), -EINVAL, "missing");
	expect_error(ARGV("veil", "a.png", "fit", NULL), -EINVAL, "missing");
	expect_error(ARGV("veil", "off", NULL), -EINVAL, "missing");

	/* Control characters: refused, and never echoed into the message. */
	expect_error(ARGV("veil", "a\nb.png"), -EINVAL, "control character (byte 0x0a)");
	expect_error(ARGV("veil", "a\tb.png", "fit"), -EINVAL, "control character (byte 0x09)");
	expect_error(ARGV("veil", "a\rb\x1b[2J.png"), -EINVAL, "control character");
	expect_error(ARGV("veil", "a\x7f.png"), -EINVAL, "control character");
	expect_error(ARGV("veil", "a.png", "fit", "\n#123456"), -EINVAL, "Invalid colour '?#123456'");
	expect_error(ARGV("veil", "a.png", "\x1b[31mfit"), -EINVAL, "'a.png ?[31mfit' has a control");

	/* Bytes that are not UTF-8 are a faithful path, but '?' in a message. */
	expect_set(ARGV("veil", "\xff\xfe.png"), "\xff\xfe.png", VEIL_MODE_FILL, 0);
	expect_set(ARGV("veil", "caf\xc3\xa9 \xe2\x98\x80.png", "fit"), "caf\xc3\xa9 \xe2\x98\x80.png",
		VEIL_MODE_FIT, 0);
	expect_error(ARGV("veil", "a.png", "fit", "\xff\xfe"), -EINVAL, "Invalid colour '?\?'");
	expect_error(ARGV("veil", "a.png", "fit", "\xc0\xaf"), -EINVAL, "Invalid colour '?\?'");
	expect_error(ARGV("veil", "a.png", "fit", "\xed\xa0\x80"), -EINVAL, "Invalid colour '??\?'");
	expect_error(ARGV("veil", "a.png", "fit", "caf\xc3\xa9"), -EINVAL,
		"Invalid colour 'caf\xc3\xa9'");

	/* 64 KiB words: too long for a path, and cut short in messages. */
	size_t size = 64 * 1024;
	char *longword = malloc(size + 1);
	char *quotes = malloc(size + 1);
	char *dollars = malloc(size + 1);
	if (!CHECK(longword != NULL && quotes != NULL && dollars != NULL)) {
		goto out;
	}
	memset(longword, 'a', size);
	longword[size] = '\0';
	memset(quotes, '\'', size);
	quotes[size] = '\0';
	memset(dollars, '$', size);
	dollars[size] = '\0';
	expect_error(ARGV("veil", longword), -ENAMETOOLONG, "too long: 65536 bytes");
	expect_error(ARGV("veil", longword, "fit"), -ENAMETOOLONG, "aaa...'");
	expect_error(ARGV("veil", "a.png", "fit", longword), -EINVAL, "Invalid colour 'aaa");
	expect_error(ARGV("veil", "a.png", longword), -EINVAL, "Unknown mode 'aaa");
	expect_error(ARGV("veil", quotes), -ENAMETOOLONG, "too long: 65536 bytes");
	expect_error(ARGV("veil", dollars, "fill"), -ENAMETOOLONG, "too long");
	expect_error(ARGV("veil", "off", longword), -EINVAL, "`veil off` takes no arguments");
	quotes[PATH_MAX - 2] = '\0';
	expect_error(ARGV("veil", quotes), -EINVAL, "empty once expanded");
	dollars[PATH_MAX - 1] = '\0';
	expect_set(ARGV("veil", dollars), dollars, VEIL_MODE_FILL, 0);
	longword[PATH_MAX] = '\0';
	expect_error(ARGV("veil", longword), -ENAMETOOLONG, "4096 bytes, at most 4095");
	longword[PATH_MAX - 1] = '\0';
	expect_set(ARGV("veil", longword), longword, VEIL_MODE_FILL, 0);
	/* Too long only once expanded. */
	longword[0] = '~';
	longword[1] = '/';
	expect_error(ARGV("veil", longword), -ENAMETOOLONG, "at most 4095");
	longword[PATH_MAX - 1 - strlen(getenv("HOME"))] = '\0';
	char *expected = concat(getenv("HOME"), longword + 1);
	expect_set(ARGV("veil", longword), expected, VEIL_MODE_FILL, 0);
	free(expected);

out:
	free(longword);
	free(quotes);
	free(dollars);
}

static void test_finish(void) {
	struct veil_command cmd = {0};
	veil_command_finish(&cmd);
	veil_command_finish(&cmd);
	veil_command_finish(NULL);
	CHECK(cmd.path == NULL);
}

/* A compositor whose veil_scene_create() failed may still pass the words on. */
static void test_no_scene(void) {
	char *message = NULL;
	CHECK(veil_scene_command(NULL, "*", ARGV("veil", "#102030", "solid_color"),
		&message) == -ENODEV);
	CHECK(message != NULL && strstr(message, "not running") != NULL);
	free(message);
	message = NULL;
	CHECK(veil_scene_command(NULL, "*", ARGV("veil", "sideways.png", "sideways"),
		&message) == -EINVAL);
	free(message);
	CHECK(veil_scene_command(NULL, "*", ARGV("veil", "off"), NULL) == -ENODEV);
	message = NULL;
	CHECK(veil_scene_check(NULL, ARGV("veil", "#102030", "solid_color"), &message) == 0);
	CHECK(message == NULL);
	CHECK(veil_scene_status_json(NULL, "X") == NULL);
}

/* `span` as a last word, before or after the transition words. */
static void expect_span_at(int line, int argc, char *argv[], const char *path,
		enum veil_mode mode, bool span, bool transition) {
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (CHECK_LINE(line, ret == 0, "returned %d: %s", ret, message ? message : "")) {
		CHECK_LINE(line, cmd.kind == VEIL_COMMAND_SET && cmd.look.mode == mode, "kind %d mode %d",
			cmd.kind, cmd.look.mode);
		CHECK_LINE(line, cmd.look.span == span, "span %d, not %d", cmd.look.span, span);
		CHECK_LINE(line, cmd.look.has_transition == transition, "transition %d, not %d",
			cmd.look.has_transition, transition);
		CHECK_LINE(line, path == NULL ? cmd.path == NULL :
			cmd.path != NULL && strcmp(cmd.path, path) == 0, "path '%s', not '%s'",
			cmd.path ? cmd.path : "(null)", path ? path : "(null)");
	}
	free(message);
	veil_command_finish(&cmd);
}

#define expect_span(argv, path, mode, span, transition) \
	expect_span_at(__LINE__, argv, path, mode, span, transition)

static void test_span(void) {
	const enum veil_mode fill = VEIL_MODE_FILL, fit = VEIL_MODE_FIT;
	expect_span(ARGV("veil", "a.png", "span"), "a.png", fill, true, false);
	expect_span(ARGV("veil", "a.png", "fit", "#102030", "SPAN"), "a.png", fit, true, false);
	expect_span(ARGV("veil", "a.png", "fit", "span", "transition", "fade", "300"), "a.png",
		fit, true, true);
	expect_span(ARGV("veil", "a.png", "fit", "transition", "fade", "300", "span"), "a.png",
		fit, true, true);
	expect_span(ARGV("veil", "a.png", "transition", "wipe", "span"), "a.png", fill, true,
		true);
	expect_span(ARGV("veil", "a.png", "fit"), "a.png", fit, false, false);
	/* A lone word is a file name, as it always was. */
	expect_span(ARGV("veil", "span"), "span", fill, false, false);
	expect_span(ARGV("veil", "span", "fill"), "span", fill, false, false);
	expect_error(ARGV("veil", "off", "span"), -EINVAL, "`veil off` takes no arguments");
	expect_error(ARGV("veil", "pause", "span"), -EINVAL, "`veil pause` takes no arguments");
	expect_error(ARGV("veil", "a.png", "span", "span"), -EINVAL, "Unknown mode 'span'");
	/* Words before the mode are the file's name, `span` among them. */
	expect_span(ARGV("veil", "a.png", "span", "fit"), "a.png span", fit, false, false);
}

int main(void) {
	test_colors();
	test_span();
	test_forms();
	test_transitions();
	test_transition_options();
	test_transition_ease();
	test_dark();
	test_workspace();
	test_slideshow_words();
	test_policy_words();
	test_xray_words();
	test_errors();
	test_spaces();
	test_expansion();
	test_shell_syntax();
	test_no_glob();
	test_hostile();
	test_finish();
	test_no_scene();
	return check_summary("command");
}
