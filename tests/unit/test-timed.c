/*
 * Timed backgrounds: the schedule's maths (module/show/timed_schedule.c) at its boundaries, inside
 * its slots, wrapping after the cycle and before the start, across a DST change; and the XML
 * reader (module/show/timed_xml.c) on a good file, on impossible times, and on hostile documents
 * (entities, a DOCTYPE, deep nesting, a huge file), each refused with the file named.
 *
 * The expected times are written out by hand from the schedule's durations, and the start
 * times are computed through the C library's timegm() (UTC), not through the code tested.
 */
#define _GNU_SOURCE /* timegm, setenv */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "veil-config.h"
#include "module/show/timed_schedule.h"
#include "module/show/timed_xml.h"
#include "util/message.h"
#include "check.h"

static char a[] = "/p/a.png", b[] = "/p/b.png", c[] = "/p/c.png";

/* static a 100 s, a->b 20 s, static b 100 s, b->c 20 s, static c 100 s, c->a 20 s: 360 s. */
static struct veil_timed_slot slots[] = {
	{ VEIL_TIMED_STATIC, 100000, NULL, a },
	{ VEIL_TIMED_TRANSITION, 20000, a, b },
	{ VEIL_TIMED_STATIC, 100000, NULL, b },
	{ VEIL_TIMED_TRANSITION, 20000, b, c },
	{ VEIL_TIMED_STATIC, 100000, NULL, c },
	{ VEIL_TIMED_TRANSITION, 20000, c, a },
};

static void expect(int line, const struct veil_timed_schedule *s, int64_t start, int64_t now,
		size_t slot, int64_t into, int64_t next) {
	struct veil_timed_point p;
	veil_timed_at(s, start, now, &p);
	CHECK_LINE(line, p.slot == slot, "at %+lld ms: slot %zu, expected %zu",
		(long long)(now - start), p.slot, slot);
	CHECK_LINE(line, p.into_ms == into, "at %+lld ms: %lld ms in, expected %lld",
		(long long)(now - start), (long long)p.into_ms, (long long)into);
	CHECK_LINE(line, p.next_ms == next, "at %+lld ms: next %+lld, expected %+lld",
		(long long)(now - start), (long long)(p.next_ms - start), (long long)(next - start));
}

static void test_maths(void) {
	struct veil_timed_schedule s = { .slots = slots, .n_slots = 6, .cycle_ms = 360000 };
	const int64_t S = 1600000000000; /* any start */
	const int64_t C = 360000;
	expect(__LINE__, &s, S, S, 0, 0, S + 100000);
	expect(__LINE__, &s, S, S + 99999, 0, 99999, S + 100000);
	expect(__LINE__, &s, S, S + 100000, 1, 0, S + 120000);
	expect(__LINE__, &s, S, S + 110000, 1, 10000, S + 120000);
	expect(__LINE__, &s, S, S + 119999, 1, 19999, S + 120000);
	expect(__LINE__, &s, S, S + 120000, 2, 0, S + 220000);
	expect(__LINE__, &s, S, S + 230000, 3, 10000, S + 240000);
	expect(__LINE__, &s, S, S + 350000, 5, 10000, S + 360000);
	/* The end of the cycle wraps to its beginning. */
	expect(__LINE__, &s, S, S + C, 0, 0, S + C + 100000);
	expect(__LINE__, &s, S, S + 7 * C + 110000, 1, 10000, S + 7 * C + 120000);
	/* Before the start, the cycle runs backwards the same way. */
	expect(__LINE__, &s, S, S - 1, 5, 19999, S);
	expect(__LINE__, &s, S, S - C, 0, 0, S - C + 100000);
	expect(__LINE__, &s, S, S - 3 * C + 50, 0, 50, S - 3 * C + 100000);
	/* Progress is the share into the slot. */
	struct veil_timed_point p;
	veil_timed_at(&s, S, S + 105000, &p);
	CHECK(p.progress > 0.2499f && p.progress < 0.2501f, "progress %f", p.progress);

	/* One slot only: every change is the cycle's. */
	struct veil_timed_schedule one = { .slots = slots, .n_slots = 1, .cycle_ms = 100000 };
	expect(__LINE__, &one, S, S + 250000, 0, 50000, S + 300000);
}

