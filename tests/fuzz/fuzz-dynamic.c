/*
 * veil_dynamic_parse_xmp and the day schedules it leads to: an Apple dynamic wallpaper's XMP
 * and binary plist as a broken or hostile file may hold them. The first byte chooses: even, the
 * rest is the XMP packet itself; odd, the rest is the plist, put in base64 into an XMP packet
 * here (as apple_desktop:solar, h24 or apr, by the byte's next bits; bit 3: as an element of
 * rdf:Description, not an attribute; bit 4: framed as macOS writes it, a byte-order mark in the
 * xpacket header and a NUL at the end) so that the fuzzer reaches libplist and veil's reading
 * of the plist without finding base64 first. Beyond the sanitizers'
 * findings, a run stops when the reader breaks its contract: a refusal without a sentence
 * naming the file, an accepted file whose entries are out of their ranges, or a day's schedule
 * that does not add up to the day.
 */
#define _GNU_SOURCE
#include <glib.h>
#include "fuzz-common.h"
#include "module/show/dynamic.h"

#define NAME "/f/dynamic.heic"
#define N_IMAGES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_schedule(const struct veil_dynamic *d, enum veil_dynamic_mode mode,
		double lat, double lon, time_t day, int64_t day_s) {
	struct veil_timed_schedule s;
	int ret = veil_dynamic_schedule(d, mode, lat, lon, NAME, day, day_s, 60000, &s);
	FUZZ_CHECK(ret == 0, "no %s schedule (%d)", veil_dynamic_mode_name(mode), ret);
	FUZZ_CHECK(s.n_slots > 0 && s.cycle_ms == day_s * 1000, "%zu slots over %lld ms",
		s.n_slots, (long long)s.cycle_ms);
	int64_t sum = 0;
	for (size_t i = 0; i < s.n_slots; i++) {
		const struct veil_timed_slot *slot = &s.slots[i];
		FUZZ_CHECK(slot->duration_ms >= 1, "slot %zu lasts %lld ms", i,
			(long long)slot->duration_ms);
		FUZZ_CHECK(slot->to_item >= 1 && slot->to_item <= N_IMAGES, "slot %zu: item %d", i,
			slot->to_item);
		FUZZ_CHECK((slot->kind == VEIL_TIMED_STATIC) == (slot->from == NULL),
			"slot %zu: from and kind disagree", i);
		sum += slot->duration_ms;
	}
	FUZZ_CHECK(sum == s.cycle_ms, "cycle %lld, sum %lld", (long long)s.cycle_ms,
		(long long)sum);
	veil_timed_schedule_finish(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size == 0) {
		return 0;
	}
	char *xmp;
	size_t len;
	if (data[0] & 1) {
		static const char *const kinds[] = { "solar", "h24", "apr", "solar" };
		const char *kind = kinds[(data[0] >> 1) & 3];
		bool macos = data[0] & 16;
		gchar *base64 = g_base64_encode(data + 1, size - 1);
		gchar *value = data[0] & 8 ?
			g_strdup_printf("><apple_desktop:%s>%s</apple_desktop:%s></rdf:Description>",
				kind, base64, kind) :
			g_strdup_printf(" apple_desktop:%s=\"%s\"/>", kind, base64);
		xmp = g_strdup_printf("%s<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf="
			"\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description "
			"xmlns:apple_desktop=\"http://ns.apple.com/namespace/1.0/\"%s</rdf:RDF>"
			"</x:xmpmeta>", macos ? "<?xpacket begin=\"\xef\xbb\xbf\" "
			"id=\"W5M0MpCehiHzreSzNTczkc9d\"?>" : "", value);
		g_free(value);
		g_free(base64);
		len = strlen(xmp) + (macos ? 1 : 0);
	} else {
		xmp = g_memdup2(data + 1, size - 1);
		len = size - 1;
	}
	struct veil_dynamic d;
	char *message = NULL;
	int ret = veil_dynamic_parse_xmp(xmp, len, NAME, N_IMAGES, &d, &message);
	g_free(xmp);
	if (ret < 0) {
		FUZZ_CHECK(message != NULL && strstr(message, NAME) != NULL,
			"a refusal that does not name the file: %s", message != NULL ? message : "");
		FUZZ_CHECK(d.solar == NULL && d.h24 == NULL, "a refusal that left entries");
		free(message);
		return 0;
	}
	FUZZ_CHECK(message == NULL, "accepted with a message: %s", message);
	FUZZ_CHECK(d.n_solar > 0 || d.n_h24 > 0 || d.has_appearance, "accepted with nothing");
	for (size_t i = 0; i < d.n_solar; i++) {
		FUZZ_CHECK(d.solar[i].altitude >= -90 && d.solar[i].altitude <= 90 &&
			d.solar[i].azimuth >= 0 && d.solar[i].azimuth <= 360 &&
			d.solar[i].image >= 0 && d.solar[i].image < N_IMAGES, "solar entry %zu", i);
	}
	for (size_t i = 0; i < d.n_h24; i++) {
		FUZZ_CHECK(d.h24[i].day >= 0 && d.h24[i].day <= 1 && d.h24[i].image >= 0 &&
			d.h24[i].image < N_IMAGES && (i == 0 || d.h24[i - 1].day <= d.h24[i].day),
			"time entry %zu", i);
	}
	FUZZ_CHECK(!d.has_appearance || (d.light >= 0 && d.light < N_IMAGES && d.dark >= 0 &&
		d.dark < N_IMAGES), "appearance %d, %d", d.light, d.dark);
	/* A day in June at a mid latitude, and a polar day (the sun never sets, never rises). */
	if (d.n_solar > 0) {
		int image = veil_dynamic_solar_image(&d, -33.87, 151.21, 1718928000);
		FUZZ_CHECK(image >= 0 && image < N_IMAGES, "solar image %d", image);
		check_schedule(&d, VEIL_DYNAMIC_SOLAR, 51.48, 0.0, 1718928000, 86400);
		check_schedule(&d, VEIL_DYNAMIC_SOLAR, -78.0, 166.0, 1718928000, 90000);
	}
	if (d.n_h24 > 0) {
		check_schedule(&d, VEIL_DYNAMIC_H24, 0.0, 0.0, 1718928000, 82800);
	}
	veil_dynamic_finish(&d);
	return 0;
}
