/*
 * veilctl: sets, pauses and inspects the wallpapers of a compositor that links veil, through
 * veil-control-unstable-v1. Exit status as swaymsg's: 0 when done, 1 for a usage or connection
 * problem, 2 when the compositor refused the command.
 */
#define _GNU_SOURCE /* realpath, pidfd_open */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>
#include <drm_fourcc.h>
#include "module/command.h"
#include "protocol/veilctl_png.h"
#include "util/mode.h"
#include "veil-config.h"
#include "veil-control-unstable-v1-client-protocol.h"

#define EXIT_USAGE 1
#define EXIT_REFUSED 2

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

enum action {
	ACTION_SET,
	ACTION_OFF,
	ACTION_PAUSE,
	ACTION_RESUME,
	ACTION_STATUS,
	ACTION_WATCH,
	ACTION_SNAPSHOT,
	ACTION_WORDS, /* anything else: the compositor parses the words */
};

struct options {
	enum action action;
	const char *output; /* NULL: every output */
	const char *workspace; /* -W: set and off are for this workspace; NULL: none */
	const char *color_word; /* set, solid_color: the colour as given */
	const char *file; /* set, unless solid_color */
	enum veil_mode mode;
	uint32_t color;
	/*
	 * set: the words after the file (mode, colour, options), for set_media; other commands:
	 * all their words, for run. Point into argv.
	 */
	char **words;
	int n_words;
	bool has_options; /* set: words beyond a mode and a colour */
	char **storage; /* the array words points into, freed at the end */
	bool json, watch;
	const char *exec; /* watch: the command run for each change */
	bool current; /* watch: an event for what each output shows when it starts */
	const char *size_word; /* snapshot: --size as given, NULL for none */
	uint32_t max_width, max_height; /* snapshot: --size */
};

struct detail {
	char *name;
	char *value; /* JSON */
};

/* One output as a status object describes it. */
struct output_status {
	char *name;
	uint32_t kind, state;
	char *setting;
	bool has_mode;
	uint32_t mode, color;
	char *label;
	uint32_t width, height;
	char *decoder;
	uint64_t shown, dropped;
	char *error;
	struct detail *details;
	size_t n_details;
};

struct status {
	/* The last description whole (its done event received): what is printed. */
	struct output_status *outputs;
	size_t n_outputs;
	/*
	 * The description under way: a read may end inside the description after the one it
	 * completes, which must not be printed half received.
	 */
	struct output_status *building;
	size_t n_building;
	int descriptions; /* done events received */
	bool failed;
	uint32_t reason;
	char *message;
	bool out_of_memory;
};

struct result {
	bool received;
	bool ok;
	uint32_t reason;
	char *message;
};

struct client {
	struct wl_display *display;
	struct zveil_control_manager_v1 *manager;
	uint32_t version;
};

static void die_oom(void) {
	fprintf(stderr, "veilctl: out of memory\n");
	exit(EXIT_USAGE);
}

static char *xstrdup(const char *s) {
	if (s == NULL) {
		return NULL;
	}
	char *copy = strdup(s);
	if (copy == NULL) {
		die_oom();
	}
	return copy;
}

/* ---- Arguments ---- */

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
		die_oom();
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
	char *dir = slash == NULL ? xstrdup(".") : slash == file ? xstrdup("/") :
		strndup(file, (size_t)(slash - file));
	if (dir == NULL) {
		die_oom();
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

static void parse_args(int argc, char *argv[], struct options *opts) {
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
		die_oom();
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

/* ---- The file ---- */

/*
 * Opens what the compositor will read. O_NONBLOCK: a FIFO must not hang veilctl, and the
 * compositor tells the user that it needs a regular file.
 */
static int open_media(const char *file, char **label) {
	*label = NULL;
	if (strcmp(file, "-") == 0) {
		int fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			fprintf(stderr, "veilctl: cannot use standard input: %s\n", strerror(errno));
			exit(EXIT_USAGE);
		}
		/* `veilctl set - < file` names the file when standard input is one. */
		struct stat st;
		char path[PATH_MAX];
		ssize_t len = readlink("/proc/self/fd/0", path, sizeof(path) - 1);
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && len > 0 && path[0] == '/') {
			path[len] = '\0';
			*label = xstrdup(path);
		} else {
			*label = xstrdup("standard input");
		}
		return fd;
	}

	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;
		uint32_t rgb;
		fprintf(stderr, "veilctl: cannot open '%s': %s\n", file, strerror(err));
		if (err == ENOENT && veil_color_parse(file, &rgb)) {
			fprintf(stderr, "For a colour, add solid_color: veilctl set '%s' solid_color\n",
				file);
		}
		exit(EXIT_USAGE);
	}
	char *resolved = realpath(file, NULL);
	*label = resolved != NULL ? resolved : xstrdup(file);
	return fd;
}

/* ---- The connection ---- */

static void registry_handle_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct client *client = data;
	if (strcmp(interface, zveil_control_manager_v1_interface.name) == 0 &&
			client->manager == NULL) {
		client->version = version < 3 ? version : 3;
		client->manager = wl_registry_bind(registry, name,
			&zveil_control_manager_v1_interface, client->version);
	}
}

