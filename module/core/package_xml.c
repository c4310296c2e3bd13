/*
 * GNOME's XML that names pictures to choose from: a gnome-background-properties list
 * (`<wallpapers><wallpaper>` with `<filename>`, `<filename-dark>`, `<options>`, `<pcolor>`) and a
 * background of one `<static>` whose `<file>` lists `<size width= height=>` choices and nothing
 * timed (Debian's desktop-base writes them). Other XML is left to the timed show
 * (module/show/timed.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "module/core/package.h"
#include "util/message.h"
#include "util/read.h"
#include "util/xml.h"

void veil_gnome_wallpaper_finish(struct veil_gnome_wallpaper *wallpaper) {
	free(wallpaper->name);
	free(wallpaper->file);
	free(wallpaper->dark);
	memset(wallpaper, 0, sizeof(*wallpaper));
}

#if VEIL_HAVE_LIBXML2

static bool is(const xmlNode *node, const char *name) {
	return node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

static const xmlNode *first(const xmlNode *parent, const char *name) {
	for (const xmlNode *n = parent->children; n != NULL; n = n->next) {
		if (is(n, name)) {
			return n;
		}
	}
	return NULL;
}

static size_t count(const xmlNode *parent, const char *name) {
	size_t k = 0;
	for (const xmlNode *n = parent->children; n != NULL; n = n->next) {
		k += is(n, name);
	}
	return k;
}

/* An element's text, white space cut off both ends (malloc()ed), or NULL. */
static char *text(const xmlNode *element) {
	xmlChar *content = element != NULL ? xmlNodeGetContent(element) : NULL;
	if (content == NULL) {
		return NULL;
	}
	const char *start = (const char *)content + strspn((const char *)content, " \t\r\n");
	size_t n = strlen(start);
	while (n > 0 && strchr(" \t\r\n", start[n - 1]) != NULL) {
		n--;
	}
	char *copy = n > 0 ? strndup(start, n) : NULL;
	xmlFree(content);
	return copy;
}

/* A file the XML names: as it is when absolute, else beside the XML. */
static char *beside(const char *xml, char *name) {
	if (name == NULL || name[0] == '/') {
		return name;
	}
	const char *slash = strrchr(xml, '/');
	char *path = slash != NULL ? veil_message("%.*s/%s", (int)(slash - xml), xml, name) :
		strdup(name);
	free(name);
	return path;
}

/* GNOME's <options> as veil's modes. */
static bool mode_of(const char *options, enum veil_mode *mode) {
	static const struct {
		const char *word;
		enum veil_mode mode;
	} table[] = {
		{ "zoom", VEIL_MODE_FILL },
		{ "scaled", VEIL_MODE_FIT },
		{ "stretched", VEIL_MODE_STRETCH },
		{ "centered", VEIL_MODE_CENTER },
		/* Across the monitors in GNOME; here on each output (`span` is a word of its own). */
		{ "spanned", VEIL_MODE_FILL },
		{ "wallpaper", VEIL_MODE_TILE },
		{ "none", VEIL_MODE_SOLID_COLOR },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcasecmp(options, table[i].word) == 0) {
			*mode = table[i].mode;
			return true;
		}
	}
	return false;
}

static int read_list(const xmlNode *root, const char *path,
		struct veil_gnome_wallpaper *wallpaper, char **message) {
	const xmlNode *chosen = NULL;
	for (const xmlNode *n = root->children; n != NULL && chosen == NULL; n = n->next) {
		xmlChar *deleted = is(n, "wallpaper") ? xmlGetProp(n, BAD_CAST "deleted") : NULL;
		if (is(n, "wallpaper") && first(n, "filename") != NULL &&
				(deleted == NULL || strcmp((const char *)deleted, "true") != 0)) {
			chosen = n;
		}
		xmlFree(deleted);
	}
	if (chosen == NULL) {
		veil_message_set(message, "'%s' lists no <wallpaper> with a <filename>", path);
		return -EINVAL;
	}
	wallpaper->name = text(first(chosen, "name"));
	wallpaper->file = beside(path, text(first(chosen, "filename")));
	wallpaper->dark = beside(path, text(first(chosen, "filename-dark")));
	wallpaper->mode = VEIL_MODE_FILL;
	char *options = text(first(chosen, "options"));
	bool known = options == NULL || mode_of(options, &wallpaper->mode);
	char *pcolor = text(first(chosen, "pcolor"));
	wallpaper->has_color = pcolor != NULL && veil_color_parse(pcolor, &wallpaper->color);
	int ret = 0;
	if (!known) {
		veil_message_set(message, "'%s': unknown <options> '%s' (GNOME's are zoom, scaled, "
			"stretched, centered, spanned, wallpaper, none)", path, options);
		ret = -EINVAL;
	} else if (wallpaper->file == NULL && wallpaper->mode != VEIL_MODE_SOLID_COLOR) {
		veil_message_set(message, "'%s': its <filename> is empty", path);
		ret = -EINVAL;
	}
	free(options);
	free(pcolor);
	return ret;
}

