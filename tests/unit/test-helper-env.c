/*
 * The helpers' environment (source/remote/process.c, spare.c): the process's as it was when the
 * spare was made, copied then on the compositor's thread, so that no veil thread reads environ
 * while a compositor may change it. Started here: a program of this test (argv[1]) that writes
 * its environment to its VEIL_WIRE_FD as the real veil-decoder would read requests from it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "source/remote/spare.h"
#include "wire/wire.h"
#include "check.h"

/* The started program: its environment, each entry NUL-ended, on its socket. */
static int dump_environment(void) {
	extern char **environ;
	for (char **e = environ; *e != NULL; e++) {
		if (write(VEIL_WIRE_FD, *e, strlen(*e) + 1) < 0) {
			return 1;
		}
	}
	return 0;
}

/* What the helper wrote, up to its exit. */
static size_t read_all(int fd, char *buf, size_t size) {
	size_t len = 0;
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		len += (size_t)n;
	}
	return len;
}

/* Whether entry is one of the NUL-ended strings in buf. */
static bool has(const char *buf, size_t len, const char *entry) {
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		if (strcmp(buf + i, entry) == 0) {
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv) {
	if (getenv("HELPER_ENV_DUMP") != NULL) {
		return dump_environment();
	}
	setenv("HELPER_ENV_DUMP", "1", 1);
	setenv("HELPER_ENV_BEFORE", "kept", 1);
	struct veil_helper_spare *spare = veil_helper_spare_create(argv[0], 10000);
	CHECK(spare != NULL);
	/* A compositor changing its environment after veil started (sway's, at its start). */
	setenv("HELPER_ENV_AFTER", "unseen", 1);
	unsetenv("HELPER_ENV_BEFORE");

	struct veil_helper helper;
	char *message = NULL;
	int ret = veil_helper_spare_take(spare, &helper, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	free(message);
	if (ret == 0) {
		/* SOCK_SEQPACKET: each write is one record; read them all up to the exit. */
		static char buf[1 << 20];
		size_t len = read_all(helper.sock, buf, sizeof(buf));
		CHECK(len > 0);
		CHECK(has(buf, len, "HELPER_ENV_BEFORE=kept"), "the environment at create");
		CHECK(has(buf, len, "HELPER_ENV_DUMP=1"));
		CHECK(!has(buf, len, "HELPER_ENV_AFTER=unseen"), "a change after create");
		veil_helper_end(&helper, VEIL_HELPER_EXIT_GRACE_MS);
	}
	veil_helper_spare_destroy(spare);
	veil_helper_spare_destroy(NULL);
	return check_summary("helper-env");
}
