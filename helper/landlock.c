#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "veil-config.h"
#if VEIL_HAVE_LANDLOCK
#include <linux/landlock.h>
#endif
#include "helper/landlock.h"
#include "util/message.h"

#if VEIL_HAVE_LANDLOCK

/* What every ABI knows (1), and what each later one adds. */
#define FS_ABI1 ((1ull << 13) - 1) /* EXECUTE ... MAKE_SYM */
#define FS_REFER (1ull << 13) /* ABI 2 */
#define FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define NET_TCP (3ull) /* ABI 4: BIND_TCP, CONNECT_TCP */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ull) /* ABI 6 */
#define SCOPE_SIGNAL (2ull) /* ABI 6 */

#define READ_DIR_RIGHTS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Read-only: the system's libraries, plugins and data, whatever the layout. */
static const char *const system_paths[] = {
	"/usr", "/lib", "/lib64", "/etc/ld.so.cache",
	"/proc/self", /* the process's own status and maps (libnuma, the sanitizers) */
	"/sys/devices/system/cpu", "/sys/devices/system/node", /* how many threads to start */
	/*
	 * fontconfig's configuration and the system's font caches, for text in SVG (librsvg
	 * through pango): without them it falls back to its built-in defaults and scans every
	 * font under /usr/share/fonts in each decoding process.
	 */
	"/etc/fonts", "/var/cache/fontconfig",
};
/*
 * Listed, not read: GStreamer's registry records that some plugins (v4l2codecs) depend on
 * /dev's entries, and a listing it may not make marks the registry stale: it would then load
 * those plugins, whose libudev is killed by the system call filter.
 */
static const char *const listed_paths[] = { "/dev" };

/*
 * Colon-separated lists of plugin directories the compositor's environment adds (NixOS keeps
 * its plugins outside /usr). Not LD_LIBRARY_PATH: the libraries linked are loaded before the
 * sandbox, and a directory of it, a build tree or a home, would open everything beneath it.
 */
static const char *const path_variables[] = {
	"GST_PLUGIN_PATH_1_0", "GST_PLUGIN_PATH", "GST_PLUGIN_SYSTEM_PATH_1_0",
	"GST_PLUGIN_SYSTEM_PATH", "LIBHEIF_PLUGIN_PATH",
};

struct ruleset {
	int fd;
	int abi;
};

/*
 * Lets path (a directory and everything under it, or a file) be read, or a directory's
 * entries only be listed. A path that does not exist is nothing to allow; 0 or a negative
 * errno.
 */
static int allow(struct ruleset *rs, const char *path, bool list_only) {
	if (path[0] != '/') {
		return 0; /* relative to nothing the helper knows */
	}
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		return 0;
	}
	struct stat st;
	int ret = 0;
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		goto out;
	}
	struct landlock_path_beneath_attr rule = {
		.allowed_access = !S_ISDIR(st.st_mode) ? LANDLOCK_ACCESS_FS_READ_FILE :
			list_only ? LANDLOCK_ACCESS_FS_READ_DIR : READ_DIR_RIGHTS,
		.parent_fd = fd,
	};
	if (syscall(SYS_landlock_add_rule, rs->fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
		ret = -errno;
	}
out:
	close(fd);
	return ret;
}

static int allow_read(struct ruleset *rs, const char *path) {
	return allow(rs, path, false);
}

static int allow_list(struct ruleset *rs, const char *list) {
	char *copy = strdup(list);
	if (copy == NULL) {
		return -ENOMEM;
	}
	int ret = 0;
	char *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir != NULL && ret == 0;
			dir = strtok_r(NULL, ":", &save)) {
		ret = allow_read(rs, dir);
	}
	free(copy);
	return ret;
}

/* GStreamer's registry, read when a decode falls back to GStreamer inside the sandbox. */
static int allow_registry(struct ruleset *rs) {
	const char *names[] = { "GST_REGISTRY_1_0", "GST_REGISTRY" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *file = getenv(names[i]);
		if (file != NULL && file[0] != '\0') {
			return allow_read(rs, file);
		}
	}
	char dir[4096];
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (cache != NULL && cache[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/gstreamer-1.0", cache);
	} else if (home != NULL && home[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/.cache/gstreamer-1.0", home);
	} else {
		return 0;
	}
	return n > 0 && (size_t)n < sizeof(dir) ? allow_read(rs, dir) : 0;
}

/* The file the compositor sent, read only, by whatever path opens it again. */
static int allow_file(struct ruleset *rs, int file) {
	struct stat st;
	if (file < 0 || fstat(file, &st) != 0 || !S_ISREG(st.st_mode)) {
		return 0;
	}
	struct landlock_path_beneath_attr rule = {
		.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
		.parent_fd = file,
	};
	if (syscall(SYS_landlock_add_rule, rs->fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
		return -errno;
	}
	return 0;
}

int veil_landlock_restrict(int file, bool signals, char **message) {
	struct ruleset rs = { .fd = -1 };
	rs.abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
		LANDLOCK_CREATE_RULESET_VERSION);
	if (rs.abi < 0) {
		return -errno; /* ENOSYS: not built in; EOPNOTSUPP: not enabled at boot */
	}
	uint64_t fs = FS_ABI1;
	fs |= rs.abi >= 2 ? FS_REFER : 0;
	fs |= rs.abi >= 3 ? FS_TRUNCATE : 0;
	fs |= rs.abi >= 5 ? FS_IOCTL_DEV : 0;
	/* Sized for the newest kernel this was built for; older ones take a prefix of it. */
	struct {
		uint64_t handled_access_fs, handled_access_net, scoped;
	} attr = {
		.handled_access_fs = fs,
		.handled_access_net = rs.abi >= 4 ? NET_TCP : 0,
		.scoped = rs.abi < 6 ? 0 :
			SCOPE_ABSTRACT_UNIX_SOCKET | (signals ? SCOPE_SIGNAL : 0),
	};
	size_t attr_size = rs.abi >= 6 ? sizeof(attr) : rs.abi >= 4 ? 2 * sizeof(uint64_t) :
		sizeof(uint64_t);
	rs.fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs.fd < 0) {
		int err = errno;
		veil_message_set(message, "cannot create the landlock ruleset: %s", strerror(err));
		return -err;
	}
	int ret = 0;
	for (size_t i = 0; i < sizeof(system_paths) / sizeof(system_paths[0]) && ret == 0; i++) {
		ret = allow_read(&rs, system_paths[i]);
	}
	for (size_t i = 0; i < sizeof(listed_paths) / sizeof(listed_paths[0]) && ret == 0; i++) {
		ret = allow(&rs, listed_paths[i], true);
	}
	for (size_t i = 0; i < sizeof(path_variables) / sizeof(path_variables[0]) && ret == 0;
			i++) {
		const char *list = getenv(path_variables[i]);
		if (list != NULL) {
			ret = allow_list(&rs, list);
		}
	}
	if (ret == 0) {
		ret = allow_registry(&rs);
	}
	if (ret == 0) {
		ret = allow_file(&rs, file);
	}
	if (ret < 0) {
		veil_message_set(message, "cannot add a landlock rule: %s", strerror(-ret));
		goto out;
	}
	if (syscall(SYS_landlock_restrict_self, rs.fd, 0) != 0) {
		ret = -errno;
		veil_message_set(message, "cannot enter the landlock domain: %s", strerror(-ret));
	}
out:
	close(rs.fd);
	return ret;
}

#else

int veil_landlock_restrict(int file, bool signals, char **message) {
	(void)file;
	(void)signals;
	(void)message;
	return -ENOSYS;
}

#endif