static void registry_handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	/* veilctl lives for one command; a global going meanwhile fails that command. */
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

/* Explains why the connection broke; libwayland has printed a protocol error's text. */
static int connection_lost(struct wl_display *display) {
	int err = wl_display_get_error(display);
	if (err == EPROTO) {
		const struct wl_interface *interface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
		fprintf(stderr, "veilctl: the compositor closed the connection for a protocol "
			"error (%s#%" PRIu32 ", code %" PRIu32 "): this is a bug in veilctl or in "
			"the compositor\n", interface != NULL ? interface->name : "unknown", id,
			code);
	} else {
		fprintf(stderr, "veilctl: lost the connection to the compositor: %s\n",
			strerror(err));
	}
	return EXIT_USAGE;
}

static void connect_compositor(struct client *client) {
	client->display = wl_display_connect(NULL);
	if (client->display == NULL) {
		const char *name = getenv("WAYLAND_DISPLAY");
		int err = errno;
		if (name == NULL) {
			fprintf(stderr, "veilctl: cannot connect to a Wayland compositor: "
				"WAYLAND_DISPLAY is not set (run veilctl in the compositor's session, "
				"or set WAYLAND_DISPLAY to its socket)\n");
		} else {
			fprintf(stderr, "veilctl: cannot connect to the compositor at "
				"WAYLAND_DISPLAY=%s: %s (is it running, and is XDG_RUNTIME_DIR the "
				"one it uses?)\n", name, strerror(err));
		}
		exit(EXIT_USAGE);
	}
	struct wl_registry *registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(registry, &registry_listener, client);
	if (wl_display_roundtrip(client->display) < 0) {
		exit(connection_lost(client->display));
	}
	wl_registry_destroy(registry);
	if (client->manager == NULL) {
		fprintf(stderr, "veilctl: this compositor does not offer veil's control protocol "
			"(zveil_control_manager_v1): it does not draw wallpapers with veil, has not "
			"enabled the protocol, or does not trust this program (sandboxed programs are "
			"refused)\n");
		exit(EXIT_USAGE);
	}
}

/* ---- Commands ---- */

static void result_handle_done(void *data, struct zveil_control_result_v1 *proxy) {
	struct result *result = data;
	result->received = true;
	result->ok = true;
	zveil_control_result_v1_destroy(proxy);
}

static void result_handle_failed(void *data, struct zveil_control_result_v1 *proxy,
		uint32_t reason, const char *message) {
	struct result *result = data;
	result->received = true;
	result->ok = false;
	result->reason = reason;
	result->message = xstrdup(message);
	zveil_control_result_v1_destroy(proxy);
}

static const struct zveil_control_result_v1_listener result_listener = {
	.done = result_handle_done,
	.failed = result_handle_failed,
};

static uint32_t mode_to_protocol(enum veil_mode mode) {
	switch (mode) {
	case VEIL_MODE_STRETCH:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_STRETCH;
	case VEIL_MODE_FIT:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_FIT;
	case VEIL_MODE_CENTER:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_CENTER;
	case VEIL_MODE_TILE:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_TILE;
	case VEIL_MODE_SOLID_COLOR:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_SOLID_COLOR;
	case VEIL_MODE_INTEGER:
		return ZVEIL_CONTROL_MANAGER_V1_MODE_INTEGER;
	case VEIL_MODE_FILL:
		break;
	}
	return ZVEIL_CONTROL_MANAGER_V1_MODE_FILL;
}

/* The words as a protocol array: each ends with a NUL. */
static void words_array(struct wl_array *array, char **words, int n) {
	wl_array_init(array);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(words[i]) + 1;
		void *p = wl_array_add(array, len);
		if (p == NULL) {
			die_oom();
		}
		memcpy(p, words[i], len);
	}
}

static void need_version(const struct client *client, const char *what) {
	if (client->version < 2) {
		fprintf(stderr, "veilctl: this compositor's veil is too old for %s (its control "
			"protocol is version %" PRIu32 ", 2 is needed)\n", what, client->version);
		exit(EXIT_USAGE);
	}
}

