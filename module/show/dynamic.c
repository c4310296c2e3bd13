/*
 * Apple's dynamic wallpapers (module/show/dynamic.h): the XMP read with libxml2, the property's
 * base64 with glib, the binary plist with libplist; the day's schedule from util/sun.c. Pure:
 * the file is read by module/show/dynamic_load.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "veil-config.h"
#include "module/show/dynamic.h"
#include "util/message.h"
#include "util/sun.h"
#include "util/xml.h"
#if VEIL_HAVE_DYNAMIC
#include <glib.h>
#include <libxml/tree.h>
#include <plist/plist.h>
#endif

/* The namespace of apple_desktop: properties. */
#define APPLE_NS "http://ns.apple.com/namespace/1.0/"

void veil_dynamic_finish(struct veil_dynamic *dynamic) {
	free(dynamic->solar);
	free(dynamic->h24);
	*dynamic = (struct veil_dynamic){0};
}

enum veil_dynamic_mode veil_dynamic_mode(const struct veil_dynamic *dynamic, bool has_location) {
	if (dynamic->n_solar > 0 && has_location) {
		return VEIL_DYNAMIC_SOLAR;
	}
	if (dynamic->n_h24 > 0) {
		return VEIL_DYNAMIC_H24;
	}
	if (dynamic->has_appearance) {
		return VEIL_DYNAMIC_APPEARANCE;
	}
	return VEIL_DYNAMIC_NONE;
}

const char *veil_dynamic_mode_name(enum veil_dynamic_mode mode) {
	switch (mode) {
	case VEIL_DYNAMIC_SOLAR:
		return "solar";
	case VEIL_DYNAMIC_H24:
		return "h24";
	case VEIL_DYNAMIC_APPEARANCE:
		return "appearance";
	case VEIL_DYNAMIC_NONE:
		break;
	}
	return "none";
}

/*
 * What being on the other side of solar noon costs an entry, in degrees of altitude: enough to
 * tell a sunrise picture from a sunset one at the same altitude, too little to let a picture of
 * the other half of the day win by more than 10 degrees of altitude (docs/architecture.md,
 * "Apple dynamic wallpapers": a night picture never shows in daylight).
 */
#define SIDE_PENALTY 10.0

int veil_dynamic_solar_image(const struct veil_dynamic *dynamic, double latitude,
		double longitude, time_t when) {
	struct veil_sun_position sun;
	veil_sun_position(latitude, longitude, when, &sun);
	/* East of the meridian (azimuth below 180): before solar noon, in either hemisphere. */
	bool morning = sun.azimuth < 180.0;
	int best = -1;
	double best_score = 0.0;
	for (size_t i = 0; i < dynamic->n_solar; i++) {
		const struct veil_dynamic_sun *entry = &dynamic->solar[i];
		double score = fabs(entry->altitude - sun.elevation);
		if ((entry->azimuth < 180.0) != morning) {
			score += SIDE_PENALTY;
		}
		if (best < 0 || score < best_score) {
			best = (int)i;
			best_score = score;
		}
	}
	return best < 0 ? 0 : dynamic->solar[best].image;
}

int veil_dynamic_h24_image(const struct veil_dynamic *dynamic, double day) {
	if (dynamic->n_h24 == 0) {
		return 0;
	}
	/* Before the first entry: the last one's, from the day before. */
	int image = dynamic->h24[dynamic->n_h24 - 1].image;
	for (size_t i = 0; i < dynamic->n_h24; i++) {
		if (dynamic->h24[i].day > day) {
			break;
		}
		image = dynamic->h24[i].image;
	}
	return image;
}

/*
 * The local clock's time at t as a fraction of a day: what an h24 entry's time is. On a day
 * with a DST change it is not the time since midnight: 12:00 is 11 hours after midnight on a
 * day that springs forward.
 */
static double clock_day_fraction(time_t t) {
	struct tm tm;
	if (localtime_r(&t, &tm) == NULL) {
		return 0.0;
	}
	return (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) / 86400.0;
}

