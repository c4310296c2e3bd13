/*
 * veilctl: sets, pauses and inspects the wallpapers of a compositor that links veil, through
 * veil-control-unstable-v1. What its files share: the options read from the command line, the
 * connection, the status received. One file a part:
 *   main.c        the command line to one of the runs below
 *   args.c        the command line read and checked (the words by veil's own parser)
 *   media.c       the file handed to the compositor
 *   connection.c  the compositor's control global
 *   command.c     set, off, pause, resume and the compositor's other words
 *   snapshot.c    snapshot, written by snapshot_png.c
 *   status.c      status: the descriptions received, printed by status_print.c
 *   watch.c       watch: the changes between descriptions, and --exec
 */
#ifndef VEIL_CLIENTS_VEILCTL_VEILCTL_H
#define VEIL_CLIENTS_VEILCTL_VEILCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/mode.h"

struct wl_display;
struct zveil_control_manager_v1;
struct zveil_control_status_v1;

/* Exit status as swaymsg's: 0 when done, 1 for a usage or connection problem, 2 refused. */
#define EXIT_USAGE 1
#define EXIT_REFUSED 2

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

struct client {
	struct wl_display *display;
	struct zveil_control_manager_v1 *manager;
	uint32_t version;
};

/* Out of memory: says so and exits (EXIT_USAGE). */
void veilctl_die_oom(void) __attribute__((noreturn));
/* strdup() that exits when memory is short; NULL stays NULL. */
char *veilctl_strdup(const char *s);

/* Reads the command line into opts, or exits with a sentence (EXIT_USAGE). */
void veilctl_args_parse(int argc, char *argv[], struct options *opts);

/*
 * Opens the file the compositor will read ("-": standard input) and its label for messages and
 * the status, or exits with a sentence.
 */
int veilctl_media_open(const char *file, char **label);

/* Connects and binds the control global, or exits with a sentence. */
void veilctl_connect(struct client *client);
/* Says why the connection broke; the exit status to return. */
int veilctl_connection_lost(struct wl_display *display);

/* The runs: each returns veilctl's exit status. */
int veilctl_command_run(struct client *client, const struct options *opts);
int veilctl_snapshot_run(struct client *client, const struct options *opts);
int veilctl_status_run(struct client *client, const struct options *opts);
int veilctl_watch_run(struct client *client, const struct options *opts);

/* Connects and asks for the status object, whose descriptions go into status. */
struct zveil_control_status_v1 *veilctl_status_open(struct client *client,
	struct status *status);
void veilctl_status_clear(struct status *status);
bool veilctl_status_has_output(const struct status *status, const char *name);

/* The protocol's kinds and states as the status prints them. */
const char *veilctl_kind_name(uint32_t kind);
const char *veilctl_state_name(uint32_t state);
/* s as a JSON string on standard output (null for NULL). */
void veilctl_json_string_print(const char *s);
void veilctl_status_print_json(const struct status *status, const char *only);
void veilctl_status_print_text(const struct status *status, const char *only);

#endif