static int run_command(struct client *client, const struct options *opts) {
	int fd = -1;
	char *label = NULL;
	if (opts->action == ACTION_SET && opts->file != NULL) {
		/* Opened before connecting: a typo costs the compositor nothing. */
		fd = open_media(opts->file, &label);
	}
	connect_compositor(client);

	struct zveil_control_result_v1 *proxy = NULL;
	struct wl_array words;
	struct stat st;
	bool directory = fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (opts->workspace != NULL) {
		/* `workspace <ws>` goes before the words: the compositor's parser reads them. */
		char **ws_words = calloc((size_t)opts->n_words + 4, sizeof(*ws_words));
		if (ws_words == NULL) {
			die_oom();
		}
		int n = 0;
		ws_words[n++] = "workspace";
		ws_words[n++] = (char *)opts->workspace;
		if (opts->action == ACTION_OFF) {
			ws_words[n++] = "off";
		} else if (fd < 0) {
			ws_words[n++] = (char *)opts->color_word;
			ws_words[n++] = "solid_color";
		}
		for (int i = 0; opts->action == ACTION_SET && fd >= 0 && i < opts->n_words; i++) {
			ws_words[n++] = opts->words[i];
		}
		words_array(&words, ws_words, n);
		free(ws_words);
		need_version(client, "a workspace's wallpaper");
		proxy = fd >= 0 ?
			zveil_control_manager_v1_set_media(client->manager, opts->output, fd, label,
				&words) :
			zveil_control_manager_v1_run(client->manager, opts->output, &words);
		goto sent;
	}
	words_array(&words, opts->words, opts->n_words);
	switch (opts->action) {
	case ACTION_SET:
		if (fd >= 0 && (opts->has_options || directory)) {
			need_version(client, directory ? "a directory" : "options after the file");
			proxy = zveil_control_manager_v1_set_media(client->manager, opts->output,
				fd, label, &words);
		} else if (fd >= 0) {
			proxy = zveil_control_manager_v1_set_wallpaper(client->manager, opts->output,
				fd, label, mode_to_protocol(opts->mode), opts->color);
		} else {
			proxy = zveil_control_manager_v1_set_color(client->manager, opts->output,
				opts->color);
		}
		break;
	case ACTION_OFF:
		proxy = zveil_control_manager_v1_off(client->manager, opts->output);
		break;
	case ACTION_PAUSE:
		proxy = zveil_control_manager_v1_pause(client->manager, opts->output);
		break;
	case ACTION_RESUME:
		proxy = zveil_control_manager_v1_resume(client->manager, opts->output);
		break;
	case ACTION_WORDS:
		need_version(client, "this command");
		proxy = zveil_control_manager_v1_run(client->manager, opts->output, &words);
		break;
	case ACTION_STATUS:
	case ACTION_WATCH:
	case ACTION_SNAPSHOT:
		abort();
	}
sent:
	wl_array_release(&words);
	if (proxy == NULL) {
		die_oom();
	}
	struct result result = {0};
	zveil_control_result_v1_add_listener(proxy, &result_listener, &result);
	/* The request marshalled its own copy of fd. */
	if (fd >= 0) {
		close(fd);
	}
	while (!result.received) {
		if (wl_display_dispatch(client->display) < 0) {
			free(label);
			return connection_lost(client->display);
		}
	}
	int status = EXIT_SUCCESS;
	if (!result.ok) {
		/* Decoders' messages may not say which file they mean. */
		if (label != NULL && strstr(result.message, label) == NULL) {
			fprintf(stderr, "veilctl: cannot show '%s': %s\n", label, result.message);
		} else {
			fprintf(stderr, "veilctl: %s\n", result.message);
		}
		if (result.reason == ZVEIL_CONTROL_RESULT_V1_REASON_BAD_MEDIA &&
				opts->file != NULL && strcmp(opts->file, "-") == 0) {
			fprintf(stderr, "The compositor reads the file itself, from its start and "
				"again later: give it a regular file, not a pipe or a socket.\n");
		}
		status = EXIT_REFUSED;
	}
	free(result.message);
	free(label);
	return status;
}

/* ---- Snapshot ---- */

struct snapshot {
	bool received;
	bool ok;
	int fd;
	uint32_t format, width, height, stride;
	uint32_t reason;
	char *message;
};

static void snapshot_handle_ready(void *data, struct zveil_control_snapshot_v1 *proxy,
		int32_t fd, uint32_t format, uint32_t width, uint32_t height, uint32_t stride) {
	struct snapshot *snap = data;
	snap->received = true;
	snap->ok = true;
	snap->fd = fd;
	snap->format = format;
	snap->width = width;
	snap->height = height;
	snap->stride = stride;
}

static void snapshot_handle_failed(void *data, struct zveil_control_snapshot_v1 *proxy,
		uint32_t reason, const char *message) {
	struct snapshot *snap = data;
	snap->received = true;
	snap->reason = reason;
	snap->message = xstrdup(message);
}

static const struct zveil_control_snapshot_v1_listener snapshot_listener = {
	.ready = snapshot_handle_ready,
	.failed = snapshot_handle_failed,
};

/* Checks what the compositor sent and writes it out. */
static int write_snapshot(const struct snapshot *snap, const char *file) {
	bool alpha = snap->format == DRM_FORMAT_ABGR8888;
	struct stat st;
	if ((!alpha && snap->format != DRM_FORMAT_XBGR8888) || snap->width == 0 ||
			snap->height == 0 || snap->width > 16384 || snap->height > 16384 ||
			snap->stride / 4 < snap->width || fstat(snap->fd, &st) != 0 ||
			(uint64_t)st.st_size < (uint64_t)snap->stride * snap->height) {
		fprintf(stderr, "veilctl: the compositor sent a picture veilctl cannot read "
			"(format 0x%08" PRIx32 ", %" PRIu32 "x%" PRIu32 ", stride %" PRIu32 ")\n",
			snap->format, snap->width, snap->height, snap->stride);
		return EXIT_REFUSED;
	}
	size_t size = (size_t)snap->stride * snap->height;
	void *pixels = mmap(NULL, size, PROT_READ, MAP_PRIVATE, snap->fd, 0);
	if (pixels == MAP_FAILED) {
		fprintf(stderr, "veilctl: cannot map the picture: %s\n", strerror(errno));
		return EXIT_REFUSED;
	}
	char message[PATH_MAX + 256];
	int ret = veilctl_write_png(file, pixels, snap->width, snap->height, snap->stride, alpha,
		message, sizeof(message));
	munmap(pixels, size);
	if (ret < 0) {
		fprintf(stderr, "veilctl: %s\n", message);
		return EXIT_USAGE;
	}
	return EXIT_SUCCESS;
}