static int64_t utc_ms(int year, int month, int day, int hour, int minute) {
	struct tm tm = {
		.tm_year = year - 1900, .tm_mon = month - 1, .tm_mday = day,
		.tm_hour = hour, .tm_min = minute,
	};
	return (int64_t)timegm(&tm) * 1000;
}

static void test_start_zones(void) {
	struct veil_timed_schedule s = {
		.start = { .tm_year = 120, .tm_mon = 6, .tm_mday = 1, .tm_hour = 12 },
		.slots = slots, .n_slots = 6, .cycle_ms = 360000,
	};
	int64_t start;
	setenv("TZ", "UTC0", 1);
	tzset();
	CHECK(veil_timed_start_ms(&s, &start));
	CHECK(start == utc_ms(2020, 7, 1, 12, 0), "%lld", (long long)start);
	/* Central European summer time: 12:00 local is 10:00 UTC. */
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	CHECK(veil_timed_start_ms(&s, &start));
	CHECK(start == utc_ms(2020, 7, 1, 10, 0), "%lld", (long long)start);
	/* In winter, the same zone is one hour ahead of UTC. */
	s.start.tm_mon = 0;
	CHECK(veil_timed_start_ms(&s, &start));
	CHECK(start == utc_ms(2020, 1, 1, 11, 0), "%lld", (long long)start);
	/*
	 * Across the DST change (2020-03-29 02:00 CET becomes 03:00 CEST), durations are real
	 * seconds: a day's cycle started at local midnight on the 28th changes at 01:00 local on
	 * the 30th (23:00 UTC on the 29th), as GNOME's do.
	 */
	struct veil_timed_slot day[] = {
		{ VEIL_TIMED_STATIC, 12 * 3600000, NULL, a },
		{ VEIL_TIMED_STATIC, 12 * 3600000, NULL, b },
	};
	struct veil_timed_schedule d = {
		.start = { .tm_year = 120, .tm_mon = 2, .tm_mday = 28 },
		.slots = day, .n_slots = 2, .cycle_ms = 24 * 3600000,
	};
	CHECK(veil_timed_start_ms(&d, &start));
	CHECK(start == utc_ms(2020, 3, 27, 23, 0), "%lld", (long long)start);
	struct veil_timed_point p;
	veil_timed_at(&d, start, utc_ms(2020, 3, 29, 22, 59), &p);
	CHECK(p.slot == 1 && p.next_ms == utc_ms(2020, 3, 29, 23, 0), "slot %zu next %lld",
		p.slot, (long long)p.next_ms);
	setenv("TZ", "UTC0", 1);
	tzset();
}

#if VEIL_HAVE_LIBXML2

static const char good[] =
	"<?xml version=\"1.0\"?>\n"
	"<background>\n"
	"  <starttime><year>2020</year><month>1</month><day>2</day>\n"
	"    <hour>3</hour><minute>4</minute><second>5</second></starttime>\n"
	"  <static><duration>100.0</duration><file>a.png</file></static>\n"
	"  <comment>passed over</comment>\n"
	"  <transition type=\"overlay\"><duration>20.5</duration>\n"
	"    <from>a.png</from><to><![CDATA[/abs/b.png]]></to></transition>\n"
	"  <static><duration>100</duration><file>\n"
	"    <size width=\"640\" height=\"480\">small.png</size>\n"
	"    <size width=\"1920\" height=\"1080\">big.png</size>\n"
	"    <size width=\"800\" height=\"600\">mid.png</size>\n"
	"  </file></static>\n"
	"</background>\n";

