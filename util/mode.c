#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "util/mode.h"

static const char *const mode_names[] = {
	[VEIL_MODE_STRETCH] = "stretch",
	[VEIL_MODE_FILL] = "fill",
	[VEIL_MODE_FIT] = "fit",
	[VEIL_MODE_CENTER] = "center",
	[VEIL_MODE_TILE] = "tile",
	[VEIL_MODE_SOLID_COLOR] = "solid_color",
	[VEIL_MODE_INTEGER] = "integer",
};

#define N_MODES (sizeof(mode_names) / sizeof(mode_names[0]))

bool veil_mode_from_name(const char *name, enum veil_mode *mode) {
	if (name == NULL) {
		return false;
	}
	for (size_t i = 0; i < N_MODES; i++) {
		if (strcasecmp(name, mode_names[i]) == 0) {
			*mode = (enum veil_mode)i;
			return true;
		}
	}
	return false;
}

const char *veil_mode_name(enum veil_mode mode) {
	if ((unsigned)mode >= N_MODES) {
		return NULL;
	}
	return mode_names[mode];
}

static int hex_digit(char c) {
	if (c >= '0' && c <= '9') {
		return c - '0';
	} else if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	} else if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

bool veil_color_parse(const char *word, uint32_t *rgb) {
	if (word == NULL) {
		return false;
	}
	bool hash = word[0] == '#';
	const char *hex = hash ? word + 1 : word;
	size_t len = strnlen(hex, 9);
	if (len != 6 && !(hash && len == 8)) {
		return false;
	}
	uint32_t value = 0;
	for (size_t i = 0; i < len; i++) {
		int digit = hex_digit(hex[i]);
		if (digit < 0) {
			return false;
		}
		value = (value << 4) | (uint32_t)digit;
	}
	if (len == 8) {
		/* Wallpapers are opaque: an alpha byte is taken only when it says so. */
		if ((value & 0xff) != 0xff) {
			return false;
		}
		value >>= 8;
	}
	if (rgb != NULL) {
		*rgb = value;
	}
	return true;
}
