/*
 * veil-control-unstable-v1 in one process: a real wl_display with veil's global, real clients
 * on socketpairs (libwayland on both sides), a headless wlr_output. Covers what the integration
 * test cannot reach through veilctl: protocol errors, hostile file descriptors veilctl never
 * sends (write-only, O_PATH), strings at the message size limit, the filter and sandboxed
 * clients (wlr_security_context_v1), status updates, clients that go mid-way, and the global
 * going while clients hold it (the scene destroyed first, or the display). Run it under ASan
 * to catch dangling pointers. Prints one line per failure; exits non-zero on failure.
 */
#define _GNU_SOURCE /* memfd_create, O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-client.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/util/log.h>
#include <veil/veil.h>
#include "security-context-v1-client-protocol.h"
#include "veil-control-unstable-v1-client-protocol.h"
#include "../unit/check.h"

/* ---- The server ---- */

struct server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct veil_scene *scene;
	struct wlr_backend *backend;
	struct wlr_scene *wlr_scene;
	struct wlr_output *output;
	struct wlr_security_context_manager_v1 *security_context;
	bool refuse; /* the test filter refuses every client */
	int filter_calls;
};

static bool test_filter(const struct wl_client *client, void *data) {
	struct server *server = data;
	server->filter_calls++;
	return !server->refuse && veil_scene_control_trusted(client, server->security_context);
}

static bool display_filter(const struct wl_client *client, const struct wl_global *global,
		void *data) {
	struct server *server = data;
	return veil_scene_filter_global(server->scene, client, global);
}

static void server_init(struct server *server, bool with_output) {
	*server = (struct server){0};
	server->display = wl_display_create();
	server->loop = wl_display_get_event_loop(server->display);
	server->scene = veil_scene_create(server->display, NULL);
	server->security_context = wlr_security_context_manager_v1_create(server->display);
	if (server->display == NULL || server->scene == NULL ||
			server->security_context == NULL) {
		fprintf(stderr, "cannot create the server\n");
		exit(1);
	}
	CHECK(veil_scene_create_control(server->scene, test_filter, server));
	/* A second global on the same scene is refused. */
	CHECK(!veil_scene_create_control(server->scene, NULL, NULL));
	if (!with_output) {
		return;
	}
	server->backend = wlr_headless_backend_create(server->loop);
	server->wlr_scene = wlr_scene_create();
	server->output = server->backend != NULL ?
		wlr_headless_add_output(server->backend, 640, 480) : NULL;
	if (server->output == NULL || server->wlr_scene == NULL) {
		fprintf(stderr, "cannot create a headless output\n");
		exit(1);
	}
	CHECK(veil_scene_add_output(server->scene, server->output, &server->wlr_scene->tree));
}

static void server_finish(struct server *server) {
	veil_scene_destroy(server->scene);
	if (server->backend != NULL) {
		wlr_backend_destroy(server->backend);
	}
	if (server->wlr_scene != NULL) {
		wlr_scene_node_destroy(&server->wlr_scene->tree.node);
	}
	if (server->display != NULL) {
		wl_display_destroy_clients(server->display);
		wl_display_destroy(server->display);
	}
}

/* ---- Clients ---- */

struct result {
	bool received, ok;
	uint32_t reason;
	char message[4096];
};

struct output_description {
	char name[64];
	uint32_t kind, state;
	char setting[64];
	bool has_mode;
	uint32_t mode, color;
	char label[1024];
	uint32_t width, height;
	char decoder[64];
	uint64_t shown;
	char error[4096];
	int details;
	char transition[256]; /* the detail "transition", as JSON */
};

struct description {
	int n;
	struct output_description outputs[4];
};

struct status {
	struct zveil_control_status_v1 *proxy;
	struct description building, last;
	int dones;
	bool failed;
	uint32_t reason;
	char message[4096];
};

struct client {
	struct wl_display *display;
	struct zveil_control_manager_v1 *manager;
	uint32_t manager_name;
	struct wp_security_context_manager_v1 *security;
	bool lost;
	uint32_t version; /* the manager's version to bind: 1 unless a test asks for more */
};

static void copy(char *dst, size_t size, const char *src) {
	snprintf(dst, size, "%s", src != NULL ? src : "");
}

static void registry_handle_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct client *client = data;
	if (strcmp(interface, zveil_control_manager_v1_interface.name) == 0) {
		client->manager_name = name;
		client->manager = wl_registry_bind(registry, name,
			&zveil_control_manager_v1_interface,
			client->version != 0 && client->version <= version ? client->version : 1);
	} else if (strcmp(interface, wp_security_context_manager_v1_interface.name) == 0) {
		client->security = wl_registry_bind(registry, name,
			&wp_security_context_manager_v1_interface, 1);
	}
}

static void registry_handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