static int parse(const char *text, size_t size, struct veil_timed_schedule *s, char **message) {
	*message = NULL;
	return veil_timed_xml_parse(text, size, "/d/t.xml", "/d", s, message);
}

/* A document that must be refused, the message naming the file and saying want. */
static void refuse(int line, const char *text, size_t size, const char *want) {
	struct veil_timed_schedule s;
	char *message = NULL;
	int ret = parse(text, size, &s, &message);
	CHECK_LINE(line, ret < 0, "accepted");
	CHECK_LINE(line, s.n_slots == 0 && s.slots == NULL);
	CHECK_LINE(line, message != NULL && strstr(message, "/d/t.xml") != NULL,
		"message '%s' does not name the file", message != NULL ? message : "(none)");
	/* want may give two sentences, "a|b": either is right. */
	char one[128];
	snprintf(one, sizeof(one), "%s", want);
	char *other = strchr(one, '|');
	if (other != NULL) {
		*other++ = '\0';
	}
	bool said = message != NULL && (strstr(message, one) != NULL ||
		(other != NULL && strstr(message, other) != NULL));
	CHECK_LINE(line, said, "message '%s' does not say '%s'", message != NULL ? message :
		"(none)", want);
	free(message);
}

#define REFUSE(text, want) refuse(__LINE__, text, strlen(text), want)

static char *with_start(const char *starttime, const char *slot) {
	size_t n = strlen(starttime) + strlen(slot) + 64;
	char *text = malloc(n);
	snprintf(text, n, "<background><starttime>%s</starttime>%s</background>", starttime,
		slot);
	return text;
}

static void refuse_parts(int line, const char *starttime, const char *slot, const char *want) {
	char *text = with_start(starttime, slot);
	refuse(line, text, strlen(text), want);
	free(text);
}

/* The start of a document as GNOME's reader makes it: localtime(0), what it gives put over it. */
static void start_as_gnome(int line, const char *zone, const char *text, int64_t want_ms,
		int want_hour) {
	setenv("TZ", zone, 1);
	tzset();
	struct veil_timed_schedule s;
	char *message = NULL;
	int ret = parse(text, strlen(text), &s, &message);
	CHECK_LINE(line, ret == 0, "%s: %s", zone, message != NULL ? message : "");
	int64_t start = 0;
	CHECK_LINE(line, ret == 0 && veil_timed_start_ms(&s, &start) && start == want_ms &&
		s.start.tm_hour == want_hour, "%s: start %lld, hour %d; expected %lld, %d", zone,
		(long long)start, s.start.tm_hour, (long long)want_ms, want_hour);
	veil_timed_schedule_finish(&s);
	free(message);
}

/*
 * Files as distributions ship them: no <starttime> (desktop-base's), a <starttime> of only a
 * time, a <transition> without type. GNOME (gnome-bg-slide-show.c) starts from localtime(0)
 * and puts the file's fields over it: no <starttime> is the epoch in any zone; 07:30 alone is
 * 07:30 on the epoch's local date, 1969-12-31 in New York (UTC-5 then).
 */
static void test_gnome_defaults(void) {
	const char *body = "<static><duration>10</duration><file>a.png</file></static>"
		"<transition><duration>5</duration><from>a.png</from><to>b.png</to></transition>"
		"</background>";
	char *none = veil_message("<background>%s", body);
	char *time_only = veil_message("<background><starttime><hour>7</hour><minute>30</minute>"
		"</starttime>%s", body);
	start_as_gnome(__LINE__, "UTC0", none, 0, 0);
	start_as_gnome(__LINE__, "EST5EDT", none, 0, 19);
	start_as_gnome(__LINE__, "CET-1CEST", none, 0, 1);
	start_as_gnome(__LINE__, "UTC0", time_only, (7 * 3600 + 30 * 60) * 1000LL, 7);
	start_as_gnome(__LINE__, "EST5EDT", time_only,
		(-86400 + 7 * 3600 + 30 * 60 + 5 * 3600) * 1000LL, 7);
	struct veil_timed_schedule s;
	char *message = NULL;
	CHECK(parse(none, strlen(none), &s, &message) == 0 && s.n_slots == 2 &&
		s.slots[1].kind == VEIL_TIMED_TRANSITION && s.cycle_ms == 15000,
		"a transition without type: %s", message != NULL ? message : "");
	veil_timed_schedule_finish(&s);
	free(none);
	free(time_only);
	setenv("TZ", "UTC0", 1);
	tzset();
}

