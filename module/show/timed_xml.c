/*
 * GNOME's timed background XML, read with libxml2 (module/show/timed_xml.h).
 *
 *   <background>
 *     <starttime><year>2011</year><month>11</month><day>24</day>
 *       <hour>7</hour><minute>0</minute><second>0</second></starttime>  (any part optional)
 *     <static><duration>1795.0</duration><file>a.jpg</file></static>
 *     <transition type="overlay"><duration>5.0</duration><from>a.jpg</from><to>b.jpg</to>
 *     </transition>
 *     ...
 *   </background>
 *
 * A <file> (or <from>, <to>) may hold <size width="W" height="H">path</size> elements instead
 * of a path: the largest is taken. Other elements are passed over, as GNOME does. The parser
 * reads no network resource and no DTD, and substitutes no entity; a document with a DOCTYPE
 * is refused (GNOME's files have none), so that no entity of the file's own can be expanded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "veil-config.h"
#include "module/show/timed_xml.h"
#include "util/message.h"
#include "util/xml.h"
#if VEIL_HAVE_LIBXML2
#include <glib.h>
#include <libxml/tree.h>
#endif

#if VEIL_HAVE_LIBXML2

/* An element's text: its text and CDATA children joined, white space cut off both ends. */
static char *element_text(const xmlNode *element) {
	size_t len = 0;
	for (const xmlNode *n = element->children; n != NULL; n = n->next) {
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) &&
				n->content != NULL) {
			len += strlen((const char *)n->content);
		}
	}
	char *text = malloc(len + 1);
	if (text == NULL) {
		return NULL;
	}
	text[0] = '\0';
	for (const xmlNode *n = element->children; n != NULL; n = n->next) {
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) &&
				n->content != NULL) {
			strcat(text, (const char *)n->content);
		}
	}
	char *start = text + strspn(text, " \t\r\n");
	size_t n = strlen(start);
	while (n > 0 && strchr(" \t\r\n", start[n - 1]) != NULL) {
		n--;
	}
	memmove(text, start, n);
	text[n] = '\0';
	return text;
}