static void sync_handle_done(void *data, struct wl_callback *callback, uint32_t serial) {
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = {
	.done = sync_handle_done,
};

/*
 * Runs the server and the client until the server has answered everything the client sent
 * (a wl_display.sync) and its idle work is done. False when the connection broke.
 */
static bool pump(struct server *server, struct client *client) {
	if (client->lost) {
		return false;
	}
	bool done = false;
	struct wl_callback *callback = wl_display_sync(client->display);
	wl_callback_add_listener(callback, &sync_listener, &done);
	for (int i = 0; i < 2000 && !done; i++) {
		if (wl_display_flush(client->display) < 0 && errno != EAGAIN) {
			break;
		}
		wl_event_loop_dispatch(server->loop, 0);
		wl_display_flush_clients(server->display);
		if (wl_display_dispatch_pending(client->display) < 0) {
			break;
		}
		if (wl_display_prepare_read(client->display) != 0) {
			continue; /* events are queued: dispatch them first */
		}
		struct pollfd pfd = { .fd = wl_display_get_fd(client->display), .events = POLLIN };
		if (poll(&pfd, 1, 5) > 0) {
			wl_display_read_events(client->display);
		} else {
			wl_display_cancel_read(client->display);
		}
		if (wl_display_dispatch_pending(client->display) < 0) {
			break;
		}
	}
	/* Idle sources (status descriptions) run in the dispatch after the requests. */
	wl_event_loop_dispatch(server->loop, 0);
	wl_display_flush_clients(server->display);
	if (!done) {
		wl_callback_destroy(callback);
		client->lost = wl_display_get_error(client->display) != 0;
		return false;
	}
	return true;
}

/* One more pump, for events the server queued after the last one (idle descriptions). */
static bool settle(struct server *server, struct client *client) {
	return pump(server, client) && pump(server, client);
}

static void client_connect_fd(struct server *server, struct client *client, int fd) {
	uint32_t version = client->version;
	*client = (struct client){ .version = version };
	client->display = wl_display_connect_to_fd(fd);
	if (client->display == NULL) {
		fprintf(stderr, "cannot connect a client\n");
		exit(1);
	}
	struct wl_registry *registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(registry, &registry_listener, client);
	pump(server, client);
	wl_registry_destroy(registry);
}

static struct wl_client *client_connect(struct server *server, struct client *client) {
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("socketpair");
		exit(1);
	}
	struct wl_client *wl_client = wl_client_create(server->display, sv[0]);
	if (wl_client == NULL) {
		fprintf(stderr, "cannot create a server-side client\n");
		exit(1);
	}
	client_connect_fd(server, client, sv[1]);
	return wl_client;
}

/*
 * Destroys the client's proxies and hangs up without flushing: the server sees the client go
 * with everything it had still alive.
 */
static void client_close(struct client *client) {
	if (client->manager != NULL) {
		zveil_control_manager_v1_destroy(client->manager);
	}
	if (client->security != NULL) {
		wp_security_context_manager_v1_destroy(client->security);
	}
	wl_display_disconnect(client->display);
	*client = (struct client){0};
}

static void client_disconnect(struct server *server, struct client *client) {
	client_close(client);
	/* The server notices the hangup in its next dispatch. */
	wl_event_loop_dispatch(server->loop, 0);
}

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
	copy(result->message, sizeof(result->message), message);
	zveil_control_result_v1_destroy(proxy);
}

static const struct zveil_control_result_v1_listener result_listener = {
	.done = result_handle_done,
	.failed = result_handle_failed,
};

static struct result wait_result(struct server *server, struct client *client,
		struct zveil_control_result_v1 *proxy) {
	struct result result = {0};
	zveil_control_result_v1_add_listener(proxy, &result_listener, &result);
	pump(server, client);
	return result;
}

/* The output the events describe now, NULL before the first (or beyond four). */
static struct output_description *status_current(struct status *status) {
	struct description *d = &status->building;
	return d->n > 0 && d->n <= 4 ? &d->outputs[d->n - 1] : NULL;
}

static void status_handle_output(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct status *status = data;
	struct description *d = &status->building;
	if (d->n < 4) {
		d->outputs[d->n] = (struct output_description){0};
		copy(d->outputs[d->n].name, sizeof(d->outputs[0].name), name);
	}
	d->n++;
}

static void status_handle_wallpaper(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t kind, uint32_t state, const char *setting) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		o->kind = kind;
		o->state = state;
		copy(o->setting, sizeof(o->setting), setting != NULL ? setting : "(null)");
	}
}

static void status_handle_mode(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t mode, uint32_t color) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		o->has_mode = true;
		o->mode = mode;
		o->color = color;
	}
}

static void status_handle_media(void *data, struct zveil_control_status_v1 *proxy,
		const char *label, uint32_t width, uint32_t height) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		copy(o->label, sizeof(o->label), label);
		o->width = width;
		o->height = height;
	}
}

static void status_handle_decoder(void *data, struct zveil_control_status_v1 *proxy,
		const char *name) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		copy(o->decoder, sizeof(o->decoder), name);
	}
}

static void status_handle_frames(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t shown_hi, uint32_t shown_lo, uint32_t dropped_hi, uint32_t dropped_lo) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		o->shown = (uint64_t)shown_hi << 32 | shown_lo;
	}
}

static void status_handle_error(void *data, struct zveil_control_status_v1 *proxy,
		const char *message) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		copy(o->error, sizeof(o->error), message);
	}
}

static void status_handle_detail(void *data, struct zveil_control_status_v1 *proxy,
		const char *name, const char *value) {
	struct output_description *o = status_current(data);
	if (o != NULL) {
		o->details++;
		if (strcmp(name, "transition") == 0) {
			copy(o->transition, sizeof(o->transition), value);
		}
	}
}

