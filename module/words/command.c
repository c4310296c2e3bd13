/*
 * `output <name> veil ...`: the words sway (or another compositor) has split and unquoted, read
 * the way sway's `output ... bg` reads its own.
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
#include "util/message.h"


static const char usage[] =
	"`veil <file> [mode] [#rrggbb] [dark <file|#rrggbb>] [span] [transition <fade|wipe|grow|"
	"slide|random|none> [<ms>] ...] [loopfade <ms>] [filter linear|nearest|smooth] "
	"[location <lat> <lon>]`";
static const char modes[] = "stretch, fill, fit, center, tile, integer or solid_color";

static const struct {
	const char *name;
	enum veil_command_kind kind;
} keywords[] = {
	{ "off", VEIL_COMMAND_OFF },
	{ "pause", VEIL_COMMAND_PAUSE },
	{ "resume", VEIL_COMMAND_RESUME },
	{ "next", VEIL_COMMAND_NEXT },
	{ "previous", VEIL_COMMAND_PREVIOUS },
};

static const char *find_control(const char *s) {
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			return s;
		}
	}
	return NULL;
}

/* ASCII only: isalpha() would follow the compositor's locale, and the shell does not. */
static bool is_name_start(char c) {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(char c) {
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * Whether a last word, given without a mode, is more likely a misspelt mode than the end of a
 * file name: wallpapers have extensions, modes are made of letters.
 */
static bool looks_like_mode(const char *word) {
	if (*word == '\0') {
		return false;
	}
	for (; *word != '\0'; word++) {
		if (*word != '-' && !is_name_start(*word)) {
			return false;
		}
	}
	return true;
}

/*
 * Joins words with single spaces, as sway's join_args does, but leaves out empty words: they add
 * nothing to a name, and glibc's wordexp() makes one of a leading '' or "" ("''a" gives "" and
 * "a"), which would otherwise become a stray space.
 */
static char *join(char *const words[], size_t count) {
	size_t size = 1;
	for (size_t i = 0; i < count; i++) {
		size += strlen(words[i]) + 1;
	}
	char *joined = calloc(1, size);
	if (joined == NULL) {
		return NULL;
	}
	char *end = joined;
	for (size_t i = 0; i < count; i++) {
		if (words[i][0] == '\0') {
			continue;
		}
		if (end != joined) {
			*end++ = ' ';
		}
		size_t len = strlen(words[i]);
		memcpy(end, words[i], len + 1);
		end += len;
	}
	return joined;
}

/*
 * Rewrites a file name for wordexp() so that ~, $NAME, ${NAME...}, quotes and backslashes keep
 * their shell meaning but everything else is literal. Outside quotes a backslash goes before:
 *  - spaces, so that a name given quoted ("my  file.png", one word) keeps its spaces;
 *  - ; & | < > ( ) { }, which wordexp() refuses (WRDE_BADCHAR) but which are harmless in a file
 *    name: nothing is ever run, so there is no reason to refuse "a;b.png";
 *  - * ? [ ], as a wallpaper is one file: globbing in the compositor's directory would surprise;
 *  - a $ that starts no variable name: $1, $$ or $@ would expand to the compositor's own argv
 *    and pid, which no file name means.
 * Also finds the first variable that is not set, as wordexp()'s WRDE_BADVAL does not name it.
 */
static int escape_name(const char *name, char **escaped, char **unset, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	const char *problem = NULL;
	char quote = '\0';

	/* At most one backslash is added per character. */
	char *out = malloc(2 * strlen(name) + 1);
	if (out == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	char *o = out;
	for (const char *p = name; *p != '\0'; p++) {
		if (quote == '\'') {
			quote = *p == '\'' ? '\0' : quote;
		} else if (*p == '\\') {
			if (p[1] == '\0') {
				problem = "ends in a backslash: write \\\\ for one that is part of the name";
				goto error;
			}
			*o++ = *p++;
		} else if (*p == '$') {
			bool braced = p[1] == '{';
			const char *var = p + 1 + braced;
			size_t len = 0;
			if (!is_name_start(*var)) {
				*o++ = '\\';
			} else {
				len = 1;
				while (is_name_char(var[len])) {
					len++;
				}
				char *var_name = *unset == NULL ? strndup(var, len) : NULL;
				if (var_name != NULL && getenv(var_name) == NULL) {
					*unset = var_name;
				} else {
					free(var_name);
				}
			}
			if (braced && is_name_start(*var)) {
				/* ${NAME...} goes to wordexp() whole, up to its '}'. */
				const char *end = strchr(var, '}');
				if (end == NULL) {
					problem = "has a ${ without its }";
					goto error;
				}
				/*
				 * But not ${NAME=word} or ${NAME:=word}: wordexp() would setenv() in
				 * the compositor, whose other threads read the environment; nor
				 * ${NAME?word} or ${NAME:?word}, whose word wordexp() prints on the
				 * compositor's stderr. Nor a $ in the word, which the rules above would
				 * not see ($$, $0, nested assignments).
				 */
				const char *op = var + len;
				if (op[0] == ':') {
					op++;
				}
				if (op[0] == '=') {
					problem = "assigns a variable (${NAME=...} or ${NAME:=...}): "
						"veil changes no environment, use ${NAME:-...}";
					goto error;
				}
				if (op[0] == '?') {
					problem = "has ${NAME?...} or ${NAME:?...}: use ${NAME} or "
						"${NAME:-...}";
					goto error;
				}
				if (memchr(op, '$', (size_t)(end - op)) != NULL) {
					problem = "has a $ inside ${...}: veil expands no nested "
						"variables";
					goto error;
				}
				memcpy(o, p, (size_t)(end - p));
				o += end - p;
				p = end;
			}
		} else if (quote == '"') {
			quote = *p == '"' ? '\0' : quote;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (strchr(" ;&|<>(){}*?[]", *p) != NULL) {
			*o++ = '\\';
		}
		*o++ = *p;
	}
	if (quote != '\0') {
		problem = quote == '"' ? "has a \" without its pair: write \\\" for one that is part of "
			"the name" : "has a ' without its pair: write \\' for one that is part of the name";
		goto error;
	}
	*o = '\0';
	*escaped = out;
	return 0;

error:
	free(out);
	return veil_message_fail(message, -EINVAL,
		"File name '%s' %s", veil_message_quote(shown, name), problem);
}

static int too_long(char **message, const char *name) {
	char shown[VEIL_QUOTE_SIZE];
	return veil_message_fail(message, -ENAMETOOLONG,
		"File name '%s' is too long: %zu bytes, at most %d",
		veil_message_quote(shown, name), strlen(name), PATH_MAX - 1);
}

/*
 * Expands ~ and $VAR in a file name with wordexp(), as sway's bg does, but with commands refused:
 * this runs inside the user's compositor. Relative names stay relative.
 */
static int expand_name(const char *name, char **path, char **message) {
	char shown[VEIL_QUOTE_SIZE], shown_var[VEIL_QUOTE_SIZE];
	char *escaped = NULL;
	char *unset = NULL;
	char *joined = NULL;
	wordexp_t words = {0};
	int ret;

	const char *control = find_control(name);
	if (control != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a control character (byte 0x%02x): "
			"rename the file", veil_message_quote(shown, name), (unsigned char)*control);
		goto out;
	}
	/*
	 * Refused up front, quoted or not. escape_name() would only make "$(...)" a literal name,
	 * never run it, but such a name is far likelier a mistake than a file: say so. WRDE_NOCMD
	 * stays as the guard that wordexp() itself runs nothing.
	 */
	if (strstr(name, "$(") != NULL || strchr(name, '`') != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a command substitution ($(...) or "
			"`...`): veil runs no commands, give the file name itself",
			veil_message_quote(shown, name));
		goto out;
	}
	/* Expansion may shorten a name, but not this much: spare wordexp() 64 KiB of words. */
	if (strlen(name) >= PATH_MAX) {
		ret = too_long(message, name);
		goto out;
	}
	ret = escape_name(name, &escaped, &unset, message);
	if (ret < 0) {
		goto out;
	}

	switch (wordexp(escaped, &words, WRDE_NOCMD | WRDE_UNDEF)) {
	case 0:
		break;
	case WRDE_NOSPACE:
		/* The only error after which the words given so far are to be freed. */
		wordfree(&words);
		ret = veil_message_fail(message, -ENOMEM, "Out of memory");
		goto out;
	case WRDE_BADVAL:
		if (unset != NULL) {
			ret = veil_message_fail(message, -EINVAL, "Variable '%s' in file name '%s' is not set",
				veil_message_quote(shown_var, unset), veil_message_quote(shown, name));
		} else {
			ret = veil_message_fail(message, -EINVAL,
				"File name '%s' uses a variable that is not set",
				veil_message_quote(shown, name));
		}
		goto out;
	case WRDE_CMDSUB:
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a command substitution: veil runs "
			"no commands", veil_message_quote(shown, name));
		goto out;
	default:
		ret = veil_message_fail(message, -EINVAL, "File name '%s' is not valid shell syntax",
			veil_message_quote(shown, name));
		goto out;
	}

	/* Only a variable's value is split into several words: join them back, as sway does. */
	joined = join(words.we_wordv, words.we_wordc);
	wordfree(&words);
	if (joined == NULL) {
		ret = veil_message_fail(message, -ENOMEM, "Out of memory");
		goto out;
	}
	if (joined[0] == '\0') {
		ret = veil_message_fail(message, -EINVAL, "File name '%s' is empty once expanded",
			veil_message_quote(shown, name));
		goto out;
	}
	control = find_control(joined);
	if (control != NULL) {
		ret = veil_message_fail(message, -EINVAL,
			"File name '%s' has a control character (byte 0x%02x) "
			"once expanded", veil_message_quote(shown, name), (unsigned char)*control);
		goto out;
	}
	if (strlen(joined) >= PATH_MAX) {
		ret = too_long(message, joined);
		goto out;
	}
	*path = joined;
	joined = NULL;
	ret = 0;

out:
	free(joined);
	free(unset);
	free(escaped);
	return ret;
}

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
static bool parse_ms(const char *word, int max, int *out) {
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
	return parse_ms(word, INT_MAX / 10, &ms) || strcasecmp(word, "from") == 0 ||
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
static int parse_transition(int argc, char *argv[], struct veil_transition_spec *spec,
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
			if (!parse_ms(word, VEIL_TRANSITION_MAX_MS, &spec->ms)) {
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

/* `loopfade <ms>`: the fade at a video's loop seam. */
static int parse_loopfade(const char *word, int *ms, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (!parse_ms(word, VEIL_LOOPFADE_MAX_MS, ms)) {
		return veil_message_fail(message, -EINVAL,
			"Invalid loopfade duration '%s': expected milliseconds "
			"from 0 to %d", veil_message_quote(shown, word), VEIL_LOOPFADE_MAX_MS);
	}
	return 0;
}

/* `filter linear|nearest|smooth`: how the worker shrinks a still, how the renderer scales. */
static int parse_filter(const char *word, enum veil_image_filter *filter, char **message) {
	if (strcasecmp(word, "linear") == 0) {
		*filter = VEIL_IMAGE_FILTER_LINEAR;
		return 0;
	}
	if (strcasecmp(word, "nearest") == 0) {
		*filter = VEIL_IMAGE_FILTER_NEAREST;
		return 0;
	}
	if (strcasecmp(word, "smooth") == 0) {
		*filter = VEIL_IMAGE_FILTER_SMOOTH;
		return 0;
	}
	char shown[VEIL_QUOTE_SIZE];
	return veil_message_fail(message, -EINVAL,
		"Invalid filter '%s': expected linear, nearest or smooth",
		veil_message_quote(shown, word));
}

/* One of `location <lat> <lon>`'s degrees: a decimal number from -limit to limit. */
static bool parse_degrees(const char *word, double limit, double *value) {
	char *end;
	errno = 0;
	double v = strtod(word, &end);
	if (word[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < -limit ||
			v > limit) {
		return false;
	}
	*value = v;
	return true;
}

/* `location <lat> <lon>`: the place an Apple solar wallpaper follows the sun of. */
static int parse_location(const char *lat, const char *lon, struct veil_command *parsed,
		char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (!parse_degrees(lat, 90.0, &parsed->latitude)) {
		return veil_message_fail(message, -EINVAL, "Invalid location latitude '%s': expected "
			"degrees from -90 (south) to 90 (north)", veil_message_quote(shown, lat));
	}
	if (!parse_degrees(lon, 180.0, &parsed->longitude)) {
		return veil_message_fail(message, -EINVAL, "Invalid location longitude '%s': "
			"expected degrees from -180 (west) to 180 (east)",
			veil_message_quote(shown, lon));
	}
	parsed->has_location = true;
	return 0;
}

/*
 * The options that end a SET, in any order: `location <lat> <lon>` (the last three words),
 * `filter linear|nearest|smooth` and `loopfade <ms>` (each the last two words) and
 * `transition <kind> ...` (the last `transition` word among the last eleven: a file name may
 * have the word in it elsewhere). Shortens *argc to the words before them.
 */
static int parse_tail(int *argc, char *argv[], struct veil_command *parsed, char **message) {
	bool has_loopfade = false, has_filter = false;
	for (int round = 0; round < 4; round++) {
		int n = *argc;
		if (!parsed->has_location && n >= 5 && strcasecmp(argv[n - 3], "location") == 0) {
			int ret = parse_location(argv[n - 2], argv[n - 1], parsed, message);
			if (ret < 0) {
				return ret;
			}
			*argc = n - 3;
			continue;
		}
		if (!has_filter && n >= 4 && strcasecmp(argv[n - 2], "filter") == 0) {
			int ret = parse_filter(argv[n - 1], &parsed->filter, message);
			if (ret < 0) {
				return ret;
			}
			has_filter = true;
			*argc = n - 2;
			continue;
		}
		if (!has_loopfade && n >= 4 && strcasecmp(argv[n - 2], "loopfade") == 0) {
			int ret = parse_loopfade(argv[n - 1], &parsed->loopfade_ms, message);
			if (ret < 0) {
				return ret;
			}
			has_loopfade = true;
			*argc = n - 2;
			continue;
		}
		if (parsed->has_transition) {
			break;
		}
		for (int k = n - 1; k >= 2 && k >= n - 11; k--) {
			if (strcasecmp(argv[k], "transition") != 0) {
				continue;
			}
			int ret = parse_transition(n - k - 1, argv + k + 1, &parsed->transition,
				message);
			if (ret < 0) {
				return ret;
			}
			parsed->has_transition = true;
			*argc = k;
			break;
		}
	}
	return 0;
}

/*
 * `span` as the last word, before or after the transition words: one picture across the outputs
 * that use the setting. A lone word after `veil` stays a file name (a file called "span").
 * Takes it off the words and returns whether it was there.
 */
static bool take_span(int *argc, char *argv[]) {
	if (*argc < 3 || strcasecmp(argv[*argc - 1], "span") != 0) {
		return false;
	}
	(*argc)--;
	return true;
}

/*
 * `dark <file|#rrggbb>` after the file (or colour), its mode and colour: what the dark scheme
 * shows (the last `dark` word from the third on; the words after it, up to the options, are its
 * name, as a file's are, or one colour). Takes the words off *argc and returns the index of the
 * name's first word, 0 when there is no `dark`, or a negative errno.
 */
static int take_dark(int *argc, char *argv[], char **message) {
	int k = *argc - 1;
	while (k >= 2 && strcasecmp(argv[k], "dark") != 0) {
		k--;
	}
	if (k < 2) {
		return 0;
	}
	if (k == *argc - 1) {
		return veil_message_fail(message, -EINVAL, "dark needs a file or a colour: `veil "
			"<file> [mode] dark <file for the dark scheme|#rrggbb>`");
	}
	int first = k + 1;
	*argc = k;
	return first;
}

/* `veil scheme light|dark`. */
static int parse_scheme(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc > 3) {
		return veil_message_fail(message, -EINVAL, "Unexpected word '%s': use `veil scheme "
			"light|dark`", veil_message_quote(shown, argv[3]));
	}
	if (argc != 3 || (strcasecmp(argv[2], "light") != 0 && strcasecmp(argv[2], "dark") != 0)) {
		return veil_message_fail(message, -EINVAL, "Unknown scheme%s%s%s: use `veil scheme "
			"light|dark`", argc >= 3 ? " '" : "", argc >= 3 ?
			veil_message_quote(shown, argv[2]) : "", argc >= 3 ? "'" : "");
	}
	cmd->kind = VEIL_COMMAND_SCHEME;
	cmd->dark = strcasecmp(argv[2], "dark") == 0;
	return 0;
}

/* A directory's words (module/words/slideshow_words.c), before the mode and the colour. */
static int parse_slideshow(int *argc, char *argv[], struct veil_command *parsed,
		char **message) {
	return veil_slideshow_words_parse(argc, argv, &parsed->slideshow, &parsed->has_slideshow,
		message);
}

/* `veil restore [FALLBACK...]`: the fallback's words are those of any SET. */
static int parse_restore(int argc, char *argv[], struct veil_command *cmd, char **message) {
	cmd->kind = VEIL_COMMAND_RESTORE;
	if (argc == 2) {
		return 0;
	}
	struct veil_command *fallback = calloc(1, sizeof(*fallback));
	char **words = calloc((size_t)argc, sizeof(*words));
	if (fallback == NULL || words == NULL) {
		free(fallback);
		free(words);
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	words[0] = "veil";
	memcpy(words + 1, argv + 2, (size_t)(argc - 2) * sizeof(*words));
	int ret = veil_command_parse(argc - 1, words, fallback, message);
	free(words);
	if (ret == 0 && (fallback->kind != VEIL_COMMAND_SET || fallback->workspace != NULL)) {
		veil_command_finish(fallback);
		ret = veil_message_fail(message, -EINVAL, "restore's fallback is a file or a colour "
			"with its words: `veil restore <file> [mode] ...`");
	}
	if (ret < 0) {
		free(fallback);
		return ret;
	}
	cmd->fallback = fallback;
	return 0;
}

/*
 * `veil workspace <ws> <words>`: the words of a SET or an OFF, for one workspace. The name is
 * the compositor's, any bytes but control characters.
 */
static int parse_workspace(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	static const char use[] = "`veil workspace <name> <file|#rrggbb solid_color|off> ...`";
	if (argc < 4) {
		return veil_message_fail(message, -EINVAL, "Missing %s: use %s",
			argc < 3 ? "workspace name" : "wallpaper", use);
	}
	const char *name = argv[2];
	if (name[0] == '\0' || strlen(name) > VEIL_WORKSPACE_NAME_MAX) {
		return veil_message_fail(message, -EINVAL, "Invalid workspace name '%s': expected 1 "
			"to %d bytes", veil_message_quote(shown, name), VEIL_WORKSPACE_NAME_MAX);
	}
	if (find_control(name) != NULL) {
		return veil_message_fail(message, -EINVAL, "Invalid workspace name '%s': it has a "
			"control character", veil_message_quote(shown, name));
	}
	char *workspace = strdup(name);
	char **words = calloc((size_t)argc - 2, sizeof(*words));
	if (workspace == NULL || words == NULL) {
		free(workspace);
		free(words);
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	words[0] = argv[0];
	memcpy(words + 1, argv + 3, (size_t)(argc - 3) * sizeof(*words));
	int ret = veil_command_parse(argc - 2, words, cmd, message);
	free(words);
	if (ret == 0 && ((cmd->kind != VEIL_COMMAND_SET && cmd->kind != VEIL_COMMAND_OFF) ||
			cmd->workspace != NULL)) {
		veil_command_finish(cmd);
		ret = veil_message_fail(message, -EINVAL, "Workspace '%s' takes a wallpaper or off: "
			"use %s", veil_message_quote(shown, name), use);
	}
	if (ret < 0) {
		free(workspace);
		return ret;
	}
	cmd->workspace = workspace;
	return 0;
}

int veil_command_parse(int argc, char *argv[], struct veil_command *cmd, char **message) {
	struct veil_command parsed = { .kind = VEIL_COMMAND_SET, .mode = VEIL_MODE_FILL };
	char shown[VEIL_QUOTE_SIZE];
	char *name = NULL;
	int ret;

	*cmd = parsed;
	if (message != NULL) {
		*message = NULL;
	}
	if (argc < 1 || argv == NULL || argv[0] == NULL || strcasecmp(argv[0], "veil") != 0) {
		return veil_message_fail(message, -EINVAL, "Not a veil command: use %s", usage);
	}
	for (int i = 1; i < argc; i++) {
		if (argv[i] == NULL) {
			return veil_message_fail(message, -EINVAL, "Word %d of the veil command is missing", i);
		}
	}
	if (argc < 2) {
		return veil_message_fail(message, -EINVAL, "Missing file name: use %s", usage);
	}

	if (strcasecmp(argv[1], "fps") == 0 || strcasecmp(argv[1], "battery") == 0) {
		return veil_policy_words_parse(argc - 1, argv + 1, cmd, message);
	}
	if (strcasecmp(argv[1], "restore") == 0) {
		return parse_restore(argc, argv, cmd, message);
	}
	if (strcasecmp(argv[1], "workspace") == 0) {
		return parse_workspace(argc, argv, cmd, message);
	}
	if (strcasecmp(argv[1], "transition") == 0) {
		struct veil_transition_spec spec;
		ret = parse_transition(argc - 2, argv + 2, &spec, message);
		if (ret >= 0) {
			ret = 0;
			cmd->kind = VEIL_COMMAND_TRANSITION;
			cmd->has_transition = true;
			cmd->transition = spec;
		}
		return ret;
	}
	if (strcasecmp(argv[1], "scheme") == 0) {
		return parse_scheme(argc, argv, cmd, message);
	}
	parsed.span = take_span(&argc, argv);
	ret = parse_tail(&argc, argv, &parsed, message);
	if (ret < 0) {
		return ret;
	}
	if (!parsed.span) {
		parsed.span = take_span(&argc, argv);
	}
	int n_words = argc;
	int dark_first = take_dark(&argc, argv, message);
	if (dark_first < 0) {
		return dark_first;
	}
	int dark_words = dark_first > 0 ? n_words - dark_first : 0;
	if (dark_words == 1 && argv[dark_first][0] == '#') {
		/* `dark #rrggbb`: a colour alone. A file named so is given as ./#name. */
		if (!veil_color_parse(argv[dark_first], &parsed.dark_color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s' after dark: "
				"expected #rrggbb", veil_message_quote(shown, argv[dark_first]));
		}
		parsed.has_dark_color = true;
		dark_words = 0;
	}

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (strcasecmp(argv[1], keywords[i].name) == 0) {
			if (argc > 2 || parsed.has_transition || parsed.loopfade_ms > 0 || parsed.span ||
					parsed.has_location || dark_first > 0) {
				return veil_message_fail(message, -EINVAL, "`veil %s` takes no arguments",
					keywords[i].name);
			}
			cmd->kind = keywords[i].kind;
			return 0;
		}
	}
	ret = parse_slideshow(&argc, argv, &parsed, message);
	if (ret == 0 && parsed.has_slideshow && dark_first > 0) {
		ret = veil_message_fail(message, -EINVAL, "dark names one picture: not for a "
			"slideshow (every, order, recursive)");
	}
	if (ret < 0) {
		return ret;
	}

	/*
	 * As with sway's bg, the words before the mode word are the file name: sway's quoting has
	 * already split "my file.png" into two words unless it was quoted. A #rrggbb word after
	 * the first also ends the name, so that the mode can be left out. A file whose name has
	 * such words in it is given quoted.
	 */
	int end = 1;
	bool has_mode = false;
	enum veil_mode mode = VEIL_MODE_FILL;
	for (; end < argc; end++) {
		if (veil_mode_from_name(argv[end], &mode)) {
			has_mode = true;
			break;
		}
		if (end > 1 && argv[end][0] == '#' && veil_color_parse(argv[end], NULL)) {
			break;
		}
	}

	if (has_mode && mode == VEIL_MODE_SOLID_COLOR) {
		if (dark_words > 0) {
			return veil_message_fail(message, -EINVAL, "dark of a colour is a colour: "
				"`veil #rrggbb solid_color dark #rrggbb`");
		}
		if (end != 2) {
			return veil_message_fail(message, -EINVAL, "solid_color needs a colour: "
				"`veil #rrggbb solid_color`");
		}
		if (!veil_color_parse(argv[1], &parsed.color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s': expected #rrggbb",
				veil_message_quote(shown, argv[1]));
		}
		if (argc > 3) {
			return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after solid_color",
				veil_message_quote(shown, argv[3]));
		}
		parsed.mode = mode;
		*cmd = parsed;
		return 0;
	}
	if (end == 1) {
		return veil_message_fail(message, -EINVAL, "Missing file name: use %s", usage);
	}

	const char *last = argv[argc - 1];
	if (!has_mode && end == argc && argc == 2 && last[0] == '#' &&
			veil_color_parse(last, NULL)) {
		return veil_message_fail(message, -EINVAL,
			"Missing file name: use %s, or `veil %s solid_color` "
			"for a plain colour", usage, last);
	}
	if (!has_mode && end == argc && argc > 2) {
		/* A name in several words, no mode and no colour: check its last word was meant so. */
		if (last[0] == '#') {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s': expected #rrggbb",
				veil_message_quote(shown, last));
		}
		if (looks_like_mode(last)) {
			return veil_message_fail(message, -EINVAL,
				"Unknown mode '%s': expected %s (if '%s' is part "
				"of the file name, add the mode: `veil <file> fill`)",
				veil_message_quote(shown, last), modes, shown);
		}
	}

	int next = end;
	if (has_mode) {
		parsed.mode = mode;
		parsed.has_mode = true;
		next++;
	}
	if (next < argc) {
		parsed.has_color = true;
		if (!veil_color_parse(argv[next], &parsed.color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s': expected #rrggbb",
				veil_message_quote(shown, argv[next]));
		}
		next++;
	}
	if (next < argc) {
		return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after the colour",
			veil_message_quote(shown, argv[next]));
	}

	name = join(argv + 1, (size_t)(end - 1));
	if (name == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	if (name[0] == '\0') {
		ret = veil_message_fail(message, -EINVAL, "Missing file name: use %s", usage);
		goto out;
	}
	ret = expand_name(name, &parsed.path, message);
	if (ret < 0) {
		goto out;
	}
	if (dark_words > 0) {
		free(name);
		name = join(argv + dark_first, (size_t)dark_words);
		ret = name != NULL ? expand_name(name, &parsed.dark_path, message) :
			veil_message_fail(message, -ENOMEM, "Out of memory");
		if (ret < 0) {
			free(parsed.path);
			goto out;
		}
	}
	*cmd = parsed;

out:
	free(name);
	return ret;
}

void veil_command_finish(struct veil_command *cmd) {
	if (cmd == NULL) {
		return;
	}
	free(cmd->path);
	cmd->path = NULL;
	free(cmd->dark_path);
	cmd->dark_path = NULL;
	free(cmd->workspace);
	cmd->workspace = NULL;
	if (cmd->fallback != NULL) {
		veil_command_finish(cmd->fallback);
		free(cmd->fallback);
		cmd->fallback = NULL;
	}
}


