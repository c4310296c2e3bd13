/*
 * sway's IPC on a unix socket: each message is "i3-ipc", a u32 payload length, a u32 type (host
 * byte order) and the payload; each reply has the same header and the request's type.
 *
 * Clients are not trusted: sockets are non-blocking, a message is read in pieces as it arrives,
 * a bad magic or an oversized payload drops the client, and replies are queued and written when
 * the socket takes them, up to a limit past which a client that does not read is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "tinywl.h"

#define IPC_MAGIC "i3-ipc"
#define IPC_MAGIC_LEN 6
#define IPC_HEADER_LEN (IPC_MAGIC_LEN + 2 * sizeof(uint32_t))
/* Far above any command; enough to refuse a length that is garbage. */
#define IPC_MAX_PAYLOAD (1u << 20)
#define IPC_MAX_QUEUED (4u << 20)
#define IPC_MAX_CLIENTS 64
#define IPC_ACCEPT_RETRY_MS 200
#define IPC_READ_CHUNK 16384

enum ipc_type {
	IPC_COMMAND = 0,
	IPC_GET_WORKSPACES = 1,
	IPC_SUBSCRIBE = 2,
	IPC_GET_OUTPUTS = 3,
	IPC_GET_TREE = 4,
	IPC_GET_MARKS = 5,
	IPC_GET_BAR_CONFIG = 6,
	IPC_GET_VERSION = 7,
	IPC_GET_BINDING_MODES = 8,
	IPC_GET_CONFIG = 9,
	IPC_SEND_TICK = 10,
	IPC_SYNC = 11,
	IPC_GET_BINDING_STATE = 12,
	IPC_GET_INPUTS = 100,
	IPC_GET_SEATS = 101,
};

/* Events have the high bit set. */
#define IPC_EVENT_TICK ((uint32_t)1 << 31 | 7)

struct tw_ipc {
	struct tw_server *server;
	int fd;
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	struct wl_event_source *source;
	/* Re-enables accepting after it failed for want of descriptors or memory. */
	struct wl_event_source *retry;
	struct wl_list clients; // ipc_client.link
	int client_count;
};

struct ipc_client {
	struct wl_list link; // tw_ipc.clients
	struct tw_ipc *ipc;
	int fd;
	struct wl_event_source *source;
	bool dead; // to be dropped once the current event is handled

	uint8_t header[IPC_HEADER_LEN];
	size_t header_len;
	uint32_t payload_len;
	uint32_t type;
	char *payload;
	size_t payload_read;

	char *out;
	size_t out_len, out_cap;
};

static void client_destroy(struct ipc_client *client) {
	wl_event_source_remove(client->source);
	close(client->fd);
	wl_list_remove(&client->link);
	client->ipc->client_count--;
	free(client->payload);
	free(client->out);
	free(client);
}

/* Writes what the socket takes now; the rest waits for the socket to be writable. */
static void client_flush(struct ipc_client *client) {
	while (client->out_len > 0) {
		ssize_t n = send(client->fd, client->out, client->out_len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				client->dead = true;
			}
			break;
		}
		memmove(client->out, client->out + n, client->out_len - n);
		client->out_len -= n;
	}
	uint32_t mask = WL_EVENT_READABLE;
	if (client->out_len > 0) {
		mask |= WL_EVENT_WRITABLE;
	}
	wl_event_source_fd_update(client->source, mask);
}

static void client_send(struct ipc_client *client, uint32_t type, const char *payload) {
	size_t len = strlen(payload);
	size_t need = client->out_len + IPC_HEADER_LEN + len;
	if (len > UINT32_MAX || need > IPC_MAX_QUEUED) {
		wlr_log(WLR_INFO, "IPC client does not read its replies; dropping it");
		client->dead = true;
		return;
	}
	if (need > client->out_cap) {
		size_t cap = client->out_cap > 0 ? client->out_cap : 4096;
		while (cap < need) {
			cap *= 2;
		}
		char *out = realloc(client->out, cap);
		if (out == NULL) {
			client->dead = true;
			return;
		}
		client->out = out;
		client->out_cap = cap;
	}
	uint32_t header[2] = { (uint32_t)len, type };
	char *p = client->out + client->out_len;
	memcpy(p, IPC_MAGIC, IPC_MAGIC_LEN);
	memcpy(p + IPC_MAGIC_LEN, header, sizeof(header));
	memcpy(p + IPC_HEADER_LEN, payload, len);
	client->out_len = need;
	client_flush(client);
}