static void status_handle_done(void *data, struct zveil_control_status_v1 *proxy) {
	struct status *status = data;
	status->last = status->building;
	status->building.n = 0;
	status->dones++;
}

static void status_handle_failed(void *data, struct zveil_control_status_v1 *proxy,
		uint32_t reason, const char *message) {
	struct status *status = data;
	status->failed = true;
	status->reason = reason;
	copy(status->message, sizeof(status->message), message);
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

static struct status *status_create(struct server *server, struct client *client) {
	struct status *status = calloc(1, sizeof(*status));
	if (status == NULL) {
		abort();
	}
	status->proxy = zveil_control_manager_v1_get_status(client->manager);
	zveil_control_status_v1_add_listener(status->proxy, &status_listener, status);
	pump(server, client);
	return status;
}

static void status_destroy(struct status *status) {
	if (status->proxy != NULL) {
		zveil_control_status_v1_destroy(status->proxy);
	}
	free(status);
}

/* ---- Media ---- */

static const char *wallpaper_path;

static int memfd_with(const char *data, size_t len) {
	int fd = memfd_create("veil-test", MFD_CLOEXEC);
	if (fd < 0 || (len > 0 && write(fd, data, len) != (ssize_t)len)) {
		perror("memfd");
		exit(1);
	}
	return fd;
}

static struct result set_fd(struct server *server, struct client *client, const char *output,
		int fd, const char *label) {
	struct zveil_control_result_v1 *proxy = zveil_control_manager_v1_set_wallpaper(
		client->manager, output, fd, label, ZVEIL_CONTROL_MANAGER_V1_MODE_FILL, 0);
	return wait_result(server, client, proxy);
}

static struct result set_color(struct server *server, struct client *client,
		const char *output, uint32_t color) {
	return wait_result(server, client,
		zveil_control_manager_v1_set_color(client->manager, output, color));
}

/* The scene's own status of the output, as the compositor's IPC shows it. */
static bool output_kind_is(struct server *server, const char *kind) {
	/* Headless outputs are numbered across backends: HEADLESS-1 in the first server only. */
	char *json = veil_scene_status_json(server->scene, server->output->name);
	char want[64];
	snprintf(want, sizeof(want), "\"kind\":\"%s\"", kind);
	bool ok = json != NULL && strstr(json, want) != NULL;
	if (!ok) {
		fprintf(stderr, "  status: %s\n", json != NULL ? json : "(null)");
	}
	free(json);
	return ok;
}

/*
 * Runs the server until no output is loading a wallpaper (decodes run on veil's workers and
 * come back through the event loop), then lets the client read what that sent.
 */
static bool wait_loaded(struct server *server, struct client *client) {
	for (int i = 0; i < 1000; i++) {
		char *json = veil_scene_status_json(server->scene, NULL);
		bool loading = json != NULL && strstr(json, "\"state\":\"loading\"") != NULL;
		free(json);
		if (!loading) {
			return settle(server, client);
		}
		wl_event_loop_dispatch(server->loop, 10);
	}
	fprintf(stderr, "  still loading after 10 s\n");
	return false;
}

/* ---- Tests ---- */

static void test_commands(void) {
	struct server server;
	server_init(&server, true);
	struct client client = {0};
	client_connect(&server, &client);
	if (!CHECK(client.manager != NULL)) {
		return;
	}

	struct result r = set_color(&server, &client, NULL, 0x203040);
	CHECK(r.received && r.ok, "set_color: %s", r.message);
	CHECK(output_kind_is(&server, "color"));

	struct status *status = status_create(&server, &client);
	CHECK(status->dones == 1 && status->last.n == 1);
	struct output_description *d = &status->last.outputs[0];
	CHECK(strcmp(d->name, "HEADLESS-1") == 0);
	CHECK(d->kind == ZVEIL_CONTROL_STATUS_V1_KIND_COLOR);
	CHECK(strcmp(d->setting, "*") == 0);
	CHECK(d->has_mode && d->mode == ZVEIL_CONTROL_MANAGER_V1_MODE_SOLID_COLOR);
	CHECK(d->color == 0x203040);

	/* A real image through a descriptor: shown, labelled as the client said. */
	int fd = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open %s: %s", wallpaper_path, strerror(errno));
	r = set_fd(&server, &client, "HEADLESS-1", fd, "/some/where/wallpaper.png");
	close(fd);
	CHECK(r.ok, "set_wallpaper: %s", r.message);
	CHECK(wait_loaded(&server, &client));
	CHECK(output_kind_is(&server, "image"));
	/* One for the command, one when the image is decoded (one if it was decoded first). */
	CHECK(status->dones >= 2 && status->dones <= 3, "a command sends new descriptions (%d)",
		status->dones);
	CHECK(d->kind == ZVEIL_CONTROL_STATUS_V1_KIND_IMAGE);
	CHECK(strcmp(d->setting, "HEADLESS-1") == 0);
	CHECK(d->has_mode && d->mode == ZVEIL_CONTROL_MANAGER_V1_MODE_FILL);
	CHECK(strcmp(d->label, "/some/where/wallpaper.png") == 0, "label %s", d->label);
	CHECK(d->width == 1920 && d->height == 1080, "size %ux%u", d->width,
		d->height);
	CHECK(d->decoder[0] != '\0', "a decoder is named");
	CHECK(d->error[0] == '\0');

	r = wait_result(&server, &client, zveil_control_manager_v1_pause(client.manager, NULL));
	CHECK(r.ok, "pause: %s", r.message);
	r = wait_result(&server, &client, zveil_control_manager_v1_resume(client.manager, NULL));
	CHECK(r.ok, "resume: %s", r.message);
	r = wait_result(&server, &client,
		zveil_control_manager_v1_pause(client.manager, "NOPE-1"));
	CHECK(r.received && !r.ok && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT);
	CHECK(strstr(r.message, "NOPE-1") != NULL, "message names the output: %s", r.message);
	r = set_color(&server, &client, "", 0);
	CHECK(!r.ok && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT);

	/* A command for an output that does not exist yet is kept, as in a config file. */
	r = set_color(&server, &client, "HDMI-A-9", 0xff0000);
	CHECK(r.ok, "set for a future output: %s", r.message);

	/* The compositor's own commands and outputs going send descriptions too. */
	int before = status->dones;
	char *argv[] = { "veil", "off" };
	char *message = NULL;
	CHECK(veil_scene_command(server.scene, "HEADLESS-1", 2, argv, &message) == 0);
	free(message);
	settle(&server, &client);
	CHECK(status->dones == before + 1, "IPC commands send descriptions (%d, %d)",
		status->dones, before);
	CHECK(d->kind == ZVEIL_CONTROL_STATUS_V1_KIND_OFF);

	r = wait_result(&server, &client, zveil_control_manager_v1_off(client.manager, NULL));
	CHECK(r.ok);
	settle(&server, &client);

	before = status->dones;
	wlr_output_destroy(server.output);
	server.output = NULL;
	settle(&server, &client);
	CHECK(status->dones == before + 1 && status->last.n == 0,
		"an output going sends a description");

	status_destroy(status);
	pump(&server, &client);
	CHECK(!client.lost);
	client_disconnect(&server, &client);
	server_finish(&server);
}

static void check_bad_fd(struct server *server, struct client *client, int fd,
		const char *what, const char *label, const char *expect) {
	struct result r = set_fd(server, client, NULL, fd, label != NULL ? label : what);
	close(fd);
	CHECK(r.received && !r.ok, "%s: refused", what);
	CHECK(r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_BAD_MEDIA, "%s: bad_media (%u)", what,
		r.reason);
	CHECK(expect == NULL || strstr(r.message, expect) != NULL, "%s: message '%s' says '%s'",
		what, r.message, expect);
	CHECK(!client->lost, "%s: the client keeps its connection", what);
	/* A failed command leaves the wallpaper as it was. */
	CHECK(output_kind_is(server, "color"), "%s: the wallpaper is unchanged", what);
}

static void test_bad_media(void) {
	struct server server;
	server_init(&server, true);
	struct client client = {0};
	client_connect(&server, &client);
	if (!CHECK(client.manager != NULL)) {
		return;
	}
	struct result r = set_color(&server, &client, NULL, 0x102030);
	CHECK(r.ok);

	int p[2];
	CHECK(pipe2(p, O_CLOEXEC) == 0);
	CHECK(write(p[1], "\x89PNG\r\n\x1a\n", 8) == 8);
	check_bad_fd(&server, &client, p[0], "a pipe", NULL, "not a regular file");
	close(p[1]);

	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	check_bad_fd(&server, &client, sv[0], "a socket", NULL, "not a regular file");
	close(sv[1]);

	check_bad_fd(&server, &client, memfd_with(NULL, 0), "an empty file", NULL, "empty");
	static const char text[] = "This is a text file, not a picture.\n";
	check_bad_fd(&server, &client, memfd_with(text, sizeof(text) - 1), "a text file", NULL,
		NULL);
	check_bad_fd(&server, &client, open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC),
		"a directory", NULL, "directory");
	check_bad_fd(&server, &client, open("/dev/null", O_RDONLY | O_CLOEXEC), "/dev/null",
		NULL, "not a regular file");

	/* Descriptors veilctl never sends: the compositor must not read past their rights. */
	char path[] = "/tmp/veil-test-control-XXXXXX";
	int tmp = mkstemp(path);
	CHECK(tmp >= 0);
	int wpng = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;
	while (wpng >= 0 && (n = read(wpng, buf, sizeof(buf))) > 0) {
		CHECK(write(tmp, buf, (size_t)n) == n);
	}
	close(wpng);
	close(tmp);
	check_bad_fd(&server, &client, open(path, O_WRONLY | O_CLOEXEC), "a write-only fd",
		NULL, "not open for reading");
	check_bad_fd(&server, &client, open(path, O_PATH | O_CLOEXEC), "an O_PATH fd", NULL,
		NULL);
	unlink(path);

	/* A label and an output name near the message size limit: clipped, not fatal. */
	char *huge = malloc(4000);
	memset(huge, 'x', 3999);
	huge[3999] = '\0';
	check_bad_fd(&server, &client, memfd_with(NULL, 0), "a 4000-byte label", huge,
		"empty");
	r = wait_result(&server, &client, zveil_control_manager_v1_pause(client.manager, huge));
	CHECK(r.received && !r.ok && strlen(r.message) <= 2048);
	CHECK(!client.lost);
	struct status *status = status_create(&server, &client);
	CHECK(status->dones == 1 && strlen(status->last.outputs[0].error) <= 2048,
		"the error an output records is clipped too");
	status_destroy(status);
	free(huge);

	client_disconnect(&server, &client);
	server_finish(&server);
}

