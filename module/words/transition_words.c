/*
 * `transition <kind> [<ms>] [from <side>|at <x> <y>] [ease <curve>]`: the words of a change's
 * look, and the names of kinds and sides the status and the state file use.
 */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wordexp.h>
#include "module/words/command.h"
#include "module/words/words.h"
#include "util/message.h"

const char *veil_transition_name(enum veil_transition_kind kind) {
	switch (kind) {
	case VEIL_TRANSITION_NONE:
		return "none";
	case VEIL_TRANSITION_FADE:
		return "fade";
	case VEIL_TRANSITION_WIPE:
		return "wipe";
	case VEIL_TRANSITION_GROW:
		return "grow";
	case VEIL_TRANSITION_SLIDE:
		return "slide";
	case VEIL_TRANSITION_LOOPFADE:
		return "loopfade";
	case VEIL_TRANSITION_RANDOM:
		return "random";
	}
	return "none";
}

static const char *const side_names[] = {
	[VEIL_SIDE_LEFT] = "left",
	[VEIL_SIDE_RIGHT] = "right",
	[VEIL_SIDE_TOP] = "top",
	[VEIL_SIDE_BOTTOM] = "bottom",
};

const char *veil_side_name(enum veil_side side) {
	return (unsigned)side < sizeof(side_names) / sizeof(side_names[0]) ?
		side_names[side] : "left";
}

static const char transition_usage[] = "`transition <fade|wipe|grow|slide|random|none> [<ms>] "
	"[from <left|right|top|bottom>] [at <x> <y>] [ease <curve>]`";
static const char curves[] = "linear, in, out, in-out, ease or cubic-bezier(x1,y1,x2,y2)";

/* Milliseconds from 0 to max: false for anything else ("99999999999999999999" is too long). */
bool veil_words_parse_ms(const char *word, int max, int *out) {
	long ms = 0;
	bool digits = *word != '\0';
	for (const char *p = word; *p != '\0' && digits; p++) {
		digits = *p >= '0' && *p <= '9';
		/* Stops growing past the bound. */
		ms = ms > max ? ms : ms * 10 + (*p - '0');
	}
	if (!digits || ms > max) {
		return false;
	}
	*out = (int)ms;
	return true;
}

/* One coordinate of `at`: digits, optionally followed by %, at most 100000 (100 for %). */
static bool parse_coord(const char *word, size_t len, struct veil_coord *out) {
	out->percent = len > 0 && word[len - 1] == '%';
	if (out->percent) {
		len--;
	}
	if (len == 0 || len > 6) {
		return false;
	}
	int value = 0;
	for (size_t i = 0; i < len; i++) {
		if (word[i] < '0' || word[i] > '9') {
			return false;
		}
		value = value * 10 + (word[i] - '0');
	}
	if (out->percent && value > 100) {
		return false;
	}
	out->value = value;
	return true;
}

/*
 * `at <x> <y>` (or `at <x>,<y>` in one word): grow's centre. Two words are the form for sway,
 * which splits a command list at commas; one word with a comma suits veilctl or a quoted word.
 * Returns how many words it took after `at`, 0 when they are not a point.
 */
static int parse_at(int argc, char *argv[], struct veil_transition_spec *spec) {
	if (argc < 1) {
		return 0;
	}
	const char *comma = strchr(argv[0], ',');
	if (comma != NULL) {
		return parse_coord(argv[0], (size_t)(comma - argv[0]), &spec->at_x) &&
			parse_coord(comma + 1, strlen(comma + 1), &spec->at_y) ? 1 : 0;
	}
	return argc >= 2 && parse_coord(argv[0], strlen(argv[0]), &spec->at_x) &&
		parse_coord(argv[1], strlen(argv[1]), &spec->at_y) ? 2 : 0;
}

/* A duration or a word that starts one of the transition's options. */
static bool is_transition_word(const char *word) {
	int ms;
	return veil_words_parse_ms(word, INT_MAX / 10, &ms) || strcasecmp(word, "from") == 0 ||
		strcasecmp(word, "at") == 0 || strcasecmp(word, "ease") == 0;
}

/*
 * `ease [<curve>]` at argv[0] (the word after `ease`): a name, or `cubic-bezier(...)` in one word
 * or, as sway splits a command at commas and spaces, up to four words joined by spaces (the
 * numbers then separated by spaces: `cubic-bezier(0.25 0.1 0.25 1)`). A word after `ease` that
 * is neither leaves `ease` alone: CSS's `ease` curve. Returns how many words it took (0 to 4),
 * or a negative errno with *message set.
 */
