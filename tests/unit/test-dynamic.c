/*
 * Apple dynamic wallpapers' metadata and schedules (module/show/dynamic.c): XMP packets written
 * here around binary plists made with libplist (plist_to_bin) and base64 from glib, in the
 * attribute form and the element form; the h24 table at its boundaries; a day's schedule that
 * adds up to the day and changes where the table says; the mode chosen with and without a
 * place; and refusals (garbage, wrong types, an image the file lacks, values out of range, a
 * DOCTYPE, no Apple property), each naming the file.
 *
 * The expected times are written out by hand from the tables (0.25 of a day is 21600 s).
 */
#define _GNU_SOURCE /* timegm, setenv */
#include <errno.h>
#include <glib.h>
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "veil-config.h"
#include "module/show/dynamic.h"
#include "util/sun.h"
#include "check.h"

#define NAME "/w/dyn.heic"

static plist_t entry2(const char *k1, plist_t v1, const char *k2, plist_t v2) {
	plist_t d = plist_new_dict();
	plist_dict_set_item(d, k1, v1);
	plist_dict_set_item(d, k2, v2);
	return d;
}

/* The base64 of root's binary plist (root freed). */
static char *encode(plist_t root) {
	char *bin = NULL;
	uint32_t len = 0;
	CHECK(plist_to_bin(root, &bin, &len) == PLIST_ERR_SUCCESS);
	plist_free(root);
	char *b64 = g_base64_encode((const guchar *)bin, len);
	plist_mem_free(bin);
	return b64;
}

static char *xmp_attribute(const char *property, const char *value) {
	return g_strdup_printf("<?xpacket begin=\"\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\">"
		"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
		"<rdf:Description rdf:about=\"\" "
		"xmlns:apple_desktop=\"http://ns.apple.com/namespace/1.0/\" "
		"apple_desktop:%s=\"%s\"/></rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>",
		property, value);
}

static char *xmp_element(const char *property, const char *value) {
	return g_strdup_printf("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">"
		"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
		"<rdf:Description xmlns:a=\"http://ns.apple.com/namespace/1.0/\">"
		"<a:%s>\n  %s\n</a:%s></rdf:Description></rdf:RDF></x:xmpmeta>",
		property, value, property);
}

static int parse(const char *xmp, int n_images, struct veil_dynamic *d, char **message) {
	*message = NULL;
	return veil_dynamic_parse_xmp(xmp, strlen(xmp), NAME, n_images, d, message);
}

/* h24: 0.25 -> 1, 0.5 -> 2, 0.75 -> 3, 0.9 -> 0, given out of order; ap l 1, d 0. */
static char *h24_value(void) {
	plist_t root = plist_new_dict();
	plist_t ti = plist_new_array();
	const double t[] = { 0.75, 0.25, 0.9, 0.5 };
	const int i[] = { 3, 1, 0, 2 };
	for (int k = 0; k < 4; k++) {
		plist_array_append_item(ti, entry2("t", plist_new_real(t[k]), "i",
			plist_new_int(i[k])));
	}
	plist_dict_set_item(root, "ti", ti);
	plist_dict_set_item(root, "ap", entry2("l", plist_new_int(1), "d", plist_new_int(0)));
	return encode(root);
}