static void expect_protocol_error(struct server *server, struct client *client,
		struct zveil_control_result_v1 *proxy, uint32_t code, const char *what) {
	pump(server, client);
	zveil_control_result_v1_destroy(proxy);
	const struct wl_interface *interface = NULL;
	uint32_t id;
	CHECK(client->lost, "%s: a protocol error", what);
	CHECK(wl_display_get_error(client->display) == EPROTO &&
		wl_display_get_protocol_error(client->display, &interface, &id) == code &&
		interface == &zveil_control_manager_v1_interface, "%s: error %u on the manager",
		what, code);
}

static void test_protocol_errors(void) {
	struct server server;
	server_init(&server, true);
	struct client client = {0};

	client_connect(&server, &client);
	int fd = memfd_with("x", 1);
	struct zveil_control_result_v1 *proxy = zveil_control_manager_v1_set_wallpaper(
		client.manager, NULL, fd, NULL, ZVEIL_CONTROL_MANAGER_V1_MODE_SOLID_COLOR, 0);
	close(fd);
	expect_protocol_error(&server, &client, proxy, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_MODE,
		"solid_color with a file");
	client_disconnect(&server, &client);

	client_connect(&server, &client);
	fd = memfd_with("x", 1);
	proxy = zveil_control_manager_v1_set_wallpaper(client.manager, NULL, fd, NULL, 77, 0);
	close(fd);
	expect_protocol_error(&server, &client, proxy, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_MODE,
		"an unknown mode");
	client_disconnect(&server, &client);

	client_connect(&server, &client);
	proxy = zveil_control_manager_v1_set_color(client.manager, NULL, 0x1000000);
	expect_protocol_error(&server, &client, proxy, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_COLOR,
		"a colour above 0xffffff");
	client_disconnect(&server, &client);

	CHECK(output_kind_is(&server, "none"));
	server_finish(&server);
}