static int parse_ease(int argc, char *argv[], struct veil_ease *ease, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc >= 1 && veil_ease_from_name(argv[0], ease)) {
		return 1;
	}
	if (argc < 1 || is_transition_word(argv[0])) {
		veil_ease_from_name("ease", ease);
		return 0;
	}
	if (strncasecmp(argv[0], "cubic-bezier", strlen("cubic-bezier")) != 0) {
		return veil_message_fail(message, -EINVAL, "Unknown curve '%s': expected %s",
			veil_message_quote(shown, argv[0]), curves);
	}
	char text[128] = "";
	int taken = 0;
	while (taken < argc && taken < 4) {
		const char *word = argv[taken];
		if (strlen(text) + 1 + strlen(word) >= sizeof(text)) {
			break;
		}
		if (taken > 0) {
			strcat(text, " ");
		}
		strcat(text, word);
		taken++;
		if (strchr(word, ')') != NULL) {
			break;
		}
	}
	int ret = veil_ease_parse_bezier(text, ease);
	if (ret == -ERANGE) {
		return veil_message_fail(message, -EINVAL, "Invalid curve '%s': x1 and x2 must be "
			"from 0 to 1, y1 and y2 from -%d to %d", veil_message_quote(shown, text),
			(int)VEIL_EASE_MAX_Y, (int)VEIL_EASE_MAX_Y);
	}
	if (ret < 0) {
		return veil_message_fail(message, -EINVAL, "Invalid curve '%s': expected "
			"cubic-bezier(x1,y1,x2,y2) with four decimal numbers (in sway, quote it or put "
			"spaces for the commas)", veil_message_quote(shown, text));
	}
	return taken;
}

/*
 * The words after `transition`: a kind, then in any order a duration in milliseconds, `from
 * <side>` (wipe, slide), `at <x> <y>` (grow) and `ease <curve>` (any kind but none). Returns how
 * many words it took (all of them: argc), or a negative errno with *message set.
 */
int veil_words_parse_transition(int argc, char *argv[], struct veil_transition_spec *spec,
		char **message) {
	char shown[VEIL_QUOTE_SIZE];
	*spec = (struct veil_transition_spec){
		.at_x = { .value = 50, .percent = true },
		.at_y = { .value = 50, .percent = true },
	};
	if (argc < 1) {
		return veil_message_fail(message, -EINVAL, "transition needs a kind: %s", transition_usage);
	}
	static const struct {
		const char *name;
		enum veil_transition_kind kind;
	} kinds[] = {
		{ "fade", VEIL_TRANSITION_FADE },
		{ "wipe", VEIL_TRANSITION_WIPE },
		{ "grow", VEIL_TRANSITION_GROW },
		{ "slide", VEIL_TRANSITION_SLIDE },
		{ "random", VEIL_TRANSITION_RANDOM },
		{ "none", VEIL_TRANSITION_NONE },
	};
	bool known = false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !known; i++) {
		known = strcasecmp(argv[0], kinds[i].name) == 0;
		spec->kind = kinds[i].kind;
	}
	if (!known) {
		return veil_message_fail(message, -EINVAL,
			"Unknown transition '%s': expected fade, wipe, grow, "
			"slide, random or none", veil_message_quote(shown, argv[0]));
	}
	spec->ms = spec->kind == VEIL_TRANSITION_NONE ? 0 : VEIL_TRANSITION_DEFAULT_MS;
	spec->side = spec->kind == VEIL_TRANSITION_SLIDE ? VEIL_SIDE_RIGHT : VEIL_SIDE_LEFT;
	if (argc > 1 && spec->kind == VEIL_TRANSITION_NONE) {
		return veil_message_fail(message, -EINVAL,
			"Unexpected word '%s': `transition none` takes no "
			"duration or curve", veil_message_quote(shown, argv[1]));
	}
	bool has_ms = false, has_side = false, has_at = false, has_ease = false;
	bool sided = spec->kind == VEIL_TRANSITION_WIPE || spec->kind == VEIL_TRANSITION_SLIDE;
	for (int i = 1; i < argc; i++) {
		const char *word = argv[i];
		bool keyword = strcasecmp(word, "from") == 0 || strcasecmp(word, "at") == 0 ||
			strcasecmp(word, "ease") == 0;
		if (!has_ms && !keyword) {
			if (!veil_words_parse_ms(word, VEIL_TRANSITION_MAX_MS, &spec->ms)) {
				return veil_message_fail(message, -EINVAL, "Invalid transition duration '%s': "
					"expected milliseconds from 0 to %d", veil_message_quote(shown, word),
					VEIL_TRANSITION_MAX_MS);
			}
			has_ms = true;
		} else if (sided && !has_side && strcasecmp(word, "from") == 0) {
			bool found = false;
			for (size_t s = 0; i + 1 < argc && s < sizeof(side_names) /
					sizeof(side_names[0]) && !found; s++) {
				found = strcasecmp(argv[i + 1], side_names[s]) == 0;
				spec->side = (enum veil_side)s;
			}
			if (!found) {
				return veil_message_fail(message, -EINVAL,
					"%s from where? Expected `from <left|right|"
					"top|bottom>`", veil_transition_name(spec->kind));
			}
			has_side = true;
			spec->side_given = true;
			i++;
		} else if (spec->kind == VEIL_TRANSITION_GROW && !has_at &&
				strcasecmp(word, "at") == 0) {
			int taken = parse_at(argc - i - 1, argv + i + 1, spec);
			if (taken == 0) {
				return veil_message_fail(message, -EINVAL,
					"grow at where? Expected `at <x> <y>` in "
					"logical pixels or percent of the output (`at 10%% 90%%`)");
			}
			has_at = true;
			i += taken;
		} else if (!has_ease && strcasecmp(word, "ease") == 0) {
			int taken = parse_ease(argc - i - 1, argv + i + 1, &spec->ease, message);
			if (taken < 0) {
				return taken;
			}
			has_ease = true;
			i += taken;
		} else {
			return veil_message_fail(message, -EINVAL, "Unexpected word '%s' in the transition: %s",
				veil_message_quote(shown, word), transition_usage);
		}
	}
	return argc;
}