static bool is(const xmlNode *node, const char *name) {
	return node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

static const xmlNode *child(const xmlNode *parent, const char *name) {
	for (const xmlNode *n = parent->children; n != NULL; n = n->next) {
		if (is(n, name)) {
			return n;
		}
	}
	return NULL;
}

struct parse {
	const char *name; /* the XML file, for messages */
	const char *dir;
	char **message;
};

/* An integer part of <starttime>: fallback (GNOME's, start_defaults()) when absent. */
static int start_part(struct parse *p, const xmlNode *start, const char *part, int min, int max,
		int fallback, int *value) {
	const xmlNode *node = start != NULL ? child(start, part) : NULL;
	if (node == NULL) {
		*value = fallback;
		return 0;
	}
	char *text = element_text(node);
	if (text == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	bool ok = text[0] != '\0' && *end == '\0' && errno == 0 && v >= min && v <= max;
	if (!ok) {
		char shown[VEIL_QUOTE_SIZE];
		veil_message_set(p->message, "'%s': <starttime>'s <%s> '%s' is not a time: expected "
			"%d to %d", p->name, part, veil_message_quote(shown, text), min, max);
		free(text);
		return -EINVAL;
	}
	free(text);
	*value = (int)v;
	return 0;
}

static bool leap(int year) {
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/*
 * What GNOME starts from (gnome-desktop's gnome-bg-slide-show.c): the epoch in local time
 * (localtime(0)), each field a <starttime> gives put over it, then mktime(). No <starttime> is
 * then the epoch itself; one of only <hour>, <minute> and <second> that time on the epoch's
 * local date (1970-01-01, or 1969-12-31 west of Greenwich); a missing <hour> the epoch's.
 */
static void start_defaults(struct tm *tm) {
	time_t epoch = 0;
	if (localtime_r(&epoch, tm) == NULL) {
		*tm = (struct tm){ .tm_year = 70, .tm_mday = 1 };
	}
}

static int parse_start(struct parse *p, const xmlNode *start, struct tm *tm) {
	struct tm epoch;
	start_defaults(&epoch);
	int year, month, day, hour, minute, second;
	int ret = start_part(p, start, "year", 1900, 9999, epoch.tm_year + 1900, &year);
	if (ret == 0) {
		ret = start_part(p, start, "month", 1, 12, epoch.tm_mon + 1, &month);
	}
	if (ret == 0) {
		ret = start_part(p, start, "day", 1, 31, epoch.tm_mday, &day);
	}
	if (ret == 0) {
		ret = start_part(p, start, "hour", 0, 23, epoch.tm_hour, &hour);
	}
	if (ret == 0) {
		ret = start_part(p, start, "minute", 0, 59, epoch.tm_min, &minute);
	}
	if (ret == 0) {
		ret = start_part(p, start, "second", 0, 59, epoch.tm_sec, &second);
	}
	if (ret < 0) {
		return ret;
	}
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int in_month = days[month - 1] + (month == 2 && leap(year));
	if (day > in_month) {
		return veil_message_fail(p->message, -EINVAL, "'%s': <starttime> %04d-%02d-%02d is "
			"not a date (that month has %d days)", p->name, year, month, day, in_month);
	}
	*tm = (struct tm){
		.tm_year = year - 1900, .tm_mon = month - 1, .tm_mday = day,
		.tm_hour = hour, .tm_min = minute, .tm_sec = second, .tm_isdst = -1,
	};
	return 0;
}

static int parse_duration(struct parse *p, const xmlNode *slot, int index, int64_t *ms) {
	const xmlNode *node = child(slot, "duration");
	if (node == NULL) {
		return veil_message_fail(p->message, -EINVAL, "'%s': <%s> %d has no <duration>",
			p->name, (const char *)slot->name, index);
	}
	char *text = element_text(node);
	if (text == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	/* A '.' whatever the compositor's locale (labwc sets LC_ALL from the environment). */
	char *end;
	double seconds = g_ascii_strtod(text, &end);
	double max_s = (double)VEIL_TIMED_MAX_CYCLE_MS / 1000.0;
	bool ok = text[0] != '\0' && *end == '\0' && isfinite(seconds) && seconds >= 0.001 &&
		seconds <= max_s;
	if (!ok) {
		char shown[VEIL_QUOTE_SIZE];
		veil_message_set(p->message, "'%s': <%s> %d: the duration '%s' is not a time: "
			"expected seconds from 0.001 to %.0f", p->name, (const char *)slot->name, index,
			veil_message_quote(shown, text), max_s);
		free(text);
		return -EINVAL;
	}
	free(text);
	*ms = llround(seconds * 1000.0);
	return 0;
}

/* A name the XML gives (text, taken): relative to the XML's directory unless absolute. */
static int resolve(struct parse *p, char *text, char **path) {
	if (text[0] == '/' || p->dir == NULL) {
		*path = text;
		return 0;
	}
	*path = veil_message("%s/%s", p->dir, text);
	free(text);
	return *path != NULL ? 0 : veil_message_fail(p->message, -ENOMEM, "Out of memory");
}

/* A <size>'s width or height: pixels from 1, else 0. */
static int size_attr(const xmlNode *size, const char *name) {
	xmlChar *value = xmlGetNoNsProp(size, (const xmlChar *)name);
	double pixels = value != NULL ? atof((const char *)value) : 0;
	xmlFree(value);
	return pixels >= 1 && pixels <= 1 << 20 ? (int)pixels : 0;
}

/* A picture's path from <file>, <from> or <to>: its text, or its largest <size>. */
static int parse_file(struct parse *p, const xmlNode *slot, const char *part, int index,
		char **path) {
	const xmlNode *node = child(slot, part);
	const xmlNode *best = node;
	if (node != NULL && child(node, "size") != NULL) {
		double best_area = -1;
		for (const xmlNode *n = node->children; n != NULL; n = n->next) {
			double area = is(n, "size") ?
				(double)size_attr(n, "width") * size_attr(n, "height") : -1;
			if (area > best_area) {
				best_area = area;
				best = n;
			}
		}
	}
	char *text = best != NULL ? element_text(best) : NULL;
	if (best != NULL && text == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	if (text == NULL || text[0] == '\0') {
		free(text);
		return veil_message_fail(p->message, -EINVAL, "'%s': <%s> %d has no <%s>", p->name,
			(const char *)slot->name, index, part);
	}
	return resolve(p, text, path);
}

/* A static's <size> choices, each kept for the outputs to choose from (util/fit.c). */
static int parse_sizes(struct parse *p, const xmlNode *slot, int index,
		struct veil_timed_slot *out) {
	const xmlNode *file = child(slot, "file");
	size_t n = 0;
	for (const xmlNode *c = file != NULL ? file->children : NULL; c != NULL; c = c->next) {
		n += is(c, "size");
	}
	if (n == 0) {
		return 0;
	}
	if (n > VEIL_PACKAGE_PICTURES_MAX) {
		return veil_message_fail(p->message, -EINVAL, "'%s': <static> %d has more than %d "
			"<size> choices", p->name, index, VEIL_PACKAGE_PICTURES_MAX);
	}
	out->sizes = calloc(n, sizeof(*out->sizes));
	if (out->sizes == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	for (const xmlNode *c = file->children; c != NULL; c = c->next) {
		if (!is(c, "size")) {
			continue;
		}
		struct veil_package_picture *picture = &out->sizes[out->n_sizes];
		picture->size = (struct veil_fit_size){ size_attr(c, "width"),
			size_attr(c, "height") };
		char *text = element_text(c);
		if (text == NULL) {
			return veil_message_fail(p->message, -ENOMEM, "Out of memory");
		}
		if (text[0] == '\0' || picture->size.width == 0 || picture->size.height == 0) {
			free(text);
			return veil_message_fail(p->message, -EINVAL, "'%s': <static> %d: a <size> "
				"needs a width, a height and a file", p->name, index);
		}
		int ret = resolve(p, text, &picture->path);
		if (ret < 0) {
			return ret;
		}
		out->n_sizes++;
	}
	return 0;
}

static int parse_slot(struct parse *p, const xmlNode *node, int index,
		struct veil_timed_slot *slot) {
	*slot = (struct veil_timed_slot){0};
	int ret = parse_duration(p, node, index, &slot->duration_ms);
	if (ret < 0) {
		return ret;
	}
	if (is(node, "static")) {
		slot->kind = VEIL_TIMED_STATIC;
		ret = parse_file(p, node, "file", index, &slot->to);
		return ret < 0 ? ret : parse_sizes(p, node, index, slot);
	}
	slot->kind = VEIL_TIMED_TRANSITION;
	ret = parse_file(p, node, "from", index, &slot->from);
	if (ret == 0) {
		ret = parse_file(p, node, "to", index, &slot->to);
	}
	return ret;
}

static int parse_document(struct parse *p, const xmlDoc *doc,
		struct veil_timed_schedule *schedule) {
	const xmlNode *root = xmlDocGetRootElement(doc);
	if (root == NULL || !is(root, "background")) {
		return veil_message_fail(p->message, -EINVAL, "'%s' is not a timed background: "
			"its root is not <background>", p->name);
	}
	/* Without <starttime>, GNOME's start: the epoch (start_defaults()). */
	const xmlNode *start = child(root, "starttime");
	int ret = parse_start(p, start, &schedule->start);
	if (ret < 0) {
		return ret;
	}
	size_t n = 0;
	for (const xmlNode *c = root->children; c != NULL; c = c->next) {
		n += is(c, "static") || is(c, "transition");
	}
	if (n == 0) {
		return veil_message_fail(p->message, -EINVAL, "'%s': <background> has no <static> "
			"or <transition>", p->name);
	}
	if (n > VEIL_TIMED_MAX_SLOTS) {
		return veil_message_fail(p->message, -EINVAL, "'%s' has %zu slots: at most %d",
			p->name, n, VEIL_TIMED_MAX_SLOTS);
	}
	schedule->slots = calloc(n, sizeof(*schedule->slots));
	if (schedule->slots == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	int index = 0;
	for (const xmlNode *c = root->children; c != NULL; c = c->next) {
		if (!is(c, "static") && !is(c, "transition")) {
			continue;
		}
		struct veil_timed_slot *slot = &schedule->slots[schedule->n_slots];
		ret = parse_slot(p, c, ++index, slot);
		schedule->n_slots++;
		if (ret < 0) {
			return ret;
		}
		schedule->cycle_ms += slot->duration_ms;
		if (schedule->cycle_ms > VEIL_TIMED_MAX_CYCLE_MS) {
			return veil_message_fail(p->message, -EINVAL, "'%s': the slots last more than "
				"a year together", p->name);
		}
	}
	return 0;
}

int veil_timed_xml_parse(const char *data, size_t size, const char *name, const char *dir,
		struct veil_timed_schedule *schedule, char **message) {
	*schedule = (struct veil_timed_schedule){0};
	if (size > VEIL_TIMED_XML_MAX_BYTES || size > INT_MAX) {
		return veil_message_fail(message, -EFBIG, "'%s' is too large for a timed background "
			"(over %d KiB)", name, VEIL_TIMED_XML_MAX_BYTES / 1024);
	}
	char *why = NULL;
	xmlDoc *doc = veil_xml_read(data, size, &why);
	int ret;
	if (doc == NULL) {
		ret = why != NULL ? veil_message_fail(message, -EINVAL, "'%s' is %s", name, why) :
			veil_message_fail(message, -ENOMEM, "Out of memory");
		free(why);
	} else {
		struct parse p = { .name = name, .dir = dir, .message = message };
		ret = parse_document(&p, doc, schedule);
		xmlFreeDoc(doc);
	}
	if (ret < 0) {
		veil_timed_schedule_finish(schedule);
	}
	return ret;
}

/* A picture named must be a file veil can open: named in the message when it is not. */
static int check_file(const char *name, const char *path, char **message) {
	struct stat st;
	if (path == NULL) {
		return 0;
	}
	if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
		int err = errno;
		return veil_message_fail(message, -err, "'%s' names '%s', which cannot be opened: %s",
			name, path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		return veil_message_fail(message, -EINVAL, "'%s' names '%s', which is not a file",
			name, path);
	}
	return 0;
}

static int check_files(const char *name, const struct veil_timed_schedule *schedule,
		char **message) {
	int ret = 0;
	for (size_t i = 0; i < schedule->n_slots && ret == 0; i++) {
		const struct veil_timed_slot *slot = &schedule->slots[i];
		ret = check_file(name, slot->from, message);
		if (ret == 0) {
			ret = check_file(name, slot->to, message);
		}
		for (size_t k = 0; k < slot->n_sizes && ret == 0; k++) {
			ret = check_file(name, slot->sizes[k].path, message);
		}
	}
	return ret;
}

int veil_timed_xml_load(const char *path, struct veil_timed_schedule *schedule,
		char **message) {
	*schedule = (struct veil_timed_schedule){0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		return veil_message_fail(message, -err, "Cannot open '%s': %s", path, strerror(err));
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return veil_message_fail(message, -EINVAL, "'%s' is not a file", path);
	}
	if (st.st_size > VEIL_TIMED_XML_MAX_BYTES) {
		close(fd);
		return veil_message_fail(message, -EFBIG, "'%s' is too large for a timed background "
			"(over %d KiB)", path, VEIL_TIMED_XML_MAX_BYTES / 1024);
	}
	/* One byte more than allowed: a file that grew since fstat() is still caught. */
	char *data = malloc(VEIL_TIMED_XML_MAX_BYTES + 1);
	if (data == NULL) {
		close(fd);
		return veil_message_fail(message, -ENOMEM, "Out of memory");
	}
	size_t size = 0;
	while (size <= VEIL_TIMED_XML_MAX_BYTES) {
		ssize_t n = read(fd, data + size, VEIL_TIMED_XML_MAX_BYTES + 1 - size);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			int err = errno;
			close(fd);
			free(data);
			return veil_message_fail(message, -err, "Cannot read '%s': %s", path,
				strerror(err));
		}
		if (n == 0) {
			break;
		}
		size += (size_t)n;
	}
	close(fd);
	char *dir = strdup(path);
	char *slash = dir != NULL ? strrchr(dir, '/') : NULL;
	if (slash != NULL) {
		*(slash == dir ? slash + 1 : slash) = '\0';
	}
	int ret = dir == NULL ? veil_message_fail(message, -ENOMEM, "Out of memory") :
		veil_timed_xml_parse(data, size, path, slash != NULL ? dir : ".", schedule, message);
	free(data);
	free(dir);
	if (ret == 0) {
		ret = check_files(path, schedule, message);
		if (ret < 0) {
			veil_timed_schedule_finish(schedule);
		}
	}
	return ret;
}

#else

int veil_timed_xml_parse(const char *data, size_t size, const char *name, const char *dir,
		struct veil_timed_schedule *schedule, char **message) {
	*schedule = (struct veil_timed_schedule){0};
	return veil_message_fail(message, -ENOTSUP, "'%s' is a timed background, and veil was "
		"built without libxml2 to read one", name);
}

int veil_timed_xml_load(const char *path, struct veil_timed_schedule *schedule,
		char **message) {
	return veil_timed_xml_parse(NULL, 0, path, NULL, schedule, message);
}

#endif