/* Words as the protocol carries them: each ended by a NUL. */
static void words_of(struct wl_array *array, const char *const words[], size_t n) {
	wl_array_init(array);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(words[i]) + 1;
		memcpy(wl_array_add(array, len), words[i], len);
	}
}

static struct result run_words(struct server *server, struct client *client,
		const char *const words[], size_t n) {
	struct wl_array array;
	words_of(&array, words, n);
	struct zveil_control_result_v1 *proxy =
		zveil_control_manager_v1_run(client->manager, NULL, &array);
	wl_array_release(&array);
	return wait_result(server, client, proxy);
}

static struct result set_media(struct server *server, struct client *client, int fd,
		const char *const words[], size_t n) {
	struct wl_array array;
	words_of(&array, words, n);
	struct zveil_control_result_v1 *proxy = zveil_control_manager_v1_set_media(
		client->manager, NULL, fd, "/label.png", &array);
	wl_array_release(&array);
	return wait_result(server, client, proxy);
}

/* Version 2: the compositor's own words through set_media and run, details in the status. */
static void test_words(void) {
	struct server server;
	server_init(&server, true);
	struct client client = { .version = 2 };
	client_connect(&server, &client);
	if (!CHECK(client.manager != NULL &&
			zveil_control_manager_v1_get_version(client.manager) == 2)) {
		return;
	}
	struct status *status = status_create(&server, &client);
	struct output_description *d = &status->last.outputs[0];
	CHECK(status->dones == 1 && d->details > 0, "version 2 sends details (%d)", d->details);

	const char *const fade[] = { "transition", "fade", "300" };
	struct result r = run_words(&server, &client, fade, 3);
	CHECK(r.ok, "run transition fade 300: %s", r.message);
	const char *const colour[] = { "#102030", "solid_color" };
	r = run_words(&server, &client, colour, 2);
	CHECK(r.ok, "run #102030 solid_color: %s", r.message);
	CHECK(output_kind_is(&server, "color"));

	/* The output's default transition applies (tests/protocol/test-veilctl.py sees it run). */
	int fd = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	const char *const fit[] = { "fit", "#ff00ff" };
	r = set_media(&server, &client, fd, fit, 2);
	close(fd);
	CHECK(r.ok, "set_media fit #ff00ff: %s", r.message);
	CHECK(wait_loaded(&server, &client));
	CHECK(output_kind_is(&server, "image"));
	CHECK(d->has_mode && d->mode == ZVEIL_CONTROL_MANAGER_V1_MODE_FIT && d->color == 0xff00ff,
		"set_media's mode and colour (%u, %06x)", d->mode, d->color);
	CHECK(strcmp(d->label, "/label.png") == 0, "label %s", d->label);
	CHECK(d->transition[0] != '\0', "the transition is a detail: %s", d->transition);

	/* Words the parser refuses fail the command, with its message; nothing changes. */
	fd = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	const char *const bad[] = { "fit", "transition", "sideways" };
	r = set_media(&server, &client, fd, bad, 3);
	CHECK(r.received && !r.ok && strstr(r.message, "sideways") != NULL, "refused: %s",
		r.message);
	const char *const extra[] = { "extra", "fit" };
	r = set_media(&server, &client, fd, extra, 2);
	CHECK(r.received && !r.ok && strstr(r.message, "extra") != NULL, "refused: %s",
		r.message);
	const char *const solid[] = { "solid_color" };
	r = set_media(&server, &client, fd, solid, 1);
	CHECK(r.received && !r.ok && strstr(r.message, "solid_color") != NULL, "refused: %s",
		r.message);
	close(fd);
	const char *const file[] = { "/etc/passwd", "fill" };
	r = run_words(&server, &client, file, 2);
	CHECK(r.received && !r.ok && strstr(r.message, "set_media") != NULL,
		"run opens no path for a client: %s", r.message);
	CHECK(output_kind_is(&server, "image"));

	/* An array that does not end with NUL is a protocol error. */
	struct wl_array array;
	wl_array_init(&array);
	memcpy(wl_array_add(&array, 4), "next", 4);
	struct zveil_control_result_v1 *proxy =
		zveil_control_manager_v1_run(client.manager, NULL, &array);
	wl_array_release(&array);
	status_destroy(status);
	expect_protocol_error(&server, &client, proxy, ZVEIL_CONTROL_MANAGER_V1_ERROR_INVALID_WORDS,
		"words without a NUL");
	client_disconnect(&server, &client);

	/* A version 1 client gets no details. */
	client = (struct client){ .version = 1 };
	client_connect(&server, &client);
	status = status_create(&server, &client);
	CHECK(status->dones == 1 && status->last.outputs[0].details == 0,
		"version 1: no details (%d)", status->last.outputs[0].details);
	status_destroy(status);
	client_disconnect(&server, &client);
	server_finish(&server);
}

