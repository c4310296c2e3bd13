/* veilctl's command line, its words checked by veil's own parser before anything is sent. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "clients/veilctl/veilctl.h"
#include "module/words/command.h"
#include "veil-config.h"

static const char usage[] =
	"Usage:\n"
	"  veilctl set [-o NAME] [-W WORKSPACE] FILE [MODE] [#rrggbb] [OPTION...]\n"
	"                                                show an image, a video or a directory\n"
	"  veilctl set [-o NAME] #rrggbb solid_color     show a colour\n"
	"  veilctl off [-o NAME]                         show no wallpaper\n"
	"  veilctl pause [-o NAME]                       stop videos where they are\n"
	"  veilctl resume [-o NAME]                      play them on\n"
	"  veilctl status [-o NAME] [--json] [--watch]   what each output shows\n"
	"  veilctl watch [-o NAME] [--json] [--current] [--exec CMD]\n"
	"                                                a line per change of what an output\n"
	"                                                shows (--current: and what it shows\n"
	"                                                now); CMD runs once per line, one at a\n"
	"                                                time, with VEIL_OUTPUT, VEIL_FILE,\n"
	"                                                VEIL_KIND and VEIL_EVENT set\n"
	"  veilctl snapshot [-o NAME] [--size WxH] FILE.png\n"
	"                                                the picture an output's wallpaper\n"
	"                                                shows (a video's current frame) as a\n"
	"                                                PNG, scaled down to fit WxH\n"
	"  veilctl [-o NAME] WORD...                     any other command of the compositor's\n"
	"                                                `output NAME veil WORD...`, such as\n"
	"                                                next, previous, transition fade 300\n"
	"                                                or scheme dark (the dark pictures)\n"
	"\n"
	"With -W WORKSPACE, set and off are for that workspace of the outputs (off ends its\n"
	"setting: the output's own shows there again).\n"
	"Without -o, a command is for every output (those without a setting of their own).\n"
	"FILE - reads the file open on standard input. MODE is stretch, fill (the default),\n"
	"fit, center, tile, integer or solid_color; the colour fills the bars of fit, center\n"
	"and integer.\n"
	"OPTIONs are the words that follow them in the compositor's own command\n"
	"`output NAME veil FILE ...`, such as transition fade 300.\n"
	"\n"
	"Exit status: 0 done, 1 usage or connection problem, 2 the compositor refused.\n";


static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void usage_error(const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	fputs("veilctl: ", stderr);
	vfprintf(stderr, fmt, args);
	fputs("\nRun `veilctl --help` for the commands.\n", stderr);
	va_end(args);
	exit(EXIT_USAGE);
}

static bool parse_action(const char *word, enum action *action) {
	static const struct {
		const char *name;
		enum action action;
	} actions[] = {
		{ "set", ACTION_SET },
		{ "off", ACTION_OFF },
		{ "pause", ACTION_PAUSE },
		{ "resume", ACTION_RESUME },
		{ "status", ACTION_STATUS },
		{ "watch", ACTION_WATCH },
		{ "snapshot", ACTION_SNAPSHOT },
	};
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (strcmp(word, actions[i].name) == 0) {
			*action = actions[i].action;
			return true;
		}
	}
	return false;
}

static void parse_set(struct options *opts, char **words, int n) {
	if (n == 0) {
		usage_error("set needs a file: veilctl set [-o NAME] FILE [MODE] [#rrggbb]");
	}
	opts->mode = VEIL_MODE_FILL;
	opts->words = words + 1;
	opts->n_words = n - 1;
	int i = 1;
	if (i < n && veil_mode_from_name(words[i], &opts->mode)) {
		i++;
	}
	/* A colour right after the file is the bars' colour: the mode stays fill. */
	if (i < n && words[i][0] == '#') {
		if (!veil_color_parse(words[i], &opts->color)) {
			usage_error("'%s' is not a colour: use #rrggbb, such as #203040", words[i]);
		}
		i++;
	}
	opts->has_options = i < n;

	if (opts->mode == VEIL_MODE_SOLID_COLOR) {
		if (n == 3 || opts->has_options || !veil_color_parse(words[0], &opts->color)) {
			usage_error("solid_color shows a colour, not a file: veilctl set '#203040' "
				"solid_color");
		}
		opts->color_word = words[0];
		return;
	}
	/* The compositor reads the rest as it reads its own command: so does veilctl, first. */
	struct veil_command cmd;
	char *message = NULL;
	if (veil_command_parse_media(n - 1, words + 1, &cmd, &message) < 0) {
		usage_error("%s", message != NULL ? message : "out of memory");
	}
	veil_command_finish(&cmd);
	opts->file = words[0];
}

