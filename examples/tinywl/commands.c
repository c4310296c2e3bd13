/*
 * sway's command language: a command list is cut at unquoted ';' and ',' (and, over IPC,
 * newlines), each command into words at unquoted whitespace. Quotes keep spaces in one word and
 * are stripped from every argument after the command name, so that
 *   output HEADLESS-1 veil "/srv/my walls/a.png" fill
 * hands veil the file name as one word. Like sway, a command that cannot be parsed ends the
 * list; one that fails does not.
 */
#include <errno.h>
#include <json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <veil/veil.h>
#include <wlr/util/log.h>
#include "tinywl.h"

/* A config file is read whole; this is far beyond any config a test writes. */
#define MAX_CONFIG_SIZE (1 << 20)

static const char whitespace[] = " \f\n\r\t\v";

struct cmd_result cmd_result_new(enum cmd_status status, const char *fmt, ...) {
	struct cmd_result result = { .status = status };
	if (fmt == NULL) {
		return result;
	}
	va_list args;
	va_start(args, fmt);
	int len = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	if (len < 0) {
		return result;
	}
	result.error = malloc(len + 1);
	if (result.error != NULL) {
		va_start(args, fmt);
		vsnprintf(result.error, len + 1, fmt, args);
		va_end(args);
	}
	return result;
}

/* Cuts the next command off *head at an unquoted delimiter; *head is NULL after the last one. */
static char *next_command(char **head, const char *delims) {
	char *start = *head;
	bool in_double = false, in_single = false, escaped = false;
	for (char *p = start; *p != '\0'; p++) {
		if (escaped) {
			escaped = false;
		} else if (*p == '\\') {
			escaped = true;
		} else if (*p == '"' && !in_single) {
			in_double = !in_double;
		} else if (*p == '\'' && !in_double) {
			in_single = !in_single;
		} else if (!in_double && !in_single && strchr(delims, *p) != NULL) {
			if (p == start) {
				/* An empty command: skip its delimiter. */
				start = p + 1;
				continue;
			}
			*p = '\0';
			*head = p + 1;
			return start;
		}
	}
	*head = NULL;
	return start;
}

static void free_words(int argc, char **argv) {
	for (int i = 0; i < argc; i++) {
		free(argv[i]);
	}
	free(argv);
}

/* Splits a command into words at unquoted whitespace, keeping quotes and backslashes. */
static char **split_words(const char *text, int *argc) {
	int len = 0, cap = 8;
	char **argv = calloc(cap + 1, sizeof(*argv));
	if (argv == NULL) {
		return NULL;
	}
	const char *p = text;
	for (;;) {
		p += strspn(p, whitespace);
		if (*p == '\0') {
			break;
		}
		const char *start = p;
		/* Brackets group words too: they hold sway's criteria. */
		bool in_double = false, in_single = false, in_brackets = false, escaped = false;
		for (; *p != '\0'; p++) {
			if (escaped) {
				escaped = false;
			} else if (*p == '\\') {
				escaped = true;
			} else if (*p == '"' && !in_single) {
				in_double = !in_double;
			} else if (*p == '\'' && !in_double) {
				in_single = !in_single;
			} else if (in_double || in_single) {
				continue;
			} else if (*p == '[') {
				in_brackets = true;
			} else if (*p == ']') {
				in_brackets = false;
			} else if (!in_brackets && strchr(whitespace, *p) != NULL) {
				break;
			}
		}
		if (len == cap) {
			char **grown = realloc(argv, (2 * cap + 1) * sizeof(*argv));
			if (grown == NULL) {
				goto error;
			}
			argv = grown;
			cap *= 2;
		}
		argv[len] = strndup(start, p - start);
		if (argv[len] == NULL) {
			goto error;
		}
		argv[++len] = NULL;
	}
	*argc = len;
	return argv;

error:
	free_words(len, argv);
	return NULL;
}

/* Removes the quotes that are not escaped; the backslashes stay. */
static void strip_quotes(char *word) {
	bool in_double = false, in_single = false, escaped = false;
	char *out = word;
	for (const char *p = word; *p != '\0'; p++) {
		if (escaped) {
			escaped = false;
		} else if (*p == '\\') {
			escaped = true;
		} else if (*p == '"' && !in_single) {
			in_double = !in_double;
			continue;
		} else if (*p == '\'' && !in_double) {
			in_single = !in_single;
			continue;
		}
		*out++ = *p;
	}
	*out = '\0';
}