/*
 * Durations read the same in a locale whose decimal point is a comma (labwc calls
 * setlocale(LC_ALL, "")): de_DE.UTF-8, made here with localedef (Debian's locales package)
 * into a directory of the test's own, LOCPATH. strtod read "1.5" there as 1.
 */
static void test_locale(void) {
	char dir[] = "/tmp/veil-locale-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *cmd = veil_message("localedef -i de_DE -f UTF-8 --no-archive %s/de_DE.UTF-8 "
		">/dev/null 2>&1", dir);
	int made = system(cmd);
	free(cmd);
	setenv("LOCPATH", dir, 1);
	const char *set = setlocale(LC_ALL, "de_DE.UTF-8");
	CHECK(made == 0 && set != NULL && strcmp(localeconv()->decimal_point, ",") == 0,
		"no de_DE.UTF-8 locale with a decimal comma (localedef from the locales package: %d)",
		made);
	const char *text = "<background><static><duration>1.5</duration><file>a.png</file>"
		"</static><static><duration>0.25</duration><file>b.png</file></static></background>";
	struct veil_timed_schedule s;
	char *message = NULL;
	CHECK(parse(text, strlen(text), &s, &message) == 0 && s.cycle_ms == 1750 &&
		s.slots[0].duration_ms == 1500, "in %s: %lld ms, %s", set != NULL ? set : "C",
		(long long)s.cycle_ms, message != NULL ? message : "");
	veil_timed_schedule_finish(&s);
	free(message);
	setlocale(LC_ALL, "C");
	unsetenv("LOCPATH");
	char *rm = veil_message("rm -rf %s", dir);
	CHECK(system(rm) == 0);
	free(rm);
}

