/* realpath() is an XSI function. */
#define _XOPEN_SOURCE 700
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/util/log.h>
#include "compat.h"
#include "tinywl.h"

static const char usage[] =
	"Usage: veil-tinywl [-c config] [-s command]... [--renderer import|pixman]\n"
	"                   [--decoding default|isolated|inprocess] [--decoder-timeout MS]\n"
	"                   [--power-supply DIR] [--power-poll MS] [--workspace-pictures N]\n"
	"                   [--fake-clock SECONDS] [--xray] [-d|-q] [-h]\n"
	"\n"
	"A small wlroots compositor that draws wallpapers with veil and speaks sway's IPC.\n"
	"\n"
	"  -c FILE     run the commands of FILE (one a line, # comments) once outputs exist\n"
	"  -s COMMAND  run COMMAND with /bin/sh -c once ready (may be repeated)\n"
	"  --renderer import|pixman\n"
	"              pixman: wlroots' pixman renderer; import: the importing test renderer\n"
	"              (dmabufs read through their fds; only when built with the tests).\n"
	"              Default: wlr_renderer_autocreate(). SIGUSR1 swaps import and pixman.\n"
	"  --decoding default|isolated|inprocess\n"
	"              where veil decodes (veil_scene_options.decoding)\n"
	"  --decoder-timeout MS\n"
	"              how long one decode in veil-decoder may take (default 30000)\n"
	"  --power-supply DIR, --power-poll MS\n"
	"              where and how often veil reads whether the machine runs on battery\n"
	"              (default /sys/class/power_supply, once a minute)\n"
	"  --workspace-pictures N\n"
	"              pictures of workspaces an output does not show kept decoded for it\n"
	"              (default 3; 0 none)\n"
	"  --fake-clock SECONDS\n"
	"              the wall clock veil's timed backgrounds follow starts at SECONDS since\n"
	"              the epoch; the command `fake_clock SECONDS` moves it (only when built\n"
	"              with the tests)\n"
	"  --xray      an xray node (veil_xray_create()) under each window, covering it\n"
	"  -d          log everything wlroots says\n"
	"  -q          log errors only\n"
	"  -h          show this help\n"
	"\n"
	"When ready, prints 'ready WAYLAND_DISPLAY=<name> SWAYSOCK=<path>' on stdout.\n"
	"The IPC socket is $SWAYSOCK, else $XDG_RUNTIME_DIR/veil-tinywl.<pid>.sock.\n"
	"Commands (swaymsg, -c): output <name|*> veil ...; output <name|*> mode|resolution\n"
	"WxH[@Hz] | scale S | transform T | position X Y | enable | disable | power on|off;\n"
	"output <name> unplug; create_output (a 1280x720 headless output); workspace <name>|\n"
	"next|prev (on the output under the pointer); rename workspace [<old>] to <new>;\n"
	"focus output <name> (the pointer to its middle); move workspace to output <name>;\n"
	"move position X Y (the focused window's, else the newest's, top left in the layout);\n"
	"exit.\n"
	"Headless: WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=N.\n";

static int handle_terminate_signal(int signal, void *data) {
	struct tw_server *server = data;
	wlr_log(WLR_INFO, "%s: exiting", strsignal(signal));
	server_terminate(server);
	return 0;
}

static int handle_sigchld(int signal, void *data) {
	/* Reap the -s commands (and what they leave behind) as they end. */
	while (waitpid(-1, NULL, WNOHANG) > 0) {
		continue;
	}
	return 0;
}

static void spawn(const char *command) {
	pid_t pid = fork();
	if (pid < 0) {
		wlr_log_errno(WLR_ERROR, "cannot run %s", command);
		return;
	}
	if (pid == 0) {
		/* The event loop blocks the signals it handles; the child must get them again. */
		sigset_t set;
		sigemptyset(&set);
		sigprocmask(SIG_SETMASK, &set, NULL);
		execl("/bin/sh", "/bin/sh", "-c", command, (char *)NULL);
		_exit(127);
	}
}

