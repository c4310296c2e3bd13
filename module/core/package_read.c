#define _GNU_SOURCE /* strverscmp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "module/core/package_read.h"
#include "util/message.h"
#include "util/read.h"

/* Whether dir/child is of type (S_IFDIR, S_IFREG), links followed. */
static bool has(const char *dir, const char *child, mode_t type) {
	char *path = veil_message("%s/%s", dir, child);
	struct stat st;
	bool yes = path != NULL && stat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
	free(path);
	return yes;
}

bool veil_package_xml_name(const char *path) {
	size_t len = path != NULL ? strlen(path) : 0;
	return len > 4 && strcasecmp(path + len - 4, ".xml") == 0;
}

bool veil_package_detect(const char *dir) {
	return (has(dir, "metadata.json", S_IFREG) || has(dir, "metadata.desktop", S_IFREG)) &&
		(has(dir, "contents/images", S_IFDIR) || has(dir, "contents/images_dark", S_IFDIR));
}

struct veil_package *veil_package_ref(struct veil_package *package) {
	package->refs++;
	return package;
}

static void free_pictures(struct veil_package_picture *pictures, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(pictures[i].path);
	}
	free(pictures);
}

void veil_package_unref(struct veil_package *package) {
	if (package == NULL || --package->refs > 0) {
		return;
	}
	free_pictures(package->light, package->n_light);
	free_pictures(package->dark, package->n_dark);
	free(package->dir);
	free(package->name);
	free(package);
}

struct veil_package *veil_package_create(const char *dir,
		const struct veil_package_picture *pictures, size_t n) {
	struct veil_package *package = calloc(1, sizeof(*package));
	if (package == NULL) {
		return NULL;
	}
	package->refs = 1;
	const char *slash = strrchr(dir, '/');
	package->dir = strdup(dir);
	package->name = strdup(slash != NULL ? slash + 1 : dir);
	package->light = calloc(n, sizeof(*package->light));
	if (package->dir == NULL || package->name == NULL || package->light == NULL) {
		veil_package_unref(package);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		package->light[i].size = pictures[i].size;
		if ((package->light[i].path = strdup(pictures[i].path)) == NULL) {
			veil_package_unref(package);
			return NULL;
		}
		package->n_light++;
	}
	return package;
}