/* Resolves backslash escapes, as sway does for config lines (not for IPC commands). */
static void unescape(char *word) {
	char *out = word;
	for (const char *p = word; *p != '\0'; p++) {
		if (*p != '\\' || p[1] == '\0') {
			*out++ = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			*out++ = '\n';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'r':
			*out++ = '\r';
			break;
		default:
			*out++ = *p;
			break;
		}
	}
	*out = '\0';
}

static struct cmd_result cmd_create_output(struct tw_server *server, int argc, char **argv) {
	if (!server_create_output(server)) {
		return cmd_result_new(CMD_INVALID,
			"Can only create outputs for Wayland, X11 or headless backends");
	}
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result cmd_exit(struct tw_server *server, int argc, char **argv) {
	server_terminate(server);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

/*
 * `power_source battery|mains`: what a compositor that follows UPower would tell veil
 * (veil_scene_set_on_battery); veil stops reading sysfs from then on.
 */
static struct cmd_result cmd_power_source(struct tw_server *server, int argc, char **argv) {
	if (argc != 1 || (strcasecmp(argv[0], "battery") != 0 &&
			strcasecmp(argv[0], "mains") != 0)) {
		return cmd_result_new(CMD_INVALID, "Expected `power_source battery|mains`");
	}
	veil_scene_set_on_battery(server->veil, strcasecmp(argv[0], "battery") == 0);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

/*
 * `location LAT LON`: what a compositor that follows geoclue would tell veil
 * (veil_scene_set_location), for dynamic wallpapers whose setting has no place of its own.
 */
static struct cmd_result cmd_location(struct tw_server *server, int argc, char **argv) {
	char *end_lat = NULL, *end_lon = NULL;
	double lat = argc == 2 ? strtod(argv[0], &end_lat) : 0.0;
	double lon = argc == 2 ? strtod(argv[1], &end_lon) : 0.0;
	if (argc != 2 || end_lat == argv[0] || *end_lat != '\0' || end_lon == argv[1] ||
			*end_lon != '\0' || lat < -90.0 || lat > 90.0 || lon < -180.0 || lon > 180.0) {
		return cmd_result_new(CMD_INVALID, "Expected `location <lat -90..90> <lon -180..180>`");
	}
	veil_scene_set_location(server->veil, lat, lon);
	return cmd_result_new(CMD_SUCCESS, NULL);
}

#if TINYWL_HAVE_FAKE_CLOCK
/* `fake_clock SECONDS` (built with the tests): the wall clock jumps there (fake_clock.c). */
static struct cmd_result cmd_fake_clock(struct tw_server *server, int argc, char **argv) {
	double seconds;
	if (argc != 1 || !fake_clock_parse(argv[0], &seconds)) {
		return cmd_result_new(CMD_INVALID, "Expected `fake_clock <seconds since the epoch>`");
	}
	fake_clock_set(server, seconds);
	return cmd_result_new(CMD_SUCCESS, NULL);
}
#endif

static const struct {
	const char *name;
	struct cmd_result (*handle)(struct tw_server *server, int argc, char **argv);
} handlers[] = {
	{ "create_output", cmd_create_output },
	{ "exit", cmd_exit },
#if TINYWL_HAVE_FAKE_CLOCK
	{ "fake_clock", cmd_fake_clock },
#endif
	{ "focus", cmd_focus },
	{ "location", cmd_location },
	{ "move", cmd_move },
	{ "output", cmd_output },
	{ "power_source", cmd_power_source },
	{ "rename", cmd_rename },
	{ "workspace", cmd_workspace },
};

/* argv[0] is the command's name; quotes are already gone from the arguments. */
static struct cmd_result dispatch(struct tw_server *server, int argc, char **argv) {
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		if (strcasecmp(argv[0], handlers[i].name) == 0) {
			wlr_log(WLR_DEBUG, "running command '%s' (%d arguments)", argv[0], argc - 1);
			return handlers[i].handle(server, argc - 1, argv + 1);
		}
	}
	return cmd_result_new(CMD_INVALID, "Unknown/invalid command '%s'", argv[0]);
}

static struct json_object *result_to_json(const struct cmd_result *result) {
	struct json_object *object = json_object_new_object();
	if (object == NULL) {
		return NULL;
	}
	json_object_object_add(object, "success",
		json_object_new_boolean(result->status == CMD_SUCCESS));
	if (result->status != CMD_SUCCESS) {
		json_object_object_add(object, "parse_error",
			json_object_new_boolean(result->status == CMD_INVALID));
		json_object_object_add(object, "error",
			json_object_new_string(result->error != NULL ? result->error : "Failed"));
	}
	return object;
}

struct json_object *commands_run_ipc(struct tw_server *server, const char *text) {
	struct json_object *results = json_object_new_array();
	char *list = strdup(text);
	if (results == NULL || list == NULL) {
		json_object_put(results);
		free(list);
		return NULL;
	}
	/* Over IPC, every line is a command list of its own. */
	for (char *p = list; *p != '\0'; p++) {
		if (*p == '\n') {
			*p = ';';
		}
	}

	char *head = list;
	while (head != NULL) {
		char *command = next_command(&head, ";,");
		command += strspn(command, whitespace);
		if (*command == '\0') {
			continue;
		}

		struct cmd_result result;
		int argc = 0;
		char **argv = split_words(command, &argc);
		if (argv == NULL) {
			result = cmd_result_new(CMD_FAILURE, "Out of memory");
		} else {
			for (int i = 1; i < argc; i++) {
				if (argv[i][0] == '"' || argv[i][0] == '\'') {
					strip_quotes(argv[i]);
				}
			}
			result = dispatch(server, argc, argv);
			free_words(argc, argv);
		}

		json_object_array_add(results, result_to_json(&result));
		free(result.error);
		if (result.status == CMD_INVALID) {
			break;
		}
	}
	free(list);
	return results;
}

struct cmd_result commands_run_line(struct tw_server *server, const char *line) {
	int argc = 0;
	char **argv = split_words(line, &argc);
	if (argv == NULL) {
		return cmd_result_new(CMD_FAILURE, "Out of memory");
	}
	if (argc == 0) {
		free_words(argc, argv);
		return cmd_result_new(CMD_SUCCESS, NULL);
	}
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '"' || argv[i][0] == '\'') {
			strip_quotes(argv[i]);
		}
		unescape(argv[i]);
	}
	struct cmd_result result = dispatch(server, argc, argv);
	free_words(argc, argv);
	return result;
}