static int run_snapshot(struct client *client, const struct options *opts) {
	connect_compositor(client);
	if (client->version < 3) {
		fprintf(stderr, "veilctl: this compositor's veil is too old for snapshot (its "
			"control protocol is version %" PRIu32 ", 3 is needed)\n", client->version);
		return EXIT_USAGE;
	}
	struct zveil_control_snapshot_v1 *proxy = zveil_control_manager_v1_snapshot(
		client->manager, opts->output, opts->max_width, opts->max_height);
	if (proxy == NULL) {
		die_oom();
	}
	struct snapshot snap = { .fd = -1 };
	zveil_control_snapshot_v1_add_listener(proxy, &snapshot_listener, &snap);
	while (!snap.received) {
		if (wl_display_dispatch(client->display) < 0) {
			zveil_control_snapshot_v1_destroy(proxy);
			return connection_lost(client->display);
		}
	}
	zveil_control_snapshot_v1_destroy(proxy);
	int ret;
	if (snap.ok) {
		ret = write_snapshot(&snap, opts->file);
		close(snap.fd);
	} else {
		fprintf(stderr, "veilctl: %s\n", snap.message);
		ret = EXIT_REFUSED;
	}
	free(snap.message);
	return ret;
}

/* ---- Status ---- */

static void output_status_finish(struct output_status *output) {
	free(output->name);
	free(output->setting);
	free(output->label);
	free(output->decoder);
	free(output->error);
	for (size_t i = 0; i < output->n_details; i++) {
		free(output->details[i].name);
		free(output->details[i].value);
	}
	free(output->details);
}

static void outputs_free(struct output_status **outputs, size_t *n) {
	for (size_t i = 0; i < *n; i++) {
		output_status_finish(&(*outputs)[i]);
	}
	free(*outputs);
	*outputs = NULL;
	*n = 0;
}

static void status_clear(struct status *status) {
	outputs_free(&status->outputs, &status->n_outputs);
	outputs_free(&status->building, &status->n_building);
}

/* The output the events describe now; NULL for events before any output (ignored). */
static struct output_status *current(struct status *status) {
	return status->n_building > 0 ? &status->building[status->n_building - 1] : NULL;
}

static void status_handle_output(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct status *status = data;
	/* Part of the next description, which replaces the last as a whole at its done. */
	struct output_status *outputs = realloc(status->building,
		(status->n_building + 1) * sizeof(*outputs));
	if (outputs == NULL) {
		die_oom();
	}
	status->building = outputs;
	status->building[status->n_building++] = (struct output_status){ .name = xstrdup(name) };
}

static void status_handle_wallpaper(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t kind, uint32_t state, const char *setting) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->kind = kind;
		output->state = state;
		free(output->setting);
		output->setting = xstrdup(setting);
	}
}

static void status_handle_mode(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t mode, uint32_t color) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->has_mode = true;
		output->mode = mode;
		output->color = color;
	}
}

static void status_handle_media(void *data, struct zveil_control_status_v1 *proxy,
		const char *label, uint32_t width, uint32_t height) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->label);
		output->label = xstrdup(label);
		output->width = width;
		output->height = height;
	}
}

static void status_handle_decoder(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->decoder);
		output->decoder = xstrdup(name);
	}
}

static void status_handle_frames(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t shown_hi, uint32_t shown_lo, uint32_t dropped_hi, uint32_t dropped_lo) {
	struct output_status *output = current(data);
	if (output != NULL) {
		output->shown = (uint64_t)shown_hi << 32 | shown_lo;
		output->dropped = (uint64_t)dropped_hi << 32 | dropped_lo;
	}
}

static void status_handle_error(void *data, struct zveil_control_status_v1 *proxy,
		const char *message) {
	struct output_status *output = current(data);
	if (output != NULL) {
		free(output->error);
		output->error = xstrdup(message);
	}
}

static void status_handle_detail(void *data, struct zveil_control_status_v1 *proxy,
		const char *name, const char *value) {
	struct output_status *output = current(data);
	if (output == NULL) {
		return;
	}
	struct detail *details = realloc(output->details,
		(output->n_details + 1) * sizeof(*details));
	if (details == NULL) {
		die_oom();
	}
	output->details = details;
	details[output->n_details++] = (struct detail){
		.name = xstrdup(name),
		.value = xstrdup(value),
	};
}

static void status_handle_done(void *data, struct zveil_control_status_v1 *proxy) {
	struct status *status = data;
	/* The description just received replaces the last (a description of no outputs too). */
	outputs_free(&status->outputs, &status->n_outputs);
	status->outputs = status->building;
	status->n_outputs = status->n_building;
	status->building = NULL;
	status->n_building = 0;
	status->descriptions++;
}