static int image_at(const struct veil_dynamic *dynamic, enum veil_dynamic_mode mode,
		double latitude, double longitude, time_t day_start, int64_t offset_s) {
	time_t t = day_start + (time_t)offset_s;
	if (mode == VEIL_DYNAMIC_SOLAR) {
		return veil_dynamic_solar_image(dynamic, latitude, longitude, t);
	}
	return veil_dynamic_h24_image(dynamic, clock_day_fraction(t));
}

struct segment {
	int64_t start_s; /* from the day's start */
	int image;
};

static bool add_slot(struct veil_timed_schedule *schedule, size_t *capacity,
		enum veil_timed_slot_kind kind, int64_t duration_ms, const char *path, int from,
		int to) {
	if (duration_ms <= 0) {
		return true;
	}
	if (schedule->n_slots == *capacity) {
		size_t grown = *capacity == 0 ? 16 : *capacity * 2;
		struct veil_timed_slot *slots = realloc(schedule->slots, grown * sizeof(*slots));
		if (slots == NULL) {
			return false;
		}
		schedule->slots = slots;
		*capacity = grown;
	}
	struct veil_timed_slot *slot = &schedule->slots[schedule->n_slots];
	*slot = (struct veil_timed_slot){
		.kind = kind,
		.duration_ms = duration_ms,
		.to = strdup(path),
		.to_item = to + 1,
	};
	if (kind == VEIL_TIMED_TRANSITION) {
		slot->from = strdup(path);
		slot->from_item = from + 1;
	}
	schedule->n_slots++;
	schedule->cycle_ms += duration_ms;
	return slot->to != NULL && (kind == VEIL_TIMED_STATIC || slot->from != NULL);
}

int veil_dynamic_schedule(const struct veil_dynamic *dynamic, enum veil_dynamic_mode mode,
		double latitude, double longitude, const char *path, time_t day_start, int64_t day_s,
		int64_t fade_ms, struct veil_timed_schedule *schedule) {
	*schedule = (struct veil_timed_schedule){0};
	if ((mode != VEIL_DYNAMIC_SOLAR && mode != VEIL_DYNAMIC_H24) || day_s <= 0) {
		return -EINVAL;
	}
	/* The day a minute at a time; each change found to the second between two minutes. */
	size_t n_segments = 0, capacity = 0;
	struct segment *segments = NULL;
	int previous = -1;
	for (int64_t at = 0; at < day_s; at += 60) {
		int image = image_at(dynamic, mode, latitude, longitude, day_start, at);
		if (image == previous) {
			continue;
		}
		int64_t start = at;
		if (previous >= 0) {
			/* The first second showing the new image. */
			int64_t lo = at - 60, hi = at;
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;
				if (image_at(dynamic, mode, latitude, longitude, day_start, mid) ==
						previous) {
					lo = mid;
				} else {
					hi = mid;
				}
			}
			start = hi;
		}
		if (n_segments == capacity) {
			capacity = capacity == 0 ? 32 : capacity * 2;
			struct segment *grown = realloc(segments, capacity * sizeof(*grown));
			if (grown == NULL) {
				free(segments);
				return -ENOMEM;
			}
			segments = grown;
		}
		segments[n_segments++] = (struct segment){ .start_s = start, .image = image };
		previous = image;
	}
	/* The next day's first image: a change at midnight fades in at the end of this day. */
	int next_day_image = image_at(dynamic, mode, latitude, longitude, day_start, day_s);
	size_t slots_capacity = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < n_segments; i++) {
		int64_t end_s = i + 1 < n_segments ? segments[i + 1].start_s : day_s;
		int next = i + 1 < n_segments ? segments[i + 1].image : next_day_image;
		int64_t length_ms = (end_s - segments[i].start_s) * 1000;
		int64_t fade = next != segments[i].image ? fade_ms : 0;
		if (fade > length_ms / 2) {
			fade = length_ms / 2;
		}
		ok = add_slot(schedule, &slots_capacity, VEIL_TIMED_STATIC, length_ms - fade, path,
			-1, segments[i].image) &&
			add_slot(schedule, &slots_capacity, VEIL_TIMED_TRANSITION, fade, path,
			segments[i].image, next);
	}
	free(segments);
	if (!ok || schedule->n_slots == 0) {
		veil_timed_schedule_finish(schedule);
		return -ENOMEM;
	}
	localtime_r(&day_start, &schedule->start);
	schedule->start.tm_isdst = -1;
	return 0;
}