static void test_h24(void) {
	char *b64 = h24_value();
	char *xmp = xmp_attribute("h24", b64);
	struct veil_dynamic d;
	char *message;
	CHECK(parse(xmp, 4, &d, &message) == 0, "%s", message != NULL ? message : "");
	CHECK(d.n_h24 == 4 && d.n_solar == 0 && d.has_appearance && d.light == 1 && d.dark == 0);
	CHECK(d.h24[0].day == 0.25 && d.h24[1].day == 0.5 && d.h24[3].day == 0.9, "sorted");
	/* Before the first entry: the day before's last; at an entry: its image. */
	CHECK(veil_dynamic_h24_image(&d, 0.0) == 0);
	CHECK(veil_dynamic_h24_image(&d, 0.2499) == 0);
	CHECK(veil_dynamic_h24_image(&d, 0.25) == 1);
	CHECK(veil_dynamic_h24_image(&d, 0.4999) == 1);
	CHECK(veil_dynamic_h24_image(&d, 0.5) == 2);
	CHECK(veil_dynamic_h24_image(&d, 0.95) == 0);
	CHECK(veil_dynamic_mode(&d, false) == VEIL_DYNAMIC_H24);
	CHECK(veil_dynamic_mode(&d, true) == VEIL_DYNAMIC_H24, "no solar table: h24");

	/* A UTC day: changes at 21600, 43200, 64800 and 77760 s, each faded over 60 s before. */
	time_t day = timegm(&(struct tm){ .tm_year = 124, .tm_mon = 5, .tm_mday = 21 });
	struct veil_timed_schedule s;
	CHECK(veil_dynamic_schedule(&d, VEIL_DYNAMIC_H24, 0, 0, NAME, day, 86400, 60000, &s) == 0);
	CHECK(s.cycle_ms == 86400000, "%lld", (long long)s.cycle_ms);
	CHECK(s.n_slots == 9, "static 0, 0->1, static 1, 1->2, ..., 3->0, static 0: %zu",
		s.n_slots);
	int64_t start;
	CHECK(veil_timed_start_ms(&s, &start) && start == (int64_t)day * 1000);
	const struct {
		int64_t at_s;
		enum veil_timed_slot_kind kind;
		int to_item;
		int64_t next_s;
	} points[] = {
		{ 0, VEIL_TIMED_STATIC, 1, 21540 },
		{ 21539, VEIL_TIMED_STATIC, 1, 21540 },
		{ 21540, VEIL_TIMED_TRANSITION, 2, 21600 },
		{ 21570, VEIL_TIMED_TRANSITION, 2, 21600 },
		{ 21600, VEIL_TIMED_STATIC, 2, 43140 },
		{ 77760, VEIL_TIMED_STATIC, 1, 86400 },
		{ 86399, VEIL_TIMED_STATIC, 1, 86400 },
	};
	for (size_t k = 0; k < sizeof(points) / sizeof(points[0]); k++) {
		struct veil_timed_point p;
		veil_timed_at(&s, start, start + points[k].at_s * 1000, &p);
		const struct veil_timed_slot *slot = &s.slots[p.slot];
		CHECK(slot->kind == points[k].kind && slot->to_item == points[k].to_item &&
			p.next_ms == start + points[k].next_s * 1000 && strcmp(slot->to, NAME) == 0,
			"at %lld s: slot %zu, kind %d, item %d, next %lld", (long long)points[k].at_s,
			p.slot, slot->kind, slot->to_item, (long long)(p.next_ms - start) / 1000);
	}
	/* Midway through the fade into 0.25's image: half of it. */
	struct veil_timed_point p;
	veil_timed_at(&s, start, start + 21570000, &p);
	CHECK(p.progress == 0.5f && s.slots[p.slot].from_item == 1, "%f", p.progress);
	veil_timed_schedule_finish(&s);

	/* No fade (transition none): a cut at the entry's time. */
	CHECK(veil_dynamic_schedule(&d, VEIL_DYNAMIC_H24, 0, 0, NAME, day, 86400, 0, &s) == 0);
	CHECK(s.n_slots == 5 && s.slots[1].kind == VEIL_TIMED_STATIC &&
		s.slots[0].duration_ms == 21600000, "%zu slots", s.n_slots);
	veil_timed_schedule_finish(&s);
	veil_dynamic_finish(&d);
	g_free(xmp);
	g_free(b64);
}

/*
 * h24 entries are times of the local clock: on the day Europe/London springs forward (2024-03-31,
 * 23 hours: 01:00 GMT is 02:00 BST), 06:00, 12:00, 18:00 and 21:36 local are 5, 11, 17 and
 * 20.6 hours after midnight; on the day it falls back (2024-10-27, 25 hours), 7, 13, 19, 22.6.
 */
