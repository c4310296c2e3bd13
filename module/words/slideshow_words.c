/*
 * The words of a slideshow, after `veil <directory> [mode] [#rrggbb]`: how often the picture
 * changes, in which order, and whether subdirectories count. Pure: touches no scene.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "module/words/command.h"
#include "util/message.h"

static const char *const order_names[] = {
	[VEIL_SLIDESHOW_NAME] = "name",
	[VEIL_SLIDESHOW_MTIME] = "mtime",
	[VEIL_SLIDESHOW_SHUFFLE] = "shuffle",
};

const char *veil_slideshow_order_name(enum veil_slideshow_order order) {
	return order <= VEIL_SLIDESHOW_SHUFFLE ? order_names[order] : "name";
}

static bool parse_order(const char *word, enum veil_slideshow_order *order) {
	for (size_t i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++) {
		if (strcasecmp(word, order_names[i]) == 0) {
			*order = (enum veil_slideshow_order)i;
			return true;
		}
	}
	return false;
}

/* "30s", "10m", "1h", or a bare number of seconds: 1 s to 24 h. */
static bool parse_every(const char *word, int *seconds) {
	long value = 0;
	const char *p = word;
	if (*p < '0' || *p > '9') {
		return false;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		/* Stops growing past the bound: a long run of digits is too long, not 0. */
		value = value > VEIL_SLIDESHOW_MAX_EVERY_S ? value : value * 10 + (*p - '0');
	}
	long unit = 1;
	if (strcasecmp(p, "m") == 0 || strcasecmp(p, "min") == 0) {
		unit = 60;
	} else if (strcasecmp(p, "h") == 0) {
		unit = 3600;
	} else if (*p != '\0' && strcasecmp(p, "s") != 0) {
		return false;
	}
	if (value < 1 || value > VEIL_SLIDESHOW_MAX_EVERY_S / unit) {
		return false;
	}
	*seconds = (int)(value * unit);
	return true;
}

int veil_slideshow_words_parse(int *argc, char *argv[], struct veil_slideshow_spec *spec,
		bool *given, char **message) {
	*spec = (struct veil_slideshow_spec){
		.every_s = VEIL_SLIDESHOW_DEFAULT_EVERY_S,
		.order = VEIL_SLIDESHOW_NAME,
	};
	*given = false;
	char shown[VEIL_QUOTE_SIZE];
	bool seen_every = false, seen_order = false, seen_recursive = false;
	/* From the end: the words before the first one that is none of these are the rest. */
	while (*argc > 2) {
		int n = *argc;
		const char *last = argv[n - 1];
		const char *before = argv[n - 2];
		bool twice = (strcasecmp(last, "recursive") == 0 && seen_recursive) ||
			(n > 3 && strcasecmp(before, "order") == 0 && seen_order) ||
			(n > 3 && strcasecmp(before, "every") == 0 && seen_every);
		if (twice) {
			return veil_message_fail(message, -EINVAL, "'%s' is given twice",
				veil_message_quote(shown, strcasecmp(last, "recursive") == 0 ?
				last : before));
		}
		if (strcasecmp(last, "recursive") == 0) {
			spec->recursive = seen_recursive = true;
			*argc = n - 1;
		} else if (strcasecmp(before, "order") == 0 && n > 3) {
			if (!parse_order(last, &spec->order)) {
				return veil_message_fail(message, -EINVAL, "Unknown order '%s': "
					"expected name, mtime or shuffle", veil_message_quote(shown, last));
			}
			seen_order = true;
			*argc = n - 2;
		} else if (strcasecmp(before, "every") == 0 && n > 3) {
			if (!parse_every(last, &spec->every_s)) {
				return veil_message_fail(message, -EINVAL, "Invalid interval '%s': "
					"expected a number and s, m or h (30s, 10m, 1h), from 1s to 24h",
					veil_message_quote(shown, last));
			}
			seen_every = true;
			*argc = n - 2;
		} else {
			break;
		}
		*given = true;
	}
	return 0;
}