#if VEIL_HAVE_DYNAMIC

struct parse {
	const char *name;
	int n_images;
	char **message;
};

static plist_t get(plist_t dict, const char *key) {
	return plist_get_node_type(dict) == PLIST_DICT ? plist_dict_get_item(dict, key) : NULL;
}

/* A number of the plist (an integer or a real); false when it is neither. */
static bool number(plist_t node, double *value) {
	if (node == NULL) {
		return false;
	}
	if (plist_get_node_type(node) == PLIST_REAL) {
		plist_get_real_val(node, value);
		return isfinite(*value);
	}
	if (plist_get_node_type(node) == PLIST_INT) {
		int64_t v = 0;
		plist_get_int_val(node, &v);
		*value = (double)v;
		return true;
	}
	return false;
}

/* An image index: an integer from 0 to the file's last image. */
static int image_index(struct parse *p, plist_t node, const char *what, int *image) {
	double v;
	if (!number(node, &v)) {
		return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's %s has "
			"no image index", p->name, what);
	}
	if (v != floor(v) || v < 0 || v >= p->n_images) {
		return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's %s names "
			"image %g, and the file has images 0 to %d", p->name, what, v, p->n_images - 1);
	}
	*image = (int)v;
	return 0;
}

/* `ap` or `apr`: { l: light image, d: dark image }. */
static int parse_appearance(struct parse *p, plist_t ap, struct veil_dynamic *dynamic) {
	if (plist_get_node_type(ap) != PLIST_DICT) {
		return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's "
			"appearance is not a dictionary", p->name);
	}
	int ret = image_index(p, get(ap, "l"), "light appearance", &dynamic->light);
	if (ret == 0) {
		ret = image_index(p, get(ap, "d"), "dark appearance", &dynamic->dark);
	}
	dynamic->has_appearance = ret == 0;
	return ret;
}

static plist_t entries(struct parse *p, plist_t root, const char *key, uint32_t *n, int *ret) {
	plist_t array = get(root, key);
	*n = 0;
	*ret = 0;
	if (array == NULL) {
		return NULL;
	}
	if (plist_get_node_type(array) != PLIST_ARRAY) {
		*ret = veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's %s is "
			"not an array", p->name, key);
		return NULL;
	}
	*n = plist_array_get_size(array);
	if (*n > VEIL_DYNAMIC_MAX_ENTRIES) {
		*ret = veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's %s has "
			"%u entries, over veil's limit of %d", p->name, key, *n,
			VEIL_DYNAMIC_MAX_ENTRIES);
		return NULL;
	}
	return array;
}

static int parse_solar(struct parse *p, plist_t root, struct veil_dynamic *dynamic) {
	uint32_t n;
	int ret;
	plist_t array = entries(p, root, "si", &n, &ret);
	if (ret < 0 || array == NULL || n == 0) {
		return ret;
	}
	dynamic->solar = calloc(n, sizeof(*dynamic->solar));
	if (dynamic->solar == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		plist_t entry = plist_array_get_item(array, i);
		struct veil_dynamic_sun *sun = &dynamic->solar[i];
		char what[48];
		snprintf(what, sizeof(what), "solar entry %u", i);
		if (!number(get(entry, "a"), &sun->altitude) || sun->altitude < -90.0 ||
				sun->altitude > 90.0) {
			return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's "
				"%s has no altitude from -90 to 90 degrees (a)", p->name, what);
		}
		if (!number(get(entry, "z"), &sun->azimuth) || sun->azimuth < 0.0 ||
				sun->azimuth > 360.0) {
			return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's "
				"%s has no azimuth from 0 to 360 degrees (z)", p->name, what);
		}
		ret = image_index(p, get(entry, "i"), what, &sun->image);
		if (ret < 0) {
			return ret;
		}
		dynamic->n_solar++;
	}
	return 0;
}