static void status_handle_failed(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t reason, const char *message) {
	struct status *status = data;
	status->failed = true;
	status->reason = reason;
	free(status->message);
	status->message = xstrdup(message);
}

static const struct zveil_control_status_v1_listener status_listener = {
	.output = status_handle_output,
	.wallpaper = status_handle_wallpaper,
	.mode = status_handle_mode,
	.media = status_handle_media,
	.decoder = status_handle_decoder,
	.frames = status_handle_frames,
	.error = status_handle_error,
	.detail = status_handle_detail,
	.done = status_handle_done,
	.failed = status_handle_failed,
};

static const char *kind_name(uint32_t kind) {
	static const char *const names[] = { "none", "off", "color", "image", "video" };
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

static const char *state_name(uint32_t state) {
	static const char *const names[] = { "off", "shown", "paused", "hidden" };
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

static const char *mode_name(uint32_t mode) {
	static const char *const names[] = {
		"stretch", "fill", "fit", "center", "tile", "solid_color", "integer",
	};
	return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "unknown";
}

static void print_json_string(const char *s) {
	if (s == NULL) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				printf("\\u%04x", *p);
			} else {
				putchar(*p);
			}
		}
	}
	putchar('"');
}

static void print_json(const struct status *status, const char *only) {
	putchar('{');
	bool first = true;
	for (size_t i = 0; i < status->n_outputs; i++) {
		const struct output_status *o = &status->outputs[i];
		if (only != NULL && strcmp(only, o->name) != 0) {
			continue;
		}
		if (!first) {
			putchar(',');
		}
		first = false;
		print_json_string(o->name);
		printf(":{\"kind\":\"%s\",\"state\":\"%s\",\"setting\":", kind_name(o->kind),
			state_name(o->state));
		print_json_string(o->setting);
		if (o->has_mode) {
			printf(",\"mode\":\"%s\",\"color\":\"#%06" PRIx32 "\"", mode_name(o->mode),
				o->color & 0xffffff);
		}
		if (o->label != NULL) {
			fputs(",\"file\":", stdout);
			print_json_string(o->label);
			printf(",\"width\":%" PRIu32 ",\"height\":%" PRIu32, o->width, o->height);
		}
		if (o->decoder != NULL) {
			fputs(",\"decoder\":", stdout);
			print_json_string(o->decoder);
		}
		printf(",\"frames\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"error\":", o->shown,
			o->dropped);
		print_json_string(o->error);
		/* The compositor wrote the values as JSON: they go out as they came. */
		for (size_t j = 0; j < o->n_details; j++) {
			putchar(',');
			print_json_string(o->details[j].name);
			printf(":%s", o->details[j].value);
		}
		putchar('}');
	}
	puts("}");
}

static void print_text(const struct status *status, const char *only) {
	if (status->n_outputs == 0) {
		puts("The compositor has no outputs.");
		return;
	}
	for (size_t i = 0; i < status->n_outputs; i++) {
		const struct output_status *o = &status->outputs[i];
		if (only != NULL && strcmp(only, o->name) != 0) {
			continue;
		}
		printf("%s: %s, %s\n", o->name, kind_name(o->kind), state_name(o->state));
		if (o->setting != NULL) {
			printf("  setting: %s\n", strcmp(o->setting, "*") == 0 ?
				"* (every output)" : o->setting);
		}
		if (o->has_mode) {
			printf("  mode:    %s, #%06" PRIx32 "\n", mode_name(o->mode),
				o->color & 0xffffff);
		}
		if (o->label != NULL) {
			printf("  file:    %s", o->label);
			if (o->width > 0 && o->height > 0) {
				printf(" (%" PRIu32 "x%" PRIu32 ")", o->width, o->height);
			}
			putchar('\n');
		}
		if (o->decoder != NULL) {
			printf("  decoder: %s\n", o->decoder);
		}
		printf("  frames:  %" PRIu64 " shown, %" PRIu64 " dropped\n", o->shown, o->dropped);
		if (o->error != NULL) {
			printf("  error:   %s\n", o->error);
		}
		for (size_t j = 0; j < o->n_details; j++) {
			const struct detail *d = &o->details[j];
			/* The source's internals and the node count are for --json. */
			if (strcmp(d->value, "null") != 0 && strcmp(d->value, "false") != 0 &&
					strcmp(d->name, "source") != 0 && strcmp(d->name, "nodes") != 0) {
				printf("  %s: %s\n", d->name, d->value);
			}
		}
	}
}

static bool has_output(const struct status *status, const char *name) {
	for (size_t i = 0; i < status->n_outputs; i++) {
		if (strcmp(status->outputs[i].name, name) == 0) {
			return true;
		}
	}
	return false;
}

/* Connects and asks for the status object, whose descriptions go into status. */
static struct zveil_control_status_v1 *open_status(struct client *client,
		struct status *status) {
	connect_compositor(client);
	struct zveil_control_status_v1 *proxy =
		zveil_control_manager_v1_get_status(client->manager);
	if (proxy == NULL) {
		die_oom();
	}
	zveil_control_status_v1_add_listener(proxy, &status_listener, status);
	return proxy;
}