static char *read_file(const char *path) {
	FILE *file = fopen(path, "r");
	if (file == NULL) {
		fprintf(stderr, "veil-tinywl: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	char *text = malloc(MAX_CONFIG_SIZE + 1);
	size_t len = text != NULL ? fread(text, 1, MAX_CONFIG_SIZE + 1, file) : 0;
	bool failed = text == NULL || ferror(file);
	fclose(file);
	if (failed || len > MAX_CONFIG_SIZE) {
		fprintf(stderr, "veil-tinywl: cannot read %s: %s\n", path,
			failed ? strerror(errno) : "too large");
		free(text);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

bool commands_run_file(struct tw_server *server, const char *path) {
	char *text = read_file(path);
	if (text == NULL) {
		return false;
	}
	/* Kept for GET_CONFIG. */
	free(server->config_text);
	server->config_text = strdup(text);

	bool ok = true;
	int number = 0;
	char *next = text;
	while (next != NULL) {
		char *line = next;
		next = strchr(line, '\n');
		if (next != NULL) {
			*next++ = '\0';
		}
		number++;

		line += strspn(line, whitespace);
		if (*line == '\0' || *line == '#') {
			continue;
		}
		struct cmd_result result = commands_run_line(server, line);
		if (result.status != CMD_SUCCESS) {
			fprintf(stderr, "veil-tinywl: %s:%d: %s\n", path, number,
				result.error != NULL ? result.error : "failed");
			ok = false;
		}
		free(result.error);
	}
	free(text);
	return ok;
}