static void test_h24_dst(void) {
	setenv("TZ", "GMT0BST,M3.5.0/1,M10.5.0", 1);
	tzset();
	char *b64 = h24_value();
	char *xmp = xmp_attribute("h24", b64);
	struct veil_dynamic d;
	char *message;
	CHECK(parse(xmp, 4, &d, &message) == 0, "%s", message != NULL ? message : "");
	const struct {
		int mday, month, day_hours;
		int64_t changes_s[4];
	} days[] = {
		{ 31, 2, 23, { 5 * 3600, 11 * 3600, 17 * 3600, 74160 } },
		{ 27, 9, 25, { 7 * 3600, 13 * 3600, 19 * 3600, 81360 } },
	};
	for (size_t k = 0; k < sizeof(days) / sizeof(days[0]); k++) {
		struct tm tm = { .tm_year = 124, .tm_mon = days[k].month, .tm_mday = days[k].mday,
			.tm_isdst = -1 };
		time_t day = mktime(&tm);
		int64_t day_s = days[k].day_hours * 3600;
		struct veil_timed_schedule s;
		CHECK(veil_dynamic_schedule(&d, VEIL_DYNAMIC_H24, 0, 0, NAME, day, day_s, 0, &s) == 0);
		CHECK(s.cycle_ms == day_s * 1000 && s.n_slots == 5, "%lld ms, %zu slots",
			(long long)s.cycle_ms, s.n_slots);
		/* Slot 0 is image 0 from midnight; slot i + 1 begins at change i. */
		int64_t at_ms = 0;
		for (size_t i = 0; i < 4 && i + 1 < s.n_slots; i++) {
			at_ms += s.slots[i].duration_ms;
			CHECK(at_ms == days[k].changes_s[i] * 1000, "day %d/%d change %zu at %lld s, "
				"not %lld", days[k].mday, days[k].month + 1, i, (long long)at_ms / 1000,
				(long long)days[k].changes_s[i]);
		}
		veil_timed_schedule_finish(&s);
	}
	veil_dynamic_finish(&d);
	g_free(xmp);
	g_free(b64);
	setenv("TZ", "UTC0", 1);
	tzset();
}

static void test_solar(void) {
	plist_t root = plist_new_dict();
	plist_t si = plist_new_array();
	const double entries[][3] = { { -30, 20, 0 }, { 5, 70, 1 }, { 60, 170, 2 }, { 60, 190, 2 },
		{ 5, 290, 3 }, { -30, 340, 0 } };
	for (int k = 0; k < 6; k++) {
		plist_t e = entry2("a", plist_new_real(entries[k][0]), "z",
			plist_new_real(entries[k][1]));
		plist_dict_set_item(e, "i", plist_new_int((int64_t)entries[k][2]));
		plist_array_append_item(si, e);
	}
	plist_dict_set_item(root, "si", si);
	char *b64 = encode(root);
	char *xmp = xmp_element("solar", b64);
	struct veil_dynamic d;
	char *message;
	CHECK(parse(xmp, 4, &d, &message) == 0, "%s", message != NULL ? message : "");
	CHECK(d.n_solar == 6 && !d.has_appearance && d.solar[3].azimuth == 190);
	CHECK(veil_dynamic_mode(&d, true) == VEIL_DYNAMIC_SOLAR);
	CHECK(veil_dynamic_mode(&d, false) == VEIL_DYNAMIC_NONE, "no place, no h24, no ap");
	/*
	 * London, 2024-06-21 (UTC): at 00:30 the sun is about 15 degrees below the horizon (night),
	 * at 12:00 about 62 up (noon); in the evening at 19:30 about 9 up, in the west.
	 */
	time_t day = timegm(&(struct tm){ .tm_year = 124, .tm_mon = 5, .tm_mday = 21 });
	CHECK(veil_dynamic_solar_image(&d, 51.48, 0, day + 1800) == 0);
	CHECK(veil_dynamic_solar_image(&d, 51.48, 0, day + 43200) == 2);
	CHECK(veil_dynamic_solar_image(&d, 51.48, 0, day + 70200) == 3);
	struct veil_timed_schedule s;
	CHECK(veil_dynamic_schedule(&d, VEIL_DYNAMIC_SOLAR, 51.48, 0, NAME, day, 86400, 60000,
		&s) == 0);
	CHECK(s.cycle_ms == 86400000 && s.n_slots >= 7, "%zu slots", s.n_slots);
	/* Each transition leads into the next static's image. */
	for (size_t k = 0; k + 1 < s.n_slots; k++) {
		if (s.slots[k].kind == VEIL_TIMED_TRANSITION) {
			CHECK(s.slots[k + 1].kind == VEIL_TIMED_STATIC &&
				s.slots[k + 1].to_item == s.slots[k].to_item &&
				s.slots[k].duration_ms == 60000, "slot %zu", k);
		}
	}
	veil_timed_schedule_finish(&s);
	/* A polar night (Svalbard, December): never the noon image (item 3). */
	time_t dec = timegm(&(struct tm){ .tm_year = 124, .tm_mon = 11, .tm_mday = 21 });
	CHECK(veil_dynamic_schedule(&d, VEIL_DYNAMIC_SOLAR, 78.2, 15.6, NAME, dec, 86400, 60000,
		&s) == 0);
	for (size_t k = 0; k < s.n_slots; k++) {
		CHECK(s.slots[k].to_item != 3, "slot %zu item %d", k, s.slots[k].to_item);
	}
	veil_timed_schedule_finish(&s);
	veil_dynamic_finish(&d);
	g_free(xmp);
	g_free(b64);
}