static void test_xml(void) {
	struct veil_timed_schedule s;
	char *message = NULL;
	CHECK(parse(good, strlen(good), &s, &message) == 0, "%s", message);
	CHECK(s.n_slots == 3, "%zu slots", s.n_slots);
	CHECK(s.cycle_ms == 220500, "%lld", (long long)s.cycle_ms);
	CHECK(s.start.tm_year == 120 && s.start.tm_mon == 0 && s.start.tm_mday == 2 &&
		s.start.tm_hour == 3 && s.start.tm_min == 4 && s.start.tm_sec == 5);
	if (s.n_slots == 3) {
		CHECK(s.slots[0].kind == VEIL_TIMED_STATIC && s.slots[0].duration_ms == 100000);
		CHECK(strcmp(s.slots[0].to, "/d/a.png") == 0, "%s", s.slots[0].to);
		CHECK(s.slots[1].kind == VEIL_TIMED_TRANSITION && s.slots[1].duration_ms == 20500);
		CHECK(strcmp(s.slots[1].from, "/d/a.png") == 0, "%s", s.slots[1].from);
		CHECK(strcmp(s.slots[1].to, "/abs/b.png") == 0, "%s", s.slots[1].to);
		/* The largest size. */
		CHECK(strcmp(s.slots[2].to, "/d/big.png") == 0, "%s", s.slots[2].to);
	}
	veil_timed_schedule_finish(&s);

	CHECK(veil_package_xml_name("/x/adwaita-timed.XML"));
	CHECK(!veil_package_xml_name("/x/a.png"));
	CHECK(!veil_package_xml_name(".xml"));

	const char *slot = "<static><duration>10</duration><file>a.png</file></static>";
	const char *date = "<year>2020</year><month>1</month><day>1</day>";
	/* Impossible times. */
	refuse_parts(__LINE__, "<year>2020</year><month>1</month><day>1</day><hour>25</hour>",
		slot, "<hour> '25' is not a time");
	refuse_parts(__LINE__, "<year>2020</year><month>13</month><day>1</day>", slot,
		"<month> '13'");
	refuse_parts(__LINE__, "<year>2021</year><month>2</month><day>29</day>", slot,
		"2021-02-29 is not a date");
	refuse_parts(__LINE__, "<year>2020</year><month>4</month><day>31</day>", slot,
		"not a date");
	refuse_parts(__LINE__, "<year>2020</year><month>1</month><day>1</day>"
		"<minute>sixty</minute>", slot, "<minute> 'sixty'");
	refuse_parts(__LINE__, date,
		"<static><duration>-5</duration><file>a.png</file></static>", "duration '-5'");
	refuse_parts(__LINE__, date,
		"<static><duration>0</duration><file>a.png</file></static>", "duration '0'");
	refuse_parts(__LINE__, date,
		"<static><duration>nan</duration><file>a.png</file></static>", "duration 'nan'");
	refuse_parts(__LINE__, date,
		"<static><duration>1e300</duration><file>a.png</file></static>", "duration");
	refuse_parts(__LINE__, date,
		"<static><duration>20000000</duration><file>a.png</file></static>"
		"<static><duration>20000000</duration><file>a.png</file></static>",
		"more than a year");
	refuse_parts(__LINE__, date, "<static><file>a.png</file></static>", "no <duration>");
	refuse_parts(__LINE__, date, "<static><duration>5</duration></static>", "no <file>");
	refuse_parts(__LINE__, date,
		"<transition><duration>5</duration><from>a.png</from></transition>", "no <to>");
	refuse_parts(__LINE__, date, "", "no <static> or <transition>");
	REFUSE("<wallpapers><wallpaper/></wallpapers>", "not <background>");
	REFUSE("<background><starttime>", "not well-formed");
	REFUSE("", "not well-formed");
	REFUSE("\x89PNG\r\n\x1a\n", "not well-formed");

	/* Entities: a billion laughs, an external entity, a DOCTYPE of any kind. */
	REFUSE("<?xml version=\"1.0\"?>\n"
		"<!DOCTYPE background [\n"
		" <!ENTITY l0 \"ha\">\n"
		" <!ENTITY l1 \"&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;\">\n"
		" <!ENTITY l2 \"&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;\">\n"
		" <!ENTITY l3 \"&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;\">\n"
		" <!ENTITY l4 \"&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;\">\n"
		" <!ENTITY l5 \"&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;\">\n"
		" <!ENTITY l6 \"&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;\">\n"
		" <!ENTITY l7 \"&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;\">\n"
		" <!ENTITY l8 \"&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;\">\n"
		" <!ENTITY l9 \"&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;\">\n"
		"]>\n"
		"<background><starttime><year>2020</year><month>1</month><day>1</day></starttime>"
		"<static><duration>5</duration><file>&l9;</file></static></background>",
		/* libxml2 stops at the amplification before the DOCTYPE is looked at. */
		"DOCTYPE|amplification");
	REFUSE("<?xml version=\"1.0\"?>\n"
		"<!DOCTYPE background [ <!ENTITY x SYSTEM \"file:///etc/passwd\"> ]>\n"
		"<background><starttime><year>2020</year><month>1</month><day>1</day></starttime>"
		"<static><duration>5</duration><file>&x;</file></static></background>",
		"DOCTYPE");
	REFUSE("<!DOCTYPE background SYSTEM \"http://example.invalid/bg.dtd\">"
		"<background/>", "DOCTYPE");
	/* An entity not declared is an error of the XML, not an expansion. */
	refuse_parts(__LINE__, date,
		"<static><duration>5</duration><file>&undefined;</file></static>",
		"not well-formed");

	/* Deeply nested: libxml2's depth limit, no stack overflow. */
	size_t depth = 100000;
	char *deep = malloc(depth * 7 + 64);
	char *p = deep;
	p += sprintf(p, "<background>");
	for (size_t i = 0; i < depth; i++) {
		p += sprintf(p, "<a>");
	}
	for (size_t i = 0; i < depth; i++) {
		p += sprintf(p, "</a>");
	}
	p += sprintf(p, "</background>");
	refuse(__LINE__, deep, (size_t)(p - deep), "not well-formed");
	free(deep);

	/* Huge: refused before parsing. */
	size_t huge = VEIL_TIMED_XML_MAX_BYTES + 1;
	char *big = malloc(huge);
	memset(big, ' ', huge);
	memcpy(big, "<background>", 12);
	refuse(__LINE__, big, huge, "too large");
	free(big);

	/* Many slots: at most VEIL_TIMED_MAX_SLOTS. */
	size_t n = VEIL_TIMED_MAX_SLOTS + 1;
	size_t each = strlen(slot);
	char *many = malloc(n * each + 256);
	p = many;
	p += sprintf(p, "<background><starttime>%s</starttime>", date);
	for (size_t i = 0; i < n; i++) {
		memcpy(p, slot, each);
		p += each;
	}
	p += sprintf(p, "</background>");
	refuse(__LINE__, many, (size_t)(p - many), "slots: at most");
	free(many);
}