/* A <background> of one <static> whose <file> has <size>s, nothing timed: or 0, not one. */
static int read_sizes(const xmlNode *root, const char *path, struct veil_package **package,
		char **message) {
	const xmlNode *stat = first(root, "static");
	const xmlNode *file = stat != NULL ? first(stat, "file") : NULL;
	if (count(root, "static") != 1 || first(root, "transition") != NULL ||
			first(root, "starttime") != NULL || file == NULL || first(file, "size") == NULL) {
		return 0;
	}
	struct veil_package *p = calloc(1, sizeof(*p));
	size_t n = count(file, "size");
	if (p == NULL || n > VEIL_PACKAGE_PICTURES_MAX ||
			(p->light = calloc(n, sizeof(*p->light))) == NULL) {
		free(p);
		veil_message_set(message, n > VEIL_PACKAGE_PICTURES_MAX ? "'%s' has more than %d "
			"<size> choices" : "Out of memory", path, VEIL_PACKAGE_PICTURES_MAX);
		return -EINVAL;
	}
	p->refs = 1;
	p->dir = strdup(path);
	const char *slash = strrchr(path, '/');
	p->name = strdup(slash != NULL ? slash + 1 : path);
	int ret = 0;
	for (const xmlNode *s = file->children; s != NULL && ret == 0; s = s->next) {
		if (!is(s, "size")) {
			continue;
		}
		xmlChar *w = xmlGetProp(s, BAD_CAST "width");
		xmlChar *h = xmlGetProp(s, BAD_CAST "height");
		char *end_w = NULL, *end_h = NULL;
		long width = w != NULL ? strtol((const char *)w, &end_w, 10) : 0;
		long height = h != NULL ? strtol((const char *)h, &end_h, 10) : 0;
		bool ok = end_w != NULL && *end_w == '\0' && end_h != NULL && *end_h == '\0' &&
			width > 0 && height > 0 && width <= 1 << 20 && height <= 1 << 20;
		xmlFree(w);
		xmlFree(h);
		struct veil_package_picture *picture = &p->light[p->n_light];
		picture->path = ok ? beside(path, text(s)) : NULL;
		if (!ok || picture->path == NULL) {
			veil_message_set(message, "'%s': a <size> needs a width, a height and a file",
				path);
			ret = -EINVAL;
			break;
		}
		picture->size = (struct veil_fit_size){ (int)width, (int)height };
		p->n_light++;
	}
	if (ret == 0 && (p->dir == NULL || p->name == NULL)) {
		veil_message_set(message, "Out of memory");
		ret = -ENOMEM;
	}
	if (ret < 0) {
		veil_package_unref(p);
		return ret;
	}
	*package = p;
	return 1;
}

int veil_package_xml_read(const char *path, struct veil_package **package,
		struct veil_gnome_wallpaper *wallpaper, char **message) {
	*package = NULL;
	memset(wallpaper, 0, sizeof(*wallpaper));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
			st.st_size > VEIL_PACKAGE_XML_MAX) {
		/* Not one of these: the timed show reads it and says what is wrong. */
		if (fd >= 0) {
			close(fd);
		}
		return 0;
	}
	char *data = malloc((size_t)st.st_size + 1);
	ssize_t got = data != NULL ? veil_read_at(fd, data, (size_t)st.st_size, 0) : -ENOMEM;
	close(fd);
	if (got < 0) {
		free(data);
		return 0;
	}
	char *why = NULL;
	xmlDoc *doc = veil_xml_read_named_dtd(data, (size_t)got, &why);
	free(data);
	if (doc == NULL) {
		free(why);
		return 0;
	}
	const xmlNode *root = xmlDocGetRootElement(doc);
	int ret = 0;
	if (root != NULL && is(root, "wallpapers")) {
		ret = read_list(root, path, wallpaper, message);
		ret = ret < 0 ? ret : 1;
	} else if (root != NULL && is(root, "background")) {
		ret = read_sizes(root, path, package, message);
	}
	xmlFreeDoc(doc);
	if (ret < 0) {
		veil_gnome_wallpaper_finish(wallpaper);
	}
	return ret;
}

#else

int veil_package_xml_read(const char *path, struct veil_package **package,
		struct veil_gnome_wallpaper *wallpaper, char **message) {
	*package = NULL;
	memset(wallpaper, 0, sizeof(*wallpaper));
	return 0;
}

#endif