static void test_filter_and_sandbox(void) {
	struct server server;
	server_init(&server, true);

	/* The compositor's filter refuses: commands and status fail with "denied". */
	server.refuse = true;
	struct client refused = {0};
	client_connect(&server, &refused);
	CHECK(refused.manager != NULL); /* no display filter yet: the global is visible */
	struct result r = set_color(&server, &refused, NULL, 0xffffff);
	CHECK(r.received && !r.ok && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_DENIED);
	CHECK(output_kind_is(&server, "none"));
	struct status *status = status_create(&server, &refused);
	CHECK(status->failed && status->reason == ZVEIL_CONTROL_RESULT_V1_REASON_DENIED);
	CHECK(status->dones == 0);
	status_destroy(status);
	CHECK(server.filter_calls > 0);

	/* With the display filter, refused clients do not even see the global. */
	wl_display_set_global_filter(server.display, display_filter, &server);
	struct client hidden = {0};
	client_connect(&server, &hidden);
	CHECK(hidden.manager == NULL && hidden.security != NULL);
	client_disconnect(&server, &hidden);
	server.refuse = false;

	/* The default filter: a client of this user is trusted, a sandboxed one is not. */
	struct client trusted = {0};
	client_connect(&server, &trusted);
	CHECK(trusted.manager != NULL && trusted.security != NULL);
	r = set_color(&server, &trusted, NULL, 0x00ff00);
	CHECK(r.ok, "trusted client: %s", r.message);

	char dir[] = "/tmp/veil-test-sandbox-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/wayland-sandbox", dir);
	int listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	CHECK(listen(listen_fd, 4) == 0);
	int close_fds[2];
	CHECK(pipe2(close_fds, O_CLOEXEC) == 0);
	struct wp_security_context_v1 *context = wp_security_context_manager_v1_create_listener(
		trusted.security, listen_fd, close_fds[0]);
	wp_security_context_v1_set_sandbox_engine(context, "org.example.veil-test");
	wp_security_context_v1_set_app_id(context, "org.example.Sandboxed");
	wp_security_context_v1_commit(context);
	wp_security_context_v1_destroy(context);
	close(listen_fd);
	close(close_fds[0]);
	CHECK(pump(&server, &trusted));

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	struct client sandboxed = {0};
	client_connect_fd(&server, &sandboxed, fd);
	CHECK(!sandboxed.lost);
	CHECK(sandboxed.manager == NULL); /* hidden by the display filter */
	client_disconnect(&server, &sandboxed);

	/* Without the display filter it binds, and every command is denied all the same. */
	wl_display_set_global_filter(server.display, NULL, NULL);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	client_connect_fd(&server, &sandboxed, fd);
	CHECK(sandboxed.manager != NULL);
	if (sandboxed.manager != NULL) {
		r = set_color(&server, &sandboxed, NULL, 0xff00ff);
		CHECK(r.received && !r.ok && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_DENIED);
		CHECK(output_kind_is(&server, "color"));
	}
	client_disconnect(&server, &sandboxed);
	close(close_fds[1]);
	unlink(addr.sun_path);
	rmdir(dir);

	client_disconnect(&server, &refused);
	client_disconnect(&server, &trusted);
	server_finish(&server);
}