static int run_status(struct client *client, const struct options *opts) {
	struct status status = {0};
	struct zveil_control_status_v1 *proxy = open_status(client, &status);

	int ret = EXIT_SUCCESS;
	int printed = 0;
	while (!status.failed) {
		if (wl_display_dispatch(client->display) < 0) {
			ret = connection_lost(client->display);
			goto out;
		}
		if (status.descriptions == printed) {
			continue;
		}
		printed = status.descriptions;
		if (opts->output != NULL && !has_output(&status, opts->output)) {
			fprintf(stderr, "veilctl: there is no output named '%s'\n", opts->output);
			ret = EXIT_REFUSED;
			goto out;
		}
		if (opts->json) {
			print_json(&status, opts->output);
		} else {
			if (printed > 1) {
				putchar('\n');
			}
			print_text(&status, opts->output);
		}
		fflush(stdout);
		if (!opts->watch) {
			goto out;
		}
	}
	fprintf(stderr, "veilctl: %s\n", status.message);
	ret = EXIT_REFUSED;

out:
	zveil_control_status_v1_destroy(proxy);
	status_clear(&status);
	free(status.message);
	return ret;
}

/* ---- Watch ---- */

/* What watch remembers of an output between descriptions. */
struct seen {
	char *name;
	uint32_t kind, state;
	bool has_mode;
	uint32_t mode, color;
	char *label;
	char *error;
	long position; /* the slideshow's, -1 without one */
	char *directory; /* the slideshow's detail as sent, NULL without one */
};

struct watch_event {
	char *output, *event, *file, *error;
	uint32_t kind, state, color;
	bool has_mode;
	long position;
};

struct watch {
	const struct options *opts;
	struct seen *seen;
	size_t n_seen;
	bool baseline; /* the first description was taken */
	struct watch_event *queue; /* waiting for --exec, oldest first */
	size_t n_queue;
	pid_t child; /* the command running, 0 for none */
	int child_fd; /* its pidfd, -1 without one */
};

static void seen_finish(struct seen *s) {
	free(s->name);
	free(s->label);
	free(s->error);
	free(s->directory);
}

static void watch_event_finish(struct watch_event *ev) {
	free(ev->output);
	free(ev->event);
	free(ev->file);
	free(ev->error);
}

static const char *detail_value(const struct output_status *o, const char *name) {
	for (size_t i = 0; i < o->n_details; i++) {
		if (strcmp(o->details[i].name, name) == 0) {
			return o->details[i].value;
		}
	}
	return NULL;
}

/*
 * A member of a JSON object as the compositor writes it (no spaces). `,"name":` cannot occur
 * inside a JSON string, where a quote is escaped.
 */
static const char *json_member(const char *json, const char *name) {
	char key[64];
	snprintf(key, sizeof(key), ",\"%s\":", name);
	const char *p = strstr(json, key);
	if (p == NULL) {
		snprintf(key, sizeof(key), "{\"%s\":", name);
		p = strncmp(json, key, strlen(key)) == 0 ? json : NULL;
	}
	return p != NULL ? p + strlen(key) : NULL;
}

/* The directory's member, as JSON text up to its closing quote (compared, never shown). */
static char *json_string_member(const char *json, const char *name) {
	const char *p = json_member(json, name);
	if (p == NULL || *p != '"') {
		return NULL;
	}
	const char *end = p + 1;
	while (*end != '\0' && *end != '"') {
		end += end[0] == '\\' && end[1] != '\0' ? 2 : 1;
	}
	char *copy = strndup(p, (size_t)(end - p));
	if (copy == NULL) {
		die_oom();
	}
	return copy;
}

static void seen_from_status(struct seen *s, const struct output_status *o) {
	*s = (struct seen){
		.name = xstrdup(o->name),
		.kind = o->kind,
		.state = o->state,
		.has_mode = o->has_mode,
		.mode = o->mode,
		.color = o->color,
		.label = xstrdup(o->label),
		.error = xstrdup(o->error),
		.position = -1,
	};
	const char *show = detail_value(o, "slideshow");
	if (show != NULL && show[0] == '{') {
		const char *pos = json_member(show, "position");
		if (pos != NULL) {
			s->position = strtol(pos, NULL, 10);
		}
		s->directory = json_string_member(show, "directory");
	}
}

