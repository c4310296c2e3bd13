/* The file veilctl hands the compositor: opened here, read there. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clients/veilctl/veilctl.h"

/*
 * Opens what the compositor will read. O_NONBLOCK: a FIFO must not hang veilctl, and the
 * compositor tells the user that it needs a regular file.
 */
int veilctl_media_open(const char *file, char **label) {
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
			*label = veilctl_strdup(path);
		} else {
			*label = veilctl_strdup("standard input");
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
	*label = resolved != NULL ? resolved : veilctl_strdup(file);
	return fd;
}
