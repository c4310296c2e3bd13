/* veilctl: the command line to a run (veilctl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "clients/veilctl/veilctl.h"
#include "veil-control-unstable-v1-client-protocol.h"

void veilctl_die_oom(void) {
	fprintf(stderr, "veilctl: out of memory\n");
	exit(EXIT_USAGE);
}

char *veilctl_strdup(const char *s) {
	if (s == NULL) {
		return NULL;
	}
	char *copy = strdup(s);
	if (copy == NULL) {
		veilctl_die_oom();
	}
	return copy;
}

int main(int argc, char *argv[]) {
	struct options opts = {0};
	veilctl_args_parse(argc, argv, &opts);

	struct client client = {0};
	int ret;
	if (opts.action == ACTION_STATUS) {
		ret = veilctl_status_run(&client, &opts);
	} else if (opts.action == ACTION_WATCH) {
		ret = veilctl_watch_run(&client, &opts);
	} else if (opts.action == ACTION_SNAPSHOT) {
		ret = veilctl_snapshot_run(&client, &opts);
	} else {
		ret = veilctl_command_run(&client, &opts);
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
