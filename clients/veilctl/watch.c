/* watch: a line per change of what an output shows, and --exec for each. */
#define _GNU_SOURCE /* syscall */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"

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
		veilctl_die_oom();
	}
	return copy;
}

static void seen_from_status(struct seen *s, const struct output_status *o) {
	*s = (struct seen){
		.name = veilctl_strdup(o->name),
		.kind = o->kind,
		.state = o->state,
		.has_mode = o->has_mode,
		.mode = o->mode,
		.color = o->color,
		.label = veilctl_strdup(o->label),
		.error = veilctl_strdup(o->error),
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
		veilctl_json_string_print(ev->output);
		fputs(",\"event\":", stdout);
		veilctl_json_string_print(ev->event);
		printf(",\"kind\":\"%s\",\"state\":\"%s\",\"file\":", veilctl_kind_name(ev->kind),
			veilctl_state_name(ev->state));
		veilctl_json_string_print(ev->file);
		if (ev->has_mode) {
			printf(",\"color\":\"#%06" PRIx32 "\"", ev->color & 0xffffff);
		}
		if (ev->position >= 0) {
			printf(",\"position\":%ld", ev->position);
		}
		fputs(",\"error\":", stdout);
		veilctl_json_string_print(ev->error);
		puts("}");
	} else {
		printf("%s %s %s", ev->output, ev->event, veilctl_kind_name(ev->kind));
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
		.output = veilctl_strdup(s->name),
		.event = veilctl_strdup(event),
		.file = veilctl_strdup(s->label),
		.error = veilctl_strdup(s->error),
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
		veilctl_die_oom();
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
		veilctl_die_oom();
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
		set_env("VEIL_KIND", veilctl_kind_name(ev.kind));
		set_env("VEIL_STATE", veilctl_state_name(ev.state));
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
int veilctl_watch_run(struct client *client, const struct options *opts) {
	signal(SIGPIPE, SIG_IGN);
	struct status status = {0};
	struct zveil_control_status_v1 *proxy = veilctl_status_open(client, &status);
	struct watch w = { .opts = opts, .child_fd = -1 };

	int ret = EXIT_SUCCESS;
	int handled = 0;
	struct wl_display *display = client->display;
	while (!status.failed) {
		while (wl_display_prepare_read(display) != 0) {
			if (wl_display_dispatch_pending(display) < 0) {
				ret = veilctl_connection_lost(display);
				goto out;
			}
		}
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			ret = veilctl_connection_lost(display);
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
				ret = veilctl_connection_lost(display);
				goto out;
			}
		} else {
			wl_display_cancel_read(display);
		}
		if (wl_display_dispatch_pending(display) < 0) {
			ret = veilctl_connection_lost(display);
			goto out;
		}
		if (status.descriptions != handled) {
			handled = status.descriptions;
			/* Later, the output may go (a "gone" event) and come back. */
			if (!w.baseline && opts->output != NULL &&
					!veilctl_status_has_output(&status, opts->output)) {
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
	veilctl_status_clear(&status);
	free(status.message);
	return ret;
}