static void client_send_json(struct ipc_client *client, uint32_t type, struct json_object *json) {
	if (json == NULL) {
		client->dead = true;
		return;
	}
	client_send(client, type, json_object_to_json_string_ext(json, JSON_C_TO_STRING_PLAIN));
	json_object_put(json);
}

static struct json_object *new_object_with(const char *key, struct json_object *value) {
	struct json_object *object = json_object_new_object();
	if (object != NULL) {
		json_object_object_add(object, key, value);
	}
	return object;
}

/* sway answers SUBSCRIBE for known events; we never emit any, but accept the same names. */
static void handle_subscribe(struct ipc_client *client, const char *payload) {
	static const char *const events[] = { "workspace", "output", "mode", "window",
		"barconfig_update", "binding", "shutdown", "tick", "bar_state_update", "input" };
	struct json_object *request = json_tokener_parse(payload);
	bool ok = request != NULL && json_object_is_type(request, json_type_array);
	bool tick = false;
	for (size_t i = 0; ok && i < json_object_array_length(request); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(request, i));
		bool known = false;
		for (size_t j = 0; name != NULL && j < sizeof(events) / sizeof(events[0]); j++) {
			known = known || strcmp(name, events[j]) == 0;
		}
		ok = known;
		tick = tick || (known && strcmp(name, "tick") == 0);
	}
	json_object_put(request);
	client_send_json(client, IPC_SUBSCRIBE,
		new_object_with("success", json_object_new_boolean(ok)));
	if (ok && tick) {
		client_send(client, IPC_EVENT_TICK, "{\"first\":true,\"payload\":\"\"}");
	}
}

static void handle_message(struct ipc_client *client, uint32_t type, const char *payload) {
	struct tw_server *server = client->ipc->server;
	switch (type) {
	case IPC_COMMAND:
		client_send_json(client, type, commands_run_ipc(server, payload));
		break;
	case IPC_GET_OUTPUTS:
		client_send_json(client, type, json_describe_outputs(server));
		break;
	case IPC_GET_VERSION:
		client_send_json(client, type, json_describe_version(server));
		break;
	case IPC_SUBSCRIBE:
		handle_subscribe(client, payload);
		break;
	case IPC_GET_CONFIG:
		client_send_json(client, type, new_object_with("config",
			json_object_new_string(server->config_text != NULL ? server->config_text : "")));
		break;
	case IPC_GET_BINDING_STATE:
		client_send(client, type, "{\"name\":\"default\"}");
		break;
	case IPC_GET_BINDING_MODES:
		client_send(client, type, "[\"default\"]");
		break;
	case IPC_GET_BAR_CONFIG:
		client_send(client, type, payload[0] == '\0' ? "[]" :
			"{\"success\":false,\"error\":\"No bar with that ID\"}");
		break;
	case IPC_GET_WORKSPACES:
		client_send_json(client, type, json_describe_workspaces(server));
		break;
	case IPC_GET_MARKS:
	case IPC_GET_INPUTS:
	case IPC_GET_SEATS:
		/* No marks or inputs worth describing. */
		client_send(client, type, "[]");
		break;
	case IPC_GET_TREE:
		client_send(client, type, "{\"id\":1,\"type\":\"root\",\"name\":\"root\","
			"\"nodes\":[],\"floating_nodes\":[],\"focus\":[]}");
		break;
	case IPC_SEND_TICK:
		client_send(client, type, "{\"success\":true}");
		break;
	case IPC_SYNC:
		client_send(client, type, "{\"success\":false}");
		break;
	default:
		/* As sway: an unknown type gets no reply. */
		wlr_log(WLR_INFO, "IPC: unknown message type %u", type);
		break;
	}
}