static bool same_string(const char *a, const char *b) {
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static const struct seen *find_seen(const struct watch *w, const char *name) {
	for (size_t i = 0; i < w->n_seen; i++) {
		if (strcmp(w->seen[i].name, name) == 0) {
			return &w->seen[i];
		}
	}
	return NULL;
}

static void print_event(const struct watch *w, const struct watch_event *ev) {
	if (w->opts->json) {
		fputs("{\"output\":", stdout);
		print_json_string(ev->output);
		fputs(",\"event\":", stdout);
		print_json_string(ev->event);
		printf(",\"kind\":\"%s\",\"state\":\"%s\",\"file\":", kind_name(ev->kind),
			state_name(ev->state));
		print_json_string(ev->file);
		if (ev->has_mode) {
			printf(",\"color\":\"#%06" PRIx32 "\"", ev->color & 0xffffff);
		}
		if (ev->position >= 0) {
			printf(",\"position\":%ld", ev->position);
		}
		fputs(",\"error\":", stdout);
		print_json_string(ev->error);
		puts("}");
	} else {
		printf("%s %s %s", ev->output, ev->event, kind_name(ev->kind));
		if (ev->file != NULL) {
			printf(" %s", ev->file);
		} else if (ev->has_mode) {
			printf(" #%06" PRIx32, ev->color & 0xffffff);
		}
		if (strcmp(ev->event, "error") == 0 && ev->error != NULL) {
			printf(": %s", ev->error);
		}
		putchar('\n');
	}
	fflush(stdout);
}

static void add_event(struct watch *w, const char *event, const struct seen *s) {
	struct watch_event ev = {
		.output = xstrdup(s->name),
		.event = xstrdup(event),
		.file = xstrdup(s->label),
		.error = xstrdup(s->error),
		.kind = s->kind,
		.state = s->state,
		.color = s->color,
		.has_mode = s->has_mode,
		.position = s->position,
	};
	print_event(w, &ev);
	if (w->opts->exec == NULL) {
		watch_event_finish(&ev);
		return;
	}
	struct watch_event *queue = realloc(w->queue, (w->n_queue + 1) * sizeof(*queue));
	if (queue == NULL) {
		die_oom();
	}
	w->queue = queue;
	w->queue[w->n_queue++] = ev;
}

/* The changes from what an output showed to what it shows; prev is NULL for a new output. */
static void output_changes(struct watch *w, const struct seen *prev, const struct seen *cur) {
	bool shows = cur->kind != ZVEIL_CONTROL_STATUS_V1_KIND_NONE &&
		cur->kind != ZVEIL_CONTROL_STATUS_V1_KIND_OFF;
	bool changed = prev == NULL || prev->kind != cur->kind ||
		!same_string(prev->label, cur->label) || prev->has_mode != cur->has_mode ||
		(cur->has_mode && (prev->mode != cur->mode || prev->color != cur->color));
	bool step = prev != NULL && cur->position >= 0 && prev->position >= 0 &&
		prev->position != cur->position && same_string(prev->directory, cur->directory);
	if (changed || step) {
		if (!shows) {
			if (prev != NULL) {
				add_event(w, "off", cur);
			}
		} else {
			add_event(w, step ? "step" : "shown", cur);
		}
	}
	if (cur->error != NULL && (prev == NULL || !same_string(prev->error, cur->error))) {
		add_event(w, "error", cur);
	}
	if (prev == NULL || !shows || prev->state == cur->state ||
			cur->state == ZVEIL_CONTROL_STATUS_V1_STATE_OFF) {
		return;
	}
	if (cur->state == ZVEIL_CONTROL_STATUS_V1_STATE_HIDDEN) {
		add_event(w, "hidden", cur);
	} else if (prev->state == ZVEIL_CONTROL_STATUS_V1_STATE_HIDDEN) {
		add_event(w, "visible", cur);
	} else if (cur->state == ZVEIL_CONTROL_STATUS_V1_STATE_PAUSED) {
		add_event(w, "paused", cur);
	} else if (prev->state == ZVEIL_CONTROL_STATUS_V1_STATE_PAUSED) {
		add_event(w, "resumed", cur);
	}
}

/* A new description: its changes from the last become events; the first is the baseline. */
static void watch_description(struct watch *w, const struct status *status) {
	const char *only = w->opts->output;
	struct seen *seen = calloc(status->n_outputs + 1, sizeof(*seen));
	if (seen == NULL) {
		die_oom();
	}
	size_t n = 0;
	for (size_t i = 0; i < status->n_outputs; i++) {
		if (only == NULL || strcmp(only, status->outputs[i].name) == 0) {
			seen_from_status(&seen[n++], &status->outputs[i]);
		}
	}
	if (!w->baseline && w->opts->current) {
		for (size_t i = 0; i < n; i++) {
			add_event(w, "current", &seen[i]);
		}
	} else if (w->baseline) {
		for (size_t i = 0; i < n; i++) {
			output_changes(w, find_seen(w, seen[i].name), &seen[i]);
		}
		for (size_t i = 0; i < w->n_seen; i++) {
			bool present = false;
			for (size_t j = 0; j < n && !present; j++) {
				present = strcmp(seen[j].name, w->seen[i].name) == 0;
			}
			if (!present) {
				struct seen gone = { .name = w->seen[i].name, .position = -1 };
				add_event(w, "gone", &gone);
			}
		}
	}
	for (size_t i = 0; i < w->n_seen; i++) {
		seen_finish(&w->seen[i]);
	}
	free(w->seen);
	w->seen = seen;
	w->n_seen = n;
	w->baseline = true;
}

static void set_env(const char *name, const char *value) {
	if (value != NULL) {
		setenv(name, value, 1);
	} else {
		unsetenv(name);
	}
}

/* Starts the command for the oldest event waiting; veilctl goes on reading meanwhile. */
static void spawn_next(struct watch *w) {
	if (w->child != 0 || w->n_queue == 0) {
		return;
	}
	struct watch_event ev = w->queue[0];
	memmove(w->queue, w->queue + 1, (w->n_queue - 1) * sizeof(*w->queue));
	w->n_queue--;

	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "veilctl: cannot run the command for %s %s: %s\n", ev.output,
			ev.event, strerror(errno));
		watch_event_finish(&ev);
		return;
	}
	if (pid == 0) {
		char color[16] = "";
		if (ev.has_mode) {
			snprintf(color, sizeof(color), "#%06" PRIx32, ev.color & 0xffffff);
		}
		set_env("VEIL_OUTPUT", ev.output);
		set_env("VEIL_EVENT", ev.event);
		set_env("VEIL_KIND", kind_name(ev.kind));
		set_env("VEIL_STATE", state_name(ev.state));
		set_env("VEIL_FILE", ev.file != NULL ? ev.file : "");
		set_env("VEIL_COLOR", ev.has_mode ? color : NULL);
		set_env("VEIL_ERROR", ev.error);
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
		}
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", w->opts->exec, (char *)NULL);
		fprintf(stderr, "veilctl: cannot run /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	watch_event_finish(&ev);
	w->child = pid;
	w->child_fd = (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Reaps the command if it ended; true if it did. */
static bool reap_child(struct watch *w) {
	if (w->child == 0) {
		return false;
	}
	int wstatus;
	pid_t pid = waitpid(w->child, &wstatus, WNOHANG);
	if (pid == 0 || (pid < 0 && errno == EINTR)) {
		return false;
	}
	if (pid > 0 && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
		fprintf(stderr, "veilctl: the command exited with status %d\n",
			WEXITSTATUS(wstatus));
	} else if (pid > 0 && WIFSIGNALED(wstatus)) {
		fprintf(stderr, "veilctl: the command was killed by signal %d\n",
			WTERMSIG(wstatus));
	}
	if (w->child_fd >= 0) {
		close(w->child_fd);
	}
	w->child = 0;
	w->child_fd = -1;
	return true;
}

/*
 * Reads descriptions, never blocked by the command: the compositor's messages are read while
 * it runs (a client that stops reading would fill the compositor's buffer for it).
 */
static int run_watch(struct client *client, const struct options *opts) {
	signal(SIGPIPE, SIG_IGN);
	struct status status = {0};
	struct zveil_control_status_v1 *proxy = open_status(client, &status);
	struct watch w = { .opts = opts, .child_fd = -1 };

	int ret = EXIT_SUCCESS;
	int handled = 0;
	struct wl_display *display = client->display;
	while (!status.failed) {
		while (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0) {
				ret = connection_lost(display);
				goto out;
			}
		}
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			ret = connection_lost(display);
			goto out;
		}
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(display), .events = POLLIN },
			{ .fd = w.child_fd, .events = POLLIN },
		};
		/* Without a pidfd (old kernels), the command's end is looked for 10 times a second. */
		int timeout = w.child != 0 && w.child_fd < 0 ? 100 : -1;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR) {
			wl_display_cancel_read(display);
			fprintf(stderr, "veilctl: poll: %s\n", strerror(errno));
			ret = EXIT_USAGE;
			goto out;
		}
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(display) < 0) {
				ret = connection_lost(display);
				goto out;
			}
		} else {
			wl_display_cancel_read(display);
		}
		if (wl_display_dispatch_pending(display) < 0) {
			ret = connection_lost(display);
			goto out;
		}
		if (status.descriptions != handled) {
			handled = status.descriptions;
			/* Later, the output may go (a "gone" event) and come back. */
			if (!w.baseline && opts->output != NULL &&
					!has_output(&status, opts->output)) {
				fprintf(stderr, "veilctl: there is no output named '%s'\n",
					opts->output);
				ret = EXIT_REFUSED;
				goto out;
			}
			watch_description(&w, &status);
		}
		reap_child(&w);
		spawn_next(&w);
	}
	fprintf(stderr, "veilctl: %s\n", status.message);
	ret = EXIT_REFUSED;

