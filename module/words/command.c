
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
#include "module/words/words.h"
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

/*
 * Whether a last word, given without a mode, is more likely a misspelt mode than the end of a
 * file name: wallpapers have extensions, modes are made of letters.
 */
static bool looks_like_mode(const char *word) {
	if (*word == '\0') {
		return false;
	}
	for (; *word != '\0'; word++) {
		if (*word != '-' && !veil_words_is_name_start(*word)) {
			return false;
		}
	}
	return true;
}

/* `loopfade <ms>`: the fade at a video's loop seam. */
static int parse_loopfade(const char *word, int *ms, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (!veil_words_parse_ms(word, VEIL_LOOPFADE_MAX_MS, ms)) {
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
	if (!parse_degrees(lat, 90.0, &parsed->look.latitude)) {
		return veil_message_fail(message, -EINVAL, "Invalid location latitude '%s': expected "
			"degrees from -90 (south) to 90 (north)", veil_message_quote(shown, lat));
	}
	if (!parse_degrees(lon, 180.0, &parsed->look.longitude)) {
		return veil_message_fail(message, -EINVAL, "Invalid location longitude '%s': "
			"expected degrees from -180 (west) to 180 (east)",
			veil_message_quote(shown, lon));
	}
	parsed->look.has_location = true;
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
		if (!parsed->look.has_location && n >= 5 && strcasecmp(argv[n - 3], "location") == 0) {
			int ret = parse_location(argv[n - 2], argv[n - 1], parsed, message);
			if (ret < 0) {
				return ret;
			}
			*argc = n - 3;
			continue;
		}
		if (!has_filter && n >= 4 && strcasecmp(argv[n - 2], "filter") == 0) {
			int ret = parse_filter(argv[n - 1], &parsed->look.filter, message);
			if (ret < 0) {
				return ret;
			}
			has_filter = true;
			*argc = n - 2;
			continue;
		}
		if (!has_loopfade && n >= 4 && strcasecmp(argv[n - 2], "loopfade") == 0) {
			int ret = parse_loopfade(argv[n - 1], &parsed->look.loopfade_ms, message);
			if (ret < 0) {
				return ret;
			}
			has_loopfade = true;
			*argc = n - 2;
			continue;
		}
		if (parsed->look.has_transition) {
			break;
		}
		for (int k = n - 1; k >= 2 && k >= n - 11; k--) {
			if (strcasecmp(argv[k], "transition") != 0) {
				continue;
			}
			int ret = veil_words_parse_transition(n - k - 1, argv + k + 1, &parsed->look.transition,
				message);
			if (ret < 0) {
				return ret;
			}
			parsed->look.has_transition = true;
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
	if (veil_words_find_control(name) != NULL) {
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
	struct veil_command parsed = { .kind = VEIL_COMMAND_SET, .look.mode = VEIL_MODE_FILL };
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
	if (strcasecmp(argv[1], "xray") == 0 || strcasecmp(argv[1], "blur") == 0) {
		return veil_xray_words_parse(argc - 1, argv + 1, cmd, message);
	}
	if (strcasecmp(argv[1], "restore") == 0) {
		return parse_restore(argc, argv, cmd, message);
	}
	if (strcasecmp(argv[1], "workspace") == 0) {
		return parse_workspace(argc, argv, cmd, message);
	}
	if (strcasecmp(argv[1], "transition") == 0) {
		struct veil_transition_spec spec;
		ret = veil_words_parse_transition(argc - 2, argv + 2, &spec, message);
		if (ret >= 0) {
			ret = 0;
			cmd->kind = VEIL_COMMAND_TRANSITION;
			cmd->look.has_transition = true;
			cmd->look.transition = spec;
		}
		return ret;
	}
	if (strcasecmp(argv[1], "scheme") == 0) {
		return parse_scheme(argc, argv, cmd, message);
	}
	parsed.look.span = take_span(&argc, argv);
	ret = parse_tail(&argc, argv, &parsed, message);
	if (ret < 0) {
		return ret;
	}
	if (!parsed.look.span) {
		parsed.look.span = take_span(&argc, argv);
	}
	int n_words = argc;
	int dark_first = take_dark(&argc, argv, message);
	if (dark_first < 0) {
		return dark_first;
	}
	int dark_words = dark_first > 0 ? n_words - dark_first : 0;
	if (dark_words == 1 && argv[dark_first][0] == '#') {
		/* `dark #rrggbb`: a colour alone. A file named so is given as ./#name. */
		if (!veil_color_parse(argv[dark_first], &parsed.look.dark_color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s' after dark: "
				"expected #rrggbb", veil_message_quote(shown, argv[dark_first]));
		}
		parsed.look.has_dark_color = true;
		dark_words = 0;
	}

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (strcasecmp(argv[1], keywords[i].name) == 0) {
			if (argc > 2 || parsed.look.has_transition || parsed.look.loopfade_ms > 0 ||
					parsed.look.span || parsed.look.has_location || dark_first > 0) {
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
		if (!veil_color_parse(argv[1], &parsed.look.color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s': expected #rrggbb",
				veil_message_quote(shown, argv[1]));
		}
		if (argc > 3) {
			return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after solid_color",
				veil_message_quote(shown, argv[3]));
		}
		parsed.look.mode = mode;
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
		parsed.look.mode = mode;
		parsed.look.has_mode = true;
		next++;
	}
	if (next < argc) {
		parsed.look.has_color = true;
		if (!veil_color_parse(argv[next], &parsed.look.color)) {
			return veil_message_fail(message, -EINVAL, "Invalid colour '%s': expected #rrggbb",
				veil_message_quote(shown, argv[next]));
		}
		next++;
	}
	if (next < argc) {
		return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after the colour",
			veil_message_quote(shown, argv[next]));
	}

	name = veil_words_join(argv + 1, (size_t)(end - 1));
	if (name == NULL) {
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	if (name[0] == '\0') {
		ret = veil_message_fail(message, -EINVAL, "Missing file name: use %s", usage);
		goto out;
	}
	ret = veil_words_expand_name(name, &parsed.path, message);
	if (ret < 0) {
		goto out;
	}
	if (dark_words > 0) {
		free(name);
		name = veil_words_join(argv + dark_first, (size_t)dark_words);
		ret = name != NULL ? veil_words_expand_name(name, &parsed.look.dark_path, message) :
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
	veil_look_finish(&cmd->look);
	free(cmd->workspace);
	cmd->workspace = NULL;
	if (cmd->fallback != NULL) {
		veil_command_finish(cmd->fallback);
		free(cmd->fallback);
		cmd->fallback = NULL;
	}
}
