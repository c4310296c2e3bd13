/*
 * timed-xml-parse: GNOME timed background XMLs read by veil's own reader (module/show/timed_xml.c,
 * veil_timed_xml_parse: the times, not the pictures), for tests over files others wrote
 * (tests/integration/test-timed-debian.py). One JSON line a file:
 *
 *   {"file": F, "ok": true, "slots": N, "cycle_ms": MS, "start": UNIX_SECONDS,
 *    "pictures": [every picture a slot names, in order]}
 *   {"file": F, "ok": false, "error": MESSAGE}
 *
 *   timed-xml-parse FILE.xml...
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "module/show/timed_schedule.h"
#include "module/show/timed_xml.h"

static void print_string(const char *s) {
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s);
		} else if ((unsigned char)*s < 0x20) {
			printf("\\u%04x", (unsigned char)*s);
		} else {
			putchar(*s);
		}
	}
	putchar('"');
}

static bool parse(const char *path) {
	gchar *data = NULL;
	gsize size = 0;
	GError *error = NULL;
	printf("{\"file\": ");
	print_string(path);
	if (!g_file_get_contents(path, &data, &size, &error)) {
		printf(", \"ok\": false, \"error\": ");
		print_string(error->message);
		printf("}\n");
		g_error_free(error);
		return false;
	}
	gchar *dir = g_path_get_dirname(path);
	struct veil_timed_schedule schedule;
	char *message = NULL;
	int ret = veil_timed_xml_parse(data, size, path, dir, &schedule, &message);
	int64_t start_ms = 0;
	if (ret == 0 && veil_timed_start_ms(&schedule, &start_ms)) {
		printf(", \"ok\": true, \"slots\": %zu, \"cycle_ms\": %lld, \"start\": %lld, "
			"\"pictures\": [", schedule.n_slots, (long long)schedule.cycle_ms,
			(long long)(start_ms / 1000));
		for (size_t i = 0; i < schedule.n_slots; i++) {
			const struct veil_timed_slot *slot = &schedule.slots[i];
			if (slot->from != NULL) {
				print_string(slot->from);
				printf(", ");
			}
			print_string(slot->to);
			printf(i + 1 < schedule.n_slots ? ", " : "");
		}
		printf("]}\n");
	} else {
		printf(", \"ok\": false, \"error\": ");
		print_string(message != NULL ? message : "no start time");
		printf("}\n");
	}
	veil_timed_schedule_finish(&schedule);
	free(message);
	g_free(dir);
	g_free(data);
	return ret == 0;
}

int main(int argc, char *argv[]) {
	if (argc < 2) {
		fprintf(stderr, "usage: timed-xml-parse FILE.xml...\n");
		return 2;
	}
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		failed += !parse(argv[i]);
	}
	return failed > 0 ? 1 : 0;
}