/* Feeds received bytes to the message being read; false when the client must go. */
static bool client_consume(struct ipc_client *client, const char *data, size_t len) {
	while (len > 0 && !client->dead) {
		if (client->header_len < IPC_HEADER_LEN) {
			size_t n = IPC_HEADER_LEN - client->header_len;
			n = n < len ? n : len;
			memcpy(client->header + client->header_len, data, n);
			client->header_len += n;
			data += n;
			len -= n;
			if (client->header_len < IPC_HEADER_LEN) {
				break;
			}
			if (memcmp(client->header, IPC_MAGIC, IPC_MAGIC_LEN) != 0) {
				wlr_log(WLR_INFO, "IPC client sent a bad magic; dropping it");
				return false;
			}
			memcpy(&client->payload_len, client->header + IPC_MAGIC_LEN, sizeof(uint32_t));
			memcpy(&client->type, client->header + IPC_MAGIC_LEN + sizeof(uint32_t),
				sizeof(uint32_t));
			if (client->payload_len > IPC_MAX_PAYLOAD) {
				wlr_log(WLR_INFO, "IPC client sent a %u byte payload; dropping it",
					client->payload_len);
				return false;
			}
			client->payload = malloc(client->payload_len + 1);
			if (client->payload == NULL) {
				return false;
			}
			client->payload_read = 0;
		}

		size_t n = client->payload_len - client->payload_read;
		n = n < len ? n : len;
		memcpy(client->payload + client->payload_read, data, n);
		client->payload_read += n;
		data += n;
		len -= n;
		if (client->payload_read < client->payload_len) {
			break;
		}

		client->payload[client->payload_len] = '\0';
		handle_message(client, client->type, client->payload);
		free(client->payload);
		client->payload = NULL;
		client->header_len = 0;
	}
	return !client->dead;
}

static int client_handle_event(int fd, uint32_t mask, void *data) {
	struct ipc_client *client = data;

	if (mask & WL_EVENT_WRITABLE) {
		client_flush(client);
	}
	/* One chunk per event: the loop comes back while more is waiting, others get their turn. */
	if (!client->dead && (mask & WL_EVENT_READABLE)) {
		char buf[IPC_READ_CHUNK];
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0) {
			client->dead = true;
		} else if (n < 0) {
			client->dead = errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
		} else if (!client_consume(client, buf, n)) {
			client->dead = true;
		}
	} else if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		client->dead = true;
	}

	if (client->dead) {
		client_destroy(client);
	}
	return 0;
}

static int handle_retry(void *data) {
	struct tw_ipc *ipc = data;
	wl_event_source_fd_update(ipc->source, WL_EVENT_READABLE);
	return 0;
}

static int handle_connection(int fd, uint32_t mask, void *data) {
	struct tw_ipc *ipc = data;
	int client_fd = accept(fd, NULL, NULL);
	if (client_fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/*
			 * The waiting connection stays readable: without a pause the loop would spin
			 * on it. Stop listening for a while; the client waits in the backlog.
			 */
			wlr_log_errno(WLR_ERROR, "IPC: cannot accept a client now; retrying in %d ms",
				IPC_ACCEPT_RETRY_MS);
			wl_event_source_fd_update(ipc->source, 0);
			wl_event_source_timer_update(ipc->retry, IPC_ACCEPT_RETRY_MS);
		} else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
			wlr_log_errno(WLR_ERROR, "IPC: accept failed");
		}
		return 0;
	}
	if (fcntl(client_fd, F_SETFD, FD_CLOEXEC) < 0 ||
			fcntl(client_fd, F_SETFL, fcntl(client_fd, F_GETFL) | O_NONBLOCK) < 0) {
		close(client_fd);
		return 0;
	}
	if (ipc->client_count >= IPC_MAX_CLIENTS) {
		wlr_log(WLR_INFO, "IPC: too many clients; refusing one");
		close(client_fd);
		return 0;
	}

	struct ipc_client *client = calloc(1, sizeof(*client));
	if (client == NULL) {
		close(client_fd);
		return 0;
	}
	client->ipc = ipc;
	client->fd = client_fd;
	client->source = wl_event_loop_add_fd(ipc->server->loop, client_fd, WL_EVENT_READABLE,
		client_handle_event, client);
	if (client->source == NULL) {
		close(client_fd);
		free(client);
		return 0;
	}
	wl_list_insert(&ipc->clients, &client->link);
	ipc->client_count++;
	return 0;
}