static int handle_sigusr1(int signal, void *data) {
	/* The renderer-replacement test: what a compositor does after a GPU reset. */
	server_swap_renderer(data);
	return 0;
}

static bool add_signals(struct tw_server *server) {
	server->sigint = wl_event_loop_add_signal(server->loop, SIGINT,
		handle_terminate_signal, server);
	server->sigterm = wl_event_loop_add_signal(server->loop, SIGTERM,
		handle_terminate_signal, server);
	server->sigchld = wl_event_loop_add_signal(server->loop, SIGCHLD, handle_sigchld, server);
	server->sigusr1 = wl_event_loop_add_signal(server->loop, SIGUSR1, handle_sigusr1, server);
	return server->sigint != NULL && server->sigterm != NULL && server->sigchld != NULL &&
		server->sigusr1 != NULL;
}

static void remove_signals(struct tw_server *server) {
	struct wl_event_source **sources[] = { &server->sigint, &server->sigterm, &server->sigchld,
		&server->sigusr1 };
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		if (*sources[i] != NULL) {
			wl_event_source_remove(*sources[i]);
			*sources[i] = NULL;
		}
	}
}

int main(int argc, char *argv[]) {
	const char *config = NULL;
	const char **startup = calloc(argc, sizeof(*startup));
	int startup_len = 0;
	enum wlr_log_importance verbosity = WLR_INFO;
	if (startup == NULL) {
		return EXIT_FAILURE;
	}

	static const struct option long_options[] = {
		{ "renderer", required_argument, NULL, 'r' },
		{ "decoding", required_argument, NULL, 'D' },
		{ "decoder-timeout", required_argument, NULL, 'T' },
		{ "power-supply", required_argument, NULL, 'P' },
		{ "power-poll", required_argument, NULL, 'p' },
		{ "workspace-pictures", required_argument, NULL, 'W' },
		{ "fake-clock", required_argument, NULL, 'F' },
		{ "xray", no_argument, NULL, 'X' },
		{ 0 },
	};
	struct veil_scene_options veil_options = { .size = sizeof(veil_options) };
	enum tw_renderer_kind renderer_kind = TW_RENDERER_AUTO;
	double fake_clock = 0;
	bool has_fake_clock = false;
	bool xray = false;
	int opt;
	while ((opt = getopt_long(argc, argv, "c:s:dqh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (strcmp(optarg, "pixman") == 0) {
				renderer_kind = TW_RENDERER_PIXMAN;
			} else if (strcmp(optarg, "import") == 0 && server_has_import_renderer()) {
				renderer_kind = TW_RENDERER_IMPORT;
			} else {
				fprintf(stderr, "veil-tinywl: --renderer %s: %s\n", optarg,
					strcmp(optarg, "import") == 0 ?
					"built without the tests, so without the importing renderer" :
					"expected import or pixman");
				free(startup);
				return EXIT_FAILURE;
			}
			break;
		case 'D':
			if (strcmp(optarg, "default") == 0) {
				veil_options.decoding = VEIL_DECODING_DEFAULT;
			} else if (strcmp(optarg, "isolated") == 0) {
				veil_options.decoding = VEIL_DECODING_ISOLATED;
			} else if (strcmp(optarg, "inprocess") == 0) {
				veil_options.decoding = VEIL_DECODING_IN_PROCESS;
			} else {
				fprintf(stderr, "veil-tinywl: --decoding %s: expected default, isolated "
					"or inprocess\n", optarg);
				free(startup);
				return EXIT_FAILURE;
			}
			break;
		case 'T':
			veil_options.decoder_timeout_ms = atoi(optarg);
			break;
		case 'P':
			veil_options.power_supply_dir = optarg;
			break;
		case 'p':
			veil_options.power_poll_ms = atoi(optarg);
			break;
		case 'W':
			/* veil's 0 is its default: none is negative there. */
			veil_options.workspace_pictures = atoi(optarg) > 0 ? atoi(optarg) : -1;
			break;
		case 'F':
#if TINYWL_HAVE_FAKE_CLOCK
			if (fake_clock_parse(optarg, &fake_clock)) {
				has_fake_clock = true;
				break;
			}
#endif
			fprintf(stderr, "veil-tinywl: --fake-clock %s: %s\n", optarg,
				TINYWL_HAVE_FAKE_CLOCK ? "expected seconds since the epoch" :
				"built without the tests, so without a fake clock");
			free(startup);
			return EXIT_FAILURE;
		case 'X':
			xray = true;
			break;
		case 'c':
			config = optarg;
			break;
		case 's':
			startup[startup_len++] = optarg;
			break;
		case 'd':
			verbosity = WLR_DEBUG;
			break;
		case 'q':
			verbosity = WLR_ERROR;
			break;
		case 'h':
			fputs(usage, stdout);
			free(startup);
			return EXIT_SUCCESS;
		default:
			fputs(usage, stderr);
			free(startup);
			return EXIT_FAILURE;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		free(startup);
		return EXIT_FAILURE;
	}
	wlr_log_init(verbosity, NULL);

	int ret = EXIT_FAILURE;
	struct tw_server server = { .renderer_kind = renderer_kind, .veil_options = veil_options,
		.xray = xray };
	if (config != NULL) {
		/* Absolute, for GET_VERSION's loaded_config_file_name. */
		server.config_path = realpath(config, NULL);
		if (server.config_path == NULL) {
			fprintf(stderr, "veil-tinywl: cannot open %s\n", config);
			goto out;
		}
	}

#if TINYWL_HAVE_FAKE_CLOCK
	if (has_fake_clock) {
		/* Handed to veil's scene as soon as server_init() makes it. */
		fake_clock_set(&server, fake_clock);
	}
#else
	(void)fake_clock;
	(void)has_fake_clock;
#endif
	if (!server_init(&server)) {
		goto out;
	}
	if (!add_signals(&server)) {
		wlr_log(WLR_ERROR, "cannot handle signals");
		goto out;
	}
	server.wayland_socket = wl_display_add_socket_auto(server.display);
	if (server.wayland_socket == NULL) {
		wlr_log(WLR_ERROR, "cannot open a Wayland socket (is XDG_RUNTIME_DIR set?)");
		goto out;
	}
	/* Creates the outputs that exist from the start (WLR_HEADLESS_OUTPUTS, DRM connectors). */
	if (!wlr_backend_start(server.backend)) {
		wlr_log(WLR_ERROR, "cannot start the backend");
		goto out;
	}
	outputs_start(&server);
	setenv("WAYLAND_DISPLAY", server.wayland_socket, true);
	server.ipc = ipc_create(&server);
	if (server.ipc == NULL) {
		goto out;
	}

	if (server.config_path != NULL && !commands_run_file(&server, server.config_path)) {
		goto out;
	}

	printf("ready WAYLAND_DISPLAY=%s SWAYSOCK=%s\n", server.wayland_socket,
		ipc_get_path(server.ipc));
	fflush(stdout);

	for (int i = 0; i < startup_len; i++) {
		spawn(startup[i]);
	}

	wlr_log(WLR_INFO, "running on WAYLAND_DISPLAY=%s with wlroots 0.%d", server.wayland_socket,
		VEIL_WLR_MINOR);
	/* The config may have said exit already. */
	if (!server.terminating) {
		wl_display_run(server.display);
	}
	ret = EXIT_SUCCESS;

out:
	ipc_destroy(server.ipc);
	server.ipc = NULL;
	remove_signals(&server);
	server_finish(&server);
	free(server.config_path);
	free(server.config_text);
	free(startup);
	return ret;
}