/* Clients that go at awkward moments, and the global going while clients hold it. */
static void test_lifetimes(void) {
	struct server server;
	server_init(&server, true);

	/* A watcher that disconnects while a description for it is pending. */
	struct client watcher = {0}, other = {0};
	client_connect(&server, &watcher);
	client_connect(&server, &other);
	struct status *status = status_create(&server, &watcher);
	CHECK(status->dones == 1);
	struct zveil_control_result_v1 *pending =
		zveil_control_manager_v1_set_color(other.manager, NULL, 0x123456);
	struct result r = {0};
	zveil_control_result_v1_add_listener(pending, &result_listener, &r);
	wl_display_flush(other.display);
	/* The command runs, the idle description is scheduled, then the watcher goes. */
	wl_event_loop_dispatch(server.loop, 0);
	status_destroy(status);
	client_disconnect(&server, &watcher);
	pump(&server, &other);
	CHECK(r.received && r.ok);

	/* A client that sends a command and goes before reading the answer. */
	int fd = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	pending = zveil_control_manager_v1_set_wallpaper(other.manager, NULL, fd, "gone",
		ZVEIL_CONTROL_MANAGER_V1_MODE_FIT, 0);
	close(fd);
	wl_display_flush(other.display);
	zveil_control_result_v1_destroy(pending);
	client_disconnect(&server, &other);
	wl_event_loop_dispatch(server.loop, 0);

	/* The scene goes while a client holds the manager and a status object. */
	struct client holder = {0};
	client_connect(&server, &holder);
	status = status_create(&server, &holder);
	CHECK(status->dones == 1);
	veil_scene_destroy(server.scene);
	server.scene = NULL;
	pump(&server, &holder);
	CHECK(status->failed && status->reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);
	r = set_color(&server, &holder, NULL, 0);
	CHECK(r.received && !r.ok && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);
	struct status *late = status_create(&server, &holder);
	CHECK(late->failed && late->reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);
	status_destroy(late);
	fd = memfd_with("x", 1);
	r = set_fd(&server, &holder, NULL, fd, NULL);
	close(fd);
	CHECK(r.received && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);

	/* Binding the removed global before it is destroyed gives an object that fails. */
	struct wl_registry *registry = wl_display_get_registry(holder.display);
	struct zveil_control_manager_v1 *late_manager = wl_registry_bind(registry,
		holder.manager_name, &zveil_control_manager_v1_interface, 1);
	r = wait_result(&server, &holder, zveil_control_manager_v1_off(late_manager, NULL));
	CHECK(r.received && r.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);
	CHECK(!holder.lost);
	zveil_control_manager_v1_destroy(late_manager);
	wl_registry_destroy(registry);
	status_destroy(status);
	pump(&server, &holder);
	client_disconnect(&server, &holder);
	/* The removed global is destroyed with the display, before its timer. */
	server_finish(&server);

	/* The display goes first, with a client still bound: the scene follows later. */
	server_init(&server, true);
	client_connect(&server, &holder);
	status = status_create(&server, &holder);
	wlr_backend_destroy(server.backend);
	server.backend = NULL;
	wl_display_destroy_clients(server.display);
	wl_display_destroy(server.display);
	server.display = NULL;
	veil_scene_destroy(server.scene);
	server.scene = NULL;
	status_destroy(status);
	client_close(&holder);
	wlr_scene_node_destroy(&server.wlr_scene->tree.node);
}

/* ---- Snapshots (version 3) ---- */

struct snap {
	bool received, ok;
	int fd;
	uint32_t format, width, height, stride, reason;
	char message[4096];
};

static void snap_handle_ready(void *data, struct zveil_control_snapshot_v1 *proxy, int32_t fd,
		uint32_t format, uint32_t width, uint32_t height, uint32_t stride) {
	struct snap *snap = data;
	*snap = (struct snap){ .received = true, .ok = true, .fd = fd, .format = format,
		.width = width, .height = height, .stride = stride };
	zveil_control_snapshot_v1_destroy(proxy);
}

static void snap_handle_failed(void *data, struct zveil_control_snapshot_v1 *proxy,
		uint32_t reason, const char *message) {
	struct snap *snap = data;
	*snap = (struct snap){ .received = true, .fd = -1, .reason = reason };
	copy(snap->message, sizeof(snap->message), message);
	zveil_control_snapshot_v1_destroy(proxy);
}

static const struct zveil_control_snapshot_v1_listener snap_listener = {
	.ready = snap_handle_ready,
	.failed = snap_handle_failed,
};

/* Runs the server (its worker fills the memfd) until the snapshot's event comes. */
static struct snap take_snapshot(struct server *server, struct client *client,
		const char *output, uint32_t max_width, uint32_t max_height) {
	struct snap snap = { .fd = -1 };
	struct zveil_control_snapshot_v1 *proxy = zveil_control_manager_v1_snapshot(
		client->manager, output, max_width, max_height);
	zveil_control_snapshot_v1_add_listener(proxy, &snap_listener, &snap);
	for (int i = 0; i < 500 && !snap.received && !client->lost; i++) {
		pump(server, client);
		if (!snap.received) {
			wl_event_loop_dispatch(server->loop, 10);
		}
	}
	return snap;
}