static void test_appearance(void) {
	char *b64 = encode(entry2("l", plist_new_int(2), "d", plist_new_int(5)));
	char *xmp = xmp_attribute("apr", b64);
	struct veil_dynamic d;
	char *message;
	CHECK(parse(xmp, 6, &d, &message) == 0, "%s", message != NULL ? message : "");
	CHECK(d.has_appearance && d.light == 2 && d.dark == 5);
	CHECK(veil_dynamic_mode(&d, true) == VEIL_DYNAMIC_APPEARANCE);
	veil_dynamic_finish(&d);
	/* Image 5 of a file of 5 images. */
	CHECK(parse(xmp, 5, &d, &message) == -EINVAL && d.h24 == NULL);
	CHECK(message != NULL && strstr(message, NAME) && strstr(message, "names image 5"),
		"%s", message);
	free(message);
	g_free(xmp);
	g_free(b64);
}

static void refused(int line, const char *xmp, const char *part) {
	struct veil_dynamic d;
	char *message;
	int ret = parse(xmp, 4, &d, &message);
	CHECK_LINE(line, ret < 0 && d.solar == NULL && d.h24 == NULL, "accepted (%d)", ret);
	CHECK_LINE(line, message != NULL && strstr(message, NAME) != NULL &&
		strstr(message, part) != NULL, "'%s' lacks '%s' or the file", message, part);
	free(message);
}

/* A property list (freed) as the base64 of XMP's apple_desktop:property, refused. */
static void refused_plist(int line, const char *property, plist_t root, const char *part) {
	char *b64 = encode(root);
	char *xmp = xmp_attribute(property, b64);
	refused(line, xmp, part);
	g_free(xmp);
	g_free(b64);
}

/*
 * The packet as macOS writes it: a byte-order mark in the xpacket header and a NUL byte at its
 * end, counted into the item's size; the value as an attribute and as an element (Equinox's).
 * Before veil ended the packet at its NUL, libxml2 said "Extra content at the end of the
 * document". The plist as Apple's: integers for reals, a key veil does not know (o), no ap.
 */
static void test_macos_packet(void) {
	plist_t root = plist_new_dict();
	plist_t si = plist_new_array();
	const int entries[][4] = { { 31, 180, 1, 1 }, { -45, 0, 0, 0 } };
	for (int k = 0; k < 2; k++) {
		plist_t e = entry2("a", plist_new_int(entries[k][0]), "z",
			plist_new_int(entries[k][1]));
		plist_dict_set_item(e, "i", plist_new_int(entries[k][2]));
		plist_dict_set_item(e, "o", plist_new_int(entries[k][3]));
		plist_array_append_item(si, e);
	}
	plist_dict_set_item(root, "si", si);
	char *b64 = encode(root);
	for (int form = 0; form < 2; form++) {
		char *body = form == 0 ? xmp_attribute("solar", b64) : xmp_element("solar", b64);
		char *xmp = g_strdup_printf("<?xpacket begin=\"\xef\xbb\xbf\" "
			"id=\"W5M0MpCehiHzreSzNTczkc9d\"?>%s", body);
		struct veil_dynamic d;
		char *message = NULL;
		int ret = veil_dynamic_parse_xmp(xmp, strlen(xmp) + 1, NAME, 2, &d, &message);
		CHECK(ret == 0, "form %d: %s", form, message != NULL ? message : "");
		CHECK(d.n_solar == 2 && d.solar[0].altitude == 31 && d.solar[0].image == 1 &&
			d.solar[1].azimuth == 0 && !d.has_appearance, "form %d", form);
		veil_dynamic_finish(&d);
		free(message);
		g_free(xmp);
		g_free(body);
	}
	g_free(b64);
}

/*
 * A night picture never shows in daylight: a file of a day picture (altitude 31) and a night
 * one (-45), each at any of four azimuths, in either order, shows the day picture whenever the
 * sun is above the horizon and the night one whenever it is more than 20 degrees below, from
 * 85 S to 85 N, every 13 days of 2024, every 20 minutes.
 */