/* A command of the compositor's that names no file, checked by the compositor's own parser. */
static void parse_words(struct options *opts, char **words, int n) {
	if (opts->json || opts->watch || opts->exec != NULL || opts->current) {
		usage_error("--json and --watch go with status, --exec with watch");
	}
	char **argv = calloc((size_t)n + 1, sizeof(*argv));
	if (argv == NULL) {
		veilctl_die_oom();
	}
	argv[0] = "veil";
	memcpy(argv + 1, words, (size_t)n * sizeof(*argv));
	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(n + 1, argv, &cmd, &message);
	free(argv);
	if (ret == 0 && cmd.fallback != NULL && cmd.fallback->path != NULL) {
		usage_error("restore's fallback goes through the compositor's own configuration: "
			"veilctl restore takes no file");
	}
	if (ret == 0 && cmd.path != NULL) {
		usage_error("'%s' is not a command: use set, off, pause, resume, status, or a word "
			"of the compositor's veil command such as next, previous or transition",
			words[0]);
	}
	if (ret < 0) {
		usage_error("%s", message != NULL ? message : "out of memory");
	}
	veil_command_finish(&cmd);
	opts->action = ACTION_WORDS;
	opts->words = words;
	opts->n_words = n;
}

/* A side of --size: 1 to 16384 (veil's largest picture). */
static bool parse_side(const char *str, char **end, uint32_t *side) {
	if (*str < '0' || *str > '9') {
		return false;
	}
	errno = 0;
	unsigned long value = strtoul(str, end, 10);
	if (errno != 0 || value < 1 || value > 16384) {
		return false;
	}
	*side = (uint32_t)value;
	return true;
}

/* The file a snapshot goes to: a file in a directory that exists, not a directory. */
static void parse_snapshot(struct options *opts, char **words, int n) {
	if (n != 1) {
		usage_error(n == 0 ? "snapshot needs a file to write: veilctl snapshot [-o NAME] "
			"[--size WxH] FILE.png" : "snapshot writes one file: '%s' is one word too many",
			n > 1 ? words[1] : "");
	}
	if (opts->size_word != NULL) {
		char *end;
		if (!parse_side(opts->size_word, &end, &opts->max_width) || *end != 'x' ||
				!parse_side(end + 1, &end, &opts->max_height) || *end != '\0') {
			usage_error("--size '%s' is not WIDTHxHEIGHT with each side from 1 to 16384, "
				"such as --size 640x360", opts->size_word);
		}
	}
	const char *file = words[0];
	struct stat st;
	if (strcmp(file, "-") == 0 || file[0] == '\0') {
		usage_error("snapshot writes a file: name it, such as wall.png");
	}
	if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
		usage_error("'%s' is a directory: name the file to write, such as %s/wall.png", file,
			file);
	}
	const char *slash = strrchr(file, '/');
	char *dir = slash == NULL ? veilctl_strdup(".") : slash == file ? veilctl_strdup("/") :
		strndup(file, (size_t)(slash - file));
	if (dir == NULL) {
		veilctl_die_oom();
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "veilctl: cannot write '%s': the directory '%s' %s\n", file, dir,
			errno == ENOENT ? "does not exist" : "is not a directory");
		free(dir);
		exit(EXIT_USAGE);
	}
	free(dir);
	opts->file = file;
}