/* True when a server answers on path (another compositor's socket we must not take). */
static bool socket_in_use(const struct sockaddr_un *addr) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return false;
	}
	bool in_use = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return in_use;
}

static bool set_path(struct sockaddr_un *addr, const char *path) {
	if (strlen(path) >= sizeof(addr->sun_path)) {
		wlr_log(WLR_ERROR, "IPC socket path too long: %s", path);
		return false;
	}
	strcpy(addr->sun_path, path);
	return true;
}

static bool choose_path(struct sockaddr_un *addr) {
	const char *swaysock = getenv("SWAYSOCK");
	if (swaysock != NULL && swaysock[0] != '\0') {
		if (!set_path(addr, swaysock)) {
			return false;
		}
		if (!socket_in_use(addr)) {
			return true;
		}
		/* Nested in sway, SWAYSOCK is sway's: keep out of its way, as sway does. */
		wlr_log(WLR_INFO, "SWAYSOCK %s is in use; using the default path", swaysock);
	}
	const char *dir = getenv("XDG_RUNTIME_DIR");
	if (dir == NULL || dir[0] == '\0') {
		wlr_log(WLR_ERROR, "XDG_RUNTIME_DIR is not set");
		return false;
	}
	char path[sizeof(addr->sun_path) + 1];
	int n = snprintf(path, sizeof(path), "%s/veil-tinywl.%d.sock", dir, (int)getpid());
	return n > 0 && (size_t)n < sizeof(path) && set_path(addr, path);
}

struct tw_ipc *ipc_create(struct tw_server *server) {
	struct tw_ipc *ipc = calloc(1, sizeof(*ipc));
	if (ipc == NULL) {
		return NULL;
	}
	ipc->server = server;
	wl_list_init(&ipc->clients);

	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (!choose_path(&addr)) {
		goto error_ipc;
	}
	ipc->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ipc->fd < 0) {
		wlr_log_errno(WLR_ERROR, "cannot create the IPC socket");
		goto error_ipc;
	}
	/* A socket left behind by a compositor that died: nobody answers on it any more. */
	unlink(addr.sun_path);
	if (bind(ipc->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		wlr_log_errno(WLR_ERROR, "cannot bind the IPC socket to %s", addr.sun_path);
		goto error_fd;
	}
	strcpy(ipc->path, addr.sun_path);
	if (listen(ipc->fd, 16) < 0) {
		wlr_log_errno(WLR_ERROR, "cannot listen on %s", ipc->path);
		goto error_bound;
	}
	ipc->source = wl_event_loop_add_fd(server->loop, ipc->fd, WL_EVENT_READABLE,
		handle_connection, ipc);
	if (ipc->source == NULL) {
		goto error_bound;
	}
	ipc->retry = wl_event_loop_add_timer(server->loop, handle_retry, ipc);
	if (ipc->retry == NULL) {
		wl_event_source_remove(ipc->source);
		goto error_bound;
	}
	setenv("SWAYSOCK", ipc->path, true);
	return ipc;

error_bound:
	unlink(ipc->path);
error_fd:
	close(ipc->fd);
error_ipc:
	free(ipc);
	return NULL;
}

const char *ipc_get_path(struct tw_ipc *ipc) {
	return ipc->path;
}

void ipc_destroy(struct tw_ipc *ipc) {
	if (ipc == NULL) {
		return;
	}
	struct ipc_client *client, *tmp;
	wl_list_for_each_safe(client, tmp, &ipc->clients, link) {
		/* The reply to "exit" is still queued: one last try, without waiting. */
		if (!client->dead && client->out_len > 0) {
			send(client->fd, client->out, client->out_len, MSG_NOSIGNAL);
		}
		client_destroy(client);
	}
	wl_event_source_remove(ipc->retry);
	wl_event_source_remove(ipc->source);
	close(ipc->fd);
	unlink(ipc->path);
	free(ipc);
}