static int compare_time(const void *a, const void *b) {
	const struct veil_dynamic_time *x = a, *y = b;
	return x->day < y->day ? -1 : x->day > y->day ? 1 : 0;
}

static int parse_h24(struct parse *p, plist_t root, struct veil_dynamic *dynamic) {
	uint32_t n;
	int ret;
	plist_t array = entries(p, root, "ti", &n, &ret);
	if (ret < 0 || array == NULL || n == 0) {
		return ret;
	}
	dynamic->h24 = calloc(n, sizeof(*dynamic->h24));
	if (dynamic->h24 == NULL) {
		return veil_message_fail(p->message, -ENOMEM, "Out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		plist_t entry = plist_array_get_item(array, i);
		struct veil_dynamic_time *time = &dynamic->h24[i];
		char what[48];
		snprintf(what, sizeof(what), "time entry %u", i);
		if (!number(get(entry, "t"), &time->day) || time->day < 0.0 || time->day > 1.0) {
			return veil_message_fail(p->message, -EINVAL, "'%s': the dynamic wallpaper's "
				"%s has no time of day from 0 to 1 (t)", p->name, what);
		}
		ret = image_index(p, get(entry, "i"), what, &time->image);
		if (ret < 0) {
			return ret;
		}
		dynamic->n_h24++;
	}
	qsort(dynamic->h24, dynamic->n_h24, sizeof(*dynamic->h24), compare_time);
	return 0;
}

/* One property's value: base64 of a binary plist. */
static int parse_property(struct parse *p, const char *property, const char *text,
		struct veil_dynamic *dynamic) {
	gsize len = 0;
	guchar *bin = g_base64_decode(text, &len);
	plist_t root = NULL;
	if (bin == NULL || len == 0 || len > UINT32_MAX ||
			plist_from_bin((const char *)bin, (uint32_t)len, &root) != PLIST_ERR_SUCCESS ||
			root == NULL) {
		g_free(bin);
		if (root != NULL) {
			plist_free(root);
		}
		return veil_message_fail(p->message, -EINVAL, "'%s': its apple_desktop:%s is not a "
			"binary property list in base64", p->name, property);
	}
	g_free(bin);
	int ret = 0;
	if (plist_get_node_type(root) != PLIST_DICT) {
		ret = veil_message_fail(p->message, -EINVAL, "'%s': its apple_desktop:%s is not a "
			"dictionary", p->name, property);
	} else if (strcmp(property, "apr") == 0) {
		ret = parse_appearance(p, root, dynamic);
	} else {
		plist_t ap = get(root, "ap");
		if (ap != NULL) {
			ret = parse_appearance(p, ap, dynamic);
		}
		if (ret == 0 && strcmp(property, "solar") == 0) {
			ret = parse_solar(p, root, dynamic);
		} else if (ret == 0) {
			ret = parse_h24(p, root, dynamic);
		}
	}
	plist_free(root);
	return ret;
}

static const char *const properties[] = { "solar", "h24", "apr" };

/* Which of the properties (index), or -1. */
static int property_of(const xmlNs *ns, const xmlChar *name) {
	if (ns == NULL || ns->href == NULL || strcmp((const char *)ns->href, APPLE_NS) != 0) {
		return -1;
	}
	for (size_t i = 0; i < sizeof(properties) / sizeof(properties[0]); i++) {
		if (strcasecmp((const char *)name, properties[i]) == 0) {
			return (int)i;
		}
	}
	return -1;
}

/* The properties' texts found (an attribute or an element), each the first. */
static void find(const xmlNode *node, int depth, const xmlChar *found[3], xmlChar *owned[3]) {
	for (; node != NULL && depth < 64; node = node->next) {
		if (node->type != XML_ELEMENT_NODE) {
			continue;
		}
		int k = property_of(node->ns, node->name);
		if (k >= 0 && found[k] == NULL) {
			owned[k] = xmlNodeGetContent(node);
			found[k] = owned[k];
		}
		for (const xmlAttr *attr = node->properties; attr != NULL; attr = attr->next) {
			int a = property_of(attr->ns, attr->name);
			if (a >= 0 && found[a] == NULL && attr->children != NULL &&
					attr->children->content != NULL) {
				found[a] = attr->children->content;
			}
		}
		find(node->children, depth + 1, found, owned);
	}
}

int veil_dynamic_parse_xmp(const char *xmp, size_t size, const char *name, int n_images,
		struct veil_dynamic *dynamic, char **message) {
	*dynamic = (struct veil_dynamic){ .n_images = n_images };
	if (size > VEIL_DYNAMIC_MAX_XMP) {
		return veil_message_fail(message, -EFBIG, "'%s': its XMP is over %d KiB", name,
			VEIL_DYNAMIC_MAX_XMP / 1024);
	}
	/* macOS ends the packet with a NUL byte (a C string's), which XML does not allow. */
	while (size > 0 && xmp[size - 1] == '\0') {
		size--;
	}
	if (n_images <= 0 || n_images > VEIL_DYNAMIC_MAX_ENTRIES) {
		return veil_message_fail(message, -EINVAL, "'%s' has %d images: a dynamic wallpaper "
			"has 1 to %d", name, n_images, VEIL_DYNAMIC_MAX_ENTRIES);
	}
	char *why = NULL;
	xmlDoc *doc = veil_xml_read(xmp, size, &why);
	int ret = 0;
	if (doc == NULL) {
		ret = why != NULL ? veil_message_fail(message, -EINVAL, "'%s': its XMP is %s", name,
			why) : veil_message_fail(message, -ENOMEM, "Out of memory");
		free(why);
	} else {
		const xmlChar *found[3] = {0};
		xmlChar *owned[3] = {0};
		find(xmlDocGetRootElement(doc), 0, found, owned);
		struct parse p = { .name = name, .n_images = n_images, .message = message };
		bool any = false;
		for (size_t i = 0; ret == 0 && i < 3; i++) {
			if (found[i] != NULL) {
				any = true;
				ret = parse_property(&p, properties[i], (const char *)found[i],
					dynamic);
			}
		}
		for (size_t i = 0; i < 3; i++) {
			xmlFree(owned[i]);
		}
		if (ret == 0 && !any) {
			ret = veil_message_fail(message, -EINVAL, "'%s' is no Apple dynamic wallpaper: "
				"its XMP has no apple_desktop:solar, h24 or apr", name);
		} else if (ret == 0 && dynamic->n_solar == 0 && dynamic->n_h24 == 0 &&
				!dynamic->has_appearance) {
			ret = veil_message_fail(message, -EINVAL, "'%s': its dynamic wallpaper "
				"metadata names no image", name);
		}
	}
	if (doc != NULL) {
		xmlFreeDoc(doc);
	}
	if (ret < 0) {
		veil_dynamic_finish(dynamic);
	}
	return ret;
}

#else

int veil_dynamic_parse_xmp(const char *xmp, size_t size, const char *name, int n_images,
		struct veil_dynamic *dynamic, char **message) {
	*dynamic = (struct veil_dynamic){0};
	return veil_message_fail(message, -ENOTSUP, "'%s' is an Apple dynamic wallpaper, and veil "
		"was built without libheif, libxml2 or libplist to read one", name);
}

#endif