/* veil_timed_xml_load(): relative names against the XML's directory, missing files named. */
static void test_load(void) {
	char dir[] = "/tmp/veil-test-timed-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(false, "mkdtemp: %s", strerror(errno));
		return;
	}
	char path[256], pic[256], xml[256];
	snprintf(pic, sizeof(pic), "%s/a.png", dir);
	FILE *f = fopen(pic, "w");
	fputs("not read here", f);
	fclose(f);
	snprintf(xml, sizeof(xml), "%s/t.xml", dir);
	f = fopen(xml, "w");
	fputs("<background><starttime><year>2020</year><month>1</month><day>1</day></starttime>"
		"<static><duration>5</duration><file>a.png</file></static>"
		"<transition><duration>5</duration><from>a.png</from><to>gone.png</to>"
		"</transition></background>", f);
	fclose(f);
	struct veil_timed_schedule s;
	char *message = NULL;
	int ret = veil_timed_xml_load(xml, &s, &message);
	snprintf(path, sizeof(path), "%s/gone.png", dir);
	CHECK(ret == -ENOENT, "%d", ret);
	CHECK(message != NULL && strstr(message, xml) != NULL && strstr(message, path) != NULL,
		"%s", message != NULL ? message : "(none)");
	free(message);
	message = NULL;

	f = fopen(xml, "w");
	fputs("<background><starttime><year>2020</year><month>1</month><day>1</day></starttime>"
		"<static><duration>5</duration><file>a.png</file></static></background>", f);
	fclose(f);
	ret = veil_timed_xml_load(xml, &s, &message);
	CHECK(ret == 0, "%s", message != NULL ? message : "");
	CHECK(s.n_slots == 1 && strcmp(s.slots[0].to, pic) == 0, "%s",
		s.n_slots == 1 ? s.slots[0].to : "");
	veil_timed_schedule_finish(&s);
	free(message);
	message = NULL;

	snprintf(path, sizeof(path), "%s/none.xml", dir);
	ret = veil_timed_xml_load(path, &s, &message);
	CHECK(ret == -ENOENT && message != NULL && strstr(message, path) != NULL, "%s",
		message != NULL ? message : "(none)");
	free(message);
	unlink(pic);
	unlink(xml);
	rmdir(dir);
}

#endif

int main(void) {
	test_maths();
	test_start_zones();
#if VEIL_HAVE_LIBXML2
	test_xml();
	test_gnome_defaults();
	test_locale();
	test_load();
#endif
	return check_summary("timed");
}