void veilctl_args_parse(int argc, char *argv[], struct options *opts) {
	if (argc < 2) {
		fputs(usage, stderr);
		exit(EXIT_USAGE);
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		exit(EXIT_SUCCESS);
	}
	if (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("veilctl (veil) %s\n", VEIL_VERSION);
		exit(EXIT_SUCCESS);
	}
	/* Options may come anywhere after the command; "--" ends them, "-" is a file. */
	char **words = calloc((size_t)argc, sizeof(*words));
	if (words == NULL) {
		veilctl_die_oom();
	}
	opts->storage = words;
	int n = 0;
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
			words[n++] = argv[i];
		} else if (strcmp(arg, "--") == 0) {
			options_done = true;
		} else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
			if (i + 1 >= argc) {
				usage_error("%s needs an output name, such as -o HDMI-A-1", arg);
			}
			opts->output = argv[++i];
		} else if (strncmp(arg, "--output=", 9) == 0) {
			opts->output = arg + 9;
		} else if (strncmp(arg, "-o", 2) == 0) {
			opts->output = arg + 2;
		} else if (strcmp(arg, "-W") == 0 || strcmp(arg, "--workspace") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				usage_error("%s needs a workspace's name, such as -W 2", arg);
			}
			opts->workspace = argv[++i];
		} else if (strncmp(arg, "--workspace=", 12) == 0 && arg[12] != '\0') {
			opts->workspace = arg + 12;
		} else if (strcmp(arg, "--json") == 0 || strcmp(arg, "-r") == 0) {
			opts->json = true;
		} else if (strcmp(arg, "--watch") == 0 || strcmp(arg, "-w") == 0) {
			opts->watch = true;
		} else if (strcmp(arg, "--current") == 0) {
			opts->current = true;
		} else if (strcmp(arg, "--exec") == 0 || strcmp(arg, "-e") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				usage_error("%s needs a command, such as --exec 'notify-send \"$VEIL_FILE\"'",
					arg);
			}
			opts->exec = argv[++i];
		} else if (strcmp(arg, "--size") == 0) {
			if (i + 1 >= argc) {
				usage_error("--size needs a width and a height, such as --size 640x360");
			}
			opts->size_word = argv[++i];
		} else if (strncmp(arg, "--size=", 7) == 0) {
			opts->size_word = arg + 7;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage, stdout);
			exit(EXIT_SUCCESS);
		} else {
			usage_error("unknown option '%s' (a file that starts with '-' goes after --)",
				arg);
		}
	}
	if (opts->output != NULL && opts->output[0] == '\0') {
		usage_error("the output name is empty: leave -o out for every output");
	}
	if (n == 0) {
		usage_error("a command is missing: set, off, pause, resume, status, or a word of "
			"the compositor's veil command such as next");
	}
	/* Any word but veilctl's own commands goes to the compositor, which knows its words. */
	if (!parse_action(words[0], &opts->action)) {
		parse_words(opts, words, n);
		return;
	}
	const char *command = words[0];
	n--;
	memmove(words, words + 1, (size_t)n * sizeof(*words));
	if (opts->json && opts->action != ACTION_STATUS && opts->action != ACTION_WATCH) {
		usage_error("--json goes with status and watch");
	}
	if (opts->watch && opts->action != ACTION_STATUS) {
		usage_error("--watch goes with status (watch is a command of its own)");
	}
	if ((opts->exec != NULL || opts->current) && opts->action != ACTION_WATCH) {
		usage_error("--exec and --current go with watch: veilctl watch --exec CMD");
	}
	if (opts->size_word != NULL && opts->action != ACTION_SNAPSHOT) {
		usage_error("--size goes with snapshot: veilctl snapshot --size 640x360 FILE.png");
	}
	if (opts->workspace != NULL && opts->action != ACTION_SET && opts->action != ACTION_OFF) {
		usage_error("-W goes with set and off: a workspace has a wallpaper, not a state");
	}
	if (opts->action == ACTION_SET) {
		parse_set(opts, words, n);
	} else if (opts->action == ACTION_SNAPSHOT) {
		parse_snapshot(opts, words, n);
	} else if (n > 0) {
		usage_error("'%s' is one word too many: %s takes only -o NAME%s", words[0],
			command, opts->action == ACTION_STATUS ? ", --json and --watch" :
			opts->action == ACTION_WATCH ? ", --json, --current and --exec" : "");
	}
}