/* Over places and days: how many picks were wrong (the first few reported). */
static size_t day_and_night_wrong(const struct veil_dynamic *d, size_t *checked) {
	size_t wrong = 0;
	for (int lat = -85; lat <= 85; lat += 10) {
		double lon = (lat + 85) * 2 - 180;
		for (int day = 0; day < 366; day += 13) {
			for (int m = 0; m < 1440; m += 20) {
				time_t when = 1704067200 + (time_t)day * 86400 + m * 60;
				struct veil_sun_position sun;
				veil_sun_position(lat, lon, when, &sun);
				int image = veil_dynamic_solar_image(d, lat, lon, when);
				bool bad = (sun.elevation > 0 && image != 0) ||
					(sun.elevation < -20 && image != 1);
				if (bad && wrong++ < 3) {
					CHECK(false, "sun %.1f at (%d, %.0f): image %d", sun.elevation,
						lat, lon, image);
				}
				(*checked)++;
			}
		}
	}
	return wrong;
}

static void test_solar_day_and_night(void) {
	const double azimuths[] = { 0, 90, 180, 270 };
	size_t checked = 0, wrong = 0;
	for (int k = 0; k < 32; k++) {
		int order = k / 16, zd = (k / 4) % 4, zn = k % 4;
		struct veil_dynamic_sun suns[2];
		suns[order] = (struct veil_dynamic_sun){ 31, azimuths[zd], 0 };
		suns[1 - order] = (struct veil_dynamic_sun){ -45, azimuths[zn], 1 };
		struct veil_dynamic d = { .n_images = 2, .solar = suns, .n_solar = 2 };
		size_t n = day_and_night_wrong(&d, &checked);
		CHECK(n == 0, "day at %.0f, night at %.0f, day entry %s: %zu wrong", azimuths[zd],
			azimuths[zn], order == 0 ? "first" : "second", n);
		wrong += n;
	}
	CHECK(wrong == 0 && checked > 300000, "%zu of %zu wrong", wrong, checked);
}

static void test_refused(void) {
	char *xmp = xmp_attribute("solar", "bm90IGEgcGxpc3Q=");
	refused(__LINE__, xmp, "not a binary property list");
	g_free(xmp);
	xmp = xmp_attribute("solar", "!!!");
	refused(__LINE__, xmp, "not a binary property list");
	g_free(xmp);

	refused_plist(__LINE__, "solar", entry2("si", plist_new_string("x"), "ap",
		plist_new_dict()), "appearance");
	plist_t si = plist_new_array();
	plist_array_append_item(si, entry2("a", plist_new_real(95), "z", plist_new_real(10)));
	refused_plist(__LINE__, "solar", entry2("si", si, "x", plist_new_bool(1)),
		"altitude from -90 to 90");
	si = plist_new_array();
	plist_t e = entry2("a", plist_new_real(5), "z", plist_new_real(-1));
	plist_dict_set_item(e, "i", plist_new_int(0));
	plist_array_append_item(si, e);
	refused_plist(__LINE__, "solar", entry2("si", si, "x", plist_new_bool(1)), "azimuth");
	plist_t ti = plist_new_array();
	plist_array_append_item(ti, entry2("t", plist_new_real(0.5), "i", plist_new_real(1.5)));
	refused_plist(__LINE__, "h24", entry2("ti", ti, "x", plist_new_bool(1)), "image 1.5");
	refused_plist(__LINE__, "solar", entry2("si", plist_new_array(), "ti", plist_new_array()),
		"names no image");

	refused(__LINE__, "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>", "no apple_desktop");
	refused(__LINE__, "<x:xmpmeta", "not well-formed");
	refused(__LINE__, "<!DOCTYPE x [<!ENTITY e \"e\">]><x>&e;</x>", "DOCTYPE");
	/* Apple's prefix on another namespace is not Apple's. */
	char *b64 = h24_value();
	char *other = g_strdup_printf("<r xmlns:apple_desktop=\"urn:other\" "
		"apple_desktop:h24=\"%s\"/>", b64);
	refused(__LINE__, other, "no apple_desktop");
	g_free(other);
	g_free(b64);
}

int main(void) {
	setenv("TZ", "UTC0", 1);
	tzset();
#if VEIL_HAVE_DYNAMIC
	test_h24();
	test_h24_dst();
	test_solar();
	test_macos_packet();
	test_solar_day_and_night();
	test_appearance();
	test_refused();
#endif
	return check_summary("dynamic");
}