static int by_name(const void *a, const void *b) {
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pictures named WxH.ext among names, in sub (contents/images), sorted. */
static bool take_pictures(const char *dir, const char *sub, const char *const *names, size_t n,
		struct veil_package_picture **out, size_t *n_out) {
	*out = NULL;
	*n_out = 0;
	const char **sorted = calloc(n + 1, sizeof(*sorted));
	struct veil_package_picture *pictures = calloc(n + 1, sizeof(*pictures));
	if (sorted == NULL || pictures == NULL) {
		goto nomem;
	}
	memcpy(sorted, names, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_name);
	size_t k = 0;
	for (size_t i = 0; i < n && k < VEIL_PACKAGE_PICTURES_MAX; i++) {
		struct veil_fit_size size;
		if (!veil_fit_size_from_name(sorted[i], &size)) {
			continue;
		}
		pictures[k].size = size;
		if ((pictures[k].path = veil_message("%s/%s/%s", dir, sub, sorted[i])) == NULL) {
			free_pictures(pictures, k);
			pictures = NULL;
			goto nomem;
		}
		k++;
	}
	free(sorted);
	*out = pictures;
	*n_out = k;
	return true;
nomem:
	free(sorted);
	free(pictures);
	return false;
}

/* KPlugin.Name, where metadata.json has one as a string. */
static char *plugin_name(struct json_object *root) {
	struct json_object *plugin, *name;
	if (json_object_is_type(root, json_type_object) &&
			json_object_object_get_ex(root, "KPlugin", &plugin) &&
			json_object_is_type(plugin, json_type_object) &&
			json_object_object_get_ex(plugin, "Name", &name) &&
			json_object_is_type(name, json_type_string) &&
			json_object_get_string_len(name) > 0) {
		return strdup(json_object_get_string(name));
	}
	return NULL;
}

struct veil_package *veil_package_parse(const char *dir, const char *metadata, size_t len,
		const char *const *light, size_t n_light, const char *const *dark, size_t n_dark,
		char **message) {
	struct veil_package *package = calloc(1, sizeof(*package));
	if (package == NULL || (package->dir = strdup(dir)) == NULL) {
		free(package);
		veil_message_set(message, "Out of memory");
		return NULL;
	}
	package->refs = 1;
	if (metadata != NULL) {
		struct json_tokener *tok = json_tokener_new();
		struct json_object *root = tok != NULL ?
			json_tokener_parse_ex(tok, metadata, (int)len) : NULL;
		enum json_tokener_error err = tok != NULL ? json_tokener_get_error(tok) :
			json_tokener_error_memory;
		/* Text after the document (a second one, garbage) is not JSON either. */
		bool whole = tok != NULL && err == json_tokener_success;
		for (size_t i = whole ? json_tokener_get_parse_end(tok) : len; i < len; i++) {
			whole = whole && strchr(" \t\r\n", metadata[i]) != NULL && metadata[i] != '\0';
		}
		if (root == NULL || !whole) {
			veil_message_set(message, "'%s/metadata.json' is not JSON (%s): not a "
				"wallpaper package veil can read", dir, err != json_tokener_success ?
				json_tokener_error_desc(err) : root == NULL ? "no document" :
				"text after the document");
			json_object_put(root);
			json_tokener_free(tok);
			goto fail;
		}
		package->name = plugin_name(root);
		json_object_put(root);
		json_tokener_free(tok);
	}
	if (package->name == NULL) {
		const char *slash = strrchr(dir, '/');
		package->name = strdup(slash != NULL && slash[1] != '\0' ? slash + 1 : dir);
	}
	if (package->name == NULL ||
			!take_pictures(dir, "contents/images", light, n_light, &package->light,
			&package->n_light) ||
			!take_pictures(dir, "contents/images_dark", dark, n_dark, &package->dark,
			&package->n_dark)) {
		veil_message_set(message, "Out of memory");
		goto fail;
	}
	if (package->n_light == 0) {
		veil_message_set(message, "The wallpaper package '%s' has no picture named by its "
			"size (such as 1920x1080.png) in contents/images/%s", dir, package->n_dark > 0 ?
			", only dark ones" : "");
		goto fail;
	}
	return package;
fail:
	veil_package_unref(package);
	return NULL;
}

/* The names in dir/sub (VEIL_PACKAGE_PICTURES_MAX * 4 at most; none when it is missing). */
static char **list(const char *dir, const char *sub, size_t *n) {
	*n = 0;
	char *path = veil_message("%s/%s", dir, sub);
	DIR *d = path != NULL ? opendir(path) : NULL;
	free(path);
	size_t cap = VEIL_PACKAGE_PICTURES_MAX * 4;
	char **names = calloc(cap, sizeof(*names));
	if (d == NULL || names == NULL) {
		if (d != NULL) {
			closedir(d);
		}
		return names;
	}
	struct dirent *entry;
	while (*n < cap && (entry = readdir(d)) != NULL) {
		if (entry->d_name[0] != '.' && (names[*n] = strdup(entry->d_name)) != NULL) {
			(*n)++;
		}
	}
	closedir(d);
	return names;
}

static void free_list(char **names, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
	}
	free(names);
}

/* metadata.json's text (NULL: none), at most VEIL_PACKAGE_METADATA_MAX bytes. */
static char *read_metadata(const char *dir, size_t *len, char **message) {
	*len = 0;
	char *path = veil_message("%s/metadata.json", dir);
	if (path == NULL) {
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(path);
	if (fd < 0) {
		return NULL;
	}
	struct stat st;
	char *text = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		goto out;
	}
	if (st.st_size > VEIL_PACKAGE_METADATA_MAX) {
		veil_message_set(message, "'%s/metadata.json' is %lld bytes: more than the %d a "
			"wallpaper package's metadata may have", dir, (long long)st.st_size,
			VEIL_PACKAGE_METADATA_MAX);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	ssize_t got = text != NULL ? veil_read_at(fd, text, (size_t)st.st_size, 0) : -ENOMEM;
	if (got < 0) {
		veil_message_set(message, "Cannot read '%s/metadata.json': %s", dir,
			strerror((int)-got));
		free(text);
		text = NULL;
		goto out;
	}
	text[got] = '\0';
	*len = (size_t)got;
out:
	close(fd);
	return text;
}

struct veil_package *veil_package_read(const char *dir, char **message) {
	size_t len, n_light, n_dark;
	char *metadata = read_metadata(dir, &len, message);
	if (metadata == NULL && *message != NULL) {
		return NULL;
	}
	char **light = list(dir, "contents/images", &n_light);
	char **dark = list(dir, "contents/images_dark", &n_dark);
	struct veil_package *package = NULL;
	if (light == NULL || dark == NULL) {
		veil_message_set(message, "Out of memory");
	} else {
		package = veil_package_parse(dir, metadata, len, (const char *const *)light,
			n_light, (const char *const *)dark, n_dark, message);
	}
	free_list(light, n_light);
	free_list(dark, n_dark);
	free(metadata);
	return package;
}
