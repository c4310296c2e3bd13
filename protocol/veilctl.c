/*
 * veilctl: sets, pauses and inspects the wallpapers of a compositor that links veil, through
 * veil-control-unstable-v1. Exit status as swaymsg's: 0 when done, 1 for a usage or connection
 * problem, 2 when the compositor refused the command.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-client.h>
#include "module/command.h"
#include "util/mode.h"
#include "veil-config.h"
#include "veil-control-unstable-v1-client-protocol.h"

#define EXIT_USAGE 1
#define EXIT_REFUSED 2

static const char usage[] =
	"Usage:\n"
	"  veilctl set [-o NAME] FILE [MODE] [#rrggbb] [OPTION...]\n"
	"                                                show an image, a video or a directory\n"
	"  veilctl set [-o NAME] #rrggbb solid_color     show a colour\n"
	"  veilctl off [-o NAME]                         show no wallpaper\n"
	"  veilctl pause [-o NAME]                       stop videos where they are\n"
	"  veilctl resume [-o NAME]                      play them on\n"
	"  veilctl status [-o NAME] [--json] [--watch]   what each output shows\n"
	"  veilctl [-o NAME] WORD...                     any other command of the compositor's\n"
	"                                                `output NAME veil WORD...`, such as\n"
	"                                                next, previous or transition fade 300\n"
	"\n"
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
	ACTION_WORDS, /* anything else: the compositor parses the words */
};

struct options {
	enum action action;
	const char *output; /* NULL: every output */
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
	struct output_status *outputs;
	size_t n_outputs;
	bool receiving; /* a description is under way: the next output event does not clear */
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
	if ((opts->json || opts->watch)) {
		usage_error("--json and --watch go with status");
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
		} else if (strcmp(arg, "--json") == 0 || strcmp(arg, "-r") == 0) {
			opts->json = true;
		} else if (strcmp(arg, "--watch") == 0 || strcmp(arg, "-w") == 0) {
			opts->watch = true;
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
	if ((opts->json || opts->watch) && opts->action != ACTION_STATUS) {
		usage_error("--json and --watch go with status");
	}
	if (opts->action == ACTION_SET) {
		parse_set(opts, words, n);
	} else if (n > 0) {
		usage_error("'%s' is one word too many: %s takes only -o NAME%s", words[0],
			command, opts->action == ACTION_STATUS ? ", --json and --watch" : "");
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
		client->version = version < 2 ? version : 2;
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
	words_array(&words, opts->words, opts->n_words);
	struct stat st;
	bool directory = fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
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
		abort();
	}
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

static void status_clear(struct status *status) {
	for (size_t i = 0; i < status->n_outputs; i++) {
		output_status_finish(&status->outputs[i]);
	}
	free(status->outputs);
	status->outputs = NULL;
	status->n_outputs = 0;
}

/* The output the events describe now; NULL for events before any output (ignored). */
static struct output_status *current(struct status *status) {
	return status->n_outputs > 0 ? &status->outputs[status->n_outputs - 1] : NULL;
}

static void status_handle_output(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct status *status = data;
	if (!status->receiving) {
		/* A new description replaces the last as a whole. */
		status_clear(status);
		status->receiving = true;
	}
	struct output_status *outputs = realloc(status->outputs,
		(status->n_outputs + 1) * sizeof(*outputs));
	if (outputs == NULL) {
		die_oom();
	}
	status->outputs = outputs;
	status->outputs[status->n_outputs++] = (struct output_status){ .name = xstrdup(name) };
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
	if (!status->receiving) {
		status_clear(status); /* a description of no outputs */
	}
	status->receiving = false;
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

static int run_status(struct client *client, const struct options *opts) {
	connect_compositor(client);
	struct zveil_control_status_v1 *proxy =
		zveil_control_manager_v1_get_status(client->manager);
	if (proxy == NULL) {
		die_oom();
	}
	struct status status = {0};
	zveil_control_status_v1_add_listener(proxy, &status_listener, &status);

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

int main(int argc, char *argv[]) {
	struct options opts = {0};
	parse_args(argc, argv, &opts);

	struct client client = {0};
	int ret = opts.action == ACTION_STATUS ?
		run_status(&client, &opts) : run_command(&client, &opts);
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
