/*
 * veil_power_read (module/policy/power.c): whether a directory laid out like
 * /sys/class/power_supply says the machine runs on battery. Each case writes a fresh tree in a
 * temporary directory.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "module/policy/power.h"
#include "check.h"

static char root[] = "/tmp/veil-test-power-XXXXXX";
static int tree;

/* A fresh empty tree; returns its path (static). */
static const char *new_tree(void) {
	static char path[256];
	snprintf(path, sizeof(path), "%s/%d", root, ++tree);
	if (mkdir(path, 0755) != 0) {
		abort();
	}
	return path;
}

/* A supply: attributes as name=value pairs, NULL-terminated. */
static void supply(const char *dir, const char *name, ...) {
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mkdir(path, 0755) != 0) {
		abort();
	}
	va_list args;
	va_start(args, name);
	const char *attr;
	while ((attr = va_arg(args, const char *)) != NULL) {
		const char *value = va_arg(args, const char *);
		char file[768];
		snprintf(file, sizeof(file), "%s/%s", path, attr);
		FILE *f = fopen(file, "w");
		if (f == NULL) {
			abort();
		}
		fprintf(f, "%s\n", value);
		fclose(f);
	}
	va_end(args);
}

int main(void) {
	if (mkdtemp(root) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	const char *t;

	t = new_tree();
	CHECK(!veil_power_read(t), "no supply at all (a desktop): mains");
	CHECK(!veil_power_read("/nonexistent/power_supply"), "no directory: mains");

	t = new_tree();
	supply(t, "AC", "type", "Mains", "online", "1", NULL);
	supply(t, "BAT0", "type", "Battery", "status", "Charging", NULL);
	CHECK(!veil_power_read(t), "adapter online: mains");

	t = new_tree();
	supply(t, "AC", "type", "Mains", "online", "0", NULL);
	supply(t, "BAT0", "type", "Battery", "status", "Discharging", NULL);
	CHECK(veil_power_read(t), "adapter offline: battery");

	t = new_tree();
	supply(t, "BAT0", "type", "Battery", "online", "0", NULL);
	CHECK(!veil_power_read(t), "a battery alone says nothing: mains");

	t = new_tree();
	supply(t, "ADP1", "type", "Mains", "online", "0", NULL);
	supply(t, "ucsi-source-psy-USBC000:001", "type", "USB", "online", "1", NULL);
	CHECK(!veil_power_read(t), "a USB-C charger online, the barrel adapter not: mains");

	t = new_tree();
	supply(t, "AC", "type", "Mains", "online", "0", NULL);
	supply(t, "hid-mouse", "type", "Mains", "scope", "Device", "online", "1", NULL);
	CHECK(veil_power_read(t), "a device's own supply does not count: battery");

	t = new_tree();
	supply(t, "AC", "type", "Mains", NULL);
	CHECK(!veil_power_read(t), "no online attribute: mains");

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot remove %s\n", root);
	}
	return check_summary("power");
}