static void test_snapshot(void) {
	struct server server;
	server_init(&server, true);
	struct client client = { .version = 3 };
	client_connect(&server, &client);
	if (!CHECK(client.manager != NULL &&
			zveil_control_manager_v1_get_version(client.manager) == 3)) {
		return;
	}

	/* Nothing set: refused, and the reason says so. */
	struct snap snap = take_snapshot(&server, &client, NULL, 0, 0);
	CHECK(snap.received && !snap.ok && snap.reason == ZVEIL_CONTROL_RESULT_V1_REASON_NOT_SHOWN,
		"nothing shown: %s", snap.message);
	snap = take_snapshot(&server, &client, "NOPE-9", 0, 0);
	CHECK(snap.received && !snap.ok &&
		snap.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNKNOWN_OUTPUT &&
		strstr(snap.message, "NOPE-9") != NULL, "unknown output: %s", snap.message);
	snap = take_snapshot(&server, &client, NULL, 20000, 10);
	CHECK(snap.received && !snap.ok, "20000 wide: refused");

	/* A colour: WxH of it, in a sealed memfd. */
	struct result r = set_color(&server, &client, NULL, 0x203040);
	CHECK(r.ok, "%s", r.message);
	snap = take_snapshot(&server, &client, NULL, 4, 2);
	if (CHECK(snap.received && snap.ok, "a colour: %s", snap.message)) {
		CHECK(snap.width == 4 && snap.height == 2 && snap.stride == 16 &&
			snap.format == 0x34324258 /* XB24 */, "%ux%u stride %u format %08x",
			snap.width, snap.height, snap.stride, snap.format);
		int seals = fcntl(snap.fd, F_GET_SEALS);
		CHECK(seals >= 0 && (seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)) ==
			(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW), "seals %x", seals);
		uint8_t *p = mmap(NULL, 32, PROT_READ, MAP_PRIVATE, snap.fd, 0);
		if (CHECK(p != MAP_FAILED)) {
			CHECK(p[0] == 0x20 && p[1] == 0x30 && p[2] == 0x40 && p[31] == 0xff);
			munmap(p, 32);
		}
		close(snap.fd);
	}

	/* A still: its frame, scaled down to fit. */
	int fd = open(wallpaper_path, O_RDONLY | O_CLOEXEC);
	r = set_fd(&server, &client, NULL, fd, NULL);
	close(fd);
	CHECK(r.ok && wait_loaded(&server, &client), "%s", r.message);
	snap = take_snapshot(&server, &client, server.output->name, 16, 16);
	if (CHECK(snap.received && snap.ok, "a still: %s", snap.message)) {
		CHECK(snap.width <= 16 && snap.height <= 16 && (snap.width == 16 ||
			snap.height == 16), "%ux%u", snap.width, snap.height);
		close(snap.fd);
	}

	/* The client destroys the object, or goes, while the worker fills the memfd. */
	struct zveil_control_snapshot_v1 *proxy =
		zveil_control_manager_v1_snapshot(client.manager, NULL, 0, 0);
	zveil_control_snapshot_v1_destroy(proxy);
	pump(&server, &client);
	for (int i = 0; i < 20; i++) {
		wl_event_loop_dispatch(server.loop, 10);
	}
	CHECK(pump(&server, &client) && !client.lost, "the client is still connected");
	proxy = zveil_control_manager_v1_snapshot(client.manager, NULL, 0, 0);
	wl_display_flush(client.display);
	wl_event_loop_dispatch(server.loop, 0);
	/* Freed here, never sent: the server sees the client hang up with the object alive. */
	zveil_control_snapshot_v1_destroy(proxy);
	client_disconnect(&server, &client);
	for (int i = 0; i < 20; i++) {
		wl_event_loop_dispatch(server.loop, 10);
	}

	/* The scene goes while a snapshot is under way: failed, unavailable. */
	client = (struct client){ .version = 3 };
	client_connect(&server, &client);
	snap = (struct snap){ .fd = -1 };
	proxy = zveil_control_manager_v1_snapshot(client.manager, NULL, 0, 0);
	zveil_control_snapshot_v1_add_listener(proxy, &snap_listener, &snap);
	wl_display_flush(client.display);
	wl_event_loop_dispatch(server.loop, 0);
	veil_scene_destroy(server.scene);
	server.scene = NULL;
	pump(&server, &client);
	CHECK(snap.received && (snap.ok || snap.reason ==
		ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE), "the scene went: %s", snap.message);
	if (snap.ok) {
		close(snap.fd);
	}
	snap = take_snapshot(&server, &client, NULL, 0, 0);
	CHECK(snap.received && snap.reason == ZVEIL_CONTROL_RESULT_V1_REASON_UNAVAILABLE);
	client_disconnect(&server, &client);
	server_finish(&server);
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: test-control WALLPAPER.png\n");
		return 2;
	}
	wallpaper_path = argv[1];
	wlr_log_init(WLR_SILENT, NULL);
	test_commands();
	test_bad_media();
	test_protocol_errors();
	test_words();
	test_filter_and_sandbox();
	test_lifetimes();
	test_snapshot();
	return check_summary("control");
}