out:
	/* The command running finishes; those waiting are not run. */
	if (w.child != 0) {
		int wstatus;
		while (waitpid(w.child, &wstatus, 0) < 0 && errno == EINTR) {
		}
		if (w.child_fd >= 0) {
			close(w.child_fd);
		}
	}
	for (size_t i = 0; i < w.n_queue; i++) {
		watch_event_finish(&w.queue[i]);
	}
	free(w.queue);
	for (size_t i = 0; i < w.n_seen; i++) {
		seen_finish(&w.seen[i]);
	}
	free(w.seen);
	zveil_control_status_v1_destroy(proxy);
	status_clear(&status);
	free(status.message);
	return ret;
}

int main(int argc, char *argv[]) {
	struct options opts = {0};
	parse_args(argc, argv, &opts);

	struct client client = {0};
	int ret;
	if (opts.action == ACTION_STATUS) {
		ret = run_status(&client, &opts);
	} else if (opts.action == ACTION_WATCH) {
		ret = run_watch(&client, &opts);
	} else if (opts.action == ACTION_SNAPSHOT) {
		ret = run_snapshot(&client, &opts);
	} else {
		ret = run_command(&client, &opts);
	}
	if (client.manager != NULL) {
		zveil_control_manager_v1_destroy(client.manager);
	}
	if (client.display != NULL) {
		wl_display_flush(client.display);
		wl_display_disconnect(client.display);
	}
	free(opts.storage);
	return ret;
}
